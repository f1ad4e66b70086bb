--[[
floats.lua: Quarto's other ways of writing a float, in the one form crossref.lua
numbers (a div whose last paragraph is its caption). Runs before crossref.lua.

- `::: {#fig-x fig-cap="…" fig-alt="…"}`, `::: {#tbl-x tbl-cap="…"}`,
  `::: {#lst-x lst-cap="…"}`: the caption attribute (Markdown) becomes the
  div's last paragraph, unless it has one already (Quarto 1.7.34's
  parsefiguredivs.lua: a last paragraph after other content wins, and the
  attribute is dropped); `fig-alt` becomes the alt text of the div's images (unless
  one has its own `fig-alt`) (Quarto 1.7 puts it on the float's outer div, where no reader sees it);
- a code block `{#lst-x lst-cap="…"}`: a `lst-x` div around the block and its caption
  (Quarto 1.7 names it "Listing 1.1" as well).
]]

-- the float kinds, prefix -> its caption attribute (`fig-cap`): the context's `kinds`
-- of group "float" (scripts/bookcheck/read/crossref_kinds.py), read by `read_kinds`
local CAPTIONS = {}

local function read_kinds(meta)
  local path = pandoc.utils.stringify(meta["book-context"] or "")
  local f = assert(path ~= "" and io.open(path, "r"), "floats.lua: metadata book-context (a JSON file) is required")
  local ctx = pandoc.json.decode(f:read("a"), false)
  f:close()
  for prefix, kind in pairs(ctx.kinds or error("floats.lua: the context has no `kinds` (render/book.py writes them)")) do
    if kind.group == "float" then
      CAPTIONS[prefix] = prefix .. "-cap"
    end
  end
end

local function caption_block(text)
  local blocks = pandoc.read(text, "markdown").blocks
  return pandoc.Plain(pandoc.utils.blocks_to_inlines(blocks))
end

local function kind_of(id)
  local prefix = (id or ""):match("^(%a+)%-.")
  return prefix and CAPTIONS[prefix] and prefix or nil
end

--- `fig-alt` on the images of a figure div that have no alt text of their own.
local function give_alt(blocks, alt)
  return blocks:walk({
    Image = function(img)
      if not img.attributes["fig-alt"] then
        img.attributes["fig-alt"] = alt
        return img
      end
    end,
  })
end

local function div(d)
  local kind = kind_of(d.identifier)
  if not kind then
    return nil
  end
  local caption = d.attributes[CAPTIONS[kind]]
  local alt = d.attributes["fig-alt"]
  d.attributes[CAPTIONS[kind]] = nil
  if kind == "fig" and alt then
    d.attributes["fig-alt"] = nil
    d.content = give_alt(d.content, alt)
  end
  local last = d.content[#d.content]
  local has_caption = #d.content > 1 and last.t == "Para"   -- Quarto's refCaptionFromDiv
  if caption and not has_caption then
    d.content:insert(caption_block(caption))
  end
  return d
end

local function code_block(code)
  if kind_of(code.identifier) ~= "lst" then
    return nil
  end
  local id, caption = code.identifier, code.attributes["lst-cap"]
  code.identifier, code.attributes["lst-cap"] = "", nil
  local content = pandoc.Blocks({ code })
  if caption then
    content:insert(caption_block(caption))
  end
  return pandoc.Div(content, pandoc.Attr(id))
end

return { { Meta = read_kinds }, { Div = div, CodeBlock = code_block } }
