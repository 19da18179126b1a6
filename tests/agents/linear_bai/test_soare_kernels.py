"""The compiled steps of Soare et al.'s allocations against NumPy/Python oracles written here.

The oracles are the NumPy expressions the kernels replaced (same operation order), so the
comparisons are exact, not approximate; the literal records at the end were produced by the
code before the kernels.
"""

from __future__ import annotations

import math

import gymnasium as gym
import numpy as np
import pytest

import registry
from agents.common.kernels import soare as soare_kernels
from agents.linear_bai.greedy_allocation import (
    TIE_RTOL,
    GramState,
    GreedyPhase,
    GreedySequence,
    GreedyState,
    adams_next,
    empirical_stop,
    pair_indices,
    select_greedy,
)
from bandit_envs.core.runner import run_episode


# ----------------------------------------------------------------- oracles (the NumPy code)
def oracle_select(scores: np.ndarray, rtol: float = TIE_RTOL) -> int:
    colmax = scores.max(axis=0)
    j = int(np.argmin(colmax))
    best = float(colmax[j])
    floor = rtol * rtol * abs(best)
    cand = np.flatnonzero(colmax <= best + rtol * abs(best) + floor)
    if cand.size == 1:
        return j
    ordered = -np.sort(-scores[:, cand], axis=0)
    for level in range(1, ordered.shape[0]):
        vals = ordered[level]
        low = float(vals.min())
        keep = vals <= low + rtol * abs(low) + floor
        if not keep.all():
            cand, ordered = cand[keep], ordered[:, keep]
            if cand.size == 1:
                break
    return int(cand[0])


class OracleGreedy:
    """GreedyState's NumPy arithmetic (without refreshes)."""

    def __init__(self, arms, targets, weights, counts):
        a = (arms.T * counts) @ arms
        inv = np.linalg.inv(0.5 * (a + a.T))
        b = 0.5 * (inv + inv.T)
        vb = targets @ b
        self.p = np.ascontiguousarray(vb @ arms.T)
        self.q = np.einsum("ij,ij->i", vb, targets)
        self.g = np.ascontiguousarray(arms @ b @ arms.T)
        self.s = np.diagonal(self.g).copy()
        self.w = weights

    def step(self) -> int:
        sc = self.q[:, None] - self.p * self.p / (1.0 + self.s)
        if self.w is not None:
            sc *= self.w[:, None]
        arm = oracle_select(sc)
        ga, pa = self.g[:, arm].copy(), self.p[:, arm].copy()
        gs = ga / (1.0 + ga[arm])
        self.q -= pa * pa * (1.0 / (1.0 + ga[arm]))
        self.p -= pa[:, None] * gs
        self.g -= ga[:, None] * gs
        self.s -= ga * gs
        return arm


def oracle_stop(z, theta, inv, beta, arms=None):
    """Eq. 11 with Python floats summed in index order (the kernel's order)."""
    idx = list(range(z.shape[0])) if arms is None else [int(a) for a in arms]
    d = z.shape[1]
    means = [sum(z[x, c] * theta[c] for c in range(d)) for x in idx]
    best = idx[int(np.argmax(means))]
    if len(idx) < 2:
        return best
    gaps, ratios = [], []
    for x in idx:
        diff = [z[best, c] - z[x, c] for c in range(d)]
        gap = 0.0
        for c in range(d):
            gap += diff[c] * theta[c]
        row = []
        for c in range(d):
            acc = 0.0
            for e in range(d):
                acc += diff[e] * inv[e, c]
            row.append(acc)
        quad = 0.0
        for c in range(d):
            quad += row[c] * diff[c]
        if quad <= 0.0:
            gap = math.inf
        gaps.append(gap)
        ratios.append(quad / (gap * gap))
    if min(gaps) <= 0.0:
        return None
    return best if beta * beta * max(ratios) <= 1.0 else None


# ----------------------------------------------------------------- greedy step
@pytest.mark.parametrize("m", [1, 2, 5, 40])
def test_select_greedy_is_the_numpy_tie_rule_on_tie_heavy_matrices(m):
    rng = np.random.default_rng(m)
    for trial in range(300):
        k = int(rng.integers(1, 50))
        scores = rng.integers(0, 3, size=(m, k)).astype(float) / 4.0  # many exact ties
        if trial % 3 == 0:
            scores += rng.uniform(0, 1e-10, size=scores.shape)  # ties within rtol
        assert select_greedy(scores) == oracle_select(scores)
    toy = np.array([[1.0, 1.0, 1.0], [0.2, 0.5, 0.2], [0.1, 0.0, 0.05]])
    assert select_greedy(toy) == 2


@pytest.mark.parametrize(("k", "d", "weighted"), [(3, 2, False), (6, 3, True), (12, 4, False)])
def test_greedy_run_is_the_numpy_greedy_step_bit_for_bit(k, d, weighted):
    rng = np.random.default_rng(k)
    arms = rng.normal(size=(k, d))
    arms[0] = arms[1]  # a duplicate arm: exact ties in every step
    i, j = pair_indices(np.arange(k))
    targets = arms[i] - arms[j]
    weights = rng.uniform(0.5, 2.0, size=targets.shape[0]) if weighted else None
    counts = np.ones(k, dtype=np.int64)
    state = GreedyState(arms, targets, weights, counts)
    oracle = OracleGreedy(arms, targets, weights, counts)
    seq = np.zeros(600, dtype=np.int32)
    done = 0
    while done < 600:
        done += state.run(seq, done, 600 - done)
    expected = [oracle.step() for _ in range(600)]
    assert seq.tolist() == expected
    assert np.array_equal(state._p, oracle.p) and np.array_equal(state._q, oracle.q)
    assert np.array_equal(state._g, oracle.g) and np.array_equal(state._s, oracle.s)
    # the one-step API agrees with the run
    again = GreedyState(arms, targets, weights, counts)
    assert [again.step() for _ in range(50)] == expected[:50]


def test_greedy_phase_ends_at_the_first_pull_meeting_eq18():
    rng = np.random.default_rng(3)
    arms = rng.normal(size=(5, 3))
    i, j = pair_indices(np.arange(5))
    targets = arms[i] - arms[j]
    init = np.array([0, 1, 2])
    first = GreedyPhase(arms, targets, init, 0.05, 4)
    first.ensure(10**6)
    assert first.complete and first.U <= 0.05
    n = first.length
    # the brute-force trace: U after every pull of the same sequence
    oracle = OracleGreedy(arms, targets, None, np.bincount(init, minlength=5))
    for pos in range(init.size, n):
        oracle.step()
        u = max(float(oracle.q.max()), 0.0)
        if pos + 1 < n:
            assert not (u <= 0.05 and pos + 1 - init.size >= 4)
    assert u <= 0.05


def test_greedy_sequence_survives_an_exact_refresh(monkeypatch):
    import agents.linear_bai.greedy_allocation as ga

    monkeypatch.setattr(ga, "REFRESH_EVERY", 7)
    rng = np.random.default_rng(4)
    arms = rng.normal(size=(4, 2))
    seq = GreedySequence(arms, arms, None, np.array([0, 1]))
    seq.ensure(100)
    counts = seq.counts_at(100)
    assert counts.sum() == 100
    state = GreedyState(arms, arms, None, counts)
    inv = np.linalg.inv((arms.T * counts) @ arms)
    np.testing.assert_allclose(state._q, np.einsum("ij,jk,ik->i", arms, inv, arms), rtol=1e-9)


# ----------------------------------------------------------------- least squares and Eq. 11
def test_gram_pull_is_sherman_morrison_and_eq11_bit_for_bit():
    rng = np.random.default_rng(5)
    k, d = 7, 3
    z = np.ascontiguousarray(rng.normal(size=(k, d)))
    gram = GramState(z)
    own_counts, own_sums = np.zeros(k, dtype=np.int64), np.zeros((k, 1))
    theta_true = z[2] + 0.1
    for t in range(400):
        arm = int(rng.integers(k)) if t >= d else t
        reward = float(z[arm] @ theta_true + rng.normal())
        inv_before = None if gram.inv is None else gram.inv.copy()
        b_before = gram.b.copy()
        beta = 0.3 * math.sqrt(1 + t)
        out = gram.add_and_check(arm, reward, beta, own_counts, own_sums)
        if inv_before is not None:
            x = z[arm]
            bx = [sum(inv_before[r, c] * x[c] for c in range(d)) for r in range(d)]
            den = 1.0 + sum(x[c] * bx[c] for c in range(d))
            want = np.array([[inv_before[r, c] - bx[r] * (bx[c] / den) for c in range(d)]
                             for r in range(d)])  # fmt: skip
            assert np.array_equal(gram.inv, want)
            assert np.array_equal(gram.b, b_before + x * reward)
        if gram.inv is not None:
            theta = np.array([sum(gram.inv[r, c] * gram.b[c] for c in range(d)) for r in range(d)])
            want_best = oracle_stop(z, theta, gram.inv, beta)
            assert out == (-1 if want_best is None else want_best)
    assert np.array_equal(own_counts, gram.counts)
    assert np.array_equal(own_sums[:, 0], gram.sums)
    with pytest.raises(IndexError):
        gram.add_and_check(k, 0.0, None, own_counts, own_sums)


@pytest.mark.parametrize("restricted", [False, True])
def test_empirical_stop_matches_the_oracle(restricted):
    rng = np.random.default_rng(6)
    for _ in range(300):
        k, d = int(rng.integers(2, 9)), int(rng.integers(1, 5))
        z = rng.normal(size=(k, d))
        z[1] = z[0] if rng.random() < 0.2 else z[1]  # duplicates of the best
        a = rng.normal(size=(d, d))
        inv = a @ a.T * 0.01
        theta = rng.normal(size=d)
        arms = np.sort(rng.choice(k, size=int(rng.integers(1, k + 1)), replace=False))
        beta = float(rng.uniform(0, 3))
        sub = arms if restricted else None
        assert empirical_stop(z, theta, inv, beta, sub) == oracle_stop(z, theta, inv, beta, sub)


def test_adams_next_is_the_first_argmin_of_counts_over_weights():
    rng = np.random.default_rng(7)
    for _ in range(200):
        k = int(rng.integers(1, 20))
        counts = rng.integers(0, 6, size=k)
        weights = rng.choice([0.25, 0.5, 1.0], size=k)  # frequent ties
        support = np.sort(rng.choice(k, size=int(rng.integers(1, k + 1)), replace=False))
        keys = counts[support] / weights[support]
        assert adams_next(counts, weights, support) == int(support[int(np.argmin(keys))])


# ----------------------------------------------------------------- fully adaptive round
def oracle_round(z, inv, b, n, lsq, eta, delta, sigma, s_bound):
    theta = inv @ b
    s = math.sqrt(float(theta @ theta)) if s_bound is None else s_bound
    beta = sigma * math.sqrt(z.shape[1] * math.log((1.0 + n * lsq / eta) / delta))
    beta += math.sqrt(eta) * s
    g = (z @ inv) @ z.T
    diag = np.diagonal(g)
    quad = np.maximum(diag[:, None] + diag[None, :] - 2.0 * g, 0.0)
    means = z @ theta
    gaps = means[None, :] - means[:, None]
    keep = ~((gaps > 0.0) & (beta * beta * quad < gaps * gaps)).any(axis=1)
    if keep.sum() == 1:
        return -1 - int(np.flatnonzero(keep)[0])
    i, j = pair_indices(np.flatnonzero(keep))
    p = g[i] - g[j]
    return oracle_select(quad[i, j][:, None] - p * p / (1.0 + diag))


@pytest.mark.parametrize("s_bound", [None, 1.5])
def test_fully_adaptive_round_matches_the_numpy_round(s_bound):
    rng = np.random.default_rng(8)
    seen = set()
    for _ in range(200):
        k, d = int(rng.integers(2, 8)), int(rng.integers(1, 4))
        z = np.ascontiguousarray(rng.normal(size=(k, d)))
        n = int(rng.integers(d, 5000))
        a = (z.T * rng.integers(1, n // k + 2, size=k)) @ z + np.eye(d)
        inv = np.linalg.inv(a)
        b = a @ (z[0] + 0.3 * rng.normal(size=d)) + rng.normal(size=d) * math.sqrt(n) * 0.1
        lsq, eta, delta, sigma = float(np.max((z * z).sum(1))), 1.0, 0.05, 0.5
        got = soare_kernels.fully_adaptive_round(
            z, inv, b, (1.0 + n * lsq / eta) / delta, sigma, d, math.sqrt(eta),
            -1.0 if s_bound is None else s_bound, TIE_RTOL,
        )  # fmt: skip
        want = oracle_round(z, inv, b, n, lsq, eta, delta, sigma, s_bound)
        assert got == want
        seen.add(got < 0)
    assert seen == {True, False}  # both outcomes (stop, pull) were exercised


# ----------------------------------------------------------------- seeded records
def _custom8() -> gym.Env:
    rng = np.random.default_rng(5)
    x = rng.standard_normal((8, 3))
    return gym.make(
        "LinearBAI-Custom-v0", features=x, theta=x[2] + 0.05, sigma=1.0, delta=0.1,
        max_samples=10**7,
    )  # fmt: skip


#: (agent, parameters, batch path, seed 0 record, seed 1 record), records (samples, pulls) of
#: the code before the kernels (answer 2 throughout).
RECORDS = [
    ("GAllocation", {}, None, (610, [79, 0, 86, 122, 126, 125, 72, 0]),
     (784, [101, 0, 114, 156, 158, 159, 96, 0])),
    ("GAllocation", {}, False, (1160, [140, 0, 164, 237, 234, 240, 145, 0]),
     (952, [132, 0, 154, 156, 215, 159, 136, 0])),
    ("GAllocation", {"check_growth": 0.01}, None, (751, [95, 0, 105, 156, 149, 159, 87, 0]),
     (727, [90, 0, 97, 155, 146, 158, 81, 0])),
    ("XYAllocation", {}, None, (1079, [177, 45, 172, 223, 223, 141, 62, 36]),
     (1465, [243, 56, 234, 302, 303, 192, 84, 51])),
    ("XYAllocation", {}, False, (1389, [230, 56, 221, 287, 286, 182, 78, 49]),
     (890, [144, 41, 141, 185, 183, 116, 52, 28])),
    ("XYOracle", {}, None, (384, [0, 0, 0, 78, 118, 188, 0, 0]),
     (1036, [0, 0, 0, 211, 318, 507, 0, 0])),
    ("XYOracle", {}, False, (739, [0, 0, 0, 150, 227, 362, 0, 0]),
     (757, [0, 0, 0, 154, 233, 370, 0, 0])),
    ("XYOracle", {"allocation": "greedy"}, None, (548, [0, 0, 0, 111, 169, 268, 0, 0]),
     (978, [0, 0, 0, 199, 301, 478, 0, 0])),
    ("XYAdaptive", {}, None, (1522, [14, 5, 14, 309, 459, 712, 5, 4]),
     (1522, [14, 5, 14, 309, 459, 712, 5, 4])),
    ("XYAdaptive", {"stop_within_phase": True}, None, (774, [14, 5, 176, 103, 136, 331, 5, 4]),
     (892, [14, 5, 14, 181, 265, 404, 5, 4])),
    ("FullyAdaptiveXY", {}, None, (876, [6, 1, 5, 178, 263, 422, 1, 0]),
     (1119, [9, 1, 13, 225, 334, 535, 2, 0])),
    ("FullyAdaptiveXY", {"theta_norm_bound": 2.0}, None,
     (1415, [8, 1, 14, 284, 425, 679, 4, 0]), (1420, [11, 2, 16, 285, 423, 677, 6, 0])),
]  # fmt: skip


@pytest.mark.parametrize(("name", "kw", "batch", "rec0", "rec1"), RECORDS)
def test_seeded_records_of_the_code_before_the_kernels(name, kw, batch, rec0, rec1):
    for seed, (samples, pulls) in enumerate((rec0, rec1)):
        result = run_episode(_custom8(), registry.make_agent(name, **kw), seed, batch=batch)
        assert (result.samples, list(result.pulls)) == (samples, pulls)
        assert result.answer == frozenset({2})
