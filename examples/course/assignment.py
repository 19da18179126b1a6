"""Assignment: phased elimination with GLR tests for linear best-arm identification.

Fill in the three methods marked TODO (``select``, ``observe``, ``recommend``) of
:class:`PhasedElimination` below, then check and grade your agent::

    python examples/course/grader.py examples/course/assignment.py

The problem (fixed confidence)
------------------------------
K arms with known feature vectors x_1, …, x_K ∈ R^h (``spec.features``). Pulling arm k returns
x_kᵀθ + η with an unknown θ and Gaussian noise η ~ N(0, σ²) (σ = ``spec.noise_std``). Find the
best arm x* = argmax_k x_kᵀθ with probability at least 1 − δ (δ = ``spec.delta``), using as few
pulls as you can. You decide when to stop: ``select`` returns ``None``.

The algorithm you implement
---------------------------
Phase m = 1, 2, … while more than one arm is active (at the start every arm is active):

1. **Design.** Choose a design λ_m (a probability vector over *all* K arms) that makes the
   differences of the *active* arms easy to estimate, and compute its value

       ρ_m = max over active x, x' of ‖x − x'‖²_{A(λ_m)⁻¹},   A(λ) = Σ_k λ_k x_k x_kᵀ.

   Recommended: the XY design, ``transductive_design(z, pairwise_differences(z[active]))``;
   its ``.weights`` is λ_m and its ``.value`` is ρ_m. (A G-optimal design,
   ``g_optimal_design(z)``, also works, and is simpler, but needs more samples; then compute
   ρ_m yourself with ``matrix_norms_sq``.)
2. **Length.** With ε_m = 2^{-m} and β_m = ``fixed_design_threshold(m, delta, K)``
   (= log((K − 1)π²m²/(12δ))), the phase has

       N_m = ⌈2σ²β_m ρ_m / ε_m²⌉   pulls (but at least one per arm in the support of λ_m).

3. **Sampling.** Round λ_m to N_m whole pulls with ``round_design(weights, N_m)`` (an int
   array of pulls per arm) and pull them, one per call of ``select``, in any order.
4. **Elimination.** When the phase's pulls are done, estimate θ by least squares **on this
   phase's data only**: ``theta = projected_least_squares(z, phase_counts, phase_sums)``.
   Let x̂ be the active arm with the largest estimate zᵀθ̂ and A_m = Σ_k n_k z_k z_kᵀ the
   phase's Gram matrix (n_k = pulls of arm k in this phase). Drop every active arm x with

       Δ̂ = (x̂ − x)ᵀθ̂ > 0   and   Δ̂² ≥ 2σ² β_m ‖x̂ − x‖²_{A_m⁺}

   (A_m⁺ = ``np.linalg.pinv(A_m)``; ``matrix_norms_sq(vectors, A_m_pinv)`` gives the squared
   norms of many vectors at once). With σ = 0 (a noiseless problem) drop every x with Δ̂ > 0.

Stop when one arm is left, and recommend it.

Written part (hand in with the code): prove that this agent is δ-correct. Hint: given the past,
the phase's design is fixed, so (x − x*)ᵀθ̂_m is exactly Gaussian; bound the probability that x*
is dropped in phase m and sum over m.

Helpers (use them: do not re-implement the numerics)
---------------------------------------------------
* ``bandit_envs.theory.linalg``: ``reduce_features(features)`` → (z, U), coordinates of the arms in
  a basis of their span (use z everywhere: features need not span R^h);
  ``projected_least_squares(z, counts, sums)``; ``matrix_norms_sq(vectors, M)``.
* ``bandit_envs.theory.design``: ``transductive_design``, ``pairwise_differences``,
  ``g_optimal_design``, ``round_design``.
* ``bandit_envs.theory.thresholds``: ``fixed_design_threshold(m, delta, K)``; ``glr_best_arm`` if
  you want the GLR statistic of all arms at once.

Rules of the protocol (the grader checks every one with ``agents.check_agent``)
------------------------------------------------------------------------------
* ``select`` returns an arm index in 0..K−1 (a Python ``int``) or ``None`` to stop.
* ``recommend`` returns a ``frozenset`` of arm indices: here one arm, e.g. ``frozenset({2})``.
* All randomness (if you need any) comes from the ``rng`` passed to ``reset``; never call
  ``np.random.*`` or the ``random`` module.
* ``reset`` clears everything from the previous episode: the same agent object is reused.
* The constructor takes no required argument; the agent must be picklable (no lambdas or open
  files in attributes).
* Use only ``spec`` and the outcomes you observe.

Speed: a design solve takes ~0.1 s. The grader runs many episodes on the same instance, so keep
solved designs in a module-level dict keyed by ``(z.tobytes(), active.tobytes())``; that is
allowed (the design depends only on the features and the active set). Keep the work per pull
small (no matrix inversion in ``select``/``observe``, only at the end of a phase).
"""

from __future__ import annotations

import numpy as np

from bandit_envs.core.problem import ProblemSpec
from bandit_envs.core.protocols import AgentCapabilities
from bandit_envs.theory.design import (  # noqa: F401 - the helpers you will need
    g_optimal_design,
    pairwise_differences,
    round_design,
    transductive_design,
)
from bandit_envs.theory.linalg import (  # noqa: F401
    matrix_norms_sq,
    projected_least_squares,
    reduce_features,
)
from bandit_envs.theory.thresholds import fixed_design_threshold  # noqa: F401


class PhasedElimination:
    """Phased elimination with GLR tests (fixed confidence, linear best arm)."""

    #: what the agent solves: the grader only probes it on fixed-confidence linear best arm.
    capabilities = AgentCapabilities(
        tasks=frozenset({"best_arm"}),
        settings=frozenset({"fixed_confidence"}),
        structures=frozenset({"linear"}),
    )

    def reset(self, spec: ProblemSpec, rng: np.random.Generator) -> None:
        """Start an episode. Provided; add your own per-episode state at the end.

        Everything an episode uses must be (re)initialised here: the same object runs many
        episodes.

        Args:
            spec: the public description of the problem (``n_arms``, ``features``,
                ``noise_std``, ``delta``, ...).
            rng: the only source of randomness you may use.
        """
        self.rng = rng
        self.n_arms = spec.n_arms
        features = np.eye(spec.n_arms) if spec.features is None else spec.features
        self.z, _ = reduce_features(features)  # (K, r): arms in a basis of their span
        self.sigma = 1.0 if spec.noise_std is None else float(np.max(spec.noise_std))
        self.delta = float(spec.delta)
        self.active = np.arange(spec.n_arms)  # arms still in the race
        self.phase = 0  # the current phase m (0 before the first)
        self.remaining = np.zeros(spec.n_arms, dtype=np.int64)  # pulls left per arm, this phase
        self.phase_counts = np.zeros(spec.n_arms, dtype=np.int64)  # pulls per arm, this phase
        self.phase_sums = np.zeros(spec.n_arms)  # sums of outcomes per arm, this phase
        # TODO (optional): add any other state you need here.

    def select(self) -> int | None:
        """The next arm to pull, or ``None`` to stop.

        TODO:
            * If one arm is active, return ``None``.
            * If the current phase has no pull left (or no phase started yet), start phase
              m + 1: design, length N_m, rounding (steps 1–3 of the module docstring).
            * Return one arm (a Python ``int``) that still has pulls left in this phase.

        Returns:
            An arm index in ``0 .. n_arms - 1``, or ``None`` once you stop.
        """
        raise NotImplementedError("TODO: implement select() (steps 1-3: start a phase, pull it)")

    def observe(self, arm: int, outcome: np.ndarray) -> None:
        """Record the outcome of one pull of ``arm``.

        TODO:
            * Add the pull to this phase's data (``phase_counts``, ``phase_sums``; the outcome
              is an array of shape (1,): use ``outcome[0]``) and count it off ``remaining``.
            * When the phase has no pull left, run step 4: phase-local least squares and the
              GLR elimination.

        Args:
            arm: the arm that was pulled (the one ``select`` returned).
            outcome: its outcome, a float64 array of shape (1,).
        """
        raise NotImplementedError("TODO: implement observe() (record the pull; step 4 at the end)")

    def recommend(self) -> frozenset[int]:
        """The answer: a one-element ``frozenset`` holding the best arm.

        TODO:
            * The last active arm once one is left.
            * If the episode is cut before that (a safety cap on the number of samples), the
              active arm with the best estimate of the last finished phase (or any active arm
              if no phase finished).

        Returns:
            ``frozenset({arm})``.
        """
        raise NotImplementedError("TODO: implement recommend() (return frozenset({best arm}))")
