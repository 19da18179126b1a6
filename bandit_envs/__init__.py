"""Pure-exploration bandit problems as Gymnasium environments (work in progress)."""
