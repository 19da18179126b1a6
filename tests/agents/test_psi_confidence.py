"""APE, Racing and PAL (spec 000 §3.9 (d)–(f), §7 fact 27): parameters, check_agent, noiseless
and easy runs, δ-correctness, APE's incremental state against a recomputation, sample counts."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import bandit_envs  # noqa: F401  (registers the ids)
from agents.checks import check_agent
from agents.psi_confidence import APE, PAL, Racing
from bandit_envs import run_episode
from bandit_envs.errors import IncompatibleAgentError, InvalidParameterError
from bandit_envs.pareto import ape_confidence, ape_stop, dominance_margins, pareto_set

#: an easy unstructured instance: K = 5, d = 2, S* = {0, 1, 2}, gaps ≥ 0.3.
EASY_MEANS = np.array([[1.0, 0.0], [0.0, 1.0], [0.7, 0.7], [0.3, 0.3], [0.2, 0.4]])
#: a linear one: K = 6, h = 3, d = 2.
LIN_X = np.array([
    [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0],
    [0.5, 0.5, 0.0], [0.2, 0.2, 0.2], [0.3, 0.0, 0.4],
])
LIN_THETA = np.array([[1.0, 0.0], [0.0, 1.0], [0.7, 0.7]])


def _easy(sigma=0.3, **kw):
    return gym.make("LinearPSI-Custom-v0", means=EASY_MEANS, sigma=sigma, delta=0.1, **kw)


def _linear(sigma=0.3, **kw):
    return gym.make("LinearPSI-Custom-v0", features=LIN_X, theta=LIN_THETA, sigma=sigma,
                    delta=0.1, **kw)


AGENTS = [APE(), APE(pull="least_sampled", threshold="heuristic"), Racing(),
          Racing(threshold="heuristic"), PAL(), PAL(constants="theory")]


# ----------------------------------------------------------------- parameters and capabilities


@pytest.mark.parametrize("agent, match", [
    (APE(pull="all"), "pull must be one of"),
    (APE(threshold="tight"), "threshold must be one of"),
    (Racing(threshold=3), "threshold must be one of"),
    (PAL(constants="tuned"), "constants must be one of"),
])
def test_parameters_are_validated_at_reset(agent, match):
    with pytest.raises(InvalidParameterError, match=match):
        run_episode(_easy(), agent, 0)


def test_capabilities_and_refusals():
    assert APE().get_params() == {"pull": "both", "threshold": "union"}
    assert PAL().get_params() == {"constants": "practical"}
    for agent in (APE(), Racing(), PAL()):
        with pytest.raises(IncompatibleAgentError):  # best-arm task
            run_episode(gym.make("LinearBAI-Soare-v0"), agent, 0)
        with pytest.raises(IncompatibleAgentError):  # fixed budget
            env = gym.make("LinearPSI-Custom-v0", means=EASY_MEANS, sigma=0.3, budget=100)
            run_episode(env, agent, 0)
    assert APE.capabilities.structures == frozenset({"none"})
    assert PAL.capabilities.structures == frozenset({"linear"})
    assert Racing.capabilities.batch and PAL.capabilities.batch and not APE.capabilities.batch


@pytest.mark.parametrize("agent", [
    APE(), Racing(), PAL(),
    pytest.param(APE(pull="least_sampled", threshold="heuristic"), marks=pytest.mark.slow),
    pytest.param(Racing(threshold="heuristic"), marks=pytest.mark.slow),
    pytest.param(PAL(constants="theory"), marks=pytest.mark.slow),
], ids=repr)
def test_check_agent_passes(agent):
    check_agent(agent)


# ----------------------------------------------------------------- runs


@pytest.mark.parametrize("agent", AGENTS, ids=repr)
def test_noiseless_and_easy_runs_return_the_pareto_set(agent):
    for env in (_easy(sigma=0.0), _linear(sigma=0.0), _easy(), _linear()):
        if "linear" not in agent.capabilities.structures and "none" not in \
                agent.capabilities.structures:
            continue
        rec = run_episode(env, agent.clone(), 3)
        assert rec.stop_reason == "stopped"
        assert rec.correct, (agent, env)
        # sample complexity counts every pull
        assert rec.samples == sum(rec.pulls)
        assert min(rec.pulls) >= 1


def test_noiseless_ape_stops_right_after_the_initial_round():
    rec = run_episode(_easy(sigma=0.0), APE(), 0)
    assert rec.samples == EASY_MEANS.shape[0]
    assert set(rec.answer) == pareto_set(EASY_MEANS)


def test_racing_and_pal_batch_equal_single_when_noiseless():
    for agent in (Racing(), PAL(), PAL(constants="theory")):
        a = run_episode(_linear(sigma=0.0), agent.clone(), 1, batch=False)
        b = run_episode(_linear(sigma=0.0), agent.clone(), 1, batch=True)
        assert (a.samples, a.answer, a.pulls) == (b.samples, b.answer, b.pulls)


def test_racing_rounds_pull_every_active_arm_once():
    agent = Racing()
    run_episode(_easy(), agent, 5)
    assert sorted(agent.accepted) == sorted(pareto_set(EASY_MEANS))
    assert sorted(agent.accepted + agent.rejected) == list(range(EASY_MEANS.shape[0]))
    # an arm's pulls equal the round in which it was classified: counts never exceed the rounds
    assert agent.counts.max() == agent._round


def _errors(agent, n, sigma=0.5):
    env = _easy(sigma=sigma)
    return sum(not run_episode(env, agent.clone(), s).correct for s in range(n))


@pytest.mark.parametrize("agent", [APE(), Racing()], ids=repr)
def test_delta_correct_on_an_easy_instance(agent):
    """Fact 27: error ≤ δ = 0.1 over 200 seeds (the union widths are provably δ-correct)."""
    errors = _errors(agent, 200, sigma=0.15)
    assert errors <= 0.1 * 200 * 0.5  # far below δ: the union bound is conservative


@pytest.mark.slow
@pytest.mark.parametrize("agent", [APE(), APE(pull="least_sampled"), APE(threshold="heuristic"),
                                   Racing(), Racing(threshold="heuristic")], ids=repr)
def test_delta_correct_many_seeds(agent):
    errors = _errors(agent, 500)
    assert errors <= 0.1 * 500


# ----------------------------------------------------------------- APE's incremental state


def _scratch(agent):
    """β, M̂ ∓ β, h and g recomputed from the agent's counts and sums."""
    counts = agent.counts.astype(float)
    means = agent.sums / counts[:, None]
    k, d = means.shape
    beta = ape_confidence(counts[:, None], counts[None, :], agent.spec.delta, 0.5,
                          threshold=agent.threshold, n_arms=k, n_objectives=d)
    big_m = dominance_margins(means)
    lower, upper = big_m - beta, big_m + beta
    np.fill_diagonal(lower, np.inf)
    np.fill_diagonal(upper, np.inf)
    return means, lower, upper


@pytest.mark.parametrize("threshold", ["union", "heuristic"])
def test_incremental_state_equals_recomputation(threshold):
    rng = np.random.default_rng(7)
    k, d = 12, 3
    means = rng.normal(size=(k, d))
    env = gym.make("LinearPSI-Custom-v0", means=means, sigma=0.5, delta=0.05)
    _, info = env.reset(seed=0)
    agent = APE(threshold=threshold)
    agent.reset(info["problem"], np.random.default_rng(0))
    for arm in range(k):  # the initial round
        agent.observe(arm, means[arm] + 0.5 * rng.normal(size=d))
    for step in range(600):
        # random pulls, biased towards a few arms so argmins move back and forth
        arm = int(rng.integers(3)) if rng.random() < 0.5 else int(rng.integers(k))
        agent.observe(arm, means[arm] + 0.5 * rng.normal(size=d))
        if step % 50 == 0 or step == 599:
            st = agent.state()
            mu, lower, upper = _scratch(agent)
            np.testing.assert_allclose(st["means"], mu, rtol=0, atol=1e-12)
            np.testing.assert_allclose(st["lower"], lower, rtol=1e-12, atol=1e-12)
            np.testing.assert_allclose(st["upper"], upper, rtol=1e-12, atol=1e-12)
            np.testing.assert_allclose(st["h"], lower.min(axis=1), rtol=1e-12, atol=1e-12)
            np.testing.assert_allclose(st["g"], -upper.min(axis=1), rtol=1e-12, atol=1e-12)
            # the kept argmin attains the row minimum (c_t)
            assert np.array_equal(st["lower"][np.arange(k), st["argmin"]], st["h"])
            ref = ape_stop(mu, agent.counts, agent.spec.delta, 0.5, threshold=threshold)
            np.testing.assert_allclose(st["h"], ref.h, rtol=1e-12, atol=1e-12)
            np.testing.assert_allclose(st["g"], ref.g, rtol=1e-12, atol=1e-12)


def test_ape_stops_exactly_when_ape_stop_says_so():
    """The agent's stopping decision matches :func:`ape_stop` at every test."""
    env = _easy(sigma=0.5)
    _, info = env.reset(seed=1)
    agent = APE()
    agent.reset(info["problem"], np.random.default_rng(1))
    rng = np.random.default_rng(2)
    tests = 0
    while True:
        pending = agent._pending is not None or agent.t < EASY_MEANS.shape[0]
        before = None if pending else ape_stop(agent.sums / agent.counts[:, None],
                                               agent.counts, 0.1, 0.5)
        arm = agent.select()
        if before is not None:
            tests += 1
            assert before.stop == (arm is None)
        if arm is None:
            break
        agent.observe(arm, EASY_MEANS[arm] + 0.3 * rng.normal(size=2))
    assert tests > 5
    assert agent.recommend() == frozenset(np.flatnonzero(before.pareto).tolist())


def test_ape_pull_rules():
    both = APE()
    run_episode(_easy(), both, 4)
    least = APE(pull="least_sampled")
    run_episode(_easy(), least, 4)
    # "both" pulls two arms per iteration after the initial round
    assert both.t - EASY_MEANS.shape[0] == 2 * (both.steps - 1)
    assert least.t - EASY_MEANS.shape[0] == least.steps - 1
