"""A process-wide memo for optimal designs, and small helpers shared by design-based agents.

An optimal design (G-optimal, XY / transductive, single-direction) is a deterministic function of
the arms' features and of the active set, and design solves dominate the running time of phase-based
agents on small problems (the rest of a phase is a few array products). Sweeps build a fresh agent
for every episode and run many episodes on the same instance, so the memo lives at module level: the
first episode solves, the next ones look up. A memo hit returns exactly what the solve would have
returned, so results do not depend on the memo (``check_agent``'s reset and determinism checks
hold).

Also here: the helpers those agents share (memoised span coordinates, a pseudo-inverse on the
range of a Gram matrix, the least-squares estimator of a phase as one matrix, the leverages
``‖z_i‖²_{V⁺}`` of a design and the exact value of a transductive design).
"""

from __future__ import annotations

import hashlib
import math
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any

import numpy as np

from bandit_envs.theory.linalg import reduce_features

__all__ = [
    "DESIGNS",
    "DesignMemo",
    "array_key",
    "leverages",
    "ols_estimator",
    "pinv_parts",
    "reduced_coordinates",
    "xy_value",
]


def array_key(array: np.ndarray) -> bytes:
    """A compact exact key of an array: SHA-1 of its dtype, shape and bytes."""
    a = np.ascontiguousarray(array)
    digest = hashlib.sha1(str((a.dtype.str, a.shape)).encode())
    digest.update(a.tobytes())
    return digest.digest()


def _nbytes(value: Any) -> int:
    """Approximate memory of a memo value: the bytes of the arrays it holds (plus a little)."""
    if isinstance(value, np.ndarray):
        return int(value.nbytes) + 112
    if isinstance(value, (tuple, list)):
        return sum(_nbytes(v) for v in value) + 64
    return 64


class DesignMemo:
    """A least-recently-used memo ``key -> value`` bounded in entries and in bytes.

    Values are treated as read-only. Entries beyond ``maxsize``, or beyond ``max_bytes`` of
    arrays in total, are dropped least recently used first (large problems, e.g. a phase
    estimator of K = 1000 arms, hold megabytes each).

    Args:
        maxsize: the number of entries kept.
        max_bytes: the total size of the arrays kept.
    """

    def __init__(self, maxsize: int = 4096, max_bytes: int = 256 * 2**20) -> None:
        self.maxsize = maxsize
        self.max_bytes = max_bytes
        self._data: OrderedDict[Hashable, tuple[Any, int]] = OrderedDict()
        self._bytes = 0
        self.hits = 0
        self.misses = 0

    def get(self, key: Hashable, compute: Callable[[], Any]) -> Any:
        """The memoised value of ``key``, computing (and storing) it with ``compute()`` if new."""
        try:
            value, _ = self._data[key]
        except KeyError:
            self.misses += 1
            value = compute()
            self.put(key, value)
            return value
        self.hits += 1
        self._data.move_to_end(key)
        return value

    def peek(self, key: Hashable) -> Any:
        """The memoised value of ``key``, or None; neither computes nor counts as a use."""
        entry = self._data.get(key)
        return None if entry is None else entry[0]

    def put(self, key: Hashable, value: Any) -> None:
        """Store ``value`` under ``key`` (replacing an older value), as a miss of :meth:`get`."""
        old = self._data.pop(key, None)
        if old is not None:
            self._bytes -= old[1]
        size = _nbytes(value)
        self._data[key] = (value, size)
        self._bytes += size
        self._trim()

    def _trim(self) -> None:
        """Drop least recently used entries beyond ``maxsize`` or ``max_bytes`` (keep one)."""
        while len(self._data) > 1 and (
            len(self._data) > self.maxsize or self._bytes > self.max_bytes
        ):
            _, (_, dropped) = self._data.popitem(last=False)
            self._bytes -= dropped

    def clear(self) -> None:
        """Forget every entry (for benchmarks that time cold solves)."""
        self._data.clear()
        self._bytes = 0
        self.hits = self.misses = 0

    def __len__(self) -> int:
        return len(self._data)


#: the memo used by the zoo's design-based agents (RAGE, ODLinBAI, LinGapE's ratio rule).
DESIGNS = DesignMemo()


def reduced_coordinates(features: np.ndarray) -> tuple[np.ndarray, bytes]:
    """Coordinates in a basis of the span of ``features``, memoised, and their memo key.

    The coordinates are those of :func:`bandit_envs.theory.linalg.reduce_features`.
    """

    def compute() -> tuple[np.ndarray, bytes]:
        z = reduce_features(features)[0]
        z.flags.writeable = False
        return z, array_key(z)

    return DESIGNS.get(("reduce", array_key(features)), compute)


def pinv_parts(gram: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Eigenvectors and eigenvalues of the range of a PSD matrix (relative threshold 1e-12)."""
    evals, evecs = np.linalg.eigh(0.5 * (gram + gram.T))
    top = float(evals[-1]) if evals.size else 0.0
    keep = evals > 1e-12 * max(top, np.finfo(float).tiny)
    return evecs[:, keep], evals[keep]


def ols_estimator(z: np.ndarray, counts: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """The matrix E with ``E @ sums = z[rows] θ̂``, θ̂ = A⁺ Zᵀ sums, A = Σ_k n_k z_k z_kᵀ.

    Minimum-norm least squares from per-arm sums: the differences of the returned means are
    exact (unbiased) for directions in the span of the pulled arms.
    """
    vecs, vals = pinv_parts((z.T * counts) @ z)
    est = (z[rows] @ vecs / vals) @ (vecs.T @ z.T)
    est.flags.writeable = False
    return est


def leverages(z: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """``‖z_i‖²_{V⁺}`` for every row of ``z``, ``V = Σ_i counts_i z_i z_iᵀ``.

    ``V⁺`` is the inverse on the range of ``V`` (= ``B(BᵀVB)⁻¹Bᵀ`` when the pulled rows span the
    rows' span); a row outside that range gets ``+inf`` (its mean is not estimable). These are
    the variances of the least-squares means of Kone, Kaufmann & Richert (2024), eq. (3), and the
    G-optimal criterion ``max_i ‖z_i‖²_{V⁺}``.

    Args:
        z: row features, shape (n, r).
        counts: pulls per row (or design weights), shape (n,), non-negative.
    """
    counts = np.asarray(counts, dtype=np.float64)
    if not counts.any():
        return np.full(z.shape[0], np.inf)
    vecs, vals = pinv_parts((z.T * counts) @ z)
    proj = z @ vecs
    lev = (proj * proj / vals).sum(axis=1)
    resid = np.linalg.norm(z - proj @ vecs.T, axis=1)
    scale = max(float(np.max(np.abs(z))), 1.0)
    lev[resid > 1e-9 * scale] = np.inf
    return lev


def xy_value(z: np.ndarray, weights: np.ndarray, targets: np.ndarray) -> float:
    """``max_j ‖y_j‖²_{A(w)⁺}``, or ``inf`` if some ``y_j`` is outside the range of ``A(w)``.

    ``A(w) = Σ_k w_k z_k z_kᵀ``; computed exactly (eigendecomposition), so that a design value
    used by an agent (RAGE's ρ, LinFACT-XY's g_XY) is the value of the design it actually
    rounds, not a solver's estimate.

    Args:
        z: arm coordinates, shape (K, r).
        weights: the design, shape (K,).
        targets: the directions ``y_j``, shape (J, r).
    """
    vecs, vals = pinv_parts((z.T * weights) @ z)
    coords = targets @ vecs
    resid = targets - coords @ vecs.T
    scale = float(np.max(np.abs(z))) + float(np.max(np.abs(targets), initial=0.0))
    if np.any(np.abs(resid) > 1e-9 * max(scale, 1.0)):
        return math.inf
    return float(np.max((coords * coords / vals).sum(axis=1), initial=0.0))
