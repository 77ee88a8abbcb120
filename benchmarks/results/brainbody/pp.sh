#!/bin/bash
cd /work/main
for d in progprompt-test_unseen progprompt-env1 progprompt-env2; do
  if [ "$(date -u +%H%M)" -ge 0950 ]; then echo "=== skipped $d"; continue; fi
  echo "=== $(date -u +%T) progprompt $d  load: $(cut -d' ' -f1-3 /proc/loadavg)"
  /usr/bin/time -f "%e s wall %U s user" nice -n 10 timeout --signal=INT $(( $(date -u -d 10:00 +%s) - $(date -u +%s) )) .venv/bin/groundplan bench run $d --method progprompt --llm embedded --db results/bb/grid.sqlite --no-progress
done
echo "=== $(date -u +%T) done"
