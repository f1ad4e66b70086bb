--[[
citations.lua: record a page's rendered citations, or reuse them without citeproc.

Metadata `cites-mode` says which, `cites-file` names the record (JSON).

  capture  (runs after --citeproc) write each Cite's signature (its citations:
           id, mode, prefix, suffix, note number) and rendered content, in
           document order, and the blocks citeproc appended at the end (the
           "References" heading and the `#refs` list). The document is unchanged.

  reuse    (runs instead of --citeproc) give each Cite the recorded content and
           append the recorded blocks. Fails with "citations-changed" unless the
           Cites are exactly the recorded ones, in the same order, and the
           document has no `#refs` div of its own (citeproc fills that in place):
           the caller then runs citeproc.

citeproc renders a citation from the sequence of citations and the
bibliography alone, never from the text around it; so with the same sequence
(and the same style, bibliography and front matter, which the caller keys the
record by) the two give the same document.
]]

local function inlines_json(inlines)
  return pandoc.write(pandoc.Pandoc({ pandoc.Plain(inlines) }), "json")
end

local function signature(cite)
  local parts = {}
  for _, c in ipairs(cite.citations) do
    parts[#parts + 1] = table.concat({ c.id, c.mode, inlines_json(c.prefix), inlines_json(c.suffix),
      tostring(c.note_num) }, "\1")
  end
  return table.concat(parts, "\2")
end

local function has_refs_div(doc)
  local found = false
  doc:walk({ Div = function(d)
    if d.identifier == "refs" then
      found = true
    end
  end })
  return found
end

local function capture(doc, path)
  local signatures, rendered = {}, {}
  doc:walk({ Cite = function(cite)
    signatures[#signatures + 1] = signature(cite)
    rendered[#rendered + 1] = inlines_json(cite.content)
  end })
  local appended = {}
  for i, block in ipairs(doc.blocks) do
    if block.t == "Div" and block.identifier == "refs" and i == #doc.blocks then
      local heading = doc.blocks[i - 1]
      if heading and heading.t == "Header" and heading.identifier == "bibliography" then
        appended[#appended + 1] = heading
      end
      appended[#appended + 1] = block
    end
  end
  local record = { signatures = signatures, rendered = rendered,
    appended = pandoc.write(pandoc.Pandoc(appended), "json") }
  local f = assert(io.open(path, "w"))
  f:write(pandoc.json.encode(record))
  f:close()
  return doc
end

local function reuse(doc, path)
  local f = assert(io.open(path, "r"))
  local record = pandoc.json.decode(f:read("a"), false)
  f:close()
  if has_refs_div(doc) then
    error("citations-changed: the page has its own #refs div", 0)
  end
  local count = 0
  doc = doc:walk({ Cite = function(cite)
    count = count + 1
    if record.signatures[count] ~= signature(cite) then
      error("citations-changed at citation " .. count, 0)
    end
    local content = pandoc.read(record.rendered[count], "json").blocks[1].content
    return pandoc.Cite(content, cite.citations)
  end })
  if count ~= #record.signatures then
    error("citations-changed: " .. count .. " citations, " .. #record.signatures .. " recorded", 0)
  end
  for _, block in ipairs(pandoc.read(record.appended, "json").blocks) do
    doc.blocks:insert(block)
  end
  return doc
end

function Pandoc(doc)
  local mode = pandoc.utils.stringify(doc.meta["cites-mode"] or "")
  local path = pandoc.utils.stringify(doc.meta["cites-file"] or "")
  if path == "" then
    error("citations.lua: metadata cites-file is required")
  end
  if mode == "capture" then
    return capture(doc, path)
  elseif mode == "reuse" then
    return reuse(doc, path)
  end
  error("citations.lua: cites-mode must be capture or reuse, not '" .. mode .. "'")
end
