"""The standard form, and every basis of it solved at once (the agents' hot path)."""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from bandit_envs.errors import InvalidParameterError

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]
BoolArray = NDArray[np.bool_]

#: a basic solution is feasible when every coordinate is ``>= -FEASIBILITY_TOL`` (the degenerate
#: BFSs that Definition 1 of Tang et al. 2024 allows stay feasible despite round-off).
FEASIBILITY_TOL = 1e-12
#: a basis matrix is singular when ``|det A_J| <= SINGULAR_TOL · Π_j ‖column j‖`` (Hadamard ratio).
SINGULAR_TOL = 1e-12
#: ground truth: a coordinate of the HiGHS optimum counts as non-zero when ``> SUPPORT_TOL``.
SUPPORT_TOL = 1e-9


def standard_form(
    rewards: ArrayLike, costs: ArrayLike, thresholds: ArrayLike
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """``(μ, A, b)`` of the standard-form LP (SFLP of Tang et al. 2024, Sec. 3, eqs. (2)–(3)).

    With estimated means in place of ``r`` and ``c`` it is the empirical LP of their eqs. (4)–(5).

    Args:
        rewards: ``r``, shape (K,).
        costs: ``c``, shape (L, K) (row ``l`` is cost type ``l``); ``L = 0`` (shape (0, K)) is
            allowed and gives the unconstrained problem (the best arm).
        thresholds: ``c̄``, shape (L,).

    Returns:
        Fresh writable arrays ``μ`` (K+L,), ``A`` (L+1, K+L) and ``b`` (L+1,). Column ``a < K`` of
        ``A`` is ``(c_{1,a}, …, c_{L,a}, 1)``; column ``K + l`` is the unit vector ``e_l``.

    Raises:
        InvalidParameterError: inconsistent shapes or non-finite values.
    """
    r = np.asarray(rewards, dtype=np.float64)
    c = np.asarray(costs, dtype=np.float64)
    cbar = np.asarray(thresholds, dtype=np.float64).reshape(-1)
    if r.ndim != 1 or r.size == 0 or c.ndim != 2 or c.shape[1] != r.size:
        raise InvalidParameterError(
            f"standard_form: rewards must have shape (K,) and costs shape (L, K); got rewards of "
            f"shape {r.shape} and costs of shape {c.shape}."
        )
    if cbar.shape != (c.shape[0],):
        raise InvalidParameterError(
            f"standard_form: thresholds must have one entry per cost row ({c.shape[0]}); got "
            f"shape {cbar.shape}."
        )
    for name, arr in (("rewards", r), ("costs", c), ("thresholds", cbar)):
        if not np.all(np.isfinite(arr)):
            raise InvalidParameterError(f"standard_form: {name} must be finite; got {arr!r}.")
    k, n_cost = r.size, c.shape[0]
    mu = np.zeros(k + n_cost)
    mu[:k] = r
    a = np.zeros((n_cost + 1, k + n_cost))
    a[:n_cost, :k] = c
    a[:n_cost, k:] = np.eye(n_cost)
    a[n_cost, :k] = 1.0
    b = np.append(cbar, 1.0)
    return mu, a, b


def split_answer(answer: Iterable[int], n_arms: int) -> tuple[frozenset[int], frozenset[int]]:
    """Split an answer (a basis over ``K + L`` items) into (support arms, non-binding constraints).

    Item ``a < K`` is arm ``a``; item ``K + l`` is the slack of constraint ``l``, which is in the
    optimal basis iff constraint ``l`` is non-binding (Tang et al. 2024, Remark 3). The empty answer
    (an infeasible instance) gives two empty sets.

    Examples:
        >>> split_answer({10, 20, 25}, n_arms=24)   # D2P: arms 10, 20; constraint 1 is slack
        (frozenset({10, 20}), frozenset({1}))

    """
    items = frozenset(int(i) for i in answer)
    return (
        frozenset(i for i in items if i < n_arms),
        frozenset(i - n_arms for i in items if i >= n_arms),
    )


@functools.lru_cache(maxsize=64)
def basis_table(n_items: int, size: int) -> IntArray:
    """Every ``size``-subset of ``range(n_items)``, lexicographic, shape (C(n_items, size), size).

    Cached and read-only: agents take the bases of the alive items with :func:`bases_within`.
    """
    if size < 0 or size > n_items:
        raise InvalidParameterError(
            f"basis_table: size must be in [0, n_items = {n_items}]; got {size!r}."
        )
    count = math.comb(n_items, size)
    out = np.zeros((1, 0), dtype=np.int64)
    for _ in range(size):  # extend every prefix by each larger item (lexicographic order)
        last = out[:, -1] if out.shape[1] else np.full(out.shape[0], -1)
        reps = n_items - 1 - last
        rows = np.repeat(np.arange(out.shape[0]), reps)
        offset = np.arange(rows.size) - np.repeat(np.cumsum(reps) - reps, reps)
        out = np.column_stack([out[rows], last[rows] + 1 + offset]).astype(np.int64)
    if out.shape[0] != count:  # pragma: no cover - guards the enumeration
        raise AssertionError(f"basis_table({n_items}, {size}) has {out.shape[0]} rows.")
    out.setflags(write=False)
    return out


def bases_within(alive: ArrayLike, size: int) -> IntArray:
    """The ``size``-subsets made only of alive items (rows of :func:`basis_table`).

    Args:
        alive: boolean mask over the items (length ``K + L``).
        size: the basis size ``L + 1``.
    """
    mask = np.asarray(alive, dtype=bool)
    table = basis_table(mask.size, size)
    return table[mask[table].all(axis=1)]


def solve_bases(
    a: FloatArray, b: FloatArray, bases: IntArray, *, singular_tol: float = SINGULAR_TOL
) -> tuple[FloatArray, BoolArray]:
    """Basic solutions ``x_J = A_J⁻¹ b`` of many bases at once (one vectorised computation).

    Args:
        a: the ``m × n`` matrix ``A`` (standard form, or its empirical version ``Â``).
        b: the right-hand side, shape (m,).
        bases: int array (n_bases, m) of column indices.
        singular_tol: ``A_J`` counts as singular when ``|det A_J| ≤ singular_tol ·
            Π_j ‖A_{:, J_j}‖`` (a scale-free test; exact zeros occur in true instances such as
            Table 1, where grid costs repeat).

    Returns:
        ``(x, nonsingular)``: ``x`` has shape (n_bases, m) (NaN rows where singular).
    """
    m = a.shape[0]
    n_bases = bases.shape[0]
    if n_bases == 0:
        return np.zeros((0, m)), np.zeros(0, dtype=bool)
    scale = np.prod(np.sqrt((a * a).sum(axis=0))[bases], axis=1)
    cols = a[:, bases]  # (m rows, n_bases, m columns): cols[i, :, j] = A[i, J_j]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if m == 1:
            det = cols[0, :, 0]
            x = (b[0] / det)[:, None]
        elif m == 2:
            a00, a01 = cols[0, :, 0], cols[0, :, 1]
            a10, a11 = cols[1, :, 0], cols[1, :, 1]
            det = a00 * a11 - a01 * a10
            x = np.column_stack([a11 * b[0] - a01 * b[1], a00 * b[1] - a10 * b[0]]) / det[:, None]
        elif m == 3:
            x, det = _cramer3(cols, b)
        else:
            mats = np.moveaxis(cols, 1, 0)
            det = np.linalg.det(mats)
            ok = np.abs(det) > singular_tol * scale
            safe = np.where(ok[:, None, None], mats, np.eye(m))
            x = np.linalg.solve(safe, np.broadcast_to(b[:, None], (n_bases, m, 1)))[..., 0]
        nonsingular = np.abs(det) > singular_tol * scale
    x = np.where(nonsingular[:, None], x, np.nan)
    return x, nonsingular


def _cramer3(cols: FloatArray, b: FloatArray) -> tuple[FloatArray, FloatArray]:
    """``A_J⁻¹ b`` for stacked 3×3 systems by the adjugate (x = adj(A) b / det A)."""
    a00, a01, a02 = cols[0, :, 0], cols[0, :, 1], cols[0, :, 2]
    a10, a11, a12 = cols[1, :, 0], cols[1, :, 1], cols[1, :, 2]
    a20, a21, a22 = cols[2, :, 0], cols[2, :, 1], cols[2, :, 2]
    c00 = a11 * a22 - a12 * a21
    c01 = a12 * a20 - a10 * a22
    c02 = a10 * a21 - a11 * a20
    det = a00 * c00 + a01 * c01 + a02 * c02
    b0, b1, b2 = b
    x0 = c00 * b0 + (a02 * a21 - a01 * a22) * b1 + (a01 * a12 - a02 * a11) * b2
    x1 = c01 * b0 + (a00 * a22 - a02 * a20) * b1 + (a02 * a10 - a00 * a12) * b2
    x2 = c02 * b0 + (a01 * a20 - a00 * a21) * b1 + (a00 * a11 - a01 * a10) * b2
    return np.column_stack([x0, x1, x2]) / det[:, None], det


@dataclass(frozen=True)
class BasisScan:
    """Every basis of a set of items, solved: the result of :func:`scan_bases`.

    Attributes:
        bases: int array (n, m), the bases (rows, items in increasing order).
        x: (n, m) basic solutions ``A_J⁻¹ b`` (NaN rows for singular bases).
        values: (n,) objective values ``μ_Jᵀ x_J``, ``-inf`` for infeasible or singular bases.
        feasible: (n,) bool, ``A_J`` invertible and ``x_J ≥ -FEASIBILITY_TOL``.

    """

    bases: IntArray
    x: FloatArray
    values: FloatArray
    feasible: BoolArray

    @property
    def best(self) -> int | None:
        """Row of the best feasible basis (the lowest row among exact ties), or ``None``."""
        if self.values.size == 0:
            return None
        row = int(np.argmax(self.values))
        return row if self.feasible[row] else None

    @property
    def best_value(self) -> float:
        """The optimal value of the LP restricted to the scanned items (``-inf``: infeasible)."""
        row = self.best
        return -math.inf if row is None else float(self.values[row])

    def best_basis(self) -> frozenset[int]:
        """The best feasible basis as a set of items (empty when none is feasible)."""
        row = self.best
        return frozenset() if row is None else frozenset(int(i) for i in self.bases[row])


def scan_bases(
    mu: FloatArray,
    a: FloatArray,
    b: FloatArray,
    bases: IntArray | None = None,
    *,
    alive: ArrayLike | None = None,
    feasibility_tol: float = FEASIBILITY_TOL,
    singular_tol: float = SINGULAR_TOL,
) -> BasisScan:
    """Solve every basis (of the alive items) and evaluate feasibility and value, vectorised.

    The enumeration behind the IV score (Tang et al. 2024, eq. (6)): batched solves of
    ``Â_J x = b``, feasibility
    ``min x ≥ -tol``, value ``μ̂_J · x``. No input validation (it is the agents' hot path): ``mu``
    (n,), ``a`` (m, n), ``b`` (m,) as from :func:`standard_form`.

    Args:
        mu: objective ``μ`` (or ``μ̂``), shape (n,) with n = K + L.
        a: constraint matrix ``A`` (or ``Â``), shape (m, n) with m = L + 1.
        b: right-hand side ``b = (c̄, 1)``.
        bases: the bases to solve; default: every basis of the alive items.
        alive: boolean mask of the items still in play (default: all); ignored if ``bases`` given.
        feasibility_tol: see :data:`FEASIBILITY_TOL`.
        singular_tol: see :func:`solve_bases`.

    """
    m = a.shape[0]
    if bases is None:
        mask = np.ones(a.shape[1], dtype=bool) if alive is None else np.asarray(alive, bool)
        bases = bases_within(mask, m)
    x, nonsingular = solve_bases(a, b, bases, singular_tol=singular_tol)
    with np.errstate(invalid="ignore"):
        feasible = nonsingular & (x >= -feasibility_tol).all(axis=1)
        values = np.where(
            feasible, (mu[bases] * np.where(feasible[:, None], x, 0.0)).sum(axis=1), -np.inf
        )
    return BasisScan(bases=bases, x=x, values=values, feasible=feasible)


def intersection_values(
    mu: FloatArray,
    a: FloatArray,
    b: FloatArray,
    alive: ArrayLike | None = None,
    *,
    scan: BasisScan | None = None,
) -> FloatArray:
    """The intersection-value (IV) score of every item (Tang et al. 2024, eq. (6), SFSR's score).

    ``f_a = max{ v̂(J) : J ⊂ X feasible basis, a ∈ J }`` over the alive items ``X``, ``-inf`` when
    no feasible basis contains ``a``. Its maximum over ``X`` is the optimal value of the LP
    restricted to ``X``, attained by every member of the restricted optimal basis (so SFSR never
    removes a member of the empirical optimal basis unless every score ties).

    Args:
        mu: the (empirical) objective ``μ̂`` (K+L,) of :func:`standard_form`.
        a: the (empirical) constraint matrix ``Â`` (L+1, K+L).
        b: the right-hand side ``b = (c̄, 1)``.
        alive: boolean mask of the items in play (default: all).
        scan: a :func:`scan_bases` result for the same inputs, to avoid solving twice.

    Returns:
        Shape (n,): the scores of alive items, **NaN for items not alive** (mask them before an
        argmin, e.g. ``np.where(alive, f, np.inf)``).
    """
    n, m = a.shape[1], a.shape[0]
    mask = np.ones(n, dtype=bool) if alive is None else np.asarray(alive, dtype=bool)
    if scan is None:
        scan = scan_bases(mu, a, b, alive=mask)
    scores = np.full(n, -np.inf)
    np.maximum.at(scores, scan.bases.ravel(), np.repeat(scan.values, m))
    scores[~mask] = np.nan
    return scores


def best_basis(
    mu: FloatArray, a: FloatArray, b: FloatArray, alive: ArrayLike | None = None
) -> frozenset[int]:
    """The optimal basis of the LP restricted to the alive items, by enumeration (USLP's answer).

    Lowest basis (lexicographic) among exact ties; the empty set when the restricted LP is
    infeasible. USLP (Tang et al. 2024, Sec. 4.3) solves the empirical SFLP; enumeration gives
    the same basis whenever the empirical optimum is unique.
    """
    return scan_bases(mu, a, b, alive=alive).best_basis()


def second_best_value(mu: FloatArray, a: FloatArray, b: FloatArray, basis: Iterable[int]) -> float:
    """The best value of a feasible basis other than ``basis`` (``-inf`` if there is none).

    ``v(I*) − second_best_value`` is the instance's margin; under Assumption 1 of Tang et al.
    (2024) it is > 0.
    """
    scan = scan_bases(mu, a, b)
    target = np.array(sorted(int(i) for i in basis))
    if target.size == 0:
        return scan.best_value
    other = ~(scan.bases == target).all(axis=1)
    return float(scan.values[other].max()) if other.any() else -math.inf
