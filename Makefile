# Every target works on a fresh clone with only python3 and make: the first run
# creates .venv from requirements.txt (bookcheck from scripts/, the book's mlsys);
# `make test` adds the book's test extra. The book calls `bookcheck` as any author would.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
TEST_STAMP := $(VENV)/.installed-test
LOCK   := requirements.lock
BOOK   := $(VENV)/bin/bookcheck
# this repository's own tools (benchmark, mutation, generated docs), not part of bookcheck
TOOLS  := PYTHONPATH=scripts $(PY) -m
FORCE_FLAG := $(if $(FORCE),--force,)
# make check AUDIT=1: execute every chapter and report any the cache would have served stale
AUDIT_FLAG := $(if $(AUDIT),--audit,)
# make check SHARD=2/4 [SHARD_OUT=path]: check a quarter of the chapters, write a
# partial result (default _bookcheck/shards/shard-2-of-4.json); make merge combines them.
SHARD_FLAG := $(if $(SHARD),--shard $(SHARD),) $(if $(SHARD_OUT),--out $(SHARD_OUT),)
PARTIALS   ?= $(wildcard _bookcheck/shards/shard-*-of-*.json)

.PHONY: check numbers html pdf book preview merge test test-fast bench mutate mutate-tests quarto-live clean venv lock pipe-tables

venv: $(STAMP)

# Bytecode of this project's own modules, compiled ahead: Python reads .pyc files even
# where PYTHONDONTWRITEBYTECODE forbids writing them (this saves ~70 ms per command).
# checked-hash pycs are verified against their source's hash on every import, so an
# edited module never runs stale, whether or not this rule ran since the edit.
BYTECODE := $(VENV)/.bytecode
READY    := $(STAMP) $(BYTECODE)
# (regular files only: an editor's dangling `.#x.py` lock link or a FIFO is no source)
$(BYTECODE): $(STAMP) $(shell find scripts mlsys -name '*.py' -xtype f 2>/dev/null)
	$(PY) -m compileall -q --invalidation-mode checked-hash scripts mlsys
	touch $(BYTECODE)

# requirements.txt installs bookcheck (scripts/pyproject.toml) and the book
# (pyproject.toml), each naming its dependencies (ranges); requirements.lock pins the
# exact versions they were checked with (`make lock`).
$(STAMP): requirements.txt $(LOCK) pyproject.toml scripts/pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt -c $(LOCK)
	$(PY) -m ipykernel install --sys-prefix --name python3 >/dev/null
	touch $(STAMP)

# The tests' own packages (pytest, playwright, …): the book's `test` extra.
$(TEST_STAMP): $(STAMP) pyproject.toml
	$(PY) -m pip install --quiet -e '.[test]' -c $(LOCK)
	touch $(TEST_STAMP)

check: $(READY)
	$(BOOK) check $(FORCE_FLAG) $(AUDIT_FLAG) $(SHARD_FLAG)

merge: $(READY)
	$(BOOK) merge $(PARTIALS)

numbers: $(READY)
	$(BOOK) numbers $(FORCE_FLAG)

html: $(READY)
	$(BOOK) html $(FORCE_FLAG)

pdf: $(READY)
	$(BOOK) pdf $(FORCE_FLAG)

# The PDF first: the HTML pages then link it ("Download PDF").
book: $(READY)
	$(BOOK) pdf $(FORCE_FLAG)
	$(BOOK) html

preview: $(READY)
	$(BOOK) preview

# Two workers (pytest-xdist), a test file per worker at a time: its module fixtures
# (a rendered book, a browser) are built once. TEST_WORKERS=0 runs in one process.
TEST_WORKERS ?= 2
PYTEST_WORKERS = $(if $(filter 0,$(TEST_WORKERS)),,-n $(TEST_WORKERS) --dist loadfile)
test: $(READY) $(TEST_STAMP)
	$(BOOK) check
	$(PY) -m pytest -q $(PYTEST_WORKERS)

# The inner loop: every test that is not `slow` and starts no Jupyter kernel, real Quarto
# or chromium (markers `kernel`, `quarto`, `browser`; no book check first; docs/testing.md).
FAST_TESTS := not slow and not kernel and not quarto and not browser
test-fast: $(READY) $(TEST_STAMP)
	$(PY) -m pytest -q -m "$(FAST_TESTS)" $(PYTEST_WORKERS)

# make bench BENCH_BOOK=path: benchmark a copy of another book as the real one (with
# Quarto on PATH: make html against plain `quarto render`, docs/quarto-compat.md)
bench: $(READY) $(TEST_STAMP)
	$(TOOLS) booktools.bench $(if $(BENCH_BOOK),--book $(BENCH_BOOK) --only real,)

mutate: $(READY)
	$(TOOLS) booktools.mutation

# Rewrite grid tables holding inline values as pipe tables (FILES=... or every document).
pipe-tables: $(READY)
	$(BOOK) pipe-tables $(FILES)

# Refresh requirements.lock from both pyproject.toml files (test extra included) with uv's resolver (from PyPI),
# for every platform and Python >= 3.10. Pins already in the lock are kept unless
# requirements.txt rules them out; `make lock UPGRADE=1` moves every pin to the newest
# allowed release. Needs no working .venv (only python3), so a lock that no longer
# fits requirements.txt can always be regenerated; written atomically.
lock:
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet 'uv>=0.5,<1'
	cp $(LOCK) $(LOCK).new 2>/dev/null || rm -f $(LOCK).new
	$(PY) -m uv pip compile scripts/pyproject.toml pyproject.toml --extra test --universal --python-version 3.10 \
	    --annotation-style line --custom-compile-command 'make lock' --quiet \
	    $(if $(UPGRADE),--upgrade,) -o $(LOCK).new || { rm -f $(LOCK).new; exit 1; }
	mv $(LOCK).new $(LOCK)

# Every planted bug of tests/meta/planted_bugs.py (make test runs the CI subset).
mutate-tests: $(READY) $(TEST_STAMP)
	PLANTED_BUGS=all $(PY) -m pytest -q tests/meta/test_planted_bugs.py

# Every conformance case rendered live by real Quarto, executing and handed over
# (make test renders three; needs Quarto: REAL_QUARTO or ../shared/tools/real-quarto).
quarto-live: $(READY) $(TEST_STAMP)
	QUARTO_CONFORMANCE_LIVE=1 $(PY) -m pytest -q -n $(TEST_WORKERS) --dist loadfile tests/conformance tests/quarto

clean:
	rm -rf _book _bookcheck .pytest_cache .hypothesis $(BYTECODE)
	find . -name __pycache__ -not -path './$(VENV)/*' -prune -exec rm -rf {} +
