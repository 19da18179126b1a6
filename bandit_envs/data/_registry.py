"""The registry of the real data sets: what each file is, where it comes from, its sha256."""

from __future__ import annotations

import dataclasses
import difflib
import importlib
from collections.abc import Mapping
from types import MappingProxyType, ModuleType
from typing import Literal

from bandit_envs.errors import DataError, InvalidParameterError, UnknownNameError

__all__ = [
    "DATASETS",
    "DATA_ENV_VAR",
    "DATA_EXTRA",
    "DEFAULT_TIMEOUT",
    "ENERGY_COLUMNS",
    "Dataset",
    "get_dataset",
]

WHO = "bandit_envs.data"
"""The prefix of every message of this package."""

DATA_ENV_VAR = "BANDIT_ENVS_DATA"
"""The environment variable naming a local folder that holds the data files."""

DATA_EXTRA = 'pip install "bandit-envs[data]"'
"""How to install the optional libraries that download (pooch) and convert (openpyxl) data."""

DEFAULT_TIMEOUT = 30.0
"""Seconds a download may wait on the network before giving up."""

SourceFormat = Literal["csv", "xlsx_zip"]


@dataclasses.dataclass(frozen=True)
class Dataset:
    """A registry entry: one data file, where it comes from, and what it must contain.

    Attributes:
        name: the short name (``"noc"``, ``"energy"``).
        filename: the file the project uses (in ``BANDIT_ENVS_DATA`` or the cache).
        url: the original public source.
        sha256: the digest of ``filename`` (for ``"xlsx_zip"`` sources, of the converted CSV).
        n_rows: the number of data rows (arms), header excluded.
        columns: the header of ``filename``, features first.
        n_features: how many leading columns are features; the rest are objectives/targets.
        delimiter: the field separator of ``filename``.
        source_format: ``"csv"`` (the source is the file itself) or ``"xlsx_zip"`` (a zip holding
            the spreadsheet ``archive_member``, converted to the canonical CSV).
        archive_member: the spreadsheet inside the zip, for ``"xlsx_zip"`` sources.
        description: one line on the content.
        citation: the reference to cite.
        licence: the licence of the data, as far as the source states it.
        used_in: the paper and section whose experiments use the data set.

    """

    name: str
    filename: str
    url: str
    sha256: str
    n_rows: int
    columns: tuple[str, ...]
    n_features: int
    delimiter: str
    source_format: SourceFormat
    archive_member: str | None
    description: str
    citation: str
    licence: str
    used_in: str

    @property
    def n_columns(self) -> int:
        """The number of columns of the file (features + objectives)."""
        return len(self.columns)

    @property
    def feature_names(self) -> tuple[str, ...]:
        """The feature columns, in file order."""
        return self.columns[: self.n_features]

    @property
    def target_names(self) -> tuple[str, ...]:
        """The objective/target columns, in file order."""
        return self.columns[self.n_features :]


ENERGY_COLUMNS: tuple[str, ...] = (
    "relative_compactness",
    "surface_area",
    "wall_area",
    "roof_area",
    "overall_height",
    "orientation",
    "glazing_area",
    "glazing_area_distribution",
    "heating_load",
    "cooling_load",
)
"""The canonical header of ``energy_efficiency.csv`` (the spreadsheet's X1..X8, Y1, Y2, renamed)."""

DATASETS: Mapping[str, Dataset] = MappingProxyType(
    {
        "noc": Dataset(
            name="noc",
            filename="noc_CM_log.csv",
            url="https://raw.githubusercontent.com/cyrille-kone/linear_psi/main/data/noc_CM_log.csv",
            sha256="6df784c53d285d8e83a4467a5d2732779b78ea45101e82e7b5cf4b998f2870f4",
            n_rows=259,
            columns=("width", "complexity", "fifo", "multiplier", "energy", "inv_runtime"),
            n_features=4,
            delimiter=";",
            source_format="csv",
            archive_member=None,
            description="Network-on-Chip designs: 4 design features, 2 log-scaled objectives "
            "(energy, inverse runtime), as used by Zuluaga et al. (PAL) and Kone et al.",
            citation="O. Almer, N. Topham, B. Franke. A learning-based approach to the automated "
            "design of MPSoC networks. Architecture of Computing Systems (ARCS), 2011. File as "
            "published with Kone, Kaufmann, Richert (GEGE) in cyrille-kone/linear_psi.",
            licence="not stated by the source; downloaded from it on use, never redistributed",
            used_in="Kone, Kaufmann & Richert, Section 5.1 (the NoC instance)",
        ),
        "energy": Dataset(
            name="energy",
            filename="energy_efficiency.csv",
            url="https://archive.ics.uci.edu/static/public/242/energy+efficiency.zip",
            sha256="a47f7a271f4f94992721038aaf2c01c54dd1db903870feaee64b0aa2f3171ee7",
            n_rows=768,
            columns=ENERGY_COLUMNS,
            n_features=8,
            delimiter=",",
            source_format="xlsx_zip",
            archive_member="ENB2012_data.xlsx",
            description="UCI Energy efficiency: 768 simulated buildings, 8 features, heating and "
            "cooling loads; the spreadsheet ENB2012_data.xlsx converted to a canonical CSV",
            citation="A. Tsanas, A. Xifara. Accurate quantitative estimation of energy performance "
            "of residential buildings using statistical machine learning tools. Energy and "
            "Buildings 49 (2012) 560-567. Data: UCI Machine Learning Repository, 'Energy "
            "efficiency' (2012).",
            licence="CC BY 4.0",
            used_in="Kone, Kaufmann & Richert, Appendix I.2 (energy efficiency)",
        ),
    }
)
"""The data sets, by name."""


def get_dataset(name: str) -> Dataset:
    """Return the registry entry of a data set.

    Raises:
        InvalidParameterError: ``name`` is not a string.
        UnknownNameError: no data set has this name (the message lists the known ones).

    """
    if not isinstance(name, str):
        raise InvalidParameterError(
            f"get_dataset: name must be one of {sorted(DATASETS)}; got {name!r}."
        )
    try:
        return DATASETS[name]
    except KeyError:
        close = difflib.get_close_matches(name, list(DATASETS), n=1, cutoff=0.5)
        hint = f" Did you mean {close[0]!r}?" if close else ""
        raise UnknownNameError(
            f"get_dataset: unknown data set {name!r}; known: {', '.join(sorted(DATASETS))}.{hint}"
        ) from None


def optional_library(module: str, purpose: str) -> ModuleType:
    """Import one of the ``data`` extra's libraries, or raise a DataError saying how to get it.

    Args:
        module: ``"pooch"`` (downloads) or ``"openpyxl"`` (the energy spreadsheet).
        purpose: what needs it, for the message (e.g. "downloading the 'noc' data set").

    Raises:
        DataError: the library is not installed.

    """
    try:
        return importlib.import_module(module)
    except ImportError:
        raise DataError(
            f"{WHO}: {purpose} needs the {module} package, which is not installed; install the "
            f"data extra with `{DATA_EXTRA}`. Files already in the cache or in the folder named "
            f"by {DATA_ENV_VAR} are read without it."
        ) from None
