"""Argument validation with one sentence shape for every error.

Messages read ``"<who>: <name> must be <constraint>; got <value!r>."`` so that every invalid
argument in the library is reported the same way, with the offending value shown exactly.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from bandit_envs.errors import InvalidParameterError


def _fail(who: str, name: str, constraint: str, value: Any) -> InvalidParameterError:
    return InvalidParameterError(f"{who}: {name} must be {constraint}; got {value!r}.")


def check_probability(value: Any, name: str, who: str) -> float:
    """Return ``value`` as a float in the open interval (0, 1), or raise."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise _fail(who, name, "a float in the open interval (0, 1)", value)
    out = float(value)
    if not 0.0 < out < 1.0:
        raise _fail(who, name, "a float in the open interval (0, 1)", value)
    return out


def check_positive_int(value: Any, name: str, who: str, *, minimum: int = 1) -> int:
    """Return ``value`` as an int ``>= minimum``, or raise (floats and bools are refused)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise _fail(who, name, f"an integer >= {minimum}", value)
    out = int(value)
    if out < minimum:
        raise _fail(who, name, f"an integer >= {minimum}", value)
    return out


def check_nonnegative(value: Any, name: str, who: str) -> float:
    """Return ``value`` as a finite float ``>= 0``, or raise."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise _fail(who, name, "a finite float >= 0", value)
    out = float(value)
    if not np.isfinite(out) or out < 0:
        raise _fail(who, name, "a finite float >= 0", value)
    return out


def check_finite(value: Any, name: str, who: str) -> float:
    """Return ``value`` as a finite float, or raise."""
    if (
        isinstance(value, bool)
        or not isinstance(value, numbers.Real)
        or not np.isfinite(float(value))
    ):
        raise _fail(who, name, "a finite float", value)
    return float(value)


def check_matrix(
    value: Any, name: str, who: str, *, ndim: int | tuple[int, ...] = 2, rows: int | None = None
) -> np.ndarray:
    """Return a finite float64 copy of ``value`` with the given number of dimensions, or raise.

    Args:
        value: array-like.
        name: the argument's name, for the message.
        who: the caller, for the message.
        ndim: allowed number(s) of dimensions.
        rows: required length of the first axis, if any.

    """
    allowed = (ndim,) if isinstance(ndim, int) else ndim
    try:
        arr = np.array(value, dtype=np.float64, copy=True)
    except (TypeError, ValueError) as exc:
        if _ragged(value):
            raise _ragged_error(value, name, who) from None
        raise InvalidParameterError(
            f"{who}: {name} must be a numeric array; could not convert it ({exc})."
        ) from None
    if arr.ndim not in allowed:
        shapes = " or ".join(f"{k}-D" for k in allowed)
        raise InvalidParameterError(
            f"{who}: {name} must be a {shapes} array; got shape {arr.shape}."
        )
    if arr.size == 0:
        raise InvalidParameterError(f"{who}: {name} must not be empty; got shape {arr.shape}.")
    if rows is not None and arr.shape[0] != rows:
        raise InvalidParameterError(
            f"{who}: {name} must have {rows} rows (one per arm); got shape {arr.shape}."
        )
    bad = ~np.isfinite(arr)
    if bad.any():
        index = tuple(int(i) for i in np.argwhere(bad)[0])
        raise InvalidParameterError(
            f"{who}: {name} must be finite; {int(bad.sum())} entries are NaN or infinite, "
            f"the first at index {index} (value {float(arr[index])!r})."
        )
    return arr


def read_only(arr: np.ndarray) -> np.ndarray:
    """Return ``arr`` with its write flag cleared (in place) so it can be shared safely."""
    arr.setflags(write=False)
    return arr


class KeepsReadOnlyArrays:
    """Mixin: array attributes that are read-only stay read-only in pickled and deep copies.

    NumPy does not keep the write flag: an array that is unpickled, or deep-copied, is writeable.
    Reward models and tasks share their arrays read-only (:func:`read_only`), so their copies (an
    environment sent to a worker process, or copied mid-episode) clear the flag again.
    """

    def __getstate__(self) -> dict[str, Any]:
        state = dict(vars(self))
        state[_READ_ONLY_KEY] = tuple(
            name
            for name, value in state.items()
            if isinstance(value, np.ndarray) and not value.flags.writeable
        )
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        state = dict(state)
        names = state.pop(_READ_ONLY_KEY, ())
        vars(self).update(state)
        for name in names:
            state[name].setflags(write=False)


#: the key under which :class:`KeepsReadOnlyArrays` lists its read-only attributes.
_READ_ONLY_KEY = "__read_only_arrays__"


def _ragged(value: Any) -> bool:
    """Whether ``value`` is a nested sequence whose rows have different lengths."""
    try:
        np.ndim(value)
    except ValueError:
        return True
    return False


def _ragged_error(value: Any, name: str, who: str) -> InvalidParameterError:
    text = repr(value)
    shown = text if len(text) <= 60 else text[:57] + "..."
    return InvalidParameterError(
        f"{who}: {name} must be a numeric array; its rows have different lengths ({shown})."
    )


def array_ndim(value: Any, name: str, who: str) -> int:
    """The number of dimensions of array-like ``value``; a ragged nested list raises.

    ``np.ndim`` raises numpy's own ``ValueError`` ("inhomogeneous shape") on ``[[1, 0], [0]]``;
    this says which argument is ragged instead.
    """
    try:
        return int(np.ndim(value))
    except ValueError:
        raise _ragged_error(value, name, who) from None


#: the range of the features' largest entry: Gram matrices of 10¹² pulls and their inverses
#: (entries ~ n·x² and 1/(n·x²)) and fourth powers stay finite, non-zero float64 (features ~ 1e-200
#: made least squares singular and the lower bound 0; ~ 1e100 overflowed ridge agents).
FEATURE_SCALE = (1e-50, 1e50)


def check_feature_scale(x: np.ndarray, who: str) -> np.ndarray:
    """Refuse features whose largest entry is outside :data:`FEATURE_SCALE` (all-zero passes)."""
    top = float(np.abs(x).max()) if x.size else 0.0
    low, high = FEATURE_SCALE
    if top != 0.0 and not low <= top <= high:
        raise InvalidParameterError(
            f"{who}: the features' largest entry must be between {low:g} and {high:g} in "
            f"magnitude (least squares on them must stay finite and non-singular in float64); "
            f"got {top!r}. Divide the features by a constant c and multiply theta by c: the "
            f"means, hence the problem, stay the same."
        )
    return x


def theta_shape_error(
    who: str, fshape: tuple[int, ...], tshape: tuple[int, ...]
) -> InvalidParameterError:
    """The error for a ``theta`` whose rows do not match the features' columns."""
    return InvalidParameterError(
        f"{who}: theta must have as many rows as features has columns ({fshape[1]}); "
        f"got features of shape {fshape} and theta of shape {tshape}."
    )
