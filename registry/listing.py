"""What ``bandit-bench list`` prints: the catalogue, filtered, with one view per id or agent.

* The overview: one line per id (family, task, default setting, default agent), one line per
  agent (tasks, settings, structures), and a compact compatibility matrix (agents x ids, one
  character per cell: runs in the id's default setting, only when the id is posed in the other
  setting, not at all, or not checked because the id's data set is absent).
* Filters: ``family``, ``task``, ``setting`` narrow the ids and the agents.
* An agent view: summary, paper, class, capabilities, every parameter with its default and
  constraint, heuristic stopping rules, and the ids it runs on in each setting.
* An id view: summary, source, data sets, keywords and defaults, default setting and agent, and
  the agents that run on it in each setting, with the reason the others do not.
"""

from __future__ import annotations

import dataclasses
import inspect
import textwrap
from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

from bandit_envs.core.problem import SETTINGS
from bandit_envs.core.protocols import AgentCapabilities
from bandit_envs.envs.registration import EnvEntry
from bandit_envs.errors import InvalidParameterError
from registry.catalogue import (
    AGENTS,
    ENVS,
    HOW_TO_POSE,
    agent_entry,
    default_setting_name,
    env_entry,
    list_agents,
    setting_matrix,
    suggestions,
)
from registry.sweeps import load_agent_class

#: the width list wraps its text to.
WIDTH = 100
#: matrix cells.
YES, OTHER, NO, UNCHECKED = "Y", "s", ".", "?"
#: short names of the settings.
SHORT = {"fixed_confidence": "fixed confidence", "fixed_budget": "fixed budget"}

Verdicts = dict[tuple[str, str], tuple[dict[str, tuple[bool, str]] | str, str]]


@dataclasses.dataclass(frozen=True)
class Filters:
    """What ``bandit-bench list`` shows: ids and agents narrowed by family, task and setting."""

    family: str | None = None
    task: str | None = None
    setting: str | None = None

    def __post_init__(self) -> None:
        if self.family is not None:
            object.__setattr__(self, "family", _pick("family", self.family, families()))
        if self.task is not None:
            object.__setattr__(self, "task", _pick("task", self.task, tasks()))
        if self.setting is not None:
            value = self.setting.strip().lower().replace("-", "_").replace(" ", "_")
            value = {"confidence": "fixed_confidence", "budget": "fixed_budget"}.get(value, value)
            object.__setattr__(self, "setting", _pick("setting", value, list(SETTINGS)))

    @property
    def any(self) -> bool:
        """Whether a filter is set."""
        return any(v is not None for v in (self.family, self.task, self.setting))

    def envs(self) -> list[EnvEntry]:
        """The ids of the selected family and task."""
        return [
            e
            for e in ENVS
            if (self.family is None or e.family == self.family)
            and (self.task is None or e.task == self.task)
        ]

    def agent_ok(self, caps: AgentCapabilities) -> bool:
        """Whether an agent with ``caps`` passes the task and setting filters."""
        return (self.task is None or self.task in caps.tasks) and (
            self.setting is None or self.setting in caps.settings
        )


def families() -> list[str]:
    """The problem families of the ids, in catalogue order."""
    return list(dict.fromkeys(e.family for e in ENVS))


def tasks() -> list[str]:
    """The task names of the ids and agents, in catalogue order."""
    names = [e.task for e in ENVS] + [t for a in AGENTS for t in sorted(a.capabilities.tasks)]
    return list(dict.fromkeys(names))


def _pick(kind: str, value: str, known: list[str]) -> str:
    """``value`` as one of ``known`` (case-insensitive), or an error with suggestions."""
    for k in known:
        if k.casefold() == value.casefold():
            return k
    close = suggestions(value, known)
    hint = f" Did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
    raise InvalidParameterError(f"list: no {kind} {value!r}.{hint} Known: {', '.join(known)}.")


def _wrap(text: str, indent: str = "  ", first: str | None = None) -> str:
    return textwrap.fill(
        text,
        WIDTH,
        initial_indent=indent if first is None else first,
        subsequent_indent=indent + "  ",
        break_on_hyphens=False,
        break_long_words=False,
    )


def _setting_text(entry: EnvEntry) -> str:
    return ", ".join(f"{k}={v}" for k, v in entry.default_setting().items())


def _default_agent(entry: EnvEntry) -> str | None:
    value = getattr(entry, "default_agent", None)
    return None if value is None else str(value)


def _cell(verdict: dict[str, tuple[bool, str]] | str, setting: str) -> str:
    """One matrix cell: runs in ``setting``, only in the other one, not at all, not checked."""
    if isinstance(verdict, str):
        return UNCHECKED
    if verdict[setting][0]:
        return YES
    return OTHER if any(ok for ok, _ in verdict.values()) else NO


# ---------------------------------------------------------------------------------- overview


def overview(filters: Filters, matrix: Verdicts) -> str:
    """The ids, the agents and their compatibility matrix, as selected by ``filters``."""
    envs = filters.envs()
    checked = [e for e in envs if not e.id.endswith("-Custom-v0")]

    def runs_somewhere(name: str) -> bool:
        cells = [matrix[(name, e.id)][0] for e in checked]
        return any(isinstance(c, dict) and any(ok for ok, _ in c.values()) for c in cells)

    agents = [
        a
        for a in AGENTS
        if filters.agent_ok(a.capabilities) and (filters.family is None or runs_somewhere(a.name))
    ]
    if not envs and not agents:
        return "Nothing matches these filters."
    out = [
        f"Environments ({len(envs)}, by family; bandit-bench list --env ID for keywords and "
        "agents):"
    ]
    width = max([len(e.id) for e in envs] + [10])
    task_width = max([len(e.task) for e in envs] + [4])
    family = None
    for i, entry in enumerate(envs, start=1):
        if entry.family != family:
            family = entry.family
            out.append(f"  {family}:")
        default = _default_agent(entry)
        line = (
            f"  {i:>3} {entry.id:<{width}}  {entry.task:<{task_width}}  "
            f"{_setting_text(entry):<14}" + (f"  default agent: {default}" if default else "")
        )
        out.append(line.rstrip())
    out.append("")
    out.append(
        f"Agents ({len(agents)}; bandit-bench list --agent NAME for parameters, paper and ids):"
    )
    width = max([len(a.name) for a in agents] + [10])
    for a in agents:
        caps = a.capabilities
        settings = "/".join(SHORT[s].split()[1] for s in SETTINGS if s in caps.settings)
        out.append(
            f"  {a.name:<{width}}  {','.join(sorted(caps.tasks)):<22} {settings:<18} "
            f"{','.join(sorted(caps.structures))}{' (oracle)' if caps.oracle else ''}"
        )
    if checked and agents:
        out += ["", *_matrix_lines(envs, checked, agents, filters, matrix)]
    return "\n".join(out)


def _matrix_lines(
    envs: Sequence[EnvEntry],
    checked: Sequence[EnvEntry],
    agents: Sequence[Any],
    filters: Filters,
    matrix: Verdicts,
) -> list[str]:
    number = {e.id: i for i, e in enumerate(envs, start=1)}
    where = (
        f"posed in {SHORT[filters.setting]}"
        if filters.setting
        else "in the id's default setting (gym.make(id))"
    )
    lines = [
        f"Compatibility (columns: the ids by number above; {YES} runs {where}; "
        + (
            f"{OTHER} runs only when the id is posed in the other setting; "
            if not filters.setting
            else ""
        )
        + f"{NO} does not run; {UNCHECKED} not checked, the id's data set is absent (bandit-bench "
        "data fetch); -Custom-v0 "
        "ids take the agents of their task):",
    ]
    lines = [_wrap(lines[0], "", "")]
    width = max(len(a.name) for a in agents)
    head = "".join(f"{number[e.id]:>3}" for e in checked)
    lines.append(f"  {'':<{width}} {head}")
    for a in agents:
        cells = []
        for e in checked:
            verdict, default = matrix[(a.name, e.id)]
            cells.append(f"{_cell(verdict, filters.setting or default):>3}")
        lines.append(f"  {a.name:<{width}} {''.join(cells)}")
    return lines


# ---------------------------------------------------------------------------------- agent view


def _resolve_agent(name: str) -> tuple[str, type, Any]:
    """(name, class, card or None) of a catalogue name or a ``module:Class`` reference."""
    if ":" in name:
        cls = load_agent_class(name)
        if not isinstance(cls, type):
            raise InvalidParameterError(f"list: {name} is not a class; got {cls!r}.")
        return name, cls, vars(cls).get("card")
    entry = agent_entry(name)
    return entry.name, entry.load(), entry.card


def _parameters(cls: type) -> list[tuple[str, str, str]]:
    """(name, default, constraint) of every constructor parameter of ``cls``."""
    init = getattr(cls, "__init__")  # noqa: B009 - mypy refuses cls.__init__ on a type
    if init is object.__init__:
        return []
    constraints = getattr(cls, "parameters", {}) or {}
    rows = []
    for p in list(inspect.signature(init).parameters.values())[1:]:
        if p.kind in (p.VAR_KEYWORD, p.VAR_POSITIONAL):
            continue
        default = "(required)" if p.default is inspect.Parameter.empty else repr(p.default)
        constraint = constraints.get(p.name)
        rows.append((p.name, default, constraint.describe() if constraint is not None else ""))
    return rows


def agent_view(name: str, matrix: Verdicts, filters: Filters | None = None) -> str:
    """Everything about one agent: card, capabilities, parameters and where it runs."""
    name, cls, card = _resolve_agent(name)
    caps = getattr(cls, "capabilities", None)
    summary = card.summary if card is not None else (inspect.getdoc(cls) or "").split("\n")[0]
    out = [_wrap(f"{name}: {summary}" if summary else name, "  ", "")]
    if card is not None:
        out.append(_wrap(f"paper: {card.paper}"))
    out.append(f"  class: {cls.__module__}:{cls.__qualname__}")
    if ":" not in name:
        out.append(f'  build: registry.make_agent("{name}", **params); run: --agent {name}')
    if caps is None:
        out.append("  capabilities: none declared (assumed compatible with every id)")
    else:
        out.append(
            _wrap(
                f"tasks: {', '.join(sorted(caps.tasks))}; settings: "
                f"{', '.join(SHORT[s] for s in SETTINGS if s in caps.settings)}; structures: "
                f"{', '.join(sorted(caps.structures))}; outcomes: {caps.outcome_dims}; batch "
                f"path: {'yes' if caps.batch else 'no'}"
                + ("; ORACLE (told the truth)" if caps.oracle else "")
            )
        )
    params = _parameters(cls)
    if params:
        out.append(f"  parameters (--agent-kw {name}:KEY=VALUE):")
        w0 = max(len(p[0]) for p in params)
        w1 = max(len(p[1]) for p in params)
        for pname, default, constraint in params:
            head = f"    {pname:<{w0}}  {default:<{w1}}  "
            if not constraint:
                out.append(head.rstrip())
                continue
            out.append(
                textwrap.fill(
                    constraint,
                    max(WIDTH, len(head) + 30),
                    initial_indent=head,
                    subsequent_indent=" " * (len(head) + 2),
                    break_on_hyphens=False,
                    break_long_words=False,
                )
            )
        for rule in getattr(cls, "parameter_rules", ()):
            out.append(_wrap(f"rule: {rule.requirement}", "    "))
    else:
        out.append("  parameters: none")
    if card is not None and card.heuristics:
        out.append("  heuristic stopping rules (no delta-correctness proof):")
        out += [_wrap(f"{rule.param}: {rule.note}", "    ") for rule in card.heuristics]
    out += _agent_ids(name, cls, caps, matrix, filters or Filters())
    return "\n".join(out)


def _agent_ids(name: str, cls: type, caps: Any, matrix: Verdicts, filters: Filters) -> list[str]:
    """Where the agent runs: in each id's default setting, only in the other, default agent of."""
    default_here, other_only, unchecked = [], defaultdict(list), []
    for entry in filters.envs():
        if entry.id.endswith("-Custom-v0"):
            continue
        if (name, entry.id) in matrix:
            verdict, default = matrix[(name, entry.id)]
        else:  # a class of the user's: judged from its capabilities, on the same specs
            verdict, default = _verdicts_for(cls, entry), default_setting_name(entry.id)
        if isinstance(verdict, str):
            unchecked.append(entry.id)
        elif verdict[default][0]:
            default_here.append(entry.id)
        else:
            for s, (ok, _) in verdict.items():
                if ok:
                    other_only[s].append(entry.id)
                    break
    out = [_wrap("runs on (default setting): " + (", ".join(default_here) or "no id"))]
    for s, ids in other_only.items():
        out.append(_wrap(f"runs on when posed in {HOW_TO_POSE[s]}: {', '.join(ids)}"))
    if unchecked:
        out.append(_wrap(f"not checked (data set absent): {', '.join(unchecked)}"))
    custom = [
        e.id
        for e in ENVS
        if e.id.endswith("-Custom-v0") and caps is not None and e.task in caps.tasks
    ]
    if custom:
        out.append(_wrap(f"your own instance: {', '.join(custom)}"))
    defaults = [e.id for e in ENVS if _default_agent(e) == name]
    if defaults:
        out.append(_wrap(f"default agent of: {', '.join(defaults)}"))
    return out


def _verdicts_for(cls: type, entry: EnvEntry) -> dict[str, tuple[bool, str]] | str:
    """A user class's per-setting verdicts on ``entry`` (built with its default keywords)."""
    from registry.catalogue import make_env, setting_compatibility, unwrap

    try:
        spec = unwrap(make_env(entry.id)).problem
    except Exception as exc:  # noqa: BLE001 - e.g. a missing data set: not checked
        return f"not checked: {exc}"
    return setting_compatibility(cls, spec, cls.__name__)


# ---------------------------------------------------------------------------------- id view


def env_view(env_id: str, matrix: Verdicts, filters: Filters | None = None) -> str:
    """Everything about one id: what it poses, its keywords and defaults, its agents."""
    entry = env_entry(env_id)
    default = default_setting_name(entry.id)
    out = [_wrap(f"{entry.id}: {entry.summary}", "  ", "")]
    out.append(f"  family: {entry.family}; task: {entry.task}")
    out.append(_wrap(f"source: {entry.source}"))
    if entry.datasets:
        out.append(
            f"  data sets: {', '.join(entry.datasets)} (bandit-bench data info "
            f"{' '.join(entry.datasets)})"
        )
    keywords = entry.keywords()
    if keywords:
        out.append(f'  keywords (gym.make("{entry.id}", KEY=VALUE); run --env-kw KEY=VALUE):')
        w = max(len(k) for k in keywords)
        for k, v in keywords.items():
            out.append(f"    {k:<{w}}  {'(required)' if v is inspect.Parameter.empty else repr(v)}")
    out.append(
        _wrap(
            f"default setting: {_setting_text(entry)} ({SHORT[default]}); pose it in "
            f"{HOW_TO_POSE['fixed_confidence']} or {HOW_TO_POSE['fixed_budget']}"
        )
    )
    agent = _default_agent(entry)
    if agent:
        out.append(f"  default agent: {agent}")
    if entry.id.endswith("-Custom-v0"):
        names = [a.name for a in AGENTS if entry.task in a.capabilities.tasks]
        out.append(_wrap(f"agents of its task ({entry.task}): {', '.join(names)}"))
        return "\n".join(out)
    out += _env_agents(entry, default, matrix, filters or Filters())
    return "\n".join(out)


def _env_agents(entry: EnvEntry, default: str, matrix: Verdicts, filters: Filters) -> list[str]:
    cells = {
        a.name: matrix[(a.name, entry.id)][0] for a in AGENTS if filters.agent_ok(a.capabilities)
    }
    first = next(iter(cells.values()), None)
    if isinstance(first, str):
        return [_wrap(f"agents: {first}")]
    verdicts = {n: v for n, v in cells.items() if isinstance(v, dict)}
    here = [n for n, v in verdicts.items() if v[default][0]]
    other = [s for s in SETTINGS if s != default][0]
    there = [n for n, v in verdicts.items() if not v[default][0] and v[other][0]]
    out = [_wrap(f"agents in its default setting ({SHORT[default]}): {', '.join(here) or 'none'}")]
    if there:
        out.append(_wrap(f"agents when posed in {HOW_TO_POSE[other]}: {', '.join(there)}"))
    rest = {n: v[default][1] for n, v in verdicts.items() if n not in here and n not in there}
    other_task = [n for n in rest if f"the problem's task is {entry.task!r}" in rest[n]]
    if other_task:
        out.append(_wrap(f"other tasks (not compatible): {', '.join(other_task)}"))
    for n, why in rest.items():
        if n not in other_task:
            out.append(_wrap(f"not compatible: {why}"))
    return out


# ---------------------------------------------------------------------------------- entry


def render(
    filters: Filters,
    agents: Iterable[str] = (),
    envs: Iterable[str] = (),
    long: bool = False,
) -> str:
    """The text of ``bandit-bench list``.

    Args:
        filters: family, task and setting filters.
        agents: agents to describe (catalogue names or ``module:Class``).
        envs: ids to describe.
        long: describe every selected id and agent (the views) after the overview.
    """
    matrix = setting_matrix()
    agents, envs = list(agents), list(envs)
    parts = []
    if not agents and not envs:
        parts.append(overview(filters, matrix))
        if long:
            parts += [env_view(e.id, matrix, filters) for e in filters.envs()]
            parts += [
                agent_view(a, matrix, filters)
                for a in list_agents()
                if filters.agent_ok(agent_entry(a).capabilities)
            ]
    parts += [env_view(e, matrix, filters) for e in envs]
    parts += [agent_view(a, matrix, filters) for a in agents]
    return "\n\n".join(parts)


__all__ = ["Filters", "agent_view", "env_view", "families", "overview", "render", "tasks"]
