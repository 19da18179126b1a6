"""The all-ε-good ids (Li, Ma, Hua & Zhu 2025): Adaptive, Static, FreeWilson (synthetic), Custom."""

import re
import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import bandit_envs  # noqa: F401
from bandit_envs import InvalidInstanceError, InvalidParameterError
from bandit_envs.envs.all_eps_good import (
    adaptive_instance,
    free_wilson_features,
    free_wilson_instance,
)
from bandit_envs.theory.eps_good import eps_good_gaps
from bandit_envs.theory.linalg import span_basis

IDS = [
    "LinearEpsGood-Adaptive-v0",
    "LinearEpsGood-Static-v0",
    "LinearEpsGood-FreeWilson-v0",
    "LinearEpsGood-Custom-v0",
]
# The observation space is Box(-inf, inf) (docs/concepts.md): only these two notes are allowed.
ALLOWED_WARNINGS = (
    "A Box observation space minimum value is -infinity",
    "A Box observation space maximum value is infinity",
)


# ------------------------------------------------------------------ every id, the contract


@pytest.mark.parametrize("env_id", IDS)
@pytest.mark.parametrize("setting", [{}, {"budget": 50}])
def test_gymnasium_check_env(env_id, setting):
    env = gym.make(env_id, **setting)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env.unwrapped, skip_render_check=False)
    unexpected = [
        str(w.message) for w in caught if not any(a in str(w.message) for a in ALLOWED_WARNINGS)
    ]
    assert not unexpected, unexpected


@pytest.mark.parametrize(
    "env_id, k, delta",
    [
        ("LinearEpsGood-Adaptive-v0", None, 0.05),
        ("LinearEpsGood-Static-v0", 8, 0.05),
        ("LinearEpsGood-FreeWilson-v0", 960, 0.1),
        ("LinearEpsGood-Custom-v0", 2, 0.05),
    ],
)
def test_defaults_spec_and_settings(env_id, k, delta):
    env = gym.make(env_id).unwrapped
    spec = env.problem
    assert spec.task == "all_eps_good" and spec.setting == "fixed_confidence"
    assert spec.delta == delta and spec.noise_std == 1.0 and spec.structure == "linear"
    assert spec.epsilon == env.task.epsilon > 0 and spec.extras["multiplicative"] is False
    assert k is None or spec.n_arms == k
    assert not any(name in ("theta", "means") for name in vars(spec))
    fb = gym.make(env_id, budget=7).unwrapped
    assert fb.problem.setting == "fixed_budget" and fb.problem.budget == 7
    assert gym.make(env_id, delta=0.2, max_samples=99).unwrapped.problem.max_samples == 99
    with pytest.raises(InvalidParameterError, match="give exactly one of delta="):
        gym.make(env_id, delta=0.1, budget=7)


@pytest.mark.parametrize("env_id", IDS)
def test_seeding_and_the_batch_path(env_id):
    kw = {"sites": (2, 3, 2), "n_good": 3} if env_id == "LinearEpsGood-FreeWilson-v0" else {}
    env = gym.make(env_id, **kw).unwrapped
    k = env.problem.n_arms
    arms = np.arange(12) % k

    def run(seed):
        env.reset(seed=seed)
        singles = np.array([env.step(int(a))[0] for a in arms])
        env.reset(seed=seed)
        return singles, env.step_batch(np.full(k, 3, dtype=np.int64))[0]

    a, b = run(3), run(3)
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])
    assert not np.allclose(run(4)[0], a[0])
    # noiseless: the batch sums are exactly counts x means
    quiet = gym.make(env_id, sigma=0.0, **kw).unwrapped
    quiet.reset(seed=0)
    counts = np.arange(1, k + 1, dtype=np.int64)
    sums = quiet.step_batch(counts)[0]
    np.testing.assert_allclose(sums[:, 0], counts * quiet.model.means[:, 0], rtol=1e-12)


def test_batch_sums_have_the_right_mean_and_variance():
    """The batch path: n pulls summed have mean n·μ and variance n·σ²."""
    env = gym.make("LinearEpsGood-Static-v0", m_tilde=4, sigma=2.0).unwrapped
    env.reset(seed=1)
    n = 50
    draws = np.array([env.step_batch(np.full(8, n, dtype=np.int64))[0][:, 0] for _ in range(400)])
    mu = env.model.means[:, 0]
    np.testing.assert_allclose(draws.mean(axis=0), n * mu, atol=4 * np.sqrt(n * 4 / 400))
    np.testing.assert_allclose(draws.var(axis=0), n * 4.0, rtol=0.25)


@pytest.mark.parametrize("setting", [{"delta": 0.05}, {"budget": 40}])
def test_noiseless_episodes_return_the_good_set_in_both_settings(setting):
    env = gym.make("LinearEpsGood-Adaptive-v0", sigma=0.0, m_tilde=3, **setting).unwrapped
    env.reset(seed=0)
    k = env.problem.n_arms
    sums = env.step_batch(np.full(k, 2, dtype=np.int64))[0]
    answer = env.task.empirical_answer(sums[:, 0] / 2)
    if "budget" in setting:  # spend the rest of the budget, then any action is graded
        while env.samples < 40:
            env.step(0)
        _, reward, terminated, truncated, info = env.step(0)
        assert info["stop_reason"] == "budget" and not info["correct"]  # graded as the empty set
        env.reset(seed=0)
        env.step_batch(np.full(k, 2, dtype=np.int64))
    _, reward, terminated, truncated, info = env.step(env.stop_action(answer))
    assert terminated and not truncated and info["correct"] and reward == 1.0
    assert info["answer"] == frozenset(range(3)) == info["true_answer"]
    c = info["complexity"]
    assert c["good_set"] == (0, 1, 2) and c["converged"]
    assert c["T_star"] == 0.0 and c["oracle_weights"].sum() == pytest.approx(1.0)  # sigma = 0


def test_max_samples_truncates():
    env = gym.make("LinearEpsGood-Static-v0", max_samples=5).unwrapped
    env.reset(seed=0)
    out = [env.step(0) for _ in range(5)]
    assert out[-1][3] and out[-1][4]["stop_reason"] == "max_samples" and not out[-1][4]["correct"]


# ----------------------------------------------------------- Adaptive (Sec. 7.1, App. EC.12.1)


@pytest.mark.parametrize("m_tilde", [1, 2, 3, 4, 5])
def test_adaptive_construction_facts(m_tilde):
    """EC.12.1 with our fix of its on-threshold arm (disturbing arms at X̃ − iε/n): unit arms,
    G = {e_1..e_m}, alpha = eps/m, beta = eps/(6 - m)."""
    env = gym.make(
        "LinearEpsGood-Adaptive-v0", d=8, epsilon=0.2, m_tilde=m_tilde, x_tilde=1.3
    ).unwrapped
    x = env.problem.features
    assert x.shape == (8 + 6 - m_tilde, 8)
    np.testing.assert_allclose(np.linalg.norm(x, axis=1), 1.0)
    c = env.complexity()
    assert c["good_set"] == tuple(range(m_tilde)) and c["threshold"] == pytest.approx(1.3)
    assert c["alpha_eps"] == pytest.approx(0.2 / m_tilde)
    assert c["beta_eps"] == pytest.approx(0.2 / (6 - m_tilde))
    mu = env.model.means[:, 0]
    np.testing.assert_allclose(
        np.sort(mu[8:]), 1.3 - 0.2 * np.arange(6 - m_tilde, 0, -1) / (6 - m_tilde)
    )


def test_adaptive_table_1_values_through_the_env():
    env = gym.make("LinearEpsGood-Adaptive-v0", epsilon=0.2, m_tilde=4, x_tilde=1.0).unwrapped
    c = env.complexity()
    assert c["T_star"] == pytest.approx(3.75e3, rel=1e-2) and c["R_upper"] == 7
    assert env.problem.extras["m_hint"] == 4.0 and env.problem.extras["threshold_hint"] == 1.0


def test_paper_literal_puts_an_arm_on_the_threshold_and_is_refused():
    x, theta = adaptive_instance(8, 4, 1.0, 0.1, paper_literal=True)
    mu = x @ theta
    assert mu[-1] == pytest.approx(mu[0] - 0.1, abs=1e-12)  # x_n sits on the threshold
    with pytest.raises(InvalidInstanceError) as err:
        gym.make("LinearEpsGood-Adaptive-v0", paper_literal=True)
    text = str(err.value)
    assert text.startswith(
        "LinearEpsGood-Adaptive-v0 (paper_literal=True): the printed "
        "construction (App. EC.12.1) puts the last disturbing arm"
    )
    assert (
        "exactly on the threshold X̃ = 1.010296768001436. AllEpsilonGood: arms 9 have means "
        "within" in text
    )  # the task's own error: arm 9 = x_n (K = 8 + 2 at m̃ = 4)


def test_instance_seed_draws_m_tilde_and_x_tilde_reproducibly():
    infos = [
        gym.make("LinearEpsGood-Adaptive-v0", instance_seed=s).unwrapped.instance_info
        for s in range(60)
    ]
    m_draws = [i["m_tilde"] for i in infos]
    x_draws = [i["x_tilde"] for i in infos]
    assert set(m_draws) <= {1, 2, 3, 4, 5} and len(set(m_draws)) >= 4
    assert all(0.5 <= v <= 1.5 for v in x_draws) and np.std(x_draws) == pytest.approx(0.1, 0.5)
    again = gym.make("LinearEpsGood-Adaptive-v0", instance_seed=7).unwrapped
    assert again.instance_info == infos[7]
    np.testing.assert_array_equal(
        again.problem.features,
        gym.make("LinearEpsGood-Adaptive-v0", instance_seed=7).unwrapped.problem.features,
    )
    # giving m_tilde explicitly does not move the X~ draw (independent streams)
    fixed = gym.make("LinearEpsGood-Adaptive-v0", instance_seed=7, m_tilde=2).unwrapped
    assert fixed.instance_info["x_tilde"] == infos[7]["x_tilde"]
    exact = gym.make("LinearEpsGood-Adaptive-v0", m_var=0.0, x_std=0.0).unwrapped
    assert exact.instance_info["m_tilde"] == 4 and exact.instance_info["x_tilde"] == 1.0


# ------------------------------------------------------------- Static (Sec. 7.1, App. EC.12.2)


def test_static_construction_and_values():
    env = gym.make("LinearEpsGood-Static-v0", d=8, m_tilde=4).unwrapped
    np.testing.assert_array_equal(env.problem.features, np.eye(8))
    c = env.complexity()
    assert env.problem.epsilon == 0.5 and c["alpha_eps"] == c["beta_eps"] == 0.5
    assert c["R_upper"] == 3 and c["good_set"] == (0, 1, 2, 3)
    assert c["T_star"] == pytest.approx(120.0, abs=0.05)
    assert env.problem.extras["threshold_hint"] == 0.5
    big = gym.make("LinearEpsGood-Static-v0", d=16, m_tilde=4, Delta=2.0).unwrapped
    assert big.problem.epsilon == 1.0
    assert big.complexity()["T_star"] == pytest.approx(207.5 / 4, rel=1e-2)  # T* ∝ 1/Δ²
    drawn = {
        gym.make("LinearEpsGood-Static-v0", d=12, instance_seed=s).unwrapped.instance_info[
            "m_tilde"
        ]
        for s in range(40)
    }
    assert drawn <= set(range(1, 12)) and len(drawn) >= 4


# ---------------------------------------------------------------------- Free-Wilson (Sec. 7.2)


def test_free_wilson_structure_rank_and_twenty_good_arms():
    x = free_wilson_features()
    assert x.shape == (960, 21) and 960 == 4 * 5 * 4 * 3 * 4
    assert span_basis(x).shape[1] == 16  # each site's one-hot block sums to the intercept
    np.testing.assert_array_equal(x.sum(axis=1), 6.0)  # intercept + one substituent per site
    assert len({tuple(row) for row in x}) == 960
    env = gym.make("LinearEpsGood-FreeWilson-v0").unwrapped
    mu = np.sort(env.model.means[:, 0])[::-1]
    eps = env.problem.epsilon
    assert mu[0] - mu[19] < eps < mu[0] - mu[20]  # strictly between the 20th and 21st gap
    assert mu[19] - mu[20] >= 0.5
    g = eps_good_gaps(
        env.model.means[:, 0], eps
    )  # T* of this instance: tests/bandit_envs/theory/test_eps_good_gaps.py
    assert len(g.good_set) == 20 and g.alpha == pytest.approx(g.beta) and g.alpha >= 0.25
    assert env._true_answer == frozenset(g.good_set)
    assert env.instance_info["synthetic"] is True and env.problem.extras["m_hint"] == 20.0


def test_free_wilson_instance_seed_and_keywords():
    a = free_wilson_instance(instance_seed=3)
    b = free_wilson_instance(instance_seed=3)
    np.testing.assert_array_equal(a[1], b[1])
    assert a[2] == b[2]
    assert not np.allclose(free_wilson_instance(instance_seed=4)[1], a[1])
    small = gym.make("LinearEpsGood-FreeWilson-v0", sites=(2, 3), n_good=2).unwrapped
    assert small.problem.n_arms == 6 and small.problem.feature_dim == 6
    assert len(small.complexity()["good_set"]) == 2


# ---------------------------------------------------------------------------- Custom


def test_custom_linear_unstructured_misspecified_and_multiplicative():
    lin = gym.make(
        "LinearEpsGood-Custom-v0", features=np.eye(3), theta=[1.0, 0.9, 0.2], epsilon=0.3
    ).unwrapped
    assert lin.instance_info["kind"] == "linear" and lin.complexity()["good_set"] == (0, 1)
    un = gym.make(
        "LinearEpsGood-Custom-v0", means=[1.0, 0.9, 0.2], epsilon=0.3, budget=10
    ).unwrapped
    np.testing.assert_array_equal(un.problem.features, np.eye(3))
    assert un.complexity()["T_star"] == pytest.approx(lin.complexity()["T_star"], rel=1e-4)
    mis = gym.make(
        "LinearEpsGood-Custom-v0",
        features=[[1.0], [2.0], [3.0]],
        means=[1.0, 0.9, 0.2],
        epsilon=0.3,
    ).unwrapped
    assert mis.problem.structure == "misspecified_linear"
    assert mis.complexity()["T_star"] == pytest.approx(un.complexity()["T_star"], rel=1e-4)
    mult = gym.make(
        "LinearEpsGood-Custom-v0", means=[2.0, 1.5, 0.5], epsilon=0.5, multiplicative=True
    ).unwrapped
    assert mult.problem.extras["multiplicative"] is True
    assert mult.complexity()["good_set"] == (0, 1)
    toy = gym.make("LinearEpsGood-Custom-v0").unwrapped  # e_1, e_2, θ = (1, 0), ε = 0.5
    assert toy.complexity()["T_star"] == pytest.approx(32.0, abs=1e-3)


@pytest.mark.parametrize(
    "env_id, kwargs, error, message",
    [
        (
            "LinearEpsGood-Adaptive-v0",
            {"m_tilde": 6},
            InvalidParameterError,
            "LinearEpsGood-Adaptive-v0: m_tilde must be an integer in [1, 5] (at least one good "
            "arm, at least one disturbing arm, and theta_d = 0); got 6.",
        ),
        (
            "LinearEpsGood-Adaptive-v0",
            {"d": 3, "m_tilde": 3},
            InvalidParameterError,
            "LinearEpsGood-Adaptive-v0: m_tilde must be an integer in [1, 2]",
        ),
        (
            "LinearEpsGood-Adaptive-v0",
            {"m_tilde": 2.0},
            InvalidParameterError,
            "m_tilde must be an integer in [1, 5]",
        ),
        (
            "LinearEpsGood-Adaptive-v0",
            {"x_tilde": 0.0},
            InvalidParameterError,
            "LinearEpsGood-Adaptive-v0: x_tilde must be > 0; got 0.0.",
        ),
        (
            "LinearEpsGood-Adaptive-v0",
            {"x_tilde": -1.0},
            InvalidParameterError,
            "x_tilde must be > 0; got -1.0.",
        ),
        (
            "LinearEpsGood-Adaptive-v0",
            {"epsilon": 0.0},
            InvalidParameterError,
            "LinearEpsGood-Adaptive-v0: epsilon must be > 0; got 0.0.",
        ),
        (
            "LinearEpsGood-Adaptive-v0",
            {"epsilon": float("nan")},
            InvalidParameterError,
            "LinearEpsGood-Adaptive-v0: epsilon must be a finite float; got nan.",
        ),
        (
            "LinearEpsGood-Adaptive-v0",
            {"m": 3},
            InvalidParameterError,
            "LinearEpsGood-Adaptive-v0: m must be an even integer >= 2",
        ),
        (
            "LinearEpsGood-Adaptive-v0",
            {"x_mean": -1.0},
            InvalidParameterError,
            "x_mean must be > 0; got -1.0.",
        ),
        (
            "LinearEpsGood-Adaptive-v0",
            {"m_var": -1.0},
            InvalidParameterError,
            "m_var must be a finite float >= 0; got -1.0.",
        ),
        (
            "LinearEpsGood-Adaptive-v0",
            {"m": 40},
            InvalidParameterError,
            "almost never lies in the valid range [1, 7]",
        ),
        (
            "LinearEpsGood-Adaptive-v0",
            {"m_var": 0.0, "m": 40, "d": 30},
            InvalidParameterError,
            "with m_var = 0, m̃ = round(m) = 40 must lie in [1, 29].",
        ),
        (
            "LinearEpsGood-Adaptive-v0",
            {"paper_literal": "yes"},
            InvalidParameterError,
            "paper_literal must be True or False; got 'yes'.",
        ),
        (
            "LinearEpsGood-Adaptive-v0",
            {"d": 1},
            InvalidParameterError,
            "LinearEpsGood-Adaptive-v0: d must be an integer >= 2; got 1.",
        ),
        (
            "LinearEpsGood-Adaptive-v0",
            {"sigma": -1.0},
            InvalidParameterError,
            "LinearEpsGood-Adaptive-v0: sigma must be a finite float >= 0; got -1.0.",
        ),
        (
            "LinearEpsGood-Adaptive-v0",
            {"instance_seed": -1},
            InvalidParameterError,
            "instance_seed must be an integer >= 0; got -1.",
        ),
        (
            "LinearEpsGood-Adaptive-v0",
            {"delta": 1.5},
            InvalidParameterError,
            "LinearEpsGood-Adaptive-v0: delta must be a float in the open interval (0, 1); got "
            "1.5.",
        ),
        ("LinearEpsGood-Adaptive-v0", {"K": 10}, TypeError, "unknown keyword 'K'"),
        (
            "LinearEpsGood-Static-v0",
            {"Delta": 0.0},
            InvalidParameterError,
            "LinearEpsGood-Static-v0: Delta must be > 0; got 0.0.",
        ),
        (
            "LinearEpsGood-Static-v0",
            {"m_tilde": 8},
            InvalidParameterError,
            "LinearEpsGood-Static-v0: m_tilde must be an integer in [1, 7] (at least one good and "
            "one bad arm); got 8.",
        ),
        ("LinearEpsGood-Static-v0", {"epsilon": 0.3}, TypeError, "unknown keyword 'epsilon'"),
        (
            "LinearEpsGood-FreeWilson-v0",
            {"sites": (4, 1)},
            InvalidParameterError,
            "LinearEpsGood-FreeWilson-v0: every entry of sites must be an integer >= 2; got 1.",
        ),
        (
            "LinearEpsGood-FreeWilson-v0",
            {"sites": "45434"},
            InvalidParameterError,
            "sites must be a non-empty sequence of integers >= 2",
        ),
        (
            "LinearEpsGood-FreeWilson-v0",
            {"sites": (2, 3), "n_good": 6},
            InvalidParameterError,
            "LinearEpsGood-FreeWilson-v0: n_good must be an integer in [1, 5] (some compound must "
            "be bad); got 6.",
        ),
        (
            "LinearEpsGood-FreeWilson-v0",
            {"scale": 0.0},
            InvalidParameterError,
            "scale must be > 0; got 0.0.",
        ),
        (
            "LinearEpsGood-FreeWilson-v0",
            {"sites": (2, 3), "n_good": 2, "min_gap": 1e6},
            InvalidParameterError,
            "lower min_gap or raise scale",
        ),
    ],
)
def test_bad_keywords(env_id, kwargs, error, message):
    with pytest.raises(error, match=re.escape(message)):
        gym.make(env_id, **kwargs)


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        (
            {"means": [1.0, 0.5]},
            InvalidParameterError,
            "LinearEpsGood-Custom-v0: epsilon= is required; e.g. gym.make(",
        ),
        (
            {"means": [1.0, 0.5], "theta": [1.0], "epsilon": 0.1},
            InvalidParameterError,
            "give theta= (with features=) or means=, not both",
        ),
        (
            {"theta": [1.0, 0.5], "epsilon": 0.1},
            InvalidParameterError,
            "theta= needs features= (a K×h array",
        ),
        (
            {"features": np.eye(2), "epsilon": 0.1},
            InvalidParameterError,
            "features= needs theta= (or means=, for a mis-specified instance)",
        ),
        (
            {"means": [[1.0], [0.5]], "epsilon": 0.1},
            InvalidParameterError,
            "LinearEpsGood-Custom-v0: means must be a 1-D array (all ε-good arms has scalar "
            "outcomes); got shape (2, 1).",
        ),
        (
            {"features": np.eye(3), "theta": [1.0, 0.5], "epsilon": 0.1},
            InvalidParameterError,
            "LinearEpsGood-Custom-v0: theta must have as many rows as features has columns (3)",
        ),
        (
            {"means": [1.0, np.nan], "epsilon": 0.1},
            InvalidParameterError,
            "LinearEpsGood-Custom-v0: means must be finite",
        ),
        (
            {"means": [1.0], "epsilon": 0.1},
            InvalidParameterError,
            "the instance must have at least 2 arms; got 1.",
        ),
        (
            {"means": [1.0, 0.5], "epsilon": -0.1},
            InvalidParameterError,
            "LinearEpsGood-Custom-v0: epsilon must be > 0; got -0.1.",
        ),
        (
            {"means": [1.0, 0.5], "epsilon": 1.5, "multiplicative": True},
            InvalidParameterError,
            "with multiplicative=True epsilon must be in (0, 1]; got 1.5.",
        ),
        (
            {"means": [1.0, 0.5, 0.2], "epsilon": 0.5},
            InvalidInstanceError,
            "AllEpsilonGood: arms 1 have means within",
        ),
        (
            {"means": [-1.0, -2.0], "epsilon": 0.5, "multiplicative": True},
            InvalidInstanceError,
            "the multiplicative definition needs a positive best mean",
        ),
    ],
)
def test_custom_bad_arrays(kwargs, error, message):
    with pytest.raises(error, match=re.escape(message)):
        gym.make("LinearEpsGood-Custom-v0", **kwargs)


def test_catalogue_lists_the_family():
    from bandit_envs.envs import env_entries

    entries = {e.id: e for e in env_entries() if e.family == "all eps-good"}
    assert set(entries) == set(IDS)
    assert all(e.task == "all_eps_good" for e in entries.values())
    assert "SYNTHETIC" in entries["LinearEpsGood-FreeWilson-v0"].summary
