"""PELEG (Zaki, Mohan & Gopalan 2020): the paper's lemmas, claim and corollaries (numbered as in
the paper), noiseless runs, check_agent, batch ≡ single, δ-PAC."""

from __future__ import annotations

import math

import gymnasium as gym
import numpy as np
import pytest
from scipy.optimize import minimize

import bandit_envs  # noqa: F401
from agents import check_agent
from agents.linear_bai.peleg import (
    PELEG,
    ball_min_norm,
    best_response,
    hedge_weights,
    phase_constants,
    track,
)
from bandit_envs import run_episode
from bandit_envs.errors import InvalidParameterError


def setting1(delta_gap: float, *, sigma: float = 1.0, delta: float = 0.1):
    """Section 6, Setting 1 (Fig. 2a): K = d = 5, arms e_1..e_5, θ = (Δ, 0, 0, 0, 0)."""
    theta = np.zeros(5)
    theta[0] = delta_gap
    return gym.make(
        "LinearBAI-Custom-v0", features=np.eye(5), theta=theta, sigma=sigma, delta=delta
    )


class Recorder:
    """Wraps an agent and records the arms it selects (one-pull path)."""

    def __init__(self, agent):
        self.agent = agent
        self.arms: list[int] = []
        self.capabilities = type(agent).capabilities

    def reset(self, spec, rng):
        self.agent.reset(spec, rng)

    def select(self):
        arm = self.agent.select()
        if arm is not None:
            self.arms.append(arm)
        return arm

    def observe(self, arm, outcome):
        self.agent.observe(arm, outcome)

    def recommend(self):
        return self.agent.recommend()


# --------------------------- building blocks: Lemmas 3 and 5, Claim 1, Algorithm 1's constants


def test_tracking_stays_within_the_bounds_of_lemma3():
    """Lemma 3 (App. B.1): cumw − (K − 1) ≤ n ≤ cumw + 1, counts and weights starting at 1."""
    rng = np.random.default_rng(0)
    for k in (2, 5, 9):
        counts = np.ones(k)
        cumw = np.ones(k)
        for t in range(k + 1, k + 400):
            w = rng.dirichlet(np.full(k, 0.3)) if t % 3 else np.eye(k)[rng.integers(k)]
            cumw += w
            counts[track(counts, cumw)] += 1
            assert np.all(counts <= cumw + 1 + 1e-9)
            assert np.all(counts >= cumw - (k - 1) - 1e-9)
            assert counts.sum() == pytest.approx(t)


def _random_pd(rng, r):
    m = rng.normal(size=(r, r))
    return m @ m.T + 0.2 * np.eye(r)


def test_lemma5_closed_form_against_a_generic_qp():
    """Lemma 5 (App. C): min_{λᵀy ≥ ε} ‖λ‖²_V = ε²/‖y‖²_{V⁻¹} at λ = εV⁻¹y/‖y‖²_{V⁻¹}."""
    rng = np.random.default_rng(1)
    for _ in range(10):
        r = int(rng.integers(2, 5))
        v = _random_pd(rng, r)
        y = rng.normal(size=r)
        eps = float(rng.uniform(0.1, 1.0))
        lam, _, value = best_response(v, y[None, :], eps)
        vinv_y = np.linalg.solve(v, y)
        assert value == pytest.approx(eps**2 / (y @ vinv_y))
        assert np.allclose(lam, eps * vinv_y / (y @ vinv_y))
        res = minimize(
            lambda x, v=v: x @ v @ x,
            np.ones(r) * 3,
            method="SLSQP",
            constraints=[{"type": "ineq", "fun": lambda x, y=y, e=eps: x @ y - e}],
            options={"ftol": 1e-12, "maxiter": 500},
        )
        assert res.fun == pytest.approx(value, rel=1e-5)


def test_ball_best_response_claim1_against_a_generic_solver():
    """Claim 1 (App. C): with the ball B(0, D) the half-space constraint is tight."""
    rng = np.random.default_rng(2)
    checked_active = 0
    for _ in range(20):
        r = int(rng.integers(2, 4))
        v = _random_pd(rng, r)
        y = rng.normal(size=r)
        eps = float(rng.uniform(0.2, 1.0))
        radius = float(rng.uniform(1.05, 3.0)) * eps / np.linalg.norm(y)
        values, mus = ball_min_norm(v, y[None, :], eps, radius)
        lam, _, value = best_response(v, y[None, :], eps, radius)
        assert value == pytest.approx(values[0])
        assert lam @ y == pytest.approx(eps, rel=1e-8)  # Claim 1: the half-space is tight
        assert np.linalg.norm(lam) <= radius * (1 + 1e-7)
        res = minimize(
            lambda x, v=v: x @ v @ x,
            y * eps / (y @ y),
            method="SLSQP",
            constraints=[
                {"type": "ineq", "fun": lambda x, y=y, e=eps: x @ y - e},
                {"type": "ineq", "fun": lambda x, d=radius: d * d - x @ x},
            ],
            options={"ftol": 1e-14, "maxiter": 1000},
        )
        assert res.fun == pytest.approx(values[0], rel=1e-4)
        checked_active += mus[0] > 0
    assert checked_active >= 3  # the ball was active in some cases
    # infeasible: ε/‖y‖ > D
    y = np.array([[1.0, 0.0]])
    values, _ = ball_min_norm(np.eye(2), y, 1.0, 0.5)
    assert values[0] == math.inf


def test_phase_constants_of_setting_1():
    """Algorithm 1 lines 5–7 for K = d = 5, δ = 0.1, m = 1 (values we computed from them)."""
    c = phase_constants(1.0, 2.0, 5, 1, 0.1, shrink_eps=True, delta_schedule="paper")
    assert c["D"] == pytest.approx(0.4617450, abs=1e-7)
    assert c["r2"] == pytest.approx(44.171687, abs=1e-6)
    assert c["shrink"] == pytest.approx(0.0694753, abs=1e-7)
    assert c["eps"] == pytest.approx(0.0173688, abs=1e-7)
    unshrunk = phase_constants(1.0, 2.0, 5, 1, 0.1, delta_schedule="paper")
    assert unshrunk["eps"] == 0.25
    corrected = phase_constants(1.0, 2.0, 5, 2, 0.1, delta_schedule="corrected")
    assert corrected["delta_m"] == pytest.approx(6 * 0.1 / (math.pi**2 * 4))


# ----------------------------- phases: Lemma 1, elimination (Algorithm 1 line 26), Corollary 2


def test_phase_one_is_deterministic_and_takes_7069_pulls():
    """Setting 1, practical variant (App. G): phase 1 never looks at rewards; N_1 = 7069 is our
    computation from Algorithm 1, not a number of the paper."""
    env = setting1(0.5)
    sequences, n1 = [], []
    for seed in (0, 1):
        rec = Recorder(PELEG(delta_schedule="paper"))
        run_episode(env, rec, seed, batch=False)
        log = rec.agent.phase_log
        n1.append(log[0]["samples"])
        sequences.append(rec.arms[: log[0]["samples"]])
    assert sequences[0] == sequences[1]
    assert n1 == [7069, 7069]
    counts = sorted(np.bincount(sequences[0], minlength=5).tolist())
    assert counts == [1413, 1414, 1414, 1414, 1414]
    # the stopping threshold sits between these two pair norms: 1/1413 + 1/1414 < ε²/r² < 2/1413
    limit = 0.25**2 / (8 * math.log(250))
    assert 1 / 1413 + 1 / 1414 < limit < 2 / 1413


def test_key_lemma_and_elimination_keep_the_empirical_best():
    """Lemma 1 (Key Lemma) at every phase end; line 26 of Algorithm 1 keeps the empirical best."""
    env = gym.make("LinearBAI-Soare-v0", delta=0.1)
    for seed in range(2):
        agent = PELEG()
        rec = run_episode(env, agent, seed)
        assert rec.stop_reason == "stopped"
        for phase in agent.phase_log:
            m, r2 = phase["m"], phase["r2"]
            assert phase["max_pair_norm"] < 4.0 ** (-(m + 1)) / r2  # Key Lemma (Lemma 1)
        for before, after in zip(agent.phase_log, agent.phase_log[1:], strict=False):
            assert set(after["active"]) <= set(before["active"]) and after["active"]
            scores = agent._z[before["active"]] @ before["theta_hat"]
            assert before["active"][int(np.argmax(scores))] in after["active"]
        last = agent.phase_log[-1]
        scores = agent._z[last["active"]] @ last["theta_hat"]
        assert agent.active_arms == [last["active"][int(np.argmax(scores))]]


def test_elimination_is_strict():
    # σ = 0: θ̂ = θ exactly; an arm exactly 2^-(m+2) = 1/8 below the best survives phase 1
    env = gym.make(
        "LinearBAI-Custom-v0", features=np.eye(3), theta=[1.0, 0.875, 0.5], sigma=0.0, delta=0.1
    )
    agent = PELEG()
    run_episode(env, agent, 0)
    assert agent.phase_log[0]["active"] == [0, 1, 2]
    assert agent.phase_log[1]["active"] == [0, 1]


def test_one_phase_when_gaps_are_large():
    """Lemma 6(a) (App. E) with m = 1: every arm with gap ≥ 1/4 goes after phase 1."""
    env = setting1(0.5)
    for seed in range(5):
        agent = PELEG()
        rec = run_episode(env, agent, seed)
        assert rec.correct and len(agent.phase_log) == 1


# ------------------------------------- Hedge, best response, estimates, instances, Corollary 1


def test_hedge_weights_sanity():
    """EXP-WTS of the MAX player (App. B.1.1): weights sum to 1, stay positive, follow gains."""
    w = hedge_weights(np.zeros(4), 3.0)
    assert np.allclose(w, 0.25)
    gains = np.zeros(4)
    last = 0.0
    for _ in range(20):
        gains += np.array([1.0, 0.5, 0.5, 0.2])
        w = hedge_weights(gains, 0.3)
        assert w.sum() == pytest.approx(1.0) and np.all(w > 0)
        assert w[0] > last
        last = w[0]
    assert np.all(np.isfinite(hedge_weights(np.array([1e6, 0.0]), 10.0)))


def test_best_response_invariance():
    rng = np.random.default_rng(3)
    z = rng.normal(size=(6, 3))
    w = rng.dirichlet(np.ones(6))
    wm = (z.T * w) @ z
    i, j = np.triu_indices(6, 1)
    pairs = z[i] - z[j]
    lam, p, _ = best_response(wm, pairs, 0.1)
    lam_neg, p_neg, _ = best_response(wm, -pairs, 0.1)
    assert p == p_neg
    assert np.allclose((z @ lam) ** 2, (z @ lam_neg) ** 2)
    norms = np.einsum("pi,ij,pj->p", pairs, np.linalg.inv(wm), pairs)
    assert p == int(np.argmax(norms))


def test_noiseless_ols_is_exact():
    theta = np.array([0.8, 0.3, -0.2])
    features = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [0.6, 0.6, 0.0]])
    env = gym.make("LinearBAI-Custom-v0", features=features, theta=theta, sigma=0.0, delta=0.05)
    for batch in (False, True):
        agent = PELEG()
        rec = run_episode(env, agent, 0, batch=batch)
        assert rec.correct and rec.stop_reason == "stopped"
        for phase in agent.phase_log:
            assert phase["samples"] == 4  # σ = 0: r_m = 0, every phase is its burn-in
            # θ̂_m is in the coordinates of the span of the arms: compare the means
            assert np.allclose(agent._z @ phase["theta_hat"], features @ theta, atol=1e-12)


def test_instance_checks_of_settings_1_and_3():
    env = setting1(0.3)
    info = env.unwrapped.complexity()
    assert 1.0 / info["h_lb"] == pytest.approx(0.3**2 / 9, rel=1e-4)  # D_θ = Δ²/9
    assert np.allclose(info["oracle_weights"], [1 / 3] + [1 / 6] * 4, atol=2e-3)
    soare = gym.make("LinearBAI-Soare-v0", d=4, omega=0.05, scale=1.0).unwrapped
    assert soare.complexity()["best_arm"] == 0
    assert soare.complexity()["min_gap"] == pytest.approx(1 - math.cos(0.05))
    feats = soare.problem.features
    assert np.linalg.eigvalsh(feats.T @ feats)[0] >= 1.0 - 1e-12  # C (Algorithm 1 line 3) ≥ 1


def test_corollary1_product_is_below_one_minus_delta():
    """Corollary 1 (App. E) claims ∏_m (1 − δ/m²) ≥ 1 − δ: false (0.8434 at δ = 0.1); our
    corrected schedule δ_m = 6δ/(π²m²) sums to δ."""
    product = np.prod(1 - 0.1 / np.arange(1, 200_000) ** 2)
    assert product == pytest.approx(math.sin(math.pi * math.sqrt(0.1)) / (math.pi * math.sqrt(0.1)))
    assert product == pytest.approx(0.8434, abs=1e-4)
    corrected = sum(6 * 0.1 / (math.pi**2 * m**2) for m in range(1, 200_000))
    assert corrected == pytest.approx(0.1, rel=1e-4)


# ----------------------------------------------------------------------------- agent level


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"preset": "fast"}, "preset must be one of 'practical', 'theory'; got 'fast'."),
        ({"use_ball": "yes"}, "use_ball must be None or True or False; got 'yes'."),
        ({"delta_schedule": "x"}, "delta_schedule must be one of 'paper', 'corrected'; got 'x'."),
        ({"eta_clock": "wall"}, "eta_clock must be one of 'hedge', 'phase'; got 'wall'."),
        ({"hedge_update_every": 0}, "hedge_update_every must be an integer >= 1; got 0."),
    ],
)
def test_invalid_parameters(kwargs, fragment):
    with pytest.raises(InvalidParameterError, match="PELEG: ") as info:
        run_episode(setting1(0.5), PELEG(**kwargs), 0)
    assert str(info.value) == f"PELEG: {fragment}"


def test_check_agent():
    check_agent(PELEG())


def test_batch_and_single_paths_take_the_same_decisions():
    env = gym.make("LinearBAI-Soare-v0", delta=0.1)
    for seed in range(2):
        single, batch = PELEG(), PELEG()
        a = run_episode(env, single, seed, batch=False)
        b = run_episode(env, batch, seed, batch=True)
        # the same phases on the same active sets have the same lengths and counts
        for p, q in zip(single.phase_log, batch.phase_log, strict=False):
            if p["active"] != q["active"]:
                break
            assert p["samples"] == q["samples"]
            assert np.array_equal(p["counts"], q["counts"])
        assert a.correct and b.correct


def test_theory_preset_costs_more_and_is_correct():
    # K = 2, h = 1, arms ±3: D√C/r ≈ 0.55, so the theory preset shrinks ε_1 by that factor
    env = gym.make(
        "LinearBAI-Custom-v0", features=[[3.0], [-3.0]], theta=[0.5], sigma=1.0, delta=0.1
    )
    practical, theory = PELEG(), PELEG(preset="theory")
    a = run_episode(env, practical, 0)
    b = run_episode(env, theory, 0)
    assert a.correct and b.correct
    assert b.samples > 2 * a.samples
    const = theory.phase_log[0]
    assert const["shrink"] < 1.0
    # overriding a preset flag
    mixed = PELEG(preset="theory", shrink_eps=False)
    c = run_episode(env, mixed, 0)
    assert c.correct and mixed.phase_log[0]["shrink"] == 1.0


def test_eta_clock_and_hedge_update_every_run():
    env = setting1(0.5)
    for kwargs in ({"eta_clock": "phase"}, {"hedge_update_every": 10}):
        rec = run_episode(env, PELEG(**kwargs), 0)
        assert rec.correct


def _errors(seeds: int) -> int:
    env = setting1(0.3)
    wrong = 0
    for seed in range(seeds):
        rec = run_episode(env, PELEG(), seed)
        assert rec.stop_reason == "stopped"
        wrong += not rec.correct
    return wrong


def test_delta_pac_fast():
    # the paper's Setting 1 (Δ = 0.3), δ = 0.1; P(Binomial(120, 0.1) ≥ 21) < 0.01
    assert _errors(120) <= 20


@pytest.mark.slow
def test_delta_pac_500_seeds():
    # P(Binomial(500, 0.1) ≥ 68) < 0.01
    assert _errors(500) <= 67
