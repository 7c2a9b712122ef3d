"""Utilities."""
from . import checkpoint, data  # noqa: F401
