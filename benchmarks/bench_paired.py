"""Paired before/after timings: this checkout against an earlier commit, in one run.

The earlier commit is exported with ``git archive`` into a temporary directory; each
measurement then runs in a fresh subprocess with ``PYTHONPATH`` set to one of the two trees,
alternating before/after for ``--rounds`` rounds, so both sides see the same machine state.
Reported per row: the best CPU time (``time.process_time``) and wall time per unit of each side,
and the ratio before/after. No asserts (speed is measured, not tested).

Rows:

* ``pull``: ``env.unwrapped.step(arm)`` per reward model (µs per pull; the models of
  ``bench_env_throughput.py``).
* ``tas``: ``LinearTrackAndStop()`` at its defaults on the K = 1000, h = 20 instance of
  ``bench_sequential_scaling.py`` (agent only, 7000 pulls from reset): µs per pull amortised
  and in steady state (the pulls after the first 2000), and the seconds of the first (cold,
  certified) design solve.

Run: ``python benchmarks/bench_paired.py --before <commit> [--rows pull,tas] [--rounds 3]``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

#: one standard id per reward model (as in bench_env_throughput.py)
PULL_MODELS = {
    "linear Gaussian (m=1)": ("LinearEpsGood-Adaptive-v0", {}),
    "multi-output Gaussian (m=2)": ("LinearPSI-Synthetic-v0", {"K": 100}),
    "Bernoulli-logistic (GLM)": ("LogisticEpsGood-Adaptive-v0", {}),
    "misspecified Gaussian": ("MisspecifiedEpsGood-Adaptive-v0", {}),
    "constrained (m=3)": ("ConstrainedMixed-Table1-v0", {}),
}


def _clocks() -> tuple[float, float]:
    return time.perf_counter(), time.process_time()


class FloorEnv:
    """The least a Python ``step()`` does: one Gaussian draw, a fresh observation, the 5-tuple."""

    def __init__(self) -> None:
        import numpy as np

        self.n_arms = 3
        self.samples = 0
        self.normal = np.random.default_rng(0).standard_normal
        self.array = np.array

    def reset(self, seed: int) -> None:
        self.samples = 0

    def step(self, arm: int) -> tuple[object, float, bool, bool, dict[str, int]]:
        self.samples += 1
        obs = self.array((0.5 + 1.0 * self.normal(),))
        return obs, -0.0, False, False, {"samples": self.samples}


def worker_pull(pulls: int, repeats: int) -> dict[str, list[float]]:
    """µs per ``env.unwrapped.step`` (wall, CPU), best of ``repeats``, per reward model.

    The ``floor`` row is :class:`FloorEnv` (the same in both trees).
    """
    import gymnasium as gym

    import bandit_envs  # noqa: F401

    out = {}
    envs: dict[str, object] = {"floor (bare Python step)": FloorEnv()}
    for label, (env_id, kwargs) in PULL_MODELS.items():
        envs[label] = gym.make(env_id, budget=10**12, **kwargs).unwrapped
    for label, env in envs.items():
        k = env.n_arms  # type: ignore[attr-defined]
        best = [float("inf"), float("inf")]
        for _ in range(repeats):
            env.reset(seed=0)  # type: ignore[attr-defined]
            step = env.step  # type: ignore[attr-defined]
            wall, cpu = _clocks()
            for t in range(pulls):
                step(t % k)
            wall2, cpu2 = _clocks()
            best = [min(best[0], wall2 - wall), min(best[1], cpu2 - cpu)]
        out[label] = [best[0] / pulls * 1e6, best[1] / pulls * 1e6]
    return out


def worker_tas(pulls: int, warm: int) -> dict[str, list[float]]:
    """Track-and-Stop at its defaults, K = 1000, h = 20: µs per pull (wall, CPU)."""
    sys.path.insert(0, str(HERE))
    import numpy as np
    from bench_sequential_scaling import linear_instance

    from agents.linear_bai.track_and_stop import LinearTrackAndStop

    inst = linear_instance(1000, 20)
    k, m = inst.means.shape
    noise = inst.sigma * np.random.default_rng(1).standard_normal((pulls, m))
    agent = LinearTrackAndStop()
    agent.reset(inst.spec, np.random.default_rng(0))
    solve = type(agent)._solve
    first: list[float] = []

    def timed_solve(self: LinearTrackAndStop) -> None:
        start = time.perf_counter()
        solve(self)
        if not first:
            first.append(time.perf_counter() - start)

    type(agent)._solve = timed_solve  # type: ignore[method-assign]
    select, observe, means = agent.select, agent.observe, inst.means
    marks = []
    wall0, cpu0 = _clocks()
    for n in range(pulls):
        if n == warm:
            marks = list(_clocks())
        arm = select()
        if arm is None:
            raise RuntimeError("Track-and-Stop stopped early; use a harder instance.")
        y = noise[n]
        y += means[arm]
        observe(arm, y)
    wall1, cpu1 = _clocks()
    steady = pulls - warm
    return {
        "amortised": [(wall1 - wall0) / pulls * 1e6, (cpu1 - cpu0) / pulls * 1e6],
        "steady": [(wall1 - marks[0]) / steady * 1e6, (cpu1 - marks[1]) / steady * 1e6],
        "first solve (s)": [first[0], float("nan")],
        "design solves": [float(agent.design_solves), float("nan")],
    }


def _min(a: float, b: float) -> float:
    """min that keeps NaN (a value not measured on this clock)."""
    return math.nan if math.isnan(b) else min(a, b)


def run_side(tree: Path, row: str, args: argparse.Namespace) -> dict[str, list[float]]:
    env = dict(os.environ, PYTHONPATH=str(tree), OMP_NUM_THREADS="1")
    cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", row]
    cmd += ["--pulls", str(args.pulls), "--repeats", str(args.repeats)]
    res = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    if res.returncode:
        raise RuntimeError(f"the {row} worker failed in {tree}:\n{res.stderr}")
    return json.loads(res.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", help="the earlier commit (any git revision)")
    parser.add_argument("--rows", default="pull,tas")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--pulls", type=int, default=100_000, help="pulls per pull-row repeat")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker == "pull":
        print(json.dumps(worker_pull(args.pulls, args.repeats)))
        return
    if args.worker == "tas":
        print(json.dumps(worker_tas(7000, 2000)))
        return
    if not args.before:
        parser.error("--before <commit> is required")
    with tempfile.TemporaryDirectory() as tmp:
        before = Path(tmp)
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", args.before], capture_output=True, check=True
        )
        subprocess.run(["tar", "-x", "-C", tmp], input=archive.stdout, check=True)
        sides = {"before": before, "after": ROOT}
        for row in args.rows.split(","):
            rounds = args.rounds if row == "pull" else max(1, args.rounds - 1)
            best: dict[str, dict[str, list[float]]] = {"before": {}, "after": {}}
            for _ in range(rounds):
                for side, tree in sides.items():
                    for key, (wall, cpu) in run_side(tree, row, args).items():
                        old = best[side].get(key, [math.inf, math.inf])
                        best[side][key] = [_min(old[0], wall), _min(old[1], cpu)]
            print(f"\n{row}: best of {rounds} alternating rounds (before = {args.before})")
            print(
                f"{'':32} {'before wall':>12} {'after wall':>11} {'ratio':>6} "
                f"{'before CPU':>11} {'after CPU':>10} {'ratio':>6}"
            )
            for key, (bw, bc) in best["before"].items():
                aw, ac = best["after"][key]
                print(
                    f"{key:32} {bw:12.3f} {aw:11.3f} {bw / aw:6.2f} "
                    f"{bc:11.3f} {ac:10.3f} {bc / ac:6.2f}",
                    flush=True,
                )


if __name__ == "__main__":
    main()
