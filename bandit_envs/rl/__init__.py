"""Reinforcement-learning interfaces: Gymnasium wrappers and Stable-Baselines3 adapters."""
