"""Values in feedback, as the learner would print them.

A result reaches the checker as plain data (see spec.decode): an Array for a tensor or a NumPy
array, a Foreign for any other foreign object, plain Python values for the rest. Feedback shows
each as it looks when printed in the notebook: a tensor as minitorch (and PyTorch) prints it,
`tensor([[1.], [1.]])`; a NumPy array as NumPy does, `array([0.5, 1. ])`; a numpy scalar as
`np.float64(1.5)`; plain values as repr. Everything is on one line.

Two values shown side by side (what came back, what was expected) are rendered at the same
precision, the lowest at which they look different when they are different: floats first at the
precision people print them (a tensor's 4 decimals, NumPy's 8, 6 significant digits for a Python
float), then with more digits, so a message never shows two equal-looking numbers as different.
"""
from __future__ import annotations

import math
import threading

LIMIT = 300            # characters of one rendered value in a message
_LEVELS = 6            # precision steps tried before giving up on telling two values apart
_PRINT_LOCK = threading.Lock()  # minitorch's print options are global: one rendering at a time


def one_line(text: str) -> str:
    return " ".join(str(text).split())


def clip(text: str, limit: int = LIMIT) -> str:
    return text if len(text) <= limit else text[:limit - 1] + "…"


def render(value, level=0, limit=LIMIT) -> str:
    """The value on one line, as printed, at precision `level` (0: as people print it)."""
    return clip(_render(value, level), limit)


def render_pair(expected, actual, limit=LIMIT) -> tuple[str, str]:
    """(expected, actual) rendered at the same, lowest precision that tells them apart."""
    e = a = ""
    for level in range(_LEVELS):
        e, a = _render(expected, level), _render(actual, level)
        if e != a:
            break
    return clip(e, limit), clip(a, limit)


def number_pair(expected, actual) -> tuple[str, str]:
    """Two numbers with the fewest significant digits (at least 6) that tell them apart."""
    for digits in range(6, 18):
        e, a = _float(expected, digits), _float(actual, digits)
        if e != a:
            return e, a
    return repr(expected), repr(actual)


# ---- one value --------------------------------------------------------------------------------
def _render(v, level):  # noqa: C901 - one branch per kind of value
    from .spec import Array, Foreign, Raised
    if isinstance(v, Array):
        return _array(v, level)
    if isinstance(v, Raised):
        return f"an error, {v}"
    if isinstance(v, Foreign):
        return _foreign(v, level)
    if type(v) is float:
        return _float(v, 6 + 2 * level)
    if type(v) is tuple:
        inner = ", ".join(_render(x, level) for x in v)
        return f"({inner},)" if len(v) == 1 else f"({inner})"
    if type(v) is list:
        return "[" + ", ".join(_render(x, level) for x in v) + "]"
    if type(v) is dict:
        return "{" + ", ".join(f"{_render(k, level)}: {_render(x, level)}" for k, x in v.items()) + "}"
    return repr(v)


def _float(x, digits):
    """A float as Python prints it, or with `digits` significant digits when that is shorter."""
    r = repr(x)
    if math.isnan(x) or math.isinf(x):
        return r
    s = f"{x:.{digits}g}"
    if len(s) >= len(r):
        return r
    return s if any(c in s for c in ".e") else s + ".0"


def _foreign(v, level):
    if v.type.startswith("numpy.") and v.value is not None:  # a numpy scalar: NumPy 2 prints np.float64(1.5)
        return f"np.{v.type.split('.')[-1]}({_render(v.value, level)})"
    return str(v)


def _array(v, level):
    if v.values is None:
        what = "tensor" if v.kind == "tensor" else "array"
        return f"<a {what} of shape {tuple(v.shape)} and dtype {v.dtype}, too large to show>"
    try:
        import numpy as np
        arr = np.array(v.values, dtype=v.dtype).reshape(v.shape)
    except Exception:  # noqa: BLE001 - a dtype this NumPy does not know: the values as they are
        return f"{v.kind}({v.values!r}, dtype={v.dtype})"
    if v.kind == "ndarray":
        with np.printoptions(precision=8 + 2 * level):
            return one_line(repr(arr))
    return _tensor(arr, level) or one_line(f"tensor({np.array2string(arr, separator=', ')})")


def _tensor(arr, level):
    """minitorch's own printing of a tensor holding arr (None when minitorch is not there)."""
    try:
        import minitorch
        from minitorch import _printing
    except Exception:  # noqa: BLE001 - feedback never fails for want of the library
        return None
    with _PRINT_LOCK:
        before = _printing.PRECISION
        try:
            minitorch.set_printoptions(precision=4 + 2 * level)
            return one_line(repr(minitorch.from_numpy(arr.copy())))
        except Exception:  # noqa: BLE001
            return None
        finally:
            minitorch.set_printoptions(precision=before)
