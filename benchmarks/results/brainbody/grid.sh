#!/bin/bash
# Table 1 grid on the embedded model, one episode at a time, niced.
cd /work/main
for m in brainbody base_llm progprompt; do
  for d in progprompt-env1 progprompt-env2 progprompt-test_unseen; do
    echo "=== $(date -u +%T) $m $d  load: $(cut -d' ' -f1-3 /proc/loadavg)"
    /usr/bin/time -f "%e s wall %U s user" nice -n 10 .venv/bin/groundplan bench run $d --method $m --llm embedded --db results/bb/grid.sqlite --no-progress
  done
done
echo "=== $(date -u +%T) done"
