"""The static allocations of Soare, Lazaric & Munos (NIPS 2014): G, XY and the XY-Oracle.

* :class:`GAllocation` — the G-optimal allocation (Sec. 4, Eq. 12, Fig. 2).
* :class:`XYAllocation` — the transductive XY-allocation over all arm differences (Sec. 4,
  Eq. 14, Fig. 2).
* :class:`XYOracle` — the oracle allocation of Eq. 5, which knows θ* (Sec. 6's baseline).

The three allocations do not depend on the rewards, so the empirical stopping rule (Eq. 11,
Lemma 3) is δ-correct for them, and the whole pull sequence is a deterministic function of the
instance: it is computed once per process and shared by the episodes. Set-up, thresholds and
memos are in :mod:`agents.linear_bai.soare_base`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from agents.base import AgentCard
from agents.common.params import Choice, Real
from agents.linear_bai.greedy_allocation import (
    SequencePlan,
    TrackingPlan,
    cached_greedy_sequence,
    empirical_stop,
    next_check,
    pair_indices,
)
from agents.linear_bai.soare_base import (
    DESIGN_MEMO,
    THRESHOLD,
    THRESHOLD_HEURISTICS,
    SoareAgent,
    memo_key,
)
from bandit_envs.core.problem import Answer, ProblemSpec
from bandit_envs.core.protocols import AgentCapabilities
from bandit_envs.errors import AgentProtocolError, InvalidParameterError
from bandit_envs.theory.complexity import linear_best_arm_complexity
from bandit_envs.theory.design import g_optimal_design, transductive_design

__all__ = ["GAllocation", "XYAllocation", "XYOracle"]

_ORACLE_DESIGN_TOL = 1e-6


# =========================================================================== static allocations
class _StaticAllocation(SoareAgent):
    """A reward-independent allocation with the empirical stopping rule (Fig. 2, Eq. 11).

    Subclasses provide the greedy targets/weights and the continuous design. The allocation does
    not depend on the rewards, so it is a deterministic function of the instance: the greedy
    sequence is computed once per process and instance and shared by the episodes
    (:func:`~agents.linear_bai.greedy_allocation.cached_greedy_sequence`).
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
        self._last, self._last_batch = 0, b""  # the last one-pull batch: its arm, its bytes
        self._threshold = self._beta() if spec.fixed_confidence else None
        self._checks = 0
        self._fused = self._threshold is not None  # Eq. 11 checked in the pull's kernel call
        self._limit = self._cap()

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

    def observe(self, arm: int, outcome: np.ndarray) -> None:
        """Record one outcome of ``arm`` (counts, sums and least squares in one compiled call)."""
        self._require_reset("observe")
        self._pull(arm, float(outcome[0]))

    def observe_batch(self, counts: np.ndarray, sums: np.ndarray) -> None:
        """Record a batch; a one-pull batch (checks after every pull) as :meth:`observe`."""
        self._require_reset("observe_batch")
        if np.asarray(counts).tobytes() == self._last_batch:
            self._last_batch = b""
            self._pull(self._last, float(sums[self._last, 0]))
        else:
            super().observe_batch(counts, sums)

    def _pull(self, arm: int, reward: float) -> None:
        """One pull: the statistics and, when due, the stopping check of the next decision.

        The check at the new sample count is the one :meth:`select` would make first; it is
        made here, in the same compiled call as the update (one call per pull).
        """
        t = self.t + 1
        due = self._fused and t >= self._next
        beta = self._threshold(t) if due else None  # type: ignore[misc]
        best = self._gram.add_and_check(arm, reward, beta, self.counts, self.sums)
        self.t = t
        if best == -2:
            return
        self._checks += 1
        if best >= 0:
            self._answer = best
        self._next = next_check(t, float(self.check_growth))

    def _cap(self) -> int:
        cap = self.spec.max_samples
        return int(cap) if cap is not None else 1 << 62

    # -- protocol
    def select(self) -> int | None:
        """The next arm of the allocation, or None once the stopping rule holds."""
        self._require_reset("select")
        if self._answer is not None:
            return None
        if self.t >= self._next and self._threshold is not None:
            self._check()
            if self._answer is not None:
                return None
        return self._plan().next_arm(self.t, self.counts)

    def select_batch(self) -> np.ndarray | None:
        """All pulls up to the next stopping check (or to the end of the budget)."""
        self._require_reset("select_batch")
        if self._answer is not None:
            return None
        if self._threshold is None:  # fixed budget
            target = self._require_budget()
        else:
            if self.t >= self._next:
                self._check()
                if self._answer is not None:
                    return None
            target = min(self._next, self._limit)
            if target == self.t + 1:  # checks after every pull: a batch is one pull
                out = np.zeros(self.n_arms, dtype=np.int64)
                self._last = self._plan().next_arm(self.t, self.counts)
                out[self._last] = 1
                self._last_batch = out.tobytes()
                return out
        return (self._plan().counts_at(target) - self.counts).astype(np.int64)

    def recommend(self) -> Answer:
        """The stopped-on arm, else Π(θ̂) = argmax_x xᵀθ̂ (OLS on all data, lowest index on ties)."""
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
            tie-break of :func:`~agents.linear_bai.greedy_allocation.select_greedy`) or
            ``"design"`` (the continuous optimal design, tracked by Adams' rule after the
            initialisation: the efficient rounding of App. C).
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
        summary="Static G-optimal allocation, greedy (lexicographic tie-break) or by tracking the "
        "G-optimal design, with the empirical stopping rule of Eq. 11; fixed budget: the "
        "least-squares best arm",
        paper="Soare, Lazaric & Munos, Best-Arm Identification in Linear Bandits, NIPS 2014, "
        "Sec. 4 (G-allocation, Eq. 12, Fig. 2)",
        heuristics=THRESHOLD_HEURISTICS,
    )

    def _greedy_targets(self) -> tuple[np.ndarray, np.ndarray | None]:
        return self._z, None

    def _design(self) -> np.ndarray:
        z = self._z
        return DESIGN_MEMO.get(("G",) + memo_key(z), lambda: g_optimal_design(z).weights)


class XYAllocation(_StaticAllocation):
    """XY-allocation: static transductive design over 𝒴 + empirical stopping (Sec. 4, Eq. 14).

    Allocation: ``argmin_{x_n} max_{y∈𝒴} ‖y‖_{A⁻¹}``, 𝒴 = all K(K−1)/2 differences ``x − x'``;
    greedily (Eq. 26) or by tracking :func:`bandit_envs.theory.design.xy_design`'s design. Stopping
    and fixed-budget answer as :class:`GAllocation` (Eq. 11). Guarantee (Thm 2):
    N ≤ 32c²d(1+β)log/Δ²_min; can be arbitrarily better than G (App. A).

    Args:
        allocation: ``"greedy"`` (default) or ``"design"``, as :class:`GAllocation`.
        threshold: β preset, as :class:`GAllocation`.
        check_growth: spacing of the stopping checks, as :class:`GAllocation`.

    """

    card = AgentCard(
        summary="Static XY (transductive) allocation over all the arm differences, greedy or by "
        "tracking the XY-optimal design, with the empirical stopping rule of Eq. 11",
        paper="Soare, Lazaric & Munos, Best-Arm Identification in Linear Bandits, NIPS 2014, "
        "Sec. 4 (XY-allocation, Eq. 14, Fig. 2)",
        heuristics=THRESHOLD_HEURISTICS,
    )

    def _on_reset(self, spec: ProblemSpec) -> None:
        super()._on_reset(spec)
        i, j = pair_indices(np.arange(self.n_arms))
        self._pairs = self._z[i] - self._z[j]

    def _greedy_targets(self) -> tuple[np.ndarray, np.ndarray | None]:
        return self._pairs, None

    def _design(self) -> np.ndarray:
        z, y = self._z, self._pairs
        return DESIGN_MEMO.get(("XY",) + memo_key(z), lambda: transductive_design(z, y).weights)


# =========================================================================== oracle
class XYOracle(_StaticAllocation):
    """XY-Oracle: the oracle allocation of Eq. 5, which knows θ* (the baseline of Sec. 6).

    **Oracle baseline**: told the truth through ``receive_truth`` (results are marked oracle).
    Allocation ``argmin_{x_n} max_{y∈𝒴*} ‖y‖_{A⁻¹}/Δ(y)``, 𝒴* = {x* − x}: by default the
    oracle design λ* (``oracle_weights`` of
    :func:`bandit_envs.theory.complexity.linear_best_arm_complexity`, H_LB = ρ*(λ*), Eq. 6) tracked
    by Adams' rule after the initialisation; ``allocation="greedy"`` uses the weighted greedy
    step (targets 𝒴*, weights 1/Δ²). Tracking is the default because the weighted greedy step
    can pour its pulls into one arm: when several weighted targets tie at the max and one arm
    helps all of them, that arm is a strict improvement at every step (on the instance of
    Sec. 6, tens of thousands of pulls of e₁ where λ* asks for a few hundred). The paper does
    not say which stopping rule its oracle uses.

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
        summary="ORACLE baseline, told the true theta: tracks the optimal allocation lambda* of "
        "Eq. 5 and stops by Eq. 11 (or by the deterministic oracle rule of Eq. 4)",
        paper="Soare, Lazaric & Munos, Best-Arm Identification in Linear Bandits, NIPS 2014, "
        "Sec. 3 (Eq. 4-7) and Sec. 6 (XY-Oracle)",
        heuristics=THRESHOLD_HEURISTICS,
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
        self._fused = self._fused and self.stop == "empirical"
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
                "best arm (Soare et al. assume it, Sec. 2)."
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

        return DESIGN_MEMO.get(("oracle",) + memo_key(z, theta), solve)

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
