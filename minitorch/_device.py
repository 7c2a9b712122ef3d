"""Devices, and the array module (backend) that computes on each.

A device type maps to one array module: "cpu" to NumPy, "cuda" to CuPy. Every op asks the
tensor's device for its module (`xp`) instead of importing NumPy, which is what lets the
same code run on a GPU. CuPy is imported lazily, the first time a CUDA device is used, so
importing minitorch never waits for (or fails on) a missing or broken CuPy.
"""
from __future__ import annotations

import re

import numpy as np


class _Backend:
    """How to reach one kind of device: its array module and how to copy arrays to/from it."""

    def __init__(self, name, load_module, to_host, from_host, count, describe_missing, synchronize=None):
        self.name = name
        self._load = load_module
        self._xp = None
        self.to_host = to_host  # array on this device -> numpy array (a copy)
        self.from_host = from_host  # (numpy array, index) -> array on this device
        self.count = count  # () -> number of devices of this type (0 when unavailable)
        self.describe_missing = describe_missing  # () -> why there is no such device
        self.synchronize = synchronize or (lambda index: None)

    @property
    def xp(self):
        if self._xp is None:
            self._xp = self._load()
        return self._xp


_BACKENDS: dict[str, _Backend] = {}


def register_backend(backend: _Backend):
    _BACKENDS[backend.name] = backend


def _backend(type_: str) -> _Backend:
    return _BACKENDS[type_]


_cache: dict = {}


class device:
    """`minitorch.device("cpu")`, `device("cuda")`, `device("cuda:1")`, `device("cuda", 1)`."""

    __slots__ = ("type", "index", "_xp_backend")

    def __new__(cls, type_or_str, index=None):
        if isinstance(type_or_str, device):
            if index is not None:
                raise ValueError("device(): an index can't be given with a device object")
            return type_or_str
        key = (type_or_str, index)
        d = _cache.get(key)
        if d is not None:
            return d
        type_, idx = _parse(type_or_str, index)
        canonical = _cache.get((type_, idx, "canonical"))
        if canonical is None:
            canonical = object.__new__(cls)
            canonical.type = type_
            canonical.index = idx
            canonical._xp_backend = _BACKENDS[type_]
            _cache[(type_, idx, "canonical")] = canonical
        _cache[key] = canonical
        return canonical

    @property
    def xp(self):
        """The array module (numpy, cupy, ...) that computes on this device."""
        return self._xp_backend.xp

    def __repr__(self):
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other):
        # as in PyTorch, a device never equals a string: compare `str(d) == "cpu"`, `d.type == "cpu"`,
        # or `d == minitorch.device("cpu")`
        return isinstance(other, device) and self.type == other.type and self.index == other.index

    def __hash__(self):
        return hash((self.type, self.index))

    def __reduce__(self):
        return (device, (str(self),))

    # `with torch.device("cuda"): ...`: the factories inside make their tensors there
    def __enter__(self):
        _DEFAULT.append(self)
        return self

    def __exit__(self, *exc):
        _DEFAULT.pop()
        return False


# The device factories use when not told one: set_default_device's (the first entry; None for
# the CPU), then the `with device(...)` blocks around the call, innermost last.
_DEFAULT: list = [None]


def default_device():
    return _DEFAULT[-1] or cpu


_DEV_RE = re.compile(r"([a-zA-Z_]+)(?::(0|[1-9][0-9]*))?")  # ASCII digits, no leading zeros, as PyTorch


def _parse(spec, index):
    if isinstance(spec, int) and not isinstance(spec, bool):
        spec, index = "cuda", spec
    if not isinstance(spec, str):
        raise TypeError(f"device(): expected a string like 'cpu' or 'cuda:0', or an int, but got {type(spec).__name__}")
    if not spec:
        raise RuntimeError("Device string must not be empty")
    m = _DEV_RE.fullmatch(spec)
    if m is None:  # PyTorch's words: the string is not of the form "type" or "type:index"
        raise RuntimeError(f"Invalid device string: '{spec}'")
    if m.group(1) not in _BACKENDS:
        known = ", ".join(sorted(_BACKENDS))
        raise RuntimeError(f"Expected one of {known} device type at start of device string: {spec}")
    type_, idx = m.group(1), m.group(2)
    if idx is not None and index is not None:
        raise RuntimeError(f"type (string) must not include an index because index was passed explicitly: {spec}")
    idx = int(idx) if idx is not None else index
    if idx is not None and idx < 0:
        raise RuntimeError("Device index must not be negative")
    return type_, idx


def resolve(d) -> device:
    """A concrete device: 'cuda' means the current CUDA device, index filled in."""
    d = device(d) if not isinstance(d, device) else d
    if d.type == "cpu":
        return cpu  # PyTorch keeps "cpu:0" as a device, but a tensor on the CPU is on plain "cpu"
    if d.index is None:
        d = device(d.type, _current_index.get(d.type, 0))
    return d


_current_index: dict[str, int] = {}


# ---- the CPU: NumPy -------------------------------------------------------------------

register_backend(_Backend(
    "cpu",
    load_module=lambda: np,
    to_host=lambda a: a,
    from_host=lambda a, index: a,
    count=lambda: 1,
    describe_missing=lambda: "",
))

cpu = device("cpu")
device.__module__ = "minitorch"  # <class 'minitorch.device'>, as PyTorch's torch.device
