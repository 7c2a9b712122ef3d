"""Shared checks of op arguments: device agreement, result dtype, broadcast shapes, dims."""
from __future__ import annotations

from .. import _dtype
from .._dtype import _PROMOTE, combine, scalar_dtype


_TENSOR = None


def tensor_cls():
    # cached: ops call this several times each, and a function-level import costs ~1 us a call
    global _TENSOR
    if _TENSOR is None:
        from .._tensor import Tensor
        _TENSOR = Tensor
    return _TENSOR


def same_device(op, *tensors):
    """PyTorch's rule: all tensors on one device, except that a 0-d CPU tensor may join any."""
    dev = None
    for t in tensors:
        d = t._device
        if dev is None or dev == d:
            dev = d
            continue
        if d.type == "cpu" and t.ndim == 0:
            continue
        if dev.type == "cpu" and _first_is_scalar(tensors, dev):
            dev = d
            continue
        raise RuntimeError(
            f"Expected all tensors to be on the same device, but found at least two devices, {_order(dev, d)}! "
            f"(in {op}: move them to one device first, e.g. `b = b.to(a.device)`)")
    return dev


def _first_is_scalar(tensors, dev):
    return all(t.ndim == 0 for t in tensors if t._device == dev)


def _order(a, b):
    # PyTorch names the accelerator first
    return f"{b} and {a}" if a.type == "cpu" else f"{a} and {b}"


def result_dtype(*args):
    """The dtype of an op on tensors and Python scalars, by PyTorch's three-tier rule."""
    T = tensor_cls()
    dim_dt = zero_dt = wrap_dt = None
    for x in args:
        if isinstance(x, T):
            d = x.dtype
            if x._data.ndim:
                dim_dt = d if dim_dt is None else _PROMOTE[dim_dt, d]
            else:
                zero_dt = d if zero_dt is None else _PROMOTE[zero_dt, d]
        else:
            d = scalar_dtype(x)
            wrap_dt = d if wrap_dt is None else _PROMOTE[wrap_dt, d]
    return combine(dim_dt, combine(zero_dt, wrap_dt))


def to_device_of(t, dev):
    """A 0-d CPU tensor joining a GPU op is moved there (PyTorch does this implicitly)."""
    return t if t._device == dev else t.to(dev)


def broadcast_shapes(*shapes, op="broadcast_shapes"):
    """The shape all `shapes` broadcast to: align them from the right; each pair of sizes
    must be equal, or one of them 1. Shapes are folded in pairwise, so an error names the
    two that disagree, at the rightmost dim where they do (as PyTorch does)."""
    out = ()
    for s in shapes:
        out = _broadcast_pair(out, tuple(s), op)
    from .._size import Size
    return Size(out)


def _broadcast_pair(a, b, op):
    ndim = max(len(a), len(b))
    a1 = (1,) * (ndim - len(a)) + a
    b1 = (1,) * (ndim - len(b)) + b
    for i in range(ndim - 1, -1, -1):
        if a1[i] != b1[i] and a1[i] != 1 and b1[i] != 1:
            raise RuntimeError(
                f"The size of tensor a ({a1[i]}) must match the size of tensor b ({b1[i]}) at non-singleton "
                f"dimension {i}. {op} could not broadcast shapes {_fmt(a)} and {_fmt(b)}: sizes must be equal "
                "or one of them 1 (align shapes from the right; add a dimension with unsqueeze() or "
                "None-indexing).")
    return tuple(x if x != 1 else y for x, y in zip(a1, b1))


def _fmt(shape):
    return f"[{', '.join(str(n) for n in shape)}]"


def wrap_dim(dim, ndim, op=""):
    """A dim in [-ndim, ndim) made non-negative, or PyTorch's IndexError."""
    n = max(ndim, 1)  # a 0-d tensor accepts dim 0 and -1
    if not -n <= dim < n:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})"
            + (f" in {op}" if op else ""))
    return dim % n


def wrap_dims(dim, ndim, op=""):
    if dim is None:
        return tuple(range(ndim))
    if isinstance(dim, (list, tuple)):
        dims = tuple(wrap_dim(d, ndim, op) for d in dim)
        if len(set(dims)) != len(dims):
            raise RuntimeError(f"dim {dims[0]} appears multiple times in the list of dims")
        return dims if ndim else ()
    return (wrap_dim(dim, ndim, op),) if ndim else ()


def check_float_for_grad(dt, op):
    if not dt.is_floating_point:
        raise RuntimeError(f"{op}: only Tensors of floating point dtype can require gradients, got {dt}")


default_float = _dtype.get_default_dtype
