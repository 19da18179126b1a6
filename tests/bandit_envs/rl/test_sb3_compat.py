"""Stable-Baselines3 compatibility of every registered id, bare and wrapped (docs/rl.md).

Registry-driven: every id of ``registry.list_envs()`` is checked, so a new family joins by
registering its ids. An id whose data set is not on this machine is skipped with the reason
(as ``registry.compatibility_matrix`` does); ``-Custom-v0`` ids are built with their defaults,
or with the small example below when they have none.
"""

import re
import subprocess
import sys
import textwrap
import warnings

import gymnasium as gym
import numpy as np
import pytest

sb3 = pytest.importorskip("stable_baselines3")

from stable_baselines3.common.env_checker import check_env  # noqa: E402

import bandit_envs  # noqa: E402
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

    def build():
        return gym.make("ConstrainedMixed-Custom-v0", known_arms=(3, 4), budget=30)

    env = ActionMask(SufficientStatistics(build()))
    model = contrib.MaskablePPO(
        "MlpPolicy", env, n_steps=64, batch_size=64, n_epochs=1, seed=0, device="cpu"
    )
    model.learn(64)
    pulled = 0
    for seed in range(5):
        # the env's own loop, sampling the policy (a deterministic one may stop at once): a
        # barely trained policy's answer bits are often no basis at all; the env grades them
        # (an RL policy must not crash) and says so in the info, where run_episode would refuse
        # them (AgentProtocolError)
        obs, info = env.reset(seed=seed)
        done = False
        while not done:
            action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=False)
            obs, _, terminated, truncated, info = env.step(action)
            done = terminated or truncated
        assert info["pulls"][3] == info["pulls"][4] == 0
        assert "malformed_answer" in info
        pulled += int(info["pulls"].sum())
    assert pulled > 0
    # the same policy as an agent: its pulls avoid the known arms too (the answer is not asked)
    from bandit_envs.rl.adapters import PolicyAgent

    agent = PolicyAgent(model, action_masks=True, deterministic=False)
    base = build().unwrapped
    base.reset(seed=0)
    agent.reset(base.problem, np.random.default_rng(0))
    arms = []
    while len(arms) < base.budget and (arm := agent.select()) is not None:
        arms.append(arm)
        outcome, *_ = base.step(arm)
        agent.observe(arm, outcome)
    assert arms and 3 not in arms and 4 not in arms


def sb3_run(vec_env_cls, n_steps=5):
    """make_vec_env's two envs (render_mode="rgb_array", Monitor) stepped through an episode end.

    The id names the package ("bandit_envs:<id>") so that a worker process that never imported
    bandit_envs (SubprocVecEnv's forkserver workers under pytest, or a notebook) imports it first.
    """
    from stable_baselines3.common.env_util import make_vec_env

    venv = make_vec_env(
        "bandit_envs:LinearBAI-Soare-v0",
        n_envs=2,
        seed=5,
        vec_env_cls=vec_env_cls,
        env_kwargs={"budget": 3},
    )
    out = [venv.get_attr("render_mode"), venv.reset(), venv.reset_infos]
    for t in range(n_steps):
        obs, rewards, dones, infos = venv.step(np.array([[t % 3, 1, 0, 0]] * 2))
        for info in infos:  # Monitor's wall-clock time differs from run to run
            info.get("episode", {}).pop("t", None)
        out.append((obs, rewards, dones, infos))
    venv.close()
    return out


def assert_same_sb3(mine, theirs, where=""):
    if isinstance(mine, bandit_envs.ProblemSpec):
        assert isinstance(theirs, bandit_envs.ProblemSpec) and repr(theirs) == repr(mine), where
    elif isinstance(mine, dict):
        assert isinstance(theirs, dict) and sorted(theirs) == sorted(mine), where
        for key in mine:
            assert_same_sb3(mine[key], theirs[key], f"{where}[{key!r}]")
    elif isinstance(mine, (list, tuple)):  # SubprocVecEnv's infos are a tuple, Dummy's a list
        assert isinstance(theirs, (list, tuple)) and len(theirs) == len(mine), where
        for i, (a, b) in enumerate(zip(mine, theirs, strict=True)):
            assert_same_sb3(a, b, f"{where}[{i}]")
    elif isinstance(mine, np.ndarray):
        np.testing.assert_array_equal(theirs, mine, err_msg=where)
    else:
        assert theirs == mine, (where, mine, theirs)


def test_subproc_vec_env_steps_like_the_dummy_one():
    # SubprocVecEnv (forkserver workers) sends every info, the ProblemSpec included, pickled
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    outputs = sb3_run(SubprocVecEnv)
    assert_same_sb3(sb3_run(DummyVecEnv), outputs)
    assert outputs[0] == ["rgb_array", "rgb_array"]  # make_vec_env's default render mode
    assert all(isinstance(info["problem"], bandit_envs.ProblemSpec) for info in outputs[2])
    ends = [infos for _, _, dones, infos in outputs[3:] if dones.all()]
    assert ends and ends[0][0]["stop_reason"] == "budget" and "terminal_observation" in ends[0][0]


def test_ppo_trains_on_subproc_vec_env_with_the_rl_wrappers():
    from stable_baselines3 import PPO
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.vec_env import SubprocVecEnv

    venv = make_vec_env(
        "bandit_envs:LinearBAI-Soare-v0",
        n_envs=2,
        seed=0,
        vec_env_cls=SubprocVecEnv,
        wrapper_class=discrete_statistics,
        env_kwargs={"budget": 12},
    )
    model = PPO("MlpPolicy", venv, n_steps=16, batch_size=32, n_epochs=1, seed=0, device="cpu")
    model.learn(64)
    assert model.num_timesteps == 64
    venv.close()


def discrete_statistics(env):
    return SufficientStatistics(DiscretePulls(env))


def test_make_vec_env_needs_no_matplotlib_until_a_picture_is_drawn(monkeypatch):
    from stable_baselines3.common.env_util import make_vec_env

    monkeypatch.setitem(sys.modules, "matplotlib", None)  # makes `import matplotlib` fail
    venv = make_vec_env("LinearBAI-Soare-v0", n_envs=2, seed=0)  # render_mode="rgb_array"
    venv.reset()
    venv.step(np.array([[0, 0, 0, 0], [1, 0, 0, 0]]))
    with pytest.raises(ImportError, match=re.escape('install the plot extra with `pip install "')):
        venv.env_method("render", indices=0)
    venv.close()


TRAIN_SCRIPT = textwrap.dedent("""
    import numpy as np
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.vec_env import SubprocVecEnv

    import bandit_envs  # registers the ids; SubprocVecEnv's workers import this script too

    if __name__ == "__main__":
        venv = make_vec_env("LinearBAI-Soare-v0", n_envs=2, seed=0, vec_env_cls=SubprocVecEnv)
        venv.reset()
        for t in range(4):
            _, _, dones, infos = venv.step(np.array([[t % 3, 1, 0, 0], [3, 1, 0, 0]]))
        print(dones[1], infos[1]["correct"], type(venv.reset_infos[0]["problem"]).__name__)
        venv.close()
""")


def test_a_training_script_runs_subproc_vec_env_with_a_plain_id(tmp_path):
    # the usual set-up: a script that imports bandit_envs and guards its main part
    script = tmp_path / "train.py"
    script.write_text(TRAIN_SCRIPT)
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["True", "True", "ProblemSpec"]
