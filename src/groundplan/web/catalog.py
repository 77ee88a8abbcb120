"""Where the console's scenes come from, and nothing else: bundled scene files (by name,
from the configured folders), uploaded scenes (parsed, checked, written back as canonical
YAML under a server-chosen name; never executed, never kept as sent) and dataset tasks (by
dataset name and task id, from the data directory). A scene reference that names a path
outside these folders is refused with ``AccessError``, whatever it is spelled like."""

from __future__ import annotations

import hashlib
import re
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

from groundplan.core.task import Task
from groundplan.errors import ConfigError, GroundplanError, SceneError

SCENE_SUFFIXES = (".yaml", ".yml", ".txt", ".json")
UPLOAD_FORMATS = {"yaml": ".yaml", "yml": ".yaml", "txt": ".txt"}
#: files uploaded beside a scene: kind -> (accepted suffixes, what it is)
DATA_UPLOADS = {"skills": ((".yaml", ".yml"), "skill-set file"),
                "oam": ((".json", ".csv", ".yaml", ".yml"), "object-affordance map")}
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,120}$")
_UPLOAD_ID = re.compile(r"^[0-9a-f]{16}$")


class AccessError(GroundplanError):
    """A request named a file outside the folders the console may read."""


def _inside(path: Path, root: Path) -> bool:
    try:
        path.resolve().relative_to(root.resolve())
        return True
    except ValueError:
        return False


def safe_child(root: Path, name: str) -> Path:
    """``root/name`` for a plain file name (no separators, no ``..``, no drive, no NUL), checked
    to resolve inside ``root`` (a symlink pointing out is refused too)."""
    if not isinstance(name, str) or not _NAME.match(name) or ".." in name:
        raise AccessError(f"'{name}': not a file name the console serves")
    p = root / name
    if not _inside(p, root):
        raise AccessError(f"'{name}': outside {root.name}/")
    return p


@dataclass(frozen=True)
class SceneRef:
    """A resolved scene: the file the methods read, the skill set it is meant for, and the
    task it came from (dataset tasks: instruction and gold goal)."""

    id: str
    path: Path
    skillset: str = "household"
    task: Optional[Task] = None


def _skillset_hint(path: Path) -> str:
    if path.suffix == ".json":
        return "virtualhome"
    if path.name.startswith("lfo_"):
        return "lfo"
    return "household"


class SceneCatalog:
    def __init__(self, scene_dirs: tuple[Path, ...], upload_dir: Path, *, max_upload: int = 2_000_000,
                 data_dir: Optional[Path] = None):
        self.scene_dirs = tuple(Path(d) for d in scene_dirs)
        self.upload_dir = Path(upload_dir)
        self.max_upload = max_upload
        self.data_dir = data_dir
        self._tasks: dict[str, dict[str, Task]] = {}
        self._lock = threading.Lock()

    # ------------------------------------------------------------------ listing
    def bundled(self) -> list[dict[str, Any]]:
        out = []
        for d in self.scene_dirs:
            if not d.is_dir():
                continue
            for p in sorted(d.iterdir()):
                if p.is_file() and p.suffix in SCENE_SUFFIXES and _NAME.match(p.name):
                    out.append({"id": f"bundled:{p.name}", "label": p.stem, "skillset": _skillset_hint(p)})
        return out

    def uploads(self) -> list[dict[str, Any]]:
        if not self.upload_dir.is_dir():
            return []
        out = []
        for p in sorted(self.upload_dir.iterdir(), key=lambda x: x.stat().st_mtime):
            if p.is_file() and _UPLOAD_ID.match(p.stem):
                first = p.read_text(encoding="utf-8", errors="replace").split("\n", 1)[0]
                label = first[2:].strip() if first.startswith("# ") else p.stem
                out.append({"id": f"upload:{p.stem}", "label": label, "skillset": "household"})
        return out

    @staticmethod
    def datasets() -> list[dict[str, Any]]:
        from groundplan.bench.datasets import DATASETS

        return [{"name": n, "version": s.version} for n, s in sorted(DATASETS.items())]

    def dataset_tasks(self, name: str) -> dict[str, Task]:
        from groundplan.bench.datasets import DATASETS

        if name not in DATASETS:  # a registered name, never a path or a '+' join
            raise AccessError(f"no dataset '{name}'")
        with self._lock:
            if name not in self._tasks:
                tasks = DATASETS[name].loader()
                self._tasks[name] = {t.id: t for t in tasks}
            return self._tasks[name]

    # ------------------------------------------------------------------ resolving
    def resolve(self, scene_id: str) -> SceneRef:
        kind, _, rest = str(scene_id).partition(":")
        if kind == "bundled":
            for d in self.scene_dirs:
                p = safe_child(d, rest)
                if p.suffix in SCENE_SUFFIXES and p.is_file():
                    return SceneRef(scene_id, p, _skillset_hint(p))
            raise AccessError(f"no bundled scene '{rest}'")
        if kind == "upload":
            if not _UPLOAD_ID.match(rest):
                raise AccessError(f"'{rest}': not an uploaded scene id")
            p = safe_child(self.upload_dir, rest + ".yaml")
            if not p.is_file():
                raise AccessError(f"no uploaded scene '{rest}'")
            return SceneRef(scene_id, p, "household")
        if kind == "dataset":
            name, _, task_id = rest.partition("/")
            task = self.dataset_tasks(name).get(task_id)
            if task is None:
                raise AccessError(f"dataset {name} has no task '{task_id}'")
            p = Path(task.scene_file)
            roots = [self._data_root(), *self._generated_roots()]
            if not any(_inside(p, r) for r in roots if r is not None):
                raise AccessError(f"task {task_id}: its scene lies outside the data directory")
            return SceneRef(scene_id, p, task.skillset, task)
        raise AccessError(f"'{scene_id}': a scene is bundled:NAME, upload:ID or dataset:NAME/TASK")

    @staticmethod
    def _generated_roots() -> list[Path]:
        """Where dataset loaders write the scenes they derive (VirtualHome graphs of ProgPrompt tasks)."""
        from groundplan.core.datasets.progprompt import cache_dir

        return [cache_dir()]

    def _data_root(self) -> Optional[Path]:
        if self.data_dir is not None:
            return self.data_dir
        from groundplan.datadir import data_dir

        try:
            return data_dir(required=False)
        except GroundplanError:
            return None

    # ------------------------------------------------------------------ skill-set and OAM files
    def data_uploads(self, kind: str) -> list[dict[str, Any]]:
        """The uploaded files of one kind (``skills`` or ``oam``), oldest first."""
        d = self.upload_dir / kind
        if kind not in DATA_UPLOADS or not d.is_dir():
            return []
        out = []
        for p in sorted(d.iterdir(), key=lambda x: x.stat().st_mtime):
            if p.is_file() and _UPLOAD_ID.match(p.stem) and p.suffix in DATA_UPLOADS[kind][0]:
                label = (p.with_suffix(".name").read_text(encoding="utf-8", errors="replace").strip()
                         if p.with_suffix(".name").is_file() else p.name)
                out.append({"id": f"{kind}:{p.stem}", "label": label})
        return out

    def resolve_data(self, ref: str, kind: str) -> Path:
        """The file of an uploaded skill set (``skills:ID``) or OAM (``oam:ID``)."""
        k, _, uid = str(ref).partition(":")
        if k != kind or kind not in DATA_UPLOADS or not _UPLOAD_ID.match(uid):
            raise AccessError(f"'{ref}': an uploaded {DATA_UPLOADS.get(kind, ('', kind))[1]} is {kind}:ID")
        for suffix in DATA_UPLOADS[kind][0]:
            p = safe_child(self.upload_dir / kind, uid + suffix) if (self.upload_dir / kind).is_dir() else None
            if p is not None and p.is_file():
                return p
        raise AccessError(f"no uploaded {DATA_UPLOADS[kind][1]} '{uid}'")

    def upload_data(self, kind: str, filename: str, text: str) -> dict[str, Any]:
        """Check an uploaded skill-set file or object-affordance map with groundplan's own
        loader (YAML with yaml.safe_load, JSON, CSV; never executed) and keep it under a
        server-chosen name. A file the loader rejects is not kept (its message names the
        uploaded file and line)."""
        import os
        import tempfile

        if kind not in DATA_UPLOADS:
            raise AccessError(f"unknown upload kind '{kind}' (skills or oam)")
        suffixes, what = DATA_UPLOADS[kind]
        name = _display(filename)
        if len(text.encode("utf-8", errors="replace")) > self.max_upload:
            raise ConfigError(f"{name}: larger than {self.max_upload} bytes")
        ext = Path(name).suffix.lower()
        if ext not in suffixes:
            raise ConfigError(f"{name}: a {what} is {' or '.join(suffixes)}, not '{ext or '(no suffix)'}'")
        d = self.upload_dir / kind
        d.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=d, prefix="pending-", suffix=ext)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(text)
            try:
                if kind == "skills":
                    from groundplan.skills.skillset import load_skillset

                    load_skillset(tmp)
                else:
                    from groundplan.knowledge.oam import load_oam

                    load_oam(tmp)
            except GroundplanError as exc:
                raise ConfigError(str(exc).replace(tmp, name)) from None
            except Exception as exc:  # noqa: BLE001 - a loader crash on hostile input is a bad file, not a 500
                raise ConfigError(f"{name}: cannot read this {what}: {type(exc).__name__}: {exc}") from None
            uid = hashlib.sha256(text.encode("utf-8", errors="replace")).hexdigest()[:16]
            final = safe_child(d, uid + (".yaml" if ext == ".yml" else ext))
            os.replace(tmp, final)
            final.with_suffix(".name").write_text(name, encoding="utf-8")
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
        return {"id": f"{kind}:{uid}", "label": name}

    # ------------------------------------------------------------------ uploads
    def upload(self, filename: str, text: str, *, skillset: Optional[str] = None, skills: Optional[str] = None,
               oam: Optional[str] = None) -> dict[str, Any]:
        """Parse an uploaded scene (YAML with yaml.safe_load, or AutoGPT+P .txt), build it
        against the skill set it will run with (a built-in ``skillset``, an uploaded ``skills``
        file ``skills:ID``; default household) and the default map extended by an uploaded
        ``oam`` (``oam:ID``) to check it, and store the canonical YAML the parser produced.
        The text as sent is never stored, imported or run."""
        from groundplan.world import parse_autogpt_p_scene, parse_yaml_scene, write_yaml_scene

        if len(text.encode("utf-8", errors="replace")) > self.max_upload:
            raise SceneError(f"larger than {self.max_upload} bytes", file=_display(filename))
        ext = Path(str(filename)).suffix.lower().lstrip(".")
        if ext not in UPLOAD_FORMATS:
            raise SceneError(f"unknown scene format '.{ext}' (upload .yaml or AutoGPT+P .txt)", file=_display(filename))
        name = _display(filename)
        stem = re.sub(r"[^A-Za-z0-9_]+", "_", Path(name).stem)[:40] or "scene"
        try:
            if UPLOAD_FORMATS[ext] == ".yaml":
                scene = parse_yaml_scene(text, file=name, default_name=stem)
            else:
                scene = parse_autogpt_p_scene(text, file=name, name=stem)
        except GroundplanError:
            raise
        except Exception as exc:  # noqa: BLE001 - a parser crash on hostile input is a bad file, not a 500
            raise SceneError(f"cannot parse: {type(exc).__name__}: {exc}", file=name) from None
        canonical = write_yaml_scene(scene)
        # the scene must build against the skill set and map it will run with (types, agents, facts)
        from groundplan.sim.pipeline import resolve_oam
        from groundplan.skills.builder import build_task
        from groundplan.skills.skillset import available_skillsets, load_skillset

        if skills:
            sk = load_skillset(str(self.resolve_data(skills, "skills")))
        elif skillset and skillset not in available_skillsets():
            raise AccessError(f"unknown skill set '{skillset}'")
        else:
            sk = load_skillset(skillset or "household")
        the_map = resolve_oam(str(self.resolve_data(oam, "oam")) if oam else None)
        try:
            build_task(sk, scene, the_map)
        except GroundplanError as exc:
            if skills or skillset:
                raise
            raise SceneError(f"{exc} (checked against the household skill set: for another, choose or upload "
                            f"the skill set before the scene)") from None
        uid = hashlib.sha256(canonical.encode()).hexdigest()[:16]
        self.upload_dir.mkdir(parents=True, exist_ok=True)
        out = safe_child(self.upload_dir, uid + ".yaml")
        out.write_text(f"# {stem} (uploaded as {name})\n" + canonical, encoding="utf-8")
        return {"id": f"upload:{uid}", "label": f"{stem} (uploaded as {name})", "objects": len(scene.objects)}


def _display(filename: str) -> str:
    """The uploaded file's base name, for messages only."""
    base = re.split(r"[\\/]", str(filename or "scene"))[-1]
    return re.sub(r"[^\w.\- ]", "_", base)[:80] or "scene"


__all__ = ["SceneCatalog", "SceneRef", "AccessError", "safe_child", "ConfigError", "DATA_UPLOADS"]
