"""Tasks: which answer is correct for a set of true means, and how answers are graded.

A task is a small object with no randomness. It computes the true answer from the means (refusing
ill-posed instances at construction), the empirical answer an agent would give from estimated
means, grades answers, and computes the instance's complexity measures.
"""

from __future__ import annotations

import abc
from typing import TYPE_CHECKING, Any

import numpy as np

from bandit_envs.errors import InvalidInstanceError
from bandit_envs.problem import Answer, Grade, grade

if TYPE_CHECKING:
    from bandit_envs.models import RewardModel


class Task(abc.ABC):
    """Abstract task: maps true means (K×m) to the correct answer, and grades answers."""

    #: the name agents see in ``ProblemSpec.task``.
    name: str = ""

    def n_items(self, n_arms: int) -> int:
        """The size of the answer universe (default: the arms)."""
        return n_arms

    def validate_model(self, model: RewardModel) -> None:  # noqa: B027 - optional hook
        """Refuse a reward model this task cannot be posed on (default: accept)."""

    @abc.abstractmethod
    def true_answer(self, means: np.ndarray) -> Answer:
        """The correct answer for the true means; raises InvalidInstanceError if ill-posed."""

    @abc.abstractmethod
    def empirical_answer(self, means: np.ndarray) -> Answer:
        """The answer a plug-in rule gives for estimated means (never raises on ties)."""

    def grade(self, answer: Answer, truth: Answer, means: np.ndarray) -> Grade:
        """Grade ``answer``; exact set equality by default."""
        return grade(answer, truth)

    def public_fields(self) -> dict[str, Any]:
        """Task fields made public in the ProblemSpec (e.g. ``epsilon``)."""
        return {}

    def complexity(self, model: RewardModel) -> dict[str, Any]:
        """Complexity measures of the instance (lower bound, gaps, ...); may be empty."""
        return {}


class BestArm(Task):
    """Best-arm identification: the answer is ``{argmax_k μ_k}`` (scalar outcomes).

    Args:
        tie_tolerance: two means closer than ``tie_tolerance · max(1, max|μ|)`` count as tied;
            an instance whose best arm is tied is refused (its complexity is infinite).

    """

    name = "best_arm"

    def __init__(self, tie_tolerance: float = 1e-12) -> None:
        self.tie_tolerance = float(tie_tolerance)

    def validate_model(self, model: RewardModel) -> None:
        """Best arm needs scalar outcomes (m = 1)."""
        if model.outcome_dim != 1:
            raise InvalidInstanceError(
                f"BestArm: the best-arm task needs scalar outcomes (outcome_dim 1); this model "
                f"has outcome_dim {model.outcome_dim}. Use the Pareto-set task for vector outcomes."
            )

    def true_answer(self, means: np.ndarray) -> Answer:
        """``{argmax μ}``; refuses instances whose best arm is not unique."""
        mu = np.asarray(means, dtype=float).reshape(-1)
        best = int(np.argmax(mu))
        tol = self.tie_tolerance * max(1.0, float(np.max(np.abs(mu))))
        tied = np.flatnonzero(mu >= mu[best] - tol)
        if tied.size > 1:
            arms = ", ".join(str(int(i)) for i in tied)
            raise InvalidInstanceError(
                f"BestArm: the best arm is not unique: arms {arms} all have mean "
                f"{float(mu[best])!r} (within {tol:g}); best-arm identification is ill-posed here."
            )
        return frozenset({best})

    def empirical_answer(self, means: np.ndarray) -> Answer:
        """``{argmax μ̂}``, lowest index on ties."""
        return frozenset({int(np.argmax(np.asarray(means).reshape(-1)))})

    def complexity(self, model: RewardModel) -> dict[str, Any]:
        """Gaps; for linear Gaussian models also T*(θ) and the oracle weights (spec 001 §1.5)."""
        from bandit_envs.complexity import linear_best_arm_complexity
        from bandit_envs.models import LinearGaussian

        mu = model.means.reshape(-1)
        out: dict[str, Any] = {"gaps": float(mu.max()) - mu, "best_arm": int(np.argmax(mu))}
        if isinstance(model, LinearGaussian):
            out.update(linear_best_arm_complexity(model.features, model.theta, model.sigma))
        return out
