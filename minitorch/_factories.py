"""Creating tensors: from data, from NumPy (sharing memory), filled, ranges, random."""
from __future__ import annotations

import numbers

import numpy as np

from . import _device as _dev
from . import _dtype
from . import _random as _rand
from ._size import Size


def _T():
    from ._tensor import Tensor
    return Tensor


def _target(device):
    return _dev.cpu if device is None else _dev.resolve(device)


def place(arr, device):
    """Put a host (NumPy) array on `device`; on the CPU it is used as is."""
    if device.type == "cpu":
        return arr
    backend = device._xp_backend
    if backend.count() <= (device.index or 0):
        _missing(device)
    return backend.from_host(arr, device.index)


def _missing(device):
    if device.type == "cuda":
        from . import cuda
        cuda._require(device.index or 0)
    raise RuntimeError(f"device {device} is not available: {device._xp_backend.describe_missing()}")


def _finish(arr, device, requires_grad, op):
    t = _T()._make(arr, device)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _size(size, op):
    if len(size) == 1 and isinstance(size[0], (tuple, list, Size)):
        size = tuple(size[0])
    for s in size:
        if not isinstance(s, numbers.Integral) or isinstance(s, bool):
            raise TypeError(f"{op}(): argument 'size' must be tuple of ints, but found element of type "
                            f"{type(s).__name__}")
        if s < 0:
            raise RuntimeError(f"{op}(): Trying to create tensor with negative dimension {s}: {list(size)}")
    return tuple(int(s) for s in size)


def _dt(dtype, default=None, op="tensor"):
    if dtype is None:
        return default or _dtype.get_default_dtype()
    return _dtype.as_dtype(dtype, op)


# ---- from data ---------------------------------------------------------------------------

def _infer_host(data, op):
    """A NumPy array from Python data, with PyTorch's choice of dtype."""
    T = _T()
    if isinstance(data, T):
        return data.detach().cpu()._data, data.dtype
    if isinstance(data, np.ndarray):
        return data, _dtype.from_numpy_dtype(data.dtype, op)
    if hasattr(data, "__cuda_array_interface__"):  # a CuPy array
        arr = data.get()
        return arr, _dtype.from_numpy_dtype(arr.dtype, op)
    if isinstance(data, (str, bytes)):
        raise TypeError(f"new(): invalid data type '{type(data).__name__}'")
    if isinstance(data, np.generic):
        arr = np.asarray(data)
        return arr, _dtype.from_numpy_dtype(arr.dtype, op)
    leaves = set()
    flat = _unwrap(data, leaves)
    try:
        arr = np.asarray(flat)
    except ValueError:
        raise ValueError(f"{op}(): {_ragged(data)}") from None
    if arr.dtype == object or arr.dtype.kind in "USV" or arr.dtype == np.uint64:
        bad = _first_bad(data)
        if bad is None and arr.dtype.kind in "uO":  # all numbers: an int beyond int64
            raise ValueError("Overflow when unpacking long long (integers must fit in int64)")
        raise TypeError(f"{op}(): could not infer dtype of {type(bad).__name__}; expected numbers, bools, "
                        "or (nested) lists of them")
    if leaves - _PY_LEAVES:  # NumPy scalars or tensors inside: PyTorch promotes their dtypes
        dt = None
        for leaf in leaves:
            d = _LEAF_DTYPE[leaf]() if leaf in _LEAF_DTYPE else _dtype.from_numpy_dtype(leaf, op)
            dt = d if dt is None else _dtype.promote_types(dt, d)
        return arr, dt
    kind = arr.dtype.kind
    if kind == "b":
        dt = _dtype.bool
    elif kind in "iu":
        dt = _dtype.int64
    elif kind == "f":
        dt = _dtype.get_default_dtype()
    else:
        raise TypeError(f"{op}(): can't convert data of dtype {arr.dtype}")
    return arr, dt


_PY_LEAVES = frozenset((bool, int, float))
_LEAF_DTYPE = {bool: lambda: _dtype.bool, int: lambda: _dtype.int64, float: _dtype.get_default_dtype}


def _unwrap(data, leaves):
    """Nested lists with tensors replaced by numbers; `leaves` collects the type of every leaf
    (the NumPy dtype of NumPy scalars and tensors), for PyTorch's choice of dtype."""
    T = _T()
    if isinstance(data, T):
        if data.numel() != 1:
            raise ValueError("only one element tensors can be converted to Python scalars (to combine "
                             "tensors into one, use minitorch.stack(list_of_tensors))")
        leaves.add(data.dtype.np)
        return data.item()
    if isinstance(data, (list, tuple)):
        return [_unwrap(x, leaves) for x in data]
    if isinstance(data, np.generic):
        leaves.add(data.dtype)
    elif data.__class__ in _PY_LEAVES:
        leaves.add(data.__class__)
    return data


def _first_bad(data):
    if isinstance(data, (list, tuple)):
        for x in data:
            b = _first_bad(x)
            if b is not None:
                return b
        return None
    return None if isinstance(data, (numbers.Number, np.generic)) else data


def _ragged(data):
    """PyTorch's account of why nested lists are not rectangular: the shape is read off the
    first element at each depth, then every sequence must have that length at its dim."""
    shape, x = [], data
    while isinstance(x, (list, tuple)):
        shape.append(len(x))
        if not x:
            break
        x = x[0]

    def walk(x, dim):
        if dim == len(shape):
            if isinstance(x, (list, tuple)):
                return f"expected a number at dim {dim} (got a sequence of length {len(x)})"
            return None
        if not isinstance(x, (list, tuple)):
            return f"expected sequence of length {shape[dim]} at dim {dim} (got {type(x).__name__})"
        if len(x) != shape[dim]:
            return f"expected sequence of length {shape[dim]} at dim {dim} (got {len(x)})"
        for y in x:
            msg = walk(y, dim + 1)
            if msg:
                return msg
        return None

    return walk(data, 0) or "nested lists must be rectangular (every row the same length)"


def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """A new tensor holding a *copy* of `data` (lists, numbers, NumPy arrays, tensors)."""
    arr, dt = _infer_host(data, "tensor")
    if dtype is not None:
        dt = _dtype.as_dtype(dtype, "tensor")
    with np.errstate(over="ignore"):  # 1e300 as float32 is inf, without a warning (as PyTorch)
        arr = np.array(arr, dtype=dt.np, copy=True, order="C")
    if requires_grad and not dt.is_floating_point:
        raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
    return _finish(place(arr, _target(device)), _target(device), requires_grad, "tensor")


def as_tensor(data, dtype=None, device=None):
    """Like tensor(), but shares memory with a NumPy array (or returns the same tensor) when
    no conversion is needed."""
    T = _T()
    dev = _target(device) if device is not None else None
    if isinstance(data, T):
        out = data
        if dtype is not None or dev is not None:
            out = data.to(device=dev or data.device, dtype=dtype or data.dtype)
        return out
    if isinstance(data, np.ndarray) and (dev is None or dev.type == "cpu"):
        dt = _dtype.from_numpy_dtype(data.dtype, "as_tensor")
        if dtype is None or _dtype.as_dtype(dtype) is dt:
            return from_numpy(data)
    return tensor(data, dtype=dtype, device=device)


def from_numpy(ndarray):
    """A tensor that *shares memory* with `ndarray`: writes through either show in both."""
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    _dtype.from_numpy_dtype(ndarray.dtype, "from_numpy")
    if any(s < 0 for s in ndarray.strides):
        raise ValueError(
            "At least one stride in the given numpy array is negative, and tensors with negative strides are "
            "not currently supported. (You can probably work around this by making a copy of your array "
            " with array.copy().) ")
    if ndarray.dtype.byteorder == ">":
        raise TypeError("can't convert a big-endian numpy array; use arr.astype(arr.dtype.newbyteorder('='))")
    arr = ndarray.view()  # same memory; a separate array object keeps the user's attributes untouched
    return _T()._make(arr, _dev.cpu)


# ---- filled tensors ---------------------------------------------------------------------

def _filled(fn, size, dtype, device, requires_grad, op, fill=None):
    size = _size(size, op)
    dt = _dt(dtype, op=op)
    dev = _target(device)
    if dev.type == "cpu":
        arr = fn(np, size, dt.np) if fill is None else np.full(size, fill, dtype=dt.np)
    else:
        place(np.empty((0,), dt.np), dev)  # raises the clear error when the device is missing
        xp = dev.xp
        arr = fn(xp, size, dt.np) if fill is None else xp.full(size, fill, dtype=dt.np)
    return _finish(arr, dev, requires_grad, op)


def zeros(*size, dtype=None, device=None, requires_grad=False):
    return _filled(lambda xp, s, d: xp.zeros(s, d), size, dtype, device, requires_grad, "zeros")


def ones(*size, dtype=None, device=None, requires_grad=False):
    return _filled(lambda xp, s, d: xp.ones(s, d), size, dtype, device, requires_grad, "ones")


def empty(*size, dtype=None, device=None, requires_grad=False, memory_format=None):
    return _filled(lambda xp, s, d: xp.empty(s, d), size, dtype, device, requires_grad, "empty")


def full(size, fill_value, *, dtype=None, device=None, requires_grad=False):
    if dtype is None:
        if isinstance(fill_value, bool):
            dtype = _dtype.bool
        elif isinstance(fill_value, numbers.Integral):
            dtype = _dtype.int64
    return _filled(None, (tuple(size),) if not isinstance(size, int) else (size,), dtype, device,
                   requires_grad, "full", fill=fill_value)


def _like(t, dtype, device):
    return (dtype if dtype is not None else t.dtype), (device if device is not None else t.device)


def zeros_like(t, *, dtype=None, device=None, requires_grad=False):
    d, dev = _like(t, dtype, device)
    return zeros(t.shape, dtype=d, device=dev, requires_grad=requires_grad)


def ones_like(t, *, dtype=None, device=None, requires_grad=False):
    d, dev = _like(t, dtype, device)
    return ones(t.shape, dtype=d, device=dev, requires_grad=requires_grad)


def empty_like(t, *, dtype=None, device=None, requires_grad=False):
    d, dev = _like(t, dtype, device)
    return empty(t.shape, dtype=d, device=dev, requires_grad=requires_grad)


def full_like(t, fill_value, *, dtype=None, device=None, requires_grad=False):
    d, dev = _like(t, dtype, device)
    return full(t.shape, fill_value, dtype=d, device=dev, requires_grad=requires_grad)


def rand_like(t, *, dtype=None, device=None, requires_grad=False, generator=None):
    d, dev = _like(t, dtype, device)
    return rand(t.shape, dtype=d, device=dev, requires_grad=requires_grad, generator=generator)


def randn_like(t, *, dtype=None, device=None, requires_grad=False, generator=None):
    d, dev = _like(t, dtype, device)
    return randn(t.shape, dtype=d, device=dev, requires_grad=requires_grad, generator=generator)


def randint_like(t, low=0, high=None, *, dtype=None, device=None, generator=None):
    if high is None:
        low, high = 0, low
    d, dev = _like(t, dtype, device)
    return randint(low, high, t.shape, dtype=d, device=dev, generator=generator)


# ---- ranges ------------------------------------------------------------------------------

def _num(x):
    from ._tensor import Tensor
    return x.item() if isinstance(x, Tensor) else x


def arange(start, end=None, step=1, *, dtype=None, device=None, requires_grad=False):
    start, end, step = _num(start), _num(end), _num(step)
    if end is None:
        start, end = 0, start
    if step == 0:
        raise RuntimeError("arange(): step must be nonzero")
    if (end - start) * step < 0:
        raise RuntimeError(
            f"arange(): upper bound and larger bound inconsistent with step sign (start={start}, end={end}, "
            f"step={step})")
    if dtype is None:
        ints = all(isinstance(v, numbers.Integral) for v in (start, end, step))
        dtype = _dtype.int64 if ints else _dtype.get_default_dtype()
    dt = _dtype.as_dtype(dtype, "arange")
    # compute in float64/int64 and cast, so float32 ranges have exactly ceil((end-start)/step) values
    import math
    n = max(0, math.ceil((end - start) / step))
    arr = (start + np.arange(n, dtype=np.float64 if dt.is_floating_point else np.int64) * step).astype(dt.np)
    dev = _target(device)
    return _finish(place(arr, dev), dev, requires_grad, "arange")


def linspace(start, end, steps, *, dtype=None, device=None, requires_grad=False):
    if steps < 0:
        raise RuntimeError("linspace(): number of steps must be non-negative")
    dt = _dt(dtype, op="linspace")
    arr = np.linspace(_num(start), _num(end), steps, dtype=np.float64).astype(dt.np)
    dev = _target(device)
    return _finish(place(arr, dev), dev, requires_grad, "linspace")


def eye(n, m=None, *, dtype=None, device=None, requires_grad=False):
    dt = _dt(dtype, op="eye")
    dev = _target(device)
    return _finish(place(np.eye(n, m if m is not None else n, dtype=dt.np), dev), dev, requires_grad, "eye")


# ---- random ------------------------------------------------------------------------------

def _random(draw, size, dtype, device, requires_grad, generator, op):
    size = _size(size, op)
    dt = _dt(dtype, op=op)
    if not dt.is_floating_point:
        raise RuntimeError(f"\"{op}\" not implemented for '{dt._short}': {op} draws floating-point values; "
                           "use randint for integers")
    arr = draw(_rand.rng(generator), size).astype(dt.np, copy=False)
    dev = _target(device)
    return _finish(place(arr, dev), dev, requires_grad, op)


def rand(*size, dtype=None, device=None, requires_grad=False, generator=None):
    """Uniform on [0, 1)."""
    return _random(lambda g, s: g.random(s), size, dtype, device, requires_grad, generator, "rand")


def randn(*size, dtype=None, device=None, requires_grad=False, generator=None):
    """Standard normal."""
    return _random(lambda g, s: g.standard_normal(s), size, dtype, device, requires_grad, generator, "randn")


def randint(low, high=None, size=None, *, dtype=None, device=None, generator=None, requires_grad=False):
    if size is None:
        if high is None or isinstance(high, (tuple, list)):
            low, high, size = 0, low, high
        else:
            raise TypeError("randint() missing required argument 'size'")
    if high is None:
        low, high = 0, low
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    size = _size((size,) if isinstance(size, int) else (tuple(size),), "randint")
    dt = _dt(dtype, _dtype.int64, "randint")
    arr = _rand.rng(generator).integers(low, high, size).astype(dt.np)
    dev = _target(device)
    return _finish(place(arr, dev), dev, requires_grad, "randint")


def randperm(n, *, dtype=None, device=None, generator=None):
    dt = _dt(dtype, _dtype.int64, "randperm")
    arr = _rand.rng(generator).permutation(n).astype(dt.np)
    dev = _target(device)
    return _finish(place(arr, dev), dev, False, "randperm")


def normal(mean=0.0, std=1.0, size=None, *, generator=None, dtype=None, device=None):
    if size is None:
        raise TypeError("normal(): this form needs `size` (tensor mean/std are not supported here)")
    return randn(size, generator=generator, dtype=dtype, device=device) * std + mean


def multinomial(probs, num_samples, replacement=False, *, generator=None):
    p = probs.detach().cpu().double().numpy()
    g = _rand.rng(generator)
    rows = p.reshape(-1, p.shape[-1])
    out = np.stack([g.choice(rows.shape[1], num_samples, replace=replacement, p=r / r.sum()) for r in rows])
    out = out.reshape(p.shape[:-1] + (num_samples,))
    return tensor(out, dtype=_dtype.int64, device=probs.device)
