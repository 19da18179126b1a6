"""The raw loaders: the numbers of a verified data file, exactly as stored."""

from __future__ import annotations

import os

import numpy as np

from bandit_envs.data._cache import resolve
from bandit_envs.data._formats import parse_dataset
from bandit_envs.data._registry import DATASETS, DEFAULT_TIMEOUT, WHO
from bandit_envs.errors import DataError

__all__ = ["load_energy", "load_noc"]


def _load(
    name: str,
    who: str,
    cache_dir: str | os.PathLike[str] | None,
    url: str | None,
    download: bool,
    timeout: float,
) -> tuple[np.ndarray, np.ndarray]:
    ds = DATASETS[name]
    path, data = resolve(
        name, cache_dir=cache_dir, url=url, download=download, timeout=timeout, who=who
    )
    features, targets = parse_dataset(ds, data, str(path))
    if features.shape != (ds.n_rows, ds.n_features):  # cannot happen once the sha256 matched
        raise DataError(f"{WHO}: {path} has {features.shape[0]} rows; expected {ds.n_rows}.")
    return features, targets


def load_noc(
    *,
    cache_dir: str | os.PathLike[str] | None = None,
    url: str | None = None,
    download: bool = True,
    timeout: float = DEFAULT_TIMEOUT,
) -> tuple[np.ndarray, np.ndarray]:
    """The NoC data set (Almer, Topham & Franke 2011), raw as in ``noc_CM_log.csv``.

    The Network-on-Chip instance of Kone, Kaufmann & Richert (Section 5.1). Arguments as in
    :func:`dataset_path`.

    Returns:
        ``(features, objectives)``: float64 arrays of shapes 259×4 (width, complexity, fifo,
        multiplier) and 259×2 (energy, inv_runtime; log-scaled as published), not normalised.

    Raises:
        DataError: as in :func:`dataset_path`.

    """
    return _load("noc", "load_noc", cache_dir, url, download, timeout)


def load_energy(
    *,
    cache_dir: str | os.PathLike[str] | None = None,
    url: str | None = None,
    download: bool = True,
    timeout: float = DEFAULT_TIMEOUT,
) -> tuple[np.ndarray, np.ndarray]:
    """The UCI Energy efficiency data set (Tsanas & Xifara 2012), raw.

    The energy instance of Kone, Kaufmann & Richert (Appendix I.2). Arguments as in
    :func:`dataset_path` (``url`` points to the UCI zip, or to the .xlsx).

    Returns:
        ``(features, targets)``: float64 arrays of shapes 768×8 (:data:`ENERGY_COLUMNS` [:8]) and
        768×2 (heating_load, cooling_load), not normalised.

    Raises:
        DataError: as in :func:`dataset_path`.

    """
    return _load("energy", "load_energy", cache_dir, url, download, timeout)
