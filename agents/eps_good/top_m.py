"""Top-m linear bandit baselines of the all-ε-good benchmark: ``MLinGapE`` and ``LinGIFA``.

Réda, Kaufmann & Delahaye-Duriez, "Top-m identification for linear bandits" (AISTATS 2021,
PMLR 130): two gap-index focused algorithms (GIFA) for the m arms with the largest means, as the
LinFACT paper (Li, Ma, Hua & Zhu 2025, Sec. 7) uses them for all ε-good arms: a top-m
algorithm is given m (the paper passes the *expected* number of good arms, E[m̃] = 4 on its
synthetic instances and 20 on Free-Wilson) and answers its top-m set.

The rules follow the paper and the authors' public code (github.com/clreda/linear-top-m), read
for the definitions only: pair indices with a shared confidence width, one initial pull per arm
for m-LinGapE, greedy sampling for the pair's direction by default.

Both agents reuse :class:`agents.linear_bai.lingape.LinGapE`'s incremental least-squares state,
its confidence widths and its greedy / ratio arm choice for a direction; only the choice of the pair
(b_t, c_t), the stopping statistic and the answer differ. m-LinGapE decides on LinGapE's compiled
column state (μ̂, ‖x_k‖²_{A⁻¹} and lazily updated columns of X A⁻¹ Xᵀ;
:mod:`agents.common.kernels.top_m`), LinGIFA, which needs every pair, on ``X A⁻¹ Xᵀ`` or
``X A⁻¹`` (Sherman–Morrison updates) and :mod:`agents.common.kernels.pair_index`.
"""

from __future__ import annotations

import math

import numpy as np

from agents.base import AgentCard, BaseAgent, Heuristic
from agents.common import kernels
from agents.common.kernels import top_m as top_m_kernels
from agents.common.params import Choice, Constraint, Integer, Is, Real
from agents.linear_bai.lingape import CONFIDENCES, REFRESH_EVERY, THETA_BOUND_RULE, LinGapE
from agents.linear_bai.lingape import SELECTIONS as LINGAPE_SELECTIONS
from bandit_envs.core.problem import Answer, ProblemSpec
from bandit_envs.core.protocols import AgentCapabilities
from bandit_envs.errors import InvalidParameterError

__all__ = ["LinGIFA", "MLinGapE"]

ANSWERS = ("top_m", "eps_rule")

#: above this many arms the pair indices are computed only where bounds cannot exclude them
#: (exact; :meth:`MLinGapE._prune_pairs`, :meth:`LinGIFA._prune_indices`). Below it one dense
#: pass is cheaper than the bounds (measured with ``benchmarks/bench_top_m.py --scaling``).
PRUNE_ABOVE = 100


def _mth_largest_without_self(x: np.ndarray, m: int) -> np.ndarray:
    """For every k, the m-th largest of ``{x_a : a ≠ k}`` (needs len(x) ≥ m + 1), in O(K).

    With s_1 ≥ s_2 ≥ … the sorted values, removing x_k leaves s_{m+1} as the m-th largest
    when x_k ≥ s_m (ties included) and s_m otherwise.
    """
    k = x.shape[0]
    part = np.partition(x, (k - m - 1, k - m))
    return np.where(x >= part[k - m], part[k - m - 1], part[k - m])


def _top_m_parameters(selections: tuple[str, ...]) -> dict[str, Constraint]:
    """The constraints of a GIFA agent whose ``selection`` is one of ``selections``."""
    return {
        "m": Is(None) | Choice("hint") | Integer(min=1),
        "selection": Choice(*selections),
        "confidence": Choice(*CONFIDENCES),
        "ridge": Real(gt=0),
        "theta_bound": Is(None) | Real(ge=0),
        "tolerance": Real(ge=0) | Choice("epsilon"),
        "answer": Choice(*ANSWERS),
    }


class _TopMGap(LinGapE):
    """Shared set-up of the two GIFA agents (parameters, m, the pair indices, the answer).

    The pair index of Réda et al. (their paired confidence bound on μ_i − μ_j) is
    B_{i,j}(t) = μ̂_i − μ̂_j + C_t ‖x_i − x_j‖_{A_t⁻¹}, with ‖x_i − x_j‖²_{A⁻¹} = d_i + d_j − 2 G_ij
    (d = diag(G), G = X A⁻¹ Xᵀ) and C_t the confidence width of LinGapE (σ√(2β(t, δ)) in the
    paper's notation). On the event of the width, B_{i,j}(t) ≥ μ_i − μ_j for all pairs and all t.

    After ``reset``, ``epsilon`` (LinGapE's name for its stopping tolerance) holds the resolved
    ``tolerance``.
    """

    capabilities = AgentCapabilities(
        tasks=frozenset({"all_eps_good"}),
        settings=frozenset({"fixed_confidence"}),
        structures=frozenset({"linear"}),
        extras={"multiplicative": frozenset({False})},
    )
    parameters = _top_m_parameters(LINGAPE_SELECTIONS)
    parameter_rules = (THETA_BOUND_RULE,)

    def __init__(
        self,
        m: int | str | None = None,
        selection: str = "greedy",
        confidence: str = "self_normalized_ols",
        ridge: float = 1.0,
        theta_bound: float | None = None,
        tolerance: float | str = 0.0,
        answer: str = "top_m",
    ) -> None:
        self.m = m
        self.selection = selection
        self.confidence = confidence
        self.ridge = ridge
        self.theta_bound = theta_bound
        self.tolerance = tolerance
        self.answer = answer

    # ------------------------------------------------------------------ episode set-up

    def _on_reset(self, spec: ProblemSpec) -> None:
        who, k = self.name, spec.n_arms
        if k < 2:
            raise InvalidParameterError(f"{who}: a top-m problem needs K >= 2 arms; got {k}.")
        m = self.m
        if isinstance(m, str):  # "hint"
            if "m_hint" not in spec.extras:
                raise InvalidParameterError(
                    f"{who}: m='hint' reads ProblemSpec.extras['m_hint'] (the expected number of "
                    "good arms an instance family publishes); this problem has none. Pass m=<int> "
                    "or m=None."
                )
            m = int(min(max(round(float(spec.extras["m_hint"])), 1), k - 1))
        elif m is not None and m > k - 1:
            raise InvalidParameterError(
                f"{who}: m (the size of the top-m answer) must be at most K - 1 = {k - 1} on this "
                f"problem; got {m!r}."
            )
        tol = self.tolerance
        if isinstance(tol, str):  # "epsilon": the task's
            tol = float(spec.epsilon) if spec.epsilon is not None else 0.0
        # LinGapE's stopping tolerance ε: here ``tolerance``, resolved (LinGapE reads it at reset)
        self.epsilon = float(tol)
        super()._on_reset(spec)
        self._top_m = None if m is None else int(m)
        self._task_eps = float(spec.epsilon) if spec.epsilon is not None else 0.0
        self._prune = k > PRUNE_ABOVE
        self._in_j = np.zeros(k, dtype=bool)

    # ------------------------------------------------------------------ shared statistics

    def _current_m(self) -> int:
        """m, or m̂ = |{i : μ̂_i ≥ max μ̂ − ε}| capped at K − 1 when m is None."""
        if self._top_m is not None:
            return self._top_m
        mu = self._means
        count = int(np.count_nonzero(mu >= mu.max() - self._task_eps))
        return min(count, self.n_arms - 1)

    def _set_decision(self, in_j: np.ndarray, b: int, c: int, index: float) -> None:
        self._in_j = in_j
        self._best, self._challenger, self._index = b, c, index
        self._decided_at = self.t

    # ------------------------------------------------------------------ answer

    def _fallback_answer(self) -> Answer:
        """During the first round: the same rule on the sample means of the pulled arms."""
        if self.t == 0:
            return frozenset(range(self._top_m or 1))
        pulled = self.counts > 0
        means = np.where(pulled, self.sums[:, 0] / np.maximum(self.counts, 1), -np.inf)
        top = means.max()
        if self._top_m is None or self.answer == "eps_rule":
            return frozenset(int(i) for i in np.flatnonzero(means >= top - self._task_eps))
        order = np.argsort(-means, kind="stable")
        return frozenset(int(i) for i in order[: self._top_m])

    def recommend(self) -> Answer:
        """The answer: J(t) (``answer="top_m"``, the paper's output) or the ε-rule.

        ``answer="eps_rule"`` gives ``{i : μ̂_i ≥ max μ̂ − ε}`` on the final estimates.
        """
        self._require_reset("recommend")
        if not self._ready:
            return self._fallback_answer()
        if self.answer == "eps_rule":
            mu = self._means
            return frozenset(int(i) for i in np.flatnonzero(mu >= mu.max() - self._task_eps))
        if self._decided_at != self.t:
            self._decide()
        return frozenset(int(i) for i in self._in_j.nonzero()[0])


class MLinGapE(_TopMGap):
    """m-LinGapE (Réda, Kaufmann & Delahaye-Duriez 2021): LinGapE's top-m generalisation.

    * **Initialisation**: every arm once (as LinGapE; the authors' code does the same).
    * **Top-m set** J(t): the m arms with the largest μ̂ (lowest index on ties).
    * **Pair**: b_t = argmax_{j ∈ J(t)} max_{i ∉ J(t)} B_{i,j}(t) (the most ambiguous member of
      J(t)), c_t = argmax_{i ∉ J(t)} B_{i,b_t}(t) (its strongest challenger), and
      B(t) = B_{c_t,b_t}(t) = max_{j ∈ J, i ∉ J} B_{i,j}(t).
    * **Stopping**: B(t) ≤ ``tolerance`` (default 0, exact top-m: Li et al. do not give the
      tolerance of their adaptation). On the event of the width every i ∉ J then has
      μ_i ≤ μ_j + tolerance for every j ∈ J, so J(t) is a correct (ε, m) answer with
      probability ≥ 1 − δ.
    * **Sampling** for the direction y_t = x_{b_t} − x_{c_t}: LinGapE's ``"greedy"`` rule
      argmin_a ‖y_t‖_{(A_t + x_a x_aᵀ)⁻¹} (the default of the authors' experiments) or its
      ``"ratio"`` rule (track the optimal design of the single direction y_t).
    * With m = 1, J(t) = {argmax μ̂}, b_t = LinGapE's i_t, c_t its j_t and B(t) its gap index:
      m-LinGapE is LinGapE (tested).

    **All ε-good arms** (Li et al. 2025, Sec. 7): the paper gives top-m algorithms only E[m̃] and
    scores their answer J(t) (its ε-rule on the estimates is stated for the fixed-budget best-arm
    baselines only), so ``answer="top_m"`` is the default; ``"eps_rule"`` returns
    {i : μ̂_i ≥ max μ̂ − ε} on the final estimates instead. With ``m=None`` the agent runs on any
    all-ε-good problem: m is re-estimated before every decision as m̂(t) = |{i : μ̂_i ≥ max μ̂ − ε}|
    (capped at K − 1), so that J(t) is the empirical ε-good set and the stopping rule certifies
    that it is separated from the other arms. It is a heuristic for all ε-good arms: the answer is
    right when m̂ = |G_ε| at stopping, which the separation makes likely but does not guarantee;
    a problem where every arm is ε-good cannot be answered (top-m needs m ≤ K − 1).

    **Cost per pull**: LinGapE's compiled update and decision in one kernel call
    (:func:`agents.common.kernels.top_m.mlingape_step`): O(K) for the update, J(t) and each row
    j ∈ J of pair indices (one pass over the arms with the column G[:, j] = X A⁻¹x_j of LinGapE's
    column state, caught up lazily), O(K) for the greedy rule. Above :data:`PRUNE_ABOVE` arms
    and with |J| ≥ 4, only the pairs that the bounds μ̂_i − μ̂_j + C(‖x_i‖ + ‖x_j‖) ≥ B_{i,j}
    cannot exclude are evaluated (one exact row, then the kept rows on the kept columns; exact,
    tested against every pair).

    Args:
        m: the size of the top-m answer (1 ≤ m ≤ K − 1), None (re-estimated, see above), or
            ``"hint"``: the instance family's expected number of good arms
            (``ProblemSpec.extras["m_hint"]``, rounded, clipped to [1, K − 1]) — the paper's
            protocol, where top-m baselines know E[m̃] but not m̃.
        selection: ``"greedy"`` or ``"ratio"``.
        confidence: LinGapE's width: ``"self_normalized_ols"`` (default; proven, needs nothing),
            ``"self_normalized"`` (the Abbasi-Yadkori ridge bound of the authors' experiments;
            needs ``theta_bound`` ≥ ‖θ‖) or ``"heuristic"`` (σ√(2 log((1 + log t)/δ)), not proven).
        ridge: λ of ``"self_normalized"`` / c of ``"self_normalized_ols"`` (see LinGapE).
        theta_bound: S ≥ ‖θ‖₂ for ``"self_normalized"``.
        tolerance: ε_topm ≥ 0 of the stopping rule B(t) ≤ tolerance, or ``"epsilon"``: the
            task's ε. With ``m="hint"`` an instance whose m-th and (m+1)-th means tie (e.g. the
            static instance with m̃ ≠ E[m̃]) has no exact top-m answer and exact stopping never
            happens; (ε, m)-identification with the task's ε stops there.
        answer: ``"top_m"`` (J(t)) or ``"eps_rule"``.

    """

    card = AgentCard(
        summary="Top-m LinGapE: gap index over the pairs of J(t) x J(t)^c, greedy or ratio "
        "sampling of the chosen pair's direction; answers the top-m set (m given, or the size of "
        "the empirical eps-good set). Proven self-normalised width by default",
        paper="Réda, Kaufmann & Delahaye-Duriez, Top-m identification for linear bandits, "
        "AISTATS 2021 (m-LinGapE); adapted to all eps-good arms as in Li, Ma, Hua & Zhu, arXiv "
        "2510.00073 (2025), Sec. 7",
        heuristics=(
            Heuristic(
                "m",
                lambda v: v is None,
                "top-m with m re-estimated as the empirical epsilon-good set size; right only "
                "when that estimate is |G_eps| at stopping (default)",
            ),
            Heuristic("confidence", lambda v: v == "heuristic", "LinGapE's heuristic width"),
        ),
    )

    _column_decision = True  # LinGapE's compiled column state, this class's decision

    def _on_reset(self, spec: ProblemSpec) -> None:
        super()._on_reset(spec)
        k = spec.n_arms
        # J(t), then the rows and columns kept by the pruning (see agents.common.kernels.top_m)
        self._idx = np.zeros(3 * k, dtype=np.int64)
        self._work = np.zeros(k)  # the widths C‖x_k‖_{A⁻¹} of the pruning bounds
        self._m_arg = -1 if self._top_m is None else self._top_m

    def _decide(self) -> None:
        """J(t), (b_t, c_t), B(t) = max_{j ∈ J, i ∉ J} B_{i,j}(t) and the greedy arm (compiled)."""
        self._take(top_m_kernels.mlingape_select(*self._state, *self._decision_args()))

    def _decision_args(self) -> tuple:
        """The arguments of m-LinGapE's compiled decision after the column state's arrays."""
        return (
            self._in_j,
            self._idx,
            self._work,
            self._m_arg,
            self._task_eps,
            self._width(),
            self._eps,
            self._prune,
            self._greedy,
        )

    def _take(self, decision: tuple[int, int, float, int]) -> None:
        """Record a compiled decision: (b_t, c_t), B(t) and the greedy arm."""
        b, c, self._index, self._arm = decision
        self._best, self._challenger = b, c
        self._decided_at = self.t

    def select(self) -> int | None:
        """An arm of the first round, then the compiled decision's arm; None once B(t) ≤ ε.

        The greedy arm comes with the decision; the ratio rule runs on its pair (i_t, j_t).
        """
        if not self.__dict__.get("_ready", False) or self._stopped:
            return super().select()
        if self._decided_at != self.t:  # after the first round or an exact refresh
            self._decide()
        if self._index <= self._eps:
            self._stopped = True
            return None
        return self._arm if self._greedy else self._ratio_arm()

    def observe(self, arm: int, outcome: np.ndarray) -> None:
        """One outcome: LinGapE's update and the next decision in one kernel call.

        The first round and the exact refresh every ``REFRESH_EVERY`` pulls take LinGapE's
        NumPy path (the decision then follows in :meth:`select`).
        """
        if not self.__dict__.get("_ready", False) or self._since_refresh + 1 >= REFRESH_EVERY:
            BaseAgent.observe(self, arm, outcome)
            return
        self.t += 1
        self._since_refresh += 1
        self._logdet += math.log(self._e[arm])  # log det A grows first, for the width C_t
        state, args = self._state, self._decision_args()
        self._take(
            top_m_kernels.mlingape_step(
                *state, self.counts, self.sums, arm, float(outcome[0]), *args
            )
        )

    def _prune_pairs(
        self, j_set: np.ndarray, i_set: np.ndarray, c: float
    ) -> tuple[np.ndarray, np.ndarray]:
        """The rows j ∈ ``j_set`` and columns i ∈ ``i_set`` that the pruning bounds keep.

        ``i_set`` is the complement of ``j_set``, ``c`` the width; the bounds are those of
        :func:`agents.common.kernels.top_m.mlingape_prune` (for inspection: the decision calls
        the kernel itself).
        """
        k = self.n_arms
        in_j = np.zeros(k, dtype=bool)
        in_j[j_set] = True
        if np.any(in_j[i_set]) or j_set.size + i_set.size != k:
            raise ValueError("_prune_pairs: i_set must be the complement of j_set.")
        idx = np.zeros(3 * k, dtype=np.int64)
        idx[: j_set.size] = np.sort(j_set)
        rows, cols, *_ = top_m_kernels.mlingape_prune(
            *self._state, in_j, idx, j_set.size, np.empty(k), c
        )
        return idx[k : k + rows].copy(), idx[2 * k : 2 * k + cols].copy()


class LinGIFA(_TopMGap):
    """LinGIFA (Réda, Kaufmann & Delahaye-Duriez 2021): the linear UGapE-like GIFA algorithm.

    * **Initialisation**: every arm once (the authors' code starts from a ridge prior instead;
      the proven least-squares width needs the first round's Gram matrix, K pulls).
    * **Arm index**: B_j(t) = the m-th largest of {B_{a,j}(t) : a ≠ j} — an upper confidence
      bound on how far j is from the top m (m-th largest of its pairwise gaps).
    * **Top-m set** J(t): the m arms with the smallest B_j(t) (lowest index on ties).
    * **Pair**: b_t = argmax_{j ∈ J(t)} B_j(t), c_t = argmax_{a ∉ J(t)} B_{a,b_t}(t).
    * **Stopping**: max_{j ∈ J(t)} B_j(t) ≤ ``tolerance`` (0 by default). On the event of the
      width, fewer than m arms then beat any j ∈ J by more than the tolerance, so J(t) is a
      correct (ε, m) answer with probability ≥ 1 − δ.
    * **Sampling**: ``"greedy"`` (default) or ``"ratio"`` for y_t = x_{b_t} − x_{c_t}, as
      m-LinGapE, or ``"largest_variance"``: the more uncertain of b_t and c_t
      (argmax ‖x‖_{A_t⁻¹}, UGapE's rule, the non-greedy option of the authors' code).

    All ε-good arms, ``m=None`` and ``answer`` as in :class:`MLinGapE` (here m̂(t) only sets
    which order statistic is B_j; J(t) comes from the indices).

    **Cost per pull**: the rule defines all K indices, i.e. the K × K pair indices (every one
    moves at every pull: C_t and A_t⁻¹ change) and an m-th order statistic per arm, Θ(K²)
    when evaluated in full: one BLAS product for the block of X A⁻¹ Xᵀ, then one compiled pass
    (:func:`agents.common.kernels.pair_index_rows`) that forms each pair index and keeps the m
    largest per arm, without the K × K block of indices. With K ≤ :data:`PRUNE_ABOVE` that is
    what runs. Above it, exact bounds select the arms j that can be among the m smallest
    indices and the rows a that can be among the top m of their columns, with s = C‖x‖_{A⁻¹}:
    B_j ≤ (m-th largest of μ̂_a + s_a over a ≠ j) − μ̂_j + s_j, B_j ≥ (m-th largest of μ̂_a
    over a ≠ j) − μ̂_j, and B_j ≥ the m-th largest of the exact B_{a,j} over the m + 2 arms a
    with the largest μ̂ (one pass over the arms per such a); the m-th smallest index is at most
    the largest exact B_j of the m arms with the smallest lower bounds. The candidates are then
    about m arms, and a pull costs O(m·K·r) instead of O(K²·r); the indices are exact (tested
    against the dense computation). While the selected block is more than half of K × K, the
    dense pass is used instead.

    Args:
        m: the size of the top-m answer (1 ≤ m ≤ K − 1), None (re-estimated) or ``"hint"``
            (``ProblemSpec.extras["m_hint"]``, as for m-LinGapE).
        selection: ``"greedy"``, ``"ratio"`` or ``"largest_variance"``.
        confidence, ridge, theta_bound, tolerance, answer: as :class:`MLinGapE`.

    """

    card = AgentCard(
        summary="Linear UGapE-like top-m: the index of an arm is the m-th largest of its pair "
        "indices and J(t) holds the m smallest; greedy, ratio or largest-variance sampling, m "
        "given or re-estimated, proven width",
        paper="Réda, Kaufmann & Delahaye-Duriez, Top-m identification for linear bandits, "
        "AISTATS 2021 (LinGIFA); adapted to all eps-good arms as in Li, Ma, Hua & Zhu, arXiv "
        "2510.00073 (2025), Sec. 7",
        heuristics=(
            Heuristic(
                "m",
                lambda v: v is None,
                "top-m with m re-estimated as the empirical epsilon-good set size; right only "
                "when that estimate is |G_eps| at stopping (default)",
            ),
            Heuristic("confidence", lambda v: v == "heuristic", "LinGapE's heuristic width"),
        ),
    )

    parameters = _top_m_parameters((*LINGAPE_SELECTIONS, "largest_variance"))

    def _products(self, rows: np.ndarray | None, cols: np.ndarray | None) -> np.ndarray:
        """P[r, s] = x_{rows[r]}ᵀ A⁻¹ x_{cols[s]} (None: all arms): a block of G = X A⁻¹ Xᵀ.

        Cost O(|rows|·|cols|) with the G representation (a view when both are None),
        O(|rows|·|cols|·r) with W = X A⁻¹ (one BLAS product).
        """
        h, q = self._h, self._q
        if self._full:
            if rows is None and cols is None:
                return h[:, :q]
            every = np.arange(self.n_arms)
            return h[np.ix_(every if rows is None else rows, every if cols is None else cols)]
        w = h[:, :q] if rows is None else h[rows, :q]
        return w @ (self._z if cols is None else self._z[cols]).T

    def _decide(self) -> None:
        """B_j(t) for the arms that matter, J(t), (b_t, c_t) and max_{j ∈ J} B_j(t)."""
        k = self.n_arms
        m = self._current_m()
        c = self._width()
        dense = not self._prune
        if self._prune:
            cand, rows = self._prune_indices(m, c)
            dense = cand.size * rows.size > k * k // 2  # wide early widths: nothing to gain
        if dense:
            cand = rows = np.arange(k)
        # B_j for j in cand: the m-th largest of B_{a,j} over a in rows, a ≠ j (compiled, one
        # pass over the products without the K × K block of indices)
        p = self._products(
            None if dense else cand,
            None if dense or rows.size == k else rows,
        )
        pos = np.full(k, -1)
        pos[rows] = np.arange(rows.size)
        own = pos[cand]
        d, mu = self._d, self._means
        args = (d[cand], d[rows], mu[cand], mu[rows])
        index, row = np.empty(cand.size), np.empty(rows.size)
        kernels.pair_index_rows(p, *args, own, c, m, index, -1, row)
        chosen = np.argsort(index, kind="stable")[:m]  # positions in cand; lowest first on ties
        top = int(chosen[int(np.argmax(index[chosen]))])  # the largest; lowest position on ties
        one = slice(top, top + 1)  # its row of pair indices, for the challenger
        kernels.pair_index_rows(
            p[one], args[0][one], args[1], args[2][one], args[3], own[one], c, m, index[one], 0, row
        )
        in_j = np.zeros(k, dtype=bool)
        in_j[cand[chosen]] = True
        row[in_j[rows]] = -np.inf
        s = int(np.argmax(row))
        self._set_decision(in_j, int(cand[top]), int(rows[s]), float(index[top]))

    def _partial_indices(
        self, js: np.ndarray | None, arms: np.ndarray | None, m: int, c: float
    ) -> np.ndarray:
        """For each j in ``js``: the m-th largest of B_{a,j}(t) over a ∈ ``arms``, a ≠ j.

        None: every arm. Exact pair indices (one product for the block of X A⁻¹ Xᵀ, then
        :func:`agents.common.kernels.pair_index_rows`); ``arms`` needs m arms besides each j.
        """
        k = self.n_arms
        every = np.arange(k)
        rows, cols = every if js is None else js, every if arms is None else arms
        pos = np.full(k, -1)
        pos[cols] = np.arange(cols.size)
        d, mu = self._d, self._means
        index, unused = np.empty(rows.size), np.empty(cols.size)
        kernels.pair_index_rows(
            self._products(js, arms),
            d[rows],
            d[cols],
            mu[rows],
            mu[cols],
            pos[rows],
            c,
            m,
            index,
            -1,
            unused,
        )
        return index

    def _prune_indices(self, m: int, c: float) -> tuple[np.ndarray, np.ndarray]:
        """Arms j that can be in J(t), and arms a that can be in the top m of their columns.

        See the class docstring for the bounds; a 1e-9 relative slack guards against round-off.
        Both sets contain every arm the dense computation would use, so the result is exact.
        """
        mu, k = self._means, self.n_arms
        s = c * np.sqrt(np.maximum(self._d, 0.0))
        u = mu + s
        mth_mu = _mth_largest_without_self(mu, m)
        upper = _mth_largest_without_self(u, m) - mu + s
        # lower bounds: B_j ≥ the m-th largest of B_{a,j} over a few arms a (the m + 1 largest μ̂
        # and one more: at least m besides j), exact pair indices, one pass each over the arms
        probe = np.sort(np.argpartition(-mu, m)[: min(m + 2, k)])
        lower = np.maximum(mth_mu - mu, self._partial_indices(None, probe, m, c))
        # tau ≥ the m-th smallest B_j: the m-th smallest upper bound, or the largest exact B_j of
        # the m arms with the smallest lower bounds (any m arms bound it)
        tau = float(np.partition(upper, m - 1)[m - 1])
        low_m = np.sort(np.argpartition(lower, m - 1)[:m])
        tau = min(tau, float(self._partial_indices(low_m, None, m, c).max()))
        cand = np.flatnonzero(lower <= tau + 1e-9 * (1.0 + abs(tau)))
        floor = float(np.min(mth_mu[cand] - s[cand]))
        rows = np.flatnonzero(u >= floor - 1e-9 * (1.0 + abs(floor)))
        if rows.size < m + 1:  # pragma: no cover - excluded by the bounds; kept as a guard
            rows = np.arange(self.n_arms)
        return cand, rows

    def select(self) -> int | None:
        """LinGapE's loop with this pair; ``"largest_variance"`` pulls the more uncertain arm."""
        if self.selection != "largest_variance":
            return super().select()
        self._require_reset("select")
        if not self._ready or self._stopped:
            return super().select()
        if self._decided_at != self.t:
            self._decide()
        if self._index <= self._eps:
            self._stopped = True
            return None
        b, c = self._best, self._challenger
        return b if self._d[b] >= self._d[c] else c
