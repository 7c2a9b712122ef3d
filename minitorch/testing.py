"""`minitorch.testing.assert_close`: PyTorch's way for a test to say "these are the same", with its
default tolerances per dtype and its failure messages (how many elements differ, the greatest
absolute and relative differences and where)."""
from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence

import numpy as np

# (rtol, atol) by dtype, PyTorch's defaults; integers and bools must be equal
_TOLERANCES = {"float16": (1e-3, 1e-5), "float32": (1.3e-6, 1e-5), "float64": (1e-7, 1e-7)}


def _tensor_cls():
    from ._tensor import Tensor
    return Tensor


class _Mismatch(AssertionError):
    pass


def assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None, equal_nan=False,
                 check_device=True, check_dtype=True, check_layout=True, check_stride=False, msg=None):
    """Raise AssertionError unless `actual` and `expected` (tensors, NumPy arrays, Python numbers, or
    sequences / mappings of them) are close: |actual - expected| <= atol + rtol * |expected|."""
    if (rtol is None) != (atol is None):
        raise ValueError(f"Both 'rtol' and 'atol' must be either specified or omitted, but got no "
                         f"{'atol' if atol is None else 'rtol'}.")
    try:
        _compare(actual, expected, rtol, atol, equal_nan, check_device, check_dtype, check_stride, [])
    except _Mismatch as e:
        if msg is not None:
            raise AssertionError(msg(str(e)) if callable(msg) else msg) from None
        raise AssertionError(str(e)) from None


def assert_allclose(actual, expected, rtol=None, atol=None, equal_nan=True, msg=""):
    warnings.warn("`torch.testing.assert_allclose()` is deprecated since 1.12 and will be removed in a future "
                  "release. Please use `torch.testing.assert_close()` instead.", FutureWarning, stacklevel=2)
    assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan, check_device=True,
                 check_dtype=False, check_stride=False, msg=msg or None)


def _where(path):
    return "" if not path else "\n\nThe failure occurred for item " + "".join(f"[{p!r}]" for p in path)


def _compare(a, b, rtol, atol, equal_nan, check_device, check_dtype, check_stride, path):
    T = _tensor_cls()
    if isinstance(a, (T, np.ndarray)) or isinstance(b, (T, np.ndarray)):
        if not (isinstance(a, T) and isinstance(b, T)) and not (isinstance(a, np.ndarray) and
                                                                 isinstance(b, np.ndarray)):
            raise TypeError(f"No comparison pair was able to handle inputs of type {_type_name(a)} and "
                            f"{_type_name(b)}.")
        if isinstance(a, np.ndarray):
            from ._factories import from_numpy
            a, b = from_numpy(np.ascontiguousarray(a)), from_numpy(np.ascontiguousarray(b))
        return _compare_tensors(a, b, rtol, atol, equal_nan, check_device, check_dtype, check_stride, path)
    if isinstance(a, (bool, int, float)) and isinstance(b, (bool, int, float)):
        return _compare_scalars(a, b, rtol, atol, equal_nan, check_dtype, path)
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        if set(a) != set(b):
            raise _Mismatch(f"The keys of the mappings do not match:\nMissing keys in the actual mapping: "
                            f"{sorted(map(repr, set(b) - set(a)))}\nExtra keys in the actual mapping: "
                            f"{sorted(map(repr, set(a) - set(b)))}{_where(path)}")
        for k in b:
            _compare(a[k], b[k], rtol, atol, equal_nan, check_device, check_dtype, check_stride, path + [k])
        return
    if isinstance(a, Sequence) and isinstance(b, Sequence) and not isinstance(a, str) and not isinstance(b, str):
        if len(a) != len(b):
            raise _Mismatch(f"The length of the sequences mismatch: {len(a)} != {len(b)}{_where(path)}")
        for i, (x, y) in enumerate(zip(a, b)):
            _compare(x, y, rtol, atol, equal_nan, check_device, check_dtype, check_stride, path + [i])
        return
    raise TypeError(f"No comparison pair was able to handle inputs of type {_type_name(a)} and {_type_name(b)}.")


def _type_name(x):
    cls = type(x)
    module = cls.__module__
    return f"<class '{cls.__name__}'>" if module == "builtins" else f"<class '{module}.{cls.__name__}'>"


def _compare_tensors(a, b, rtol, atol, equal_nan, check_device, check_dtype, check_stride, path):
    def attr(name, x, y):
        raise _Mismatch(f"The values for attribute '{name}' do not match: {x} != {y}.{_where(path)}")
    if a.shape != b.shape:
        attr("shape", repr(a.shape), repr(b.shape))
    if check_device and a.device != b.device:
        attr("device", repr(a.device), repr(b.device))
    if check_dtype and a.dtype is not b.dtype:
        attr("dtype", repr(a.dtype), repr(b.dtype))
    if check_stride and a.stride() != b.stride():
        attr("stride()", a.stride(), b.stride())
    if rtol is None:
        rtol, atol = (max(x) for x in zip(_default_tolerance(a.dtype), _default_tolerance(b.dtype)))
    x, y = a.detach().cpu().numpy(), b.detach().cpu().numpy()
    common = np.result_type(x, y)
    x, y = x.astype(common), y.astype(common)
    exact = rtol == 0 and atol == 0
    if common.kind == "b":
        x, y = x.astype(np.uint8), y.astype(np.uint8)
    with np.errstate(all="ignore"):
        if common.kind in "biu":
            wide = np.int64 if common.kind != "u" else np.uint64
            diff = np.abs(x.astype(np.int64) - y.astype(np.int64)) if common != np.uint64 else \
                np.where(x > y, x - y, y - x).astype(wide)
            ok = diff <= atol + rtol * np.abs(y.astype(np.float64))
            rel = diff.astype(np.float32) / np.abs(y).astype(np.float32)
        else:
            diff = np.abs(x - y)
            ok = diff <= common.type(atol) + common.type(rtol) * np.abs(y)
            ok |= x == y  # (equal infinities)
            if equal_nan:
                ok |= np.isnan(x) & np.isnan(y)
            rel = diff / np.abs(y)
    if ok.all():
        return
    bad = int((~ok).sum())
    kind = "equal" if exact else "close"
    lines = [f"Tensor-likes are not {kind}!", "", f"Mismatched elements: {bad} / {ok.size} ({bad / ok.size:.1%})"]
    for name, d, tol in (("absolute", diff, atol), ("relative", rel, rtol)):
        flat = d.reshape(-1)
        pick = np.where(np.isnan(flat), np.inf, flat)
        i = int(np.argmax(pick)) if flat.size else 0
        index = tuple(int(v) for v in np.unravel_index(i, d.shape)) if d.ndim else ()
        value = flat[i].item()
        text = f"Greatest {name} difference: {value} at index {index}"
        lines.append(text if exact else text + f" (up to {tol:.2g} allowed)")
    raise _Mismatch("\n".join(lines) + _where(path))


def _compare_scalars(a, b, rtol, atol, equal_nan, check_dtype, path):
    if check_dtype and type(a) is not type(b):
        raise _Mismatch(f"The (d)types do not match: {type(a)} != {type(b)}.{_where(path)}")
    if rtol is None:
        rtol, atol = (1e-7, 1e-7) if isinstance(a, float) or isinstance(b, float) else (0, 0)
    if a == b or (equal_nan and isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b)):
        return
    diff = abs(a - b)
    if not (isinstance(diff, float) and math.isnan(diff)) and diff <= atol + rtol * abs(b):
        return
    exact = rtol == 0 and atol == 0
    rel = diff / abs(b) if b != 0 else math.inf
    lines = [f"Scalars are not {'equal' if exact else 'close'}!", "", f"Expected {b} but got {a}."]
    lines.append(f"Absolute difference: {diff}" + ("" if exact else f" (up to {atol:.2g} allowed)"))
    lines.append(f"Relative difference: {rel}" + ("" if exact else f" (up to {rtol:.2g} allowed)"))
    raise _Mismatch("\n".join(lines) + _where(path))


def _default_tolerance(dt):
    return _TOLERANCES.get(dt.name, (0.0, 0.0)) if dt.is_floating_point else (0.0, 0.0)


def make_tensor(*shape, dtype, device, low=None, high=None, requires_grad=False, noncontiguous=False,
                exclude_zero=False, memory_format=None):
    """A tensor of `shape` filled with random values in [low, high) (default [-9, 9] for floats, [-9, 10)
    for integers), drawn as PyTorch draws them, so the same seed gives the same tensor."""
    import functools
    from . import _dtype as D
    from ._factories import empty, randint
    from ._typeinfo import finfo, iinfo
    if len(shape) == 1 and isinstance(shape[0], Sequence):
        shape = shape[0]
    shape = tuple(shape)
    integral = dtype is D.bool or not dtype.is_floating_point

    def bounds(lowest, highest, default_low, default_high):
        lo = default_low if low is None else low
        hi = default_high if high is None else high
        if any(isinstance(v, float) and math.isnan(v) for v in (lo, hi)):
            raise ValueError(f"`low` and `high` cannot be NaN, but got low={lo} and high={hi}")
        if lo == hi and not integral:
            warnings.warn("Passing `low==high` to `torch.testing.make_tensor` for floating or complex types is "
                          "deprecated since 2.1 and will be removed in 2.3. Use `torch.full(...)` instead.",
                          FutureWarning, stacklevel=3)
        elif lo >= hi:
            raise ValueError(f"`low` must be less than `high`, but got {lo} >= {hi}")
        elif hi < lowest or lo >= highest:
            raise ValueError(f"The value interval specified by `low` and `high` is [{lo}, {hi}), but {dtype} only "
                             f"supports [{lowest}, {highest})")
        lo, hi = min(max(lo, lowest), highest), min(max(hi, lowest), highest)
        return (math.ceil(lo), math.ceil(hi)) if integral else (lo, hi)

    if noncontiguous and memory_format is not None:
        raise ValueError(f"The parameters `noncontiguous` and `memory_format` are mutually exclusive, but got "
                         f"noncontiguous={noncontiguous} and memory_format={memory_format}")
    if requires_grad and integral:
        raise ValueError(f"`requires_grad=True` is not supported for boolean and integral dtypes, but got "
                         f"dtype={dtype}")
    noncontiguous = noncontiguous and functools.reduce(lambda x, y: x * y, shape, 1) > 1
    if noncontiguous:
        shape = (*shape[:-1], 2 * shape[-1])  # every other element, from the second: a strided view
    if dtype is D.bool:
        lo, hi = bounds(0, 2, 0, 2)
        result = randint(lo, hi, shape, device=device, dtype=dtype)
    elif integral:
        info = iinfo(dtype)
        lo, hi = bounds(info.min, info.max + (1 if dtype is not D.int64 else 0), -9, 10)
        result = randint(lo, hi, shape, device=device, dtype=dtype)
    else:
        info = finfo(dtype)
        lo, hi = bounds(info.min, info.max, -9, 9)
        result = empty(shape, device=device, dtype=dtype)
        if hi - lo >= info.max:  # (uniform_ needs high - low to be finite: draw at half scale)
            result.uniform_(lo / 2, hi / 2).mul_(2)
        else:
            result.uniform_(lo, hi)
    if noncontiguous:
        result = result[..., 1::2]
    elif memory_format is not None:
        result = result.clone(memory_format=memory_format)
    if exclude_zero:
        result[result == 0] = 1 if integral else finfo(dtype).tiny
    if not integral:
        result.requires_grad = requires_grad
    return result


__all__ = ["assert_close", "assert_allclose", "make_tensor"]
