"""OD-LinBAI (Yang & Tan 2022): schedule, noiseless runs, batch ≡ single, error vs budget, and
comparisons with Uniform at equal budget (where it wins, and where the theory says it loses)."""

import math

import gymnasium as gym
import numpy as np
import pytest
from scipy import stats

import bandit_envs  # noqa: F401
from agents import Uniform, check_agent
from agents.linear_bai.od_linbai import ODLinBAI, od_linbai_schedule
from bandit_envs import run_episode
from bandit_envs.errors import IncompatibleAgentError, InvalidParameterError


def custom(features, theta, sigma, **setting):
    return gym.make(
        "LinearBAI-Custom-v0",
        features=np.asarray(features, float),
        theta=np.asarray(theta, float),
        sigma=sigma,
        **setting,
    )


def errors(env, make, seeds, **kw):
    return sum(not run_episode(env, make(), s, **kw).correct for s in seeds)


def one_sided_fisher(worse_errors, better_errors, n):
    """p-value of H0: equal error rates, against 'the first has more errors' (Fisher exact)."""
    table = [[worse_errors, n - worse_errors], [better_errors, n - better_errors]]
    return stats.fisher_exact(table, alternative="greater")[1]


#: 32 unstructured arms, one close competitor (gap 0.1) and 30 far ones (gap 1): the halving
#: of OD-LinBAI spends its last phase on the two top arms, Uniform spreads T over all 32.
UNSTRUCTURED = (np.eye(32), np.r_[1.0, 0.9, np.zeros(30)])


def test_od_linbai_passes_check_agent():
    results = check_agent(ODLinBAI())
    assert all(r.status in ("passed", "skipped") for r in results), results
    assert [r.check for r in results if r.status == "skipped"] == ["check_stops_when_easy"]


def test_schedule_follows_the_paper():
    """M = ⌈log₂ d⌉ phases keeping ⌈d/2^r⌉ arms; m = (T − min(K, d(d+1)/2) − Σ_{r<M}⌈d/2^r⌉)/M."""
    budgets, survivors = od_linbai_schedule(100, 6, 5)
    assert survivors == [3, 2, 1]
    m = (100 - min(6, 15) - (3 + 2)) / 3
    assert sum(budgets) == 100
    assert [b - s for b, s in zip(budgets, [6, 3, 2], strict=True)] == [29, 30, 30]
    assert all(b - s >= math.floor(m) for b, s in zip(budgets, [6, 3, 2], strict=True))
    assert od_linbai_schedule(200, 32, 32)[1] == [16, 8, 4, 2, 1]
    assert od_linbai_schedule(10, 3, 2) == ([10], [1])
    assert od_linbai_schedule(10, 2, 1) == ([10], [1])  # d = 1: one phase (paper: d ≥ 2)
    with pytest.raises(ValueError):
        od_linbai_schedule(13, 6, 5)


def test_too_small_budget_is_refused_at_reset():
    env = gym.make("LinearBAI-Soare-v0", d=5, budget=13)
    with pytest.raises(InvalidParameterError) as err:
        run_episode(env, ODLinBAI(), 0)
    assert str(err.value) == (
        "ODLinBAI: budget must be at least 14 for K=6 arms of rank d=5 (⌈log₂ d⌉ = 3 phase(s) "
        "of at least one pull each, plus min(K, d(d+1)/2) + Σ_{r<3} ⌈d/2^r⌉ = 11 pulls for the "
        "rounding of the designs); got 13."
    )
    assert run_episode(gym.make("LinearBAI-Soare-v0", d=5, budget=14), ODLinBAI(), 0).samples == 14


def test_fixed_confidence_is_refused():
    with pytest.raises(IncompatibleAgentError):
        run_episode(gym.make("LinearBAI-Soare-v0"), ODLinBAI(), 0)


@pytest.mark.parametrize("batch", [False, True], ids=["single", "batch"])
@pytest.mark.parametrize(
    ("features", "theta"),
    [
        UNSTRUCTURED,
        (np.vstack([np.eye(5), [math.cos(0.1), math.sin(0.1), 0, 0, 0]]), [2.0, 0, 0, 0, 0]),
        ([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, 1.0, 0.0], [0.5, 0.2, 0.0]], [1.0, 0.3, 5.0]),
    ],
    ids=["unstructured-32", "soare-d5", "rank-deficient"],
)
def test_noiseless_run_identifies_the_best_arm_spending_the_budget(features, theta, batch):
    env = custom(features, theta, 0.0, budget=400)
    agent = ODLinBAI()
    record = run_episode(env, agent, 0, batch=batch)
    assert record.correct and record.samples == 400 and record.stop_reason == "budget"
    dim = np.linalg.matrix_rank(np.asarray(features, float))
    assert len(agent.phase_history) == max(1, math.ceil(math.log2(dim)))
    for entry in agent.phase_history:  # only active arms are sampled
        pulled = {k for k, n in enumerate(entry["allocation"]) if n > 0}
        assert pulled <= set(entry["active"])


def test_batch_and_single_paths_agree():
    """Same deterministic first-phase allocation on both paths, same error rate (Fisher, two-sided
    level 0.001), disjoint seeds."""
    env = custom(*UNSTRUCTURED, 1.0, budget=600)
    runs = {}
    for batch, seeds in ((False, range(120)), (True, range(1000, 1120))):
        agents = [ODLinBAI() for _ in seeds]
        records = [run_episode(env, a, s, batch=batch) for a, s in zip(agents, seeds, strict=True)]
        runs[batch] = (records, agents)
        assert len({tuple(a.phase_history[0]["allocation"]) for a in agents}) == 1
    assert (
        runs[False][1][0].phase_history[0]["allocation"]
        == runs[True][1][0].phase_history[0]["allocation"]
    )
    e_single = sum(not r.correct for r in runs[False][0])
    e_batch = sum(not r.correct for r in runs[True][0])
    p = stats.fisher_exact([[e_single, 120 - e_single], [e_batch, 120 - e_batch]])[1]
    assert p > 1e-3, (e_single, e_batch)


def test_error_rate_decreases_with_the_budget():
    """Budgets 800, 3200, 12800 on the unstructured instance, 300 seeds each; every step down
    is significant (one-sided Fisher exact test, level 0.01). Predicted from the last phase
    alone: ≈ 0.27, 0.10, 0.006."""
    counts = [
        errors(custom(*UNSTRUCTURED, 1.0, budget=t), ODLinBAI, range(300))
        for t in (800, 3200, 12800)
    ]
    assert counts[0] > counts[1] > counts[2], counts
    assert one_sided_fisher(counts[0], counts[1], 300) < 0.01, counts
    assert one_sided_fisher(counts[1], counts[2], 300) < 0.01, counts


def test_beats_uniform_at_equal_budget_on_the_unstructured_instance():
    """T = 3200, 400 seeds each; H1 'Uniform errs more', one-sided Fisher exact test at level
    0.001. Predicted: OD-LinBAI ≈ Φ(−0.1/√(2/314)) ≈ 0.11, Uniform ≈ Φ(−0.1/√(2/100)) ≈ 0.24."""
    env = custom(*UNSTRUCTURED, 1.0, budget=3200)
    od = errors(env, ODLinBAI, range(400))
    uniform = errors(env, Uniform, range(400))
    assert one_sided_fisher(uniform, od, 400) < 1e-3, (od, uniform)


def test_on_soare_d5_uniform_wins_as_the_design_on_active_arms_predicts():
    """LinearBAI-Soare-v0 with d=5, ω=0.1 (Δ_min = 2(1 − cos ω) ≈ 0.01) at T = 5000.

    OD-LinBAI designs on the *active* arms: after two phases only e₁ and x₆ = (cos ω, sin ω, …)
    remain, and the last phase compares them with the G-optimal design (½, ½) on those two,
    so Δ̂ has variance σ²(1/n₁ + 1/n₆) and the error is ≈ Φ(−Δ/√(1/n₁ + 1/n₆)) ≈ 0.42. Uniform
    keeps pulling e₂, which measures the direction e₁ − x₆ far better (variance ≈ 0.06σ²/T·…,
    error ≈ 0.002). So OD-LinBAI loses here; the test checks the predicted error rate (two-sided
    binomial test, level 0.001) and that Uniform is better (Fisher exact, level 1e-6).
    """
    env = gym.make("LinearBAI-Soare-v0", d=5, omega=0.1, budget=5000)
    agent = ODLinBAI()
    run_episode(env, agent, 0)
    last = agent.phase_history[-1]
    assert last["active"] == [0, 5]
    n1, n6 = last["allocation"][0], last["allocation"][5]
    gap = 2.0 * (1.0 - math.cos(0.1))
    predicted = stats.norm.cdf(-gap / math.sqrt(1.0 / n1 + 1.0 / n6))
    od = errors(env, ODLinBAI, range(400))
    assert stats.binomtest(od, 400, predicted).pvalue > 1e-3, (od, predicted)
    uniform = errors(env, Uniform, range(400))
    assert one_sided_fisher(od, uniform, 400) < 1e-6, (od, uniform)


def test_small_error_on_an_easy_instance_100_seeds():
    """Easy instance (gaps ≥ 0.5, σ = 0.3), T = 120: error rate ≤ 0.05 at the 95% binomial
    quantile (the fixed-budget analogue of δ-correctness)."""
    env = custom(np.eye(4), [1.0, 0.5, 0.0, -0.5], 0.3, budget=120)
    assert errors(env, ODLinBAI, range(100)) <= stats.binom.ppf(0.95, 100, 0.05)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("features", "theta", "sigma", "budget"),
    [
        (np.eye(4), [1.0, 0.5, 0.0, -0.5], 0.3, 120),
        (*UNSTRUCTURED, 1.0, 12800),
        (np.vstack([np.eye(2), [math.cos(0.3), math.sin(0.3)]]), [2.0, 0.0], 1.0, 2000),
    ],
    ids=["basis-4", "unstructured-32", "soare-d2-w0.3"],
)
def test_small_error_on_easy_instances_1000_seeds(features, theta, sigma, budget):
    env = custom(features, theta, sigma, budget=budget)
    assert errors(env, ODLinBAI, range(1000)) <= stats.binom.ppf(0.99, 1000, 0.05)
