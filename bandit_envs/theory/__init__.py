"""Math shared by environments and agents, written once.

The form of an answer (:mod:`~bandit_envs.theory.answers`), optimal designs and their rounding
(:mod:`~bandit_envs.theory.design`), least squares (:mod:`~bandit_envs.theory.linalg`), stopping
thresholds, the gaps and lower bounds of each problem family, and the LP bases of constrained
mixed arms (:mod:`~bandit_envs.theory.lp`). This is the bottom layer of the library: it imports
only numpy, scipy, :mod:`bandit_envs.errors` and its own modules, never the tasks, environments
or agents built on it.
"""
