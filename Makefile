PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: venv run test test-fast bench bench-all lint clean clean-cache

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

venv: $(STAMP)

run: venv
	$(BIN)/holdem certify --hands 1000000 --structure all --seed 1 --out runs/main
	# the shuffle alone, large enough to detect a 0.5% bias in one card/position cell (README)
	$(BIN)/holdem shuffle --decks 75000000 --keep-decks false --seed 1 --out runs/shuffle

lint: venv
	$(BIN)/ruff check sim audits cluster reports tests
	$(BIN)/mypy

test: venv lint
	$(BIN)/python -m pytest -q

test-fast: venv
	$(BIN)/python -m pytest -q -m "not slow"

bench: venv
	$(BIN)/holdem bench engine

bench-all: venv
	for b in engine evaluator simulate scale audit diff shuffle export import; do $(BIN)/holdem bench $$b || exit 1; done

# frees the disk only: compiled caches are keyed by the sources (audits/jitcache.py), so a stale
# one is never loaded
clean-cache:
	find sim audits cluster reports -name '*.nbi' -delete -o -name '*.nbc' -delete
	R="$${HOLDEM_JIT_CACHE:-$${NUMBA_CACHE_DIR:-$${XDG_CACHE_HOME:-$$HOME/.cache}/holdem/numba}}"; \
	  rm -rf "$$R"/sim-* "$$R"/audits-* "$$R"/cluster-* "$$R"/reports-* "$$R"/regress-baseline

clean: clean-cache
	rm -rf $(VENV) .pytest_cache
