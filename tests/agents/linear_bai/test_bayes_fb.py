"""BayesGap and KGCB: exact knowledge gradient, Bayesian posterior, sampling rules, answers."""

from __future__ import annotations

import math

import gymnasium as gym
import numpy as np
import pytest
from scipy.stats import norm

import agents.linear_bai.bayes_fb as bf
import bandit_envs  # noqa: F401
from agents import check_agent
from agents.linear_bai.bayes_fb import (
    KGCB,
    BayesGap,
    GaussianLinearPosterior,
    log_expected_max_gain,
    log_f_neg,
    log_knowledge_gradients,
)
from bandit_envs import run_episode
from bandit_envs.core.env import PureExplorationEnv
from bandit_envs.core.models import LinearGaussian
from bandit_envs.core.problem import ProblemSpec
from bandit_envs.core.tasks import AllEpsilonGood
from bandit_envs.errors import IncompatibleAgentError, InvalidParameterError


def f(z):
    """f(z) = zΦ(z) + φ(z) (Frazier et al. 2009, eq. (14)), written independently."""
    return z * norm.cdf(z) + norm.pdf(z)


def static_env(d=8, sigma=1.0, budget=10_000):
    theta = np.r_[np.ones(4), np.zeros(d - 4)]
    return PureExplorationEnv(
        LinearGaussian(np.eye(d), theta, sigma=sigma), AllEpsilonGood(0.5), budget=budget
    )


def adaptive_env(sigma=1.0, budget=10_000):
    d = 8
    theta = np.r_[1.2, 1.15, 1.1, 1.05, np.zeros(4)]
    arms = list(np.eye(d))
    for i in (1, 2):
        c = (1 - 0.1 * i) / 1.2
        x = np.zeros(d)
        x[0], x[-1] = c, math.sqrt(1 - c * c)
        arms.append(x)
    return PureExplorationEnv(
        LinearGaussian(np.array(arms), theta, sigma=sigma), AllEpsilonGood(0.2), budget=budget
    )


# ----------------------------------------------------------------------------- knowledge gradient


def test_kg_independent_beliefs_hand_values():
    # μ = (1, 0.5, 0), independent N(·, 1) beliefs, noise variance 1: σ̃_x = 1/√2 for x itself.
    # KG_x = σ̃ f(−|μ_x − max_{i≠x} μ_i|/σ̃): by hand (normal tables) 0.09982, 0.09982, 0.02513.
    mu = np.array([1.0, 0.5, 0.0])
    kg = np.exp(log_knowledge_gradients(mu, np.eye(3), 1.0))
    assert kg == pytest.approx([0.09982, 0.09982, 0.02513], abs=2e-5)
    st = 1 / math.sqrt(2)
    assert kg == pytest.approx([st * f(-0.5 / st), st * f(-0.5 / st), st * f(-1.0 / st)], rel=1e-12)


def test_kg_correlated_hand_values():
    # two arms, covariance [[1, .5], [.5, 1]], noise 1: σ̃(0) = (1, .5)/√2, the two lines cross
    # at z = −.5/(.5/√2) = −√2, KG = (.5/√2) f(−√2) = 0.012564 (by hand)
    kg = np.exp(
        log_knowledge_gradients(np.array([1.0, 0.5]), np.array([[1.0, 0.5], [0.5, 1.0]]), 1.0)
    )
    assert kg[0] == pytest.approx(0.012564, abs=2e-6)
    # three arms, one envelope line in the middle: two segments
    cov = np.array([[1.0, 0.5, 0.2], [0.5, 1.0, 0.0], [0.2, 0.0, 1.0]])
    mu = np.array([1.0, 0.5, 0.0])
    b = cov[0] / math.sqrt(2.0)
    c21 = (0.0 - 0.5) / (b[1] - b[2])
    c10 = (0.5 - 1.0) / (b[0] - b[1])
    assert c21 < c10  # arm 1 is on the envelope between the two crossings
    expected = (b[1] - b[2]) * f(-abs(c21)) + (b[0] - b[1]) * f(-abs(c10))
    kg = np.exp(log_knowledge_gradients(mu, cov, 1.0))
    assert kg[0] == pytest.approx(expected, rel=1e-12)
    # degenerate: three lines through one point (the middle one touches the envelope only there)
    cov[0, 2] = cov[2, 0] = 0.0
    kg = np.exp(log_knowledge_gradients(mu, cov, 1.0))
    st = 1 / math.sqrt(2)
    assert kg[0] == pytest.approx(st * f(-math.sqrt(2)), rel=1e-12)


def _exact_by_intervals(a, b):
    """E[max_i a_i + b_i Z] − max a by brute force: each line's interval [lo_i, hi_i] where it is
    the maximum (O(K²) Python), then Σ_i a_i(Φ(hi) − Φ(lo)) + b_i(φ(lo) − φ(hi))."""
    total = 0.0
    for i in range(a.size):
        lo, hi = -np.inf, np.inf
        dominated = False
        for j in range(a.size):
            if j == i:
                continue
            if b[j] == b[i]:
                dominated |= a[j] > a[i] or (a[j] == a[i] and j > i)
            elif b[j] < b[i]:
                lo = max(lo, (a[j] - a[i]) / (b[i] - b[j]))
            else:
                hi = min(hi, (a[j] - a[i]) / (b[i] - b[j]))
        if dominated or lo >= hi:
            continue
        total += a[i] * (norm.cdf(hi) - norm.cdf(lo)) + b[i] * (norm.pdf(lo) - norm.pdf(hi))
    return total - a.max()


def test_expected_max_gain_matches_quadrature():
    rng = np.random.default_rng(7)
    z = np.linspace(-14, 14, 200_001)
    for k in (2, 3, 5, 9):
        a, b = rng.normal(size=k), rng.normal(size=(1, k))
        top = np.max(a[:, None] + b[0][:, None] * z[None, :], axis=0)
        quad = np.trapezoid(top * norm.pdf(z), z) - a.max()
        assert np.exp(log_expected_max_gain(a, b))[0] == pytest.approx(quad, rel=1e-7)


@pytest.mark.parametrize("seed", range(3))
def test_expected_max_gain_matches_brute_force_and_both_envelopes(seed, monkeypatch):
    rng = np.random.default_rng(seed)
    for trial in range(12):
        k = int(rng.integers(1, 90))
        a = rng.normal(size=k)
        b = rng.normal(size=(2, k))
        if trial % 3 == 0:
            b = np.round(b, 1)  # equal slopes
        if trial % 4 == 0:
            a = np.round(a)  # equal intercepts
        got = np.exp(log_expected_max_gain(a, b))
        for row in range(2):
            ref = _exact_by_intervals(a, b[row])
            assert got[row] == pytest.approx(ref, rel=1e-9, abs=1e-13)
        monkeypatch.setattr(bf, "_DENSE_MAX", 0)  # rounds of pruning instead of the dense test
        monkeypatch.setattr(bf, "_PREFILTER_FROM", 0)  # pre-filter every size
        assert np.exp(log_expected_max_gain(a, b)) == pytest.approx(got, rel=1e-12, abs=0)
        monkeypatch.undo()


def test_log_f_neg_is_exact_and_never_underflows():
    s = np.array([0.0, 0.3, 2.0, 10.0, 29.999, 30.0, 30.001, 37.0])
    direct = np.log(f(-s))
    assert log_f_neg(s) == pytest.approx(direct, rel=1e-9)
    big = log_f_neg(np.array([50.0, 1e3, 1e6]))
    assert np.all(np.isfinite(big)) and np.all(np.diff(big) < 0)
    # f(−s) ~ φ(s)/s² for large s
    assert big[0] == pytest.approx(-1250 - 0.5 * math.log(2 * math.pi) - 2 * math.log(50), rel=1e-6)


def test_kg_argmax_survives_underflow():
    # independent beliefs, tiny posterior variances: every KG underflows to 0 in float64,
    # but log KG still orders the arms like σ̃ f(−Δ/σ̃) does
    mu = np.array([1.0, 0.5, 0.45, 0.0])
    var = np.array([1e-4, 1e-4, 4e-4, 1e-4])
    logkg = log_knowledge_gradients(mu, np.diag(var), 1.0)
    assert np.all(np.isfinite(logkg)) and np.all(np.exp(logkg) == 0.0)
    st = var / np.sqrt(1.0 + var)
    gaps = np.array([0.5, 0.5, 0.55, 1.0])
    ref = np.log(st) + log_f_neg(gaps / st)
    assert logkg == pytest.approx(ref, rel=1e-10)
    assert int(np.argmax(logkg)) == 2


# ----------------------------------------------------------------------------- posterior


@pytest.mark.parametrize("full_cov", [False, True])
def test_posterior_equals_batch_bayesian_regression(full_cov):
    rng = np.random.default_rng(3)
    x = rng.normal(size=(6, 4))
    x[:, 3] = x[:, 0] + x[:, 1]  # rank 3: the prior still matters outside the data
    x[5] = 0.5 * x[0] - x[2]
    from bandit_envs.theory.linalg import reduce_features

    z, u = reduce_features(x)
    m0 = rng.normal(size=4)
    eta, lam = 0.7, 0.4
    post = GaussianLinearPosterior(z, u.T @ m0, eta**2, lam, full_cov=full_cov)
    counts, sums = np.zeros(6), np.zeros(6)
    for n in range(1_205):  # crosses one exact refresh
        arm = int(rng.integers(6))
        y = float(rng.normal())
        post.update(arm, y)
        counts[arm] += 1
        sums[arm] += y
        if n in (0, 7, 1_204):
            cov_t = np.linalg.inv(np.eye(4) / eta**2 + (x.T * counts) @ x / lam)
            mean_t = cov_t @ (m0 / eta**2 + x.T @ sums / lam)
            assert post.mu == pytest.approx(x @ mean_t, rel=1e-9, abs=1e-11)
            cov_mu = x @ cov_t @ x.T
            assert post.var == pytest.approx(np.diag(cov_mu), rel=1e-8, abs=1e-12)
            if full_cov:
                assert np.allclose(post.cov, cov_mu, rtol=1e-8, atol=1e-12)


# ----------------------------------------------------------------------------- the agents


@pytest.mark.parametrize(
    "agent",
    [BayesGap(), KGCB(), BayesGap(recommendation="min_gap")],
    ids=["BayesGap", "KGCB", "BayesGap-min_gap"],
)
def test_check_agent(agent):
    check_agent(agent)


@pytest.mark.parametrize("make_env", [static_env, adaptive_env], ids=["static", "adaptive"])
@pytest.mark.parametrize("agent_cls", [BayesGap, KGCB])
def test_noiseless_run_returns_the_good_set(make_env, agent_cls):
    env = make_env(sigma=0.0, budget=200)
    rec = run_episode(env, agent_cls(), 0)
    assert rec.correct and rec.stop_reason == "budget" and rec.samples == 200


@pytest.mark.parametrize("agent_cls", [BayesGap, KGCB])
def test_large_budget_returns_the_good_set(agent_cls):
    env = static_env(sigma=1.0, budget=4_000)
    for seed in range(2):
        assert run_episode(env, agent_cls(), seed).correct


@pytest.mark.parametrize("agent_cls", [BayesGap, KGCB])
def test_best_arm_on_linear_bai_ids(agent_cls):
    # Soare et al.'s hard instance (gap 0.01): valid answers; the basis instance: right answers
    for env_id, kw in (("LinearBAI-Soare-v0", {}), ("LinearBAI-Basis-v0", {"d": 3, "gap": 0.5})):
        env = gym.make(env_id, budget=600, **kw)
        recs = [run_episode(env, agent_cls(), seed) for seed in range(3)]
        assert all(r.samples == 600 and len(r.answer) == 1 for r in recs)
        if env_id == "LinearBAI-Basis-v0":
            assert all(r.correct for r in recs)
    with pytest.raises(IncompatibleAgentError, match="fixed_budget"):
        run_episode(gym.make("LinearBAI-Soare-v0", delta=0.1), agent_cls(), 0)


def _spec(budget=100, **kw):
    base = dict(
        task="all_eps_good",
        setting="fixed_budget",
        n_arms=3,
        n_items=3,
        outcome_dim=1,
        structure="linear",
        features=np.eye(3),
        noise_std=1.0,
        budget=budget,
        epsilon=0.3,
    )
    base.update(kw)
    return ProblemSpec(**base)


def test_bayesgap_beta_and_sampling_rule():
    agent = BayesGap()
    agent.reset(_spec(budget=500), np.random.default_rng(0))
    rng = np.random.default_rng(1)
    for _ in range(40):
        arm = agent.select()
        agent.observe(arm, np.array([rng.normal([1.0, 0.8, 0.0][arm])]))
    arm = agent.select()
    mu, sd = agent.posterior_means, agent._post.sd
    # Theorem 1: β = √(((T − K)/σ² + κ/η²)/(4H_ε)), κ = Σ‖x‖⁻² = 3, H_ε from the 3σ bounds
    others = lambda v: np.array([max(np.delete(v, k)) for k in range(3)])  # noqa: E731
    b3 = others(mu + 3 * sd) - (mu - 3 * sd)
    h = np.maximum(0.5 * (np.abs(b3) + 0.3), 0.3)
    beta = math.sqrt(((500 - 3) / 1.0 + 3.0) / (4 * np.sum(h**-2.0)))
    assert agent.exploration == pytest.approx(beta, rel=1e-12)
    upper, lower = mu + beta * sd, mu - beta * sd
    gap = others(upper) - lower
    cand = int(np.argmin(gap))
    challenger = max((k for k in range(3) if k != cand), key=lambda k: upper[k])
    assert arm == (cand if sd[cand] >= sd[challenger] else challenger)
    fixed = BayesGap(beta=2.0)
    fixed.reset(_spec(), np.random.default_rng(0))
    fixed.select()
    assert fixed.exploration == 2.0


def test_bayesgap_min_gap_recommendation():
    env = gym.make("LinearBAI-Basis-v0", d=3, gap=0.5, budget=300)
    agent = BayesGap(recommendation="min_gap")
    rec = run_episode(env, agent, 0)
    assert rec.answer == frozenset({agent._min_gap_arm})
    # all ε-good: the ε-rule on the posterior means whatever the best-arm rule
    rec = run_episode(static_env(sigma=0.0, budget=100), BayesGap(recommendation="min_gap"), 0)
    assert rec.correct and len(rec.answer) == 4


def test_kgcb_measures_the_argmax_of_the_knowledge_gradient():
    agent = KGCB()
    agent.reset(_spec(), np.random.default_rng(0))
    rng = np.random.default_rng(2)
    for _ in range(15):
        arm = agent.select()
        agent.observe(arm, np.array([rng.normal([1.0, 0.8, 0.0][arm])]))
    arm = agent.select()
    post = agent._post
    # independent beliefs on the canonical basis: closed form σ̃ f(−Δ/σ̃)
    var = np.diag(post.cov)
    st = var / np.sqrt(1.0 + var)
    gaps = np.array([abs(post.mu[k] - max(np.delete(post.mu, k))) for k in range(3)])
    kg = st * f(-gaps / st)
    assert agent.knowledge_gradients == pytest.approx(kg, rel=1e-9)
    assert arm == int(np.argmax(kg))


def test_eps_rule_answer_and_multiplicative():
    agent = KGCB()
    agent.reset(_spec(), np.random.default_rng(0))
    agent._post.mu[:] = [2.0, 1.5, 1.3]
    assert agent.recommend() == frozenset({0})  # μ̂ ≥ 2 − 0.3
    agent.reset(_spec(extras={"multiplicative": True}), np.random.default_rng(0))
    agent._post.mu[:] = [2.0, 1.5, 1.3]
    assert agent.recommend() == frozenset({0, 1})  # μ̂ ≥ 0.7·2
    agent.reset(_spec(task="best_arm", epsilon=None), np.random.default_rng(0))
    agent._post.mu[:] = [0.2, 0.75, 0.6]
    assert agent.recommend() == frozenset({1})


@pytest.mark.parametrize(
    ("agent", "fragment"),
    [
        (BayesGap(prior_std=0.0), "prior_std must be a finite float > 0; got 0.0."),
        (KGCB(prior_std=float("nan")), "prior_std must be a finite float > 0; got nan."),
        (
            KGCB(prior_mean=[0.0, 1.0]),
            "prior_mean must have one entry per feature (8 here); got [0.0, 1.0].",
        ),
        (
            KGCB(prior_mean="zero"),
            "prior_mean must be a finite float or a 1-D array of finite floats; got 'zero'.",
        ),
        (BayesGap(beta=-1.0), "beta must be None or a finite float > 0; got -1.0."),
        (BayesGap(gap_epsilon=-0.1), "gap_epsilon must be None or a finite float >= 0; got -0.1."),
        (
            BayesGap(recommendation="mode"),
            "recommendation must be one of 'posterior_mean', 'min_gap'; got 'mode'.",
        ),
    ],
)
def test_invalid_parameters(agent, fragment):
    with pytest.raises(InvalidParameterError) as info:
        run_episode(static_env(budget=20), agent, 0)
    assert str(info.value) == f"{type(agent).__name__}: {fragment}"


def test_prior_mean_vector_is_used():
    agent = KGCB(prior_mean=np.arange(8.0), prior_std=0.5)
    agent.reset(static_env(budget=20).problem, np.random.default_rng(0))
    assert agent.posterior_means == pytest.approx(np.arange(8.0))
