"""`repr(tensor)` the way PyTorch prints it: `tensor([[1., 2.], ...], requires_grad=True)`.

Follows PyTorch's rules: one format for every element (integers-valued floats as `1.`,
4 decimals otherwise, scientific when values span more than 1000x), right-aligned columns,
80-character lines, and a summary with `...` past 1000 elements.
"""
from __future__ import annotations

import math

import numpy as np

from .autograd.grad_mode import STATE

THRESHOLD, EDGEITEMS, LINEWIDTH, PRECISION = 1000, 3, 80, 4
SCI_MODE = None  # None: scientific when the values call for it (see _Formatter); True/False: always/never


_PROFILES = {"default": (4, 1000, 3, 80), "short": (2, 1000, 2, 80), "full": (4, math.inf, 3, 80)}


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None, sci_mode=None):
    global THRESHOLD, EDGEITEMS, LINEWIDTH, PRECISION, SCI_MODE
    if profile in _PROFILES:  # (as in PyTorch, another name is ignored)
        PRECISION, THRESHOLD, EDGEITEMS, LINEWIDTH = _PROFILES[profile]
    PRECISION = PRECISION if precision is None else precision
    THRESHOLD = THRESHOLD if threshold is None else threshold
    EDGEITEMS = EDGEITEMS if edgeitems is None else edgeitems
    LINEWIDTH = LINEWIDTH if linewidth is None else linewidth
    SCI_MODE = sci_mode  # as in PyTorch, every call sets it: a call without sci_mode goes back to automatic


def _summarized(a):
    """The elements that will be shown (edges only, for large tensors)."""
    if a.ndim == 0:
        return a.reshape(1)
    if a.shape[0] > 2 * EDGEITEMS:
        a = np.concatenate([a[:EDGEITEMS], a[-EDGEITEMS:]])
    return np.concatenate([_summarized(x).reshape(-1) for x in a]) if a.ndim > 1 else a


class _Formatter:
    def __init__(self, values, floating):
        self.floating = floating
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        if not floating:
            self.max_width = max((len(self._raw(v)) for v in values), default=1)
            return
        finite = values[np.isfinite(values)]
        signed = finite[finite != 0]
        nonzero = np.abs(signed).astype(np.float64)
        if nonzero.size == 0:
            self.int_mode = True
        else:
            self.int_mode = bool(np.all(np.ceil(nonzero) == nonzero))
            lo, hi = nonzero.min(), nonzero.max()
            with np.errstate(over="ignore"):  # 1e38 / 1e-45 is inf, which is > 1000 as it should be
                ratio = hi / lo
            self.sci_mode = ratio > 1000.0 or hi > 1.0e8 or lo < 1.0e-4 if SCI_MODE is None else SCI_MODE
        # as PyTorch: only nonzero finite values set the width (nan, inf and 0 are not padded for)
        self.max_width = max((len(self._raw(v)) for v in signed), default=1)

    def _raw(self, v):
        if not self.floating:
            return str(bool(v)) if isinstance(v, (bool, np.bool_)) else str(int(v))
        if not math.isfinite(v):
            return str(float(v)).replace("inf", "inf")
        if self.sci_mode:
            return f"{float(v):.{PRECISION}e}"
        if self.int_mode:
            return f"{float(v):.0f}."
        return f"{float(v):.{PRECISION}f}"

    def __call__(self, v):
        s = self._raw(v)
        return " " * (self.max_width - len(s)) + s


def _vector(a, indent, summarize, fmt):
    elem_len = fmt.max_width + 2
    per_line = max(1, int(math.floor((LINEWIDTH - indent) / elem_len)))
    if summarize and a.shape[0] > 2 * EDGEITEMS:
        data = [fmt(v) for v in a[:EDGEITEMS]] + [" ..."] + [fmt(v) for v in a[-EDGEITEMS:]]
    else:
        data = [fmt(v) for v in a]
    lines = [data[i:i + per_line] for i in range(0, len(data), per_line)]
    return "[" + ("," + "\n" + " " * (indent + 1)).join(", ".join(line) for line in lines) + "]"


def _nd(a, indent, summarize, fmt):
    if a.ndim == 0:
        return fmt(a.item())
    if a.ndim == 1:
        return _vector(a, indent, summarize, fmt)
    if summarize and a.shape[0] > 2 * EDGEITEMS:
        parts = ([_nd(a[i], indent + 1, summarize, fmt) for i in range(EDGEITEMS)] + ["..."]
                 + [_nd(a[i], indent + 1, summarize, fmt) for i in range(a.shape[0] - EDGEITEMS, a.shape[0])])
    else:
        parts = [_nd(a[i], indent + 1, summarize, fmt) for i in range(a.shape[0])]
    sep = "," + "\n" * (a.ndim - 1) + " " * (indent + 1)
    return "[" + sep.join(parts) + "]"


def tensor_str(t, prefix="tensor("):
    from ._dtype import bool as _bool, int64
    from . import _dtype
    arr = t._device._xp_backend.to_host(t._data)
    indent = len(prefix)
    suffixes = []
    if t._device.type != "cpu":
        suffixes.append(f"device='{t._device}'")
    if t.numel() == 0:
        body = "[]"
        if t.ndim != 1:
            suffixes.append(f"size={tuple(t.shape)}")
        if t.dtype is not _dtype.get_default_dtype():  # no elements to tell an int64 tensor by
            suffixes.append(f"dtype={t.dtype!r}")
    else:
        summarize = arr.size > THRESHOLD
        values = _summarized(arr) if summarize else arr.reshape(-1)
        floating = t.dtype.is_floating_point
        fmt = _Formatter(values.astype(np.float64) if floating else values, floating)
        body = _nd(arr, indent, summarize, fmt)
        if t.dtype not in (_dtype.get_default_dtype(), int64, _bool):
            suffixes.append(f"dtype={t.dtype!r}")
    try:
        grad_fn = t.grad_fn
        grad_fn_name = None if grad_fn is None else type(grad_fn).__name__
    except RuntimeError:  # (a view made under no_grad whose memory was then written: PyTorch shows this)
        grad_fn_name = "Invalid"
    if grad_fn_name is not None:
        suffixes.append(f"grad_fn=<{grad_fn_name}>")
    elif t.requires_grad:
        suffixes.append("requires_grad=True")
    if STATE.dual and "_fw_tangent" in t.__dict__:  # a dual tensor of forward-mode AD (autograd/forward_ad.py)
        suffixes.append(f"tangent={t.__dict__['_fw_tangent']}")
    full = prefix + body
    last = len(full) - full.rfind("\n") + 1
    out = [full]
    for s in suffixes:
        # measured as PyTorch's "dtype=torch.float64", so lines break where PyTorch breaks them
        n = len(s) - 4 * s.count("minitorch.")
        if last + n + 2 > LINEWIDTH:
            out.append(",\n" + " " * indent + s)
            last = indent + n
        else:
            out.append(", " + s)
            last += n + 2
    out.append(")")
    return "".join(out)
