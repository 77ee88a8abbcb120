"""LLM+P's benchmark (Liu et al. 2023; ../shared/data/llm-pddl): 7 IPC domains x 20
problems, each a natural-language description (``pNN.nl``) and its gold PDDL problem
(``pNN.pddl``), with the domain PDDL, the domain's description (``domain.nl``) and the one
in-context example of the domain (``p_example.nl`` / ``p_example.pddl``).

A task has no scene: ``extras`` carries the files, ``goal`` the gold problem's goal formula
(so reports and goal checks see it), ``subset`` the domain."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

from groundplan.bench.report import TableLayout, register_layout
from groundplan.bench.task import Task
from groundplan.errors import DatasetError

DOMAINS = ("barman", "blocksworld", "floortile", "grippers", "storage", "termes", "tyreworld")
PROBLEMS = 20
VERSION = "llm-pddl@f5f897c"


def llmp_root(root: Optional[str | Path] = None) -> Path:
    if root is not None:
        return Path(root)
    from groundplan.datadir import data_dir

    return data_dir() / "llm-pddl"


def _goal_text(problem_file: Path) -> str:
    from groundplan.pddl.parser import load_problem

    prob = load_problem(problem_file)
    if prob.goal is None:
        raise DatasetError("gold problem has no :goal", file=str(problem_file))
    return prob.goal.pddl()


def llmp_tasks(root: Optional[str | Path] = None, *, domains: tuple[str, ...] = DOMAINS,
               dataset: str = "llmp") -> list[Task]:
    base = llmp_root(root) / "domains"
    if not base.is_dir():
        raise DatasetError("LLM+P data not found (expected domains/<domain>/pNN.nl and pNN.pddl)", file=str(base))
    out: list[Task] = []
    for dom in domains:
        d = base / dom
        shared = {name: d / name for name in ("domain.pddl", "domain.nl", "p_example.nl", "p_example.pddl")}
        for name, path in shared.items():
            if not path.is_file():
                raise DatasetError(f"missing {name} of domain {dom}", file=str(path))
        for i in range(1, PROBLEMS + 1):
            nl, pddl = d / f"p{i:02d}.nl", d / f"p{i:02d}.pddl"
            if not nl.is_file() or not pddl.is_file():
                raise DatasetError(f"missing p{i:02d}.nl or p{i:02d}.pddl of domain {dom}", file=str(d))
            out.append(Task(
                id=f"{dom}/p{i:02d}", dataset=dataset, instruction=nl.read_text(encoding="utf-8").strip(),
                scene_file="", goal=_goal_text(pddl), skillset="pddl", subset=dom,
                extras={"domain_file": str(shared["domain.pddl"]), "problem_file": str(pddl),
                        "domain_nl_file": str(shared["domain.nl"]), "example_nl_file": str(shared["p_example.nl"]),
                        "example_problem_file": str(shared["p_example.pddl"]), "domain": dom},
                source=str(nl)))
    return out


LAYOUT = TableLayout(
    "LLM+P (Liu et al. 2023, Table 1): success rate per domain (the plan solves the gold problem)",
    "Domain", tuple((d, d.capitalize()) for d in DOMAINS), (("success", "success"),))

register_layout("llmp", LAYOUT)

__all__ = ["llmp_tasks", "llmp_root", "DOMAINS", "VERSION", "LAYOUT"]
