"""Figures and tables of docs/reproductions/sfsr.md (Tang, Jain, Nayyar & Nuzzo 2024).

Usage::

    python docs/reproductions/scripts/constrained_mixed_figures.py RESULTS_FOLDER OUT_PNG [--table]

Reads a sweep's ``results.jsonl`` (experiments/constrained_mixed_*.toml), draws one panel per
instance (error rate against the budget N for every agent, log-log axes as in the paper's
figures, 95% Clopper-Pearson bands; a zero error rate is drawn at 1/(2R) with an open marker) and,
with ``--table``, prints the markdown table "error (CI)" per instance, budget and agent.
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from pathlib import Path

from _figure_cli import command_line, save

from registry.plots import pyplot
from registry.reporting import clopper_pearson

plt = pyplot()  # matplotlib (Agg), or an error naming the extra to install: bandit-envs[plot]
import matplotlib.ticker  # noqa: E402  (matplotlib is importable from here on)

ORDER = ("SFSR", "SFSRL", "USLP")
LABEL = {"SFSR": "SFSR (IV)", "SFSRL": "SFSR-L", "USLP": "USLP"}


def load(folder: Path) -> dict[tuple[str, str, int], list[bool]]:
    """``{(instance, agent, budget): [wrong, ...]}`` from a results folder."""
    cells: dict[tuple[str, str, int], list[bool]] = defaultdict(list)
    with open(folder / "results.jsonl") as fh:
        for line in fh:
            r = json.loads(line)
            if r.get("status", "ok") != "ok":
                continue
            kw = r["env_kwargs"]
            default = f"App. A construction, K = {kw.get('K', 16)}"
            name = kw.get("instance", default)
            cells[(str(name), r["agent"], int(r["budget"]))].append(not r["correct"])
    return cells


def table(cells: dict[tuple[str, str, int], list[bool]]) -> str:
    """Markdown: error rate [95% Clopper-Pearson interval] per instance, budget and agent."""
    instances = sorted({k[0] for k in cells}, key=_instance_key)
    budgets = sorted({k[2] for k in cells})
    lines = [
        "| instance | N | " + " | ".join(LABEL[a] for a in ORDER) + " |",
        "|---|---|" + "---|" * len(ORDER),
    ]
    for inst in instances:
        for n in budgets:
            row = []
            for agent in ORDER:
                wrong = cells.get((inst, agent, n))
                if not wrong:
                    row.append("—")
                    continue
                low, high = clopper_pearson(sum(wrong), len(wrong))
                row.append(f"{sum(wrong) / len(wrong):.3f} [{low:.3f}, {high:.3f}]")
            lines.append(f"| {inst} | {n} | " + " | ".join(row) + " |")
    return "\n".join(lines)


def _instance_key(name: str) -> tuple[int, str]:
    paper_order = ["D1P", "D2P", "D3P", "D1I", "D2I", "D3I", "A1r", "A2r", "A3r", "H1r", "H2r"]
    return (paper_order.index(name), name) if name in paper_order else (99, name)


def figure(cells: dict[tuple[str, str, int], list[bool]], out: Path) -> None:
    """One log-log panel of error rate against N per instance, saved to ``out``."""
    instances = sorted({k[0] for k in cells}, key=_instance_key)
    cols = 3 if len(instances) > 4 else len(instances)
    rows = math.ceil(len(instances) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.3 * rows), squeeze=False)
    for ax, inst in zip(axes.ravel(), instances, strict=False):
        for agent in ORDER:
            budgets = sorted(n for (i, a, n) in cells if i == inst and a == agent)
            if not budgets:
                continue
            runs = len(cells[(inst, agent, budgets[0])])
            floor = 1 / (2 * runs)
            err = [sum(cells[(inst, agent, n)]) / len(cells[(inst, agent, n)]) for n in budgets]
            bands = [
                clopper_pearson(sum(cells[(inst, agent, n)]), len(cells[(inst, agent, n)]))
                for n in budgets
            ]
            shown = [max(e, floor) for e in err]
            line = ax.plot(budgets, shown, marker="o", ms=4, label=LABEL[agent])[0]
            ax.fill_between(
                budgets,
                [max(lo, floor) for lo, _ in bands],
                [max(hi, floor) for _, hi in bands],
                color=line.get_color(),
                alpha=0.18,
            )
            zero = [n for n, e in zip(budgets, err, strict=True) if e == 0]
            ax.plot(
                zero,
                [floor] * len(zero),
                ls="none",
                marker="o",
                ms=6,
                mfc="white",
                color=line.get_color(),
            )
        ax.set_xscale("log")
        ax.set_yscale("log")
        ticks = sorted({n for (i, _, n) in cells if i == inst})
        ax.set_xticks(ticks, [f"{n / 1000:g}k" for n in ticks])
        ax.xaxis.set_minor_locator(matplotlib.ticker.NullLocator())
        ax.set_title(inst, fontsize=10)
        ax.set_xlabel("budget N")
        ax.set_ylabel("error rate")
        ax.grid(True, which="both", alpha=0.25)
    for ax in axes.ravel()[len(instances) :]:
        ax.set_visible(False)
    axes.ravel()[0].legend(fontsize=8, loc="lower left")
    save(fig, out, dpi=100)
    plt.close(fig)


if __name__ == "__main__":
    command_line(__doc__, load, figure, table)
