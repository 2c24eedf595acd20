PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: venv warmup run test test-fast bench bench-all lint clean clean-cache

# the install ends by compiling every numba kernel into the shared cache (holdem warmup), so the
# first `make run` (and every Ray worker using the same cache root) loads machine code
$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	$(BIN)/holdem warmup
	touch $(STAMP)

venv: $(STAMP)

# again after changing the sources (the cache is keyed by them: a new key starts cold)
warmup: venv
	$(BIN)/holdem warmup

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

# every benchmark, every figure with its peer, the machine and the code in one JSON
bench-all: venv
	$(BIN)/holdem bench all --json bench-all.json

# frees the disk only: compiled caches are keyed by the sources (audits/jitcache.py), so a stale
# one is never loaded
clean-cache:
	find sim audits cluster reports -name '*.nbi' -delete -o -name '*.nbc' -delete
	R="$${HOLDEM_JIT_CACHE:-$${NUMBA_CACHE_DIR:-$${XDG_CACHE_HOME:-$$HOME/.cache}/holdem/numba}}"; \
	  rm -rf "$$R"/sim-* "$$R"/audits-* "$$R"/cluster-* "$$R"/reports-* "$$R"/regress-baseline

clean: clean-cache
	rm -rf $(VENV) .pytest_cache
