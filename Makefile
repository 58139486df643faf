PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: venv run test test-fast test-numba-newest lint docs docs-pages bench golden clean

venv: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev]'
	touch $(STAMP)

run: venv
	$(BIN)/mexsim run configs/default.toml --force

# the whole suite, as CI runs it: lint, then every test with the thorough Hypothesis profile
test: venv lint docs
	$(BIN)/python -m pytest -n auto --maxprocesses 4 --dist loadfile --durations 10

# the inner loop: every test file, without the slow, process-starting and compiling tests,
# a tenth of each property's examples (CONTRIBUTING.md)
test-fast: venv
	HYPOTHESIS_PROFILE=dev $(BIN)/python -m pytest -n auto --maxprocesses 4 --dist loadfile \
		-m "not slow and not processes and not compiles"

# the fast tests against the newest numba and llvmlite, past pyproject.toml's pin, in a
# venv of their own (and a numba cache of their own): run it before raising the pin
NEWEST := build/venv-numba-newest
test-numba-newest:
	test -x $(NEWEST)/bin/python || $(PY) -m venv $(NEWEST)
	$(NEWEST)/bin/python -m pip install -q --upgrade pip
	$(NEWEST)/bin/python -m pip install -q -e '.[dev]'
	$(NEWEST)/bin/python -m pip install -q --upgrade --pre numba llvmlite
	$(NEWEST)/bin/python -c "import numba; print('testing against numba', numba.__version__)"
	NUMBA_CACHE_DIR=build/numba-newest-cache HYPOTHESIS_PROFILE=dev $(NEWEST)/bin/python -m pytest \
		-n auto --maxprocesses 4 --dist loadfile -m "not slow and not processes and not compiles"

lint: venv
	$(BIN)/ruff check mexsim tests benchmarks scripts
	$(BIN)/ruff format --check mexsim tests benchmarks scripts
	$(BIN)/mypy

# the docs site (mkdocs.yml): --strict fails on a broken link or a page left out
docs: venv
	$(BIN)/mkdocs build --strict --quiet

# the pages derived from the README and the typer app (tests/test_docs.py checks them)
docs-pages: venv
	$(BIN)/python -m tests.make_docs

bench: venv
	$(BIN)/python benchmarks/bench_engine.py
	$(BIN)/python benchmarks/bench_strategies.py
	$(BIN)/python benchmarks/bench_referee.py
	$(BIN)/python benchmarks/bench_tournament.py
	$(BIN)/python benchmarks/bench_run.py
	$(BIN)/python benchmarks/bench_overhead.py
	$(BIN)/python benchmarks/bench_forward.py
	$(BIN)/python benchmarks/bench_cold_start.py --one-core
	$(BIN)/python benchmarks/bench_scaling.py

golden: venv
	$(BIN)/python -m tests.make_golden

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .hypothesis
