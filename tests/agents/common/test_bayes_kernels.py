"""BayesGap's and KGCB's compiled kernels against small NumPy / brute-force oracles in the test."""

from __future__ import annotations

import hashlib
import math

import gymnasium as gym
import numpy as np
import pytest
from scipy.special import erfcx
from scipy.stats import norm

import bandit_envs  # noqa: F401
from agents.common.kernels import bayes as bk
from agents.linear_bai.bayes_fb import KGCB, BayesGap
from bandit_envs import run_episode


def _lines_gain(a: np.ndarray, b: np.ndarray) -> float:
    """E[max_i a_i + b_i Z] − max a by each line's interval of maximality (O(K²) Python)."""
    total = 0.0
    for i in range(a.size):
        lo, hi, dominated = -np.inf, np.inf, False
        for j in range(a.size):
            if j == i:
                continue
            if b[j] == b[i]:
                dominated |= a[j] > a[i] or (a[j] == a[i] and j > i)
            elif b[j] < b[i]:
                lo = max(lo, (a[j] - a[i]) / (b[i] - b[j]))
            else:
                hi = min(hi, (a[j] - a[i]) / (b[i] - b[j]))
        if not dominated and lo < hi:
            total += a[i] * (norm.cdf(hi) - norm.cdf(lo)) + b[i] * (norm.pdf(lo) - norm.pdf(hi))
    return total - a.max()


def _kg_args(k: int) -> tuple[np.ndarray, ...]:
    return (
        np.empty(k),
        np.empty(2 * k),
        np.empty(k, dtype=np.int64),
        np.full((k, 2), -1, dtype=np.int64),
    )


def test_f_neg_parts_match_erfcx_and_are_continuous_at_the_branches():
    # oracle: log(1 − sR(s)) with R from scipy's erfcx, accurate where its cancellation is mild
    s = np.r_[np.linspace(0.0, 12.0, 1201), 3.9999999, 4.0, 9.9999999, 10.0]
    oracle = np.log1p(-s * (math.sqrt(math.pi / 2) * erfcx(s / math.sqrt(2))))
    got = np.empty_like(s)
    bk.log_f_neg_into(s, got)
    q = -0.5 * s * s - 0.5 * math.log(2 * math.pi)
    assert got - q == pytest.approx(oracle, rel=1e-12, abs=0)
    # large s: the asymptotic series 1 − sR = u − 3u² + 15u³ − 105u⁴ + 945u⁵, u = s⁻²
    big = np.array([40.0, 1e3])
    out = np.empty_like(big)
    bk.log_f_neg_into(big, out)
    u = 1.0 / big**2
    series = u * (1 - 3 * u + 15 * u**2 - 105 * u**3 + 945 * u**4)
    ref = -0.5 * big**2 - 0.5 * math.log(2 * math.pi) + np.log(series)
    assert out == pytest.approx(ref, rel=1e-14)
    huge = np.array([1e8, 1e100, 1e200, np.inf])  # capped at 1e100: finite, never −inf
    out = np.empty_like(huge)
    bk.log_f_neg_into(huge, out)
    assert out[0] == pytest.approx(-0.5e16, rel=1e-12) and out[1] == out[2] == out[3]
    assert np.all(np.isfinite(out))


@pytest.mark.parametrize("k", [2, 3, 9, 40, 70])
def test_kgcb_choose_is_the_brute_force_knowledge_gradient(k):
    rng = np.random.default_rng(k)
    for trial in range(3 if k < 50 else 1):
        g = rng.normal(size=(k, 3))
        cov = g @ g.T + 0.1 * np.eye(k)  # correlated beliefs (rank 3 + noise)
        mu = rng.normal(size=k)
        if trial == 1:
            mu = np.round(mu)  # equal intercepts
        noise = 0.5
        out, work, idx, ends = _kg_args(k)
        first, ties = bk.kgcb_choose(mu, cov, noise, out, work, idx, ends, 8, 32)
        sd = np.sqrt(noise + np.diag(cov))
        ref = np.array([_lines_gain(mu, cov[x] / sd[x]) for x in range(k)])
        assert np.exp(out) == pytest.approx(ref, rel=1e-9, abs=1e-15)
        assert ties >= 1 and first == int(np.argmax(out))
        # any start of the pre-filter, no pre-filter, merge sorts: bit for bit the same values
        for start in (ends, rng.integers(0, k, size=(k, 2)), np.zeros((k, 2), dtype=np.int64)):
            again = np.empty(k)
            bk.kgcb_choose(mu, cov, noise, again, work, idx, start, 8, 32)
            assert np.array_equal(again, out)
        again = np.empty(k)
        bk.kgcb_choose(mu, cov, noise, again, work, idx, ends, 10**9, 0)
        assert np.array_equal(again, out)


def test_kgcb_choose_counts_ties_and_all_zero_gains():
    mu = np.array([1.0, 1.0, 0.0])
    out, work, idx, ends = _kg_args(3)
    first, ties = bk.kgcb_choose(mu, np.eye(3), 1.0, out, work, idx, ends, 8, 32)
    assert (first, ties) == (0, 2) and out[0] == out[1] > out[2]
    first, ties = bk.kgcb_choose(mu, np.zeros((3, 3)), 1.0, out, work, idx, ends, 8, 32)
    assert (first, ties) == (0, 3) and np.all(out == -np.inf)


@pytest.mark.parametrize("full", [False, True])
def test_posterior_update_is_the_kalman_rank_one_update(full):
    rng = np.random.default_rng(5)
    k, r = 7, 3
    z = rng.normal(size=(k, r))
    s_mat = np.linalg.inv(np.eye(r) + z.T @ z)
    m = rng.normal(size=r)
    mu, cov = z @ m, z @ s_mat @ z.T
    var = np.diag(cov).copy()
    state = [
        s_mat.copy(),
        m.copy(),
        mu.copy(),
        var.copy(),
        cov.copy() if full else np.empty((0, 0)),
    ]
    bk.posterior_update(z, *state, np.empty(2 * (r + k)), 4, 0.7, 0.3)
    # oracle: s = S z_a, d = λ + z_aᵀ s, c = Z s, gain (y − μ_a)/d (NumPy, in the test)
    s = s_mat @ z[4]
    d = 0.3 + z[4] @ s
    c = z @ s
    assert state[0] == pytest.approx(s_mat - np.outer(s, s) / d, rel=1e-13, abs=1e-15)
    assert state[1] == pytest.approx(m + (0.7 - mu[4]) / d * s, rel=1e-13)
    assert state[2] == pytest.approx(mu + (0.7 - mu[4]) / d * c, rel=1e-13)
    assert state[3] == pytest.approx(var - c * c / d, rel=1e-12, abs=1e-15)
    if full:
        assert state[4] == pytest.approx(cov - np.outer(c, c) / d, rel=1e-12, abs=1e-15)
        assert np.array_equal(state[3], np.diag(state[4]))


def _bayesgap_oracle(mu, sd, beta, beta_num, eps, floor):
    k = mu.size
    others = lambda v: np.array([np.delete(v, i).max() for i in range(k)])  # noqa: E731
    if beta <= 0:
        b3 = others(mu + 3 * sd) - (mu - 3 * sd)
        beta = math.sqrt(beta_num / (4 * np.sum(np.maximum(0.5 * (np.abs(b3) + eps), floor) ** -2)))
    gap = others(mu + beta * sd) - (mu - beta * sd)
    cand = int(np.argmin(gap))
    upper = mu + beta * sd
    challenger = max((i for i in range(k) if i != cand), key=lambda i: (upper[i], -i))
    return (cand if sd[cand] >= sd[challenger] else challenger), beta, cand, gap[cand]


@pytest.mark.parametrize("beta", [0.0, 1.3])
def test_bayesgap_choose_matches_the_gap_index_by_hand(beta):
    rng = np.random.default_rng(11)
    for trial in range(30):
        k = int(rng.integers(2, 30))
        mu = rng.normal(size=k)
        var = rng.uniform(-1e-3, 1.0, size=k)  # round-off negatives are clipped
        if trial % 3 == 0:
            mu, var = np.round(mu, 1), np.round(var, 1)  # ties
        sd = np.empty(k)
        got = bk.bayesgap_choose(mu, var, sd, beta, 500.0, 0.1, 1e-9)
        ref = _bayesgap_oracle(mu, np.sqrt(np.maximum(var, 0)), beta, 500.0, 0.1, 1e-9)
        assert got[0] == ref[0] and got[2] == ref[2]
        assert got[1] == pytest.approx(ref[1], rel=1e-12)
        assert got[3] == pytest.approx(ref[3], rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("agent_cls", [BayesGap, KGCB])
def test_noiseless_correlated_instance(agent_cls):
    # K = 30 correlated arms, no noise: the pre-filter and the envelope are exercised, and the
    # best arm is found within a short budget
    rng = np.random.default_rng(2)
    x = rng.normal(size=(30, 4))
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    env = gym.make("LinearBAI-Custom-v0", features=x, theta=x[7], sigma=0.0, budget=120)
    rec = run_episode(env, agent_cls(), 0)
    assert rec.correct and rec.samples == 120


def _custom24() -> gym.Env:
    rng = np.random.default_rng(3)
    x = rng.normal(size=(24, 4))
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    theta = x[0] + 0.3 * (x[1] - x[0])
    return gym.make("LinearBAI-Custom-v0", features=x, theta=theta, sigma=1.0, budget=400)


_ENVS = {
    "basis": lambda: gym.make("LinearBAI-Basis-v0", d=3, gap=0.5, budget=300),
    "adaptive": lambda: gym.make("LinearEpsGood-Adaptive-v0", budget=400),
    "c24x4": _custom24,
}
#: (samples, answer, digest of the pulls per arm) of seeds 0–3, recorded with the NumPy code
#: before the kernels; BayesGap on "adaptive" is left out: its exactly tied σ's make one of
#: these seeds flip with the order of the dot products' additions (shown statistically
#: unchanged on 1,000 seeds instead)
_BEFORE = {
    ("basis", "BayesGap"): ["b060cfa20995", "b9a8e93522c5", "da504fecf87e", "e0e5b19b1dff"],
    ("basis", "KGCB"): ["f12a50877a1b", "e6f5c20e25fd", "ea5afae6144c", "795b0d52f3d9"],
    ("adaptive", "KGCB"): ["1c148da131d7", "5f905a4da229", "489bfcafa812", "bc7c580d2250"],
    ("c24x4", "BayesGap"): ["357600b6899f", "e1367ae70525", "9be4548828d5", "d1ac35b1e440"],
    ("c24x4", "KGCB"): ["163cc8e63dc6", "dcb3b4891ce2", "e1998d60ecdf", "07430561df0b"],
}
_ANSWERS = {
    ("basis", "BayesGap"): [{0}] * 4,
    ("basis", "KGCB"): [{0}] * 4,
    ("adaptive", "KGCB"): [{0, 2}, {0, 2, 3}, {0, 1}, {2}],
    ("c24x4", "BayesGap"): [{22}] * 4,
    ("c24x4", "KGCB"): [{22}, {22}, {0}, {22}],
}


@pytest.mark.parametrize(("env_name", "agent_name"), list(_BEFORE))
def test_seeded_records_are_those_of_the_numpy_code(env_name, agent_name):
    env = _ENVS[env_name]()
    agent_cls = {"BayesGap": BayesGap, "KGCB": KGCB}[agent_name]
    for seed, digest in enumerate(_BEFORE[env_name, agent_name]):
        rec = run_episode(env, agent_cls(), seed)
        pulls = hashlib.sha256(np.asarray(rec.pulls).tobytes()).hexdigest()[:12]
        assert (pulls, set(rec.answer)) == (digest, _ANSWERS[env_name, agent_name][seed])
        assert rec.samples == env.unwrapped.problem.budget
