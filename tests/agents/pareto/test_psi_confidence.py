"""APE, Racing and PAL (as in the GEGE authors' code): parameters, check_agent, noiseless
and easy runs, δ-correctness, APE's incremental state against a recomputation, sample counts."""

from __future__ import annotations

import copy

import gymnasium as gym
import numpy as np
import pytest
from conftest import skip_without_data

import bandit_envs  # noqa: F401  (registers the ids)
from agents.checks import check_agent
from agents.pareto.psi_confidence import APE, PAL, Racing
from bandit_envs import run_episode
from bandit_envs.errors import IncompatibleAgentError, InvalidParameterError
from bandit_envs.theory.pareto import ape_confidence, ape_stop, dominance_margins, pareto_set

#: an easy unstructured instance: K = 5, d = 2, S* = {0, 1, 2}, gaps ≥ 0.3.
EASY_MEANS = np.array([[1.0, 0.0], [0.0, 1.0], [0.7, 0.7], [0.3, 0.3], [0.2, 0.4]])
#: a linear one: K = 6, h = 3, d = 2.
LIN_X = np.array(
    [
        [1.0, 0.0, 0.0],
        [0.0, 1.0, 0.0],
        [0.0, 0.0, 1.0],
        [0.5, 0.5, 0.0],
        [0.2, 0.2, 0.2],
        [0.3, 0.0, 0.4],
    ]
)
LIN_THETA = np.array([[1.0, 0.0], [0.0, 1.0], [0.7, 0.7]])


def _easy(sigma=0.3, **kw):
    return gym.make("LinearPSI-Custom-v0", means=EASY_MEANS, sigma=sigma, delta=0.1, **kw)


def _linear(sigma=0.3, **kw):
    return gym.make(
        "LinearPSI-Custom-v0", features=LIN_X, theta=LIN_THETA, sigma=sigma, delta=0.1, **kw
    )


AGENTS = [
    APE(),
    APE(pull="least_sampled", threshold="heuristic"),
    Racing(),
    Racing(threshold="heuristic"),
    PAL(),
    PAL(constants="theory"),
]


# ----------------------------------------------------------------- parameters and capabilities


@pytest.mark.parametrize(
    "agent, message",
    [
        (APE(pull="all"), "APE: pull must be one of 'both', 'least_sampled'; got 'all'."),
        (
            APE(threshold="tight"),
            "APE: threshold must be one of 'union', 'heuristic'; got 'tight'.",
        ),
        (Racing(threshold=3), "Racing: threshold must be one of 'union', 'heuristic'; got 3."),
        (
            PAL(constants="tuned"),
            "PAL: constants must be one of 'practical', 'theory'; got 'tuned'.",
        ),
    ],
)
def test_parameters_are_validated_at_reset(agent, message):
    with pytest.raises(InvalidParameterError) as info:
        run_episode(_easy(), agent, 0)
    assert str(info.value) == message


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


@pytest.mark.parametrize(
    "agent",
    [
        APE(),
        Racing(),
        PAL(),
        pytest.param(APE(pull="least_sampled", threshold="heuristic"), marks=pytest.mark.slow),
        pytest.param(Racing(threshold="heuristic"), marks=pytest.mark.slow),
        pytest.param(PAL(constants="theory"), marks=pytest.mark.slow),
    ],
    ids=repr,
)
def test_check_agent_passes(agent):
    check_agent(agent)


# ----------------------------------------------------------------- runs


@pytest.mark.parametrize("agent", AGENTS, ids=repr)
def test_noiseless_and_easy_runs_return_the_pareto_set(agent):
    for env in (_easy(sigma=0.0), _linear(sigma=0.0), _easy(), _linear()):
        if (
            "linear" not in agent.capabilities.structures
            and "none" not in agent.capabilities.structures
        ):
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
    """Error ≤ δ = 0.1 over 200 seeds (the union widths are provably δ-correct)."""
    errors = _errors(agent, 200, sigma=0.15)
    assert errors <= 0.1 * 200 * 0.5  # far below δ: the union bound is conservative


@pytest.mark.slow
@pytest.mark.parametrize(
    "agent",
    [
        APE(),
        APE(pull="least_sampled"),
        APE(threshold="heuristic"),
        Racing(),
        Racing(threshold="heuristic"),
    ],
    ids=repr,
)
def test_delta_correct_many_seeds(agent):
    errors = _errors(agent, 500)
    assert errors <= 0.1 * 500


# ----------------------------------------------------------------- APE's incremental state


def _scratch(agent):
    """β, M̂ ∓ β, h and g recomputed from the agent's counts and sums."""
    counts = agent.counts.astype(float)
    means = agent.sums / counts[:, None]
    k, d = means.shape
    beta = ape_confidence(
        counts[:, None],
        counts[None, :],
        agent.spec.delta,
        0.5,
        threshold=agent.threshold,
        n_arms=k,
        n_objectives=d,
    )
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
        before = (
            None
            if pending
            else ape_stop(agent.sums / agent.counts[:, None], agent.counts, 0.1, 0.5)
        )
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


# ----------------------------------------------------------------- APE's lazy state = recomputation


def _dense(counts, sums, delta, sigma, threshold, eps):
    """Every APE quantity recomputed from scratch (dense K × K), straight from the definitions."""
    counts = np.asarray(counts, dtype=float)
    means = sums / counts[:, None]
    k, d = means.shape
    beta = ape_confidence(
        counts[:, None],
        counts[None, :],
        delta,
        sigma,
        threshold=threshold,
        n_arms=k,
        n_objectives=d,
    )
    big_m = dominance_margins(means)
    lower, upper = big_m - beta, big_m + beta
    np.fill_diagonal(lower, np.inf)
    np.fill_diagonal(upper, np.inf)
    res = ape_stop(means, counts, delta, sigma, threshold=threshold, epsilon=eps)
    h, neg_g = lower.min(axis=1), upper.min(axis=1)
    b = int(np.argmax(np.where(h > 0.0, -np.inf, neg_g)))
    return res, b, int(np.argmin(lower[b])), lower, upper


def _reference_run(means, noise, sigma, delta, threshold, pull, eps, steps):
    """APE with every step recomputed from scratch, on the outcomes ``means[a] + noise[t]``."""
    k = means.shape[0]
    counts, sums, arms = np.zeros(k), np.zeros_like(means), []

    def draw(a):
        counts[a] += 1
        sums[a] += means[a] + noise[len(arms)]
        arms.append(a)

    for a in range(k):
        draw(a)
    while len(arms) < steps:
        res, b, c, _, _ = _dense(counts, sums, delta, sigma, threshold, eps)
        if res.stop:
            return arms, frozenset(np.flatnonzero(res.pareto).tolist())
        for a in (b, c) if pull == "both" else (b if counts[b] <= counts[c] else c,):
            draw(a)
    return arms, None


@pytest.mark.parametrize(
    "k, d, eps, threshold, pull",
    [
        (6, 2, 0.0, "union", "both"),
        (6, 2, 0.0, "heuristic", "least_sampled"),
        (9, 3, 0.25, "heuristic", "both"),
        (9, 1, 0.0, "union", "least_sampled"),
        (12, 2, 0.1, "union", "both"),
        (12, 2, 0.0, "heuristic", "both"),
    ],
)
def test_ape_pulls_equal_a_from_scratch_recomputation(k, d, eps, threshold, pull):
    """Same arms, same stopping time and answer as APE recomputed densely at every step."""
    rng = np.random.default_rng(100 * k + d)
    means = rng.normal(size=(k, d))
    sigma, delta, steps = 0.5, 0.1, 700
    noise = sigma * rng.normal(size=(steps + 2, d))
    ref_arms, ref_answer = _reference_run(means, noise, sigma, delta, threshold, pull, eps, steps)
    env = gym.make("LinearPSI-Custom-v0", means=means, sigma=sigma, delta=delta, epsilon=eps)
    _, info = env.reset(seed=0)
    agent = APE(pull=pull, threshold=threshold)
    agent.reset(info["problem"], np.random.default_rng(0))
    arms = []
    while len(arms) < len(ref_arms):
        arm = agent.select()
        if arm is None:
            break
        agent.observe(arm, means[arm] + noise[len(arms)])
        arms.append(arm)
    assert arms == ref_arms
    if ref_answer is not None:
        assert agent.select() is None
        assert agent.recommend() == ref_answer


@pytest.mark.parametrize("threshold, eps", [("union", 0.0), ("heuristic", 0.05)])
def test_ape_lazy_bounds_and_decisions_on_random_states(threshold, eps):
    """Random states (random pulls): the kept bounds bracket every row minimum, exact rows are
    exact, and the decisions (stop, b_t, c_t) equal those of a dense recomputation."""
    rng = np.random.default_rng(11)
    k, d, sigma, delta = 15, 2, 0.5, 0.05
    means = rng.normal(scale=0.6, size=(k, d))
    env = gym.make("LinearPSI-Custom-v0", means=means, sigma=sigma, delta=delta, epsilon=eps)
    _, info = env.reset(seed=0)
    agent = APE(threshold=threshold)
    agent.reset(info["problem"], np.random.default_rng(0))
    for arm in range(k):
        agent.observe(arm, means[arm] + sigma * rng.normal(size=d))
    inexact_seen = 0
    for step in range(1500):
        # a few arms pulled much more often, so that bounds go stale and argmins move
        arm = int(rng.integers(4)) if rng.random() < 0.6 else int(rng.integers(k))
        agent.observe(arm, means[arm] + sigma * rng.normal(size=d))
        if step % 25:
            continue
        agent._flush()
        flat = agent._h2.reshape(2 * k, k)
        true_min = flat.min(axis=1)
        at_arg = flat[np.arange(2 * k), agent._args]
        assert (agent._mins <= true_min).all()  # lower bounds (at most every entry)
        exact = agent._mins == at_arg
        assert np.array_equal(agent._mins[exact], true_min[exact])
        inexact_seen += int((~exact).sum())
        res, b, c, lower, upper = _dense(agent.counts, agent.sums, delta, sigma, threshold, eps)
        np.testing.assert_allclose(flat, np.vstack([lower, upper]), rtol=1e-12, atol=1e-12)
        probe = _twin(agent)  # select() changes the state: decide on a copy
        chosen = probe.select()
        if res.stop:
            assert chosen is None
            assert probe.recommend() == frozenset(np.flatnonzero(res.pareto).tolist())
        else:
            assert (chosen, probe._pending) == (b, c)
    assert inexact_seen > 0  # the lazy path was exercised


#: APE on a fixed instance with the implementation before the lazy incremental state: the
#: optimisations must not change a single decision (arms pulled, stopping time, answer).
PINNED_MEANS = np.array(
    [
        [0.6, 1.15],
        [-1.36, 0.22],
        [-0.78, 0.81],
        [-0.2, -1.58],
        [-0.63, -0.39],
        [0.05, -0.91],
        [0.13, 1.4],
        [0.4, -1.04],
        [-0.74, 1.26],
        [-0.69, 0.71],
    ]
)
PINNED = [
    ("both", "union", 0, (1317, 9, 54, 26, 13, 40, 2957, 636, 2248, 38)),
    ("both", "heuristic", 1, (271, 1, 9, 6, 3, 13, 442, 154, 334, 7)),
    ("least_sampled", "union", 1, (839, 7, 39, 17, 8, 55, 2030, 839, 2031, 33)),
    ("least_sampled", "heuristic", 0, (206, 3, 2, 7, 4, 9, 262, 206, 263, 8)),
]


@pytest.mark.parametrize("pull, threshold, seed, pulls", PINNED)
def test_ape_pinned_episodes(pull, threshold, seed, pulls):
    env = gym.make("LinearPSI-Custom-v0", means=PINNED_MEANS, sigma=0.5, delta=0.1)
    rec = run_episode(env, APE(pull=pull, threshold=threshold), seed)
    assert rec.pulls == pulls and rec.samples == sum(pulls)
    assert rec.answer == frozenset({0, 6}) and rec.stop_reason == "stopped"


@pytest.mark.parametrize(
    "threshold, samples",
    [
        ("heuristic", 14803),
        pytest.param("union", 176631, marks=pytest.mark.slow),
    ],
)
def test_ape_noc_pinned(threshold, samples):
    """NoC with the authors' notebook settings (δ = 0.1, σ = 0.5), seed 0: the sample counts
    recorded before the optimisations."""
    skip_without_data("LinearPSI-NoC-v0")
    env = gym.make("LinearPSI-NoC-v0", delta=0.1, sigma=0.5)
    rec = run_episode(env, APE(threshold=threshold), 0)
    assert rec.samples == samples
    assert rec.correct and rec.answer == frozenset({0, 140, 164, 180})


def _twin(agent):
    """A deep copy of a running agent (through its ``__getstate__`` / ``__setstate__``)."""
    return copy.deepcopy(agent, memo={id(agent.spec): agent.spec})


def test_ape_copies_mid_episode():
    """The per-episode buffers are views: a copy rebuilds them and runs on identically."""
    env = _easy()
    _, info = env.reset(seed=0)
    rng = np.random.default_rng(3)
    agent = APE()
    agent.reset(info["problem"], np.random.default_rng(0))
    for _ in range(40):
        arm = agent.select()
        agent.observe(arm, EASY_MEANS[arm] + 0.5 * rng.normal(size=2))
    twin = _twin(agent)
    assert twin._fast is not agent._fast and np.shares_memory(twin._fast.flat, twin._h2)
    assert not np.shares_memory(twin._fast.flat, agent._h2)
    for _ in range(200):
        arm = agent.select()
        assert twin.select() == arm
        if arm is None:
            break
        y = EASY_MEANS[arm] + 0.5 * rng.normal(size=2)
        agent.observe(arm, y)
        twin.observe(arm, y)
    assert np.array_equal(agent.state()["lower"], twin.state()["lower"])
