"""Web console load (issue 11, bar 3): does the page stay usable with a 300-step trace and a
200-object scene? Measured in headless chromium (Debian's, through Selenium), on this machine.

What is measured (medians and maxima over --repeat runs, each in a fresh page):
- scene: select a generated 200-object household scene (world.generate.household_scene) and
  time until its SVG drawing is complete (request + layout + draw);
- stored trace: open a stored episode with a 300-step trace on that scene (real executor
  steps: move / grasp / place, a few failing, each with its changed facts; one long LLM
  call) from the Results tab, and time until every event is rendered and the scene has
  replayed every step;
- responsiveness: the longest main-thread task during the load (PerformanceObserver
  'longtask'; > 50 ms only), the slowest single scene redraw, and the time a click on the
  Results tab takes to show it after the load (no freeze: it must answer);
- live: a scripted autogpt_p episode ("bring me apple0") on the 200-object scene through
  the live event stream, from the click on Run to the success shown.

    .venv/bin/python benchmarks/serve_load.py [--repeat 3] [--out benchmarks/results/serve]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

STEPS = 300
OBJECTS = 200
GAP = 0.01  # seconds between the events of the replayed live stream


def make_scene(folder: Path) -> Path:
    from groundplan.world import write_yaml_scene
    from groundplan.world.generate import household_scene

    scene = household_scene(OBJECTS, seed=0)
    p = folder / "household200.yaml"
    write_yaml_scene(scene, p)
    return p


def long_plan(pt) -> list[str]:
    """A plan of STEPS actions moving items between fixtures (the executor judges each)."""
    facts = {a.pddl() for a in pt.problem.init}
    fixtures = sorted({f[1:-1].split()[2] for f in facts if f.startswith("(on ")})
    items = sorted(f[1:-1].split()[1] for f in facts if f.startswith("(on "))
    where = {f[1:-1].split()[1]: f[1:-1].split()[2] for f in facts if f.startswith("(on ")}
    cur = next(f[1:-1].split()[2] for f in facts if f.startswith("(at robot0 "))
    plan: list[str] = []
    i = 0
    while len(plan) < STEPS:
        it = items[i % len(items)]
        src = where[it]
        dst = fixtures[(fixtures.index(src) + 1) % len(fixtures)]
        if cur != src:
            plan.append(f"move {cur} {src} robot0")
        plan.append(f"grasp {it} {src} {src} robot0")
        plan.append(f"move {src} {dst} robot0")
        plan.append(f"place {it} {dst} {dst} robot0")
        where[it], cur = dst, dst
        if i % 25 == 7:  # a failing step now and then: grasp what the robot cannot reach
            plan.append(f"grasp {items[(i + 3) % len(items)]} {dst} {dst} robot0")
        i += 1
    return plan[:STEPS]


def store_episode(scene_file: Path, scene_dir: Path, db: Path) -> tuple[int, list]:
    from groundplan.bench.runner import episode_row
    from groundplan.bench.store import ResultStore, RunRecord
    from groundplan.core.task import Task
    from groundplan.methods.base import Episode, TraceRecorder, execute_and_score
    from groundplan.sim.pipeline import build

    pt = build(scene_file)
    plan = long_plan(pt)
    rec = TraceRecorder()
    prompt = "You are a robot. Objects: " + ", ".join(sorted(pt.problem.objects)) + "\nFacts:\n" + \
        "\n".join(sorted(a.pddl() for a in pt.problem.init))
    rec.event("llm_call", purpose="goal", prompt=prompt, text="(:goal (and (on apple0 table0)))",
              usage={"prompt_tokens": len(prompt) // 4, "completion_tokens": 12, "latency_s": 0.5})
    rec.event("plan", status="solved", steps=plan, cost=float(len(plan)), seconds=0.0)
    task = Task("long300", "console", "move things around", str(scene_file), None,
                source=f"console:bundled:{scene_file.name}")
    score = execute_and_score(pt, plan, task, rec, stop_on_failure=False)
    steps = sum(1 for e in rec.events if e["type"] == "step")
    ep = Episode("long300", "oracle", "failure", False, goal=None, plan=tuple(plan), metrics=score.metrics(),
                 trace=rec.freeze())
    with ResultStore(db) as st:
        record = st.ensure_run(RunRecord("load@300-steps", "oracle", "console", "console", "none", "", "", {}))
        st.write_episode(episode_row(record, task, ep))
    return steps, list(rec.events)


def _ended(status: str) -> bool:
    """The console's badge shows a verdict (groundplan.core.verdict) once an episode ends."""
    return status in ("success", "goal holds (unverified)", "failure", "no plan") or status.startswith("error")


def feed_live(runner, scene_file: Path, events: list, gap: float):
    """A console job whose events arrive one by one through the live stream (SSE), as a
    method's would: the stored 300-step trace replayed at ``gap`` seconds per event."""
    import threading

    from groundplan.sim.pipeline import build
    from groundplan.web.jobs import EpisodeRequest, Job
    from groundplan.web.view import scene_view

    job = Job(EpisodeRequest(scene=f"bundled:{scene_file.name}", instruction="move things around (replayed)",
                             method="oracle", backend="none"))
    runner.jobs[job.id] = job
    view = scene_view(build(scene_file))

    def run():
        t0 = time.perf_counter()
        job.state = "running"
        job.add({"type": "start", "request": job.public, "instruction": "move things around (replayed)",
                 "gold_goal": None, "scene": view})
        for ev in events:
            time.sleep(gap)
            job.add(ev)
        job.add({"type": "end", "status": "failure", "success": False, "judged_by": "replayed", "plan": []})
        job.state = "done"
        feed_seconds[0] = time.perf_counter() - t0

    feed_seconds = [0.0]
    return job, threading.Thread(target=run, daemon=True), feed_seconds


def measure(repeat: int) -> dict:
    from selenium.webdriver.common.by import By

    from groundplan.testing.browser import APPLE_GOAL, Console, headless_chrome, pick, wait_for

    tmp = Path(tempfile.mkdtemp(prefix="gp-serve-load-"))
    scene_dir = tmp / "scenes"
    scene_dir.mkdir()
    scene_file = make_scene(scene_dir)
    shutil.copy(ROOT / "examples" / "scenes" / "kitchen.yaml", scene_dir / "kitchen.yaml")
    db = tmp / "console.sqlite"
    n_steps, events = store_episode(scene_file, scene_dir, db)
    fed = len(events)
    res: dict = {"scene": [], "trace": [], "longtask": [], "redraw": [], "click": [], "live": [], "events": None,
                 "stream": [], "stream_longtask": [], "stream_click": [], "stream_events": None, "fed": fed,
                 "lag": [], "input": [], "stream_input": [], "stream_lag": [], "stream_arrival": [], "feed": [],
                 "steps": n_steps, "objects": None}
    console = Console(tmp, scene_dirs=(scene_dir,), console_results=db, llm_cache=False)
    with console:
        d = headless_chrome()
        try:
            for _ in range(repeat):
                d.get(console.url)
                wait_for(d, lambda: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "1",
                         what="page ready")
                # 1. the 200-object scene
                t0 = time.perf_counter()
                pick(d, "scene", "bundled:household200.yaml")
                wait_for(d, lambda: d.find_element(By.ID, "scene-title").text.startswith("household200"),
                         what="scene drawn")
                res["scene"].append(time.perf_counter() - t0)
                res["objects"] = len(d.find_elements(By.CSS_SELECTOR, "#scene-svg g.obj"))
                # 2. the stored 300-step trace
                d.find_element(By.ID, "tab-results").click()
                pick(d, "db", "console")
                wait_for(d, lambda: d.find_elements(By.CSS_SELECTOR, "#runs tr[data-run='load@300-steps'] td"),
                         what="run listed")
                d.find_element(By.CSS_SELECTOR, "#runs tr[data-run='load@300-steps'] td:nth-child(2)").click()
                wait_for(d, lambda: d.find_elements(By.CSS_SELECTOR, "#episodes button"), what="episodes")
                d.execute_script("window.gpMetrics.longTasks = []; window.gpMetrics.maxRenderMs = 0; "
                                 "window.gpMetrics.maxLagMs = 0;")
                d.find_element(By.CSS_SELECTOR, "#episodes button").click()
                wait_for(d, lambda: d.find_element(By.TAG_NAME, "body").get_attribute("data-loaded") == "1",
                         timeout=120, what="trace loaded")
                m = d.execute_script("return window.gpMetrics;")
                res["trace"].append(m["loadMs"] / 1000)
                res["longtask"].append(max(m["longTasks"] or [0]) / 1000)
                res["redraw"].append(m["maxRenderMs"] / 1000)
                res["events"] = m["traceEvents"]
                res["lag"].append(m["maxLagMs"] / 1000)
                # 3. a click right after: the page answers
                t0 = time.perf_counter()
                d.find_element(By.ID, "tab-results").click()
                wait_for(d, lambda: d.find_element(By.ID, "pane-results").is_displayed(), what="tab switch")
                res["click"].append(time.perf_counter() - t0)
                res["input"].append(d.execute_script("return window.gpMetrics.inputDelayMs;") / 1000)
                d.execute_script("document.body.dataset.loaded = '';")
                # 4. the 300-step trace arriving live through the event stream, a click in the middle
                runner = console.server.config.app.state.runner
                job, feeder, feed_seconds = feed_live(runner, scene_file, events, GAP)
                d.find_element(By.ID, "tab-run").click()
                d.execute_script("window.gpMetrics.longTasks = []; window.gpMetrics.maxLagMs = 0; resetLive('live'); "
                                 "follow(arguments[0]);", job.id)
                t0 = time.perf_counter()
                feeder.start()
                time.sleep(len(events) * GAP / 2)
                t1 = time.perf_counter()
                d.find_element(By.ID, "tab-results").click()
                wait_for(d, lambda: d.find_element(By.ID, "pane-results").is_displayed(), what="tab switch")
                res["stream_click"].append(time.perf_counter() - t1)
                res["stream_input"].append(d.execute_script("return window.gpMetrics.inputDelayMs;") / 1000)
                d.find_element(By.ID, "tab-run").click()
                wait_for(d, lambda: d.find_element(By.ID, "status").text == "failure", timeout=120,
                         what="the replayed stream to end")
                res["stream"].append(time.perf_counter() - t0)
                m = d.execute_script("return window.gpMetrics;")
                res["stream_longtask"].append(max(m["longTasks"] or [0]) / 1000)
                res["stream_events"] = m["traceEvents"]
                res["stream_lag"].append(m["maxLagMs"] / 1000)
                res["stream_arrival"].append((m["lastEventAt"] - m["firstEventAt"]) / 1000)
                res["feed"].append(feed_seconds[0])
                # 5. a live episode on the 200-object scene
                d.find_element(By.ID, "tab-run").click()
                pick(d, "scene", "bundled:household200.yaml")
                pick(d, "method", "autogpt_p")
                pick(d, "backend", "scripted")
                box = d.find_element(By.ID, "script")
                box.clear()
                box.send_keys(APPLE_GOAL)
                ins = d.find_element(By.ID, "instruction")
                ins.clear()
                ins.send_keys("bring me apple0")
                t0 = time.perf_counter()
                d.find_element(By.ID, "run").click()
                wait_for(d, lambda: _ended(d.find_element(By.ID, "status").text), timeout=300, what="live episode")
                res["live"].append(time.perf_counter() - t0)
                res["live_status"] = d.find_element(By.ID, "status").text
                res["live_steps"] = len(d.find_elements(By.CSS_SELECTOR, "#plan li"))
            (ROOT / "test-artifacts").mkdir(exist_ok=True)
            d.save_screenshot(str(ROOT / "test-artifacts" / "serve_load.png"))
        finally:
            d.quit()
    shutil.rmtree(tmp, ignore_errors=True)
    return res


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "serve")
    args = ap.parse_args()
    load_before = os.getloadavg()
    t0 = time.time()
    r = measure(args.repeat)
    load_after = os.getloadavg()

    def cell(xs: list) -> str:
        return f"{statistics.median(xs):.2f} (max {max(xs):.2f})"

    cmd = "nice -n 10 .venv/bin/python benchmarks/serve_load.py --repeat " + str(args.repeat)
    md = [
        "# Web console load: 300-step trace, 200-object scene (issue 11, bar 3)",
        "",
        f"Headless chromium (Debian {shutil.which('chromium')}) through Selenium, the console under uvicorn in the "
        f"same process; {args.repeat} runs, each in a fresh page. Seconds, median (max). No paper reports this; "
        "the bar is \"no freeze; load time reported\".",
        "",
        f"Load average (1, 5, 15 min) before: {load_before[0]:.1f}, {load_before[1]:.1f}, {load_before[2]:.1f}; "
        f"after: {load_after[0]:.1f}, {load_after[1]:.1f}, {load_after[2]:.1f} on {os.cpu_count()} cores "
        "(a shared machine: other engineers' jobs ran at the same time).",
        "",
        "| what | seconds | notes |",
        "|---|---|---|",
        f"| select the 200-object scene until its drawing is complete | {cell(r['scene'])} | "
        f"{r['objects']} item boxes drawn (the other objects are fixtures and containers, drawn as "
        "location boxes) |",
        f"| open the stored {r['steps']}-step episode until every event is rendered and every step replayed on the "
        f"scene | {cell(r['trace'])} | {r['events']} trace events |",
        f"| longest main-thread task during that load | {cell(r['longtask'])} | long tasks > 50 ms only; 0 = none |",
        f"| largest lag of a 50 ms heartbeat timer during that load | {cell(r['lag'])} | how long the page could not "
        "answer at worst |",
        f"| slowest single scene redraw | {cell(r['redraw'])} | redraws are throttled to one per 150 ms (or 4x the last draw) |",
        f"| a click right after the load until the Results tab shows | {cell(r['click'])} | through Selenium; the "
        f"page's own input delay: {cell(r['input'])} |",
        f"| the same {r['steps']}-step trace arriving live over the event stream (one event per {GAP * 1000:.0f} ms, "
        f"the stored trace replayed into a console job), from the first event to the end shown | "
        f"{cell(r['stream'])} | {r['stream_events']} events rendered; the feed alone takes "
        f"{r['fed'] * GAP:.1f} s or more (sleeps) |",
        f"| ... of which the server-side feed (Python thread, 10 ms sleeps on the loaded machine) | {cell(r['feed'])} | "
        f"events arrived in the page over {cell(r['stream_arrival'])} |",
        f"| longest main-thread task while streaming | {cell(r['stream_longtask'])} | |",
        f"| largest heartbeat lag while streaming | {cell(r['stream_lag'])} | |",
        f"| a click in the middle of the stream until the Results tab shows | {cell(r['stream_click'])} | the page's own "
        f"input delay: {cell(r['stream_input'])}: it handled the click at once; the rest is Selenium / chromedriver "
        "while the stream is open (cause not isolated) |",
        f"| live scripted autogpt_p episode on the 200-object scene, click to {r.get('live_status')} shown | "
        f"{cell(r['live'])} | {r.get('live_steps')} plan steps; includes Fast Downward |",
        "",
        f"Reading: the page never stopped answering for more than {max(r['lag'] + r['stream_lag']):.2f} s "
        f"(heartbeat lag, worst of all runs) with a load average around {load_before[0]:.0f} on {os.cpu_count()} "
        "cores (the browser's style / layout / paint work and waiting for the CPU are not separated here; in a probe "
        "run on 2026-11-22 the slowest single event took 27 ms of JavaScript to render and all scene draws "
        "together about 0.1 s).",
        "",
        f"Reproduce: `{cmd}` (needs chromium and chromedriver: `make browser-deps`). Total {time.time() - t0:.0f} s.",
        "",
    ]
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "serve_load.md").write_text("\n".join(md))
    print("\n".join(md))


if __name__ == "__main__":
    main()
