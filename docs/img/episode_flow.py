"""Draws docs/img/episode-flow.svg: the flow of one groundplan episode (the README's picture).

    .venv/bin/python docs/img/episode_flow.py
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
matplotlib.rcParams["svg.fonttype"] = "none"  # text stays text: small, searchable
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch  # noqa: E402

HERE = Path(__file__).resolve().parent

#: (title, what, x centre); boxes left to right
STEPS = [
    ("instruction", '"I am thirsty,\nbring me a coke"\n+ scene, skills', 0.9),
    ("method", "goalsearch, AutoGPT+P,\nSayCan, ... on an\nLLM or none", 2.9),
    ("goal", "(and (inhand\n coke0 human0))\nPDDL, checked", 4.9),
    ("plan", "Fast Downward\non the generated\ndomain + problem", 6.9),
    ("execute", "symbolic executor:\neach step's facts\n+added  -deleted", 8.9),
    ("verdict", "success | unverified\n| failure | no plan\n| abstained | unsafe\n| error", 10.9),
]
W, H, Y = 1.6, 1.25, 1.35
COLOURS = ["#eef3fb", "#fdf1e3", "#eef7ee", "#eef7ee", "#eef7ee", "#f6eefa"]


PREVIEW = None  # a PNG path to look at the drawing


def main() -> None:
    fig, ax = plt.subplots(figsize=(11.8, 2.9))
    ax.set_xlim(0, 11.8)
    ax.set_ylim(0, 2.9)
    ax.axis("off")
    for (title, what, x), colour in zip(STEPS, COLOURS):
        ax.add_patch(FancyBboxPatch((x - W / 2, Y - H / 2), W, H, boxstyle="round,pad=0.03,rounding_size=0.12",
                                    fc=colour, ec="#444444", lw=1.2))
        ax.text(x, Y + H / 2 - 0.2, title, ha="center", va="center", fontsize=12, fontweight="bold")
        ax.text(x, Y - 0.12, what, ha="center", va="center", fontsize=8.3, family="DejaVu Sans Mono"
                if title == "goal" else "DejaVu Sans", linespacing=1.25)
    for (_, _, x0), (_, _, x1) in zip(STEPS, STEPS[1:]):
        ax.add_patch(FancyArrowPatch((x0 + W / 2, Y), (x1 - W / 2, Y), arrowstyle="-|>", mutation_scale=14,
                                     lw=1.4, color="#333333"))
    # feedback: a failed step or a refused goal goes back to the method (self-correction, replanning)
    ax.add_patch(FancyArrowPatch((8.9, Y - H / 2), (2.9, Y - H / 2), connectionstyle="arc3,rad=-0.1",
                                 arrowstyle="-|>", mutation_scale=13, lw=1.1, color="#b35c00", ls="--"))
    ax.text(5.9, 0.0, "feedback: goal-check errors, failed steps -> correction, replanning",
            ha="center", va="bottom", fontsize=8.5, color="#b35c00")
    ax.text(10.9, Y + H / 2 + 0.28, "--check G: the asked-for goal,\njudged on the final state",
            ha="center", va="center", fontsize=8, color="#555555")
    ax.text(5.9, 2.78, "one episode: a trace of every LLM call, goal, plan step and verdict "
            "(run --json, --record, bench show)", ha="center", va="top", fontsize=9, color="#333333")
    fig.tight_layout(pad=0.2)
    fig.savefig(HERE / "episode-flow.svg", metadata={"Date": None})
    if PREVIEW:
        fig.savefig(PREVIEW, dpi=90)


if __name__ == "__main__":
    main()
