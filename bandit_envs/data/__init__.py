"""The real data sets of the Pareto family: a registry, a verified cache, and raw loaders.

Two data sets back the real-data instances of Kone, Kaufmann & Richert (Section 5.1 and
Appendix I.2):

* ``"noc"``: ``noc_CM_log.csv``, the Network-on-Chip designs of Almer, Topham and Franke (2011):
  K = 259 designs, 4 features, 2 log-scaled objectives.
* ``"energy"``: ``energy_efficiency.csv``, the UCI "Energy efficiency" data of Tsanas and Xifara
  (2012): K = 768 buildings, 8 features, 2 loads. The public source is a zip holding the
  spreadsheet ``ENB2012_data.xlsx``; it is converted into the project's canonical CSV
  (:func:`format_energy_csv`), whose sha256 is the one checked.

No data file is part of the package. :func:`dataset_path` finds a file, in this order:

1. the folder named by the environment variable ``BANDIT_ENVS_DATA`` (if set and not empty, the
   file must be there; this mode never downloads);
2. the user cache directory (:func:`default_cache_dir`, or the ``cache_dir`` argument);
3. a download from the original public source into that cache (written to a temporary file and
   renamed into place only once verified, so no partial or unverified file is ever left behind).

Every file read or downloaded is checked against its sha256 before use. Offline with no local
copy, the error says which file to download from where and where to put it. Reading a file
already present needs no optional library; downloading needs pooch and converting the energy
spreadsheet needs openpyxl, both in the ``data`` extra (``pip install "bandit-envs[data]"``).

:func:`load_noc` and :func:`load_energy` return the raw numbers of the files, exactly as stored;
building bandit instances from them (normalisation, least squares, signs) is done in
:mod:`bandit_envs.envs.pareto_set`. The command line is ``bandit-bench data info|fetch``.
"""

from bandit_envs.data._cache import dataset_path, dataset_status, default_cache_dir, fetch
from bandit_envs.data._formats import (
    energy_from_xlsx,
    format_energy_csv,
    read_energy_csv,
    read_noc_csv,
    sha256_of,
)
from bandit_envs.data._load import load_energy, load_noc
from bandit_envs.data._registry import (
    DATA_ENV_VAR,
    DATA_EXTRA,
    DATASETS,
    DEFAULT_TIMEOUT,
    ENERGY_COLUMNS,
    Dataset,
    get_dataset,
)

__all__ = [
    "DATASETS",
    "DATA_ENV_VAR",
    "DATA_EXTRA",
    "DEFAULT_TIMEOUT",
    "ENERGY_COLUMNS",
    "Dataset",
    "dataset_path",
    "dataset_status",
    "default_cache_dir",
    "energy_from_xlsx",
    "fetch",
    "format_energy_csv",
    "get_dataset",
    "load_energy",
    "load_noc",
    "read_energy_csv",
    "read_noc_csv",
    "sha256_of",
]
