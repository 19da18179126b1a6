"""EGE-SH, EGE-SR and uniform PSI baselines (as in the GEGE authors' code): budget rules and
schedules, noiseless runs, check_agent, fixed-budget error vs T, δ-correctness of the FC uniform,
batch ≡ one-pull, and APE's stopping rule (bandit_envs.theory.pareto.ape_confidence /
ape_stop)."""

from __future__ import annotations

import math

import gymnasium as gym
import numpy as np
import pytest
from conftest import skip_without_data

import bandit_envs  # noqa: F401  (registers the ids)
from agents.checks import check_agent
from agents.pareto.gege import GEGE
from agents.pareto.psi_elimination import EGESH, EGESR, PSIUniform, successive_rejects_schedule
from bandit_envs import run_episode
from bandit_envs.errors import IncompatibleAgentError, InvalidParameterError
from bandit_envs.theory.pareto import (
    ape_confidence,
    ape_stop,
    dominance_margins,
    is_eps_pareto_set,
    pareto_mask,
    pareto_set,
)

#: 6 arms, 2 objectives, S* = {0, 1, 2}, smallest gap 0.12 (GEGE's easy instance, unstructured).
EASY_MEANS = np.array(
    [
        [1.0, 0.0],
        [0.0, 1.0],
        [0.7, 0.7],
        [0.5, 0.5],
        [0.34, 0.34],
        [0.58, 0.28],
    ]
)


def _easy(**kw):
    return gym.make("LinearPSI-Custom-v0", means=EASY_MEANS, **kw)


def _front8() -> np.ndarray:
    """8 arms, 2 objectives: 4 on a concave front, 4 dominated, all gaps distinct."""
    phi = np.array([0.15, 0.6, 1.0, 1.4])
    front = np.c_[np.cos(phi), np.sin(phi)]
    inner = np.array([[0.55, 0.30], [0.40, 0.52], [0.20, 0.75], [0.05, 0.10]])
    return np.vstack([front, inner])


# ----------------------------------------------------------------- parameters, capabilities


def test_parameters_are_validated_at_reset():
    env = _easy(budget=100)
    with pytest.raises(InvalidParameterError) as info:
        run_episode(env, EGESH(forget="yes"), 0)
    assert str(info.value) == "EGESH: forget must be True or False; got 'yes'."
    with pytest.raises(InvalidParameterError) as info:
        run_episode(env, PSIUniform(threshold="tight"), 0)
    assert str(info.value) == (
        "PSIUniform: threshold must be one of 'union', 'heuristic'; got 'tight'."
    )
    assert EGESH().get_params() == {"forget": False}
    assert EGESR().get_params() == {}
    assert PSIUniform().get_params() == {"threshold": "union"}


def test_capabilities():
    with pytest.raises(IncompatibleAgentError):  # fixed budget only
        run_episode(_easy(delta=0.1), EGESH(), 0)
    with pytest.raises(IncompatibleAgentError):
        run_episode(_easy(delta=0.1), EGESR(), 0)
    with pytest.raises(IncompatibleAgentError):  # best-arm problems are not theirs
        run_episode(gym.make("LinearBAI-Soare-v0", budget=100), EGESH(), 0)
    # unstructured: they run on linear instances too, ignoring the features
    env = gym.make("LinearPSI-Synthetic-v0", K=12, sigma=0.0, budget=200)
    for agent in (EGESH(), EGESR(), PSIUniform()):
        assert run_episode(env, agent, 0).correct


def test_ege_sh_refuses_budgets_below_k_log_k():
    """EGE-SH needs T ≥ K⌈log₂K⌉ (Kone, Kaufmann & Richert 2025, Sec. 5.2)."""
    env = gym.make("LinearPSI-Synthetic-v0", K=20, budget=99)  # 20·⌈log2 20⌉ = 100
    with pytest.raises(InvalidParameterError, match=r"K⌈log2 K⌉ = 20·5 = 100"):
        run_episode(env, EGESH(), 0)
    rec = run_episode(gym.make("LinearPSI-Synthetic-v0", K=20, budget=100), EGESH(), 0)
    assert rec.samples == 20 + 20 + 20 + 18 + 20  # ⌊100/(|A| 5)⌋ |A|, |A| = 20, 10, 5, 3, 2


def test_ege_sh_refuses_on_noc_below_2331():
    skip_without_data("LinearPSI-NoC-v0")
    with pytest.raises(InvalidParameterError, match=r"= 2331 \(K = 259\)"):
        run_episode(gym.make("LinearPSI-NoC-v0", budget=2330), EGESH(), 0)


def test_small_budgets_of_sr_and_uniform_are_refused():
    with pytest.raises(InvalidParameterError, match="larger than the number of arms K = 6"):
        run_episode(_easy(budget=6), EGESR(), 0)
    with pytest.raises(InvalidParameterError, match="at least the number of arms K = 6"):
        run_episode(_easy(budget=5), PSIUniform(), 0)
    assert run_episode(_easy(budget=7, sigma=0.0), EGESR(), 0).samples <= 7


# -------------------------------------------------------- EGE-SR schedule (successive rejects)


@pytest.mark.parametrize("k", [2, 3, 7, 50, 259])
@pytest.mark.parametrize("extra", [1, 2, 17, 1000, 12345])
def test_sr_schedule_fits_the_budget(k, extra):
    t = k + extra
    n = successive_rejects_schedule(k, t)
    assert n.shape == (k - 1,) and n.dtype == np.int64
    assert n[0] >= 1 and (np.diff(n) >= 0).all()
    assert int(n.sum() + n[-1]) <= t
    log_bar = 0.5 + sum(1.0 / i for i in range(2, k + 1))
    assert n.tolist() == [math.ceil((t - k) / (log_bar * (k + 1 - j)) - 1e-9) for j in range(1, k)]


def test_sr_schedule_rejects_bad_arguments():
    with pytest.raises(InvalidParameterError, match="n_arms must be an integer >= 2"):
        successive_rejects_schedule(1, 10)
    with pytest.raises(InvalidParameterError, match="budget must be an integer larger than"):
        successive_rejects_schedule(5, 5)


def test_sr_pulls_follow_the_schedule():
    env = _easy(budget=500, sigma=0.3)
    agent = EGESR()
    rec = run_episode(env, agent, 3)
    n = agent.schedule
    assert rec.samples == int(n.sum() + n[-1]) <= 500
    hist = agent.phase_history
    assert len(hist) == 5
    prev = 0
    for k, phase in enumerate(hist):
        assert len(phase["active"]) == 6 - k
        assert (phase["allocation"] == n[k] - prev).all()
        prev = n[k]
        assert len(phase["accepted"]) + len(phase["rejected"]) == (2 if k == 4 else 1)
    # the rule: reject the sub-optimal arm of largest gap iff its gap ≥ the optimal ones'
    for phase in hist[:-1]:
        gaps, par = phase["gaps"], phase["pareto"]
        i1 = gaps[par].max(initial=-np.inf)
        i2 = gaps[~par].max(initial=-np.inf)
        active = np.asarray(phase["active"])
        if i2 >= i1:
            assert phase["rejected"] == [int(active[~par][np.argmax(gaps[~par])])]
        else:
            assert phase["accepted"] == [int(active[par][np.argmax(gaps[par])])]
    assert set(agent.accepted) == set(rec.answer)
    assert set(agent.accepted) | set(agent.rejected) == set(range(6))


def test_sr_is_graded_by_equality():
    """A subset of S* is a wrong answer (the python version's issubset bug is not reproduced)."""
    env = _easy(budget=60, sigma=1.0)
    recs = [run_episode(env, EGESR(), s) for s in range(40)]
    star = {0, 1, 2}
    for rec in recs:
        assert rec.correct == (set(rec.answer) == star)
    assert any(set(r.answer) < star for r in recs)


# ------------------------------------ EGE-SH rounds, and GEGE-FB coinciding with it (Sec. 3.2)


def test_sh_rounds_halve_the_active_set():
    env = gym.make("LinearPSI-Synthetic-v0", K=20, budget=1000, sigma=0.5)
    agent = EGESH()
    rec = run_episode(env, agent, 1)
    sizes = [len(p["active"]) for p in agent.phase_history]
    assert sizes == [20, 10, 5, 3, 2]
    assert [p["samples"] for p in agent.phase_history] == [a * (1000 // (a * 5)) for a in sizes]
    assert rec.samples == sum(p["samples"] for p in agent.phase_history) <= 1000
    assert len(agent.phase_history[-1]["survivors"]) == 1
    assert not set(agent.accepted) & set(agent.rejected)
    assert set(agent.accepted) | set(agent.rejected) | set(
        agent.phase_history[-1]["survivors"]
    ) == set(range(20))


@pytest.mark.parametrize("k, budget", [(8, 240), (8, 1000), (16, 320), (16, 999)])
@pytest.mark.parametrize("instance", range(4))
def test_gege_fb_removes_the_arms_ege_sh_removes(k, budget, instance):
    """Canonical features, K = h a power of 2, noiseless: the same arms leave in the same rounds
    (Kone, Kaufmann & Richert 2025, Sec. 3.2)."""
    if instance == 0 and k == 8:
        means = _front8()
    else:
        means = np.random.default_rng(100 + instance).uniform(size=(k, 2))
    features = np.eye(k)
    env_lin = gym.make(
        "LinearPSI-Custom-v0", features=features, theta=means, sigma=0.0, budget=budget
    )
    env_raw = gym.make("LinearPSI-Custom-v0", means=means, sigma=0.0, budget=budget)
    gege, sh = GEGE(), EGESH()
    a = run_episode(env_lin, gege, 0)
    b = run_episode(env_raw, sh, 0)
    assert a.answer == b.answer and a.correct and b.correct
    assert len(gege.phase_history) == len(sh.phase_history) == int(math.log2(k))
    for pg, ps in zip(gege.phase_history, sh.phase_history, strict=True):
        for key in ("active", "accepted", "rejected", "survivors"):
            assert list(pg[key]) == list(ps[key]), key
        np.testing.assert_allclose(pg["gaps"], ps["gaps"], atol=1e-9)
    if budget % (k * int(math.log2(k))) == 0:  # then the per-arm allocations coincide too
        for pg, ps in zip(gege.phase_history, sh.phase_history, strict=True):
            assert pg["allocation"].tolist() == ps["allocation"].tolist()


def test_sh_forget_uses_only_the_round_samples():
    env = _easy(budget=300, sigma=0.5)
    keep, forget = _drive_pair(EGESH(), EGESH(forget=True), env, seed=4)
    for agent, fresh in ((keep, False), (forget, True)):
        for phase in agent.phase_history[1:]:
            active = np.asarray(phase["active"])
            counts = agent.stream_counts[phase["round"]]
            sums = agent.stream_sums[phase["round"]]
            if fresh:
                prev_c = agent.stream_counts[phase["round"] - 1]
                prev_s = agent.stream_sums[phase["round"] - 1]
                counts, sums = counts - prev_c, sums - prev_s
            np.testing.assert_allclose(phase["means"], sums[active] / counts[active][:, None])


# ----------------------------------------------------------------- noiseless runs, check_agent


@pytest.mark.parametrize(
    "make",
    [
        lambda **kw: _easy(sigma=0.0, **kw),
        lambda **kw: gym.make("LinearPSI-Synthetic-v0", K=40, sigma=0.0, **kw),
        lambda **kw: gym.make("LinearPSI-Custom-v0", means=_front8(), sigma=0.0, **kw),
    ],
)
def test_noiseless_runs_return_the_pareto_set(make):
    env = make(budget=400)
    star = set(env.unwrapped.complexity()["pareto_set"])
    for agent in (EGESH(), EGESH(forget=True), EGESR(), PSIUniform()):
        rec = run_episode(env, agent, 0)
        assert set(rec.answer) == star and rec.correct, agent
    for threshold in ("union", "heuristic"):
        agent = PSIUniform(threshold=threshold)
        rec = run_episode(make(delta=0.05), agent, 0)
        assert set(rec.answer) == star and rec.stop_reason == "stopped"
        assert rec.samples == env.unwrapped.n_arms  # β = 0: one round suffices


@pytest.mark.parametrize(
    "agent",
    [EGESH(), EGESH(forget=True), EGESR(), PSIUniform(), PSIUniform(threshold="heuristic")],
    ids=repr,
)
def test_check_agent_passes(agent):
    check_agent(agent)


# ----------------------------------------------------------------- fixed budget: error vs T


def test_fixed_budget_error_decreases_with_the_budget_on_noc():
    """Seeded (deterministic) and coarse: budgets 4× apart, 40 runs each, margins ≥ 0.3."""
    skip_without_data("LinearPSI-NoC-v0")
    seeds = range(40)
    for agent, small, large in (
        (EGESH(), 2331, 9324),
        (EGESR(), 2331, 9324),
        (PSIUniform(), 2331, 40000),
    ):
        err = []
        for t in (small, large):
            env = gym.make("LinearPSI-NoC-v0", budget=t)
            err.append(np.mean([not run_episode(env, agent, s).correct for s in seeds]))
        assert err[0] >= err[1] + 0.3, (agent, err)


def test_uniform_fixed_budget_allocation():
    env = _easy(budget=23, sigma=0.5)
    agent = PSIUniform()
    rec = run_episode(env, agent, 5, batch=False)
    assert rec.samples == 23
    counts = agent.counts
    assert sorted(counts.tolist()) == [3, 4, 4, 4, 4, 4]  # ⌊23/6⌋ = 3 each, 5 extra to distinct
    assert set(rec.answer) == pareto_set(agent.sums / counts[:, None])
    extras = {tuple(np.flatnonzero(_run_counts(s) == 4)) for s in range(20)}
    assert len(extras) > 1  # the extra pulls go to random arms (from the episode's rng)


def _run_counts(seed):
    agent = PSIUniform()
    run_episode(_easy(budget=23, sigma=0.5), agent, seed)
    return agent.counts


# ----------------------------------------------------------------- fixed confidence uniform


def test_fc_uniform_is_delta_correct_on_an_easy_instance():
    """200 runs at δ = 0.1, σ = 0.1 (union threshold, δ-correct): expect no error at all."""
    env = _easy(sigma=0.1, delta=0.1)
    recs = [run_episode(env, PSIUniform(), s) for s in range(200)]
    assert all(r.stop_reason == "stopped" for r in recs)
    assert sum(not r.correct for r in recs) <= 2  # ≪ δ·200 = 20
    assert all(r.samples % 6 == 0 for r in recs)


@pytest.mark.slow
@pytest.mark.parametrize("threshold", ["union", "heuristic"])
def test_fc_uniform_is_delta_correct_slow(threshold):
    env = _easy(sigma=0.3, delta=0.1)
    recs = [run_episode(env, PSIUniform(threshold=threshold), s) for s in range(500)]
    assert sum(not r.correct for r in recs) <= 50


def test_fc_uniform_stops_when_ape_stop_says_so():
    env = _easy(sigma=0.2, delta=0.05)
    agent = PSIUniform()
    rec = run_episode(env, agent, 2)
    stat = agent.stop_statistics
    assert stat.stop and set(rec.answer) == set(np.flatnonzero(stat.pareto))
    n = rec.samples // 6
    means = agent.sums / agent.counts[:, None]
    assert ape_stop(means, agent.counts, 0.05, 0.2).stop
    # one round earlier the rule did not stop (re-run and stop a round short)
    short = _easy(sigma=0.2, delta=0.05, max_samples=6 * (n - 1))
    early = PSIUniform()
    assert run_episode(short, early, 2).stop_reason == "max_samples"
    assert not early.stop_statistics.stop


def test_fc_uniform_eps_psi():
    """ε-PSI: the answer is an ε-Pareto set, found sooner than the exact Pareto set."""
    means = np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5], [0.45, 0.44], [0.2, 0.2]])
    eps = 0.2
    env = gym.make("LinearPSI-Custom-v0", means=means, sigma=0.1, delta=0.1, epsilon=eps)
    exact = gym.make("LinearPSI-Custom-v0", means=means, sigma=0.1, delta=0.1)
    recs = [run_episode(env, PSIUniform(), s) for s in range(10)]
    assert all(is_eps_pareto_set(r.answer, means, eps) and r.correct for r in recs)
    assert np.mean([r.samples for r in recs]) < np.mean(
        [run_episode(exact, PSIUniform(), s).samples for s in range(10)]
    )


# ----------------------------------------------------------------- APE stopping rule


def test_ape_confidence_formulas():
    ti, tj, delta, sigma = 7.0, 3.0, 0.05, 0.5
    c_g = math.log(1 / delta) / 2 + max(math.log(math.log(1 / delta) / 2), 0.0)
    heur = sigma * math.sqrt(
        2 * (2 * c_g + math.log(1 + math.log(ti)) + math.log(1 + math.log(tj))) * (1 / ti + 1 / tj)
    )
    assert ape_confidence(ti, tj, delta, sigma, threshold="heuristic") == pytest.approx(heur)
    k, d = 10, 3
    log_term = math.log(d * k * (k - 1) * math.pi**4 * ti**2 * tj**2 / (36 * delta))
    union = sigma * math.sqrt(2 * (1 / ti + 1 / tj) * log_term)
    got = ape_confidence(ti, tj, delta, sigma, n_arms=k, n_objectives=d)
    assert got == pytest.approx(union)
    grid = ape_confidence(
        np.arange(1, 4)[:, None], np.arange(1, 5)[None, :], delta, sigma, n_arms=k, n_objectives=d
    )
    assert grid.shape == (3, 4) and np.allclose(grid[1:, 0], grid[0, 1:3])


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"threshold": "tight"}, "threshold must be one of"),
        ({"delta": 1.0}, "delta must be a float in"),
        ({"sigma": -1.0}, "sigma must be a finite float"),
        ({"t_i": 0}, "sample counts must be >= 1"),
        ({"n_arms": None}, "n_arms must be an integer >= 1"),
    ],
)
def test_ape_confidence_rejects_bad_input(kwargs, match):
    args = {
        "t_i": 2,
        "t_j": 3,
        "delta": 0.1,
        "sigma": 1.0,
        "threshold": "union",
        "n_arms": 4,
        "n_objectives": 2,
        **kwargs,
    }
    with pytest.raises(InvalidParameterError, match=match):
        ape_confidence(**args)


def test_ape_stop_matches_its_definition():
    rng = np.random.default_rng(0)
    for _ in range(20):
        k, d = int(rng.integers(2, 9)), int(rng.integers(1, 4))
        mu = rng.normal(size=(k, d))
        n = rng.integers(1, 50, size=k)
        eps = float(rng.choice([0.0, 0.1]))
        res = ape_stop(mu, n, 0.1, 0.3, threshold="heuristic", epsilon=eps)
        big = dominance_margins(mu)
        beta = ape_confidence(n[:, None], n[None, :], 0.1, 0.3, threshold="heuristic")
        off = ~np.eye(k, dtype=bool)
        h = np.array([(big[i] - beta[i])[off[i]].min() for i in range(k)])
        g = np.array([(-big[i] - beta[i])[off[i]].max() for i in range(k)])
        np.testing.assert_allclose(res.h, h)
        np.testing.assert_allclose(res.g, g)
        par = pareto_mask(mu)
        assert (res.pareto == par).all()
        z1 = h[par].min() + eps
        z2 = np.maximum(h, g)[~par].min() if (~par).any() else np.inf
        assert res.z1 == pytest.approx(z1) and res.z2 == pytest.approx(z2)
        assert res.stop == (z1 >= 0 and z2 >= 0)


def test_ape_stop_rejects_bad_input():
    with pytest.raises(InvalidParameterError, match="counts must have shape"):
        ape_stop(EASY_MEANS, [1, 2], 0.1, 1.0)
    with pytest.raises(InvalidParameterError, match="every arm needs at least one sample"):
        ape_stop(EASY_MEANS, [1, 1, 1, 0, 1, 1], 0.1, 1.0)
    with pytest.raises(InvalidParameterError, match="epsilon must be"):
        ape_stop(EASY_MEANS, np.ones(6), 0.1, 1.0, epsilon=-0.1)


# ----------------------------------------------------------------- batch ≡ one-pull path


class _Streams:
    """Per-arm pre-drawn outcome stacks: the i-th pull of an arm gets the i-th outcome."""

    def __init__(self, means: np.ndarray, sigma: float, seed: int, depth: int = 5000) -> None:
        rng = np.random.default_rng(seed)
        self.values = means[:, None, :] + sigma * rng.normal(
            size=(means.shape[0], depth, means.shape[1])
        )


def _drive(agent, env, streams: _Streams, seed: int, batch: bool):
    """Run ``agent`` on ``env``'s public spec with outcomes from ``streams`` (no env sampling)."""
    _, info = env.reset(seed=0)
    spec = info["problem"]
    agent.reset(spec, np.random.default_rng(seed))
    used = np.zeros(spec.n_arms, dtype=np.int64)
    budget = spec.budget or spec.max_samples or 10**6
    agent.stream_counts, agent.stream_sums = {0: used.copy()}, {0: np.zeros_like(agent.sums)}
    while used.sum() < budget:
        if batch:
            counts = agent.select_batch()
            if counts is None:
                break
            sums = np.stack(
                [streams.values[a, used[a] : used[a] + c].sum(axis=0) for a, c in enumerate(counts)]
            )
            used += counts
            agent.observe_batch(counts, sums)
        else:
            arm = agent.select()
            if arm is None:
                break
            agent.observe(arm, streams.values[arm, used[arm]])
            used[arm] += 1
        if hasattr(agent, "phase_history") and agent.phase_history:
            r = agent.phase_history[-1].get("round", 0)
            agent.stream_counts.setdefault(r, agent.counts.copy())
            agent.stream_sums.setdefault(r, agent.sums.copy())
    return agent.recommend(), used


def _drive_pair(a, b, env, seed):
    means = env.unwrapped.model.means
    streams = _Streams(np.asarray(means).reshape(means.shape[0], -1), 0.5, seed)
    _drive(a, env, streams, seed, batch=False)
    _drive(b, env, streams, seed, batch=False)
    return a, b


@pytest.mark.parametrize(
    "make_agent, setting",
    [
        (EGESH, {"budget": 300}),
        (lambda: EGESH(forget=True), {"budget": 300}),
        (EGESR, {"budget": 300}),
        (EGESR, {"budget": 9}),
        (PSIUniform, {"budget": 301}),
        (PSIUniform, {"delta": 0.1, "max_samples": 3000}),
        (lambda: PSIUniform(threshold="heuristic"), {"delta": 0.1, "max_samples": 3000}),
    ],
)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_batch_path_equals_one_pull_path(make_agent, setting, seed):
    """Same samples per arm in the same order ⇒ the same decisions at the same counts."""
    env = _easy(sigma=0.5, **setting)
    streams = _Streams(EASY_MEANS, 0.5, seed)
    single, batch = make_agent(), make_agent()
    ans_s, used_s = _drive(single, env, streams, seed, batch=False)
    ans_b, used_b = _drive(batch, env, streams, seed, batch=True)
    assert ans_s == ans_b
    assert used_s.tolist() == used_b.tolist()
    hist_s = getattr(single, "phase_history", [])
    hist_b = getattr(batch, "phase_history", [])
    assert len(hist_s) == len(hist_b)
    for ps, pb in zip(hist_s, hist_b, strict=True):
        for key in ("active", "accepted", "rejected", "survivors"):
            assert list(ps[key]) == list(pb[key])
        np.testing.assert_allclose(ps["means"], pb["means"], rtol=1e-12)


def test_batch_and_single_runner_paths_agree_noiselessly():
    for agent, kw in (
        (EGESH, {"budget": 400}),
        (EGESR, {"budget": 400}),
        (PSIUniform, {"budget": 401}),
        (PSIUniform, {"delta": 0.1}),
    ):
        env = gym.make("LinearPSI-Synthetic-v0", K=16, sigma=0.0, **kw)
        a = run_episode(env, agent(), 0, batch=False)
        b = run_episode(env, agent(), 0, batch=True)
        assert (a.answer, a.samples, a.pulls) == (b.answer, b.samples, b.pulls)
