"""Train PPO on a tiny fixed-budget problem and compare it with Uniform and the best zoo agent.

Needs the ``sb3`` extra (Stable-Baselines3; install the CPU build of torch first)::

    pip install torch --index-url https://download.pytorch.org/whl/cpu
    pip install -e ".[sb3]"
    python examples/ppo_vs_zoo.py                 # a few minutes: 30,000 PPO steps, 8 agents
    python examples/ppo_vs_zoo.py --steps 512 --episodes 20   # a smoke test

The problem is Soare et al.'s hard instance in the plane (d = 2, three arms, ω = 0.1) with a
budget of 60 pulls. PPO sees the sufficient statistics of the episode
(:class:`bandit_envs.SufficientStatistics`: counts, means, θ̂, the inverse design) and chooses
the arm to pull (:class:`bandit_envs.DiscretePulls`); the answer is the plug-in best arm. The
trained policy is then run as an ordinary agent (:class:`agents.PolicyAgent`) next to every zoo
agent that solves fixed-budget best arm, on the same seeds, on the arms in the training order
and in another order it never saw: the error rates show what a policy trained on one instance
has (and has not) learnt.
"""

from __future__ import annotations

import argparse
import sys

import gymnasium as gym
import numpy as np

import bandit_envs
import registry
from agents import PolicyAgent

ENV_ID = "LinearBAI-Custom-v0"
_E1, _E2, _NEAR = [1.0, 0.0], [0.0, 1.0], [float(np.cos(0.1)), float(np.sin(0.1))]
#: Soare et al.'s instance in the plane (ω = 0.1, θ = 2e₁, σ = 1): PPO trains on this order of
#: the arms (the best arm e₁ last) ...
ENV_KWARGS = {"features": [_NEAR, _E2, _E1], "theta": [2.0, 0.0], "budget": 60}
#: ... and is also evaluated on the same arms in another order (the best arm first), which it
#: never saw: a policy that memorised "pull arm 2, answer arm 2" fails there.
HELD_OUT_KWARGS = {"features": [_E1, _NEAR, _E2], "theta": [2.0, 0.0], "budget": 60}


def error_rate(agent_factory, episodes: int, kwargs: dict, seed0: int = 10_000) -> float:
    """Fraction of wrong answers over ``episodes`` seeded episodes (the same seeds for all)."""
    env = gym.make(ENV_ID, **kwargs)
    wrong = [
        not bandit_envs.run_episode(env, agent_factory(), seed0 + s).correct
        for s in range(episodes)
    ]
    return float(np.mean(wrong))


def main() -> int:
    """Train, evaluate, print the comparison table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=30_000, help="PPO training steps")
    parser.add_argument("--episodes", type=int, default=500, help="evaluation episodes")
    args = parser.parse_args()
    try:
        from stable_baselines3 import PPO
    except ImportError:
        print(
            "This example needs Stable-Baselines3: pip install torch --index-url "
            "https://download.pytorch.org/whl/cpu && pip install -e '.[sb3]'",
            file=sys.stderr,
        )
        return 1

    train_env = bandit_envs.SufficientStatistics(
        bandit_envs.DiscretePulls(gym.make(ENV_ID, **ENV_KWARGS))
    )
    model = PPO(
        "MlpPolicy", train_env, n_steps=min(512, args.steps), batch_size=64, seed=0, verbose=0
    )
    model.learn(total_timesteps=args.steps)

    base = gym.make(ENV_ID, **ENV_KWARGS).unwrapped
    spec = base.problem

    def ppo() -> PolicyAgent:
        return PolicyAgent(model, recommender=bandit_envs.PlugInRecommender(base.task))

    factories = {"PPO (trained here)": ppo}
    for name in registry.list_agents():
        ok, _ = registry.is_compatible(name, ENV_ID, **ENV_KWARGS)
        entry = registry.agent_entry(name)
        if ok and not entry.capabilities.oracle and spec.setting in entry.capabilities.settings:
            factories[name] = lambda name=name: registry.make_agent(name)
    rows = {
        name: (
            error_rate(make, args.episodes, ENV_KWARGS),
            error_rate(make, args.episodes, HELD_OUT_KWARGS),
        )
        for name, make in factories.items()
    }

    zoo = [n for n in rows if n not in ("PPO (trained here)", "Uniform")]
    best = min(zoo, key=lambda n: sum(rows[n]))
    print(
        f"Soare's instance (omega = 0.1, budget 60), PPO trained for {args.steps} steps; error "
        f"rate over {args.episodes} episodes (± 1 s.e.)"
    )
    print(f"  {'agent':<22} {'training order':>16} {'held-out order':>16}")
    for name in ("PPO (trained here)", "Uniform", best, *[n for n in zoo if n != best]):
        cells = [f"{e:.3f} ± {np.sqrt(e * (1 - e) / args.episodes):.3f}" for e in rows[name]]
        tag = "  <- best zoo agent" if name == best else ""
        print(f"  {name:<22} {cells[0]:>16} {cells[1]:>16}{tag}")
    print(
        "A policy trained on one instance can memorise it: compare its two columns. The zoo "
        "agents do not depend on the order of the arms."
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
