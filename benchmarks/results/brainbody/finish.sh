#!/bin/bash
# regenerate the committed tables/plots from results/bb/grid.sqlite (report-only; no LLM calls)
cd /work/main
O=benchmarks/results/brainbody; mkdir -p $O
DB="--db results/bb/grid.sqlite"
P=.venv/bin/python
$P benchmarks/brainbody_vh_table.py --report-only $DB --methods brainbody,brainbody_nofb,base_llm,progprompt,brainbody_embed,brainbody_gbnf --llm embedded --per-task > $O/table1_embedded.md
$P benchmarks/brainbody_vh_table.py --report-only $DB --methods brainbody_oracle --llm none --per-task > $O/table1_oracle.md
$P benchmarks/brainbody_tabletop.py --report-only $DB > $O/table4_tabletop.md
$P benchmarks/brainbody_k_ablation.py --report-only --oracle --dataset franka-tabletop $DB --png $O/k_ablation_oracle_tabletop.png > $O/k_ablation_oracle_tabletop.md
$P benchmarks/brainbody_k_ablation.py --report-only --oracle --dataset progprompt-test_unseen $DB --png $O/k_ablation_oracle_test_unseen.png > $O/k_ablation_oracle_test_unseen.md
$P benchmarks/brainbody_k_ablation.py --report-only $DB --png $O/k_ablation_embedded_llm_body.png > $O/k_ablation_embedded_llm_body.md
$P benchmarks/brainbody_k_ablation.py --report-only --method brainbody_embed $DB --png $O/k_ablation_embedded_embedding_body.png > $O/k_ablation_embedded_embedding_body.md
$P benchmarks/brainbody_k_ablation.py --report-only --method brainbody_gbnf $DB --png $O/k_ablation_embedded_gbnf_body.png > $O/k_ablation_embedded_gbnf_body.md || rm -f $O/k_ablation_embedded_gbnf_body.*
sed -i "s|$O/||" $O/*.md
