#!/bin/bash
# runs after the Table 1 grid: K ablations with Bodies that produce commands (so feedback happens).
# No step starts after 09:50 UTC; anything still running at 10:00 UTC is stopped (runs resume).
cd /work/main
DB="--db results/bb/grid.sqlite"
step() {
  if [ "$(date -u +%H%M)" -ge 0950 ]; then echo "=== $(date -u +%T) skipped (past 09:50): $*"; return; fi
  echo "=== $(date -u +%T) $*  load: $(cut -d' ' -f1-3 /proc/loadavg)"
  /usr/bin/time -f "%e s wall %U s user" nice -n 10 timeout --signal=INT $(( $(date -u -d 10:00 +%s) - $(date -u +%s) )) "$@"
}
step .venv/bin/python benchmarks/brainbody_k_ablation.py --method brainbody_embed $DB --png results/bb/k_embed_test_unseen.png
step .venv/bin/python benchmarks/brainbody_k_ablation.py --method brainbody_gbnf $DB --png results/bb/k_gbnf_test_unseen.png
for d in progprompt-env1 progprompt-env2; do
  for m in brainbody_embed brainbody_gbnf; do step .venv/bin/groundplan bench run $d --method $m --llm embedded $DB --no-progress; done
done
echo "=== $(date -u +%T) done"
