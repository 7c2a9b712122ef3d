"""Creating tensors: from data, from NumPy (sharing memory), filled, ranges, random."""
from __future__ import annotations

import math
import numbers
import operator
import warnings

import numpy as np

from . import _device as _dev
from . import _dtype
from . import _memory_format as _mf
from ._memory_format import preserve_format
from ._errors import hinted
from . import _random as _rand
from ._size import Size


def _T():
    from ._tensor import Tensor
    return Tensor


def _target(device):
    return _dev.resolve(_dev.default_device()) if device is None else _dev.resolve(device)


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
        if not t.dtype.is_floating_point:  # (a factory's wording, capitalised, is not requires_grad_()'s)
            raise hinted(RuntimeError, "Only Tensors of floating point and complex dtype can require gradients",
                         f"{op}(requires_grad=True) of {t.dtype}: pass dtype=minitorch.float32")
        t.requires_grad_(True)
    return t


def _size(size, op):
    """A new tensor's size (`zeros(2, 3)`, `zeros((2, 3))`), each dim an int >= 0."""
    dims = int_list(size, op)
    for s in dims:
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {list(dims)}")
    return dims


def int_list(args, op, name="size", position=1):
    """Ints given one by one or as one sequence, as PyTorch's argument parser reads them: anything
    with `__index__` (a NumPy int, a one-element integer tensor such as `sum(lengths)`), never a
    bool or a float."""
    if len(args) == 1 and isinstance(args[0], (tuple, list, Size)):
        args = tuple(args[0])
    elif len(args) == 1 and _index(args[0]) is None:
        raise TypeError(f"{op}(): argument '{name}' (position {position}) must be tuple of ints, not "
                        f"{_type_name(args[0])}")
    if all(s.__class__ is int for s in args):  # (the common case, quickly)
        return tuple(args)
    ints = tuple(_index(s) for s in args)
    for i, (s, n) in enumerate(zip(args, ints)):
        if n is None and i == 0:
            raise TypeError(f"{op}(): argument '{name}' (position {position}) must be tuple of ints, but found element "
                            f"of type {_type_name(s)} at pos 0")
        if n is None:
            raise TypeError(f"{op}(): argument '{name}' failed to unpack the object at pos {i + 1} with error "
                            f"\"type must be tuple of ints,but got {_type_name(s)}\"")
    return ints


def _index(s):
    """s as an int, or None where PyTorch takes no int (a bool, a float, a float tensor)."""
    if isinstance(s, (bool, np.bool_)):
        return None
    try:
        return operator.index(s)
    except TypeError:
        return None


def _type_name(x):
    return "numpy.ndarray" if isinstance(x, np.ndarray) else type(x).__name__


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


def copy_construct_warning(data, how="torch.tensor(sourceTensor)", stacklevel=3):
    """PyTorch's warning for building a tensor from a tensor: the copy leaves the autograd graph,
    which is rarely what was meant."""
    if isinstance(data, _T()):
        import warnings
        warnings.warn("To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
                      f"sourceTensor.detach().clone().requires_grad_(True), rather than {how}.", UserWarning,
                      stacklevel=stacklevel)


def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """A new tensor holding a *copy* of `data` (lists, numbers, NumPy arrays, tensors)."""
    copy_construct_warning(data)
    arr, dt = _infer_host(data, "tensor")
    if dtype is not None:
        dt = _dtype.as_dtype(dtype, "tensor")
        if not isinstance(data, (_T(), np.ndarray)) and not hasattr(data, "__cuda_array_interface__"):
            check_in_range(arr, dt)
    with np.errstate(over="ignore"):  # 1e300 as float32 is inf, without a warning (as PyTorch)
        arr = np.array(arr, dtype=dt.np, copy=True, order="C")
    if requires_grad and not dt.is_floating_point:
        raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
    return _finish(place(arr, _target(device)), _target(device), requires_grad, "tensor")


def check_in_range(arr, dt):
    """PyTorch converts each Python number of tensor(data, dtype=...) with a check (an array's
    elements are cast without one): a value out of an integer dtype's range is an error, not a
    wrap, except that a negative int wraps into an unsigned dtype (-1 is 255)."""
    if dt.is_floating_point or dt is _dtype.bool or arr.size == 0 or arr.dtype.kind == "b":
        return
    info = np.iinfo(dt.np)
    if arr.dtype.kind == "f":
        low, ok = int(info.min), bool(np.isfinite(arr).all())
    else:
        low, ok = (int(info.min) if dt.is_signed else -int(info.max)), True
    if not (ok and low <= arr.min() and arr.max() <= int(info.max)):
        raise RuntimeError(f"value cannot be converted to type {dt.name} without overflow")


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
    t = _T()._make(arr, _dev.cpu)
    t._storage.resizable = False  # (the array owns the memory)
    return t


def frombuffer(buffer, *, dtype=None, count=-1, offset=0, requires_grad=False):
    """A 1-D tensor over the raw bytes of an object with the buffer protocol (bytes, bytearray,
    array.array, memoryview), from byte `offset` on: it *shares* their memory, as from_numpy does."""
    if dtype is None:
        raise TypeError('frombuffer() missing 1 required positional arguments: "dtype"')
    dt = _dtype.as_dtype(dtype, "frombuffer")
    try:
        view = memoryview(buffer)
    except TypeError:
        raise ValueError("object does not implement Python buffer protocol.") from None
    length, size = view.nbytes, dt.itemsize
    if not (length > 0 and count != 0):
        raise ValueError(f"both buffer length ({length}) and count ({count}) must not be 0")
    if not 0 <= offset < length:
        raise ValueError(f"offset ({offset} bytes) must be non-negative and no greater than buffer length ({length} "
                         "bytes) minus 1")
    if count < 0 and (length - offset) % size:
        raise ValueError(f"buffer length ({length - offset} bytes) after offset ({offset} bytes) must be a multiple "
                         f"of element size ({size})")
    n = (length - offset) // size if count < 0 else count
    if offset + n * size > length:
        raise ValueError(f"requested buffer length ({n} * {size} bytes) after offset ({offset} bytes) must not be "
                         f"greater than actual buffer length ({length} bytes)")
    if view.readonly:
        from ._tensor import warn_once
        warn_once("The given buffer is not writable, and PyTorch does not support non-writable tensors. This means "
                  "you can write to the underlying (supposedly non-writable) buffer using the tensor. You may want to "
                  "copy the buffer to protect its data or make it writable before converting it to a tensor. This type "
                  "of warning will be suppressed for the rest of this program.")
    arr = np.frombuffer(view, dtype=dt.np, count=n, offset=offset)  # (writing to bytes stays refused here)
    t = _finish(arr, _dev.cpu, requires_grad, "frombuffer")
    t._storage.resizable = False  # (the buffer's owner holds the memory)
    return t


def from_file(filename, shared=None, size=0, *, dtype=None, layout=None, device=None, pin_memory=False,
              requires_grad=False):
    """A 1-D tensor of `size` elements over a memory-mapped file: with shared=True writes go to the
    file (which is created or grown to fit); otherwise they stay in the tensor (copy on write)."""
    import os
    dt = _dt(dtype, op="from_file")
    nbytes = size * dt.itemsize
    if nbytes < 0:
        raise RuntimeError(f"unable to mmap {nbytes} bytes from file <{filename}>: Cannot allocate memory (12)")
    if shared:
        with open(filename, "ab") as f:  # (created if missing)
            if f.tell() < nbytes:
                f.truncate(nbytes)
    elif not os.path.exists(filename):
        raise RuntimeError(f"unable to open file <{filename}> in read-only mode: No such file or directory (2)")
    elif os.path.getsize(filename) < nbytes:
        raise RuntimeError(f"file <{filename}> size <{os.path.getsize(filename)}> is smaller than the required "
                           f"mapping size <{nbytes}>")
    arr = (np.memmap(filename, dtype=dt.np, mode="r+" if shared else "c", shape=(size,)).view(np.ndarray) if size
           else np.empty(0, dt.np))  # (NumPy maps no empty file)
    dev = _target(device)
    return _finish(place(arr, dev), dev, requires_grad, "from_file")


# ---- filled tensors ---------------------------------------------------------------------

def _filled(fn, size, dtype, device, requires_grad, op, fill=None):
    size = _size(size, op)
    dt = _dt(dtype, op=op)
    dev = _target(device)
    if fill is not None:
        fill = _dtype.fill_scalar(fill, dt, math.prod(size))  # -1 into uint8 is 255; 300 is an error (PyTorch)
    if dev.type == "cpu":
        arr = fn(np, size, dt.np) if fill is None else np.full(size, fill, dtype=dt.np)
    else:
        place(np.empty((0,), dt.np), dev)  # raises the clear error when the device is missing
        xp = dev.xp
        arr = fn(xp, size, dt.np) if fill is None else xp.full(size, fill, dtype=dt.np)
    return _finish(arr, dev, requires_grad, op)


def _sizes(size, size_kw, op, name="size"):
    """Sizes as `zeros(2, 3)`, `zeros((2, 3))` or `zeros(size=(2, 3))`, as PyTorch takes them (`name`:
    PyTorch's keyword for them, `t.reshape(shape=...)`, `t.permute(dims=...)`)."""
    if size_kw is not None:
        if size:
            raise TypeError(f"{op}() got multiple values for argument '{name}'")
        return (tuple(size_kw),) if isinstance(size_kw, (tuple, list, Size)) else (size_kw,)
    if not size:
        raise TypeError(f"{op}() missing 1 required positional arguments: \"{name}\"")
    return size


def sizes_by_keyword(size, kw, op, name="size"):
    """The sizes of `t.view(size=(2, 3))`, `t.permute(dims=(1, 0))`: a function that takes them as
    `*size` gets PyTorch's keyword for them in `kw`, and refuses any other keyword there."""
    size = _sizes(size, kw.pop(name, None), op, name)
    _no_more(kw, op)
    return size


def _written(out, result, op):
    if out is None:
        return result
    from ._ops.out import write_out
    return write_out(op, result, out)


def zeros(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False, **kw):
    size = sizes_by_keyword(size, kw, "zeros")
    try:
        size = _size(size, "zeros")
    except RuntimeError:  # (zeros checks its sizes itself first, in other words than the other factories)
        raise RuntimeError("zeros: Dimension size must be non-negative.") from None
    return _written(out, _filled(lambda xp, s, d: xp.zeros(s, d), size, dtype, device, requires_grad, "zeros"),
                    "zeros")


def ones(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False, **kw):
    size = sizes_by_keyword(size, kw, "ones")
    return _written(out, _filled(lambda xp, s, d: xp.ones(s, d), size, dtype, device, requires_grad, "ones"),
                    "ones")


def empty(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False,
          memory_format=None, **kw):
    size = sizes_by_keyword(size, kw, "empty")
    if memory_format is preserve_format:
        raise hinted(RuntimeError, "unsupported memory format Preserve", "a new tensor has nothing to preserve: "
                     "pass contiguous_format or channels_last, or use empty_like")
    result = _filled(lambda xp, s, d: xp.empty(s, d), size, dtype, device, requires_grad, "empty")
    if memory_format is not None:  # (None: row-major, empty's default)
        from ._ops.common import relayout
        strides = _mf.strides(_mf.checked(memory_format, "empty"), tuple(result.shape))
        result._data = relayout(result._data, strides, result._device.xp)
    return _written(out, result, "empty")


def empty_permuted(size, physical_layout, *, dtype=None, layout=None, device=None, requires_grad=False,
                   pin_memory=False):
    """An uninitialised tensor of `size` whose dims lie in memory in the order `physical_layout`
    names, outermost first: (0, 2, 3, 1) is channels-last for an N, C, H, W size."""
    size = _size((_size_sequence(size, "empty_permuted"),), "empty_permuted")
    order = int_list((physical_layout,), "empty_permuted", "physical_layout", 2)
    if len(order) != len(size):
        raise RuntimeError(f"Number of dimensions in size does not match the length of the physical_layout; i.e. "
                           f"len(size) = {len(size)} is not equal to len(physical_layout) = {len(order)}")
    for i, d in enumerate(order):
        if not 0 <= d < len(size):
            raise RuntimeError(f"Dimension out of range (expected to be between 0 and {len(size) - 1}, but got {d} at "
                               f"index {i}).  NB: negative dims not currently supported; file an issue if you want it.")
        if d in order[:i]:
            raise RuntimeError("Duplicate dim not allowed")
    from ._ops.common import relayout
    result = _filled(lambda xp, s, d: xp.empty(s, d), size, dtype, device, requires_grad, "empty_permuted")
    strides, step = [0] * len(size), 1
    for d in reversed(order):  # (the innermost dim first: row-major strides over the permuted sizes)
        strides[d], step = step, step * size[d]
    result._data = relayout(result._data, strides, result._device.xp)
    return result


def full(size, fill_value, *, out=None, dtype=None, layout=None, device=None, requires_grad=False,
         pin_memory=False):
    if dtype is None:
        if isinstance(fill_value, bool):
            dtype = _dtype.bool
        elif isinstance(fill_value, numbers.Integral):
            dtype = _dtype.int64
    return _written(out, _filled(None, (_size_sequence(size, "full"),), dtype, device, requires_grad, "full",
                                 fill=fill_value), "full")


def _size_sequence(size, op):
    """full(size, ...) and new_full take the size as one sequence only (full(3, v) is PyTorch's TypeError)."""
    if not isinstance(size, (tuple, list, Size)):
        raise TypeError(f"{op}(): argument 'size' (position 1) must be tuple of ints, not {_type_name(size)}")
    return tuple(size)


def _like(t, dtype, device):
    return (dtype if dtype is not None else t.dtype), (device if device is not None else t.device)


def _laid_out_like(out, t, memory_format):
    """*_like results keep t's layout (PyTorch's preserve_format): a transpose's copy is transposed;
    another memory_format lays them out as it says."""
    from ._ops.common import canonical, like_strides, relayout
    fmt = _mf.checked(memory_format, "empty_like")
    if fmt is not preserve_format:
        out._data = relayout(out._data, _mf.strides(fmt, tuple(out.shape)), out._device.xp)
        return out
    if canonical(t._data) or out._device != t._device:
        return out
    out._data = relayout(out._data, like_strides(t.shape, t.stride()), out._device.xp)
    return out


def zeros_like(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None,
               pin_memory=False):
    d, dev = _like(input, dtype, device)
    return _laid_out_like(zeros(input.shape, dtype=d, device=dev, requires_grad=requires_grad), input, memory_format)


def ones_like(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None,
              pin_memory=False):
    d, dev = _like(input, dtype, device)
    return _laid_out_like(ones(input.shape, dtype=d, device=dev, requires_grad=requires_grad), input, memory_format)


def empty_like(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None,
               pin_memory=False):
    d, dev = _like(input, dtype, device)
    return _laid_out_like(empty(input.shape, dtype=d, device=dev, requires_grad=requires_grad), input, memory_format)


def full_like(input, fill_value, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None,
              pin_memory=False):
    d, dev = _like(input, dtype, device)
    return _laid_out_like(full(input.shape, fill_value, dtype=d, device=dev, requires_grad=requires_grad), input,
                          memory_format)


# ---- ranges ------------------------------------------------------------------------------

def _num(x):
    from ._tensor import Tensor
    return x.item() if isinstance(x, Tensor) else x


def arange(start=None, end=None, step=1, *, out=None, dtype=None, layout=None, device=None, requires_grad=False,
           pin_memory=False):
    if start is None:  # arange(end=5): PyTorch's arange(end) by keyword
        if end is None:
            raise TypeError("arange() missing 1 required positional arguments: \"end\"")
        start, end = end, None
    return _written(out, _arange(start, end, step, dtype, device, requires_grad), "arange")


def _arange(start, end, step, dtype, device, requires_grad):
    from ._tensor import Tensor
    names = ("end",) if end is None else ("start", "end", "step")
    for i, (name, v) in enumerate(zip(names, (start, end, step) if end is not None else (start,))):
        if isinstance(v, Tensor) and v.ndim:
            raise TypeError(f"arange(): argument '{name}' (position {i + 1}) must be Number, not Tensor")
    start, end, step = _num(start), _num(end), _num(step)
    if end is None:
        start, end = 0, start
    if dtype is None:
        ints = all(isinstance(v, numbers.Integral) for v in (start, end, step))
        dtype = _dtype.int64 if ints else _dtype.get_default_dtype()
    dt = _dtype.as_dtype(dtype, "arange")
    # PyTorch's checks, in its order (a NaN step is not "nonzero")
    if dt is _dtype.bool:
        raise NotImplementedError("\"arange_cpu\" not implemented for 'Bool'")
    if not (step > 0 or step < 0):
        raise RuntimeError("step must be nonzero")
    if not (math.isfinite(start) and math.isfinite(end)):
        raise RuntimeError(f"unsupported range: {start:g} -> {end:g}")
    if not ((step > 0 and end >= start) or (step < 0 and end <= start)):
        raise hinted(RuntimeError, "upper bound and lower bound inconsistent with step sign",
                     f"arange(start={start}, end={end}, step={step}) would be empty the wrong way round: "
                     "swap start and end, or flip the sign of step")
    n = math.ceil((end - start) / step)
    if not 0 <= n <= 2 ** 63 - 1:
        raise RuntimeError("invalid size, possible overflow?")
    # computed in float64/int64 and cast, so float32 ranges have exactly ceil((end-start)/step) values
    arr = (start + np.arange(n, dtype=np.float64 if dt.is_floating_point else np.int64) * step).astype(dt.np)
    dev = _target(device)
    return _finish(place(arr, dev), dev, requires_grad, "arange")


def range_(start, end, step=1, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """The deprecated inclusive range: start, start + step, ..., up to end itself, in the default float dtype."""
    warnings.warn("torch.range is deprecated and will be removed in a future release because its behavior is "
                  "inconsistent with Python's range builtin. Instead, use torch.arange, which produces values in "
                  "[start, end).", UserWarning, stacklevel=2)
    start, end, step = _num(start), _num(end), _num(step)
    dt = _dt(dtype, op="range")
    if step == 0 or step != step:
        raise RuntimeError("step must be nonzero")
    if not ((step > 0 and end >= start) or (step < 0 and end <= start)):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    n = int((end - start) // step) + 1
    arr = (start + np.arange(n, dtype=np.float64) * step).astype(dt.np)
    dev = _target(device)
    return _written(out, _finish(place(arr, dev), dev, requires_grad, "range"), "range")


def linspace(start, end, steps, *, out=None, dtype=None, layout=None, device=None, requires_grad=False,
             pin_memory=False):
    return _written(out, _linspace(start, end, steps, dtype, device, requires_grad), "linspace")


def _linspace(start, end, steps, dtype, device, requires_grad):
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    dt = _dt(dtype, op="linspace")
    if dt is _dtype.bool:
        raise NotImplementedError("\"linspace_cpu\" not implemented for 'Bool'")
    start, end = (_dtype.checked_scalar(_num(v), dt) for v in (start, end))  # converted to the dtype, checked
    arr = _spaced(start, end, steps, dt).astype(dt.np)
    dev = _target(device)
    return _finish(place(arr, dev), dev, requires_grad, "linspace")


def _spaced(start, end, steps, dt):
    """PyTorch's linspace, bit for bit for float dtypes: the first half fma(step, i, start) up from
    `start`, the second fma(-step, steps-1-i, end) down from `end`, so both ends are exact (float16
    in its own arithmetic, without fma); one step is `start` alone."""
    from ._fma import fma32, fma64
    if not dt.is_floating_point:
        with np.errstate(all="ignore"):
            return np.linspace(_num(start), _num(end), steps, dtype=np.float64)
    ft = np.dtype(dt.np).type
    start, end = ft(_num(start)), ft(_num(end))
    if steps <= 1:
        return np.full(steps, start, dtype=ft)
    with np.errstate(all="ignore"):  # (inf and nan ends give inf and nan silently, as in PyTorch)
        step = (end - start) / ft(steps - 1)
        i, back = np.arange(steps, dtype=ft), ft(steps - 1) - np.arange(steps, dtype=ft)
        if ft is np.float16:
            up, down = start + step * i, end - step * back
        else:
            fma = fma64 if ft is np.float64 else fma32
            up, down = fma(step, i, start), fma(-step, back, end)
        return np.where(np.arange(steps) < steps // 2, up, down)


def logspace(start, end, steps, base=10.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False,
             pin_memory=False):
    """`steps` points from base**start to base**end, evenly spaced in the exponent."""
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    dt = _dt(dtype, op="logspace")
    if dt is _dtype.bool:
        raise NotImplementedError("\"logspace_cpu\" not implemented for 'Bool'")
    start, end = (_dtype.checked_scalar(_num(v), dt) for v in (start, end))  # (as in linspace)
    with np.errstate(all="ignore"):  # (inf and nan ends give inf and nan silently, as in PyTorch)
        exps = _spaced(start, end, steps, dt).astype(np.float64)
        arr = np.power(float(base), exps).astype(dt.np)
    dev = _target(device)
    return _written(out, _finish(place(arr, dev), dev, requires_grad, "logspace"), "logspace")


def eye(n, m=None, *, out=None, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False):
    dt = _dt(dtype, op="eye")
    dev = _target(device)
    return _written(out, _finish(place(np.eye(n, m if m is not None else n, dtype=dt.np), dev), dev, requires_grad,
                                 "eye"), "eye")


# ---- random ------------------------------------------------------------------------------
# Every draw is PyTorch's, bit for bit (see _random.py): a factory fills its new tensor in the
# order torch.empty(size).uniform_() / .normal_() / .random_() would.

def _check_device(dev, dt):
    if dev.type != "cpu":
        place(np.empty((0,), dt.np), dev)  # a missing device fails before anything is drawn


def _sampled(draw, size, dt, device, requires_grad, generator, op, order=None):
    """A new tensor of `size` holding draw(generator, numel), laid out in memory in `order`
    (outermost dim first; row-major when None) and filled in that order."""
    from ._random_fill import arrange
    dev = _target(device)
    _check_device(dev, dt)
    g = _rand.generator(generator, dev)
    n = 1
    for s in size:
        n *= s
    arr = arrange(draw(g, n), size, order or tuple(range(len(size))))
    if requires_grad and not dt.is_floating_point:  # PyTorch refuses only after drawing
        raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
    return _finish(place(arr, dev), dev, requires_grad, op)


def _float_dtype(dtype, kernel, op, shape=None):
    dt = _dt(dtype, op=op)
    if shape is not None and 0 in shape:
        return dt  # nothing is drawn: PyTorch never reaches the kernel that would refuse the dtype
    if not dt.is_floating_point:
        raise hinted(NotImplementedError, f"\"{kernel}\" not implemented for '{dt._short}'",
                     f"{op} draws floating-point values; use randint for integers")
    return dt


def _random_size(size, size_kw, op):
    if size_kw is not None:
        if size:
            raise TypeError(f"{op}() received an invalid combination of arguments - got sizes both as arguments "
                            "and as size=")
        size = (tuple(size_kw),) if isinstance(size_kw, (tuple, list, Size)) else (size_kw,)
    return _size(size, op)


def rand(*size, generator=None, out=None, dtype=None, layout=None, device=None, requires_grad=False,
         pin_memory=False, **kw):
    """Uniform on [0, 1): 24 random bits per float32 value, 53 per float64 (PyTorch's stream)."""
    shape = _random_size(size, kw.pop("size", None), "rand")
    _no_more(kw, "rand")
    dt = _float_dtype(dtype, "check_uniform_bounds", "rand")
    return _out(out, _sampled(lambda g, n: _rand.uniform(g, n, dt.np, 0.0, 1.0), shape, dt, device,
                              requires_grad, generator, "rand"))


def randn(*size, generator=None, out=None, dtype=None, layout=None, device=None, requires_grad=False,
          pin_memory=False, **kw):
    """Standard normal, by Box-Muller (PyTorch's stream)."""
    shape = _random_size(size, kw.pop("size", None), "randn")
    _no_more(kw, "randn")
    dt = _float_dtype(dtype, "normal_kernel_cpu", "randn", shape)
    return _out(out, _sampled(lambda g, n: _rand.normal(g, n, dt.np, 0.0, 1.0, True), shape, dt, device,
                              requires_grad, generator, "randn"))


def randint(low=0, high=None, size=None, *, generator=None, out=None, dtype=None, layout=None, device=None,
            requires_grad=False, pin_memory=False):
    """Integers in [low, high): randint(high, size) or randint(low, high, size)."""
    from ._random_fill import _random_range
    if size is None and isinstance(high, (tuple, list, Size)):
        low, high, size = 0, low, high
    if high is None:
        low, high = 0, low
    if size is None:
        raise TypeError("randint() missing required argument 'size' (e.g. randint(0, 10, (3,)))")
    shape = _size((tuple(size),) if isinstance(size, (tuple, list, Size)) else (size,), "randint")
    dt = _dt(dtype, _dtype.int64, "randint")
    low, span = _random_range(int(low), int(high), dt)
    return _out(out, _sampled(lambda g, n: _rand.integers(g, n, span, low, dt.np), shape, dt, device,
                              requires_grad, generator, "randint"))


_C_INT = {"uint8": "uint8_t", "int8": "int8_t", "int16": "int16_t", "int32": "int32_t", "int64": "int64_t"}


def randperm(n, *, generator=None, out=None, dtype=None, layout=None, device=None, requires_grad=False,
             pin_memory=False):
    """A random permutation of 0..n-1 (PyTorch's Fisher-Yates shuffle on its stream)."""
    n = int(n)
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    dt = _dt(dtype, _dtype.int64, "randperm")
    if dt.is_floating_point:
        digits = np.finfo(dt.np).nmant + 1
        if n > (1 << digits) + 1:
            raise RuntimeError(f"n cannot be greater than 2^{digits}+1 for {dt._short} type.")
    elif dt.name in _C_INT and n - 1 > np.iinfo(dt.np).max:
        raise RuntimeError(f"value cannot be converted to type {_C_INT[dt.name]} without overflow")
    return _out(out, _sampled(lambda g, k: _rand.permutation(g, k).astype(dt.np), (n,), dt, device,
                              requires_grad, generator, "randperm"))


def _like_order(t, memory_format=None):
    """The layout torch.empty_like(t) gives: t's own when t is dense and non-overlapping
    (a transposed tensor stays transposed), row-major otherwise; or the one memory_format names."""
    fmt = _mf.checked(memory_format, "empty_like")
    if fmt is not preserve_format:
        return _mf.order(fmt, t.ndim)
    shape, strides = t.shape, t.stride()
    big = sorted((d for d in range(len(shape)) if shape[d] > 1), key=lambda d: strides[d])
    expected = 1
    for d in big:
        if strides[d] != expected:
            return tuple(range(len(shape)))
        expected *= shape[d]
    from ._random_fill import memory_order
    return memory_order(shape, strides)


def _is_row_major(shape, order):
    big = [d for d in order if shape[d] > 1]
    return big == sorted(big)


def rand_like(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None,
              pin_memory=False, generator=None):
    d, dev = _like(input, dtype, device)
    dt = _float_dtype(d, "check_uniform_bounds", "rand_like")
    return _sampled(lambda g, n: _rand.uniform(g, n, dt.np, 0.0, 1.0), tuple(input.shape), dt, dev, requires_grad,
                    generator, "rand_like", _like_order(input, memory_format))


def randn_like(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None,
               pin_memory=False, generator=None):
    d, dev = _like(input, dtype, device)
    dt = _float_dtype(d, "normal_kernel_cpu", "randn_like", tuple(input.shape))
    order = _like_order(input, memory_format)
    contiguous = _is_row_major(input.shape, order)
    return _sampled(lambda g, n: _rand.normal(g, n, dt.np, 0.0, 1.0, contiguous), tuple(input.shape), dt, dev,
                    requires_grad, generator, "randn_like", order)


def randint_like(input, low=0, high=None, *, dtype=None, layout=None, device=None, requires_grad=False,
                 memory_format=None, pin_memory=False, generator=None):
    """randint_like(t, high) or randint_like(t, low, high): t's shape, dtype and layout."""
    from ._random_fill import _random_range
    if high is None:
        low, high = 0, low
    d, dev = _like(input, dtype, device)
    dt = _dtype.as_dtype(d, "randint_like")
    low, span = _random_range(int(low), int(high), dt)
    return _sampled(lambda g, n: _rand.integers(g, n, span, low, dt.np), tuple(input.shape), dt, dev, requires_grad,
                    generator, "randint_like", _like_order(input, memory_format))


def _out(out, result):
    """out=: the drawn values copied into the given tensor (which must have their shape)."""
    if out is None:
        return result
    if tuple(out.shape) != tuple(result.shape):
        raise RuntimeError(f"out= has shape {list(out.shape)} but the result has shape {list(result.shape)}")
    with _no_grad():
        return out.copy_(result)


def _no_more(kw, op):
    if kw:
        raise TypeError(f"{op}() got an unexpected keyword argument '{next(iter(kw))}'")


# normal(mean, std, ...) and bernoulli(p) depend on their tensor parameters, but not
# differentiably: PyTorch gives those parameters zero gradients, and so do these nodes.

def _zero_grad_node(name):
    from .autograd.function import Function

    class Sampled(Function):
        _node_name = name

        @staticmethod
        def forward(ctx, values, *params):
            ctx.metas = [(p.shape, p.dtype, p.device) if isinstance(p, _T()) else None for p in params]
            return values

        @staticmethod
        def backward(ctx, grad):
            return (None, *(None if m is None else zeros(m[0], dtype=m[1], device=m[2]) for m in ctx.metas))
    return Sampled


_NORMAL_NODES = {}


def _track(values, name, *params):
    """values, with a node giving `params` zero gradients when any of them requires grad."""
    from .autograd.grad_mode import is_grad_enabled
    if not (is_grad_enabled() and any(isinstance(p, _T()) and p.requires_grad for p in params)):
        return values
    if name not in _NORMAL_NODES:
        _NORMAL_NODES[name] = _zero_grad_node(name)
    return _NORMAL_NODES[name].apply(values, *params)


def normal(mean=0.0, std=1.0, size=None, *, generator=None, out=None, dtype=None, layout=None, device=None,
           pin_memory=False, requires_grad=False):
    """N(mean, std^2). normal(mean_tensor, std_tensor), normal(mean_tensor, std=1.0) and
    normal(mean, std_tensor) draw one value per element (broadcast); normal(mean, std, size)
    draws a new tensor of `size`."""
    from ._random_fill import _check_std
    T = _T()
    if isinstance(mean, T) or isinstance(std, T):
        if size is not None:
            raise TypeError("normal(): size= goes with float mean and std only; with tensor mean/std the shape "
                            "is theirs (broadcast)")
        given = [k for k, v in (("dtype", dtype), ("layout", layout), ("device", device)) if v is not None]
        given += [k for k, v in (("pin_memory", pin_memory), ("requires_grad", requires_grad)) if v]
        if given:  # (PyTorch's overloads on tensors take none of the factory keywords)
            raise TypeError(f"normal() got an unexpected keyword argument '{given[0]}' (with a tensor mean or "
                            "std, the result takes their dtype and device)")
        return _out(out, _normal_tensors(mean, std, generator))
    if size is None:
        raise TypeError("normal() received an invalid combination of arguments - got (float, float), but expected "
                        "one of: (Tensor mean, Tensor std), (Tensor mean, float std), (float mean, Tensor std), "
                        "(float mean, float std, tuple of ints size)")
    _check_std(std)
    shape = _size((tuple(size),) if isinstance(size, (tuple, list, Size)) else (size,), "normal")
    dt = _float_dtype(dtype, "normal_kernel_cpu", "normal")
    return _out(out, _sampled(lambda g, n: _rand.normal(g, n, dt.np, mean, std, True), shape, dt, device,
                              requires_grad, generator, "normal"))


def _normal_tensors(mean, std, generator):
    """PyTorch's three tensor overloads: draw N(0, 1) (or N(0, std) for a float std) into a
    new contiguous tensor of mean's dtype (std's when mean is a number), then scale and shift
    it in place."""
    T = _T()
    from ._random_fill import _check_std
    if isinstance(std, T):
        if std.numel() and not bool((std.detach().cpu().numpy() >= 0).all()):
            raise RuntimeError("normal expects all elements of std >= 0.0")
    else:
        _check_std(std)
    like = mean if isinstance(mean, T) else std
    dt = like.dtype
    if not dt.is_floating_point and like.numel():  # (nothing drawn: PyTorch's kernel is never reached)
        raise hinted(NotImplementedError, f"\"normal_kernel_cpu\" not implemented for '{dt._short}'",
                     "normal draws floating-point values: pass a float mean/std, e.g. mean.float()")
    shape = tuple(like.shape)
    if isinstance(mean, T) and isinstance(std, T):
        from ._ops.common import broadcast_shapes
        shape = tuple(broadcast_shapes(mean.shape, std.shape))
    scale = 1.0 if isinstance(std, T) else std
    g = _rand.generator(generator, like.device)
    n = 1
    for s in shape:
        n *= s
    v = _rand.normal(g, n, dt.np, 0.0, scale, True).reshape(shape)
    if isinstance(std, T):
        v = _into(v, np.multiply, std.detach().cpu().numpy())
    if isinstance(mean, T):
        v = _into(v, np.add, mean.detach().cpu().numpy())
    else:
        v = _into(v, np.add, np.asarray(mean, dt.np))
    kind = 3 if isinstance(mean, T) and isinstance(std, T) else (1 if isinstance(mean, T) else 2)
    values = _finish(place(np.asarray(v, order="C").reshape(shape), like.device), like.device, False,
                     "normal")  # (NumPy's 0-d arithmetic gives a scalar, ascontiguousarray a 1-D array)
    return _track(values, f"NormalBackward{kind}", mean, std)


def _into(v, ufunc, other):
    """v <op>= other as an in-place op computes it: in the promoted dtype, cast back to v's."""
    common = np.result_type(v.dtype, other.dtype)
    return ufunc(v.astype(common, copy=False), other.astype(common, copy=False)).astype(v.dtype, copy=False)


def bernoulli(input, p=None, *, generator=None, out=None):  # noqa: A002
    """0/1 draws: 1 with probability input[i] (or with probability p for every element)."""
    result = empty(tuple(input.shape), dtype=input.dtype, device=input.device)
    with _no_grad():
        result.bernoulli_(input if p is None else p, generator=generator)
    result._storage.version = 0  # a fresh result, not a written one (PyTorch's version)
    return _out(out, _track(result, "BernoulliBackward0" if p is None else "BernoulliBackward1", input))


def _no_grad():
    from .autograd.grad_mode import no_grad
    return no_grad()


def poisson(input, generator=None):  # noqa: A002
    """Poisson counts with rates `input` (PyTorch's sampler: products of uniforms below rate
    10, Hoermann's transformed rejection from 10 on)."""
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"\"poisson_cpu\" not implemented for '{input.dtype._short}'")
    rates = np.ascontiguousarray(input.detach().cpu().numpy()).astype(np.float64).ravel()
    if rates.size and not (rates >= 0).all():
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    g = _rand.generator(generator, input.device)
    arr = _rand.poisson(g, rates).astype(input.dtype.np).reshape(tuple(input.shape))
    return _track(_finish(place(arr, input.device), input.device, False, "poisson"), "PoissonBackward0", input)


def multinomial(input, num_samples, replacement=False, *, generator=None, out=None):  # noqa: A002
    """Indices drawn by the probabilities in the last dim (rows need not sum to 1).

    Without replacement (or for one sample) PyTorch draws q ~ Exp(1) per entry and takes
    the top `num_samples` of p / q; with replacement it inverts the cumulative distribution
    with one float64 uniform per sample."""
    p = input
    if p.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if not p.dtype.is_floating_point:
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: {p.dtype._short}")
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    k = p.shape[-1]
    if not replacement and num_samples > k:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    if k > 1 << 24:
        raise RuntimeError("number of categories cannot exceed 2^24")
    host = p.detach().cpu().numpy()
    shape = (num_samples,) if p.ndim == 1 else (p.shape[0], num_samples)
    g = _rand.generator(generator, p.device)
    if k == 0 and shape[0]:  # rows of no categories: the first check that reads them fails
        if not replacement or num_samples == 1:
            raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the operation has no "
                               "identity.")
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    rows = host.reshape(-1, k) if k else host.reshape(0, 0)
    if rows.size == 0:
        result = np.zeros(shape, np.int64)
    elif not replacement or num_samples == 1:
        result = _multinomial_top(g, p, host, num_samples).reshape(shape)
    else:
        result = np.stack([_multinomial_cdf(g, row, num_samples) for row in rows]).reshape(shape)
    return _out(out, _finish(place(result, p.device), p.device, False, "multinomial"))


def _multinomial_top(g, p, host, num_samples):
    from ._random_fill import arrange
    if not (np.isfinite(host).all() and (host >= 0).all()):
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    k = host.shape[-1]
    if (host.reshape(-1, k).sum(axis=1) == 0).any():
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    order = _like_order(p)
    q = arrange(_rand.exponential(g, host.size, 1.0).astype(host.dtype), host.shape, order)
    ratio = (host / q).reshape(-1, k)
    if num_samples == 1:
        return ratio.argmax(axis=1)
    # sorted descending; among equal ratios the lower index first
    return np.ascontiguousarray(np.argsort(-ratio, axis=1, kind="stable")[:, :num_samples])


def _multinomial_cdf(g, row, num_samples):
    acc = np.float32 if row.dtype == np.float16 else row.dtype
    for v in row:
        if not v >= 0:
            raise RuntimeError("invalid multinomial distribution (encountering probability entry < 0)")
        if not np.isfinite(v):
            raise RuntimeError("invalid multinomial distribution (encountering probability entry = infinity or NaN)")
    cum = np.cumsum(row.astype(acc))
    total = cum[-1]
    if not total > 0:
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    cum = cum / total
    cum[-1] = 1
    return np.searchsorted(cum.astype(np.float64), _rand.unit64(g, num_samples), side="left")
