#!/bin/bash
# The first K seeded trials of each of COWP's six tasks for one method (resumable: a larger K
# later runs only the trials not yet in DB). This is how benchmarks/results/cowp/ was made:
#
#   benchmarks/cowp_run.sh K METHOD [LLM] [DB]      e.g. benchmarks/cowp_run.sh 25 cowp_im embedded
#
# K=150 is the whole data set (900 trials), the same as
#   groundplan bench run cowp --method METHOD --llm LLM --db DB
# WORKERS=N THREADS=T in the environment: N worker processes with T model threads each (on
# this 2-core machine WORKERS=2 THREADS=1 gets more trials per minute than one 2-thread worker).
# SHARD=i/n runs every n-th of those trials starting at the i-th (0-based), so n separate
# processes (each a method or a shard of one) can share the cores and the DB.
set -euo pipefail
K=${1:?K trials per task}; M=${2:?method}; LLM=${3:-none}; DB=${4:-results/cowp_v2.sqlite}
ids=()
SHARD=${SHARD:-0/1}; si=${SHARD%/*}; sn=${SHARD#*/}; n=0
if ! [[ $si =~ ^[0-9]+$ && $sn =~ ^[0-9]+$ ]] || (( sn < 1 || si >= sn )); then
  echo "cowp_run.sh: SHARD must be i/n with 0 <= i < n, not '$SHARD'" >&2; exit 2
fi
for t in 1 4 6 9 10 11; do for ((k = 0; k < K; k++)); do
  if (( n++ % sn == si )); then ids+=(--task "$(printf 'task%d:%03d' "$t" "$k")"); fi
done; done
par=(--workers "${WORKERS:-1}")
if [[ -n "${THREADS:-}" ]]; then par+=(--threads "$THREADS"); fi
exec nice -n 10 .venv/bin/groundplan bench run cowp --method "$M" --llm "$LLM" --db "$DB" --no-progress "${par[@]}" "${ids[@]}"
