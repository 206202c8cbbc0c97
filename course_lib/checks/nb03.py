"""Checks for notebook 03_pitfalls (being written)."""
