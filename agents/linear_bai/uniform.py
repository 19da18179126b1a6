"""``Uniform``: round-robin sampling, the baseline every identification algorithm must beat."""

from __future__ import annotations

import numpy as np

from agents.base import AgentCard, BaseAgent, Heuristic
from agents.common.params import Choice, Integer, Real, is_number
from bandit_envs.core.problem import Answer, ProblemSpec
from bandit_envs.core.protocols import AgentCapabilities
from bandit_envs.errors import InvalidParameterError
from bandit_envs.theory.linalg import projected_least_squares, reduce_features
from bandit_envs.theory.thresholds import fixed_design_threshold, glr_best_arm


class Uniform(BaseAgent):
    """Pull the arms in turn (0, 1, …, K−1, 0, …); answer with the least-squares best arm.

    * **Sampling**: round robin, which is a non-adaptive design.
    * **Fixed budget**: spend the budget round robin; recommend argmax_k x_kᵀθ̂ (least squares
      projected on the span of the features).
    * **Fixed confidence**: every ``check_every`` complete rounds, test the GLR statistic
      Z = min_{x≠x̂} Δ̂(x̂, x)² / (2σ²‖x̂ − x‖²_{A⁻¹}) (Garivier & Kaufmann 2016) against
      β(j, δ) = log((K − 1)π²j²/(12δ)), j the number of the test
      (:func:`bandit_envs.theory.thresholds.fixed_design_threshold`, the Gaussian analogue of
      Soare, Lazaric & Munos 2014, Prop. 1, with a union bound over the tests; valid because
      round robin does not depend on the observations). Stop when Z ≥ β.
    * **Batch path**: one batch per ``check_every`` rounds in fixed confidence (the tests happen
      at the same times as on the one-pull path), the whole budget at once in fixed budget.

    Args:
        check_every: rounds of K pulls between two stopping tests (≥ 1). Larger values cost
            fewer tests (and a smaller β) but overshoot the stopping time by up to that many
            rounds.
        threshold: ``"fixed_design"`` (the δ-correct β above) or a number b > 0 for the
            constant threshold β ≡ b — a heuristic for calibration studies, *not* δ-correct
            (e.g. to compare with budgets reported under a constant threshold).

    """

    card = AgentCard(
        summary="Round-robin sampling. Fixed budget: the least-squares best arm; fixed "
        "confidence: GLR stopping with a threshold valid for fixed designs",
        paper="Baseline; GLR stopping rule of Garivier & Kaufmann, Optimal Best Arm "
        "Identification with Fixed Confidence, COLT 2016",
        heuristics=(
            Heuristic(
                "threshold", is_number, "constant GLR threshold beta = b (calibration studies)"
            ),
        ),
    )

    capabilities = AgentCapabilities(
        tasks=frozenset({"best_arm"}),
        structures=frozenset({"linear"}),
        batch=True,
    )

    parameters = {
        "check_every": Integer(min=1),
        "threshold": Choice("fixed_design") | Real(gt=0),
    }

    def __init__(self, check_every: int = 1, threshold: str | float = "fixed_design") -> None:
        self.check_every = check_every
        self.threshold = threshold

    def _on_reset(self, spec: ProblemSpec) -> None:
        k = spec.n_arms
        if spec.fixed_budget and self._require_budget() < k:
            raise InvalidParameterError(
                f"{self.name}: the budget ({spec.budget}) is smaller than the number of arms "
                f"({k}); round robin needs at least one pull per arm."
            )
        features = np.eye(k) if spec.features is None else spec.features
        self._z, _ = reduce_features(features)
        gram = self._z.T @ self._z
        self._gram_inv = np.linalg.inv(gram)
        noise = 1.0 if spec.noise_std is None else spec.noise_std
        self._sigma = float(np.max(noise))
        self._tests = 0
        self._tested_at = -1
        self._stopped = False

    def _round_due(self) -> bool:
        k, t = self.n_arms, self.t
        return t > 0 and t % k == 0 and (t // k) % self.check_every == 0

    def _stop_test(self) -> bool:
        """Run the GLR test at the end of a round (all arms pulled t/K times)."""
        rounds = self.t // self.n_arms
        self._tests += 1
        means = self.sums[:, 0] / rounds
        theta = self._gram_inv @ (self._z.T @ means)
        _, z = glr_best_arm(self._z, theta, self._gram_inv / rounds, self._sigma)
        if self.threshold == "fixed_design":
            beta = fixed_design_threshold(self._tests, self._require_delta(), self.n_arms)
        else:
            beta = float(self.threshold)
        return bool(z >= beta)

    def select(self) -> int | None:
        """The next arm in the round, or None once the stopping test passes."""
        self._require_reset("select")
        if self.spec.fixed_confidence and not self._stopped and self._round_due():
            if self._tested_at != self.t:
                self._tested_at = self.t
                self._stopped = self._stop_test()
        if self._stopped:
            return None
        return self.t % self.n_arms

    def select_batch(self) -> np.ndarray | None:
        """``check_every`` rounds (fixed confidence) or the remaining budget (fixed budget)."""
        self._require_reset("select_batch")
        k = self.n_arms
        if self.spec.fixed_budget:
            remaining = self._require_budget() - self.t
            offset = (np.arange(k) - self.t) % k
            return (remaining // k + (offset < remaining % k)).astype(np.int64)
        if self.select() is None:
            return None
        # On this path t is a multiple of K here; a batch ends at the next test.
        rounds_to_test = self.check_every - (self.t // k) % self.check_every
        return np.full(k, rounds_to_test, dtype=np.int64)

    def recommend(self) -> Answer:
        """argmax_k x_kᵀθ̂, θ̂ the least-squares estimate on the span of the pulled arms."""
        self._require_reset("recommend")
        if self.t == 0:
            return frozenset({0})
        theta = projected_least_squares(self._z, self.counts, self.sums[:, 0])
        return frozenset({int(np.argmax(self._z @ theta))})

    @property
    def stopping_tests(self) -> int:
        """The number of GLR tests made in this episode."""
        return getattr(self, "_tests", 0)
