"""The δ-audit: does every fixed-confidence agent of the zoo err at most δ of the time?

A fixed-confidence agent is *δ-correct* when, on every instance, it stops and answers wrongly
with probability at most δ. The audit runs every such agent of the catalogue (oracle baselines
included, and marked) with its **default parameters** on small, easy instances of every
environment id it can run on (:data:`EASY_INSTANCES`), many seeds each, and reports the error
rate with its exact Clopper–Pearson 95% interval next to δ. A row is flagged ``VIOLATION`` when
the whole interval lies above δ (:func:`is_violation`): the agent then errs more often than δ
with 95% confidence. Agents whose default stopping rule is a published *heuristic* (no proof of
δ-correctness) are marked as such (:func:`heuristic_note`): for them a violation is a fact about
the heuristic, not a bug.

Why easy instances: δ-correctness must hold on every instance, so an audit may pick the ones
where an episode is short (large gaps relative to σ, few arms) and afford ≥ 1000 seeds per
(agent, env). A wrong constant, a missing union bound, a stopping test on the wrong statistic
or a wrong answer at stopping shows there as well as anywhere. What the audit cannot do is
certify δ-correctness: proven thresholds are conservative, so their error rates on easy
instances are far below δ, and a heuristic threshold that is too small in some regime (many
arms, tiny gaps, long episodes) can look safe on easy instances.

Each (agent, easy instance, δ) cell is one resumable sweep (:func:`registry.sweeps.sweep`)
in its own folder ``OUT/<agent>/<instance>/delta=<δ>``, so a killed audit resumes where it
stopped, and audits of different agent or env selections share their finished cells. An
episode truncated by the ``max_samples`` safety cap is graded wrong by the environment, hence
counts as an error; truncations are also reported in their own column.

Command line: ``bandit-bench audit`` (see :mod:`registry.cli`).

Example:
    >>> is_violation(errors=150, runs=1000, delta=0.1)
    True
    >>> is_violation(errors=110, runs=1000, delta=0.1)
    False
    >>> [i.name for i in EASY_INSTANCES][:2]
    ['soare-wide', 'basis-d3']
"""

from __future__ import annotations

import dataclasses
import inspect
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from agents.common.params import is_number
from bandit_envs.core.protocols import compatibility
from bandit_envs.errors import DataError, InvalidParameterError, UnknownNameError
from registry.catalogue import (
    agent_entry,
    env_entry,
    list_agents,
    make_env,
    suggestions,
    unwrap,
)
from registry.reporting import clopper_pearson, format_table
from registry.sweeps import AgentSetting, sweep

#: the confidence level of the interval that decides a violation.
LEVEL = 0.95
#: δ of the audit when none is given.
DEFAULT_DELTA = 0.1
#: seeds per (agent, instance, δ) when none is given.
DEFAULT_RUNS = 1000
#: columns of the audit table, in order.
AUDIT_COLUMNS = (
    "agent",
    "env",
    "delta",
    "runs",
    "errors",
    "error_rate",
    "ci_low",
    "ci_high",
    "truncated",
    "crashed",
    "samples_mean",
    "seconds_per_episode",
    "flag",
)


# --------------------------------------------------------------------------- the easy instances


@dataclasses.dataclass(frozen=True)
class EasyInstance:
    """An easy instance of one environment id: small explicit ``gym.make`` keywords.

    Attributes:
        name: a short unique name (the results sub-folder and the ``--envs`` selector).
        env_id: the registered id.
        kwargs: ``gym.make`` keywords (``delta`` and ``max_samples`` are added by the audit).
        max_samples: the safety cap of one episode, at least 20 times the largest mean
            sample count of a zoo agent on the instance (phase-based agents with proven
            constants need thousands of times T* on such easy instances); a truncated episode
            is wrong.
        why: why the instance is easy (gaps, σ, K) and what the agents need on it.
        default: part of the default audit (``False``: selected only by ``--envs``, e.g. the
            real-data instances whose K is fixed by their data).
    """

    name: str
    env_id: str
    kwargs: Mapping[str, Any]
    max_samples: int
    why: str
    default: bool = True

    def env_kwargs(self, delta: float) -> dict[str, Any]:
        """The ``gym.make`` keywords of the instance at confidence ``delta``."""
        return {**self.kwargs, "delta": delta, "max_samples": self.max_samples}


#: One or two easy instances per family; every id that a fixed-confidence agent can run on has
#: one (the constrained family is fixed budget only: no fixed-confidence agent solves it).
#: "T*" is the instance's characteristic time at σ (``env.unwrapped.complexity()``).
EASY_INSTANCES: tuple[EasyInstance, ...] = (
    # ---- linear best arm (Soare, Lazaric & Munos 2014; Zaki, Mohan & Gopalan, PELEG)
    EasyInstance(
        "soare-wide",
        "LinearBAI-Soare-v0",
        {"d": 2, "omega": 1.0, "scale": 2.0, "sigma": 1.0},
        10**5,
        "Soare's three arms with the third one at 57 degrees instead of 0.1 rad: gap "
        "2(1 - cos 1) = 0.92 at sigma = 1, K = 3, T* = 4 (the default omega = 0.1 needs T* = 222)",
    ),
    EasyInstance(
        "basis-d3",
        "LinearBAI-Basis-v0",
        {"d": 3, "gap": 1.0, "sigma": 0.5},
        10**5,
        "three orthogonal arms, every gap 1 at sigma = 0.5 (gap/sigma = 2), T* = 2.9",
    ),
    EasyInstance(
        "basis-d3-noisy",
        "LinearBAI-Basis-v0",
        {"d": 3, "gap": 1.0, "sigma": 2.0},
        10**6,
        "basis-d3 at sigma = 2 (gap/sigma = 1/2, T* = 47): still K = 3 and short episodes, but "
        "the GLR statistic now crosses the threshold gradually instead of jumping over it in "
        "one round, so a too small threshold shows (the audit's sensitivity check, "
        "docs/audit.md)",
    ),
    EasyInstance(
        "sphere-k4",
        "LinearBAI-Sphere-v0",
        {"n_arms": 4, "d": 2, "gamma": 0.0, "instance_seed": 1, "sigma": 0.5},
        10**5,
        "4 arms on the circle; gamma = 0 puts theta on the best arm, and instance_seed 1 has "
        "the widest gap of the first seeds (0.24); sigma = 0.5, T* = 5.3",
    ),
    EasyInstance(
        "custom-3arm",
        "LinearBAI-Custom-v0",
        {"features": [[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]], "theta": [2.0, 0.0], "sigma": 1.0},
        10**5,
        "means 2, 0, 1: gap 1 at sigma = 1, K = 3, h = 2, T* = 2",
    ),
    # ---- multi-output Pareto set (Kone, Kaufmann & Richert, GEGE)
    EasyInstance(
        "psi-custom-4arm",
        "LinearPSI-Custom-v0",
        {"means": [[1.0, 0.5], [0.5, 1.0], [0.2, 0.2], [0.0, 0.4]], "sigma": 0.1},
        10**6,
        "unstructured, K = 4, d = 2: Pareto set {0, 1} (mutual gaps 0.5), arm 2 dominated by "
        "0.3, arm 3 by 0.5, sigma = 0.1",
    ),
    EasyInstance(
        "psi-custom-4arm-noisy",
        "LinearPSI-Custom-v0",
        {"means": [[1.0, 0.5], [0.5, 1.0], [0.2, 0.2], [0.0, 0.4]], "sigma": 0.5},
        10**6,
        "psi-custom-4arm at sigma = 0.5 (gaps/sigma 0.6 to 1): about 1000 samples per episode",
    ),
    EasyInstance(
        "psi-synthetic-k8",
        "LinearPSI-Synthetic-v0",
        {"K": 8, "sigma": 0.1},
        2 * 10**6,
        "the smallest synthetic instance (K = h = 8, the arms e_1..e_8 with the paper's fixed "
        "means) at sigma = 0.1 instead of 0.5",
    ),
    EasyInstance(
        "noc-lownoise",
        "LinearPSI-NoC-v0",
        {"sigma": 0.01},
        2 * 10**6,
        "real data, K = 259 fixed: sigma = 0.01 makes it nearly noiseless. Not in the default "
        "audit (K is not small, and PAL needs 30k samples per episode); needs the NoC data",
        default=False,
    ),
    EasyInstance(
        "energy-lownoise",
        "LinearPSI-Energy-v0",
        {"sigma": 0.01},
        2 * 10**7,
        "real data, K = 768 fixed, sigma = 0.01. Not in the default audit (GEGE needs 9e5 and "
        "PAL 2e5 samples per episode); needs the Energy data",
        default=False,
    ),
    # ---- all epsilon-good arms (Li, Ma, Hua & Zhu 2025, LinFACT)
    EasyInstance(
        "epsgood-static-d3",
        "LinearEpsGood-Static-v0",
        {"d": 3, "m": 2, "m_tilde": 1, "Delta": 1.0, "sigma": 0.25},
        10**5,
        "arms e_1..e_3, one good arm of mean 1 and two of mean 0, epsilon = 1/2: every arm 1/2 "
        "away from the threshold at sigma = 0.25",
    ),
    EasyInstance(
        "epsgood-static-d3-noisy",
        "LinearEpsGood-Static-v0",
        {"d": 3, "m": 2, "m_tilde": 1, "Delta": 1.0, "sigma": 1.0},
        10**6,
        "epsgood-static-d3 at sigma = 1 (every arm sigma/2 from the threshold, T* = 47)",
    ),
    EasyInstance(
        "epsgood-adaptive-d3",
        "LinearEpsGood-Adaptive-v0",
        {"d": 3, "m": 2, "m_tilde": 1, "x_tilde": 1.0, "epsilon": 0.5, "sigma": 0.25},
        10**5,
        "the adaptive construction at d = 3 (K = 5: e_1..e_3 and 2 disturbing arms), "
        "epsilon = 0.5 instead of 0.1, sigma = 0.25",
    ),
    EasyInstance(
        "freewilson-2x2",
        "LinearEpsGood-FreeWilson-v0",
        {"sites": [2, 2], "n_good": 1, "scale": 1.0, "min_gap": 1.0, "sigma": 0.5},
        10**5,
        "2 sites x 2 substituents (K = 4, rank 3), one good compound, the next gap >= 1 at "
        "sigma = 0.5",
    ),
    EasyInstance(
        "epsgood-custom-2arm",
        "LinearEpsGood-Custom-v0",
        {"sigma": 1.0},
        10**5,
        "the id's built-in example: arms e_1, e_2, theta = (1, 0), epsilon = 1/2, T* = 32",
    ),
    # ---- misspecified linear (Li, Ma, Hua & Zhu 2025, Section 5)
    EasyInstance(
        "misspecified-adaptive-d3",
        "MisspecifiedEpsGood-Adaptive-v0",
        {"d": 3, "m": 2, "m_tilde": 1, "x_tilde": 1.0, "epsilon": 0.5, "sigma": 0.25, "L_m": 0.01},
        10**5,
        "epsgood-adaptive-d3 with a random deviation of size L_m = 0.01 (known to agents), far "
        "below the gaps",
    ),
    EasyInstance(
        "misspecified-custom-3arm",
        "MisspecifiedEpsGood-Custom-v0",
        {
            "features": [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]],
            "theta": [1.0, 0.0],
            "deviation": [0.02, 0.02, -0.02],
            "epsilon": 0.5,
            "sigma": 0.5,
        },
        10**5,
        "means 1.02, 0.02, 0.98 (L_m = 0.02), epsilon = 0.5: good set {0, 2}, arm 1 0.5 below "
        "the threshold; the id's built-in example is a hard one (its deviation flips the answer)",
    ),
    # ---- generalized linear (Li, Ma, Hua & Zhu 2025, Section 6)
    EasyInstance(
        "logistic-custom-3arm",
        "LogisticEpsGood-Custom-v0",
        {"means": [0.9, 0.5, 0.1], "epsilon": 0.2},
        10**7,
        "unstructured Bernoulli arms 0.9, 0.5, 0.1, epsilon = 0.2: threshold 0.7, gaps 0.2. "
        "LinFACT-GLM's proven counts (c_min = 0.09) need ~1.7e4 samples with the default "
        "Lipschitz radius (fast on the batch path)",
    ),
    EasyInstance(
        "logistic-adaptive-d3",
        "LogisticEpsGood-Adaptive-v0",
        {"d": 3, "m": 2, "m_tilde": 1, "x_tilde": 1.0, "epsilon": 0.5},
        10**8,
        "the logistic adaptive construction at d = 3 (K = 5), epsilon = 0.5 on the predictor "
        "scale; LinFACT-GLM needs ~2.6e5 samples (c_min = sigma'(2) = 0.1, default Lipschitz "
        "radius)",
    ),
)


# --------------------------------------------------------------------------- heuristic defaults


def agent_parameters(agent: str, params: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The agent's constructor parameters: its defaults updated with ``params``."""
    cls = agent_entry(agent).load()
    out = {
        name: p.default
        for name, p in inspect.signature(cls.__init__).parameters.items()
        if name != "self" and p.default is not inspect.Parameter.empty
    }
    out.update(params or {})
    return out


def heuristic_note(agent: str, params: Mapping[str, Any] | None = None) -> str | None:
    """Why ``agent`` with ``params`` (default: its defaults) has no δ-correctness proof, or None.

    Args:
        agent: a catalogue name.
        params: constructor parameters that differ from the defaults.

    Example:
        >>> heuristic_note("LinearTrackAndStop") is None
        True
        >>> heuristic_note("LinearTrackAndStop", {"threshold": "heuristic"})
        "threshold='heuristic': GLR threshold log((1 + log t)/delta) or a constant"
    """
    return agent_entry(agent).card.heuristic_note(agent_parameters(agent, params))


# --------------------------------------------------------------------------- selection


def fixed_confidence_agents() -> list[str]:
    """The catalogue's agents that run in the fixed-confidence setting (oracles included)."""
    return [
        name
        for name in list_agents()
        if "fixed_confidence" in agent_entry(name).capabilities.settings
    ]


def _pick_agents(agents: Iterable[str] | None) -> list[str]:
    fc = fixed_confidence_agents()
    if agents is None:
        return fc
    out = []
    for name in agents:
        agent_entry(name)  # UnknownNameError with suggestions
        if name not in fc:
            raise InvalidParameterError(
                f"audit: {name} does not run in the fixed-confidence setting, so it has no "
                f"delta to audit; fixed-confidence agents: {', '.join(fc)}."
            )
        if name not in out:
            out.append(name)
    return [name for name in fc if name in out]  # catalogue order


def _pick_instances(envs: Iterable[str] | None) -> list[EasyInstance]:
    if envs is None:
        return [i for i in EASY_INSTANCES if i.default]
    out: list[EasyInstance] = []
    for key in envs:
        found = [i for i in EASY_INSTANCES if key in (i.name, i.env_id)]
        if not found:
            known = [i.name for i in EASY_INSTANCES] + sorted({i.env_id for i in EASY_INSTANCES})
            close = suggestions(key, known)
            hint = f" Did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
            raise UnknownNameError(
                f"audit: no easy instance named {key!r} and no env id with one.{hint} Known: "
                f"{', '.join(known)}."
            )
        out += [i for i in found if i not in out]
    return out


def _check_delta(delta: Any) -> float:
    if not is_number(delta) or not 0.0 < float(delta) < 1.0:
        raise InvalidParameterError(
            f"audit: every delta must be a number in (0, 1); got {delta!r}."
        )
    return float(delta)


def _missing_data(instance: EasyInstance) -> str | None:
    from bandit_envs.data import dataset_path

    for name in env_entry(instance.env_id).datasets:
        try:
            dataset_path(name, download=False)
        except DataError:
            return (
                f"{instance.name}: needs the {name} data set (set BANDIT_ENVS_DATA, or run "
                f"`bandit-bench data fetch {name}`)"
            )
    return None


@dataclasses.dataclass(frozen=True)
class AuditCell:
    """One (agent, easy instance, δ) of the audit: one resumable sweep."""

    agent: str
    instance: EasyInstance
    delta: float

    @property
    def folder(self) -> Path:
        """The cell's results folder, relative to the audit's ``out``."""
        return Path(self.agent) / self.instance.name / f"delta={self.delta:g}"

    @property
    def env_setting(self) -> dict[str, Any]:
        """The sweep's env entry."""
        return {"id": self.instance.env_id, "kwargs": self.instance.env_kwargs(self.delta)}


def audit_cells(
    agents: Iterable[str] | None = None,
    envs: Iterable[str] | None = None,
    deltas: Sequence[float] = (DEFAULT_DELTA,),
) -> tuple[list[AuditCell], list[str]]:
    """The compatible (agent, instance, δ) cells of a selection, and the instances skipped.

    Args:
        agents: catalogue names (default: every fixed-confidence agent).
        envs: easy instance names or env ids (default: the default easy instances).
        deltas: the δ values, each in (0, 1).

    Returns:
        The cells, instance by instance (in :data:`EASY_INSTANCES` order), then agent by agent
        (catalogue order), then δ; and one sentence per instance skipped for missing data.
    """
    names = _pick_agents(agents)
    deltas = [_check_delta(d) for d in deltas]
    if not deltas:
        raise InvalidParameterError("audit: give at least one delta.")
    cells, skipped = [], []
    for instance in _pick_instances(envs):
        missing = _missing_data(instance)
        if missing:
            skipped.append(missing)
            continue
        spec = unwrap(make_env(instance.env_id, **instance.env_kwargs(deltas[0]))).problem
        for name in names:
            if compatibility(agent_entry(name).capabilities, spec, name)[0]:
                cells += [AuditCell(name, instance, d) for d in deltas]
    return cells, skipped


# --------------------------------------------------------------------------- statistics


def is_violation(errors: int, runs: int, delta: float, level: float = LEVEL) -> bool:
    """Whether the Clopper–Pearson interval of ``errors / runs`` lies entirely above ``delta``.

    Args:
        errors: wrong answers (truncated episodes included).
        runs: finished episodes.
        delta: the agent's confidence parameter.
        level: the two-sided confidence level of the interval.
    """
    if runs <= 0:
        return False
    return clopper_pearson(errors, runs, level)[0] > delta


def audit_row(cell: AuditCell, records: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The audit's row of one cell from its episode records (columns :data:`AUDIT_COLUMNS`).

    Args:
        cell: the cell.
        records: its sweep's records (``status`` ``"ok"`` or ``"error"`` for a crash).
    """
    ok = [r for r in records if r.get("status") == "ok"]
    errors = sum(not r["correct"] for r in ok)
    low, high = clopper_pearson(errors, len(ok), LEVEL)
    oracle = agent_entry(cell.agent).capabilities.oracle
    heuristic = heuristic_note(cell.agent)
    violation = is_violation(errors, len(ok), cell.delta)
    crashed = len(records) - len(ok)
    flags = []
    if violation:
        flags.append("VIOLATION")
    if heuristic:
        flags.append("heuristic threshold")
    if oracle:
        flags.append("oracle")
    if crashed:
        flags.append("CRASHED")
    return {
        "agent": cell.agent + (" (oracle)" if oracle else ""),
        "env": cell.instance.env_id,
        "instance": cell.instance.name,
        "delta": cell.delta,
        "runs": len(ok),
        "errors": errors,
        "error_rate": errors / len(ok) if ok else None,
        "ci_low": low if ok else None,
        "ci_high": high if ok else None,
        "truncated": sum(r.get("stop_reason") == "max_samples" for r in ok),
        "crashed": crashed,
        "samples_mean": sum(r["samples"] for r in ok) / len(ok) if ok else None,
        "seconds_per_episode": sum(r["wall_time"] for r in ok) / len(ok) if ok else None,
        "flag": ", ".join(flags),
        "violation": violation,
        "heuristic": heuristic,
    }


# --------------------------------------------------------------------------- running


@dataclasses.dataclass
class AuditResult:
    """What an audit produced.

    Attributes:
        rows: one :func:`audit_row` per cell, in cell order.
        skipped: instances left out (missing data), one sentence each.
        ran: episodes run by this call.
        resumed: episodes found finished in the results folders.
        seconds: wall time of this call.
    """

    rows: list[dict[str, Any]]
    skipped: list[str]
    ran: int
    resumed: int
    seconds: float

    @property
    def violations(self) -> list[dict[str, Any]]:
        """Rows whose interval lies above δ."""
        return [r for r in self.rows if r["violation"]]

    @property
    def genuine_violations(self) -> list[dict[str, Any]]:
        """Violations of agents whose default stopping rule is not a known heuristic."""
        return [r for r in self.violations if not r["heuristic"]]


def run_audit(
    agents: Iterable[str] | None = None,
    envs: Iterable[str] | None = None,
    *,
    runs: int = DEFAULT_RUNS,
    deltas: Sequence[float] = (DEFAULT_DELTA,),
    out: str | Path,
    agent_runs: Mapping[str, int] | None = None,
    seed: int = 0,
    backend: str = "process",
    n_jobs: int | None = None,
    retry_errors: bool = False,
    log: Callable[[str], None] | None = None,
) -> AuditResult:
    """Run (or resume) the audit, one resumable sweep per (agent, instance, δ) cell.

    Args:
        agents: catalogue names (default: every fixed-confidence agent).
        envs: easy instance names or env ids (default: the default easy instances).
        runs: seeds per cell.
        deltas: the δ values.
        out: the results folder (cells in ``out/<agent>/<instance>/delta=<δ>``).
        agent_runs: seeds per cell for some agents instead of ``runs`` (slow agents).
        seed: the sweep seed (episode seeds derive from it, the cell and the run index).
        backend: the sweep backend (``"process"``, ``"serial"`` or ``"ray"``).
        n_jobs: worker processes (default: the number of CPUs).
        retry_errors: on resume, run crashed episodes again.
        log: called with one line per cell (default: print to stderr).
    """
    start = time.perf_counter()
    cells, skipped = audit_cells(agents, envs, deltas)
    own = dict(agent_runs or {})
    unknown = sorted(set(own) - {c.agent for c in cells})
    if unknown:
        raise InvalidParameterError(
            f"audit: agent_runs names agent(s) {unknown} that are not audited here."
        )
    if log is None:

        def log(line: str) -> None:
            print(line, file=sys.stderr, flush=True)

    rows, ran, resumed = [], 0, 0
    for i, cell in enumerate(cells):
        cell_runs = own.get(cell.agent, runs)
        t0 = time.perf_counter()
        result = sweep(
            [cell.env_setting],
            [AgentSetting(cell.agent)],
            cell_runs,
            seed=seed,
            out=Path(out) / cell.folder,
            backend=backend,
            n_jobs=n_jobs,
            retry_errors=retry_errors,
            progress=False,
        )
        ran += result.ran
        resumed += result.skipped
        row = audit_row(cell, result.records)
        rows.append(row)
        log(
            f"[{i + 1}/{len(cells)}] {cell.agent} on {cell.instance.name} (delta={cell.delta:g})"
            f": {row['errors']}/{row['runs']} wrong, ran {result.ran}, resumed "
            f"{result.skipped}, {time.perf_counter() - t0:.1f} s"
        )
    return AuditResult(rows, skipped, ran, resumed, time.perf_counter() - start)


# --------------------------------------------------------------------------- reports


def audit_table(rows: Sequence[Mapping[str, Any]], *, markdown: bool = False) -> str:
    """The audit table (columns :data:`AUDIT_COLUMNS`), plain text or Markdown.

    The ``env`` column reads ``instance (env id)``.

    Args:
        rows: :func:`audit_row` rows.
        markdown: a Markdown table instead of aligned text.
    """
    shown = [{**r, "env": f"{r['instance']} ({r['env']})"} for r in rows]
    return format_table(shown, AUDIT_COLUMNS, markdown=markdown)


def audit_report(result: AuditResult, *, markdown: bool = False) -> str:
    """The table, then the flagged rows and the heuristic defaults, in words.

    Args:
        result: an :class:`AuditResult`.
        markdown: Markdown table and lists.
    """
    bullet = "- " if markdown else "  "
    parts = [
        f"delta-audit: error rate with its Clopper-Pearson {LEVEL:.0%} interval; VIOLATION "
        f"when the interval lies above delta.",
        "",
        audit_table(result.rows, markdown=markdown),
    ]
    if result.violations:
        parts += ["", "Violations:"]
        for r in result.violations:
            kind = "heuristic threshold" if r["heuristic"] else "GENUINE (not a known heuristic)"
            parts.append(
                f"{bullet}{r['agent']} on {r['instance']}: {r['errors']}/{r['runs']} "
                f"wrong, interval [{r['ci_low']:.3g}, {r['ci_high']:.3g}] above delta = "
                f"{r['delta']:g}; {kind}."
            )
    else:
        parts += ["", "No violation: every interval reaches down to delta or below."]
    heuristics = {r["agent"]: r["heuristic"] for r in result.rows if r["heuristic"]}
    if heuristics:
        parts += ["", "Heuristic defaults (no delta-correctness proof):"]
        parts += [f"{bullet}{agent}: {note}" for agent, note in heuristics.items()]
    crashed = [r for r in result.rows if r["crashed"]]
    if crashed:
        parts += ["", "Crashed episodes (see results.jsonl of the cell):"]
        parts += [f"{bullet}{r['agent']} on {r['instance']}: {r['crashed']}" for r in crashed]
    if result.skipped:
        parts += ["", "Skipped:"] + [f"{bullet}{s}" for s in result.skipped]
    return "\n".join(parts)


def describe_instances(*, markdown: bool = False) -> str:
    """The easy instances: name, id with keywords, cap, in the default audit or not, and why.

    Args:
        markdown: a Markdown table instead of an indented list.
    """
    rows = [
        {
            "instance": i.name,
            "env": f"{i.env_id}({', '.join(f'{k}={v}' for k, v in i.kwargs.items())})",
            "max_samples": f"{i.max_samples:.0e}".replace("e+0", "e"),
            "default": i.default,
            "why": i.why,
        }
        for i in EASY_INSTANCES
    ]
    if markdown:
        return format_table(
            rows, ["instance", "env", "max_samples", "default", "why"], markdown=True
        )
    return "\n".join(
        f"  {r['instance']:<26} {r['env']}\n  {'':<26} max_samples {r['max_samples']}"
        f"{'' if r['default'] else ', only with --envs'}: {r['why']}"
        for r in rows
    )


__all__ = [
    "AUDIT_COLUMNS",
    "AuditCell",
    "AuditResult",
    "DEFAULT_DELTA",
    "DEFAULT_RUNS",
    "EASY_INSTANCES",
    "EasyInstance",
    "LEVEL",
    "agent_parameters",
    "audit_cells",
    "audit_report",
    "audit_row",
    "audit_table",
    "describe_instances",
    "fixed_confidence_agents",
    "heuristic_note",
    "is_violation",
    "run_audit",
]
