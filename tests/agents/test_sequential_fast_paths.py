"""The sequential agents' fast paths change no result.

* Seeded records (samples, answer, a digest of the pulls per arm) of LinGapE, linear
  Track-and-Stop, APE and the agents built on them (m-LinGapE, LinGIFA, LazyTTS), recorded
  **before** the optimisations, asserted as literals: every change whose arithmetic is the
  original's must reproduce them bit for bit.
* Where the arithmetic order changed — LinGapE's column state (a few columns of G = X A⁻¹ Xᵀ
  kept by one rank-one BLAS update, A⁻¹ folded lazily), and the column-generation LP of its
  ratio rule — the new path is run against the reference path on the same seeds: nearly every
  record is identical (round-off only flips near-ties) and the sample counts have the same
  distribution (two-sample KS test, as :func:`agents.checks.check_batch_equivalence`).
* Track-and-Stop's O(h) certificate that skips the O(K h) GLR statistic decides exactly as
  the full test, and its :attr:`statistic` still reports the exact Z(t).

Note: Track-and-Stop's records also depend on :func:`bandit_envs.theory.design.transductive_design`;
a change of that solver's iterates may legitimately change them.
"""

from __future__ import annotations

import hashlib

import gymnasium as gym
import numpy as np
import pytest
from scipy import stats

import bandit_envs  # noqa: F401
from agents.common import kernels
from agents.common.design_cache import DESIGNS
from agents.common.params import Boolean
from agents.eps_good.lazy_tts import LazyTTS
from agents.eps_good.top_m import LinGIFA, MLinGapE
from agents.linear_bai import lingape as lingape_module
from agents.linear_bai.lingape import LinGapE, single_direction_design, single_direction_design_full
from agents.linear_bai.track_and_stop import LinearTrackAndStop
from agents.pareto.psi_confidence import APE
from bandit_envs import run_episode
from bandit_envs.theory.thresholds import glr_best_arm


def _custom(k: int, h: int, seed: int, sigma: float = 1.0) -> gym.Env:
    """K unit-norm Gaussian arms in R^h, θ = x_0 (arm 0 is the best), δ = 0.05."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((k, h))
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    return gym.make(
        "LinearBAI-Custom-v0",
        features=x,
        theta=x[0].copy(),
        sigma=sigma,
        delta=0.05,
        max_samples=10**6,
    )


ENVS = {
    "soare2": lambda: gym.make("LinearBAI-Soare-v0", d=2, omega=0.1, delta=0.05),
    "c20x5": lambda: _custom(20, 5, 1),  # LinGapE's G representation (K ≤ 32)
    "c50x3": lambda: _custom(50, 3, 2),  # LinGapE's column state
    "psi10": lambda: gym.make("LinearPSI-Synthetic-v0", K=10),
    "psi20": lambda: gym.make("LinearPSI-Synthetic-v0", K=20),
    "eps": lambda: gym.make("LinearEpsGood-Static-v0", d=4, m_tilde=2, sigma=0.2),
}

AGENTS = {
    "LinGapE()": LinGapE,
    "LinGapE(selection='ratio')": lambda: LinGapE(selection="ratio"),
    "LinGapE(confidence='self_normalized_ols')": lambda: LinGapE(confidence="self_normalized_ols"),
    "LinGapE(selection='ratio', confidence='self_normalized', theta_bound=2.0)": lambda: LinGapE(
        selection="ratio", confidence="self_normalized", theta_bound=2.0
    ),
    "LinearTrackAndStop()": LinearTrackAndStop,
    "LinearTrackAndStop(threshold='heuristic')": lambda: LinearTrackAndStop(threshold="heuristic"),
    "LinearTrackAndStop(tracking='D', forced='g_optimal')": lambda: LinearTrackAndStop(
        tracking="D", forced="g_optimal"
    ),
    "APE()": APE,
    "APE(threshold='heuristic')": lambda: APE(threshold="heuristic"),
    "APE(pull='least_sampled', threshold='heuristic')": lambda: APE(
        pull="least_sampled", threshold="heuristic"
    ),
    "MLinGapE()": MLinGapE,
    "LinGIFA()": LinGIFA,
    "LazyTTS()": LazyTTS,
}

#: (env, agent, seed, samples, answer, sha256 of repr(pulls)[:16]), recorded before the fast
#: paths were written (commit c776ea6).
RECORDS = [
    ("soare2", "LinGapE()", 0, 1855, (0,), "5d8574b9e85f5f78"),
    ("soare2", "LinGapE()", 1, 362, (0,), "4e891c22c915bb01"),
    ("soare2", "LinGapE(selection='ratio')", 0, 898, (0,), "28ed97e01a4fa2af"),
    ("soare2", "LinGapE(selection='ratio')", 1, 751, (0,), "e488ad80459bbe98"),
    ("soare2", "LinGapE(confidence='self_normalized_ols')", 0, 4472, (0,), "63c76edd5dd77736"),
    ("soare2", "LinGapE(confidence='self_normalized_ols')", 1, 2936, (0,), "83e9426865a2439d"),
    (
        "soare2",
        "LinGapE(selection='ratio', confidence='self_normalized', theta_bound=2.0)",
        0,
        3948,
        (0,),
        "95308080b4aa1453",
    ),
    (
        "soare2",
        "LinGapE(selection='ratio', confidence='self_normalized', theta_bound=2.0)",
        1,
        3439,
        (0,),
        "d293346e8697c4ce",
    ),
    ("c20x5", "LinGapE()", 0, 341, (0,), "12bd34609ea1ea1d"),
    ("c20x5", "LinGapE()", 1, 202, (0,), "d04a45d80df731fc"),
    ("c20x5", "LinGapE(selection='ratio')", 0, 106, (0,), "8a498a21dabf0385"),
    ("c20x5", "LinGapE(selection='ratio')", 1, 221, (0,), "5b773c5998f71431"),
    ("c50x3", "LinGapE()", 0, 1950, (0,), "49370700cc1aa9d2"),
    ("c50x3", "LinGapE()", 1, 2594, (0,), "7c6836c6c1d98001"),
    ("c50x3", "LinGapE(selection='ratio')", 0, 4273, (0,), "cb05abe82a5683ee"),
    ("c50x3", "LinGapE(selection='ratio')", 1, 4163, (0,), "5e874187a7cc42ab"),
    ("c50x3", "LinGapE(confidence='self_normalized_ols')", 0, 10760, (0,), "25cc4316f1768ec1"),
    ("c50x3", "LinGapE(confidence='self_normalized_ols')", 1, 11776, (0,), "3dd73497124dbb9b"),
    ("soare2", "LinearTrackAndStop()", 0, 1519, (0,), "72ebb442cbafebee"),
    ("soare2", "LinearTrackAndStop()", 1, 785, (0,), "c4edb18f83d9c0d9"),
    ("soare2", "LinearTrackAndStop(threshold='heuristic')", 0, 746, (0,), "be5234edbaa4b7ee"),
    ("soare2", "LinearTrackAndStop(threshold='heuristic')", 1, 488, (0,), "051e683073f94d1b"),
    (
        "soare2",
        "LinearTrackAndStop(tracking='D', forced='g_optimal')",
        0,
        1979,
        (0,),
        "cb329252b10bd4ab",
    ),
    (
        "soare2",
        "LinearTrackAndStop(tracking='D', forced='g_optimal')",
        1,
        769,
        (0,),
        "d476fe6695a44edf",
    ),
    ("psi10", "APE(threshold='heuristic')", 0, 10342, (0, 1, 2, 3, 4), "b718e217f8a9aec6"),
    ("psi10", "APE(threshold='heuristic')", 1, 7192, (0, 1, 2, 3, 4), "6fe4285870c8dce2"),
    (
        "psi10",
        "APE(pull='least_sampled', threshold='heuristic')",
        0,
        6092,
        (0, 1, 2, 3, 4),
        "d4df3fdb5bf9b053",
    ),
    (
        "psi10",
        "APE(pull='least_sampled', threshold='heuristic')",
        1,
        5161,
        (0, 1, 2, 3, 4),
        "907d73815cf78b9f",
    ),
    ("eps", "MLinGapE()", 0, 15, (0, 1), "3d1e76a54fedac67"),
    ("eps", "MLinGapE()", 1, 9, (0, 1), "d9470f782ba5ac37"),
    ("eps", "LinGIFA()", 0, 15, (0, 1), "3d1e76a54fedac67"),
    ("eps", "LinGIFA()", 1, 9, (0, 1), "d9470f782ba5ac37"),
    ("eps", "LazyTTS()", 0, 24, (0, 1), "b39f446ba9a1dbda"),
    ("eps", "LazyTTS()", 1, 39, (0, 1), "9d075ce1f53c1dd9"),
]

#: the same, for episodes of several seconds (design solves, the union widths of APE).
SLOW_RECORDS = [
    ("c20x5", "LinearTrackAndStop(threshold='heuristic')", 0, 336, (0,), "d0c4e88190330d5a"),
    ("c20x5", "LinearTrackAndStop(threshold='heuristic')", 1, 255, (0,), "c1ebd3c4c462fd2f"),
    ("c50x3", "LinearTrackAndStop()", 0, 6862, (0,), "8e6fee972612be77"),
    ("c50x3", "LinearTrackAndStop()", 1, 6184, (0,), "8d50b2a07e2814c3"),
    ("psi20", "APE()", 0, 41828, (0, 1, 2, 3, 4), "d3641d9e0c7e6cdd"),
    ("psi20", "APE()", 1, 61950, (0, 1, 2, 3, 4), "403235cfe46e60db"),
]


def _digest(pulls: tuple[int, ...]) -> str:
    return hashlib.sha256(repr(tuple(pulls)).encode()).hexdigest()[:16]


_ENV_CACHE: dict[str, gym.Env] = {}


def _check(
    env_name: str, agent: str, seed: int, samples: int, answer: tuple[int, ...], digest: str
) -> None:
    env = _ENV_CACHE.setdefault(env_name, ENVS[env_name]())
    record = run_episode(env, AGENTS[agent](), seed)
    assert (record.samples, record.answer, _digest(record.pulls)) == (
        samples,
        frozenset(answer),
        digest,
    )


@pytest.mark.parametrize("row", RECORDS, ids=lambda r: f"{r[0]}-{r[1]}-{r[2]}")
def test_seeded_records_are_unchanged(row):
    _check(*row)


@pytest.mark.slow
@pytest.mark.parametrize("row", SLOW_RECORDS, ids=lambda r: f"{r[0]}-{r[1]}-{r[2]}")
def test_seeded_records_are_unchanged_slow(row):
    _check(*row)


# ---------------------------------------------------------------------------- LinGapE's state


class _WStateLinGapE(LinGapE):
    """LinGapE on the W = X A⁻¹ representation (the arithmetic before the column state): a
    subclass that overrides the decision keeps W (see LinGapE._start)."""

    def _decide(self) -> None:
        super()._decide()


def _same_seeds(make_new, make_ref, env: gym.Env, seeds: range) -> None:
    new = [run_episode(env, make_new(), s) for s in seeds]
    ref = [run_episode(env, make_ref(), s) for s in seeds]
    same = sum(
        (a.samples, a.answer, a.pulls) == (b.samples, b.answer, b.pulls)
        for a, b in zip(new, ref, strict=True)
    )
    assert same >= 0.9 * len(seeds), f"only {same} of {len(seeds)} records identical"
    xs, ys = [r.samples for r in new], [r.samples for r in ref]
    assert stats.ks_2samp(xs, ys).pvalue > 1e-3
    assert sum(r.correct for r in new) == pytest.approx(sum(r.correct for r in ref), abs=3)


@pytest.mark.parametrize("selection", ["greedy", "ratio"])
def test_column_state_matches_the_w_representation(selection):
    env = _custom(40, 3, 5, sigma=0.5)
    _same_seeds(
        lambda: LinGapE(selection=selection),
        lambda: _WStateLinGapE(selection=selection),
        env,
        range(30),
    )


def test_column_state_equals_a_fresh_computation_after_many_evictions():
    """K = 60 arms in R^12 and many distinct pulled arms: every kept column, caught up through
    the log of updates, is exact, also across exact refreshes (every 1024 pulls) and after
    more columns were needed than are kept (evictions)."""
    env = _custom(60, 12, 3, sigma=3.0)
    _, info = env.reset(seed=0)
    agent = LinGapE()
    agent.reset(info["problem"], np.random.default_rng(0))
    rng = np.random.default_rng(1)
    for t in range(2200):  # the agent's own choices, then arbitrary arms (evictions)
        arm = agent.select() if t % 4 == 0 else int(rng.integers(60))
        if arm is None:
            break
        obs, *_ = env.step(arm)
        agent.observe(arm, obs)
    ints = agent._ints
    assert agent._columns and agent.t == 2200
    assert ints[kernels.MISSES] > 60 and ints[kernels.TICK] > 1000
    slots = kernels.lingape_slots(ints, agent._pmax)
    assert len(slots) == agent._pmax == 32
    assert max(kernels.lingape_lags(ints, agent._pmax).values()) > 0  # the sync has work
    z = agent._z
    inv = np.linalg.inv((z.T * agent.counts) @ z)
    g = z @ inv @ z.T
    np.testing.assert_allclose(agent._e, 1.0 + np.diag(g), rtol=1e-9)
    np.testing.assert_allclose(
        agent._means, z @ inv @ (z.T @ agent.sums[:, 0]), rtol=1e-9, atol=1e-12
    )
    agent._sync()
    assert max(kernels.lingape_lags(ints, agent._pmax).values()) == 0
    for arm, col in slots.items():
        np.testing.assert_allclose(agent._m[:, col], g[:, arm], rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(agent._ru[:, col - 1], inv @ z[arm], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(agent._ainv, inv, rtol=1e-9, atol=1e-12)


def test_column_generation_lp_is_the_full_lp():
    """K = 300 > 20 r: the restricted LPs end at the optimum of the full LP (same design)."""
    rng = np.random.default_rng(4)
    for r in (2, 3):
        z = rng.standard_normal((300, r))
        for _ in range(4):
            i, j = rng.choice(300, 2, replace=False)
            y = z[i] - z[j]
            fast, full = single_direction_design(z, y), single_direction_design_full(z, y)
            np.testing.assert_allclose(fast, full, atol=1e-9)
            value = float(y @ np.linalg.pinv((z.T * fast) @ z) @ y)
            assert value == pytest.approx(float(y @ np.linalg.pinv((z.T * full) @ z) @ y))


def test_column_generation_widens_a_subset_that_does_not_span_y():
    """Arms 0–9, the only ones with a component along e₃, score lowest on |zᵀy|: the first
    subsets cannot represent y (infeasible LPs) and are doubled until they can."""
    rng = np.random.default_rng(7)
    z = np.zeros((200, 3))
    z[:, :2] = rng.standard_normal((200, 2)) * 10.0
    z[:10, 2] = rng.uniform(0.1, 0.2, size=10)
    z[:10, :2] *= 0.01
    y = np.array([1.0, 0.0, 0.01])
    np.testing.assert_allclose(
        single_direction_design(z, y), single_direction_design_full(z, y), atol=1e-9
    )


def test_ratio_rule_with_column_generation_matches_the_full_lp(monkeypatch):
    env = _custom(100, 2, 6, sigma=0.5)  # K = 100 > max(64, 20 r): column generation

    def full_lp(seed: int):
        with monkeypatch.context() as m:
            m.setattr(lingape_module, "single_direction_design", single_direction_design_full)
            DESIGNS.clear()
            return run_episode(env, LinGapE(selection="ratio"), seed)

    for seed in range(3):
        DESIGNS.clear()
        new = run_episode(env, LinGapE(selection="ratio"), seed)
        ref = full_lp(seed)
        assert (new.samples, new.answer, new.pulls) == (ref.samples, ref.answer, ref.pulls)
    DESIGNS.clear()


# ---------------------------------------------------------------------------- Track-and-Stop


class _CountingTaS(LinearTrackAndStop):
    """Counts the stopping tests decided by the O(h) certificate (``exact=False`` disables it)."""

    # a narrower signature than LinearTrackAndStop's: its own constraints table
    parameters = {"exact": Boolean(), "threshold": LinearTrackAndStop.parameters["threshold"]}

    def __init__(self, exact: bool = False, threshold: str = "proven") -> None:
        super().__init__(threshold=threshold, design_tol=0.05, recompute_ratio=0.5)
        self.exact = exact

    def _on_reset(self, spec) -> None:
        super()._on_reset(spec)
        self._exact_glr = not self.exact
        self.skipped = 0

    def _glr_certainly_below(self, means: np.ndarray) -> bool:
        skip = super()._glr_certainly_below(means)
        self.skipped += skip
        return skip


@pytest.mark.parametrize("threshold", ["proven", "heuristic"])
def test_glr_certificate_decides_as_the_full_test(threshold):
    env = gym.make("LinearBAI-Soare-v0", d=2, omega=0.1, delta=0.05)
    skipped = 0
    for seed in range(3):
        fast = _CountingTaS(threshold=threshold)
        full = _CountingTaS(exact=True, threshold=threshold)
        a, b = run_episode(env, fast, seed), run_episode(env, full, seed)
        assert (a.samples, a.answer, a.pulls) == (b.samples, b.answer, b.pulls)
        assert full.skipped == 0
        skipped += fast.skipped
    assert skipped > 100  # the certificate did decide most tests


def test_statistic_is_the_exact_glr_after_a_certified_test():
    env = gym.make("LinearBAI-Soare-v0", d=2, omega=0.1, delta=0.05)
    _, info = env.reset(seed=0)
    agent = _CountingTaS()
    agent.reset(info["problem"], np.random.default_rng(0))
    for _ in range(300):
        arm = agent.select()
        obs, *_ = env.step(arm)
        agent.observe(arm, obs)
    assert agent.skipped > 0 and np.isnan(agent._z_stat)
    z = agent._z
    inv = np.linalg.inv((z.T * agent.counts) @ z)
    _, expected = glr_best_arm(z, inv @ (z.T @ agent.sums[:, 0]), inv, 1.0)
    z_stat, beta = agent.statistic
    assert z_stat == pytest.approx(expected, rel=1e-9) and z_stat < beta
