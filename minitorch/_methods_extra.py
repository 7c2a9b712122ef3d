"""Tensor methods for the wider API (ordering, scatter and index writes, more math, more
shape ops, fused products), attached to the class as `_methods.py` attaches the core ones.
Each op itself lives, forward beside backward, in one of `_ops/special.py`, `sorting.py`,
`scatter.py`, `shape_ops.py`, `blas.py`, `stats.py`, `einsum.py`."""
from __future__ import annotations

import numpy as np

from . import _dtype
from ._factories import check_in_range
from ._ops import blas, more, scatter as sc, shape_ops as so, sorting, special as sp, stats
from ._ops import inplace, pointwise as pw
from ._ops._prim import Primitive
from ._ops.inplace_prim import write_inplace
from ._tensor import Tensor


def _method(name, fn):
    setattr(Tensor, name, fn)


# ---- math --------------------------------------------------------------------------------

for _name in ["tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh", "arcsin", "arccos", "arctan",
              "arcsinh", "arccosh", "arctanh", "log2", "log10", "exp2", "sinc", "erf", "erfc", "erfinv", "lgamma",
              "digamma", "deg2rad", "rad2deg", "frac", "fix", "sgn", "logit", "nan_to_num", "atan2", "arctan2", "lerp",
              "float_power", "addcmul", "addcdiv", "i0"]:
    _method(_name, getattr(sp, _name))
Tensor.polygamma = lambda self, n: sp.polygamma(n, self)
# real tensors only: conjugation is the identity, and PyTorch returns the tensor itself
Tensor.conj = Tensor.conj_physical = Tensor.conj_physical_ = Tensor.resolve_conj = Tensor.resolve_neg = \
    lambda self: self
Tensor.is_conj = Tensor.is_neg = lambda self: False
for _name, _fn in sp.INPLACE.items():
    _method(_name, _fn)



def _default(name, fn):
    """Attach an in-place form of a core op unless the core defines its own (which then wins)."""
    if not hasattr(Tensor, name):
        setattr(Tensor, name, fn)


for _name, _fn in {"expm1_": pw.expm1, "log1p_": pw.log1p, "rsqrt_": pw.rsqrt, "reciprocal_": pw.reciprocal}.items():
    _default(_name, sp.inplace_from(_fn, _name))  # ops made of other ops: computed out of place, copied in
_SIGN_ = sp._inplace_prim(pw.Sign, "sign_", floating=False)
_SGN_ = sp._inplace_prim(sp.Sgn, "sgn_", floating=False)
_SQUARE_ = sp.inplace_from(pw.square, "square_")
_TRUNC_ = sp._inplace_prim(pw.Trunc, "trunc_", floating=False)


def _refuse_bool(self, error):
    if self.dtype is _dtype.bool:
        raise error


def sign_(self):
    return _SIGN_(self) if self.dtype is not _dtype.bool else _touched(self)  # a bool is its own sign


def sgn_(self):
    return _SGN_(self) if self.dtype is not _dtype.bool else self


def square_(self):
    _refuse_bool(self, RuntimeError("result type Long can't be cast to the desired output type Bool"))
    return _SQUARE_(self)


def absolute_(self):
    _refuse_bool(self, NotImplementedError("\"abs_cpu\" not implemented for 'Bool'"))
    return self.abs_()


def negative_(self):
    _refuse_bool(self, RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If you are trying "
                                    "to invert a mask, use the `~` or `logical_not()` operator instead."))
    return self.neg_()


def trunc_(self):
    if self.dtype.is_floating_point:
        return _TRUNC_(self)
    inplace.check_inplace(self, "trunc_")
    inplace.iter_checks(self, "trunc_")  # (an expanded tensor is refused, as by every in-place write, first)
    _refuse_bool(self, NotImplementedError("\"trunc_vml_cpu\" not implemented for 'Bool'"))
    return _touched(self)  # integers are already whole


def _touched(self):
    """An in-place op that leaves the values as they are still counts as a write (PyTorch's version)."""
    self._storage.version += 1
    return self


def logical_not_(self):
    """Writes 1/0 (True/False) in the tensor's own dtype."""
    return inplace.write_unrecorded(self, pw.logical_not(self), "logical_not_")


def bitwise_not_(self):
    inplace.check_inplace(self, "bitwise_not_")  # (PyTorch refuses a leaf that requires grad first)
    return self.copy_(pw.bitwise_not(self))


for _f in [trunc_, logical_not_, bitwise_not_, sign_, sgn_, square_, absolute_, negative_]:
    _default(_f.__name__, _f)
_default("fix_", trunc_)


class ClampMin(pw.Clamp):
    _node_name = "ClampMinBackward0"


class ClampMax(pw.Clamp):
    _node_name = "ClampMaxBackward0"


def clamp_min_(self, min):  # noqa: A002
    if isinstance(min, Tensor):
        return self.clamp_(min=min)
    pw._no_bool_clamp(self, min, None, in_place=True)
    if _clamp_dtype(self, min) is self.dtype:
        (min,) = pw.checked_bounds(self.dtype, min)  # (300 does not fit uint8)
    return write_inplace(self, ClampMin, (), {"min": min, "max": None}, "clamp_min_", (_clamp_dtype(self, min),
                                                                                      self.shape, True))


def clamp_max_(self, max):  # noqa: A002
    if isinstance(max, Tensor):
        return self.clamp_(max=max)
    pw._no_bool_clamp(self, None, max, in_place=True)
    if _clamp_dtype(self, max) is self.dtype:
        (max,) = pw.checked_bounds(self.dtype, max)
    return write_inplace(self, ClampMax, (), {"min": None, "max": max}, "clamp_max_", (_clamp_dtype(self, max),
                                                                                      self.shape, True))


def _clamp_dtype(self, bound):
    return _dtype.get_default_dtype() if isinstance(bound, float) and not self.dtype.is_floating_point else self.dtype


_default("clamp_min_", clamp_min_)
_default("clamp_max_", clamp_max_)


def allclose(self, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    import minitorch
    return minitorch.allclose(self, other, rtol=rtol, atol=atol, equal_nan=equal_nan)


def isclose(self, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    import minitorch
    return minitorch.isclose(self, other, rtol=rtol, atol=atol, equal_nan=equal_nan)


def _element(self, value):
    """The callable's Python result as an element of self's dtype, converted as PyTorch does
    (checked: 200 does not fit int8; a float is truncated, -1 wraps into uint8)."""
    if value.__class__ is int and not -2 ** 63 <= value < 2 ** 63:
        raise ValueError("Overflow when unpacking long long")
    arr = np.asarray(value)
    check_in_range(arr, self.dtype)
    with np.errstate(over="ignore"):  # (1e10 into float16 is inf, silently)
        return arr.astype(self._data.dtype)


def _legacy_name(dt):
    return "CPUBoolType" if dt is _dtype.bool else f"torch.{dt._short}Tensor"


def apply_(self, callable):  # noqa: A002
    """Replace each element x by callable(x), in place (a Python loop: CPU tensors only, as in PyTorch)."""
    if self._device.type != "cpu":
        raise TypeError("apply_ is only implemented on CPU tensors")
    if self.requires_grad:
        raise RuntimeError("Can't call apply_() on Variable that requires grad. Use var.detach().apply_() instead.")
    # one element at a time, as PyTorch's loop: a call sees the writes before it (an expanded tensor's
    # elements share memory), and a result that does not convert stops the loop where it is
    for i in np.ndindex(self.shape):
        self._data[i] = _element(self, callable(self._data[i].item()))
    return self  # (PyTorch's apply_ and map_ leave the version counter alone)


def map_(self, tensor, callable):  # noqa: A002
    """self[i] = callable(self[i], tensor[i]) for every element, tensor broadcast to self's shape."""
    if self._device.type != "cpu":
        raise TypeError("map_ is only implemented on CPU tensors")
    if self.requires_grad or tensor.requires_grad:
        raise RuntimeError("Can't call map_() on Variable that requires grad. Use var.detach().map_() instead.")
    if tensor.dtype is not self.dtype:
        raise TypeError(f"map_: expected {_legacy_name(self.dtype)} for 'other' (got {_legacy_name(tensor.dtype)})")
    other = tensor.expand(self.shape)._data
    for i in np.ndindex(self.shape):  # (one element at a time, as apply_)
        self._data[i] = _element(self, callable(self._data[i].item(), other[i].item()))
    return self


for _f in [allclose, isclose, apply_, map_]:
    _method(_f.__name__, _f)

# ---- shapes ------------------------------------------------------------------------------

for _name in ["roll", "tril", "triu", "diagonal", "diag", "diag_embed", "trace", "unfold", "broadcast_to", "ravel",
              "repeat_interleave", "diff", "unsqueeze_", "squeeze_", "transpose_", "resize_", "as_strided_"]:
    _method(_name, getattr(so, _name))
Tensor.swapdims_ = so.transpose_


def swapaxes_(self, axis0, axis1):  # (NumPy's names, as PyTorch's)
    return so.transpose_(self, axis0, axis1)


Tensor.swapaxes_ = swapaxes_
Tensor.resize_as_ = lambda self, the_template, memory_format=None: so.resize_(self, the_template.shape)
Tensor.argwhere = lambda self: self.nonzero()


def _tri_(cls, op):
    run = sp._inplace_prim(cls, op, floating=False)

    def method(self, diagonal=0):
        if self.ndim < 2:
            raise RuntimeError(f"{op[:-1]}: input tensor must have at least 2 dimensions")
        return run(self, k=int(diagonal))
    method.__name__ = method.__qualname__ = op
    return method


Tensor.tril_ = _tri_(so.Tril, "tril_")
Tensor.triu_ = _tri_(so.Triu, "triu_")

# ---- ordering ----------------------------------------------------------------------------

for _name in ["sort", "argsort", "msort", "topk", "kthvalue", "median", "nanmedian", "mode", "unique",
              "unique_consecutive", "bincount", "histc", "histogram"]:
    _method(_name, getattr(sorting, _name))

# ---- index writes ----------------------------------------------------------------------

for _name in ["scatter", "scatter_", "scatter_add", "scatter_add_", "scatter_reduce", "scatter_reduce_", "index_add",
              "index_add_", "index_fill", "index_fill_", "index_copy", "index_copy_", "index_put", "index_put_",
              "masked_select", "masked_scatter", "masked_scatter_", "take", "put", "put_", "take_along_dim"]:
    _method(_name, getattr(sc, _name))

# ---- products and statistics ---------------------------------------------------------------

for _name in ["addmm", "addmv", "addr", "baddbmm", "addbmm"]:
    _method(_name, getattr(blas, _name))
    _method(_name + "_", getattr(blas, _name + "_"))
Tensor.dist = stats.dist
Tensor.count_nonzero = stats.count_nonzero


def _linalg(name):
    def method(self, *args, **kwargs):
        # (imported late: minitorch.linalg loads after the Tensor methods)
        from . import _linalg_legacy, linalg
        return getattr(linalg if name in ("det", "inv") else _linalg_legacy, name)(self, *args, **kwargs)
    method.__name__ = method.__qualname__ = name
    return method


Tensor.det, Tensor.inverse = _linalg("det"), _linalg("inv")
for _name in ("svd", "qr", "cholesky", "pinverse", "slogdet", "logdet", "matrix_power"):
    setattr(Tensor, _name, _linalg(_name))

for _name in ["aminmax", "copysign", "cross", "cummax", "cummin", "fliplr", "flipud", "fmax", "fmin", "heaviside",
              "hypot", "inner", "kron", "logcumsumexp", "nanmean", "nansum", "positive", "rot90", "signbit",
              "tensor_split", "hsplit", "vsplit", "dsplit", "vdot", "xlogy"]:
    _method(_name, getattr(more, _name))
for _name in ["hypot", "xlogy", "copysign", "heaviside"]:
    _method(_name + "_", sp.inplace_from(getattr(more, _name), _name + "_",
                                         tensor_arg={"hypot": "other", "heaviside": "values"}.get(_name)))


class _Compared(Primitive):
    """The record of `t.lt_(other)`: PyTorch's LtBackward0 (a number) / LtBackward1 (a tensor),
    a zero gradient for every input; the result, 1 and 0 in t's dtype, requires grad when an
    input does, as there (even an integer or bool t)."""
    reads_input_in_backward = False
    records_any_dtype = True

    @staticmethod
    def forward(ctx, a, *other, values):
        return values.astype(a._data.dtype)

    @staticmethod
    def backward(ctx, grad):
        return (pw.zeros_like_grad(grad),) * len(ctx.needs_input_grad)


def _compare_(fn, name, op):
    nodes = [type(f"_{name}Compared{i}", (_Compared,), {"_node_name": f"{name}Backward{i}", "__module__": __name__})
             for i in (0, 1)]

    def method(self, other):
        inplace.check_inplace(self, op)  # (autograd's check first, as in PyTorch)
        inplace.iter_checks(self, op, other)
        r = fn(self, other)  # bool, written back in self's dtype (1 and 0)
        inplace.check_result(self, self.dtype, r.shape, op)
        others = (other,) if isinstance(other, Tensor) else ()

        def fast():
            self._data[...] = r._data
        return inplace.run_inplace(self, nodes[len(others)], others, {"values": r._data}, fast, op)
    method.__name__ = method.__qualname__ = op
    return method


for _name, _fn, _node in [("lt", pw.lt, "Lt"), ("le", pw.le, "Le"), ("gt", pw.gt, "Gt"), ("ge", pw.ge, "Ge"),
                          ("eq", pw.eq, "Eq"), ("ne", pw.ne, "Ne"), ("less", pw.lt, "Lt"),
                          ("less_equal", pw.le, "Le"), ("greater", pw.gt, "Gt"), ("greater_equal", pw.ge, "Ge"),
                          ("not_equal", pw.ne, "Ne")]:
    _method(_name + "_", _compare_(_fn, _node, _name + "_"))



# ---- torch.xxx_(t, ...): the functional spellings of in-place methods ---------------------

_TORCH_INPLACE = [
    "abs_", "absolute_", "acos_", "acosh_", "arccos_", "arccosh_", "arcsin_", "arcsinh_", "arctan_", "arctanh_",
    "asin_", "asinh_", "atan_", "atanh_", "ceil_", "clamp_", "clamp_max_", "clamp_min_", "clip_", "cos_", "cosh_",
    "deg2rad_", "erf_", "erfc_", "exp2_", "exp_", "expm1_", "fill_", "fix_", "floor_", "frac_", "log10_",
    "log1p_", "log2_", "log_", "logit_", "nan_to_num_", "neg_", "negative_", "rad2deg_", "reciprocal_", "relu_",
    "round_", "rsqrt_", "sigmoid_", "sin_", "sinc_", "sinh_", "sqrt_", "square_", "tan_", "tanh_", "trunc_",
    "zero_", "detach_", "index_put_", "resize_as_", "addmv_", "i0_", "conj_physical_", "gcd_", "lcm_", "ldexp_",
]


def _functional(name):
    def f(input, *args, **kwargs):  # noqa: A002
        return getattr(input, name)(*args, **kwargs)
    f.__name__ = f.__qualname__ = name
    return f


def torch_inplace_functions():
    """{name: function} for the module namespace: torch.sin_(t) is t.sin_()."""
    return {n: _functional(n) for n in _TORCH_INPLACE if hasattr(Tensor, n)}


# the special functions, linalg and scatter-view ops as methods (t.igamma(x), t.index_reduce_(...), ...)
from ._ops import scatter_views as _sv, special_more as _sm  # noqa: E402
from . import _linalg_legacy as _lg, linalg as _la  # noqa: E402
for _name, _fn in {"igamma": _sm.igamma, "igammac": _sm.igammac, "mvlgamma": _sm.mvlgamma, "renorm": _lg.renorm,
                   "matrix_exp": _la.matrix_exp, "triangular_solve": _lg.triangular_solve, "lu": _lg.lu,
                   "lu_solve": _lg.lu_solve, "cholesky_solve": _lg.cholesky_solve,
                   "cholesky_inverse": _lg.cholesky_inverse, "select_scatter": _sv.select_scatter,
                   "slice_scatter": _sv.slice_scatter, "diagonal_scatter": _sv.diagonal_scatter,
                   "as_strided_scatter": _sv.as_strided_scatter, "index_reduce": _sv.index_reduce,
                   **_sm.INPLACE, **_lg.INPLACE, **_sv.INPLACE}.items():
    _method(_name, _fn)
