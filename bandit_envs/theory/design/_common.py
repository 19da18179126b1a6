"""Shared pieces of the design solvers: the result type, input checks, ``A(w)⁻¹`` and leverages."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from bandit_envs.theory.linalg import as_feature_matrix, reduce_features

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]


@dataclass(frozen=True)
class DesignResult:
    """Result of a design optimisation.

    Attributes:
        weights: The design ``w``, shape ``(K,)``, non-negative, summing to 1.
        value: The criterion at ``weights`` (G: ``max_k x_kᵀA(w)⁻¹x_k``; transductive:
            ``max_j c_j‖y_j‖²_{A(w)⁻¹}``).
        lower_bound: A certified lower bound on the optimal value; ``value − lower_bound`` is the
            duality gap certificate.
        iterations: Number of solver iterations used.
        converged: Whether the requested tolerance was certified.
    """

    weights: FloatArray
    value: float
    lower_bound: float
    iterations: int
    converged: bool

    @property
    def gap(self) -> float:
        """Absolute duality gap ``value − lower_bound`` (≥ 0)."""
        return max(self.value - self.lower_bound, 0.0)

    @property
    def relative_gap(self) -> float:
        """Relative duality gap ``(value − lower_bound) / value`` (0 when ``value == 0``)."""
        return self.gap / self.value if self.value > 0 else 0.0


def check_features(features: ArrayLike) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Validate features and return ``(X, Z, U)`` (reduced coordinates ``Z = X U``)."""
    x = as_feature_matrix(features, min_arms=1)
    z, u = reduce_features(x)
    if z.shape[1] == 0:
        raise ValueError("features are all zero: no design gives any information.")
    return x, z, u


def check_init(init: ArrayLike | None, k: int) -> FloatArray | None:
    """Validate an initial design (non-negative, finite, positive sum) and normalise it."""
    if init is None:
        return None
    w = np.asarray(init, dtype=np.float64)
    if w.shape != (k,):
        raise ValueError(f"init is expected to have shape ({k},). Got shape {w.shape}.")
    if not (np.all(np.isfinite(w)) and np.all(w >= 0) and w.sum() > 0):
        raise ValueError("init must be finite, non-negative and not all zero.")
    return w / w.sum()


def information_inverse(z: FloatArray, w: FloatArray) -> FloatArray | None:
    """``A(w)⁻¹`` in reduced coordinates, or ``None`` if ``A(w)`` is numerically singular."""
    m = (z.T * w) @ z
    m = 0.5 * (m + m.T)
    evals, evecs = np.linalg.eigh(m)
    if evals[0] <= 1e-13 * max(evals[-1], np.finfo(float).tiny):
        return None
    inv = (evecs / evals) @ evecs.T
    return 0.5 * (inv + inv.T)


def require_inverse(z: FloatArray, w: FloatArray) -> FloatArray:
    """``A(w)⁻¹`` in reduced coordinates; raise if the design is singular (internal invariant)."""
    inv = information_inverse(z, w)
    if inv is None:
        raise np.linalg.LinAlgError(
            "internal error: the design's information matrix became singular; please report."
        )
    return inv


def arm_leverages(z: FloatArray, inv: FloatArray) -> FloatArray:
    """Row-wise ``z_kᵀ M z_k`` (vectorised, clipped at 0)."""
    return np.maximum(((z @ inv) * z).sum(axis=1), 0.0)


def spanning_start(z: FloatArray) -> FloatArray:
    """Uniform design on ``r`` arms picked by pivoted Gram–Schmidt (largest residual first).

    This is a volume-greedy start in the spirit of Kumar & Yildirim (2005): its information
    matrix is invertible and reasonably conditioned, and its support is small, so that
    Frank–Wolfe with away steps does not have to remove thousands of arms one by one.
    """
    k, r = z.shape
    resid = z.copy()
    norms = (resid * resid).sum(axis=1)
    chosen = np.zeros(k, dtype=bool)
    for _ in range(r):  # r pivots (a loop over dimensions, each step vectorised over arms)
        norms[chosen] = -1.0
        j = int(np.argmax(norms))
        if norms[j] <= 0.0:
            break
        chosen[j] = True
        q = resid[j] / math.sqrt(norms[j])
        resid -= np.outer(resid @ q, q)
        norms = (resid * resid).sum(axis=1)
    w = chosen.astype(np.float64)
    return w / w.sum()


def stable_inverse(z: FloatArray, w: FloatArray) -> FloatArray:
    """``A(w)⁻¹`` with eigenvalues floored at ``1e-15·λ_max`` (never fails; used by SLSQP)."""
    m = (z.T * w) @ z
    evals, evecs = np.linalg.eigh(0.5 * (m + m.T))
    floor = max(float(evals[-1]), np.finfo(float).tiny) * 1e-15
    inv = (evecs / np.maximum(evals, floor)) @ evecs.T
    return 0.5 * (inv + inv.T)
