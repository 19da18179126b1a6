"""The transductive criterion and the certified lower bounds on its optimum."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from bandit_envs.theory.design._common import FloatArray, stable_inverse


class TransductiveProblem:
    """The transductive criterion in reduced coordinates: ``f_j(w) = c_j y_jᵀ A(w)⁻¹ y_j``."""

    def __init__(self, z: FloatArray, y: FloatArray, c: FloatArray) -> None:
        self.z = z
        self.y = y
        self.c = c

    def exact(self, w: FloatArray) -> tuple[FloatArray, FloatArray]:
        """``(A(w)⁻¹, f(w))`` computed accurately from a QR factorisation.

        With ``diag(√w) Z = Q R``, ``A(w) = RᵀR`` and ``f_j = c_j ‖y_jᵀR⁻¹‖²``: the condition
        number of ``A`` is not squared, which matters for the near-singular designs that occur
        when the optimum puts (almost) no weight on some directions.

        Raises:
            numpy.linalg.LinAlgError: If ``A(w)`` is numerically singular.
        """
        from scipy.linalg.lapack import dtrtri

        rmat = np.linalg.qr(np.sqrt(w)[:, None] * self.z, mode="r")
        diag = np.abs(np.diag(rmat))
        if diag.size < self.z.shape[1] or diag.min() <= 1e-8 * max(diag.max(), 1e-300):
            raise np.linalg.LinAlgError(
                "internal error: the design's information matrix became singular; please report."
            )
        # LAPACK's triangular inverse directly: on these tiny matrices the input checks of
        # scipy's solve_triangular wrapper (and BLAS threads under load) dominate the work.
        rinv, info = dtrtri(rmat)
        if info != 0:  # pragma: no cover - excluded by the diagonal check above
            raise np.linalg.LinAlgError(f"internal error: dtrtri failed (info={info}).")
        inv = rinv @ rinv.T
        yr = self.y @ rinv
        return 0.5 * (inv + inv.T), self.c * (yr * yr).sum(axis=1)

    def values(self, inv: FloatArray) -> FloatArray:
        """``f_j`` for all targets, shape ``(J,)``."""
        return self.c * np.maximum(((self.y @ inv) * self.y).sum(axis=1), 0.0)

    def scores(self, inv: FloatArray, q: FloatArray) -> FloatArray:
        """``d_k = Σ_j q_j (z_kᵀ A⁻¹ y_j)²`` for all arms (``q = p ∘ c``): minus the gradient."""
        cq = (self.y.T * q) @ self.y
        m = inv @ cq @ inv
        return np.maximum(((self.z @ m) * self.z).sum(axis=1), 0.0)

    def cross(self, inv: FloatArray, rows: NDArray[np.intp]) -> FloatArray:
        """``D[k, j] = c_j (z_kᵀ A⁻¹ y_j)²`` for the targets ``rows``, shape ``(K, len(rows))``."""
        v = self.z @ inv @ self.y[rows].T
        return self.c[rows] * v * v


#: Largest ``K × (number of candidate targets)`` for which the LP certificate is computed.
LP_MAX_ENTRIES = 2_000_000


def candidate_targets(
    f: FloatArray, n_min: int, frac: float = 0.95, n_max: int | None = None
) -> NDArray[np.intp]:
    """Indices of the ``n_min`` largest targets and of those with ``f_j ≥ frac·max f``.

    At most ``n_max`` (default ``4·n_min``) indices are returned, the largest values first.
    """
    n = f.shape[0]
    n_max = min(n, 4 * n_min if n_max is None else n_max)
    n_take = min(n_max, max(min(n, n_min), int(np.count_nonzero(f >= frac * f.max()))))
    if n_take >= n:
        return np.arange(n)
    return np.sort(np.argpartition(-f, n_take - 1)[:n_take])


def lp_certificate(
    prob: TransductiveProblem, w: FloatArray, rows: NDArray[np.intp]
) -> tuple[float, FloatArray]:
    """Best lower bound ``max_p 2h_p(w) − max_k d_k(w)`` over ``p`` supported on ``rows``.

    The bound is concave in ``p``; maximising it is the linear program
    ``max 2fᵀp − t  s.t.  D p ≤ t·1, Σp = 1, p ≥ 0`` with ``D[k, j] = c_j (z_kᵀA⁻¹y_j)²``
    (solved by HiGHS). The returned value is recomputed from the LP's ``p``, so it is a valid
    bound whatever the LP's own tolerances. At an optimal ``w`` the bound is tight (the KKT
    multipliers of the epigraph problem attain it).

    Returns:
        ``(bound, p)`` with ``p`` of shape ``(J,)`` (zero outside ``rows``); ``(0, 0)`` if the LP
        fails.
    """
    from scipy.optimize import linprog

    p_full = np.zeros(prob.y.shape[0])
    inv, f_all = safe_exact(prob, w)
    f = f_all[rows]
    dmat = prob.cross(inv, rows)
    k, m = dmat.shape
    scale = float(f.max())
    if scale <= 0.0:
        return 0.0, p_full
    res = linprog(
        np.r_[-2.0 * f / scale, 1.0],
        A_ub=np.hstack([dmat / scale, -np.ones((k, 1))]),
        b_ub=np.zeros(k),
        A_eq=np.r_[np.ones(m), 0.0][None, :],
        b_eq=[1.0],
        bounds=[(0.0, None)] * m + [(None, None)],
        method="highs",
    )
    if res.x is None:
        return 0.0, p_full
    p = np.maximum(res.x[:m], 0.0)
    if p.sum() <= 0.0:
        return 0.0, p_full
    p /= p.sum()
    p_full[rows] = p
    return float(2.0 * (f @ p) - (dmat @ p).max()), p_full


def safe_exact(prob: TransductiveProblem, w: FloatArray) -> tuple[FloatArray, FloatArray]:
    """:meth:`TransductiveProblem.exact`; an eigenvalue-floored inverse if it is singular."""
    try:
        return prob.exact(w)
    except np.linalg.LinAlgError:
        inv = stable_inverse(prob.z, w)
        return inv, prob.values(inv)
