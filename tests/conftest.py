"""Shared test setup: real data sets come from ../shared/data when it exists (never committed)."""

from __future__ import annotations

import os
from pathlib import Path

# Seeded results are bit-for-bit reproducible for a given number of BLAS threads: a multithreaded
# BLAS sums in another order, and an adaptive agent's trajectory can then branch (a near-tie in a
# design solve). The recorded-result tests hold trajectories computed with one thread, which is
# also what sweep workers use (registry.sweeps). So the suite runs BLAS on one thread whatever
# the machine or the user's environment says: threadpoolctl limits the BLAS already loaded in
# this process (even if a plugin imported NumPy first), and the variables carry the same limit to
# subprocesses the tests start.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import numpy  # noqa: E402, F401  (loads BLAS, so that threadpoolctl sees it)
from threadpoolctl import threadpool_limits  # noqa: E402

threadpool_limits(limits=1)

import pytest  # noqa: E402

_SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
if "BANDIT_ENVS_DATA" not in os.environ and _SHARED_DATA.is_dir():
    os.environ["BANDIT_ENVS_DATA"] = str(_SHARED_DATA)


def skip_without_data(env_id: str) -> None:
    """Skip, naming what is missing, when ``env_id`` reads a data set not available locally."""
    from bandit_envs.data import dataset_path
    from bandit_envs.envs.registration import env_entries
    from bandit_envs.errors import DataError

    for entry in env_entries():
        if entry.id != env_id:
            continue
        for name in entry.datasets:
            try:
                dataset_path(name, download=False)
            except DataError as exc:
                pytest.skip(f"{env_id} needs the {name} data set, not available here: {exc}")


@pytest.fixture
def soare():
    """The default LinearBAI-Soare-v0 environment (unwrapped)."""
    import gymnasium as gym

    import bandit_envs  # noqa: F401

    return gym.make("LinearBAI-Soare-v0").unwrapped
