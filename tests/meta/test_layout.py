"""The pipeline's shape: stage order of imports, tools never imported by stages,
no module over 400 lines, no raw configuration or option outside the read stage."""
from __future__ import annotations

import ast
import re
from pathlib import Path

from bookcheck import store

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts" / "bookcheck"   # the tool's package
STAGES = ["read", "run", "verify", "render"]          # earlier -> later
MAX_LINES = 400


def _room(module: str) -> str | None:
    """The stage (or "tools") a dotted module name belongs to; None for shared modules."""
    parts = module.split(".")
    if parts[0] != "bookcheck" or len(parts) < 2:
        return None
    return parts[1] if parts[1] in STAGES + ["tools"] else None


def _imports(path: Path, root: Path) -> list[str]:
    """Every module `path` imports (relative imports resolved), at any depth."""
    package = ".".join(path.relative_to(root.parent).with_suffix("").parts[:-1])
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            found.append(module)
            found += [f"{module}.{a.name}" for a in node.names]   # `from bookcheck import run`
    return found


def violations(root: Path = SCRIPTS) -> list[str]:
    bad = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root.parent)
        here = _room(".".join(rel.with_suffix("").parts))
        for module in _imports(path, root):
            there = _room(module)
            if here is None or there is None or here == there:
                if here is None and there == "tools" and path.name not in ("cli.py",):
                    bad.append(f"{rel}: shared module imports tool {module}")
                continue
            if here == "tools":
                continue                                    # tools may use any stage
            if there == "tools":
                bad.append(f"{rel}: stage {here} imports tool {module}")
            elif STAGES.index(there) > STAGES.index(here):
                bad.append(f"{rel}: stage {here} imports later stage {module}")
    return bad


def test_imports_point_from_later_stages_to_earlier_ones():
    assert violations() == []


def test_the_check_bites(tmp_path):
    """A planted backward import and a stage->tool import are both caught."""
    fake = tmp_path / "bookcheck"
    (fake / "read").mkdir(parents=True)
    (fake / "read" / "bad.py").write_text("from bookcheck.verify.check import check_book\n"
                                          "from bookcheck.tools import grid_tables\n")
    found = violations(fake)
    assert "bookcheck/read/bad.py: stage read imports later stage bookcheck.verify.check" in found
    assert "bookcheck/read/bad.py: stage read imports tool bookcheck.tools.grid_tables" in found
    (fake / "read" / "bad.py").write_text("from bookcheck.model import Finding\n")
    assert violations(fake) == []


def outside_imports(root: Path = SCRIPTS) -> list[str]:
    """Imports of this repository's book (`mlsys`) or its own tools (`booktools`) from
    bookcheck: the tool is installed on its own, into books with packages of their own."""
    return [f"{p.relative_to(root.parent)}: imports {m}" for p in sorted(root.rglob("*.py"))
            for m in _imports(p, root) if m.split(".")[0] in ("mlsys", "booktools", "scripts")]


def test_bookcheck_imports_neither_the_book_nor_its_tools(tmp_path):
    assert outside_imports() == []
    fake = tmp_path / "bookcheck" / "run"
    fake.mkdir(parents=True)
    (fake / "bad.py").write_text("def f():\n    from mlsys import fmt\n")
    assert outside_imports(tmp_path / "bookcheck") == ["bookcheck/run/bad.py: imports mlsys",
                                                       "bookcheck/run/bad.py: imports mlsys.fmt"]


def test_no_module_over_400_lines():
    long = {str(p.relative_to(SCRIPTS)): n for p in SCRIPTS.rglob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert long == {}


def test_nothing_reaches_into_sys_modules_for_the_checker():
    hits = [str(p.relative_to(SCRIPTS)) for p in SCRIPTS.rglob("*.py")
            if 'sys.modules["bookcheck' in p.read_text(encoding="utf-8")
            or "sys.modules.get(\"bookcheck" in p.read_text(encoding="utf-8")]
    assert hits == []


def test_raw_configuration_is_read_only_in_the_read_stage():
    """No module outside scripts/bookcheck/read/ opens _quarto.yml or keeps the raw mapping."""
    hits = []
    for path in SCRIPTS.rglob("*.py"):
        if path.relative_to(SCRIPTS).parts[0] in ("read", "tools"):
            continue
        text = path.read_text(encoding="utf-8")
        if '"_quarto.yml")' in text.replace("/ ", "/") or ".config" in text.replace(
                "get_ipython().config", ""):
            hits.append(str(path.relative_to(SCRIPTS)))
    assert hits == []


def _is_environ(node) -> bool:
    """`os.environ`, `environ`, `env`: a mapping of the environment."""
    name = node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "")
    return name in ("environ", "env", "getenv")


def _mentions_options(node) -> bool:
    return any(isinstance(n, ast.Attribute) and n.attr == "options"
               or isinstance(n, ast.Name) and n.id in ("opts", "options")
               for n in ast.walk(node))


def _is_cell_options(node) -> bool:
    """`cell.options` (any `x.options`)."""
    return isinstance(node, ast.Attribute) and node.attr == "options"


def raw_options(root: Path = SCRIPTS) -> list[str]:
    """Options read raw outside scripts/bookcheck/read/ (read/options.py resolves them once):
    the front matter, QUARTO_PROFILE of the environment (read/profiles.py reads it; the
    profile is an argument), a cell's options rewritten or coerced (`option_false`,
    `str(opts...).lower()`): after validation a boolean is a boolean; a cell option read
    from `cell.options` (`.get`, `[...]`): the stages read `cell.resolved`, Quarto's
    defaults applied once (read/cell_options.py)."""
    bad = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root.parent)
        if rel.parts[1] == "read":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            line = f"{rel}:{getattr(node, 'lineno', 0)}"
            if isinstance(node, ast.Attribute) and node.attr == "front_matter" or isinstance(
                    node, ast.Call) and getattr(node.func, "id", "") == "getattr" and any(
                    getattr(a, "value", None) == "front_matter" for a in node.args):
                bad.append(f"{line}: reads the front matter")
            elif isinstance(node, ast.Subscript) and _is_environ(node.value) \
                    and getattr(node.slice, "value", None) == "QUARTO_PROFILE":
                bad.append(f"{line}: QUARTO_PROFILE of the environment")
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and (
                    _is_environ(node.func) or _is_environ(node.func.value)) and any(
                    getattr(a, "value", None) == "QUARTO_PROFILE" for a in node.args):
                bad.append(f"{line}: QUARTO_PROFILE of the environment")
            elif isinstance(node, ast.Call) and getattr(node.func, "id", getattr(
                    node.func, "attr", "")) in ("option_false", "option_true"):
                bad.append(f"{line}: coerces an option ({ast.unparse(node.func)})")
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and node.func.attr == "lower" and isinstance(node.func.value, ast.Call) \
                    and getattr(node.func.value.func, "id", "") == "str" \
                    and _mentions_options(node.func.value):
                bad.append(f"{line}: coerces an option (str(...).lower())")
            elif isinstance(node, (ast.Assign, ast.AugAssign)) and any(
                    isinstance(t, ast.Attribute) and (t.attr == "options" or t.attr == "resolved"
                                                      and getattr(t.value, "id", "") != "self")
                    for t in getattr(node, "targets", [getattr(node, "target", None)])):
                bad.append(f"{line}: rewrites a cell's options")
            elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "get" and _is_cell_options(node.func.value)
                    or isinstance(node, ast.Subscript) and _is_cell_options(node.value)):
                bad.append(f"{line}: reads a cell option raw (read `cell.resolved`)")
    return bad


def test_options_are_read_only_in_the_read_stage():
    assert raw_options() == []


def test_the_options_check_bites(tmp_path):
    """Each raw read, planted in a later stage, is caught; the same code in read/ is not."""
    planted = {
        "front = parsed.front_matter.get('execute')\n": "reads the front matter",
        "search = getattr(parsed, 'front_matter', {}).get('search')\n": "reads the front matter",
        "import os\nname = os.environ['QUARTO_PROFILE']\n": "QUARTO_PROFILE of the environment",
        "import os\nos.environ['QUARTO_PROFILE'] = 'pdf'\n": "QUARTO_PROFILE of the environment",
        "import os\nname = os.environ.get('QUARTO_PROFILE', '')\n": "QUARTO_PROFILE of the environment",
        "hidden = option_false(opts.get('include'))\n": "coerces an option",
        "asis = str(opts.get('output')).lower() == 'asis'\n": "coerces an option",
        "cell.options = {**cell.options, 'eval': False}\n": "rewrites a cell's options",
        "cell.resolved = None\n": "rewrites a cell's options",
        "shown = cell.options.get('echo') is True\n": "reads a cell option raw",
        "label = cell.options['label']\n": "reads a cell option raw",
    }
    fake = tmp_path / "bookcheck"
    for stage in ("read", "render"):
        (fake / stage).mkdir(parents=True)
    for code, what in planted.items():
        (fake / "render" / "bad.py").write_text(code)
        (fake / "read" / "fine.py").write_text(code)
        found = raw_options(fake)
        assert len(found) == 1 and found[0].startswith("bookcheck/render/bad.py:") \
            and what in found[0], (code, found)
    (fake / "render" / "bad.py").write_text(
        "import os\nenv = {**os.environ, 'QUARTO_PROFILE': 'pdf'}\n"
        "hidden = cell.resolved.include is False\n")
    assert raw_options(fake) == []


def _called(node: ast.Call) -> str:
    f = node.func
    return f"{f.value.id}.{f.attr}" if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) \
        else getattr(f, "attr", getattr(f, "id", ""))


def store_violations(root: Path = SCRIPTS) -> list[str]:
    """Modules outside scripts/bookcheck/store.py that spell the build folder (a string that is
    store.BUILD or starts with "BUILD/", not a docstring) or write JSON their own way
    (one function both serialising JSON and writing a file atomically): every cache
    is a store's.
    Kernel-side modules (`*_side.py`) are exempt: they run in the kernel, on the
    book's import path, and import nothing of scripts."""
    bad = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root.parent)
        if rel.as_posix() == "bookcheck/store.py" or path.name.endswith("_side.py"):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = {id(n.body[0].value) for n in ast.walk(tree)
                      if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                      and n.body and isinstance(n.body[0], ast.Expr)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                    and id(node) not in docstrings and node.value.split("/")[0] == store.BUILD:
                bad.append(f"{rel}:{node.lineno}: spells {node.value!r} (bookcheck.store.BUILD)")
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                calls = {_called(c) for c in ast.walk(node) if isinstance(c, ast.Call)}
                if calls & {"json.dump", "json.dumps"} and "atomic_write" in calls:
                    bad.append(f"{rel}:{node.lineno}: {node.name}() writes JSON its own way "
                               "(a bookcheck.store.Store)")
    return sorted(bad)


def test_every_cache_is_the_stores():
    assert store_violations() == []


def test_the_store_check_bites(tmp_path):
    """A planted build folder name and a planted JSON cache write are both caught."""
    fake = tmp_path / "bookcheck" / "render"
    fake.mkdir(parents=True)
    (fake / "bad.py").write_text(
        '"""Writes _bookcheck/x."""\nimport json\nfrom pathlib import Path\n'
        'from bookcheck.files import atomic_write\n'
        'STAMP = Path("_bookcheck") / "stamp.json"\n\n\n'
        'def save(root, data):\n    atomic_write(root / "stamp.json", json.dumps(data))\n')
    assert store_violations(tmp_path / "bookcheck") == [
        "bookcheck/render/bad.py:5: spells '_bookcheck' (bookcheck.store.BUILD)",
        "bookcheck/render/bad.py:8: save() writes JSON its own way (a bookcheck.store.Store)"]
    (fake / "bad.py").write_text('"""Writes _bookcheck/x."""\nfrom bookcheck import store\n'
                                 'STAMP = store.build_dir(".") / "stamp"\n')
    assert store_violations(tmp_path / "bookcheck") == []


CELL_MARKDOWN = re.compile(r"\.cell-(?:code|output)|^:{3,} ?\{", re.M)


def markdown_writers(root: Path = SCRIPTS) -> list[str]:
    """Modules other than render/engine_md.py that write a cell's Markdown (a `.cell-code`
    or `.cell-output` class, a `::: {` div): there is one writer for both renderers."""
    bad = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root.parent)
        if rel.as_posix() == "bookcheck/render/engine_md.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docs = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                    and id(node) not in docs and CELL_MARKDOWN.search(node.value):
                bad.append(f"{rel}:{node.lineno}: writes a cell's Markdown (render/engine_md.py does)")
    return bad


def test_one_markdown_writer():
    assert markdown_writers() == []


def test_the_markdown_writer_check_bites(tmp_path):
    bad = tmp_path / "bookcheck" / "render" / "markdown.py"
    bad.parent.mkdir(parents=True)
    bad.write_text('def out(text):\n    return "::: {.cell-output}\\n" + text + ":::"\n'
                   '"""A docstring naming `.cell-output` divs."""\n')
    assert markdown_writers(tmp_path / "bookcheck") == [
        "bookcheck/render/markdown.py:2: writes a cell's Markdown (render/engine_md.py does)"]
