#!/bin/bash
cd /work/main
while kill -0 29646 2>/dev/null; do sleep 10; done
G=".venv/bin/groundplan bench run"
DB="--db results/bb/grid.sqlite --no-progress"
T='/usr/bin/time -f "%e s wall %U s user"'
step() { echo "=== $(date -u +%T) $*  load: $(cut -d' ' -f1-3 /proc/loadavg)"; /usr/bin/time -f "%e s wall %U s user" nice -n 10 "$@"; }
for d in progprompt-env1 progprompt-env2 progprompt-test_unseen; do step $G $d --method brainbody_oracle --llm none $DB; done
step .venv/bin/python benchmarks/brainbody_tabletop.py --db results/bb/grid.sqlite > results/bb/tabletop.md
step .venv/bin/python benchmarks/brainbody_k_ablation.py --oracle --dataset franka-tabletop --db results/bb/grid.sqlite --png results/bb/k_oracle_tabletop.png > results/bb/k_oracle_tabletop.md
step .venv/bin/python benchmarks/brainbody_k_ablation.py --oracle --dataset progprompt-test_unseen --db results/bb/grid.sqlite --png results/bb/k_oracle_test_unseen.png > results/bb/k_oracle_test_unseen.md
step .venv/bin/python benchmarks/brainbody_k_ablation.py --db results/bb/grid.sqlite --png results/bb/k_embedded_test_unseen.png > results/bb/k_embedded_test_unseen.md
for d in progprompt-env1 progprompt-env2 progprompt-test_unseen; do step $G $d --method brainbody_embed --llm embedded $DB; done
for d in progprompt-test_unseen progprompt-env1 progprompt-env2; do step $G $d --method brainbody_gbnf --llm embedded $DB; done
step .venv/bin/python benchmarks/brainbody_k_ablation.py --method brainbody_gbnf --db results/bb/grid.sqlite --png results/bb/k_gbnf_test_unseen.png > results/bb/k_gbnf_test_unseen.md
echo "=== $(date -u +%T) done"
