"""The console in a real browser (issue 11): Debian's chromium, headless, driven by
Selenium through Debian's chromedriver. ``make test-browser`` installs both (apt-get) and
runs these; they are marked ``browser`` and left out of ``make test``. Screenshots go to
test-artifacts/ (gitignored)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from groundplan.testing.browser import APPLE_GOAL, CHROMEDRIVER, CHROMIUM, headless_chrome, pick, wait_for
from groundplan.testing.browser import Console as _Console

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "test-artifacts"

if os.environ.get("GROUNDPLAN_REQUIRE_BROWSER") != "1":
    if CHROMIUM is None or CHROMEDRIVER is None:
        pytest.skip("chromium / chromedriver not installed (make test-browser installs them)", allow_module_level=True)
    pytest.importorskip("selenium")


def Console(tmp: Path, **kw) -> _Console:
    """The console serving the repository's example scenes (unless ``scene_dirs`` is given)."""
    kw.setdefault("scene_dirs", (ROOT / "examples" / "scenes",))
    return _Console(tmp, **kw)


@pytest.fixture(scope="module")
def driver():
    d = headless_chrome()
    yield d
    d.quit()


def run_bring_apple(d, console: Console, *, method: str, backend: str, script: str = "", timeout: float = 90.0,
                    shot: str = "console_bring_apple.png", llm_call: bool = True) -> None:
    from selenium.webdriver.common.by import By

    d.get(console.url)
    wait_for(d, lambda: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "1", what="page ready")
    pick(d, "scene", "bundled:kitchen.yaml")
    wait_for(d, lambda: len(d.find_elements(By.CSS_SELECTOR, "#scene-svg g.obj[data-name='apple0']")) == 1,
             what="the kitchen drawn")
    # before: the apple is on the counter
    assert d.find_elements(By.CSS_SELECTOR, "#scene-svg g.loc[data-name='counter0'] g.obj[data-name='apple0']")
    pick(d, "method", method)
    pick(d, "backend", backend)
    if script:
        box = d.find_element(By.ID, "script")
        box.clear()
        box.send_keys(script)
    ins = d.find_element(By.ID, "instruction")
    ins.clear()
    ins.send_keys("bring me the apple")
    check = d.find_element(By.ID, "check-goal")  # a check goal: "success" means it held after execution
    check.clear()
    check.send_keys("(and (inhand apple0 human0))")
    d.find_element(By.ID, "run").click()
    wait_for(d, lambda: d.find_element(By.ID, "status").get_attribute("data-verdict"),
             timeout=timeout, what="the episode to end")
    ARTIFACTS.mkdir(exist_ok=True)
    d.save_screenshot(str(ARTIFACTS / shot))
    status = d.find_element(By.ID, "status").text
    errors = d.find_element(By.ID, "form-error").text
    plan = [li.text for li in d.find_elements(By.CSS_SELECTOR, "#plan li")]
    assert status == "success", (status, errors, plan)
    assert plan and plan[-1] == "handover human0 apple0 robot0", plan
    assert all(li.get_attribute("class") == "ok" for li in d.find_elements(By.CSS_SELECTOR, "#plan li"))
    assert "(inhand apple0 human0)" in d.find_element(By.ID, "goal").text
    types = [e.get_attribute("data-type") for e in d.find_elements(By.CSS_SELECTOR, "#trace .ev")]
    assert types[0] == "start" and "goal" in types and "plan" in types and types[-1] == "end"
    if llm_call:  # goalsearch asks the LM only for close calls (reranking)
        assert "llm_call" in types, types
    assert types.count("step") == len(plan)
    # after: the scene drawing has the apple in the human's hand
    wait_for(d, lambda: d.find_elements(By.CSS_SELECTOR, "#scene-svg g.agentbox[data-name='human0'] "
                                                        "g.obj[data-name='apple0']"), timeout=10,
             what="the apple drawn in human0's hand")
    assert not d.find_elements(By.CSS_SELECTOR, "#scene-svg g.loc[data-name='counter0'] g.obj[data-name='apple0']")


def test_bring_me_the_apple_scripted(driver, tmp_path):
    from selenium.webdriver.common.by import By

    with Console(tmp_path) as console:
        # the first answer names an object the scene lacks: the check rejects it, the feedback
        # goes back to the model, the second answer is planned and executed
        run_bring_apple(driver, console, method="autogpt_p", backend="scripted",
                        script="(:goal (and (inhand apple9 human0)))\n" + APPLE_GOAL)
        bad = driver.find_elements(By.CSS_SELECTOR, "#trace .ev.goal.bad")
        assert len(bad) == 1 and "unknown object 'apple9'" in bad[0].text
        fb = driver.find_elements(By.CSS_SELECTOR, "#trace .ev[data-type='feedback']")
        assert fb and "apple9" in fb[0].text
        assert len(driver.find_elements(By.CSS_SELECTOR, "#trace .ev[data-type='llm_call']")) == 2
        # the episode is in the console's results file: browse it, report on it, open its trace
        driver.find_element(By.ID, "tab-results").click()
        pick(driver, "db", "console")
        wait_for(driver, lambda: driver.find_elements(By.CSS_SELECTOR, "#runs tr[data-run='console@autogpt_p@scripted']"),
                 what="the console run listed")
        driver.find_element(By.CSS_SELECTOR, "#runs input[data-run='console@autogpt_p@scripted']").click()
        driver.find_element(By.ID, "make-report").click()
        wait_for(driver, lambda: driver.find_elements(By.CSS_SELECTOR, "#report table")
                 and driver.find_elements(By.CSS_SELECTOR, "#report img"), what="the report with a plot")
        assert "console@autogpt_p@scripted" in driver.find_element(By.ID, "report").text
        driver.save_screenshot(str(ARTIFACTS / "console_report.png"))
        driver.find_element(By.CSS_SELECTOR, "#runs tr[data-run='console@autogpt_p@scripted'] td:nth-child(2)").click()
        wait_for(driver, lambda: driver.find_elements(By.CSS_SELECTOR, "#episodes button"), what="episode list")
        driver.find_element(By.CSS_SELECTOR, "#episodes button").click()
        wait_for(driver, lambda: driver.find_element(By.TAG_NAME, "body").get_attribute("data-loaded") == "1",
                 what="the stored trace")
        assert len(driver.find_elements(By.CSS_SELECTOR, "#trace .ev[data-type='step']")) == 3
        assert driver.find_elements(By.CSS_SELECTOR, "#scene-svg g.agentbox[data-name='human0'] g.obj[data-name='apple0']")


def test_page_shows_an_error_without_freezing(driver, tmp_path):
    from selenium.webdriver.common.by import By

    with Console(tmp_path) as console:
        driver.get(console.url)
        wait_for(driver, lambda: driver.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "1",
                 what="page ready")
        pick(driver, "method", "autogpt_p")
        pick(driver, "backend", "openai")
        driver.find_element(By.ID, "base-url").send_keys("ftp://nowhere")
        driver.find_element(By.ID, "model").send_keys("m")
        driver.find_element(By.ID, "run").click()
        wait_for(driver, lambda: driver.find_element(By.ID, "status").text.startswith("error: "),
                 what="the error shown")
        assert "base URL must start with http" in driver.find_element(By.ID, "trace").text


@pytest.mark.embedded
def test_bring_me_the_apple_embedded_model(driver, tmp_path):
    """The same on the real embedded SmolLM2-135M with goalsearch (the default of make demo)."""
    with Console(tmp_path, n_threads=2) as console:
        run_bring_apple(driver, console, method="goalsearch", backend="embedded", timeout=300,
                        shot="console_bring_apple_embedded.png", llm_call=False)


BRAINBODY_ANSWERS = [  # the Brain forgets to open the fridge; the simulator's error goes back to it
    "0: find chicken\n1: grab chicken\n2: wait a bit\n3: find fridge\n4: put chicken in fridge\n5: Done.",
    "<char0> [find] <chicken>", "<char0> [grab] <chicken>", "<pass>", "<char0> [find] <fridge>",
    "<char0> [putin] <chicken> <fridge>",
    "The fridge is closed.\nNew Plan:\n4: open fridge\n5: put chicken in fridge\n6: close fridge\n7: Done",
    "<char0> [open] <fridge>", "<char0> [putin] <chicken> <fridge>", "<char0> [close] <fridge>"]


def test_dataset_task_failure_feedback_and_replan(driver, tmp_path):
    """A ProgPrompt task (VirtualHome graph, drawn by room) with BrainBody-LLM: a step fails,
    the failure message is shown, the replanned steps run and the gold goal holds."""
    import json

    from conftest import shared_data
    from selenium.webdriver.common.by import By

    if shared_data() is None:
        pytest.skip("../shared/data not present")
    with Console(tmp_path) as console:
        driver.get(console.url)
        wait_for(driver, lambda: driver.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "1",
                 what="page ready")
        pick(driver, "dataset", "progprompt-env1")
        wait_for(driver, lambda: driver.find_elements(By.CSS_SELECTOR, "#dataset-task option[value='env1:6']"),
                 what="the dataset's tasks")
        pick(driver, "dataset-task", "env1:6")
        wait_for(driver, lambda: driver.find_element(By.ID, "instruction").get_attribute("value")
                 == "put chicken in the fridge", what="the task's instruction")
        wait_for(driver, lambda: driver.find_elements(By.CSS_SELECTOR, "#scene-svg g.loc[data-name^='kitchen'] "
                                                                         "g.obj[data-name^='chicken']"),
                 what="the VirtualHome scene drawn by room")
        pick(driver, "method", "brainbody")
        pick(driver, "backend", "scripted")
        driver.execute_script("document.getElementById('script').value = arguments[0];", json.dumps(BRAINBODY_ANSWERS))
        driver.find_element(By.ID, "run").click()
        wait_for(driver, lambda: driver.find_element(By.ID, "status").get_attribute("data-verdict"),
                 timeout=120, what="the episode to end")
        ARTIFACTS.mkdir(exist_ok=True)
        driver.save_screenshot(str(ARTIFACTS / "console_brainbody_replan.png"))
        assert driver.find_element(By.ID, "status").text == "success", driver.find_element(By.ID, "trace").text[-500:]
        failed = driver.find_elements(By.CSS_SELECTOR, "#trace .ev.step.fail")
        assert len(failed) == 1 and "is not open" in failed[0].text
        types = [e.get_attribute("data-type") for e in driver.find_elements(By.CSS_SELECTOR, "#trace .ev")]
        assert "feedback" in types and "replan" in types and types.index("feedback") < types.index("replan")
        assert "the check goal" in driver.find_element(By.CSS_SELECTOR, "#trace .ev.end").text
        assert "<char0> [open] <fridge> (225)" in driver.find_element(By.ID, "trace").text
        # BrainBody's VirtualHome steps record the command and its verdict, not the changed facts: the
        # drawing shows the task's initial graph (the PDDL executor's steps, above, update it)
        plan = [li.text for li in driver.find_elements(By.CSS_SELECTOR, "#plan li")]
        assert plan[4:] == ["open fridge", "put chicken in fridge", "close fridge"], plan


def _episode_json(console, job_id: str) -> dict:
    import json
    import urllib.request

    with urllib.request.urlopen(f"{console.url}api/episodes/{job_id}", timeout=10) as r:  # noqa: S310 - loopback
        return json.loads(r.read())


def _run_drink(d, console, answer: str, check: str = "") -> tuple[str, str, dict]:
    """autogpt_p with a scripted LLM on "bring me something to drink"; the badge's text and
    class, and the episode as the API reports it."""
    from selenium.webdriver.common.by import By

    d.get(console.url)
    wait_for(d, lambda: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "1", what="page ready")
    pick(d, "scene", "bundled:kitchen.yaml")
    pick(d, "method", "autogpt_p")
    pick(d, "backend", "scripted")
    d.find_element(By.ID, "script").send_keys(answer)
    for el_id, text in (("instruction", "bring me something to drink"), ("check-goal", check)):
        box = d.find_element(By.ID, el_id)
        box.clear()
        if text:
            box.send_keys(text)
    d.find_element(By.ID, "run").click()
    wait_for(d, lambda: d.find_element(By.ID, "status").get_attribute("data-verdict"), timeout=90,
             what="the episode to end")
    badge = d.find_element(By.ID, "status")
    job_id = d.find_element(By.ID, "conn").text.split()[1].rstrip(":")
    return badge.text, badge.get_attribute("class"), _episode_json(console, job_id)


def test_verdict_badge_is_the_episodes_verdict(driver, tmp_path):
    """Issue 19: autogpt_p hands over the banana for "bring me something to drink". Without a
    check goal only the method's own goal held: the badge says "goal holds (unverified)",
    not a green success; with a check goal it is a failure. The badge is always the verdict
    the episode has (groundplan.core.verdict, as in the CLI)."""
    wrong = "(:goal (and (inhand banana0 human0)))"
    with Console(tmp_path) as console:
        text, cls, ep = _run_drink(driver, console, wrong)
        ARTIFACTS.mkdir(exist_ok=True)
        driver.save_screenshot(str(ARTIFACTS / "console_verdict_unverified.png"))
        assert ep["result"]["plan"][-1] == "handover human0 banana0 robot0", ep["result"]
        assert text == ep["result"]["verdict"] == "goal holds (unverified)"
        assert "success" not in cls.split() and "unverified" in cls.split()
        text, cls, ep = _run_drink(driver, console, wrong, check="(or (inhand coke0 human0) (inhand water0 human0))")
        driver.save_screenshot(str(ARTIFACTS / "console_verdict_failure.png"))
        assert text == ep["result"]["verdict"] == "failure" and "failure" in cls.split()
        text, cls, ep = _run_drink(driver, console, "(:goal (and (inhand coke0 human0)))",
                                   check="(or (inhand coke0 human0) (inhand water0 human0))")
        assert text == ep["result"]["verdict"] == "success" and "success" in cls.split()


def test_runs_table_fits_its_pane(tmp_path):
    """The results tab in a narrow window with long run ids: no horizontal overflow."""
    from conftest import shared_data
    from selenium.webdriver.common.by import By

    from groundplan.bench.executors import make_executor
    from groundplan.bench.runner import RunSpec, run_benchmark
    from groundplan.bench.store import ResultStore

    if shared_data() is None:
        pytest.skip("../shared/data not present")
    db = tmp_path / "bench.sqlite"
    with ResultStore(db) as store:
        run_benchmark(RunSpec("autogptp-saycan", "oracle", limit=1, run_id="oracle@autogptp-saycan@none:"
                              + "a-very-long-model-name-" * 6), store, make_executor("local", workers=1))
    d = headless_chrome(window="760,900")
    try:
        with Console(tmp_path, results=db) as console:
            d.get(console.url)
            wait_for(d, lambda: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "1",
                     what="page ready")
            d.find_element(By.ID, "tab-results").click()
            wait_for(d, lambda: d.find_elements(By.CSS_SELECTOR, "#runs tbody tr[data-run]"), what="runs listed")
            ARTIFACTS.mkdir(exist_ok=True)
            d.save_screenshot(str(ARTIFACTS / "console_runs_narrow.png"))
            table = d.execute_script("const t = document.getElementById('runs'), p = document.getElementById("
                                     "'pane-results'); return [t.scrollWidth, t.clientWidth, p.clientWidth, "
                                     "document.documentElement.scrollWidth, window.innerWidth];")
            t_scroll, _t_client, pane, page, inner = table
            assert t_scroll <= pane and page <= inner, table
    finally:
        d.quit()
