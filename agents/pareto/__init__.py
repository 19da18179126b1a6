"""Agents for Pareto set identification."""
