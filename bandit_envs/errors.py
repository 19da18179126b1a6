"""One exception hierarchy for the whole library.

Every exception subclasses :class:`BanditEnvError` *and* the builtin (or Gymnasium) exception a
caller would naturally catch, so ``except ValueError`` keeps working while ``except
InvalidParameterError`` catches exactly what it means (the scikit-learn pattern).
"""

from __future__ import annotations

import gymnasium.error


class BanditEnvError(Exception):
    """Base class of every error raised by ``bandit_envs``, ``agents`` and ``registry``."""


class InvalidParameterError(BanditEnvError, ValueError, TypeError):
    """A constructor or function argument is invalid (wrong type, shape, range or combination)."""


class InvalidInstanceError(InvalidParameterError):
    """The problem instance is ill-posed for its task (e.g. the best arm is not unique)."""


class InvalidActionError(BanditEnvError, ValueError):
    """An action given to :meth:`PureExplorationEnv.step` is malformed or out of range."""


class InvalidAnswerError(InvalidActionError):
    """A stop action carries an answer that is not a valid set of item indices."""


class ResetNeeded(BanditEnvError, gymnasium.error.ResetNeeded):
    """The environment was used before :meth:`reset`."""


class EpisodeOver(ResetNeeded):
    """The episode has ended (answer graded or safety cap reached); call :meth:`reset`."""


class BudgetExceededError(InvalidActionError):
    """A batch of pulls asks for more samples than the fixed budget has left."""


class IncompatibleAgentError(BanditEnvError, ValueError):
    """An agent was paired with an environment whose task, setting or structure it cannot handle."""


class AgentProtocolError(BanditEnvError, RuntimeError):
    """An agent broke the agent protocol during an episode (bad arm, bad answer, ...)."""


class DataError(BanditEnvError, OSError):
    """A real data set is missing, cannot be downloaded, fails its sha256 check or is malformed."""


class UnknownNameError(BanditEnvError, KeyError):
    """An agent or environment name is not in the catalogue."""

    def __str__(self) -> str:  # KeyError would otherwise print the message in quotes
        return str(self.args[0]) if self.args else ""


class ResultsWriteError(BanditEnvError, OSError):
    """The results file of a sweep could not be written (full disk, quota, I/O error).

    The records written before are intact and the sweep resumes when run again. ``errno`` is
    the operating system's error number; the original ``OSError`` is the ``__cause__``.
    """


class CorruptResultsError(InvalidParameterError):
    """A results file holds a line that is not a record before its last line.

    A crash can only cut the last line of a file the sweep appends to, so such a line comes
    from something else (two sweeps writing into one folder at once, a hand edit, a damaged
    disk) and is left for the user to look at.
    """


class WorkerLostError(BanditEnvError, RuntimeError):
    """The worker processes of a sweep died before they started any episode."""


class RunawayEpisodeWarning(UserWarning):
    """An episode has drawn far more samples than its instance's lower bound says it needs.

    Emitted once per episode by :func:`~bandit_envs.run_episode` (``runaway=``): the agent may
    never stop. A warning, not an error: the episode goes on to the safety cap ``max_samples``.
    """


__all__ = [
    "AgentProtocolError",
    "BanditEnvError",
    "BudgetExceededError",
    "CorruptResultsError",
    "DataError",
    "EpisodeOver",
    "IncompatibleAgentError",
    "InvalidActionError",
    "InvalidAnswerError",
    "InvalidInstanceError",
    "InvalidParameterError",
    "ResetNeeded",
    "ResultsWriteError",
    "RunawayEpisodeWarning",
    "UnknownNameError",
    "WorkerLostError",
]
