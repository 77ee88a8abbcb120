#!/bin/bash
# Every RobLM evaluation behind benchmarks/results/roblm/, after a training run:
#
#   benchmarks/roblm_all.sh CHECKPOINT [EXTRA_CHECKPOINT ...]
#
# CHECKPOINT is the fine-tuned model (a checkpoint-N folder of benchmarks/roblm_train.py);
# each EXTRA_CHECKPOINT adds an intermediate series to Fig. 5. Data is read from, and the
# eval records written to, $ROBLM_DIR (default /tmp/roblm; outside the repository):
# valid_unseen.jsonl and valid_seen.jsonl from benchmarks/roblm_data.py. PER_CAT (default 14)
# tasks per category are evaluated; THREADS (default 2) torch threads. Then
#   .venv/bin/python benchmarks/roblm_report.py --eval $ROBLM_DIR/eval --train RUN_DIR
set -euo pipefail
CKPT=${1:?fine-tuned checkpoint folder}; shift
D=${ROBLM_DIR:-/tmp/roblm}; E=$D/eval; N=${PER_CAT:-14}; T=${THREADS:-2}
mkdir -p "$E"
PY=".venv/bin/python benchmarks/roblm_eval.py"
GEN="--max-new-tokens ${MAX_NEW:-88}"  # the longest gold plan in valid-unseen is 76 tokens with <EOS>
declare -A CMDS
run() {  # key, then the eval arguments
    local key=$1; shift
    local cmd="OMP_NUM_THREADS=$T $PY $*"
    CMDS[$key]=$cmd
    echo "== $key: $cmd"
    OMP_NUM_THREADS=$T $PY "$@"
}
run fd_unseen --data "$D/valid_unseen.jsonl" --baseline --label fd --out "$E/fd_unseen.jsonl"
run fd_seen --data "$D/valid_seen.jsonl" --baseline --label fd --per-category "$N" --out "$E/fd_seen.jsonl"
run finetuned_unseen --data "$D/valid_unseen.jsonl" --model "$CKPT" --label finetuned $GEN --contexts none scene_graph \
    --per-category "$N" --out "$E/finetuned_unseen.jsonl"
run untrained_unseen --data "$D/valid_unseen.jsonl" --model smollm2 --label untrained $GEN --contexts none scene_graph \
    --per-category "$N" --out "$E/untrained_unseen.jsonl"
for extra in "$@"; do
    step=${extra##*checkpoint-}
    run "step${step}_unseen" --data "$D/valid_unseen.jsonl" --model "$extra" --label "step$step" $GEN \
        --contexts none scene_graph --per-category "$N" --out "$E/step${step}_unseen.jsonl"
done
run finetuned_seen --data "$D/valid_seen.jsonl" --model "$CKPT" --label finetuned $GEN --contexts none \
    --per-category "$N" --out "$E/finetuned_seen.jsonl"
run sampling --data "$D/valid_unseen.jsonl" --model "$CKPT" --label sampling $GEN --contexts none \
    --categories pick_and_place_simple --per-category "$N" --sampling top_k_top_p --repeats 3 --out "$E/sampling.jsonl"
run speed --data "$D/valid_unseen.jsonl" --model "$CKPT" --label speed $GEN --contexts none full --per-category 2 \
    --batch-size 1 --out "$E/speed.jsonl"
{
    echo "{"
    for k in "${!CMDS[@]}"; do printf '  "%s": %s,\n' "$k" "$(printf '%s' "${CMDS[$k]}" | python3 -c 'import json,sys; print(json.dumps(sys.stdin.read()))')"; done
    printf '  "_load": %s\n' "$(uptime | python3 -c 'import json,sys; print(json.dumps("uptime at the end: " + sys.stdin.read().strip()))')"
    echo "}"
} > "$E/commands.json"
echo "commands -> $E/commands.json"
