# groundplan: `make demo` runs the main job on the embedded default; `make test` runs the tests.
# Both create the virtualenv and install everything they need (first run compiles
# llama-cpp-python: about 10 minutes on 2 cores; pip caches the wheel afterwards).
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.groundplan-installed

.PHONY: install demo test test-fast bench-foundation lint clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev,embedded]'
	touch $(STAMP)

install: $(STAMP)

demo: install
	$(BIN)/groundplan plan --scene examples/scenes/kitchen.yaml --goal "and (in salmon0 fridge0) (inhand coke0 human0)" --check "and (inhand coke0 human0)"

test: install
	$(BIN)/python -m pytest -q

test-fast: install
	$(BIN)/python -m pytest -q -m "not embedded and not slow"

bench-foundation: install
	$(BIN)/python benchmarks/autogptp_gold_goals.py --no-typecheck
	$(BIN)/python benchmarks/autogptp_log_replay.py
	$(BIN)/python benchmarks/planning_speed.py

lint: install
	$(BIN)/ruff check src

clean:
	rm -rf $(VENV) build dist src/*.egg-info
