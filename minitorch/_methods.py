"""Tensor methods and operators, attached to the class here so that `_tensor.py` stays about
what a tensor *is*, and each op lives with its forward and backward in `_ops/`."""
from __future__ import annotations

import contextlib
import operator

from . import _dtype
from ._ops import convert, index, inplace, join, linalg, pointwise as pw, reduce as rd, views
from ._ops.common import broadcast_shapes, result_dtype, same_device, tensor_cls, to_device_of, wrap_dim
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
    "bitwise_left_shift": pw.bitwise_left_shift, "bitwise_right_shift": pw.bitwise_right_shift, "rsub": pw.rsub,
    "matmul": linalg.matmul, "mm": linalg.mm, "bmm": linalg.bmm, "dot": linalg.dot, "mv": linalg.mv,
    "outer": linalg.outer, "ger": linalg.outer,  # (ger: outer's old name, still in PyTorch)
}.items():
    _method(_name, _fn)

Tensor.multiply, Tensor.subtract, Tensor.divide = pw.mul, pw.sub, pw.div


def _fast(array_op, slow, kinds, prim=None):
    """An operator with a short path for the commonest call: two plain row-major tensors, same
    device and dtype. It does exactly what the full path (`slow`) would do, minus the promotion
    and layout machinery; anything else takes the full path. With nothing to record, the arrays
    are computed on directly; to record, `prim` (the primitive the full path would end in) is
    applied directly, when NumPy's layout is PyTorch's (one shape, or no size-1 dim to broadcast)."""
    ok = frozenset(d.np for d in _dtype.ALL if d.np.kind in kinds)
    make = Tensor._make

    def op(self, other, state=STATE):
        if other.__class__ is Tensor and self.__class__ is Tensor:
            sd, od = self._data, other._data
            if (sd.dtype is od.dtype and self._device is other._device
                    and self._seen_version is None and other._seen_version is None
                    and sd.flags.c_contiguous and od.flags.c_contiguous):
                if (self._requires_grad or other._requires_grad) and state.enabled or state.dual:
                    # (a tensor that requires grad is a float one: its dtype is one of `kinds`; with
                    # dual tensors about (forward-mode AD) the primitive computes their tangents)
                    if prim is not None and (sd.shape == od.shape or 1 not in sd.shape and 1 not in od.shape):
                        try:
                            return prim.apply(self, other)
                        except ValueError:
                            pass  # a broadcast error: the full path raises it in PyTorch's words
                    return slow(self, other)
                if sd.dtype not in ok:
                    return slow(self, other)
                try:
                    r = array_op(sd, od)
                except ValueError:
                    return slow(self, other)  # a broadcast error: the full path raises it in PyTorch's words
                return make(r, self._device)
        return slow(self, other)
    op.__name__ = slow.__name__
    return op


Tensor.__add__ = _fast(operator.add, lambda self, other: pw.binary(pw.Add, self, other, "add"), "biuf", pw.Add)
Tensor.__sub__ = _fast(operator.sub, lambda self, other: pw.sub(self, other), "iuf", pw.Sub)  # bool - bool raises
Tensor.__mul__ = _fast(operator.mul, lambda self, other: pw.binary(pw.Mul, self, other, "mul"), "biuf", pw.Mul)
Tensor.__truediv__ = _fast(operator.truediv, lambda self, other: pw.div(self, other), "f")  # ints -> float
# `2 * t` is t.__rmul__(2): PyTorch records the tensor as the first input (next_functions order)
Tensor.__radd__ = lambda self, other: pw.binary(pw.Add, self, other, "add")
Tensor.__rsub__ = lambda self, other: pw.rsub(self, other)
Tensor.__rmul__ = lambda self, other: pw.binary(pw.Mul, self, other, "mul")
Tensor.__rtruediv__ = lambda self, other: pw.rdiv(self, other)
Tensor.__floordiv__ = lambda self, other: pw.floor_divide(self, other)
Tensor.__rfloordiv__ = lambda self, other: pw.floor_divide(other, self)
Tensor.__mod__ = lambda self, other: pw.remainder(self, other)
Tensor.__rmod__ = lambda self, other: pw.remainder(other, self)
Tensor.__pow__ = lambda self, other: pw.pow(self, other)
Tensor.__rpow__ = lambda self, other: pw.pow(other, self)
Tensor.__matmul__ = lambda self, other: linalg.matmul(self, other)
Tensor.__rmatmul__ = lambda self, other: linalg.matmul(other, self)
Tensor.__neg__ = lambda self: pw.neg(self)
def _positive(self):
    from ._ops.more import positive
    return positive(self)  # (refuses a bool tensor, as PyTorch's unary + does)


Tensor.__pos__ = lambda self: self if self.dtype is not _dtype.bool else _positive(self)
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
Tensor.__lshift__ = lambda self, other: pw.bitwise_left_shift(self, other)
Tensor.__rlshift__ = lambda self, other: pw.bitwise_left_shift(other, self)
Tensor.__rshift__ = lambda self, other: pw.bitwise_right_shift(self, other)
Tensor.__rrshift__ = lambda self, other: pw.bitwise_right_shift(other, self)
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
              "expm1", "square", "reciprocal", "neg", "clamp_min", "clamp_max"]:
    _method(_name, getattr(pw, _name))
Tensor.absolute, Tensor.negative = pw.abs, pw.neg
Tensor.clamp = Tensor.clip = lambda self, min=None, max=None: pw.clamp(self, min, max)
Tensor.where = lambda self, condition, other: pw.where(condition, self, other)
Tensor.masked_fill = index.masked_fill

# ---- reductions ---------------------------------------------------------------------------

for _name in ["sum", "mean", "prod", "max", "min", "amax", "amin", "argmax", "argmin", "all", "any", "var", "std",
              "norm", "logsumexp", "softmax", "log_softmax", "cumsum", "cumprod"]:
    _method(_name, getattr(rd, _name))

# ---- views and shapes ----------------------------------------------------------------------

for _name in ["view", "reshape", "flatten", "unflatten", "permute", "transpose", "t", "expand", "expand_as",
              "squeeze", "unsqueeze", "narrow", "as_strided", "movedim"]:
    _method(_name, getattr(views, _name))
Tensor.swapdims = views.transpose


def swapaxes(self, axis0, axis1):  # (NumPy's names, as PyTorch's)
    return views.transpose(self, axis0, axis1)


Tensor.swapaxes = swapaxes
Tensor.moveaxis = views.movedim
Tensor.view_as = lambda self, other: views.view(self, other.shape)
Tensor.reshape_as = lambda self, other: views.reshape(self, other.shape)
def select(self, dim, index):
    d = wrap_dim(dim, self.ndim, "select")
    return self[(slice(None),) * d + (index,)]


Tensor.select = select

for _name in ["split_with_sizes", "chunk", "unbind", "repeat", "flip", "tile"]:
    _method(_name, getattr(join, _name))


def split(self, split_size, dim=0):  # (torch.split names its sizes split_size_or_sections)
    return join.split(self, split_size, dim)


Tensor.split = split
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
    elif other.__class__ is int:
        other = pw._scalar_as(other, self.dtype)  # wrapped into an integer dtype's range (uint8: -1 is 255)
    return other


def _tensor_other(other, op):
    """A method that takes a tensor only (logical_and_, gcd_): PyTorch's argument error."""
    if not isinstance(other, tensor_cls()):
        raise TypeError(f"{op}(): argument 'other' (position 1) must be Tensor, not {type(other).__name__}")


def _inplace_binary(cls, ufunc, op, floating=False, check=None):
    def method(self, other, *, alpha=1):
        inplace.check_inplace(self, op)  # (autograd's check first, as in PyTorch)
        if check is not None:
            check(self, other)
        inplace.iter_checks(self, op, other)
        factor = None
        if alpha != 1 or alpha.__class__ is not int:
            dt = result_dtype(self, other)
            inplace.check_result(self, dt, self.shape, op)  # (the cast before alpha's check)
            other, factor = pw._alpha(self, other, alpha, op)  # alpha applies in the result's dtype
            if factor is not None and other.dtype is not dt:
                other = other.to(dt)
        scaled = other  # (in the result's dtype: alpha multiplies it before it is cast to self's)
        other = _prep_other(self, other, op, floating)
        T = tensor_cls()

        def fast():
            xp = self._device.xp
            o = other._data if isinstance(other, T) else other
            if factor is not None:
                o = scaled._data * factor
            try:
                getattr(xp, ufunc)(self._data, o, out=self._data, casting="unsafe")
            except ValueError:
                shape = broadcast_shapes(self.shape, other.shape if isinstance(other, T) else (), op=op)
                inplace.check_result(self, self.dtype, shape, op)
                raise
        if factor is not None:  # (one node that keeps alpha, as PyTorch's AddBackward0 / SubBackward0)
            return inplace.run_inplace(self, pw.AddAlpha if cls is pw.Add else pw.SubAlpha, (other,),
                                       {"alpha": factor}, fast, op)
        return inplace.run_inplace(self, cls, (other,), {}, fast, op)
    method.__name__ = method.__qualname__ = op
    return method


Tensor.add_ = _inplace_binary(pw.Add, "add", "add_")
Tensor.sub_ = _inplace_binary(pw.Sub, "subtract", "sub_", check=pw._check_sub)
Tensor.mul_ = _inplace_binary(pw.Mul, "multiply", "mul_")
_true_div_ = _inplace_binary(pw.Div, "true_divide", "div_", floating=True)


_div_rounding_none_ = _inplace_binary(pw._DivRoundingNone, "true_divide", "div_", floating=True)


def div_(self, other, *, rounding_mode=pw.NOT_GIVEN):
    if rounding_mode is pw.NOT_GIVEN:
        return _true_div_(self, other)
    if rounding_mode is None:  # PyTorch records the rounding overload (DivBackward2)
        return _div_rounding_none_(self, other)
    inplace.check_inplace(self, "div_")
    inplace.iter_checks(self, "div_", other)
    inplace.check_partial_overlap(self, (other,))
    with _writes_before_a_zero_divisor(self, other, lambda a, b: pw.div(a, b, rounding_mode=rounding_mode)):
        r = pw.div(self, other, rounding_mode=rounding_mode)  # DivBackward2 records no input values
        return inplace.write_result(self, r, "div_")


Tensor.div_ = div_


def pow_(self, exponent):
    """self **= other, computed by pow itself (bool and negative integer powers as PyTorch has them)."""
    inplace.check_inplace(self, "pow_")  # (autograd's check first, as in PyTorch)
    if exponent.__class__ is int and not self.dtype.is_floating_point and self.dtype is not _dtype.bool:
        if exponent < 0:
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        _dtype.checked_scalar(exponent, self.dtype)  # pow_ checks the exponent fits the tensor's dtype
    inplace.iter_checks(self, "pow_", exponent)  # (the shapes first, then the dtypes)
    prepped = _prep_other(self, exponent, "pow_")
    # a tensor of a wider dtype takes part as it is: PyTorch computes in the promoted dtype, then casts
    exponent = to_device_of(exponent, self._device) if isinstance(exponent, Tensor) else prepped

    def fast():
        r = pw.pow(self, exponent)
        if r.shape != self.shape:
            inplace.check_result(self, self.dtype, r.shape, "pow_")
        self._data[...] = r._data
    return inplace.run_inplace(self, pw.PowTensor if isinstance(exponent, Tensor) else pw.Pow, (exponent,), {}, fast,
                               "pow_")


Tensor.pow_ = pow_


@contextlib.contextmanager
def _writes_before_a_zero_divisor(self, other, fn):
    """PyTorch's integer division kernels write element by element, in self's memory order, and raise
    at the first zero divisor: the elements before it are written by then. So are they here."""
    try:
        yield
    except RuntimeError as e:
        if str(e) == "ZeroDivisionError" and isinstance(other, Tensor) and result_dtype(self, other) is self.dtype:
            _write_until_zero(self, other, fn)
        raise


def _write_until_zero(self, other, fn):
    xp = self._device.xp
    try:
        divisor = xp.broadcast_to(other._data, self.shape)
    except ValueError:
        return  # not broadcastable: the op's own error
    order = sorted(range(self.ndim), key=lambda i: -abs(self._data.strides[i]))  # outermost first
    dst, divisor = self._data.transpose(order), divisor.transpose(order)
    first = int(xp.argmax(divisor.ravel() == 0))
    if first == 0:
        return  # the first element already divides by zero: nothing is written
    where = xp.unravel_index(xp.arange(first), dst.shape)
    dst[where] = fn(self, other.masked_fill(other == 0, 1))._data.transpose(order)[where]  # (no version bump, as there)


def _inplace_from(fn, cls, op, scalar_cls=None):
    """`self op= other` for the ops whose out-of-place function does the checking (integer division
    by zero, bitwise on floats, shifts): it computes, and the result is written into self.
    `scalar_cls` records `self op= number` where PyTorch names that overload apart (RemainderBackward0)."""
    def method(self, other):
        inplace.check_inplace(self, op)  # (autograd's check first, as in PyTorch)
        inplace.iter_checks(self, op, other)  # (then the layout and the shapes, before the dtypes)
        guard = _writes_before_a_zero_divisor(self, other, fn)
        prepped = _prep_other(self, other, op)
        # a tensor of a wider dtype takes part as it is: PyTorch computes in the promoted dtype, then casts
        other = to_device_of(other, self._device) if isinstance(other, Tensor) else prepped

        def fast():
            if isinstance(other, Tensor) and other.shape != self.shape:  # (PyTorch: the shapes before the dtypes)
                shape = broadcast_shapes(self.shape, other.shape, op=op)
                if shape != self.shape:
                    inplace.check_result(self, self.dtype, shape, op)
            with guard:
                r = fn(self, other)
            if r.shape != self.shape:
                inplace.check_result(self, self.dtype, r.shape, op)
            self._data[...] = r._data
        if scalar_cls is not None and not isinstance(other, Tensor):
            return inplace.run_inplace(self, scalar_cls, (), {"other": other}, fast, op)
        return inplace.run_inplace(self, cls, (other,), {}, fast, op)
    method.__name__ = method.__qualname__ = op
    return method


_method("remainder_", _inplace_from(pw.remainder, pw.Remainder, "remainder_", pw.RemainderScalar))
_method("fmod_", _inplace_from(pw.fmod, pw.Fmod, "fmod_", pw.FmodScalar))
for _fn, _cls, _op in [
    (pw.floor_divide, pw.FloorDivide, "floor_divide_"), (pw.bitwise_and, pw.BitAnd, "bitwise_and_"),
    (pw.bitwise_or, pw.BitOr, "bitwise_or_"), (pw.bitwise_xor, pw.BitXor, "bitwise_xor_"),
    (pw.bitwise_left_shift, pw.LShift, "bitwise_left_shift_"),
    (pw.bitwise_right_shift, pw.RShift, "bitwise_right_shift_"),
]:
    _method(_op, _inplace_from(_fn, _cls, _op))


def _logical_(fn, op):
    def method(self, other):
        _tensor_other(other, op)
        inplace.iter_checks(self, op, other)
        inplace.check_partial_overlap(self, (other,))
        r = fn(self, other)  # bool; written back in self's dtype (1 and 0 for a float tensor)
        return inplace.write_unrecorded(self, r, op)
    method.__name__ = method.__qualname__ = op
    return method


Tensor.logical_and_ = _logical_(pw.logical_and, "logical_and_")
Tensor.logical_or_ = _logical_(pw.logical_or, "logical_or_")
Tensor.logical_xor_ = _logical_(pw.logical_xor, "logical_xor_")

# Python's augmented assignments: in place, as PyTorch's are (the same object, its version bumped)
Tensor.__iadd__ = lambda self, other: self.add_(other)
Tensor.__isub__ = lambda self, other: self.sub_(other)
Tensor.__imul__ = lambda self, other: self.mul_(other)
Tensor.__itruediv__ = lambda self, other: self.div_(other)
Tensor.__ipow__ = lambda self, other: self.pow_(other)
Tensor.__ifloordiv__ = lambda self, other: self.floor_divide_(other)
Tensor.__imod__ = lambda self, other: self.remainder_(other)
Tensor.__iand__ = lambda self, other: self.bitwise_and_(other)
Tensor.__ior__ = lambda self, other: self.bitwise_or_(other)
Tensor.__ixor__ = lambda self, other: self.bitwise_xor_(other)
Tensor.__ilshift__ = lambda self, other: self.bitwise_left_shift_(other)
Tensor.__irshift__ = lambda self, other: self.bitwise_right_shift_(other)


def _inplace_unary(cls, ufunc, op, floating=True, kernel=None):
    def method(self):
        if floating and not self.dtype.is_floating_point:
            inplace.check_result(self, _dtype.get_default_dtype(), self.shape, op)
        if self.dtype is _dtype.bool and kernel is not None:  # as the out-of-place op refuses bool
            if not self._data.flags.c_contiguous:
                inplace.check_overlap(self, op)  # PyTorch's first check
            if op == "neg_":
                pw.neg(self)
            raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")

        def fast():
            getattr(self._device.xp, ufunc)(self._data, out=self._data)
        return inplace.run_inplace(self, cls, (), {}, fast, op)
    method.__name__ = method.__qualname__ = op
    return method


for _cls, _uf, _op, _fl, _kernel in [
    (pw.Exp, "exp", "exp_", True, None), (pw.Log, "log", "log_", True, None), (pw.Sqrt, "sqrt", "sqrt_", True, None),
    (pw.Sin, "sin", "sin_", True, None), (pw.Cos, "cos", "cos_", True, None), (pw.Tanh, "tanh", "tanh_", True, None),
    (pw.Abs, "abs", "abs_", False, "abs_cpu"), (pw.Neg, "negative", "neg_", False, "neg"),
    (pw.Floor, "floor", "floor_", False, "floor_vml_cpu"), (pw.Ceil, "ceil", "ceil_", False, "ceil_vml_cpu"),
    (pw.Round, "round", "round_", False, "round_vml_cpu"),
]:
    _method(_op, _inplace_unary(_cls, _uf, _op, _fl, _kernel))
_round_ = Tensor.round_


def round_(self, *, decimals=None):
    if decimals is None:  # (decimals=0, given, is RoundBackward1 as in PyTorch)
        return _round_(self)
    pw.round(self.detach(), decimals=decimals)  # the argument checks (integer tensors refuse decimals)

    def fast():
        self._data[...] = pw.RoundDecimals.forward(pw.NULL_CTX, self, decimals=int(decimals))
    return inplace.run_inplace(self, pw.RoundDecimals, (), {"decimals": int(decimals)}, fast, "round_")


Tensor.round_ = round_


def relu_(self):
    if self.dtype is _dtype.bool:
        raise RuntimeError("Boolean inputs not supported for relu")

    def fast():
        self._data[...] = pw.Relu.forward(pw.NULL_CTX, self)  # a tie keeps the input (-0.)
    return inplace.run_inplace(self, pw.Relu, (), {}, fast, "relu_")


def sigmoid_(self):
    if not self.dtype.is_floating_point:
        inplace.check_result(self, _dtype.get_default_dtype(), self.shape, "sigmoid_")

    def fast():
        self._data[...] = pw.Sigmoid.forward(None, self)
    return inplace.run_inplace(self, pw.Sigmoid, (), {}, fast, "sigmoid_")


def clamp_(self, min=None, max=None):  # noqa: A002
    inplace.check_inplace(self, "clamp_")  # (autograd's check first, as in PyTorch)
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        inplace.check_partial_overlap(self, (min, max))
        r = pw.clamp(self, min, max)
        inplace.check_result(self, r.dtype, r.shape, "clamp_")  # (a float bound can't clamp an int tensor in place)
        return self.copy_(r)
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    for v in (min, max):
        if isinstance(v, float) and not self.dtype.is_floating_point:
            inplace.check_result(self, _dtype.get_default_dtype(), self.shape, "clamp_", cpp_name=True)
    pw._no_bool_clamp(self, min, max, in_place=True)
    min, max = pw.checked_bounds(self.dtype, min, max)  # noqa: A001  (converted checked, as clamp does)

    def fast():
        pw.clip_array(self._device.xp, self._data, min, max, out=self._data)
    return inplace.run_inplace(self, pw.Clamp, (), {"min": min, "max": max}, fast, "clamp_")


class Fill(pw.Primitive):
    _node_name = "FillBackward2"  # fill_(number); FillBackward3 is fill_(tensor), as PyTorch names them
    reads_input_in_backward = False

    @staticmethod
    def forward(ctx, a, value):
        v = value._data if isinstance(value, Tensor) else value
        return a._device.xp.full(a.shape, v, dtype=a._data.dtype)

    @staticmethod
    def backward(ctx, grad):
        return pw.zeros_like_grad(grad), grad  # the engine sums the second back to the value's shape


class Copy(pw.Primitive):
    _node_name = "CopyBackwards"
    reads_input_in_backward = False

    @staticmethod
    def forward(ctx, a, src):
        return a._device.xp.broadcast_to(src._data, a.shape).copy()

    @staticmethod
    def backward(ctx, grad):
        return pw.zeros_like_grad(grad), grad


class FillTensor(Fill):
    _node_name = "FillBackward3"


class Zero(Fill):
    _node_name = "ZeroBackward0"


def fill_(self, value, _cls=None):
    """Write one value everywhere; allowed on an expanded tensor too (every element is that value),
    when the value is a number (PyTorch's fill_ of a tensor value checks the overlap as other ops)."""
    inplace.check_inplace(self, "zero_" if _cls is Zero else "fill_")  # (autograd's check first, as in PyTorch)
    cls = _cls or (FillTensor if isinstance(value, Tensor) else Fill)
    if isinstance(value, Tensor):
        if value.ndim:
            raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with {value.ndim} "
                               "dimensions.")
        value = to_device_of(value, self._device).to(self.dtype)
    else:
        value = _dtype.fill_scalar(value, self.dtype, self.numel())

    def fast():
        self._data.fill(value._data if isinstance(value, Tensor) else value)
    return inplace.run_inplace(self, cls, (value,), {}, fast, "fill_", overlap_ok=not isinstance(value, Tensor),
                               value_arg=True)


def zero_(self):
    return fill_(self, 0, Zero)


def copy_(self, other, non_blocking=False):
    """Write `other` (broadcast, cast and moved as needed) into this tensor's memory."""
    if isinstance(other, (int, float)):  # a number (bool included) fills it, as in PyTorch
        from ._factories import tensor
        other = tensor(other, device=self._device)
    if not isinstance(other, Tensor):
        raise TypeError(f"copy_(): argument 'other' (position 1) must be Tensor, not {type(other).__name__}")
    inplace.check_inplace(self, "copy_")  # (autograd's check first, as in PyTorch)
    inplace.iter_checks(self, "copy_", other)
    if other._device != self._device or other.dtype is not self.dtype:
        other = other.to(self._device, self.dtype)

    def fast():
        self._data[...] = other._data
    return inplace.run_inplace(self, Copy, (other,), {}, fast, "copy_")


def masked_fill_(self, mask, value):
    """Write `value` where `mask` is True. On an expanded tensor PyTorch allows it, with a warning."""
    inplace.check_inplace(self, "masked_fill_")  # (autograd's check first, as in PyTorch)
    index.masked_fill(self.detach(), mask, value, _in_place=True)  # the argument checks
    mask = to_device_of(mask, self._device)
    if isinstance(value, Tensor):
        value = to_device_of(value, self._device).to(self.dtype)
    else:
        value = _dtype.checked_scalar(value, self.dtype)
    if index._overlapping(self._data):
        import warnings
        warnings.warn("Use of masked_fill_ on expanded tensors is deprecated. Please clone() the tensor before "
                      "performing this operation. This also applies to advanced indexing e.g. tensor[mask] = scalar",
                      UserWarning, stacklevel=2)

    def fast():
        v = value._data if isinstance(value, Tensor) else value
        self._device.xp.copyto(self._data, v, where=mask._data)
    return inplace.run_inplace(self, index.MaskedFill, (value,), {"mask": mask._data}, fast, "masked_fill_",
                               overlap_ok=True, value_arg=True)


def _no_grad():
    from .autograd.grad_mode import no_grad
    return no_grad()


for _f in [relu_, sigmoid_, clamp_, fill_, zero_, copy_, masked_fill_]:  # the random ones: _random_fill.py
    _method(_f.__name__, _f)
Tensor.clip_ = clamp_


class _TInplace(views.Permute):
    _node_name = "TBackward1"


def t_(self):
    """Transpose in place: the tensor object itself becomes its transposed view (an in-place op:
    refused on a leaf that requires grad, version bumped), as PyTorch's t_()."""
    from ._ops.shape_ops import _become
    inplace.check_inplace(self, "t_")  # (autograd's check first, as in PyTorch)
    if self.ndim > 2:
        raise RuntimeError(f"t_() expects a tensor with <= 2 dimensions, but self is {self.ndim}D")
    return _become(self, _TInplace, "t_", dims=tuple(range(self.ndim - 1, -1, -1)))


Tensor.t_ = t_
_ = convert
