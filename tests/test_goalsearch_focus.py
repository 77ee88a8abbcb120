"""goalsearch's focus on a large scene keeps every kind of thing the request might be met by:
all objects of the classes it names, and one of every other class (a request that names
nothing, such as "the rain's blowing in", may be met by any kind of thing)."""

from __future__ import annotations

from groundplan.knowledge.oam import default_oam
from groundplan.methods.small_model.candidates import scene_view
from groundplan.methods.small_model.focus import FOCUS_ABOVE, focus
from groundplan.skills.builder import build_task
from groundplan.skills.skillset import load_skillset
from groundplan.world.generate import household_scene


def _classes(domain, problem) -> dict[str, set[str]]:
    view = scene_view(domain, problem)
    out: dict[str, set[str]] = {}
    for o, c in view.objects.items():
        out.setdefault(c, set()).add(o)
    return out


def test_focus_keeps_every_class_and_all_of_the_named_one():
    pt = build_task(load_skillset("household"), household_scene(300, seed=2), default_oam(), strict=False)
    assert len(pt.problem.objects) > FOCUS_ABOVE
    whole = _classes(pt.domain, pt.problem)
    named = next(c for c, objs in sorted(whole.items()) if len(objs) > 3 and not c.startswith(("human", "robot")))
    part = focus(f"put every {named.replace('_', ' ')} away", pt.domain, pt.problem)
    assert part is not None and len(part.objects) < len(pt.problem.objects)
    kept = _classes(pt.domain, part)
    assert set(kept) == set(whole)  # one of every class at least
    assert kept[named] == whole[named]  # all of the class the request names
    assert any(len(kept[c]) < len(whole[c]) for c in whole if c != named)  # repeats are dropped


def test_a_small_scene_is_searched_whole():
    pt = build_task(load_skillset("household"), household_scene(25, seed=2), default_oam(), strict=False)
    assert focus("I'm cold", pt.domain, pt.problem) is None
