"""Tensor methods and operators, attached to the class here so that `_tensor.py` stays about
what a tensor *is*, and each op lives with its forward and backward in `_ops/`."""
from __future__ import annotations

import operator

from . import _dtype
from ._ops import convert, index, inplace, join, linalg, pointwise as pw, reduce as rd, views
from ._ops.common import broadcast_shapes, result_dtype, same_device, tensor_cls, to_device_of
from ._tensor import Tensor
from .autograd.grad_mode import STATE


def _method(name, fn):
    setattr(Tensor, name, fn)


# ---- operators ----------------------------------------------------------------------------

def _swap(f):
    return lambda self, other: f(other, self)


for _name, _fn in {
    "add": pw.add, "sub": pw.sub, "mul": pw.mul, "div": pw.div, "true_divide": pw.div,
    "pow": pw.pow, "maximum": pw.maximum, "minimum": pw.minimum, "floor_divide": pw.floor_divide,
    "remainder": pw.remainder, "fmod": pw.fmod,
    "eq": pw.eq, "ne": pw.ne, "lt": pw.lt, "le": pw.le, "gt": pw.gt, "ge": pw.ge,
    "greater": pw.gt, "less": pw.lt, "greater_equal": pw.ge, "less_equal": pw.le, "not_equal": pw.ne,
    "logical_and": pw.logical_and, "logical_or": pw.logical_or, "logical_xor": pw.logical_xor,
    "bitwise_and": pw.bitwise_and, "bitwise_or": pw.bitwise_or, "bitwise_xor": pw.bitwise_xor,
    "matmul": linalg.matmul, "mm": linalg.mm, "bmm": linalg.bmm, "dot": linalg.dot, "mv": linalg.mv,
    "outer": linalg.outer,
}.items():
    _method(_name, _fn)

Tensor.multiply, Tensor.subtract, Tensor.divide = pw.mul, pw.sub, pw.div


def _fast(array_op, slow, kinds):
    """An operator with a short path for the commonest call: two plain tensors, same device
    and dtype, nothing to record. It does exactly what the full path (`slow`) would do, minus
    the promotion and recording machinery; anything else takes the full path."""
    make = Tensor._make

    def op(self, other):
        if (other.__class__ is Tensor and self.__class__ is Tensor and self._device is other._device
                and self._data.dtype is other._data.dtype and self._data.dtype.kind in kinds
                and not ((self.requires_grad or other.requires_grad) and STATE.enabled)
                and self._seen_rebases is None and other._seen_rebases is None):
            try:
                return make(array_op(self._data, other._data), self._device)
            except ValueError:
                pass  # a broadcast error: the full path raises it in PyTorch's words
        return slow(self, other)
    op.__name__ = slow.__name__
    return op


Tensor.__add__ = _fast(operator.add, lambda self, other: pw.binary(pw.Add, self, other, "add"), "biuf")
Tensor.__sub__ = _fast(operator.sub, lambda self, other: pw.sub(self, other), "iuf")  # bool - bool raises
Tensor.__mul__ = _fast(operator.mul, lambda self, other: pw.binary(pw.Mul, self, other, "mul"), "biuf")
Tensor.__truediv__ = _fast(operator.truediv, lambda self, other: pw.div(self, other), "f")  # ints -> float
Tensor.__radd__ = lambda self, other: pw.binary(pw.Add, other, self, "add")
Tensor.__rsub__ = lambda self, other: pw.sub(other, self)
Tensor.__rmul__ = lambda self, other: pw.binary(pw.Mul, other, self, "mul")
Tensor.__rtruediv__ = lambda self, other: pw.div(other, self)
Tensor.__floordiv__ = lambda self, other: pw.floor_divide(self, other)
Tensor.__rfloordiv__ = lambda self, other: pw.floor_divide(other, self)
Tensor.__mod__ = lambda self, other: pw.remainder(self, other)
Tensor.__rmod__ = lambda self, other: pw.remainder(other, self)
Tensor.__pow__ = lambda self, other: pw.pow(self, other)
Tensor.__rpow__ = lambda self, other: pw.pow(other, self)
Tensor.__matmul__ = lambda self, other: linalg.matmul(self, other)
Tensor.__rmatmul__ = lambda self, other: linalg.matmul(other, self)
Tensor.__neg__ = lambda self: pw.neg(self)
Tensor.__pos__ = lambda self: self
Tensor.__abs__ = lambda self: pw.abs(self)


def _invert(self):
    if self.dtype.is_floating_point:  # PyTorch: TypeError for the operator, RuntimeError for bitwise_not()
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors")
    return pw.logical_not(self) if self.dtype is _dtype.bool else pw.bitwise_not(self)


Tensor.__invert__ = _invert
Tensor.__and__ = lambda self, other: pw.bitwise_and(self, other)
Tensor.__rand__ = lambda self, other: pw.bitwise_and(other, self)
Tensor.__or__ = lambda self, other: pw.bitwise_or(self, other)
Tensor.__ror__ = lambda self, other: pw.bitwise_or(other, self)
Tensor.__xor__ = lambda self, other: pw.bitwise_xor(self, other)
Tensor.__rxor__ = lambda self, other: pw.bitwise_xor(other, self)
Tensor.__eq__ = lambda self, other: pw.eq(self, other) if _comparable(other) else NotImplemented
Tensor.__ne__ = lambda self, other: pw.ne(self, other) if _comparable(other) else NotImplemented
Tensor.__lt__ = lambda self, other: pw.lt(self, other)
Tensor.__le__ = lambda self, other: pw.le(self, other)
Tensor.__gt__ = lambda self, other: pw.gt(self, other)
Tensor.__ge__ = lambda self, other: pw.ge(self, other)
Tensor.__getitem__ = index.getitem
Tensor.__setitem__ = index.setitem


def _comparable(other):
    return isinstance(other, _COMPARABLE)


def _comparable_types():
    import numbers
    import numpy  # the host arrays and scalars only: no op computes with it here
    return (Tensor, numbers.Number, numpy.ndarray, numpy.bool_)


_COMPARABLE = _comparable_types()


def _contains(self, element):
    """`x in t`: is `x` equal to some element (Python's default would iterate and compare rows)."""
    if not _comparable(element):
        raise RuntimeError(f"Tensor.__contains__ only supports Tensor or scalar, but you passed in a "
                           f"{type(element)}.")
    return bool((self == element).any())


Tensor.__contains__ = _contains


# ---- unary math -------------------------------------------------------------------------

for _name in ["exp", "log", "sqrt", "abs", "sin", "cos", "tanh", "sigmoid", "relu", "sign", "floor", "ceil",
              "round", "trunc", "logical_not", "isnan", "isinf", "isfinite", "bitwise_not", "rsqrt", "log1p",
              "expm1", "square", "reciprocal", "neg"]:
    _method(_name, getattr(pw, _name))
Tensor.absolute, Tensor.negative = pw.abs, pw.neg
Tensor.clamp = Tensor.clip = lambda self, min=None, max=None: pw.clamp(self, min, max)
Tensor.clamp_min = lambda self, min: pw.clamp(self, min=min)
Tensor.clamp_max = lambda self, max: pw.clamp(self, max=max)
Tensor.where = lambda self, condition, other: pw.where(condition, self, other)
Tensor.masked_fill = index.masked_fill
Tensor.log2 = lambda self: pw.log(self) / 0.6931471805599453
Tensor.log10 = lambda self: pw.log(self) / 2.302585092994046

# ---- reductions ---------------------------------------------------------------------------

for _name in ["sum", "mean", "prod", "max", "min", "amax", "amin", "argmax", "argmin", "all", "any", "var", "std",
              "norm", "logsumexp", "softmax", "log_softmax", "cumsum", "cumprod"]:
    _method(_name, getattr(rd, _name))

# ---- views and shapes ----------------------------------------------------------------------

for _name in ["view", "reshape", "flatten", "unflatten", "permute", "transpose", "t", "expand", "expand_as",
              "squeeze", "unsqueeze", "narrow", "as_strided", "movedim"]:
    _method(_name, getattr(views, _name))
Tensor.swapaxes = Tensor.swapdims = views.transpose
Tensor.moveaxis = views.movedim
Tensor.view_as = lambda self, other: views.view(self, other.shape)
Tensor.reshape_as = lambda self, other: views.reshape(self, other.shape)
Tensor.select = lambda self, dim, i: index.getitem(self, (slice(None),) * (dim % max(self.ndim, 1)) + (i,))

for _name in ["split", "chunk", "unbind", "repeat", "flip", "tile"]:
    _method(_name, getattr(join, _name))
for _name in ["gather", "index_select", "nonzero"]:
    _method(_name, getattr(index, _name))

# ---- in place ---------------------------------------------------------------------------


def _prep_other(self, other, op, floating=False):
    """Check dtype/device for `self <op>= other`; return `other` ready to combine with self."""
    T = tensor_cls()
    if isinstance(other, T):
        if other._device != self._device:
            same_device(op, self, other)
            other = to_device_of(other, self._device)
    dt = result_dtype(self, other)
    if floating and not dt.is_floating_point:
        dt = _dtype.get_default_dtype()
    inplace.check_result(self, dt, self.shape, op)
    if isinstance(other, T) and other.dtype is not self.dtype:
        other = other.to(self.dtype)
    return other


def _inplace_binary(cls, ufunc, op, floating=False):
    def method(self, other, *, alpha=1):
        if alpha != 1:
            other = other * alpha
        other = _prep_other(self, other, op, floating)
        T = tensor_cls()

        def fast():
            xp = self._device.xp
            o = other._data if isinstance(other, T) else other
            try:
                getattr(xp, ufunc)(self._data, o, out=self._data, casting="unsafe")
            except ValueError:
                shape = broadcast_shapes(self.shape, other.shape if isinstance(other, T) else (), op=op)
                inplace.check_result(self, self.dtype, shape, op)
                raise
        return inplace.run_inplace(self, cls, (other,), {}, fast, op)
    method.__name__ = op
    return method


Tensor.add_ = _inplace_binary(pw.Add, "add", "add_")
Tensor.sub_ = _inplace_binary(pw.Sub, "subtract", "sub_")
Tensor.mul_ = _inplace_binary(pw.Mul, "multiply", "mul_")
_true_div_ = _inplace_binary(pw.Div, "true_divide", "div_", floating=True)


def div_(self, other, *, rounding_mode=None):
    if rounding_mode is None:
        return _true_div_(self, other)
    return self.copy_(pw.div(self, other, rounding_mode=rounding_mode))


Tensor.div_ = div_
Tensor.pow_ = _inplace_binary(pw.Pow, "power", "pow_")
Tensor.__iadd__ = lambda self, other: self.add_(other)
Tensor.__isub__ = lambda self, other: self.sub_(other)
Tensor.__imul__ = lambda self, other: self.mul_(other)
Tensor.__itruediv__ = lambda self, other: self.div_(other)
Tensor.__ipow__ = lambda self, other: self.pow_(other)


def _inplace_unary(cls, ufunc, op, floating=True):
    def method(self):
        if floating and not self.dtype.is_floating_point:
            inplace.check_result(self, _dtype.get_default_dtype(), self.shape, op)

        def fast():
            getattr(self._device.xp, ufunc)(self._data, out=self._data)
        return inplace.run_inplace(self, cls, (), {}, fast, op)
    method.__name__ = op
    return method


for _cls, _uf, _op, _fl in [
    (pw.Exp, "exp", "exp_", True), (pw.Log, "log", "log_", True), (pw.Sqrt, "sqrt", "sqrt_", True),
    (pw.Sin, "sin", "sin_", True), (pw.Cos, "cos", "cos_", True), (pw.Tanh, "tanh", "tanh_", True),
    (pw.Abs, "abs", "abs_", False), (pw.Neg, "negative", "neg_", False), (pw.Floor, "floor", "floor_", False),
    (pw.Ceil, "ceil", "ceil_", False), (pw.Round, "round", "round_", False),
]:
    _method(_op, _inplace_unary(_cls, _uf, _op, _fl))


def relu_(self):
    def fast():
        self._device.xp.maximum(self._data, 0, out=self._data)
    return inplace.run_inplace(self, pw.Relu, (), {}, fast, "relu_")


def sigmoid_(self):
    def fast():
        self._data[...] = pw.Sigmoid.forward(None, self)
    return inplace.run_inplace(self, pw.Sigmoid, (), {}, fast, "sigmoid_")


def clamp_(self, min=None, max=None):  # noqa: A002
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        return self.copy_(pw.clamp(self, min, max))
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    for v in (min, max):
        if isinstance(v, float) and not self.dtype.is_floating_point:
            inplace.check_result(self, _dtype.get_default_dtype(), self.shape, "clamp_")

    def fast():
        self._device.xp.clip(self._data, min, max, out=self._data)
    return inplace.run_inplace(self, pw.Clamp, (), {"min": min, "max": max}, fast, "clamp_")


class Fill(pw.Primitive):
    _node_name = "FillBackward0"
    reads_input_in_backward = False

    @staticmethod
    def forward(ctx, a, value):
        v = value._data if isinstance(value, Tensor) else value
        return a._device.xp.full(a.shape, v, dtype=a._data.dtype)

    @staticmethod
    def backward(ctx, grad):
        return grad * 0, grad  # the engine sums the second back to the value's shape


class Copy(pw.Primitive):
    _node_name = "CopyBackwards"
    reads_input_in_backward = False

    @staticmethod
    def forward(ctx, a, src):
        return a._device.xp.broadcast_to(src._data, a.shape).copy()

    @staticmethod
    def backward(ctx, grad):
        return grad * 0, grad


def fill_(self, value):
    if isinstance(value, Tensor):
        if value.ndim:
            raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with {value.ndim} "
                               "dimensions.")
        value = to_device_of(value, self._device).to(self.dtype)

    def fast():
        self._data.fill(value._data if isinstance(value, Tensor) else value)
    return inplace.run_inplace(self, Fill, (value,), {}, fast, "fill_")


def zero_(self):
    return fill_(self, 0)


def copy_(self, src, non_blocking=False):
    """Write `src` (broadcast, cast and moved as needed) into this tensor's memory."""
    if not isinstance(src, Tensor):
        raise TypeError(f"copy_(): argument 'src' must be Tensor, not {type(src).__name__}")
    if src._device != self._device or src.dtype is not self.dtype:
        src = src.to(self._device, self.dtype)
    try:
        broadcast_shapes(src.shape, self.shape, op="copy_")
    except RuntimeError:
        raise RuntimeError(f"output with shape {list(self.shape)} doesn't match the broadcast shape "
                           f"{list(broadcast_shapes(src.shape, self.shape))}") from None
    if len(src.shape) > self.ndim or any(s != 1 and s != d for s, d in zip(src.shape[::-1], self.shape[::-1])):
        raise RuntimeError(f"output with shape {list(self.shape)} doesn't match the broadcast shape of src "
                           f"{list(src.shape)}")

    def fast():
        self._data[...] = src._data
    return inplace.run_inplace(self, Copy, (src,), {}, fast, "copy_")


def uniform_(self, a=0.0, b=1.0, *, generator=None):
    from ._factories import rand
    with _no_grad():
        r = rand(self.shape, dtype=self.dtype if self.dtype.is_floating_point else None, generator=generator)
        r = r * (b - a) + a
    return copy_(self, r)


def normal_(self, mean=0.0, std=1.0, *, generator=None):
    from ._factories import randn
    with _no_grad():
        r = randn(self.shape, dtype=self.dtype if self.dtype.is_floating_point else None, generator=generator)
        r = r * std + mean
    return copy_(self, r)


def masked_fill_(self, mask, value):
    return copy_(self, index.masked_fill(self, mask, value))


def _no_grad():
    from .autograd.grad_mode import no_grad
    return no_grad()


for _f in [relu_, sigmoid_, clamp_, fill_, zero_, copy_, uniform_, normal_, masked_fill_]:
    _method(_f.__name__, _f)
Tensor.clip_ = clamp_


def t_(self):
    """Transpose in place: the tensor object itself becomes its transposed view."""
    v = self.t()
    self._data = v._data
    return self


Tensor.t_ = t_
_ = convert
