"""wake_prompts with the real embedded model (SmolLM2-135M): the constrained answer is a
well-formed dictionary in the paper's format whatever the model's skill, and the episode
runs end to end (plan, execution, environment chaining)."""

from __future__ import annotations

import pytest
from test_wake_support import SCENES

from groundplan.core.task import Task
from groundplan.methods import RunContext, get_method

pytestmark = pytest.mark.embedded


@pytest.fixture(scope="module")
def llm(tmp_path_factory):
    from groundplan.llm import LLMConfig, build_llm

    llm = build_llm(LLMConfig(n_ctx=8192, cache_dir=tmp_path_factory.mktemp("cache")))
    yield llm
    llm.close()


def test_embedded_model_plans_two_chained_instructions(llm):
    task = Task("emb", "x", "two steps", str(SCENES / "lfo_shelf.yaml"), "(in spam trash_bin)", skillset="lfo",
                extras={"instructions": ["Put the juice on top of the shelf.", "Throw away the spam into the trash bin."]})
    ep = get_method("wake_prompts").run(task, RunContext(llm=llm, config={"max_tokens": 900}))
    assert ep.status in ("success", "failure"), ep.error
    plans = [e for e in ep.trace if e["type"] == "plan"]
    assert len(plans) == 2 and all(p["items"] for p in plans)
    assert ep.metrics["env_before_ok"]  # environment_before is the environment given (constrained)
    # the second instruction was planned in the first answer's environment_after
    envs = [e for e in ep.trace if e["type"] == "environment"]
    assert [e["source"] for e in envs] == ["llm", "llm"]
    assert ep.usage.calls == 2 and ep.usage.completion_tokens > 0
