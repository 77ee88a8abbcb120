"""skill set + scene + OAM -> PDDL domain and problem (AutoGPT+P Sec. IV-D1).

Types: affordances under object; each scene class under the affordances the OAM gives it
(eq. 9) and under ``location`` when an instance is a location; one type per capability
under actor, and each agent type under the capabilities it has (eq. 10). Actions are the
capabilities with an ``?actor`` of the capability type and the actor's cost added."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from groundplan.errors import SceneError, did_you_mean
from groundplan.knowledge.affordances import affordance_names
from groundplan.knowledge.oam import OAM
from groundplan.pddl.formula import And, Atom, Increase, TypedVar, substitute
from groundplan.pddl.model import Action, Domain, Problem, TypeHierarchy
from groundplan.skills.skillset import SkillSet
from groundplan.world.scene import Scene


@dataclass(frozen=True)
class PlanningTask:
    domain: Domain
    problem: Problem  # without goal unless one is set
    skillset: SkillSet = field(compare=False)
    scene: Scene = field(compare=False)
    warnings: tuple[str, ...] = ()
    #: classes the OAM lacked whose affordances were inferred (knowledge/infer.py): class -> affordances
    inferred: Mapping[str, tuple[str, ...]] = field(default_factory=dict, compare=False)
    #: the same with why (knowledge.infer.Inference: source, nearest known classes, scene evidence)
    inference: Mapping[str, Any] = field(default_factory=dict, compare=False)

    def with_goal(self, goal) -> "PlanningTask":
        return PlanningTask(self.domain, self.problem.with_goal(goal), self.skillset, self.scene, self.warnings,
                            self.inferred, self.inference)


def _agent_caps(skillset: SkillSet, kind: str, explicit: tuple[str, ...] | None) -> tuple[str, ...]:
    if explicit is not None:
        return explicit
    prof = skillset.agents.get(kind)
    if prof is None or prof.capabilities is None:
        return tuple(c.name for c in skillset.capabilities if c.actor)
    return prof.capabilities


def build_task(skillset: SkillSet, scene: Scene, oam: OAM | None = None, *, strict: bool = True,
               visible_only: bool = True, infer: Any = "default") -> PlanningTask:
    """Build domain and problem. With ``visible_only`` objects at unexplored locations are
    left out (the robot has not perceived them). A scene class ``oam`` lacks gets inferred
    affordances (``infer``: an inferrer name of knowledge/infer.py, an inferrer, or None /
    "off" for none); they are listed in ``PlanningTask.inferred`` and one warning.
    ``oam=None`` means the default map (``default_oam()``, what the CLI uses) for a skill set
    with affordance types: a planning task is never silently built without one."""
    if oam is None and skillset.affordance_types:
        from groundplan.knowledge.oam import default_oam

        oam = default_oam()
    sc = scene.visible() if visible_only else scene
    warnings: list[str] = list(sc.warnings)
    oam, inference = _infer_unseen(skillset, sc, oam, infer, warnings)
    if oam is not None:  # no hazard is drinkable or edible, whatever the map says (knowledge/hazards.py)
        from groundplan.knowledge.hazards import veto_line, veto_oam

        oam, vetoed = veto_oam(oam, {o.cls for o in sc.objects})
        if vetoed:
            warnings.append(veto_line(vetoed))
    parents: dict[str, set[str]] = {t: set(ps) for t, ps in skillset.types.items()}
    affs = set(affordance_names()) if skillset.affordance_types else set()
    for a in affs:
        parents.setdefault(a, set()).add("object")

    # capability and agent types (eq. 10)
    cap_names = [c.name for c in skillset.capabilities if c.actor]
    cap_type = {c: f"{skillset.capability_type_prefix}{c}" for c in cap_names}
    for c in cap_names:
        parents.setdefault(cap_type[c], set()).add(skillset.actor_type)
    objects: dict[str, str] = {}
    agent_types: dict[str, str] = {}
    caps_by_type: dict[str, tuple[str, ...]] = {}
    for ag in sc.agents:
        prof = skillset.agents.get(ag.kind)
        base = prof.type if prof else ag.kind
        caps = _agent_caps(skillset, ag.kind, ag.capabilities)
        unknown = [c for c in caps if c not in cap_type]
        if unknown:
            raise SceneError(f"agent {ag.name} has capability '{unknown[0]}', unknown to skill set '{skillset.name}'"
                             f"{did_you_mean(unknown[0], cap_type)}", file=sc.source, line=sc.line_of("agent", ag.name))
        t = base
        if t in caps_by_type and caps_by_type[t] != caps:
            t = f"{ag.name}_profile"
        caps_by_type[t] = caps
        agent_types[ag.name] = t
        parents.setdefault(t, set()).add(skillset.actor_type)
        parents[t] |= {cap_type[c] for c in caps}
        objects[ag.name] = t

    # class types (eq. 9)
    location_objs = {loc.name for loc in sc.locations}
    location_objs |= {f.args[1] for f in sc.facts if f.predicate == "at" and len(f.args) == 2}
    reserved = set(parents) | {"object"}
    for o in sc.objects:
        if o.cls in reserved and o.cls not in parents.get(o.cls, set()) and o.cls in affs | set(cap_type.values()):
            raise SceneError(f"object class '{o.cls}' of {o.name} clashes with a type of skill set '{skillset.name}' "
                             f"(give it another class: {{name: {o.name}, class: {o.cls}_object}})",
                             file=sc.source, line=sc.line_of("object", o.name))
        ps = parents.setdefault(o.cls, set())
        if oam is not None and skillset.affordance_types:  # a map types classes only there
            if o.cls not in oam:
                warnings.append(f"class '{o.cls}' ({o.name}) is not in the OAM '{oam.name}'; it gets no affordances")
            ps |= {a for a in oam.affordances(o.cls) if a in affs}
        if o.name in location_objs and skillset.location_type:
            ps.add(skillset.location_type)
        if not ps:
            ps.add("object")
        objects[o.name] = o.cls
    for a, t in agent_types.items():
        objects[a] = t
    th = TypeHierarchy({t: frozenset(ps - {t}) for t, ps in parents.items()})

    # actions
    actions = []
    for c in skillset.capabilities:
        if not c.actor:  # an effect of the environment: no actor, a fixed cost
            cost = (Increase(Atom("total-cost"), c.cost),) if c.cost and skillset.cost_effect else ()
            actions.append(Action(c.name, c.parameters, c.precondition, (*c.effects, *cost), c.checks))
            continue
        params = (*c.parameters, TypedVar("?actor", cap_type[c.name]))
        actions.append(Action(c.name, params, c.precondition, (*c.effects, *skillset.cost_effect), c.checks))
    domain = Domain(skillset.domain_name, th, skillset.predicates, tuple(actions), skillset.derived,
                    {}, skillset.functions, skillset.requirements, skillset.hidden_predicates)
    warnings.extend(_undeclared_types(domain, skillset))

    # initial state: validate scene facts against the predicates
    init = _checked_facts(sc, skillset, domain, objects, oam, strict, warnings)
    warnings.extend(_unplaced(sc, init))
    for lhs, rhs in skillset.init_implications:
        for f in list(init):
            if f.predicate == lhs.predicate and len(f.args) == len(lhs.args):
                binding = dict(zip(lhs.args, f.args))
                init.add(substitute(rhs, binding))  # type: ignore[arg-type]
    numeric = {}
    if any(fn.name == "total-cost" for fn in skillset.functions):
        numeric[Atom("total-cost")] = 0.0
    if any(fn.name == "cost" for fn in skillset.functions):
        for ag in sc.agents:
            numeric[Atom("cost", (ag.name,))] = float(ag.cost)
    metric = "minimize (total-cost)" if Atom("total-cost") in numeric else None
    problem = Problem(_pddl_name(sc.name), domain.name, objects, frozenset(init), None, numeric, metric)
    return PlanningTask(domain, problem, skillset, scene, tuple(warnings),
                        {c: i.affordances for c, i in inference.items()}, inference)


def _infer_unseen(skillset: SkillSet, sc: Scene, oam: OAM | None, infer: Any,
                  warnings: list[str]) -> tuple[OAM | None, dict[str, Any]]:
    """``oam`` extended with inferred affordances for the scene classes it lacks (only in an
    affordance-typed skill set with a map). Scene evidence: an argument of a fact gets the
    affordance its predicate's parameter is typed with (``on pen0 desk0``: pen carry, desk
    support), and a listed location no fact types is a support."""
    from groundplan.knowledge.infer import extend_for, get_inferrer, summary_line

    if oam is None or not skillset.affordance_types or infer is None or infer == "off":
        return oam, {}
    missing = list(dict.fromkeys(o.cls for o in sc.objects if o.cls not in oam))
    if not missing:
        return oam, {}
    inferrer = get_inferrer(infer) if isinstance(infer, str) else infer
    affs = set(affordance_names())
    preds = {p.name: p for p in skillset.predicates}
    cls_of = {o.name: o.cls for o in sc.objects}
    evidence: dict[str, set[str]] = {}
    for f in sc.facts:
        p = preds.get(f.predicate)
        if p is None or len(p.params) != len(f.args):
            continue
        for arg, param in zip(f.args, p.params):
            c = cls_of.get(arg)
            if c in missing and param.type in affs:
                evidence.setdefault(c, set()).add(param.type)
    # a place the scene lists under ``locations:`` that no fact types (an empty easel0) is a place
    # things are put on
    for loc in sc.locations:
        c = cls_of.get(loc.name)
        if c in missing and c not in evidence and "support" in affs:
            evidence[c] = {"support"}
    extended, found = extend_for(oam, missing, inferrer, {c: frozenset(v) for c, v in evidence.items()})
    if found:
        warnings.append(summary_line(found, oam.name))
    warnings.extend(_contradictions(sc, preds, found, affs))
    return extended, found


def _contradictions(sc: Scene, preds: Mapping[str, Any], found: Mapping[str, Any], affs: set[str]) -> list[str]:
    """``file:line: ...`` warnings for the scene facts that asked an inferred class for an
    affordance contradicting what it is (``in drill0 workbench0``: a workbench is a table);
    the inference did not take them as evidence (``Inference.contradicted``)."""
    out = []
    cls_of = {o.name: o.cls for o in sc.objects}
    for f in sorted(sc.facts, key=lambda a: (a.predicate, a.args)):
        p = preds.get(f.predicate)
        if p is None or len(p.params) != len(f.args):
            continue
        for arg, param in zip(f.args, p.params):
            inf = found.get(cls_of.get(arg, ""))
            if inf is None or param.type not in getattr(inf, "contradicted", ()):
                continue
            why = dict(inf.withheld).get(param.type, "")
            line = sc.line_of("fact", " ".join((f.predicate, *f.args)))
            where = f"{sc.source}:{line}: " if sc.source and line else (f"{sc.source}: " if sc.source else "")
            out.append(f"{where}fact {f.pddl()} would make {arg} {_a(param.type)}: {why}; not taken as evidence "
                       f"(a typo? a fact '{f.predicate}' needs {_a(param.type)} as argument {p.params.index(param) + 1})")
    return out


def _pddl_name(name: str) -> str:
    """A scene's name as a PDDL problem name Fast Downward reads: ASCII, no whitespace,
    parentheses or ``;`` (``Gartenhütte (alt); v2`` -> ``Gartenhutte_alt_v2``); a name that
    already is one is kept as it is."""
    import re
    import unicodedata

    kept = name.replace(" ", "_")  # what names were before: unchanged where Fast Downward reads them
    if kept.isascii() and not re.search(r"[\s();]", kept):
        return kept or "task"
    ascii_ = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    return re.sub(r"[\s();]+", "_", ascii_).strip("_") or "task"


def _unplaced(sc: Scene, init: set[Atom]) -> list[str]:
    """One warning for the objects listed under a location that no initial fact names: no
    action can reach them (a location's list says where an object is hidden until explored;
    the facts, such as ``on mug0 table0``, say how it lies there); and one for the objects
    that no fact names and no location lists (an object the author forgot to place)."""
    named = {a for f in init for a in f.args}
    present = {o.name for o in sc.objects}
    loose = [(o, loc.name) for loc in sc.locations for o in loc.contents if o in present and o not in named]
    listed = {o for loc in sc.locations for o in loc.contents} | {loc.name for loc in sc.locations}
    agents = {a.name for a in sc.agents}
    nowhere = [o.name for o in sc.objects if o.name not in named and o.name not in listed and o.name not in agents]
    out = [f"{len(nowhere)} object{'s' * (len(nowhere) != 1)} of the scene appear{'s' * (len(nowhere) == 1)} in no "
           f"fact and under no location, so no action can reach {'them' if len(nowhere) != 1 else 'it'}: "
           + ", ".join(nowhere[:8]) + (f" and {len(nowhere) - 8} more" if len(nowhere) > 8 else "")
           + f" (add a fact such as 'on {nowhere[0]} <place>')"] if nowhere else []
    if not loose:
        return out
    o, where = loose[0]
    names = ", ".join(n for n, _ in loose[:8]) + (f" and {len(loose) - 8} more" if len(loose) > 8 else "")
    return [f"{len(loose)} object{'s' * (len(loose) != 1)} listed under locations appear{'s' * (len(loose) == 1)} "
            f"in no fact, so no action can reach {'them' if len(loose) != 1 else 'it'}: {names} (add facts such as "
            f"'on {o} {where}' or 'in {o} {where}')"] + out


def _undeclared_types(domain: Domain, skillset: SkillSet) -> list[str]:
    """Action parameter types that are neither declared nor a class of this scene (a skill
    set may name scene classes as types; without such objects the action never applies)."""
    used: dict[str, str] = {}
    for a in domain.actions:
        for v in a.parameters:
            used.setdefault(v.type, f"action '{a.name}'")
    return [f"type '{t}' of {where} in skill set '{skillset.name}' is neither declared under types nor a class "
            f"of this scene; nothing can fill it" for t, where in sorted(used.items()) if t not in domain.types]


def _fact_problem(f: Atom, sc: Scene, skillset: SkillSet, domain: Domain, objects: dict[str, str],
                  oam: OAM | None) -> tuple[str, bool] | None:
    """What is wrong with a scene fact for this domain, and whether the fact is dropped for
    it (False: a typing problem; the fact is kept, as before, when not strict)."""
    preds = domain.predicate_map
    p = preds.get(f.predicate)
    if p is None:
        usable = [n for n in preds if not domain.is_derived(n)]
        return (f"fact {f.pddl()} uses predicate '{f.predicate}', unknown to skill set '{skillset.name}'"
                f"{did_you_mean(f.predicate, usable)}", True)
    if domain.is_derived(f.predicate):
        return f"fact {f.pddl()} sets the derived predicate '{f.predicate}' (it follows from other facts)", True
    if len(f.args) != p.arity:
        return (f"fact {f.pddl()}: predicate '{f.predicate}' takes {p.arity} argument{'s' * (p.arity != 1)} "
                f"{p.pddl()}", True)
    missing = [a for a in f.args if a not in objects]
    if missing:
        return f"fact {f.pddl()} names unknown object '{missing[0]}'{did_you_mean(missing[0], objects)}", True
    if not (skillset.affordance_types and oam is not None):
        return None
    # an affordance-typed domain: each argument must have the affordance the predicate needs,
    # checked only where the class's affordances are known (in the map, given or inferred)
    for i, (arg, param) in enumerate(zip(f.args, p.params)):
        obj = sc.object(arg)
        if obj is None or obj.cls not in oam or domain.types.is_subtype(objects[arg], param.type):
            continue
        affs = sorted(oam.affordances(obj.cls))
        fits = [q.name for q in domain.predicates if q.name != f.predicate and q.arity == p.arity
                and q.name not in domain.hidden_predicates and not domain.is_derived(q.name)
                and all(domain.types.is_subtype(objects[a], v.type) for a, v in zip(f.args, q.params))]
        hint = f"; '{fits[0]}' fits: ({fits[0]} {' '.join(f.args)})" if fits else ""
        return (f"fact {f.pddl()}: {arg} is a {obj.cls} with affordances [{', '.join(affs)}]; "
                f"'{f.predicate}' needs {_a(param.type)} as argument {i + 1}{hint} "
                f"(or give {obj.cls} that affordance in an --oam file)", False)
    return None


def _checked_facts(sc: Scene, skillset: SkillSet, domain: Domain, objects: dict[str, str], oam: OAM | None,
                   strict: bool, warnings: list[str]) -> set[Atom]:
    """The scene's facts that fit the domain; a misfit raises ``file:line: message`` when
    strict, else is a warning (dropped when the planner could not use it at all)."""
    init: set[Atom] = set()
    for f in sorted(sc.facts, key=lambda a: (a.predicate, a.args)):
        found = _fact_problem(f, sc, skillset, domain, objects, oam)
        if found is None:
            init.add(f)
            continue
        msg, drop = found
        if strict:  # say how to load the scene anyway (many published scenes hold such facts)
            hint = "--lenient drops the fact with a warning" if drop else "--lenient keeps the fact with a warning"
            raise SceneError(f"{msg}; {hint}", file=sc.source, line=sc.line_of("fact", " ".join((f.predicate, *f.args))))
        warnings.append(msg + ("; dropped" if drop else ""))
        if not drop:
            init.add(f)
    return init


__all__ = ["PlanningTask", "build_task", "And"]


def _a(word: str) -> str:
    return f"{'an' if word[:1] in 'aeiou' else 'a'} {word}"
