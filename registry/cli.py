"""``bandit-bench``: the command line of the suite.

Subcommands: ``list`` (environments, agents and their compatibility), ``run`` (a sweep from
flags or a TOML config), ``report DIR`` (tables), ``plot DIR`` (PNG figures), ``demo`` (a
one-minute benchmark that needs no download), ``audit`` (the δ-audit of every
fixed-confidence agent, :mod:`registry.audit`) and ``data info|fetch`` (the real data sets:
where they are found, and downloading them into the cache). Exit codes: 0 success, 1 a sweep
had crashed episodes (``audit``: or a violation by an agent whose default threshold is not a
known heuristic; ``data fetch``: a data set could not be fetched or verified), 2 invalid usage
or configuration (also a corrupt results file), 3 the sweep stopped because its results file
could not be written or its workers kept dying (what was finished is kept: the same command
resumes).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bandit_envs import data as datasets
from bandit_envs.core.runner import EpisodeResult, run_episode
from bandit_envs.errors import (
    DataError,
    IncompatibleAgentError,
    InvalidParameterError,
    ResultsWriteError,
    UnknownNameError,
    WorkerLostError,
)
from registry.catalogue import (
    make_agent,
    make_env,
    suggestions,
    unwrap,
)
from registry.config import (
    ConfigError,
    SweepConfig,
    load_config,
    parse_config,
    validate_settings,
)
from registry.progress import Progress
from registry.reporting import format_table, report, summarize
from registry.sweeps import BACKENDS, export, read_results, sweep


def _cmd_list(args: argparse.Namespace) -> int:
    from registry.listing import Filters, render

    filters = Filters(family=args.family, task=args.task, setting=args.setting)
    print(
        render(
            filters, agents=_names(args.agent) or (), envs=_names(args.env) or (), long=args.long
        )
    )
    return 0


def _cmd_demo(args: argparse.Namespace) -> int:
    env_id = "LinearBAI-Soare-v0"
    print(
        f"Demo: Uniform on {env_id} (arms e1, e2 and (cos 0.1, sin 0.1); theta = 2 e1; "
        f"sigma = 1), {args.seeds} seeds per row.\n"
    )
    records: list[EpisodeResult] = []
    jobs = [("fixed confidence", {"delta": d}) for d in (0.05, 0.01)]
    jobs += [("fixed budget", {"budget": t}) for t in (300, 1000, 3000)]
    start = time.perf_counter()
    rows = []
    with Progress(len(jobs) * args.seeds, desc="episodes", stall=None) as bar:
        for _, kw in jobs:
            env = make_env(env_id, **kw)
            group = []
            for seed in range(args.seeds):
                group.append(run_episode(env, make_agent("Uniform"), seed))
                bar.update()
            records += group
            row = summarize(group)[0]
            row["setting"] = ", ".join(f"{k}={v}" for k, v in kw.items())
            rows.append(row)
    fc = [r for r in rows if r["delta"] is not None]
    fb = [r for r in rows if r["delta"] is None]
    print("Fixed confidence (lower bound = T*(theta) log(1/delta); ratio = mean samples / it):")
    print(
        format_table(
            fc,
            [
                "agent",
                "setting",
                "runs",
                "error_rate",
                "samples_mean",
                "samples_median",
                "lower_bound",
                "ratio",
                "seconds_per_episode",
            ],
        )
    )
    t_star = unwrap(make_env(env_id)).complexity()["lower_bound"]
    print(f"\nT*(theta) = {t_star:.1f}; the error rate must stay below delta.")
    print("\nFixed budget (error rate after the budget is spent):")
    print(format_table(fb, ["agent", "setting", "runs", "error_rate", "seconds_per_episode"]))
    elapsed = time.perf_counter() - start
    print(f"\n{len(records)} episodes in {elapsed:.1f} s.")
    return 0


def _value(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def _pairs(items: Sequence[str] | None, flag: str, grid: bool) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ConfigError(f"{flag} takes KEY=VALUE; got {item!r}.")
        out[key] = [_value(v) for v in value.split(",")] if grid else _value(value)
    return out


def _scoped_pairs(
    items: Sequence[str] | None, flag: str, grid: bool, agents: Sequence[str]
) -> dict[str, dict[str, Any]]:
    """``{agent: {key: value}}`` from ``KEY=VALUE`` (every agent) and ``AGENT:KEY=VALUE`` items.

    ``AGENT`` is one of the ``--agent`` values, a catalogue name or ``module:Class`` (the key
    is what follows the last colon before ``=``); an item for one agent wins over an item for
    every agent.
    """
    common: dict[str, Any] = {}
    own: dict[str, dict[str, Any]] = {a: {} for a in agents}
    for item in items or []:
        target, sep, value = item.partition("=")
        agent, colon, key = target.rpartition(":")
        if not sep or not key:
            raise ConfigError(f"{flag} takes KEY=VALUE or AGENT:KEY=VALUE; got {item!r}.")
        parsed = [_value(v) for v in value.split(",")] if grid else _value(value)
        if not colon:
            common[key] = parsed
        elif agent in own:
            own[agent][key] = parsed
        else:
            close = suggestions(agent, list(own))
            hint = f" Did you mean {close[0]!r}?" if close else ""
            raise ConfigError(
                f"{flag} {item}: {agent!r} is not an --agent of this run.{hint} Agents: "
                f"{', '.join(agents)}."
            )
    return {a: {**common, **own[a]} for a in agents}


def _config_from_args(args: argparse.Namespace) -> SweepConfig:
    if args.config is not None:
        config = load_config(args.config)
        if args.env or args.agent:
            raise ConfigError("give either a config file or --env/--agent flags, not both.")
    else:
        if not args.env or not args.agent:
            raise ConfigError(
                "give a config file (bandit-bench run experiments/NAME.toml) or at least one "
                "--env and one --agent."
            )
        env_kw, env_grid = (
            _pairs(args.env_kw, "--env-kw", False),
            _pairs(args.env_grid, "--env-grid", True),
        )
        agent_kw = _scoped_pairs(args.agent_kw, "--agent-kw", False, args.agent)
        agent_grid = _scoped_pairs(args.agent_grid, "--agent-grid", True, args.agent)
        config = parse_config(
            {
                "env": [{"id": e, "kwargs": env_kw, "grid": env_grid} for e in args.env],
                "agent": [
                    {"name": a, "kwargs": agent_kw[a], "grid": agent_grid[a]} for a in args.agent
                ],
            },
            "<flags>",
        )
    for key in ("runs", "seed", "backend", "jobs", "out", "address"):
        value = getattr(args, key)
        if value is not None:
            setattr(config, key, value)
    if config.out is None:
        raise ConfigError('no output folder: give --out DIR (or out = "..." in [sweep]).')
    validate_settings(config)
    return config


def _cmd_run(args: argparse.Namespace) -> int:
    config = _config_from_args(args)
    per_env = sum(config.runs if a.runs is None else a.runs for a in config.agents)
    own = " (some agents with their own runs)" if any(a.runs for a in config.agents) else ""
    print(
        f"Sweep: {len(config.envs)} env setting(s) x {len(config.agents)} agent setting(s) x "
        f"{config.runs} runs{own} = {len(config.envs) * per_env} episodes; backend "
        f"{config.backend}; results in {config.out}",
        file=sys.stderr,
    )
    result = sweep(
        config.envs,
        config.agents,
        config.runs,
        seed=config.seed,
        out=config.out,
        backend=config.backend,
        n_jobs=config.jobs,
        address=config.address,
        batch=config.batch,
        progress=not args.quiet,
    )
    print(
        f"ran {result.ran} episode(s), skipped {result.skipped} already finished.", file=sys.stderr
    )
    print(report(result.records, wide=args.wide))
    return 1 if result.crashed else 0


def _cmd_report(args: argparse.Namespace) -> int:
    records = read_results(args.folder)
    print(report(records, markdown=args.markdown, pool=args.pool, wide=args.wide))
    for path in (args.csv, args.parquet):
        if path is not None:
            print(f"wrote {export(records, path)}", file=sys.stderr)
    return 1 if any(r.get("status") == "error" for r in records) else 0


def _cmd_plot(args: argparse.Namespace) -> int:
    from registry.plots import plot_all

    records = read_results(args.folder)
    paths = plot_all(records, args.out or args.folder)
    for path in paths:
        print(path)
    return 0


def _names(items: Sequence[str] | None) -> list[str] | None:
    """Repeatable, comma-separated names (``--agents A,B --agents C``), or None."""
    if not items:
        return None
    return [name.strip() for item in items for name in item.split(",") if name.strip()]


def _cmd_audit(args: argparse.Namespace) -> int:
    from registry import audit

    if args.list:
        print("Easy instances (--envs takes these names or their env ids):")
        print(audit.describe_instances(markdown=args.markdown))
        print("\nFixed-confidence agents (--agents), with their heuristic defaults:")
        for name in audit.fixed_confidence_agents():
            print(f"  {name:<20} {audit.heuristic_note(name) or 'proven threshold'}")
        return 0
    deltas = [_value(d) for d in _names(args.delta) or [str(audit.DEFAULT_DELTA)]]
    agent_runs = _pairs(args.agent_runs, "--agent-runs", False)
    for name, value in agent_runs.items():
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ConfigError(f"--agent-runs {name}= takes an integer >= 1; got {value!r}.")
    result = audit.run_audit(
        _names(args.agents),
        _names(args.envs),
        runs=args.runs,
        deltas=deltas,
        out=args.out,
        agent_runs=agent_runs,
        seed=args.seed,
        backend=args.backend,
        n_jobs=args.jobs,
        retry_errors=args.retry_errors,
        log=(lambda line: None) if args.quiet else None,
    )
    print(audit.audit_report(result, markdown=args.markdown))
    print(
        f"ran {result.ran} episode(s), resumed {result.resumed} already finished, in "
        f"{result.seconds:.0f} s; results in {args.out}",
        file=sys.stderr,
    )
    crashed = any(r["crashed"] for r in result.rows)
    return 1 if result.genuine_violations or crashed else 0


def _dataset_names(args: argparse.Namespace) -> list[str]:
    """The data sets named on the command line (default: all); a usage error for unknown ones."""
    names: list[str] = args.names or sorted(datasets.DATASETS)
    unknown = [n for n in names if n not in datasets.DATASETS]
    if unknown:
        args.usage_error(f"unknown data set(s) {unknown}; known: {sorted(datasets.DATASETS)}")
    return names


def _cmd_data_info(args: argparse.Namespace) -> int:
    names = _dataset_names(args)
    print(f"{datasets.DATA_ENV_VAR}: {os.environ.get(datasets.DATA_ENV_VAR) or '(not set)'}")
    print(f"cache folder: {args.cache_dir or datasets.default_cache_dir()}")
    for name in names:
        ds = datasets.DATASETS[name]
        print(f"\n{name}: {ds.filename} ({ds.n_rows} rows x {ds.n_columns} columns; {ds.used_in})")
        print(f"  columns: {', '.join(ds.columns)} (first {ds.n_features} are features)")
        print(f"  source:  {ds.url}")
        print(f"  sha256:  {ds.sha256}")
        print(f"  cite:    {ds.citation}")
        print(f"  licence: {ds.licence}")
        print(f"  status:  {datasets.dataset_status(name, args.cache_dir)}")
    return 0


def _cmd_data_fetch(args: argparse.Namespace) -> int:
    names = _dataset_names(args)
    if (args.source or args.url) and len(names) != 1:
        args.usage_error("--from and --url need exactly one data set name")
    if args.source and args.url:
        args.usage_error("give --from or --url, not both")
    source = None
    if args.source:
        source = Path(args.source).expanduser()
        if not source.is_file():
            args.usage_error(f"--from: no such file {source}")
    status = 0
    for name in names:
        try:
            path = datasets.fetch(
                name,
                cache_dir=args.cache_dir,
                url=args.url,
                from_file=source,
                force=args.force,
                timeout=args.timeout,
            )
        except (DataError, InvalidParameterError) as exc:
            print(str(exc), file=sys.stderr)
            status = 1
        else:
            print(f"{name}: {path} (sha256 verified)")
    return status


def _add_data_parser(sub: Any) -> None:
    """``bandit-bench data info|fetch``."""
    p_data = sub.add_parser(
        "data",
        help="the real data sets: describe them, or download them into the cache",
        description="The real data sets of bandit_envs: where each is found "
        f"({datasets.DATA_ENV_VAR}, then the cache), and downloading them into the cache.",
    )
    actions = p_data.add_subparsers(dest="action", required=True)
    info = actions.add_parser("info", help="describe data sets and where they are found")
    info.set_defaults(func=_cmd_data_info, usage_error=info.error)
    get = actions.add_parser("fetch", help="download data sets into the cache and verify them")
    get.set_defaults(func=_cmd_data_fetch, usage_error=get.error)
    for p in (info, get):
        p.add_argument(
            "names", nargs="*", metavar="name", help=f"one of {sorted(datasets.DATASETS)}"
        )
        p.add_argument("--cache-dir", default=None, help="cache folder (default: user cache)")
    get.add_argument("--force", action="store_true", help="download again even if cached")
    get.add_argument("--url", default=None, help="download from this URL instead of the source")
    get.add_argument(
        "--from",
        dest="source",
        default=None,
        metavar="FILE",
        help="use a manually downloaded file (the UCI zip for energy)",
    )
    get.add_argument("--timeout", type=float, default=datasets.DEFAULT_TIMEOUT, help="seconds")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``bandit-bench``."""
    parser = argparse.ArgumentParser(
        prog="bandit-bench",
        description="Benchmarks for pure-exploration bandits: environments, agents, demo.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    p_list = sub.add_parser(
        "list",
        help="environments, agents and which runs on which (filters; one agent or id in detail)",
        description="Without options: every id (task, default setting), every agent (tasks, "
        "settings, structures) and a compatibility matrix (agents x ids, in each id's default "
        "setting). --agent NAME shows an agent's paper, parameters with defaults and "
        "constraints, and the ids it runs on; --env ID an id's keywords, defaults and agents.",
    )
    p_list.add_argument(
        "--agent",
        action="append",
        metavar="NAME",
        help="describe this agent: a catalogue name or module:Class (repeatable, A,B)",
    )
    p_list.add_argument(
        "--env", action="append", metavar="ID", help="describe this id (repeatable, A,B)"
    )
    p_list.add_argument("--family", help="only this problem family, e.g. 'linear best arm'")
    p_list.add_argument("--task", help="only this task, e.g. best_arm, pareto_set")
    p_list.add_argument(
        "--setting",
        help="only agents of this setting (fixed_confidence or fixed_budget; also "
        "'confidence', 'budget'); the matrix then says which run with the id posed in it",
    )
    p_list.add_argument(
        "--long", action="store_true", help="also describe every listed id and agent in full"
    )
    p_list.set_defaults(func=_cmd_list)
    p_run = sub.add_parser(
        "run",
        help="run a sweep (from a TOML config or from flags); resumes into an existing --out",
        description="Run environments x agents x runs and append every episode to "
        "DIR/results.jsonl at once. Re-running the same sweep into the same folder resumes it. "
        "Every (env, agent) pair is checked before the first episode: an agent that cannot run "
        "on an env (task, setting, structure) stops the command with exit code 2. Your own "
        "agent: --agent module:Class, run from the folder that holds module.py.",
    )
    p_run.add_argument("config", nargs="?", help="a TOML sweep configuration (experiments/*.toml)")
    p_run.add_argument("--env", action="append", help="an environment id (repeatable)")
    p_run.add_argument(
        "--env-kw",
        action="append",
        metavar="KEY=VALUE",
        help="a fixed gym.make keyword for the --env ids (repeatable)",
    )
    p_run.add_argument(
        "--env-grid",
        action="append",
        metavar="KEY=V1,V2",
        help="a grid axis of gym.make keywords, e.g. delta=0.05,0.01",
    )
    p_run.add_argument(
        "--agent",
        action="append",
        metavar="NAME",
        help="an agent (repeatable): a catalogue name (bandit-bench list), or module:Class for "
        "a class of your own, imported as python -m would (the current directory first), "
        "e.g. my_agents:MyAgent for class MyAgent in ./my_agents.py",
    )
    p_run.add_argument(
        "--agent-kw",
        action="append",
        metavar="[AGENT:]KEY=VALUE",
        help="a fixed agent parameter (repeatable); AGENT:KEY=VALUE sets it for that --agent "
        "only, e.g. LinGapE:epsilon=0.1 or my_agents:MyAgent:alpha=0.5; KEY=VALUE for every "
        "agent",
    )
    p_run.add_argument(
        "--agent-grid",
        action="append",
        metavar="[AGENT:]KEY=V1,V2",
        help="a grid axis of agent parameters, for one agent (AGENT:) or every agent",
    )
    p_run.add_argument("--runs", type=int, help="episodes per (env, agent) setting")
    p_run.add_argument("--seed", type=int, help="the sweep seed (default 0)")
    p_run.add_argument("--out", help="the results folder")
    p_run.add_argument("--backend", choices=list(BACKENDS), help="default: process")
    p_run.add_argument("--jobs", type=int, help="worker processes (default: all CPUs)")
    p_run.add_argument("--address", help="Ray cluster address (backend ray)")
    p_run.add_argument(
        "--quiet",
        action="store_true",
        help="no progress on stderr (by default: a bar on a terminal, a line every 30 s in a "
        "log, and a line naming what runs when no episode finished for a minute)",
    )
    p_run.add_argument("--wide", action="store_true", help="the full report (see report --wide)")
    p_run.set_defaults(func=_cmd_run)
    p_report = sub.add_parser("report", help="tables of a results folder")
    p_report.add_argument("folder", help="a sweep's results folder")
    p_report.add_argument("--markdown", action="store_true", help="Markdown tables")
    p_report.add_argument(
        "--wide",
        action="store_true",
        help="every column (sample quantiles, lower bound, interval ends) in one table; the "
        "default fits 120 columns",
    )
    p_report.add_argument(
        "--pool",
        action="append",
        default=[],
        metavar="KEY",
        help="pool the rows over this env keyword (repeatable), e.g. --pool instance_seed to "
        "report the draws of a random instance family as one setting",
    )
    p_report.add_argument("--csv", help="also export the records to this .csv file")
    p_report.add_argument("--parquet", help="also export to this .parquet file (needs pyarrow)")
    p_report.set_defaults(func=_cmd_report)
    p_plot = sub.add_parser("plot", help="PNG figures of a results folder (needs matplotlib)")
    p_plot.add_argument("folder", help="a sweep's results folder")
    p_plot.add_argument("--out", help="where to write the PNGs (default: the folder)")
    p_plot.set_defaults(func=_cmd_plot)
    p_demo = sub.add_parser(
        "demo", help="run Uniform on LinearBAI-Soare-v0 (about a minute, no download)"
    )
    p_demo.add_argument("--seeds", type=int, default=100, help="episodes per row (default 100)")
    p_demo.set_defaults(func=_cmd_demo)
    p_audit = sub.add_parser(
        "audit",
        help="the delta-audit: every fixed-confidence agent on easy instances, error rate vs "
        "delta with a Clopper-Pearson interval",
        description="Run every fixed-confidence agent of the catalogue (default parameters) on "
        "the easy instances of every env it supports, RUNS seeds each, and flag VIOLATION when "
        "the Clopper-Pearson 95%% interval of the error rate lies above delta. Each (agent, "
        "instance, delta) is a resumable sweep in OUT/<agent>/<instance>/delta=<delta>.",
    )
    p_audit.add_argument(
        "--agents",
        action="append",
        metavar="A,B",
        help="agents to audit (repeatable or comma-separated; default: all "
        "fixed-confidence agents)",
    )
    p_audit.add_argument(
        "--envs",
        action="append",
        metavar="E,F",
        help="easy instance names or env ids (default: the default easy instances; see --list)",
    )
    p_audit.add_argument(
        "--runs", type=int, default=1000, help="seeds per (agent, instance, delta) (default 1000)"
    )
    p_audit.add_argument(
        "--agent-runs",
        action="append",
        metavar="NAME=N",
        help="seeds for one agent instead of --runs (repeatable), e.g. PAL=200",
    )
    p_audit.add_argument(
        "--delta",
        action="append",
        metavar="D1,D2",
        help="confidence delta (repeatable or comma-separated; default 0.1)",
    )
    p_audit.add_argument(
        "--out",
        default="audit-results",
        help="the results folder (default ./audit-results); an existing one is resumed",
    )
    p_audit.add_argument("--jobs", type=int, help="worker processes (default: all CPUs)")
    p_audit.add_argument(
        "--backend",
        choices=list(BACKENDS),
        default="process",
        help="sweep backend (default: process)",
    )
    p_audit.add_argument("--seed", type=int, default=0, help="the sweep seed (default 0)")
    p_audit.add_argument(
        "--retry-errors", action="store_true", help="on resume, run crashed episodes again"
    )
    p_audit.add_argument("--markdown", action="store_true", help="Markdown tables")
    p_audit.add_argument("--quiet", action="store_true", help="no line per finished cell")
    p_audit.add_argument(
        "--list",
        action="store_true",
        help="list the easy instances and the agents' heuristic defaults, and exit",
    )
    p_audit.set_defaults(func=_cmd_audit)
    _add_data_parser(sub)
    return parser


def _import_from_cwd() -> None:
    """Put the current directory first on ``sys.path``, as ``python -m`` does.

    Then ``--agent my_agents:MyAgent`` imports ``./my_agents.py`` whether the command was
    started as ``bandit-bench`` (a console script, whose ``sys.path`` starts with its own
    folder) or as ``python -m registry.cli``. Worker processes inherit ``sys.path``.
    """
    cwd = os.getcwd()
    if not any(os.path.abspath(entry or os.curdir) == cwd for entry in sys.path):
        sys.path.insert(0, cwd)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``bandit-bench``."""
    args = build_parser().parse_args(argv)
    _import_from_cwd()
    try:
        return int(args.func(args))
    except (ConfigError, UnknownNameError, InvalidParameterError, IncompatibleAgentError) as exc:
        print(f"bandit-bench {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # the reader went away (bandit-bench list | head): not an error
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except (ResultsWriteError, WorkerLostError) as exc:
        print(
            f"bandit-bench {args.command}: stopped: {exc}\nThe finished episodes are kept; "
            "run the same command again to resume.",
            file=sys.stderr,
        )
        return 3


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
