"""Element types as objects, and PyTorch's rules for combining them.

A `dtype` wraps a NumPy dtype (CuPy uses the same ones). Promotion follows PyTorch, not
NumPy: `int32 tensor + 2.5` is float32 (NumPy says float64), and a Python scalar or a 0-d
tensor only changes the result's *category* (bool < integer < floating), never its width
within a category.
"""
from __future__ import annotations

import numpy as np

_BOOL, _INT, _FLOAT = 0, 1, 2


class dtype:
    __slots__ = ("name", "np", "itemsize", "is_floating_point", "is_signed", "_category", "_short")

    def __init__(self, name, np_dtype, category, short, itemsize=None):
        self.name = name
        self.np = None if np_dtype is None else np.dtype(np_dtype)  # (None: no NumPy type, no tensors)
        self.itemsize = self.np.itemsize if itemsize is None else itemsize
        self.is_floating_point = category == _FLOAT
        self.is_signed = name not in ("bool", "uint8")
        self._category = category
        self._short = short  # PyTorch's legacy type name, used in error messages: FloatTensor

    @property
    def is_complex(self):
        return False

    def __repr__(self):
        return f"minitorch.{self.name}"

    def __reduce__(self):
        return (_by_name, (self.name,))


dtype.__module__ = "minitorch"  # <class 'minitorch.dtype'>, as PyTorch's torch.dtype


bool = dtype("bool", np.bool_, _BOOL, "Bool")  # noqa: A001 (PyTorch's own name)
uint8 = dtype("uint8", np.uint8, _INT, "Byte")
int8 = dtype("int8", np.int8, _INT, "Char")
int16 = dtype("int16", np.int16, _INT, "Short")
int32 = dtype("int32", np.int32, _INT, "Int")
int64 = dtype("int64", np.int64, _INT, "Long")
float16 = dtype("float16", np.float16, _FLOAT, "Half")
float32 = dtype("float32", np.float32, _FLOAT, "Float")
float64 = dtype("float64", np.float64, _FLOAT, "Double")

# PyTorch's aliases
half, float, double = float16, float32, float64  # noqa: A001
short, int, long = int16, int32, int64  # noqa: A001

# bfloat16 (float32's range in 16 bits) has no NumPy type, so no minitorch tensor holds it. The dtype
# itself is here, for what needs no array: programs name it (`{"bfloat16": torch.bfloat16, ...}[name]`),
# compare with it, ask finfo and promote_types about it. Making a tensor of it is refused (as_dtype).
bfloat16 = dtype("bfloat16", None, _FLOAT, "BFloat16", itemsize=2)

ALL = (bool, uint8, int8, int16, int32, int64, float16, float32, float64)  # the dtypes a tensor can have
_FROM_NP = {d.np: d for d in ALL}
_NAMES = {d.name: d for d in ALL + (bfloat16,)}


def _by_name(name):
    return _NAMES[name]


def from_numpy_dtype(np_dtype, op="tensor"):
    """The minitorch dtype of a NumPy dtype, or a TypeError naming what is supported."""
    try:
        return _FROM_NP[np.dtype(np_dtype)]
    except (KeyError, TypeError):
        supported = ", ".join(d.np.name for d in ALL)
        raise TypeError(
            f"{op}: can't convert np.ndarray of type {np.dtype(np_dtype)}. "
            f"The only supported types are: {supported}."
        ) from None


def as_dtype(d, op="tensor"):
    """The dtype of a tensor to make, from a minitorch dtype, a NumPy dtype, a Python type or a name
    like 'float32'. bfloat16 is refused here, where a tensor of it would be made."""
    if isinstance(d, dtype) and d.np is not None:
        return d
    d = any_dtype(d, op)
    if d.np is None:
        raise NotImplementedError(f"{op}(): minitorch has no bfloat16 tensors (NumPy has no bfloat16 type): use "
                                  "float16 for half precision, or float32")
    return d


def any_dtype(d, op="tensor"):
    """as_dtype without its refusal: for what asks about a dtype without making a tensor of it
    (promote_types, can_cast, finfo)."""
    if isinstance(d, dtype):
        return d
    if d is _builtins_float:
        return float64
    if d is _builtins_int:
        return int64
    if d is _builtins_bool:
        return bool
    if isinstance(d, str) and d in _NAMES:
        return _NAMES[d]
    try:
        return _FROM_NP[np.dtype(d)]
    except (KeyError, TypeError):
        names = ", ".join(f"minitorch.{x.name}" for x in ALL)
        raise TypeError(f"{op}: invalid dtype {d!r}; expected one of {names}") from None


import builtins as _b  # noqa: E402

_builtins_float, _builtins_int, _builtins_bool = _b.float, _b.int, _b.bool

# ---- promotion -----------------------------------------------------------------------

_default_float = float32


def get_default_dtype():
    return _default_float


def set_default_dtype(d):
    """Set the dtype of new floating tensors and of Python floats in arithmetic."""
    global _default_float
    d = as_dtype(d, "set_default_dtype")
    if not d.is_floating_point:
        raise TypeError(f"set_default_dtype: only floating-point types are supported as the default type, got {d}")
    _default_float = d


def _promote_pair(a: dtype, b: dtype) -> dtype:
    if a is b:
        return a
    if a._category != b._category:
        hi, lo = (a, b) if a._category > b._category else (b, a)
        return hi  # a float beats any int; an int beats bool; width of the loser is irrelevant
    if a._category == _FLOAT:
        if a.itemsize == b.itemsize:
            return float32  # float16 and bfloat16: neither holds the other (PyTorch's answer)
        return a if a.itemsize > b.itemsize else b
    return _FROM_NP[np.promote_types(a.np, b.np)]


_PROMOTE = {(a, b): _promote_pair(a, b) for a in ALL + (bfloat16,) for b in ALL + (bfloat16,)}


def promote_types(a, b):
    return _PROMOTE[any_dtype(a, "promote_types"), any_dtype(b, "promote_types")]


def scalar_dtype(x):
    """The dtype PyTorch gives a bare Python number when it meets a tensor."""
    if isinstance(x, _b.bool):
        return bool
    if isinstance(x, _b.int):
        return int64
    return _default_float


def combine(dim_dt, low_dt):
    """Combine the dtype of dimensioned operands with that of 0-d tensors / scalars.

    The lower-priority operand wins only when it is of a higher category (a float scalar
    meeting an int tensor); then the two are promoted.
    """
    if dim_dt is None:
        return low_dt
    if low_dt is None or dim_dt._category >= low_dt._category:
        return dim_dt
    return _PROMOTE[dim_dt, low_dt]


def can_cast(frm: dtype, to: dtype) -> _b.bool:
    """PyTorch's in-place rule: a result may only be written into a tensor of the same or higher category."""
    return frm._category <= to._category


# ---- writing a Python number into a tensor -------------------------------------------

_CTYPE = {"bool": "bool", "uint8": "uint8_t", "int8": "int8_t", "int16": "int16_t", "int32": "int",
          "int64": "int64_t", "float16": "c10::Half", "float32": "float", "float64": "double"}


# the names PyTorch's messages give the C++ types ("expected dtype float for `end` but got dtype double")
CPP_NAME = {"bool": "bool", "uint8": "unsigned char", "int8": "signed char", "int16": "short int", "int32": "int",
            "int64": "long int", "float16": "c10::Half", "float32": "float", "float64": "double"}


def fill_scalar(v, dt, numel):
    """checked_scalar for fill_ and full: PyTorch fills a one-element half tensor by a path without
    the range check (70000 becomes inf there; into a larger half tensor it is an error)."""
    if dt is float16 and numel == 1 and v.__class__ is not _b.bool and not isinstance(v, complex):
        with np.errstate(over="ignore"):
            return _b.float(np.float16(v))
    return checked_scalar(v, dt)


def checked_scalar(v, dt):
    """The Python number `v` as it is written into a tensor of dtype `dt` (t[i] = v, fill_, full):
    PyTorch's checked conversion. Floats into integers are truncated, a negative int wraps
    into uint8 (-1 is 255), and a value out of the dtype's range is an error, not a wrap."""
    if v.__class__ is _b.bool or dt is bool:
        return _b.bool(v) if dt is bool else v
    if isinstance(v, complex):
        raise RuntimeError(f"value cannot be converted to type {_CTYPE[dt.name]} without overflow")
    if isinstance(v, _b.int):
        if not -2 ** 63 <= v < 2 ** 63:
            raise ValueError("Overflow when unpacking long long")
        if dt.is_floating_point:
            if _b.abs(v) > np.finfo(dt.np).max:  # (only half's range is smaller than int64's)
                raise RuntimeError(f"value cannot be converted to type {_CTYPE[dt.name]} without overflow")
            return v
        info = np.iinfo(dt.np)
        low = -_b.int(info.max) if not dt.is_signed else _b.int(info.min)  # uint8 takes -255..-1, wrapped
        if not low <= v <= _b.int(info.max):
            raise RuntimeError(f"value cannot be converted to type {_CTYPE[dt.name]} without overflow")
        return v % (_b.int(info.max) + 1) if v < 0 and not dt.is_signed else v
    v = _b.float(v)
    if dt.is_floating_point:
        if v == v and abs(v) != _b.float("inf") and abs(v) > _b.float(np.finfo(dt.np).max):
            raise RuntimeError(f"value cannot be converted to type {_CTYPE[dt.name]} without overflow")
        return v
    info = np.iinfo(dt.np)
    if not (v == v and _b.int(info.min) <= v <= _b.int(info.max)):  # nan and inf fail too
        raise RuntimeError(f"value cannot be converted to type {_CTYPE[dt.name]} without overflow")
    return _b.int(v)

