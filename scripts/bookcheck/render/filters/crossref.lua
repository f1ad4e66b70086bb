--[[
crossref.lua: book-wide numbering and cross-references, in two passes.

The filter reads a JSON context file named by the metadata `book-context`.

  mode "collect": list what this chapter defines, in document order
    (headings, and tbl-/fig-/eq-/lst- labels, callouts labelled nte-/tip-/
    wrn-/imp-/cau-, as callouts.lua left them, and theorem-like divs thm-/lem-/…
    and proofs prf-/rem-/sol- as theorems.lua left them; the kinds are the
    context's `kinds`), plus its title and the images it
    uses, and write that as JSON to `context.out`. The document is unchanged.
    Python (scripts/bookcheck/render/numbering.py) turns the lists of all chapters
    into numbers: numbering needs every chapter before any page is written.
    An apply pass whose context names `out` writes the same list there
    before it changes anything (the HTML target only: its callouts are the
    collect pass's).

  mode "apply": number headings (`context.headers`, one entry per heading
    in document order), prefix captions ("Table 1.1: "), show equation
    numbers, and replace every @sec-/@tbl-/@fig-/@eq-/@lst-/@nte-… citation with a link
    whose text is the label ("Table A.1") to `context.refs[id].href`.
    An unknown reference is an error: the render fails rather than
    printing "?@tbl-x" (but in a website, where Quarto prints it for a label
    of another page: `context.website`).

Equations follow Quarto's syntax: `$$ ... $$ {#eq-x}` parses as display
math followed by the string "{#eq-x}".
]]

local ctx = {}
local NBSP = "\u{a0}"
-- the cross-reference kinds, prefix -> { name, group, env }: the context's `kinds`
-- (scripts/bookcheck/read/crossref_kinds.py, the one table)
local KINDS = {}

--- "tbl" for "tbl-x", nil for ids that are not cross-reference labels.
local function label_kind(id)
  if not id then
    return nil
  end
  local prefix = id:match("^(%a+)%-.")
  if prefix and KINDS[prefix] then
    return prefix
  end
  return nil
end

local function is_unnumbered(header)
  return header.classes:includes("unnumbered")
end

--- Find `{#eq-x}` after display math in an inline list.
--- Calls on_eq(index_of_math, index_of_label, id, rest_of_string) per match.
local function scan_equations(inlines, on_eq)
  local i = 1
  while i <= #inlines do
    local el = inlines[i]
    if el.t == "Math" and el.mathtype == "DisplayMath" then
      local j = i + 1
      while j <= #inlines and (inlines[j].t == "Space" or inlines[j].t == "SoftBreak") do
        j = j + 1
      end
      if j <= #inlines and inlines[j].t == "Str" then
        local id, rest = inlines[j].text:match("^{#(eq%-[^}%s]+)}(.*)$")
        if id then
          on_eq(i, j, id, rest)
        end
      end
    end
    i = i + 1
  end
end

------------------------------------------------------------------ collect

local function collect(doc)
  local found = { headers = {}, labels = {}, images = {}, title = "" }
  doc:walk({
    Inlines = function(inlines)
      scan_equations(inlines, function(_, _, id)
        table.insert(found.labels, { id = id, kind = "eq" })
      end)
    end,
    Image = function(img)
      table.insert(found.images, img.src)
    end,
  })
  doc:walk({
    Header = function(h)
      if found.title == "" and h.level == 1 then
        found.title = pandoc.utils.stringify(h.content)
      end
      table.insert(found.headers, {
        id = h.identifier,
        level = h.level,
        unnumbered = is_unnumbered(h),
        title = h.classes:includes("title"),
        text = pandoc.utils.stringify(h.content),
      })
    end,
    Table = function(t)
      if label_kind(t.identifier) == "tbl" then
        table.insert(found.labels, { id = t.identifier, kind = "tbl" })
      end
    end,
    Figure = function(f)
      if label_kind(f.identifier) == "fig" then
        table.insert(found.labels, { id = f.identifier, kind = "fig" })
      end
    end,
    Div = function(d)
      -- a float's div; a callout, theorem or proof as callouts.lua and theorems.lua
      -- (which run first) left it: classed by its group
      local kind = label_kind(d.identifier)
      local group = kind and KINDS[kind].group
      if group == "float" or ((group == "callout" or group == "theorem" or group == "proof")
          and d.classes:includes(group)) then
        table.insert(found.labels, { id = d.identifier, kind = kind })
      end
    end,
  })
  local f = assert(io.open(ctx.out, "w"))
  f:write(pandoc.json.encode(found))
  f:close()
  return doc
end

------------------------------------------------------------------ apply

local header_index = 0

--- Inlines "Table 1.1" for a label entry of the context.
local function label_inlines(entry)
  local words = {}
  for word in entry.text:gmatch("%S+") do
    table.insert(words, word)
  end
  return pandoc.Inlines({ pandoc.Str(table.concat(words, NBSP)) })
end

local function lookup(id)
  local entry = ctx.refs[id]
  if not entry then
    error("unknown cross-reference @" .. id, 0)
  end
  return entry
end

local function number_header(h)
  header_index = header_index + 1
  local number = ctx.headers[header_index]
  if number == nil or number == pandoc.json.null or number == "" then
    return nil
  end
  local content = pandoc.Inlines({})
  if h.level == 1 then
    if ctx.chapter and ctx.chapter.appendix then
      -- Quarto: "Appendix A — Title" (crossref appendix-title / appendix-delim)
      content:insert(pandoc.Span({ pandoc.Str(ctx.appendix_title .. NBSP .. number) },
        pandoc.Attr("", { "chapter-number" })))
      -- the delimiter in a span of its own: book.css drops the number's margin before
      -- it (its no-break space is the gap), so "Appendix A — Title" has single gaps
      content:insert(pandoc.Span({ pandoc.Str(ctx.appendix_delim) }, pandoc.Attr("", { "appendix-delim" })))
      content:insert(pandoc.Space())
    else
      content:insert(pandoc.Span({ pandoc.Str(number) }, pandoc.Attr("", { "chapter-number" })))
      content:insert(pandoc.Space())
    end
    content:insert(pandoc.Span(h.content, pandoc.Attr("", { "chapter-title" })))
  else
    content:insert(pandoc.Span({ pandoc.Str(number) }, pandoc.Attr("", { "header-section-number" })))
    content:insert(pandoc.Space())
    content:extend(h.content)
  end
  h.content = content
  return h
end

--- Prefix a caption (a Caption value) with "Table 1.1: ".
local function prefix_caption(caption, entry)
  local prefix = label_inlines(entry)
  local long = caption.long
  if #long == 0 then
    caption.long = pandoc.Blocks({ pandoc.Plain(prefix) })
    return caption
  end
  local first = long[1]
  if first.content then
    local content = pandoc.Inlines({})
    content:extend(prefix)
    content:insert(pandoc.Str(":"))
    content:insert(pandoc.Space())
    content:extend(first.content)
    first.content = content
    long[1] = first
    caption.long = long
  end
  return caption
end

--- Move fig-alt to the image's alt text (what the HTML writer uses).
local function apply_alt(img)
  local alt = img.attributes["fig-alt"]
  if alt then
    img.attributes["fig-alt"] = nil
    img.attributes["alt"] = alt
  end
  if ctx.target == "typst" and ctx.image_prefix and ctx.image_prefix ~= ""
      and not img.src:match("^%a[%w+.-]*:") and not img.src:match("^/") then
    img.src = ctx.image_prefix .. img.src
  end
  return img
end

local function equation_html(math, id, entry)
  return pandoc.Span({
    math,
    pandoc.Span({ pandoc.Str("(" .. entry.number .. ")") }, pandoc.Attr("", { "eq-number" })),
  }, pandoc.Attr(id, { "equation" }))
end

-- The Math node stays in the document (the typst writer writes it in place,
-- between the raw numbering and the label), so render/typst_math.py can mark
-- its TeX spaces before the writer sees them.
local function equation_typst(math, id, entry)
  return pandoc.Span({
    pandoc.RawInline("typst", string.format('#[#set math.equation(numbering: _ => "(%s)"); ', entry.number)),
    math,
    pandoc.RawInline("typst", string.format(" <%s>]", id)),
  })
end

local function apply_equations(inlines)
  local matches = {}
  scan_equations(inlines, function(i, j, id, rest)
    table.insert(matches, { i = i, j = j, id = id, rest = rest })
  end)
  if #matches == 0 then
    return nil
  end
  for m = #matches, 1, -1 do
    local match = matches[m]
    local entry = lookup(match.id)
    local math = inlines[match.i]
    local replacement
    if ctx.target == "typst" then
      replacement = equation_typst(math, match.id, entry)
    else
      replacement = equation_html(math, match.id, entry)
    end
    if match.rest ~= "" then
      inlines[match.j] = pandoc.Str(match.rest)
    else
      inlines:remove(match.j)
    end
    for _ = match.i + 1, match.j - 1 do
      if inlines[match.i + 1].t == "Space" or inlines[match.i + 1].t == "SoftBreak" then
        inlines:remove(match.i + 1)
      end
    end
    inlines[match.i] = replacement
  end
  return inlines
end

--- A citation group may mix cross-references and bibliography keys.
local function apply_cite(cite)
  local links = pandoc.Inlines({})
  local others = {}
  for _, c in ipairs(cite.citations) do
    -- `@Fig-x` is Quarto's capitalised form of `@fig-x`
    local id = c.id:gsub("^%u", string.lower)
    if label_kind(id) and not ctx.refs[id] then
      -- another page's label in a website (a website-ref finding of the check), or an
      -- unknown label the check's baseline accepts, shown as Quarto 1.7 shows it (the
      -- audit sees it): **?@id** in a website, `?id` in a quarto-unresolved-ref span in a book
      if #links > 0 then
        links:insert(pandoc.Str(","))
        links:insert(pandoc.Space())
      end
      if ctx.website then
        links:insert(pandoc.Strong({ pandoc.Str("?@" .. c.id) }))
      else
        links:insert(pandoc.Span({ pandoc.Str("?" .. c.id) }, { class = "quarto-unresolved-ref" }))
      end
    elseif label_kind(id) then
      local entry = lookup(id)
      local text = label_inlines(entry)
      if entry.kind == "sec" and ctx.plain_sections and entry.plain ~= "" then
        text = pandoc.Inlines({ pandoc.Str(entry.plain) })   -- `number-sections: false`
      end
      if c.mode == "SuppressAuthor" then
        text = pandoc.Inlines({ pandoc.Str(entry.number) })
      end
      if #links > 0 then
        links:insert(pandoc.Str(","))
        links:insert(pandoc.Space())
      end
      if #c.prefix > 0 then
        links:extend(c.prefix)
        links:insert(pandoc.Space())
      end
      links:insert(pandoc.Link(text, entry.href, "", pandoc.Attr("", { "quarto-xref" })))
      links:extend(c.suffix)
    else
      table.insert(others, c)
    end
  end
  if #links == 0 then
    return nil
  end
  if #others > 0 then
    links:insert(pandoc.Space())
    links:insert(pandoc.Cite(pandoc.Inlines({}), others))
  end
  return links
end

--- The first table of a raw HTML block (pandas' `<table class="dataframe">`), read
--- by pandoc's HTML reader, or nil.
local function html_table(raw)
  local found = nil
  pandoc.read(raw.text, "html").blocks:walk({
    Table = function(t)
      found = found or t
    end,
  })
  return found
end

--- A listing as Quarto shows it: its caption above its code.
local function listing(d, body, caption_inlines, entry)
  local caption = prefix_caption({ long = pandoc.Blocks({ pandoc.Plain(caption_inlines or {}) }) }, entry)
  body:insert(1, pandoc.Div(caption.long, pandoc.Attr("", { "listing-caption" })))
  return pandoc.Div(body, pandoc.Attr(d.identifier, { "listing" }))
end

--- Quarto's div syntax for floats: `::: {#fig-x}` (content, then the
--- caption as the last paragraph; floats.lua puts a `fig-cap=` there) becomes a
--- Figure; `::: {#tbl-x}` around a table gives the table that id (and the last
--- paragraph as its caption); `::: {#lst-x}` around code is a listing.
local function float_div(d)
  local kind = label_kind(d.identifier)
  if not kind or KINDS[kind].group ~= "float" then
    return nil
  end
  local entry = lookup(d.identifier)
  local body = pandoc.Blocks({})
  body:extend(d.content)
  local caption_inlines = nil
  local last = body[#body]
  if #body > 1 and last and (last.t == "Para" or last.t == "Plain") then
    caption_inlines = last.content
    body:remove(#body)
  end
  if kind == "lst" then
    return listing(d, body, caption_inlines, entry)
  end
  if kind == "tbl" then
    for i, block in ipairs(body) do
      if block.t == "RawBlock" and block.format == "html" and block.text:find("<table") then
        block = html_table(block) or block   -- a DataFrame's HTML: a real table, as in Quarto
      end
      if block.t == "Table" then
        block.identifier = d.identifier
        if caption_inlines and #block.caption.long == 0 then
          block.caption.long = pandoc.Blocks({ pandoc.Plain(caption_inlines) })
        end
        block.caption = prefix_caption(block.caption, entry)
        body[i] = block
        return body
      end
    end
  end
  local caption = prefix_caption({ long = pandoc.Blocks({ pandoc.Plain(caption_inlines or {}) }) }, entry)
  return pandoc.Figure(body, caption.long, pandoc.Attr(d.identifier, d.classes, d.attributes))
end

local function apply(doc)
  doc = doc:walk({
    Inlines = apply_equations,
  })
  doc = doc:walk({
    Cite = apply_cite,
    Image = apply_alt,
  })
  return doc:walk({
    Header = number_header,
    Table = function(t)
      if ctx.target == "typst" then
        -- let typst size columns by their content: the relative widths pandoc
        -- derives from a pipe table's dashes squeeze short first columns
        for i, spec in ipairs(t.colspecs) do
          t.colspecs[i] = { spec[1], pandoc.ColWidthDefault }
        end
      end
      if label_kind(t.identifier) == "tbl" then
        t.caption = prefix_caption(t.caption, lookup(t.identifier))
      end
      return t
    end,
    Figure = function(f)
      if label_kind(f.identifier) == "fig" then
        f.caption = prefix_caption(f.caption, lookup(f.identifier))
        return f
      end
    end,
    Div = float_div,
  })
end

------------------------------------------------------------------ entry

--- Give a chapter without a level-1 heading its title as Quarto's book does:
--- its `title:`, else its first heading (`## x` too), moved to the top of the
--- page as the level-1 title (the text before it stays; the other headings keep
--- their levels). A chapter with no heading at all gets none.
local function ensure_title(doc)
  if ctx.website then
    -- a website's page (each page its own document): its `title:` above its headings
    -- (Quarto's title block), none without one
    if doc.meta.title then
      local title = doc.meta.title
      doc.blocks:insert(1, pandoc.Header(1, pandoc.utils.type(title) == "Inlines" and title
        or pandoc.Inlines({ pandoc.Str(pandoc.utils.stringify(title)) }), pandoc.Attr("", { "title" })))
    end
    return doc
  end
  local first = nil
  for i, block in ipairs(doc.blocks) do
    if block.t == "Header" then
      if block.level == 1 then
        return doc
      end
      first = first or i
    end
  end
  if doc.meta.title then
    local title = doc.meta.title
    local inlines = pandoc.utils.type(title) == "Inlines" and title
      or pandoc.Inlines({ pandoc.Str(pandoc.utils.stringify(title)) })
    doc.blocks:insert(1, pandoc.Header(1, inlines))
  elseif first then
    local heading = doc.blocks[first]
    doc.blocks:remove(first)
    heading.level = 1
    doc.blocks:insert(1, heading)
  end
  return doc
end

function Pandoc(doc)
  local path = pandoc.utils.stringify(doc.meta["book-context"] or "")
  if path == "" then
    error("crossref.lua: metadata book-context (a JSON file) is required")
  end
  local f = assert(io.open(path, "r"))
  ctx = pandoc.json.decode(f:read("a"), false)
  f:close()
  KINDS = ctx.kinds or error("crossref.lua: the context has no `kinds` (render/book.py writes them)")
  ctx.refs = ctx.refs or {}
  ctx.headers = ctx.headers or {}
  ctx.appendix_title = ctx.appendix_title or "Appendix"
  ctx.appendix_delim = (ctx.appendix_delim or " —"):gsub("^ ", NBSP)
  doc = ensure_title(doc)
  if ctx.mode == "collect" then
    return collect(doc)
  end
  if ctx.out then
    collect(doc) -- the apply pass reports the facts too (book.py's speculative render)
  end
  return apply(doc)
end
