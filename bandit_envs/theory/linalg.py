"""Linear algebra shared by environments and agents: spans, rank-one updates, least squares.

Everything here is float64 and vectorised over arms. The conventions follow Soare, Lazaric & Munos
(2014), Sec. 2: a Gram matrix ``A = Σ_t x_t x_tᵀ``, its inverse ``B = A⁻¹`` kept up to date with
Sherman–Morrison (their App. C, eq. (22)) and refreshed from scratch periodically to stop round-off
drift, ``b = Σ_t x_t r_t`` and the OLS estimate ``θ̂ = A⁻¹ b``. When the arms do not span ``R^h``
(least squares with rank-deficient designs: Kone, Kaufmann & Richert, GEGE paper, Sec. 2.2,
eq. (3)), only the directions in the span of the arms are estimable; :func:`reduce_features` and
:func:`projected_least_squares` work in that span.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = [
    "SingularDesignError",
    "as_feature_matrix",
    "IncrementalLeastSquares",
    "span_basis",
    "reduce_features",
    "ridge_unit",
    "sherman_morrison",
    "projected_least_squares",
    "matrix_norms_sq",
]

FloatArray = NDArray[np.float64]

#: Default relative tolerance on singular / eigen values below which a direction is "numerically
#: absent" (rank decisions and invertibility checks).
DEFAULT_RTOL = 1e-10


class SingularDesignError(np.linalg.LinAlgError):
    """The Gram matrix of the observations so far is singular (the design does not span ``R^dim``).

    Subclasses :class:`numpy.linalg.LinAlgError`, itself a :class:`ValueError`, so existing
    ``except`` clauses for either keep working.
    """


def as_feature_matrix(
    value: ArrayLike, name: str = "features", min_arms: int | None = None
) -> FloatArray:
    """``value`` as a finite 2-D float64 array ``(K, h)``, or ValueError naming ``name``.

    With ``min_arms``, also require ``K >= min_arms`` rows and ``h >= 1`` columns. The one check of
    a feature matrix shared by the least-squares helpers, the design solvers and the complexities.
    """
    arr = np.asarray(value, dtype=np.float64)
    if min_arms is None:
        if arr.ndim != 2:
            raise ValueError(f"{name} is expected to be a 2-D array (K, h). Got shape {arr.shape}.")
    elif arr.ndim != 2 or arr.shape[0] < min_arms or arr.shape[1] < 1:
        bound = "K, h >= 1" if min_arms == 1 else f"K >= {min_arms}, h >= 1"
        raise ValueError(
            f"{name} is expected to be a 2-D array (K, h) with {bound}. Got shape {arr.shape}."
        )
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite; it contains NaN or inf.")
    return arr


def span_basis(features: ArrayLike, rtol: float = DEFAULT_RTOL) -> FloatArray:
    """Orthonormal basis of the row space of a ``K × h`` feature matrix.

    Computed from the thin SVD ``features = P S Vᵀ``: the basis is the first ``r`` right singular
    vectors, where the numerical rank ``r`` counts the singular values ``s_i > rtol · s_max``.
    Used for projected least squares when the arms do not span ``R^h`` (Kone et al., GEGE paper,
    Sec. 2.2; Soare et al. 2014 assume a spanning set, the special case ``r = h``).

    Args:
        features: Arm features, shape ``(K, h)``.
        rtol: Relative threshold on singular values for the rank decision.

    Returns:
        ``U`` of shape ``(h, r)`` with orthonormal columns spanning the rows of ``features``
        (``r = 0`` when every feature is zero).

    Raises:
        ValueError: If ``features`` is not a finite 2-D array or ``rtol`` is negative.
    """
    x = as_feature_matrix(features)
    if not rtol >= 0.0:
        raise ValueError(f"rtol is expected to be >= 0. Got {rtol!r}.")
    h = x.shape[1]
    if x.size == 0:
        return np.zeros((h, 0))
    _, s, vt = np.linalg.svd(x, full_matrices=False)
    if s.size == 0 or s[0] == 0.0:
        return np.zeros((h, 0))
    r = int(np.count_nonzero(s > rtol * s[0]))
    return np.ascontiguousarray(vt[:r].T)


def reduce_features(features: ArrayLike) -> tuple[FloatArray, FloatArray]:
    """Express the arms in an orthonormal basis of their span ("projected least squares").

    Every estimable linear functional of θ lives in the span of the arms, so designs and
    estimators can work in ``r = rank(features)`` coordinates: ``z_k = Uᵀ x_k`` and
    ``xᵀ M⁻¹ y = zᵀ (UᵀMU)⁻¹ (Uᵀy)`` for ``x, y`` in the span (Kone et al., GEGE paper, Sec. 2.2,
    eq. (3)).

    Args:
        features: Arm features, shape ``(K, h)``.

    Returns:
        ``(Z, U)`` with ``Z = features @ U`` of shape ``(K, r)`` and ``U`` of shape ``(h, r)``
        from :func:`span_basis`.
    """
    x = as_feature_matrix(features)
    u = span_basis(x)
    return x @ u, u


def ridge_unit(features: ArrayLike) -> float:
    """``max_k ‖x_k‖²`` rounded to the nearest power of two (1.0 for all-zero features).

    Ridge agents multiply their regulariser η by it, so that η is expressed in units of the
    squared feature norm, as the analyses that assume ``‖x‖ ≤ 1`` do (Abbasi-Yadkori et al.
    2011, Thm 2): scaling the features by ``c`` (and θ by ``1/c``) then leaves such an agent's
    decisions unchanged, instead of the ridge swamping (``c ≪ 1``) or vanishing (``c ≫ 1``).
    A power of two keeps the arithmetic exact, and arms of norm within a factor √2 of 1 get
    exactly 1.0, so the records of unit-norm instances do not change.

    Args:
        features: Arm features (or their reduced coordinates), shape ``(K, h)``.

    """
    x = np.asarray(features, dtype=np.float64)
    top = float(np.max(np.einsum("ij,ij->i", x, x))) if x.size else 0.0
    if not top > 0.0 or not math.isfinite(top):
        return 1.0
    return math.ldexp(1.0, round(math.log2(top)))


def sherman_morrison(inv: ArrayLike, x: ArrayLike, weight: float = 1.0) -> FloatArray:
    """Inverse of ``A + weight · x xᵀ`` from ``inv = A⁻¹`` (Soare et al. 2014, App. C, eq. (22)).

    ``(A + w x xᵀ)⁻¹ = B − w (B x)(xᵀ B) / (1 + w xᵀ B x)`` with ``B = A⁻¹``; ``O(h²)``. A negative
    ``weight`` is a rank-one down-date.

    Args:
        inv: ``A⁻¹``, shape ``(h, h)`` (not modified).
        x: The vector, shape ``(h,)``.
        weight: Multiplier of ``x xᵀ``.

    Returns:
        A new ``(h, h)`` array holding ``(A + weight · x xᵀ)⁻¹``.

    Raises:
        ValueError: On mismatched shapes.
        SingularDesignError: If the updated matrix is singular (``1 + w xᵀBx = 0``).
    """
    b = np.asarray(inv, dtype=np.float64)
    v = np.asarray(x, dtype=np.float64)
    if b.ndim != 2 or b.shape[0] != b.shape[1]:
        raise ValueError(f"inv is expected to be a square 2-D array. Got shape {b.shape}.")
    if v.shape != (b.shape[0],):
        raise ValueError(f"x is expected to have shape ({b.shape[0]},). Got shape {v.shape}.")
    bx = b @ v
    xb = v @ b
    denom = 1.0 + weight * float(v @ bx)
    if denom == 0.0 or not np.isfinite(denom):
        raise SingularDesignError(
            "sherman_morrison: the rank-one update makes the matrix singular "
            f"(1 + weight * x^T inv x = {denom!r})."
        )
    return b - (weight / denom) * np.outer(bx, xb)


def matrix_norms_sq(vectors: ArrayLike, inv: ArrayLike) -> FloatArray:
    """Row-wise squared norms ``yᵀ M y`` of stacked vectors, clipped at 0 (against round-off).

    Args:
        vectors: Shape ``(n, h)`` (or ``(h,)`` for a single vector).
        inv: The matrix ``M`` (typically ``A⁻¹``), shape ``(h, h)``.

    Returns:
        Shape ``(n,)`` (or a 0-d array for a single vector): ``max(0, y_iᵀ M y_i)``.

    Raises:
        ValueError: On mismatched shapes.
    """
    y = np.asarray(vectors, dtype=np.float64)
    m = np.asarray(inv, dtype=np.float64)
    if m.ndim != 2 or m.shape[0] != m.shape[1]:
        raise ValueError(f"inv is expected to be a square 2-D array. Got shape {m.shape}.")
    if y.ndim not in (1, 2) or y.shape[-1] != m.shape[0]:
        raise ValueError(
            f"vectors is expected to have shape (n, {m.shape[0]}) or ({m.shape[0]},). "
            f"Got shape {y.shape}."
        )
    out = np.einsum("...i,...i->...", y @ m, y)
    return np.maximum(out, 0.0)


def _regularised_inverse(gram: FloatArray, rcond: float) -> FloatArray | None:
    """Inverse of a symmetric PSD matrix via eigh, or ``None`` if it is numerically singular."""
    evals, evecs = np.linalg.eigh(gram)
    top = evals[-1] if evals.size else 0.0
    if evals.size == 0 or top <= 0.0 or evals[0] <= rcond * top:
        return None
    inv = (evecs / evals) @ evecs.T
    return 0.5 * (inv + inv.T)


class IncrementalLeastSquares:
    """Least squares with O(h²) rank-one updates (Soare et al. 2014, Sec. 2; App. C, eq. (22)).

    State: the data Gram ``A = Σ x xᵀ``, ``b = Σ x yᵀ`` (1-D when ``outputs == 1``, else
    ``(dim, outputs)``) and, once ``A + ridge·I`` is invertible, its inverse ``B``. Single
    observations update ``B`` by Sherman–Morrison; ``B`` is recomputed from ``A`` every
    ``refresh_every`` rank-one updates (and after every batch) to stop round-off drift (our choice:
    the updates are exact only in exact arithmetic). Before the design spans ``R^dim`` the
    observations are only accumulated; the span is tracked incrementally (Gram–Schmidt,
    ``O(dim·rank)`` per observation), so the ``O(dim³)`` inversion happens once, when the rank
    reaches ``dim``.

    Args:
        dim: Feature dimension ``h``.
        ridge: ``η ≥ 0``; the estimate is ``(ηI + A)⁻¹ b`` (the regularised estimate of Soare
            et al. 2014, Prop. 2). With ``η > 0``
            the system is always invertible.
        refresh_every: Number of rank-one updates between two exact re-inversions.
        outputs: Number of outputs ``m`` per observation (``m > 1`` for multi-output models).
        rcond: Invertibility threshold: ``A + ηI`` counts as invertible when its smallest
            eigenvalue exceeds ``rcond`` times its largest.

    Raises:
        ValueError: On invalid arguments.
    """

    def __init__(
        self,
        dim: int,
        ridge: float = 0.0,
        refresh_every: int = 10_000,
        outputs: int = 1,
        *,
        rcond: float = 1e-12,
    ) -> None:
        if int(dim) != dim or dim < 1:
            raise ValueError(f"dim is expected to be a positive integer. Got {dim!r}.")
        if not (np.isfinite(ridge) and ridge >= 0.0):
            raise ValueError(f"ridge is expected to be finite and >= 0. Got {ridge!r}.")
        if int(refresh_every) != refresh_every or refresh_every < 1:
            raise ValueError(
                f"refresh_every is expected to be a positive integer. Got {refresh_every!r}."
            )
        if int(outputs) != outputs or outputs < 1:
            raise ValueError(f"outputs is expected to be a positive integer. Got {outputs!r}.")
        if not (0.0 <= rcond < 1.0):
            raise ValueError(f"rcond is expected in [0, 1). Got {rcond!r}.")
        self._dim = int(dim)
        self._ridge = float(ridge)
        self._refresh_every = int(refresh_every)
        self._outputs = int(outputs)
        self._rcond = float(rcond)
        self._gram = np.zeros((self._dim, self._dim))
        self._b = (
            np.zeros(self._dim) if self._outputs == 1 else np.zeros((self._dim, self._outputs))
        )
        self._n_updates = 0
        self._since_refresh = 0
        self._basis = np.zeros((self._dim, 0))  # orthonormal basis of the span seen so far
        self._inv: FloatArray | None = None
        if self._ridge > 0.0:
            self._refresh()

    # ------------------------------------------------------------------ properties
    @property
    def dim(self) -> int:
        """Feature dimension ``h``."""
        return self._dim

    @property
    def ridge(self) -> float:
        """Ridge parameter ``η``."""
        return self._ridge

    @property
    def outputs(self) -> int:
        """Number of outputs per observation."""
        return self._outputs

    @property
    def n_updates(self) -> int:
        """Number of observations added so far (a batch counts its total number of pulls)."""
        return self._n_updates

    @property
    def gram(self) -> FloatArray:
        """The data Gram matrix ``A = Σ x xᵀ`` (without the ridge term), read-only view."""
        return _readonly(self._gram)

    @property
    def b(self) -> FloatArray:
        """``b = Σ x y`` (shape ``(dim,)`` or ``(dim, outputs)``), read-only view."""
        return _readonly(self._b)

    @property
    def invertible(self) -> bool:
        """Whether ``A + ridge·I`` is (numerically) invertible."""
        return self._inv is not None

    @property
    def inverse(self) -> FloatArray:
        """``(A + ridge·I)⁻¹`` as a read-only view.

        Raises:
            SingularDesignError: If the observations do not span ``R^dim`` yet.
        """
        if self._inv is None:
            raise SingularDesignError(self._singular_message())
        return _readonly(self._inv)

    # ------------------------------------------------------------------ updates
    def add(self, x: ArrayLike, y: ArrayLike) -> None:
        """Add one observation ``(x, y)``: ``A += x xᵀ``, ``b += x y`` (Sherman–Morrison, Eq. 22).

        Args:
            x: Feature vector, shape ``(dim,)``.
            y: Outcome: a scalar when ``outputs == 1``, else shape ``(outputs,)``.

        Raises:
            ValueError: On wrong shapes or non-finite values.
        """
        v = np.asarray(x, dtype=np.float64)
        if v.shape != (self._dim,):
            raise ValueError(f"x is expected to have shape ({self._dim},). Got shape {v.shape}.")
        out = np.asarray(y, dtype=np.float64)
        if self._outputs == 1:
            if out.size != 1:
                raise ValueError(f"y is expected to be a scalar. Got shape {out.shape}.")
            out = out.reshape(())
        elif out.shape != (self._outputs,):
            raise ValueError(
                f"y is expected to have shape ({self._outputs},). Got shape {out.shape}."
            )
        if not (np.all(np.isfinite(v)) and np.all(np.isfinite(out))):
            raise ValueError("x and y must be finite; got NaN or inf.")
        self._gram += np.outer(v, v)
        if self._outputs == 1:
            self._b += v * float(out)
        else:
            self._b += np.outer(v, out)
        self._n_updates += 1
        if self._inv is not None:
            self._inv = sherman_morrison(self._inv, v)
            self._since_refresh += 1
            if self._since_refresh >= self._refresh_every:
                self._refresh()
            return
        # Not invertible yet: track the span; invert once it is full.
        resid = v - self._basis @ (self._basis.T @ v)
        norm = float(np.linalg.norm(resid))
        if norm > 1e-12 * max(float(np.linalg.norm(v)), np.finfo(float).tiny):
            resid -= self._basis @ (self._basis.T @ resid)  # re-orthogonalise
            self._basis = np.column_stack([self._basis, resid / np.linalg.norm(resid)])
        if self._basis.shape[1] >= self._dim:
            self._refresh()

    def add_batch(self, X: ArrayLike, counts: ArrayLike, sums: ArrayLike) -> None:  # noqa: N803
        """Add per-arm batches: ``A += Xᵀ diag(counts) X``, ``b += Xᵀ sums``; re-invert exactly.

        This is the batch path of :class:`~bandit_envs.core.protocols.BatchAgent` (an allocation
        of pull counts and the per-arm sums of the outcomes).

        Args:
            X: Arm features, shape ``(K, dim)``.
            counts: Non-negative pull counts, shape ``(K,)``.
            sums: Per-arm sums of outcomes, shape ``(K,)`` (``outputs == 1``; ``(K, 1)`` also
                accepted) or ``(K, outputs)``.

        Raises:
            ValueError: On wrong shapes, negative counts or non-finite values.
        """
        x = as_feature_matrix(X, "X")
        if x.shape[1] != self._dim:
            raise ValueError(f"X is expected to have {self._dim} columns. Got shape {x.shape}.")
        k = x.shape[0]
        n = np.asarray(counts, dtype=np.float64)
        if n.shape != (k,):
            raise ValueError(f"counts is expected to have shape ({k},). Got shape {n.shape}.")
        if not (np.all(np.isfinite(n)) and np.all(n >= 0)):
            raise ValueError("counts must be finite and non-negative.")
        s = np.asarray(sums, dtype=np.float64)
        if self._outputs == 1 and s.shape == (k, 1):
            s = s[:, 0]
        expected = (k,) if self._outputs == 1 else (k, self._outputs)
        if s.shape != expected:
            raise ValueError(f"sums is expected to have shape {expected}. Got shape {s.shape}.")
        if not np.all(np.isfinite(s)):
            raise ValueError("sums must be finite; got NaN or inf.")
        self._gram += (x.T * n) @ x
        self._gram = 0.5 * (self._gram + self._gram.T)
        self._b += x.T @ s
        self._n_updates += int(round(float(n.sum())))
        self._refresh()
        if self._inv is None:
            evals, evecs = np.linalg.eigh(self._gram)
            keep = evals > 1e-12 * max(float(evals[-1]), np.finfo(float).tiny)
            self._basis = np.ascontiguousarray(evecs[:, keep])
        else:
            self._basis = np.eye(self._dim)

    def refresh(self) -> None:
        """Recompute the inverse from the Gram matrix exactly (no-op while singular)."""
        self._refresh()

    def theta(self) -> FloatArray:
        """The estimate ``(A + ηI)⁻¹ b``: OLS for ``η = 0``, ridge for ``η > 0``.

        Returns:
            Shape ``(dim,)`` (or ``(dim, outputs)``).

        Raises:
            SingularDesignError: If ``η = 0`` and the design does not span ``R^dim`` yet (use
                :func:`projected_least_squares` for the minimum-norm estimate in the span).
        """
        if self._inv is None:
            raise SingularDesignError(self._singular_message())
        return self._inv @ self._b

    # ------------------------------------------------------------------ internals
    def _refresh(self) -> None:
        reg = self._gram + self._ridge * np.eye(self._dim)
        self._inv = _regularised_inverse(reg, self._rcond)
        self._since_refresh = 0

    def _singular_message(self) -> str:
        rank = int(np.linalg.matrix_rank(self._gram)) if self._n_updates else 0
        return (
            f"The design does not span R^{self._dim} yet (rank of the Gram matrix: {rank} after "
            f"{self._n_updates} observations), so the Gram matrix is not invertible. Pull arms "
            "spanning the feature space, use ridge > 0, or use projected_least_squares."
        )


def _readonly(arr: FloatArray) -> FloatArray:
    view = arr.view()
    view.flags.writeable = False
    return view


def projected_least_squares(features: ArrayLike, counts: ArrayLike, sums: ArrayLike) -> FloatArray:
    """Minimum-norm least squares ``θ̂ = A⁺ b`` from per-arm counts and sums (Kone et al., eq. (3)).

    ``A = Σ_k n_k x_k x_kᵀ`` and ``b = Σ_k x_k s_k``. The solution lies in the span of the pulled
    arms; for exact sums ``s_k = n_k x_kᵀθ`` it is the orthogonal projection of θ onto that span.
    Computed in an orthonormal basis ``U`` of the pulled arms' span, where the reduced Gram
    ``Uᵀ A U`` is positive definite: ``θ̂ = U (UᵀAU)⁻¹ Uᵀ b``.

    Args:
        features: Arm features, shape ``(K, h)``.
        counts: Non-negative pull counts, shape ``(K,)``.
        sums: Per-arm sums of outcomes, shape ``(K,)`` or ``(K, m)``.

    Returns:
        ``θ̂`` of shape ``(h,)`` or ``(h, m)``; zeros if nothing was pulled.

    Raises:
        ValueError: On wrong shapes, negative counts or non-finite values.
    """
    x = as_feature_matrix(features)
    k, h = x.shape
    n = np.asarray(counts, dtype=np.float64)
    if n.shape != (k,):
        raise ValueError(f"counts is expected to have shape ({k},). Got shape {n.shape}.")
    if not (np.all(np.isfinite(n)) and np.all(n >= 0)):
        raise ValueError("counts must be finite and non-negative.")
    s = np.asarray(sums, dtype=np.float64)
    if s.ndim not in (1, 2) or s.shape[0] != k:
        raise ValueError(f"sums is expected to have shape ({k},) or ({k}, m). Got {s.shape}.")
    if not np.all(np.isfinite(s)):
        raise ValueError("sums must be finite; got NaN or inf.")
    pulled = n > 0
    out_shape = (h,) if s.ndim == 1 else (h, s.shape[1])
    if not np.any(pulled):
        return np.zeros(out_shape)
    u = span_basis(x[pulled])
    if u.shape[1] == 0:
        return np.zeros(out_shape)
    z = x[pulled] @ u
    gram = (z.T * n[pulled]) @ z
    rhs = z.T @ s[pulled]
    coef = np.linalg.solve(gram, rhs)
    return u @ coef
