"""GLM math, the GLM reward models and the LogisticEpsGood ids (Li, Ma, Hua & Zhu 2025, Sec. 6)."""

import re
import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from scipy.optimize import minimize
from scipy.special import expit

import bandit_envs  # noqa: F401
from bandit_envs import (
    AllEpsilonGood,
    BestArm,
    InvalidInstanceError,
    InvalidParameterError,
    LogisticGLM,
    PoissonGLM,
    PureExplorationEnv,
)
from bandit_envs.envs.all_eps_good import adaptive_instance
from bandit_envs.theory.glm import LINKS, get_link, glm_mle

ALLOWED_WARNINGS = (
    "A Box observation space minimum value is -infinity",
    "A Box observation space maximum value is infinity",
)
IDS = ["LogisticEpsGood-Adaptive-v0", "LogisticEpsGood-Custom-v0"]


# ------------------------------------------------------------------ links


def test_links_values_slopes_and_bounds():
    x = np.linspace(-3, 3, 13)
    lg = get_link("logistic")
    np.testing.assert_allclose(lg.mean(x), 1 / (1 + np.exp(-x)))
    np.testing.assert_allclose(lg.slope(x), np.exp(x) / (1 + np.exp(x)) ** 2)
    np.testing.assert_allclose(lg.cumulant(x), np.log1p(np.exp(x)))
    # Assumption 6's c_min for the logistic link and |a^T θ| <= LS: e^{LS}/(1+e^{LS})^2;
    # the slope is <= 1/4 everywhere
    assert lg.min_slope(2.0) == pytest.approx(np.exp(2) / (1 + np.exp(2)) ** 2)
    assert lg.max_slope() == 0.25 and lg.max_slope(5.0) == 0.25
    po = get_link("poisson")
    assert po.min_slope(1.5) == pytest.approx(np.exp(-1.5))
    assert po.max_slope(1.5) == pytest.approx(np.exp(1.5)) and po.max_slope() == np.inf
    ident = get_link("identity")
    assert ident.min_slope(9.0) == ident.max_slope() == 1.0
    np.testing.assert_allclose(ident.mean(x), x)
    assert sorted(LINKS) == ["identity", "logistic", "poisson"]
    with pytest.raises(
        InvalidParameterError,
        match=re.escape(
            "get_link: link must be one of ['identity', 'logistic', 'poisson']; got 'probit'."
        ),
    ):
        get_link("probit")
    # the derivative of the cumulant is the mean: a numerical check for each link
    for link in LINKS.values():
        h = 1e-6
        num = (link.cumulant(x + h) - link.cumulant(x - h)) / (2 * h)
        np.testing.assert_allclose(num, link.mean(x), rtol=1e-6, atol=1e-8)


# ------------------------------------------------------------------ maximum likelihood


def _logistic_data(seed, k=12, h=3, n=40):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(k, h))
    theta = rng.normal(size=h) * 0.7
    counts = rng.integers(5, n, size=k)
    sums = rng.binomial(counts, expit(x @ theta)).astype(float)
    return x, theta, counts, sums


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_logistic_mle_matches_scipy(seed):
    # the MLE of eq. (39) by IRLS (Sec. 6) matches scipy.optimize on the same data to 1e-6
    x, _, counts, sums = _logistic_data(seed)

    def negloglik(th):
        eta = x @ th
        return -(sums @ eta - counts @ np.logaddexp(0.0, eta))

    def grad(th):
        return -(x.T @ (sums - counts * expit(x @ th)))

    ref = minimize(negloglik, np.zeros(3), jac=grad, method="BFGS", options={"gtol": 1e-11})
    fit = glm_mle(x, counts, sums, "logistic", ridge=0.0)
    assert fit.converged and fit.iterations < 20
    np.testing.assert_allclose(fit.theta, ref.x, atol=1e-6)
    # the estimating equation (eq. 39) holds at the estimate
    np.testing.assert_allclose(x.T @ (sums - counts * expit(x @ fit.theta)), 0.0, atol=1e-8)


@pytest.mark.parametrize("link", ["logistic", "poisson", "identity"])
def test_mle_recovers_theta_on_noiseless_limit_data(link):
    # sums = n * mu exactly (the noiseless limit): the score vanishes at the true theta
    x, theta = adaptive_instance(6, 3, 1.0, 0.3)
    counts = np.full(x.shape[0], 10**6)
    sums = counts * get_link(link).mean(x @ theta)
    fit = glm_mle(x, counts, sums, link)
    assert fit.converged
    np.testing.assert_allclose(fit.theta, theta, atol=1e-8)


def test_identity_mle_is_least_squares():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(7, 3))
    counts = rng.integers(1, 9, size=7)
    sums = rng.normal(size=7) * counts
    fit = glm_mle(x, counts, sums, "identity", ridge=0.0)
    ols = np.linalg.solve((x.T * counts) @ x, x.T @ sums)
    np.testing.assert_allclose(fit.theta, ols, atol=1e-10)
    assert fit.iterations <= 2


def test_separable_data_needs_the_ridge_and_the_cap():
    # arm 1 never succeeds and is alone in its direction: no MLE exists (theta_2 -> -inf)
    x = np.eye(2)
    counts = np.array([20, 20])
    sums = np.array([10.0, 0.0])
    fit = glm_mle(x, counts, sums, "logistic")  # default ridge 1e-6: finite, converged
    assert fit.converged and np.all(np.isfinite(fit.theta))
    assert fit.theta[0] == pytest.approx(0.0, abs=1e-6) and fit.theta[1] < -10
    assert expit(fit.theta[1]) < 1e-4
    raw = glm_mle(x, counts, sums, "logistic", ridge=0.0, max_iter=15)
    assert not raw.converged and raw.iterations == 15 and raw.theta[1] < fit.theta[1] + 10
    # unpulled arms do not enter; nothing pulled gives the start
    zero = glm_mle(x, np.zeros(2), np.zeros(2), "logistic")
    np.testing.assert_array_equal(zero.theta, 0.0)
    warm = glm_mle(x, counts, sums, "logistic", init=fit.theta)
    assert warm.iterations <= 2 and np.allclose(warm.theta, fit.theta, atol=1e-6)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"features": np.ones(3)}, "features must be a finite 2-D array"),
        ({"counts": np.ones(2)}, "counts and sums must have one entry per arm (3)"),
        ({"counts": -np.ones(3)}, "counts must be finite and >= 0"),
        ({"ridge": -1.0}, "ridge must be a finite float >= 0; got -1.0."),
        ({"max_iter": 0}, "max_iter must be an integer >= 1; got 0."),
        ({"tol": 0.0}, "tol must be a finite float > 0; got 0.0."),
        ({"init": np.ones(5)}, "init must be a finite vector of length 2."),
        ({"link": "probit"}, "link must be one of"),
    ],
)
def test_mle_refuses_bad_arguments(kwargs, message):
    args = {
        "features": np.ones((3, 2)),
        "counts": np.ones(3),
        "sums": np.ones(3),
        "link": "logistic",
    }
    args.update(kwargs)
    link = args.pop("link")
    with pytest.raises(InvalidParameterError, match=re.escape(message)):
        glm_mle(args.pop("features"), args.pop("counts"), args.pop("sums"), link, **args)


# ------------------------------------------------------------------ models


def test_logistic_model_public_fields_truth_and_sampling():
    x = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    theta = np.array([0.5, -1.0])
    model = LogisticGLM(x, theta)
    p = expit(x @ theta)
    np.testing.assert_allclose(model.means[:, 0], p)
    assert model.structure == "glm" and model.link == "logistic" and model.outcome_dim == 1
    public = model.public_fields()
    assert public["link"] == "logistic" and public["noise_std"] == 0.5
    assert set(public) == {"structure", "features", "link", "noise_std"}
    assert set(model.truth()) == {"theta", "predictors", "means"}
    rng = np.random.default_rng(0)
    singles = np.array([model.sample(2, rng)[0] for _ in range(4000)])
    assert set(np.unique(singles)) <= {0.0, 1.0}
    assert singles.mean() == pytest.approx(p[2], abs=0.03)
    counts = np.array([50, 0, 1000])
    draws = np.array([model.sample_sums(counts, rng)[:, 0] for _ in range(4000)])
    assert np.all(draws == np.round(draws)) and np.all(draws[:, 1] == 0)
    assert np.all((draws >= 0) & (draws <= counts))
    np.testing.assert_allclose(draws.mean(axis=0), counts * p, rtol=0.02, atol=0.05)
    np.testing.assert_allclose(draws.var(axis=0), counts * p * (1 - p), rtol=0.1, atol=0.05)


def test_poisson_model_sampling():
    model = PoissonGLM(np.eye(2), [np.log(3.0), 0.0])
    np.testing.assert_allclose(model.means[:, 0], [3.0, 1.0])
    assert model.public_fields()["noise_std"] == pytest.approx(np.sqrt(3.0))
    rng = np.random.default_rng(1)
    draws = np.array([model.sample_sums(np.array([10, 20]), rng)[:, 0] for _ in range(3000)])
    np.testing.assert_allclose(draws.mean(axis=0), [30.0, 20.0], rtol=0.02)
    np.testing.assert_allclose(draws.var(axis=0), [30.0, 20.0], rtol=0.1)
    assert model.sample(0, rng).shape == (1,)
    with pytest.raises(InvalidParameterError, match="every mean must lie in"):
        PoissonGLM(np.eye(1), [30.0])


def test_logistic_model_refuses_bad_input():
    with pytest.raises(
        InvalidParameterError,
        match=re.escape(
            "LogisticGLM: every probability must lie in the open "
            "interval (0, 1); arm 0 has linear predictor 40.0"
        ),
    ):
        LogisticGLM(np.eye(2), [40.0, 0.0])
    with pytest.raises(InvalidParameterError, match="theta must have as many rows"):
        LogisticGLM(np.eye(2), [1.0, 0.0, 1.0])
    with pytest.raises(InvalidParameterError, match="must be finite"):
        LogisticGLM(np.eye(2), [np.nan, 0.0])


def test_glm_models_pose_both_tasks():
    model = LogisticGLM(np.eye(3), [1.0, 0.0, -1.0])
    env = PureExplorationEnv(model, BestArm(), delta=0.1)
    assert env.problem.structure == "glm" and env.problem.link == "logistic"
    assert env._true_answer == frozenset({0})
    assert env.complexity()["best_arm"] == 0
    eps = PureExplorationEnv(model, AllEpsilonGood(0.3), budget=10)
    assert eps._true_answer == frozenset({0, 1})  # 0.731, 0.5, 0.269: threshold 0.431
    assert "lower_bound" not in eps.complexity()  # no Gaussian bound for Bernoulli outcomes


# ------------------------------------------------------------------ the ids


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


def test_adaptive_ids_instance_epsilon_and_public_bound():
    env = gym.make(
        "LogisticEpsGood-Adaptive-v0", d=8, m_tilde=3, x_tilde=1.0, epsilon=0.3
    ).unwrapped
    x, theta = adaptive_instance(8, 3, 1.0, 0.3)
    np.testing.assert_allclose(env.model.means[:, 0], expit(x @ theta))
    spec = env.problem
    assert spec.epsilon == pytest.approx(expit(1.3) - expit(1.0))
    assert spec.structure == "glm" and spec.link == "logistic" and spec.noise_std == 0.5
    assert spec.extras["predictor_bound"] == pytest.approx(1.8)  # 1.5 * x_mean + eps
    assert spec.extras["m_hint"] == 4.0
    # the same good set as the linear instance: e_1..e_m~
    assert env.complexity()["good_set"] == (0, 1, 2)
    assert np.abs(x @ theta).max() <= spec.extras["predictor_bound"]
    # the published bound holds for every draw of the family
    for seed in range(20):
        e = gym.make("LogisticEpsGood-Adaptive-v0", instance_seed=seed).unwrapped
        assert np.abs(e.model.predictors).max() <= e.problem.extras["predictor_bound"]
    assert env.instance_info["epsilon_mean"] == spec.epsilon


def test_seeding_and_the_batch_path():
    env = gym.make("LogisticEpsGood-Adaptive-v0").unwrapped

    def run(seed):
        env.reset(seed=seed)
        singles = np.array([env.step(k % env.n_arms)[0] for k in range(30)])
        env.reset(seed=seed)
        return singles, env.step_batch(np.full(env.n_arms, 7, dtype=np.int64))[0]

    a, b = run(3), run(3)
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])
    assert set(np.unique(a[0])) <= {0.0, 1.0}
    assert np.all(a[1] == np.round(a[1])) and a[1].max() <= 7


def test_custom_logistic_variants_and_tasks():
    default = gym.make("LogisticEpsGood-Custom-v0").unwrapped
    assert default.complexity()["good_set"] == (0, 1)
    assert default.problem.extras["predictor_bound"] == 1.0
    probs = gym.make("LogisticEpsGood-Custom-v0", means=[0.7, 0.6, 0.3], epsilon=0.15).unwrapped
    np.testing.assert_allclose(probs.model.means[:, 0], [0.7, 0.6, 0.3])
    np.testing.assert_array_equal(probs.problem.features, np.eye(3))
    assert probs.instance_info["kind"] == "unstructured"
    x = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    p = expit(x @ np.array([0.4, -0.2]))
    lin = gym.make("LogisticEpsGood-Custom-v0", features=x, means=p, epsilon=0.05).unwrapped
    np.testing.assert_allclose(lin.model.theta, [0.4, -0.2], atol=1e-12)
    best = gym.make(
        "LogisticEpsGood-Custom-v0", features=x, theta=[0.4, -0.2], task="best_arm", budget=20
    ).unwrapped
    assert best.problem.task == "best_arm" and best._true_answer == frozenset({0})
    loose = gym.make("LogisticEpsGood-Custom-v0", predictor_bound=3.0).unwrapped
    assert loose.problem.extras["predictor_bound"] == 3.0


@pytest.mark.parametrize(
    "env_id, kwargs, error, message",
    [
        (
            "LogisticEpsGood-Custom-v0",
            {"means": [0.5, 1.2], "epsilon": 0.1},
            InvalidParameterError,
            "LogisticEpsGood-Custom-v0: means must be probabilities in the open interval (0, 1); "
            "got "
            "means[1] = 1.2.",
        ),
        (
            "LogisticEpsGood-Custom-v0",
            {"means": [0.0, 0.5], "epsilon": 0.1},
            InvalidParameterError,
            "means must be probabilities in the open interval (0, 1); got means[0] = 0.0.",
        ),
        (
            "LogisticEpsGood-Custom-v0",
            {"features": np.ones((3, 1)), "means": [0.2, 0.5, 0.7], "epsilon": 0.1},
            InvalidParameterError,
            "logit(means) is not linear in the features",
        ),
        (
            "LogisticEpsGood-Custom-v0",
            {"features": np.eye(2), "theta": [50.0, 0.0], "epsilon": 0.1},
            InvalidParameterError,
            "LogisticEpsGood-Custom-v0: every probability must lie in the open interval (0, 1)",
        ),
        (
            "LogisticEpsGood-Custom-v0",
            {"predictor_bound": 0.5},
            InvalidParameterError,
            "predictor_bound must be >= max_k |a_k . theta| = 1.0",
        ),
        (
            "LogisticEpsGood-Custom-v0",
            {"predictor_bound": -1.0},
            InvalidParameterError,
            "predictor_bound must be a finite float >= 0; got -1.0.",
        ),
        (
            "LogisticEpsGood-Custom-v0",
            {"theta": [1.0, 0.0], "means": [0.5, 0.4]},
            InvalidParameterError,
            "give theta= (with features=) or means=, not both",
        ),
        (
            "LogisticEpsGood-Custom-v0",
            {"theta": [1.0, 0.0]},
            InvalidParameterError,
            "theta= needs features=",
        ),
        (
            "LogisticEpsGood-Custom-v0",
            {"means": [0.5, 0.4]},
            InvalidParameterError,
            "epsilon= is required",
        ),
        (
            "LogisticEpsGood-Custom-v0",
            {"task": "pareto"},
            InvalidParameterError,
            "task must be one of ('all_eps_good', 'best_arm'); got 'pareto'.",
        ),
        (
            "LogisticEpsGood-Custom-v0",
            {"task": "best_arm", "epsilon": 0.1},
            InvalidParameterError,
            "epsilon and multiplicative are keywords of task='all_eps_good'",
        ),
        (
            "LogisticEpsGood-Custom-v0",
            {"means": [0.5, 0.4], "epsilon": 0.1},
            InvalidInstanceError,
            "have means within",
        ),
        (
            "LogisticEpsGood-Adaptive-v0",
            {"epsilon": 0.0},
            InvalidParameterError,
            "LogisticEpsGood-Adaptive-v0: epsilon must be > 0; got 0.0.",
        ),
        (
            "LogisticEpsGood-Adaptive-v0",
            {"m_tilde": 9},
            InvalidParameterError,
            "LogisticEpsGood-Adaptive-v0: m_tilde must be an integer in [1, 5]",
        ),
        (
            "LogisticEpsGood-Adaptive-v0",
            {"x_tilde": -1.0},
            InvalidParameterError,
            "x_tilde must be > 0; got -1.0.",
        ),
        (
            "LogisticEpsGood-Adaptive-v0",
            {"x_mean": 40.0, "x_std": 0.0},
            InvalidParameterError,
            "every probability must lie in the open interval (0, 1)",
        ),
        ("LogisticEpsGood-Adaptive-v0", {"sigma": 1.0}, TypeError, "unknown keyword 'sigma'"),
    ],
)
def test_bad_keywords(env_id, kwargs, error, message):
    with pytest.raises(error, match=re.escape(message)):
        gym.make(env_id, **kwargs)
