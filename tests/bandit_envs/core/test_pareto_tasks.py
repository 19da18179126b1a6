"""The ParetoSet task (dominance, Pareto set, PSI gaps and complexities of Kone, Kaufmann &
Richert 2025, Sec. 2; exact or ε-Pareto grading) and LinearGaussian's noise covariance."""

from __future__ import annotations

import json

import numpy as np
import pytest

from bandit_envs import PureExplorationEnv
from bandit_envs.core.models import LinearGaussian
from bandit_envs.core.tasks import ParetoSet
from bandit_envs.errors import InvalidInstanceError, InvalidParameterError
from bandit_envs.theory.pareto import complexities, psi_gaps

# μ: arms 0, 1, 3 Pareto-optimal (gaps 0.4, 0.4, 0.2); arm 2 dominated by arm 3 (gap 0.2)
HAND = np.array([[1.0, 0.0], [0.0, 1.0], [0.4, 0.4], [0.6, 0.6]])


def hand_model(sigma: float = 0.5) -> LinearGaussian:
    """Unstructured: identity features, Θ = μ (h = K in the model of Kone et al., Sec. 2)."""
    return LinearGaussian(np.eye(4), HAND, sigma)


# ----------------------------------------------------------------------- the task


def test_name_fields_and_answers() -> None:
    task = ParetoSet()
    assert task.name == "pareto_set"
    assert task.public_fields() == {"epsilon": 0.0}
    assert ParetoSet(epsilon=0.1).public_fields() == {"epsilon": 0.1}
    assert task.true_answer(HAND) == frozenset({0, 1, 3})
    estimates = HAND + [[0, 0], [0, 0], [0.3, 0.3], [0, 0]]
    assert task.empirical_answer(estimates) == frozenset({0, 1, 2})
    # ties in estimates never raise: identical estimates both stay
    assert task.empirical_answer(np.ones((3, 2))) == frozenset({0, 1, 2})
    assert task.n_items(4) == 4


def test_one_objective_is_best_arm() -> None:
    task = ParetoSet()
    assert task.true_answer(np.array([[0.1], [0.7], [0.3]])) == frozenset({1})
    assert task.true_answer(np.array([0.1, 0.7, 0.3])) == frozenset({1})  # (K,) accepted too
    task.validate_model(LinearGaussian(np.eye(3), [0.1, 0.7, 0.3], 1.0))
    task.validate_model(LinearGaussian(np.eye(3), np.zeros((3, 5)) + np.arange(3)[:, None], 1.0))
    with pytest.raises(InvalidInstanceError, match="arms 0, 2 have the identical mean vector"):
        task.true_answer(np.array([[0.7], [0.1], [0.7]]))


@pytest.mark.parametrize(
    ("means", "match"),
    [
        (
            [[1.0, 1.0], [1.0, 1.0], [0.0, 0.0]],
            r"ParetoSet: the PSI gap of arms 0, 1 is 0 \(at most 1e-12\): arms 0, 1 have the "
            r"identical mean vector \[1.0, 1.0\]\. Exact Pareto set identification is ill-posed "
            r"on this instance \(infinite complexity\); perturb the means or use "
            r"ParetoSet\(epsilon > 0\)\.",
        ),
        (
            [[1.0, 0.0], [1.0, 1.0], [0.0, 2.0]],
            r"the PSI gap of arms 0, 1 is 0 \(at most 2e-12\): arm 0 \(\[1.0, 0.0\]\) is "
            r"dominated, but each arm dominating it equals it on some objective \(up to 2e-12\)",
        ),
    ],
)
def test_ill_posed_instances_are_refused(means: list[list[float]], match: str) -> None:
    with pytest.raises(InvalidInstanceError, match=match):
        ParetoSet().true_answer(np.array(means))
    with pytest.raises(InvalidInstanceError, match="ill-posed"):
        PureExplorationEnv(LinearGaussian(np.eye(3), means, 0.5), ParetoSet(), delta=0.1)
    # ε-PSI stays well-posed (finite ε-complexity): accepted
    assert ParetoSet(epsilon=0.05).true_answer(np.array(means)) == frozenset(
        np.flatnonzero(psi_gaps(means).pareto).tolist()
    )


def test_near_ties_use_the_tolerance() -> None:
    mu = np.array([[1.0, 0.0], [0.0, 1.0], [-1e-14, 1.0 - 1e-14]])  # arm 2: margin 1e-14
    assert 0 < psi_gaps(mu).gaps[2] < 1e-13
    with pytest.raises(InvalidInstanceError, match=r"PSI gap of arms 1, 2 is 0 \(at most 1e-12\)"):
        ParetoSet().true_answer(mu)
    assert ParetoSet(tie_tolerance=0.0).true_answer(mu) == frozenset({0, 1})


@pytest.mark.parametrize("bad", [-0.1, float("nan"), float("inf"), "0.1", True, None])
def test_bad_epsilon(bad: object) -> None:
    with pytest.raises(InvalidParameterError, match=r"ParetoSet: epsilon must be a finite float"):
        ParetoSet(epsilon=bad)  # type: ignore[arg-type]


def test_grading_exact_and_eps() -> None:
    truth = frozenset({0, 1, 3})
    exact = ParetoSet()
    g = exact.grade(frozenset({0, 1, 3}), truth, HAND)
    assert g.correct and g.precision == g.recall == g.f1 == 1.0
    g = exact.grade(frozenset({0, 1, 2, 3}), truth, HAND)
    assert not g.correct and g.precision == 0.75 and g.recall == 1.0
    eps = ParetoSet(epsilon=0.25)
    g = eps.grade(frozenset({0, 1, 2, 3}), truth, HAND)  # Δ_2 = 0.2 < ε: ε-Pareto set
    assert g.correct and g.precision == 0.75 and g.recall == 1.0  # metrics stay against S*
    assert eps.grade(truth, truth, HAND).correct
    assert not eps.grade(frozenset({0, 1, 2}), truth, HAND).correct  # misses Pareto arm 3
    assert not ParetoSet(epsilon=0.1).grade(frozenset({0, 1, 2, 3}), truth, HAND).correct


def test_complexity_keys_values_and_json() -> None:
    features = np.random.default_rng(3).normal(size=(6, 3))
    theta = np.random.default_rng(4).normal(size=(3, 2))
    model = LinearGaussian(features, theta, 0.5)
    out = ParetoSet().complexity(model)
    expected = psi_gaps(features @ theta)
    assert set(out) == {"gaps", "pareto_set", "rank", "H1", "H2", "H1_lin", "H2_lin", "min_gap"}
    np.testing.assert_array_equal(out["gaps"], expected.gaps)
    assert out["pareto_set"] == tuple(np.flatnonzero(expected.pareto).tolist())
    assert out["rank"] == 3
    for key, value in complexities(expected.gaps, 3).items():
        assert out[key] == value and isinstance(out[key], float)
    encoded = {k: v.tolist() if isinstance(v, np.ndarray) else v for k, v in out.items()}
    assert json.loads(json.dumps(encoded))["pareto_set"] == list(out["pareto_set"])


def test_complexity_rank_deficient_and_unstructured() -> None:
    rng = np.random.default_rng(7)
    base = rng.normal(size=(8, 2))
    features = np.c_[base, base[:, 0] + base[:, 1]]  # rank 2 < h = 3
    out = ParetoSet().complexity(LinearGaussian(features, rng.normal(size=(3, 2)), 1.0))
    assert out["rank"] == 2
    # through the task: identity features (h = K) make the linear complexities (eq. 2) equal
    out = ParetoSet().complexity(hand_model())
    assert out["rank"] == 4
    assert out["H1_lin"] == out["H1"] == pytest.approx(62.5)
    assert out["H2_lin"] == out["H2"] == pytest.approx(50.0)
    assert out["pareto_set"] == (0, 1, 3)


def test_complexity_with_epsilon() -> None:
    out = ParetoSet(epsilon=0.6).complexity(hand_model())
    relaxed = complexities(np.maximum(psi_gaps(HAND).gaps, 0.3), 4)
    assert out["H1_eps"] == relaxed["H1"]
    assert out["H2_lin_eps"] == relaxed["H2_lin"]
    assert "min_gap_eps" not in out
    assert out["H1"] == pytest.approx(62.5)


def test_env_episode_exact_and_eps() -> None:
    env = PureExplorationEnv(hand_model(), ParetoSet(), delta=0.1)
    _, info = env.reset(seed=0)
    assert info["problem"].task == "pareto_set"
    assert info["problem"].epsilon == 0.0
    assert info["problem"].outcome_dim == 2
    obs, *_ = env.step(2)
    assert obs.shape == (2,)
    *_, info = env.step(env.stop_action({0, 1, 3}))
    assert info["correct"] and info["true_answer"] == frozenset({0, 1, 3})
    assert info["complexity"]["pareto_set"] == (0, 1, 3)
    env = PureExplorationEnv(hand_model(), ParetoSet(epsilon=0.25), budget=5)
    env.reset(seed=1)
    assert env.problem.epsilon == 0.25
    *_, info = env.step(env.stop_action({0, 1, 2, 3}))
    assert info["correct"] and info["precision"] == 0.75


# ----------------------------------------------------------------------- noise covariance

COV = np.array([[0.25, 0.15, -0.05], [0.15, 0.36, 0.0], [-0.05, 0.0, 0.09]])


def cov_model(cov: np.ndarray = COV) -> LinearGaussian:
    rng = np.random.default_rng(0)
    return LinearGaussian(rng.normal(size=(4, 2)), rng.normal(size=(2, 3)), cov=cov)


def assert_moments(draws: np.ndarray, mean: np.ndarray, cov: np.ndarray) -> None:
    """Mean within 5 standard errors; covariance entries within 5 standard errors (Gaussian)."""
    n = draws.shape[0]
    np.testing.assert_array_less(np.abs(draws.mean(0) - mean), 5 * np.sqrt(np.diag(cov) / n))
    var = np.diag(cov)
    se_cov = np.sqrt((np.outer(var, var) + cov**2) / n)  # sd of an empirical covariance entry
    np.testing.assert_array_less(np.abs(np.cov(draws.T) - cov), 5 * se_cov)


def test_covariance_sample_moments() -> None:
    model = cov_model()
    rng = np.random.default_rng(1)
    draws = np.array([model.sample(2, rng) for _ in range(20000)])
    assert_moments(draws, model.means[2], COV)


def test_covariance_sample_sums_moments() -> None:
    model = cov_model()
    counts = np.array([1, 0, 7, 40])
    rng = np.random.default_rng(2)
    sums = np.array([model.sample_sums(counts, rng) for _ in range(20000)])
    assert sums.shape == (20000, 4, 3)
    np.testing.assert_array_equal(sums[:, 1], 0.0)  # zero pulls: an exact zero sum
    for arm in (0, 2, 3):
        n = counts[arm]
        assert_moments(sums[:, arm], n * model.means[arm], n * COV)


def test_singular_covariance_is_sampled_exactly() -> None:
    cov = np.array([[1.0, 1.0], [1.0, 1.0]])  # rank 1: both outputs share one noise draw
    model = LinearGaussian(np.eye(2), [[0.0, 2.0], [1.0, 0.5]], cov=cov)
    rng = np.random.default_rng(3)
    y = np.array([model.sample(0, rng) for _ in range(200)])
    np.testing.assert_allclose(y[:, 1] - y[:, 0], 2.0, atol=1e-12)
    s = model.sample_sums(np.array([5, 3]), rng)
    np.testing.assert_allclose(s[:, 1] - s[:, 0], [10.0, -1.5], atol=1e-12)
    assert model.sigma == 1.0


def test_marginal_sigma_is_public_and_cov_is_truth() -> None:
    model = cov_model()
    np.testing.assert_allclose(model.sigma, [0.5, 0.6, 0.3])
    np.testing.assert_array_equal(model.noise_cov, COV)
    env = PureExplorationEnv(model, ParetoSet(), delta=0.1)
    np.testing.assert_allclose(env.problem.noise_std, [0.5, 0.6, 0.3])
    assert "noise_cov" in model.truth()
    assert "noise_cov" not in LinearGaussian(np.eye(2), np.eye(2), 0.5).truth()
    np.testing.assert_array_equal(
        LinearGaussian(np.eye(2), np.eye(2), [0.5, 2.0]).noise_cov, np.diag([0.25, 4.0])
    )
    assert LinearGaussian(np.eye(2), np.eye(2)).sigma == 1.0  # default σ = 1 without cov


def test_diagonal_cov_equals_sigma_path() -> None:
    x, theta = np.eye(3), np.arange(6.0).reshape(3, 2)
    by_sigma = LinearGaussian(x, theta, [0.5, 2.0])
    by_cov = LinearGaussian(x, theta, cov=np.diag([0.25, 4.0]))
    consistent = LinearGaussian(x, theta, [0.5, 2.0], cov=np.diag([0.25, 4.0]))
    counts = np.array([3, 0, 9])
    for other in (by_cov, consistent):
        r1, r2 = np.random.default_rng(5), np.random.default_rng(5)
        np.testing.assert_array_equal(by_sigma.sample(1, r1), other.sample(1, r2))
        np.testing.assert_array_equal(
            by_sigma.sample_sums(counts, r1), other.sample_sums(counts, r2)
        )
    one = LinearGaussian(np.eye(2), [1.0, 2.0], cov=[[0.49]])
    assert one.sigma == pytest.approx(0.7)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        (
            {"cov": np.eye(2)},
            r"cov must be a square matrix with one row and column per output, "
            r"shape \(3, 3\); got shape \(2, 2\)\.",
        ),
        ({"cov": np.ones(3)}, r"cov must be a 2-D array; got shape \(3,\)"),
        (
            {"cov": [[1.0, 0.2, 0], [0.1, 1.0, 0], [0, 0, 1.0]]},
            r"cov must be symmetric; got cov\[0, 1\] = 0.2 but cov\[1, 0\] = 0.1\.",
        ),
        (
            {"cov": [[1.0, 2.0, 0], [2.0, 1.0, 0], [0, 0, 1.0]]},
            r"cov must be positive semi-definite \(a covariance matrix\); its smallest eigenvalue "
            r"is -1.0",
        ),
        ({"cov": np.diag([1.0, np.nan, 1.0])}, "cov must be finite"),
        (
            {"cov": COV, "sigma": 0.5},
            r"give sigma or cov, not two different noise levels; sigma must equal "
            r"sqrt\(diag\(cov\)\) = \[0.5, 0.6, 0.3\] when both are given; got sigma 0.5\.",
        ),
        ({"cov": np.diag([-1.0, 1.0, 1.0])}, "cov must be positive semi-definite"),
    ],
)
def test_covariance_errors(kwargs: dict, match: str) -> None:
    with pytest.raises(InvalidParameterError, match=match):
        LinearGaussian(np.eye(2), np.ones((2, 3)), **kwargs)


def test_consistent_sigma_and_cov_accepted() -> None:
    model = LinearGaussian(np.eye(2), np.ones((2, 3)), sigma=[0.5, 0.6, 0.3], cov=COV)
    np.testing.assert_array_equal(model.noise_cov, COV)
