"""APE's stopping rule and confidence widths for Pareto set identification.

Kone, Kaufmann & Richert, "Adaptive Algorithms for Relaxed Pareto Set Identification" (NeurIPS
2023): the statistics ``Z1``, ``Z2`` that certify an (ε-)Pareto set, and the confidence widths
they are compared with, shared by the APE, racing and uniform agents.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from bandit_envs.errors import InvalidParameterError
from bandit_envs.theory.pareto._dominance import (
    BoolArray,
    FloatArray,
    as_means,
    margins,
    pareto_mask_unchecked,
    rows_per_block,
)

__all__ = ["APE_THRESHOLDS", "APEStop", "APEWidth", "ape_confidence", "ape_stop", "ape_width_terms"]


#: the confidence widths :func:`ape_confidence` offers.
APE_THRESHOLDS = ("union", "heuristic")


class APEStop(NamedTuple):
    """APE's stopping statistics (Kone, Kaufmann & Richert 2023).

    Attributes:
        stop: ``z1 ≥ 0`` and ``z2 ≥ 0``: the answer ``S(t)`` is certified.
        z1: ``min_{i ∈ S(t)} h_i + ε`` (``+inf`` when ``S(t)`` is empty).
        z2: ``min_{i ∉ S(t)} max(h_i, g_i)`` (``+inf`` when every arm is in ``S(t)``).
        pareto: the empirical Pareto mask ``S(t)`` of all arms, shape ``(K,)``.
        h: ``h_i = min_{j ≠ i} [M̂(i, j) − β_ij]``, shape ``(K,)`` (``i ∈ OPT(t)`` iff
            ``h_i > 0``).
        g: ``g_i = max_{j ≠ i} [m̂(i, j) − β_ij]``, shape ``(K,)``.
    """

    stop: bool
    z1: float
    z2: float
    pareto: BoolArray
    h: FloatArray
    g: FloatArray


def ape_confidence(
    t_i: ArrayLike,
    t_j: ArrayLike,
    delta: float,
    sigma: float,
    *,
    threshold: str = "union",
    n_arms: int | None = None,
    n_objectives: int | None = None,
) -> FloatArray:
    """The confidence width ``β_ij`` of APE's pairwise tests (Kone, Kaufmann & Richert 2023).

    ``β_ij`` bounds ``|(μ̂_i − μ̂_j)(c) − (μ_i − μ_j)(c)|`` for arms sampled ``T_i`` and ``T_j``
    times; ``t_i`` and ``t_j`` broadcast against each other.

    * ``threshold="union"`` (δ-correct): ``β_ij = σ √(2 (1/T_i + 1/T_j) log(d K(K−1) π⁴ T_i²
      T_j² / (36 δ)))``. Proof: for a fixed pair ``i < j``, objective ``c`` and sample counts
      ``(s_i, s_j)``, the difference of sample means is ``σ²(1/s_i + 1/s_j)``-sub-Gaussian, so it
      leaves ``±β`` with probability at most ``2 exp(−β²/(2σ²(1/s_i + 1/s_j)))
      = 72 δ / (d K(K−1) π⁴ s_i² s_j²)``; a union bound over the ``K(K−1)/2`` pairs, the ``d``
      objectives and all ``(s_i, s_j) ∈ ℕ*²`` (``Σ 36/(π⁴ s_i² s_j²) = 1``) gives probability
      ≤ δ for the event ``E`` that every test holds at every time, whatever the sampling rule
      (the sample mean after ``s`` pulls does not depend on when they happen). On ``E`` the
      answer of :func:`ape_stop` is ``S*`` (see there).
    * ``threshold="heuristic"``: the width of the authors' C++ code (``cyrille-kone/linear_psi``,
      "simplified for empirical purpose"),
      ``β_ij = σ √(2 (2 C_g + log(1 + log T_i) + log(1 + log T_j)) (1/T_i + 1/T_j))`` with
      ``C_g = log(1/δ)/2 + max(log(log(1/δ)/2), 0)``. **Heuristic**: it has no union bound over
      pairs and objectives, and no δ-correctness proof.

    Args:
        t_i: sample counts ``T_i ≥ 1`` (array-like, broadcastable with ``t_j``).
        t_j: sample counts ``T_j ≥ 1``.
        delta: the risk ``δ ∈ (0, 1)``.
        sigma: the sub-Gaussian noise level ``σ ≥ 0`` of every objective.
        threshold: ``"union"`` or ``"heuristic"`` (above).
        n_arms: ``K`` (needed by ``"union"``).
        n_objectives: ``d`` (needed by ``"union"``).

    Returns:
        ``β_ij`` with the broadcast shape of ``t_i`` and ``t_j``.

    Raises:
        InvalidParameterError: on a bad ``threshold``, ``delta``, ``sigma``, counts below 1, or
            a missing ``n_arms`` / ``n_objectives`` for ``"union"``.
    """
    who = "ape_confidence"
    _check_width_args(who, delta, sigma, threshold, n_arms, n_objectives)
    ti = np.asarray(t_i, dtype=np.float64)
    tj = np.asarray(t_j, dtype=np.float64)
    if (ti.size and not (ti >= 1).all()) or (tj.size and not (tj >= 1).all()):
        raise InvalidParameterError(
            f"{who}: sample counts must be >= 1 (pull every arm once first); got minimum "
            f"{float(min(ti.min(initial=np.inf), tj.min(initial=np.inf)))!r}."
        )
    return _ape_beta(ti, tj, float(delta), float(sigma), threshold, n_arms or 1, n_objectives or 1)


def _check_width_args(
    who: str, delta: Any, sigma: Any, threshold: Any, n_arms: Any, n_objectives: Any
) -> None:
    """Validate the arguments shared by :func:`ape_confidence` and :func:`ape_width_terms`."""
    if threshold not in APE_THRESHOLDS:
        raise InvalidParameterError(
            f"{who}: threshold must be one of {APE_THRESHOLDS}; got {threshold!r}."
        )
    if isinstance(delta, (bool, np.bool_)) or not (
        isinstance(delta, (int, float, np.floating)) and 0.0 < float(delta) < 1.0
    ):
        raise InvalidParameterError(f"{who}: delta must be a float in (0, 1); got {delta!r}.")
    if isinstance(sigma, (bool, np.bool_)) or not (
        isinstance(sigma, (int, float, np.floating)) and np.isfinite(sigma) and sigma >= 0
    ):
        raise InvalidParameterError(f"{who}: sigma must be a finite float >= 0; got {sigma!r}.")
    if threshold == "union":
        for name, value in (("n_arms", n_arms), ("n_objectives", n_objectives)):
            if (
                isinstance(value, (bool, np.bool_))
                or not isinstance(value, (int, np.integer))
                or (value < 1)
            ):
                raise InvalidParameterError(
                    f"{who}: {name} must be an integer >= 1 with threshold='union'; got {value!r}."
                )


class APEWidth(NamedTuple):
    """:func:`ape_confidence` split into per-arm terms, for incremental (per-pull) updates.

    ``β_ij = scale · √((c0 + ℓ(T_i) + ℓ(T_j)) · (1/T_i + 1/T_j))`` for both thresholds: with
    ``scale = σ√2`` and

    * ``"union"``: ``c0 = log(d K(K−1) π⁴ / (36 δ))`` and ``ℓ(T) = 2 log T``;
    * ``"heuristic"``: ``c0 = 2 C_g(δ)`` and ``ℓ(T) = log(1 + log T)``.

    A pull of arm ``a`` changes only ``ℓ(T_a)`` and ``1/T_a``, hence only row and column ``a``
    of ``β``. Equal to :func:`ape_confidence` up to floating-point rounding (the sums are
    grouped differently).

    Attributes:
        c0: the constant term.
        scale: ``σ√2``.
        threshold: ``"union"`` or ``"heuristic"``.
    """

    c0: float
    scale: float
    threshold: str

    @property
    def ell(self) -> Callable[[float], float]:
        """The per-arm term ``n ↦ ℓ(n)`` for a sample count ``n ≥ 1`` (a plain function)."""
        return _ell_union if self.threshold == "union" else _ell_heuristic


def _ell_union(n: float) -> float:
    return 2.0 * math.log(n)


def _ell_heuristic(n: float) -> float:
    return math.log1p(math.log(n))


def ape_width_terms(
    delta: float,
    sigma: float,
    *,
    threshold: str = "union",
    n_arms: int | None = None,
    n_objectives: int | None = None,
) -> APEWidth:
    """The constants of :func:`ape_confidence` in the per-arm form of :class:`APEWidth`.

    Args:
        delta: the risk ``δ ∈ (0, 1)``.
        sigma: the noise level ``σ ≥ 0``.
        threshold: ``"union"`` or ``"heuristic"``.
        n_arms: ``K`` (needed by ``"union"``).
        n_objectives: ``d`` (needed by ``"union"``).

    Raises:
        InvalidParameterError: on the same bad arguments as :func:`ape_confidence`.
    """
    _check_width_args("ape_width_terms", delta, sigma, threshold, n_arms, n_objectives)
    delta = float(delta)
    if threshold == "union":
        k, d = int(n_arms or 1), int(n_objectives or 1)  # validated above
        pairs = max(k * (k - 1), 1) * d
        c0 = math.log(pairs * math.pi**4 / (36.0 * delta))
    else:
        log_inv = math.log(1.0 / delta)
        c0 = 2.0 * (log_inv / 2.0 + max(math.log(log_inv / 2.0), 0.0))
    return APEWidth(c0, float(sigma) * math.sqrt(2.0), threshold)


def _ape_beta(
    ti: FloatArray, tj: FloatArray, delta: float, sigma: float, threshold: str, k: int, d: int
) -> FloatArray:
    """:func:`ape_confidence` on validated arguments (no checks: called once per row block)."""
    inv = 1.0 / ti + 1.0 / tj
    if threshold == "heuristic":
        log_inv = np.log(1.0 / delta)
        c_g = log_inv / 2.0 + max(np.log(log_inv / 2.0), 0.0)
        bonus = 2.0 * c_g + np.log1p(np.log(ti)) + np.log1p(np.log(tj))
        return sigma * np.sqrt(2.0 * bonus * inv)
    pairs = max(int(k) * (int(k) - 1), 1) * int(d)
    log_term = np.log(pairs * np.pi**4 / (36.0 * delta)) + 2.0 * np.log(ti * tj)
    return sigma * np.sqrt(2.0 * inv * log_term)


def ape_stop(
    means_hat: ArrayLike,
    counts: ArrayLike,
    delta: float,
    sigma: float,
    *,
    threshold: str = "union",
    epsilon: float = 0.0,
) -> APEStop:
    """APE's stopping rule on sample means (Kone, Kaufmann & Richert 2023).

    With ``β_ij`` from :func:`ape_confidence`, ``S(t)`` the empirical Pareto set of all arms,
    ``h_i = min_{j ≠ i} [M̂(i, j) − β_ij]`` and ``g_i = max_{j ≠ i} [m̂(i, j) − β_ij]``:
    ``Z1 = min_{i ∈ S(t)} h_i + ε``, ``Z2 = min_{i ∉ S(t)} max(h_i, g_i)``; stop iff ``Z1 ≥ 0``
    and ``Z2 ≥ 0`` and answer ``S(t)``.

    Correctness on the event ``E`` of :func:`ape_confidence` (every ``|M̂ − M| ≤ β``): ``Z2 ≥ 0``
    gives, for each ``i ∉ S(t)`` (where ``h_i < 0`` as ``i`` is empirically dominated), some
    ``j`` with ``m(i, j) ≥ m̂(i, j) − β_ij ≥ 0``, so ``i ∉ S*`` (up to the measure-zero weak
    case ``m = 0``); ``Z1 ≥ 0`` gives, for ``i ∈ S(t)`` and every ``j ≠ i``,
    ``M(i, j) + ε ≥ M̂(i, j) − β_ij + ε ≥ 0``: ``i`` is optimal (ε = 0) or ``μ_i + ε·1`` is
    dominated by no arm, so ``S(t)`` is ``S*`` (ε = 0) or an ε-Pareto set (Auer et al. 2016).

    Cost ``O(K² d)`` time in row blocks of :data:`~bandit_envs.theory.pareto.BLOCK_ELEMENTS`
    pairs (no ``K × K`` array).

    Args:
        means_hat: sample means, shape ``(K, d)``, finite.
        counts: sample counts ``T_i ≥ 1``, shape ``(K,)``.
        delta: the risk ``δ ∈ (0, 1)``.
        sigma: the noise level ``σ ≥ 0`` (the largest over objectives).
        threshold: ``"union"`` (δ-correct) or ``"heuristic"`` (the authors' code), see
            :func:`ape_confidence`.
        epsilon: the slack ``ε ≥ 0`` of ε-PSI (0 for exact PSI).

    Returns:
        :class:`APEStop`.

    Raises:
        InvalidParameterError: on bad means, counts, ``epsilon`` or the arguments of
            :func:`ape_confidence`.
    """
    who = "ape_stop"
    mu = as_means(means_hat, who)
    k, d = mu.shape
    n = np.asarray(counts, dtype=np.float64)
    if n.shape != (k,):
        raise InvalidParameterError(
            f"{who}: counts must have shape ({k},) like the means' rows; got shape {n.shape}."
        )
    if isinstance(epsilon, (bool, np.bool_)) or not (
        isinstance(epsilon, (int, float, np.floating)) and np.isfinite(epsilon) and epsilon >= 0
    ):
        raise InvalidParameterError(f"{who}: epsilon must be a finite float >= 0; got {epsilon!r}.")
    ape_confidence(n[:1], n[:1], delta, sigma, threshold=threshold, n_arms=k, n_objectives=d)
    if not (n >= 1).all():
        raise InvalidParameterError(
            f"{who}: every arm needs at least one sample; arm {int(np.argmin(n))} has "
            f"{float(n.min())!r}."
        )
    mask = pareto_mask_unchecked(mu)
    h = np.empty(k)
    g = np.empty(k)
    step = rows_per_block(k)
    for lo in range(0, k, step):
        rows = np.arange(lo, min(k, lo + step))
        big_m = margins(mu[rows], mu)
        beta = _ape_beta(n[rows, None], n[None, :], float(delta), float(sigma), threshold, k, d)
        low = big_m - beta
        low[np.arange(rows.size), rows] = np.inf
        h[rows] = low.min(axis=1)
        np.add(big_m, beta, out=big_m)
        big_m[np.arange(rows.size), rows] = np.inf
        g[rows] = -big_m.min(axis=1)
    z1 = float(h[mask].min(initial=np.inf)) + float(epsilon)
    z2 = float(np.maximum(h, g)[~mask].min(initial=np.inf))
    return APEStop(bool(z1 >= 0.0 and z2 >= 0.0), z1, z2, mask, h, g)
