"""The LP math of constrained best mixed arm identification (Tang, Jain, Nayyar & Nuzzo 2024),
bandit_envs.theory.lp."""

import itertools
import math
import re

import numpy as np
import pytest
from scipy.optimize import linprog

from bandit_envs import InvalidInstanceError, InvalidParameterError
from bandit_envs.envs.constrained_mixed import table1_instance
from bandit_envs.theory import lp

# our L = 1 toy with cbar = 1 (slack id 5), its scores worked out by hand
TOY_R = [0.3, 1.2, 0.8, 0.5, 1.0]
TOY_C = [[0.2, 1.1, 0.6, 1.4, 1.6]]
A1R = (
    [0.8, 1.2, 1.05, 0.6, 0.6, 1.0, 0.9, 0.9, 0.5, 0.7, 0.55, 0.85, 0.4, 0.5, 0.85, 1.0],
    [0.9, 0.6, 0.85, 0.35, 1.75, 0.55, 1.25, 0.7, 1.6, 1.25, 0.4, 1.55, 1.7, 1.65, 1.1, 0.45],
)
H2R = ([0.0, 1.2] + [0.8] * 14, [0.0, 1.2] + [0.9] * 14)


def toy():
    return lp.standard_form(TOY_R, TOY_C, [1.0])


def random_instance(rng, k, n_cost):
    rewards = rng.uniform(0.0, 1.5, k)
    costs = rng.uniform(0.2, 1.8, (n_cost, k))
    return lp.standard_form(rewards, costs, np.ones(n_cost))


# ---------------------------------------------------------------------------- standard form


def test_standard_form_columns():
    mu, a, b = lp.standard_form([1.0, 2.0, 3.0], [[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]], [1.0, 2.0])
    np.testing.assert_array_equal(mu, [1, 2, 3, 0, 0])
    np.testing.assert_array_equal(
        a, [[0.1, 0.2, 0.3, 1, 0], [0.4, 0.5, 0.6, 0, 1], [1, 1, 1, 0, 0]]
    )
    np.testing.assert_array_equal(b, [1, 2, 1])
    mu0, a0, b0 = lp.standard_form([1.0, 2.0], np.zeros((0, 2)), [])
    assert a0.shape == (1, 2) and b0.tolist() == [1.0]


@pytest.mark.parametrize(
    "args, message",
    [
        (([1.0, 2.0], [[0.1, 0.2, 0.3]], [1.0]), "costs shape (L, K)"),
        (([1.0, 2.0], [[0.1, 0.2]], [1.0, 2.0]), "one entry per cost row (1)"),
        (([1.0, np.nan], [[0.1, 0.2]], [1.0]), "rewards must be finite"),
    ],
)
def test_standard_form_errors(args, message):
    with pytest.raises(InvalidParameterError, match=re.escape(message)):
        lp.standard_form(*args)


def test_split_answer():
    assert lp.split_answer({10, 20, 25}, 24) == (frozenset({10, 20}), frozenset({1}))
    assert lp.split_answer(frozenset(), 24) == (frozenset(), frozenset())


# ------------------------------------------------------------------------ basis enumeration


@pytest.mark.parametrize("n, size", [(1, 1), (5, 2), (7, 3), (26, 3), (12, 5), (6, 6)])
def test_basis_table_is_itertools_combinations(n, size):
    table = lp.basis_table(n, size)
    np.testing.assert_array_equal(table, np.array(list(itertools.combinations(range(n), size))))
    assert not table.flags.writeable


def brute_force_scan(mu, a, b, bases):
    """One basis at a time, with numpy's rank test and solver (the reference)."""
    m = a.shape[0]
    x = np.full((len(bases), m), np.nan)
    values = np.full(len(bases), -np.inf)
    feasible = np.zeros(len(bases), dtype=bool)
    for row, basis in enumerate(bases):
        mat = a[:, basis]
        if np.linalg.matrix_rank(mat, tol=1e-10) < m:
            continue
        x[row] = np.linalg.solve(mat, b)
        if (x[row] >= -1e-12).all():
            feasible[row] = True
            values[row] = mu[basis] @ x[row]
    return x, values, feasible


@pytest.mark.parametrize("n_cost", [0, 1, 2, 3])
def test_scan_bases_matches_a_loop_over_bases(n_cost):
    """Cramer paths (m = 1, 2, 3) and the stacked LU path (m = 4) against a loop."""
    rng = np.random.default_rng(n_cost)
    for trial in range(3):
        mu, a, b = random_instance(rng, 9, n_cost)
        if trial == 2:  # repeated cost columns make some bases exactly singular
            a[:n_cost, 1] = a[:n_cost, 0]
            a[:n_cost, 2] = a[:n_cost, 0]
        bases = lp.basis_table(a.shape[1], n_cost + 1)
        scan = lp.scan_bases(mu, a, b)
        x, values, feasible = brute_force_scan(mu, a, b, bases)
        np.testing.assert_array_equal(scan.bases, bases)
        np.testing.assert_array_equal(scan.feasible, feasible)
        np.testing.assert_allclose(scan.values[feasible], values[feasible], rtol=1e-10)
        ok = ~np.isnan(x).any(axis=1)
        np.testing.assert_array_equal(~np.isnan(scan.x).any(axis=1), ok)
        np.testing.assert_allclose(scan.x[ok], x[ok], rtol=1e-8, atol=1e-10)
        assert np.isneginf(scan.values[~feasible]).all()
        if trial == 2 and n_cost:
            assert not ok.all()  # the singular bases were detected


def test_table1_has_exactly_singular_bases_and_they_are_flagged():
    rewards, costs, cbar = table1_instance("D3P")
    mu, a, b = lp.standard_form(rewards, costs, cbar)
    scan = lp.scan_bases(mu, a, b)
    x, values, feasible = brute_force_scan(mu, a, b, scan.bases)
    singular = np.isnan(x).any(axis=1)
    assert singular.sum() > 0
    np.testing.assert_array_equal(np.isnan(scan.x).any(axis=1), singular)
    np.testing.assert_array_equal(scan.feasible, feasible)


def brute_force_iv(mu, a, b, alive):
    items = np.flatnonzero(alive)
    m = a.shape[0]
    scores = np.full(a.shape[1], np.nan)
    scores[items] = -np.inf
    for basis in itertools.combinations(items, m):
        mat = a[:, basis]
        if np.linalg.matrix_rank(mat, tol=1e-10) < m:
            continue
        x = np.linalg.solve(mat, b)
        if (x >= -1e-12).all():
            for i in basis:
                scores[i] = max(scores[i], mu[list(basis)] @ x)
    return scores


def test_intersection_values_of_the_toy():
    """IV scores (eq. 6) of the toy; its optimal basis {1, 2} has value 1.12."""
    mu, a, b = toy()
    np.testing.assert_allclose(
        lp.intersection_values(mu, a, b), [1.10, 1.12, 1.12, 0.65, 0.88, 0.80], atol=1e-12
    )
    scan = lp.scan_bases(mu, a, b)
    assert scan.best_basis() == frozenset({1, 2}) == lp.best_basis(mu, a, b)
    assert scan.best_value == pytest.approx(1.12)


@pytest.mark.parametrize("n_cost", [1, 2, 3])
def test_intersection_values_match_a_loop_on_random_alive_sets(n_cost):
    rng = np.random.default_rng(10 + n_cost)
    for _ in range(5):
        mu, a, b = random_instance(rng, 10, n_cost)
        alive = rng.random(a.shape[1]) < 0.7
        got = lp.intersection_values(mu, a, b, alive)
        want = brute_force_iv(mu, a, b, alive)
        np.testing.assert_array_equal(np.isnan(got), ~alive)
        np.testing.assert_allclose(got[alive], want[alive], rtol=1e-10)


@pytest.mark.parametrize("n_cost", [1, 2])
def test_max_iv_is_the_restricted_lp_optimum(n_cost):
    """The largest IV score is the optimum of the LP restricted to X (HiGHS), attained on its
    basis."""
    rng = np.random.default_rng(20 + n_cost)
    checked = 0
    for _ in range(40):
        mu, a, b = random_instance(rng, 12, n_cost)
        alive = rng.random(a.shape[1]) < 0.6
        iv = lp.intersection_values(mu, a, b, alive)
        sol = lp.solve_lp(mu, a, b, alive)
        if sol.status == "infeasible":
            assert np.isneginf(iv[alive]).all()
            continue
        checked += 1
        assert np.nanmax(iv) == pytest.approx(sol.value, abs=1e-9)
        assert sol.support <= set(np.flatnonzero(alive))
        for i in sol.support:
            assert iv[i] == pytest.approx(sol.value, abs=1e-9)
    assert checked >= 20


def test_l0_intersection_values_are_the_rewards():
    """With L = 0 the IV score of an arm is its mean reward (SFSR is Successive Rejects)."""
    r = np.array([0.3, 0.9, 0.1, 0.5])
    mu, a, b = lp.standard_form(r, np.zeros((0, 4)), [])
    np.testing.assert_array_equal(lp.intersection_values(mu, a, b), r)
    np.testing.assert_allclose(lp.lagrangian_scores(mu, a, b), r - r.max())


# ------------------------------------------------------------------------------------- duals


def test_lagrangian_scores_of_the_toy_and_the_highs_sign():
    """Lagrangian scores (eq. 8) of the toy, λ = (0.8, 0.32); HiGHS's eqlin.marginals are −λ."""
    mu, a, b = toy()
    want = [-0.18, 0.0, 0.0, -0.94, -0.60, -0.80]
    np.testing.assert_allclose(lp.lagrangian_scores(mu, a, b), want, atol=1e-12)
    np.testing.assert_allclose(lp.lagrangian_scores(mu, a, b, dual="highs"), want, atol=1e-9)
    np.testing.assert_allclose(lp.basis_multipliers(mu, a, {1, 2}), [0.8, 0.32])
    np.testing.assert_allclose(lp.lp_dual(mu, a, b), [0.8, 0.32], atol=1e-9)
    res = linprog(-mu, A_eq=a, b_eq=b, bounds=(0, None), method="highs")
    np.testing.assert_allclose(res.eqlin.marginals, [-0.8, -0.32], atol=1e-9)
    np.testing.assert_allclose(lp.solve_lp(mu, a, b).duals, [0.8, 0.32], atol=1e-9)
    with pytest.raises(InvalidParameterError, match="dual must be 'basis' or 'highs'"):
        lp.lagrangian_scores(mu, a, b, dual="simplex")


@pytest.mark.parametrize("n_cost", [1, 2])
def test_reduced_costs_basis_and_highs_duals_agree(n_cost):
    """Reduced costs (eq. 8) are <= 0 and 0 on the optimal basis; a removed slack's multiplier is
    free (its constraint binds)."""
    rng = np.random.default_rng(30 + n_cost)
    checked = 0
    for _ in range(30):
        mu, a, b = random_instance(rng, 10, n_cost)
        alive = rng.random(a.shape[1]) < 0.75
        alive[a.shape[1] - 1] = False  # the last slack has left: its constraint is binding
        fast = lp.lagrangian_scores(mu, a, b, alive)
        slow = lp.lagrangian_scores(mu, a, b, alive, dual="highs")
        np.testing.assert_array_equal(np.isnan(fast), ~alive)
        if np.isneginf(fast[alive]).all():
            assert np.isneginf(slow[alive]).all()
            continue
        checked += 1
        np.testing.assert_allclose(fast[alive], slow[alive], atol=1e-7)
        assert (fast[alive] <= 1e-9).all()
        basis = lp.scan_bases(mu, a, b, alive=alive).best_basis()
        np.testing.assert_allclose(fast[sorted(basis)], 0.0, atol=1e-9)
    assert checked >= 15


def test_infeasible_instances():
    """Every cost above cbar: infeasible, the answer is ∅ (as in Sec. 4.3), every score -inf."""
    r, c = [0.5, 0.7, 0.9], [[2.0, 2.0, 2.0]]
    mu, a, b = lp.standard_form(r, c, [1.0])
    scan = lp.scan_bases(mu, a, b)
    assert scan.best is None and scan.best_value == -math.inf and scan.best_basis() == frozenset()
    assert np.isneginf(lp.intersection_values(mu, a, b)).all()
    assert np.isneginf(lp.lagrangian_scores(mu, a, b)).all()
    assert np.isneginf(lp.lagrangian_scores(mu, a, b, dual="highs")).all()
    assert lp.solve_lp(mu, a, b).status == "infeasible" and lp.lp_dual(mu, a, b) is None
    opt = lp.optimal_basis(r, c, [1.0])
    assert opt.basis == frozenset() and opt.value == -math.inf and opt.duals is None
    # only slack columns alive: the restricted LP is infeasible too
    mu, a, b = toy()
    alive = np.zeros(6, dtype=bool)
    alive[5] = True
    assert np.isneginf(lp.intersection_values(mu, a, b, alive)[5])


# ----------------------------------------------------------------------------- ground truth


@pytest.mark.parametrize(
    "name, support, weights",
    [
        ("D1P", [5, 24, 25], [1.0, 0.4, 0.1]),
        ("D2P", [10, 20, 25], [2 / 3, 1 / 3, 1 / 30]),
        ("D3P", [10, 12, 21], [0.6, 0.1, 0.3]),
        ("D1I", [1, 24, 25], [1.0, 0.6, 0.1]),
        ("D2I", [0, 20, 25], [0.4, 0.6, 0.3]),
        ("D3I", [9, 11, 21], [5 / 12, 1 / 4, 1 / 3]),
    ],
)
def test_table1_optimal_bases_weights_and_enumeration_agree(name, support, weights):
    """Table 1 (App. C): the bold supports (row-major arms, slacks 24 and 25) with the weights we
    solved for; HiGHS and the enumeration give the same basis."""
    rewards, costs, cbar = table1_instance(name)
    opt = lp.optimal_basis(rewards, costs, cbar)
    assert sorted(opt.basis) == support
    np.testing.assert_allclose(opt.x[support], weights, atol=1e-12)
    np.testing.assert_allclose(lp.mixing_weights(opt.basis, rewards, costs, cbar), opt.x)
    mu, a, b = lp.standard_form(rewards, costs, cbar)
    assert lp.best_basis(mu, a, b) == opt.basis
    assert (opt.reduced_costs[np.setdiff1d(np.arange(26), support)] < -1e-9).all()


def test_assumption_1_refusals():
    # a degenerate optimum: arm 0 alone, exactly on the threshold (its slack is 0)
    with pytest.raises(
        InvalidInstanceError,
        match=re.escape(
            "Assumption 1 fails (Tang et al. 2024, Sec. 4.1): the optimal solution has 1 non-zero "
            "coordinates (arm 0), not L + 1 = 2; a degenerate optimum"
        ),
    ):
        lp.optimal_basis([1.0, 0.5], [[1.0, 0.5]], [1.0])
    # two identical best arms: the optimum is not unique
    with pytest.raises(
        InvalidInstanceError,
        match=r"Assumption 1 fails .* is not unique: arm \d "
        r"has reduced cost",
    ):
        lp.optimal_basis([1.0, 1.0, 0.2], [[0.5, 0.5, 0.2]], [1.0])
    # collinear arms: the mix {0, 1} and arm 2 alone both reach value 1
    with pytest.raises(InvalidInstanceError, match="is not unique"):
        lp.optimal_basis([0.5, 1.5, 0.9], [[0.5, 1.5, 0.9]], [1.0])
    # the same instances, nudged, are accepted
    assert lp.optimal_basis([1.0, 0.5], [[0.99, 0.5]], [1.0]).basis == frozenset({0, 2})
    assert lp.optimal_basis([1.0, 0.99, 0.2], [[0.5, 0.5, 0.2]], [1.0]).basis == {0, 3}


def test_mixing_weights_and_errors():
    x = lp.mixing_weights({1, 2}, TOY_R, TOY_C, [1.0])
    np.testing.assert_allclose(x, [0, 0.8, 0.2, 0, 0, 0], atol=1e-12)
    assert x[:5].sum() == pytest.approx(1.0)
    with pytest.raises(
        InvalidParameterError, match="the empty answer means the instance is infeasible"
    ):
        lp.mixing_weights(set(), TOY_R, TOY_C, [1.0])
    with pytest.raises(InvalidParameterError, match=re.escape("a basis of L + 1 = 2 distinct")):
        lp.mixing_weights({1, 2, 3}, TOY_R, TOY_C, [1.0])
    with pytest.raises(InvalidParameterError, match="is singular"):
        lp.mixing_weights({0, 1}, [1.0, 2.0, 0.0], [[0.5, 0.5, 0.1]], [1.0])


def test_second_best_value_gives_the_margins_of_the_table1_instances():
    """Optimal minus second-best feasible basis value of each Table 1 instance (our values)."""
    for name, margin in [
        ("D1P", 0.0267),
        ("D2P", 0.010),
        ("D3P", 0.005),
        ("D1I", 0.03),
        ("D2I", 0.027),
        ("D3I", 0.0133),
    ]:
        rewards, costs, cbar = table1_instance(name)
        opt = lp.optimal_basis(rewards, costs, cbar)
        mu, a, b = lp.standard_form(rewards, costs, cbar)
        assert opt.value - lp.second_best_value(mu, a, b, opt.basis) == pytest.approx(
            margin, abs=5e-4
        )


# --------------------------------------------------------------------------------- hardness


def test_closed_forms_for_l1():
    """Gaps (eqs. 9-11) for L = 1 against our closed forms (sigma_r = 1, sigma_c = 0.5):
    (a) I* = {i, slack}: Delta0^2 = (cbar - c_i)^2 / sigma_c^2; (b) I* = {i, j}: Delta0^2 =
    min((cbar - c_i)^2, (c_j - cbar)^2) / sigma_c^2; (c) J = {j, slack}: Delta_J^2 =
    (r_i* - r_j)^2 / (2 sigma_r^2) + (c_j - cbar)_+^2 / sigma_c^2."""
    h = lp.hardness([1.0, 0.9, 0.2], [[0.5, 1.2, 0.9]], [1.0], {0, 3})
    assert h.delta0_sq == pytest.approx(1.0)  # (a): (cbar - c_0)^2 / sigma_c^2
    table = lp.basis_table(4, 2).tolist()
    assert h.basis_gaps_sq[table.index([1, 3])] == pytest.approx(0.165)  # (c)
    assert h.basis_gaps_sq[table.index([2, 3])] == pytest.approx(0.32)
    assert h.basis_gaps_sq[table.index([0, 3])] == 0.0
    # arm 1 is cheaper to promote by mixing with arm 0: (r_0 - r_1)^2 / 2
    assert h.arm_gaps_sq[1] == pytest.approx(0.005)
    # (b): I* = {0, 1}, Delta0^2 = min(0.8, 0.3)^2 / 0.25
    r, c = [0.0, 1.3, 0.3], [[0.2, 1.3, 0.6]]
    opt = lp.optimal_basis(r, c, [1.0])
    assert opt.basis == frozenset({0, 1})
    assert lp.hardness(r, c, [1.0], opt.basis).delta0_sq == pytest.approx(0.36)


def test_known_arms_do_not_move_and_noiseless_gaps_are_infinite():
    h = lp.hardness([1.0, 0.9, 0.2], [[0.5, 1.2, 0.9]], [1.0], {0, 3}, unknown=[False, True, True])
    assert h.delta0_sq == math.inf  # the support arm is known, the slack is fixed
    table = lp.basis_table(4, 2).tolist()
    assert h.basis_gaps_sq[table.index([1, 3])] == pytest.approx(0.01 + 0.16)  # r_1 moves alone
    quiet = lp.hardness([1.0, 0.9, 0.2], [[0.5, 1.2, 0.9]], [1.0], {0, 3}, sigma_r=0.0, sigma_c=0.0)
    assert quiet.delta0_sq == math.inf
    np.testing.assert_array_equal(quiet.arm_gaps_sq, [0.0, np.inf, np.inf, 0.0])


@pytest.mark.parametrize(
    "name, instance, delta0, head, rates",
    [
        (
            "A1r",
            A1R,
            0.64,
            [0, 0, 0.01125, 0.02, 0.02, 0.02204, 0.02726, 0.02831],
            (0.005625, 0.000352, 0.000321),
        ),
        ("H2r", H2R, 0.16, [0, 0] + [0.00497] * 14 + [0.0213], (0.002486, 0.000155, 2.93e-5)),
    ],
)
def test_hardness_matches_our_reference_values(name, instance, delta0, head, rates):
    """Our reconstructions A1r (an 'average' instance, Fig. 2) and H2r (App. A's hard template,
    Fig. 3); the paper's instances are images. Sorted arm gaps (eq. 10) and the rates of
    Theorem 2, of its USLP bound and of eq. 15 match our prototype's (SLSQP upper estimates)."""
    r, c = instance
    opt = lp.optimal_basis(r, [c], [1.0])
    h = lp.hardness(r, [c], [1.0], opt.basis)
    assert h.delta0_sq == pytest.approx(delta0)
    got = np.sort(h.arm_gaps_sq)[: len(head)]
    np.testing.assert_allclose(got, head, rtol=2e-3, atol=1e-12)
    out = h.rates(16, 1)
    np.testing.assert_allclose(
        [out["lower_bound_rate"], out["uslp_rate"], out["sfsr_rate"]], rates, rtol=5e-3
    )


def test_prop_2_on_a_table1_instance():
    """Proposition 2: exactly L + 1 zero gaps, on I*; Delta_(L+2) > 0."""
    rewards, costs, cbar = table1_instance("D2P")
    opt = lp.optimal_basis(rewards, costs, cbar)
    h = lp.hardness(rewards, costs, cbar, opt.basis)
    assert set(np.flatnonzero(h.arm_gaps_sq == 0.0)) == opt.basis
    assert h.delta_next_sq > 0 and np.isfinite(h.arm_gaps_sq).all()
    assert h.approximate
    # Delta0 by hand: I* = {10, 20, s2}; the cheapest face sets s2 = 0, so both rows become
    # equalities for the weights (t, 1 - t) of arms 10 = (0.8, 1.1) and 20 = (1.4, 0.7)
    t = np.linspace(0.0, 1.0, 200_001)
    face = ((0.8 * t + 1.4 * (1 - t) - 1) ** 2 + (1.1 * t + 0.7 * (1 - t) - 1) ** 2) / (
        t**2 + (1 - t) ** 2
    )
    others = min(0.4**2, 0.2**2 + 0.1**2)  # p_10 = 0, or p_20 = 0 (arm 10 breaks row 2)
    assert h.delta0_sq == pytest.approx(min(face.min(), others) / 0.25, rel=1e-6)
    # the per-basis gaps give the arm gaps
    table = lp.basis_table(26, 3)
    for item in (0, 13, 24):
        assert h.arm_gaps_sq[item] == h.basis_gaps_sq[(table == item).any(axis=1)].min()


# ---------------------------------------------------------------------- a full elimination


def test_a_full_sfsr_style_elimination_is_one_vectorised_scan_per_round():
    """23 rounds of IV on a Table-1 instance leave L + 1 items (its speed: benchmarks/)."""
    rewards, costs, cbar = table1_instance("D3I")
    mu, a, b = lp.standard_form(rewards, costs, cbar)
    rng = np.random.default_rng(0)
    alive = np.ones(26, dtype=bool)
    lp.scan_bases(mu, a, b, alive=alive)  # warm the basis table
    for _ in range(23):
        a[:2, :24] = costs + 0.05 * rng.standard_normal(costs.shape)
        mu[:24] = rewards + 0.05 * rng.standard_normal(24)
        scan = lp.scan_bases(mu, a, b, alive=alive)
        iv = lp.intersection_values(mu, a, b, alive, scan=scan)
        alive[int(np.argmin(np.where(alive, iv, np.inf)))] = False
    assert alive.sum() == 3
