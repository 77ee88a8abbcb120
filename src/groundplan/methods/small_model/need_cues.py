"""Stage: score (needs). Score adjustments for a stated need ("I'm thirsty", "the plant is
wilting", "I spilled my coke"): handing over a thing that meets it, the state change it asks
for, and the things it must not be met with (dirty, cold, foul, on the floor, negated)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Optional, Sequence

import numpy as np

from groundplan.methods.small_model.candidates import (
    SceneView,
)
from groundplan.methods.small_model.mentions import Analysis, with_vessels
from groundplan.methods.small_model.needs import (
    disposal_said,
    is_disposal_class,
    missing,
    need_states,
    wanted,
)
from groundplan.methods.small_model.patterns import (
    _HOT_KINDS,
    _PLANT_WORDS,
    _SENTENCE,
    _WORD,
    _caused,
    _class_words,
    _cold_places,
    _drinking_vessels,
)
from groundplan.methods.small_model.scene_lexicon import Lexicon

if TYPE_CHECKING:
    from groundplan.methods.small_model.search import GoalSearcher


#: before a mention: a destination ("onto the"), a source ("out of the"), "the spare" / "an empty"
#: words a verbless request may open with before what it asks for
_REQUEST_LEAD = frozenset({"the", "a", "an", "my", "some", "your", "that", "this", "these", "those", "both", "one",
                           "two", "three", "four", "five", "couple", "few", "of", "please", "pls", "just", "and",
                           "also", "more", "another", "all", "any"})


#: a count before a mention ("only one knife", "the one set of tongs", "a couple of rods"): asked for
_COUNTED_BEFORE = re.compile(r"(?:^|\b)(?:one|only\s+one|just\s+one|the\s+one|a\s+single|a\s+couple\s+of|a\s+pair\s+of|two|"
                             r"three|both)\s+(?:(?:set|pair|bunch|pack|packet|box|bag)\s+of\s+)?(?:\w+\s+)?$")


_INTENT = re.compile(r"\b(?:want|wanna|like|love|need|going|trying|have)\s+to\s+\w+", re.IGNORECASE)


_MEANS_BEFORE = re.compile(r"\b(?:with|using|on)\s+(?:my|the|a|your|our)\s+$", re.IGNORECASE)


_REQUEST_NEXT = re.compile(r"\s*(?:$|[,.!?;]|(?:please|pls|for|to|in|into|on|onto|and|now|thanks|over|here)\b)",
                           re.IGNORECASE)


#:  "it reeks of varnish", "the smell of fish", "fumes from the glue pot"
_SMELL_OF = re.compile(r"\b(?:(?:reek|reeks|reeking|stink|stinks|stinking|smell|smells|smelling|stench|whiff|pong|"
                       r"pongs|niff|odour|odor|fumes|fug)\s+(?:of|from|off|coming\s+(?:off|from))|smells\s+like|stinks\s+like)\s+"
                       r"(?:(?:the|that|this|those|these|some|old|stale|all|my|your|his|her|their|its|wet|burnt|"
                       r"rotten|rotting|mouldy|moldy)\s+){0,3}$")


#: (``disposal_asked``) throwing away asked for in so many words
_THROW_AWAY = re.compile(r"\b(?:(?:throw|throws|chuck|toss)\s+(?:\w+\s+){0,4}?(?:away|out)\b|discard|dispose\s+of|"
                         r"get\s+rid\s+of|bin\s+(?:it|them|this|that|these|those|the)\b)")


#:  attribute words that rule out a kind of thing when negated ("nothing fizzy")
_NEG_ATTRIBUTE = re.compile(r"fizzy|fizz|carbonated|sparkling|bubbly|sugary|sugar|sweet|alcoholic|alcohol|booze|boozy|"
                            r"caffeinated|caffeine|dairy|spicy|salty|greasy|fatty|sharp|pointy|fragile|breakable")


#:  "nothing fizzy", "no sugary drinks", "nothing with sugar in it", "something non-alcoholic"
_NOTHING_ATTRIBUTE = re.compile(r"\b(?:nothing|no|non|not|without)\b[^,.;!?]{0,20}?\b(" + _NEG_ATTRIBUTE.pattern + r")\b")


#:  a statement of hunger ("I'm starving", "would go down well", "is calling my name")
_HUNGRY = re.compile(r"\b(?:starving|starved|hungry|peckish|famished|ravenous|could\s+eat|would\s+go\s+down|"
                     r"calling\s+(?:my|to\s+me)|my\s+stomach|tummy|craving|dying\s+for)\b")


#: (``dirt_there``) "there's a sticky ring in ...", "there are crumbs all over ...": dirt said
#: to be in or on a thing named next
_DIRT_THERE = re.compile(r"\bthere(?:'s|\s+is|\s+are|'re|\s+was)\s+(?:a\s+|an\s+|some\s+|loads\s+of\s+|bits\s+of\s+)?"
                         r"(?:[a-z]+\s+){0,2}?(?:rings?|stains?|smears?|marks?|grime|gunk|crud|residue|film|crumbs|grease|"
                         r"fingerprints|dust|mould|mold|scum|muck|dirt|goo|gloop|splodges?|tidemarks?|streaks?)\b"
                         r"[^.!?]{0,25}?\b(?:in|on|inside|all\s+over|over|round|around)\b")


#: (``hungry_named``) a food the person turns down: "I can't face the rest of that sandwich"
_REFUSED = re.compile(r"\b(?:can't|cannot|can\s+not|couldn't)\s+(?:\w+\s+)?(?:face|stomach|look\s+at|eat)\b|\bsick\s+of\b|"
                      r"\bfed\s+up\s+with\b|\bhad\s+enough\s+of\b|\b(?:don't|do\s+not|won't)\s+(?:\w+\s+)?(?:want|fancy|like)\b|"
                      r"\bno\s+more\b|\bnot\b|\bexcept\b|\bapart\s+from\b|\bbar\b")


#:  words saying a thing is dirty
_DIRTY = re.compile(r"\b(?:dirty|dusty|filthy|grimy|greasy|grubby|mucky|sticky|stained|smeared|smudged|smeary|"
                    r"grotty|manky|gunky|crusty|caked|muddy|covered\s+in|coated\s+in|fingerprints|cobwebs|"
                    r"(?:needs?|could\s+do\s+with)\s+(?:a\s+)?(?:clean|wash|wipe|rinse|scrub|polish))\b")


#: (``floor_tools``) the floor, a mess on it, a wet one, and the tools for each
_FLOOR = re.compile(r"\b(?:floors?|floorboards|carpets?|rugs?|tiles|lino|deck|doormat|hallway|porch|patio)\b")


_FLOOR_MESS = re.compile(r"\b(?:crumbs?|dust|dusty|sand|sandy|grit|gritty|glitter|hair|fur|mud|muddy|dirt|dirty|mess|"
                         r"messy|filthy|tracked|trodden|walked|litter|bits|soil|sawdust|shavings|feathers|wet|soaking|"
                         r"soaked|puddle|puddles|spilt|spilled|spill|sticky|slippery|flooded|drips?|dripping|swimming)\b")


_WET_MESS = re.compile(r"\b(?:wet|soaking|soaked|puddles?|spilt|spilled|spill|sticky|slippery|flooded|drips?|"
                       r"dripping|swimming|water|juice|milk|coffee|tea|wine|soda|drink)\b")


_MOPS = frozenset({"mop", "squeegee"})


_SWEEPERS = frozenset({"broom", "vacuum", "hoover", "dustpan", "sweeper"})


#: (``foul_liquid``) a liquid said to be dirty or foul, and the classes it is poured away into
_FOUL = re.compile(r"\b(?:dirty|filthy|grey|gray|murky|mucky|muddy|cloudy|scummy|slimy|stagnant|brackish|"
                   r"grim|horrible|disgusting|gross|rank|foul|minging|manky|skanky|yucky|revolting|"
                   r"smell(?:s|y|ing)?|stink(?:s|y|ing)?|pong(?:s|y|ing)?|reek(?:s|ing)?|whiff(?:y)?|"
                   r"(?:gone|turned|going|turning)\s+(?:green|brown|black|off)|dirtied)\b")


_DRAIN_WORDS = frozenset({"sink", "drain", "basin", "washbasin", "toilet", "gully", "plughole"})


#:  a plant said to need water, and the words for plants
_WATERING = re.compile(r"\b(?:water(?:s|ed|ing)?|drink|thirst|thirsty|dry|parched|droop(?:s|y|ing)?|wilt(?:s|ed|ing)?|"
                       r"flagging|dying)\b")


#:  said to be cold right after it is named: "'s stone cold", " has gone cold", " is lukewarm"
_COLD_AFTER = re.compile(r"^(?:'s|'re|\s+(?:is|are|was|were|has|have|had|got|gets|went|seems|looks))?\s+"
                         r"(?:gone\s+|got\s+|been\s+|all\s+|a\s+bit\s+|really\s+|too\s+|so\s+|completely\s+|"
                         r"totally\s+|still\s+){0,2}(?:stone[\s-]+cold|cold|lukewarm|luke\s+warm|tepid|freezing|icy|"
                         r"not\s+(?:hot|warm)\s+enough)\b")


def need_mode(gs: "GoalSearcher", text: str, an: Optional[Analysis], cands, view: SceneView,
               lex: Optional[Lexicon] = None) -> np.ndarray:
    """A need statement: handing over, or a state change written for a need; an object the
    statement names is what it asks for only after "I'd like", "could use", ... ."""
    out = np.zeros(len(cands))
    lacked = {o for m in an.mentions if not m.category and missing(text, m.start, m.end) for o in m.objects} \
        if an is not None and gs.options.rule("missing_asked") else set()
    context = {o for m in an.mentions if not m.category and not wanted(text, m.start, gs.options.rule("have_any"), gs.options.rule("want_modifiers"))
               for o in m.objects} - lacked \
        if an is not None else set()
    if an is not None and gs.options.rule("cause_context"):  #  "sticky after that fruit": the cause
        context |= _caused(text, an)
    #  what a verbless request opens with is what it asks for ("a couple of energy
    # bars for the kids", "one cup in the fridge please"), unlike a subject ("the trowel left
    # my hands muddy"): no context
    asked = {o for m in an.mentions[:1] if not m.category and all(  # (a modifier may come last)
        w in _REQUEST_LEAD for w in _WORD.findall(text[:m.start].lower())[:-1])
        and _REQUEST_NEXT.match(text[m.end:]) for o in m.objects} if an is not None else set()
    if an is not None and _INTENT.search(text):  # "I want to watch a film on my laptop": the means
        asked |= {o for m in an.mentions if not m.category
                  and _MEANS_BEFORE.search(text[max(0, m.start - 12):m.start]) for o in m.objects}
    if an is not None and gs.options.rule("hungry_named") and lex is not None and lex.is_a is not None:
        #  "I'm starving and my salad's still in the fridge": the salad is asked for
        low = text.lower().replace("’", "'")  # (in the sentence that says the hunger)
        said = [sent.span() for sent in _SENTENCE.finditer(low) if _HUNGRY.search(sent.group(0))]
        hungry = {o for m in an.mentions if not m.category and any(a <= m.start < b for a, b in said)
                  and not _REFUSED.search(low[max(0, m.start - 40):m.start])  # ("can't face the sandwich")
                  for o in m.objects if lex.is_a(o, "consumable")}
        asked |= hungry
    else:
        hungry = set()
    if an is not None and gs.options.rule("counted_asked"):  #  "only one knife please", "one rod'll do"
        asked |= {o for m in an.mentions if not m.category
                  and _COUNTED_BEFORE.search(text[max(0, m.start - 30):m.start].lower()) for o in m.objects}
    w_context = gs.options.weights.context
    smelled = {o for m in an.mentions if _SMELL_OF.search(text[max(0, m.start - 30):m.start].lower())
               for o in m.objects} if an is not None and gs.options.rule("smell_cause") else set()
    if smelled and gs.options.rule("smell_kin"):  #  "the fumes off the wax": the wax blocks too
        words = {w for o in smelled for w in view.cls(o).split("_")}
        smelled |= {o for o, cls in view.objects.items() if cls.split("_")[0] in words}
    smelt = with_vessels(smelled, view) - asked
    for i, c in enumerate(cands):
        if c.focus in smelt:  #  "it reeks of varnish": the varnish is the cause, nothing asked of it
            out[i] -= 2 * gs.options.weights.mention + w_context
            continue
        if c.focus in (lacked | hungry) and c.frame == "inhand/?/human":  #  what the person lacks
            out[i] += gs.options.weights.need_mode + w_context
            continue
        strong = w_context if c.focus not in asked else 0.0
        if strong and c.focus in context and c.frame == "inhand/?/robot":
            out[i] -= gs.options.weights.need_mode + strong  #  nor the robot's hand
        elif c.frame == "inhand/?/human":
            if c.focus in context:
                # cancels the bonus for a named object; and the words' closeness to it
                # ("hands caked in clay", "nothing to eat this salad with": not the clay, the salad)
                out[i] -= 2 * gs.options.weights.mention + strong
        elif not c.meets_need or c.holds:
            out[i] -= gs.options.weights.need_mode  # (a need asks for a change: not what holds now)
    return out

def negated_kinds(gs: "GoalSearcher", instruction: str, an: Analysis, cands, view: SceneView) -> np.ndarray:
    """(``negated_kinds``): an attribute word in a negated span ("anything except the
    fizzy one", "nothing with sugar in it", "that isn't alcoholic") rules out the things whose
    class name is nearest it (within 0.1 of the nearest, and at least 0.5 alike: fizzy -> soda,
    coke, cola), as a thing named there is ruled out: they are not handed over."""
    out = np.zeros(len(cands))
    words = {w for sp in an.negated_spans for w in _WORD.findall(sp.lower()) if _NEG_ATTRIBUTE.fullmatch(w)}
    words = sorted(words | {m.group(1) for m in _NOTHING_ATTRIBUTE.finditer(instruction.lower().replace("’", "'"))})
    if not words or gs.encoder is None:
        return out
    things = sorted({c.focus for c in cands if c.frame == "inhand/?/human"})
    if not things:
        return out
    sims = gs.encoder.encode(words) @ gs.encoder.encode([view.cls(o).replace("_", " ") for o in things]).T
    ruled = {o for row in sims for o, v in zip(things, row) if v >= 0.5 and v >= row.max() - 0.1}
    for i, c in enumerate(cands):
        if c.frame == "inhand/?/human" and c.focus in ruled:
            out[i] -= 2 * gs.options.weights.mention + gs.options.weights.context
    return out

def dirty_named(gs: "GoalSearcher", an: Analysis, cands) -> np.ndarray:
    """(``dirty_named``): a sentence whose subject (its first named thing) is said to
    be dirty after it ("this bowl is dusty", "the cups ... and they're dusty", "the case of
    this watch is covered in greasy fingerprints") asks for that thing clean."""
    out = np.zeros(len(cands))
    text = an.text
    dirty: set[str] = set()
    for sent in _SENTENCE.finditer(text):
        ms = [m for m in an.mentions if sent.start() <= m.start < sent.end() and not m.category]
        if not ms:
            continue
        if _DIRTY.search(text[ms[0].end:sent.end()].lower().replace("’", "'")):
            dirty |= ms[0].objects
        elif gs.options.rule("dirt_there"):  #  "there's a sticky ring in my glass"
            said = _DIRT_THERE.search(text[sent.start():sent.end()].lower().replace("’", "'"))
            after = [m for m in ms if said is not None and m.start >= sent.start() + said.end()]
            if after:
                dirty |= after[0].objects
    for i, c in enumerate(cands):
        if c.atom.predicate == "clean" and c.focus in dirty and not c.holds:
            out[i] += gs.options.weights.need_mode + gs.options.weights.mention
    return out

def milk_added(gs: "GoalSearcher", instruction: str, an: Optional[Analysis], cands, view: SceneView, lex: Lexicon) -> np.ndarray:
    """(``milk_added``): a drink said too strong or bitter (need_paraphrases_more.yaml),
    or milk asked for by the splash ("a splash of milk in my cup", "I take it white"): pouring
    the scene's milk into the cup that holds tea or coffee, else into a cup the words name, else
    into a coffee cup, gains twice ``w_need_mode`` and ``w_mention``."""
    out = np.zeros(len(cands))
    cups = _drinking_vessels(lex)
    liquids = {a.args[0]: a.args[1] for a in view.init if a.predicate == "liquid_in" and len(a.args) == 2}
    milks = {liq for liq in liquids if _class_words(view, liq) & {"milk", "cream"}}
    hot = {v for liq, v in liquids.items() if v in cups and _class_words(view, liq) & _HOT_KINDS}
    named = {o for m in an.mentions if not m.category for o in m.objects} & cups if an is not None else set()
    targets = (hot & named) or hot or named or {v for v in cups if _class_words(view, v) & _HOT_KINDS}
    if not milks or not targets:
        return out
    for i, c in enumerate(cands):
        a = c.atom.args
        if c.atom.predicate == "liquid_in" and len(a) == 2 and a[0] in milks and a[1] in targets and not c.holds:
            out[i] += 2 * gs.options.weights.need_mode + gs.options.weights.mention
    return out

def floor_tools(gs: "GoalSearcher", instruction: str, cands, view: SceneView) -> np.ndarray:
    """(``floor_tools``): a need statement with a sentence about a mess on the floor
    ("glitter all over the floor", "the floor by the sink is soaking wet"): handing over a floor
    tool of the kind the mess needs (what is wet: a mop; else a broom, a vacuum, a dustpan) gains
    ``w_need_mode``."""
    out = np.zeros(len(cands))
    low = instruction.lower().replace("’", "'")
    messy = [m for m in _SENTENCE.finditer(low) if _FLOOR.search(m.group(0)) and _FLOOR_MESS.search(m.group(0))]
    if not messy:
        return out
    wet = any(_WET_MESS.search(m.group(0)) for m in messy)
    for i, c in enumerate(cands):
        if c.frame != "inhand/?/human":
            continue
        words = _class_words(view, c.focus)
        if words & (_MOPS if wet else _SWEEPERS):  # (a broom is no help with juice on the rug)
            out[i] += gs.options.weights.need_mode
    return out

def foul_liquid(gs: "GoalSearcher", an: Analysis, cands, view: SceneView) -> np.ndarray:
    """(``foul_liquid``): a sentence whose first named thing is a liquid, or a vessel
    holding one, said to be dirty or foul after it ("the water in that bucket has gone grey",
    "that bucket of old tank water is starting to pong") asks for the liquid poured away: into
    a sink or drain of the scene."""
    out = np.zeros(len(cands))
    drains = {o for o in view.objects if _class_words(view, o) & _DRAIN_WORDS}
    if not drains:
        return out
    holds = {}
    for a in view.init:
        if a.predicate == "liquid_in" and len(a.args) == 2:
            holds.setdefault(a.args[1], set()).add(a.args[0])
    liquids = {liq for ls in holds.values() for liq in ls}
    text = an.text
    foul: set[str] = set()
    for sent in _SENTENCE.finditer(text):
        ms = [m for m in an.mentions if sent.start() <= m.start < sent.end() and not m.category and not m.descriptor]
        if not ms or not _FOUL.search(text[ms[0].start:sent.end()].lower().replace("’", "'")):
            continue
        for m in ms[:2]:  # "the water in that bucket", "that bucket of old tank water"
            foul |= {o for o in m.objects if o in liquids} | {liq for o in m.objects for liq in holds.get(o, ())}
    for i, c in enumerate(cands):
        a = c.atom.args
        if c.atom.predicate == "liquid_in" and len(a) == 2 and a[0] in foul and a[1] in drains and not c.holds:
            out[i] += gs.options.weights.need_mode + gs.options.weights.mention
        elif c.atom.predicate == "liquid_warm" and a and a[0] in foul:  # (not a drink gone cold)
            out[i] -= gs.options.weights.need_mode
    return out

def watered(gs: "GoalSearcher", text: str, cands, view: SceneView, lex: Lexicon) -> np.ndarray:
    """(``water_plant``): a plant the text names, said to need water ("wilting", "give
    it a water", "hasn't had a drink"), standing in a vessel that can hold water: water in
    that vessel."""
    out = np.zeros(len(cands))
    low = text.lower().replace("’", "'")
    if not _WATERING.search(low):
        return out
    plants = {o for m in lex.mentions(text) if not m.category for o in m.objects
              if set(view.cls(o).split("_")) & _PLANT_WORDS}
    vessels = plants | {a.args[1] for a in view.init if a.predicate in ("in", "on") and len(a.args) == 2
                        and a.args[0] in plants}
    for i, c in enumerate(cands):
        a = c.atom.args
        if c.atom.predicate == "liquid_in" and len(a) == 2 and a[1] in vessels and view.cls(a[0]) == "water" \
                and not c.holds:  # (a need statement's handing over of the watering can is outweighed)
            out[i] += 2 * gs.options.weights.need_mode + gs.options.weights.mention
    return out

def cold_named(gs: "GoalSearcher", instruction: str, an: Analysis, cands, view: SceneView) -> np.ndarray:
    """(``cold_named``): a thing said to be cold right after it is named ("the water
    in the kettle's stone cold", "my soup has gone cold"; a vessel: the liquid in it) asks
    for it warm, not for a thing to hand over."""
    out = np.zeros(len(cands))
    text = instruction.lower().replace("’", "'")  # (the mentions' offsets are the instruction's)
    cold = {o for m in an.mentions if not m.category and _COLD_AFTER.match(text[m.end:m.end + 40])
            for o in m.objects}
    cold |= {a.args[0] for a in view.init if a.predicate == "liquid_in" and len(a.args) == 2 and a.args[1] in cold}
    for i, c in enumerate(cands):
        if c.atom.predicate in ("liquid_warm", "warm") and c.atom.args and c.atom.args[0] in cold and not c.holds:
            out[i] += gs.options.weights.need_mode + gs.options.weights.mention
    return out

def disposal(gs: "GoalSearcher", instruction: str, an: Optional[Analysis], cands, view: SceneView) -> np.ndarray:
    """Placements into a disposal container lose ``w_disposal`` unless throwing away is asked
    for : a robot does not bin a helmet it was asked to put on the bench."""
    out = np.zeros(len(cands))
    bins = {o for o, cls in view.objects.items() if is_disposal_class(cls)}
    if not bins:
        return out
    if disposal_said(instruction):
        if gs.options.rule("disposal_asked") and _THROW_AWAY.search(instruction.lower().replace("’", "'")):
            for i, c in enumerate(cands):  #  asked for in words, not by the bin's name
                if c.atom.predicate == "in" and len(c.atom.args) == 2 and c.atom.args[1] in bins:
                    out[i] += gs.options.weights.disposal
        return out
    # (named by its own name or a synonym: "the cans" is no trash can)
    if an is not None:
        bins -= {o for m in an.mentions if not m.cls.startswith("@") for o in m.objects}
    for i, c in enumerate(cands):
        a = c.atom.args
        if c.atom.predicate == "in" and len(a) == 2 and a[1] in bins:
            out[i] -= gs.options.weights.disposal
    return out

def spill(gs: "GoalSearcher", an: Analysis, cands, view: SceneView, lex: Lexicon) -> np.ndarray:
    """A spill : the spilled things and their vessels are context, something to
    wipe with is what the need asks for."""
    out = np.zeros(len(cands))
    spilled = with_vessels({o for m in an.mentions if not m.category for o in m.objects}, view)
    wipers = lex.function_words.get("clean", (None, frozenset()))[1]
    for i, c in enumerate(cands):
        if c.focus in spilled and c.focus not in wipers:
            out[i] -= gs.options.weights.spill
        elif c.frame == "inhand/?/human" and c.focus in wipers:
            out[i] += gs.options.weights.spill
    return out

def places_of(cands) -> set[str]:
    """Objects things can be put in or on (the second argument of an in / on candidate)."""
    return {c.atom.args[1] for c in cands if c.atom.predicate in ("in", "on") and len(c.atom.args) == 2}

def need_state_bonus(gs: "GoalSearcher", plain: Sequence[str], cands, view: SceneView) -> np.ndarray:
    """A colloquial need met by a state (need_paraphrases.yaml ``states``: a stuffy
    room by an opened window): that state of an object of that class gains ``w_need_state``."""
    out = np.zeros(len(cands))
    states = need_states(plain)
    if not states:
        return out
    for i, c in enumerate(cands):
        if c.holds or not c.atom.args:
            continue
        cls = view.cls(c.atom.args[0])
        if any(c.atom.predicate == p and (cls == k or cls.endswith("_" + k)) for p, k in states):
            out[i] += gs.options.weights.need_state
    return out

def left_out(gs: "GoalSearcher", an: Analysis, cands, view: SceneView) -> np.ndarray:
    """Food or drink left standing out : what the statement names (a liquid: its
    vessel) goes into a cold place (functions.yaml ``cold``), by ``w_left_out``."""
    out = np.zeros(len(cands))
    cold = _cold_places(view)
    named = with_vessels({o for m in an.mentions if not m.category for o in m.objects} - cold, view)
    if not cold or not named:
        return out
    for i, c in enumerate(cands):
        a = c.atom.args
        if c.atom.predicate == "in" and len(a) == 2 and a[0] in named and a[1] in cold and not c.holds:
            out[i] += gs.options.weights.left_out
    return out
