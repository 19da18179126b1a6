"""Simplex multipliers and reduced costs, HiGHS solutions, and the true optimal basis."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from bandit_envs.errors import InvalidInstanceError, InvalidParameterError
from bandit_envs.theory.lp._bases import (
    SUPPORT_TOL,
    BasisScan,
    FloatArray,
    scan_bases,
    solve_bases,
    standard_form,
)


def basis_multipliers(mu: FloatArray, a: FloatArray, basis: Iterable[int]) -> FloatArray:
    """Simplex multipliers ``λ = A_J⁻ᵀ μ_J`` of a basis, shape (m,).

    For the optimal basis of a non-degenerate LP these are the dual optimum (the empirical dual of
    Tang et al. 2024, eq. (8)), so :func:`reduced_costs` gives SFSR-L's scores. Raises
    ``LinAlgError`` if ``A_J`` is singular.
    """
    j = np.array(sorted(int(i) for i in basis))
    return np.linalg.solve(a[:, j].T, mu[j])


def reduced_costs(mu: FloatArray, a: FloatArray, lam: FloatArray) -> FloatArray:
    """Reduced costs ``μ − Aᵀλ`` of every item (Tang et al. 2024, eq. (8)).

    For a real arm: ``r_a − Σ_l λ_l c_{l,a} − λ_{L+1}`` (minus the "Lagrangian reward"); for the
    slack of constraint ``l``: ``−λ_l``. At a dual optimum they are ``≤ 0`` on the columns in
    play and ``0`` on the optimal basis (complementary slackness).
    """
    return mu - a.T @ lam


def lagrangian_scores(
    mu: FloatArray,
    a: FloatArray,
    b: FloatArray,
    alive: ArrayLike | None = None,
    *,
    dual: str = "basis",
    scan: BasisScan | None = None,
) -> FloatArray:
    """SFSR-L's Lagrangian score of every item: the reduced cost at the empirical dual (eq. (8)).

    Args:
        mu: the (empirical) objective ``μ̂`` (K+L,) of :func:`standard_form`.
        a: the (empirical) constraint matrix ``Â`` (L+1, K+L).
        b: the right-hand side ``b = (c̄, 1)``.
        alive: boolean mask of the items in play (default: all); the dual is that of the LP
            restricted to them (a removed slack leaves its ``λ_l`` free: constraint ``l`` is
            then an equality).
        dual: ``"basis"`` (default, fast): the multipliers of the best feasible basis of a
            :func:`scan_bases` (dual optimal whenever the optimal BFS is non-degenerate, which
            has probability 1 with Gaussian noise); ``"highs"``: solve the dual LP with HiGHS
            (:func:`lp_dual`), an LP solve per call.
        scan: a :func:`scan_bases` result for the same inputs (``dual="basis"`` only).

    Returns:
        Shape (n,): the scores (``≤ 0``) of alive items, all ``-inf`` when the restricted LP is
        infeasible (the dual is unbounded), **NaN for items not alive**.
    """
    n = a.shape[1]
    mask = np.ones(n, dtype=bool) if alive is None else np.asarray(alive, dtype=bool)
    if dual == "basis":
        if scan is None:
            scan = scan_bases(mu, a, b, alive=mask)
        basis = scan.best_basis()
        lam = basis_multipliers(mu, a, basis) if basis else None
    elif dual == "highs":
        lam = lp_dual(mu, a, b, mask)
    else:
        raise InvalidParameterError(
            f"lagrangian_scores: dual must be 'basis' or 'highs'; got {dual!r}."
        )
    scores = np.full(n, -np.inf) if lam is None else reduced_costs(mu, a, lam)
    scores[~mask] = np.nan
    return scores


@dataclass(frozen=True)
class LPSolution:
    """A HiGHS solution of the (restricted) standard-form LP.

    Attributes:
        status: ``"optimal"`` or ``"infeasible"``.
        x: (n,) optimal solution (zeros when infeasible).
        value: optimal value (``-inf`` when infeasible).
        duals: ``λ`` (m,), the optimal dual of the equality constraints, signed so that
            ``reduced_costs(mu, a, duals) ≤ 0`` (HiGHS's ``eqlin.marginals`` of ``min −μᵀx`` are
            ``−λ``); ``None`` when infeasible.

    """

    status: str
    x: FloatArray
    value: float
    duals: FloatArray | None

    @property
    def support(self) -> frozenset[int]:
        """Items with ``x_i > SUPPORT_TOL``."""
        return frozenset(int(i) for i in np.flatnonzero(self.x > SUPPORT_TOL))


def _bounds(n: int, alive: ArrayLike | None) -> list[tuple[float, float | None]]:
    mask = np.ones(n, dtype=bool) if alive is None else np.asarray(alive, dtype=bool)
    return [(0.0, None) if keep else (0.0, 0.0) for keep in mask]


def solve_lp(
    mu: FloatArray, a: FloatArray, b: FloatArray, alive: ArrayLike | None = None
) -> LPSolution:
    """Solve ``max μᵀx s.t. Ax = b, x ≥ 0`` (columns outside ``alive`` fixed at 0) with HiGHS.

    ``scipy.optimize.linprog(-μ, A_eq=A, b_eq=b, method="highs")``.
    """
    from scipy.optimize import linprog

    n = a.shape[1]
    res = linprog(-mu, A_eq=a, b_eq=b, bounds=_bounds(n, alive), method="highs")
    if res.status == 2:
        return LPSolution("infeasible", np.zeros(n), -math.inf, None)
    if res.status != 0:  # pragma: no cover - the feasible set is bounded (p in the simplex)
        raise RuntimeError(f"solve_lp: HiGHS failed with status {res.status}: {res.message}")
    return LPSolution(
        "optimal",
        np.asarray(res.x, dtype=np.float64),
        float(-res.fun),
        -np.asarray(res.eqlin.marginals, dtype=np.float64),
    )


def lp_dual(
    mu: FloatArray, a: FloatArray, b: FloatArray, alive: ArrayLike | None = None
) -> FloatArray | None:
    """The empirical dual behind SFSR-L's score (Tang et al. 2024, eq. (8)), solved with HiGHS.

    ``min_λ bᵀλ s.t. A_Xᵀλ ≥ μ_X`` (``λ`` free) over the alive columns ``X``. Returns ``λ`` (m,),
    or ``None`` when the dual is unbounded (the restricted primal is infeasible).
    """
    from scipy.optimize import linprog

    n, m = a.shape[1], a.shape[0]
    mask = np.ones(n, dtype=bool) if alive is None else np.asarray(alive, dtype=bool)
    res = linprog(b, A_ub=-a[:, mask].T, b_ub=-mu[mask], bounds=[(None, None)] * m, method="highs")
    if res.status == 3:
        return None
    if res.status != 0:  # pragma: no cover - always feasible: λ = (0, …, 0, max μ)
        raise RuntimeError(f"lp_dual: HiGHS failed with status {res.status}: {res.message}")
    return np.asarray(res.x, dtype=np.float64)


@dataclass(frozen=True)
class OptimalBasis:
    """The optimal basis ``I*`` of an instance that satisfies Assumption 1 of Tang et al. (2024).

    Attributes:
        basis: ``I*`` as a frozenset of items (empty: the instance is infeasible).
        x: (K+L,) the optimal solution ``x*`` (``p*`` then the slacks); zeros when infeasible.
        value: ``μᵀx*`` (``-inf`` when infeasible).
        duals: ``λ* = A_{I*}⁻ᵀ μ_{I*}`` (``None`` when infeasible).
        reduced_costs: ``μ − Aᵀλ*`` (< 0 off ``I*``, 0 on it; ``None`` when infeasible).

    """

    basis: frozenset[int]
    x: FloatArray
    value: float
    duals: FloatArray | None
    reduced_costs: FloatArray | None


def _item_name(i: int, k: int) -> str:
    return f"arm {i}" if i < k else f"slack {i} (constraint {i - k})"


def optimal_basis(
    rewards: ArrayLike,
    costs: ArrayLike,
    thresholds: ArrayLike,
    *,
    tol: float = SUPPORT_TOL,
    who: str = "optimal_basis",
) -> OptimalBasis:
    """The true answer ``I*``, computed with HiGHS, after checking Assumption 1.

    Assumption 1 of Tang et al. (2024), Sec. 4.1: the LP has a **unique** optimum ``x*`` with
    **exactly L + 1** non-zero coordinates. Checked as follows: ``supp(x*) = {i : x*_i > tol}`` must
    have ``L + 1`` items with a non-singular ``A_{I*}``, and every item outside ``I*`` must have a
    reduced cost ``< −tol·scale`` at ``λ* = A_{I*}⁻ᵀ μ_{I*}`` (a non-degenerate optimal BFS is
    unique iff no non-basic reduced cost is 0). An infeasible LP has the empty answer.

    Raises:
        InvalidInstanceError: Assumption 1 fails; the message says how.
    """
    mu, a, b = standard_form(rewards, costs, thresholds)
    k, m = np.asarray(rewards).size, a.shape[0]
    sol = solve_lp(mu, a, b)
    n = a.shape[1]
    if sol.status == "infeasible":
        return OptimalBasis(frozenset(), np.zeros(n), -math.inf, None, None)
    support = sorted(sol.support)
    scale = max(1.0, float(np.abs(mu).max()), float(np.abs(a).max()), float(np.abs(b).max()))
    if len(support) != m:
        items = ", ".join(_item_name(i, k) for i in support)
        kind = (
            "a degenerate optimum: some basic coordinate is 0, so an infinitesimal change of the "
            "costs changes the support"
            if len(support) < m
            else "the optimum is not a vertex, so it is not unique"
        )
        raise InvalidInstanceError(
            f"{who}: Assumption 1 fails (Tang et al. 2024, Sec. 4.1): the optimal solution has "
            f"{len(support)} non-zero coordinates ({items}), not L + 1 = {m}; {kind}. No budget "
            f"identifies the optimal support; perturb the means or the thresholds."
        )
    basis = np.array(support)
    x_b, ok = solve_bases(a, b, basis[None, :])
    if not ok[0] or (x_b[0] <= tol).any():  # pragma: no cover - HiGHS returned a vertex
        raise InvalidInstanceError(
            f"{who}: Assumption 1 fails (Tang et al. 2024, Sec. 4.1): the optimal support "
            f"{support} does not form a non-singular basis with a positive solution."
        )
    lam = basis_multipliers(mu, a, support)
    rc = reduced_costs(mu, a, lam)
    rc[basis] = 0.0
    off = np.setdiff1d(np.arange(n), basis)
    tied = off[rc[off] >= -tol * scale]
    if tied.size:
        j = int(tied[0])
        value = float(mu[basis] @ x_b[0])
        raise InvalidInstanceError(
            f"{who}: Assumption 1 fails (Tang et al. 2024, Sec. 4.1): the optimum (value "
            f"{value:.6g}, basis "
            f"{{{', '.join(_item_name(i, k) for i in support)}}}) is not unique: "
            f"{_item_name(j, k)} has reduced cost {float(rc[j]):.3g} (not < 0), so bringing it "
            f"into the basis gives another optimal solution. Perturb the means so that the best "
            f"mixed arm is unique."
        )
    x = np.zeros(n)
    x[basis] = x_b[0]
    return OptimalBasis(frozenset(support), x, float(mu @ x), lam, rc)


def mixing_weights(
    answer: Iterable[int], rewards: ArrayLike, costs: ArrayLike, thresholds: ArrayLike
) -> FloatArray:
    """The mixed arm of a basis: ``x_X = A_X⁻¹ b`` on ``X``, 0 elsewhere (Tang et al., Remark 2).

    With estimated ``(r̂, ĉ)`` this is the estimate ``x̂_X = Â_X⁻¹ b`` of Remark 2. Returns the
    (K+L,) vector ``x``: ``x[:K]`` are the weights ``p`` of the mixed arm (they sum to 1),
    ``x[K:]`` the slacks of the constraints (positive for non-binding ones).

    Raises:
        InvalidParameterError: ``answer`` is empty (an infeasible instance has no mixed arm), is
            not a set of ``L + 1`` items, or ``A_X`` is singular.
    """
    mu, a, b = standard_form(rewards, costs, thresholds)
    items = sorted(int(i) for i in answer)
    m, n = a.shape
    if len(items) != m or len(set(items)) != m or not all(0 <= i < n for i in items):
        raise InvalidParameterError(
            f"mixing_weights: answer must be a basis of L + 1 = {m} distinct items in "
            f"0..{n - 1}; got {items!r}"
            + (" (the empty answer means the instance is infeasible)." if not items else ".")
        )
    x_b, ok = solve_bases(a, b, np.array(items)[None, :])
    if not ok[0]:
        raise InvalidParameterError(
            f"mixing_weights: the basis {items!r} is singular (A_X is not invertible)."
        )
    x = np.zeros(n)
    x[items] = x_b[0]
    return x
