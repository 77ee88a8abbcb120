"""Object-Affordance Detection (AutoGPT+P Sec. III, eqs. 1-5):

    OAD(I) = {(o, k, a, b) | a in OAM(o), (o, k, b) in ObjectDetection(I)}

The object detection is a file of detections (class, instance, normalised bounding box),
or a detector adapter; the OAM maps each class to its affordances. ``scene_from_detections``
turns the pairs into a groundplan Scene (objects ``class + instance``, bounding boxes as
geometry) to which relations and agents can be added.

Detector adapter: the paper used YOLOv5 fine-tuned on its own object set; those weights are
not public. ``YoloV5Detector`` runs any YOLOv5 weights through ``torch.hub`` when ``torch``
is installed and you give the weights file; it is not a dependency of groundplan."""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Mapping, Optional, Protocol, Sequence

from groundplan.errors import GroundplanError, InputError
from groundplan.knowledge.oam import OAM
from groundplan.pddl.formula import Atom
from groundplan.world.scene import Agent, Scene, SceneObject

BBox = tuple[float, float, float, float]


@dataclass(frozen=True)
class Detection:
    """(o, k, b) of eq. 3: class, instance index, bounding box (x0, y0, x1, y1) in [0, 1]."""

    cls: str
    instance: int
    bbox: BBox = (0.0, 0.0, 1.0, 1.0)

    @property
    def name(self) -> str:
        return f"{self.cls}{self.instance}"


@dataclass(frozen=True)
class ObjectAffordancePair:
    """p_i = (o_i, k_i, a_i, b_i) of eq. 1."""

    cls: str
    instance: int
    affordance: str
    bbox: BBox


class DetectorUnavailable(GroundplanError):
    """A detector adapter cannot run (missing package or weights)."""


class Detector(Protocol):
    def detect(self, image: str | Path) -> list[Detection]: ...


def _bbox(values: Sequence[object], where: str) -> BBox:
    try:
        b = tuple(float(v) for v in values)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise InputError(f"bounding box must be 4 numbers, got {list(values)!r}", file=where) from None
    if len(b) != 4 or not all(0.0 <= v <= 1.0 for v in b) or b[0] > b[2] or b[1] > b[3]:
        raise InputError(f"bounding box must be x0 y0 x1 y1 in [0, 1] with x0<=x1, y0<=y1, got {list(b)!r}",
                         file=where)
    return b  # type: ignore[return-value]


def load_detections(path: str | Path) -> list[Detection]:
    """JSON ``[{"class", "instance", "bbox": [x0, y0, x1, y1]}]`` (or ``{"detections": [...]}``)
    or CSV with columns ``class,instance,x0,y0,x1,y1``."""
    p = Path(path)
    if not p.exists():
        raise InputError("detections file not found", file=str(p))
    out: list[Detection] = []
    if p.suffix.lower() == ".json":
        try:
            data = json.loads(p.read_text())
        except json.JSONDecodeError as exc:
            raise InputError(f"not JSON: {exc.msg}", file=str(p), line=exc.lineno) from None
        rows = data.get("detections", []) if isinstance(data, dict) else data
        for i, r in enumerate(rows):
            if not isinstance(r, Mapping) or "class" not in r:
                raise InputError(f"detection {i}: needs 'class' (and 'instance', 'bbox')", file=str(p))
            out.append(Detection(str(r["class"]), int(r.get("instance", 0)),
                                 _bbox(r.get("bbox", (0, 0, 1, 1)), f"{p} detection {i}")))
    else:
        with p.open(newline="") as fh:
            reader = csv.DictReader(fh)
            need = ("class", "instance", "x0", "y0", "x1", "y1")
            missing = [c for c in need if c not in (reader.fieldnames or [])]
            if missing:
                raise InputError(f"missing column '{missing[0]}' (need {', '.join(need)})", file=str(p), line=1)
            for i, r in enumerate(reader, start=2):
                try:
                    inst = int(r["instance"])
                except ValueError:
                    raise InputError(f"instance '{r['instance']}' is not an integer", file=str(p), line=i) from None
                out.append(Detection(r["class"].strip(), inst, _bbox([r[c] for c in need[2:]], f"{p}:{i}")))
    seen: set[str] = set()
    for d in out:
        if d.name in seen:
            raise InputError(f"object {d.name} detected twice", file=str(p))
        seen.add(d.name)
    return out


def object_affordance_detection(detections: Iterable[Detection], oam: OAM) -> frozenset[ObjectAffordancePair]:
    """Eq. 5. A class the OAM does not know yields no pair (the object has no affordance)."""
    return frozenset(ObjectAffordancePair(d.cls, d.instance, a, d.bbox) for d in detections
                     for a in oam.affordances(d.cls))


def scene_from_detections(detections: Sequence[Detection], oam: OAM, *, name: str = "detected",
                          relations: Iterable[Atom] = (), agents: Sequence[Agent] = (Agent("robot0", "robot"),),
                          ) -> Scene:
    """A Scene of the detected objects (bounding boxes as geometry); classes the OAM lacks
    are kept and reported in ``warnings`` (they get no affordances when planning)."""
    objs = tuple(SceneObject(d.name, d.cls) for d in detections)
    unknown = sorted({d.cls for d in detections if d.cls not in oam})
    warnings = tuple(f"class '{c}' is not in the OAM '{oam.name}'; it gets no affordances" for c in unknown)
    return Scene(name=name, objects=objs, agents=tuple(agents), facts=frozenset(relations),
                 geometry={d.name: d.bbox for d in detections}, warnings=warnings)


class YoloV5Detector:
    """Adapter for a YOLOv5 model (the paper's detector). Needs ``torch`` (not a groundplan
    dependency) and a weights file: the paper's weights, fine-tuned on its own object set, are
    not public - any YOLOv5 ``.pt`` whose class names match your OAM works. ``torch.hub``
    fetches the YOLOv5 code from GitHub on first use unless ``repo`` is a local clone."""

    def __init__(self, weights: str | Path, *, repo: str = "ultralytics/yolov5", confidence: float = 0.4):
        self.weights = Path(weights)
        self.repo = repo
        self.confidence = confidence
        self._model = None

    def _load(self):
        if self._model is not None:
            return self._model
        if not self.weights.exists():
            raise DetectorUnavailable(f"YOLOv5 weights not found: {self.weights} (the AutoGPT+P weights are not "
                                      "public; give any YOLOv5 .pt trained on your classes)")
        try:
            import torch  # noqa: F401
        except ImportError:
            raise DetectorUnavailable("the YOLOv5 adapter needs torch (pip install torch); groundplan does not "
                                      "install it") from None
        import torch

        src = "local" if Path(self.repo).exists() else "github"
        self._model = torch.hub.load(self.repo, "custom", path=str(self.weights), source=src)
        self._model.conf = self.confidence
        return self._model

    def detect(self, image: str | Path) -> list[Detection]:
        model = self._load()
        res = model(str(image))
        w, h = res.ims[0].shape[1], res.ims[0].shape[0]
        counts: dict[str, int] = {}
        out = []
        for *box, _conf, cls_id in res.xyxy[0].tolist():
            cls = str(res.names[int(cls_id)]).strip().lower().replace(" ", "_")
            k = counts.get(cls, 0)
            counts[cls] = k + 1
            x0, y0, x1, y1 = box
            out.append(Detection(cls, k, (max(0.0, x0 / w), max(0.0, y0 / h), min(1.0, x1 / w), min(1.0, y1 / h))))
        return out


def detect_scene(detector: Detector, image: str | Path, oam: OAM, **kw) -> Scene:
    return scene_from_detections(detector.detect(image), oam, **kw)


__all__ = ["Detection", "ObjectAffordancePair", "Detector", "DetectorUnavailable", "YoloV5Detector",
           "load_detections", "object_affordance_detection", "scene_from_detections", "detect_scene", "BBox",
           "Optional"]
