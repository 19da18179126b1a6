"""Worked solution of the course assignment: phased elimination with GLR tests (instructors only).

Keep this file away from students; ``examples/course/assignment.py`` is what they receive.

The algorithm (fixed-confidence linear best-arm identification, Gaussian noise σ known):

Phase m = 1, 2, … while more than one arm is active (𝒮₁ = all K arms):

1. **Design.** λ_m = the XY design over *all* arms for the differences of the active arms,
   λ_m = argmin_λ max_{x, x' ∈ 𝒮_m} ‖x − x'‖²_{A(λ)⁻¹}, and ρ_m its value
   (:func:`bandit_envs.theory.design.transductive_design` on
   :func:`bandit_envs.theory.design.pairwise_differences`).
2. **Length.** N_m = ⌈2σ²β_m ρ_m / ε_m²⌉ with ε_m = 2^{-m} and
   β_m = log((K − 1)π²m²/(12δ)) (:func:`bandit_envs.theory.thresholds.fixed_design_threshold` with
   test index m): after N_m pulls the confidence width √(2σ²β_m)‖x − x'‖_{A_m⁻¹} of every
   active difference is about ε_m. At least one pull per support arm of λ_m.
3. **Sampling.** Round λ_m to N_m integer pulls (:func:`bandit_envs.theory.design.round_design`) and
   pull them one at a time.
4. **Elimination (GLR test).** Least squares on *this phase's* data only,
   θ̂_m = A_m⁺b_m (:func:`bandit_envs.theory.linalg.projected_least_squares`); with x̂ the empirical
   best active arm, drop every active x with

       Δ̂(x̂, x) = (x̂ − x)ᵀθ̂_m > 0  and  Δ̂(x̂, x)² ≥ 2σ²β_m ‖x̂ − x‖²_{A_m⁺}.

Stop (``select`` returns ``None``) when one arm is left; recommend it.

**Why it is δ-correct.** Given the past, phase m's allocation is fixed, so for every active
difference y (which lies in the range of A_m: the design covers it) yᵀθ̂_m ~ N(yᵀθ, σ²‖y‖²_{A_m⁺})
exactly. The best arm x* is dropped in phase m only if some x ≠ x* has
(x − x*)ᵀ(θ̂_m − θ) ≥ √(2σ²β_m)‖x − x*‖_{A_m⁺} (because (x − x*)ᵀθ < 0), an event of probability
at most ½e^{−β_m} for each of the K − 1 arms x. Summing, (K − 1)/2 · e^{−β_m} = 6δ/(π²m²), and
Σ_m 6δ/(π²m²) = δ. So with probability ≥ 1 − δ the best arm survives every phase and is the
answer. (Using only the phase's data is what makes the Gaussian statement exact; reusing older
phases would make the design depend on the noise.)
"""

from __future__ import annotations

import math

import numpy as np

from bandit_envs.core.problem import ProblemSpec
from bandit_envs.core.protocols import AgentCapabilities
from bandit_envs.theory.design import pairwise_differences, round_design, transductive_design
from bandit_envs.theory.linalg import matrix_norms_sq, projected_least_squares, reduce_features
from bandit_envs.theory.thresholds import fixed_design_threshold

#: designs already solved, keyed by (features, active arms). A design depends on nothing else, so
#: reusing it across episodes changes no result; it saves a ~0.1 s solve per phase when the
#: grader runs many episodes on one instance.
_DESIGNS: dict[tuple[bytes, bytes], tuple[np.ndarray, float]] = {}


class PhasedElimination:
    """Phased XY-design elimination with GLR tests, for fixed-confidence linear best arm."""

    capabilities = AgentCapabilities(
        tasks=frozenset({"best_arm"}),
        settings=frozenset({"fixed_confidence"}),
        structures=frozenset({"linear"}),
    )

    def reset(self, spec: ProblemSpec, rng: np.random.Generator) -> None:
        """Start an episode: clear every piece of state of the previous one."""
        self.rng = rng  # unused: the algorithm is deterministic given the observations
        self.n_arms = spec.n_arms
        features = np.eye(spec.n_arms) if spec.features is None else spec.features
        self.z, _ = reduce_features(features)  # coordinates in a basis of the arms' span
        self.sigma = 1.0 if spec.noise_std is None else float(np.max(spec.noise_std))
        self.delta = float(spec.delta)
        self.active = np.arange(spec.n_arms)  # arms still in the race
        self.phase = 0  # number of the current phase (1, 2, …); 0 before the first
        self.remaining = np.zeros(spec.n_arms, dtype=np.int64)  # pulls left per arm, this phase
        self.left = 0  # their total
        self.cursor = 0  # the arm being pulled
        self.phase_counts = np.zeros(spec.n_arms, dtype=np.int64)
        self.phase_sums = np.zeros(spec.n_arms)
        self.estimates: np.ndarray | None = None  # x_kᵀθ̂ of the last finished phase

    # ------------------------------------------------------------------ the protocol

    def select(self) -> int | None:
        """The next arm of the current phase's allocation; None once one arm is left."""
        if self.active.size == 1:
            return None
        if self.left == 0:
            self._start_phase()
        while self.remaining[self.cursor] == 0:  # walk through the allocation arm by arm
            self.cursor += 1
        return self.cursor

    def observe(self, arm: int, outcome: np.ndarray) -> None:
        """Record the outcome in the phase's data; end the phase when its allocation is done."""
        self.phase_counts[arm] += 1
        self.phase_sums[arm] += outcome[0]
        if self.remaining[arm] > 0:
            self.remaining[arm] -= 1
            self.left -= 1
            if self.left == 0:
                self._end_phase()

    def recommend(self) -> frozenset[int]:
        """The last active arm (or, if stopped early, the active arm with the best estimate)."""
        if self.active.size == 1 or self.estimates is None:
            return frozenset({int(self.active[0])})
        best = self.active[np.argmax(self.estimates[self.active])]
        return frozenset({int(best)})

    # ------------------------------------------------------------------ the phases

    def _beta(self) -> float:
        """β_m, the GLR threshold of phase m (a union bound over phases and arms)."""
        return float(fixed_design_threshold(self.phase, self.delta, self.n_arms))

    def _design(self) -> tuple[np.ndarray, float]:
        """λ_m and ρ_m: the XY design over all arms for the active differences, and its value."""
        key = (self.z.tobytes(), self.active.tobytes())
        if key not in _DESIGNS:
            targets = pairwise_differences(self.z[self.active])
            result = transductive_design(self.z, targets)
            _DESIGNS[key] = (result.weights / result.weights.sum(), result.value)
        return _DESIGNS[key]

    def _start_phase(self) -> None:
        """Steps 1–3: design on the active differences, phase length, rounding."""
        self.phase += 1
        weights, rho = self._design()
        support = int(np.count_nonzero(weights > 1e-12))
        epsilon = 2.0 ** (-self.phase)
        n = math.ceil(2.0 * self.sigma**2 * self._beta() * rho / epsilon**2)
        self.remaining = round_design(weights, max(n, support))
        self.left = int(self.remaining.sum())
        self.cursor = 0
        self.phase_counts = np.zeros(self.n_arms, dtype=np.int64)
        self.phase_sums = np.zeros(self.n_arms)

    def _end_phase(self) -> None:
        """Step 4: least squares on this phase's data and GLR elimination against x̂."""
        theta = projected_least_squares(self.z, self.phase_counts, self.phase_sums)
        self.estimates = self.z @ theta
        means = self.estimates[self.active]
        best = self.active[np.argmax(means)]
        gram = (self.z.T * self.phase_counts) @ self.z
        norms = matrix_norms_sq(self.z[best] - self.z[self.active], np.linalg.pinv(gram))
        gaps = means.max() - means
        if self.sigma == 0.0:  # noiseless: every strictly worse estimate is exact
            dropped = gaps > 0.0
        else:
            dropped = (gaps > 0.0) & (gaps**2 >= 2.0 * self.sigma**2 * self._beta() * norms)
        self.active = self.active[~dropped]
