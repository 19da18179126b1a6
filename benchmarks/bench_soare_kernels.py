"""Per-pull cost of Soare, Lazaric & Munos (2014)'s agents, first episode and later ones, paired.

The episode rows of ``bench_per_pull.py`` time one episode after warming the process on another
instance; the first episode on an instance also computes its deterministic greedy sequence,
which later episodes of the same process reuse, and a cold process loads the compiled kernels
from numba's on-disk cache (≈ 0.2 s of CPU). This script separates these costs: in one fresh
process per (code, agent, path), ``--episodes``
fixed-confidence episodes (seeds 0, 1, …) on ``LinearBAI-Soare-v0`` through ``env.unwrapped``
(environment included, as the episode rows), and prints CPU µs per pull of the first episode
and the median of the later ones, on the batch path (``select_batch``/``step_batch``, what
``run_episode`` uses for the agents that offer it) and on the one-pull path (``select``/``step``).

Usage (repository root)::

    python benchmarks/bench_soare_kernels.py [--baseline DIR] [--episodes 4] [--d 2]
        [--omega 0.1] [--delta 0.05] [--agents GAllocation,XYAllocation,...]

``--baseline DIR``: the same in processes on the packages of the checkout DIR, the order
alternating from agent to agent, with the speed-up. Plain script: measures, never asserts.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

AGENTS = ("GAllocation", "XYAllocation", "XYOracle", "FullyAdaptiveXY", "XYAdaptive")


def child(code: str, agent_name: str, batch: bool, args: argparse.Namespace) -> None:
    """Run the episodes on the packages of ``code``; print one JSON line."""
    sys.argv = [sys.argv[0], "--code", code]  # bench_per_pull imports the packages of ``code``
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import bench_per_pull as bench
    import gymnasium as gym

    import registry

    per_pull, samples = [], []
    for seed in range(args.episodes):
        env = gym.make(
            "LinearBAI-Soare-v0", max_samples=10**8, d=args.d, omega=args.omega, delta=args.delta
        )
        agent = registry.make_agent(agent_name)
        cpu, _, n = bench.episode(env, agent, seed, batch=batch)
        per_pull.append(cpu / n * 1e6)
        samples.append(n)
    later = statistics.median(per_pull[1:]) if len(per_pull) > 1 else float("nan")
    print(json.dumps({"first": per_pull[0], "later": later, "samples": samples}))


def measure(code: Path, agent: str, batch: bool, args: argparse.Namespace) -> dict:
    """One fresh process on ``code``."""
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", str(code), agent,
           "batch" if batch else "single", "--episodes", str(args.episodes), "--d", str(args.d),
           "--omega", str(args.omega), "--delta", str(args.delta)]  # fmt: skip
    out = subprocess.run(cmd, capture_output=True, text=True, check=False, cwd=code)
    if out.returncode != 0:
        sys.exit(f"bench_soare_kernels.py: {agent} failed on {code}:\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    parser.add_argument("--baseline", default=None)
    parser.add_argument("--episodes", type=int, default=4)
    parser.add_argument("--d", type=int, default=2)
    parser.add_argument("--omega", type=float, default=0.1)
    parser.add_argument("--delta", type=float, default=0.05)
    parser.add_argument("--agents", default=",".join(AGENTS))
    args = parser.parse_args()
    if args.child:
        code, agent, path = args.child
        child(code, agent, path == "batch", args)
        return
    ours = Path(__file__).resolve().parents[1]
    codes = [ours] if args.baseline is None else [ours, Path(args.baseline).resolve()]
    print(f"Soare d={args.d}, omega={args.omega}, delta={args.delta}; CPU µs per pull "
          "(environment included); first episode of a process / median of episodes "
          f"2..{args.episodes}")  # fmt: skip
    head = ["agent", "path", "samples", "first", "later"]
    if args.baseline is not None:
        head += ["first, baseline", "later, baseline", "speed-up (first)", "speed-up (later)"]
    print("| " + " | ".join(head) + " |\n|" + "---|" * len(head))
    for i, agent in enumerate(args.agents.split(",")):
        for batch in (True, False):
            if agent == "FullyAdaptiveXY" and batch:
                continue  # no batch path
            order = codes if i % 2 == 0 else codes[::-1]
            res = {code: measure(code, agent, batch, args) for code in order}
            mine = res[ours]
            cells = [agent, "batch" if batch else "one-pull",
                     "/".join(str(n) for n in mine["samples"]),
                     f"{mine['first']:.1f}", f"{mine['later']:.1f}"]  # fmt: skip
            if args.baseline is not None:
                other = res[codes[1]]
                cells += [f"{other['first']:.1f}", f"{other['later']:.1f}",
                          f"{other['first'] / mine['first']:.1f}×",
                          f"{other['later'] / mine['later']:.1f}×"]  # fmt: skip
            print("| " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
