"""Best-arm identification in linear bandits: the agents of Soare, Lazaric & Munos (NIPS 2014).

Implemented from spec 001 (``specs/001_linbai.md``; paper lines ``Lnnn`` of
``papers/001_9153087f56067215.txt``):

* :class:`GAllocation` — static G-optimal allocation (Sec. 4, Eq. 12, Fig. 2; spec §2.1).
* :class:`XYAllocation` — static transductive XY-allocation (Sec. 4, Eq. 14, Fig. 2; spec §2.2).
* :class:`XYAdaptive` — phased XY-allocation with elimination (Sec. 5, Fig. 3, Eq. 17–18;
  spec §2.3, "recommended executable version").
* :class:`XYOracle` — the oracle allocation of Eq. 5 (knows θ*; spec §2.4). Oracle baseline.
* :class:`FullyAdaptiveXY` — XY with elimination every round and the adaptive confidence bound
  of Prop. 2 (Sec. 6; spec §2.5).

Shared conventions (spec 001 §2.0, §5.1):

* Every agent starts with one pull of each arm of a spanning set (the canonical basis when the
  arms contain it; else ``rank`` independent arms by pivoted Gram–Schmidt), counted in the budget.
* Every confidence rule reads ``Δ̂ ≥ β(n)·‖y‖_{A⁻¹}``, β from
  :class:`bandit_envs.theory.thresholds.SoareThreshold` (presets ``"paper"``, ``"paper_fixed"``,
  ``"gaussian"`` — the default, δ-correct for the Gaussian noise of the environments — and the
  heuristic ``"constant(b)"``), n = the total number of samples so far.
* Greedy steps use Sherman–Morrison scores and the lexicographic tie-breaking of spec §2.0
  (relative tolerance 1e-9, then lowest index): see :mod:`agents.linear_bai.greedy_allocation`.
* Work happens in the coordinates of an orthonormal basis of the span of the arms, so
  rank-deficient features are fine (``d`` below is that rank).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from agents.base import AgentCard, BaseAgent, Heuristic
from agents.common.params import Boolean, Choice, Integer, Is, Real, Satisfies, is_number
from agents.linear_bai.greedy_allocation import (
    GramState,
    GreedyPhase,
    Memo,
    SequencePlan,
    TrackingPlan,
    cached_greedy_sequence,
    empirical_stop,
    initial_arms,
    next_check,
    non_dominated,
    pair_indices,
    select_greedy,
)
from bandit_envs.core.problem import Answer, ProblemSpec
from bandit_envs.core.protocols import AgentCapabilities
from bandit_envs.errors import AgentProtocolError, InvalidParameterError
from bandit_envs.theory.complexity import linear_best_arm_complexity
from bandit_envs.theory.design import g_optimal_design, transductive_design
from bandit_envs.theory.linalg import projected_least_squares, reduce_features, ridge_unit
from bandit_envs.theory.thresholds import SoareThreshold, parse_soare_threshold

__all__ = ["FullyAdaptiveXY", "GAllocation", "XYAdaptive", "XYAllocation", "XYOracle"]

_DESIGNS = Memo(32)  # deterministic design solves, shared by the episodes of one process
_PHASES = Memo(64)  # deterministic XY-Adaptive phase plans (they depend on the past only
#                     through the active set and U_{j-1})
_ORACLE_DESIGN_TOL = 1e-6


def _is_constant_preset(value: object) -> bool:
    """Whether ``value`` is a ``"constant(b)"`` preset of :class:`SoareThreshold` with b > 0."""
    return isinstance(value, str) and parse_soare_threshold(value) is not None


#: the constraint of every ``threshold`` parameter: a preset of :class:`SoareThreshold`.
THRESHOLD = (
    Choice("paper", "paper_fixed", "gaussian")
    | Satisfies(_is_constant_preset, "'constant(b)' with b > 0")
    | Real(gt=0)
)


def _key(*arrays: np.ndarray) -> tuple:
    return tuple((a.shape, a.tobytes()) for a in arrays)


class _SoareAgent(BaseAgent):
    """Common set-up: reduced features, σ, the initial spanning arms (spec 001 §2.0)."""

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
        return SoareThreshold(self.threshold, self.n_arms, self.spec.delta, self._sigma)

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
        """The arms pulled once each at the start (spec 001 §2.0 "Initialization")."""
        return self._init.copy()


# =========================================================================== static allocations
class _StaticAllocation(_SoareAgent):
    """A reward-independent allocation with the empirical stopping rule (Fig. 2, Eq. 11).

    Subclasses provide the greedy targets/weights and the continuous design. The allocation is a
    deterministic function of the instance (spec 001 §6 item 8): the greedy sequence is computed
    once per process and instance and shared by episodes (:func:`cached_greedy_sequence`).
    The parameters (documented by each subclass) are those of :class:`GAllocation`.
    """

    capabilities = AgentCapabilities(
        tasks=frozenset({"best_arm"}),
        settings=frozenset({"fixed_confidence", "fixed_budget"}),
        structures=frozenset({"linear"}),
        batch=True,
    )

    parameters = {
        "allocation": Choice("greedy", "design"),
        "threshold": THRESHOLD,
        "check_growth": Real(ge=0),
    }

    def __init__(
        self,
        allocation: str = "greedy",
        threshold: str | float = "gaussian",
        check_growth: float = 0.0,
    ) -> None:
        self.allocation = allocation
        self.threshold = threshold
        self.check_growth = check_growth

    # -- to override
    def _greedy_targets(self) -> tuple[np.ndarray, np.ndarray | None]:
        raise NotImplementedError

    def _design(self) -> np.ndarray:
        raise NotImplementedError

    def _ready(self) -> None:
        """Hook: raise if the agent cannot build its allocation yet."""

    # -- set-up
    def _on_reset(self, spec: ProblemSpec) -> None:
        self._setup(spec)
        self._plan_obj: Any = None
        self._next = len(self._init)  # first stopping check: right after the initialisation
        self._threshold = self._beta() if spec.fixed_confidence else None
        self._checks = 0

    def _plan(self) -> Any:
        if self._plan_obj is None:
            self._ready()
            if self.allocation == "greedy":
                targets, weights = self._greedy_targets()
                seq = cached_greedy_sequence(self._z, targets, weights, self._init)
                self._plan_obj = SequencePlan(seq)
            else:
                self._plan_obj = TrackingPlan(self._design(), self._init)
        return self._plan_obj

    # -- stopping
    def _check(self) -> None:
        """The stopping check at the current sample count (Eq. 11 every pull by default)."""
        assert self._threshold is not None and self._gram.inv is not None
        self._checks += 1
        theta = self._gram.theta()
        best = empirical_stop(self._z, theta, self._gram.inv, self._threshold(self.t))
        if best is not None:
            self._answer = best
        self._next = next_check(self.t, float(self.check_growth))

    def _cap(self) -> int:
        cap = self.spec.max_samples
        return int(cap) if cap is not None else 1 << 62

    # -- protocol
    def select(self) -> int | None:
        """The next arm of the allocation, or None once the stopping rule holds."""
        self._require_reset("select")
        if self._answer is not None:
            return None
        if self.spec.fixed_confidence and self.t >= self._next:
            self._check()
            if self._answer is not None:
                return None
        return self._plan().next_arm(self.t, self.counts)

    def select_batch(self) -> np.ndarray | None:
        """All pulls up to the next stopping check (or to the end of the budget)."""
        self._require_reset("select_batch")
        if self._answer is not None:
            return None
        if self.spec.fixed_budget:
            target = int(self.spec.budget)
        else:
            if self.t >= self._next:
                self._check()
                if self._answer is not None:
                    return None
            target = min(self._next, self._cap())
            if target == self.t + 1:  # checks after every pull: a batch is one pull
                out = np.zeros(self.n_arms, dtype=np.int64)
                out[self._plan().next_arm(self.t, self.counts)] = 1
                return out
        return (self._plan().counts_at(target) - self.counts).astype(np.int64)

    def recommend(self) -> Answer:
        """The stopped-on arm, else argmax_x xᵀθ̂ (OLS on all data; spec 001 §2.0)."""
        self._require_reset("recommend")
        if self._answer is not None:
            return frozenset({self._answer})
        return frozenset({self._ols_best()})

    @property
    def stopping_checks(self) -> int:
        """The number of stopping checks made in this episode."""
        return getattr(self, "_checks", 0)


class GAllocation(_StaticAllocation):
    """G-allocation: static G-optimal design + empirical stopping (Soare et al. 2014, Sec. 4).

    Allocation (Eq. 12, Fig. 2): ``argmin_{x_n} max_{x∈𝒳} ‖x‖_{A⁻¹}``, computed greedily
    (App. C Eq. 22: next pull ``argmin_x max_{x'} x'ᵀ(A + xxᵀ)⁻¹x'``) or by tracking the
    G-optimal design (Kiefer–Wolfowitz, :func:`bandit_envs.theory.design.g_optimal_design`).
    Fixed confidence: stop at the first n where Eq. 11 holds,
    ``∃x ∀x' ≠ x: β(n)‖x − x'‖_{A⁻¹} ≤ (x − x')ᵀθ̂_n``, and return that x (Lemma 3; δ-correct
    because the allocation does not depend on the rewards). Fixed budget: spend the budget on
    the allocation and return argmax_x xᵀθ̂ (OLS). Guarantee (Thm 1): N ≤ 16c²d(1+β)log/Δ²_min.

    Args:
        allocation: ``"greedy"`` (default; the incremental rule of App. C, Eq. 22/26, with the
            tie-breaking of spec §2.0) or ``"design"`` (the continuous optimal design, tracked by
            Adams' rule after the initialisation: the efficient rounding of App. C / spec §2.6).
        threshold: β preset (:class:`bandit_envs.theory.thresholds.SoareThreshold`): ``"gaussian"``
            (default, δ-correct for Gaussian noise), ``"paper_fixed"`` (δ-correct, Prop. 1 with
            the corrected constant), ``"paper"`` (literal Prop. 1; its union bound sums to
            2.7δ), or ``"constant(b)"`` / a number b — a heuristic, **not δ-correct**.
        check_growth: spacing of the stopping checks. 0 (default) checks Eq. 11 after every
            pull, as the paper; g > 0 checks only at ``n_{k+1} = max(n_k + 1, ⌈(1+g) n_k⌉)``
            (still δ-correct: the threshold's union bound covers every n), which overshoots
            the stopping time by at most a factor 1 + g and lets the batch path draw all
            pulls between two checks at once (use e.g. 1e-3 for 10⁶-pull runs).

    """

    card = AgentCard(
        summary="static G-optimal allocation (greedy with lexicographic ties, or design + rounding), empirical stopping rule Eq. 11",
        paper="Soare, Lazaric & Munos, NIPS 2014, Sec. 4",
        heuristics=(
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
        ),
    )

    def _greedy_targets(self) -> tuple[np.ndarray, np.ndarray | None]:
        return self._z, None

    def _design(self) -> np.ndarray:
        z = self._z
        return _DESIGNS.get(("G",) + _key(z), lambda: g_optimal_design(z).weights)


class XYAllocation(_StaticAllocation):
    """XY-allocation: static transductive design over 𝒴 + empirical stopping (Sec. 4, Eq. 14).

    Allocation: ``argmin_{x_n} max_{y∈𝒴} ‖y‖_{A⁻¹}``, 𝒴 = all K(K−1)/2 differences ``x − x'``;
    greedily (Eq. 26) or by tracking :func:`bandit_envs.theory.design.xy_design`'s design. Stopping
    and fixed-budget answer as :class:`GAllocation` (Eq. 11). Guarantee (Thm 2):
    N ≤ 32c²d(1+β)log/Δ²_min; can be arbitrarily better than G (App. A).

    Args:
        allocation: ``"greedy"`` (default; the incremental rule of App. C, Eq. 22/26, with the
            tie-breaking of spec §2.0) or ``"design"`` (the continuous optimal design, tracked by
            Adams' rule after the initialisation: the efficient rounding of App. C / spec §2.6).
        threshold: β preset (:class:`bandit_envs.theory.thresholds.SoareThreshold`): ``"gaussian"``
            (default, δ-correct for Gaussian noise), ``"paper_fixed"`` (δ-correct, Prop. 1 with
            the corrected constant), ``"paper"`` (literal Prop. 1; its union bound sums to
            2.7δ), or ``"constant(b)"`` / a number b — a heuristic, **not δ-correct**.
        check_growth: spacing of the stopping checks. 0 (default) checks Eq. 11 after every
            pull, as the paper; g > 0 checks only at ``n_{k+1} = max(n_k + 1, ⌈(1+g) n_k⌉)``
            (still δ-correct: the threshold's union bound covers every n), which overshoots
            the stopping time by at most a factor 1 + g and lets the batch path draw all
            pulls between two checks at once (use e.g. 1e-3 for 10⁶-pull runs).

    """

    card = AgentCard(
        summary="static XY (transductive) allocation over all arm differences, Eq. 11 stopping",
        paper="Soare, Lazaric & Munos, NIPS 2014, Sec. 4",
        heuristics=(
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
        ),
    )

    def _on_reset(self, spec: ProblemSpec) -> None:
        super()._on_reset(spec)
        i, j = pair_indices(np.arange(self.n_arms))
        self._pairs = self._z[i] - self._z[j]

    def _greedy_targets(self) -> tuple[np.ndarray, np.ndarray | None]:
        return self._pairs, None

    def _design(self) -> np.ndarray:
        z, y = self._z, self._pairs
        return _DESIGNS.get(("XY",) + _key(z), lambda: transductive_design(z, y).weights)


# =========================================================================== oracle
class XYOracle(_StaticAllocation):
    """XY-Oracle: the oracle allocation of Eq. 5, which knows θ* (Sec. 6; spec 001 §2.4).

    **Oracle baseline**: told the truth through ``receive_truth`` (results are marked oracle).
    Allocation ``argmin_{x_n} max_{y∈𝒴*} ‖y‖_{A⁻¹}/Δ(y)``, 𝒴* = {x* − x}: by default the
    oracle design λ* (``oracle_weights`` of
    :func:`bandit_envs.theory.complexity.linear_best_arm_complexity`, H_LB = ρ*(λ*), Eq. 6) tracked
    by Adams' rule after the initialisation (spec §2.4, recommended: avoids the greedy tie
    pathology of spec §2.0); ``allocation="greedy"`` uses the weighted greedy step (targets 𝒴*,
    weights 1/Δ²).

    Stopping: ``stop="empirical"`` (default) — Eq. 11 as the static agents (δ-correct, the
    allocation does not depend on the rewards); ``stop="oracle"`` — Eq. 4, stop at the first n
    with ``β(n)‖y‖_{A_n⁻¹} ≤ Δ(y)`` for all y ∈ 𝒴*, a deterministic time (≈ β²H_LB, the N* of
    Eq. 7), returning Π(θ̂_n) (Lemma 1). Fixed budget: spend the budget, return argmax xᵀθ̂.

    Args:
        allocation: ``"design"`` (default) or ``"greedy"``.
        stop: ``"empirical"`` (Eq. 11) or ``"oracle"`` (Eq. 4).
        threshold: β preset, as :class:`GAllocation`.
        check_growth: spacing of the stopping checks, as :class:`GAllocation`.

    """

    card = AgentCard(
        summary="ORACLE baseline: tracks the optimal allocation computed from the true theta",
        paper="Soare, Lazaric & Munos, NIPS 2014, Eq. 5",
        heuristics=(
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
        ),
    )

    capabilities = AgentCapabilities(
        tasks=frozenset({"best_arm"}),
        settings=frozenset({"fixed_confidence", "fixed_budget"}),
        structures=frozenset({"linear"}),
        batch=True,
        oracle=True,
    )

    parameters = {
        "allocation": Choice("greedy", "design"),
        "stop": Choice("empirical", "oracle"),
        "threshold": THRESHOLD,
        "check_growth": Real(ge=0),
    }

    def __init__(
        self,
        allocation: str = "design",
        stop: str = "empirical",
        threshold: str | float = "gaussian",
        check_growth: float = 0.0,
    ) -> None:
        self.allocation = allocation
        self.stop = stop
        self.threshold = threshold
        self.check_growth = check_growth

    def _on_reset(self, spec: ProblemSpec) -> None:
        super()._on_reset(spec)
        self._truth: dict[str, Any] | None = None
        self._tau: int | None = None
        self._tau_done = False

    def receive_truth(self, truth: Mapping[str, Any]) -> None:
        """Receive θ* (``truth["theta"]``) after ``reset`` (OracleAgent protocol)."""
        self._require_reset("receive_truth")
        theta = np.asarray(truth["theta"], dtype=np.float64).reshape(-1)
        theta_r = self._basis.T @ theta  # projection on the span of the arms
        means = self._z @ theta_r
        best = int(np.argmax(means))
        others = np.flatnonzero(np.arange(self.n_arms) != best)
        gaps = means[best] - means[others]
        scale = max(1.0, float(np.max(np.abs(means))))
        if np.any(gaps <= 1e-12 * scale):
            raise InvalidParameterError(
                f"{self.name}: the best arm is not unique; the oracle allocation needs a unique "
                "best arm (spec 001 §1.1)."
            )
        self._truth = {
            "theta": theta_r,
            "best": best,
            "targets": self._z[best] - self._z[others],
            "gaps": gaps,
        }

    def _ready(self) -> None:
        if self._truth is None:
            raise AgentProtocolError(
                f"{self.name}: the oracle needs the truth; call receive_truth(truth) after reset "
                "(run_episode does it for agents declaring oracle=True)."
            )

    def _greedy_targets(self) -> tuple[np.ndarray, np.ndarray | None]:
        assert self._truth is not None
        return self._truth["targets"], 1.0 / self._truth["gaps"] ** 2

    def _design(self) -> np.ndarray:
        assert self._truth is not None
        z, theta = self._z, self._truth["theta"]

        def solve() -> np.ndarray:
            res = linear_best_arm_complexity(z, theta, 1.0, tol=_ORACLE_DESIGN_TOL)
            return res["oracle_weights"]

        return _DESIGNS.get(("oracle",) + _key(z, theta), solve)

    # -- Eq. 4
    def _oracle_condition(self, n: int, norms_at: int | None = None) -> bool:
        """Eq. 4 at n samples: β(n)²‖y‖²_{A⁻¹} ≤ Δ(y)² ∀y ∈ 𝒴*, with A the Gram at ``norms_at``.

        With ``norms_at = b ≥ n`` it is a necessary condition for Eq. 4 at any time in [n, b]
        (β increases with n while the norms do not increase), used to skip blocks.
        """
        assert self._truth is not None and self._threshold is not None
        counts = self._plan().counts_at(n if norms_at is None else norms_at)
        a = (self._z.T * counts) @ self._z
        inv = np.linalg.inv(0.5 * (a + a.T))
        y = self._truth["targets"]
        norms = np.maximum(np.einsum("ij,jk,ik->i", y, inv, y), 0.0)
        beta = self._threshold(n)
        return bool(np.all(beta * beta * norms <= self._truth["gaps"] ** 2))

    def _oracle_time(self, start: int) -> int | None:
        """The first check time ≥ ``start`` at which Eq. 4 holds (None: not before the cap)."""
        cap = self._cap()
        growth = float(self.check_growth)
        if growth > 0:
            n = start
            while n <= cap:
                if self._oracle_condition(n):
                    return n
                n = next_check(n, growth)
            return None

        def scan(a: int, b: int) -> int | None:
            if b - a < 16:
                for n in range(a, b + 1):
                    if self._oracle_condition(n):
                        return n
                return None
            if not self._oracle_condition(a, b):
                return None
            mid = (a + b) // 2
            found = scan(a, mid)
            return found if found is not None else scan(mid + 1, b)

        a = start
        while a <= cap:
            b = min(cap, a + max(15, a // 32))
            if self._oracle_condition(a, b):
                found = scan(a, b)
                if found is not None:
                    return found
            a = b + 1
        return None

    def _check(self) -> None:
        if self.stop == "empirical":
            super()._check()
            return
        self._checks += 1
        if not self._tau_done:  # the stopping time of Eq. 4 is deterministic: find it once
            self._tau = self._oracle_time(self.t)
            self._tau_done = True
        if self._tau is not None and self.t >= self._tau:
            self._answer = self._ols_best()  # Π(θ̂_n) (Lemma 1)
            return
        self._next = self._tau if self._tau is not None else self._cap()

    @property
    def oracle_stopping_time(self) -> int | None:
        """The deterministic stopping time of Eq. 4 (``stop="oracle"``, once computed)."""
        return getattr(self, "_tau", None)


# =========================================================================== XY-Adaptive
class _DesignPhase:
    """An XY-Adaptive phase with ``allocation="design"``: tracking plan and its known length."""

    def __init__(self, plan: TrackingPlan, length: int, u: float, complete: bool) -> None:
        self.plan, self.computed, self.U, self.complete = plan, length, u, complete

    @property
    def length(self) -> int | None:
        return self.computed if self.complete else None

    def ensure(self, n: int) -> None:
        """Nothing to compute: the length is known."""

    def next_arm(self, i: int, counts: np.ndarray) -> int:
        return self.plan.next_arm(i, counts)

    def counts_at(self, n: int) -> np.ndarray:
        return self.plan.counts_at(n)


class XYAdaptive(_SoareAgent):
    """XY-Adaptive (Soare et al. 2014, Sec. 5, Fig. 3, Eq. 17–18; spec 001 §2.3).

    Phases j = 1, 2, …; each phase starts afresh (A = 0) with one pull of each initial arm, then
    runs the static XY-allocation restricted to the active directions
    Ŷ_j = {x − x' : x ≠ x' ∈ X̂_j} (Eq. 17; candidates: all arms) until
    ``U_j(t) = max_{y∈Ŷ_j} yᵀA_t⁻¹y ≤ α·U_{j−1}`` (Eq. 18 with a single normalisation, spec
    §5.2; U_0 = ``U0``) and at least ``min_phase_len`` greedy pulls were made. At the end of the
    phase, θ̂_j = OLS on **this phase's samples only**; an arm x is dominated if some x' ≠ x has
    ``β(n)‖x' − x‖_{A_j⁻¹} < (x' − x)ᵀθ̂_j`` (Lemma 4, strict, dominators over all arms, n = the
    total number of samples); X̂_{j+1} = X̂_j ∩ non-dominated (``elimination="monotone"``) or the
    non-dominated arms (``"reset"``, literal Fig. 3; can diverge, spec §2.3). Stop when one arm
    is left and return it. A phase is static given the past (δ-correct with Prop. 1 applied to
    its data, spec §2.3), so it is precomputed without rewards and the batch path draws it at
    once. Guarantee (Thm 3): N ≤ (1+β)max{M*, 16N*/α}/log(1/α) · log(c√log/Δ_min).

    Args:
        alpha: α ∈ (0, 1), the factor by which the uncertainty shrinks per phase.
        U0: U_0 > 0 (spec §2.3 (iii): 1, the normalisation of the proof of Thm 3).
        min_phase_len: minimal number of greedy pulls per phase after its initialisation (0, or
            ``"lemma8"`` for d(d+1)+1, what the proof of Lemma 8 assumes).
        elimination: ``"monotone"`` (default) or ``"reset"``.
        stop_within_phase: also check Eq. 11 inside phases, on the phase's data and the active
            arms (x, x' ∈ X̂_j), after every pull (or on the ``check_growth`` grid of the phase's
            sample count). Valid: the phase allocation does not depend on its own rewards.
        threshold: β preset, as :class:`GAllocation` (default ``"gaussian"``).
        allocation: ``"greedy"`` (default, Fig. 3) or ``"design"`` (track the transductive design
            of Ŷ_j; the phase end is then found by bisection since U_j(t) is non-increasing).
        check_growth: spacing of the within-phase checks (``stop_within_phase=True`` only).

    """

    card = AgentCard(
        summary="phases of XY allocation on the surviving directions, phase length by the alpha rule, phase-local elimination",
        paper="Soare, Lazaric & Munos, NIPS 2014, Sec. 5, Fig. 3",
        heuristics=(
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
        ),
    )

    capabilities = AgentCapabilities(
        tasks=frozenset({"best_arm"}),
        settings=frozenset({"fixed_confidence"}),
        structures=frozenset({"linear"}),
        batch=True,
    )

    parameters = {
        "alpha": Real(gt=0, lt=1),
        "U0": Real(gt=0),
        "min_phase_len": Integer(min=0) | Choice("lemma8"),
        "elimination": Choice("monotone", "reset"),
        "stop_within_phase": Boolean(),
        "threshold": THRESHOLD,
        "allocation": Choice("greedy", "design"),
        "check_growth": Real(ge=0),
    }

    def __init__(
        self,
        alpha: float = 0.1,
        U0: float = 1.0,  # noqa: N803 - the paper's name
        min_phase_len: int | str = 0,
        elimination: str = "monotone",
        stop_within_phase: bool = False,
        threshold: str | float = "gaussian",
        allocation: str = "greedy",
        check_growth: float = 0.0,
    ) -> None:
        self.alpha = alpha
        self.U0 = U0
        self.min_phase_len = min_phase_len
        self.elimination = elimination
        self.stop_within_phase = stop_within_phase
        self.threshold = threshold
        self.allocation = allocation
        self.check_growth = check_growth

    def _on_reset(self, spec: ProblemSpec) -> None:
        self._setup(spec)
        if self.min_phase_len == "lemma8":
            self._min_len = self._d * (self._d + 1) + 1
        else:
            self._min_len = int(self.min_phase_len)
        self._threshold = self._beta()
        self._active = np.ones(self.n_arms, dtype=bool)
        self._u_prev = float(self.U0)
        self._phase: dict[str, Any] | None = None
        self._phase_log: list[dict[str, Any]] = []
        self._last_theta: np.ndarray | None = None

    # -- phases
    def _phase_plan(self, act: np.ndarray, cap: int) -> Any:
        """The allocation of the next phase, computed without rewards (static given the past).

        Deterministic given (active set, U_{j−1}), hence memoised per process: episodes whose
        eliminations coincide share their phases.
        """
        z, init = self._z, self._init
        target = self.alpha * self._u_prev
        i, j = pair_indices(act)
        targets = z[i] - z[j]
        key = (self.allocation, self._min_len, target, tuple(act.tolist())) + _key(z, init)
        if self.allocation == "greedy":
            return _PHASES.get(key, lambda: GreedyPhase(z, targets, init, target, self._min_len))
        hit = _PHASES.peek(key)
        if hit is None or (not hit.complete and hit.computed < cap):
            hit = self._design_phase(act, targets, target, cap)
            if hit.complete:
                _PHASES.put(key, hit)
        return hit

    def _design_phase(
        self, act: np.ndarray, targets: np.ndarray, target: float, cap: int
    ) -> _DesignPhase:
        z = self._z
        weights = _DESIGNS.get(
            ("phase",) + tuple(act.tolist()) + _key(z),
            lambda: transductive_design(z, targets).weights,
        )
        plan = TrackingPlan(weights, self._init)
        r = self._init.size

        def u_at(n: int) -> float:
            counts = plan.counts_at(n)
            a = (z.T * counts) @ z
            inv = np.linalg.inv(0.5 * (a + a.T))
            return float(np.max(np.einsum("ij,jk,ik->i", targets, inv, targets)))

        def ok(n: int) -> bool:  # U is non-increasing in n (counts only grow)
            return n - r >= self._min_len and u_at(n) <= target

        lo = r + self._min_len
        if lo > cap:
            return _DesignPhase(plan, cap, u_at(max(cap, r)), False)
        if ok(lo):
            return _DesignPhase(plan, lo, u_at(lo), True)
        hi = lo + 1
        while not ok(min(hi, cap)):
            if hi >= cap:
                return _DesignPhase(plan, cap, u_at(cap), False)
            lo, hi = hi, 2 * hi
        hi = min(hi, cap)
        while hi - lo > 1:  # ok(hi), not ok(lo)
            mid = (lo + hi) // 2
            if ok(mid):
                hi = mid
            else:
                lo = mid
        return _DesignPhase(plan, hi, u_at(hi), True)

    def _left(self) -> int:
        cap = self.spec.max_samples
        return max((int(cap) - self.t) if cap is not None else 1 << 62, 1)

    def _start_phase(self) -> None:
        act = np.flatnonzero(self._active)
        plan = self._phase_plan(act, self._left())
        self._phase = {"plan": plan, "pos": 0, "next": len(self._init), "start": self.t}
        self._gram = GramState(self._z)  # phase-local data (Fig. 3: b sums this phase only)

    def _end_phase(self) -> None:
        ph = self._phase
        assert ph is not None and self._gram.inv is not None
        plan = ph["plan"]
        theta = self._gram.theta()
        beta = self._threshold(self.t)
        keep = non_dominated(self._z, theta, self._gram.inv, beta)
        before = self._active.copy()
        new = keep.copy() if self.elimination == "reset" else before & keep
        if not new.any():  # only possible on the bad event (monotone): keep the best survivor
            act = np.flatnonzero(before)
            new[act[int(np.argmax(self._z[act] @ theta))]] = True
        self._phase_log.append(
            {
                "start": ph["start"],
                "length": plan.length,
                "greedy_pulls": plan.length - len(self._init),
                "U": plan.U,
                "U_target": self.alpha * self._u_prev,
                "theta": theta,
                "active_before": np.flatnonzero(before),
                "active_after": np.flatnonzero(new),
            }
        )
        self._active = new
        self._u_prev = float(plan.U)
        self._last_theta = theta
        self._phase = None
        if new.sum() == 1:
            self._answer = int(np.flatnonzero(new)[0])

    def _advance(self) -> dict[str, Any] | None:
        """Bring the state to the next decision; return the running phase (None: stopped)."""
        while self._answer is None:
            if self._phase is None:
                self._start_phase()
            ph = self._phase
            assert ph is not None
            pos, plan = ph["pos"], ph["plan"]
            if self.stop_within_phase and pos >= ph["next"]:
                best = empirical_stop(
                    self._z,
                    self._gram.theta(),
                    self._gram.inv,
                    self._threshold(self.t),
                    np.flatnonzero(self._active),
                )
                if best is not None:
                    self._answer = best
                    break
                ph["next"] = next_check(pos, float(self.check_growth))
            plan.ensure(pos + 1)
            if plan.complete and pos >= plan.length:
                self._end_phase()
                continue
            if pos >= plan.computed:
                raise AgentProtocolError(
                    f"{self.name}: the phase was cut at the sample cap but the episode went on."
                )
            return ph
        return None

    # -- protocol
    def select(self) -> int | None:
        """The next pull of the current phase, or None once one arm is left."""
        self._require_reset("select")
        ph = self._advance()
        if ph is None:
            return None
        return ph["plan"].next_arm(ph["pos"], self._gram.counts)

    def select_batch(self) -> np.ndarray | None:
        """The rest of the phase (or the pulls up to the next within-phase check).

        Long phases are computed in chunks (at least 65 536 pulls, doubling), each drawn as one
        batch: no decision happens inside a phase unless ``stop_within_phase``.
        """
        self._require_reset("select_batch")
        ph = self._advance()
        if ph is None:
            return None
        pos, plan = ph["pos"], ph["plan"]
        stop_at = pos + min(max(1 << 16, pos), self._left())
        if self.stop_within_phase:
            stop_at = min(stop_at, ph["next"])
        plan.ensure(stop_at)
        stop_at = min(stop_at, plan.computed)
        return (plan.counts_at(stop_at) - self._gram.counts).astype(np.int64)

    def _on_observe(self, arm: int, outcome: np.ndarray) -> None:
        super()._on_observe(arm, outcome)
        assert self._phase is not None
        self._phase["pos"] += 1

    def _on_observe_batch(self, counts: np.ndarray, sums: np.ndarray) -> None:
        super()._on_observe_batch(counts, sums)
        assert self._phase is not None
        self._phase["pos"] += int(np.sum(counts))

    def recommend(self) -> Answer:
        """The last arm left; if interrupted, argmax over the active arms of the latest θ̂_j."""
        self._require_reset("recommend")
        if self._answer is not None:
            return frozenset({self._answer})
        act = np.flatnonzero(self._active)
        if self._last_theta is not None:
            return frozenset({int(act[int(np.argmax(self._z[act] @ self._last_theta))])})
        return frozenset({int(act[0]) if self.t == 0 else self._ols_all(act)})

    def _ols_all(self, act: np.ndarray) -> int:
        theta = projected_least_squares(self._z, self.counts, self.sums[:, 0])
        return int(act[int(np.argmax(self._z[act] @ theta))])

    @property
    def phases(self) -> list[dict[str, Any]]:
        """One record per completed phase: start, length, greedy pulls, U_j, θ̂_j, X̂ before/after."""
        return list(getattr(self, "_phase_log", []))

    @property
    def active_arms(self) -> np.ndarray:
        """The indices of the arms still active (X̂_j)."""
        return np.flatnonzero(self._active)


# =========================================================================== fully adaptive
class FullyAdaptiveXY(_SoareAgent):
    """Fully-adaptive XY (Soare et al. 2014, Sec. 6, L199/L204; spec 001 §2.5).

    After the initialisation, every round: ridge estimate θ̂ = (ηI + A)⁻¹b; width
    β_t = σ√(d log((1 + nL²/η)/δ)) + √η·S (Prop. 2, Abbasi-Yadkori et al. 2011 Thm 2, as printed;
    d = rank of the arms, L = max‖x‖, n = samples so far); X̂_t = arms not dominated
    (x' dominates x iff β_t‖x' − x‖_{Ã⁻¹} < (x' − x)ᵀθ̂, recomputed every round); stop when one
    arm is left and return it; else pull the greedy XY arm for the active directions Ŷ_t (all arms
    are candidates, Ã⁻¹ by Sherman–Morrison). Prop. 2 holds for adaptive allocations, at the price
    of the extra √d (the paper's point: no gain over the static allocations).

    Args:
        ridge: η > 0 (spec §2.5: 1), in units of max‖x‖² rounded to a power of two
            (:func:`bandit_envs.theory.linalg.ridge_unit`), so rescaling the features changes nothing.
        theta_norm_bound: S ≥ ‖θ*‖. With a true bound the rule is δ-correct (Prop. 2). ``None``
            (default) plugs in the current estimate S_t = ‖θ̂_t‖ — a **heuristic** (an agent cannot
            know ‖θ*‖; the paper uses the true norm), harmless in practice because the √η·S term
            is small next to the σ√(d log) term, but without a proof.

    """

    card = AgentCard(
        summary="XY greedy on the directions still plausible at every round, self-normalised (Prop. 2) widths with a ridge estimate",
        paper="Soare, Lazaric & Munos, NIPS 2014, Sec. 6",
        heuristics=(
            Heuristic(
                "theta_norm_bound",
                lambda v: v is None,
                "plugs the estimate ||theta_hat_t|| into Prop. 2's width in place of a true bound S >= ||theta*|| (default)",
            ),
        ),
    )

    capabilities = AgentCapabilities(
        tasks=frozenset({"best_arm"}),
        settings=frozenset({"fixed_confidence"}),
        structures=frozenset({"linear"}),
    )

    parameters = {"ridge": Real(gt=0), "theta_norm_bound": Is(None) | Real(ge=0)}

    def __init__(self, ridge: float = 1.0, theta_norm_bound: float | None = None) -> None:
        self.ridge = ridge
        self.theta_norm_bound = theta_norm_bound

    def _on_reset(self, spec: ProblemSpec) -> None:
        self._setup(spec)
        # η in units of max‖x‖² (a power of two): rescaling the features changes nothing
        self._eta = float(self.ridge) * ridge_unit(self._z)
        self._gram = GramState(self._z, ridge=self._eta)
        self._lsq = float(np.max(np.einsum("ij,ij->i", self._z, self._z)))
        self._pairs_for: bytes | None = None
        self._pairs_idx: tuple[np.ndarray, np.ndarray] = (np.zeros(0, int), np.zeros(0, int))
        self._rounds = 0

    def width(self, n: int, theta: np.ndarray) -> float:
        """β_t of Prop. 2 at n samples (S from ``theta_norm_bound`` or ‖θ̂‖)."""
        eta = self._eta
        s = (
            math.sqrt(float(theta @ theta))
            if self.theta_norm_bound is None
            else float(self.theta_norm_bound)
        )
        log_term = math.log((1.0 + n * self._lsq / eta) / self.spec.delta)
        return self._sigma * math.sqrt(self._d * log_term) + math.sqrt(eta) * s

    def select(self) -> int | None:
        """Initial pulls, then eliminate and pull the greedy XY arm of the active directions."""
        self._require_reset("select")
        if self._answer is not None:
            return None
        if self.t < self._init.size:
            return int(self._init[self.t])
        self._rounds += 1
        inv = self._gram.inv
        assert inv is not None
        theta = inv @ self._gram.b
        beta = self.width(self.t, theta)
        # Everything below derives from G = Z Ã⁻¹ Zᵀ (K×K): ‖x − x'‖² = G_xx + G_x'x' − 2G_xx',
        # and the greedy ingredients of a pair (i, j): P = G[i] − G[j], q = ‖z_i − z_j‖², s = G_xx.
        z = self._z
        g = (z @ inv) @ z.T
        diag = np.diagonal(g)
        quad = np.maximum(diag[:, None] + diag[None, :] - 2.0 * g, 0.0)
        means = z @ theta
        gaps = means[None, :] - means[:, None]  # [x, x'] = (x' − x)ᵀθ̂
        dominated = (gaps > 0.0) & (beta * beta * quad < gaps * gaps)
        keep = ~dominated.any(axis=1)  # the diagonal has gap 0: never "dominated"
        if keep.sum() == 1:
            self._answer = int(np.flatnonzero(keep)[0])
            return None
        tag = keep.tobytes()
        if tag != self._pairs_for:
            self._pairs_idx, self._pairs_for = pair_indices(np.flatnonzero(keep)), tag
        i, j = self._pairs_idx
        p = g[i] - g[j]
        scores = quad[i, j][:, None] - p * p / (1.0 + diag)
        return select_greedy(scores)

    def recommend(self) -> Answer:
        """The last arm left, or (if interrupted) argmax xᵀθ̂ of the ridge estimate."""
        self._require_reset("recommend")
        if self._answer is not None:
            return frozenset({self._answer})
        if self.t == 0:
            return frozenset({0})
        theta = self._gram.theta()
        return frozenset({int(np.argmax(self._z @ theta))})
