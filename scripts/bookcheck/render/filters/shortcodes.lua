--[[
shortcodes.lua: Quarto 1.7's shortcodes on the built-in page. Runs first.

render/shortcodes.py marked each shortcode of the prose as a raw inline of the
format `shortcode` (`{{< meta title >}}`); this filter resolves it as Quarto does
(quarto-cli 1.7.34 src/resources/filters/quarto-pre/shortcodes-handlers.lua and
extensions/quarto/kbd):

- `meta key` (`a.b` for nested keys): the front matter's value, else the project's
  (`shortcodes.metadata` of the JSON context), as Markdown; `meta title` without
  one is the chapter's first heading;
- `var key`: `_variables.yml` (`shortcodes.variables`), as Markdown;
- `env NAME [default]`: the environment variable (`shortcodes.environment`), else the default;
- `kbd Ctrl-C` (and `mac=`, `win=`, `linux=`): `<kbd>` keys;
- `pagebreak`: a page break (HTML `page-break-after`, typst `#pagebreak()`);
- in code (inline code, a code block), `meta`, `var` and `env` as plain text.

Anything else (`video`, `lipsum`, an extension's shortcode), or a key no value has,
stops the render with the shortcode and the way out: Quarto would show it, or
print `?meta:key`; here nothing is left raw on the page.
]]

local ctx = { metadata = {}, variables = {}, environment = {} }
local target = "html"
local doc_meta = {}
local first_heading = nil

local function fail(code, why)
  error(code .. ": " .. why, 0)
end

--- name, positional arguments, keyword arguments of "{{< name a b k=v >}}".
local function parse(code)
  local inner = code:match("^{{<%s*(.-)%s*>}}$") or ""
  local words, rest = {}, inner
  while rest:match("%S") do
    rest = rest:gsub("^%s+", "")
    local q = rest:sub(1, 1)
    if q == '"' or q == "'" then
      local stop = rest:find(q, 2, true) or (#rest + 1)
      table.insert(words, rest:sub(2, stop - 1))
      rest = rest:sub(stop + 1)
    else
      local word, after = rest:match("^(%S+)(.*)$")
      table.insert(words, word)
      rest = after
    end
  end
  local name = table.remove(words, 1) or ""
  local args, kwargs = {}, {}
  for _, word in ipairs(words) do
    local k, v = word:match("^([%w_-]+)=(.*)$")
    if k then
      kwargs[k] = v:gsub('^"(.*)"$', "%1"):gsub("^'(.*)'$", "%1")
    else
      table.insert(args, word)
    end
  end
  return name, args, kwargs
end

local function lookup(mapping, key)
  local value = mapping
  for part in key:gmatch("[^.]+") do
    if type(value) ~= "table" then
      return nil
    end
    value = value[part]
  end
  return value
end

--- Inlines of a metadata or variable value (scalars only, as Quarto).
local function inlines_of(value, code)
  local kind = pandoc.utils.type(value)
  if kind == "Inlines" then
    return value
  elseif kind == "Blocks" then
    return pandoc.utils.blocks_to_inlines(value)
  elseif type(value) == "string" then
    return pandoc.utils.blocks_to_inlines(pandoc.read(value, "markdown").blocks)
  elseif type(value) == "number" or type(value) == "boolean" then
    return pandoc.Inlines({ pandoc.Str(tostring(value)) })
  end
  fail(code, "its value is a list or a mapping, which Quarto does not show (name a single value)")
end

local function meta(args, code)
  local key = (args[1] or ""):gsub("^[\"'](.*)[\"']$", "%1")
  local value = lookup(doc_meta, key)
  if value == nil then
    value = lookup(ctx.metadata, key)
  end
  if value == nil and key == "title" and first_heading then
    value = first_heading
  end
  if value == nil then
    fail(code, "no metadata `" .. key .. "` (Quarto prints ?meta:" .. key
      .. "): set it in the front matter or _quarto.yml, or fix the key")
  end
  return inlines_of(value, code)
end

local function var(args, code)
  local value = lookup(ctx.variables, args[1] or "")
  if value == nil then
    fail(code, "_variables.yml has no `" .. (args[1] or "") .. "`: add it, or fix the key")
  end
  return inlines_of(value, code)
end

local function env(args, code)
  local value = (ctx.environment or {})[args[1] or ""] or args[2]
  if value == nil then
    fail(code, "the environment has no " .. (args[1] or "") .. " (Quarto prints ?env:"
      .. (args[1] or "") .. "): set it, or give a default: {{< env NAME \"default\" >}}")
  end
  return pandoc.Inlines({ pandoc.Str(value) })
end

local OS_NAMES = { mac = "mac", win = "windows", linux = "linux" }

local function key_inline(keys)
  if target == "html" then
    return pandoc.RawInline("html", "<kbd>" .. keys:gsub("&", "&amp;"):gsub("<", "&lt;") .. "</kbd>")
  end
  return pandoc.Code(keys)
end

local function kbd(args, kwargs)
  local out = pandoc.Inlines({})
  if args[1] then
    out:insert(key_inline(args[1]))
  end
  local names = {}
  for k in pairs(kwargs) do
    table.insert(names, k)
  end
  table.sort(names)
  for i, k in ipairs(names) do
    out:insert(pandoc.Str((i == 1 and (#out > 0 and " (" or "") or "; ") .. (OS_NAMES[k] or k) .. ": "))
    out:insert(key_inline(kwargs[k]))
  end
  if args[1] and #names > 0 then
    out:insert(pandoc.Str(")"))
  end
  return out
end

local function pagebreak()
  if target == "typst" then
    return pandoc.RawInline("typst", "#pagebreak()")
  end
  return pandoc.RawInline("html", '<div style="page-break-after: always;"></div>')
end

local function resolve(code)
  local name, args, kwargs = parse(code)
  if name == "meta" then
    return meta(args, code)
  elseif name == "var" then
    return var(args, code)
  elseif name == "env" then
    return env(args, code)
  elseif name == "kbd" then
    return kbd(args, kwargs)
  elseif name == "pagebreak" then
    return pandoc.Inlines({ pagebreak() })
  end
  fail(code, "the built-in renderer does not implement the `" .. name .. "` shortcode: "
    .. "render with Quarto (put `quarto` on PATH), or write its HTML in a raw block")
end

local function raw_inline(el)
  if el.format == "shortcode" then
    return resolve(el.text)
  end
end

--- Code shows a shortcode's value as text (Quarto resolves them in code too);
--- `{{{< x >}}}` shows `{{< x >}}`.
local TEXT_VALUED = { meta = true, var = true, env = true }

local function in_code(el)
  if not el.text:find("{{<", 1, true) then
    return nil
  end
  local escaped = {}
  local text = el.text:gsub("{({{<.->}})}", function(code)
    table.insert(escaped, code)
    return "\0" .. #escaped .. "\0"
  end)
  text = text:gsub("{{<.->}}", function(code)
    if not TEXT_VALUED[parse(code)] then
      fail(code, "the built-in renderer resolves only meta, var and env inside code: "
        .. "render with Quarto (put `quarto` on PATH), or write the text itself")
    end
    return pandoc.utils.stringify(resolve(code))
  end)
  el.text = text:gsub("%z(%d+)%z", function(i) return escaped[tonumber(i)] end)
  return el
end

--- A paragraph holding only `{{< pagebreak >}}` is a block of its own.
local function block(el)
  if #el.content == 1 and el.content[1].t == "RawInline" and el.content[1].format == "shortcode"
      and parse(el.content[1].text) == "pagebreak" then
    local raw = pagebreak()
    return pandoc.RawBlock(raw.format, raw.text)
  end
end

function Pandoc(doc)
  target = pandoc.utils.stringify(doc.meta["book-target"] or "html")
  local path = pandoc.utils.stringify(doc.meta["book-context"] or "")
  if path ~= "" then
    local f = io.open(path, "r")
    if f then
      local all = pandoc.json.decode(f:read("a"), false)
      f:close()
      ctx = all.shortcodes or ctx
    end
  end
  doc_meta = doc.meta
  doc:walk({
    Header = function(h)
      if h.level == 1 and not first_heading then
        first_heading = h.content
      end
    end,
  })
  return doc:walk({ Para = block, Plain = block }):walk({
    RawInline = raw_inline, Code = in_code, CodeBlock = in_code })
end
