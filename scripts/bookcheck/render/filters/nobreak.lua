--[[
nobreak.lua: no line break between a number and the word it measures or
counts, nor between an inline formula and the punctuation after it.

A reader must not find "3.1" at the end of a line and "hours" at the start of
the next (issue 35). The numbers are inline values (`{python} x_str`), printed
by the book's package with the unit typed after them in the prose, or written
whole ("4.1 hours", "< 0.1%") in a value or a table cell; so the join is made
here, in the document every writer reads (HTML and PDF pages, prose and
tables alike), not in each string:

* a Str ending in a digit (or a digit and %), a Space, a Str starting with a
  letter, %, × or µ: the Space becomes a no-break space U+00A0 ("3.1 hours",
  "2,450 GB", "16,384 GPUs");
* a Str that is a lone relation or operator (< > ≤ ≥ ≈ ~ ×), a Space, a Str
  starting with a digit: likewise ("< 0.1%", "× 10¹¹");
* an inline formula followed by punctuation (.,;:!?)]): both in a
  `<span class="nobreak">` (HTML only; book.css keeps it on one line), since
  a browser may break after a formula as after an image.

The sources and numbers.lock keep their plain spaces: the ledger records
values as the formatters print them, and the page audit reads a no-break
space as a space (verify/audit_tokens.py).
]]

local NBSP = "\u{00A0}"
local LEADS = { "%", "×", "µ" }                    -- a word may start with these (UTF-8)
local OPERATORS = { ["<"] = true, [">"] = true, ["≤"] = true, ["≥"] = true,
                    ["≈"] = true, ["~"] = true, ["×"] = true }
local PUNCT = "^([%.,;:!%?%)%]]+)(.*)$"

local function starts_a_word(s)
  if s:match("^%a") then
    return true
  end
  for _, lead in ipairs(LEADS) do
    if s:sub(1, #lead) == lead then
      return true
    end
  end
  return false
end

local function joined(left, right)
  return (left:match("%d%%?$") and starts_a_word(right))
      or (OPERATORS[left] and right:match("^%d"))
end

local function keep_together(html)
  return function(inlines)
    local out = pandoc.Inlines({})
    local i = 1
    while i <= #inlines do
      local a, b, c = inlines[i], inlines[i + 1], inlines[i + 2]
      if a.t == "Str" and b and b.t == "Space" and c and c.t == "Str" and joined(a.text, c.text) then
        out:insert(a)
        out:insert(pandoc.Str(NBSP))
        i = i + 2                                    -- c may start the next pair
      elseif html and a.t == "Math" and a.mathtype == "InlineMath" and b and b.t == "Str"
          and b.text:match(PUNCT) then
        local punct, rest = b.text:match(PUNCT)
        out:insert(pandoc.Span({ a, pandoc.Str(punct) }, pandoc.Attr("", { "nobreak" })))
        if rest ~= "" then
          out:insert(pandoc.Str(rest))
        end
        i = i + 2
      else
        out:insert(a)
        i = i + 1
      end
    end
    return out
  end
end

function Pandoc(doc)
  local target = pandoc.utils.stringify(doc.meta["book-target"] or "")
  return doc:walk({ Inlines = keep_together(target == "html") })
end
