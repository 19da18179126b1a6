"""Stopping statistics and confidence thresholds, written once for every agent.

Generalized likelihood ratio (GLR) stopping (Garivier & Kaufmann 2016, "Optimal best arm
identification with fixed confidence", Sec. 3) for Gaussian linear best-arm identification: with
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
    Σ 1/j² = π²/6) gives an error probability ≤ δ. This is the ``gaussian`` preset of
    :class:`SoareThreshold` (Soare, Lazaric & Munos 2014, Prop. 1, with the corrected constant
    c' = π²/6) in GLR form,
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


# --------------------------------------------------------------------------- Soare et al. 2014
#: named presets of :class:`SoareThreshold`.
SOARE_PRESETS: tuple[str, ...] = ("paper", "paper_fixed", "gaussian")


class SoareThreshold:
    """β(n): the multiplier of ‖y‖_{A⁻¹} in the confidence rules of Soare, Lazaric & Munos 2014.

    Every rule of the paper reads ``gap_hat >= β(n)·‖y‖_{A_n⁻¹}`` (stopping, Eq. 11; oracle
    stopping, Eq. 4; elimination, Lemma 4 / Eq. 16), with n the total number of samples so far
    (the paper's ``log_n(K²/δ)`` does not say which n). Presets:

    * ``"paper"``: β(n) = 2√2·σ·√log(6n²K²/(π²δ)), Prop. 1 with footnote 1, as printed (c = 2σ√2,
      c' = 6/π²). Its union bound over n sums to δπ⁴/36 ≈ 2.7δ, not δ: the printed c' = 6/π²
      should be π²/6.
    * ``"paper_fixed"``: β(n) = 2√2·σ·√log(π²n²K²/(6δ)), Prop. 1 with the corrected c' = π²/6:
      δ-correct for noise bounded in [−σ, σ] (Hoeffding; the paper's assumption) and for
      σ-sub-Gaussian noise.
    * ``"gaussian"`` (default of the Soare agents): β(n) = σ·√(2 log(π²n²K²/(3δ))): a two-sided
      Gaussian tail bound for every direction x − x' (at most K² of them) and every n (weights
      6/(π²n²)); δ-correct for N(0, σ²) noise and any allocation that does not depend on the
      rewards of the data it is applied to. Slightly conservative (the union
      over ordered pairs counts each direction twice).
    * ``"constant(b)"`` or a number b > 0: β ≡ b. **Heuristic, not δ-correct** (b = 2 erred in
      about 20% of our runs on the instance of the paper's Sec. 6); for calibration studies only.

    Instances are small picklable callables: ``beta = SoareThreshold("gaussian", K, δ, σ)``,
    then ``beta(n)``.

    Args:
        preset: ``"paper"``, ``"paper_fixed"``, ``"gaussian"``, ``"constant(b)"`` or a number b.
        n_arms: K ≥ 1.
        delta: δ ∈ (0, 1) (ignored by constants).
        sigma: noise level σ ≥ 0 (ignored by constants).

    Raises:
        InvalidParameterError: on an unknown preset or invalid numbers.

    """

    def __init__(self, preset: str | float, n_arms: int, delta: float, sigma: float) -> None:
        self.preset = preset
        self.constant = parse_soare_threshold(preset)
        if n_arms < 1:
            raise InvalidParameterError(f"SoareThreshold: n_arms must be >= 1; got {n_arms!r}.")
        if self.constant is None and not 0.0 < delta < 1.0:
            raise InvalidParameterError(f"SoareThreshold: delta must be in (0, 1); got {delta!r}.")
        if not (math.isfinite(sigma) and sigma >= 0.0):
            raise InvalidParameterError(f"SoareThreshold: sigma must be >= 0; got {sigma!r}.")
        self.n_arms, self.delta, self.sigma = int(n_arms), float(delta), float(sigma)
        k2 = float(n_arms) ** 2
        if self.constant is not None:
            self._scale, self._log0 = 0.0, 0.0
        elif preset == "paper":
            self._scale, self._log0 = 8.0 * sigma**2, math.log(6.0 * k2 / (math.pi**2 * delta))
        elif preset == "paper_fixed":
            self._scale, self._log0 = 8.0 * sigma**2, math.log(math.pi**2 * k2 / (6.0 * delta))
        else:  # gaussian
            self._scale, self._log0 = 2.0 * sigma**2, math.log(math.pi**2 * k2 / (3.0 * delta))

    @property
    def valid(self) -> bool:
        """Whether the preset has a δ-correctness proof (False for constants and ``"paper"``)."""
        return self.constant is None and self.preset != "paper"

    def __call__(self, n: int | float) -> float:
        """β(n) for n ≥ 1 samples so far."""
        if self.constant is not None:
            return self.constant
        return math.sqrt(self._scale * max(self._log0 + 2.0 * math.log(max(n, 1)), 0.0))

    def __repr__(self) -> str:
        return (
            f"SoareThreshold({self.preset!r}, n_arms={self.n_arms}, delta={self.delta}, "
            f"sigma={self.sigma})"
        )


def parse_soare_threshold(preset: object, who: str = "SoareThreshold") -> float | None:
    """Check a Soare threshold preset; return the constant b of ``"constant(b)"``/b, else None.

    Args:
        preset: the value to check.
        who: the name put in front of the error message (an agent's name).

    Raises:
        InvalidParameterError: if ``preset`` is not one of :data:`SOARE_PRESETS`,
            ``"constant(b)"`` or a number b > 0.

    """
    message = (
        f"{who}: threshold must be one of 'paper', 'paper_fixed', 'gaussian', 'constant(b)' "
        f"or a number b > 0; got {preset!r}."
    )
    if isinstance(preset, str):
        if preset in SOARE_PRESETS:
            return None
        text = preset.strip()
        if text.startswith("constant(") and text.endswith(")"):
            try:
                value = float(text[len("constant(") : -1])
            except ValueError:
                raise InvalidParameterError(message) from None
            preset = value
        else:
            raise InvalidParameterError(message)
    if isinstance(preset, bool) or not isinstance(preset, (int, float, np.integer, np.floating)):
        raise InvalidParameterError(message)
    value = float(preset)
    if not (math.isfinite(value) and value > 0.0):
        raise InvalidParameterError(message)
    return value


# --------------------------------------------------------------------------- adaptive designs
def self_normalized_threshold(
    log_det: float, lambda_min: float, delta: float, reg: float = 1.0
) -> float:
    """β = (1 + η/λ_min(A)) · (log(1/δ) + ½ log det(I + A/η)): GLR threshold, any sampling rule.

    δ-correct for :func:`glr_best_arm` stopping with an *adaptive* sampling rule (Track-and-Stop)
    and σ-sub-Gaussian noise. Proof: with S_t = Σ_s x_s η_s and θ̂_t − θ = A_t⁻¹S_t, Theorem 1 of
    Abbasi-Yadkori, Pál & Szepesvári (2011, "Improved algorithms for linear stochastic bandits")
    gives, with probability ≥ 1 − δ, for all t simultaneously,
    ‖S_t‖²_{(A_t+ηI)⁻¹} ≤ 2σ² log(det(I + A_t/η)^{1/2}/δ). Since A + ηI ⪯ (1 + η/λ_min(A))·A,
    ‖S_t‖²_{A_t⁻¹} ≤ (1 + η/λ_min(A_t))‖S_t‖²_{(A_t+ηI)⁻¹} ≤ 2σ²β, and by Cauchy–Schwarz
    (yᵀ(θ̂_t − θ))² ≤ 2σ²β‖y‖²_{A_t⁻¹} for every direction y. A wrong answer x̂ ≠ x* with
    Z(t) ≥ β would need yᵀθ̂ ≥ √(2σ²β)‖y‖_{A⁻¹} for y = x̂ − x* while yᵀθ < 0: impossible on
    that event. This is the threshold of Jedra & Proutière (2020, "Optimal best-arm
    identification in linear bandits", Sec. 3, stopping rule with parameters (u, c): η = u·c and
    A_t ⪰ cI give the factor 1 + u); here the factor uses λ_min(A_t) itself (any lower bound
    of it keeps the guarantee).

    Args:
        log_det: log det(I + A_t/η) (reduced coordinates: A_t must be invertible).
        lambda_min: λ_min(A_t), or a lower bound of it (> 0).
        delta: δ ∈ (0, 1).
        reg: η > 0, the regulariser of the self-normalised bound; fixed before the episode.

    Returns:
        β in the units of the GLR statistic of :func:`glr_best_arm` (σ already divided out).

    """
    if not 0.0 < delta < 1.0:
        raise InvalidParameterError(
            f"self_normalized_threshold: delta must be in (0, 1); got {delta!r}."
        )
    if not reg > 0.0:
        raise InvalidParameterError(f"self_normalized_threshold: reg must be > 0; got {reg!r}.")
    if not lambda_min > 0.0:
        return math.inf
    return (1.0 + reg / lambda_min) * (math.log(1.0 / delta) + 0.5 * max(log_det, 0.0))


def self_normalized_terms(gram: np.ndarray, reg: float = 1.0) -> tuple[float, float]:
    """(log det(I + A/η), λ_min(A)) of a symmetric PSD Gram matrix A, by one eigen-decomposition.

    The two inputs of :func:`self_normalized_threshold`; O(h³).
    """
    evals = np.linalg.eigvalsh(np.asarray(gram, dtype=np.float64))
    evals = np.maximum(evals, 0.0)
    return float(np.sum(np.log1p(evals / reg))), float(evals[0]) if evals.size else 0.0


def loglog_heuristic_threshold(t: int | float, delta: float) -> float:
    """β(t, δ) = log((1 + log t)/δ): heuristic, with no δ-correctness proof.

    The threshold commonly used in the experiments of the Track-and-Stop literature (Garivier &
    Kaufmann 2016, Sec. 6, use log((log t + 1)/δ), and later experimental studies of linear
    Track-and-Stop use thresholds of this shape). It lacks the ``d/2·log`` terms that every proven
    threshold for adaptive linear designs carries, so it is not δ-correct in theory; empirically
    its error rate is far below δ on the usual instances. Use :func:`self_normalized_threshold`
    when a guarantee is needed.

    Args:
        t: the number of samples so far (≥ 1).
        delta: δ ∈ (0, 1).

    """
    return math.log((1.0 + math.log(max(float(t), 1.0))) / delta)


def glr_from_norms(means: np.ndarray, best: int, norms_sq: np.ndarray, sigma: float) -> float:
    """The GLR statistic of :func:`glr_best_arm` from precomputed quantities.

    For agents that maintain ``‖x̂ − x‖²_{A⁻¹}`` incrementally (O(K h) per pull instead of the
    O(K h²) of :func:`glr_best_arm`). Same conventions: ``inf`` when σ = 0 and x̂ is strictly
    best, 0 when an alternative ties or beats x̂.

    Args:
        means: estimated means xᵀθ̂, shape (K,).
        best: the index x̂ (an argmax of ``means``).
        norms_sq: ‖x̂ − x‖²_{A⁻¹} for every arm, shape (K,) (the entry of ``best`` is ignored).
        sigma: the noise standard deviation σ ≥ 0.

    Returns:
        Z = min over x ≠ x̂ of Δ̂(x̂, x)² / (2σ² ‖x̂ − x‖²_{A⁻¹}).

    """
    if means.shape[0] < 2:
        return math.inf
    gaps = means[best] - means
    gaps[best] = math.inf
    norms = np.maximum(norms_sq, 0.0)
    norms[best] = 1.0
    if gaps.min() <= 0.0:
        return 0.0
    if sigma == 0.0:
        return math.inf
    with np.errstate(divide="ignore"):
        ratio = gaps * gaps / norms
    return float(ratio.min()) / (2.0 * sigma * sigma)
