"""Train PPO on several worker processes: Stable-Baselines3's ``SubprocVecEnv``.

Needs the ``sb3`` extra (Stable-Baselines3; install the CPU build of torch first)::

    pip install torch --index-url https://download.pytorch.org/whl/cpu
    pip install -e ".[sb3]"
    python examples/sb3_subproc.py                       # 4 workers, 4,096 PPO steps: ~30 s
    python examples/sb3_subproc.py --envs 2 --steps 256  # a smoke test

``make_vec_env`` builds one environment per worker process (with ``render_mode="rgb_array"``,
which needs matplotlib only if a picture is drawn); every step's ``info``, the
:class:`bandit_envs.ProblemSpec` included, comes back from the workers pickled. The workers
import this script, and with it ``bandit_envs``, so plain ids work; ``"bandit_envs:<id>"`` works
even where the workers import nothing (a notebook). The policy sees the sufficient statistics
(:class:`bandit_envs.SufficientStatistics`) and chooses the arm to pull
(:class:`bandit_envs.DiscretePulls`); the answer is the plug-in best arm.
"""

from __future__ import annotations

import argparse
import sys

import gymnasium as gym
import numpy as np

import bandit_envs

ENV_ID = "bandit_envs:LinearBAI-Soare-v0"
BUDGET = 60


def markov(env: gym.Env) -> gym.Env:
    """The RL wrappers, applied in every worker: a Markov observation, ``Discrete`` pulls."""
    return bandit_envs.SufficientStatistics(bandit_envs.DiscretePulls(env))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--envs", type=int, default=4, help="worker processes (default 4)")
    parser.add_argument("--steps", type=int, default=4_096, help="PPO steps (default 4,096)")
    parser.add_argument("--episodes", type=int, default=20, help="evaluation episodes per env")
    args = parser.parse_args(argv)
    try:
        from stable_baselines3 import PPO
        from stable_baselines3.common.env_util import make_vec_env
        from stable_baselines3.common.vec_env import SubprocVecEnv
    except ImportError:
        print("needs the sb3 extra: pip install -e '.[sb3]'", file=sys.stderr)
        return 1
    venv = make_vec_env(
        ENV_ID,
        n_envs=args.envs,
        seed=0,
        vec_env_cls=SubprocVecEnv,
        wrapper_class=markov,
        env_kwargs={"budget": BUDGET},
    )
    model = PPO("MlpPolicy", venv, n_steps=64, batch_size=64, seed=0, device="cpu")
    model.learn(args.steps)
    correct = []
    obs = venv.reset()
    while len(correct) < args.episodes * args.envs:
        action, _ = model.predict(obs, deterministic=True)
        obs, _, dones, infos = venv.step(action)
        correct += [bool(info["correct"]) for done, info in zip(dones, infos, strict=True) if done]
    modes = venv.get_attr("render_mode")
    venv.close()
    print(
        f"PPO, {args.steps} steps on {args.envs} worker processes (render_mode {modes[0]!r}): "
        f"{np.mean(correct):.2f} of {len(correct)} episodes right with a budget of {BUDGET}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
