"""The web console with a new user's own skill set and map (helper H10): a scene written for
a custom skill set, or one whose facts need an uploaded map, is checked against what it will
run with, not refused for not fitting the household skill set."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("fastapi")

from fastapi.testclient import TestClient  # noqa: E402

from groundplan.web.app import create_app  # noqa: E402
from groundplan.web.config import ServeConfig  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
TABLETOP = ROOT / "src" / "groundplan" / "skills" / "data" / "tabletop.yaml"
BLOCKS = """name: blocks
objects: [cube0, {name: table0, class: location}, {name: shelf0, class: location}]
agents:
  - {name: robot0, kind: robot}
locations:
  table0: [cube0]
  shelf0: []
facts:
  - at cube0 table0
  - in_workspace table0
  - in_workspace shelf0
"""
SHED = """name: shed
objects: [bench0, watering_can0, sink0]
agents:
  - {name: robot0, kind: robot, at: bench0}
  - {name: human0, kind: human, at: bench0}
locations:
  bench0: [watering_can0]
  sink0: []
facts:
  - on watering_can0 bench0
  - on bench0 sink0
"""


def _client(tmp_path: Path) -> TestClient:
    cfg = ServeConfig(scene_dirs=(ROOT / "examples" / "scenes",), upload_dir=tmp_path / "uploads",
                      console_results=tmp_path / "console.sqlite", results=None, llm_cache=False)
    return TestClient(create_app(cfg), base_url="http://127.0.0.1")


def test_scene_for_an_uploaded_skill_set_is_checked_against_it(tmp_path):
    client = _client(tmp_path)
    # without the skill set: refused, and the message says what it was checked against
    r = client.post("/api/scenes/upload", json={"filename": "blocks.yaml", "text": BLOCKS})
    assert r.status_code == 400
    assert "blocks.yaml:" in r.json()["error"] and "household skill set" in r.json()["error"]
    # the skill set first, then the scene beside it
    r = client.post("/api/files/upload", json={"kind": "skills", "filename": "arm.yaml", "text": TABLETOP.read_text()})
    assert r.status_code == 200, r.text
    sk = r.json()["id"]
    r = client.post("/api/scenes/upload", json={"filename": "blocks.yaml", "text": BLOCKS, "skills_file": sk})
    assert r.status_code == 200, r.text
    view = client.get("/api/scene", params={"id": r.json()["id"], "skills": sk}).json()
    assert "(at cube0 table0)" in view["facts"]
    # a built-in skill set by name works the same way
    r = client.post("/api/scenes/upload", json={"filename": "blocks.yaml", "text": BLOCKS, "skillset": "tabletop"})
    assert r.status_code == 200, r.text
    r = client.post("/api/scenes/upload", json={"filename": "blocks.yaml", "text": BLOCKS, "skillset": "tabeltop"})
    assert r.status_code in (400, 403, 404) and "tabeltop" in r.json()["error"]


def test_scene_whose_facts_need_an_uploaded_map(tmp_path):
    client = _client(tmp_path)
    r = client.post("/api/scenes/upload", json={"filename": "shed.yaml", "text": SHED})
    assert r.status_code == 400 and "sink0 is a sink" in r.json()["error"]
    r = client.post("/api/files/upload", json={"kind": "oam", "filename": "mine.yaml",
                                               "text": "sink: [support, contain]\n"})
    assert r.status_code == 200, r.text
    r = client.post("/api/scenes/upload", json={"filename": "shed.yaml", "text": SHED, "oam_file": r.json()["id"]})
    assert r.status_code == 200, r.text
