"""LinGapE (Xu, Honda & Sugiyama 2018): exact incremental statistics, the paper's rules checked
against brute force, confidence widths by hand, noiseless runs, δ-correctness."""

import math

import gymnasium as gym
import numpy as np
import pytest
from scipy import stats

import bandit_envs  # noqa: F401
from agents import check_agent
from agents.linear_bai.lingape import LinGapE, single_direction_design
from bandit_envs import run_episode
from bandit_envs.errors import InvalidParameterError
from bandit_envs.theory.design import transductive_design
from bandit_envs.theory.linalg import reduce_features


def custom(features, theta, sigma, **setting):
    return gym.make(
        "LinearBAI-Custom-v0",
        features=np.asarray(features, float),
        theta=np.asarray(theta, float),
        sigma=sigma,
        **setting,
    )


def drive(env, agent, pulls, seed=0):
    """Run the protocol by hand for at most ``pulls`` pulls; return the agent (not stopped)."""
    _, info = env.reset(seed=seed)
    agent.reset(info["problem"], np.random.default_rng(seed))
    for _ in range(pulls):
        arm = agent.select()
        if arm is None:
            break
        obs, *_ = env.step(arm)
        agent.observe(arm, obs)
    return agent


def brute_force(agent):
    """i_t, j_t, B(t) and the greedy arm from fresh inverses (no incremental state)."""
    spec = agent.spec
    z, _ = reduce_features(spec.features)
    lam = agent.ridge if agent.confidence == "self_normalized" else 0.0
    gram = (z.T * agent.counts) @ z + lam * np.eye(z.shape[1])
    inv = np.linalg.inv(gram)
    means = z @ inv @ (z.T @ agent.sums[:, 0])
    i = int(np.argmax(means))
    width = agent._width()
    index = np.array(
        [
            means[j] - means[i] + width * math.sqrt((z[i] - z[j]) @ inv @ (z[i] - z[j]))
            for j in range(len(z))
        ]
    )
    index[i] = -np.inf
    j = int(np.argmax(index))
    y = z[i] - z[j]
    after = [y @ np.linalg.inv(gram + np.outer(x, x)) @ y for x in z]
    return i, j, float(index[j]), int(np.argmin(after)), float(np.linalg.slogdet(gram)[1])


@pytest.mark.parametrize(
    "agent",
    [
        LinGapE(),
        LinGapE(selection="ratio"),
        LinGapE(confidence="self_normalized_ols"),
        LinGapE(selection="ratio", confidence="self_normalized_ols", ridge=0.3),
    ],
    ids=repr,
)
def test_lingape_passes_check_agent(agent):
    results = check_agent(agent)
    assert all(r.status in ("passed", "skipped") for r in results), results
    assert [r.check for r in results if r.status == "skipped"] == ["check_batch_equivalence"]


@pytest.mark.parametrize("n_arms", [6, 80], ids=["G-representation", "W-representation"])
@pytest.mark.parametrize("confidence", ["heuristic", "self_normalized", "self_normalized_ols"])
def test_incremental_state_and_decisions_equal_brute_force(n_arms, confidence):
    rng = np.random.default_rng(n_arms)
    features = rng.normal(size=(n_arms, 4))
    theta = rng.normal(size=4)
    best = int(np.argmax(features @ theta))  # a competitor with a tiny gap: no early stop
    u = theta / np.linalg.norm(theta)
    v = rng.normal(size=4)
    v -= (v @ u) * u
    features[best - 1] = features[best] + v / np.linalg.norm(v) - 1e-3 * u
    env = custom(features, theta, 1.0, delta=0.05, max_samples=10**6)
    agent = LinGapE(confidence=confidence, theta_bound=5.0, ridge=0.5)
    drive(env, agent, n_arms + 1500)  # crosses one exact refresh (every 1024 updates)
    assert agent.select() is not None
    i, j, index, greedy, logdet = brute_force(agent)
    assert (agent._best, agent._challenger) == (i, j)
    assert agent._index == pytest.approx(index, rel=1e-9, abs=1e-12)
    assert agent.select() == greedy
    assert agent._logdet == pytest.approx(logdet, rel=1e-10)
    assert agent.recommend() == frozenset({i})


def test_ratio_rule_tracks_the_single_direction_design():
    env = gym.make("LinearBAI-Soare-v0", d=3, omega=0.2, delta=0.05)
    agent = drive(env, LinGapE(selection="ratio"), 40)
    arm = agent.select()
    i, j = agent._best, agent._challenger
    z, _ = reduce_features(agent.spec.features)
    p = single_direction_design(z, z[i] - z[j])
    support = np.flatnonzero(p > 0)
    assert arm == support[np.argmin(agent.counts[support] / p[support])]


def test_single_direction_design_is_the_l1_design():
    # e1 - e2 in the standard basis: weights 1/2, 1/2 and value ||c||_1^2 = 4
    w = single_direction_design(np.eye(3), np.array([1.0, -1.0, 0.0]))
    assert w == pytest.approx([0.5, 0.5, 0.0])
    # Soare's instance: e1 - x3 is best measured through e2 (weight ≈ 1 - tan(ω/2)/(…))
    z, _ = reduce_features(np.array([[1.0, 0.0], [0.0, 1.0], [math.cos(0.1), math.sin(0.1)]]))
    y = z[0] - z[2]
    w = single_direction_design(z, y)
    value = float(y @ np.linalg.pinv((z.T * w) @ z) @ y)
    optimum = transductive_design(z, y, tol=1e-6)
    assert value == pytest.approx(optimum.value, rel=1e-4)
    assert w[1] > 0.9


def test_confidence_widths_by_hand():
    env = gym.make("LinearBAI-Soare-v0", d=2, omega=0.1, sigma=0.5, delta=0.05)
    common = dict(ridge=0.4, theta_bound=3.0)
    a = drive(env, LinGapE(confidence="heuristic", **common), 50)
    assert a._width() == pytest.approx(0.5 * math.sqrt(2 * math.log((1 + math.log(a.t)) / 0.05)))
    b = drive(env, LinGapE(confidence="self_normalized", **common), 50)
    gram = (b._z.T * b.counts) @ b._z + 0.4 * np.eye(2)
    expected = (
        0.5 * math.sqrt(2 * (0.5 * np.linalg.slogdet(gram)[1] - math.log(0.4) + math.log(1 / 0.05)))
        + math.sqrt(0.4) * 3.0
    )
    assert b._width() == pytest.approx(expected)
    c = drive(env, LinGapE(confidence="self_normalized_ols", **common), 50)
    gram = (c._z.T * c.counts) @ c._z
    gram0 = c._z.T @ c._z
    inner = (
        math.log(1.4 / 0.4)
        + 0.5 * (np.linalg.slogdet(gram)[1] - np.linalg.slogdet(gram0)[1])
        + math.log(1 / 0.05)
    )
    assert c._width() == pytest.approx(0.5 * math.sqrt(2 * 1.4 * inner))


@pytest.mark.parametrize("confidence", ["heuristic", "self_normalized_ols"])
@pytest.mark.parametrize("selection", ["greedy", "ratio"])
def test_noiseless_run_stops_after_the_first_round(selection, confidence):
    env = gym.make("LinearBAI-Soare-v0", d=4, omega=0.05, sigma=0.0)
    record = run_episode(env, LinGapE(selection=selection, confidence=confidence), 0)
    assert record.correct and record.stop_reason == "stopped" and record.samples == 5


def test_noiseless_ridge_run_identifies_the_best_arm():
    """The ridge estimate is biased, so the paper's bound needs more than one round."""
    env = custom(np.eye(3), [1.0, 0.5, 0.0], 0.0)
    record = run_episode(env, LinGapE(confidence="self_normalized", theta_bound=1.2), 0)
    assert record.correct and record.samples > 3


def test_positive_epsilon_stops_no_later_on_the_same_trajectory():
    env = gym.make("LinearBAI-Soare-v0", omega=0.3)
    for seed in range(5):
        exact = run_episode(env, LinGapE(), seed)
        loose = run_episode(env, LinGapE(epsilon=0.05), seed)
        assert loose.samples <= exact.samples


def test_delta_correct_on_an_easy_instance_100_seeds():
    """Default (heuristic) width: errors ≤ the 95% binomial quantile under error rate δ."""
    env = gym.make("LinearBAI-Soare-v0", omega=0.3, delta=0.1)
    records = [run_episode(env, LinGapE(), s) for s in range(100)]
    assert all(r.stop_reason == "stopped" for r in records)
    assert sum(not r.correct for r in records) <= stats.binom.ppf(0.95, 100, 0.1)


@pytest.mark.slow
@pytest.mark.parametrize(
    "agent",
    [
        LinGapE(),
        LinGapE(selection="ratio"),
        LinGapE(confidence="self_normalized_ols"),
        LinGapE(selection="ratio", confidence="self_normalized", theta_bound=2.0),
    ],
    ids=repr,
)
@pytest.mark.parametrize(
    "env_kwargs",
    [
        dict(id="LinearBAI-Soare-v0", omega=0.3, delta=0.1),
        dict(id="LinearBAI-Basis-v0", d=5, gap=0.5, delta=0.1),
    ],
    ids=["soare-w0.3", "basis-d5"],
)
def test_delta_correct_500_seeds(agent, env_kwargs):
    kw = dict(env_kwargs)
    env = gym.make(kw.pop("id"), **kw)
    records = [run_episode(env, agent.clone(), s) for s in range(500)]
    assert all(r.stop_reason == "stopped" for r in records)
    assert sum(not r.correct for r in records) <= stats.binom.ppf(0.99, 500, kw["delta"])


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (
            dict(selection="lucb"),
            "LinGapE: selection must be one of 'greedy', 'ratio'; got 'lucb'.",
        ),
        (
            dict(confidence="exact"),
            "LinGapE: confidence must be one of 'heuristic', 'self_normalized', "
            "'self_normalized_ols'; got 'exact'.",
        ),
        (dict(ridge=0.0), "LinGapE: ridge must be a finite float > 0; got 0.0."),
        (dict(epsilon=-0.1), "LinGapE: epsilon must be a finite float >= 0; got -0.1."),
        (
            dict(confidence="self_normalized"),
            "LinGapE: theta_bound (a bound S >= ||theta||) must be given when "
            "confidence='self_normalized'; got confidence='self_normalized', theta_bound=None.",
        ),
        (
            dict(theta_bound=-1.0),
            "LinGapE: theta_bound must be None or a finite float >= 0; got -1.0.",
        ),
    ],
)
def test_invalid_parameters_are_refused_at_reset(kwargs, message):
    env = gym.make("LinearBAI-Soare-v0")
    with pytest.raises(InvalidParameterError) as err:
        run_episode(env, LinGapE(**kwargs), 0)
    assert str(err.value) == message


def test_after_the_stop_observations_update_the_state_and_the_agent_stays_stopped():
    env = gym.make("LinearBAI-Soare-v0", d=2, omega=0.5, delta=0.1)
    agent = drive(env, LinGapE(), 10**5)
    assert agent.select() is None
    means, t = agent._means.copy(), agent.t
    for arm in (0, 1, 2, 1):
        agent.observe(arm, np.array([1.0]))
        assert agent.select() is None
    assert agent.t == t + 4 and not np.array_equal(agent._means, means)
    z, _ = reduce_features(agent.spec.features)
    inv = np.linalg.inv((z.T * agent.counts) @ z)
    np.testing.assert_allclose(agent._means, z @ inv @ (z.T @ agent.sums[:, 0]), rtol=1e-9)


def test_the_compiled_pull_needs_one_kernel_call_and_no_python_decision():
    """select() returns the arm the last observe's kernel call chose (no work of its own)."""
    env = custom(np.eye(4) + 0.1, [1.0, 0.9, 0.5, 0.2], 1.0, delta=0.05, max_samples=10**6)
    agent = drive(env, LinGapE(), 50)
    arm = agent.select()
    assert arm == agent._next >= 0 and agent.select() == arm
    assert np.shares_memory(agent.counts, agent._n) and np.shares_memory(agent.sums, agent._f)


@pytest.mark.parametrize("selection", ["greedy", "ratio"])
def test_a_copy_mid_episode_runs_on_identically(selection):
    import copy
    import pickle

    env = custom(np.eye(5) + 0.05, [1.0, 0.95, 0.6, 0.3, 0.1], 1.0, delta=0.05, max_samples=10**6)
    agent = drive(env, LinGapE(selection=selection), 60)
    twins = [copy.deepcopy(agent), pickle.loads(pickle.dumps(agent))]
    rng = np.random.default_rng(3)
    for _ in range(300):
        arm = agent.select()
        assert all(t.select() == arm for t in twins)
        if arm is None:
            break
        y = np.array([rng.normal()])
        for a in (agent, *twins):
            a.observe(arm, y)
    for t in twins:
        assert np.array_equal(t.counts, agent.counts) and np.array_equal(t._means, agent._means)
        assert np.shares_memory(t.counts, t._n) and not np.shares_memory(t._n, agent._n)
