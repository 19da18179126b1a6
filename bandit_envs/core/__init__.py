"""The core of the suite: the environment, the problem description, tasks, reward models, runner."""
