--[[
callouts.lua: turn Quarto callouts into styled boxes.

  ::: {.callout-tip title="A title"}      or     ::: {.callout-tip}
  body                                            ## A title
  :::                                             body
                                                  :::

The target is read from the document metadata `book-target` ("html" or
"typst"). HTML gets nested divs styled by book.css; typst gets a coloured
block written as raw typst around the converted body.

This filter runs before crossref.lua so that a heading used as a callout
title is not numbered as a section.

A callout labelled for cross-references (`::: {#nte-x .callout-note}`; also
tip-, wrn-, imp-, cau-) keeps its id; crossref.lua's collect pass lists it and
numbering.py numbers it. In the apply pass (the JSON context named by the
metadata `book-context` holds every label's entry) its title becomes
Quarto's "Note 1.1: title", or "Note 1.1" alone when it has no title; in
typst the block gets the label `<nte-x>` so that links to it resolve.

Custom callout types from the custom-callout extension (the context's
`custom_callouts`: class -> {title, color}, from _quarto.yml) are callouts
too: `::: todo` or `::: {.todo}`, titled by `title=`, a leading heading or the
type's default title, in every pass (their heading is no section).
]]

-- Quarto's callout types, class -> { title, color }, and the prefixes of their labels
-- (`nte`, …): made from the context's `kinds` (group "callout", its env the type, its
-- name the title; scripts/bookcheck/read/crossref_kinds.py). Only the colours are here.
local KINDS = {}
local CALLOUT_REFS = {}
local COLORS = { note = "#0758e5", tip = "#198754", warning = "#cc7a00", important = "#dc3545",
  caution = "#a05a00" }
local GREY = "#6c757d"

local target = "html"
local refs = {}
local NBSP = "\u{a0}"

local custom = {}          -- the extension's types, by class

--- The callout kind of a div ("note", "tip", ..., or a custom type's class) or nil.
local function callout_kind(div)
  for _, class in ipairs(div.classes) do
    local kind = class:match("^callout%-(%a+)$")
    if kind and KINDS[kind] then
      return kind
    end
  end
  for _, class in ipairs(div.classes) do
    if custom[class] then
      return class
    end
  end
  return nil
end

--- Title inlines and body blocks of a callout div.
--- Title and colour of a kind (a custom type: its own, grey when it names none).
local function kind_info(kind)
  if KINDS[kind] then
    return KINDS[kind]
  end
  local spec = custom[kind]
  local color = spec.color or ""
  return { title = spec.title or kind, color = color:match("^#%x%x%x%x%x%x$") and color or GREY }
end

--- Title inlines (nil: none given) and body blocks of a callout div.
local function given_title(div)
  local body = div.content
  local title_text = div.attributes["title"]
  if title_text and title_text ~= "" then
    local parsed = pandoc.read(title_text, "markdown").blocks
    return pandoc.utils.blocks_to_inlines(parsed), body
  end
  if #body > 0 and body[1].t == "Header" then
    local title = body[1].content
    local rest = pandoc.Blocks({})
    for i = 2, #body do
      rest:insert(body[i])
    end
    return title, rest
  end
  return nil, body
end

--- Title and body; a numbered callout's title is prefixed like Quarto's:
--- "Note 1.1: title", or "Note 1.1" when none is given.
local function split_title(div, kind)
  local title, body = given_title(div)
  local entry = refs[div.identifier]
  if entry and CALLOUT_REFS[entry.kind] then
    local label = pandoc.Inlines({ pandoc.Str((entry.text:gsub(" ", NBSP))) })
    if title then
      label:insert(pandoc.Str(":"))
      label:insert(pandoc.Space())
      label:extend(title)
    end
    return label, body
  end
  return title or pandoc.Inlines({ pandoc.Str(kind_info(kind).title) }), body
end

local function html_callout(div, kind, title, body)
  local classes = { "callout", "callout-" .. kind }
  return pandoc.Div({
    pandoc.Div({ pandoc.Plain(title) }, pandoc.Attr("", { "callout-title" })),
    pandoc.Div(body, pandoc.Attr("", { "callout-body" })),
  }, pandoc.Attr(div.identifier, classes, { { "role", "note" } }))
end

local function typst_callout(div, kind, title, body)
  local color = kind_info(kind).color
  local entry = refs[div.identifier]
  local label = (entry and CALLOUT_REFS[entry.kind]) and (" <" .. div.identifier .. ">") or ""
  local open = string.format(
    '#block(width: 100%%, inset: 8pt, radius: 3pt, breakable: true, '
    .. 'fill: rgb("%s").lighten(92%%), stroke: (left: 3pt + rgb("%s")))[',
    color, color)
  local blocks = pandoc.Blocks({ pandoc.RawBlock("typst", open) })
  -- the title sticks to the body's first lines: never alone at a page's foot
  blocks:insert(pandoc.RawBlock("typst", "#block(sticky: true)["))
  blocks:insert(pandoc.Para({ pandoc.Strong(title) }))
  blocks:insert(pandoc.RawBlock("typst", "]"))
  blocks:extend(body)
  blocks:insert(pandoc.RawBlock("typst", "]" .. label))
  return blocks
end

local function Div(div)
  local kind = callout_kind(div)
  if not kind then
    return nil
  end
  local title, body = split_title(div, kind)
  if target == "typst" then
    return typst_callout(div, kind, title, body)
  end
  return html_callout(div, kind, title, body)
end

--- Quarto's callout types and the prefixes of their labels, from the kinds.
local function callout_kinds(kinds)
  for prefix, kind in pairs(kinds) do
    if kind.group == "callout" then
      KINDS[kind.env] = { title = kind.name, color = COLORS[kind.env] or GREY }
      CALLOUT_REFS[prefix] = true
    end
  end
end

--- The book context: every label's entry (apply pass; none when collecting) and
--- the custom callout types.
local function read_context(doc)
  local path = pandoc.utils.stringify(doc.meta["book-context"] or "")
  local f = assert(path ~= "" and io.open(path, "r"), "callouts.lua: metadata book-context (a JSON file) is required")
  local ctx = pandoc.json.decode(f:read("a"), false)
  f:close()
  callout_kinds(ctx.kinds or error("callouts.lua: the context has no `kinds` (render/book.py writes them)"))
  local types = type(ctx.custom_callouts) == "table" and ctx.custom_callouts or {}
  if ctx.mode ~= "apply" or type(ctx.refs) ~= "table" then
    return {}, types
  end
  return ctx.refs, types
end


function Pandoc(doc)
  local t = doc.meta["book-target"]
  if t then
    target = pandoc.utils.stringify(t)
  end
  refs, custom = read_context(doc)
  return doc:walk({ Div = Div })
end
