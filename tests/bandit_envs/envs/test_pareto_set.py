"""The Pareto set identification ids (Kone, Kaufmann & Richert 2025): NoC, Energy, Synthetic and
Custom."""

import os
import re
import subprocess
import sys
import warnings
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import bandit_envs  # noqa: F401
from bandit_envs import InvalidInstanceError, InvalidParameterError
from bandit_envs.envs.pareto_set import (
    MisspecifiedLinearGaussian,
    synthetic_base_means,
    synthetic_instance,
)
from bandit_envs.errors import DataError
from bandit_envs.theory.pareto import psi_gaps

PSI_IDS = [
    "LinearPSI-NoC-v0",
    "LinearPSI-Energy-v0",
    "LinearPSI-Synthetic-v0",
    "LinearPSI-Custom-v0",
]
HAND = [[1.0, 0.0], [0.0, 1.0], [0.4, 0.4], [0.6, 0.6]]  # S* = {0, 1, 3}: arm 3 dominates arm 2
# The observation space is Box(-inf, inf) (docs/concepts.md): only these two notes are allowed.
ALLOWED_WARNINGS = (
    "A Box observation space minimum value is -infinity",
    "A Box observation space maximum value is infinity",
)


def data_file(name: str) -> Path:
    folder = os.environ.get("BANDIT_ENVS_DATA")
    path = Path(folder) / name if folder else None
    if path is None or not path.is_file():
        pytest.skip(
            f"needs {name} in the folder named by BANDIT_ENVS_DATA (currently {folder!r}): "
            "`bandit-bench data info` says where each data set comes from, and "
            "`bandit-bench data fetch noc energy` downloads them into the cache, which the tests "
            "use when BANDIT_ENVS_DATA is unset"
        )
    return path


def make(env_id, **kw):
    if env_id == "LinearPSI-NoC-v0":
        data_file("noc_CM_log.csv")
    if env_id == "LinearPSI-Energy-v0":
        data_file("energy_efficiency.csv")
    if env_id == "LinearPSI-Custom-v0" and not {"means", "theta"} & set(kw):
        kw = {"means": HAND, **kw}
    if env_id == "LinearPSI-Synthetic-v0":
        kw = {"K": 20, **kw}
    return gym.make(env_id, **kw)


# --------------------------------------------------------------- NoC (Sec. 5.1, Figs. 3 and 4)


def test_noc_reference_values_through_the_env():
    """Our NoC reference values (the paper prints none) through env.unwrapped.complexity(), and
    the construction of the authors' public notebook."""
    path = data_file("noc_CM_log.csv")
    env = gym.make("LinearPSI-NoC-v0").unwrapped
    spec = env.problem
    assert (spec.task, spec.setting, spec.delta, spec.budget) == (
        "pareto_set",
        "fixed_confidence",
        0.1,
        None,
    )
    assert (spec.n_arms, spec.outcome_dim, spec.feature_dim) == (259, 2, 4)
    assert spec.noise_std == 0.5 and spec.epsilon == 0.0 and spec.structure == "linear"
    c = env.complexity()
    assert c["pareto_set"] == (0, 140, 164, 180) and c["rank"] == 4
    start = [0.04296, 0.04296, 0.04740, 0.04740, 0.06649, 0.07452, 0.07675, 0.08178]
    np.testing.assert_allclose(np.sort(c["gaps"])[:8], start, atol=5e-6)
    assert c["min_gap"] == pytest.approx(0.04296, abs=5e-6)
    assert c["H1"] == pytest.approx(3993.6, abs=0.05)
    assert c["H2"] == pytest.approx(1780.25, abs=0.005)
    assert c["H1_lin"] == pytest.approx(1973.8, abs=0.05)
    assert c["H2_lin"] == pytest.approx(1780.25, abs=0.005)
    # the authors' notebook, written out independently
    arr = np.loadtxt(path, delimiter=";", skiprows=1)
    x = arr[:, :4] / np.linalg.norm(arr[:, :4], axis=1, keepdims=True)
    theta = np.linalg.lstsq(x.T @ x, x.T @ arr[:, 4:], rcond=None)[0]
    np.testing.assert_array_equal(spec.features, x)
    np.testing.assert_allclose(env.model.means, -x @ theta, rtol=0, atol=1e-12)
    assert env._true_answer == frozenset({0, 140, 164, 180})


# --------------------------------------------------------------------------- Energy (App. I.2)


def test_energy_linear_and_raw_instances():
    path = data_file("energy_efficiency.csv")
    lin = gym.make("LinearPSI-Energy-v0").unwrapped
    raw = gym.make("LinearPSI-Energy-v0", means="raw").unwrapped
    table = np.loadtxt(path, delimiter=",", skiprows=1)
    x = table[:, :8] / np.linalg.norm(table[:, :8], axis=1, keepdims=True)
    for env in (lin, raw):
        assert (env.problem.n_arms, env.problem.outcome_dim, env.problem.feature_dim) == (768, 2, 8)
        np.testing.assert_array_equal(env.problem.features, x)
        assert env.complexity()["rank"] == 7  # X2 = X3 + 2 X4 survives row scaling
    assert lin.problem.structure == "linear"
    fitted = x @ np.linalg.lstsq(x, table[:, 8:], rcond=None)[0]
    np.testing.assert_allclose(lin.model.means, -fitted, atol=1e-9)
    c = lin.complexity()
    assert c["pareto_set"] == (24, 25, 26, 27)
    assert c["min_gap"] == pytest.approx(0.014946, abs=1e-6)
    assert c["H1"] == pytest.approx(17910.7, abs=0.1)
    assert c["H1_lin"] == pytest.approx(17895.3, abs=0.1)
    assert c["H2_lin"] == pytest.approx(17873.3, abs=0.1)
    # raw: both loads minimised, so negated; misspecified; 12 duplicated rows, all dominated
    assert raw.problem.structure == "misspecified_linear" and raw.problem.misspecification is None
    assert isinstance(raw.model, MisspecifiedLinearGaussian)
    np.testing.assert_array_equal(raw.model.means, -table[:, 8:])
    c = raw.complexity()
    assert c["pareto_set"] == (24, 26)
    assert c["min_gap"] == pytest.approx(0.03, abs=1e-9)
    assert c["H1"] == pytest.approx(3535.83, abs=0.01) and c["H2_lin"] == pytest.approx(2500.0)
    _, first, counts = np.unique(table[:, 8:], axis=0, return_index=True, return_counts=True)
    assert int((counts - 1).sum()) == 12
    dup = np.flatnonzero(
        (table[:, 8:][:, None, :] == table[first[counts > 1], 8:][None]).all(-1).any(1)
    )
    assert not set(dup.tolist()) & set(c["pareto_set"]) and (c["gaps"][dup] > 0.03).all()
    assert raw.model.ls_deviation > 1.0  # far from linear: a real misspecification


def test_energy_raw_truth_and_sampling_match_the_data():
    data_file("energy_efficiency.csv")
    env = gym.make("LinearPSI-Energy-v0", means="raw", sigma=0.0, budget=3).unwrapped
    env.reset(seed=0)
    obs, *_ = env.step(24)
    np.testing.assert_array_equal(obs, env.model.means[24])
    env.step(26)
    env.step(0)
    _, reward, terminated, _, info = env.step(env.stop_action({24, 26}))
    assert terminated and info["correct"] and reward == 1.0
    assert set(info["truth"]) == {"means", "theta_ls", "ls_deviation"}
    assert info["truth"]["theta_ls"].shape == (8, 2)


# ------------------------------------------ Synthetic (Sec. 5.1, Figs. 1 and 2; our generator)


def test_synthetic_linear_complexities_are_constant_in_k():
    base = psi_gaps(synthetic_base_means())
    cs = {}
    for k in (8, 64, 500):
        env = gym.make("LinearPSI-Synthetic-v0", K=k).unwrapped
        assert env.problem.n_arms == k and env.problem.feature_dim == 8
        cs[k] = c = env.complexity()
        assert c["pareto_set"] == (0, 1, 2, 3, 4) and c["rank"] == 8
        np.testing.assert_array_equal(c["gaps"][:8], base.gaps)  # arms 1..h keep their gaps
        assert (c["gaps"][8:] > base.gaps.max()).all()
    assert cs[8]["H1_lin"] == cs[64]["H1_lin"] == cs[500]["H1_lin"] == pytest.approx(973.2823, 1e-6)
    assert cs[8]["H2_lin"] == cs[64]["H2_lin"] == cs[500]["H2_lin"] == pytest.approx(600.2686, 1e-6)
    assert cs[8]["H1"] == cs[8]["H1_lin"] < cs[64]["H1"] < cs[500]["H1"]


def test_synthetic_instances_are_nested_and_seeded():
    x500, theta = synthetic_instance(500, 0)
    x64, theta64 = synthetic_instance(64, 0)
    np.testing.assert_array_equal(x500[:64], x64)
    np.testing.assert_array_equal(theta, theta64)
    np.testing.assert_array_equal(x500[:8], np.eye(8))
    np.testing.assert_allclose(np.linalg.norm(x500[8:], axis=1), 0.35)
    assert (x500 >= 0).all()
    other, _ = synthetic_instance(64, 1)
    assert not np.allclose(other[8:], x64[8:])
    env = gym.make("LinearPSI-Synthetic-v0", K=64, instance_seed=1).unwrapped
    np.testing.assert_array_equal(env.problem.features, other)
    assert env.complexity()["H1_lin"] == pytest.approx(973.2823, 1e-6)
    assert env.instance_info == {"K": 64, "instance_seed": 1, "sigma": 0.5, "epsilon": 0.0}


def test_synthetic_k_10000_builds():
    # correctness only: how fast it builds is measured in benchmarks/, not asserted here
    env = gym.make("LinearPSI-Synthetic-v0", K=10_000).unwrapped
    c = env.complexity()
    assert env.problem.n_arms == 10_000 and c["H1_lin"] == pytest.approx(973.2823, 1e-6)


# ------------------------------------------------------------------------------------- Custom


def test_custom_linear_unstructured_and_misspecified():
    theta = np.array([[1.0, 0.0], [0.0, 1.0]])
    feats = np.array([[1.0, 0.0], [0.0, 1.0], [0.4, 0.4], [0.6, 0.6]])
    lin = gym.make("LinearPSI-Custom-v0", features=feats, theta=theta).unwrapped
    assert lin.problem.structure == "linear" and lin.problem.feature_dim == 2
    assert lin.complexity()["pareto_set"] == (0, 1, 3)
    unstructured = gym.make("LinearPSI-Custom-v0", means=HAND, budget=10).unwrapped
    np.testing.assert_array_equal(unstructured.problem.features, np.eye(4))
    np.testing.assert_array_equal(unstructured.model.means, HAND)
    assert unstructured.problem.setting == "fixed_budget"
    c = unstructured.complexity()
    assert c["pareto_set"] == (0, 1, 3) and c["H1"] == c["H1_lin"] and c["H2"] == c["H2_lin"]
    mis = gym.make("LinearPSI-Custom-v0", features=feats[:, :1] + 1, means=HAND).unwrapped
    assert mis.problem.structure == "misspecified_linear" and mis.problem.feature_dim == 1
    assert mis.instance_info["kind"] == "misspecified"
    cov = [[0.25, 0.1], [0.1, 0.16]]
    corr = gym.make("LinearPSI-Custom-v0", means=HAND, cov=cov).unwrapped
    np.testing.assert_allclose(corr.problem.noise_std, [0.5, 0.4])
    np.testing.assert_allclose(corr.model.noise_cov, cov)
    three = gym.make("LinearPSI-Custom-v0", means=np.eye(3), sigma=[0.1, 0.2, 0.3]).unwrapped
    assert three.problem.outcome_dim == 3 and three.complexity()["pareto_set"] == (0, 1, 2)


def test_custom_epsilon_pareto_and_ill_posed_instances():
    tied = [[1.0, 0.5], [1.0, 0.5], [0.5, 1.0], [0.2, 0.2], [0.95, 0.45]]
    with pytest.raises(
        InvalidInstanceError, match=re.escape("arms 0, 1 have the identical mean vector [1.0, 0.5]")
    ) as err:
        gym.make("LinearPSI-Custom-v0", means=tied)
    assert "use ParetoSet(epsilon > 0)" in str(err.value)
    env = gym.make("LinearPSI-Custom-v0", means=tied, epsilon=0.1, sigma=0.0).unwrapped
    assert env.problem.epsilon == 0.1 and "H1_eps" in env.complexity()
    np.testing.assert_allclose(env.complexity()["gaps"][3:], [0.3, 0.05])
    # S* = {0, 1, 2}; arm 4 (gap 0.05 < epsilon) may be added, arm 3 (gap 0.3) may not
    for answer, correct in [
        ({0, 1, 2}, True),
        ({0, 1, 2, 4}, True),
        ({0, 1, 2, 3}, False),
        ({0, 2, 4}, False),
    ]:
        env.reset(seed=0)
        *_, info = env.step(env.stop_action(answer))
        assert info["correct"] is correct, answer


def test_noiseless_episode_returns_the_pareto_set():
    env = make("LinearPSI-Synthetic-v0", K=30, sigma=0.0).unwrapped
    env.reset(seed=0)
    sums = env.step_batch(np.ones(30, dtype=np.int64))[0]
    answer = env.task.empirical_answer(sums)
    *_, info = env.step(env.stop_action(answer))
    assert info["correct"] and info["answer"] == frozenset(range(5))
    assert info["complexity"]["H1_lin"] == pytest.approx(973.2823, 1e-6)


# --------------------------------------------------------------------- the Gymnasium contract


@pytest.mark.parametrize("env_id", PSI_IDS)
@pytest.mark.parametrize("setting", [{}, {"budget": 50}])
def test_gymnasium_check_env(env_id, setting):
    env = make(env_id, **setting)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env.unwrapped, skip_render_check=False)
    unexpected = [
        str(w.message) for w in caught if not any(a in str(w.message) for a in ALLOWED_WARNINGS)
    ]
    assert not unexpected, unexpected


@pytest.mark.parametrize("env_id", PSI_IDS)
def test_settings_and_seeding(env_id):
    env = make(env_id).unwrapped
    assert env.problem.delta == 0.1 and env.problem.setting == "fixed_confidence"
    assert make(env_id, delta=0.01).unwrapped.problem.delta == 0.01
    fb = make(env_id, budget=7).unwrapped
    assert fb.problem.setting == "fixed_budget" and fb.problem.budget == 7
    with pytest.raises(InvalidParameterError, match="give exactly one of delta="):
        make(env_id, delta=0.1, budget=7)
    k = env.problem.n_arms
    arms = np.arange(12) % k

    def run(seed):
        env.reset(seed=seed)
        singles = np.array([env.step(int(a))[0] for a in arms])
        env.reset(seed=seed)
        return singles, env.step_batch(np.ones(k, dtype=np.int64))[0]

    a, b = run(3), run(3)
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])
    assert not np.allclose(run(4)[0], a[0])
    assert a[0].shape == (12, 2) and a[1].shape == (k, 2)


@pytest.mark.parametrize(
    "env_id, kwargs, error, message",
    [
        (
            "LinearPSI-NoC-v0",
            {"sigma": -1.0},
            InvalidParameterError,
            "LinearPSI-NoC-v0: sigma must be a finite float >= 0; got -1.0.",
        ),
        (
            "LinearPSI-NoC-v0",
            {"sigma": [0.5, 0.5, 0.5]},
            InvalidParameterError,
            "LinearPSI-NoC-v0: sigma must be a float or have one entry per output (2); got shape "
            "(3,).",
        ),
        (
            "LinearPSI-NoC-v0",
            {"sigma": "big"},
            InvalidParameterError,
            "LinearPSI-NoC-v0: sigma must be a numeric array; could not convert it",
        ),
        (
            "LinearPSI-NoC-v0",
            {"epsilon": -0.1},
            InvalidParameterError,
            "LinearPSI-NoC-v0: epsilon must be a finite float >= 0; got -0.1.",
        ),
        (
            "LinearPSI-NoC-v0",
            {"delta": 1.5},
            InvalidParameterError,
            "LinearPSI-NoC-v0: delta must be a float in the open interval (0, 1); got 1.5.",
        ),
        (
            "LinearPSI-NoC-v0",
            {"cov": [[1.0, 2.0], [2.0, 1.0]]},
            InvalidParameterError,
            "LinearPSI-NoC-v0: cov must be positive semi-definite (a covariance matrix); its "
            "smallest eigenvalue is",
        ),
        ("LinearPSI-NoC-v0", {"omega": 1}, TypeError, "unknown keyword 'omega'"),
        (
            "LinearPSI-Energy-v0",
            {"means": "linearised"},
            InvalidParameterError,
            "LinearPSI-Energy-v0: means must be 'linear' (least-squares linearised) or 'raw' (the "
            "data as such, mis-specified); got 'linearised'.",
        ),
        (
            "LinearPSI-Energy-v0",
            {"means": "raw", "sigma": [0.1, -0.1]},
            InvalidParameterError,
            "LinearPSI-Energy-v0: sigma must be >= 0 (one standard deviation per objective); got "
            "[0.1, -0.1].",
        ),
        (
            "LinearPSI-Synthetic-v0",
            {"K": 7},
            InvalidParameterError,
            "LinearPSI-Synthetic-v0: K must be an integer >= 8; got 7.",
        ),
        (
            "LinearPSI-Synthetic-v0",
            {"K": 20.0},
            InvalidParameterError,
            "LinearPSI-Synthetic-v0: K must be an integer >= 8; got 20.0.",
        ),
        (
            "LinearPSI-Synthetic-v0",
            {"instance_seed": -1},
            InvalidParameterError,
            "LinearPSI-Synthetic-v0: instance_seed must be an integer >= 0; got -1.",
        ),
        ("LinearPSI-Synthetic-v0", {"n_arms": 20}, TypeError, "unknown keyword 'n_arms'"),
    ],
)
def test_bad_keywords(env_id, kwargs, error, message):
    with pytest.raises(error, match=re.escape(message)):
        make(env_id, **kwargs)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (
            {"features": np.eye(3)},  # no arrays at all is the default example
            "LinearPSI-Custom-v0: features= (K×h) with theta= (h×d), or means= (K×d), is "
            "required; e.g. gym.make('LinearPSI-Custom-v0', features=np.eye(3), ",
        ),
        (
            {"means": HAND, "theta": np.eye(2)},
            "LinearPSI-Custom-v0: give theta= (with features=) or means=, not both",
        ),
        ({"theta": np.eye(2)}, "LinearPSI-Custom-v0: theta= needs features= (a K×h array"),
        (
            {"features": np.eye(3), "theta": [1.0, 0.5, 0.2]},
            "LinearPSI-Custom-v0: theta must be a 2-D array; got shape (3,). For one objective "
            "pass a column (shape (h, 1) or (K, 1)), or use LinearBAI-Custom-v0",
        ),
        (
            {"features": np.eye(3), "theta": np.eye(2)},
            "LinearPSI-Custom-v0: theta must have as many rows as features has columns (3); got "
            "features of shape (3, 3) and theta of shape (2, 2).",
        ),
        (
            {"features": np.eye(3), "means": HAND},
            "LinearPSI-Custom-v0: means must have one row per arm, like features (3 rows); got "
            "features of shape (3, 3) and means of shape (4, 2).",
        ),
        (
            {"means": [[1.0, np.nan], [0.0, 1.0]]},
            "LinearPSI-Custom-v0: means must be finite; 1 entries are NaN or infinite, the first "
            "at "
            "index (0, 1)",
        ),
        (
            {"means": [[1.0, 0.0]]},
            "LinearPSI-Custom-v0: the instance must have at least 2 arms (rows); got 1.",
        ),
        (
            {"means": HAND, "sigma": 0.3, "cov": np.eye(2)},
            "LinearPSI-Custom-v0: give sigma or cov, not two different noise levels",
        ),
        (
            {"means": HAND, "cov": np.eye(3)},
            "LinearPSI-Custom-v0: cov must be a square matrix with one row and column per output, "
            "shape (2, 2); got shape (3, 3).",
        ),
    ],
)
def test_custom_bad_arrays(kwargs, message):
    with pytest.raises(InvalidParameterError, match=re.escape(message)):
        gym.make("LinearPSI-Custom-v0", **kwargs)


# ------------------------------------------------------------ fresh interpreter, data folder


def _child(code: str, data: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "BANDIT_ENVS_DATA": data}
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120
    )


def test_gym_make_noc_in_a_fresh_interpreter():
    folder = str(data_file("noc_CM_log.csv").parent)
    code = (
        "import gymnasium as gym; env = gym.make('bandit_envs:LinearPSI-NoC-v0'); "
        "u = env.unwrapped; print(u.problem.n_arms, u.complexity()['pareto_set']); "
        "import bandit_envs; print(gym.make('LinearPSI-NoC-v0').unwrapped.problem.delta)"
    )
    out = _child(code, folder)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[:2] == ["259 (0, 140, 164, 180)", "0.1"]


def test_gym_make_noc_with_an_empty_data_folder_fails_helpfully(tmp_path):
    code = "import gymnasium as gym; gym.make('bandit_envs:LinearPSI-NoC-v0')"
    out = _child(code, str(tmp_path))
    assert out.returncode != 0
    last = out.stderr.strip().splitlines()[-1]
    assert last.startswith(
        "bandit_envs.errors.DataError: LinearPSI-NoC-v0 needs the NoC data set "
        "(Almer, Topham & Franke 2011). bandit_envs.data: noc_CM_log.csv is not in the "
        f"folder {tmp_path} named by BANDIT_ENVS_DATA (this mode never "
        "downloads). Put noc_CM_log.csv there (from https://"
    ), last


def test_empty_data_folder_in_process(tmp_path, monkeypatch):
    monkeypatch.setenv("BANDIT_ENVS_DATA", str(tmp_path))
    with pytest.raises(
        DataError,
        match=re.escape(
            "LinearPSI-Energy-v0 needs the Energy efficiency data set (Tsanas & Xifara 2012). "
            f"bandit_envs.data: energy_efficiency.csv is not in the folder {tmp_path}"
        ),
    ):
        gym.make("LinearPSI-Energy-v0")


def test_bandit_bench_list_shows_the_psi_ids(capsys):
    data_file("noc_CM_log.csv")
    data_file("energy_efficiency.csv")
    from registry.cli import main

    assert main(["list", "--task", "pareto_set", "--long"]) == 0
    out = capsys.readouterr().out
    for env_id in PSI_IDS:
        assert re.search(rf"^ +\d+ {re.escape(env_id)} +pareto_set", out, re.M), env_id
        assert re.search(rf"^{re.escape(env_id)}: \S", out, re.M), env_id
    assert "source: Almer, Topham & Franke 2011, via Kone, Kaufmann & Richert (GEGE)" in out
    assert "source: Tsanas & Xifara 2012 (UCI Energy efficiency)" in out
    assert "source: Kone, Kaufmann & Richert (GEGE), Section 5.1, Fig. 1-2" in out
    noc = out[out.index("LinearPSI-NoC-v0: ") : out.index("LinearPSI-Energy-v0: ")]
    keywords = noc[noc.index("  keywords") :].splitlines()[1:4]
    assert [line.split() for line in keywords] == [
        ["sigma", "None"],
        ["cov", "None"],
        ["epsilon", "0.0"],
    ]
    assert "default setting: delta=0.1 (fixed confidence)" in noc
