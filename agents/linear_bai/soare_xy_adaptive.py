"""The adaptive agents of Soare, Lazaric & Munos (NIPS 2014): XY-Adaptive and fully adaptive XY.

* :class:`XYAdaptive` — phases of XY-allocation on the directions still plausible, with
  elimination on each phase's own data (Sec. 5, Fig. 3, Eq. 17–18).
* :class:`FullyAdaptiveXY` — XY-allocation with elimination at every round and the adaptive
  confidence bound of Prop. 2 (the baseline of Sec. 6).

Set-up, thresholds and memos are in :mod:`agents.linear_bai.soare_base`.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from agents.base import AgentCard, Heuristic
from agents.common.kernels import soare as soare_kernels
from agents.common.params import Boolean, Choice, Integer, Is, Real
from agents.linear_bai.greedy_allocation import (
    TIE_RTOL,
    GramState,
    GreedyPhase,
    TrackingPlan,
    empirical_stop,
    next_check,
    non_dominated,
    pair_indices,
)
from agents.linear_bai.soare_base import (
    DESIGN_MEMO,
    PHASE_MEMO,
    THRESHOLD,
    THRESHOLD_HEURISTICS,
    SoareAgent,
    memo_key,
)
from bandit_envs.core.problem import Answer, ProblemSpec
from bandit_envs.core.protocols import AgentCapabilities
from bandit_envs.errors import AgentProtocolError
from bandit_envs.theory.design import transductive_design
from bandit_envs.theory.linalg import projected_least_squares, ridge_unit

__all__ = ["FullyAdaptiveXY", "XYAdaptive"]


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


class XYAdaptive(SoareAgent):
    """XY-Adaptive (Soare, Lazaric & Munos 2014, Sec. 5, Fig. 3, Eq. 17–18).

    Phases j = 1, 2, …; each phase starts afresh (A = 0) with one pull of each initial arm, then
    runs the static XY-allocation restricted to the active directions
    Ŷ_j = {x − x' : x ≠ x' ∈ X̂_j} (Eq. 17; candidates: all arms) until
    ``U_j(t) = max_{y∈Ŷ_j} yᵀA_t⁻¹y ≤ α·U_{j−1}`` (U_0 = ``U0``) and at least ``min_phase_len``
    greedy pulls were made. This is Eq. 18, whose ρ^j(λ)/n is exactly U_j; the loop of Fig. 3 as
    printed divides by t a second time, and we follow Eq. 18. At the end of the phase,
    θ̂_j = OLS on **this phase's samples only**; an arm x is dominated if some x' ≠ x has
    ``β(n)‖x' − x‖_{A_j⁻¹} < (x' − x)ᵀθ̂_j`` (Lemma 4: strict, with the constant of β, dominators
    over all arms, n = the total number of samples; Fig. 3's test omits the constant and uses
    ≤). X̂_{j+1} = X̂_j ∩ non-dominated (``elimination="monotone"``, our default) or the
    non-dominated arms (``"reset"``: Fig. 3 as printed, which re-admits arms that a phase on few
    directions cannot rule out again and can then diverge). Stop when one arm is left and
    return it. A phase is static given the past, so Prop. 1 applies to its data (Sec. 5): it is
    precomputed without rewards and the batch path draws it at once.
    Guarantee (Thm 3): N ≤ (1+β)max{M*, 16N*/α}/log(1/α) · log(c√log/Δ_min).

    Args:
        alpha: α ∈ (0, 1), the factor by which the uncertainty shrinks per phase.
        U0: U_0 > 0. The default 1 is ρ⁰/n₀ = 1 of the proof of Thm 3 (App. D); Fig. 3 sets
            ρ₀ = 1 and n₀ = d(d+1)+1 instead.
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
        summary="Phases of XY-allocation on the directions between the arms still active, each "
        "phase ended when its uncertainty is alpha times the previous one's, then elimination "
        "on the phase's own data; stops when one arm is left",
        paper="Soare, Lazaric & Munos, Best-Arm Identification in Linear Bandits, NIPS 2014, "
        "Sec. 5 (XY-Adaptive, Fig. 3, Eq. 17-18)",
        heuristics=THRESHOLD_HEURISTICS,
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
        key = (self.allocation, self._min_len, target, tuple(act.tolist())) + memo_key(z, init)
        if self.allocation == "greedy":
            return PHASE_MEMO.get(key, lambda: GreedyPhase(z, targets, init, target, self._min_len))
        hit = PHASE_MEMO.peek(key)
        if hit is None or (not hit.complete and hit.computed < cap):
            hit = self._design_phase(act, targets, target, cap)
            if hit.complete:
                PHASE_MEMO.put(key, hit)
        return hit

    def _design_phase(
        self, act: np.ndarray, targets: np.ndarray, target: float, cap: int
    ) -> _DesignPhase:
        z = self._z
        weights = DESIGN_MEMO.get(
            ("phase",) + tuple(act.tolist()) + memo_key(z),
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
                inv = self._gram.inv
                assert inv is not None  # the phase's initial pulls span the arms
                best = empirical_stop(
                    self._z,
                    self._gram.theta(),
                    inv,
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
class FullyAdaptiveXY(SoareAgent):
    """Fully-adaptive XY (the baseline of Soare, Lazaric & Munos 2014, Sec. 6).

    The paper describes it in one sentence: XY where X̂ "is updated at each round and the bound
    from Prop. 2 is used"; η and S are not given. Our reading: after the initialisation, every
    round: ridge estimate θ̂ = (ηI + A)⁻¹b; width
    β_t = σ√(d log((1 + nL²/η)/δ)) + √η·S (Prop. 2, Abbasi-Yadkori et al. 2011 Thm 2, as printed;
    d = rank of the arms, L = max‖x‖, n = samples so far); X̂_t = arms not dominated
    (x' dominates x iff β_t‖x' − x‖_{Ã⁻¹} < (x' − x)ᵀθ̂, recomputed every round); stop when one
    arm is left and return it; else pull the greedy XY arm for the active directions Ŷ_t (all arms
    are candidates, Ã⁻¹ by Sherman–Morrison). Prop. 2 holds for adaptive allocations, at the price
    of the extra √d (the paper's point: no gain over the static allocations).

    Args:
        ridge: η > 0 (default 1), in units of max‖x‖² rounded to a power of two
            (:func:`bandit_envs.theory.linalg.ridge_unit`), so that rescaling the features
            changes nothing.
        theta_norm_bound: S ≥ ‖θ*‖. With a true bound the rule is δ-correct (Prop. 2). ``None``
            (default) plugs in the current estimate S_t = ‖θ̂_t‖ — a **heuristic** (an agent cannot
            know ‖θ*‖; the paper uses the true norm), harmless in practice because the √η·S term
            is small next to the σ√(d log) term, but without a proof.

    """

    card = AgentCard(
        summary="Greedy XY-allocation on the directions still plausible, re-eliminating at every "
        "round with the self-normalised widths of Prop. 2 and a ridge estimate",
        paper="Soare, Lazaric & Munos, Best-Arm Identification in Linear Bandits, NIPS 2014, "
        "Sec. 6 (fully adaptive XY baseline)",
        heuristics=(
            Heuristic(
                "theta_norm_bound",
                lambda v: v is None,
                "plugs the estimate ||theta_hat_t|| into Prop. 2's width in place of a true "
                "bound S >= ||theta*|| (default)",
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
        self._rounds = 0

    def observe(self, arm: int, outcome: np.ndarray) -> None:
        """Record one outcome of ``arm`` (counts, sums and ridge least squares in one call)."""
        self._require_reset("observe")
        self._gram.add_and_check(arm, float(outcome[0]), None, self.counts, self.sums)
        self.t += 1

    def width(self, n: int, theta: np.ndarray) -> float:
        """β_t of Prop. 2 at n samples (S from ``theta_norm_bound`` or ‖θ̂‖)."""
        eta = self._eta
        s = (
            math.sqrt(float(theta @ theta))
            if self.theta_norm_bound is None
            else float(self.theta_norm_bound)
        )
        log_term = math.log((1.0 + n * self._lsq / eta) / self._require_delta())
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
        # θ̂, β_t, the eliminations and the greedy XY arm of the surviving directions, from
        # G = Z Ã⁻¹ Zᵀ: ‖x − x'‖² = G_xx + G_x'x' − 2G_xx', and for a pair (i, j) the greedy
        # ingredients P = G[i] − G[j], q = ‖z_i − z_j‖², s = G_xx (one compiled call).
        eta = self._eta
        bound = self.theta_norm_bound
        arm = int(
            soare_kernels.fully_adaptive_round(
                self._gram.arms, inv, self._gram.b,
                (1.0 + self.t * self._lsq / eta) / self._require_delta(),
                self._sigma, self._d, math.sqrt(eta), -1.0 if bound is None else float(bound),
                TIE_RTOL,
            )
        )  # fmt: skip
        if arm < 0:
            self._answer = -1 - arm
            return None
        return arm

    def recommend(self) -> Answer:
        """The last arm left, or (if interrupted) argmax xᵀθ̂ of the ridge estimate."""
        self._require_reset("recommend")
        if self._answer is not None:
            return frozenset({self._answer})
        if self.t == 0:
            return frozenset({0})
        theta = self._gram.theta()
        return frozenset({int(np.argmax(self._z @ theta))})
