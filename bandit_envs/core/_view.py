"""What a rendering shows of an episode: :class:`EpisodeView`, a snapshot the environment makes."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from bandit_envs.core.models import RewardModel
    from bandit_envs.core.problem import ProblemSpec
    from bandit_envs.core.tasks import Task


@dataclasses.dataclass(frozen=True)
class EpisodeView:
    """The state of an episode as the renderers see it (made by ``PureExplorationEnv._view``).

    The arrays are the environment's own (not copies): a view is drawn at once, then dropped.

    Attributes:
        name: the instance's name (usually the environment id).
        task: the task (grading, empirical answers).
        model: the reward model (the true means, θ).
        problem: the public :class:`~bandit_envs.ProblemSpec`.
        setting: ``"fixed_confidence"`` or ``"fixed_budget"``.
        delta: δ in fixed confidence, else ``None``.
        budget: the budget in fixed budget, else ``None``.
        n_arms: K.
        samples: the pulls made in the episode.
        pulls: pull counts per arm, (K,).
        last: the outcome of the last pull, (m,).
        sums: per-arm sums of the outcomes, (K, m), kept by the picture modes only; else ``None``.
        done: whether the episode has ended.
        stop_reason: ``"stopped"``, ``"budget"`` or ``"max_samples"`` once ended, else ``None``.
        true_answer: the correct answer.
        answer: the agent's answer once the episode has ended (``None`` before, or if
            truncated, or when the mode keeps no answer).

    """

    name: str
    task: Task
    model: RewardModel
    problem: ProblemSpec
    setting: str
    delta: float | None
    budget: int | None
    n_arms: int
    samples: int
    pulls: np.ndarray
    last: np.ndarray
    sums: np.ndarray | None
    done: bool
    stop_reason: str | None
    true_answer: frozenset[int]
    answer: frozenset[int] | None


def empirical_means(view: EpisodeView) -> np.ndarray | None:
    """The environment's own estimates of the means, (K, m); ``None`` before any pull.

    Least squares on the features for linear models (``structure == "linear"``:
    ``θ̂ = (Xᵀ N X)⁺ Xᵀ S`` from the pull counts ``N`` and per-arm sums ``S``), per-arm sample
    means otherwise (``NaN`` for arms never pulled; the public means of known arms). Only the
    picture modes keep the sums; other modes give ``None``.

    Args:
        view: the episode.
    """
    pulls = view.pulls
    if view.sums is None or pulls.sum() == 0:
        return None
    sums = view.sums
    spec = view.problem
    features = spec.features
    if spec.structure == "linear" and isinstance(features, np.ndarray):
        x = features
        gram = x.T @ (pulls[:, None] * x)
        theta = np.linalg.pinv(gram) @ (x.T @ sums)
        return x @ theta
    est = np.full(sums.shape, np.nan)
    seen = pulls > 0
    est[seen] = sums[seen] / pulls[seen, None]
    extras = spec.extras or {}
    known = extras.get("known_arms") or ()
    if known:
        est[list(known)] = np.asarray(extras["known_means"], dtype=float)
    return est
