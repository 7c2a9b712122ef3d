"""Tensor methods beginner PyTorch code reaches for that are other names or small compositions:
conjugate transposes (mH, H, adjoint: the transpose, minitorch having no complex dtypes), the
yes/no questions (is_cpu, is_signed, is_nonzero, is_same_size, equal, ...), in-place aliases
(multiply_, divide_, subtract_, true_divide_), fill_diagonal_, cumsum_ / cumprod_, sum_to_size,
the legacy `new`, and the functions of _ops/numerics.py as methods."""
from __future__ import annotations

from . import _dtype
from ._ops import numerics, views
from ._functions_compat import nonzero_static
from ._ops.special import inplace_from
from ._tensor import Tensor

def _mH(self):  # noqa: N802 (PyTorch's name)
    if self.ndim == 0:
        import warnings
        warnings.warn("Tensor.mH is deprecated on 0-D tensors. Consider using x.conj().", UserWarning, stacklevel=2)
        return self.view(())
    if self.ndim < 2:
        raise RuntimeError(f"tensor.mH is only supported on matrices or batches of matrices. Got {self.ndim}-D "
                           "tensor.")
    return self.mT


def _H(self):  # noqa: N802
    if self.ndim != 2:
        raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got {self.ndim}-D tensor.")
    return self.T


Tensor.mH, Tensor.H = property(_mH), property(_H)
Tensor.adjoint = lambda self: self.mT
Tensor.is_cpu = property(lambda self: self.device.type == "cpu")
Tensor.is_complex = lambda self: False
Tensor.real = property(lambda self: self)


def _imag(self):
    raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")


Tensor.imag = property(_imag)
Tensor.is_signed = lambda self: self.dtype not in (_dtype.uint8, _dtype.bool)
Tensor.is_same_size = lambda self, other: self.shape == other.shape
Tensor.is_shared = lambda self: False
Tensor.share_memory_ = lambda self: self  # (one process: nothing to share)
Tensor.is_pinned = lambda self, device=None: False
Tensor.output_nr = property(lambda self: self._output_nr)
Tensor.narrow_copy = views.narrow_copy
Tensor.nonzero_static = nonzero_static


def equal(self, other):
    from . import equal as _equal
    return _equal(self, other)


def is_nonzero(self):
    n = self.numel()
    if n != 1:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous" if n == 0 else
                           "Boolean value of Tensor with more than one value is ambiguous")
    return bool(self.item())


def pin_memory(self, device=None):
    from . import cuda
    if not cuda.is_available():
        raise RuntimeError("Cannot access accelerator device when none is available.")
    return self  # (CuPy copies from ordinary host memory)


def fill_diagonal_(self, fill_value, wrap=False):
    """Write fill_value on the main diagonal ([i, i, ...]); for a tall matrix with wrap=True, the
    diagonal starts again every cols + 1 rows, as NumPy's fill_diagonal."""
    if self.ndim < 2:
        raise RuntimeError("dimensions must larger than 1")
    if self.ndim > 2 and len(set(self.shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    # the diagonal as one strided view (step: the sum of the strides), written in place
    self.as_strided((min(self.shape),), (sum(self.stride()),), self.storage_offset()).fill_(fill_value)
    rows, cols = self.shape[0], self.shape[-1]
    if wrap and self.ndim == 2 and rows > cols + 1:
        # the rest, from row cols + 1 on: in row-major memory the same step carries on row after row
        if not self.is_contiguous():
            raise RuntimeError("fill_diagonal_(wrap=True) needs a contiguous tensor in minitorch: call "
                               ".contiguous() first")
        left = -(-rows * cols // (cols + 1)) - cols
        self.as_strided((left,), (cols + 1,), self.storage_offset() + (cols + 1) * cols).fill_(fill_value)
    return self


def sum_to_size(self, *size, **kw):
    """The tensor summed down to `size`, which it must broadcast from (the reverse of expand)."""
    if kw:  # sum_to_size(size=(2, 3)), as PyTorch names it
        from ._factories import sizes_by_keyword
        size = sizes_by_keyword(size, kw, "sum_to_size")
    size = tuple(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list)) else tuple(size)
    lead = self.ndim - len(size)
    if lead < 0 or any(s not in (1, n) for s, n in zip(size, self.shape[lead:])):
        raise RuntimeError(f"size {{{list(size)}}} is not expandable to size {{{list(self.shape)}}}.")
    out = self.sum(tuple(range(lead))) if lead else self
    dims = tuple(i for i, (s, n) in enumerate(zip(size, out.shape)) if s == 1 and n != 1)
    return out.sum(dims, keepdim=True) if dims else out


def new(self, *args, **kwargs):
    """The legacy constructor: x.new(2, 3) or x.new(torch.Size([2, 3])) is uninitialised memory
    (here zeros) of x's dtype and device, x.new([1, 2]) or x.new((1, 2)) a tensor of those values,
    x.new() an empty one."""
    from ._factories import tensor, zeros
    kw = dict(dtype=self.dtype, device=self.device)
    if len(args) == 1 and isinstance(args[0], Tensor):
        if args[0].dtype is not self.dtype:
            raise TypeError(f"expected {self.dtype} (got {args[0].dtype})")
        return args[0]
    from ._tensor import Size
    if len(args) == 1 and isinstance(args[0], (list, tuple)) and not isinstance(args[0], Size):
        return tensor(args[0], **kw)  # (a list or tuple is data; a Size, a shape)
    shape = tuple(args[0]) if len(args) == 1 and isinstance(args[0], Size) else args
    return zeros(*shape, **kw) if shape else zeros(0, **kw)


Tensor.equal, Tensor.is_nonzero, Tensor.pin_memory = equal, is_nonzero, pin_memory
Tensor.fill_diagonal_, Tensor.sum_to_size, Tensor.new = fill_diagonal_, sum_to_size, new
Tensor.multiply_ = lambda self, other: self.mul_(other)
Tensor.subtract_ = lambda self, other, *, alpha=1: self.sub_(other, alpha=alpha)
Tensor.divide_ = lambda self, other, *, rounding_mode=None: (self.div_(other) if rounding_mode is None else
                                                              self.div_(other, rounding_mode=rounding_mode))
Tensor.true_divide_ = lambda self, other: self.div_(other)
Tensor.cumsum_ = inplace_from(lambda self, dim, *, dtype=None: self.cumsum(dim, dtype=dtype), "cumsum_")
Tensor.cumprod_ = inplace_from(lambda self, dim, *, dtype=None: self.cumprod(dim, dtype=dtype), "cumprod_")
for _name in ("logaddexp", "logaddexp2", "gcd", "lcm", "ldexp", "nextafter", "isposinf", "isneginf", "isreal", "quantile",
              "nanquantile", "diagflat"):
    setattr(Tensor, _name, getattr(numerics, _name))
Tensor.ldexp_ = inplace_from(numerics.ldexp, "ldexp_", reads_others=False)  # (PyTorch: self.mul_(2 ** other))
Tensor.nextafter_ = inplace_from(numerics.nextafter, "nextafter_")
Tensor.cov = lambda self, *, correction=1, fweights=None, aweights=None: numerics.cov(
    self, correction=correction, fweights=fweights, aweights=aweights)
Tensor.corrcoef = numerics.corrcoef
def _integer_(fn, op):
    """gcd_ / lcm_: a tensor argument only, and a result self's dtype can hold (PyTorch's first checks)."""
    method = inplace_from(fn, op)

    def checked(self, other):
        from ._methods import _tensor_other
        from ._ops import common, inplace
        _tensor_other(other, op)
        inplace.check_result(self, common.result_dtype(self, other), self.shape, op)
        return method(self, other)
    checked.__name__ = checked.__qualname__ = op
    return checked


Tensor.gcd_ = _integer_(numerics.gcd, "gcd_")
Tensor.lcm_ = _integer_(numerics.lcm, "lcm_")


def dim_order(self, *, ambiguity_check=False):
    """The dims from outermost to innermost in memory: (0, 2, 3, 1) for a channels-last image batch.
    Size-1 dims and equal strides allow several orders; ambiguity_check=True refuses those, and a
    list of memory formats accepts them when exactly one of the formats fits."""
    from ._memory_format import memory_format
    if not isinstance(ambiguity_check, bool) and not (
            isinstance(ambiguity_check, list) and all(isinstance(f, memory_format) for f in ambiguity_check)):
        raise TypeError("The ambiguity_check argument must be a bool or a list of memory formats.")
    shape, strides = tuple(self.shape), self.stride()
    formats = ambiguity_check if isinstance(ambiguity_check, list) else []
    several = any(a == b for a, b in zip(strides, strides[1:])) or 1 in shape
    if (ambiguity_check is not False and several
            and sum(self.is_contiguous(memory_format=f) for f in formats) != 1):
        raise RuntimeError("The tensor does not have unique dim order, or cannot map to exact one of the given memory "
                           "formats.")
    order, ambiguous = _physical_order(self, shape, strides)
    if ambiguity_check and ambiguous:
        raise RuntimeError("The tensor does not have unique dim order.")
    return tuple(order)


def _physical_order(t, shape, strides):
    """PyTorch's order of dims for an elementwise result like t, outermost first, and whether any
    two neighbours in it could be swapped: dims sorted by stride (0-strides and ties by size)."""
    from ._memory_format import channels_last
    n = len(shape)
    if n <= 1:
        return list(range(n)), False
    dense, nhwc = t.is_contiguous(), t.is_contiguous(memory_format=channels_last)
    if dense != nhwc:
        return (list(range(n)) if dense else [0, *range(2, n), 1]), False

    def ge(x, y):
        return y == 0 or x != 0 and (x >= y or x % y == 0)

    def should_swap(a, b):  # 1: b lies outside a; -1: inside; 0: either
        sa, sb = strides[a], strides[b]
        if sa == 0 or sb == 0:
            return 0
        if sa == sb:
            return 0 if ge(shape[b], shape[a]) else 1
        return -1 if ge(sb, sa) else 1 if ge(sa, sb) else 0

    perm = list(reversed(range(n)))  # innermost first, sorted by insertion
    for i in range(1, n):
        j = i
        for k in reversed(range(i)):
            c = should_swap(perm[k], perm[j])
            if c > 0:
                perm[k], perm[j] = perm[j], perm[k]
                j = k
            elif c < 0:
                break
    ambiguous = any(should_swap(perm[i], perm[i + 1]) != -1 for i in range(n - 1))
    return list(reversed(perm)), ambiguous


Tensor.dim_order = dim_order


class layout:
    """How a tensor's elements are stored: every minitorch tensor is `strided` (dense, with
    strides); PyTorch's other layouts (sparse_coo, sparse_csr, ...) are not part of minitorch."""

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"minitorch.{self.name}"

    def __reduce__(self):
        return self.name  # (unpickled as the module's own object)


layout.__module__ = "minitorch"
strided = layout("strided")
Tensor.layout = property(lambda self: strided)
Tensor.is_sparse = Tensor.is_sparse_csr = Tensor.is_quantized = Tensor.is_meta = Tensor.is_mkldnn = \
    Tensor.is_nested = property(lambda self: False)
Tensor.to_dense = lambda self, dtype=None, *, masked_grad=None: self if dtype is None else self.to(dtype)


def _no_sparse(name):
    def to_sparse(self, *args, **kwargs):
        raise NotImplementedError(f"Tensor.{name}(): minitorch has no sparse tensors (every tensor is dense)")
    to_sparse.__name__ = to_sparse.__qualname__ = name
    return to_sparse


for _name in ("to_sparse", "to_sparse_coo", "to_sparse_csr", "to_sparse_csc", "to_sparse_bsr", "to_sparse_bsc"):
    setattr(Tensor, _name, _no_sparse(_name))


def _without_out(fn, name):
    """fn as a method: PyTorch's methods take no out= (where the function of the same name does)."""
    def method(self, *args, **kwargs):
        if "out" in kwargs:
            raise TypeError(f"{name}() got an unexpected keyword argument 'out'")
        return fn(self, *args, **kwargs)
    method.__name__ = method.__qualname__ = name
    method.__wrapped__ = fn  # (its signature is fn's)
    return method


for _name in ("cholesky_inverse", "cholesky_solve", "geqrf", "igamma", "igammac", "inner", "lu", "lu_solve",
              "mvlgamma", "quantile", "nanquantile", "narrow_copy", "renorm", "triangular_solve"):
    setattr(Tensor, _name, _without_out(getattr(Tensor, _name), _name))
