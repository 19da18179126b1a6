"""The catalogue: agent names and environment ids, lookups with "did you mean", compatibility."""

from __future__ import annotations

import dataclasses
import difflib
import importlib
import inspect
from typing import Any

import gymnasium as gym

import bandit_envs  # noqa: F401 - registers the ids with Gymnasium
from bandit_envs.core.protocols import AgentCapabilities, compatibility
from bandit_envs.envs.registration import ENVS, EnvEntry
from bandit_envs.errors import InvalidParameterError, UnknownNameError


@dataclasses.dataclass(frozen=True)
class AgentEntry:
    """A catalogue entry: the agent's name, its class, and its paper."""

    name: str
    entry_point: str
    summary: str
    source: str

    def load(self) -> type:
        """Import and return the agent class."""
        module, _, attr = self.entry_point.partition(":")
        return getattr(importlib.import_module(module), attr)

    @property
    def capabilities(self) -> AgentCapabilities:
        """The agent's declared capabilities."""
        return self.load().capabilities


AGENTS: tuple[AgentEntry, ...] = (
    AgentEntry(
        name="Uniform",
        entry_point="agents.linear_bai.uniform:Uniform",
        summary="round robin; fixed budget: least-squares best arm; fixed confidence: GLR "
        "stopping with a fixed-design threshold",
        source="baseline (GLR stopping: Garivier & Kaufmann 2016)",
    ),
    AgentEntry(
        name="GAllocation",
        entry_point="agents.linear_bai.soare:GAllocation",
        summary="static G-optimal allocation (greedy with lexicographic ties, or design + "
        "rounding), empirical stopping rule Eq. 11",
        source="Soare, Lazaric & Munos, NIPS 2014, Sec. 4 (spec 001 §2.1)",
    ),
    AgentEntry(
        name="XYAllocation",
        entry_point="agents.linear_bai.soare:XYAllocation",
        summary="static XY (transductive) allocation over all arm differences, Eq. 11 stopping",
        source="Soare, Lazaric & Munos, NIPS 2014, Sec. 4 (spec 001 §2.2)",
    ),
    AgentEntry(
        name="XYAdaptive",
        entry_point="agents.linear_bai.soare:XYAdaptive",
        summary="phases of XY allocation on the surviving directions, phase length by the "
        "alpha rule, phase-local elimination",
        source="Soare, Lazaric & Munos, NIPS 2014, Sec. 5, Fig. 3 (spec 001 §2.3)",
    ),
    AgentEntry(
        name="XYOracle",
        entry_point="agents.linear_bai.soare:XYOracle",
        summary="ORACLE baseline: tracks the optimal allocation computed from the true theta",
        source="Soare, Lazaric & Munos, NIPS 2014, Eq. 5 (spec 001 §2.4)",
    ),
    AgentEntry(
        name="FullyAdaptiveXY",
        entry_point="agents.linear_bai.soare:FullyAdaptiveXY",
        summary="XY greedy on the directions still plausible at every round, self-normalised "
        "(Prop. 2) widths with a ridge estimate",
        source="Soare, Lazaric & Munos, NIPS 2014, Sec. 6 (spec 001 §2.5)",
    ),
    AgentEntry(
        name="RAGE",
        entry_point="agents.linear_bai.rage:RAGE",
        summary="phased elimination: XY-optimal design on the active differences, efficient "
        "rounding, phase-local least squares, drop gaps > 2^-(m+2) (delta-correct)",
        source="Fiez, Jain, Jamieson & Ratliff, NeurIPS 2019, Algorithm 1 (Z = X)",
    ),
    AgentEntry(
        name="LinGapE",
        entry_point="agents.linear_bai.lingape:LinGapE",
        summary="gap-based fully adaptive sampling (greedy or ratio rule), stop when the gap "
        "index <= epsilon; heuristic (default) or self-normalised confidence widths",
        source="Xu, Honda & Sugiyama, AISTATS 2018",
    ),
    AgentEntry(
        name="ODLinBAI",
        entry_point="agents.linear_bai.od_linbai:ODLinBAI",
        summary="fixed budget: ceil(log2 d) phases of G-optimal sampling of the active arms, "
        "halving by phase-local least squares",
        source="Yang & Tan, NeurIPS 2022 (OD-LinBAI, Algorithm 1)",
    ),
    AgentEntry(
        name="LinearTrackAndStop",
        entry_point="agents.linear_bai.track_and_stop:LinearTrackAndStop",
        summary="C-tracking of the optimal allocation w*(theta_hat) (lazy, warm-started design "
        "solves), forced exploration lambda_min(A_t) >= c sqrt(t); GLR stopping with a proven "
        "self-normalised threshold (default) or the log((1+log t)/delta) heuristic",
        source="Jedra & Proutiere, NeurIPS 2020, Optimal Best-arm Identification in Linear Bandits",
    ),
    AgentEntry(
        name="PELEG",
        entry_point="agents.linear_bai.peleg:PELEG",
        summary="phased elimination; each phase an online game (Hedge MAX player over arms vs "
        "best-response MIN player), cumulative tracking, least squares on the phase's data",
        source="Zaki, Mohan & Gopalan, Explicit Best Arm Identification in Linear Bandits Using "
        "No-Regret Learners (spec 003)",
    ),
    AgentEntry(
        name="GEGE",
        entry_point="agents.pareto.gege:GEGE",
        summary="G-optimal empirical gap elimination for (eps-)Pareto set identification in a "
        "multi-output linear model; fixed budget (halving, ceil(log2 h) rounds) and fixed "
        "confidence (theory constants, or the authors' practical ones)",
        source="Kone, Kaufmann & Richert, Bandit Pareto Set Identification in a Multi-Output "
        "Linear Model, Alg. 1-3 (spec 000 §3)",
    ),
    AgentEntry(
        name="EGESH",
        entry_point="agents.pareto.psi_elimination:EGESH",
        summary="unstructured Pareto set identification, fixed budget: empirical gap elimination "
        "with successive halving (ceil(log2 K) rounds, statistics accumulate; needs "
        "T >= K ceil(log2 K))",
        source="Kone, Kaufmann & Richert 2024 (EGE-SH), as run in the GEGE paper "
        "(spec 000 §3.9(b))",
    ),
    AgentEntry(
        name="EGESR",
        entry_point="agents.pareto.psi_elimination:EGESR",
        summary="unstructured Pareto set identification, fixed budget: empirical gap elimination "
        "with the successive rejects schedule (one accept or reject per phase)",
        source="Kone, Kaufmann & Richert 2024 (EGE-SR); schedule of Audibert, Bubeck & Munos "
        "2010 (spec 000 §3.9(c))",
    ),
    AgentEntry(
        name="PSIUniform",
        entry_point="agents.pareto.psi_elimination:PSIUniform",
        summary="round robin for Pareto set identification; fixed budget: empirical Pareto set of "
        "sample means; fixed confidence: APE's stopping rule (union-bound or heuristic widths)",
        source="baseline (spec 000 §3.9(a), (g)); stopping rule of Kone, Kaufmann & Richert "
        "2023 (APE)",
    ),
    AgentEntry(
        name="APE",
        entry_point="agents.pareto.psi_confidence:APE",
        summary="Adaptive Pareto Exploration: fully sequential, pulls b_t and c_t (or the less "
        "sampled), incremental O(Kd) pairwise state, APE stopping rule (union or heuristic "
        "widths)",
        source="Kone, Kaufmann & Richert, NeurIPS 2023 (spec 000 §3.9(d))",
    ),
    AgentEntry(
        name="Racing",
        entry_point="agents.pareto.psi_confidence:Racing",
        summary="Pareto racing: rounds of one pull per active arm, remove confidently dominated "
        "arms, accept P2 (APE's pairwise widths)",
        source="Auer, Chiang, Ortner & Drugan, ICML 2016, Alg. 1 (spec 000 §3.9(f))",
    ),
    AgentEntry(
        name="PAL",
        entry_point="agents.pareto.psi_confidence:PAL",
        summary="PAL with a linear kernel: rounds of one pull per active arm, least squares on "
        "the features, widths sqrt(b_t ||x||^2_{V^-1}) with the authors' /5 tuning (heuristic)",
        source="Zuluaga, Sergent, Krause & Püschel, ICML 2013, as in Kone et al.'s code "
        "(spec 000 §3.9(e))",
    ),
    AgentEntry(
        name="LinFACTG",
        entry_point="agents.eps_good.linfact:LinFACTG",
        summary="all eps-good arms: rounds of G-optimal design on the projected active arms, "
        "eq. 21 counts, fresh least squares per round, Algorithm 3 good/bad classification",
        source="Li, Ma, Hua & Zhu 2025 (arXiv 2510.00073), Alg. 1, 3, 4 (spec 002 §2.1-§2.4)",
    ),
    AgentEntry(
        name="LinFACTXY",
        entry_point="agents.eps_good.linfact:LinFACTXY",
        summary="all eps-good arms: rounds of XY-optimal design over the active arms' "
        "differences, eq. 22 counts (ceil rounding), fresh least squares per round, Algorithm 3",
        source="Li, Ma, Hua & Zhu 2025 (arXiv 2510.00073), Alg. 2, 3, 4 (spec 002 §2.1-§2.4)",
    ),
    AgentEntry(
        name="LinFACTMIS",
        entry_point="agents.eps_good.linfact_robust:LinFACTMIS",
        summary="all eps-good arms under misspecification |Delta_m|_inf <= L_m: LinFACT-G rounds "
        "with OLS and the radius eps_r + L_m (sqrt(d) + 1) (Prop. 5.4, corrected), or the "
        "orthogonal-"
        "parameterization estimator with eq. 33 counts and radius eps_r + (sqrt(d)+2) L_m; "
        "use_features='never' is the unstructured baseline, 'when_cheaper' drops the features "
        "once L_m dominates",
        source="Li, Ma, Hua & Zhu 2025 (arXiv 2510.00073), Sec. 5, Thm 5.1, 5.2, Prop. 5.4, "
        "Alg. 5 (spec 002 §2.5)",
    ),
    AgentEntry(
        name="LinFACTGLM",
        entry_point="agents.eps_good.linfact_robust:LinFACTGLM",
        summary="all eps-good arms of a generalized linear (logistic, Poisson) bandit: LinFACT-G "
        "rounds with eq. 40 counts (c_min given or sigma'(B) from a predictor bound), Newton/IRLS "
        "maximum likelihood per round (ridge, iteration cap, warm-up); link='identity' is "
        "LinFACT-G's linear fit",
        source="Li, Ma, Hua & Zhu 2025 (arXiv 2510.00073), Sec. 6, Thm 6.1, Alg. 6 (spec 002 §2.6)",
    ),
    AgentEntry(
        name="MLinGapE",
        entry_point="agents.eps_good.top_m:MLinGapE",
        summary="top-m LinGapE: gap index over J(t) x J(t)^c, greedy/ratio sampling of x_b - x_c, "
        "answers the top-m set (m given, or re-estimated as the empirical eps-good set size); "
        "proven self-normalised width by default",
        source="Réda, Kaufmann & Delahaye-Duriez, AISTATS 2021 (adapted as in Li, Ma, Hua & Zhu; "
        "spec 002 §2.9)",
    ),
    AgentEntry(
        name="LinGIFA",
        entry_point="agents.eps_good.top_m:LinGIFA",
        summary="linear UGapE-like top-m: arm index = m-th largest pair index, J(t) = the m "
        "smallest, greedy/ratio/largest-variance sampling; m given or re-estimated; proven width",
        source="Réda, Kaufmann & Delahaye-Duriez, AISTATS 2021 (adapted as in Li, Ma, Hua & Zhu; "
        "spec 002 §2.9)",
    ),
    AgentEntry(
        name="BayesGap",
        entry_point="agents.linear_bai.bayes_fb:BayesGap",
        summary="fixed budget, Bayesian gap-based sampling with a Gaussian linear belief "
        "(correlated posterior of the means); answers the best arm, or the eps-rule on the "
        "posterior means for all eps-good problems",
        source="Hoffman, Shahriari & de Freitas, AISTATS 2014, Alg. 1 (adapted as in Li, Ma, Hua "
        "& Zhu; spec 002 §2.9)",
    ),
    AgentEntry(
        name="KGCB",
        entry_point="agents.linear_bai.bayes_fb:KGCB",
        summary="fixed budget, knowledge gradient with correlated beliefs (exact piecewise-linear "
        "expectation) under a Gaussian linear belief; best arm or the eps-rule on the posterior",
        source="Frazier, Powell & Dayanik 2009; Negoescu, Frazier & Powell 2011 (Free-Wilson "
        "beliefs; adapted as in Li, Ma, Hua & Zhu, spec 002 §2.9)",
    ),
    AgentEntry(
        name="LazyTTS",
        entry_point="agents.eps_good.lazy_tts:LazyTTS",
        summary="thresholding Track-and-Stop with lazy allocation updates: identifies "
        "{mu_i >= threshold} for a given threshold, or all eps-good arms (estimated threshold, "
        "all eps-good GLR and allocation) with threshold=None; proven GLR threshold by default",
        source="Rivera & Tewari 2024 (arXiv 2402.09467); tracking of Jedra & Proutière 2020 "
        "(as run in Li, Ma, Hua & Zhu; spec 002 §2.9)",
    ),
    AgentEntry(
        name="SFSR",
        entry_point="agents.constrained.sfsr:SFSR",
        summary="constrained best mixed arm, fixed budget: successive rejects over the K+L LP "
        "items (eq. 7 schedule), removing the lowest intersection value (best empirical basis "
        "containing the item); score='lagrangian' gives SFSR-L",
        source="Tang, Jain, Nayyar & Nuzzo 2024 (arXiv 2405.15090), Alg. 1, eq. 6 (spec 004 §2.4)",
    ),
    AgentEntry(
        name="SFSRL",
        entry_point="agents.constrained.sfsr:SFSRL",
        summary="SFSR-L: SFSR removing the most negative reduced cost at the empirical LP dual "
        "(no guarantee; fails on the Appendix-A construction)",
        source="Tang, Jain, Nayyar & Nuzzo 2024 (arXiv 2405.15090), eq. 8 (spec 004 §2.5)",
    ),
    AgentEntry(
        name="USLP",
        entry_point="agents.constrained.sfsr:USLP",
        summary="uniform sampling (floor(N/K0) pulls per unknown arm), then the optimal basis of "
        "the empirical LP",
        source="baseline of Tang, Jain, Nayyar & Nuzzo 2024 (arXiv 2405.15090), L212 "
        "(spec 004 §2.7)",
    ),
)

_AGENTS_BY_NAME = {entry.name: entry for entry in AGENTS}
_ENVS_BY_ID = {entry.id: entry for entry in ENVS}


def _unknown(kind: str, name: str, known: list[str]) -> UnknownNameError:
    close = difflib.get_close_matches(name, known, n=3, cutoff=0.5)
    hint = f" Did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
    return UnknownNameError(f"Unknown {kind} {name!r}.{hint} Known {kind}s: {', '.join(known)}.")


def list_agents() -> list[str]:
    """The names of every agent in the catalogue."""
    return [entry.name for entry in AGENTS]


def list_envs() -> list[str]:
    """The ids of every environment of the suite (all registered with Gymnasium)."""
    return [entry.id for entry in ENVS]


def agent_entry(name: str) -> AgentEntry:
    """The catalogue entry of agent ``name`` (raises UnknownNameError with suggestions)."""
    if not isinstance(name, str):
        raise InvalidParameterError(
            f"agent_entry: an agent name is a string such as 'Uniform'; got {name!r}."
        )
    try:
        return _AGENTS_BY_NAME[name]
    except KeyError:
        raise _unknown("agent", name, list_agents()) from None


def env_entry(env_id: str) -> EnvEntry:
    """The catalogue entry of environment ``env_id`` (raises UnknownNameError with suggestions)."""
    if not isinstance(env_id, str):
        raise InvalidParameterError(
            f"env_entry: an environment id is a string such as 'LinearBAI-Soare-v0'; got "
            f"{env_id!r}."
        )
    key = env_id.split(":", 1)[1] if env_id.startswith("bandit_envs:") else env_id
    try:
        return _ENVS_BY_ID[key]
    except KeyError:
        raise _unknown("environment", env_id, list_envs()) from None


def make_agent(name: str, **kwargs: Any) -> Any:
    """Build agent ``name`` with hyper-parameters ``kwargs``.

    Raises:
        UnknownNameError: no such agent (the message suggests close names).
        InvalidParameterError: a keyword the agent does not take (the message lists valid ones).

    """
    cls = agent_entry(name).load()
    params = [
        p.name
        for p in inspect.signature(cls.__init__).parameters.values()
        if p.name != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    ]
    unknown = sorted(set(kwargs) - set(params))
    if unknown:
        raise InvalidParameterError(
            f"make_agent: {name} has no parameter(s) {unknown}; valid parameters are {params}."
        )
    return cls(**kwargs)


def make_env(env_id: str, **kwargs: Any) -> gym.Env:
    """``gym.make`` for an id of the suite, with a helpful error for unknown ids."""
    entry = env_entry(env_id)
    return gym.make(entry.id, **kwargs)


def is_compatible(agent: str | Any, env: str | gym.Env, **env_kwargs: Any) -> tuple[bool, str]:
    """Whether an agent (name or object) can run on an env (id or instance), and why not."""
    if isinstance(env, str):
        env = make_env(env, **env_kwargs)
    spec = env.unwrapped.problem
    target = agent_entry(agent).capabilities if isinstance(agent, str) else agent
    ok, why = compatibility(target, spec)
    if isinstance(agent, str):
        why = why.replace("AgentCapabilities", agent)
    return ok, why


def _missing_data(names: tuple[str, ...]) -> str | None:
    """The first data set of ``names`` not available locally (no download), or None."""
    from bandit_envs.data.datasets import dataset_path
    from bandit_envs.errors import DataError

    for name in names:
        try:
            dataset_path(name, download=False)
        except DataError:
            return name
    return None


def _in_setting(spec: Any, setting: str) -> Any:
    """``spec`` posed in ``setting`` (a placeholder δ or budget: compatibility ignores them)."""
    if setting == spec.setting:
        return spec
    if setting == "fixed_confidence":
        return spec.replace(setting=setting, delta=0.1, budget=None)
    return spec.replace(setting=setting, budget=1000, delta=None, max_samples=None)


def compatibility_matrix() -> dict[tuple[str, str], tuple[bool, str]]:
    """``{(agent, env id): (compatible, reason)}`` over the whole catalogue (default keywords).

    An agent counts as compatible with an id when it can run in at least one setting of it.
    Ids whose real data set is not on this machine are not built (listing never downloads):
    their pairs say "not checked" and how to get the data.
    """
    out: dict[tuple[str, str], tuple[bool, str]] = {}
    for env_id in list_envs():
        if env_id.endswith("-Custom-v0"):
            continue
        missing = _missing_data(env_entry(env_id).datasets)
        if missing:
            why = (
                f"not checked: needs the {missing} data set (set BANDIT_ENVS_DATA, or run "
                f"`python -m bandit_envs.data.datasets fetch {missing}`)"
            )
            out.update({(agent.name, env_id): (False, why) for agent in AGENTS})
            continue
        spec = make_env(env_id).unwrapped.problem
        for agent in AGENTS:
            caps = agent.capabilities
            results = [
                compatibility(caps, _in_setting(spec, s), agent.name) for s in sorted(caps.settings)
            ]
            ok = any(r[0] for r in results)
            out[(agent.name, env_id)] = (ok, "compatible" if ok else results[0][1])
    return out


__all__ = [
    "AGENTS",
    "AgentEntry",
    "agent_entry",
    "compatibility_matrix",
    "env_entry",
    "is_compatible",
    "list_agents",
    "list_envs",
    "make_agent",
    "make_env",
]
