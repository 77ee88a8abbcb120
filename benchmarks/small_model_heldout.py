"""Held-out evaluation of goalsearch (issue 21): the held-out instructions written on
2026-11-24 (benchmarks/data/heldout_goals/), AutoGPT+P's SayCan set and its plan-tool sets,
per family: success, median and p95 wall time per instruction (model loaded, one process).

    .venv/bin/python benchmarks/small_model_heldout.py check                    # every gold goal is reachable
    .venv/bin/python benchmarks/small_model_heldout.py run shipped --sets heldout,saycan,plan-tool
    .venv/bin/python benchmarks/small_model_heldout.py run no-lm --sets heldout
    .venv/bin/python benchmarks/small_model_heldout.py report > benchmarks/results/small_model/heldout.md

Runs are written to ``--out`` (default benchmarks/results/small_model/heldout/, not tracked);
the runs behind heldout.md are packed in benchmarks/results/small_model/heldout.tar.xz, which
``report`` and ``--reuse`` read as well (``results_archive.py pack`` adds new runs to it).

Variants are goalsearch configurations (see VARIANTS); ``--threads`` sets the embedded
model's threads (default 1). The gold goal is read only to score the executed plan.
The held-out set is never used for tuning: the example pool, the prompts and the generated
training data are checked disjoint from it (tests/test_heldout_disjoint.py).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

import results_archive  # a sibling script (benchmarks/ is sys.path[0] when run as a script)
import yaml

ROOT = Path(__file__).resolve().parents[1]
HELDOUT_DIR = ROOT / "benchmarks" / "data" / "heldout_goals"
HELDOUT_FILE = HELDOUT_DIR / "heldout_2026-11-24.yaml"
#: the second, fresh held-out set ("held-out b"), written before the second round of changes
HELDOUT_B_FILE = HELDOUT_DIR / "heldout_2026-11-24b.yaml"
#: the third, fresh held-out set ("held-out c"), written before the third round of changes
HELDOUT_C_FILE = HELDOUT_DIR / "heldout_2026-11-24c.yaml"
#: the fourth, fresh held-out set ("held-out d"), written before the fourth round of changes
HELDOUT_D_FILE = HELDOUT_DIR / "heldout_2026-11-24d.yaml"
#: the fifth, fresh held-out set ("held-out e"), written independently before running goalsearch on it
HELDOUT_E_FILE = HELDOUT_DIR / "heldout_2026-11-24e.yaml"
#: the sixth, fresh held-out set ("held-out f"), written independently before running goalsearch on it
HELDOUT_F_FILE = HELDOUT_DIR / "heldout_2026-11-24f.yaml"
#: the seventh, fresh held-out set ("held-out g"), written independently for the next blind measurement
HELDOUT_G_FILE = HELDOUT_DIR / "heldout_2026-11-24g.yaml"
#: the eighth, fresh held-out set ("held-out h"), written independently for a later blind measurement
HELDOUT_H_FILE = HELDOUT_DIR / "heldout_2026-11-25h.yaml"
#: the ninth, fresh held-out set ("held-out i"), written independently for a later blind measurement
HELDOUT_I_FILE = HELDOUT_DIR / "heldout_2026-11-25i.yaml"
#: the tenth, fresh held-out set ("held-out j"), written independently for a later blind measurement
HELDOUT_J_FILE = HELDOUT_DIR / "heldout_2026-11-25j.yaml"
#: the eleventh, fresh held-out set ("held-out k"), written independently for a later blind measurement
HELDOUT_K_FILE = HELDOUT_DIR / "heldout_2026-11-25k.yaml"
#: the twelfth, fresh held-out set ("held-out l"), written independently for a later blind measurement
HELDOUT_L_FILE = HELDOUT_DIR / "heldout_2026-11-25l.yaml"
#: the thirteenth, fresh held-out set ("held-out m"), written independently on 2026-11-27 for round 11's blind measurement
HELDOUT_M_FILE = HELDOUT_DIR / "heldout_2026-11-27m.yaml"
#: the fourteenth, fresh held-out set ("held-out n"), written independently on 2026-11-27 for round 12's blind measurement
HELDOUT_N_FILE = HELDOUT_DIR / "heldout_2026-11-27n.yaml"
#: the fifteenth, fresh held-out set ("held-out o"), written independently on 2026-11-27 for round 13's blind measurement
HELDOUT_O_FILE = HELDOUT_DIR / "heldout_2026-11-27o.yaml"
#: the sixteenth, fresh held-out set ("held-out p"), written independently on 2026-11-27 for round 14's blind measurement
HELDOUT_P_FILE = HELDOUT_DIR / "heldout_2026-11-27p.yaml"
#: the seventeenth, fresh held-out set ("held-out q"), written independently on 2026-11-27 for round 15's blind measurement
HELDOUT_Q_FILE = HELDOUT_DIR / "heldout_2026-11-27q.yaml"
#: the eighteenth, fresh held-out set ("held-out r"), written independently on 2026-11-27 for round 16's blind measurement
HELDOUT_R_FILE = HELDOUT_DIR / "heldout_2026-11-27r.yaml"
#: the nineteenth, fresh held-out set ("held-out s"), written independently on 2026-11-27 for round 17's blind measurement
HELDOUT_S_FILE = HELDOUT_DIR / "heldout_2026-11-27s.yaml"
#: the twentieth, fresh held-out set ("held-out t"), written independently on 2026-11-28 for round 18's blind measurement
HELDOUT_T_FILE = HELDOUT_DIR / "heldout_2026-11-28t.yaml"
#: the twenty-first, fresh held-out set ("held-out u"), written before round 19 was measured
HELDOUT_U_FILE = HELDOUT_DIR / "heldout_2026-11-28u.yaml"
HELDOUT_V_FILE = HELDOUT_DIR / "heldout_2026-11-28v.yaml"
#: the twenty-third, fresh held-out set ("held-out w"), written before round 21 was measured
HELDOUT_W_FILE = HELDOUT_DIR / "heldout_2026-11-28w.yaml"
#: the twenty-fourth, fresh held-out set ("held-out x"), written before round 22 was measured
HELDOUT_X_FILE = HELDOUT_DIR / "heldout_2026-11-28x.yaml"
#: the twenty-fifth, fresh held-out set ("held-out y"), written before round 23 was measured
HELDOUT_Y_FILE = HELDOUT_DIR / "heldout_2026-11-28y.yaml"
#: the twenty-sixth, fresh held-out set ("held-out z"), written before the second half of round 23 was measured
HELDOUT_Z_FILE = HELDOUT_DIR / "heldout_2026-11-28z.yaml"
#: the twenty-seventh, fresh held-out set ("held-out aa"), written before round 24 was measured
HELDOUT_AA_FILE = HELDOUT_DIR / "heldout_2026-11-28aa.yaml"
#: the twenty-eighth, fresh held-out set ("held-out ab"), written 2026-11-29 before goalsearch ran on it: 63
#: instructions over three new scenes, 44 of them stated needs that do not name the object meeting them
HELDOUT_AB_FILE = HELDOUT_DIR / "heldout_2026-11-29ab.yaml"
HELDOUT_FILES = {"heldout": HELDOUT_FILE, "heldout-b": HELDOUT_B_FILE, "heldout-c": HELDOUT_C_FILE,
                 "heldout-d": HELDOUT_D_FILE, "heldout-e": HELDOUT_E_FILE, "heldout-f": HELDOUT_F_FILE,
                 "heldout-g": HELDOUT_G_FILE, "heldout-h": HELDOUT_H_FILE,
                 "heldout-i": HELDOUT_I_FILE, "heldout-j": HELDOUT_J_FILE, "heldout-k": HELDOUT_K_FILE,
                 "heldout-l": HELDOUT_L_FILE, "heldout-m": HELDOUT_M_FILE,
                 "heldout-n": HELDOUT_N_FILE, "heldout-o": HELDOUT_O_FILE,
                 "heldout-p": HELDOUT_P_FILE, "heldout-q": HELDOUT_Q_FILE,
                 "heldout-r": HELDOUT_R_FILE, "heldout-s": HELDOUT_S_FILE,
                 "heldout-t": HELDOUT_T_FILE, "heldout-u": HELDOUT_U_FILE,
                 "heldout-v": HELDOUT_V_FILE, "heldout-w": HELDOUT_W_FILE, "heldout-x": HELDOUT_X_FILE, "heldout-y": HELDOUT_Y_FILE, "heldout-z": HELDOUT_Z_FILE, "heldout-aa": HELDOUT_AA_FILE,
                 "heldout-ab": HELDOUT_AB_FILE}
OUT = ROOT / "benchmarks" / "results" / "small_model" / "heldout"
#: every set ``run --sets`` takes
SET_NAMES = ("tuning", "tuning2", "tuning3", "tuning3dev", "saycan", "plan-tool",
             *[n for h in HELDOUT_FILES for n in (h, f"{h}-oracle")])
DEFAULT_OAM = ROOT / "src" / "groundplan" / "knowledge" / "data" / "default_oam.yaml"

#: name -> (description, goalsearch config, uses the LLM)
VARIANTS: dict[str, tuple[str, dict, bool]] = {
    "shipped": ("goalsearch as shipped (the default configuration)", {}, True),
    "no-lm": ("minus LM scoring", {"lm_scoring": False}, False),
    "with-lm": ("plus LM scoring (SmolLM2 reranks close calls)", {"lm_scoring": True}, True),
    "no-negation": ("minus negation / except handling", {"negation": False}, True),
    "no-mention-groups": ("minus groups from mentions (plurals, categories, numbers, source places)",
                          {"mention_groups": False}, True),
    "no-clause-rewrite": ("minus verbless conjuncts and dropping reason clauses",
                          {"verbless_clauses": False, "drop_context_clauses": False}, True),
    "no-class-uses": ("the needs each class meets off (knowledge/class_uses.yaml; off by default in round 2, on since round 3)",
                      {"class_uses": False}, True),
    "with-class-uses": ("plus the needs each class meets as phrases (knowledge/class_uses.yaml)", {"class_uses": True},
                        True),
    "no-mention-bonus": ("minus the bonus for named objects (ordinals, descriptor places)", {"w_mention": 0.0}, True),
    # round 3 (issue 21): each technique of the round switched off, and all of them
    "round2-default": ("round 2's default: every round-3 technique off, no class uses",
                       {"function_groups": False, "state_verbs": False, "keep_in_place": False, "singular_all": False,
                        "need_functions": False, "class_uses": False}, True),
    "no-function-groups": ("minus groups named by function (affordances: 'cleaning supplies', 'things to cut with')",
                           {"function_groups": False}, True),
    "no-state-verbs": ("minus state verbs of clauses ('slice', 'heat', 'fill' -> chopped, liquid_warm, liquid_in)",
                       {"state_verbs": False}, True),
    "no-keep-in-place": ("minus kept objects ('leave the X on the Y', 'the X stays', 'just no X')",
                         {"keep_in_place": False}, True),
    "no-singular-all": ("minus 'every mug' / 'each glass' as groups, 'one of the drinks' as one",
                        {"singular_all": False}, True),
    "no-need-functions": ("minus function words of needs ('needs snipping' -> things that cut)",
                          {"need_functions": False}, True),
    # round 4 (issue 21): each technique of the round switched off, and all of them
    "round3-default": ("round 3's options: every round-4 technique off (the broadened class uses stay)",
                       {"need_mode": False, "multistep_refs": False, "synonyms": False}, True),
    "no-need-mode": ("minus need mode (need statements hand something over or change a state)",
                     {"need_mode": False}, True),
    "no-multistep-refs": ("minus multi-step references (close the lid, from it, group and clauses, ...)",
                          {"multistep_refs": False}, True),
    "no-synonyms": ("minus class synonyms ('fridge' for a refrigerator)", {"synonyms": False}, True),
    # round 5 (issue 21): each technique of the round switched off
    "no-destinations": ("minus destinations named by a preposition ('into the box': in)",
                        {"destinations": False}, True),
    "no-open-containers": ("minus open containers (mugs, pots, jars, ... hold things)",
                           {"open_containers": False}, True),
    "no-second-phrase": ("minus the second-best phrase as a tie-breaker", {"w_second": 0.0}, True),
    "round4-options": ("round 5's options off (destinations, open containers, second phrase); the data and "
                       "needs changes stay", {"destinations": False, "open_containers": False, "w_second": 0.0}, True),
    # round 6 (issue 21): each technique of the round switched off, and all of them
    "no-mass-groups": ("minus category groups with an exception ('the fruit but not the lemon') and 'all the fabric'",
                       {"mass_groups": False}, True),
    "no-plural-refs": ("minus plural pronouns as every thing taken ('put them both on the shelf')",
                       {"plural_refs": False}, True),
    "no-instruments": ("minus tools after 'with it' and dipping / wiping as no placement",
                       {"instruments": False}, True),
    "no-need-paraphrases": ("minus the colloquial need lexicon ('gasping': thirsty)", {"need_paraphrases": False}, True),
    "round5-options": ("round 6's options off (mass groups, plural refs, instruments, need paraphrases); the data "
                       "changes stay", {"mass_groups": False, "plural_refs": False, "instruments": False,
                                        "need_paraphrases": False}, True),
    # round 7 (issue 21): each technique of the round switched off, and both
    "no-compound-nouns": ("minus noun compounds ('the fruit basket' is a basket, 'the coffee table' a table)",
                          {"compound_nouns": False}, True),
    "no-empty-clauses": ("minus dropping clauses of only 'but' / 'thanks'", {"empty_clauses": False}, True),
    "round6-options": ("round 7's options off (noun compounds, empty clauses)",
                       {"compound_nouns": False, "empty_clauses": False}, True),
    # round 8 (issue 21)
    "no-cue-words": ("minus cue words ('I don't need the X', 'hand it over', 'everything out of the fridge')",
                     {"cue_words": False}, True),
    "no-clause-objects": ("minus a clause's own object (a thing named after 'out of' is a source)",
                          {"clause_objects": False}, True),
    "no-compound-heads": ("minus one-word compound heads ('the bench' for the workbench)",
                          {"compound_heads": False}, True),
    "no-fill-for-need": ("minus filling a vessel for a need (a watering can handed full, an empty bowl filled)",
                         {"fill_for_need": False}, True),
    "no-category-heads": ("minus category by head noun ('wire_cutter' is a cutter)", {"category_heads": False}, True),
    "no-liquid-vessels": ("minus a liquid's container ('put the milk in the fridge': the carton)",
                          {"liquid_vessels": False}, True),
    "no-context-weight": ("minus the stronger penalty on a need's context objects", {"w_context": 0.0}, True),
    # round 9 (issue 21)
    "no-counted-asked": ("minus 'a need's object named with a count is asked for' ('only one knife please')",
                         {"counted_asked": False}, True),
    "round8-options": ("round 9's option off", {"counted_asked": False}, True),
    # round 10 (issue 21): WordNet senses of classes the class-use lexicon lacks
    "no-wordnet": ("minus WordNet senses (round 9's options)", {"wordnet_senses": False}, True),
    "with-wordnet": ("plus WordNet senses of classes the class-use lexicon lacks (instead of the nearest class's uses)",
                     {"wordnet_senses": True}, True),
    "wordnet-beside-nearest": ("plus WordNet senses, beside the nearest class's uses",
                               {"wordnet_senses": True, "sense_over_nearest": False}, True),
    "wordnet-all": ("plus WordNet senses of every class", {"wordnet_senses": True, "senses_all": True}, True),
    "wordnet-as-need": ("plus WordNet senses, phrased 'I need <sense>'",
                        {"wordnet_senses": True, "sense_template": "I need {}"}, True),
    # round 11 (issue 21): uses of a WordNet hypernym the class-use lexicon knows
    "no-hypernyms": ("minus WordNet hypernym uses (round 10's options)", {"wordnet_hypernyms": False}, True),
    "round9-options": ("rounds 10's and 11's WordNet options off", {"wordnet_senses": False, "wordnet_hypernyms": False},
                       True),
    "with-hypernyms": ("plus the uses of the nearest WordNet hypernym the class-use lexicon has (waders: boot)",
                       {"wordnet_hypernyms": True}, True),
    "hypernyms-depth1": ("WordNet hypernym uses, one level up only", {"wordnet_hypernyms": True, "hypernym_depth": 1},
                         True),
    "with-liquid-sources": ("plus a named liquid's portion by its named vessel or place ('the water from the bottle')",
                            {"liquid_sources": True}, True),
    # round 12 (issue 21)
    "no-disposal-cue": ("minus 'throw away only when asked' (placements into a trash can need a disposal word)",
                        {"disposal_cue": False}, True),
    "no-spills": ("minus spills (what spilled is context, something to wipe with is asked for)", {"spills": False},
                  True),
    "no-modal-can": ("minus the modal 'can' ('can you ...' names no trash can)", {"modal_can": False}, True),
    "no-pronoun-preps": ("minus 'into it' says in, 'onto it' on", {"pronoun_preps": False}, True),
    "no-more-descriptors": ("minus \"the cup that's on the table\" as a descriptor", {"more_descriptors": False},
                            True),
    "no-kept-places": ("minus a kept object left where the instruction says ('but leave the orange on the shelf')",
                       {"kept_places": False}, True),
    "round11-options": ("round 12's options off (disposal cue, spills, modal can, pronoun prepositions, descriptors, "
                        "kept places)", {"disposal_cue": False, "spills": False, "modal_can": False,
                                         "pronoun_preps": False, "more_descriptors": False, "kept_places": False}, True),
    # round 13 (issue 21)
    "no-spill-needs": ("minus a spill as a need even when it says where it went, and no group of what spilled",
                       {"spill_needs": False}, True),
    "no-vessel-contents": ("minus 'boil the kettle' as the liquid in it (and a heated liquid's vessel brought)",
                           {"vessel_contents": False}, True),
    "no-bar-cue": ("minus 'anything bar the X' as an exception", {"bar_cue": False}, True),
    "no-left-out": ("minus food left standing out goes in the fridge", {"left_out": False}, True),
    "no-group-other-clauses": ("minus a group's other clauses kept beside its pronoun clause",
                               {"group_other_clauses": False}, True),
    "no-said-compounds": ("minus 'the lunchbox' for the scene's box", {"said_compounds": False}, True),
    "no-state-descriptors": ("minus 'the open box' as which box", {"state_descriptors": False}, True),
    "no-idioms": ("minus set phrases in plain words ('put the kettle on')", {"idioms": False}, True),
    "no-tool-purpose": ("minus 'something to clean the jug with': the jug is acted on, not handed over",
                        {"tool_purpose": False}, True),
    "no-statement-clauses": ("minus a statement beside one request adds nothing ('I'm parched, pour me some water')",
                             {"statement_clauses": False}, True),
    "no-need-states": ("minus a need met by a state ('so stuffy in here': an opened window)", {"need_states": False},
                       True),
    "round12-options": ("round 13's options off (spill needs, vessel contents, bar cue, left out, group clauses, "
                        "said compounds, state descriptors, idioms, need states, tool purpose, statement clauses)",
                        {"spill_needs": False, "vessel_contents": False, "bar_cue": False, "left_out": False,
                         "group_other_clauses": False, "said_compounds": False, "state_descriptors": False,
                         "idioms": False, "need_states": False, "tool_purpose": False, "statement_clauses": False},
                        True),
    # round 14 (issue 21)
    "no-unplaced": ("minus a carried thing the scene places nowhere gets no candidate", {"unplaced": False}, True),
    "no-adverb-all": ("minus 'my fingers are all tacky': 'all' after a linking verb quantifies nothing",
                      {"adverb_all": False}, True),
    "no-cause-context": ("minus a need's cause is not asked for ('parched after all those nuts')",
                         {"cause_context": False}, True),
    "no-loose-needs": ("minus need phrasings matched with words between or reordered", {"loose_needs": False}, True),
    "no-np-conjuncts": ("minus 'and' between things is no clause break ('all the fruit and veg into the fridge')",
                        {"np_conjuncts": False}, True),
    "no-place-pronoun": ("minus 'take everything out of it': the place said before", {"place_pronoun": False}, True),
    "no-every-place": ("minus a thing on two places counts on each", {"every_place": False}, True),
    "no-place-modifiers": ("minus 'the cutting table': the table the cutting mat is on", {"place_modifiers": False},
                           True),
    "no-subject-negation": ("minus 'but the knives shouldn't go in there' leaves the knives out",
                            {"subject_negation": False}, True),
    "no-contents-descriptor": ("minus 'the bowl of peanuts': the bowl, not the peanuts",
                               {"contents_descriptor": False}, True),
    "no-holds": ("minus a goal that holds already loses", {"w_holds": 0.0}, True),
    "no-along-with": ("minus 'put it on the mat together with the ruler': the ruler too", {"along_with": False},
                      True),
    "no-nested-destinations": ("minus 'serve it on a plate at the table': the plate goes to the table too",
                               {"nested_destinations": False}, True),
    # round 15 (issue 21)
    "no-courtesy-tags": ("minus a courtesy tag ('..., would you?') is no clause", {"courtesy_tags": False}, True),
    "no-vessel-focus": ("minus a clause naming a vessel is about its liquid ('boil the kettle')",
                        {"vessel_focus": False}, True),
    "no-open-ones": ("minus closing whatever is open ('shut whatever's been left open')", {"open_ones": False}, True),
    "no-contents-clauses": ("minus a group narrowed by what it holds ('the bowls that have nuts in them', "
                            "'not the empty one')", {"contents_clauses": False}, True),
    "no-hand-me": ("minus 'hand me', 'for us', a bare 'bring' and a verbless 'X, please' favour hand-overs",
                   {"w_hand_me": 0.0}, True),
    "no-whatever-all": ("minus 'whatever's on X' is everything on X", {"whatever_all": False}, True),
    "no-pronoun-states": ("minus a state verb on a pronoun picks the state ('cut it up on the board')",
                          {"pronoun_states": False}, True),
    "no-source-clause": ("minus a group said by its source keeps the other clauses", {"source_clause": False}, True),
    "no-statement-context": ("minus a statement beside a group adds no atom", {"statement_context": False}, True),
    "no-liquid-states": ("minus no cleaning or wetting atom for a liquid", {"liquid_states": False}, True),
    "no-carried-vessel": ("minus a pronoun handed over after filling is the vessel", {"carried_vessel": False}, True),
    "no-add-to": ("minus what a clause adds goes into the vessel before ('add the cereal')", {"add_to": False}, True),
    "no-fetch-steps": ("minus a fetching step adds no state ('get the milk, pour some ...')", {"fetch_steps": False},
                       True),
    "no-nested-places": ("minus 'the basket on the shelf' as a source; 'from the box on the shelf' no destination",
                         {"nested_places": False}, True),
    "no-more-needs": ("minus round 15's need phrasings (need_paraphrases_more.yaml)", {"more_needs": False}, True),
    "no-along-with-me": ("minus 'pass me the mug along with the capo' hands over both", {"along_with_me": False},
                         True),
    # round 16 (issue 21)
    "no-dest-locators": ("minus 'into the box on the counter': the counter only says which box; 'the screw that's "
                         "sitting on the board': no destination", {"dest_locators": False}, True),
    "no-joined-names": ("minus 'the teapot' for a tea_pot", {"joined_names": False}, True),
    "no-open-taken": ("minus 'get the packet out of the fridge, open it': the packet", {"open_taken": False}, True),
    "no-fill-from": ("minus 'fill the teapot from the kettle': the kettle's water into the teapot",
                     {"fill_from": False}, True),
    "no-put-back": ("minus 'put the carton back in the fridge' where it is now", {"put_back": False}, True),
    "no-noun-lists": ("minus 'the hydrometer, thermometer and airlock back on the shelf': all three",
                      {"noun_lists": False}, True),
    "no-keep-reasons": ("minus 'leave the capper out, I need it next': no atom for the reason",
                        {"keep_reasons": False}, True),
    "no-class-words": ("minus 'the pots and pans' names the scene's pots and pans, not things to cook with",
                       {"class_words": False}, True),
    "no-plural-pairs": ("minus 'all the pots and pans' with one of each is a group", {"plural_pairs": False}, True),
    "no-empty-state": ("minus 'every empty vase': those holding nothing", {"empty_state": False}, True),
    "no-definite-source": ("minus 'tip the fruit out of the bowl': all the fruit there", {"definite_source": False},
                           True),
    "no-one-of-adjective": ("minus 'one of the clean cloths' is one", {"one_of_adjective": False}, True),
    # round 17 (issue 21)
    "no-need-holds": ("minus a need is never met by a goal that holds already", {"need_holds": False}, True),
    "no-closing-steps": ("minus '..., then shut it again': it ends closed", {"closing_steps": False}, True),
    "no-all-but-one": ("minus 'all but one': every member but one", {"all_but_one": False}, True),
    "no-group-states": ("minus 'wipe down the two cups': each cleaned", {"group_states": False}, True),
    "no-wish-pairs": ("minus 'I need both the pan and the pot on the stove': both placed", {"wish_pairs": False},
                      True),
    "no-dirty-named": ("minus 'this bowl is dusty': the bowl cleaned", {"dirty_named": False}, True),
    "no-heat-contents": ("minus 'set the pot on the stove and get it heating': the water heated",
                         {"heat_contents": False}, True),
    "no-liquid-carried": ("minus 'take the milk out and put it on the tray': the carton",
                          {"liquid_carried": False}, True),
    "no-which-one": ("minus 'the box that's on the table', 'the spoon from the counter', 'the other one': which one",
                     {"which_one": False}, True),
    "no-state-clauses": ("minus a clause with a state verb asks for that state ('boil the kettle, then ...')",
                         {"state_clauses": False}, True),
    "no-one-atom-clauses": ("minus clauses that come to one atom give it first ('... Fish it out and hand it to me'); "
                            "the shipped default since the round-17 measurement",
                            {"one_atom_clauses": False}, True),
    # round 18 (issue 21)
    "no-negated-leave": ("minus 'don't leave the fridge open': it ends closed", {"negated_leave": False}, True),
    "no-have-any": ("minus 'have we got any of those energy bars left?': asked for", {"have_any": False}, True),
    "no-smell-cause": ("minus 'it reeks of varnish in here': the varnish is the cause", {"smell_cause": False}, True),
    "no-counted-things": ("minus 'the two things on the coffee table': everything on it", {"counted_things": False},
                          True),
    "no-empty-into": ("minus 'empty the water bottle into the watering can': poured", {"empty_into": False}, True),
    "no-located-exclusions": ("minus 'but not the apple from my lunch box': only the one there left out",
                              {"located_exclusions": False}, True),
    "no-nested-sources": ("minus 'all the food from the dining table': the apple on a plate there too",
                          {"nested_sources": False}, True),
    "no-clear-off": ("minus 'clear the clamps off my bench': off it and in nobody's hand", {"clear_off": False},
                     True),
    "round17-options": ("round 18's options off (negated leave, have any, smell cause, counted things, empty into, "
                        "located exclusions, nested sources, clear off; the need and state-verb data stay)",
                        {"negated_leave": False, "have_any": False, "smell_cause": False, "counted_things": False,
                         "empty_into": False, "located_exclusions": False, "nested_sources": False,
                         "clear_off": False}, True),
    "round17-frozen": ("round 17 as frozen (58cb789) and measured blind on held-out s: clauses that come to one atom "
                       "give it first (one_atom_clauses on; off as shipped since); round 18's options off (its "
                       "need and state-verb data stay)",
                       {"one_atom_clauses": True, "negated_leave": False, "have_any": False, "smell_cause": False,
                        "counted_things": False, "empty_into": False, "located_exclusions": False,
                        "nested_sources": False, "clear_off": False}, True),
    "round16-options": ("round 17's options off (need holds, closing steps, all but one, group states, wish pairs, "
                        "dirty named, heat contents, liquid carried, which one, state clauses, one atom clauses; "
                        "the synonym and idiom data stay)",
                        {"need_holds": False, "closing_steps": False, "all_but_one": False, "group_states": False,
                         "wish_pairs": False, "dirty_named": False, "heat_contents": False,
                         "liquid_carried": False, "which_one": False, "state_clauses": False,
                         "one_atom_clauses": False}, True),
    "round15-options": ("round 16's options off (dest locators, joined names, open taken, fill from, put back, noun "
                        "lists, keep reasons, class words, plural pairs, empty state, definite source, one of "
                        "adjective)",
                        {"dest_locators": False, "joined_names": False, "open_taken": False, "fill_from": False,
                         "put_back": False, "noun_lists": False, "keep_reasons": False, "class_words": False,
                         "plural_pairs": False, "empty_state": False, "definite_source": False,
                         "one_of_adjective": False}, True),
    "round14-options": ("round 15's options off (courtesy tags, vessel focus, open ones, contents clauses, hand me, "
                        "whatever all, pronoun states, source clause, statement context, liquid states, carried "
                        "vessel, add to, fetch steps, nested places, more needs, along with me)",
                        {"courtesy_tags": False, "vessel_focus": False, "open_ones": False,
                         "contents_clauses": False, "w_hand_me": 0.0, "whatever_all": False,
                         "pronoun_states": False, "source_clause": False, "statement_context": False,
                         "liquid_states": False, "carried_vessel": False, "add_to": False, "fetch_steps": False,
                         "nested_places": False, "more_needs": False, "along_with_me": False}, True),
    "round13-options": ("round 14's options off (unplaced, adverb all, cause context, loose needs, NP conjuncts, "
                        "place pronoun, every place, place modifiers, subject negation, contents descriptor, holds, "
                        "along with, nested destinations)",
                        {"unplaced": False, "adverb_all": False, "cause_context": False, "loose_needs": False,
                         "np_conjuncts": False, "place_pronoun": False, "every_place": False,
                         "place_modifiers": False, "subject_negation": False, "contents_descriptor": False,
                         "w_holds": 0.0, "along_with": False, "nested_destinations": False}, True),
    "round7-options": ("round 8's and 9's options off (the category data change stays)",
                       {"cue_words": False, "clause_objects": False, "compound_heads": False, "fill_for_need": False,
                        "category_heads": False, "liquid_vessels": False, "w_context": 0.0, "counted_asked": False},
                       True),
    # round 19 (issue 21): the goal adapter (methods/small_model/adapter.py; --adapter names its directory)
    "adapter-first": ("plus the goal adapter's generated goal, planned before goalsearch's candidates",
                      {"adapter": "first"}, True),
    "adapter-confident": ("plus the goal adapter's generated goal first when its mean log-probability per token is "
                          "at least -0.05", {"adapter": "confident"}, True),
    "adapter-rerank": ("plus the goal adapter reranking goalsearch's first 5 candidates by likelihood",
                       {"adapter": "rerank"}, True),
}


#: --label: the name a run is saved under (e.g. the issue-10 code run from an older checkout)
LABEL: dict[str, str] = {}
LABEL_NOTE = ""


def heldout_tasks(path: Path = HELDOUT_FILE, *, oracle: bool = False):
    """The held-out set as Tasks. ``oracle``: unseen-class scenes with their hand-written map
    (default map + the oracle file) instead of the default map."""
    from groundplan.bench.datasets.autogpt_p import EVAL, _sim_oam
    from groundplan.bench.task import Task
    from groundplan.datadir import autogpt_p_root

    data = yaml.safe_load(path.read_text())
    scenes = data["scenes"]
    out = []
    for t in data["tasks"]:
        sc = scenes[t["scene"]]
        f = sc["file"]
        scene_file = str(autogpt_p_root() / EVAL / f.split(":", 1)[1]) if f.startswith("autogptp:") \
            else str(path.parent / f)
        oam = None
        if sc["oam"] == "autogptp-sim":
            oam = _sim_oam(autogpt_p_root())
        if oracle and sc.get("oracle_oam"):
            oam = os.pathsep.join([str(DEFAULT_OAM), str(path.parent / sc["oracle_oam"])])
        goal = t["goal"]
        out.append(Task(t["id"], "heldout-goals", t["instruction"], scene_file, goal, oam_file=oam,
                        subset=t["family"], extras={"group": sc["group"], "scene": t["scene"]},
                        source=f"{path.name}:{t['id']}"))
    return out


TUNING_DIR = ROOT / "benchmarks" / "data" / "small_model_train"


def tuning_tasks(path: Path = TUNING_DIR / "tuning.yaml"):
    """The generated tuning set (benchmarks/small_model_gen_tuning.py): the only data goalsearch
    is tuned on."""
    from groundplan.bench.task import Task

    data = yaml.safe_load(path.read_text())
    return [Task(t["id"], "goalsearch-tuning", t["instruction"], str(path.parent / "scenes" / f"{t['scene']}.yaml"),
                 t["goal"], subset=t["family"], extras={"group": "generated", "scene": t["scene"]})
            for t in data["tasks"]]


def tasks_for(set_name: str):
    from groundplan.bench.datasets.autogpt_p import plan_tool_tasks, saycan_tasks

    if set_name == "tuning":
        return tuning_tasks()
    if set_name == "tuning2":  # round 2: more classes and implicit needs (--extras 6 --implicit-share 0.25)
        return tuning_tasks(TUNING_DIR / "tuning2.yaml")
    if set_name in ("tuning3", "tuning3dev"):  # round 3 (--round3): broad needs, function groups, state verbs
        return tuning_tasks(TUNING_DIR / f"{set_name}.yaml")
    if set_name in HELDOUT_FILES:
        return heldout_tasks(HELDOUT_FILES[set_name])
    if set_name.endswith("-oracle") and set_name[:-7] in HELDOUT_FILES:
        return [t for t in heldout_tasks(HELDOUT_FILES[set_name[:-7]], oracle=True) if t.extras["group"] == "unseen"]
    return saycan_tasks() if set_name == "saycan" else plan_tool_tasks()


def check(oracle: bool, path: Path = HELDOUT_FILE, set_name: str | None = None) -> int:
    """Plan every gold goal and execute it: the gold goal must be reachable in its scene."""
    from groundplan.errors import GroundplanError
    from groundplan.methods.base import execute_and_score
    from groundplan.planners import get_planner
    from groundplan.sim.pipeline import build, plan_and_check

    planner = get_planner("fast-downward")
    bad = 0
    for t in (tasks_for(set_name) if set_name else heldout_tasks(path, oracle=oracle)):
        try:
            pt = build(t.scene_file, oam_file=t.oam_file, strict=False)
            out = plan_and_check(pt, t.goal, planner, typecheck=False)
            ok = out.status == "solved" and bool(execute_and_score(pt, out.plan, t).success)
            msg = out.status if not ok else f"{len(out.plan)} steps"
        except GroundplanError as exc:
            ok, msg = False, f"error: {exc}"
        bad += not ok
        print(f"{t.id} {'ok ' if ok else 'BAD'} {msg}", flush=True)
    print(f"{bad} unreachable gold goals")
    return 1 if bad else 0


def run_variant(name: str, set_name: str, out_dir: Path, threads: int, limit: int | None = None,
                n_batch: int | None = None, reuse: str | None = None) -> dict:
    """Run goalsearch variant ``name`` on ``set_name``. ``reuse``: the label of an earlier run of
    the same set (e.g. ``shipped``) whose row is copied (``reused``: true) for every task where
    this variant's first goal is that run's goal; the episode is deterministic given the goal
    (an ablation row then runs only the tasks its option changes; its times are the earlier run's
    for the copied rows)."""
    from groundplan.llm import LLMConfig, build_llm
    from groundplan.methods import RunContext, get_method
    from groundplan.methods.small_model.search import SearchOptions
    from groundplan.planners import get_planner

    desc, config, _ = VARIANTS[name]
    # the LLM is loaded when the variant scores with it (the shipped default decides otherwise)
    uses_llm = bool(config.get("lm_scoring", SearchOptions().lm_scoring))
    tasks = tasks_for(set_name)[:limit] if limit else tasks_for(set_name)
    planner = get_planner("fast-downward")
    llm = build_llm(LLMConfig(cache=False, n_threads=threads)) if uses_llm else None
    method = get_method("goalsearch")
    ctx = RunContext(llm=llm, planner=planner, config=config)
    t_load = time.perf_counter()
    if llm is not None:
        from groundplan.llm.goal_search import _innermost

        b = _innermost(llm)
        if n_batch is not None and hasattr(b, "n_batch"):
            b.n_batch = n_batch  # see --n-batch
        if hasattr(b, "load"):
            b.load()
    searcher = method.searcher(config)
    if config.get("adapter", "off") != "off":  # the adapter's model is loaded before the clock of the first task
        from groundplan.methods.small_model.adapter import shared_adapter

        shared_adapter(config.get("adapter_path")).load()
    load_s = time.perf_counter() - t_load
    base = {}
    if reuse and config.get("adapter", "off") != "off":
        print(f"{name}: --reuse ignored (the adapter changes goals the search alone does not show)", flush=True)
    elif reuse:
        from groundplan.sim.pipeline import build

        base = {r["task"]: r for r in results_archive.read_json(out_dir / f"{reuse}@{set_name}.json")["rows"]}
    rows = []
    for t in tasks:
        if t.id in base:
            pt = build(t.scene_file, oam_file=t.oam_file, strict=False)
            found = searcher.search(t.instruction, pt.domain, pt.problem)
            if found.goals and found.goals[0].text == base[t.id]["goal"]:
                rows.append(dict(base[t.id], reused=True))
                print(f"{name} {t.id} (as {reuse})", flush=True)
                continue
        w0, c0 = time.perf_counter(), time.process_time()
        ep = method.run(t, ctx)
        rows.append({"task": t.id, "family": t.subset, "group": (t.extras or {}).get("group", ""),
                     "instruction": t.instruction, "success": bool(ep.success), "goal": ep.goal, "gold": t.goal,
                     "status": ep.status, "llm_calls": ep.usage.model_calls,
                     "wall_s": round(time.perf_counter() - w0, 4), "cpu_s": round(time.process_time() - c0, 4)})
        r = rows[-1]
        for ev in ep.trace or ():  # the goal adapter's answer (round 19): goal, confidence, whether used
            if ev.get("what") == "goal adapter":
                r.update(adapter_goal=ev["goal"], adapter_logprob=ev["mean_logprob"], adapter_used=ev["used"])
        print(f"{name} {t.id} {'ok ' if r['success'] else 'BAD'} {r['wall_s']:.2f}s {t.instruction[:60]!r} -> {ep.goal}",
              flush=True)
    label = LABEL.get(name, name)
    res = {"variant": label, "description": desc + (f" [{LABEL_NOTE}]" if LABEL_NOTE else ""), "config": config, "set": set_name, "threads": threads,
           "n_batch": n_batch, "reuse": reuse, "load_s": round(load_s, 3), "loadavg_1m": os.getloadavg()[0],
           "embedding_cache": os.environ.get("GROUNDPLAN_EMBEDDING_CACHE", ""),
           "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "rows": rows}
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / f"{label}@{set_name}.json").write_text(json.dumps(res, indent=1))
    return res


def _p95(xs: list[float]) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(0.95 * (len(xs) - 1))))]


def _stats(rows: list[dict]) -> str:
    walls = [r["wall_s"] for r in rows]
    ok = sum(r["success"] for r in rows)
    return f"{ok}/{len(rows)} = {ok / len(rows):.2f} · {statistics.median(walls):.2f} · {_p95(walls):.2f}"


def report(out_dir: Path) -> str:
    runs = {}
    for res in results_archive.read_all_json(out_dir, "*@*.json").values():  # packed runs and new ones
        runs[(res["variant"], res["set"])] = res
    lines = []
    for set_name in ("heldout-ab", "heldout-ab-oracle", "heldout-aa", "heldout-aa-oracle", "heldout-z", "heldout-z-oracle", "heldout-y", "heldout-y-oracle", "heldout-x", "heldout-x-oracle", "heldout-w", "heldout-w-oracle", "heldout-v", "heldout-v-oracle", "heldout-u", "heldout-u-oracle", "heldout-t", "heldout-t-oracle", "heldout-s", "heldout-s-oracle", "heldout-r", "heldout-r-oracle", "heldout-q", "heldout-q-oracle", "heldout-p", "heldout-p-oracle", "heldout-o", "heldout-o-oracle", "heldout-n", "heldout-n-oracle", "heldout-m", "heldout-m-oracle", "heldout-l", "heldout-l-oracle",
                     "heldout-k", "heldout-k-oracle", "heldout-j", "heldout-j-oracle", "heldout-i", "heldout-i-oracle", "heldout-h", "heldout-h-oracle",
                     "heldout-g", "heldout-g-oracle",
                     "heldout-f", "heldout-f-oracle", "heldout-e", "heldout-e-oracle", "heldout-d", "heldout-d-oracle",
                     "heldout-c", "heldout-c-oracle", "heldout-b", "heldout-b-oracle",
                     "heldout", "heldout-oracle", "saycan", "plan-tool", "tuning",
                     "tuning2", "tuning3", "tuning3dev"):
        have = [v for v in VARIANTS if (v, set_name) in runs] + \
            sorted(v for (v, s) in runs if s == set_name and v not in VARIANTS)
        if not have:
            continue
        lines.append(f"### {set_name}\n")
        groups: list[tuple[str, str]] = [("all", "")]
        first = runs[(have[0], set_name)]["rows"]
        fams = list(dict.fromkeys(r["family"] for r in first))
        grps = list(dict.fromkeys(r.get("group", "") for r in first if r.get("group")))
        groups += [("family", f) for f in fams] + [("scene group", g) for g in grps]
        lines.append("| variant | " + " | ".join(f"{k} {v}".strip() for k, v in groups) + " |")
        lines.append("|---" * (len(groups) + 1) + "|")
        for v in have:
            rows = runs[(v, set_name)]["rows"]
            cells = []
            for k, val in groups:
                sel = rows if k == "all" else [r for r in rows if (r["family"] if k == "family" else r.get("group"))
                                               == val]
                cells.append(_stats(sel) if sel else "")
            lines.append(f"| {v} | " + " | ".join(cells) + " |")
        lines.append("\ncells: successes/n = rate · median s · p95 s (wall time per instruction, model loaded)\n")
        for v in have:
            r = runs[(v, set_name)]
            lines.append(f"- {v}: {r['description']}; config {r['config']}; threads {r['threads']}; "
                         f"load {r['load_s']} s; load average at the end {r['loadavg_1m']:.1f}; run {r['date']}")
        lines.append("")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("check")
    c.add_argument("--oracle", action="store_true")
    c.add_argument("--file", type=Path, default=HELDOUT_FILE, help="the held-out file (default: the first set)")
    c.add_argument("--set", dest="set_name", help="check a named set instead (e.g. tuning2)")
    r = sub.add_parser("run")
    r.add_argument("variants", nargs="+", choices=list(VARIANTS) + ["custom"])
    r.add_argument("--sets", default="heldout", help="comma-separated: heldout, heldout-oracle, heldout-b, "
                   "heldout-b-oracle, heldout-c, heldout-c-oracle, heldout-d, heldout-d-oracle, heldout-e, "
                   "heldout-e-oracle, heldout-f, heldout-f-oracle, heldout-g, heldout-g-oracle, heldout-h, "
                   "heldout-h-oracle, heldout-i, heldout-i-oracle, heldout-j, heldout-j-oracle, heldout-k, "
                   "heldout-k-oracle, heldout-l, heldout-l-oracle, heldout-m, heldout-m-oracle, heldout-n, "
                   "heldout-n-oracle, heldout-o, heldout-o-oracle, heldout-p, heldout-p-oracle, heldout-q, heldout-q-oracle, heldout-r, heldout-r-oracle, heldout-s, heldout-s-oracle, heldout-t, heldout-t-oracle, heldout-u, heldout-u-oracle, heldout-v, heldout-v-oracle, heldout-w, heldout-w-oracle, heldout-x, heldout-x-oracle, heldout-y, heldout-y-oracle, heldout-z, heldout-z-oracle, heldout-aa, heldout-aa-oracle, heldout-ab, heldout-ab-oracle, "
                   "saycan, plan-tool, "
                   "tuning, tuning2, tuning3, tuning3dev")
    r.add_argument("--threads", type=int, default=1)
    r.add_argument("--label", help="save the run under this variant name")
    r.add_argument("--label-note", help="what the label means (added to the description)")
    r.add_argument("--config", type=json.loads, help="JSON goalsearch options for the variant 'custom'")
    r.add_argument("--limit", type=int)
    r.add_argument("--n-batch", type=int, help="embedded model's batch size (1: one token per decode; the llama.cpp "
                   "build of 2026-11-24 segfaults on batched decodes on this machine)")
    r.add_argument("--out", type=Path, default=OUT)
    r.add_argument("--adapter", metavar="DIR", help="the goal adapter of the adapter-* variants (default: the "
                   "one the package ships)")
    r.add_argument("--reuse", metavar="LABEL", help="copy the row of run LABEL of the same set wherever this variant's "
                   "first goal is the same (ablation rows: only the tasks an option changes are run)")
    r.add_argument("--embedding-cache", metavar="DIR", default="off",
                   help="keep the sentence encoder's vectors in DIR between runs (default off: every scene is "
                        "encoded cold, as a user's new scene is, and times compare with earlier rounds)")
    rp = sub.add_parser("report")
    rp.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args()
    if args.cmd == "check":
        return check(args.oracle, args.file, args.set_name)
    if args.cmd == "report":
        print(report(args.out))
        return 0
    os.environ["GROUNDPLAN_EMBEDDING_CACHE"] = args.embedding_cache
    if args.label:
        global LABEL_NOTE
        LABEL.update({v: args.label for v in args.variants})
        LABEL_NOTE = args.label_note or ""
    if args.config is not None:
        VARIANTS["custom"] = ("ad-hoc options", args.config, bool(args.config.get("lm_scoring", True)))
    if args.adapter:
        for v in args.variants:
            if VARIANTS[v][1].get("adapter", "off") != "off":
                desc, cfg, llm = VARIANTS[v]
                VARIANTS[v] = (f"{desc} ({args.adapter})", {**cfg, "adapter_path": str(args.adapter)}, llm)
    sets = args.sets.split(",")
    unknown = [s for s in sets if s not in SET_NAMES]
    if unknown:
        print(f"error: unknown set {unknown[0]!r} (sets: {', '.join(SET_NAMES)})", file=sys.stderr)
        return 2
    missing = [s for s in sets if args.reuse and not results_archive.exists(args.out / f"{args.reuse}@{s}.json")]
    if missing:  # refused before any run, not after an hour of them
        print(f"error: --reuse {args.reuse}: no run {args.reuse}@{missing[0]}.json in {args.out}", file=sys.stderr)
        return 2
    for v in args.variants:
        for s in sets:
            res = run_variant(v, s, args.out, args.threads, args.limit, args.n_batch, args.reuse)
            print(f"== {v}@{s}: {_stats(res['rows'])}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
