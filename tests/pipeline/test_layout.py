"""The pipeline's shape: stage order of imports, tools never imported by stages,
no module over 400 lines, no raw configuration outside the read stage."""
from __future__ import annotations

import ast
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"
STAGES = ["read", "run", "verify", "render"]          # earlier -> later
MAX_LINES = 400


def _room(module: str) -> str | None:
    """The stage (or "tools") a dotted module name belongs to; None for shared modules."""
    parts = module.split(".")
    if parts[0] != "scripts" or len(parts) < 2:
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
            found += [f"{module}.{a.name}" for a in node.names]   # `from scripts import run`
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
    fake = tmp_path / "scripts"
    (fake / "read").mkdir(parents=True)
    (fake / "read" / "bad.py").write_text("from scripts.verify.check import check_book\n"
                                          "from scripts.tools import bench\n")
    found = violations(fake)
    assert "scripts/read/bad.py: stage read imports later stage scripts.verify.check" in found
    assert "scripts/read/bad.py: stage read imports tool scripts.tools.bench" in found
    (fake / "read" / "bad.py").write_text("from scripts.model import Finding\n")
    assert violations(fake) == []


def test_no_module_over_400_lines():
    long = {str(p.relative_to(SCRIPTS)): n for p in SCRIPTS.rglob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert long == {}


def test_nothing_reaches_into_sys_modules_for_the_checker():
    hits = [str(p.relative_to(SCRIPTS)) for p in SCRIPTS.rglob("*.py")
            if 'sys.modules["scripts' in p.read_text(encoding="utf-8")
            or "sys.modules.get(\"scripts" in p.read_text(encoding="utf-8")]
    assert hits == []


def test_raw_configuration_is_read_only_in_the_read_stage():
    """No module outside scripts/read/ opens _quarto.yml or keeps the raw mapping."""
    hits = []
    for path in SCRIPTS.rglob("*.py"):
        if path.relative_to(SCRIPTS).parts[0] in ("read", "tools"):
            continue
        text = path.read_text(encoding="utf-8")
        if '"_quarto.yml")' in text.replace("/ ", "/") or ".config" in text.replace(
                "get_ipython().config", ""):
            hits.append(str(path.relative_to(SCRIPTS)))
    assert hits == []


def _called(node: ast.Call) -> str:
    f = node.func
    return f"{f.value.id}.{f.attr}" if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) \
        else getattr(f, "attr", getattr(f, "id", ""))


def store_violations(root: Path = SCRIPTS) -> list[str]:
    """Modules outside scripts/store.py that spell the build folder (a string "_build"
    or "_build/…" that is not a docstring) or write JSON their own way (one function
    both serialising JSON and writing a file atomically): every cache is a store's.
    Kernel-side modules (`*_side.py`) are exempt: they run in the kernel, on the
    book's import path, and import nothing of scripts."""
    bad = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root.parent)
        if rel.as_posix() == "scripts/store.py" or path.name.endswith("_side.py"):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = {id(n.body[0].value) for n in ast.walk(tree)
                      if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                      and n.body and isinstance(n.body[0], ast.Expr)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                    and id(node) not in docstrings and node.value.split("/")[0] == "_build":
                bad.append(f"{rel}:{node.lineno}: spells {node.value!r} (scripts.store.BUILD)")
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                calls = {_called(c) for c in ast.walk(node) if isinstance(c, ast.Call)}
                if calls & {"json.dump", "json.dumps"} and "atomic_write" in calls:
                    bad.append(f"{rel}:{node.lineno}: {node.name}() writes JSON its own way "
                               "(a scripts.store.Store)")
    return sorted(bad)


def test_every_cache_is_the_stores():
    assert store_violations() == []


def test_the_store_check_bites(tmp_path):
    """A planted build folder name and a planted JSON cache write are both caught."""
    fake = tmp_path / "scripts" / "render"
    fake.mkdir(parents=True)
    (fake / "bad.py").write_text(
        '"""Writes _build/x."""\nimport json\nfrom pathlib import Path\n'
        'from scripts.files import atomic_write\n'
        'STAMP = Path("_build") / "stamp.json"\n\n\n'
        'def save(root, data):\n    atomic_write(root / "stamp.json", json.dumps(data))\n')
    assert store_violations(tmp_path / "scripts") == [
        "scripts/render/bad.py:5: spells '_build' (scripts.store.BUILD)",
        "scripts/render/bad.py:8: save() writes JSON its own way (a scripts.store.Store)"]
    (fake / "bad.py").write_text('"""Writes _build/x."""\nfrom scripts import store\n'
                                 'STAMP = store.build_dir(".") / "stamp"\n')
    assert store_violations(tmp_path / "scripts") == []
