--[[
theorems.lua: Quarto 1.7's theorem-like divs (`::: {#thm-x}`; also lem-, cor-, prp-,
cnj-, def-, exm-, exr-: quarto-cli 1.7.34 src/resources/filters/customnodes/theorem.lua)
and proofs (`::: {#sol-x}`; also prf-, rem-: customnodes/proof.lua). The kinds are the
context's `kinds` (group "theorem" or "proof"; scripts/bookcheck/read/crossref_kinds.py).
Runs before crossref.lua.

  ::: {#thm-x}                 ::: {#lem-y name="Named"}
  ## Pythagoras                Body.
  In a right triangle.         :::
  :::

Every pass: a leading heading (or `name=`) is the theorem's name, not a section; the
div gets Quarto's classes (the group, `theorem` or `proof`, and its environment,
`lemma`, `solution`, … when that differs), so crossref.lua lists it and numbering.py
numbers each kind per chapter. Apply pass (the JSON context named by `book-context`
holds every label's entry): the first paragraph starts with **Theorem 1.1 (Pythagoras)**,
or a proof's *Solution 1.1* (Named). as Quarto writes them.
]]

local kinds = {}
local refs = {}

local function name_inlines(name)
  local text = pandoc.Inlines({ pandoc.Str("(") })
  text:extend(name)
  text:insert(pandoc.Str(")"))
  return text
end

--- **Theorem 1.1 (Name)** ; a proof's *Solution 1.1* (Name).
local function title_inlines(group, entry, name)
  local named = name and #name > 0
  local label = pandoc.Inlines({ pandoc.Str(entry.text) })
  if group == "proof" then
    local title = pandoc.Inlines({ pandoc.Emph(label) })
    if named then
      title:insert(pandoc.Space())
      title:extend(name_inlines(name))
    end
    title:extend({ pandoc.Str("."), pandoc.Space() })
    return pandoc.Inlines({ pandoc.Span(title, pandoc.Attr("", { "proof-title" })) })
  end
  if named then
    label:insert(pandoc.Space())
    label:extend(name_inlines(name))
  end
  return pandoc.Inlines({ pandoc.Span({ pandoc.Strong(label) }, pandoc.Attr("", { "theorem-title" })),
    pandoc.Space() })
end

local function theorem(d)
  local prefix = d.identifier:match("^(%a+)%-.")
  local kind = prefix and kinds[prefix]
  if not kind or (kind.group ~= "theorem" and kind.group ~= "proof") then
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
  d.classes = pandoc.List(kind.env == kind.group and { kind.group } or { kind.group, kind.env })
  local entry = refs[d.identifier]
  if entry then
    local first = d.content[1]
    if first and first.t == "Para" then
      local content = title_inlines(kind.group, entry, name)
      content:extend(first.content)
      first.content = content
    else
      local title = title_inlines(kind.group, entry, name)
      title:insert(pandoc.Str("\u{a0}"))
      d.content:insert(1, pandoc.Para(title))
    end
  end
  return d
end

function Pandoc(doc)
  local path = pandoc.utils.stringify(doc.meta["book-context"] or "")
  local f = assert(path ~= "" and io.open(path, "r"), "theorems.lua: metadata book-context (a JSON file) is required")
  local ctx = pandoc.json.decode(f:read("a"), false)
  f:close()
  kinds = ctx.kinds or error("theorems.lua: the context has no `kinds` (render/book.py writes them)")
  refs = ctx.mode == "apply" and ctx.refs or {}
  return doc:walk({ Div = theorem })
end
