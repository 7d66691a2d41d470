# Two commands do all the set-up: `make demo` and `make test`.
# Each bootstraps .venv on first use and reuses it afterwards.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.tierlock-dev-installed

.PHONY: demo test lint typecheck pytest check-locks bench clean venv dist test-lowest

venv: $(STAMP)

# After the editable install, dogfood the installer: install-tier makes the dev
# tools exactly what the committed lockfiles/ pin (a no-op when they already are).
$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade "pip>=25.1"
	$(BIN)/python -m pip install --quiet -e ".[cli]" --group dev
	$(BIN)/install-tier --quiet cli test lint lock bench dist
	@touch $(STAMP)

demo: $(STAMP)
	@$(BIN)/python examples/demo/run_demo.py

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks examples tools
	$(BIN)/ruff format --check src tests benchmarks examples tools

typecheck: $(STAMP)
	$(BIN)/mypy

# --dist loadfile: a module's tests run in one worker, so its module-scoped set-up (venvs, wheels, hook and
# tool installs) is made once, not once per worker; the files balance the two workers as single tests would.
pytest: $(STAMP)
	$(BIN)/python -m pytest -n 2 --dist loadfile $(PYTEST_ARGS)

# Dogfood the CI gate: every lockfile in sync, the runtime config valid, the
# ci-require tiers (test, lint) present; then the demo's lockfiles.
check-locks: $(STAMP)
	$(BIN)/tierlock check
	$(BIN)/tierlock admit
	$(BIN)/tierlock --project examples/demo check

# Every benchmark, each printing tierlock beside its peer and the ratio (not part of `make test`; minutes;
# docs/benchmarks.md). The --registry ones need the package index and say so when offline.
BENCH_OFFLINE := bench_cli bench_arm bench_install bench_probe_closure bench_probe bench_lock bench_check bench_uvlock \
	bench_plugin bench_libraries bench_census bench_verify bench_validate
bench: $(STAMP)
	@for b in $(BENCH_OFFLINE); do echo "== $$b"; $(BIN)/python benchmarks/$$b.py || exit 1; done
	@echo "== bench_arm --registry dataframe"; $(BIN)/python benchmarks/bench_arm.py --registry dataframe
	@echo "== bench_arm --registry compiled"; $(BIN)/python benchmarks/bench_arm.py --registry compiled
	@echo "== bench_arm --registry bigcompiled"; $(BIN)/python benchmarks/bench_arm.py --registry bigcompiled

.PHONY: mutate mutate-report
# Mutation testing, not part of `make test` (docs/howto/mutation-testing.md): arms the locked
# mutate tier (cosmic-ray), then mutates one module in place and runs its fast tests per mutant.
#   make mutate MODULE=installer/plan.py    one module (python tools/mutate.py --list names them)
#   make mutate MODULE=evidence/process.py      one file of a module, with the module's tests
#   make mutate MODULE=verify SAMPLE=200    a reproducible random sample of 200 mutants: an estimate
#   make mutate MODULE=validators RETEST=1  after adding tests: only the survivors again, then stop
#   make mutate                             every module, one after the other (hours)
#   make mutate-report [MODULE=...]         the scores of the sessions already run
mutate: $(STAMP)
	$(BIN)/install-tier --quiet mutate
	$(BIN)/python tools/mutate.py $(if $(SAMPLE),--sample $(SAMPLE)) $(if $(RETEST),--retest) $(if $(MODULE),$(MODULE),--all)

mutate-report: $(STAMP)
	$(BIN)/install-tier --quiet mutate
	$(BIN)/python tools/mutate.py --report $(MODULE)

test: lint typecheck check-locks pytest test-lowest

# The declared lower bounds are real: a separate venv on the oldest supported Python gets the LOWEST version
# each of tierlock's requirements allows (runtime, the cli and uv extras; then the test and lock groups) from
# the package index (uv --resolution lowest-direct), tools/lowest.py checks every runtime floor is what is
# installed, and the plugin's tests and a chosen part of the CLI's run there. Two installs, the second held to
# what the first installed: otherwise a runtime requirement that a tool also needs (packaging, through build)
# would count as indirect and come in newest.
# TIERLOCK_STRICT=0: tierlock's own tiers are deliberately not the locked versions in that venv.
LOWEST := .venv-lowest
LOWEST_TESTS ?= tests/unit/plugin tests/unit/tiers/test_tiers.py tests/unit/tiers/test_tier_model_problems.py \
	tests/unit/lockfiles tests/unit/installer/test_selfinstall.py tests/cli/test_cli.py tests/cli/test_lock_cli.py tests/cli/test_install_cli.py tests/cli/test_validators_cli.py \
	tests/cli/test_admit.py
$(LOWEST)/.tierlock-lowest: pyproject.toml Makefile $(STAMP)
	rm -rf $(LOWEST)
	$(BIN)/python -m venv $(LOWEST)  # pip and setuptools only: nothing that needs packaging
	$(BIN)/uv pip install --quiet --python $(LOWEST)/bin/python --resolution lowest-direct -e ".[uv]"
	$(BIN)/uv pip freeze --quiet --python $(LOWEST)/bin/python --exclude-editable > $(LOWEST)/floors.txt
	$(BIN)/uv pip install --quiet --python $(LOWEST)/bin/python --resolution lowest-direct --group test --group lock \
		--constraint $(LOWEST)/floors.txt
	@touch $@

test-lowest: $(LOWEST)/.tierlock-lowest
	$(LOWEST)/bin/python tools/lowest.py
	TIERLOCK_STRICT=0 $(LOWEST)/bin/python -m pytest -n 2 -q -p no:cacheprovider $(LOWEST_TESTS)

# The sdist and the wheel, into $(DIST): uv (the lock tier) builds with the locked
# hatchling (the dist tier), without build isolation: offline and reproducible.
DIST ?= dist
dist: $(STAMP)
	$(BIN)/uv build --no-build-isolation --python $(BIN)/python --out-dir $(DIST) --quiet
	@ls $(DIST)

clean:
	rm -rf $(VENV) $(LOWEST) .demo .mypy_cache .ruff_cache .pytest_cache dist
