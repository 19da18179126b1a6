"""Every agent of the catalogue on its family's standard instance: time, samples, lower-bound ratio.

Section 2 of docs/performance.md. For each catalogued agent and each standard id it is
compatible with (one per family, default keywords), in each setting the agent supports:
``--seeds`` episodes (default 10) through ``run_episode`` (the batch path when the agent offers
it), and the mean wall time per episode, the mean samples, the error rate and — in fixed
confidence — the ratio of the mean samples to the instance's lower bound T*(θ)·log(1/δ). An agent
whose first episode takes longer than ``--slow`` seconds (default 30) is run on that one seed only
(marked ``*``).
Run: ``python benchmarks/bench_zoo.py [--seeds 10] [--markdown]`` (the real-data ids need the NoC
and Energy data: downloaded on first use, or read from the folder named by BANDIT_ENVS_DATA).
"""

from __future__ import annotations

import argparse
import time

import gymnasium as gym
import numpy as np

import bandit_envs
import registry

#: (id, keywords, fixed-budget budget) per family: the standard instances of the reproductions
STANDARD = {
    "linear best arm": ("LinearBAI-Soare-v0", {"d": 2, "omega": 0.1}, 2000),
    "Pareto set": ("LinearPSI-NoC-v0", {}, 3000),
    "all eps-good": ("LinearEpsGood-Adaptive-v0", {}, 20_000),
    "misspecified eps-good": ("MisspecifiedEpsGood-Adaptive-v0", {}, 20_000),
    "logistic eps-good": ("LogisticEpsGood-Adaptive-v0", {}, 20_000),
    "constrained mixed arm": ("ConstrainedMixed-Table1-v0", {"instance": "D3P"}, 5000),
}


def main() -> None:
    """Print the table (plain or Markdown)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--slow", type=float, default=30.0)
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--agents", nargs="*", help="only these agents")
    args = parser.parse_args()
    head = ["family", "id", "agent", "setting", "runs", "s/episode", "samples", "error", "LB ratio"]
    print("| " + " | ".join(head) + " |" if args.markdown else "  ".join(head))
    if args.markdown:
        print("|" + "---|" * len(head))
    for family, (env_id, kwargs, budget) in STANDARD.items():
        for name in registry.list_agents():
            if args.agents and name not in args.agents:
                continue
            caps = registry.agent_entry(name).capabilities
            for setting in sorted(caps.settings):
                kw = dict(kwargs, **({"budget": budget} if setting == "fixed_budget" else {}))
                env = gym.make(env_id, **kw)
                ok, _ = registry.is_compatible(name, env)
                if not ok:
                    continue
                times, samples, wrong, bound = [], [], [], None
                for seed in range(args.seeds):
                    t0 = time.perf_counter()
                    record = bandit_envs.run_episode(env, registry.make_agent(name), seed)
                    times.append(time.perf_counter() - t0)
                    samples.append(record.samples)
                    wrong.append(not record.correct)
                    bound = record.lower_bound
                    if times[0] > args.slow:
                        break
                ratio = (
                    f"{np.mean(samples) / bound:.1f}"
                    if bound and setting == "fixed_confidence"
                    else "—"
                )
                mark = "*" if len(times) < args.seeds else ""
                cells = [
                    family,
                    env_id,
                    name + (" (oracle)" if caps.oracle else ""),
                    setting.replace("fixed_", ""),
                    f"{len(times)}{mark}",
                    f"{np.mean(times):.3g}",
                    f"{np.mean(samples):.4g}",
                    f"{np.mean(wrong):.2f}",
                    ratio,
                ]
                print(
                    "| " + " | ".join(cells) + " |" if args.markdown else "  ".join(cells),
                    flush=True,
                )


if __name__ == "__main__":
    main()
