"""Pictures of three environment families, each after an agent has spent a third of its run.

Draws ``render_mode="rgb_array"`` frames (bandit_envs.core.rendering) and saves them as PNG files:

* ``render_linear.png``: LinearBAI-Soare-v0 (Soare et al. 2014, δ = 0.05) with LinGapE;
* ``render_psi.png``: LinearPSI-Synthetic-v0 (Kone et al., δ = 0.1) with APE;
* ``render_constrained.png``: ConstrainedMixed-Table1-v0, instance D3P (Tang et al. 2024,
  T = 40 000) with SFSR.

Fixed-budget runs stop after a third of the budget. Fixed-confidence runs are first played to
the end (one pull at a time) to learn the stopping time τ, then replayed with the same seed and
stopped after τ/3 pulls. Needs matplotlib (``pip install "bandit-envs[plot]"``) and no data
download. Usage::

    python examples/render_gallery.py [--out docs/images] [--seed 0]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import gymnasium as gym
import numpy as np

import bandit_envs  # noqa: F401  (registers the ids)
import registry
from bandit_envs.core.runner import episode_seeds

GALLERY = (
    ("linear", "LinearBAI-Soare-v0", {}, "LinGapE"),
    ("psi", "LinearPSI-Synthetic-v0", {}, "APE"),
    ("constrained", "ConstrainedMixed-Table1-v0", {"instance": "D3P"}, "SFSR"),
)


def play(env: gym.Env, agent_name: str, seed: int, pulls: int | None) -> int:
    """Play ``agent_name`` one pull at a time; stop after ``pulls`` pulls (None: to the end).

    Returns the number of pulls made. Ends early if the agent stops by itself.
    """
    env_seed, rng = episode_seeds(seed)
    _, info = env.reset(seed=env_seed)
    agent = registry.make_agent(agent_name)
    agent.reset(info["problem"], rng)
    unwrapped = env.unwrapped
    made = 0
    while pulls is None or made < pulls:
        arm = agent.select()
        if arm is None or (unwrapped.budget is not None and made >= unwrapped.budget):
            env.step(unwrapped.stop_action(agent.recommend()))
            break
        outcome, _, terminated, truncated, _ = env.step(int(arm))
        agent.observe(int(arm), outcome)
        made += 1
        if terminated or truncated:
            break
    return made


def picture(env_id: str, env_kwargs: dict, agent_name: str, seed: int) -> np.ndarray:
    """The rgb_array frame of ``env_id`` after ``agent_name`` spent a third of its run."""
    env = gym.make(env_id, render_mode="rgb_array", **env_kwargs)
    budget = env.unwrapped.budget
    if budget is not None:
        third = budget // 3
    else:
        third = max(play(env, agent_name, seed, None) // 3, 1)
    play(env, agent_name, seed, third)
    frame = env.render()
    env.close()
    return frame


def main(argv: list[str] | None = None) -> list[Path]:
    """Write the three pictures; return their paths."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument(
        "--out",
        type=Path,
        default=Path("docs/images"),
        help="folder for the PNG files (default: docs/images)",
    )
    parser.add_argument("--seed", type=int, default=0, help="episode seed (default: 0)")
    args = parser.parse_args(argv)
    import matplotlib.image

    args.out.mkdir(parents=True, exist_ok=True)
    paths = []
    for family, env_id, env_kwargs, agent_name in GALLERY:
        frame = picture(env_id, env_kwargs, agent_name, args.seed)
        path = args.out / f"render_{family}.png"
        matplotlib.image.imsave(path, frame)
        paths.append(path)
        print(f"{path}: {env_id} with {agent_name}, frame {frame.shape}")
    return paths


if __name__ == "__main__":
    main()
