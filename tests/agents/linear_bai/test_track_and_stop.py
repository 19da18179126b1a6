"""LinearTrackAndStop (Jedra & Proutière 2020): thresholds, state, sampling, stopping, errors."""

from __future__ import annotations

import math

import gymnasium as gym
import numpy as np
import pytest

import bandit_envs  # noqa: F401
from agents import check_agent
from agents.linear_bai.track_and_stop import LinearTrackAndStop, spanning_subset
from bandit_envs import run_episode
from bandit_envs.errors import InvalidParameterError
from bandit_envs.theory.thresholds import (
    glr_best_arm,
    glr_from_norms,
    loglog_heuristic_threshold,
    self_normalized_terms,
    self_normalized_threshold,
)

EASY = {"features": [[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]], "theta": [1.0, 0.0]}
#: faster design solves (the shared solver takes ~0.1 s per solve on these small instances); the
#: stopping rule, which carries δ-correctness, is the same as at the defaults
FAST = {"design_tol": 0.05, "recompute_ratio": 0.5}


def _custom(sigma=1.0, **kw):
    return gym.make("LinearBAI-Custom-v0", **{**EASY, **kw}, sigma=sigma)


# ----------------------------------------------------------------------------- thresholds


def test_glr_from_norms_matches_glr_best_arm():
    rng = np.random.default_rng(0)
    for _ in range(50):
        k, h = rng.integers(2, 8), rng.integers(1, 5)
        x = rng.normal(size=(k, h))
        theta = rng.normal(size=h)
        m = rng.normal(size=(h, h))
        inv = np.linalg.inv(m @ m.T + 0.1 * np.eye(h))
        sigma = float(rng.uniform(0.1, 2.0))
        best, z = glr_best_arm(x, theta, inv, sigma)
        means = x @ theta
        diff = x[best] - x
        norms = np.einsum("ij,jk,ik->i", diff, inv, diff)
        assert glr_from_norms(means, best, norms, sigma) == pytest.approx(z, rel=1e-10)
    assert glr_from_norms(np.array([1.0, 0.0]), 0, np.array([0.0, 1.0]), 0.0) == math.inf
    assert glr_from_norms(np.array([1.0, 1.0]), 0, np.array([0.0, 1.0]), 1.0) == 0.0


def test_self_normalized_threshold_formula():
    gram = np.diag([4.0, 9.0])
    log_det, lmin = self_normalized_terms(gram, reg=2.0)
    assert log_det == pytest.approx(math.log(3.0) + math.log(5.5))
    assert lmin == pytest.approx(4.0)
    beta = self_normalized_threshold(log_det, lmin, 0.05, reg=2.0)
    assert beta == pytest.approx(1.5 * (math.log(20.0) + 0.5 * log_det))
    # a lower bound of λ_min only makes the threshold larger (still valid)
    assert self_normalized_threshold(log_det, 1.0, 0.05, reg=2.0) > beta
    assert self_normalized_threshold(log_det, 0.0, 0.05) == math.inf
    with pytest.raises(InvalidParameterError):
        self_normalized_threshold(1.0, 1.0, 1.5)
    assert loglog_heuristic_threshold(1, 0.1) == pytest.approx(math.log(10.0))
    expected = math.log((1 + math.log(100)) / 0.01)
    assert loglog_heuristic_threshold(100, 0.01) == pytest.approx(expected)


# ----------------------------------------------------------------------------- building blocks


def test_spanning_subset_is_a_basis():
    rng = np.random.default_rng(1)
    z = rng.normal(size=(12, 4))
    idx = spanning_subset(z)
    assert idx.shape == (4,) and len(set(idx.tolist())) == 4
    assert np.linalg.matrix_rank(z[idx]) == 4
    assert spanning_subset(np.eye(3)).tolist() == [0, 1, 2]


def test_sherman_morrison_state_matches_exact():
    env = gym.make("LinearBAI-Soare-v0", d=3, omega=0.3, budget=700)
    agent = LinearTrackAndStop()
    run_episode(env, agent, 3)
    gram = (agent._z.T * agent.counts) @ agent._z
    inv = np.linalg.inv(gram)
    assert np.allclose(agent._p, agent._z @ inv, atol=1e-10)
    assert np.allclose(agent._q, np.einsum("ij,jk,ik->i", agent._z, inv, agent._z), atol=1e-10)
    theta = np.linalg.solve(gram, agent._z.T @ agent.sums[:, 0])
    assert np.allclose(agent._p @ agent._b, agent._z @ theta, atol=1e-9)
    # the proven threshold's log det(I + A/η) and (A + ηI)⁻¹ (determinant lemma, O(h²) a pull)
    assert agent._logdet == pytest.approx(self_normalized_terms(gram, 1.0)[0], rel=1e-10)
    assert np.allclose(agent._minv, np.linalg.inv(gram + np.eye(3)), atol=1e-12)


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        (
            {"threshold": "bogus"},
            "threshold must be one of 'proven', 'heuristic' or a finite float > 0; got 'bogus'.",
        ),
        (
            {"threshold": -1.0},
            "threshold must be one of 'proven', 'heuristic' or a finite float > 0; got -1.0.",
        ),
        ({"tracking": "E"}, "tracking must be one of 'C', 'D'; got 'E'."),
        ({"forced": "none"}, "forced must be one of 'spanning', 'g_optimal'; got 'none'."),
        (
            {"exploration_constant": -0.5},
            "exploration_constant must be None or a finite float >= 0; got -0.5.",
        ),
        ({"reg": 0.0}, "reg must be a finite float > 0; got 0.0."),
        ({"recompute_ratio": -1}, "recompute_ratio must be a finite float >= 0; got -1."),
        ({"design_tol": 1.0}, "design_tol must be a float in (0, 1); got 1.0."),
        ({"design_max_iter": 0}, "design_max_iter must be None or an integer >= 1; got 0."),
        ({"solver": "fast"}, "solver must be one of 'auto', 'certified', 'warm'; got 'fast'."),
    ],
)
def test_invalid_parameters(kwargs, fragment):
    agent = LinearTrackAndStop(**kwargs)
    with pytest.raises(InvalidParameterError) as info:
        run_episode(_custom(delta=0.1), agent, 0)
    assert str(info.value) == f"LinearTrackAndStop: {fragment}"


# ----------------------------------------------------------------------------- behaviour


def test_check_agent_fast_settings():
    # the default design tolerance is checked in the slow test below (the shared design solver
    # takes ~0.1 s per solve on some probe problems)
    check_agent(LinearTrackAndStop(**FAST))


@pytest.mark.slow
def test_check_agent_defaults():
    check_agent(LinearTrackAndStop())
    check_agent(LinearTrackAndStop(threshold="heuristic", tracking="D", forced="g_optimal"))


def test_noiseless_run_stops_after_a_spanning_set():
    features = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [0.9, 0.1, 0.0]])
    env = gym.make(
        "LinearBAI-Custom-v0", features=features, theta=[1.0, 0.5, 0.2], sigma=0.0, delta=0.01
    )
    for threshold in ("proven", "heuristic"):
        rec = run_episode(env, LinearTrackAndStop(threshold=threshold), 0)
        assert rec.correct and rec.stop_reason == "stopped"
        assert rec.samples == 3  # the spanning set, then Z = inf


def test_stopping_rule_at_the_stop():
    agent = LinearTrackAndStop(threshold="heuristic")
    rec = run_episode(_custom(delta=0.05), agent, 4)
    z, beta = agent.statistic
    assert rec.stop_reason == "stopped" and z >= beta
    assert beta == pytest.approx(loglog_heuristic_threshold(rec.samples, 0.05))
    agent = LinearTrackAndStop()
    rec = run_episode(_custom(delta=0.05), agent, 4)
    z, beta = agent.statistic
    gram = (agent._z.T * agent.counts) @ agent._z
    log_det, lmin = self_normalized_terms(gram)
    assert z >= beta >= self_normalized_threshold(log_det, lmin, 0.05) - 1e-9


def test_lazy_recomputation_count():
    env = gym.make("LinearBAI-Soare-v0", delta=0.01)
    agent = LinearTrackAndStop(threshold="heuristic")
    rec = run_episode(env, agent, 0)
    tau = rec.samples
    bound = math.log(tau) / math.log(1.1) + 2 * math.sqrt(tau) + 5
    assert 1 <= agent.design_solves <= bound
    every = LinearTrackAndStop(threshold="heuristic", recompute_ratio=0.0)
    env_b = gym.make("LinearBAI-Soare-v0", budget=200)
    run_episode(env_b, every, 0)
    assert every.design_solves == 200 - 2  # every pull once A_t is invertible (after e1, e2)


def test_forced_exploration_keeps_lambda_min_growing():
    # the optimal design puts (almost) no weight on e3: only forced exploration samples it
    features = np.array(
        [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [math.cos(0.3), math.sin(0.3), 0.0]]
    )
    env = gym.make(
        "LinearBAI-Custom-v0", features=features, theta=[1.0, 0.0, 0.0], sigma=1.0, delta=1e-3
    )
    agent = LinearTrackAndStop(threshold="heuristic")
    rec = run_episode(env, agent, 2)
    tau = rec.samples
    gram = (agent._z.T * agent.counts) @ agent._z
    c = agent._c
    assert np.linalg.eigvalsh(gram)[0] >= 0.5 * c * math.sqrt(tau)
    assert rec.pulls[2] >= 0.5 * c * math.sqrt(tau)
    assert agent.forced_pulls <= 3 * (c * math.sqrt(tau) + 2)


def test_allocation_converges_to_oracle_weights():
    env = gym.make("LinearBAI-Soare-v0", delta=1e-8)
    oracle = env.unwrapped.complexity()["oracle_weights"]
    for seed in (0, 1):
        rec = run_episode(env, LinearTrackAndStop(threshold="heuristic"), seed)
        assert rec.correct
        empirical = np.asarray(rec.pulls) / rec.samples
        assert np.max(np.abs(empirical - oracle)) < 0.03, (empirical, oracle)


def test_fixed_budget_recommends_the_best_arm():
    env = _custom(budget=300)
    wrong = sum(not run_episode(env, LinearTrackAndStop(**FAST), s).correct for s in range(10))
    assert wrong <= 1


def _error_count(agent_kwargs, seeds, delta=0.1):
    env = _custom(delta=delta)
    wrong = 0
    for seed in range(seeds):
        rec = run_episode(env, LinearTrackAndStop(**agent_kwargs), seed)
        assert rec.stop_reason == "stopped"
        wrong += not rec.correct
    return wrong


def test_delta_correct_fast():
    # 100 seeds at δ = 0.1: P(Binomial(100, 0.1) ≥ 19) < 0.01
    assert _error_count(FAST, 100) <= 18


@pytest.mark.slow
@pytest.mark.parametrize("threshold", ["proven", "heuristic"])
def test_delta_correct_500_seeds(threshold):
    # P(Binomial(500, 0.1) ≥ 68) < 0.01
    assert _error_count({"threshold": threshold}, 500) <= 67


# ----------------------------------------------------------------------------- warm re-solves


def _wide(k=200, h=4, seed=3):
    """K > 150 unit-norm arms (``solver="auto"`` re-solves warm), best arm clear of the rest."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((k, h))
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    theta = 2.0 * x[0]
    return gym.make("LinearBAI-Custom-v0", features=x, theta=theta, sigma=1.0, delta=0.05)


def _record(agent, env, seed):
    rec = run_episode(env, agent, seed, batch=False)
    return rec.samples, rec.correct, rec.answer, agent.design_solves, agent.allocation.tolist()


def test_auto_is_certified_up_to_150_arms_and_warm_above():
    small = _custom(delta=0.05)
    for seed in range(3):
        assert _record(LinearTrackAndStop(), small, seed) == _record(
            LinearTrackAndStop(solver="certified"), small, seed
        )
    wide = _wide()
    auto = _record(LinearTrackAndStop(threshold="heuristic"), wide, 0)
    warm = _record(LinearTrackAndStop(threshold="heuristic", solver="warm"), wide, 0)
    certified = _record(LinearTrackAndStop(threshold="heuristic", solver="certified"), wide, 0)
    assert auto == warm
    assert auto[1] and certified[1]
    assert auto[0] != certified[0]  # a different sampling sequence (the allocations differ)


def test_warm_resolves_take_few_frank_wolfe_steps(monkeypatch):
    import agents.linear_bai.track_and_stop as tas

    calls = []
    real = tas.transductive_design

    def spy(*args, **kwargs):
        result = real(*args, **kwargs)
        calls.append((kwargs.get("init") is None, kwargs.get("finish", True), result))
        return result

    monkeypatch.setattr(tas, "transductive_design", spy)
    agent = LinearTrackAndStop(threshold="heuristic", solver="warm", design_max_iter=4)
    rec = run_episode(_wide(), agent, 1, batch=False)
    assert rec.correct and agent.design_solves == len(calls) > 3
    first, rest = calls[0], calls[1:]
    assert first[0] and first[1]  # the first solve is certified, from the uniform design
    for cold, finish, result in rest:
        assert not cold and not finish and result.iterations <= 4
        assert 0.0 <= result.lower_bound <= result.value
    assert abs(sum(agent.allocation) - 1.0) < 1e-12 and min(agent.allocation) >= 0.0


def test_warm_solver_on_small_instances_stays_delta_correct():
    env = _custom(delta=0.1)
    wrong = sum(
        not run_episode(env, LinearTrackAndStop(solver="warm", **FAST), seed).correct
        for seed in range(30)
    )
    assert wrong == 0  # the proven threshold's error rate is far below δ (the δ-audit measures it)
