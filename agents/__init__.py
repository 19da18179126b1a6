"""The agent zoo."""
