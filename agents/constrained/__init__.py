"""Agents for constrained best mixed arm identification."""
