--[[
theorems.lua: Quarto 1.7's theorem-like divs (`::: {#thm-x}`; also lem-, cor-, prp-,
cnj-, def-, exm-, exr-: quarto-cli 1.7.34 src/resources/filters/customnodes/theorem.lua).
Runs before crossref.lua.

  ::: {#thm-x}                 ::: {#lem-y name="Named"}
  ## Pythagoras                Body.
  In a right triangle.         :::
  :::

Every pass: a leading heading (or `name=`) is the theorem's name, not a section; the
div gets Quarto's classes (`theorem`, and `lemma`, … for the others), so crossref.lua
lists it and numbering.py numbers each kind per chapter. Apply pass (the JSON context
named by `book-context` holds every label's entry): the first paragraph starts with
**Theorem 1.1 (Pythagoras)**, as Quarto writes it.
]]

local ENVS = { thm = "theorem", lem = "lemma", cor = "corollary", prp = "proposition",
  cnj = "conjecture", def = "definition", exm = "example", exr = "exercise" }
local refs = {}

local function title_inlines(entry, name)
  local text = pandoc.Inlines({ pandoc.Str(entry.text) })
  if name and #name > 0 then
    text:insert(pandoc.Space())
    text:insert(pandoc.Str("("))
    text:extend(name)
    text:insert(pandoc.Str(")"))
  end
  return pandoc.Inlines({ pandoc.Span({ pandoc.Strong(text) }, pandoc.Attr("", { "theorem-title" })),
    pandoc.Space() })
end

local function theorem(d)
  local prefix = d.identifier:match("^(%a+)%-.")
  local env = prefix and ENVS[prefix]
  if not env then
    return nil
  end
  local name = nil
  if d.attributes["name"] then
    name = pandoc.utils.blocks_to_inlines(pandoc.read(d.attributes["name"], "markdown").blocks)
    d.attributes["name"] = nil
  elseif d.content[1] and d.content[1].t == "Header" then
    name = d.content[1].content
    d.content:remove(1)
  end
  d.classes = pandoc.List(env == "theorem" and { "theorem" } or { "theorem", env })
  local entry = refs[d.identifier]
  if entry then
    local first = d.content[1]
    if first and first.t == "Para" then
      local content = title_inlines(entry, name)
      content:extend(first.content)
      first.content = content
    else
      local title = title_inlines(entry, name)
      title:insert(pandoc.Str("\u{a0}"))
      d.content:insert(1, pandoc.Para(title))
    end
  end
  return d
end

function Pandoc(doc)
  local path = pandoc.utils.stringify(doc.meta["book-context"] or "")
  local f = path ~= "" and io.open(path, "r")
  if f then
    local ctx = pandoc.json.decode(f:read("a"), false)
    f:close()
    refs = ctx.mode == "apply" and ctx.refs or {}
  end
  return doc:walk({ Div = theorem })
end
