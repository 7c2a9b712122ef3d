"""Anomaly detection: find the forward operation whose backward went wrong.

    with minitorch.autograd.detect_anomaly():      # or: autograd.set_detect_anomaly(True)
        loss = model(x).sum()
        loss.backward()

While it is on, every recorded operation remembers the Python stack of its forward call, and
the engine checks each backward's results: a NaN raises PyTorch's
"Function 'DivBackward0' returned nan values in its 1th output.", and any error in a backward
is preceded by a warning showing the forward line that created the failing node. It slows
everything down: turn it on to debug, then off.
"""
from __future__ import annotations

import os
import traceback
import warnings


class _State:
    enabled = False
    check_nan = True


ANOMALY = _State()
_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # minitorch/


def is_anomaly_enabled():
    return ANOMALY.enabled


def is_anomaly_check_nan_enabled():
    return ANOMALY.check_nan


def _warn_enabled():
    warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime and should only be "
                  "enabled for debugging.", UserWarning, stacklevel=3)


class detect_anomaly:  # noqa: N801 (PyTorch's name)
    """Context manager (and decorator) turning anomaly detection on for its block."""

    def __init__(self, check_nan=True):
        self.check_nan = check_nan
        self.prev = self.prev_check_nan = None
        _warn_enabled()

    def __enter__(self):
        self.prev, self.prev_check_nan = ANOMALY.enabled, ANOMALY.check_nan
        ANOMALY.enabled, ANOMALY.check_nan = True, self.check_nan

    def __exit__(self, *exc):
        ANOMALY.enabled, ANOMALY.check_nan = self.prev, self.prev_check_nan
        return False

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def wrapped(*args, **kwargs):
            with detect_anomaly(self.check_nan):
                return fn(*args, **kwargs)
        return wrapped


class set_detect_anomaly:  # noqa: N801 (PyTorch's name)
    """`set_detect_anomaly(True)` turns detection on at once; used as a context manager, the
    previous setting comes back at the end of the block."""

    def __init__(self, mode, check_nan=True):
        self.prev, self.prev_check_nan = ANOMALY.enabled, ANOMALY.check_nan
        ANOMALY.enabled, ANOMALY.check_nan = bool(mode), check_nan

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        ANOMALY.enabled, ANOMALY.check_nan = self.prev, self.prev_check_nan
        return False


def record(node):
    """Remember where the forward of `node` was called from (the learner's frames, not ours)."""
    stack = traceback.extract_stack()
    node._anomaly_stack = [f for f in stack if not os.path.abspath(f.filename).startswith(_PACKAGE)]


def run_checked(node, grads):
    """Run a node's backward; name its forward call if it fails, and refuse NaN results."""
    try:
        out = node._apply(grads)
        if ANOMALY.check_nan:
            for i, g in enumerate(out):
                if g is not None and g._data.dtype.kind == "f" and bool(g._device.xp.isnan(g._data).any()):
                    raise RuntimeError(f"Function '{node.name()}' returned nan values in its {i}th output.")
    except Exception:
        _report(node)
        raise
    return out


def _report(node):
    stack = node.__dict__.get("_anomaly_stack")
    if stack is None:
        warnings.warn(f"Error detected in {node.name()}. No forward pass information available. Enable detect "
                      "anomaly during forward pass for more information.", UserWarning, stacklevel=4)
        return
    where = "".join(traceback.format_list(stack))
    warnings.warn(f"Error detected in {node.name()}. Traceback of forward call that caused the error:\n{where}",
                  UserWarning, stacklevel=4)
