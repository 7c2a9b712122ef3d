"""Shared test settings: the hypothesis profile, and a guard that puts global state back.

The hypothesis profile is deterministic (derandomize) and modest (60 examples), so the
whole suite stays fast and a failure reproduces on every run without a database.
"""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, settings

import minitorch
from minitorch import _printing

settings.register_profile(
    "minitorch",
    derandomize=True,
    deadline=None,
    max_examples=60,
    print_blob=False,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile("minitorch")


@pytest.fixture(autouse=True)
def _restore_global_state():
    """A test that changes the default dtype or the print options must not leak it."""
    dtype = minitorch.get_default_dtype()
    opts = (_printing.PRECISION, _printing.THRESHOLD, _printing.EDGEITEMS, _printing.LINEWIDTH)
    grad = minitorch.is_grad_enabled()
    yield
    minitorch.set_default_dtype(dtype)
    _printing.PRECISION, _printing.THRESHOLD, _printing.EDGEITEMS, _printing.LINEWIDTH = opts
    minitorch.set_grad_enabled(grad)
