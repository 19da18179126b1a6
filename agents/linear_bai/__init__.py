"""Agents for linear best-arm identification."""
