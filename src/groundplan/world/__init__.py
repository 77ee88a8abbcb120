"""World layer: the symbolic scene and its readers/writers."""

from __future__ import annotations

from pathlib import Path

from groundplan.errors import SceneError
from groundplan.world.autogpt_p_txt import parse_autogpt_p_scene, read_autogpt_p_scene
from groundplan.world.scene import Agent, Location, Scene, SceneObject, split_name
from groundplan.world.virtualhome import read_vh_scene
from groundplan.world.yaml_io import parse_yaml_scene, read_yaml_scene, scene_to_dict, write_yaml_scene

READERS = {".txt": read_autogpt_p_scene, ".yaml": read_yaml_scene, ".yml": read_yaml_scene,
           ".json": read_vh_scene}  # .json: a VirtualHome environment graph


def load_scene(path: str | Path, *, strict: bool = True) -> Scene:
    """Load a scene by file extension (.txt AutoGPT+P, .yaml/.yml groundplan, .json VirtualHome graph)."""
    p = Path(path)
    reader = READERS.get(p.suffix.lower())
    if reader is None:
        raise SceneError(f"unknown scene format '{p.suffix}' (expected {', '.join(READERS)})", file=str(p))
    if not p.exists():
        raise SceneError("scene file not found", file=str(p))
    return reader(p, strict=strict)


__all__ = ["Agent", "Location", "Scene", "SceneObject", "split_name", "load_scene", "parse_autogpt_p_scene",
           "read_autogpt_p_scene", "parse_yaml_scene", "read_yaml_scene", "scene_to_dict", "write_yaml_scene"]
