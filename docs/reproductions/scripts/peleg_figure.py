"""PELEG's Fig. 2b from our sweep (docs/reproductions/peleg.md; Zaki, Mohan & Gopalan, §6).

Usage::

    python docs/reproductions/scripts/peleg_figure.py results/peleg_setting1b \
        docs/reproductions/figures/peleg_setting1b.png [--table]

Reads the records of ``experiments/peleg_setting1b.toml`` with
``registry.sweeps.read_results`` and draws, for every agent, the mean number of samples at
stopping against the gap with ±1 standard deviation bars (the paper's App. G convention), and the
lower bound T*(theta) log(1/delta) of each instance. With ``--table`` it also prints the
Markdown table of the page: mean samples (wrong answers / runs) per agent and gap.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import numpy as np
from _figure_cli import command_line, save

from registry.plots import pyplot
from registry.sweeps import read_results

plt = pyplot()  # matplotlib (Agg), or an error naming the extra to install: bandit-envs[plot]


def load(
    folder: Path,
) -> tuple[dict[tuple[str, float], list[tuple[int, bool]]], dict[float, float]]:
    """Return ``{(agent, gap): [(samples, correct), ...]}`` and ``{gap: lower bound}``.

    Args:
        folder: The sweep's results folder (holding ``results.jsonl``).
    """
    cells: dict[tuple[str, float], list[tuple[int, bool]]] = defaultdict(list)
    bound: dict[float, float] = {}
    for r in read_results(folder):
        if r.get("status", "ok") != "ok":
            continue
        gap = float(r["env_kwargs"]["gap"])
        cells[(r["agent_label"], gap)].append((int(r["samples"]), bool(r["correct"])))
        if r.get("lower_bound") is not None:
            bound[gap] = float(r["lower_bound"])
    return cells, bound


def _agents(cells: dict[tuple[str, float], list[tuple[int, bool]]]) -> list[str]:
    order = ["PELEG", "RAGE"]
    found = {a for a, _ in cells}
    return [a for a in order if a in found] + sorted(found - set(order))


def table(cells: dict[tuple[str, float], list[tuple[int, bool]]], bound: dict[float, float]) -> str:
    """Markdown table: mean samples (wrong / runs) per agent (rows) and gap (columns).

    Args:
        cells: The first output of :func:`load`.
        bound: The second output of :func:`load`.
    """
    gaps = sorted({g for _, g in cells})
    lines = [
        "| agent \\ gap | " + " | ".join(f"{g:g}" for g in gaps) + " |",
        "|---|" + "---|" * len(gaps),
        "| T*·log(1/δ) | " + " | ".join(f"{bound[g]:,.0f}" for g in gaps) + " |",
    ]
    for agent in _agents(cells):
        row = []
        for g in gaps:
            runs = cells[(agent, g)]
            mean = np.mean([s for s, _ in runs])
            wrong = sum(not c for _, c in runs)
            row.append(f"{mean:,.0f} ({wrong}/{len(runs)})")
        lines.append(f"| {agent} | " + " | ".join(row) + " |")
    return "\n".join(lines)


def figure(
    cells: dict[tuple[str, float], list[tuple[int, bool]]], bound: dict[float, float], out: Path
) -> None:
    """Mean samples ± 1 s.d. against the gap, one line per agent, saved to ``out``.

    Args:
        cells: The first output of :func:`load`.
        bound: The second output of :func:`load`.
        out: The PNG file to write.
    """
    fig, ax = plt.subplots(figsize=(6.0, 3.8))
    for i, agent in enumerate(_agents(cells)):
        gaps = sorted(g for a, g in cells if a == agent)
        samples = [np.array([s for s, _ in cells[(agent, g)]], dtype=float) for g in gaps]
        shift = (i - 0.5) * 0.0012  # keep the error bars of the two agents apart
        ax.errorbar(
            np.array(gaps) + shift,
            [s.mean() for s in samples],
            yerr=[s.std() for s in samples],
            marker="o",
            ms=4,
            capsize=3,
            label=agent,
        )
    gaps = sorted(bound)
    ax.plot(gaps, [bound[g] for g in gaps], ls="--", color="grey", label="T*·log(1/δ)")
    runs = min(len(v) for v in cells.values())
    ax.set_xlabel("gap")
    ax.set_ylabel("samples at stopping")
    ax.set_title(
        f"e1..e5, θ = (gap, 0, 0, 0, 0), δ = 0.1: mean ± 1 s.d. over {runs} runs", fontsize=10
    )
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    save(fig, out)
    plt.close(fig)


if __name__ == "__main__":
    command_line(__doc__, load, lambda data, out: figure(*data, out), lambda data: table(*data))
