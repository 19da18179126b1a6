"""The catalogue."""
