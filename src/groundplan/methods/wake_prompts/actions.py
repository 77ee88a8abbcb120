"""The two action sets of Wake et al.: moved to ``groundplan.world.wake_actions`` (the Wake
dataset's reference programs read them too, and datasets do not import method internals);
re-exported here so old imports keep working."""

from groundplan.world.wake_actions import (
    ACTION_SETS,
    LFO_ACTIONS,
    VIRTUALHOME_ACTIONS,
    ActionSet,
    ActionSpec,
    ParsedItem,
    action_set,
    ground_argless,
)

__all__ = ["ActionSpec", "ParsedItem", "ActionSet", "LFO_ACTIONS", "VIRTUALHOME_ACTIONS", "ACTION_SETS",
           "action_set", "ground_argless"]
