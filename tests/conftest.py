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


# ---- running the library's tests on another device ---------------------------------------------

def pytest_addoption(parser):
    parser.addoption(
        "--record-cupy-usage", metavar="PATH", default=None,
        help="run every tensor made without device= on the recording device (tests/_recording_backend.py) "
             "and write what the library asked of the array module to PATH (JSON); tests/test_cupy_api.py "
             "runs this")
    parser.addoption(
        "--default-device", metavar="DEVICE", default=None,
        help="make every tensor made without device= live on DEVICE (e.g. cuda, on a GPU machine); tests "
             "that assume the CPU (printing, memory shared with NumPy) fail there, the rest check the device")


def pytest_configure(config):
    if config.getoption("--record-cupy-usage"):
        import _recording_backend
        _recording_backend.install()
        # coverage of ops, not of examples: a few examples per property test is enough here
        settings.register_profile("recording", parent=settings.get_profile("minitorch"), max_examples=8)
        settings.load_profile("recording")
    elif config.getoption("--default-device"):
        import _recording_backend
        _recording_backend.make_default(minitorch.device(config.getoption("--default-device")))


def pytest_sessionfinish(session):
    path = session.config.getoption("--record-cupy-usage", default=None)
    if path:
        import _recording_backend
        _recording_backend.LOG.dump(path)
