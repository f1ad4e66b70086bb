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
]]

local KINDS = {
  note = { title = "Note", color = "#0758e5" },
  tip = { title = "Tip", color = "#198754" },
  warning = { title = "Warning", color = "#cc7a00" },
  important = { title = "Important", color = "#dc3545" },
  caution = { title = "Caution", color = "#a05a00" },
}

local target = "html"

--- The callout kind of a div ("note", "tip", ...) or nil.
local function callout_kind(div)
  for _, class in ipairs(div.classes) do
    local kind = class:match("^callout%-(%a+)$")
    if kind and KINDS[kind] then
      return kind
    end
  end
  return nil
end

--- Title inlines and body blocks of a callout div.
local function split_title(div, kind)
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
  return pandoc.Inlines({ pandoc.Str(KINDS[kind].title) }), body
end

local function html_callout(div, kind, title, body)
  local classes = { "callout", "callout-" .. kind }
  return pandoc.Div({
    pandoc.Div({ pandoc.Plain(title) }, pandoc.Attr("", { "callout-title" })),
    pandoc.Div(body, pandoc.Attr("", { "callout-body" })),
  }, pandoc.Attr(div.identifier, classes, { { "role", "note" } }))
end

local function typst_callout(div, kind, title, body)
  local color = KINDS[kind].color
  local open = string.format(
    '#block(width: 100%%, inset: 8pt, radius: 3pt, breakable: true, '
    .. 'fill: rgb("%s").lighten(92%%), stroke: (left: 3pt + rgb("%s")))[',
    color, color)
  local blocks = pandoc.Blocks({ pandoc.RawBlock("typst", open) })
  blocks:insert(pandoc.Para({ pandoc.Strong(title) }))
  blocks:extend(body)
  blocks:insert(pandoc.RawBlock("typst", "]"))
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

function Pandoc(doc)
  local t = doc.meta["book-target"]
  if t then
    target = pandoc.utils.stringify(t)
  end
  return doc:walk({ Div = Div })
end
