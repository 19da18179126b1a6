"""XY designs (all pairwise differences as targets) and their exact value without the pairs."""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from bandit_envs.errors import InvalidParameterError
from bandit_envs.theory.design._common import (
    DesignResult,
    FloatArray,
    IntArray,
    check_features,
    check_init,
    information_inverse,
    spanning_start,
)
from bandit_envs.theory.design._g_optimal import wolfe_atwood
from bandit_envs.theory.design._pairs import pair_scan, xy_pair_generation
from bandit_envs.theory.design._transductive import METHODS, transductive_design
from bandit_envs.theory.linalg import as_feature_matrix


def pairwise_differences(features: ArrayLike) -> FloatArray:
    """All differences ``x_i − x_j`` for ``i < j`` (the set 𝒴 as unordered pairs).

    𝒴 is the set of directions of Soare, Lazaric & Munos (2014), Sec. 2. Since
    ``‖y‖_M = ‖−y‖_M``, every max-norm criterion over 𝒴 needs each pair only once.

    Args:
        features: Arm features, shape ``(K, h)``.

    Returns:
        Shape ``(K(K−1)/2, h)``, rows ordered as :func:`numpy.triu_indices` ``(K, 1)``.
    """
    x = np.asarray(features, dtype=np.float64)
    if x.ndim != 2:
        raise ValueError(f"features is expected to be a 2-D array (K, h). Got shape {x.shape}.")
    i, j = np.triu_indices(x.shape[0], 1)
    return x[i] - x[j]


#: :func:`xy_design` with ``method="auto"`` materialises the pairs up to this many.
XY_DENSE_MAX_PAIRS = 190


#: Methods of :func:`xy_design`.
_XY_METHODS = ("auto", "pair_generation", *METHODS)


def xy_design(
    features: ArrayLike,
    *,
    tol: float = 1e-3,
    max_iter: int = 5_000,
    init: ArrayLike | None = None,
    method: str = "auto",
    target_weights: ArrayLike | None = None,
    among: ArrayLike | None = None,
) -> DesignResult:
    """XY-allocation design: transductive design on all pairwise differences.

    ``min_w max_{i<j} ‖x_i − x_j‖²_{A(w)⁻¹}``, the XY-allocation of Soare, Lazaric & Munos (2014),
    eq. (14), in the continuous form of their eq. (25) (App. C), with the certified duality gap of
    :func:`transductive_design`. With ``among``, the targets are only the differences of the arms it
    lists, ``min_w max_{i<j ∈ among} ‖x_i − x_j‖²_{A(w)⁻¹}``, while the design ``w`` is still over
    all ``K`` arms: RAGE's phase design λ*_k = argmin_λ max_{z,z'∈𝒵̂_k} ‖z − z'‖²_{A(λ)⁻¹} and its
    value ρ(𝒵̂_k) (Fiez, Jain, Jamieson & Ratliff 2019, Alg. 1, with 𝒵 = 𝒳 and 𝒵̂_k = ``among``; the
    phase complexity ``B_m`` of Zaki, Mohan & Gopalan, PELEG, Lemma 2, is the same quantity). Below,
    "the pairs" means the pairs of ``among`` (``n = len(among)``, ``n(n−1)/2`` pairs; ``n = K`` by
    default). Two ways to handle them:

    * materialised (``method="frank_wolfe"`` or ``"interior_point"``): the differences are built
      by :func:`pairwise_differences` and passed to :func:`transductive_design` with that
      method. Memory ``O(K²h)``, and every Frank–Wolfe step touches every pair;
    * ``method="pair_generation"``: interior point on working sets of pairs and of arms
      (:func:`xy_pair_generation`); the pairs are never stored. Each round scans all pairs at
      the current design in ``O(n²r)`` BLAS flops and ``O(n)`` memory per block of rows
      (:func:`pair_scan`, on the whitened coordinates of the arms of ``among`` only), adds the
      violated pairs and the improving arms (any of the ``K``), and re-solves the restricted
      problem; the certificate covers all pairs (of ``among``). ``init`` gives the first
      restricted solve its start and its support joins the first working set of arms.

    ``method="auto"`` (default) materialises when there are at most
    :data:`XY_DENSE_MAX_PAIRS` pairs (or when ``target_weights`` are given) and solves by Frank–
    Wolfe, exactly as :func:`transductive_design` on :func:`pairwise_differences` (whose
    SLSQP polish makes it the most accurate there); otherwise it uses pair generation
    (``docs/design.md``, "Optimal designs and rounding", explains the choice).
    :func:`xy_pair_value` gives the exact value of any design on the same pairs, also without
    storing them.

    Args:
        features: Arm features, shape ``(K, h)`` with ``K ≥ 2``.
        tol: Relative tolerance on the certified duality gap, in ``(0, 1)``.
        max_iter: Maximum iterations of the solver (Frank–Wolfe iterations, or Newton steps per
            interior-point round).
        init: Optional starting design, shape ``(K,)``, invertible on the span of the arms.
        method: ``"auto"``, ``"pair_generation"``, ``"frank_wolfe"`` or ``"interior_point"``.
        target_weights: Optional weights of the pairs, shape ``(n(n−1)/2,)`` in the order of
            :func:`pairwise_differences` of ``features[among]`` (materialised methods only).
        among: Optional indices of the arms whose pairwise differences are the targets (RAGE's
            active set 𝒵̂_k): distinct integers in ``[0, K)``, at least two, in any order (the
            design and its value do not depend on the order; ``target_weights`` follow it).
            Default: all arms.

    Returns:
        A :class:`DesignResult` with ``value = max_{i<j ∈ among} ‖x_i − x_j‖²_{A(w)⁻¹}``
        (weighted if ``target_weights`` are given), ``weights`` over all ``K`` arms, and a
        certified ``lower_bound``.

    Raises:
        ValueError: If there are fewer than two arms, on an unknown method, on
            ``target_weights`` with pair generation, or as :func:`transductive_design`.
        InvalidParameterError: (a ``ValueError``) if ``among`` is not a 1-D array of integers,
            has duplicates, an index outside ``[0, K)``, or fewer than two arms.
    """
    x = np.asarray(features, dtype=np.float64)
    if x.ndim != 2 or x.shape[0] < 2:
        raise ValueError(
            f"xy_design needs features of shape (K, h) with K >= 2. Got shape {x.shape}."
        )
    if method not in _XY_METHODS:
        raise ValueError(f"method is expected to be one of {_XY_METHODS}. Got {method!r}.")
    k = x.shape[0]
    sub = None if among is None else _check_among(among, k)
    n = k if sub is None else sub.size
    if method == "auto":
        dense = n * (n - 1) // 2 <= XY_DENSE_MAX_PAIRS or target_weights is not None
        method = "frank_wolfe" if dense else "pair_generation"
    if method != "pair_generation":
        targets = pairwise_differences(x if sub is None else x[sub])
        return transductive_design(
            x,
            targets,
            target_weights,
            tol=tol,
            max_iter=max_iter,
            init=init,
            method=method,
        )
    if target_weights is not None:
        raise ValueError(
            "target_weights are not supported with method='pair_generation' (the pairs are "
            "not materialised); use method='frank_wolfe' or 'interior_point'."
        )
    _, z, _ = check_features(x)
    if not (np.isfinite(tol) and 0 < tol < 1):
        raise ValueError(f"tol is expected in (0, 1). Got {tol!r}.")
    if int(max_iter) != max_iter or max_iter < 0:
        raise ValueError(f"max_iter is expected to be a non-negative integer. Got {max_iter!r}.")
    w0 = check_init(init, k)
    start = spanning_start(z)
    spanning = np.flatnonzero(start > 0)  # before Wolfe–Atwood, which updates start in place
    if w0 is None:
        # Start from a rough G-optimal design: its support is nearly contained in the XY
        # design's. The XY criterion is within a factor 4 of G's (‖x − x'‖ ≤ 2 max ‖x''‖ in
        # any norm; Soare et al. 2014, proof of Lemma 7, print 2 where squared norms give 4).
        w0 = wolfe_atwood(z, start, z.shape[1], 1e-2, 10 * k)[0]
    elif information_inverse(z, w0) is None:
        raise ValueError(
            "init does not span the arms: its information matrix is singular on their span."
        )
    w, value, lower, iters, converged = xy_pair_generation(
        z,
        w0,
        tol,
        int(max_iter),
        True,
        among=None if sub is None else np.sort(sub),
        spanning=spanning,
        near_optimal=init is not None,
    )
    return DesignResult(
        weights=w, value=value, lower_bound=lower, iterations=iters, converged=converged
    )


def _check_among(among: ArrayLike, k: int) -> IntArray:
    """Validate ``among`` (distinct arm indices in ``[0, K)``, at least two); as int64."""
    a = np.asarray(among)
    if a.ndim != 1 or a.dtype == bool or not (np.issubdtype(a.dtype, np.integer) or a.size == 0):
        raise InvalidParameterError(
            "among is expected to be a 1-D array of integer arm indices. Got "
            f"shape {a.shape} and dtype {a.dtype}."
        )
    a = a.astype(np.int64)
    if a.size < 2:
        raise InvalidParameterError(
            f"among is expected to hold at least 2 arms (its pairs are the targets). Got {a.size}."
        )
    bad = np.flatnonzero((a < 0) | (a >= k))
    if bad.size:
        raise InvalidParameterError(
            f"among is expected to hold arm indices in [0, {k}). Got {int(a[bad[0]])} at "
            f"position {int(bad[0])}."
        )
    uniq, counts = np.unique(a, return_counts=True)
    if uniq.size < a.size:
        raise InvalidParameterError(
            f"among is expected to hold distinct arms. Got arm {int(uniq[counts > 1][0])} more "
            "than once."
        )
    return a


def xy_pair_value(
    features: ArrayLike, weights: ArrayLike, *, among: ArrayLike | None = None
) -> float:
    """Exact ``max_{i<j ∈ among} ‖x_i − x_j‖²_{A(w)⁺}`` without storing the pairs.

    The value of a design on the pairs of ``among`` (RAGE's ρ(𝒵̂_k) = max_{z,z'∈𝒵̂_k}
    ‖z − z'‖²_{A(λ)⁻¹} at the weights actually rounded, Fiez, Jain, Jamieson & Ratliff 2019,
    Alg. 1; with all arms, the ``ρ^XY`` of Soare, Lazaric & Munos 2014, App. C).
    ``A(w) = Σ_k w_k x_k x_kᵀ`` is inverted on its range (eigenvalues above ``1e-12`` times the
    largest, as :func:`agents.common.design_cache.pinv_parts`); the value is ``inf`` if some
    difference has a component outside that range (larger than ``1e-9`` times the scale of the
    features and of the differences), exactly the rule of :func:`agents.linear_bai.rage.xy_value`
    on the materialised differences, to which it is equal up to round-off. The features are used
    as given (no change of basis). The maximum comes from the blocked scan of :func:`pair_scan`
    on the whitened coordinates ``x_k V Λ^{-1/2}``: ``O(n²r)`` time and ``O(n)`` memory per block
    of :data:`_PAIR_BLOCK` rows (``n`` arms in ``among``); the maximum is recomputed from the
    differences, so it is the exact value.

    Args:
        features: Arm coordinates ``x_k``, shape ``(K, h)``.
        weights: The design ``w``, shape ``(K,)``, finite and non-negative (need not sum to 1:
            ``A(w)`` is used as given).
        among: Optional indices of the arms whose pairwise differences are measured (distinct
            integers in ``[0, K)``, at least two). Default: all arms.

    Returns:
        The value (``inf`` if a difference is not estimable under ``w``).

    Raises:
        ValueError: On bad shapes or non-finite or negative inputs.
        InvalidParameterError: (a ``ValueError``) on a bad ``among``, as :func:`xy_design`.
    """
    x = as_feature_matrix(features, min_arms=2)
    k = x.shape[0]
    w = np.asarray(weights, dtype=np.float64)
    if w.shape != (k,):
        raise ValueError(f"weights is expected to have shape ({k},). Got shape {w.shape}.")
    if not (np.all(np.isfinite(w)) and np.all(w >= 0)):
        raise ValueError("weights must be finite and non-negative.")
    xa = x if among is None else x[_check_among(among, k)]
    gram = (x.T * w) @ x
    evals, evecs = np.linalg.eigh(0.5 * (gram + gram.T))
    top = float(evals[-1]) if evals.size else 0.0
    keep = evals > 1e-12 * max(top, np.finfo(float).tiny)
    vecs, vals = evecs[:, keep], evals[keep]
    # Range check: the residual of x_i − x_j outside the range is res_i − res_j, whose largest
    # entry is, per coordinate, the spread max − min of the arms' residuals (likewise for the
    # largest entry of the differences themselves).
    resid = xa - (xa @ vecs) @ vecs.T
    spread = float(np.max(np.ptp(resid, axis=0)))
    scale = float(np.max(np.abs(x))) + float(np.max(np.ptp(xa, axis=0)))
    if spread > 1e-9 * max(scale, 1.0):
        return math.inf
    if vals.size == 0:
        return 0.0
    v = np.ascontiguousarray(xa @ (vecs / np.sqrt(vals)))
    return max(pair_scan(v, 0.0, 1.0, 1024)[0], 0.0)
