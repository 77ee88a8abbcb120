"""Shared helpers for the wake_prompts tests (no tests here): scripted answers that are right (an oracle
for the LfO scenes) or wrong in chosen ways."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Mapping, Sequence

ROOT = Path(__file__).resolve().parents[1]
SCENES = ROOT / "examples" / "scenes"

#: grounded plans for the LfO instructions of the datasets (what a perfect model writes)
LFO_PLANS: Mapping[str, tuple[Sequence[str], str, Mapping[str, str]]] = {
    "Put the juice on top of the shelf.": (
        ["move_hand(<juice>)", "grasp_object(<juice>)", "detach_from_plane(<juice>)", "move_object(<juice>, <shelf_top>)",
         "attach_to_plane(<juice>, <shelf_top>)", "release_object(<juice>)"], "<juice>",
        {"<juice>": "on_something(<shelf_top>)"}),
    "Throw away the spam into the trash bin.": (
        ["move_hand(<spam>)", "grasp_object(<spam>)", "detach_from_plane(<spam>)", "move_object(<spam>, <trash_bin>)",
         "release_object(<spam>)"], "<spam>", {"<spam>": "inside_something(<trash_bin>)"}),
    "Move the juice on top of the table.": (
        ["move_hand(<juice>)", "grasp_object(<juice>)", "detach_from_plane(<juice>)", "move_object(<juice>, <table>)",
         "attach_to_plane(<juice>, <table>)", "release_object(<juice>)"], "<juice>", {"<juice>": "on_something(<table>)"}),
    "Put the juice back on the bottom shelf.": (
        ["move_hand(<juice>)", "grasp_object(<juice>)", "detach_from_plane(<juice>)",
         "move_object(<juice>, <shelf_bottom>)", "attach_to_plane(<juice>, <shelf_bottom>)", "release_object(<juice>)"],
        "<juice>", {"<juice>": "on_something(<shelf_bottom>)"}),
    "Throw away the juice.": (
        ["move_hand(<juice>)", "grasp_object(<juice>)", "detach_from_plane(<juice>)", "move_object(<juice>, <trash_bin>)",
         "release_object(<juice>)"], "<juice>", {"<juice>": "inside_something(<trash_bin>)"}),
    "Open the fridge halfway.": (
        ["move_hand(<fridge_handle>)", "grasp_object(<fridge_handle>)", "open_by_rotate(<fridge_handle>)",
         "release_object(<fridge_handle>)"], "<fridge_handle>", {"<fridge_handle>": "open()"}),
    "Open the fridge wider.": (
        ["move_hand(<fridge_handle>)", "grasp_object(<fridge_handle>)", "adjust_by_rotate(<fridge_handle>)",
         "release_object(<fridge_handle>)"], "<fridge_handle>", {}),
    "Take the juice in the fridge and put it on the floor.": (
        ["move_hand(<juice>)", "grasp_object(<juice>)", "detach_from_plane(<juice>)", "move_object(<juice>, <floor>)",
         "attach_to_plane(<juice>, <floor>)", "release_object(<juice>)"], "<juice>", {"<juice>": "on_something(<floor>)"}),
    "Close the fridge.": (
        ["move_hand(<fridge_handle>)", "grasp_object(<fridge_handle>)", "close_by_rotate(<fridge_handle>)",
         "release_object(<fridge_handle>)"], "<fridge_handle>", {"<fridge_handle>": "closed()"}),
    "Open the drawer widely.": (
        ["move_hand(<drawer_handle>)", "grasp_object(<drawer_handle>)", "open_by_slide(<drawer_handle>)",
         "release_object(<drawer_handle>)"], "<drawer_handle>", {"<drawer_handle>": "open()"}),
    "Take the spoon out of the drawer and put it on the floor.": (
        ["move_hand(<spoon>)", "grasp_object(<spoon>)", "detach_from_plane(<spoon>)", "move_object(<spoon>, <floor>)",
         "attach_to_plane(<spoon>, <floor>)", "release_object(<spoon>)"], "<spoon>", {"<spoon>": "on_something(<floor>)"}),
    "Close the drawer halfway.": (
        ["move_hand(<drawer_handle>)", "grasp_object(<drawer_handle>)", "adjust_by_slide(<drawer_handle>)",
         "release_object(<drawer_handle>)"], "<drawer_handle>", {}),
    "Close the drawer fully.": (
        ["move_hand(<drawer_handle>)", "grasp_object(<drawer_handle>)", "close_by_slide(<drawer_handle>)",
         "release_object(<drawer_handle>)"], "<drawer_handle>", {"<drawer_handle>": "closed()"}),
    "Get the sponge from the table, wipe the window with it, and put the sponge back on the table.": (
        ["move_hand(<sponge>)", "grasp_object(<sponge>)", "detach_from_plane(<sponge>)", "move_object(<sponge>, <window>)",
         "attach_to_plane(<sponge>, <window>)", "wipe_on_plane(<sponge>, <window>)", "detach_from_plane(<sponge>)",
         "move_object(<sponge>, <table>)", "attach_to_plane(<sponge>, <table>)", "release_object(<sponge>)"],
        "<sponge>", {"<sponge>": "on_something(<table>)"}),
    "Throw away the sponge.": (
        ["move_hand(<sponge>)", "grasp_object(<sponge>)", "detach_from_plane(<sponge>)", "move_object(<sponge>, <trash_bin>)",
         "release_object(<sponge>)"], "<sponge>", {"<sponge>": "inside_something(<trash_bin>)"}),
}


def answer(env: Mapping[str, Any], seq: Sequence[str], obj: str, changes: Mapping[str, Any], *,
           summary: str = "do it", question: str = "", steps: Sequence[str] | None = None,
           before: Mapping[str, Any] | None = None) -> dict[str, Any]:
    after = json.loads(json.dumps(env))
    after["object_states"].update(changes)
    return {"task_cohesion": {"task_sequence": list(seq), "step_instructions": list(steps or [f"step {i + 1}"
                                                                                              for i in range(len(seq))]),
                              "object_name": obj},
            "environment_before": json.loads(json.dumps(before if before is not None else env)),
            "environment_after": after, "instruction_summary": summary, "question": question}


def query_parts(request) -> tuple[dict, str]:
    """(environment, instruction) of the instruction prompt in a chat request's last user turn
    that is an instruction prompt."""
    for m in reversed(request.messages):
        if m.role == "user" and m.content.startswith("Start working."):
            text = m.content
            env_line = text.split('{"environment": ', 1)[1].split("\n", 1)[0]
            env = json.loads(env_line[:-1])
            ins = json.loads(text.split('{"instruction": ', 1)[1].split("\n", 1)[0][:-1])
            return env, ins
    raise AssertionError("no instruction prompt in the request")


def lfo_oracle(request) -> str:
    """A scripted model that answers every LfO instruction of the datasets correctly, from
    the environment in its prompt (so a wrong chained environment shows up as a wrong answer)."""
    from groundplan.methods.wake_prompts.schema import format_answer

    env, ins = query_parts(request)
    seq, obj, changes = LFO_PLANS[ins]
    return format_answer(answer(env, seq, obj, changes, summary=ins.lower().rstrip(".")))
