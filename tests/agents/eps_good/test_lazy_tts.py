"""LazyTTS (Rivera & Tewari 2024): allocation, GLR statistics, δ-correctness, errors."""

from __future__ import annotations

import math

import gymnasium as gym
import numpy as np
import pytest

import bandit_envs  # noqa: F401
from agents import check_agent
from agents.eps_good.lazy_tts import LazyTTS, thresholding_allocation, thresholding_glr
from bandit_envs import run_episode
from bandit_envs.core.env import PureExplorationEnv
from bandit_envs.core.models import LinearGaussian
from bandit_envs.core.tasks import AllEpsilonGood
from bandit_envs.errors import IncompatibleAgentError, InvalidParameterError
from bandit_envs.theory.design import transductive_design
from bandit_envs.theory.eps_good import eps_good_culprits, eps_good_glr
from bandit_envs.theory.thresholds import (
    loglog_heuristic_threshold,
    self_normalized_terms,
    self_normalized_threshold,
)

#: faster allocation solves; the stopping rule (which carries δ-correctness) is the default one
FAST = {"design_tol": 0.05, "recompute_ratio": 0.5}
STATIC_MU = np.r_[np.ones(4), np.zeros(4)]


def eps_env(features, theta, eps=0.5, sigma=1.0, **setting):
    setting = setting or {"delta": 0.1}
    return PureExplorationEnv(
        LinearGaussian(features, theta, sigma=sigma), AllEpsilonGood(eps), **setting
    )


def easy_env(sigma=0.5, **setting):
    """Canonical K=3, μ = (1, 0.7, 0), ε = 0.5: G_ε = {0, 1}, threshold 0.5."""
    return eps_env(np.eye(3), [1.0, 0.7, 0.0], sigma=sigma, **setting)


# ----------------------------------------------------------------------------- allocation


def test_thresholding_allocation_closed_form_on_the_canonical_basis():
    # ‖e_i‖²_{A(w)⁻¹} = 1/w_i: the optimum equalises w_i (μ_i − τ)², so w ∝ (μ_i − τ)⁻² and
    # value = Σ_i (μ_i − τ)⁻² (T*_τ = 2σ²·value)
    mu = np.array([1.0, 0.8, 0.3, 0.0, -0.4])
    res = thresholding_allocation(np.eye(5), mu, 0.5, tol=1e-8)
    g = (mu - 0.5) ** -2.0
    assert res.weights == pytest.approx(g / g.sum(), abs=1e-6)
    assert res.value == pytest.approx(g.sum(), rel=1e-6)
    # the static d=8 instance at its threshold 0.5: uniform, value 8·4 = 32
    res = thresholding_allocation(np.eye(8), STATIC_MU, 0.5, tol=1e-8)
    assert res.weights == pytest.approx(np.full(8, 1 / 8), abs=1e-6)
    assert res.value == pytest.approx(32.0, rel=1e-6)


def test_eps_good_allocation_gives_the_lower_bound_of_theorem_3_2():
    # Li et al. Thm 3.2: T* = 2·min_w max_culprit c‖y‖² = 120 on the static d=8 instance
    targets, margins = eps_good_culprits(np.eye(8), STATIC_MU, 0.5)
    res = transductive_design(np.eye(8), targets, margins**-2.0, tol=1e-7)
    assert 2 * res.value == pytest.approx(120.0, rel=1e-4)
    # and K = 2, μ = (1, 0), ε = 0.5: T* = 32 (by hand from Theorem 3.2)
    targets, margins = eps_good_culprits(np.eye(2), np.array([1.0, 0.0]), 0.5)
    res = transductive_design(np.eye(2), targets, margins**-2.0, tol=1e-7)
    assert 2 * res.value == pytest.approx(32.0, rel=1e-5)


# ----------------------------------------------------------------------------- GLR statistics


def test_glr_at_the_oracle_allocation_is_t_over_t_star():
    # at the true θ with A = t·V_{p*}, min_x Λ = t/T* (the GLR of EC.2 at the optimal allocation)
    t = 1000.0
    p_star = np.r_[0.2, 2 / 15, 2 / 15, 2 / 15, 0.1, 0.1, 0.1, 0.1]  # static d=8, T* = 120
    inv = np.diag(1.0 / (t * p_star))
    z = np.eye(8)
    q = np.diag(inv)
    stat = eps_good_glr(z, STATIC_MU, inv, 0.5, sigma=1.0).statistic
    assert stat == pytest.approx(t / 120, rel=1e-12)
    # thresholding at τ = 0.5: uniform allocation, T*_τ = 2·32
    q = np.full(8, 8.0 / t)
    assert thresholding_glr(STATIC_MU, q, 0.5, 1.0) == pytest.approx(t / 64, rel=1e-12)


def test_glr_statistics_match_brute_force():
    rng = np.random.default_rng(0)
    for _ in range(30):
        k, r = int(rng.integers(2, 8)), int(rng.integers(1, 5))
        z = rng.normal(size=(k, r))
        m = rng.normal(size=(r, r))
        inv = np.linalg.inv(m @ m.T + 0.1 * np.eye(r))
        means = rng.normal(size=k)
        eps, sigma, tau = float(rng.uniform(0.1, 1.0)), float(rng.uniform(0.2, 2.0)), 0.3
        p = z @ inv
        q = np.einsum("ij,ij->i", p, z)
        norm = lambda y, inv=inv: float(y @ inv @ y)  # noqa: E731
        ref = min((means[i] - tau) ** 2 / (2 * sigma**2 * norm(z[i])) for i in range(k))
        assert thresholding_glr(means, q, tau, sigma) == pytest.approx(ref, rel=1e-9)
        best = int(np.argmax(means))
        vals = []
        for i in range(k):
            if means[i] >= means[best] - eps:
                vals += [
                    (means[i] - means[j] + eps) ** 2 / norm(z[i] - z[j]) for j in range(k) if j != i
                ]
            else:
                vals.append((means[best] - means[i] - eps) ** 2 / norm(z[best] - z[i]))
        ref = min(vals) / (2 * sigma**2)
        theta = np.linalg.lstsq(z, means, rcond=None)[0]
        means = z @ theta  # the statistic is defined for means in the span of the features
        best = int(np.argmax(means))
        vals = []
        for i in range(k):
            if means[i] >= means[best] - eps:
                vals += [
                    (means[i] - means[j] + eps) ** 2 / norm(z[i] - z[j]) for j in range(k) if j != i
                ]
            else:
                vals.append((means[best] - means[i] - eps) ** 2 / norm(z[best] - z[i]))
        ref = min(vals) / (2 * sigma**2)
        stat = eps_good_glr(z, theta, None, eps, sigma=sigma, projected=p, leverages=q)
        assert stat.statistic == pytest.approx(ref, rel=1e-8)
    # conventions: an arm on the threshold gives 0; noiseless with positive margins gives inf
    assert thresholding_glr(np.array([1.0, 0.5]), np.ones(2), 0.5, 1.0) == 0.0
    assert thresholding_glr(np.array([1.0, 0.0]), np.ones(2), 0.5, 0.0) == math.inf


# ----------------------------------------------------------------------------- the agent


def test_check_agent():
    check_agent(LazyTTS(**FAST))


@pytest.mark.slow
def test_check_agent_defaults():
    check_agent(LazyTTS())
    check_agent(LazyTTS(glr_threshold="heuristic", tracking="D", forced="g_optimal"))


@pytest.mark.parametrize("threshold", [0.5, None])
def test_noiseless_run_stops_after_a_spanning_set(threshold):
    env = eps_env(np.eye(8), STATIC_MU, sigma=0.0, delta=0.01)
    agent = LazyTTS(threshold=threshold)
    rec = run_episode(env, agent, 0)
    assert rec.correct and rec.stop_reason == "stopped" and rec.samples == 8


def _error_count(seeds, delta=0.1, **kw):
    env = easy_env(delta=delta)
    wrong = 0
    for seed in range(seeds):
        rec = run_episode(env, LazyTTS(**kw), seed)
        assert rec.stop_reason == "stopped"
        wrong += not rec.correct
    return wrong


@pytest.mark.parametrize("threshold", [0.5, None])
def test_delta_correct_fast(threshold):
    # 100 seeds at δ = 0.1: P(Binomial(100, 0.1) ≥ 19) < 0.01
    assert _error_count(100, threshold=threshold, **FAST) <= 18


@pytest.mark.slow
@pytest.mark.parametrize("threshold", [0.5, None])
@pytest.mark.parametrize("glr_threshold", ["proven", "heuristic"])
def test_delta_correct_300_seeds(threshold, glr_threshold):
    # P(Binomial(300, 0.1) ≥ 43) < 0.01
    assert _error_count(300, threshold=threshold, glr_threshold=glr_threshold) <= 42


def test_stopping_rule_at_the_stop():
    for threshold in (0.5, None):
        agent = LazyTTS(threshold=threshold, glr_threshold="heuristic", **FAST)
        rec = run_episode(easy_env(delta=0.05), agent, 4)
        z, beta = agent.statistic
        assert rec.stop_reason == "stopped" and z >= beta
        assert beta == pytest.approx(loglog_heuristic_threshold(rec.samples, 0.05))
        agent = LazyTTS(threshold=threshold, **FAST)
        rec = run_episode(easy_env(delta=0.05), agent, 4)
        z, beta = agent.statistic
        gram = (agent._z.T * agent.counts) @ agent._z
        log_det, lmin = self_normalized_terms(gram)
        assert z >= beta >= self_normalized_threshold(log_det, lmin, 0.05) - 1e-9


def test_allocation_converges_to_the_thresholding_optimum():
    mu = np.array([1.0, 0.8, 0.3, 0.0])
    env = eps_env(np.eye(4), mu, delta=1e-60)
    w = thresholding_allocation(np.eye(4), mu, 0.5).weights  # ∝ (μ − 0.5)⁻²
    for seed in (0, 2):
        rec = run_episode(env, LazyTTS(threshold=0.5, glr_threshold="heuristic"), seed)
        assert rec.correct
        assert np.max(np.abs(np.asarray(rec.pulls) / rec.samples - w)) < 0.07


def test_lazy_recomputation_count():
    agent = LazyTTS(threshold=0.5, glr_threshold="heuristic")
    rec = run_episode(eps_env(np.eye(4), [1.0, 0.8, 0.3, 0.0], delta=1e-3), agent, 0)
    tau = rec.samples
    assert 1 <= agent.design_solves <= math.log(tau) / math.log(1.1) + 2 * math.sqrt(tau) + 5


def test_given_threshold_answers_the_thresholding_question():
    # the paper's protocol: τ is the *expected* threshold; here τ = 0.75 ≠ max μ − ε = 0.5, so
    # the answer {μ_i ≥ 0.75} = {0} differs from G_ε = {0, 1}
    rec = run_episode(easy_env(sigma=0.2), LazyTTS(threshold=0.75, **FAST), 0)
    assert rec.answer == frozenset({0}) and not rec.correct and rec.stop_reason == "stopped"


def test_single_arm():
    env = eps_env(np.eye(1), [1.0], sigma=1.0)
    assert run_episode(env, LazyTTS(), 0).samples == 0  # one arm is trivially ε-good
    rec = run_episode(env, LazyTTS(threshold=0.5), 0)  # against τ it must be measured
    assert rec.samples > 0 and rec.answer == frozenset({0})


def test_runs_on_the_adaptive_instance_with_the_paper_threshold():
    d = 8
    arms = list(np.eye(d))
    for i in (1, 2):
        c = (1 - 0.1 * i) / 1.2
        x = np.zeros(d)
        x[0], x[-1] = c, math.sqrt(1 - c * c)
        arms.append(x)
    theta = np.r_[1.2, 1.15, 1.1, 1.05, np.zeros(4)]
    env = eps_env(np.array(arms), theta, eps=0.2, delta=0.05)
    rec = run_episode(env, LazyTTS(threshold=1.0, glr_threshold="heuristic", **FAST), 0)
    assert rec.correct and rec.answer == frozenset({0, 1, 2, 3})


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        (
            {"threshold": "half"},
            "threshold must be None or 'hint' or a finite float; got 'half'.",
        ),
        (
            {"threshold": float("inf")},
            "threshold must be None or 'hint' or a finite float; got inf.",
        ),
        ({"threshold": True}, "threshold must be None or 'hint' or a finite float; got True."),
        (
            {"glr_threshold": "bogus"},
            "glr_threshold must be one of 'proven', 'heuristic' or a finite float > 0; "
            "got 'bogus'.",
        ),
        ({"tracking": "E"}, "tracking must be one of 'C', 'D'; got 'E'."),
        ({"design_max_iter": 0}, "design_max_iter must be None or an integer >= 1; got 0."),
        ({"design_tol": 2.0}, "design_tol must be a float in (0, 1); got 2.0."),
    ],
)
def test_invalid_parameters(kwargs, fragment):
    with pytest.raises(InvalidParameterError) as info:
        run_episode(easy_env(), LazyTTS(**kwargs), 0)
    assert str(info.value) == f"LazyTTS: {fragment}"


def test_threshold_hint_is_the_instance_family_expected_threshold():
    # the paper's protocol (Sec. 7): the thresholding baseline knows E[X~], not X~
    env = gym.make("LinearEpsGood-Static-v0", d=4, m_tilde=2, sigma=0.2)
    rec = run_episode(env, LazyTTS(threshold="hint", **FAST), 0)
    assert rec.answer == frozenset({0, 1}) and rec.correct  # threshold_hint = Delta/2 = 0.5
    with pytest.raises(InvalidParameterError, match=r"threshold='hint' reads .*has none"):
        run_episode(easy_env(), LazyTTS(threshold="hint"), 0)


def test_incompatible_problems():
    with pytest.raises(IncompatibleAgentError, match="fixed_confidence"):
        run_episode(easy_env(budget=100), LazyTTS(), 0)
    with pytest.raises(IncompatibleAgentError, match="all_eps_good"):
        run_episode(gym.make("LinearBAI-Soare-v0"), LazyTTS(), 0)
    mult = PureExplorationEnv(
        LinearGaussian(np.eye(3), [1.0, 0.7, 0.0]),
        AllEpsilonGood(0.5, multiplicative=True),
        delta=0.1,
    )
    # threshold=None estimates (1 − ε)·max μ̂ on a multiplicative problem: G = {0, 1}
    rec = run_episode(mult, LazyTTS(**FAST), 0)
    assert rec.answer == frozenset({0, 1}) and rec.correct
    # with a given τ the question {μ_i ≥ τ} does not depend on the definition of ε-good
    rec = run_episode(mult, LazyTTS(threshold=0.4, **FAST), 0)
    assert rec.answer == frozenset({0, 1})
