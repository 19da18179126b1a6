"""What the agents of Soare, Lazaric & Munos (NIPS 2014) share: set-up, thresholds, memos.

Soare, Lazaric & Munos, "Best-Arm Identification in Linear Bandits" (NIPS 2014), give two static
allocations with an empirical stopping rule (:mod:`agents.linear_bai.soare_static`: G- and
XY-allocation, Sec. 4, and the XY-Oracle of Eq. 5) and two adaptive ones
(:mod:`agents.linear_bai.soare_xy_adaptive`: XY-Adaptive, Sec. 5, and the fully adaptive XY
baseline of Sec. 6). Conventions common to all five:

* Every agent starts with one pull of each arm of a spanning set, counted in the budget: the
  canonical basis when the arms contain it (the paper's choice, Sec. 6 and the counts of App. E),
  else ``rank`` independent arms by pivoted Gram–Schmidt
  (:func:`agents.linear_bai.greedy_allocation.initial_arms`).
* Every confidence rule reads ``Δ̂ ≥ β(n)·‖y‖_{A⁻¹}`` with n the total number of samples so far
  and β from :class:`bandit_envs.theory.thresholds.SoareThreshold`: ``"paper"`` (Prop. 1 as
  printed), ``"paper_fixed"`` (Prop. 1 with c' = π²/6, so that the union bound over n sums to
  δ), ``"gaussian"`` (the default: δ-correct for the Gaussian noise of the environments) or the
  heuristic ``"constant(b)"`` / a number b.
* Greedy steps use Sherman–Morrison scores (App. C, Eq. 22) and a lexicographic tie-break that
  the paper does not specify (:func:`agents.linear_bai.greedy_allocation.select_greedy`).
* Work happens in the coordinates of an orthonormal basis of the span of the arms, so
  rank-deficient features are fine (``d`` is that rank).

The design solves and XY-Adaptive phase plans are deterministic functions of the instance (and,
for a phase, of the active set and U_{j−1}), so they are memoised per process
(:data:`DESIGN_MEMO`, :data:`PHASE_MEMO`) and shared by the episodes of a sweep.
"""

from __future__ import annotations

import numpy as np

from agents.base import BaseAgent, Heuristic
from agents.common.design_cache import DesignMemo
from agents.common.params import Choice, Real, Satisfies, is_number
from agents.linear_bai.greedy_allocation import GramState, initial_arms
from bandit_envs.core.problem import ProblemSpec
from bandit_envs.errors import InvalidParameterError
from bandit_envs.theory.linalg import projected_least_squares, reduce_features
from bandit_envs.theory.thresholds import SOARE_PRESETS, SoareThreshold, parse_soare_threshold

__all__ = [
    "DESIGN_MEMO",
    "PHASE_MEMO",
    "THRESHOLD",
    "THRESHOLD_HEURISTICS",
    "SoareAgent",
    "memo_key",
]

#: design solves (G, XY, oracle and XY-Adaptive phase designs), shared by a process's episodes.
DESIGN_MEMO = DesignMemo(maxsize=32)
#: XY-Adaptive phase plans (a phase depends on the past only through the active set and U_{j−1}).
PHASE_MEMO = DesignMemo(maxsize=64)


def memo_key(*arrays: np.ndarray) -> tuple:
    """An exact memo key of some arrays: their shapes and bytes."""
    return tuple((a.shape, a.tobytes()) for a in arrays)


def _is_constant_preset(value: object) -> bool:
    """Whether ``value`` is a ``"constant(b)"`` preset of :class:`SoareThreshold` with b > 0."""
    return isinstance(value, str) and parse_soare_threshold(value) is not None


#: the constraint of every ``threshold`` parameter: a preset of :class:`SoareThreshold`.
THRESHOLD = (
    Choice(*SOARE_PRESETS) | Satisfies(_is_constant_preset, "'constant(b)' with b > 0") | Real(gt=0)
)

#: the ``threshold`` values whose stopping rule is not δ-correct (for the agents' cards).
THRESHOLD_HEURISTICS = (
    Heuristic(
        "threshold",
        lambda v: is_number(v) or (isinstance(v, str) and v.startswith("constant")),
        "constant threshold beta = b",
    ),
    Heuristic(
        "threshold",
        lambda v: v == "paper",
        "Soare et al.'s Prop. 1 as printed: its union bound sums to 2.7 delta",
    ),
)


class SoareAgent(BaseAgent):
    """Common set-up: reduced features, σ, the initial spanning arms and the least squares."""

    #: the threshold preset (a parameter of every subclass).
    threshold: str | float

    def _setup(self, spec: ProblemSpec) -> None:
        k = spec.n_arms
        features = np.eye(k) if spec.features is None else np.asarray(spec.features, float)
        self._features = features
        self._z, self._basis = reduce_features(features)
        self._d = int(self._z.shape[1])
        if self._d == 0:
            raise InvalidParameterError(
                f"{self.name}: the features are all zero; no allocation gives information."
            )
        self._init = initial_arms(features, self._z)
        noise = 1.0 if spec.noise_std is None else spec.noise_std
        self._sigma = float(np.max(noise))
        self._answer: int | None = None
        self._gram = GramState(self._z)

    def _beta(self) -> SoareThreshold:
        return SoareThreshold(self.threshold, self.n_arms, self._require_delta(), self._sigma)

    def _on_observe(self, arm: int, outcome: np.ndarray) -> None:
        self._gram.add(arm, float(outcome[0]))

    def _on_observe_batch(self, counts: np.ndarray, sums: np.ndarray) -> None:
        self._gram.add_batch(np.asarray(counts, dtype=np.int64), np.asarray(sums)[:, 0])

    def _ols_best(self, arms: np.ndarray | None = None) -> int:
        """Argmax of x̂ᵀθ̂ (OLS on all data; lowest index on ties), optionally among ``arms``."""
        if self._gram.inv is not None:
            theta = self._gram.theta()
        elif self.t == 0:
            theta = np.zeros(self._d)
        else:
            theta = projected_least_squares(self._z, self.counts, self.sums[:, 0])
        idx = np.arange(self.n_arms) if arms is None else arms
        return int(idx[int(np.argmax(self._z[idx] @ theta))])

    @property
    def initial_arms(self) -> np.ndarray:
        """The arms pulled once each at the start (see the module docstring)."""
        return self._init.copy()
