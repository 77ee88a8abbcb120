"""The foundation on AutoGPT+P's own data (a sample here; the full runs are benchmarks)."""

import pytest
from conftest import needs_data


@needs_data
def test_every_autogpt_p_scene_loads_and_builds():
    import glob

    from groundplan.datadir import autogpt_p_root
    from groundplan.sim.pipeline import build

    root = autogpt_p_root() / "autogpt_p" / "data" / "evaluation"
    files = glob.glob(str(root / "scenes" / "*.txt")) + glob.glob(str(root / "saycan" / "scenes" / "*" / "*.txt"))
    assert len(files) > 100
    for f in files:
        task = build(f, strict=False)
        assert task.problem.objects


@needs_data
@pytest.mark.parametrize("family", ["saycan_b_nl_verb", "saycan_d_structured_language", "saycan_e_embodiment"])
def test_saycan_gold_goals_sample(planner, family):
    from groundplan.bench.datasets.autogpt_p import saycan_tasks
    from groundplan.sim.pipeline import build, plan_and_check

    rows = [t for t in saycan_tasks() if t.subset == family][:6]
    for t in rows:
        out = plan_and_check(build(t.scene_file, oam_file=t.oam_file, strict=False), t.goal, planner,
                             typecheck=False)
        assert out.status == "solved" and out.goal_reached, (t.id, out.error)
        assert out.cost == t.extras["min_costs"], (t.id, out.plan)
