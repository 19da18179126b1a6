"""Condense a misspecification / logistic sweep into one row per environment setting.

Usage: python docs/reproductions/scripts/misspecification_table.py RESULTS_FOLDER COLUMNS
(see docs/reproductions/linfact.md, Tables A and C).
"""

import json
import math
import sys
from collections import defaultdict

import gymnasium as gym
import numpy as np

import bandit_envs  # noqa: F401

folder, columns = sys.argv[1], sys.argv[2].split(",")
records = [json.loads(line) for line in open(f"{folder}/results.jsonl")]
cells, envs = defaultdict(list), {}
for r in records:
    cells[(r["env_label"], r["agent_label"])].append(r)
    envs[r["env_label"]] = r


def cell(rs):
    """Wrong answers (% of runs) · mean samples of the runs that stopped."""
    stopped = [r for r in rs if r["stop_reason"] == "stopped"]
    if not stopped:
        return "never stops"
    wrong = 100 * sum(not r["correct"] for r in stopped) / len(rs)
    trunc = 100 * (len(rs) - len(stopped)) / len(rs)
    samples = np.mean([r["samples"] for r in stopped])
    return f"{wrong:.1f}% · {samples:.2g}" + (f" ({trunc:.0f}% cut)" if trunc else "")


agents = list(dict.fromkeys(r["agent_label"] for r in records))
names = [a.replace("LinFACTMIS(", "MIS(").replace('"', "") for a in agents]
print("| " + " | ".join(columns + names) + " |")
print("|" + "---|" * (len(columns) + len(agents)))
for label, r in envs.items():
    env = gym.make(r["env_id"], **r["env_kwargs"]).unwrapped
    c, info, spec = env.complexity(), env.instance_info, env.problem
    root = math.sqrt(spec.features.shape[1])
    gap, L = min(c["alpha_eps"], c["beta_eps"]), spec.misspecification
    log = math.log(1 / spec.delta)
    facts = {
        "deviation": info.get("deviation"),
        "L_m": L,
        "flipped": info.get("flipped"),
        "α / β": f"{c['alpha_eps']:.3f} / {c['beta_eps']:.3f}",
        "Thm 5.1 paper": L is not None and ("yes" if L < gap / (2 * root) else "no"),
        "Thm 5.1 corr.": L is not None and ("yes" if L < gap / (2 * (root + 1)) else "no"),
        "Thm 5.2": L is not None and ("yes" if L < gap / (2 * (root + 2)) else "no"),
        "L̄_μ": f"{c.get('L_mu_bound', float('nan')):.3f}",
        "T_lin·log / T_unstr·log": (
            f"{c.get('T_star_linear', 0) * log:.2g} / {c.get('T_star', 0) * log:.2g}"
        ),
        "m": info.get("m"),
        "K": env.n_arms,
        "ε (mean scale)": f"{spec.epsilon:.4f}",
    }
    row = [str(facts[k]) for k in columns] + [cell(cells[(label, a)]) for a in agents]
    print("| " + " | ".join(row) + " |")
