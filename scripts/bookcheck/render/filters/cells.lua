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
  `fig-x` cell's first figure is `fig-x`; a label on several figures (a `fig-cap`
  list: Quarto 1.7.34 gives each the cell's label and its own number, 1.1, 1.2) is
  the first's, the others `fig-x-2`, … keep their numbers (a reference names the
  first; Quarto's names the last, and links to the first);
- a `fig-x` cell with `fig-subcap` (its caption the div's last paragraph, after the
  figures captioned with the sub-captions): the float `fig-x`, its figures unnumbered
  and lettered "(a) ", "(b) ", as Quarto's;
- `fig-align` on an image (HTML): its figure in Quarto's `<div class="quarto-figure
  quarto-figure-left">` (book.css aligns it; `default` is `center`); typst: an image
  without a caption in `#align(left)[…]`, as Quarto's typst.lua.
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

--- `#fig-x-1`, `#fig-x-2` (the cell `fig-x`'s outputs): the first is `fig-x`; an id
--- on several outputs is the first's, the others `<id>-2`, `<id>-3`, ….
local function relabel(blocks, id)
  local pattern = id ~= "" and ("^" .. id:gsub("%p", "%%%0") .. "%-%d+$") or nil
  local next_id = id:match("^fig%-") and id or ""
  local seen = {}
  local function rename(el)
    if pattern and el.identifier:match(pattern) then
      el.identifier, next_id = next_id, ""
      return el
    elseif seen[el.identifier] then
      seen[el.identifier] = seen[el.identifier] + 1
      el.identifier = el.identifier .. "-" .. seen[el.identifier]
      return el
    elseif el.identifier ~= "" then
      seen[el.identifier] = 1
    end
  end
  return blocks:walk({ traverse = "topdown", Figure = rename, Image = rename })
end

--- Whether `blocks` hold a figure or an image with the id `id`.
local function holds(blocks, id)
  local found = false
  local function look(el) found = found or el.identifier == id end
  blocks:walk({ Figure = look, Image = look })
  return found
end

--- A `fig-subcap` cell's outputs: its figures unnumbered, captions "(a) …", "(b) …".
local function subfigures(blocks)
  local letter = 0
  return blocks:walk({ Image = function(img)
    img.identifier = ""
    return img
  end, Figure = function(f)
    letter = letter + 1
    f.identifier = ""
    local mark = pandoc.Inlines({ pandoc.Str("(" .. string.char(96 + letter) .. ")"), pandoc.Space() })
    local first = f.caption.long[1]
    if first and first.content then
      mark:extend(first.content)
      first.content = mark
      f.caption.long[1] = first
    else
      f.caption.long = pandoc.Blocks({ pandoc.Plain(mark) })
    end
    return f
  end })
end

--- `fig-align` taken off an image (`block` a Figure or a paragraph of one image),
--- the block aligned as Quarto aligns it (see above).
local function aligned(block)
  local align
  block = block:walk({ Image = function(img)
    align = align or img.attributes["fig-align"]
    img.attributes["fig-align"] = nil
    return img
  end })
  if not align or align == "" then
    return nil
  end
  if target ~= "html" then
    if block.t ~= "Para" or align == "default" then
      return block
    end
    local inlines = pandoc.Inlines({ pandoc.RawInline("typst", "#align(" .. align .. ")[") })
    inlines:extend(block.content)
    inlines:insert(pandoc.RawInline("typst", "]"))
    return pandoc.Plain(inlines)
  end
  align = align == "default" and "center" or align
  return pandoc.Div({ block }, pandoc.Attr("", { "quarto-figure", "quarto-figure-" .. align }))
end

local function align_figures(blocks)
  return blocks:walk({
    Figure = aligned,
    Para = function(para)
      if #para.content == 1 and para.content[1].t == "Image" then
        return aligned(para)
      end
    end,
  })
end

local function cell(div)
  if not div.classes:includes("cell") then
    return nil
  end
  local code, outputs = pandoc.Blocks({}), pandoc.Blocks({})
  local subcaps = false
  for _, block in ipairs(div.content) do
    if block.t == "CodeBlock" and block.classes:includes("cell-code") then
      code:extend(code_blocks(block))
    elseif block.t == "Div" and block.classes:includes("cell-output") then
      subcaps = subcaps or holds(block.content, div.identifier .. "-1")
      outputs:extend(output_blocks(block))
    else
      outputs:insert(block)             -- `output: asis`, or the caption over sub-captions
    end
  end
  local last = div.content[#div.content]
  if subcaps and div.identifier:match("^fig%-") and (last.t == "Para" or last.t == "Plain") then
    outputs = align_figures(subfigures(outputs))   -- the caption last: crossref.lua's float
    code:insert(pandoc.Div(outputs, pandoc.Attr(div.identifier)))
    return code
  end
  outputs = align_figures(relabel(outputs, div.identifier))
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
