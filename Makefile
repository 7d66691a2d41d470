# Two commands do all the set-up: `make demo` and `make test`.
# Each bootstraps .venv on first use and reuses it afterwards.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.tierlock-dev-installed

.PHONY: demo test lint typecheck pytest check-locks bench clean venv

venv: $(STAMP)

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade "pip>=25.1"
	$(BIN)/python -m pip install --quiet -e . --group dev
	@touch $(STAMP)

demo: $(STAMP)
	@$(BIN)/python examples/demo/run_demo.py

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks examples
	$(BIN)/ruff format --check src tests benchmarks examples

typecheck: $(STAMP)
	$(BIN)/mypy

pytest: $(STAMP)
	$(BIN)/python -m pytest -n 2 $(PYTEST_ARGS)

test: lint typecheck pytest

clean:
	rm -rf $(VENV) .demo .mypy_cache .ruff_cache .pytest_cache
