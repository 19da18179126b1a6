"""The hardness table of docs/reproductions/sfsr.md (Tang, Jain, Nayyar & Nuzzo 2024, eq. 9-11, §4).

Usage: ``python docs/reproductions/scripts/constrained_mixed_hardness.py``

For every Table-1 instance, the L = 1 reconstructions and the App.-A construction: the optimal
basis, the margin to the second-best feasible basis, Δ0², Δ_(L+2)², and the three rates of §4 —
the lower bound ½·min(Δ0², Δ_(L+2)²) (Theorem 2), USLP's upper bound (1/K of it) and SFSR's
guaranteed rate (eq. 15). Values from ``env.unwrapped.complexity()`` (approximate for mixed optima:
the non-convex infima of eq. 9-11, searched on a grid).
"""

import gymnasium as gym

import bandit_envs  # noqa: F401

CASES = [
    ("ConstrainedMixed-Table1-v0", {"instance": i}, i)
    for i in ("D1P", "D2P", "D3P", "D1I", "D2I", "D3I")
]
CASES += [
    ("ConstrainedMixed-L1-v0", {"instance": i}, i) for i in ("A1r", "A2r", "A3r", "H1r", "H2r")
]

print("| instance | I* | margin | Δ0² | Δ_(L+2)² | LB rate | USLP rate ≤ | SFSR rate ≥ |")
print("|---|---|---|---|---|---|---|---|")
for env_id, kwargs, name in CASES:
    c = gym.make(env_id, **kwargs).unwrapped.complexity()
    basis = "{" + ", ".join(str(i) for i in c["optimal_basis"]) + "}"
    approx = "≈" if c["approximate"] else ""
    print(
        f"| {name} | {basis} | {c['margin']:.4g} | {c['Delta0_sq']:.4g} | "
        f"{approx}{c['Delta_L2_sq']:.4g} | {approx}{c['lower_bound_rate']:.3g} | "
        f"{approx}{c['uslp_rate']:.3g} | {approx}{c['sfsr_rate']:.3g} |"
    )
