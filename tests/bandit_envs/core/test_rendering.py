"""Pictures of every env id (render_mode "rgb_array" and "human"), and the statistics they draw.

Registry-driven: a new id is rendered here without any change to this file (Custom ids that
need arrays get them from ``CUSTOM``).
"""

import copy
import os
import pickle
import re
import subprocess
import sys
import textwrap

import gymnasium as gym
import numpy as np
import pytest
from conftest import skip_without_data

import bandit_envs
from bandit_envs.core import _drawing, rendering

pytest.importorskip("matplotlib")

CUSTOM = {
    "LinearBAI-Custom-v0": {"features": np.eye(3), "theta": [1.0, 0.5, 0.2]},
    "LinearPSI-Custom-v0": {"means": [[1.0, 0.0], [0.0, 1.0], [0.6, 0.6]]},
}
SHAPE = (rendering.HEIGHT, rendering.WIDTH, 3)
TRUTH_RGB = (214, 39, 40)  # _drawing._TRUTH, #d62728
AGENT_RGB = (255, 127, 14)  # _drawing._AGENT, #ff7f0e


def make(env_id, **kwargs):
    return gym.make(env_id, **{**CUSTOM.get(env_id, {}), **kwargs})


def pixels_like(frame, rgb, tol=12):
    """How many pixels are within ``tol`` of the colour ``rgb`` in every channel."""
    return int((np.abs(frame.astype(int) - np.array(rgb)).max(axis=2) <= tol).sum())


def play(env_id):
    """An rgb_array env after reset, its first frame, and its frame after a few pulls."""
    skip_without_data(env_id)
    env = make(env_id, render_mode="rgb_array")
    env.reset(seed=0)
    start = env.render()
    unwrapped = env.unwrapped
    for t in range(min(2 * unwrapped.n_arms, 60)):
        env.step(t % unwrapped.n_arms)
    return env, start, env.render()


@pytest.mark.parametrize("env_id", [e.id for e in bandit_envs.envs.env_entries()])
def test_rgb_array_before_and_after_pulls(env_id):
    env, start, during = play(env_id)
    assert start.shape == SHAPE and start.dtype == np.uint8
    assert pixels_like(start, TRUTH_RGB) > 0  # the true answer (or threshold) is drawn
    assert pixels_like(start, AGENT_RGB) == 0  # no agent answer before the end
    assert during.shape == SHAPE and during.dtype == np.uint8
    assert not np.array_equal(start, during)
    env.close()
    assert env.unwrapped._picture._renderer is None


# the end of an episode computes the instance's complexity (up to ~1 s for the big ones):
# one id per family in the default suite, every id with `pytest -m slow`.
_FIRST = {}
for _entry in bandit_envs.envs.env_entries():
    _FIRST.setdefault(_entry.family, _entry.id)


@pytest.mark.parametrize(
    "env_id",
    [
        pytest.param(e.id, marks=() if _FIRST[e.family] == e.id else pytest.mark.slow)
        for e in bandit_envs.envs.env_entries()
    ],
)
def test_rgb_array_after_the_episode_ends(env_id):
    env, _, during = play(env_id)
    unwrapped = env.unwrapped
    *_, terminated, truncated, _ = env.step(unwrapped.stop_action(unwrapped._true_answer))
    assert terminated and not truncated
    end = env.render()
    assert end.shape == SHAPE and end.dtype == np.uint8
    assert not np.array_equal(during, end)
    assert pixels_like(end, AGENT_RGB) > 0  # the agent's answer is drawn once it is known
    env.close()


def test_render_before_reset_and_none_mode():
    frame = make("LinearBAI-Soare-v0", render_mode="rgb_array").unwrapped.render()
    assert frame.shape == SHAPE and frame.dtype == np.uint8
    plain = make("LinearBAI-Soare-v0").unwrapped
    assert plain.render() is None
    assert plain._picture is None  # only the picture modes keep per-arm sums


def test_env_stays_within_cpython_attribute_cache_limits():
    # CPython 3.11 keeps its fast attribute caches for instances of at most 29 attributes
    # (measured); with 30 or more, every step() was ~3-4% slower.
    for mode in (None, "ansi"):
        env = make("ConstrainedMixed-Table1-v0", render_mode=mode).unwrapped
        env.reset(seed=0)
        env.step(0)
        assert len(vars(env)) <= 29, sorted(vars(env))


def test_sums_follow_both_pull_paths():
    env = make("LinearPSI-Synthetic-v0", render_mode="rgb_array").unwrapped
    env.reset(seed=1)
    seen = np.zeros((env.n_arms, 2))
    for arm in (0, 3, 3, 7):
        outcome, *_ = env.step(arm)
        seen[arm] += outcome
    np.testing.assert_allclose(env._picture.sums, seen, rtol=0, atol=1e-12)
    counts = np.zeros(env.n_arms, dtype=np.int64)
    counts[[1, 3]] = [5, 2]
    sums, *_ = env.step_batch(counts)
    np.testing.assert_allclose(env._picture.sums, seen + sums, rtol=0, atol=1e-12)
    env.reset(seed=2)
    assert not env._picture.sums.any()


def test_empirical_means_are_exact_without_noise():
    # linear: least squares from counts and sums recovers the means once the design spans R^h
    lin = make(
        "LinearBAI-Custom-v0",
        render_mode="rgb_array",
        sigma=0.0,
        features=[[1.0, 0.0], [0.0, 1.0], [0.7, 0.7]],
        theta=[1.0, 0.4],
    ).unwrapped
    lin.reset(seed=0)
    assert rendering.empirical_means(lin._view()) is None
    lin.step(0)
    lin.step(1)
    np.testing.assert_allclose(rendering.empirical_means(lin._view()), lin.model.means, atol=1e-12)
    # no linear structure: per-arm sample means, NaN for arms never pulled
    con = make(
        "ConstrainedMixed-Custom-v0", render_mode="rgb_array", sigma_r=0.0, sigma_c=0.0
    ).unwrapped
    con.reset(seed=0)
    con.step(2)
    est = rendering.empirical_means(con._view())
    np.testing.assert_allclose(est[2], con.model.means[2])
    assert np.isnan(est[[0, 1, 3, 4]]).all()


def test_empirical_answer_maps_slacks_of_the_pulled_sub_problem():
    env = make(
        "ConstrainedMixed-Custom-v0", render_mode="rgb_array", sigma_r=0.0, sigma_c=0.0
    ).unwrapped
    env.reset(seed=0)
    for arm in range(env.n_arms):
        env.step(arm)
    full = _drawing._state(env._view()).empirical
    assert full == env._true_answer  # noiseless: the plug-in LP finds the optimal basis
    env.reset(seed=0)
    env.step(0)  # one arm known: the sub-LP over arm 0 has basis {arm 0, slack}
    partial = _drawing._state(env._view()).empirical
    assert partial == frozenset({0, env.n_arms})


def test_feature_plane_projection():
    x = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [0.5, 0.5, 0.0]])
    theta = np.array([2.0, 1.0, 0.0])
    xy, labels, arrow = _drawing._feature_plane(x, theta, "true mean μ = xᵀθ")
    np.testing.assert_allclose(xy[:, 0], x @ theta)  # abscissa: the true mean
    assert not arrow and labels[0] == "true mean μ = xᵀθ"
    two = x[:, :2]
    xy2, labels2, arrow2 = _drawing._feature_plane(two, theta[:2], "")
    np.testing.assert_array_equal(xy2, two)
    assert arrow2 and labels2 == ("feature 1", "feature 2")
    pca, labels3, _ = _drawing._feature_plane(x, None, "")
    assert pca.shape == (4, 2) and labels3[0].startswith("PC 1")


#: one id per family: every family has its own drawing (test_copies.py copies every id)
ONE_PER_FAMILY = list({e.family: e.id for e in reversed(bandit_envs.envs.env_entries())}.values())


@pytest.mark.parametrize("env_id", ONE_PER_FAMILY)
def test_a_picture_env_copied_mid_episode_draws_what_the_original_draws(env_id):
    env, _, _ = play(env_id)  # a figure has been drawn: the copies leave it behind
    base = env.unwrapped
    copies = [pickle.loads(pickle.dumps(env)), copy.deepcopy(env)]
    for twin in copies:
        assert twin.unwrapped._picture._renderer._fig is None
        np.testing.assert_array_equal(twin.unwrapped._picture.sums, base._picture.sums)
    pulls = [(3 * t + 1) % base.n_arms for t in range(base.n_arms)]
    counts = np.arange(base.n_arms, dtype=np.int64) % 2 + 1

    def go_on(e):
        steps = [e.step(arm)[0] for arm in pulls]
        return steps, e.unwrapped.step_batch(counts)[0], e.render()

    expected = go_on(env)
    for twin in copies:
        got = go_on(twin)
        np.testing.assert_array_equal(got[0], expected[0])
        np.testing.assert_array_equal(got[1], expected[1])
        np.testing.assert_array_equal(got[2], expected[2])
        np.testing.assert_array_equal(twin.unwrapped._picture.sums, base._picture.sums)
        twin.close()
    env.close()


def test_renderer_pickles_without_its_figure_and_checks_its_mode():
    env = make("LinearBAI-Soare-v0", render_mode="rgb_array").unwrapped
    env.reset(seed=0)
    env.render()
    clone = pickle.loads(pickle.dumps(env._picture._renderer))
    assert clone._fig is None and clone.mode == "rgb_array"
    with pytest.raises(
        bandit_envs.InvalidParameterError,
        match=re.escape("Renderer: mode must be 'rgb_array' or 'human'; got 'x'."),
    ):
        rendering.Renderer("x")


def missing_plot_extra(mode):
    return pytest.raises(
        ImportError,
        match=re.escape(
            f"LinearBAI-Soare-v0: render_mode={mode!r} needs matplotlib to draw pictures; "
            'install the plot extra with `pip install "bandit-envs[plot]"`'
        ),
    )


def test_missing_matplotlib_fails_at_the_first_drawing_and_names_the_plot_extra(monkeypatch):
    # Stable-Baselines3's make_vec_env builds every env with render_mode="rgb_array": without
    # matplotlib such an env must build and run; only drawing a picture needs the plot extra.
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # makes `import matplotlib` fail
    env = make("LinearBAI-Soare-v0", render_mode="rgb_array")
    env.reset(seed=0)
    env.step(0)
    env.unwrapped.step_batch(np.array([1, 2, 3]))
    with missing_plot_extra("rgb_array"):
        env.render()
    _, _, terminated, _, info = env.step(env.unwrapped.stop_action({0}))
    assert terminated and info["correct"]
    env.close()
    human = make("LinearBAI-Soare-v0", render_mode="human")  # builds; its reset draws
    with missing_plot_extra("human"):
        human.reset(seed=0)
    text = make("LinearBAI-Soare-v0", render_mode="ansi")  # text rendering needs no matplotlib
    text.reset(seed=0)
    assert text.render().startswith("LinearBAI-Soare-v0 [best_arm, delta=0.05] running")


HUMAN = textwrap.dedent("""
    import warnings
    warnings.simplefilter("error")
    import gymnasium as gym
    import matplotlib.pyplot as plt
    import bandit_envs
    assert plt.get_backend().lower() == "agg"
    env = gym.make("ConstrainedMixed-Custom-v0", render_mode="human")
    env.reset(seed=0)
    for arm in range(50):
        env.step(arm % 5)
    assert plt.get_fignums() == [], "no window to refresh under Agg: nothing drawn"
    assert env.render() is None
    first = plt.get_fignums()
    assert env.render() is None
    assert plt.get_fignums() == first and len(first) == 1, "one figure, reused"
    env.step(env.unwrapped.stop_action({0, 1}))
    env.close()
    assert plt.get_fignums() == [], "close() closes the figure"
    print("ok")
""")


def test_human_mode_headless_with_agg():
    out = subprocess.run(
        [sys.executable, "-c", HUMAN],
        capture_output=True,
        text=True,
        env={**os.environ, "MPLBACKEND": "Agg"},
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"
