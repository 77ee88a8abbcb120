"""The web console's API and its security (issue 11): loopback by default, a token for any
other bind, scenes only from the catalog (path traversal refused), uploads parsed never
executed, API keys never stored. Offline: scripted LLM answers, a local fake
OpenAI-compatible server for the key test."""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

fastapi = pytest.importorskip("fastapi")
from fastapi.testclient import TestClient  # noqa: E402

from groundplan.errors import ConfigError  # noqa: E402
from groundplan.web.app import create_app  # noqa: E402
from groundplan.web.config import ServeConfig, is_loopback, resolve_token  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SCENES = ROOT / "examples" / "scenes"
APPLE_GOAL = "(:goal (and (inhand apple0 human0)))"


def make(tmp_path: Path, **kw) -> tuple[TestClient, ServeConfig]:
    kw.setdefault("llm_cache", False)
    cfg = ServeConfig(scene_dirs=(SCENES,), upload_dir=tmp_path / "uploads",
                      console_results=tmp_path / "console.sqlite", results=kw.pop("results", None), **kw)
    app = create_app(cfg)
    return TestClient(app, base_url=kw.get("base_url", "http://127.0.0.1")), cfg


def run_episode(client: TestClient, body: dict, timeout: float = 120.0) -> dict:
    r = client.post("/api/episodes", json=body)
    assert r.status_code == 200, r.text
    jid = r.json()["id"]
    events = []
    with client.stream("GET", f"/api/episodes/{jid}/events") as s:
        for line in s.iter_lines():
            if line.startswith("data:") and line != "data: {}":
                events.append(json.loads(line[5:]))
    d = client.get(f"/api/episodes/{jid}").json()
    assert d["state"] in ("done", "error")
    assert [e["seq"] for e in events] == list(range(len(events)))
    return {**d, "events": events}


# ---------------------------------------------------------------------------- the episode


def test_bring_apple_streams_llm_call_goal_plan_steps_and_success(tmp_path):
    client, cfg = make(tmp_path)
    out = run_episode(client, {"scene": "bundled:kitchen.yaml", "instruction": "bring me the apple",
                               "method": "autogpt_p", "backend": "scripted", "script": [APPLE_GOAL]})
    types = [e["type"] for e in out["events"]]
    assert types[0] == "start" and types[-1] == "end"
    assert "llm_call" in types and "goal" in types and "plan" in types
    assert types.index("llm_call") < types.index("plan") < types.index("step")
    start = out["events"][0]
    assert "apple0" in {o["name"] for o in start["scene"]["objects"]}
    assert "(on apple0 counter0)" in start["scene"]["facts"]
    steps = [e for e in out["events"] if e["type"] == "step"]
    assert [s["action"] for s in steps] == ["grasp apple0 counter0 counter0 robot0", "move counter0 human0 robot0",
                                            "handover human0 apple0 robot0"]
    assert "(inhand apple0 human0)" in steps[-1]["added"]
    llm = next(e for e in out["events"] if e["type"] == "llm_call")
    assert "bring me the apple" in json.dumps(llm["prompt"]) and llm["usage"]["prompt_tokens"] > 0
    end = out["events"][-1]
    # no check goal: the method's own goal held, which is not a success (groundplan.core.verdict)
    assert end["verdict"] == "goal holds (unverified)" and end["success"] is False
    assert "the method's own goal" in end["judged_by"]
    # stored in the console results file, browsable like a benchmark run
    runs = client.get("/api/results/runs", params={"db": "console"}).json()["runs"]
    assert runs and runs[0]["run_id"] == "console@autogpt_p@scripted" and runs[0]["successes"] == 0
    eps = client.get("/api/results/episodes", params={"db": "console", "run": runs[0]["run_id"]}).json()["episodes"]
    full = client.get("/api/results/episode", params={"db": "console", "run": runs[0]["run_id"],
                                                       "task": eps[0]["task_id"]}).json()
    assert [e["type"] for e in full["trace"]].count("step") == 3 and full["scene"]["name"] == "kitchen"
    assert eps[0]["verdict"] == full["verdict"] == end["verdict"]  # stored with what was checked


def test_wrong_goal_is_a_failure_and_a_gold_goal_is_checked(tmp_path):
    client, _ = make(tmp_path)
    out = run_episode(client, {"scene": "bundled:kitchen.yaml", "instruction": "bring me the apple",
                               "method": "autogpt_p", "backend": "scripted",
                               "script": ["(:goal (and (inhand banana0 human0)))"],
                               "check_goal": "(and (inhand apple0 human0))"})
    end = out["events"][-1]
    assert end["success"] is False and end["verdict"] == "failure" and end["judged_by"].startswith("the check goal")
    checks = [e for e in out["events"] if e["type"] == "check"]
    assert checks and checks[-1]["success"] is False


def test_skill_set_file_and_oam_beside_the_scene(tmp_path):
    """A skill-set file and an object-affordance map uploaded beside the scene are what the
    episode plans with; files their loaders reject are not kept, with file:line."""
    from importlib import resources

    client, _ = make(tmp_path)
    household = resources.files("groundplan.skills").joinpath("data/household.yaml").read_text()
    r = client.post("/api/files/upload", json={"kind": "skills", "filename": "my_robot.yaml",
                                               "text": household.replace("name: household", "name: my_robot")})
    assert r.status_code == 200, r.text
    skills = r.json()["id"]
    r = client.post("/api/files/upload", json={"kind": "oam", "filename": "no_carry.yaml",
                                               "text": "apple: [support]\n"})
    assert r.status_code == 200, r.text
    oam = r.json()["id"]
    opts = client.get("/api/options").json()
    assert [f["label"] for f in opts["skill_files"]] == ["my_robot.yaml"]
    assert [f["label"] for f in opts["oam_files"]] == ["no_carry.yaml"]
    view = client.get("/api/scene", params={"id": "bundled:kitchen.yaml", "skills": skills, "oam": oam})
    assert view.status_code == 200, view.text
    body = {"scene": "bundled:kitchen.yaml", "instruction": "bring me the apple", "method": "autogpt_p",
            "backend": "scripted", "script": [APPLE_GOAL], "check_goal": "(and (inhand apple0 human0))",
            "skills_file": skills}
    end = run_episode(client, body)["events"][-1]
    assert end["verdict"] == "success", end
    # with the map saying an apple cannot be carried, the same goal is not reachable
    end = run_episode(client, {**body, "oam_file": oam})["events"][-1]
    assert end["verdict"] in ("no plan", "failure") and end["success"] is False, end
    bad = client.post("/api/files/upload", json={"kind": "oam", "filename": "typo.yaml",
                                                 "text": "apple: [carry]\nstool: [carry, suport]\n"})
    assert bad.status_code == 400 and "typo.yaml:2" in bad.json()["error"] and "suport" in bad.json()["error"]
    bad = client.post("/api/files/upload", json={"kind": "skills", "filename": "x.py", "text": "import os"})
    assert bad.status_code == 400 and "x.py" in bad.json()["error"]
    assert client.post("/api/files/upload", json={"kind": "../etc", "filename": "a.yaml", "text": ""}).status_code == 403
    r = client.post("/api/episodes", json={**body, "skills_file": "skills:../../etc/passwd"})
    assert r.status_code == 403
    assert len(client.get("/api/options").json()["oam_files"]) == 1  # the rejected ones were not kept


def test_method_errors_are_reported_not_crashes(tmp_path):
    client, _ = make(tmp_path)
    r = client.post("/api/episodes", json={"scene": "bundled:kitchen.yaml", "instruction": "x", "method": "nope"})
    assert r.status_code == 400 and "unknown method 'nope'" in r.json()["error"]
    out = run_episode(client, {"scene": "bundled:kitchen.yaml", "instruction": "bring me the apple",
                               "method": "autogpt_p", "backend": "scripted", "script": []})
    assert out["events"][-1]["status"] == "error" and "answers" in out["events"][-1]["error"]


def test_report_of_a_results_file(tmp_path):
    client, _ = make(tmp_path)
    run_episode(client, {"scene": "bundled:kitchen.yaml", "instruction": "bring me the apple",
                         "method": "autogpt_p", "backend": "scripted", "script": [APPLE_GOAL]})
    rep = client.get("/api/results/report", params={"db": "console", "runs": "console@*"}).json()
    assert "console@autogpt_p@scripted" in rep["markdown"] and "| 1.00 |" in rep["markdown"].replace("1.0 ", "1.00 ")
    assert rep["plots"] and rep["plots"][0]["png"].startswith("iVBOR")  # a PNG, base64


# ---------------------------------------------------------------------------- binding and tokens


def test_loopback_default_and_non_loopback_needs_token(tmp_path):
    assert ServeConfig().host == "127.0.0.1"
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.168.1.5") and not is_loopback("example.org")
    for host in ("0.0.0.0", "::", "192.168.1.5"):
        with pytest.raises(ConfigError, match="needs a token"):
            create_app(ServeConfig(host=host, upload_dir=tmp_path, console_results=None))
    with pytest.raises(ConfigError, match="at least 8"):
        ServeConfig(token="short").checked()
    assert len(resolve_token("auto")) >= 24 and resolve_token(None, {"GROUNDPLAN_SERVE_TOKEN": "x" * 10}) == "x" * 10


def test_token_is_required_on_every_request(tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="groundplan.web")
    token = "s3cret-token-for-tests"
    client, _ = make(tmp_path, host="0.0.0.0", token=token)
    for path in ("/", "/api/options", "/static/app.js", "/api/scene?id=bundled:kitchen.yaml",
                 "/api/results/runs?db=console"):
        r = client.get(path)
        assert r.status_code == 401, path
        assert client.get(path, headers={"Authorization": "Bearer wrong-token-xx"}).status_code == 401
    assert client.post("/api/episodes", json={}).status_code == 401
    assert client.get("/api/options", headers={"Authorization": f"Bearer {token}"}).status_code == 200
    # the URL printed at start: the token moves into an HttpOnly cookie, then the page works
    r = client.get(f"/?token={token}", follow_redirects=False)
    assert r.status_code == 303 and "httponly" in r.headers["set-cookie"].lower()
    assert client.get("/api/options").status_code == 200  # the cookie jar now has it
    assert "GET /?token=*** 303" in caplog.text and token not in caplog.text  # access lines are redacted


def test_cross_site_posts_are_refused(tmp_path):
    client, _ = make(tmp_path)
    body = json.dumps({"scene": "bundled:kitchen.yaml", "instruction": "x", "method": "oracle"})
    # what a form on another site can send without a preflight: text/plain, or JSON with a foreign Origin
    r = client.post("/api/episodes", content=body, headers={"Content-Type": "text/plain"})
    assert r.status_code == 403
    r = client.post("/api/scenes/upload", content=json.dumps({"filename": "a.yaml", "text": "name: a"}),
                    headers={"Content-Type": "application/json", "Origin": "http://evil.example"})
    assert r.status_code == 403
    r = client.post("/api/scenes/upload", json={"filename": "a.yaml", "text": "name: a\nobjects: [apple0]\n"},
                    headers={"Origin": "http://127.0.0.1"})
    assert r.status_code in (200, 400) and "cross-origin" not in r.text
    assert client.app.state.runner.jobs == {}


def test_loopback_rejects_foreign_host_header(tmp_path):
    client, _ = make(tmp_path)
    assert client.get("/api/options").status_code == 200
    r = client.get("/api/options", headers={"Host": "evil.example:8765"})
    assert r.status_code == 421


# ---------------------------------------------------------------------------- path traversal


TRAVERSALS = ["bundled:../../pyproject.toml", "bundled:..%2F..%2Fpyproject.toml", "bundled:/etc/passwd",
              "bundled:....//....//etc/passwd", "bundled:kitchen.yaml/../../../pyproject.toml",
              "bundled:..\\..\\pyproject.toml", "upload:../../../etc/passwd", "upload:0123456789abcdef/../x",
              "dataset:../../etc/passwd/x", "dataset:autogptp-saycan+cowp/1", "/etc/passwd", "file:///etc/passwd",
              "bundled:kitchen.yaml\x00.txt"]


@pytest.mark.parametrize("scene_id", TRAVERSALS)
def test_scene_path_traversal_is_refused(tmp_path, scene_id):
    client, _ = make(tmp_path)
    r = client.get("/api/scene", params={"id": scene_id})
    assert r.status_code in (403, 404), r.text
    assert "root:" not in r.text and "[build-system]" not in r.text
    r = client.post("/api/episodes", json={"scene": scene_id, "instruction": "x", "method": "oracle"})
    assert r.status_code in (400, 403)


@pytest.mark.parametrize("path", ["/static/../../pyproject.toml", "/static/..%2F..%2F..%2Fpyproject.toml",
                                  "/static/%2e%2e%2fapp.py", "/static/..%5c..%5capp.py", "/static/app.py",
                                  "/static/%2Fetc%2Fpasswd", "/static/.%2e/config.py"])
def test_static_files_only_from_the_page_folder(tmp_path, path):
    client, _ = make(tmp_path)
    r = client.get(path)
    assert r.status_code in (403, 404), (path, r.status_code)
    assert "import" not in r.text and "root:" not in r.text
    assert client.get("/static/app.js").status_code == 200


def test_skillset_and_results_only_by_name(tmp_path):
    client, _ = make(tmp_path)
    r = client.get("/api/scene", params={"id": "bundled:kitchen.yaml", "skillset": "../../pyproject.toml"})
    assert r.status_code == 403
    r = client.post("/api/episodes", json={"scene": "bundled:kitchen.yaml", "instruction": "x",
                                           "method": "oracle", "skillset": "/etc/passwd"})
    assert r.status_code == 400 and "unknown skill set" in r.json()["error"]
    assert client.get("/api/results/runs", params={"db": "/etc/passwd"}).status_code == 403
    assert client.get("/api/datasets/..%2F..%2Fetc/tasks").status_code in (403, 404)


# ---------------------------------------------------------------------------- uploads


def test_upload_is_parsed_and_rewritten_never_executed(tmp_path):
    client, cfg = make(tmp_path)
    marker = tmp_path / "pwned"
    evil = ("name: evil\nobjects: !!python/object/apply:os.system ['touch " + str(marker) + "']\n")
    r = client.post("/api/scenes/upload", json={"filename": "evil.yaml", "text": evil})
    assert r.status_code == 400 and "evil.yaml" in r.json()["error"]
    assert not marker.exists()
    assert not any(cfg.upload_dir.glob("*")) if cfg.upload_dir.exists() else True
    # a .py (or any other suffix) is refused before parsing
    r = client.post("/api/scenes/upload", json={"filename": "x.py", "text": "import os\nos.system('touch x')"})
    assert r.status_code == 400 and "unknown scene format" in r.json()["error"]
    # a good scene is stored as the canonical YAML the parser wrote, under a server-chosen name
    text = (SCENES / "kitchen.yaml").read_text().replace("apple0", "pear0") + "\n# a comment that is dropped\n"
    r = client.post("/api/scenes/upload", json={"filename": "../../my kitchen.yaml", "text": text})
    assert r.status_code == 200, r.text
    sid = r.json()["id"]
    assert sid.startswith("upload:") and r.json()["objects"] == 13
    files = list(cfg.upload_dir.iterdir())
    assert len(files) == 1 and files[0].parent == cfg.upload_dir and "a comment" not in files[0].read_text()
    view = client.get("/api/scene", params={"id": sid}).json()
    assert "(on pear0 counter0)" in view["facts"]
    assert sid in [s["id"] for s in client.get("/api/options").json()["scenes"]]
    # a bad scene names the file and line
    r = client.post("/api/scenes/upload", json={"filename": "bad.yaml",
                                                "text": "name: x\nobjects: [a0]\nfacts:\n  - on a0 nowhere0\n"})
    assert r.status_code == 400 and "bad.yaml" in r.json()["error"]


def test_upload_autogpt_p_txt_and_size_limit(tmp_path):
    client, _ = make(tmp_path, max_upload=500)
    txt = ("SCENE-DESCRIPTION\nOBJECTS\ncounter:0\napple:0\nhuman:0\nEND-OBJECTS\nRELATIONS\n"
           "on apple:0 counter:0\nEND-RELATIONS\n")
    r = client.post("/api/scenes/upload", json={"filename": "s.txt", "text": txt})
    assert r.status_code == 200, r.text
    view = client.get("/api/scene", params={"id": r.json()["id"]}).json()
    assert "(on apple0 counter0)" in view["facts"]
    r = client.post("/api/scenes/upload", json={"filename": "s.txt", "text": txt.replace("END-RELATIONS\n", "")})
    assert r.status_code == 400 and "s.txt" in r.json()["error"] and "END-RELATIONS" in r.json()["error"]
    r = client.post("/api/scenes/upload", json={"filename": "big.yaml", "text": "x" * 600})
    assert r.status_code == 400 and "larger than" in r.json()["error"]


# ---------------------------------------------------------------------------- API keys


class _FakeOpenAI(BaseHTTPRequestHandler):
    seen: list = []

    def do_POST(self):  # noqa: N802
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        _FakeOpenAI.seen.append(self.headers.get("Authorization"))
        answer = APPLE_GOAL
        data = {"id": "x", "object": "chat.completion", "model": body.get("model"),
                "choices": [{"index": 0, "message": {"role": "assistant", "content": answer}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}}
        raw = json.dumps(data).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def log_message(self, *a):
        pass


def test_api_key_is_used_but_never_stored_or_logged(tmp_path, caplog, capsys, monkeypatch):
    key = "sk-test-" + "Zq9" * 12
    monkeypatch.setenv("GROUNDPLAN_CACHE", str(tmp_path / "llm-cache"))  # the LLM disk cache is on, in tmp_path
    srv = ThreadingHTTPServer(("127.0.0.1", 0), _FakeOpenAI)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    _FakeOpenAI.seen.clear()
    try:
        client, cfg = make(tmp_path, llm_cache=True)
        caplog.set_level(logging.DEBUG)
        out = run_episode(client, {"scene": "bundled:kitchen.yaml", "instruction": "bring me the apple",
                                   "method": "autogpt_p", "backend": "openai", "model": "fake-model",
                                   "base_url": f"http://127.0.0.1:{srv.server_port}/v1", "api_key": key})
    finally:
        srv.shutdown()
    assert _FakeOpenAI.seen and _FakeOpenAI.seen[0] == f"Bearer {key}"  # the key was used
    assert list((tmp_path / "llm-cache").rglob("*")), "the exchange was cached"
    assert "GROUNDPLAN_CONSOLE_KEY" not in os.environ
    assert out["events"][-1]["verdict"] == "goal holds (unverified)"
    assert out["request"]["api_key_given"] is True and key not in json.dumps(out)
    for f in tmp_path.rglob("*"):  # results file (+ WAL), uploads: nothing holds the key
        if f.is_file():
            assert key.encode() not in f.read_bytes(), f
    logs = caplog.text + capsys.readouterr().err
    assert "queued" in caplog.text and key not in logs
    time.sleep(0.05)
    runner = client.app.state.runner
    assert all(j.request is None for j in runner.jobs.values())  # dropped after the episode


def test_api_key_in_a_failing_request_is_scrubbed(tmp_path):
    key = "sk-fail-" + "Xy7" * 12
    client, _ = make(tmp_path)
    out = run_episode(client, {"scene": "bundled:kitchen.yaml", "instruction": "bring me the apple",
                               "method": "autogpt_p", "backend": "openai", "model": "m",
                               "base_url": f"http://127.0.0.1:9/{key}/v1", "api_key": key})
    assert out["events"][-1]["status"] in ("error", "no_plan", "failure", "crash")
    assert key not in json.dumps(out)


def test_dataset_task_scene_and_episode(tmp_path):
    from conftest import shared_data

    if shared_data() is None:
        pytest.skip("../shared/data not present")
    client, _ = make(tmp_path)
    tasks = client.get("/api/datasets/autogptp-saycan/tasks", params={"limit": 2}).json()
    assert tasks["total"] > 100 and len(tasks["tasks"]) == 2
    t = tasks["tasks"][0]
    view = client.get("/api/scene", params={"id": f"dataset:autogptp-saycan/{t['id']}"}).json()
    assert view["task"]["instruction"] == t["instruction"] and view["objects"]
    out = run_episode(client, {"scene": f"dataset:autogptp-saycan/{t['id']}", "instruction": "",
                               "method": "oracle", "backend": "none"})
    end = out["events"][-1]
    assert end["judged_by"].startswith("the check goal") and end["success"] is True, end
    assert end["verdict"] == "success"
    assert out["events"][0]["instruction"] == t["instruction"] and out["events"][0]["gold_goal"] == t["goal"]
    assert client.get("/api/scene", params={"id": "dataset:autogptp-saycan/no-such-task"}).status_code == 403
    # a scene the dataset loader generates (a ProgPrompt task's VirtualHome graph, in groundplan's cache)
    vh = client.get("/api/scene", params={"id": "dataset:progprompt-env1/env1:6"})
    assert vh.status_code == 200 and vh.json()["task"]["instruction"] == "put chicken in the fridge"
    assert any(f.startswith("(room kitchen") for f in vh.json()["facts"])


def test_serve_command_refuses_non_loopback_without_token():
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k != "GROUNDPLAN_SERVE_TOKEN"}
    r = subprocess.run([sys.executable, "-m", "groundplan.cli.main", "serve", "--host", "0.0.0.0", "--port", "1"],
                       capture_output=True, text=True, timeout=120, env=env)
    assert r.returncode == 2
    assert "binding to 0.0.0.0 (not loopback) needs a token" in r.stderr and "Traceback" not in r.stderr


def test_benchmark_episode_trace_with_its_scene(tmp_path):
    """A `groundplan bench` results file: runs, the report, and an episode's trace with the
    scene of its dataset task."""
    from conftest import shared_data

    from groundplan.bench.executors import make_executor
    from groundplan.bench.runner import RunSpec, run_benchmark
    from groundplan.bench.store import ResultStore

    if shared_data() is None:
        pytest.skip("../shared/data not present")
    db = tmp_path / "bench.sqlite"
    with ResultStore(db) as store:
        summary = run_benchmark(RunSpec("autogptp-saycan", "oracle", limit=2), store, make_executor("local", workers=1))
    client, _ = make(tmp_path, results=db)
    runs = client.get("/api/results/runs").json()["runs"]
    assert [r["run_id"] for r in runs] == [summary.run_id] and runs[0]["episodes"] == 2
    rep = client.get("/api/results/report", params={"runs": summary.run_id}).json()
    assert "AutoGPT+P Table IV" in rep["markdown"] and len(rep["plots"]) == 2
    eps = client.get("/api/results/episodes", params={"run": summary.run_id}).json()["episodes"]
    ep = client.get("/api/results/episode", params={"run": summary.run_id, "task": eps[0]["task_id"]}).json()
    assert ep["success"] and [e["type"] for e in ep["trace"]].count("step") == len(ep["plan"]) > 0
    assert ep["scene"]["objects"] and "scene_error" not in ep
