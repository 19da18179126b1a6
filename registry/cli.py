"""``bandit-bench``: the command line of the suite.

Subcommands: ``list`` (environments, agents and their compatibility), ``run`` (a sweep from
flags or a TOML config), ``report DIR`` (tables), ``plot DIR`` (PNG figures) and ``demo`` (a
one-minute benchmark that needs no download). Exit codes: 0 success, 1 a sweep had crashed
episodes, 2 invalid usage or configuration.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from typing import Any

from tqdm.auto import tqdm

from bandit_envs.errors import InvalidParameterError, UnknownNameError
from bandit_envs.reporting import format_table, report, summarize
from bandit_envs.runner import EpisodeResult, run_episode
from bandit_envs.sweeps import BACKENDS, export, read_results, sweep
from registry.catalogue import (
    AGENTS,
    compatibility_matrix,
    env_entry,
    list_envs,
    make_agent,
    make_env,
)
from registry.config import (
    ConfigError,
    SweepConfig,
    load_config,
    parse_config,
    validate_settings,
)


def _cmd_list(args: argparse.Namespace) -> int:
    print("Environments (gym.make(id, delta=...) or gym.make(id, budget=...)):")
    for env_id in list_envs():
        entry = env_entry(env_id)
        print(f"  {env_id:<24} {entry.summary}")
        print(f"  {'':<24} source: {entry.source}")
    print("\nAgents (registry.make_agent(name, **params)):")
    for agent in AGENTS:
        caps = agent.capabilities
        print(f"  {agent.name:<24} {agent.summary}")
        print(
            f"  {'':<24} tasks: {', '.join(sorted(caps.tasks))}; settings: "
            f"{', '.join(sorted(caps.settings))}; structure: {', '.join(sorted(caps.structures))}"
            f"{'; ORACLE' if caps.oracle else ''}"
        )
    print("\nCompatibility (agent x env):")
    for (agent, env_id), (ok, why) in compatibility_matrix().items():
        verdict = "yes" if ok else (why if why.startswith("not checked") else "no: " + why)
        print(f"  {agent:<12} {env_id:<24} {verdict}")
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
    with tqdm(total=len(jobs) * args.seeds, desc="episodes", unit="ep", file=sys.stderr) as bar:
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
            ["agent", "setting", "runs", "error_rate", "samples_mean", "samples_median",
             "lower_bound", "ratio", "seconds_per_episode"],
        )
    )
    t_star = make_env(env_id).unwrapped.complexity()["lower_bound"]
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
        env_kw, env_grid = _pairs(args.env_kw, "--env-kw", False), _pairs(args.env_grid,
                                                                           "--env-grid", True)
        agent_kw = _pairs(args.agent_kw, "--agent-kw", False)
        agent_grid = _pairs(args.agent_grid, "--agent-grid", True)
        config = parse_config(
            {
                "env": [{"id": e, "kwargs": env_kw, "grid": env_grid} for e in args.env],
                "agent": [{"name": a, "kwargs": agent_kw, "grid": agent_grid} for a in args.agent],
            },
            "<flags>",
        )
    for key in ("runs", "seed", "backend", "jobs", "out", "address"):
        value = getattr(args, key)
        if value is not None:
            setattr(config, key, value)
    if config.out is None:
        raise ConfigError("no output folder: give --out DIR (or out = \"...\" in [sweep]).")
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
        config.envs, config.agents, config.runs, seed=config.seed, out=config.out,
        backend=config.backend, n_jobs=config.jobs, address=config.address, batch=config.batch,
        progress=not args.quiet,
    )
    print(f"ran {result.ran} episode(s), skipped {result.skipped} already finished.",
          file=sys.stderr)
    print(report(result.records))
    return 1 if result.errors else 0


def _cmd_report(args: argparse.Namespace) -> int:
    records = read_results(args.folder)
    print(report(records, markdown=args.markdown, pool=args.pool))
    for path in (args.csv, args.parquet):
        if path is not None:
            print(f"wrote {export(records, path)}", file=sys.stderr)
    return 1 if any(r.get("status") == "error" for r in records) else 0


def _cmd_plot(args: argparse.Namespace) -> int:
    from bandit_envs.plots import plot_all

    records = read_results(args.folder)
    paths = plot_all(records, args.out or args.folder)
    for path in paths:
        print(path)
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``bandit-bench``."""
    parser = argparse.ArgumentParser(
        prog="bandit-bench",
        description="Benchmarks for pure-exploration bandits: environments, agents, demo.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    p_list = sub.add_parser("list", help="list environments, agents and their compatibility")
    p_list.set_defaults(func=_cmd_list)
    p_run = sub.add_parser(
        "run",
        help="run a sweep (from a TOML config or from flags); resumes into an existing --out",
        description="Run environments x agents x runs and append every episode to "
        "DIR/results.jsonl at once. Re-running the same sweep into the same folder resumes it.",
    )
    p_run.add_argument("config", nargs="?", help="a TOML sweep configuration (experiments/*.toml)")
    p_run.add_argument("--env", action="append", help="an environment id (repeatable)")
    p_run.add_argument("--env-kw", action="append", metavar="KEY=VALUE",
                       help="a fixed gym.make keyword for the --env ids (repeatable)")
    p_run.add_argument("--env-grid", action="append", metavar="KEY=V1,V2",
                       help="a grid axis of gym.make keywords, e.g. delta=0.05,0.01")
    p_run.add_argument("--agent", action="append", help="an agent name (repeatable)")
    p_run.add_argument("--agent-kw", action="append", metavar="KEY=VALUE",
                       help="a fixed agent parameter (repeatable)")
    p_run.add_argument("--agent-grid", action="append", metavar="KEY=V1,V2",
                       help="a grid axis of agent parameters")
    p_run.add_argument("--runs", type=int, help="episodes per (env, agent) setting")
    p_run.add_argument("--seed", type=int, help="the sweep seed (default 0)")
    p_run.add_argument("--out", help="the results folder")
    p_run.add_argument("--backend", choices=list(BACKENDS), help="default: process")
    p_run.add_argument("--jobs", type=int, help="worker processes (default: all CPUs)")
    p_run.add_argument("--address", help="Ray cluster address (backend ray)")
    p_run.add_argument("--quiet", action="store_true", help="no progress bar")
    p_run.set_defaults(func=_cmd_run)
    p_report = sub.add_parser("report", help="tables of a results folder")
    p_report.add_argument("folder", help="a sweep's results folder")
    p_report.add_argument("--markdown", action="store_true", help="Markdown tables")
    p_report.add_argument(
        "--pool", action="append", default=[], metavar="KEY",
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
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``bandit-bench``."""
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except (ConfigError, UnknownNameError, InvalidParameterError) as exc:
        print(f"bandit-bench {args.command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
