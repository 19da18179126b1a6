"""Instance complexities (information-theoretic lower bounds) of pure-exploration problems.

Linear best-arm identification with Gaussian noise ``N(0, σ²)``: the characteristic time

``T*(θ) = min_w max_{x ≠ x*} 2σ² ‖x* − x‖²_{A(w)⁻¹} / Δ_x²``,  ``A(w) = Σ_k w_k x_k x_kᵀ``,

is such that every δ-correct algorithm has ``E[τ_δ] ≥ T*(θ) · kl(δ, 1 − δ) ≈ T*(θ) log(1/δ)``
(Garivier & Kaufmann 2016 for the unstructured case; Fiez, Jain, Jamieson & Ratliff 2019,
Degenne, Ménard, Shang & Valko 2020 for linear bandits). Up to the factor ``2σ²`` it is Soare,
Lazaric & Munos' (2014) oracle complexity ``H_LB`` (their eq. (6)): ``T* = 2σ² H_LB``, and the
minimising design is their oracle allocation ``λ*`` (Sec. 3, the continuous form of eq. (5)).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from bandit_envs.theory.design import transductive_design
from bandit_envs.theory.linalg import as_feature_matrix

__all__ = ["linear_best_arm_complexity"]


def linear_best_arm_complexity(
    features: ArrayLike,
    theta: ArrayLike,
    sigma: float,
    *,
    tol: float = 1e-6,
    tie_rtol: float = 1e-12,
) -> dict[str, Any]:
    """Characteristic time ``T*(θ)`` and oracle design of Gaussian linear best-arm identification.

    ``T*(θ) = min_w max_{x ≠ x*} 2σ²‖x* − x‖²_{A(w)⁻¹}/Δ_x² = 2σ² H_LB`` (Soare, Lazaric &
    Munos 2014, eq. (6)), computed by :func:`bandit_envs.theory.design.transductive_design` with
    targets ``x* − x``, weights ``1/Δ_x²`` and a certified duality gap. On the instance of the
    paper's Sec. 6 (``e_1..e_d`` and ``(cos ω, sin ω, 0, …)``, ``θ = 2e_1``, ``ω = 0.01``)
    ``H_LB ≈ 10100.84`` for ``d = 5`` (our computation; the paper prints no value). It satisfies
    the paper's Lemma 2 with the lower bound corrected,
    ``max_y ‖y‖²/(L²Δ_y²) ≤ H_LB ≤ 4d/Δ_min²`` (the lower bound as printed,
    ``max_y ‖y‖²/(LΔ_min²)``, fails on that same instance).

    Args:
        features: Arm features, shape ``(K, h)``.
        theta: Parameter, shape ``(h,)``.
        sigma: Noise standard deviation ``σ ≥ 0``. With ``σ = 0`` (noiseless) the lower bound is
            0, and the oracle weights are those of the ``σ = 1`` problem (they do not depend on
            ``σ``).
        tol: Relative tolerance of the certified duality gap of the design solve. The default
            is tight because the oracle weights of near-degenerate instances (on the Sec. 6
            instance ``λ(e_1)/λ(e_2) = tan(ω/2) ≈ 0.005``) are only resolved near the optimum.
        tie_rtol: Two means closer than ``tie_rtol · max(1, max_k |μ_k|)`` count as a tie.

    Returns:
        A dict with

        * ``"lower_bound"``: ``T*(θ)`` (float);
        * ``"oracle_weights"``: the optimal design ``w*``, shape ``(K,)``;
        * ``"best_arm"``: index of ``x*`` (int);
        * ``"gaps"``: ``Δ_k = μ* − μ_k``, shape ``(K,)``, 0 for the best arm;
        * ``"min_gap"``: ``Δ_min`` (``inf`` when ``K = 1``);
        * ``"h_lb"``: ``H_LB = T*/(2σ²)`` (the σ-free complexity of Soare et al.'s eq. (6));
        * ``"lower_bound_gap"``: the certified duality gap of the solve, in the units of
          ``"lower_bound"`` (``T*`` lies in ``[lower_bound − gap, lower_bound]``);
        * ``"converged"``: whether the relative gap ``≤ tol`` was certified.

    Raises:
        ValueError: On bad shapes or non-finite values, ``σ < 0``, or a best arm that is not
            unique.
    """
    x = as_feature_matrix(features, min_arms=1)
    th = np.asarray(theta, dtype=np.float64)
    if th.shape != (x.shape[1],):
        raise ValueError(
            f"theta is expected to have shape ({x.shape[1]},) to match features {x.shape}. "
            f"Got shape {th.shape}."
        )
    if not np.all(np.isfinite(th)):
        raise ValueError("theta must be finite; it contains NaN or inf.")
    sigma = float(sigma)
    if not (np.isfinite(sigma) and sigma >= 0.0):
        raise ValueError(f"sigma is expected to be finite and >= 0. Got {sigma!r}.")
    k = x.shape[0]
    means = x @ th
    best = int(np.argmax(means))
    gaps = means[best] - means
    gaps[best] = 0.0
    others = np.flatnonzero(np.arange(k) != best)
    scale = max(1.0, float(np.max(np.abs(means))))
    tied = others[gaps[others] <= tie_rtol * scale]
    if tied.size:
        raise ValueError(
            f"The best arm is not unique: arms {[best, *tied.tolist()]} all have the largest "
            f"mean {means[best]:.6g} (within {tie_rtol:g} relative). Best-arm identification "
            "needs a unique best arm (Soare, Lazaric & Munos 2014, Sec. 2)."
        )
    if k == 1:
        return {
            "lower_bound": 0.0,
            "oracle_weights": np.ones(1),
            "best_arm": 0,
            "gaps": np.zeros(1),
            "min_gap": float("inf"),
            "h_lb": 0.0,
            "lower_bound_gap": 0.0,
            "converged": True,
        }
    targets = x[best] - x[others]
    res = transductive_design(x, targets, 1.0 / gaps[others] ** 2, tol=tol)
    factor = 2.0 * sigma**2
    return {
        "lower_bound": factor * res.value,
        "oracle_weights": res.weights,
        "best_arm": best,
        "gaps": gaps,
        "min_gap": float(gaps[others].min()),
        "h_lb": res.value,
        "lower_bound_gap": factor * res.gap,
        "converged": res.converged,
    }
