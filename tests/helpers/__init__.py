"""Shared test helpers (reliability tests): session checks and subprocess scripts."""
