"""Table B of docs/reproductions/linfact.md: LinFACT-MIS under a looser told bound.

Usage: python docs/reproductions/scripts/assumed_bound_table.py RESULTS_FOLDER
"""

import json
import sys
from collections import defaultdict

import numpy as np

records = [json.loads(line) for line in open(f"{sys.argv[1]}/results.jsonl")]
cells = defaultdict(list)
for r in records:
    kw = r["agent_kwargs"]
    column = f"{kw.get('estimator', 'ols')}, {kw.get('use_features', 'always')}"
    cells[(kw.get("L_m"), column)].append(r)


def cell(rs):
    """Wrong answers (% of runs) · mean samples of the runs that stopped."""
    stopped = [r for r in rs if r["stop_reason"] == "stopped"]
    if not stopped:
        return "never stops"
    wrong = 100 * sum(not r["correct"] for r in stopped) / len(rs)
    return f"{wrong:.1f}% · {np.mean([r['samples'] for r in stopped]):.2g}"


columns = ["ols, always", "orthogonal, always", "ols, when_cheaper", "orthogonal, when_cheaper"]
print("| assumed L_m | " + " | ".join(columns) + " |")
print("|---|" + "---|" * len(columns))
for level in sorted({k[0] for k in cells if k[0] is not None}):
    print(f"| {level} | " + " | ".join(cell(cells[(level, c)]) for c in columns) + " |")
print(f"| (unstructured, use_features='never') | {cell(cells[(None, 'ols, never')])} | | | |")
