"""Shared fixtures. Services are tested against the configured database (SQLite or PostgreSQL)."""
