# Every target works on a fresh clone with only python3 and make:
# the first run creates .venv from requirements.txt.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
BOOK   := $(PY) -m scripts
FORCE_FLAG := $(if $(FORCE),--force,)
# make check SHARD=2/4 [SHARD_OUT=path]: check a quarter of the chapters, write a
# partial result (default _build/shards/shard-2-of-4.json); make merge combines them.
SHARD_FLAG := $(if $(SHARD),--shard $(SHARD),) $(if $(SHARD_OUT),--out $(SHARD_OUT),)
PARTIALS   ?= $(wildcard _build/shards/shard-*-of-*.json)

.PHONY: check numbers html pdf book preview merge test bench mutate clean venv

venv: $(STAMP)

$(STAMP): requirements.txt pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	$(PY) -m pip install --quiet --no-deps -e .
	$(PY) -m ipykernel install --sys-prefix --name python3 >/dev/null
	touch $(STAMP)

check: $(STAMP)
	$(BOOK) check $(FORCE_FLAG) $(SHARD_FLAG)

merge: $(STAMP)
	$(BOOK) merge $(PARTIALS)

numbers: $(STAMP)
	$(BOOK) numbers $(FORCE_FLAG)

html: $(STAMP)
	$(BOOK) html $(FORCE_FLAG)

pdf: $(STAMP)
	$(BOOK) pdf $(FORCE_FLAG)

# The PDF first: the HTML pages then link it ("Download PDF").
book: $(STAMP)
	$(BOOK) pdf $(FORCE_FLAG)
	$(BOOK) html

preview: $(STAMP)
	$(BOOK) preview

test: $(STAMP)
	$(BOOK) check
	$(PY) -m pytest -q

bench: $(STAMP)
	$(BOOK) bench

mutate: $(STAMP)
	$(PY) -m scripts.tools.mutation

clean:
	rm -rf _book _build .pytest_cache .hypothesis
	find . -name __pycache__ -not -path './$(VENV)/*' -prune -exec rm -rf {} +
