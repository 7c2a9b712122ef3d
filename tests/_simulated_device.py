"""A *simulated* accelerator for the test suite: device type "simulated", backed by NumPy.

It lets every placement path (transfers, mismatch errors, Module.to, training on a second
device) run on a machine without a GPU. It is registered only by the tests that import
this module; minitorch itself never lists it, and it is not a GPU: it computes with NumPy
on the CPU, in memory that is *copied* on every transfer, exactly as a real device's would.
"""
from __future__ import annotations

import numpy as np

from minitorch import _device

TYPE = "simulated"
COUNT = 2  # two simulated devices, so cross-device copies (simulated:0 -> simulated:1) are tested


def register():
    if TYPE not in _device._BACKENDS:
        _device.register_backend(_device._Backend(
            TYPE,
            load_module=lambda: np,
            to_host=lambda a: np.array(a, copy=True),
            from_host=lambda a, index: np.array(a, copy=True),
            count=lambda: COUNT,
            describe_missing=lambda: "the simulated device is registered by the test suite only",
        ))


def unregister():
    _device._BACKENDS.pop(TYPE, None)
    for key in [k for k in _device._cache if (k[0] if isinstance(k, tuple) else k) in (TYPE,) or
                (isinstance(k, tuple) and isinstance(k[0], str) and k[0].startswith(TYPE))]:
        del _device._cache[key]
