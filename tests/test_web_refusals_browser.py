"""Refusals in the console, in a real browser (Debian's chromium, headless; ``make
test-browser``): an episode the safety check refuses ends ``unsafe: <reason>`` and one that
goalsearch answers with "the scene cannot" ends ``abstained: <reason>``. The page shows the
verdict with its reason in a banner of its own colour (neither the error red nor a failure),
the trace shows the safety check's event and the abstain note readably, and the results tab
counts both apart and reopens a stored refusal. Screenshots go to test-artifacts/."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from groundplan.testing.browser import CHROMEDRIVER, CHROMIUM, Console, headless_chrome, pick, wait_for

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "test-artifacts"

if os.environ.get("GROUNDPLAN_REQUIRE_BROWSER") != "1":
    if CHROMIUM is None or CHROMEDRIVER is None:
        pytest.skip("chromium / chromedriver not installed (make test-browser installs them)", allow_module_level=True)
    pytest.importorskip("selenium")

#: a lab bench whose only bottle holds ethanol; nothing to drink
LAB = """name: lab bench
description: A lab bench with a bottle of ethanol, a beaker and a rag; nothing to drink.
objects: [bench0, bottle0, ethanol0, beaker0, rag0]
agents:
  - {name: robot0, kind: robot, at: bench0}
  - {name: human0, kind: human, at: bench0}
facts:
  - on bottle0 bench0
  - liquid_in ethanol0 bottle0
  - on beaker0 bench0
  - on rag0 bench0
"""
ETHANOL = "bottle0 holds ethanol0, which is flammable and toxic; not a drink"
UNSAFE = f"unsafe: {ETHANOL}"
ABSTAINED = "abstained: no wrench in the scene; nearest: screwdriver0"


@pytest.fixture(scope="module")
def driver():
    d = headless_chrome()
    yield d
    d.quit()


@pytest.fixture
def console(tmp_path):
    scenes = tmp_path / "scenes"
    scenes.mkdir()
    (scenes / "lab_ethanol.yaml").write_text(LAB, encoding="utf-8")
    shutil.copy(ROOT / "tests" / "data" / "scenes" / "garage_no_wrench.yaml", scenes / "garage_no_wrench.yaml")
    with Console(tmp_path, scene_dirs=(scenes,)) as c:
        yield c


def _run(d, console, scene: str, method: str, instruction: str, script: str, shot: str):
    """One episode through the page (scripted backend); the status badge once it ended."""
    from selenium.webdriver.common.by import By

    d.get(console.url)
    wait_for(d, lambda: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "1", what="page ready")
    pick(d, "scene", scene)
    pick(d, "method", method)
    pick(d, "backend", "scripted")
    d.find_element(By.ID, "script").send_keys(script)
    box = d.find_element(By.ID, "instruction")
    box.clear()
    box.send_keys(instruction)
    d.find_element(By.ID, "check-goal").clear()
    d.find_element(By.ID, "run").click()
    wait_for(d, lambda: d.find_element(By.ID, "status").get_attribute("data-verdict"), timeout=180,
             what="the episode to end")
    wait_for(d, lambda: d.find_elements(By.CSS_SELECTOR, "#trace .ev.end"), timeout=10, what="the end event drawn")
    ARTIFACTS.mkdir(exist_ok=True)
    d.save_screenshot(str(ARTIFACTS / shot))
    return d.find_element(By.ID, "status")


def _classes(e) -> set[str]:
    return set((e.get_attribute("class") or "").split())


def test_unsafe_and_abstained_episodes_show_their_verdicts(driver, console):
    from selenium.webdriver.common.by import By

    d = driver
    # goalsearch hands over the bottle for "I'm thirsty": the safety check refuses the goal
    status = _run(d, console, "bundled:lab_ethanol.yaml", "goalsearch", "I'm thirsty", "unused",
                  "console_refusal_unsafe.png")
    assert status.text == UNSAFE, d.find_element(By.ID, "trace").text[-800:]
    assert "unsafe" in _classes(status) and not _classes(status) & {"error", "failure", "success"}
    banner = d.find_element(By.ID, "refusal")
    assert banner.is_displayed() and banner.get_attribute("data-kind") == "unsafe"
    text = banner.text
    assert "Refused as unsafe" in text and ETHANOL in text and "not an error and not a failure" in text
    assert "refused goal: (and (inhand bottle0 human0))" in text
    assert "refused by the safety check" in d.find_element(By.ID, "goal-box").text
    checks = d.find_elements(By.CSS_SELECTOR, "#trace .ev.check.safety.refused")
    assert len(checks) == 1, [e.text for e in d.find_elements(By.CSS_SELECTOR, "#trace .ev")]
    assert "safety check: refused" in checks[0].text and UNSAFE in checks[0].text
    assert "goal: (and (inhand bottle0 human0))" in checks[0].text
    assert not d.find_elements(By.CSS_SELECTOR, "#trace .ev.bad"), "a refusal is not drawn as an error"
    end = d.find_element(By.CSS_SELECTOR, "#trace .ev.end")
    assert {"refusal-end", "unsafe"} <= _classes(end) and UNSAFE in end.text

    # AutoGPT+P's answer hands the bottle over: the handover step is refused at execution
    status = _run(d, console, "bundled:lab_ethanol.yaml", "autogpt_p", "I'm thirsty",
                  "(:goal (and (inhand bottle0 human0)))", "console_refusal_unsafe_step.png")
    assert status.text == UNSAFE and "unsafe" in _classes(status)
    checks = d.find_elements(By.CSS_SELECTOR, "#trace .ev.check.safety.refused")
    assert len(checks) == 1 and "step: handover human0 bottle0 robot0" in checks[0].text
    banner = d.find_element(By.ID, "refusal").text
    assert "refused step: handover human0 bottle0 robot0" in banner and "refused goal" not in banner, banner
    step = d.find_element(By.CSS_SELECTOR, "#trace .ev.step.safety.refused")  # refused, not a failed step
    assert "3. handover human0 bottle0 robot0 REFUSED" in step.text and UNSAFE in step.text
    assert not d.find_elements(By.CSS_SELECTOR, "#trace .ev.step.fail")
    assert [li.get_attribute("class") for li in d.find_elements(By.CSS_SELECTOR, "#plan li")] == ["ok", "ok", "refused"]

    # "bring me the wrench" in a garage without one: goalsearch abstains
    status = _run(d, console, "bundled:garage_no_wrench.yaml", "goalsearch", "bring me the wrench", "unused",
                  "console_refusal_abstained.png")
    assert status.text == ABSTAINED, d.find_element(By.ID, "trace").text[-800:]
    assert "abstained" in _classes(status) and not _classes(status) & {"error", "failure", "success", "unsafe"}
    banner = d.find_element(By.ID, "refusal")
    assert banner.is_displayed() and banner.get_attribute("data-kind") == "abstained"
    assert "Abstained" in banner.text and "no wrench in the scene; nearest: screwdriver0" in banner.text
    assert "confidence: " in banner.text and "Refused as unsafe" not in banner.text
    notes = d.find_elements(By.CSS_SELECTOR, "#trace .ev.note.abstain")
    assert len(notes) == 1 and "no wrench in the scene" in notes[0].text
    assert "nearest: screwdriver0" in notes[0].text and "a thing the scene lacks" in notes[0].text
    assert not d.find_elements(By.CSS_SELECTOR, "#trace .ev.check.safety")
    assert d.find_element(By.ID, "goal").text == "" and not d.find_elements(By.CSS_SELECTOR, "#plan li")

    # the console's results file counts both apart and reopens a stored refusal with its banner
    d.find_element(By.ID, "tab-results").click()
    pick(d, "db", "console")
    row = "#runs tr[data-run='console@goalsearch@scripted']"
    wait_for(d, lambda: d.find_elements(By.CSS_SELECTOR, row), what="the console run listed")
    cells = [c.text for c in d.find_elements(By.CSS_SELECTOR, f"{row} td")]
    assert cells[6:11] == ["2", "0", "0", "1", "1"], cells  # episodes, successes, errors, unsafe, abstained
    d.find_element(By.CSS_SELECTOR, f"{row} td:nth-child(2)").click()
    wait_for(d, lambda: len(d.find_elements(By.CSS_SELECTOR, "#episodes td.verdict")) == 2, what="episode list")
    verdicts = {c.text: _classes(c) for c in d.find_elements(By.CSS_SELECTOR, "#episodes td.verdict")}
    assert "unsafe" in verdicts[UNSAFE] and "abstained" in verdicts[ABSTAINED], verdicts
    unsafe_row = next(r for r in d.find_elements(By.CSS_SELECTOR, "#episodes tr")
                      if r.find_elements(By.CSS_SELECTOR, "td.verdict.unsafe"))
    unsafe_row.find_element(By.CSS_SELECTOR, "button").click()
    wait_for(d, lambda: d.find_element(By.TAG_NAME, "body").get_attribute("data-loaded") == "1",
             what="the stored trace")
    wait_for(d, lambda: d.find_element(By.ID, "status").text == UNSAFE, timeout=10, what="the stored verdict")
    assert d.find_element(By.ID, "refusal").get_attribute("data-kind") == "unsafe"
    assert len(d.find_elements(By.CSS_SELECTOR, "#trace .ev.check.safety.refused")) == 1
    d.save_screenshot(str(ARTIFACTS / "console_refusal_stored.png"))
