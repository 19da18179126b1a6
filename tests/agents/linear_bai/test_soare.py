"""Soare, Lazaric & Munos (2014) agents: properties from the paper (cited by its own equation,
lemma, figure and appendix numbers) and of our implementation, conformance, and δ-correctness."""

from __future__ import annotations

import math

import gymnasium as gym
import numpy as np
import pytest
from scipy import stats

import bandit_envs  # noqa: F401  (registers the ids)
from agents import check_agent
from agents.linear_bai.greedy_allocation import (
    GreedySequence,
    GreedyState,
    TrackingPlan,
    adams_counts,
    adams_next,
    empirical_stop,
    greedy_pick,
    greedy_scores,
    initial_arms,
    non_dominated,
    select_greedy,
)
from agents.linear_bai.soare_static import GAllocation, XYAllocation, XYOracle
from agents.linear_bai.soare_xy_adaptive import FullyAdaptiveXY, XYAdaptive
from bandit_envs import run_episode
from bandit_envs.envs.linear_best_arm import soare_features
from bandit_envs.errors import InvalidParameterError
from bandit_envs.theory.design import g_optimal_design, pairwise_differences, round_design
from bandit_envs.theory.linalg import reduce_features
from bandit_envs.theory.thresholds import SoareThreshold, parse_soare_threshold

FC_AGENTS = [GAllocation, XYAllocation, XYOracle, XYAdaptive, FullyAdaptiveXY]


def paper_instance(d: int, omega: float = 0.01):
    x = soare_features(d, omega)
    theta = np.zeros(d)
    theta[0] = 2.0
    return x, theta


def manual_spec(env_id="LinearBAI-Soare-v0", **kw):
    env = gym.make(env_id, **kw)
    _, info = env.reset(seed=0)
    return env.unwrapped, info["problem"]


# ------------------------------------------------------------------- the instance of Section 6
def test_constants_of_the_paper_instance():
    """d = 5, ω = 0.01, θ* = 2e_1: Δ_min = 2(1 − cos ω) = ‖x_1 − x_6‖², the other gaps 2."""
    x, theta = paper_instance(5)
    mu = x @ theta
    assert int(np.argmax(mu)) == 0
    dmin = 2 * (1 - math.cos(0.01))
    gaps = mu[0] - mu[1:]
    assert gaps.min() == pytest.approx(9.99992e-5, rel=1e-6)
    assert gaps.min() == pytest.approx(dmin, rel=1e-12)
    assert np.sum((x[0] - x[5]) ** 2) == pytest.approx(dmin, rel=1e-9)
    np.testing.assert_allclose(gaps[:4], 2.0)


# --------------------------------------------------- designs and greedy steps (App. B, App. C)
def test_kiefer_wolfowitz_proposition3():
    """Prop. 3 (App. B.1): the G-optimal design has max leverage d, and no design has less."""
    rng = np.random.default_rng(0)
    for d in (2, 3, 5):
        x = rng.normal(size=(3 * d, d))
        res = g_optimal_design(x, tol=1e-8)
        lev = np.einsum("ij,jk,ik->i", x, np.linalg.inv((x.T * res.weights) @ x), x)
        assert lev.max() == pytest.approx(d, abs=1e-6)
        for _ in range(20):  # any design has max leverage >= d
            w = rng.dirichlet(np.ones(3 * d))
            lev = np.einsum("ij,jk,ik->i", x, np.linalg.inv((x.T * w) @ x), x)
            assert lev.max() >= d - 1e-9
    e = np.eye(4)
    lev = np.einsum("ij,jk,ik->i", e, np.linalg.inv(e.T @ e / 4), e)
    assert lev.max() == 4.0


def test_sherman_morrison_scores_match_explicit_inverses():
    """The rank-one update of App. C (Eq. 22) gives the greedy scores of explicit inverses."""
    rng = np.random.default_rng(1)
    x = rng.normal(size=(7, 4))
    v = pairwise_differences(x)
    w = rng.uniform(0.5, 2.0, size=v.shape[0])
    a = x.T @ x + 0.3 * np.eye(4)
    scores = greedy_scores(np.linalg.inv(a), x, v, w)
    for k in range(7):
        inv = np.linalg.inv(a + np.outer(x[k], x[k]))
        explicit = w * np.einsum("ij,jk,ik->i", v, inv, v)
        np.testing.assert_allclose(scores[:, k], explicit, rtol=1e-9)
    # the incremental state keeps matching after many rank-one updates
    state = GreedyState(x, v, w, np.ones(7, dtype=np.int64))
    for _ in range(3000):
        state.step()
    inv = np.linalg.inv((x.T * state.counts) @ x)
    np.testing.assert_allclose(state.scores(), greedy_scores(inv, x, v, w), rtol=1e-9)
    assert greedy_pick(inv, x, v, w) == state.pick()


@pytest.mark.parametrize("kind", ["G", "XY", "oracle"])
def test_greedy_uncertainty_is_non_increasing(kind):
    rng = np.random.default_rng(2)
    x = rng.normal(size=(6, 3))
    theta = rng.normal(size=3)
    if kind == "G":
        v, w = x, None
    elif kind == "XY":
        v, w = pairwise_differences(x), None
    else:
        mu = x @ theta
        b = int(np.argmax(mu))
        others = np.flatnonzero(np.arange(6) != b)
        v, w = x[b] - x[others], 1.0 / (mu[b] - mu[others]) ** 2
    seq = GreedySequence(x, v, w, initial_arms(x, x))
    ww = np.ones(v.shape[0]) if w is None else w
    previous, prev_counts = np.inf, np.zeros(6)
    for n in range(3, 400):
        counts = seq.counts_at(n)
        assert np.all(counts >= prev_counts)
        u = float(np.max(ww * np.einsum("ij,jk,ik->i", v, np.linalg.inv((x.T * counts) @ x), v)))
        assert u <= previous * (1 + 1e-12)
        previous, prev_counts = u, counts


# ------------------------------------------------------ static allocations (Section 4, Fig. 2)
@pytest.mark.parametrize(
    "make",
    [
        GAllocation,
        XYAllocation,
        XYOracle,
        lambda: GAllocation(allocation="design"),
        lambda: XYOracle(allocation="greedy"),
    ],
)
def test_static_allocations_do_not_depend_on_rewards(make):
    base, spec = manual_spec(d=3, omega=0.2)
    sequences = []
    for seed in (0, 1):
        agent = make()
        agent.set_params(threshold="constant(1e9)")  # never stops: follow the allocation
        agent.reset(spec, np.random.default_rng(seed))
        if agent.capabilities.oracle:
            agent.receive_truth(base.model.truth())
        noise = np.random.default_rng(100 + seed)
        arms = []
        for _ in range(300):
            arm = agent.select()
            arms.append(arm)
            agent.observe(arm, np.array([noise.normal(0, 5)]))
        sequences.append(arms)
    assert sequences[0] == sequences[1]


# ------------------------------------ greedy tie-breaking (the paper leaves it open; our rule)
def _first_index_greedy(z, v, init, steps):
    counts = np.bincount(init, minlength=z.shape[0]).astype(float)
    for _ in range(steps):
        inv = np.linalg.inv((z.T * counts) @ z)
        counts[int(np.argmin(greedy_scores(inv, z, v).max(axis=0)))] += 1
    return counts - np.bincount(init, minlength=z.shape[0])


@pytest.mark.parametrize("d", [2, 3, 5, 10])
@pytest.mark.parametrize("kind", ["G", "XY"])
def test_greedy_tie_breaking_on_the_paper_instance(d, kind):
    """Our lexicographic tie rule: e_2..e_d equal, e_1 and x_{d+1} share one slot, never "e_1
    forever" as with first-index ties."""
    x, _ = paper_instance(d)
    z, _ = reduce_features(x)
    init = initial_arms(x, z)
    np.testing.assert_array_equal(init, np.arange(d))  # the canonical arms
    v = z if kind == "G" else pairwise_differences(z)
    counts = GreedySequence(z, v, None, init).counts_at(d + 100 * d) - 1
    counts[d] += 1  # x_{d+1} was not in the initialisation
    assert counts[1:d].max() - counts[1:d].min() <= 1
    assert abs(counts[0] + counts[d] - counts[1]) <= 2
    if d == 5:  # the lexicographic tie-break: G shares the e1 slot 50/50, XY 51/49
        expected = [50, 100, 100, 100, 100, 50] if kind == "G" else [51, 100, 100, 100, 100, 49]
        np.testing.assert_array_equal(counts, expected)
    # first-index tie-breaking fails: e1 forever
    if d == 5:
        bad = _first_index_greedy(z, v, init, 200)
        assert bad[0] >= 190  # (200/200 with exact ties; round-off may break one)


# ----------------------------------------------------------------- efficient rounding (App. C)
def test_efficient_rounding_and_adams_tracking():
    """App. C's efficient rounding (Pukelsheim): counts sum to n, ≥ 1 on the support, one +1 per
    step, and equal the sequential Adams rule argmin T_i/w_i."""
    rng = np.random.default_rng(3)
    for _ in range(30):
        k = int(rng.integers(2, 8))
        w = rng.dirichlet(np.ones(k))
        w[rng.random(k) < 0.2] = 0.0
        if w.sum() == 0:
            w[0] = 1.0
        w /= w.sum()
        supp = np.flatnonzero(w > 1e-12)
        p = supp.size
        t = np.zeros(k, dtype=np.int64)
        prev = None
        for n in range(p, 40):
            counts = round_design(w, n)
            assert counts.sum() == n and np.all(counts[supp] >= 1)
            assert np.all(counts[w <= 1e-12] == 0)
            if prev is not None:  # monotone: exactly one count +1
                assert np.all(counts >= prev) and (counts - prev).sum() == 1
            prev = counts
        # Adams sequence argmin T_i / w_i from zero counts (first pulls: every support point)
        for n in range(1, 40):
            if t.sum() < p:
                t[supp[np.argmin(t[supp])]] += 1
            else:
                t[adams_next(t, w, supp)] += 1
            if n >= p:
                np.testing.assert_array_equal(t, round_design(w, n))
        # closed form from arbitrary initial counts = the sequential rule
        start = rng.integers(0, 3, size=k)
        c = start.copy()
        for n in range(int(start.sum()) + 1, int(start.sum()) + 60):
            c[adams_next(c, w, supp)] += 1
            np.testing.assert_array_equal(c, adams_counts(w, start, supp, n))


def test_lemma6_bound_of_the_rounded_g_design():
    """Lemma 6 (App. C): ρ^G of the rounded G design ≤ (1 + (d + d² + 2)/(2t))·d for t ≥ d."""
    rng = np.random.default_rng(4)
    for d in (2, 3, 4):
        x = rng.normal(size=(8, d))
        w = g_optimal_design(x, tol=1e-9).weights
        w[w < 1e-9] = 0.0
        p = int(np.count_nonzero(w))
        for t in range(max(d, p), 80):
            counts = round_design(w, t)
            inv = np.linalg.inv((x.T * (counts / t)) @ x)
            rho = np.einsum("ij,jk,ik->i", x, inv, x).max()
            assert rho <= (1 + (d + d * d + 2) / (2 * t)) * d + 1e-9


def test_tracking_plan_closed_form_matches_the_sequence():
    rng = np.random.default_rng(5)
    for _ in range(10):
        w = rng.dirichlet(np.ones(6))
        plan = TrackingPlan(w, np.array([0, 2, 4]))
        counts = np.zeros(6, dtype=np.int64)
        for n in range(200):
            np.testing.assert_array_equal(counts, plan.counts_at(n))
            counts[plan.next_arm(n, counts)] += 1


# -------------------------------------------------- stopping and elimination (Eq. 11, Lemma 4)
def test_empirical_stopping_rule_eq11():
    """Eq. 11 can only hold for the empirical best arm, and then that arm is returned."""
    rng = np.random.default_rng(6)
    holds_somewhere = 0
    for _ in range(300):
        k, d = int(rng.integers(2, 7)), int(rng.integers(1, 4))
        z = rng.normal(size=(k, d))
        theta = rng.normal(size=d)
        m = rng.normal(size=(d, d))
        inv = np.linalg.inv(m @ m.T + 0.1 * np.eye(d)) * rng.uniform(0.001, 0.1)
        beta = rng.uniform(0.1, 3.0)
        mu = z @ theta
        ok = []
        for x in range(k):  # Eq. 11 by brute force
            cond = all(
                beta * math.sqrt((z[x] - z[y]) @ inv @ (z[x] - z[y])) <= (z[x] - z[y]) @ theta
                and (z[x] - z[y]) @ theta > 0
                for y in range(k)
                if y != x
            )
            ok.append(cond)
        assert sum(ok) <= 1
        if any(ok):
            holds_somewhere += 1
            assert ok.index(True) == int(np.argmax(mu))
            assert empirical_stop(z, theta, inv, beta) == int(np.argmax(mu))
        else:
            assert empirical_stop(z, theta, inv, beta) is None
    assert holds_somewhere > 20
    # huge n and exact rewards: holds for the true best arm
    x, theta = paper_instance(5)
    z, u = reduce_features(x)
    beta = SoareThreshold("gaussian", 6, 0.05, 1.0)(1e12)
    assert empirical_stop(z, u.T @ theta, np.eye(5) * 1e-12, beta) == 0


def test_elimination_rule_of_lemma4():
    """Lemma 4 (Eq. 16), strict "<" and x' ≠ x: the empirical best is never eliminated."""
    rng = np.random.default_rng(7)
    for _ in range(200):
        k, d = int(rng.integers(2, 7)), int(rng.integers(1, 4))
        z = rng.normal(size=(k, d))
        theta = rng.normal(size=d)
        inv = np.eye(d) * rng.uniform(1e-3, 1.0)
        keep = non_dominated(z, theta, inv, rng.uniform(0, 3))
        assert keep[int(np.argmax(z @ theta))] and keep.any()
        keep0 = non_dominated(z, theta, inv, 0.0)
        mu = z @ theta
        np.testing.assert_array_equal(keep0, mu >= mu.max())
    z = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]])  # exact tie: both kept with beta=0
    np.testing.assert_array_equal(
        non_dominated(z, np.array([1.0, 0.0]), np.eye(2), 0.0), [True, True, False]
    )


# ---------------------------------------------- XY-Adaptive phases (Section 5, Fig. 3, Eq. 18)
def _drive(agent, base, spec, offsets, max_pulls, seed=0):
    """Feed N(mean + offset of the current phase, 1) rewards one pull at a time."""
    agent.reset(spec, np.random.default_rng(seed))
    noise = np.random.default_rng(seed + 1)
    means = base.model.means[:, 0]
    record = []
    for _ in range(max_pulls):
        arm = agent.select()
        if arm is None:
            break
        phase = len(agent.phases)
        r = means[arm] + offsets[min(phase, len(offsets) - 1)] + noise.normal()
        record.append((arm, r))
        agent.observe(arm, np.array([r]))
    return record


def test_xy_adaptive_phase_rule_and_phase_local_estimates():
    """Eq. 18: a phase ends at the first t with U_j(t) ≤ α·U_{j−1}; θ̂_j uses that phase only."""
    base, spec = manual_spec(d=3, omega=0.2)
    agent = XYAdaptive(alpha=0.3)
    offsets = [0.0, 0.7, -0.4, 1.1, 0.3, -0.9, 0.5, 0.2, -0.2, 0.8]
    record = _drive(agent, base, spec, offsets, 200_000)
    phases = agent.phases
    assert len(phases) >= 3
    z = agent._z
    u_prev = agent.U0
    for j, ph in enumerate(phases, start=1):
        arms = np.array([a for a, _ in record[ph["start"] : ph["start"] + ph["length"]]])
        rewards = np.array([r for _, r in record[ph["start"] : ph["start"] + ph["length"]]])
        # theta_j = OLS on this phase's samples only
        a = z[arms].T @ z[arms]
        np.testing.assert_allclose(
            ph["theta"], np.linalg.solve(a, z[arms].T @ rewards), rtol=1e-8, atol=1e-10
        )
        # the phase starts with one pull of each initial arm
        np.testing.assert_array_equal(arms[: len(agent.initial_arms)], agent.initial_arms)
        # it ends at the first t with U_j(t) <= alpha U_{j-1}
        act = ph["active_before"]
        i, k = np.triu_indices(act.size, 1)
        y = z[act[i]] - z[act[k]]
        target = agent.alpha * u_prev
        assert ph["U_target"] == pytest.approx(target)
        r0 = len(agent.initial_arms)
        for t in range(r0, ph["length"] + 1):
            counts = np.bincount(arms[:t], minlength=spec.n_arms)
            u = np.einsum("ij,jk,ik->i", y, np.linalg.inv((z.T * counts) @ z), y).max()
            if t < ph["length"]:
                assert u > target * (1 - 1e-9)
            else:
                assert u <= target * (1 + 1e-9)
                assert ph["U"] == pytest.approx(u, rel=1e-7)
        assert ph["U"] <= agent.alpha**j * agent.U0 * (1 + 1e-9)
        assert set(ph["active_after"]) <= set(ph["active_before"])  # monotone elimination
        u_prev = ph["U"]


def test_xy_adaptive_min_phase_len_and_reset_option():
    """n_j ≥ d(d + 1) + 1 (what the proof of Lemma 8 assumes, App. D), and the literal "reset"
    elimination of Fig. 3 (X̂_{j+1} = 𝒳)."""
    base, spec = manual_spec(d=3, omega=0.2)
    agent = XYAdaptive(alpha=0.3, min_phase_len="lemma8")
    _drive(agent, base, spec, [0.0], 100_000)
    assert all(ph["greedy_pulls"] >= 3 * 4 + 1 for ph in agent.phases)
    agent = XYAdaptive(elimination="reset", threshold="constant(3)")
    _drive(agent, base, spec, [0.0], 100_000)
    assert agent.phases[0]["active_before"].size == spec.n_arms


def test_xy_adaptive_batch_path_equals_single_path_noiseless():
    x, theta = paper_instance(3, omega=0.2)
    env = gym.make("LinearBAI-Custom-v0", features=x, theta=theta, sigma=0.0)
    for kw in (
        {},
        {"stop_within_phase": True},
        {"allocation": "design"},
        {"stop_within_phase": True, "check_growth": 0.05},
    ):
        # a constant threshold makes the noiseless run take several phases
        make = lambda kw=kw: XYAdaptive(threshold="constant(3)", **kw)  # noqa: E731
        a = run_episode(env, make(), 0, batch=False)
        b = run_episode(env, make(), 0, batch=True)
        assert a.correct and a.stop_reason == "stopped"
        assert (a.samples, a.pulls, a.answer) == (b.samples, b.pulls, b.answer)


def test_xy_adaptive_batch_and_single_paths_have_the_same_distribution():
    env = gym.make("LinearBAI-Soare-v0", omega=0.3)
    # within-phase checks on a 5% grid: batches are sums of many pulls, drawn at once
    make = lambda: XYAdaptive(stop_within_phase=True, check_growth=0.05)  # noqa: E731
    single = [run_episode(env, make(), s, batch=False).samples for s in range(80)]
    batch = [run_episode(env, make(), 1000 + s, batch=True).samples for s in range(80)]
    assert stats.ks_2samp(single, batch).pvalue > 1e-3


# -------------------------------------------------------------------- XY-Oracle (Eq. 4, Eq. 5)
def test_oracle_stop_eq4_is_deterministic_and_exact():
    """The oracle stopping condition Eq. 4 does not depend on rewards: the same τ on every seed."""
    env = gym.make("LinearBAI-Soare-v0")
    records = [run_episode(env, XYOracle(stop="oracle"), s) for s in range(5)]
    assert len({r.samples for r in records}) == 1
    assert len({r.pulls for r in records}) == 1
    single = run_episode(env, XYOracle(stop="oracle"), 9, batch=False)
    assert single.samples == records[0].samples and single.pulls == records[0].pulls
    # Eq. 4 holds at tau and not at tau - 1
    base, spec = manual_spec()
    agent = XYOracle(stop="oracle")
    agent.reset(spec, np.random.default_rng(0))
    agent.receive_truth(base.model.truth())
    tau = records[0].samples
    assert agent._oracle_condition(tau) and not agent._oracle_condition(tau - 1)


def test_oracle_tracks_the_oracle_design_on_the_paper_instance():
    """App. E (Fig. 5, d = 5): the oracle pulls e2 (≥ 95%), T(e1)/T(e2) ≈ tan(ω/2) (207/41440)."""
    env = gym.make("LinearBAI-Soare-v0", d=5, omega=0.01)
    r = run_episode(env, XYOracle(stop="oracle"), 0)
    pulls = np.array(r.pulls)
    assert r.correct and pulls[1] >= 0.95 * r.samples
    assert 0.004 <= pulls[0] / pulls[1] <= 0.006
    assert pulls[5] <= 1e-4 * r.samples  # λ*(x6) ≈ 0 (the optimum is flat in that direction)
    assert r.samples > r.lower_bound


def test_calibrated_oracle_matches_the_paper_table():
    """With the heuristic β ≡ 2 (what the paper's budgets imply), Eq. 4 stops at ≈ 4·H_LB,
    like App. E's oracle."""
    env = gym.make("LinearBAI-Soare-v0", d=5, omega=0.01)
    r = run_episode(env, XYOracle(stop="oracle", threshold="constant(2)"), 0)
    h_lb = 10100.84  # H_LB of the d = 5 instance (Eq. 6), computed by an independent solver
    assert 0.98 * 4 * h_lb <= r.samples <= 1.02 * 4 * h_lb  # paper: 41652
    pulls = np.array(r.pulls)
    assert 0.004 <= pulls[0] / pulls[1] <= 0.006 and pulls[2:].max() <= 5  # paper: 207/41440


#: greedy phase lengths of an independent implementation (β ≡ 2, monotone elimination, seed-free:
#: the phases do not depend on the rewards once the eliminations coincide)
XY_ADAPTIVE_TRACE = [96, 0, 10, 110, 1117, 11188, 111898]


@pytest.mark.parametrize(("seed", "n_phases", "samples"), [(1, 5, 1358), (2, 6, 12551)])
def test_xy_adaptive_phase_lengths_match_an_independent_trace(seed, n_phases, samples):
    """Greedy phase lengths 96, 0, 10, 110, 1117, … of an independent implementation."""
    env = gym.make("LinearBAI-Soare-v0", d=5, omega=0.01)
    agent = XYAdaptive(threshold="constant(2)")
    r = run_episode(env, agent, seed)
    assert [p["greedy_pulls"] for p in agent.phases] == XY_ADAPTIVE_TRACE[:n_phases]
    assert r.samples == samples and r.correct


@pytest.mark.slow
def test_xy_adaptive_seven_phase_budget_matches_the_independent_trace():
    """The seven phases of the independent implementation (β ≡ 2, monotone elimination)."""
    env = gym.make("LinearBAI-Soare-v0", d=5, omega=0.01)
    agent = XYAdaptive(threshold="constant(2)")
    r = run_episode(env, agent, 3)
    assert [p["greedy_pulls"] for p in agent.phases] == XY_ADAPTIVE_TRACE
    assert r.samples == 124454  # the independent implementation's budget
    assert r.pulls[1] == 123733 and r.pulls[5] == 10  # and its counts (633, 123733, 26, ..., 10)


# --------------------------------------------------------------------------- thresholds
def test_threshold_presets():
    k, delta, n = 6, 0.05, 1000
    assert SoareThreshold("paper", k, delta, 1.0)(n) == pytest.approx(
        2 * math.sqrt(2) * math.sqrt(math.log(6 * n**2 * k**2 / (math.pi**2 * delta)))
    )
    assert SoareThreshold("paper_fixed", k, delta, 2.0)(n) == pytest.approx(
        2 * math.sqrt(2) * 2 * math.sqrt(math.log(math.pi**2 * n**2 * k**2 / (6 * delta)))
    )
    assert SoareThreshold("gaussian", k, delta, 1.5)(n) == pytest.approx(
        1.5 * math.sqrt(2 * math.log(math.pi**2 * n**2 * k**2 / (3 * delta)))
    )
    assert SoareThreshold("constant(2)", k, delta, 1.0)(n) == 2.0
    assert SoareThreshold(2.5, k, delta, 1.0)(10) == 2.5
    assert SoareThreshold("gaussian", k, delta, 1.0).valid
    assert SoareThreshold("paper_fixed", k, delta, 1.0).valid
    assert not SoareThreshold("paper", k, delta, 1.0).valid
    assert not SoareThreshold("constant(2)", k, delta, 1.0).valid
    for bad in ("foo", "constant(x)", -1.0, 0, True, None, "constant(-2)"):
        with pytest.raises(InvalidParameterError, match="threshold must be"):
            parse_soare_threshold(bad)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (
            lambda: GAllocation(allocation="foo"),
            "GAllocation: allocation must be one of 'greedy', 'design'; got 'foo'.",
        ),
        (
            lambda: XYAllocation(threshold="bar"),
            "XYAllocation: threshold must be one of 'paper', 'paper_fixed', 'gaussian' or "
            "'constant(b)' with b > 0 or a finite float > 0; got 'bar'.",
        ),
        (
            lambda: XYAllocation(threshold="constant(-2)"),
            "XYAllocation: threshold must be one of 'paper', 'paper_fixed', 'gaussian' or "
            "'constant(b)' with b > 0 or a finite float > 0; got 'constant(-2)'.",
        ),
        (
            lambda: XYAllocation(check_growth=-1),
            "XYAllocation: check_growth must be a finite float >= 0; got -1.",
        ),
        (
            lambda: XYOracle(stop="never"),
            "XYOracle: stop must be one of 'empirical', 'oracle'; got 'never'.",
        ),
        (lambda: XYAdaptive(alpha=1.5), "XYAdaptive: alpha must be a float in (0, 1); got 1.5."),
        (lambda: XYAdaptive(U0=0), "XYAdaptive: U0 must be a finite float > 0; got 0."),
        (
            lambda: XYAdaptive(min_phase_len=-1),
            "XYAdaptive: min_phase_len must be an integer >= 0 or 'lemma8'; got -1.",
        ),
        (
            lambda: XYAdaptive(elimination="x"),
            "XYAdaptive: elimination must be one of 'monotone', 'reset'; got 'x'.",
        ),
        (
            lambda: XYAdaptive(stop_within_phase="yes"),
            "XYAdaptive: stop_within_phase must be True or False; got 'yes'.",
        ),
        (
            lambda: FullyAdaptiveXY(ridge=0),
            "FullyAdaptiveXY: ridge must be a finite float > 0; got 0.",
        ),
        (
            lambda: FullyAdaptiveXY(theta_norm_bound=-1),
            "FullyAdaptiveXY: theta_norm_bound must be None or a finite float >= 0; got -1.",
        ),
    ],
)
def test_invalid_parameters_are_refused_at_reset(make, message):
    _, spec = manual_spec()
    agent = make()  # __init__ only stores
    with pytest.raises(InvalidParameterError) as err:
        agent.reset(spec, np.random.default_rng(0))
    assert str(err.value) == message


# --------------------------------------------------------------------------- conformance
@pytest.mark.parametrize(
    "make",
    [
        GAllocation,
        XYAllocation,
        XYOracle,
        XYAdaptive,
        FullyAdaptiveXY,
        lambda: XYAllocation(allocation="design"),
        lambda: XYOracle(stop="oracle"),
        lambda: XYAdaptive(stop_within_phase=True),
    ],
)
def test_check_agent(make):
    agent = make()
    expected = (
        {"check_no_peeking": "an oracle reads the truth by design"}
        if agent.capabilities.oracle
        else None
    )
    results = check_agent(agent, expected_failed_checks=expected)
    passed = {r.check for r in results if r.status == "passed"}
    assert {"check_seed_determinism", "check_stops_when_easy", "check_global_rng"} <= passed
    if agent.capabilities.batch:
        assert "check_batch_equivalence" in passed
    if not agent.capabilities.oracle:
        assert "check_no_peeking" in passed


@pytest.mark.parametrize(
    "make",
    [
        GAllocation,
        XYAllocation,
        XYOracle,
        XYAdaptive,
        FullyAdaptiveXY,
        lambda: GAllocation(allocation="design"),
        lambda: XYOracle(stop="oracle"),
        lambda: XYAdaptive(stop_within_phase=True),
        lambda: XYAdaptive(allocation="design"),
    ],
)
def test_noiseless_run(make):
    x, theta = paper_instance(4, omega=0.1)
    env = gym.make("LinearBAI-Custom-v0", features=x, theta=theta, sigma=0.0)
    paths = (False, True) if make().capabilities.batch else (False,)
    records = [run_episode(env, make(), 0, batch=b) for b in paths]
    for r in records:
        assert r.correct and r.stop_reason == "stopped" and r.answer == frozenset({0})
        assert min(r.pulls[:4]) >= 1  # the initialisation: one pull per canonical arm
    assert len({(r.samples, r.pulls) for r in records}) == 1


def test_fixed_budget_spends_the_budget():
    env = gym.make("LinearBAI-Soare-v0", omega=0.3, budget=500)
    for make in (GAllocation, XYAllocation, XYOracle, lambda: XYAllocation(allocation="design")):
        for batch in (False, True):
            r = run_episode(env, make(), 0, batch=batch)
            assert r.samples == 500 and r.stop_reason == "budget"


def test_static_greedy_sequence_is_shared_by_episodes():
    from agents.linear_bai import greedy_allocation

    env = gym.make("LinearBAI-Soare-v0", d=3, omega=0.25)
    run_episode(env, XYAllocation(), 0)
    n_before = len(greedy_allocation._SEQUENCES)
    run_episode(env, XYAllocation(), 1)
    assert len(greedy_allocation._SEQUENCES) == n_before


def test_check_growth_grid_overshoots_little():
    env = gym.make("LinearBAI-Soare-v0", omega=0.3)
    # one-pull path for both: the same noise stream, only the check times differ
    every = [run_episode(env, GAllocation(), s, batch=False).samples for s in range(30)]
    grid = [
        run_episode(env, GAllocation(check_growth=0.05), s, batch=False).samples for s in range(30)
    ]
    assert np.mean(grid) <= 1.2 * np.mean(every)
    agent = GAllocation(check_growth=0.05)
    run_episode(env, agent, 0)
    assert agent.stopping_checks < 200


def test_select_greedy_tie_rule_on_a_toy_matrix():
    scores = np.array([[1.0, 1.0, 1.0], [0.2, 0.5, 0.2], [0.1, 0.0, 0.05]])
    assert select_greedy(scores) == 2  # ties at 1 and at 0.2; third level decides
    scores = np.array([[1.0, 1.0 + 1e-12], [0.3, 0.1]])  # within rtol: second level decides
    assert select_greedy(scores) == 1


# ----------------------------------------------------------------- δ-correctness (statistical)
ERROR_AGENTS = [
    GAllocation,
    XYAllocation,
    XYOracle,
    XYAdaptive,
    lambda: XYAdaptive(stop_within_phase=True),
    FullyAdaptiveXY,
    lambda: XYAllocation(allocation="design"),
]
# the unmarked version checks on a 1% grid (also δ-correct) to keep the suite fast
FAST_ERROR_AGENTS = [
    lambda: GAllocation(check_growth=0.01),
    lambda: XYAllocation(check_growth=0.01),
    lambda: XYOracle(check_growth=0.01),
    XYAdaptive,
    lambda: XYAdaptive(stop_within_phase=True, check_growth=0.01),
    FullyAdaptiveXY,
]


def _error_rate(make, seeds, delta=0.1):
    env = gym.make("LinearBAI-Soare-v0", omega=0.3, delta=delta)
    records = [run_episode(env, make(), s) for s in seeds]
    assert all(r.stop_reason == "stopped" for r in records)
    return sum(not r.correct for r in records), records


@pytest.mark.parametrize("make", FAST_ERROR_AGENTS)
def test_delta_correct_100_seeds(make):
    """Error rate ≤ δ = 0.1 on the well-separated instance ω = 0.3, d = 2 (binomial 99% slack)."""
    errors, _ = _error_rate(make, range(100))
    assert errors <= stats.binom.ppf(0.99, 100, 0.1)


@pytest.mark.slow
@pytest.mark.parametrize(
    "make",
    ERROR_AGENTS + [lambda: XYOracle(stop="oracle"), lambda: GAllocation(threshold="paper_fixed")],
)
def test_delta_correct_500_seeds(make):
    errors, _ = _error_rate(make, range(500))
    assert errors <= stats.binom.ppf(0.99, 500, 0.1)


def test_the_delta_correctness_test_has_power_against_a_constant_threshold():
    """The heuristic constant threshold is not δ-correct: the same harness catches it."""
    errors, _ = _error_rate(lambda: XYAllocation(threshold="constant(0.3)"), range(100))
    assert errors > stats.binom.ppf(0.999, 100, 0.1)


# -------------------------------------------------- reproduction of Fig. 4 and App. E (Fig. 5)
@pytest.mark.slow
def test_qualitative_reproduction_d5():
    """App. E, d = 5: oracle and XY-Adaptive put ≥ 95% on e2 with T(e1)/T(e2) ≈ tan(ω/2); G and
    XY spread uniformly; budgets G, XY > XY-Adaptive > oracle (Fig. 4)."""
    env = gym.make("LinearBAI-Soare-v0", d=5, omega=0.01)
    seeds = range(3)

    def runs(make):
        return [run_episode(env, make(), s) for s in seeds]

    out = {
        "oracle": runs(lambda: XYOracle(check_growth=1e-3)),
        "adaptive": runs(XYAdaptive),
        "G": runs(lambda: GAllocation(check_growth=1e-3)),
        "XY": runs(lambda: XYAllocation(check_growth=1e-3)),
    }
    for name in ("oracle", "adaptive"):
        for r in out[name]:
            pulls = np.array(r.pulls)
            assert r.correct and pulls[1] >= 0.95 * r.samples
            assert 0.004 <= pulls[0] / pulls[1] <= 0.006
    for name in ("G", "XY"):
        for r in out[name]:
            pulls = np.array(r.pulls)
            canon = pulls[1:5]  # e2..e5 equal, e1 (+ x6) one more slot: ≈ uniform
            assert r.correct and canon.max() - canon.min() <= 1e-4 * r.samples
            assert abs(pulls[0] + pulls[5] - canon.mean()) <= 1e-4 * r.samples
    mean = {k: np.mean([r.samples for r in v]) for k, v in out.items()}
    assert min(mean["G"], mean["XY"]) > mean["adaptive"] > mean["oracle"]
