"""LinGapE's per-pull cost, paired: this checkout beside another one (e.g. before the kernels).

Each checkout runs in its own worker processes (``PYTHONPATH`` = the checkout), alternating
``--repeats`` times, and the best CPU and wall times are printed beside each other with the
ratio. Rows:

* **compile**: the first LinGapE call of a fresh process (a 60-pull episode on K = 6), once with
  numba's on-disk cache as it is (normally warm: loads the machine code) and once with an empty
  cache directory (``NUMBA_CACHE_DIR``: compiles); the import of the agent module apart.
* **µs/pull, K = 1000, h = 20** (greedy and ratio rule): the agent alone (``select`` +
  ``observe``, outcomes ``mean + noise`` drawn beforehand) on the instance of
  ``bench_sequential_scaling.py`` (unit-norm Gaussian features, σ = 1, δ = 0.05), pulls after
  the first 2K (initial round and set-up excluded), 20 000 pulls in all (fresh episodes when
  one stops); also amortised over all of them.
* **Soare d = 5, ω = 0.01, δ = 0.05** (the default LinGapE, seed 0, about 89 000 samples): one
  ``run_episode`` (environment included), and the agent alone on the same outcomes model.

The physical floor (printed last): the multiply-adds a pull cannot avoid, ≈ 11·K (the update
of μ̂ and 1 + diag(X A⁻¹ Xᵀ), the index pass over the arms and the greedy score), over this
machine's rate measured by a NumPy matrix-vector product X v of the features' shape.

Usage (repository root): ``python benchmarks/bench_lingape_kernel.py [--ref DIR] [--repeats 3]``;
``DIR`` is another checkout, e.g. ``git archive <commit> | tar -x -C DIR``. Without ``--ref``
only this checkout runs.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

WORKER = r"""
import json, sys, time
t0 = time.perf_counter()
import numpy as np
import gymnasium as gym
import bandit_envs
from bandit_envs import run_episode
from agents.linear_bai.lingape import LinGapE
out = {"import_s": time.perf_counter() - t0}
env = gym.make("LinearBAI-Soare-v0", d=5, omega=0.01, delta=0.05)
small = gym.make("LinearBAI-Soare-v0", d=5, omega=0.3, delta=0.05, max_samples=60)
t = time.perf_counter()
run_episode(small, LinGapE(), 0)
out["first_call_s"] = time.perf_counter() - t
if sys.argv[1] == "compile":
    print(json.dumps(out)); raise SystemExit
sys.path.insert(0, "benchmarks")
from bench_sequential_scaling import linear_instance

def drive(agent_factory, spec, means, sigma, pulls, warm, seed=0, max_episodes=10**9):
    noise = sigma * np.random.default_rng(seed + 1).standard_normal((min(pulls, 10**6), 1))
    n = 0; episodes = 0
    c0, w0 = time.process_time(), time.perf_counter()
    cw = ww = None
    while n < pulls and episodes < max_episodes:
        agent = agent_factory()
        agent.reset(spec, np.random.default_rng(seed + episodes)); episodes += 1
        select, observe = agent.select, agent.observe
        while n < pulls:
            arm = select()
            if arm is None:
                break
            y = noise[n]
            y += means[arm]
            observe(arm, y)
            n += 1
            if n == warm:
                cw, ww = time.process_time(), time.perf_counter()
    c1, w1 = time.process_time(), time.perf_counter()
    res = {"amortised_cpu_us": (c1 - c0) / n * 1e6, "amortised_wall_us": (w1 - w0) / n * 1e6,
           "episodes": episodes, "pulls": n}
    if cw is not None:
        res["steady_cpu_us"] = (c1 - cw) / (pulls - warm) * 1e6
        res["steady_wall_us"] = (w1 - ww) / (pulls - warm) * 1e6
    return res

k, h = 1000, 20
inst = linear_instance(k, h)
means = inst.means[:, 0]
for rule in ("greedy", "ratio"):
    from agents.common.design_cache import DESIGNS
    DESIGNS.clear()
    out[rule] = drive(lambda: LinGapE(selection=rule), inst.spec, means, 1.0, 20_000, 2 * k)
c, w = time.process_time(), time.perf_counter()
rec = run_episode(env, LinGapE(), 0)
out["soare_episode"] = {"cpu_s": time.process_time() - c, "wall_s": time.perf_counter() - w,
                        "samples": rec.samples}
_, info = env.reset(seed=0)
soare_means = np.asarray(env.unwrapped.model.means)[:, 0]
sigma = float(np.max(info["problem"].noise_std))
agent_only = drive(LinGapE, info["problem"], soare_means, sigma, 10**8, 10**9, max_episodes=1)
out["soare_agent"] = agent_only
x = np.asfortranarray(inst.spec.features)
v = np.ones(x.shape[1]); y = np.empty(k)
reps = 20000
t = time.process_time()
for _ in range(reps):
    np.dot(x, v, out=y)
out["matvec_us"] = (time.process_time() - t) / reps * 1e6
print(json.dumps(out))
"""


def run(tree: Path, mode: str, cache_dir: str | None = None) -> dict:
    env = dict(os.environ, PYTHONPATH=str(tree), OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    if cache_dir is not None:
        env["NUMBA_CACHE_DIR"] = cache_dir
    done = subprocess.run(
        [sys.executable, "-c", WORKER, mode],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def best(results: list[dict], *keys: str) -> float:
    values = []
    for r in results:
        for key in keys:
            r = r[key]
        values.append(r)
    return min(values)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--ref", type=Path, help="another checkout to pair with this one")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    trees = {"this": ROOT} | ({"ref": args.ref.resolve()} if args.ref else {})
    results: dict[str, list[dict]] = {name: [] for name in trees}
    compiles: dict[str, list[dict]] = {name: [] for name in trees}
    for _ in range(args.repeats):
        for name, tree in trees.items():
            results[name].append(run(tree, "full"))
            with tempfile.TemporaryDirectory() as empty:
                compiles[name].append(run(tree, "compile", cache_dir=empty))
    rows = [
        ("import of the agent module, s (wall)", ("import_s",), False),
        ("first call, on-disk cache as it is, s (wall)", ("first_call_s",), False),
    ]
    names = list(trees)
    head = " | ".join(names)
    print(f"| row | {head} | ratio ref/this |" if "ref" in trees else f"| row | {head} |")
    print("|---" * (len(names) + 1 + ("ref" in trees)) + "|")

    def line(label: str, values: list[float], fmt: str = "{:.3g}") -> None:
        cells = " | ".join(fmt.format(v) for v in values)
        ratio = f" | {values[1] / values[0]:.1f}×" if len(values) == 2 else ""
        print(f"| {label} | {cells}{ratio} |")

    for label, keys, _ in rows:
        line(label, [best(results[n], *keys) for n in names])
    line(
        "first call, empty cache (compiles), s (wall)",
        [best(compiles[n], "first_call_s") for n in names],
    )
    for rule in ("greedy", "ratio"):
        for what in ("steady_cpu_us", "steady_wall_us", "amortised_cpu_us", "amortised_wall_us"):
            line(f"K=1000 h=20 {rule}: {what}", [best(results[n], rule, what) for n in names])
    for what in ("cpu_s", "wall_s"):
        line(
            f"Soare d=5 ω=0.01 δ=0.05 run_episode: {what}",
            [best(results[n], "soare_episode", what) for n in names],
        )
    for what in ("amortised_cpu_us", "amortised_wall_us"):
        line(
            f"Soare d=5 agent alone: {what}", [best(results[n], "soare_agent", what) for n in names]
        )
    samples = [results[n][0]["soare_episode"]["samples"] for n in names]
    print(f"\nSoare episode samples: {dict(zip(names, samples, strict=True))}")
    rate = best(results[names[0]], "matvec_us")
    floor = 1000 * (8 + 3) / (1000 * 20 / rate)
    print(
        f"floor at K=1000: 11·K = 11 000 multiply-adds at the matvec rate "
        f"({1000 * 20 / rate / 1e3:.2f} G/s, K×h product {rate:.2f} µs) = {floor:.2f} µs/pull"
    )


if __name__ == "__main__":
    start = time.perf_counter()
    main()
    print(f"(total {time.perf_counter() - start:.0f} s)")
