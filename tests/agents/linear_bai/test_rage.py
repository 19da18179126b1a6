"""RAGE (Fiez et al. 2019): phase count, phase lengths, δ-correctness, batch ≡ single."""

import math

import gymnasium as gym
import numpy as np
import pytest
from scipy import stats

import bandit_envs  # noqa: F401
from agents import check_agent
from agents.common.design_cache import DESIGNS, xy_value
from agents.linear_bai.rage import RAGE
from bandit_envs import run_episode
from bandit_envs.envs.linear_best_arm import soare_features
from bandit_envs.errors import IncompatibleAgentError, InvalidParameterError
from bandit_envs.theory.design import pairwise_differences
from bandit_envs.theory.linalg import reduce_features


def custom(features, theta, sigma, **setting):
    return gym.make(
        "LinearBAI-Custom-v0",
        features=np.asarray(features, float),
        theta=np.asarray(theta, float),
        sigma=sigma,
        **setting,
    )


def predicted_elimination_phase(gap: float) -> int:
    """Noiseless RAGE drops an arm of gap Δ at the first m ≥ 1 with 2^{-(m+2)} < Δ."""
    m = 1
    while 2.0 ** (-(m + 2)) >= gap:
        m += 1
    return m


def test_rage_passes_check_agent():
    results = check_agent(RAGE())
    assert all(r.status == "passed" for r in results), results


NOISELESS = {
    "soare d=2 w=0.1": (soare_features(2, 0.1), [2.0, 0.0]),
    "soare d=5 w=0.01": (soare_features(5, 0.01), [2.0, 0, 0, 0, 0]),
    "basis, gaps 0.05 and 1": (np.eye(3), [1.0, 0.95, 0.0]),
    "rank-deficient": (
        [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, 1.0, 0.0], [0.5, 0.2, 0.0]],
        [1.0, 0.3, 5.0],
    ),
}


@pytest.mark.parametrize("batch", [False, True], ids=["single", "batch"])
@pytest.mark.parametrize("name", list(NOISELESS))
def test_noiseless_phases_and_eliminations_are_the_predicted_ones(name, batch):
    features, theta = NOISELESS[name]
    env = custom(features, theta, 0.0, delta=0.05)
    agent = RAGE()
    record = run_episode(env, agent, 0, batch=batch)
    assert record.correct and record.stop_reason == "stopped"
    means = np.asarray(features, float) @ np.asarray(theta, float)
    gaps = means.max() - means
    drop = {k: predicted_elimination_phase(g) for k, g in enumerate(gaps) if g > 0}
    assert len(agent.phase_history) == max(drop.values())
    for entry in agent.phase_history:
        m = entry["phase"]
        expected = sorted(k for k in entry["active"] if k not in drop or drop[k] > m)
        assert entry["survivors"] == expected, (m, entry)
    # sigma = 0: every phase is the rounding minimum r(eps) = p + ceil(p / eps)
    for entry in agent.phase_history:
        p = int(np.count_nonzero(entry["allocation"]))
        assert entry["samples"] == sum(entry["allocation"]) == p + math.ceil(p / 0.1 - 1e-9)


def test_noiseless_soare_needs_five_phases():
    """Δ_min = 2(1 − cos 0.1) ≈ 0.00999: 2^{-7} < Δ_min ≤ 2^{-6}, so m = 5."""
    env = gym.make("LinearBAI-Soare-v0", sigma=0.0)
    agent = RAGE()
    assert run_episode(env, agent, 0).correct
    assert len(agent.phase_history) == 5
    assert [e["survivors"] for e in agent.phase_history] == [[0, 2]] * 4 + [[0]]


def test_phase_length_rho_and_rounding_guarantee():
    """N_m = max(⌈2(1+ε)4^{m+2}σ²ρ_m log(4m²K/δ)⌉, p + ⌈p/ε⌉), ρ_m exact, and after rounding
    ‖y‖²_{A_m⁻¹} ≤ (1+ε)ρ_m/N_m for every difference y of active arms (Alg. 1, N_k and ROUND)."""
    env = gym.make("LinearBAI-Soare-v0", sigma=0.7, delta=0.02)
    spec = env.unwrapped.problem
    agent = RAGE(epsilon=0.2)
    run_episode(env, agent, 3)
    z, _ = reduce_features(spec.features)
    k, eps, delta = spec.n_arms, 0.2, 0.02
    assert len(agent.phase_history) >= 3
    for entry in agent.phase_history:
        m, rho, n = entry["phase"], entry["rho"], entry["samples"]
        alloc = np.asarray(entry["allocation"], float)
        p = int(np.count_nonzero(alloc))
        stat = 2 * (1 + eps) * 4.0 ** (m + 2) * 0.49 * rho * math.log(4 * m * m * k / delta)
        assert n == max(math.ceil(stat), p + math.ceil(p / eps - 1e-9)) == alloc.sum()
        targets = pairwise_differences(z[entry["active"]])
        realised = xy_value(z, alloc, targets)  # max ‖y‖² under A_m = Σ_k n_k z_k z_kᵀ
        assert realised <= (1 + eps) * rho / n * (1 + 1e-9)


def test_xy_value_matches_a_direct_inverse_and_detects_missing_directions():
    z = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    w = np.array([0.5, 0.3, 0.2])
    y = pairwise_differences(z)
    inv = np.linalg.inv((z.T * w) @ z)
    assert xy_value(z, w, y) == pytest.approx(max(v @ inv @ v for v in y))
    assert xy_value(z, np.array([1.0, 0.0, 0.0]), y) == math.inf


def test_delta_correct_on_an_easy_instance_100_seeds():
    """Error rate ≤ δ: one-sided binomial test at level 0.05 (RAGE is conservative: ~0 errors)."""
    env = gym.make("LinearBAI-Soare-v0", omega=0.3, delta=0.1)
    records = [run_episode(env, RAGE(), s) for s in range(100)]
    errors = sum(not r.correct for r in records)
    assert all(r.stop_reason == "stopped" for r in records)
    assert errors <= stats.binom.ppf(0.95, 100, 0.1), errors
    assert min(r.samples for r in records) > records[0].lower_bound


@pytest.mark.slow
@pytest.mark.parametrize(
    "kw",
    [
        dict(omega=0.3, delta=0.1),
        dict(delta=0.1),
        dict(d=5, omega=0.1, delta=0.2),
        dict(d=5, omega=0.01, delta=0.3),
    ],
)
def test_delta_correct_2000_seeds(kw):
    """One-sided binomial test at level 0.01 per instance (batch path: ~1 ms per episode)."""
    env = gym.make("LinearBAI-Soare-v0", **kw)
    records = [run_episode(env, RAGE(), s) for s in range(2000)]
    errors = sum(not r.correct for r in records)
    assert errors <= stats.binom.ppf(0.99, 2000, kw["delta"]), errors


def test_batch_and_single_paths_agree_in_distribution():
    """Same phases, same sample-count distribution (KS), same error counts; disjoint seeds."""
    env = custom(np.eye(3), [1.0, 0.9, 0.0], 0.1, delta=0.05)
    single = [run_episode(env, RAGE(), s, batch=False) for s in range(60)]
    batch = [run_episode(env, RAGE(), 1000 + s, batch=True) for s in range(60)]
    xs, ys = [r.samples for r in single], [r.samples for r in batch]
    assert stats.ks_2samp(xs, ys).pvalue > 1e-3
    assert abs(sum(not r.correct for r in single) - sum(not r.correct for r in batch)) <= 5


def test_same_seed_same_record_on_both_paths_when_noiseless_and_memo_cold_or_warm():
    env = gym.make("LinearBAI-Soare-v0", d=3, omega=0.2, sigma=0.0)
    DESIGNS.clear()
    cold = run_episode(env, RAGE(), 0).to_dict()
    warm = run_episode(env, RAGE(), 0).to_dict()
    single = run_episode(env, RAGE(), 0, batch=False).to_dict()
    for key in ("samples", "answer", "pulls"):
        assert cold[key] == warm[key] == single[key]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (dict(epsilon=0.0), "RAGE: epsilon must be a finite float > 0; got 0.0."),
        (dict(epsilon="0.1"), "RAGE: epsilon must be a finite float > 0; got '0.1'."),
        (
            dict(design_tol=1.0),
            "RAGE: design_tol must be a float in (0, 1); got 1.0.",
        ),
    ],
)
def test_invalid_parameters_are_refused_at_reset(kwargs, message):
    env = gym.make("LinearBAI-Soare-v0")
    with pytest.raises(InvalidParameterError) as err:
        run_episode(env, RAGE(**kwargs), 0)
    assert str(err.value) == message


def test_fixed_budget_is_refused():
    env = gym.make("LinearBAI-Soare-v0", budget=100)
    with pytest.raises(IncompatibleAgentError):
        run_episode(env, RAGE(), 0)


def test_design_memo_is_bounded_in_entries_and_bytes():
    from agents.common.design_cache import DesignMemo

    memo = DesignMemo(maxsize=3, max_bytes=10_000)
    for i in range(5):
        memo.get(i, lambda: np.zeros(100))
    assert len(memo) == 3 and memo.misses == 5
    memo.get(4, lambda: pytest.fail("a hit must not recompute"))
    assert memo.hits == 1
    memo.get("big", lambda: (np.zeros(2000), 1.0))  # 16 kB > max_bytes: evicts all the others
    assert len(memo) == 1


# --------------------------------------------------------------------------- large active sets
def planted(k: int, h: int, seed: int, gap: float) -> tuple[np.ndarray, np.ndarray]:
    """Unit features: e_1 (the best arm, θ = e_1) and k − 1 arms with x_1 ≤ 1 − gap."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((k, h))
    x[:, 0] = -np.abs(x[:, 0])
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    x[:, 0] = np.minimum(x[:, 0] + 1.0 - gap, 1.0 - gap) * rng.uniform(0.5, 1.0, size=k)
    x[0] = np.eye(h)[0]
    return x, np.eye(h)[0]


def test_active_set_above_the_threshold_never_materialises_its_pairs(monkeypatch):
    """K = 130 arms (8385 pairs > DENSE_MAX_PAIRS): the pair-generation design, ρ the exact value of
    the rounded design, the rounding guarantee, and the same record under the same seed."""
    import agents.linear_bai.rage as rage

    x, theta = planted(130, 4, 40, 0.3)
    x[1] = [0.9, 0.2, 0.0, 0.0]  # gap 0.1: survives the first phase
    env = custom(x, theta, 1.0, delta=0.1)

    def small_only(fn, size):
        def wrapped(first, *args, **kwargs):
            rows = len(args[0]) * (len(args[0]) - 1) // 2 if size == "targets" else len(first)
            assert rows <= 100, "a large active set materialised its pairs"
            return fn(first, *args, **kwargs)

        return wrapped

    monkeypatch.setattr(rage, "pairwise_differences", small_only(pairwise_differences, "rows"))
    monkeypatch.setattr(
        rage, "transductive_design", small_only(rage.transductive_design, "targets")
    )
    DESIGNS.clear()
    agent = RAGE()
    record = run_episode(env, agent, 5)
    assert record.correct and record.stop_reason == "stopped"
    first = agent.phase_history[0]
    assert len(first["active"]) == 130 > 100 and 0 in first["survivors"] and 1 in first["survivors"]
    assert len(agent.phase_history) >= 2
    assert 130 * 129 // 2 > rage.DENSE_MAX_PAIRS
    monkeypatch.undo()
    z, _ = reduce_features(env.unwrapped.problem.features)
    for entry in agent.phase_history:
        m, rho, n = entry["phase"], entry["rho"], entry["samples"]
        alloc = np.asarray(entry["allocation"], float)
        p = int(np.count_nonzero(alloc))
        stat = 2 * 1.1 * 4.0 ** (m + 2) * rho * math.log(4 * m * m * 130 / 0.1)
        assert n == max(math.ceil(stat), p + math.ceil(p / 0.1 - 1e-9)) == alloc.sum()
        targets = pairwise_differences(z[entry["active"]])
        assert xy_value(z, alloc, targets) <= 1.1 * rho / n * (1 + 1e-9)
    w = DESIGNS.get(("RAGE", agent._zkey, np.arange(130).tobytes(), 1e-3), pytest.fail)[0]
    assert first["rho"] == pytest.approx(xy_value(z, w, pairwise_differences(z)), rel=1e-12)
    # the same seed gives the same record and estimates, memo warm or cold; another seed does not
    runs = [RAGE() for _ in range(3)]
    again = run_episode(env, runs[0], 5).to_dict()
    DESIGNS.clear()
    cold = run_episode(env, runs[1], 5).to_dict()
    for key in ("samples", "answer", "pulls", "correct"):
        assert again[key] == cold[key] == record.to_dict()[key]
    for other in runs[:2]:
        np.testing.assert_array_equal(other._means, agent._means)
        assert other.phase_history == agent.phase_history
    run_episode(env, runs[2], 6)
    assert not np.allclose(
        runs[2]._means[runs[2]._means > -np.inf], agent._means[agent._means > -np.inf]
    )
    assert run_episode(env, RAGE(), 5, batch=False).correct  # the one-pull path too


@pytest.mark.parametrize("name", list(NOISELESS))
def test_the_large_active_set_path_makes_the_same_decisions(name, monkeypatch):
    """Every active set through the pair-generation path (threshold 0): the noiseless phases and
    eliminations are still the predicted ones."""
    import agents.linear_bai.rage as rage

    features, theta = NOISELESS[name]
    dense = RAGE()
    run_episode(custom(features, theta, 0.0, delta=0.05), dense, 0)
    monkeypatch.setattr(rage, "DENSE_MAX_PAIRS", 0)
    DESIGNS.clear()
    try:
        lazy = RAGE()
        record = run_episode(custom(features, theta, 0.0, delta=0.05), lazy, 0)
    finally:
        DESIGNS.clear()  # the memo's keys do not say which path filled them
    assert record.correct
    assert [e["survivors"] for e in lazy.phase_history] == [
        e["survivors"] for e in dense.phase_history
    ]
    for a, b in zip(lazy.phase_history, dense.phase_history, strict=True):
        assert a["rho"] == pytest.approx(b["rho"], rel=2e-3)  # both designs within design_tol


def test_factored_phase_estimator_equals_the_dense_one():
    from agents.common.design_cache import ols_estimator
    from agents.linear_bai.rage import _FactoredEstimator, _phase_estimator

    rng = np.random.default_rng(41)
    z = rng.standard_normal((150, 6))
    counts = rng.integers(0, 5, size=150)
    sums = rng.standard_normal(150)
    active = np.arange(3, 150)
    est = _phase_estimator(z, counts, active)
    assert isinstance(est, _FactoredEstimator)
    np.testing.assert_allclose(
        est @ sums, ols_estimator(z, counts, active) @ sums, rtol=1e-10, atol=1e-12
    )
    assert isinstance(_phase_estimator(z, counts, active[:100]), np.ndarray)  # 4950 pairs
