"""Agents for all-epsilon-good arm identification."""
