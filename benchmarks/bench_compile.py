"""The compiled kernels' one-off costs: compiled once per machine, loaded once per process.

The per-pull kernels of the sequential agents are ``numba.njit(cache=True)`` functions. The first
call of a kernel in a process either compiles it (empty cache: once per machine and library
version, a few seconds) or loads its machine code from numba's on-disk cache (``__pycache__``;
every later process). This script measures both, per agent, in fresh processes:

1. ``cold``: a process with an empty cache (``NUMBA_CACHE_DIR`` set to a new folder) runs each
   compiled agent for a few hundred pulls on a small instance, then the same pulls again. The
   first pass minus the second is the compile time of the kernels that agent is the first to call
   (agents sharing kernels, e.g. LinGapE and m-LinGapE, pay once).
2. ``cached``: a second process with the cache the first one wrote: first pass minus second pass
   is the per-process cache-load time.

Also printed: ``import numba`` on its own (every process that imports :mod:`agents` pays it) and
any kernel no agent below called (a kernel missing from the list would hide its compile time).

Usage (repository root)::

    python benchmarks/bench_compile.py [--markdown]
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
from typing import Any

HERE = Path(__file__).resolve()
ROOT = HERE.parents[1]

#: agent -> (instance, keywords): every agent whose select/observe call compiled kernels
COMPILED: dict[str, tuple[str, dict[str, Any]]] = {
    "LinGapE": ("linear", {}),
    "LinGapE (ratio)": ("linear", {"selection": "ratio"}),
    "APE": ("pareto", {}),
    "MLinGapE": ("eps", {}),
    "LinGIFA": ("eps", {}),
    "GAllocation": ("soare", {}),
    "XYAllocation": ("soare", {}),
    "XYOracle": ("soare", {}),
    "XYAdaptive": ("soare", {}),
    "FullyAdaptiveXY": ("soare", {}),
    "LinearTrackAndStop": ("linear", {}),
    "LazyTTS": ("eps", {}),
    "BayesGap": ("budget", {}),
    "KGCB": ("budget", {}),
}
PULLS = 300


def _instance(kind: str) -> Any:
    import bench_per_pull as b

    if kind == "linear":
        return b.linear_instance(40, 5)
    if kind == "eps":
        return b.eps_good_instance(40, 5)
    if kind == "budget":
        return b.linear_instance(20, 5, budget=10**6)
    if kind == "soare":
        import gymnasium as gym

        return b._instance(gym.make("LinearBAI-Soare-v0"), 1.0)
    if kind == "pareto":
        return b.pareto_instance(40, 2, 5)
    raise ValueError(f"unknown instance kind {kind!r}")


def child() -> None:
    """Run in a fresh process: print one JSON line per agent (first pass, second pass, CPU s)."""
    t = time.process_time()
    import numba  # noqa: F401

    print(json.dumps({"agent": "import numba", "first": time.process_time() - t, "second": 0.0}))
    sys.path[:0] = [str(ROOT), str(HERE.parent)]
    import bench_per_pull as b

    from registry.catalogue import make_agent

    for name, (kind, kwargs) in COMPILED.items():
        inst = _instance(kind)
        agent = name.split(" ")[0]
        passes = []
        for _ in range(2):
            t = time.process_time()
            b.drive(lambda a=agent, k=kwargs: make_agent(a, **k), inst, PULLS, 1)
            passes.append(time.process_time() - t)
        print(json.dumps({"agent": name, "first": passes[0], "second": passes[1]}), flush=True)
    print(json.dumps({"uncalled": uncalled_kernels()}))


def uncalled_kernels() -> list[str]:
    """The public kernels of ``agents.common.kernels`` that no agent above compiled or loaded."""
    import importlib
    import pkgutil

    import numba.core.registry

    import agents.common.kernels as pkg

    out = []
    for info in pkgutil.iter_modules(pkg.__path__):
        module = importlib.import_module(f"{pkg.__name__}.{info.name}")
        for attr, obj in vars(module).items():
            dispatcher = isinstance(obj, numba.core.registry.CPUDispatcher)
            public = not attr.startswith("_")  # private helpers are inlined into their callers
            if dispatcher and public and obj.__module__ == module.__name__ and not obj.signatures:
                out.append(f"{info.name}.{attr}")
    return sorted(out)


def _run(cache: str) -> list[dict[str, Any]]:
    env = dict(os.environ, NUMBA_CACHE_DIR=cache, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    out = subprocess.run(
        [sys.executable, str(HERE), "--child"], capture_output=True, text=True, env=env, cwd=ROOT
    )
    if out.returncode != 0:
        sys.exit(f"bench_compile.py: the measuring process failed:\n{out.stderr}")
    return [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child()
        return
    with tempfile.TemporaryDirectory() as cache:
        cold, cached = _run(cache), _run(cache)
    uncalled = cold.pop()["uncalled"]
    cached.pop()
    head = ["agent", "compile (empty cache), CPU s", "load (cached), CPU s", "warm pass, CPU s"]
    sep = " | " if args.markdown else "  "
    wrap = (lambda s: f"| {s} |") if args.markdown else (lambda s: s)
    print(wrap(sep.join(head)))
    if args.markdown:
        print("|" + "---|" * len(head))
    totals = [0.0, 0.0]
    for a, b in zip(cold, cached, strict=True):
        c, ld = a["first"] - a["second"], b["first"] - b["second"]
        totals[0] += c
        totals[1] += ld
        print(wrap(sep.join([a["agent"], f"{c:.2f}", f"{ld:.2f}", f"{a['second']:.3f}"])))
    print(wrap(sep.join(["all of the above", f"{totals[0]:.2f}", f"{totals[1]:.2f}", ""])))
    if uncalled:
        print(f"kernels no agent above called (compile time not measured): {', '.join(uncalled)}")


if __name__ == "__main__":
    main()
