# Every target works on a fresh clone with only python3 and make:
# the first run creates .venv from requirements.txt.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
BOOK   := $(PY) -m scripts
FORCE_FLAG := $(if $(FORCE),--force,)

.PHONY: check numbers html pdf book test bench mutate mutate-tests clean venv

venv: $(STAMP)

$(STAMP): requirements.txt pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	$(PY) -m pip install --quiet --no-deps -e .
	$(PY) -m ipykernel install --sys-prefix --name python3 >/dev/null
	touch $(STAMP)

check: $(STAMP)
	$(BOOK) check $(FORCE_FLAG)

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

test: $(STAMP)
	$(BOOK) check
	$(PY) -m pytest -q

bench: $(STAMP)
	$(BOOK) bench

mutate: $(STAMP)
	$(PY) -m scripts.tools.mutation

# Every planted bug of tests/meta/planted_bugs.py (make test runs the CI subset).
mutate-tests: $(STAMP)
	PLANTED_BUGS=all $(PY) -m pytest -q tests/meta/test_planted_bugs.py

clean:
	rm -rf _book _build .pytest_cache .hypothesis
	find . -name __pycache__ -not -path './$(VENV)/*' -prune -exec rm -rf {} +
