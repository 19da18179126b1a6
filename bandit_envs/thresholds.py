"""Stopping statistics and confidence thresholds, written once for every agent.

Generalized likelihood ratio (GLR) stopping (Garivier & Kaufmann 2016, "Optimal best arm
identification with fixed confidence", §3) for Gaussian linear best-arm identification: with
least-squares estimate θ̂ and Gram matrix A,

    Z(t) = min_{x ≠ x̂} Δ̂(x̂, x)² / (2σ² ‖x̂ − x‖²_{A⁻¹}),   Δ̂(x̂, x) = (x̂ − x)ᵀθ̂,

and the agent stops as soon as Z(t) ≥ β(t, δ).
"""

from __future__ import annotations

import math

import numpy as np

from bandit_envs.errors import InvalidParameterError


def fixed_design_threshold(
    check_index: int | np.ndarray, delta: float, n_arms: int
) -> float | np.ndarray:
    """β(j, δ) = log((K − 1) π² j² / (12 δ)), the GLR threshold of a *non-adaptive* design.

    Valid when the sampling rule does not depend on the observations (round robin, a static
    design), so that θ̂ at the j-th stopping test is exactly N(θ, σ²A⁻¹). A wrong answer x̂ ≠ x*
    at a test needs (x̂ − x*)ᵀ(θ̂ − θ) ≥ √(2β) σ ‖x̂ − x*‖_{A⁻¹}, of probability at most ½e^{−β}
    (Gaussian tail). A union bound over the K − 1 arms x ≠ x* and over the tests j ≥ 1 (with
    Σ 1/j² = π²/6) gives an error probability ≤ δ. This is the ``gaussian`` preset of spec 001
    §2.0 (Soare, Lazaric & Munos 2014, Prop. 1, with the corrected constant c' = π²/6) in GLR form,
    with the union over tests rather than samples: ``check_index`` counts stopping tests.

    Args:
        check_index: j ≥ 1, the number of the stopping test (1 for the first test).
        delta: δ ∈ (0, 1).
        n_arms: K ≥ 2.

    """
    if n_arms < 2:
        raise InvalidParameterError(f"fixed_design_threshold: n_arms must be >= 2; got {n_arms}.")
    base = math.log((n_arms - 1) * math.pi**2 / (12.0 * delta))
    if isinstance(check_index, (int, np.integer)):
        return base + 2.0 * math.log(check_index)
    return base + 2.0 * np.log(np.asarray(check_index, dtype=float))


def glr_best_arm(
    features: np.ndarray, theta_hat: np.ndarray, gram_inv: np.ndarray, sigma: float
) -> tuple[int, float]:
    """The empirical best arm x̂ and the GLR statistic Z of linear best-arm identification.

    Vectorised over arms: O(K h + h²). Features may be reduced coordinates (any basis of the
    span of the arms), with ``gram_inv`` the inverse Gram matrix in the same coordinates.
    ``sigma = 0`` gives ``inf`` when x̂ is strictly best and 0 otherwise.

    Returns:
        (x̂, Z) with Z = min over x ≠ x̂ of Δ̂(x̂, x)² / (2σ² ‖x̂ − x‖²_{A⁻¹}).

    """
    means = features @ theta_hat
    best = int(means.argmax())
    if means.shape[0] < 2:
        return best, math.inf
    diff = features[best] - features
    norms = ((diff @ gram_inv) * diff).sum(axis=1)
    gaps = means[best] - means
    gaps[best] = math.inf  # the best arm is not its own alternative
    norms[best] = 1.0
    if gaps.min() <= 0.0:
        return best, 0.0
    if sigma == 0.0:
        return best, math.inf
    with np.errstate(divide="ignore"):
        ratio = gaps * gaps / np.maximum(norms, 0.0)
    return best, float(ratio.min()) / (2.0 * sigma * sigma)
