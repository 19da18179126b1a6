"""Stable-Baselines3 compatibility of every registered id, bare and wrapped (docs/rl.md).

Registry-driven: every id of ``registry.list_envs()`` is checked, so a new family joins by
registering its ids. An id whose data set is not on this machine is skipped with the reason
(as ``registry.compatibility_matrix`` does); ``-Custom-v0`` ids are built with their defaults,
or with the small example below when they have none.
"""

import warnings

import gymnasium as gym
import numpy as np
import pytest

sb3 = pytest.importorskip("stable_baselines3")

from stable_baselines3.common.env_checker import check_env  # noqa: E402

import registry  # noqa: E402
from bandit_envs import ActionMask, DiscretePulls, SufficientStatistics, run_episode  # noqa: E402
from bandit_envs.core.runner import episode_seeds  # noqa: E402
from bandit_envs.errors import InvalidParameterError  # noqa: E402
from registry.catalogue import _missing_data, env_entry  # noqa: E402

#: -Custom-v0 ids that have no default instance: the smallest arrays that build one.
CUSTOM_EXAMPLES = {
    "LinearBAI-Custom-v0": {"features": np.eye(3), "theta": [1.0, 0.5, 0.2]},
    "LinearPSI-Custom-v0": {"means": [[1.0, 0.0], [0.0, 1.0], [0.6, 0.6]]},
}

WRAPPINGS = {
    "bare": lambda env: env,
    "statistics": SufficientStatistics,
    "masked-statistics": lambda env: ActionMask(SufficientStatistics(env)),
    "discrete-masked-statistics": lambda env: ActionMask(SufficientStatistics(DiscretePulls(env))),
}


def make(env_id, **kw):
    missing = _missing_data(env_entry(env_id).datasets)
    if missing:
        pytest.skip(f"{env_id} needs the {missing} data set, not available here")
    try:
        return gym.make(env_id, **{**CUSTOM_EXAMPLES.get(env_id, {}), **kw})
    except InvalidParameterError as exc:
        if env_id.endswith("-Custom-v0") and env_id not in CUSTOM_EXAMPLES:
            pytest.fail(
                f"{env_id} has no default instance: add an example to CUSTOM_EXAMPLES "
                f"in {__file__} ({exc})"
            )
        raise


@pytest.mark.parametrize("wrapping", list(WRAPPINGS))
@pytest.mark.parametrize("setting", [{}, {"budget": 50}], ids=["default", "budget"])
@pytest.mark.parametrize("env_id", registry.list_envs())
def test_sb3_check_env(env_id, setting, wrapping):
    env = WRAPPINGS[wrapping](make(env_id, **setting))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env, warn=True)
        check_env(env.unwrapped if wrapping == "bare" else env, warn=True)
    assert not [str(w.message) for w in caught]


def test_every_family_is_covered():
    families = {entry.family for entry in registry.catalogue.ENVS}
    assert {
        "linear best arm",
        "multi-output Pareto set",
        "all eps-good",
        "constrained best mixed arm",
    } <= families


def test_ppo_trains_on_the_statistics_and_runs_as_an_agent():
    from stable_baselines3 import PPO

    from bandit_envs.rl.adapters import PolicyAgent

    env = SufficientStatistics(gym.make("LinearBAI-Soare-v0", budget=12))
    model = PPO("MlpPolicy", env, n_steps=32, batch_size=32, n_epochs=1, seed=0, device="cpu")
    model.learn(64)
    for seed in (0, 1):
        record = run_episode(gym.make("LinearBAI-Soare-v0", budget=12), PolicyAgent(model), seed)
        # the same policy on the wrapped environment, step by step, with the same noise seed
        obs, _ = env.reset(seed=episode_seeds(seed)[0])
        while True:
            action, _ = model.predict(obs, deterministic=True)
            obs, _, terminated, truncated, info = env.step(action)
            if terminated or truncated:
                break
        assert record.samples == info["samples"]
        assert record.pulls == tuple(info["pulls"])
        assert record.answer == info["answer"]


def test_maskable_ppo_never_pulls_a_known_arm():
    contrib = pytest.importorskip("sb3_contrib")
    from bandit_envs.rl.adapters import PolicyAgent

    def build():
        return gym.make("ConstrainedMixed-Custom-v0", known_arms=(3, 4), budget=30)

    env = ActionMask(SufficientStatistics(build()))
    model = contrib.MaskablePPO(
        "MlpPolicy", env, n_steps=64, batch_size=64, n_epochs=1, seed=0, device="cpu"
    )
    model.learn(64)
    for seed in range(3):
        record = run_episode(build(), PolicyAgent(model, action_masks=True), seed)
        assert record.pulls[3] == record.pulls[4] == 0
