--[[
cells.lua: the Jupyter engine's code cells as the built-in page shows them.

A chapter's Markdown is the one Quarto 1.7's Jupyter engine writes, the text
handed to Quarto's freeze (scripts/bookcheck/render/engine_md.py): a code cell is a
`::: {.cell}` div around its code (`.cell-code`) and one `::: {.cell-output …}`
div per output. Run before callouts.lua and crossref.lua, this filter puts the
cell's blocks in its place:

- its code, with Quarto's code options (HTML; the PDF shows the code as is):
  `code-fold` (`true`: folded, `show`: open) puts it in a `<details
  class="code-fold">` whose `<summary>` is `code-summary` (default "Code");
  `code-line-numbers` numbers its lines (book.css);
- a stream, a plain-text display or an error: its code block, classed
  `cell-output` (and `cell-output-error`); Markdown, HTML and images as they are;
- a cell labelled `tbl-x` with `tbl-cap`: its outputs in Quarto's table float
  `::: {#tbl-x}`, the caption last, after its code (crossref.lua numbers the
  float and captions the Markdown or DataFrame table inside);
- the outputs' own labels (`#fig-x-1`: Quarto's sub-floats) are dropped; a
  `fig-x` cell's first figure is `fig-x`.
]]

local target = "html"
local CODE_OPTIONS = { "code-fold", "code-summary", "code-line-numbers" }

local function escape(text)
  return (text:gsub("&", "&amp;"):gsub("<", "&lt;"):gsub(">", "&gt;"):gsub('"', "&quot;"))
end

--- A code block with numbered lines: one span per line, numbered by book.css.
local function numbered(code)
  local lines = {}
  for line in (code.text .. "\n"):gmatch("(.-)\n") do
    table.insert(lines, '<span class="line">' .. escape(line) .. "</span>")
  end
  local classes = table.concat(code.classes, " ") .. " number-lines"
  return pandoc.RawBlock("html", '<pre class="' .. classes .. '"><code>'
    .. table.concat(lines, "\n") .. "</code></pre>")
end

local function code_blocks(code)
  local opts = {}
  for _, key in ipairs(CODE_OPTIONS) do
    opts[key] = code.attributes[key]
    code.attributes[key] = nil
  end
  if target ~= "html" then
    return { code }
  end
  local lines, fold = opts["code-line-numbers"], opts["code-fold"]
  local block = (lines and lines ~= "false") and numbered(code) or code
  if not fold or fold == "false" then
    return { block }
  end
  local open = fold == "show" and ' open=""' or ""
  return { pandoc.RawBlock("html", "<details" .. open .. ' class="code-fold">\n<summary>'
             .. escape(opts["code-summary"] or "Code") .. "</summary>"),
           block, pandoc.RawBlock("html", "</details>") }
end

local function output_blocks(div)
  if not div.classes:includes("cell-output-markdown") then
    local classes = div.classes:includes("cell-output-error")
      and { "cell-output", "cell-output-error" } or { "cell-output" }
    for _, block in ipairs(div.content) do
      if block.t == "CodeBlock" and #block.classes == 0 then
        block.classes = classes
      end
    end
  end
  return div.content
end

--- `#fig-x-1`, `#fig-x-2` (the cell `fig-x`'s outputs): the first is `fig-x`.
local function relabel(blocks, id)
  if id == "" then
    return blocks
  end
  local pattern = "^" .. id:gsub("%p", "%%%0") .. "%-%d+$"
  local next_id = id:match("^fig%-") and id or ""
  local function rename(el)
    if el.identifier:match(pattern) then
      el.identifier, next_id = next_id, ""
      return el
    end
  end
  return blocks:walk({ traverse = "topdown", Figure = rename, Image = rename })
end

local function cell(div)
  if not div.classes:includes("cell") then
    return nil
  end
  local code, outputs = pandoc.Blocks({}), pandoc.Blocks({})
  for _, block in ipairs(div.content) do
    if block.t == "CodeBlock" and block.classes:includes("cell-code") then
      code:extend(code_blocks(block))
    elseif block.t == "Div" and block.classes:includes("cell-output") then
      outputs:extend(output_blocks(block))
    else
      outputs:insert(block)             -- `output: asis`
    end
  end
  outputs = relabel(outputs, div.identifier)
  local caption = div.attributes["tbl-cap"]
  if caption and div.identifier:match("^tbl%-") then
    outputs:insert(pandoc.Plain(pandoc.utils.blocks_to_inlines(pandoc.read(caption, "markdown").blocks)))
    code:insert(pandoc.Div(outputs, pandoc.Attr(div.identifier)))
    return code
  end
  code:extend(outputs)
  local classes = div.classes:filter(function(c) return c ~= "cell" end)
  if #classes > 0 then                  -- the `classes` option: the cell keeps a div of them
    return pandoc.Div(code, pandoc.Attr("", { "cell", table.unpack(classes) }))
  end
  return code
end

--- Quarto's engine-escape.lua: "```{{python}}" in a code block shows as "```{python}"
--- (`echo: fenced`, or a page showing a cell's source), in a Markdown block.
local function unescape_engine(code)
  code.text = code.text:gsub("```{({+[^<}]+}+)}", function(engine)
    if code.classes[1] ~= "python" then
      code.classes:insert(1, "markdown")
    end
    return "```" .. engine
  end)
  return code
end

function Pandoc(doc)
  target = pandoc.utils.stringify(doc.meta["book-target"] or "html")
  return doc:walk({ CodeBlock = unescape_engine, Div = cell })
end
