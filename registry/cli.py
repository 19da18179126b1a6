"""``bandit-bench``: the command line of the suite.

Subcommands: ``list`` (environments, agents and their compatibility) and ``demo`` (a one-minute
benchmark that needs no download).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence

from tqdm.auto import tqdm

from bandit_envs.reporting import format_table, summarize
from bandit_envs.runner import EpisodeResult, run_episode
from registry.catalogue import (
    AGENTS,
    compatibility_matrix,
    env_entry,
    list_envs,
    make_agent,
    make_env,
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
        print(f"  {agent:<12} {env_id:<24} {'yes' if ok else 'no: ' + why}")
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
            row["delta"] = kw.get("delta")
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


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``bandit-bench``."""
    parser = argparse.ArgumentParser(
        prog="bandit-bench",
        description="Benchmarks for pure-exploration bandits: environments, agents, demo.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    p_list = sub.add_parser("list", help="list environments, agents and their compatibility")
    p_list.set_defaults(func=_cmd_list)
    p_demo = sub.add_parser(
        "demo", help="run Uniform on LinearBAI-Soare-v0 (about a minute, no download)"
    )
    p_demo.add_argument("--seeds", type=int, default=100, help="episodes per row (default 100)")
    p_demo.set_defaults(func=_cmd_demo)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``bandit-bench``."""
    args = build_parser().parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
