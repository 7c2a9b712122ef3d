"""Elementwise ops: forward and backward side by side.

Binary ops broadcast; their backward returns the gradient at the broadcast shape and the
engine sums it back to each input's shape (see autograd/engine.py), so none of the
formulas below mention broadcasting.
"""
from __future__ import annotations

from .. import _dtype
from .._dtype import get_default_dtype
from . import common
from ._prim import Primitive, _tensor_cls


# Forwards read operands as `getattr(x, "_data", x)`: a tensor's array, or a Python scalar
# as it is (NumPy treats it as weak, keeping the tensor's dtype). A builtin call is cheaper
# than a helper function on this path.


def _xp(*xs):
    for x in xs:
        if isinstance(x, common.tensor_cls()):
            return x._device.xp
    raise AssertionError("no tensor among the arguments")


def _save(ctx, *xs):
    """Save tensor arguments for backward (version-checked); keep Python scalars as they are."""
    T = common.tensor_cls()
    ctx.save_for_backward(*(x if isinstance(x, T) else None for x in xs))
    ctx.scalars = tuple(None if isinstance(x, T) else x for x in xs)


def _load(ctx):
    return tuple(s if t is None else t for t, s in zip(ctx.saved_tensors, ctx.scalars))


# ---- binary ---------------------------------------------------------------------------

class Add(Primitive):
    _node_name = "AddBackward0"
    reads_input_in_backward = False

    @staticmethod
    def forward(ctx, a, b):
        return getattr(a, "_data", a) + getattr(b, "_data", b)

    @staticmethod
    def backward(ctx, grad):
        return grad, grad


class Sub(Primitive):
    _node_name = "SubBackward0"
    reads_input_in_backward = False

    @staticmethod
    def forward(ctx, a, b):
        return getattr(a, "_data", a) - getattr(b, "_data", b)

    @staticmethod
    def backward(ctx, grad):
        return grad, -grad


class Mul(Primitive):
    _node_name = "MulBackward0"

    @staticmethod
    def forward(ctx, a, b):
        need = ctx.needs_input_grad
        if need:  # save only what backward reads, as PyTorch does: y * 0.5 leaves y free to change
            _save(ctx, a if need[1] else None, b if need[0] else None)
        return getattr(a, "_data", a) * getattr(b, "_data", b)

    @staticmethod
    def backward(ctx, grad):
        a, b = _load(ctx)
        return (grad * b if ctx.needs_input_grad[0] else None,
                grad * a if ctx.needs_input_grad[1] else None)


class Div(Primitive):
    _node_name = "DivBackward0"

    @staticmethod
    def forward(ctx, a, b):
        need = ctx.needs_input_grad
        if need:  # b is always read; a only for b's gradient
            _save(ctx, a if need[1] else None, b)
        return getattr(a, "_data", a) / getattr(b, "_data", b)

    @staticmethod
    def backward(ctx, grad):
        a, b = _load(ctx)
        ga = grad / b if ctx.needs_input_grad[0] else None
        gb = -grad * a / (b * b) if ctx.needs_input_grad[1] else None
        return ga, gb


class Pow(Primitive):
    _node_name = "PowBackward0"

    @staticmethod
    def forward(ctx, a, b):
        _save(ctx, a, b)
        return getattr(a, "_data", a) ** getattr(b, "_data", b)

    @staticmethod
    def backward(ctx, grad):
        a, b = _load(ctx)
        ga = gb = None
        if ctx.needs_input_grad[0]:
            # d(a^b)/da = b a^(b-1); PyTorch defines it as 0 where b == 0 (even at a == 0)
            ga = grad * b * a ** (b - 1)
            if isinstance(b, common.tensor_cls()):
                ga = where(b == 0, 0.0, ga)
            elif b == 0:
                ga = grad * 0.0
        if ctx.needs_input_grad[1]:
            # d(a^b)/db = a^b log(a), taken as 0 where a == 0 and b >= 0
            out = a ** b
            log_a = log(a) if isinstance(a, common.tensor_cls()) else _scalar_log(a)
            gb = grad * out * log_a
            if isinstance(a, common.tensor_cls()):
                gb = where((a == 0) & (b >= 0), 0.0, gb)
            elif a == 0:
                gb = where(b >= 0, 0.0, gb)
        return ga, gb


class PowTensor(Pow):
    _node_name = "PowBackward1"  # PyTorch names pow by its operands: tensor ** tensor


class PowScalarBase(Pow):
    _node_name = "PowBackward2"  # number ** tensor


def _scalar_log(x):
    import math
    return math.log(x) if x > 0 else float("nan") if x < 0 else float("-inf")


class Maximum(Primitive):
    _node_name = "MaximumBackward0"

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return _xp(a, b).maximum(getattr(a, "_data", a), getattr(b, "_data", b))

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        # ties split the gradient evenly, as PyTorch does
        ga = grad * ((a > b) + (a == b) * 0.5)
        gb = grad * ((b > a) + (a == b) * 0.5)
        return ga, gb


class Minimum(Primitive):
    _node_name = "MinimumBackward0"

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return _xp(a, b).minimum(getattr(a, "_data", a), getattr(b, "_data", b))

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        ga = grad * ((a < b) + (a == b) * 0.5)
        gb = grad * ((b < a) + (a == b) * 0.5)
        return ga, gb


class _NoGradBinary(Primitive):
    """Comparisons, logical and integer ops: results carry no gradient."""

    differentiable = False
    ufunc = None

    @classmethod
    def forward(cls, ctx, a, b):
        return getattr(_xp(a, b), cls.ufunc)(getattr(a, "_data", a), getattr(b, "_data", b))


def _nograd(name, ufunc):
    return type(name, (_NoGradBinary,), {"ufunc": ufunc, "__module__": __name__})


Eq, Ne, Lt, Le, Gt, Ge = (_nograd(n, u) for n, u in [
    ("Eq", "equal"), ("Ne", "not_equal"), ("Lt", "less"), ("Le", "less_equal"),
    ("Gt", "greater"), ("Ge", "greater_equal")])
LogicalAnd, LogicalOr, LogicalXor = (_nograd(n, u) for n, u in [
    ("LogicalAnd", "logical_and"), ("LogicalOr", "logical_or"), ("LogicalXor", "logical_xor")])
BitAnd, BitOr, BitXor = (_nograd(n, u) for n, u in [
    ("BitAnd", "bitwise_and"), ("BitOr", "bitwise_or"), ("BitXor", "bitwise_xor")])
FloorDivide, Remainder = _nograd("FloorDivide", "floor_divide"), _nograd("Remainder", "remainder")
Fmod = _nograd("Fmod", "fmod")  # C's fmod: the sign of the dividend (remainder: of the divisor)


class Where(Primitive):
    _node_name = "WhereBackward0"

    @staticmethod
    def forward(ctx, cond, a, b):
        ctx.save_for_backward(cond)
        return _xp(cond, a, b).where(getattr(cond, "_data", cond), getattr(a, "_data", a), getattr(b, "_data", b))

    @staticmethod
    def backward(ctx, grad):
        (cond,) = ctx.saved_tensors
        zero = grad.new_zeros(())
        return (None,
                where(cond, grad, zero) if ctx.needs_input_grad[1] else None,
                where(cond, zero, grad) if ctx.needs_input_grad[2] else None)


# ---- dispatch: devices, dtypes, then the primitive ---------------------------------------

def binary(cls, a, b, op, *, floating=False, cast=True):
    """Check devices, promote dtypes as PyTorch does, and run a binary primitive."""
    T = _tensor_cls()
    a_t, b_t = isinstance(a, T), isinstance(b, T)
    if a_t and b_t:
        if a._device is not b._device:
            dev = common.same_device(op, a, b)
            a, b = common.to_device_of(a, dev), common.to_device_of(b, dev)
        if a._data.dtype == b._data.dtype:
            dt = a.dtype
            if not floating or dt.is_floating_point:  # the common case: nothing to promote or cast
                try:
                    return cls.apply(a, b)
                except ValueError as e:
                    _raise_broadcast(a, b, op, e)
        else:
            dt = common.result_dtype(a, b)
    elif a_t:
        if b.__class__ not in _PY_NUMBERS:
            return binary(cls, a, _as_operand(b, op), op, floating=floating, cast=cast)
        dt = a.dtype if type(b) is not float or a.dtype.is_floating_point else common.result_dtype(a, b)
        if type(b) is bool or (type(b) is int and dt is _dtype.bool):
            dt = common.result_dtype(a, b)
    elif b_t:
        if a.__class__ not in _PY_NUMBERS:
            return binary(cls, _as_operand(a, op), b, op, floating=floating, cast=cast)
        dt = common.result_dtype(a, b)
    else:
        raise TypeError(f"{op}: expected at least one Tensor argument")
    if floating and not dt.is_floating_point:
        dt = get_default_dtype()
    if cast:
        if a_t and a.dtype is not dt:
            a = a.to(dt)
        if b_t and b.dtype is not dt:
            b = b.to(dt)
        if not a_t:
            a = _scalar_as(a, dt)
        if not b_t:
            b = _scalar_as(b, dt)
    try:
        return cls.apply(a, b)
    except ValueError as e:
        _raise_broadcast(a, b, op, e)


def _scalar_as(x, dt):
    """Python scalars stay weak (NumPy keeps the tensor's dtype), but must fit the dtype."""
    if type(x) is float and not dt.is_floating_point:
        return x  # only for ops that don't cast (comparisons)
    if type(x) is int and not dt.is_floating_point and dt is not _dtype.bool:
        info = _int_range(dt)
        if not info[0] <= x <= info[1]:
            # wrap around into the dtype's range, as PyTorch does (int8: 1000 -> -24)
            bits = 8 * dt.itemsize
            x %= 1 << bits
            return dt.np.type(x - (1 << bits) if info[0] < 0 and x > info[1] else x)
    return x


def _int_range(dt):
    import numpy as np
    i = np.iinfo(dt.np)
    return int(i.min), int(i.max)


_PY_NUMBERS = frozenset((int, float, bool))


def _as_operand(x, op):
    """A non-Python-number operand as PyTorch sees it: a NumPy scalar is a Python number (NumPy
    would make np.float64 decide the dtype), an array a tensor; anything else is refused."""
    import numpy as np
    if isinstance(x, np.generic) and x.dtype.kind in "biuf":
        return x.item()
    if isinstance(x, np.ndarray):
        from .._factories import tensor
        return tensor(x, dtype=_dtype.from_numpy_dtype(x.dtype, op))
    for kind in (bool, int, float):  # subclasses, e.g. IntEnum
        if isinstance(x, kind):
            return kind(x)
    raise TypeError(
        f"{op}(): unsupported operand type {type(x).__name__}; expected a Tensor or a number "
        "(wrap lists and arrays with minitorch.tensor(...))")


def _raise_broadcast(a, b, op, err):
    T = common.tensor_cls()
    sa = a.shape if isinstance(a, T) else ()
    sb = b.shape if isinstance(b, T) else ()
    common.broadcast_shapes(sa, sb, op=op)  # raises the PyTorch-worded error if shapes disagree
    raise err


def add(a, b, *, alpha=1):
    if alpha != 1:
        b = b * alpha
    return binary(Add, a, b, "add")


def _is_bool(x):
    return x.dtype is _dtype.bool if isinstance(x, common.tensor_cls()) else type(x) is bool


def sub(a, b, *, alpha=1):
    a_bool, b_bool = _is_bool(a), _is_bool(b)
    if a_bool and b_bool:
        raise RuntimeError(
            "Subtraction, the `-` operator, with two bool tensors is not supported. "
            "Use the `^` or `logical_xor()` operator instead.")
    if a_bool or b_bool:
        raise RuntimeError(
            "Subtraction, the `-` operator, with a bool tensor is not supported. "
            "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.")
    if alpha != 1:
        b = b * alpha
    return binary(Sub, a, b, "sub")


def mul(a, b):
    return binary(Mul, a, b, "mul")


def _fp_quiet():
    """PyTorch gives inf/nan for x/0 without a warning; NumPy warns (CuPy never does)."""
    import numpy
    return numpy.errstate(divide="ignore", invalid="ignore", over="ignore")


def div(a, b, *, rounding_mode=None):
    if rounding_mode is None:
        with _fp_quiet():
            return binary(Div, a, b, "div", floating=True)
    if rounding_mode == "floor":
        return floor_divide(a, b)
    if rounding_mode == "trunc":
        _check_int_division(a, b)
        with _fp_quiet():
            q = binary(Div, a, b, "div", floating=True).trunc()
        dt = common.result_dtype(a, b)
        return q.to(dt) if not dt.is_floating_point else q
    raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{rounding_mode}'")


def true_divide(a, b):
    return div(a, b)


def pow(a, b):  # noqa: A001
    if _is_bool(a) and _is_bool(b):  # NumPy would compute in int8; PyTorch keeps bool, or refuses
        if type(b) is not bool:
            raise RuntimeError("\"pow\" not implemented for 'Bool'")
        return a | (not b)
    T = common.tensor_cls()
    cls = Pow if not isinstance(b, T) else PowTensor if isinstance(a, T) else PowScalarBase
    try:
        if b.__class__ is int and b >= 0:  # x ** 2, the hot case: only overflow could warn
            return binary(cls, a, b, "pow")
        with _fp_quiet():  # (-8) ** (1/3) is nan and 0 ** -1 inf, silently, as in PyTorch
            return binary(cls, a, b, "pow")
    except ValueError as e:  # NumPy: "Integers to negative integer powers are not allowed."
        raise RuntimeError(str(e)) from None


def maximum(a, b):
    return binary(Maximum, a, b, "maximum")


def minimum(a, b):
    return binary(Minimum, a, b, "minimum")


def _no_bool(a, b, kernel):
    if _is_bool(a) and _is_bool(b):  # NumPy would compute in int8
        raise RuntimeError(f'"{kernel}" not implemented for \'Bool\'')


def _check_int_division(a, b):
    """Integer division by zero is an error in PyTorch (NumPy warns and gives 0)."""
    T = common.tensor_cls()
    if common.result_dtype(a, b).is_floating_point:
        return
    if bool((b._data == 0).any()) if isinstance(b, T) else b == 0:
        raise RuntimeError("ZeroDivisionError")


def floor_divide(a, b):
    _no_bool(a, b, "div_floor_cpu")
    _check_int_division(a, b)
    with _fp_quiet():
        return binary(FloorDivide, a, b, "floor_divide")


def remainder(a, b):
    _no_bool(a, b, "remainder_cpu")
    _check_int_division(a, b)
    with _fp_quiet():
        return binary(Remainder, a, b, "remainder")


def fmod(a, b):
    _no_bool(a, b, "fmod_cpu")
    _check_int_division(a, b)
    with _fp_quiet():
        return binary(Fmod, a, b, "fmod")


def _cmp(cls, name):
    def f(a, b):
        return binary(cls, a, b, name, cast=False)
    f.__name__ = name
    return f


eq, ne, lt, le, gt, ge = (_cmp(c, n) for c, n in [
    (Eq, "eq"), (Ne, "ne"), (Lt, "lt"), (Le, "le"), (Gt, "gt"), (Ge, "ge")])
logical_and, logical_or, logical_xor = (_cmp(c, n) for c, n in [
    (LogicalAnd, "logical_and"), (LogicalOr, "logical_or"), (LogicalXor, "logical_xor")])


def _bitwise(cls, name):
    def f(a, b):
        T = common.tensor_cls()
        for x in (a, b):
            if isinstance(x, T) and x.dtype.is_floating_point or isinstance(x, float):
                raise RuntimeError(f"\"{name}_cpu\" not implemented for 'Float': {name} needs integer or bool tensors")
        return binary(cls, a, b, name)
    f.__name__ = name
    return f


bitwise_and, bitwise_or, bitwise_xor = (_bitwise(c, n) for c, n in [
    (BitAnd, "bitwise_and"), (BitOr, "bitwise_or"), (BitXor, "bitwise_xor")])


def where(condition, input=None, other=None):  # noqa: A002
    T = common.tensor_cls()
    if input is None and other is None:
        return condition.nonzero(as_tuple=True)
    if not isinstance(condition, T) or condition.dtype is not _dtype.bool:
        got = condition.dtype if isinstance(condition, T) else type(condition).__name__
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor with dtype {got}")
    tensors = [x for x in (condition, input, other) if isinstance(x, T)]
    dev = common.same_device("where", *tensors)
    dt = common.result_dtype(*(x for x in (input, other)))
    if isinstance(input, T):
        input = common.to_device_of(input.to(dt), dev)
    if isinstance(other, T):
        other = common.to_device_of(other.to(dt), dev)
    condition = common.to_device_of(condition, dev)
    try:
        out = Where.apply(condition, input, other)
    except ValueError:
        common.broadcast_shapes(condition.shape, getattr(input, "shape", ()), getattr(other, "shape", ()), op="where")
        raise
    if out.dtype is not dt:  # two Python scalars: NumPy picks its own dtype
        out = out.to(dt)
    return out


# ---- unary ------------------------------------------------------------------------------

class Neg(Primitive):
    _node_name = "NegBackward0"
    reads_input_in_backward = False

    @staticmethod
    def forward(ctx, a):
        return -a._data

    @staticmethod
    def backward(ctx, grad):
        return (-grad,)


class Exp(Primitive):
    _node_name = "ExpBackward0"
    saves_output = True
    reads_input_in_backward = False

    @staticmethod
    def forward(ctx, a):
        return a._device.xp.exp(a._data)

    @staticmethod
    def backward(ctx, grad):
        return (grad * ctx.saved_output,)


class Log(Primitive):
    _node_name = "LogBackward0"

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        with _quiet(a):
            return a._device.xp.log(a._data)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return (grad / a,)


class Sqrt(Primitive):
    _node_name = "SqrtBackward0"
    saves_output = True
    reads_input_in_backward = False

    @staticmethod
    def forward(ctx, a):
        with _quiet(a):
            return a._device.xp.sqrt(a._data)

    @staticmethod
    def backward(ctx, grad):
        return (grad / (2 * ctx.saved_output),)


class Abs(Primitive):
    _node_name = "AbsBackward0"

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return a._device.xp.abs(a._data)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return (grad * a.sign(),)


class Sin(Primitive):
    _node_name = "SinBackward0"

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return a._device.xp.sin(a._data)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return (grad * a.cos(),)


class Cos(Primitive):
    _node_name = "CosBackward0"

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return a._device.xp.cos(a._data)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return (-grad * a.sin(),)


class Tanh(Primitive):
    _node_name = "TanhBackward0"
    saves_output = True
    reads_input_in_backward = False

    @staticmethod
    def forward(ctx, a):
        return a._device.xp.tanh(a._data)

    @staticmethod
    def backward(ctx, grad):
        y = ctx.saved_output
        return (grad * (1 - y * y),)


class Sigmoid(Primitive):
    _node_name = "SigmoidBackward0"
    saves_output = True
    reads_input_in_backward = False

    @staticmethod
    def forward(ctx, a):
        xp, x = a._device.xp, a._data
        # split by sign so exp never overflows: 1/(1+e^-x) for x>=0, e^x/(1+e^x) for x<0
        e = xp.exp(-xp.abs(x))
        return xp.where(x >= 0, 1 / (1 + e), e / (1 + e)).astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        y = ctx.saved_output
        return (grad * y * (1 - y),)


class Relu(Primitive):
    _node_name = "ReluBackward0"
    saves_output = True
    reads_input_in_backward = False

    @staticmethod
    def forward(ctx, a):
        return a._device.xp.maximum(a._data, 0)

    @staticmethod
    def backward(ctx, grad):
        y = ctx.saved_output  # unpacking checks it was not modified in place
        # The step's derivative is 0 almost everywhere, so the mask is a constant of the graph:
        # one multiply instead of compare, cast and multiply.
        mask = (y._data > 0).astype(grad._data.dtype)
        return (grad * common.tensor_cls()._make(mask, grad._device),)


class Clamp(Primitive):
    _node_name = "ClampBackward1"

    @staticmethod
    def forward(ctx, a, *, min=None, max=None):  # noqa: A002
        ctx.save_for_backward(a)
        ctx.min, ctx.max = min, max
        return a._device.xp.clip(a._data, min, max).astype(a._data.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        keep = a == a  # gradient passes where the input was inside [min, max]
        if ctx.min is not None:
            keep = keep & (a >= ctx.min)
        if ctx.max is not None:
            keep = keep & (a <= ctx.max)
        return (grad * keep,)


class _ZeroGrad(Primitive):
    """Piecewise-constant functions: defined gradient 0 (PyTorch records them too)."""

    ufunc = None

    @classmethod
    def forward(cls, ctx, a):
        return getattr(a._device.xp, cls.ufunc)(a._data)

    @staticmethod
    def backward(ctx, grad):
        return (grad * 0,)


Sign, Floor, Ceil, Round, Trunc = (
    type(n, (_ZeroGrad,), {"ufunc": u, "_node_name": f"{n}Backward0", "__module__": __name__})
    for n, u in [("Sign", "sign"), ("Floor", "floor"), ("Ceil", "ceil"), ("Round", "round"), ("Trunc", "trunc")])


class _NoGradUnary(Primitive):
    differentiable = False
    ufunc = None

    @classmethod
    def forward(cls, ctx, a):
        return getattr(a._device.xp, cls.ufunc)(a._data)


LogicalNot, IsNan, IsInf, IsFinite, BitNot = (
    type(n, (_NoGradUnary,), {"ufunc": u, "__module__": __name__})
    for n, u in [("LogicalNot", "logical_not"), ("IsNan", "isnan"), ("IsInf", "isinf"),
                 ("IsFinite", "isfinite"), ("BitNot", "invert")])


class _quiet:
    """Silence NumPy's floating-point warnings (log(0) is -inf in PyTorch, without a warning)."""

    def __init__(self, t):
        self.np = t._device.xp if t._device.type == "cpu" else None

    def __enter__(self):
        if self.np is not None:
            self._old = self.np.seterr(all="ignore")

    def __exit__(self, *exc):
        if self.np is not None:
            self.np.seterr(**self._old)


def unary(cls, a, *, floating=False, **kw):
    """Run a unary primitive; `floating` ops turn integer input into the default float dtype."""
    if floating and not a.dtype.is_floating_point:
        a = a.to(get_default_dtype())
    return cls.apply(a, **kw)


def neg(a):
    if a.dtype is _dtype.bool:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. "
                           "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.")
    return Neg.apply(a)


def exp(a): return unary(Exp, a, floating=True)  # noqa: E704
def log(a): return unary(Log, a, floating=True)  # noqa: E704
def sqrt(a): return unary(Sqrt, a, floating=True)  # noqa: E704
def sin(a): return unary(Sin, a, floating=True)  # noqa: E704
def cos(a): return unary(Cos, a, floating=True)  # noqa: E704
def tanh(a): return unary(Tanh, a, floating=True)  # noqa: E704
def sigmoid(a): return unary(Sigmoid, a, floating=True)  # noqa: E704
def abs(a): return unary(Abs, a)  # noqa: E704,A001
def relu(a): return unary(Relu, a)  # noqa: E704
def sign(a): return unary(Sign, a)  # noqa: E704
def floor(a): return a if not a.dtype.is_floating_point else unary(Floor, a)  # noqa: E704
def ceil(a): return a if not a.dtype.is_floating_point else unary(Ceil, a)  # noqa: E704
def round(a): return a if not a.dtype.is_floating_point else unary(Round, a)  # noqa: E704,A001
def trunc(a): return a if not a.dtype.is_floating_point else unary(Trunc, a)  # noqa: E704
def logical_not(a): return unary(LogicalNot, a)  # noqa: E704
def isnan(a): return unary(IsNan, a)  # noqa: E704
def isinf(a): return unary(IsInf, a)  # noqa: E704
def isfinite(a): return unary(IsFinite, a)  # noqa: E704


def bitwise_not(a):
    if a.dtype.is_floating_point:
        raise RuntimeError("bitwise_not: only integer and bool tensors are supported, got " + str(a.dtype))
    return unary(BitNot, a)


def rsqrt(a): return 1 / sqrt(a)  # noqa: E704
def log1p(a): return log(a + 1)  # noqa: E704
def expm1(a): return exp(a) - 1  # noqa: E704
def square(a): return a * a  # noqa: E704
def reciprocal(a): return 1 / a  # noqa: E704


def clamp(a, min=None, max=None):  # noqa: A002
    T = common.tensor_cls()
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if isinstance(min, T) or isinstance(max, T):
        out = a
        if min is not None:
            out = maximum(out, min)
        if max is not None:
            out = minimum(out, max)
        return out
    if not a.dtype.is_floating_point and (isinstance(min, float) or isinstance(max, float)):
        a = a.to(get_default_dtype())
    return Clamp.apply(a, min=min, max=max)
