PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: venv run test lint bench golden clean

venv: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev]'
	touch $(STAMP)

run: venv
	$(BIN)/mexsim run configs/default.toml --force

test: venv
	$(BIN)/ruff check mexsim tests benchmarks
	$(BIN)/python -m pytest -n auto --maxprocesses 4 --dist loadfile --durations 10

lint: venv
	$(BIN)/ruff check mexsim tests benchmarks

bench: venv
	$(BIN)/python benchmarks/bench_engine.py
	$(BIN)/python benchmarks/bench_strategies.py
	$(BIN)/python benchmarks/bench_referee.py
	$(BIN)/python benchmarks/bench_tournament.py
	$(BIN)/python benchmarks/bench_run.py
	$(BIN)/python benchmarks/bench_cold_start.py --one-core
	$(BIN)/python benchmarks/bench_scaling.py

golden: venv
	$(BIN)/python -m tests.make_golden

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .hypothesis
