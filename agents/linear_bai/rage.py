"""``RAGE``: Randomized Adaptive Gap Elimination (Fiez, Jain, Jamieson & Ratliff, NeurIPS 2019).

"Sequential Experimental Design for Transductive Linear Bandits", Algorithm 1 (RAGE), here with
the item set equal to the arm set (𝒵 = 𝒳: linear best-arm identification). Where the paper
leaves a constant open, the choices are those of the authors' public code (the supplementary
material of Fiez et al., ``RAGE.py``), and they are named where they are used.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from agents.base import AgentCard, BaseAgent
from agents.common.design_cache import (
    DESIGNS,
    ols_estimator,
    pinv_parts,
    reduced_coordinates,
    xy_value,
)
from agents.common.params import Real
from agents.common.phases import PhaseTracking
from bandit_envs.core.problem import Answer, ProblemSpec
from bandit_envs.core.protocols import AgentCapabilities
from bandit_envs.theory.design import (
    pairwise_differences,
    round_design,
    transductive_design,
    xy_design,
    xy_pair_value,
)

# xy_value lives in agents.common.design_cache; it stays importable from here, where it was first
# defined (bandit_envs.theory.design and its tests refer to it as agents.linear_bai.rage.xy_value).
__all__ = ["RAGE", "xy_value"]

#: weights at or below this (after normalisation) are outside a design's support; the same
#: threshold as :func:`bandit_envs.theory.design.round_design`, so ρ is computed on the pulled
#: support.
SUPPORT_TOL = 1e-12

#: cap on one phase's length, far beyond any ``max_samples``: keeps int64 counts from overflowing.
MAX_PHASE_SAMPLES = 2**53

#: an active set with at most this many pairs (100 arms: 4950) materialises its pairwise
#: differences (:func:`bandit_envs.theory.design.transductive_design` and :func:`xy_value`, the
#: path of every seeded record); a larger one never stores them: its design is
#: :func:`bandit_envs.theory.design.xy_design` by pair generation with ``among`` = the active
#: set, its ρ the blocked :func:`bandit_envs.theory.design.xy_pair_value`, and its phase
#: estimator is kept as two factors (:class:`_FactoredEstimator`) instead of an
#: ``|active| × K`` matrix.
DENSE_MAX_PAIRS = 4950


def _is_large(active: np.ndarray) -> bool:
    """Whether the active set has more pairs than :data:`DENSE_MAX_PAIRS` (pairs not stored)."""
    return active.size * (active.size - 1) // 2 > DENSE_MAX_PAIRS


def _rage_design(z: np.ndarray, active: np.ndarray, tol: float) -> tuple[np.ndarray, float, int]:
    """XY design on the active pairs: weights (read-only), its exact value ρ, its support size.

    Small active sets materialise the pairs; large ones (:func:`_is_large`) use pair generation
    and the blocked exact value, with the same meaning: ρ is the exact value of the returned
    weights on the pairs of the active set.
    """
    k = z.shape[0]
    if _is_large(active):
        w = xy_design(z, tol=tol, method="pair_generation", among=active).weights.copy()

        def value(weights: np.ndarray) -> float:
            return xy_pair_value(z, weights, among=active)
    else:
        targets = pairwise_differences(z[active])
        w = transductive_design(z, targets, tol=tol).weights.copy()

        def value(weights: np.ndarray) -> float:
            return xy_value(z, weights, targets)

    w[w <= SUPPORT_TOL * w.sum()] = 0.0
    w /= w.sum()
    rho = value(w)
    if not math.isfinite(rho):  # dropping tiny weights lost a direction: mix in uniform
        w = 0.5 * w + 0.5 / k
        rho = value(w)
    w.flags.writeable = False
    return w, rho, int(np.count_nonzero(w))


class _FactoredEstimator(NamedTuple):
    """The phase estimator ``E = left @ right`` of :func:`ols_estimator`, kept as its factors.

    ``left = z[active] V Λ⁻¹`` (``|active| × r``) and ``right = Vᵀ Zᵀ`` (``r × K``), so that
    ``E @ sums`` costs ``O((|active| + K) r)`` and no ``|active| × K`` matrix is stored (800 MB
    at ``|active| = K = 10⁴``). Equal to ``ols_estimator(...) @ sums`` up to round-off.
    """

    left: np.ndarray
    right: np.ndarray

    def __matmul__(self, sums: np.ndarray) -> np.ndarray:
        return self.left @ (self.right @ sums)


def _phase_estimator(
    z: np.ndarray, counts: np.ndarray, active: np.ndarray
) -> np.ndarray | _FactoredEstimator:
    """:func:`ols_estimator`, factored for large active sets (:func:`_is_large`)."""
    if not _is_large(active):
        return ols_estimator(z, counts, active)
    vecs, vals = pinv_parts((z.T * counts) @ z)
    left, right = z[active] @ vecs / vals, np.ascontiguousarray(vecs.T @ z.T)
    left.flags.writeable = right.flags.writeable = False
    return _FactoredEstimator(left, right)


def _rounded_plan(
    z: np.ndarray, weights: np.ndarray, n: int, active: np.ndarray
) -> tuple[np.ndarray, np.ndarray | _FactoredEstimator]:
    """The rounded allocation of ``n`` pulls and the phase's least-squares estimator."""
    alloc = round_design(weights, n)
    alloc.flags.writeable = False
    return alloc, _phase_estimator(z, alloc, active)


class RAGE(PhaseTracking, BaseAgent):
    """Randomized Adaptive Gap Elimination, Algorithm 1 of Fiez et al. (2019) with 𝒵 = 𝒳.

    Phases m = 1, 2, … run while more than one arm is active (𝒵̂_1 = all arms):

    1. **Design** (Alg. 1, the λ*_k and ρ(𝒵̂_k) lines): the XY-optimal design over *all* arms
       for the differences of the active arms,
       λ_m = argmin_λ max_{z,z'∈𝒵̂_m} ‖z − z'‖²_{A(λ)⁻¹}, computed by
       :func:`bandit_envs.theory.design.transductive_design`;
       ρ_m = max_{z,z'∈𝒵̂_m} ‖z − z'‖²_{A(λ_m)⁻¹} is evaluated exactly at the weights that are
       rounded (not the solver's bound). Active sets with more than :data:`DENSE_MAX_PAIRS`
       pairs never store them: the design is :func:`bandit_envs.theory.design.xy_design` by pair
       generation with ``among = 𝒵̂_m``, and ρ_m the blocked exact value
       :func:`bandit_envs.theory.design.xy_pair_value` (same meaning; what makes K = 10⁴ arms fit
       in memory).
    2. **Phase length** (Alg. 1, the N_k line)::

           N_m = max{ ⌈2(1+ε) · 4^{m+2} · σ² ρ_m · log(4m²K/δ)⌉ ,  r(ε) },
           r(ε) = p_m + ⌈p_m/ε⌉   (p_m = support size of λ_m).

       The constants are those of the correctness argument below, made explicit: the
       per-phase confidence δ_m = δ/(2m²) (Σ_m δ_m = π²δ/12 < δ, whereas δ/m² — the schedule
       of the authors' code, and of PELEG's Corollary 1 — would sum to π²δ/6 > δ); a union
       bound over the
       2K one-sided deviations along the directions z* − z, giving log(2K/δ_m) = log(4m²K/δ);
       and the factor 4^{m+2} = (2^{m+2})², the squared inverse of the accuracy 2^{-(m+2)} of
       the elimination rule (step 4): a factor 4^{m+1} would only give accuracy 2^{-(m+1)},
       which does not protect the best arm from a 2^{-(m+2)} elimination. σ² scales the count
       (the paper assumes 1-sub-Gaussian noise). r(ε) is the smallest N for which the
       efficient rounding loses at most a factor 1 + ε (step 3).
    3. **Rounding and sampling** (Alg. 1, ROUND(λ_k, N_k)): Pukelsheim's efficient rounding
       :func:`bandit_envs.theory.design.round_design` (Adams apportionment) with ε = 1/10 (the
       authors' code). It guarantees n_k ≥ (N_m − p_m) λ_{m,k} ≥
       N_m λ_{m,k}/(1 + ε), so ‖y‖²_{A_m⁻¹} ≤ (1 + ε) ρ_m / N_m for every active difference y.
    4. **Estimation and elimination** (Alg. 1, the θ̂_k and 𝒵̂_{k+1} lines): least squares on
       *this phase's* samples only, θ̂_m = A_m⁺ b_m; drop every active z with
       max_{z'∈𝒵̂_m} ⟨z' − z, θ̂_m⟩ > 2^{-(m+2)}.

    **δ-correctness** (the argument of Fiez et al.'s correctness proof, constants as above):
    given the past, the phase design is fixed, so ⟨y, θ̂_m − θ⟩ is Gaussian with variance
    σ²‖y‖²_{A_m⁻¹} ≤ σ²(1+ε)ρ_m/N_m ≤ 4^{-(m+2)}/(2 log(2K/δ_m)). With probability ≥ 1 − δ_m,
    |⟨z − z*, θ̂_m − θ⟩| ≤ 2^{-(m+2)} for all active z; then z* is never dropped, and every arm
    with gap > 2^{-(m+1)} is. Over all phases the error is ≤ Σ_m δ_m < δ. On that event the
    number of phases is at most max(1, ⌊log₂(1/Δ_min)⌋); on a noiseless instance it is
    exactly the first m ≥ 1 with 2^{-(m+2)} < Δ_min.

    **Batch path**: one ``select_batch`` per phase (the whole rounded allocation). The one-pull
    path pulls the same allocation arm by arm (lowest index first); both estimate from the
    phase's sums, so decisions coincide at the same sample counts.

    **Speed**: the design, ρ_m, N_m, the rounded allocation and the phase's least-squares
    estimator depend only on the features, δ, σ and the active set, so they are memoised
    process-wide (:mod:`agents.common.design_cache`); after the first episode on an instance a phase
    costs two memo lookups, one product with the phase sums and one environment batch.

    Args:
        epsilon: the rounding tolerance ε > 0 (default 1/10, as in the authors' code).
        design_tol: relative duality-gap tolerance of the XY design solve, in (0, 1). It only
            affects sample efficiency: ρ_m is always the exact value of the rounded design.

    Attributes:
        phase_history: after each phase, a dict with ``phase`` (m), ``active`` (arms at its
            start), ``rho`` (ρ_m), ``samples`` (N_m), ``allocation`` (pulls per arm) and
            ``survivors`` (arms kept).

    """

    card = AgentCard(
        summary="Phased elimination: XY-optimal design on the differences of the active arms, "
        "efficient rounding, least squares on the phase's data, and elimination of the arms more "
        "than 2^-(m+2) below the best (delta-correct)",
        paper="Fiez, Jain, Jamieson & Ratliff, Sequential Experimental Design for Transductive "
        "Linear Bandits, NeurIPS 2019, Algorithm 1 (RAGE) with Z = X",
    )

    capabilities = AgentCapabilities(
        tasks=frozenset({"best_arm"}),
        settings=frozenset({"fixed_confidence"}),
        structures=frozenset({"linear"}),
        batch=True,
    )

    parameters = {"epsilon": Real(gt=0), "design_tol": Real(gt=0, lt=1)}

    def __init__(self, epsilon: float = 0.1, design_tol: float = 1e-3) -> None:
        self.epsilon = epsilon
        self.design_tol = design_tol

    # ------------------------------------------------------------------ episode set-up

    def _on_reset(self, spec: ProblemSpec) -> None:
        k = spec.n_arms
        features = np.eye(k) if spec.features is None else np.asarray(spec.features, float)
        self._z, self._zkey = reduced_coordinates(features)
        noise = 1.0 if spec.noise_std is None else spec.noise_std
        self._sigma2 = float(np.max(noise)) ** 2
        self._active = np.arange(k)
        self._phase = 0
        self._start_phases(k)
        self._means: np.ndarray | None = None
        self.phase_history: list[dict] = []

    # ------------------------------------------------------------------ phases

    def _design(self) -> tuple[np.ndarray, float, int]:
        active = self._active
        key = ("RAGE", self._zkey, active.tobytes(), float(self.design_tol))
        return DESIGNS.get(key, lambda: _rage_design(self._z, active, float(self.design_tol)))

    def _plan_phase(self) -> None:
        """Design, ρ_m, N_m and the rounded allocation of the next phase (Alg. 1 lines 4–7)."""
        m = self._phase + 1
        weights, rho, support = self._design()
        eps = float(self.epsilon)
        log_term = math.log(4.0 * m * m * self.n_arms / self._require_delta())
        n_stat = 2.0 * (1.0 + eps) * 4.0 ** (m + 2) * self._sigma2 * rho * log_term
        n_round = support + math.ceil(support / eps * (1.0 - 1e-12))
        n = max(math.ceil(min(n_stat, MAX_PHASE_SAMPLES)), n_round)
        active = self._active
        key = ("RAGE-plan", self._zkey, active.tobytes(), float(self.design_tol), n)
        alloc, self._estimator = DESIGNS.get(
            key, lambda: _rounded_plan(self._z, weights, n, active)
        )
        self._remaining = alloc.copy()
        self._alloc = alloc
        self._left = n
        self._cursor = 0
        self._pcounts = np.zeros(self.n_arms, dtype=np.int64)
        self._psums = np.zeros(self.n_arms)
        self._rho, self._n = rho, n
        self._planned = True

    def _finish_phase(self) -> None:
        """Phase-local least squares and elimination at accuracy 2^{-(m+2)} (Alg. 1 lines 9–10)."""
        m = self._phase + 1
        if np.array_equal(self._pcounts, self._alloc):
            means = self._estimator @ self._psums
        else:  # observations outside the plan (only if a caller feeds them): solve afresh
            means = _phase_estimator(self._z, self._pcounts, self._active) @ self._psums
        keep = means.max() - means <= 2.0 ** (-(m + 2))
        self.phase_history.append(
            {
                "phase": m,
                "active": self._active.tolist(),
                "rho": self._rho,
                "samples": self._n,
                "allocation": self._alloc.tolist(),
                "survivors": self._active[keep].tolist(),
            }
        )
        self._means = np.full(self.n_arms, -np.inf)
        self._means[self._active] = means
        self._active = self._active[keep]
        self._phase = m
        self._planned = False

    @property
    def done(self) -> bool:
        """Whether a single arm is left (the agent has stopped)."""
        return hasattr(self, "_active") and self._active.size == 1

    # ------------------------------------------------------------------ protocol

    def recommend(self) -> Answer:
        """The surviving arm; before that, the active arm with the best last-phase estimate."""
        self._require_reset("recommend")
        if self._means is None or self._active.size == 1:
            return frozenset({int(self._active[0])})
        best = self._active[np.argmax(self._means[self._active])]
        return frozenset({int(best)})
