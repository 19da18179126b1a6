"""Pareto dominance, PSI gaps and complexities, shared by environments and agents.

The definitions of Kone, Kaufmann & Richert, "Bandit Pareto Set Identification in a Multi-Output
Linear Model" (the GEGE paper, "Kone et al." below), Sec. 2. Every objective is *maximised*. For
mean vectors ``μ_i, μ_j ∈ R^d`` (Definition 1): ``i`` is *dominated* by ``j`` when
``μ_i(c) ≤ μ_j(c)`` for every ``c`` and ``μ_i(c) < μ_j(c)`` for some ``c``. Two identical vectors
do not dominate each other. The Pareto set ``S*`` holds the arms no other arm dominates.
:func:`pareto_mask` is the one implementation of that test in the library; every other routine here
derives from it.

Margins (Sec. 2.1): ``M(i, j) = max_c [μ_i(c) − μ_j(c)]`` and ``m(i, j) = −M(i, j)``. PSI gaps
(Kone et al. eq. (1), from Auer et al. 2016): ``Δ_i = Δ*_i`` for ``i ∉ S*`` and ``Δ_i = δ*_i`` for
``i ∈ S*``, with ``Δ*_i = max_j m(i, j)`` and
``δ*_i = min_{j ≠ i} [M(i, j) ∧ (M(j, i)_+ + (Δ*_j)_+)]``.

Cost. With ``K`` arms, ``d`` objectives and ``s = |S*|``: :func:`pareto_mask` takes
``O(K log K)`` time for ``d ≤ 2`` and ``O(K log K · d + K (s + B) d)`` beyond (``B = 256`` is a
block size), :func:`psi_gaps` and
:func:`empirical_gaps` add ``O(K s d)``; :func:`dominance_margins` is ``O(|rows| |cols| d)``.
Nothing allocates a ``K × K × d`` array: coordinates are visited one at a time and rows are
processed in blocks of at most :data:`BLOCK_ELEMENTS` pairs, so the working memory is
``O(BLOCK_ELEMENTS)`` whatever ``K``. The worst case (every arm Pareto-optimal) is ``O(K² d)`` time.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NamedTuple, cast

import numpy as np
from numpy.typing import ArrayLike, NDArray

from bandit_envs.errors import InvalidParameterError
from bandit_envs.theory.answers import as_answer

__all__ = [
    "BLOCK_ELEMENTS",
    "PSIGaps",
    "as_means",
    "complexities",
    "dominance_margins",
    "empirical_gaps",
    "is_eps_pareto_set",
    "margins",
    "pareto_mask",
    "pareto_mask_unchecked",
    "pareto_set",
    "psi_gaps",
    "rows_per_block",
]

#: Largest number of (row, column) pairs held in one temporary array (512 KB of float64: blocks
#: that fit in a core's cache were measured faster than larger ones at K = 10⁴).
BLOCK_ELEMENTS = 1 << 16

#: Rows per block of the sort-and-filter Pareto mask (a block is compared with itself).
_MASK_BLOCK = 256

BoolArray = NDArray[np.bool_]
FloatArray = NDArray[np.float64]
IntArray = NDArray[np.intp]


class PSIGaps(NamedTuple):
    """PSI gaps of a set of arms (Kone et al., eq. (1)).

    Attributes:
        gaps: ``Δ_i`` per arm, shape ``(n,)``: ``Δ*_i`` for dominated arms, ``δ*_i`` for
            Pareto-optimal ones (``+inf`` for a lone arm, whose ``δ*`` is a minimum over nothing).
        pareto: the Pareto mask of the same arms, shape ``(n,)`` (:func:`pareto_mask`).
        arms: the arm indices the entries refer to, shape ``(n,)`` (``0..K-1`` for
            :func:`psi_gaps`, the active arms in increasing order for :func:`empirical_gaps`).

    """

    gaps: FloatArray
    pareto: BoolArray
    arms: IntArray


def as_means(means: ArrayLike, who: str) -> FloatArray:
    """Return ``means`` as a finite 2-D float64 array ``(K, d)`` with ``K, d ≥ 1``, or raise."""
    try:
        mu = np.asarray(means, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InvalidParameterError(
            f"{who}: means must be a numeric array of shape (K, d); could not convert it ({exc})."
        ) from None
    if mu.ndim != 2 or mu.shape[0] < 1 or mu.shape[1] < 1:
        raise InvalidParameterError(
            f"{who}: means must be a 2-D array of shape (K, d) with K, d >= 1 (one row per arm, "
            f"one column per objective); got shape {mu.shape}."
        )
    if not np.isfinite(mu).all():
        bad = np.argwhere(~np.isfinite(mu))[0]
        raise InvalidParameterError(
            f"{who}: means must be finite; entry {tuple(int(i) for i in bad)} is "
            f"{float(mu[tuple(bad)])!r}."
        )
    return mu


def rows_per_block(n_cols: int) -> int:
    return max(1, BLOCK_ELEMENTS // max(1, n_cols))


def _dominated_by(points: FloatArray, others: FloatArray) -> BoolArray:
    """For each row ``p`` of ``points``: is some row of ``others`` dominating it (Definition 1)?

    Compares one coordinate at a time, so the temporaries are ``len(points) × len(others)``
    booleans (callers keep that product below :data:`BLOCK_ELEMENTS`).
    """
    n, d = points.shape
    if n == 0 or others.shape[0] == 0:
        return np.zeros(n, dtype=bool)
    weak = others[None, :, 0] >= points[:, 0, None]  # others ≥ point on every coordinate so far
    strict = others[None, :, 0] > points[:, 0, None]  # others > point on some coordinate so far
    for c in range(1, d):
        a = others[None, :, c]
        b = points[:, c, None]
        weak &= a >= b
        strict |= a > b
    weak &= strict
    return cast(BoolArray, weak.any(axis=1))  # an array: numpy's stubs also allow a scalar


def pareto_mask(means: ArrayLike) -> BoolArray:
    """Which arms are Pareto-optimal: ``mask[i]`` iff no arm dominates arm ``i``.

    Definition 1 of Kone et al., maximisation: ``j`` dominates ``i`` iff
    ``μ_i ≤ μ_j`` coordinate-wise with at least one strict inequality; identical vectors do not
    dominate each other (both stay in the set if nothing else dominates them). Use it for the true
    Pareto set and for empirical Pareto sets alike.

    Algorithm: for ``d = 2`` one sort and a running maximum (``O(K log K)``). Otherwise the arms
    are sorted by decreasing coordinate sum (ties broken lexicographically), so any arm dominating
    ``i`` comes before ``i``; blocks of rows are then compared only with the Pareto arms found so
    far and with the survivors of their own block (dominance is transitive, so some Pareto arm
    dominates every dominated arm): ``O(K log K · d + K (|S*| + 256) d)`` time, memory
    ``O(BLOCK_ELEMENTS)``. Exact in floating point (no arithmetic, only comparisons).

    Examples:
        >>> pareto_mask([[1.0, 0.0], [0.0, 1.0], [0.4, 0.4], [0.6, 0.6]]).tolist()
        [True, True, False, True]

    Args:
        means: mean vectors, shape ``(K, d)``, finite.

    Returns:
        A boolean array of shape ``(K,)``.

    Raises:
        InvalidParameterError: if ``means`` is not a finite 2-D array with ``K, d ≥ 1``.
    """
    mu = as_means(means, "pareto_mask")
    return pareto_mask_unchecked(mu)


def pareto_mask_unchecked(mu: FloatArray) -> BoolArray:
    k, d = mu.shape
    if d == 1:
        return mu[:, 0] == mu[:, 0].max()
    if d == 2:
        return _pareto_mask_2d(mu)
    if k <= 64:  # one small all-pairs comparison beats sorting
        return ~_dominated_by(mu, mu)
    # primary key: −sum; then −μ(0), −μ(1), ... (np.lexsort sorts by its last key first)
    keys = [-mu[:, c] for c in range(d - 1, -1, -1)]
    keys.append(-mu.sum(axis=1))
    order = np.lexsort(keys)
    srt = mu[order]
    keep = np.zeros(k, dtype=bool)
    front = srt[:0]
    for start in range(0, k, _MASK_BLOCK):
        block = srt[start : start + _MASK_BLOCK]
        alive = np.ones(block.shape[0], dtype=bool)
        step = rows_per_block(front.shape[0])
        for lo in range(0, block.shape[0], step):
            alive[lo : lo + step] = ~_dominated_by(block[lo : lo + step], front)
        idx = np.flatnonzero(alive)
        survivors = block[idx]
        idx = idx[~_dominated_by(survivors, survivors)]
        keep[start + idx] = True
        if idx.size:
            front = np.concatenate([front, block[idx]])
    mask = np.empty(k, dtype=bool)
    mask[order] = keep
    return mask


def _pareto_mask_2d(mu: FloatArray) -> BoolArray:
    """Two objectives: one sort and a running maximum, ``O(K log K)`` (Kung et al.'s sweep).

    Sorted by decreasing ``μ(0)`` then decreasing ``μ(1)``, arm ``i`` is dominated iff an arm with
    a larger ``μ(0)`` has ``μ(1) ≥ μ_i(1)``, or an arm with the same ``μ(0)`` has a larger ``μ(1)``.
    """
    x, y = mu[:, 0], mu[:, 1]
    order = np.lexsort((-y, -x))
    xs, ys = x[order], y[order]
    new_group = np.ones(xs.size, dtype=bool)
    new_group[1:] = xs[1:] != xs[:-1]
    start = np.maximum.accumulate(np.where(new_group, np.arange(xs.size), 0))
    best_before = np.empty(xs.size)
    best_before[0] = -np.inf
    np.maximum.accumulate(ys[:-1], out=best_before[1:])
    dominated = (best_before[start] >= ys) | (ys[start] > ys)
    mask = np.empty(xs.size, dtype=bool)
    mask[order] = ~dominated
    return mask


def pareto_set(means: ArrayLike) -> frozenset[int]:
    """The Pareto set ``S*`` as a set of arm indices (Kone et al., Sec. 2; :func:`pareto_mask`)."""
    return frozenset(int(i) for i in np.flatnonzero(pareto_mask(means)))


def _index_array(value: Any, k: int, name: str, who: str) -> IntArray:
    """``None`` → all arms; a boolean mask of length ``k`` or distinct integer indices < ``k``."""
    if value is None:
        return np.arange(k)
    arr = np.asarray(value)
    if arr.dtype == bool:
        if arr.shape != (k,):
            raise InvalidParameterError(
                f"{who}: {name} as a boolean mask must have shape ({k},); got shape {arr.shape}."
            )
        return np.flatnonzero(arr)
    if arr.ndim != 1 or (arr.size and not np.issubdtype(arr.dtype, np.integer)):
        raise InvalidParameterError(
            f"{who}: {name} must be a 1-D array of arm indices or a boolean mask of shape "
            f"({k},); got {value!r}."
        )
    idx = arr.astype(np.intp, copy=False)
    if idx.size and (idx.min() < 0 or idx.max() >= k):
        bad = idx[(idx < 0) | (idx >= k)][0]
        raise InvalidParameterError(
            f"{who}: {name} contains arm {int(bad)}, outside the valid range 0..{k - 1}."
        )
    return idx


def dominance_margins(
    means: ArrayLike, rows: ArrayLike | None = None, cols: ArrayLike | None = None
) -> FloatArray:
    """The margins ``M(i, j) = max_c [μ_i(c) − μ_j(c)]`` for ``i`` in ``rows``, ``j`` in ``cols``.

    Kone et al., Sec. 2.1. The other margin is ``m(i, j) = −M(i, j)
    = min_c [μ_j(c) − μ_i(c)]``: ``m(i, j) > 0`` iff ``μ_i`` is strictly dominated by ``μ_j``, and
    ``M(i, j) > 0`` iff ``μ_i`` is not weakly dominated by ``μ_j``. ``M(j, i)`` is the transpose.

    Args:
        means: mean vectors, shape ``(K, d)``, finite.
        rows: arm indices (or a boolean mask) for ``i``; all arms if ``None``.
        cols: arm indices (or a boolean mask) for ``j``; all arms if ``None``.

    Returns:
        ``M`` of shape ``(len(rows), len(cols))``. Cost ``O(|rows| |cols| d)``; the result itself
        is the only array of that size (no ``× d`` temporary), so mind ``K²`` memory for large K.

    Raises:
        InvalidParameterError: on non-finite or badly shaped ``means`` or bad indices.
    """
    who = "dominance_margins"
    mu = as_means(means, who)
    k = mu.shape[0]
    a = mu[_index_array(rows, k, "rows", who)]
    b = mu[_index_array(cols, k, "cols", who)]
    return margins(a, b)


def margins(a: FloatArray, b: FloatArray) -> FloatArray:
    """``out[i, j] = max_c [a_i(c) − b_j(c)]``, one coordinate at a time."""
    out = np.subtract(a[:, 0, None], b[None, :, 0])
    if a.shape[1] > 1:
        tmp = np.empty_like(out)
        for c in range(1, a.shape[1]):
            np.subtract(a[:, c, None], b[None, :, c], out=tmp)
            np.maximum(out, tmp, out=out)
    return out


def _margins_both(a: FloatArray, b: FloatArray) -> tuple[FloatArray, FloatArray]:
    """``(M_ab, M_ba)``: ``max_c [a_i − b_j](c)`` and ``max_c [b_j − a_i](c)`` at ``[i, j]``."""
    diff = np.subtract(a[:, 0, None], b[None, :, 0])
    hi = diff.copy()
    lo = diff.copy()
    for c in range(1, a.shape[1]):
        np.subtract(a[:, c, None], b[None, :, c], out=diff)
        np.maximum(hi, diff, out=hi)
        np.minimum(lo, diff, out=lo)
    np.negative(lo, out=lo)
    return hi, lo


def psi_gaps(means: ArrayLike) -> PSIGaps:
    """The PSI gaps ``Δ_i`` of every arm (Kone et al., eq. (1)).

    ``Δ_i = Δ*_i = max_j m(i, j)`` for a dominated arm (the smallest uniform increase that makes
    ``μ_i`` not strictly dominated), and ``Δ_i = δ*_i = min_{j ≠ i} [M(i, j) ∧ (M(j, i)_+ +
    (Δ*_j)_+)]`` for a Pareto-optimal arm. This equals the proofs' form ``max(Δ*_i, δ*_i)`` with
    ``Δ*`` over ``j ≠ i`` (eq. (8)) and Auer et al.'s ``min(δ⁺_i, δ⁻_i)``.

    Computed exactly in ``O(K |S*| d)`` after :func:`pareto_mask`: the maximum defining ``Δ*_i``
    is attained at a Pareto-optimal ``j`` (any arm is weakly below some Pareto arm and ``m(i, ·)``
    is monotone), and ``(Δ*_j)_+ = 0`` for every Pareto-optimal ``j``.

    Args:
        means: mean vectors, shape ``(K, d)``, finite.

    Returns:
        :class:`PSIGaps` with ``gaps``, ``pareto`` and ``arms = 0..K-1``. A lone arm has gap
        ``+inf``. Gaps are 0 exactly when the instance is ill-posed for exact PSI (identical
        vectors, or an arm dominated only weakly: equal on some coordinate to every dominator).

    Raises:
        InvalidParameterError: if ``means`` is not a finite 2-D array with ``K, d ≥ 1``.
    """
    mu = as_means(means, "psi_gaps")
    gaps, mask = _gaps(mu)
    return PSIGaps(gaps, mask, np.arange(mu.shape[0]))


def empirical_gaps(means_hat: ArrayLike, active: ArrayLike | None = None) -> PSIGaps:
    """Empirical PSI gaps among the active arms (Kone et al., eq. (5)).

    All quantities are restricted to the active set ``A``: ``Ŝ`` is the Pareto set of
    ``{μ̂_i : i ∈ A}`` (:func:`pareto_mask`), ``Δ̂*_i = max_{j ∈ A, j ≠ i} m̂(i, j)``,
    ``δ̂*_i = min_{j ∈ A, j ≠ i} [M̂(i, j) ∧ (M̂(j, i)_+ + (Δ̂*_j)_+)]``
    (eq. (5) as printed has ``(Δ̂*_i)_+`` in the minimum; the proof in App. C.1 and the authors'
    code use ``(Δ̂*_j)_+``, and so do we),
    and ``Δ̂_i = max(Δ̂*_i, δ̂*_i)``, which is ``Δ̂*_i`` on ``A`` minus ``Ŝ`` and ``δ̂*_i`` on
    ``Ŝ``. Fed with the true means and ``A = [K]`` it returns the true gaps of
    :func:`psi_gaps`. Cost ``O(|A| log |A| · d + |A| |Ŝ| d)`` per call, no loop over arms.

    Args:
        means_hat: estimated means of all K arms, shape ``(K, d)``, finite on the active rows.
        active: the active arms: indices, a boolean mask of shape ``(K,)``, or ``None`` (all).
            Indices must be distinct.

    Returns:
        :class:`PSIGaps` whose entries follow ``arms`` = the active indices in increasing order:
        ``gaps[k]`` and ``pareto[k]`` belong to arm ``arms[k]``.

    Raises:
        InvalidParameterError: on badly shaped/non-finite means, out-of-range or repeated indices,
            or an empty active set.
    """
    who = "empirical_gaps"
    try:
        mu_all = np.asarray(means_hat, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InvalidParameterError(
            f"{who}: means_hat must be a numeric array of shape (K, d); could not convert it "
            f"({exc})."
        ) from None
    if mu_all.ndim != 2:
        raise InvalidParameterError(
            f"{who}: means_hat must be a 2-D array of shape (K, d); got shape {mu_all.shape}."
        )
    idx = _index_array(active, mu_all.shape[0], "active", who)
    if idx.size == 0:
        raise InvalidParameterError(f"{who}: active must contain at least one arm; got {active!r}.")
    sorted_idx = np.sort(idx)
    if sorted_idx.size > 1 and (sorted_idx[1:] == sorted_idx[:-1]).any():
        dup = sorted_idx[1:][sorted_idx[1:] == sorted_idx[:-1]][0]
        raise InvalidParameterError(
            f"{who}: active must list each arm once; arm {int(dup)} appears more than once."
        )
    mu = mu_all[sorted_idx]
    finite = np.isfinite(mu)
    if not finite.all():
        row, col = (int(v) for v in np.argwhere(~finite)[0])
        raise InvalidParameterError(
            f"{who}: means_hat must be finite on the active arms; arm {int(sorted_idx[row])}, "
            f"objective {col} is {float(mu[row, col])!r}."
        )
    if mu.shape[1] < 1:
        raise InvalidParameterError(
            f"{who}: means_hat must have at least one objective (column); got shape {mu_all.shape}."
        )
    gaps, mask = _gaps(mu)
    return PSIGaps(gaps, mask, sorted_idx)


def _gaps(mu: FloatArray) -> tuple[FloatArray, BoolArray]:
    """Eq. (1) gaps and the Pareto mask of finite means ``mu`` (see :func:`psi_gaps`)."""
    k = mu.shape[0]
    mask = pareto_mask_unchecked(mu)
    gaps = np.empty(k)
    opt = np.flatnonzero(mask)
    sub = np.flatnonzero(~mask)
    front = mu[opt]
    # dominated arms: Δ*_i = max_{p ∈ S*} min_c [μ_p(c) − μ_i(c)] = −min_p M(i, p)
    step = rows_per_block(opt.size)
    for lo in range(0, sub.size, step):
        rows = sub[lo : lo + step]
        gaps[rows] = -margins(mu[rows], front).min(axis=1)
    # (Δ*_j)_+: Δ_j for dominated j, 0 for Pareto-optimal j
    plus = np.where(mask, 0.0, gaps)
    step = rows_per_block(k)
    for lo in range(0, opt.size, step):
        rows = opt[lo : lo + step]
        m_ij, m_ji = _margins_both(mu[rows], mu)  # M(i, j) and M(j, i), rows i
        np.maximum(m_ji, 0.0, out=m_ji)
        m_ji += plus[None, :]
        np.minimum(m_ij, m_ji, out=m_ij)
        m_ij[np.arange(rows.size), rows] = np.inf  # j ≠ i (a lone arm gets +inf)
        gaps[rows] = m_ij.min(axis=1)
    return gaps, mask


def complexities(gaps: ArrayLike, h: int) -> dict[str, float]:
    """The PSI complexities of a gap vector (Kone et al., eq. (2)).

    With the gaps sorted increasingly ``Δ_(1) ≤ … ≤ Δ_(K)``:
    ``H1 = Σ_{i ≤ K} Δ_(i)^-2`` (Auer et al.), ``H2 = max_{i ≤ K} i Δ_(i)^-2`` (Kone et al. 2024),
    ``H1_lin = Σ_{i ≤ h} Δ_(i)^-2`` and ``H2_lin = max_{i ≤ h} i Δ_(i)^-2`` (only the ``h``
    smallest gaps), and ``min_gap = Δ_(1)``. They satisfy ``H1_lin ≤ H1``, ``H2_lin ≤ H2`` and
    ``H2_lin ≤ H1_lin ≤ (Σ_{i ≤ h} 1/i) H2_lin``; with ``h = K`` the linear ones equal ``H1, H2``.

    Args:
        gaps: the gaps ``Δ_i ≥ 0`` (``+inf`` allowed, contributes 0), shape ``(K,)``.
        h: the rank of the features, ``1 ≤ h ≤ K`` (the paper's ``h`` is the feature
            dimension, which equals the rank for the full-rank features it assumes).

    Returns:
        ``{"H1", "H2", "H1_lin", "H2_lin", "min_gap"}`` as Python floats; ``inf`` when a gap
        among those summed is 0.

    Raises:
        InvalidParameterError: on NaN or negative gaps, an empty or non-1-D array, or ``h``
            outside ``1..K``.
    """
    who = "complexities"
    g = np.asarray(gaps, dtype=np.float64)
    if g.ndim != 1 or g.size == 0:
        raise InvalidParameterError(
            f"{who}: gaps must be a non-empty 1-D array; got shape {g.shape}."
        )
    if np.isnan(g).any() or (g < 0).any():
        bad = int(np.flatnonzero(np.isnan(g) | (g < 0))[0])
        raise InvalidParameterError(
            f"{who}: gaps must be >= 0 (inf allowed); got {g[bad]!r} at index {bad}."
        )
    if isinstance(h, (bool, np.bool_)) or not isinstance(h, (int, np.integer)):
        raise InvalidParameterError(f"{who}: h must be an integer in 1..{g.size}; got {h!r}.")
    if not 1 <= int(h) <= g.size:
        raise InvalidParameterError(f"{who}: h must be an integer in 1..{g.size}; got {h!r}.")
    srt = np.sort(g)
    with np.errstate(divide="ignore"):
        inv = 1.0 / srt**2
    ranked = np.arange(1, g.size + 1) * inv
    h = int(h)
    return {
        "H1": float(inv.sum()),
        "H2": float(ranked.max()),
        "H1_lin": float(inv[:h].sum()),
        "H2_lin": float(ranked[:h].max()),
        "min_gap": float(srt[0]),
    }


def is_eps_pareto_set(answer: Iterable[int], means: ArrayLike, eps: float) -> bool:
    """Whether ``answer`` is an ε-Pareto set (Auer et al. 2016; Kone et al., Sec. 3.3, App. E.5).

    ``S_ε`` is an ε-Pareto set iff (a) it contains every Pareto-optimal arm, ``S* ⊆ S_ε``, and (b)
    for every ``i ∈ S_ε``, ``μ_i + ε·1`` is not dominated (Definition 1) by any ``μ_j``, ``j ≠ i``.
    A dominated arm with ``Δ_i < ε`` satisfies (b). With ``ε = 0`` the only ε-Pareto set is ``S*``.
    Cost ``O(|answer| · K · d)`` in blocks.

    Args:
        answer: arm indices (any iterable of ints in ``0..K-1``).
        means: the true mean vectors, shape ``(K, d)``.
        eps: the slack ``ε ≥ 0``.

    Returns:
        ``True`` iff (a) and (b) hold.

    Raises:
        InvalidParameterError: on bad means or a negative or non-finite ``eps``.
        InvalidAnswerError: if ``answer`` is not a set of integer indices in ``0..K-1``.
    """
    who = "is_eps_pareto_set"
    mu = as_means(means, who)
    if isinstance(eps, (bool, np.bool_)) or not np.isscalar(eps):
        raise InvalidParameterError(f"{who}: eps must be a finite float >= 0; got {eps!r}.")
    e = float(cast(float, eps))  # np.isscalar's TypeGuard narrowed eps to non-float types
    if not (np.isfinite(e) and e >= 0.0):
        raise InvalidParameterError(f"{who}: eps must be a finite float >= 0; got {eps!r}.")
    k = mu.shape[0]
    items = as_answer(answer, k, who=f"{who}: answer")
    idx = np.fromiter(sorted(items), dtype=np.intp, count=len(items))
    chosen = np.zeros(k, dtype=bool)
    chosen[idx] = True
    mask = pareto_mask_unchecked(mu)
    if (mask & ~chosen).any():
        return False
    shifted = mu[idx] + e
    step = rows_per_block(k)
    for lo in range(0, idx.size, step):
        # the arm itself cannot dominate its own shifted vector when ε ≥ 0 (μ_i ≥ μ_i + ε fails
        # or is an equality), so comparing with every arm is the same as with j ≠ i
        if _dominated_by(shifted[lo : lo + step], mu).any():
            return False
    return True
