"""Utilities."""
from . import checkpoint, data, dlpack  # noqa: F401
