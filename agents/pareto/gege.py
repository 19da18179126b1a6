"""``GEGE``: G-optimal Empirical Gap Elimination for Pareto set identification.

Kone, Kaufmann & Richert, "Bandit Pareto Set Identification in a Multi-Output Linear Model"
(AISTATS 2025): Algorithm 1 (``OptEstimator``), Algorithm 2 (fixed budget), Algorithm 3 (fixed
confidence) and its ε-PSI variant (App. E.5). Outcomes are vectors of ``d`` objectives, all
maximised; arm ``i`` has mean ``μ_i = Θᵀx_i`` with known features ``x_i``. Where the paper and
the authors' public code (``cyrille-kone/linear_psi``) differ, the docstrings say which is
followed.
"""

from __future__ import annotations

import math

import numpy as np

from agents.base import AgentCard, BaseAgent, Heuristic
from agents.common.classification import ClassificationBook, halving_keep
from agents.common.design_cache import DESIGNS, leverages, pinv_parts, reduced_coordinates
from agents.common.params import Choice, Real
from agents.common.phases import PhaseTracking
from bandit_envs.core.problem import Answer, ProblemSpec
from bandit_envs.core.protocols import AgentCapabilities
from bandit_envs.errors import InvalidParameterError
from bandit_envs.theory.design import g_optimal_design, round_design
from bandit_envs.theory.pareto import empirical_gaps, pareto_mask

__all__ = ["GEGE", "opt_allocation"]

#: weights at or below this (after normalisation) are outside a design's support (the same
#: threshold as :func:`bandit_envs.theory.design.round_design`).
SUPPORT_TOL = 1e-12

#: rounding precision κ of the fixed-budget rounds (Kone et al., Alg. 2: κ = 1/3).
KAPPA_FB = 1.0 / 3.0

#: cap on one phase's length: keeps int64 counts far from overflowing.
MAX_PHASE_SAMPLES = 2**53

#: most single-pull exchanges tried when a rounded allocation misses the (1 + 6κ) h_S / N bound.
MAX_EXCHANGES = 1000


def _exchange(z: np.ndarray, counts: np.ndarray, bound: float) -> np.ndarray:
    """Greedy Fedorov exchange on integer counts until ``max leverage ≤ bound``.

    Moves one pull at a time from the arm of smallest leverage holding at least two pulls to the
    arm of largest leverage, as long as the maximal leverage decreases.
    """
    counts = counts.copy()
    lev = leverages(z, counts)
    for _ in range(MAX_EXCHANGES):
        if lev.max() <= bound:
            break
        j = int(np.argmax(lev))
        donors = np.flatnonzero(counts >= 2)
        donors = donors[donors != j]
        if donors.size == 0:
            break
        i = int(donors[np.argmin(lev[donors])])
        trial = counts.copy()
        trial[i] -= 1
        trial[j] += 1
        new = leverages(z, trial)
        if new.max() >= lev.max():
            break
        counts, lev = trial, new
    return counts


def opt_allocation(
    z: np.ndarray, weights: np.ndarray, n: int, rank: int, kappa: float
) -> np.ndarray:
    """Step 3 of ``OptEstimator`` (Kone et al. 2025, Algorithm 1): integer pulls.

    Rounds the G-optimal design ``weights`` to ``n`` pulls with Pukelsheim's efficient rounding
    (:func:`bandit_envs.theory.design.round_design`: Adams apportionment,
    ``n_i ≥ (n − p) w_i`` with ``p`` the support size) — the paper cites the rounding of Allen-Zhu,
    Li, Singh & Wang (ICML 2017) and the authors' code uses ``⌈n w_i⌉`` — then checks the
    guarantee GEGE relies on (App. H, Thm 4, as used in Lemma 1):

        ``max_i ‖x_i‖²_{V_n⁺} ≤ (1 + 6κ) h_S / n``.

    Adams' bound gives it whenever ``n/(n − p) · F(w) ≤ (1 + 6κ) h_S``, which holds for every
    ``n ≥ 5 h_S/κ²`` unless ``h_S`` is in the hundreds; if it fails, a greedy (Fedorov) exchange
    of single pulls repairs it. With fewer pulls than support points (``n < p``, which the
    paper's budget condition excludes) one pull goes to each of the ``n`` heaviest points and
    the estimator is the pseudo-inverse one of eq. (3).

    Args:
        z: the active arms' coordinates, shape (n_active, r).
        weights: the design on those arms, shape (n_active,).
        n: the number of pulls.
        rank: ``h_S``, the dimension of the active arms' span.
        kappa: the rounding precision κ.

    Returns:
        Integer counts, shape (n_active,), summing to ``n`` (read-only).
    """
    support = int(np.count_nonzero(weights > SUPPORT_TOL * weights.sum()))
    if n >= support:
        counts = round_design(weights, n)
        counts = _exchange(z, counts, (1.0 + 6.0 * kappa) * rank / n)
    else:
        counts = np.zeros(weights.shape[0], dtype=np.int64)
        counts[np.argsort(-weights, kind="stable")[:n]] = 1
    counts.flags.writeable = False
    return counts


def _design(z: np.ndarray, tol: float) -> tuple[np.ndarray, int]:
    """G-optimal design on the active arms (Kone et al., eq. (4), Alg. 1 step 2) and ``h_S``."""
    if z.shape[0] == 1:
        w = np.ones(1)
        w.flags.writeable = False
        return w, int(np.linalg.norm(z) > 0)
    result = g_optimal_design(z, tol=tol)
    w = result.weights.copy()
    w.flags.writeable = False
    return w, int(round(result.lower_bound))


class GEGE(PhaseTracking, BaseAgent):
    """G-optimal Empirical Gap Elimination (Kone, Kaufmann & Richert, AISTATS 2025).

    The setting comes from the problem: fixed budget when ``spec.budget`` is set, else fixed
    confidence (δ = ``spec.delta``). Each round ``r`` calls ``OptEstimator(A_r, N_r, κ_r)``
    (Alg. 1): the G-optimal design on the active arms, computed in an orthonormal basis of their
    span (the projection of Sec. 2.2 when they do not span ℝʰ), rounded to ``N_r`` integer pulls
    with the ``(1 + 6κ) h_S / N`` guarantee (:func:`opt_allocation`), then least squares on *this
    round's samples only*, ``Θ̂_r = V_N⁺ Σ_t x_{a_t} y_tᵀ`` (eq. (3)). Empirical Pareto set
    ``S_r`` and gaps ``Δ̂_{i,r}`` among the active arms come from
    :func:`bandit_envs.theory.pareto.empirical_gaps` (eq. (5) as its proof and the authors' code
    use it: the printed ``(Δ̂*_{i,r})_+`` inside the min is ``(Δ̂*_{j,r})_+``).

    **Fixed budget** (Alg. 2): ``h`` = the rank of the features, ``R = ⌈log₂ h⌉`` rounds (1 round
    when ``h = 1``, which the paper leaves undefined), ``⌊T/R⌋`` pulls per round and the leftover
    ``T − R⌊T/R⌋`` added to the last round (exactly ``T`` pulls; the paper's ``T/R`` is not an
    integer and the authors' ceilings can exceed ``T``), κ = 1/3. Round ``r`` keeps the
    ``⌈h/2^r⌉`` active arms with the smallest ``Δ̂_{i,r}`` (ties: empirically optimal arms kept
    first, :func:`halving_keep`); discarded arms of ``S_r`` are accepted, the others rejected.
    Answer: accepted arms plus the last survivor. Error bound (Thm 2, for ``T ≥ 45 h log₂ h``):
    ``exp(−T/(1200 σ² H_{2,lin} ⌈log₂h⌉) + log(2d(K + h + ⌈log₂h⌉)))``.

    **Fixed confidence** (Alg. 3): ``ε_r = 2^{-(r+1)}``, ``δ_r = 6δ/(π²r²)``,
    ``h_r = dim span{x_i : i ∈ A_r}``; accept ``i ∈ S_r`` with ``Δ̂_{i,r} ≥ ε_r``, reject
    ``i ∉ S_r`` with ``Δ̂_{i,r} ≥ ε_r/2``; run while more than one arm is active and answer
    ``B ∪ A`` (a single survivor is declared optimal, as in Alg. 3). Round lengths (the paper
    gives three different log terms, Alg. 3 and App. E.3–E.4, and κ = ε_r in Alg. 3 but ε_r/2
    in the proof):

    * ``constants="theory"`` (default; δ-correct): ``t_r = max(⌈32(1+3ε_r) σ² h_r ε_r^{-2}
      log(2d|A_r|/δ_r)⌉, ⌈20 h_r/ε_r²⌉)`` with κ = ε_r/2 — exactly what the proof of Thm 3
      needs (App. E.4: Lemma 1 with precision ε_r/4 for each of the ``|A_r|`` arms, union bound
      over rounds by ``Σ_r δ_r ≤ δ``; ``20h_r/ε_r² = 5h_r/κ²`` is Lemma 1's rounding
      condition). With probability ≥ 1 − δ the answer is ``S*`` after at most
      ``⌈log₂(1/Δ_min)⌉`` rounds (Thm 3, gaps in (0, 1)).
    * ``constants="practical"``: ``t_r = ⌈h_r log(1/δ_r)/ε_r²⌉`` (the authors' code: no σ², no
      32, no union-bound term). **Heuristic, not δ-correct**; it is what the paper's plots use,
      with an order of magnitude fewer samples than ``"theory"``. Reproductions and benchmarks
      of the paper pass it explicitly.

    Samples are counted as actual pulls: each round makes exactly ``t_r`` pulls. The authors'
    code pulls ``⌈T_r w_i⌉`` times each arm of the design and reports ``⌈T_r⌉``, which differs
    by the rounding (at most one pull per support arm).

    **ε-PSI** (end of Sec. 3.3 and App. E.5): with ``spec.epsilon = ε > 0`` (the task's public ε)
    the fixed-confidence loop also stops before round ``r`` once ``ε_r ≤ ε/4`` and answers ``B ∪ A``
    (every still-active arm declared optimal): on the good event the answer is an ε-Pareto set.
    The fixed-budget algorithm is unchanged by ε.

    **Batch path**: one ``select_batch`` per round (the whole rounded allocation); the one-pull
    path walks the same allocation arm by arm. Both estimate from the round's sums, so decisions
    coincide at the same sample counts.

    **Speed**: designs and rounded allocations depend only on the features and the active set, so
    they are memoised process-wide (:mod:`agents.common.design_cache`); per round the remaining
    cost is one ``r×r`` pseudo-inverse, an ``O(|A_r| r d)`` product and the ``O(|A_r| |S_r| d)``
    gaps.

    Args:
        constants: ``"theory"`` or ``"practical"`` round lengths in fixed confidence (above).
        design_tol: relative tolerance of the G-optimal design: stop once
            ``max_i ‖x̃_i‖²_{V(w)⁻¹} ≤ h_S (1 + design_tol)``, in (0, 1) (the paper's Algorithm 4
            gives no tolerance).

    The arms classified so far are the properties ``accepted`` (optimal) and ``rejected``
    (sub-optimal), sorted lists.

    Attributes:
        phase_history: after each round a dict with ``round``, ``active`` (arms at its start),
            ``rank`` (h_S), ``samples`` (N_r), ``kappa``, ``allocation`` (pulls per active arm),
            ``epsilon`` (ε_r; ``None`` in fixed budget), ``means`` (estimates of the active arms,
            shape (|A_r|, d)), ``gaps``, ``pareto`` (the mask of ``S_r``), ``accepted``,
            ``rejected`` (arms classified in that round) and ``survivors``.
    """

    card = AgentCard(
        summary="G-optimal empirical gap elimination for (eps-)Pareto set identification in a "
        "multi-output linear model. Fixed budget: ceil(log2 h) halving rounds; fixed "
        "confidence: rounds with the proof's constants (default) or the authors' practical ones",
        paper="Kone, Kaufmann & Richert, Bandit Pareto Set Identification in a Multi-Output "
        "Linear Model, AISTATS 2025, Algorithms 1-3 (GEGE)",
        heuristics=(
            Heuristic(
                "constants",
                lambda v: v == "practical",
                "the authors' round lengths h_r log(1/delta_r)/eps_r^2",
            ),
        ),
    )

    capabilities = AgentCapabilities(
        tasks=frozenset({"pareto_set"}),
        structures=frozenset({"linear"}),
        outcome_dims="any",
        batch=True,
    )

    parameters = {"constants": Choice("theory", "practical"), "design_tol": Real(gt=0, lt=1)}

    def __init__(self, constants: str = "theory", design_tol: float = 1e-6) -> None:
        self.constants = constants
        self.design_tol = design_tol

    # ------------------------------------------------------------------ episode set-up

    def _on_reset(self, spec: ProblemSpec) -> None:
        k = spec.n_arms
        features = np.eye(k) if spec.features is None else np.asarray(spec.features, float)
        self._z, self._zkey = reduced_coordinates(features)
        self._h = max(1, int(self._z.shape[1]))
        self._d = int(spec.outcome_dim)
        noise = 1.0 if spec.noise_std is None else spec.noise_std
        self._sigma2 = float(np.max(noise)) ** 2
        self._fb = spec.budget is not None
        self._eps_task = float(spec.epsilon or 0.0)
        if self._fb:
            self._rounds = max(1, (self._h - 1).bit_length())  # ⌈log₂ h⌉, at least one round
            if self._require_budget() < self._rounds:
                raise InvalidParameterError(
                    f"{self.name}: the budget must be at least the number of rounds "
                    f"⌈log2 h⌉ = {self._rounds} (h = {self._h}); got {spec.budget!r}."
                )
        self._book = ClassificationBook(k)
        self._round = 0
        self._start_phases(k, self._d)
        self._last_pareto: np.ndarray | None = None
        self.phase_history: list[dict] = []

    # ------------------------------------------------------------------ rounds

    def _round_length(self, r: int, rank: int) -> tuple[int, float]:
        """``N_r`` and κ of round ``r`` (Alg. 2 line 4 / Alg. 3 line 4; see the class docstring)."""
        if self._fb:
            budget = self._require_budget()
            per = budget // self._rounds
            n = per if r < self._rounds else budget - (self._rounds - 1) * per
            return n, KAPPA_FB
        eps = 2.0 ** (-(r + 1))
        delta_r = 6.0 * self._require_delta() / (math.pi**2 * r * r)
        if self.constants == "theory":
            stat = (
                32.0
                * (1.0 + 3.0 * eps)
                * self._sigma2
                * rank
                / eps**2
                * math.log(2.0 * self._d * self._book.active.size / delta_r)
            )
            n_stat = math.ceil(min(stat, MAX_PHASE_SAMPLES))
            n = max(n_stat, math.ceil(20.0 * rank / eps**2))
        else:
            n = math.ceil(min(rank * math.log(1.0 / delta_r) / eps**2, MAX_PHASE_SAMPLES))
        return max(n, 1), eps / 2.0

    def _plan_phase(self) -> None:
        """``OptEstimator`` steps 1–3 for the next round: design, ``N_r``, rounded allocation."""
        r = self._round + 1
        active = self._book.active
        za = self._z[active]
        tol = float(self.design_tol)
        weights, rank = DESIGNS.get(
            ("GEGE-design", self._zkey, active.tobytes(), tol), lambda: _design(za, tol)
        )
        n, kappa = self._round_length(r, max(rank, 1))
        alloc = DESIGNS.get(
            ("GEGE-alloc", self._zkey, active.tobytes(), tol, n, kappa),
            lambda: opt_allocation(za, weights, n, max(rank, 1), kappa),
        )
        self._remaining = np.zeros(self.n_arms, dtype=np.int64)
        self._remaining[active] = alloc
        self._left = n
        self._cursor = 0
        self._pcounts = np.zeros(self.n_arms, dtype=np.int64)
        self._psums = np.zeros((self.n_arms, self._d))
        self._plan = {
            "round": r,
            "active": active,
            "rank": rank,
            "samples": n,
            "kappa": kappa,
            "allocation": alloc,
        }
        self._planned = True

    def _estimate(self) -> np.ndarray:
        """Phase-local least squares ``Θ̂ = V⁺ Σ x_{a_t} y_tᵀ`` (Alg. 1 steps 5–6), active means."""
        pulled = np.flatnonzero(self._pcounts)
        zp = self._z[pulled]
        vecs, vals = pinv_parts((zp.T * self._pcounts[pulled]) @ zp)
        b = vecs.T @ (zp.T @ self._psums[pulled])
        theta = vecs @ (b / vals[:, None])
        return self._z[self._book.active] @ theta

    def _finish_phase(self) -> None:
        """Gaps, ``S_r`` and the round's classification (Alg. 2 lines 5–8 / Alg. 3 lines 6–8)."""
        r = self._plan["round"]
        active = self._book.active
        means = self._estimate()
        result = empirical_gaps(means)
        gaps, pareto = result.gaps, result.pareto
        if self._fb:
            n_keep = -(-self._h // 2**r)
            keep = np.zeros(active.size, dtype=bool)
            keep[halving_keep(gaps, pareto, n_keep)] = True
            acc = ~keep & pareto
            rej = ~keep & ~pareto
            eps = None
        else:
            eps = 2.0 ** (-(r + 1))
            acc = pareto & (gaps >= eps)
            rej = ~pareto & (gaps >= eps / 2.0)
            keep = ~(acc | rej)
        self.phase_history.append(
            {
                **self._plan,
                "epsilon": eps,
                "means": means,
                "gaps": gaps,
                "pareto": pareto,
                "accepted": active[acc].tolist(),
                "rejected": active[rej].tolist(),
                "survivors": active[keep].tolist(),
            }
        )
        self._last_pareto = pareto[keep]
        self._book.settle(acc, rej)  # the active arms are now active[keep]
        self._round = r
        self._planned = False

    @property
    def done(self) -> bool:
        """Whether the algorithm has finished (no round left to run)."""
        if not hasattr(self, "_book"):
            return False
        if self._fb:
            return self._round >= self._rounds
        if self._book.active.size <= 1:
            return True
        next_eps = 2.0 ** (-(self._round + 2))
        return self._eps_task > 0 and next_eps <= self._eps_task / 4.0

    # ------------------------------------------------------------------ protocol

    @property
    def accepted(self) -> list[int]:
        """Arms classified Pareto-optimal so far (``B_r``)."""
        return self._book.accepted

    @property
    def rejected(self) -> list[int]:
        """Arms classified sub-optimal so far (``D_r``)."""
        return self._book.rejected

    def recommend(self) -> Answer:
        """``B ∪ A`` once finished; before that, ``B`` plus the active arms estimated optimal.

        An interrupted episode (e.g. the fixed-confidence sample cap) uses the last finished
        round's ``S_r``, or the current round's data if no round has finished, or — with no data
        at all — every active arm.
        """
        self._require_reset("recommend")
        active = self._book.active
        if self.done:
            chosen = active
        elif self._last_pareto is not None:
            chosen = active[self._last_pareto]
        elif self._pcounts.any():
            chosen = active[pareto_mask(self._estimate())]
        else:
            chosen = active
        return self._book.answer(chosen)
