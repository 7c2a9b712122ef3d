"""Elementwise ops: forward and backward side by side.

Binary ops broadcast; their backward returns the gradient at the broadcast shape and the
engine sums it back to each input's shape (see autograd/engine.py), so none of the
formulas below mention broadcasting.
"""
from __future__ import annotations

from ..amp import autocast_mode as _amp  # (autocast: the ops that run in float16 / float32)
from .. import _dtype
from .._errors import hinted
from .._dtype import get_default_dtype
from .. import parts as _parts
from ..autograd.grad_mode import STATE
from . import common
from ._prim import NULL_CTX, Primitive, _tensor_cls
from . import _prim


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
    ctx.scalars = scalars = tuple(None if isinstance(x, T) else x for x in xs)
    if any(s is not None for s in scalars):
        ctx._keeps_values = True  # PyTorch saves a number as a (0-d) tensor: freed by backward all the same


def _load(ctx):
    return tuple(s if t is None else t for t, s in zip(ctx.saved_tensors, ctx.scalars))


# ---- binary ---------------------------------------------------------------------------

class Add(Primitive):
    _node_name = "AddBackward0"
    array_backward = True  # the formula below also runs on arrays (see _prim.py)
    reads_input_in_backward = False

    @staticmethod
    def forward(ctx, a, b):
        return getattr(a, "_data", a) + getattr(b, "_data", b)

    @staticmethod
    def backward(ctx, grad):
        if _parts.local_backward is not None:  # a course part (minitorch/parts.py)
            return _parts.local_backward("add", (0.0, 0.0), grad, ctx.needs_input_grad)
        return grad, grad


class Sub(Primitive):
    _node_name = "SubBackward0"
    array_backward = True  # the formula below also runs on arrays (see _prim.py)
    reads_input_in_backward = False

    @staticmethod
    def forward(ctx, a, b):
        return getattr(a, "_data", a) - getattr(b, "_data", b)

    @staticmethod
    def backward(ctx, grad):
        if _parts.local_backward is not None:  # a course part (minitorch/parts.py)
            return _parts.local_backward("sub", (0.0, 0.0), grad, ctx.needs_input_grad)
        return grad, -grad


class AddAlpha(Primitive):
    """a + alpha * b, as PyTorch records add(alpha=...): one node (AddBackward0) that keeps alpha;
    b's gradient is grad * alpha."""
    _node_name = "AddBackward0"
    array_backward = True  # the formula below also runs on arrays (see _prim.py)
    reads_input_in_backward = False
    sign = 1

    @classmethod
    def forward(cls, ctx, a, b, *, alpha):
        ctx.alpha = alpha
        x, y = getattr(a, "_data", a), getattr(b, "_data", b) * alpha
        return x + y if cls.sign > 0 else x - y

    @classmethod
    def backward(cls, ctx, grad):
        return grad, (grad * ctx.alpha if cls.sign > 0 else -grad * ctx.alpha)


class SubAlpha(AddAlpha):
    _node_name = "SubBackward0"
    sign = -1


class Mul(Primitive):
    _node_name = "MulBackward0"
    pack_order = (1, 0)  # PyTorch saves `other` before `self`: saved_tensors_hooks see that order
    array_backward = True  # the formula below also runs on arrays (see _prim.py)

    @staticmethod
    def forward(ctx, a, b):
        need = ctx.needs_input_grad
        if need:  # save only what backward reads, as PyTorch does: y * 0.5 leaves y free to change
            _save(ctx, a if need[1] else None, b if need[0] else None)
        return getattr(a, "_data", a) * getattr(b, "_data", b)

    @staticmethod
    def backward(ctx, grad):
        a, b = _load(ctx)
        if _parts.local_backward is not None:  # a course part (minitorch/parts.py)
            return _parts.local_backward("mul", (a, b), grad, ctx.needs_input_grad)
        return (grad * b if ctx.needs_input_grad[0] else None,
                grad * a if ctx.needs_input_grad[1] else None)


class Div(Primitive):
    _node_name = "DivBackward0"
    pack_order = (1, 0)  # PyTorch saves `other` before `self`: saved_tensors_hooks see that order
    array_backward = True  # the formula below also runs on arrays (see _prim.py)

    @staticmethod
    def forward(ctx, a, b):
        need = ctx.needs_input_grad
        if need:  # b is always read; a only for b's gradient
            _save(ctx, a if need[1] else None, b)
        return getattr(a, "_data", a) / getattr(b, "_data", b)

    @staticmethod
    def backward(ctx, grad):
        a, b = _load(ctx)
        if _parts.local_backward is not None:  # a course part (minitorch/parts.py)
            return _parts.local_backward("div", (a, b), grad, ctx.needs_input_grad)
        ga = grad / b if ctx.needs_input_grad[0] else None
        gb = -grad * a / (b * b) if ctx.needs_input_grad[1] else None
        return ga, gb


class Pow(Primitive):
    _node_name = "PowBackward0"
    pack_order = (1, 0)  # (`exponent` before `self`, as PyTorch saves them)

    @staticmethod
    def forward(ctx, a, b):
        _save(ctx, a, b)
        if b.__class__ in _PY_NUMBERS and isinstance(a, common.tensor_cls()):
            return pow_scalar_array(a._device.xp, a._data, b)
        return getattr(a, "_data", a) ** getattr(b, "_data", b)

    @staticmethod
    def backward(ctx, grad):
        a, b = _load(ctx)
        # tensor ** tensor kept its result, read (so checked against in-place changes) even when unused
        out = ctx.saved_output if ctx._fn.saves_output else None
        if _parts.local_backward is not None:  # a course part (minitorch/parts.py)
            return _parts.local_backward("pow", (a, b), grad, ctx.needs_input_grad)
        ga = gb = None
        if ctx.needs_input_grad[0]:
            if getattr(ctx, "bool_exponent", False):
                _check_sub(True, 1)
            # d(a^b)/da = b a^(b-1); PyTorch defines it as 0 where b == 0 (even at a == 0)
            ga = grad * b * a ** (b - 1)
            if isinstance(b, common.tensor_cls()):
                ga = where(b == 0, 0.0, ga)
            elif b == 0:
                ga = grad * 0.0
        if ctx.needs_input_grad[1]:
            # d(a^b)/db = a^b log(a), taken as 0 where a == 0 and b >= 0
            out = a ** b if out is None else out
            log_a = log(a) if isinstance(a, common.tensor_cls()) else _scalar_log(a)
            gb = grad * out * log_a
            if isinstance(a, common.tensor_cls()):
                gb = where((a == 0) & (b >= 0), 0.0, gb)
            elif a == 0:
                gb = where(b >= 0, 0.0, gb)
        return ga, gb


class PowTensor(Pow):
    """tensor ** tensor. PyTorch keeps its result for the exponent's gradient, so an in-place
    change of that result is refused at backward: it is saved here too."""
    _node_name = "PowBackward1"  # PyTorch names pow by its operands: tensor ** tensor
    saves_output = True


def _scalar_log(x):
    import math
    return math.log(x) if x > 0 else float("nan") if x < 0 else float("-inf")


class Maximum(Primitive):
    _node_name = "MaximumBackward0"
    pack_order = (1, 0)  # PyTorch saves `other` before `self`: saved_tensors_hooks see that order

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        # NumPy keeps its second operand on a tie, PyTorch the first: -0. vs 0. gives a's
        return _xp(a, b).maximum(getattr(b, "_data", b), getattr(a, "_data", a))

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        # PyTorch's formula: ties split the gradient evenly, and only the smaller operand gets none
        # (a NaN compares false either way, so both operands of a NaN get the whole gradient)
        half = where(a == b, grad / 2, grad)
        return where(a < b, 0.0, half), where(a > b, 0.0, half)


class Minimum(Primitive):
    _node_name = "MinimumBackward0"
    pack_order = (1, 0)  # PyTorch saves `other` before `self`: saved_tensors_hooks see that order

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return _xp(a, b).minimum(getattr(b, "_data", b), getattr(a, "_data", a))  # a's on a tie

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        half = where(a == b, grad / 2, grad)  # (as Maximum's)
        ga, gb = where(a > b, 0.0, half), where(a < b, 0.0, half)
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


class Remainder(Primitive):
    """Python's %: the sign of the divisor. a - b * floor(a / b), so d/da = 1, d/db = -floor(a / b)."""
    _node_name = "RemainderBackward1"  # tensor % tensor; RemainderBackward0 is tensor % number
    ufunc, rounding = "remainder", "floor"
    pack_order = (1, 0)  # PyTorch saves `other` before `self`: saved_tensors_hooks see that order

    @classmethod
    def forward(cls, ctx, a, b):
        if ctx.needs_input_grad and ctx.needs_input_grad[1]:
            ctx.number = None if hasattr(a, "_data") else a  # (number % tensor: only the tensor is saved)
            ctx.save_for_backward(*(t for t in (a, b) if hasattr(t, "_data")))
        xp, x, y = _xp(a, b), getattr(a, "_data", a), getattr(b, "_data", b)
        if cls.ufunc == "fmod" or "f" not in (xp.asarray(x).dtype.kind, xp.asarray(y).dtype.kind):
            return getattr(xp, cls.ufunc)(x, y)
        # PyTorch's float remainder: fmod, moved into the divisor's sign; so -2.0 % 1.0 is -0., as there
        m = xp.fmod(x, y)
        return xp.where((m != 0) & ((y < 0) != (m < 0)), m + y, m)

    @classmethod
    def backward(cls, ctx, grad):
        if not ctx.needs_input_grad[1]:
            return grad, None
        a, b = ctx.saved_tensors if ctx.number is None else (ctx.number, *ctx.saved_tensors)
        q = div(getattr(a, "detach", lambda: a)(), b.detach(), rounding_mode=cls.rounding)  # piecewise constant: no derivative of its own
        return (grad if ctx.needs_input_grad[0] else None), -grad * q


class RemainderOfNumber(Remainder):
    """number % tensor: PyTorch records it without a derivative; backward says so."""
    _node_name = "NotImplemented"

    @classmethod
    def backward(cls, ctx, grad):
        raise RuntimeError("derivative for aten::remainder is not implemented")


class RemainderScalar(Primitive):
    """tensor % number: the tensor is the only input (RemainderBackward0); d/da = 1."""
    _node_name = "RemainderBackward0"
    reads_input_in_backward = False
    ufunc = "remainder"

    @classmethod
    def forward(cls, ctx, a, *, other):
        return Remainder.forward(NULL_CTX, a, other) if cls.ufunc == "remainder" else \
            a._device.xp.fmod(a._data, other)

    @staticmethod
    def backward(ctx, grad):
        return (grad,)


class Fmod(Remainder):
    """C's fmod: the sign of the dividend; a - b * trunc(a / b)."""
    _node_name = "FmodBackward1"
    ufunc, rounding = "fmod", "trunc"


class FmodScalar(RemainderScalar):
    _node_name = "FmodBackward0"
    ufunc = "fmod"


class FloorDivide(Primitive):
    """Recorded for floats, as in PyTorch, whose floor_divide has no derivative: backward says so."""
    _node_name = "NotImplemented"
    reads_input_in_backward = False
    int_result_error = False  # (an integer result is simply not recorded)

    @staticmethod
    def forward(ctx, a, b=None, *, other=None):
        return _xp(a, b).floor_divide(getattr(a, "_data", a), getattr(b, "_data", b) if b is not None else other)

    @staticmethod
    def backward(ctx, grad):
        raise RuntimeError("derivative for floor_divide is not implemented (floor division is piecewise constant: "
                           "its gradient would be 0 almost everywhere; detach() the result if that is meant)")


class _Shift(Primitive):
    """Bit shifts with PyTorch's answer for shifts outside [0, bits): 0 (left), or the sign (right)."""
    differentiable = False
    left = True

    @classmethod
    def forward(cls, ctx, a, b):
        xp = _xp(a, b)
        dt = (a if hasattr(a, "_data") else b)._data.dtype  # (a number takes the tensor's dtype: 2 << t)
        x, s = xp.asarray(getattr(a, "_data", a), dtype=dt), xp.asarray(getattr(b, "_data", b), dtype=dt)
        if x.dtype.kind == "b":
            x = x.astype(xp.int64)
        s = s.astype(x.dtype)
        bits = 8 * x.dtype.itemsize
        signed = x.dtype.kind == "i"
        wild = (s < 0) | (s >= bits - (signed and not cls.left))
        safe = xp.where(wild, 0, s)
        if cls.left:
            out = xp.where(wild, 0, xp.left_shift(x, safe))
        elif signed:  # an arithmetic shift by bits - 1 leaves only the sign: -1 or 0
            out = xp.right_shift(x, xp.where(wild, bits - 1, safe))
        else:
            out = xp.where(wild, 0, xp.right_shift(x, safe))
        return out.astype(x.dtype, copy=False)


class LShift(_Shift):
    left = True


class RShift(_Shift):
    left = False


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

_NO_KW = {}


def binary(cls, a, b, op, *, floating=False, cast=True, kw=None):
    """Check devices, promote dtypes as PyTorch does, and run a binary primitive (`kw`: its options)."""
    kw = kw or _NO_KW
    T = _prim._Tensor or _tensor_cls()
    a_t, b_t = isinstance(a, T), isinstance(b, T)
    if a_t and b_t:
        if a._device is not b._device:
            dev = common.same_device(op, a, b)
            a, b = common.to_device_of(a, dev), common.to_device_of(b, dev)
        ad, bd = a._data, b._data
        if ad.dtype is bd.dtype or ad.dtype == bd.dtype:
            if not floating or ad.dtype.kind == "f":  # the common case: nothing to promote or cast
                try:
                    out = cls.apply(a, b, **kw)
                except ValueError as e:
                    _raise_broadcast(a, b, op, e)
                if ad.flags.c_contiguous and bd.flags.c_contiguous and (
                        ad.shape == bd.shape or 1 not in ad.shape and 1 not in bd.shape):
                    return out  # row-major inputs: NumPy's layout is PyTorch's
                return laid_out(out, a, b)
            dt = a.dtype
        else:
            dt = common.result_dtype(a, b)
    elif a_t:
        bc = b.__class__
        if (bc is float or bc is int) and a._data.dtype.kind == "f":  # float tensor and a number: no casting
            try:
                out = cls.apply(a, b, **kw)
            except ValueError as e:
                _raise_broadcast(a, b, op, e)
            d = a._data
            return out if d.flags.c_contiguous and 1 not in d.shape else laid_out(out, a, b)
        if bc not in _PY_NUMBERS:
            return binary(cls, a, _as_operand(b, op), op, floating=floating, cast=cast, kw=kw)
        dt = a.dtype if type(b) is not float or a.dtype.is_floating_point else common.result_dtype(a, b)
        if type(b) is bool or (type(b) is int and dt is _dtype.bool):
            dt = common.result_dtype(a, b)
    elif b_t:
        if a.__class__ not in _PY_NUMBERS:
            return binary(cls, _as_operand(a, op), b, op, floating=floating, cast=cast, kw=kw)
        dt = common.result_dtype(a, b)
    else:
        raise TypeError(f"{op}: expected at least one Tensor argument")
    if floating and not dt.is_floating_point:
        dt = get_default_dtype()
    if cast:
        if not dt.is_floating_point and cls.int_result_error and cls.differentiable and STATE.enabled and (
                a_t and a._requires_grad or b_t and b._requires_grad):
            # (an integer tensor that requires grad, an in-place comparison's result: the cast below would drop
            # that, and PyTorch refuses to record the op on an integer result)
            raise RuntimeError(f"Autograd not support dtype: {dt._short}")
        if a_t and a.dtype is not dt:
            a = a.to(dt)
        if b_t and b.dtype is not dt:
            b = b.to(dt)
        if not a_t:
            a = _scalar_as(a, dt)
        if not b_t:
            b = _scalar_as(b, dt)
    elif type(b) is int and dt._category == 1:  # comparisons: an int is cast (wrapped) like a tensor
        b = _scalar_as(b, dt)
    try:
        out = cls.apply(a, b, **kw)
    except ValueError as e:
        _raise_broadcast(a, b, op, e)
    if not (a_t and b_t):  # a tensor and a number: row-major stays row-major
        d = (a if a_t else b)._data
        if d.flags.c_contiguous and 1 not in d.shape:
            return out
    return laid_out(out, a, b)


def laid_out(out, *xs):
    """`out` in PyTorch's memory layout for an elementwise op over `xs` (tensors or numbers): only
    inputs that are not all row-major can make it differ from NumPy's (see common.result_strides)."""
    T = _tensor_cls()
    for x in xs:
        if isinstance(x, T):
            d = x._data
            if not d.flags.c_contiguous or 1 in d.shape and not common.canonical(d):
                break
    else:
        return out  # row-major inputs: NumPy's layout is PyTorch's
    arr = out._data
    if arr.size <= 1:
        return out
    if 1 not in arr.shape:
        for x in xs:
            if isinstance(x, T) and not common.c_ordered(x._data):
                break
        else:  # broadcast (stride-0) and step-sliced inputs whose dims still run outer to inner: row-major
            if not common.canonical(arr):
                out._data = common.row_major(arr, out._device.xp)
            return out
    strides = common.result_strides(out.shape, [(x.shape, x.stride()) if isinstance(x, T) else ((), ())
                                                for x in xs])
    out._data = common.relayout(out._data, strides, out._device.xp)
    return out


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


def _two_numbers(a, b, op):
    """`torch.add(5, 5)`: PyTorch makes the first number a tensor (a 0-d one, of its default dtype)."""
    T = common.tensor_cls()
    if isinstance(a, T) or isinstance(b, T):
        return a
    if a.__class__ in _PY_NUMBERS and b.__class__ in _PY_NUMBERS:
        from .._factories import tensor
        return tensor(a)
    raise TypeError(f"{op}(): argument 'input' (position 1) must be Tensor, not {type(a).__name__}")


def _alpha(a, b, alpha, op):
    """PyTorch's checks of alpha, and how it applies: (b', factor) to add b' * factor, alpha in the
    result's dtype (not in b's own); factor None: add b' as it is (alpha 1, a bool, a number b)."""
    dt = common.result_dtype(a, b)
    if isinstance(alpha, float) and not dt.is_floating_point:
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating point number.")
    if isinstance(alpha, bool) and dt is not _dtype.bool:
        raise RuntimeError("Boolean alpha only supported for Boolean results.")
    if isinstance(alpha, bool) or dt is _dtype.bool:
        return (b if alpha else (b & False if isinstance(b, common.tensor_cls()) else False)), None
    if alpha == 1:  # (1.0: checked as a float, then nothing to scale)
        return b, None
    # PyTorch converts alpha to the result's dtype, checked (300 does not fit int8, 1e6 not half);
    # sub adds other * -alpha, so it is -alpha that must fit (sub(alpha=128) is fine in int8)
    _dtype.checked_scalar(-alpha if op.rstrip("_") == "sub" else alpha, dt)
    if not isinstance(b, common.tensor_cls()):
        return b * alpha, None
    if dt._category == 1:
        alpha = _scalar_as(alpha, dt)  # (wrapped into the dtype: the product is the same modulo 2^bits)
    return b, alpha


def _scaled(a, b, alpha, op):
    """`b * alpha` in the result's dtype, as PyTorch applies alpha (not in b's own dtype)."""
    b, factor = _alpha(a, b, alpha, op)
    if factor is None:
        return b
    dt = common.result_dtype(a, b)
    return (b if b.dtype is dt else b.to(dt)) * factor


def add(input, other, *, alpha=1):
    input = _two_numbers(input, other, "add")
    if alpha != 1 or alpha.__class__ is not int:
        other, factor = _alpha(input, other, alpha, "add")
        if factor is not None:
            return binary(AddAlpha, input, other, "add", kw={"alpha": factor})
    return binary(Add, input, other, "add")


def _is_bool(x):
    return x.dtype is _dtype.bool if isinstance(x, common.tensor_cls()) else type(x) is bool


def _check_sub(a, b):
    a_bool, b_bool = _is_bool(a), _is_bool(b)
    if a_bool and b_bool:
        raise RuntimeError(
            "Subtraction, the `-` operator, with two bool tensors is not supported. "
            "Use the `^` or `logical_xor()` operator instead.")
    if a_bool or b_bool:
        raise RuntimeError(
            "Subtraction, the `-` operator, with a bool tensor is not supported. "
            "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.")


def sub(input, other, *, alpha=1):
    input = _two_numbers(input, other, "sub")
    _check_sub(input, other)
    if alpha != 1 or alpha.__class__ is not int:
        other, factor = _alpha(input, other, alpha, "sub")
        if factor is not None:
            return binary(SubAlpha, input, other, "sub", kw={"alpha": factor})
    return binary(Sub, input, other, "sub")


class Rsub(Primitive):
    """`number - t`: PyTorch records it with the tensor as the only input (RsubBackward1)."""
    _node_name = "RsubBackward1"
    array_backward = True  # the formula below also runs on arrays (see _prim.py)
    reads_input_in_backward = False

    @staticmethod
    def forward(ctx, a, *, other):
        return other - a._data

    @staticmethod
    def backward(ctx, grad):
        return (-grad,)


class RsubTensor(Primitive):
    """rsub(t, other) = other - t, recorded with t first (RsubBackward0)."""
    _node_name = "RsubBackward0"
    array_backward = True  # the formula below also runs on arrays (see _prim.py)
    reads_input_in_backward = False

    @staticmethod
    def forward(ctx, t, other):
        return getattr(other, "_data", other) - getattr(t, "_data", t)

    @staticmethod
    def backward(ctx, grad):
        return -grad, grad


def rsub(input, other, *, alpha=1):
    """`other - alpha * t` (PyTorch's rsub; `2 - t` calls it)."""
    T = common.tensor_cls()
    _check_sub(input, other)
    if isinstance(other, T) and isinstance(input, T) and alpha == 1 and alpha.__class__ is int:
        return binary(RsubTensor, input, other, "rsub")
    if isinstance(other, T) or other.__class__ not in _PY_NUMBERS or alpha != 1 or alpha.__class__ is not int:
        return sub(other, input, alpha=alpha)
    dt = common.result_dtype(input, other)
    if input.dtype is not dt:
        input = input.to(dt)
    return Rsub.apply(input, other=_scalar_as(other, dt))


def mul(input, other):
    input = _two_numbers(input, other, "mul")
    return binary(Mul, input, other, "mul")


def _fp_quiet():
    """PyTorch gives inf/nan for x/0 without a warning; NumPy warns (CuPy never does)."""
    import numpy
    return numpy.errstate(divide="ignore", invalid="ignore", over="ignore")


class _NotGiven:
    """The default of an argument whose absence PyTorch tells apart from None (it prints as None)."""

    def __repr__(self):
        return "None"


NOT_GIVEN = _NotGiven()


class _DivRoundingNone(Div):
    _node_name = "DivBackward2"  # div(a, b, rounding_mode=None): PyTorch's rounding overload, true division


def div(input, other, *, rounding_mode=NOT_GIVEN):
    input = _two_numbers(input, other, "div")
    if rounding_mode is None or rounding_mode is NOT_GIVEN:
        with _fp_quiet():
            return binary(Div if rounding_mode is NOT_GIVEN else _DivRoundingNone, input, other, "div", floating=True)
    if rounding_mode not in ("floor", "trunc"):
        raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
                           f"'{rounding_mode}'")
    _no_bool(input, other, "div_floor_cpu" if rounding_mode == "floor" else "div_trunc_cpu")
    _check_int_division(input, other)
    with _fp_quiet():
        return binary(DivFloor if rounding_mode == "floor" else DivTrunc, input, other, "div")


class DivFloor(Primitive):
    """div(rounding_mode="floor"/"trunc"): piecewise constant, recorded with gradient 0 (DivBackward2)."""
    _node_name = "DivBackward2"
    reads_input_in_backward = False

    @staticmethod
    def forward(ctx, a, b):
        _keep_divisor(ctx, b)
        return _xp(a, b).floor_divide(getattr(a, "_data", a), getattr(b, "_data", b))

    @staticmethod
    def backward(ctx, grad):
        ctx.saved_tensors  # noqa: B018  (PyTorch's node keeps a tensor divisor: a second backward is refused)
        return zeros_like_grad(grad), zeros_like_grad(grad)


def _keep_divisor(ctx, b):
    _save(ctx, b)  # (a number too, as PyTorch wraps it in a tensor)


class DivTrunc(DivFloor):
    _node_name = "DivBackward2"
    @staticmethod
    def forward(ctx, a, b):
        _keep_divisor(ctx, b)
        xp, x, y = _xp(a, b), getattr(a, "_data", a), getattr(b, "_data", b)
        if xp.asarray(x).dtype.kind == "f":
            return xp.trunc(x / y)
        q = xp.floor_divide(x, y)  # integers: C's division, toward zero
        return q + ((q < 0) & (q * y != x))


def true_divide(input, other):
    return div(input, other)


def rdiv(t, other):
    """`number / t`, as PyTorch computes it: reciprocal(t) * number."""
    if other.__class__ in _PY_NUMBERS:
        return mul(reciprocal(t), other)
    return div(other, t)


@_amp.float32_gpu
def pow(input, exponent):  # noqa: A001
    T = common.tensor_cls()
    if not isinstance(input, T) and not isinstance(exponent, T):
        raise TypeError(f"pow() received an invalid combination of arguments - got ({type(input).__name__}, "
                        f"{type(exponent).__name__}): one of them must be a Tensor")
    if _is_bool(input) and _is_bool(exponent):  # NumPy would compute in int8; PyTorch keeps bool, or refuses
        if type(exponent) is not bool:
            raise NotImplementedError("\"pow\" not implemented for 'Bool'")
        return input | (not exponent)
    if isinstance(exponent, T) and not isinstance(input, T) or isinstance(input, T) and not isinstance(exponent, T):
        return _pow_scalar(input, exponent)
    dt = common.result_dtype(input, exponent)
    if not dt.is_floating_point and dt is not _dtype.bool and bool((exponent._data.astype(dt.np) < 0).any()):
        return _int_pow_negative(input, exponent, dt)  # (negative once in the result's dtype: an int32 0-d
        # 2**31 - 1 is -1 in int16)
    with _fp_quiet():  # (-8) ** (1/3) is nan and 0 ** -1 inf, silently, as in PyTorch
        out = binary(PowTensor, input, exponent, "pow")
    if exponent.dtype is _dtype.bool and out.grad_fn is not None:
        out.grad_fn.bool_exponent = True  # (PyTorch's gradient of the base computes exponent - 1: refused for bool)
    return out


def _int_pow_negative(a, b, dt):
    """Integers to negative powers, as PyTorch computes them: 1 ** -n is 1, (-1) ** -n is +-1, and
    every other base gives 0 (the integer part of 1 / base ** n)."""
    from .._tensor import Tensor
    common.broadcast_shapes(a.shape, b.shape, op="pow")
    a, b = a.to(dt), b.to(dt)
    xp = a._device.xp
    x, e = xp.broadcast_arrays(a._data, b._data)
    pos = xp.where(e < 0, 0, e)
    out = x ** pos
    neg = xp.where(x == 1, 1, xp.where(x == -1, xp.where(e % 2 == 0, 1, -1), 0)).astype(x.dtype)
    return laid_out(Tensor._make(xp.where(e < 0, neg, out), a._device), a, b)


def pow_scalar_array(xp, x, e):
    """x ** e for a number e, as PyTorch's CPU kernel computes it: in float and double, e = 0.5, -0.5
    and -1 are sqrt, rsqrt and reciprocal (so sqrt's -0. and NaN at -inf), 2, 3 and -2 products;
    in half, C's pow with e rounded to half (pow(-inf, 0.5) is inf there). Integers: NumPy's."""
    if x.dtype.kind != "f":
        return x ** e
    if x.dtype.itemsize == 2:
        e = x.dtype.type(e).astype("float32")
        out = xp.power(x.astype("float32"), e)
        if not float(e).is_integer() and e == e:  # C's pow at -0. and -inf (NumPy's takes a sqrt for 0.5 and
            # keeps their sign); a NaN exponent is NaN but at 1, where NumPy's power agrees
            out = xp.where(x == 0, 0.0 if e > 0 else xp.inf, xp.where(x == -xp.inf, xp.inf if e > 0 else 0.0, out))
        return out.astype(x.dtype)
    if e == 0.5:
        return x ** 0.5  # (NumPy's ** takes its sqrt here too)
    if e == -0.5:
        return 1 / x ** 0.5
    if e == 2 or e == 3:
        return x * x if e == 2 else x * x * x
    if e == -2:
        return 1 / (x * x)
    return x ** e


class PowScalar(Primitive):
    """tensor ** number: recorded with the tensor as its only input (PowBackward0)."""
    _node_name = "PowBackward0"
    array_backward = True

    @staticmethod
    def forward(ctx, a, *, exponent):
        ctx.save_for_backward(a)
        ctx.exponent = exponent
        return pow_scalar_array(a._device.xp, a._data, exponent)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        e = ctx.exponent
        if _parts.local_backward is not None:  # a course part (minitorch/parts.py)
            return _parts.local_backward("pow", (a, e), grad, (True, False))[:1]
        if e == 0:  # PyTorch's choice: 0, even at a == 0
            return (zeros_like_grad(grad),)
        return (grad * e * a ** (e - 1),)


class PowScalarBase(Primitive):
    """number ** tensor (PowBackward2): d/db = base ** b * log(base), taken as 0 at base 0, b >= 0."""
    _node_name = "PowBackward2"
    saves_output = True

    @staticmethod
    def forward(ctx, b, *, base, bool_base=False):
        ctx.base, ctx.bool_base = base, bool_base
        if base == 0:
            ctx.save_for_backward(b)
        # (PyTorch's number ** tensor is laid out row-major, whatever the exponent's layout)
        return common.row_major(base ** b._data, b._device.xp)

    @staticmethod
    def backward(ctx, grad):
        if ctx.bool_base:  # (PyTorch's formula takes the log of a bool Scalar, which its Scalar type refuses)
            raise RuntimeError('false INTERNAL ASSERT FAILED at "/__w/pytorch/pytorch/c10/core/Scalar.cpp":42, please '
                               'report a bug to PyTorch. unknown ivalue tag 4')
        g = grad * ctx.saved_output * _scalar_log(ctx.base)
        if ctx.base == 0:
            (b,) = ctx.saved_tensors
            g = where(b >= 0, 0.0, g)
        return (g,)


def _pow_scalar(a, b):
    T = common.tensor_cls()
    t, n = (a, b) if isinstance(a, T) else (b, a)
    if n.__class__ not in _PY_NUMBERS:
        n = _as_operand(n, "pow")
        if isinstance(n, T):
            return pow(a if isinstance(a, T) else n, b if isinstance(b, T) else n)
    dt = common.result_dtype(t, n)
    t = t if t.dtype is dt else t.to(dt)
    if isinstance(a, T):
        if not dt.is_floating_point:
            _dtype.checked_scalar(n, dt)  # the exponent must fit the dtype (PyTorch converts it, checked)
            if n < 0:
                raise RuntimeError("Integers to negative integer powers are not allowed.")
        if n.__class__ is int and n >= 0:  # x ** 2, the hot case: only overflow could warn
            return laid_out(PowScalar.apply(t, exponent=n), t)  # a unary op for PyTorch: no scalar operand
        with _fp_quiet():
            return laid_out(PowScalar.apply(t, exponent=n), t)  # a unary op for PyTorch: no scalar operand
    bool_base, n = n.__class__ is bool, _scalar_as(n, dt)
    if not dt.is_floating_point and bool((t._data < 0).any()):
        out = _int_pow_negative(common.tensor_cls()._make(t._device.xp.asarray(n, dtype=dt.np), t._device), t, dt)
        out._data = common.row_major(out._data, out._device.xp)  # (as PowScalarBase's)
        return out
    with _fp_quiet():
        return PowScalarBase.apply(t, base=n, bool_base=bool_base)


def _tensor_operand(x, op, pos):
    """maximum, minimum, logical_*: PyTorch takes tensors only (no Python numbers)."""
    if not isinstance(x, common.tensor_cls()):
        raise TypeError(f"{op}(): argument '{'input' if pos == 1 else 'other'}' (position {pos}) must be Tensor, "
                        f"not {type(x).__name__}")


def maximum(input, other):
    _tensor_operand(input, "maximum", 1)
    _tensor_operand(other, "maximum", 2)
    return binary(Maximum, input, other, "maximum")


def minimum(input, other):
    _tensor_operand(input, "minimum", 1)
    _tensor_operand(other, "minimum", 2)
    return binary(Minimum, input, other, "minimum")


def _no_bool(a, b, kernel):
    if _is_bool(a) and _is_bool(b):  # NumPy would compute in int8
        raise NotImplementedError(f'"{kernel}" not implemented for \'Bool\'')


def _check_int_division(a, b):
    """Integer division by zero is an error in PyTorch (NumPy warns and gives 0)."""
    T = common.tensor_cls()
    if common.result_dtype(a, b).is_floating_point:
        return
    if any(isinstance(x, T) and x._data.size == 0 for x in (a, b)):
        return  # nothing is divided
    if bool((b._data == 0).any()) if isinstance(b, T) else b == 0:
        raise RuntimeError("ZeroDivisionError")


def floor_divide(input, other):
    input = _two_numbers(input, other, "floor_divide")
    common.shapes_first("floor_divide", input, other)
    _no_bool(input, other, "div_floor_cpu")
    _check_int_division(input, other)
    with _fp_quiet():
        if other.__class__ in _PY_NUMBERS and isinstance(input, common.tensor_cls()):
            return _with_number(FloorDivide, input, other)
        return binary(FloorDivide, input, other, "floor_divide")


def _with_number(cls, a, b):
    """tensor op number, recorded with the tensor as the only input (PyTorch's Scalar overloads)."""
    dt = common.result_dtype(a, b)
    if a.dtype is not dt and not dt.is_floating_point and STATE.enabled and a._requires_grad and \
            cls.int_result_error and cls.differentiable:
        raise RuntimeError(f"Autograd not support dtype: {dt._short}")  # (as binary's)
    a = a if a.dtype is dt else a.to(dt)
    return laid_out(cls.apply(a, other=_scalar_as(b, dt)), a, b)  # (the number takes part, as in PyTorch)


def _needs_tensor_first(a, op):
    if not isinstance(a, common.tensor_cls()):
        raise TypeError(f"{op}() received an invalid combination of arguments - got ({type(a).__name__}, ...): "
                        "the first argument must be a Tensor")


def remainder(input, other):
    T = common.tensor_cls()
    if not isinstance(input, T) and not isinstance(other, T):
        _needs_tensor_first(input, "remainder")
    common.shapes_first("remainder", input, other)
    _no_bool(input, other, "remainder_cpu")
    _check_int_division(input, other)
    with _fp_quiet():
        if other.__class__ in _PY_NUMBERS and isinstance(input, T):
            return _with_number(RemainderScalar, input, other)
        return binary(Remainder if isinstance(input, T) else RemainderOfNumber, input, other, "remainder")


def fmod(input, other):
    _needs_tensor_first(input, "fmod")
    common.shapes_first("fmod", input, other)
    _no_bool(input, other, "fmod_cpu")
    _check_int_division(input, other)
    with _fp_quiet():
        if other.__class__ in _PY_NUMBERS:
            return _with_number(FmodScalar, input, other)
        return binary(Fmod, input, other, "fmod")


def _no_float(a, b, kernel):
    """The integer kernels (bitwise ops, shifts) have no float version: PyTorch's error names the
    operands' promoted dtype."""
    T = common.tensor_cls()
    if any(isinstance(x, T) and x.dtype.is_floating_point or isinstance(x, float) for x in (a, b)):
        dt = common.result_dtype(a, b)
        raise hinted(NotImplementedError, f"\"{kernel}\" not implemented for '{dt._short}'",
                     "bitwise ops and shifts take integer or bool tensors")


def _shift(cls, name, kernel):
    def f(input, other):
        T = common.tensor_cls()
        if not isinstance(input, T) and not isinstance(other, T):
            _needs_tensor_first(input, name)
        common.shapes_first(name, input, other)
        _no_float(input, other, kernel + "_cpu")
        _no_bool(input, other, kernel + "_cpu")
        return binary(cls, input, other, name)
    f.__name__ = f.__qualname__ = name
    return f


bitwise_left_shift = _shift(LShift, "bitwise_left_shift", "lshift")
bitwise_right_shift = _shift(RShift, "bitwise_right_shift", "rshift")


def _cmp(cls, name):
    def f(input, other):  # compared in the promoted dtype, as PyTorch does (a 0-d int64 tensor wraps into int16)
        return binary(cls, input, other, name)
    f.__name__ = f.__qualname__ = name
    return f


eq, ne, lt, le, gt, ge = (_cmp(c, n) for c, n in [
    (Eq, "eq"), (Ne, "ne"), (Lt, "lt"), (Le, "le"), (Gt, "gt"), (Ge, "ge")])


def _logical(cls, name):
    def f(input, other):
        _tensor_operand(input, name, 1)
        _tensor_operand(other, name, 2)
        return binary(cls, input, other, name)  # (in the promoted dtype: a 0-d int64 256 is 0 in uint8)
    f.__name__ = f.__qualname__ = name
    return f


logical_and, logical_or, logical_xor = (_logical(c, n) for c, n in [
    (LogicalAnd, "logical_and"), (LogicalOr, "logical_or"), (LogicalXor, "logical_xor")])


def _bitwise(cls, name):
    def f(input, other):
        common.shapes_first(name, input, other)
        _no_float(input, other, name + "_cpu")
        return binary(cls, input, other, name)
    f.__name__ = f.__qualname__ = name
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
    if dt is not _dtype.float16:  # a Python number is converted to the result's dtype, checked
        input, other = (x if x is None else checked_bounds(dt, x)[0] for x in (input, other))
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
    return laid_out(out, condition, input, other)


# ---- unary ------------------------------------------------------------------------------

class Neg(Primitive):
    _node_name = "NegBackward0"
    array_backward = True  # the formula below also runs on arrays (see _prim.py)
    reads_input_in_backward = False

    @staticmethod
    def forward(ctx, a):
        return -a._data

    @staticmethod
    def backward(ctx, grad):
        if _parts.local_backward is not None:  # a course part (minitorch/parts.py)
            return _parts.local_backward("neg", (0.0,), grad, ctx.needs_input_grad)
        return (-grad,)


class Exp(Primitive):
    _node_name = "ExpBackward0"
    array_backward = True  # the formula below also runs on arrays (see _prim.py)
    saves_output = True
    reads_input_in_backward = False

    @staticmethod
    def forward(ctx, a):
        return a._device.xp.exp(a._data)

    @staticmethod
    def backward(ctx, grad):
        if _parts.local_backward is not None:  # a course part (minitorch/parts.py)
            return _parts.local_backward("exp", (ctx.saved_output,), grad, ctx.needs_input_grad)
        return (grad * ctx.saved_output,)


class Log(Primitive):
    _node_name = "LogBackward0"
    array_backward = True  # the formula below also runs on arrays (see _prim.py)

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        with _quiet(a):
            return a._device.xp.log(a._data)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        if _parts.local_backward is not None:  # a course part (minitorch/parts.py)
            return _parts.local_backward("log", (a,), grad, ctx.needs_input_grad)
        return (grad / a,)


class Sqrt(Primitive):
    _node_name = "SqrtBackward0"
    array_backward = True  # the formula below also runs on arrays (see _prim.py)
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
    array_backward = True  # the formula below also runs on arrays (see _prim.py)
    saves_output = True
    reads_input_in_backward = False

    @staticmethod
    def forward(ctx, a):
        return a._device.xp.tanh(a._data)

    @staticmethod
    def backward(ctx, grad):
        y = ctx.saved_output
        if _parts.local_backward is not None:  # a course part (minitorch/parts.py)
            return _parts.local_backward("tanh", (y,), grad, ctx.needs_input_grad)
        return (grad * (1 - y * y),)


class Sigmoid(Primitive):
    _node_name = "SigmoidBackward0"
    array_backward = True  # the formula below also runs on arrays (see _prim.py)
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
        if _parts.local_backward is not None:  # a course part (minitorch/parts.py)
            return _parts.local_backward("sigmoid", (y,), grad, ctx.needs_input_grad)
        return (grad * y * (1 - y),)


class Relu(Primitive):
    _node_name = "ReluBackward0"
    array_backward = True  # the formula below also runs on arrays (see _prim.py)
    saves_output = True
    reads_input_in_backward = False

    @staticmethod
    def forward(ctx, a):
        x = a._data
        if x.dtype.itemsize == 2 and x.dtype.kind == "f":  # NumPy's float16 maximum turns -0. into 0.
            return a._device.xp.where(x < 0, x.dtype.type(0), x)
        return a._device.xp.maximum(0, x)  # NumPy keeps the second operand on a tie: -0. stays -0.

    @staticmethod
    def backward(ctx, grad):
        y = ctx.saved_output  # unpacking checks it was not modified in place
        if _parts.local_backward is not None:  # a course part (minitorch/parts.py)
            return _parts.local_backward("relu", (y,), grad, ctx.needs_input_grad)
        # A where, not a multiply by a 0/1 mask: an inf or NaN upstream gradient at an inactive
        # unit gives 0, as PyTorch's threshold_backward (a NaN unit passes its gradient).
        return (_prim.zero_where(y <= 0, grad),)


class Clamp(Primitive):
    _node_name = "ClampBackward1"

    @staticmethod
    def forward(ctx, a, *, min=None, max=None):  # noqa: A002
        ctx.save_for_backward(a)
        ctx.min, ctx.max = min, max
        return clip_array(a._device.xp, a._data, min, max).astype(a._data.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        keep = a == a  # gradient passes where the input was inside [min, max]
        if ctx.min is not None:
            keep = keep & (a >= ctx.min)
        if ctx.max is not None:
            keep = keep & (a <= ctx.max)
        return (where(keep, grad, 0.0),)


def clip_array(xp, x, lo, hi, out=None):
    """clamp on arrays, keeping the input where it ties with a bound as PyTorch does (-0. stays
    -0. at a bound of 0.): NumPy's maximum/minimum keep their second operand, so x goes second.
    A Python int bound of an integer array wraps into its dtype (uint8: -1 is 255), as PyTorch casts it."""
    if x.dtype.kind in "iu":
        dt = _dtype._FROM_NP[x.dtype]
        lo, hi = (v if v.__class__ is not int else _scalar_as(v, dt) for v in (lo, hi))
    elif x.dtype.itemsize == 2:  # NumPy's float16 minimum keeps the bound on a tie: float32's keeps x
        r = clip_array(xp, x.astype("float32"), lo, hi).astype(x.dtype)
        if out is None:
            return r
        out[...] = r
        return out
    if lo is not None:
        x = xp.maximum(lo, x, out=out)
    if hi is not None:
        x = xp.minimum(hi, x, out=out)
    return x


class _ZeroGrad(Primitive):
    """Piecewise-constant functions: defined gradient 0 (PyTorch records them too)."""

    ufunc = None

    @classmethod
    def forward(cls, ctx, a):
        return getattr(a._device.xp, cls.ufunc)(a._data)

    @staticmethod
    def backward(ctx, grad):
        return (zeros_like_grad(grad),)


def zeros_like_grad(grad):
    """A zero gradient, +0 everywhere as PyTorch's zeros_like (grad * 0 gives -0 for a negative grad)."""
    if not _prim.is_tensor(grad):  # an array-level backward's
        return _prim.array_module(grad).zeros(grad.shape, grad.dtype)
    return common.tensor_cls()._make(grad._device.xp.zeros(grad.shape, grad._data.dtype), grad._device)


Floor, Ceil, Round, Trunc = (
    type(n, (_ZeroGrad,), {"ufunc": u, "_node_name": f"{n}Backward0", "__module__": __name__})
    for n, u in [("Floor", "floor"), ("Ceil", "ceil"), ("Round", "round"), ("Trunc", "trunc")])


class Sign(_ZeroGrad):
    """(x > 0) - (x < 0), as PyTorch computes it: the sign of nan and of -0. is 0 (NumPy: nan, -0.)."""
    _node_name = "SignBackward0"

    @staticmethod
    def forward(ctx, a):
        x = a._data
        if x.dtype.kind != "f":
            return a._device.xp.sign(x)
        return ((x > 0).astype(x.dtype) - (x < 0).astype(x.dtype))


class RoundDecimals(Primitive):
    """round(decimals=d): PyTorch's recipe, round-half-even of x * 10**d, divided back (d < 0:
    of x / 10**-d, multiplied back), in the tensor's own dtype (float16 in float32, rounded once, so
    that x * 10**d does not overflow). Gradient 0 (RoundBackward1)."""
    _node_name = "RoundBackward1"

    @staticmethod
    def forward(ctx, a, *, decimals):
        xp, x = a._device.xp, a._data
        x = x.astype("float32") if x.dtype.itemsize == 2 else x
        ten = x.dtype.type(10.0 ** builtins_abs(decimals))
        with _quiet(a):
            out = xp.rint(x * ten) / ten if decimals > 0 else xp.rint(x / ten) * ten
        return out.astype(a._data.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        return (zeros_like_grad(grad),)


class ClampMin(Clamp):
    _node_name = "ClampMinBackward0"


class ClampMax(Clamp):
    _node_name = "ClampMaxBackward0"


class Log1p(Primitive):
    _node_name = "Log1PBackward0"

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        with _quiet(a):
            return a._device.xp.log1p(a._data)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return (grad / (a + 1),)


class Expm1(Primitive):
    _node_name = "Expm1Backward0"
    saves_output = True
    reads_input_in_backward = False

    @staticmethod
    def forward(ctx, a):
        with _quiet(a):
            return a._device.xp.expm1(a._data)

    @staticmethod
    def backward(ctx, grad):
        return (grad * (ctx.saved_output + 1),)


class Rsqrt(Primitive):
    _node_name = "RsqrtBackward0"
    saves_output = True
    reads_input_in_backward = False

    @staticmethod
    def forward(ctx, a):
        with _quiet(a):
            return 1 / a._device.xp.sqrt(a._data)

    @staticmethod
    def backward(ctx, grad):
        y = ctx.saved_output  # d x^(-1/2) = -1/2 x^(-3/2) = -y^3 / 2
        return (grad * (y * y * y) * -0.5,)


class Reciprocal(Primitive):
    _node_name = "ReciprocalBackward0"
    saves_output = True
    reads_input_in_backward = False

    @staticmethod
    def forward(ctx, a):
        with _quiet(a):
            return 1 / a._data

    @staticmethod
    def backward(ctx, grad):
        y = ctx.saved_output
        return (-grad * y * y,)


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
    if floating and a._data.dtype.kind != "f":
        a = a.to(get_default_dtype())
    out = cls.apply(a, **kw)
    return out if a._data.flags.c_contiguous else laid_out(out, a)


def _no_bool_unary(a, kernel):
    if a.dtype is _dtype.bool:
        raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")


def neg(input):
    if input.dtype is _dtype.bool:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. "
                           "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.")
    return laid_out(Neg.apply(input), input)


@_amp.float32_gpu
def exp(input): return unary(Exp, input, floating=True)  # noqa: E704
@_amp.float32_gpu
def log(input): return unary(Log, input, floating=True)  # noqa: E704
def sqrt(input): return unary(Sqrt, input, floating=True)  # noqa: E704
def sin(input): return unary(Sin, input, floating=True)  # noqa: E704
def cos(input): return unary(Cos, input, floating=True)  # noqa: E704
def tanh(input): return unary(Tanh, input, floating=True)  # noqa: E704
def sigmoid(input): return unary(Sigmoid, input, floating=True)  # noqa: E704
@_amp.float32_gpu
def log1p(input): return unary(Log1p, input, floating=True)  # noqa: E704
@_amp.float32_gpu
def expm1(input): return unary(Expm1, input, floating=True)  # noqa: E704
@_amp.float32_gpu
def rsqrt(input): return unary(Rsqrt, input, floating=True)  # noqa: E704
@_amp.float32_gpu
def reciprocal(input): return unary(Reciprocal, input, floating=True)  # noqa: E704
def logical_not(input): return unary(LogicalNot, input)  # noqa: E704
def isnan(input): return unary(IsNan, input)  # noqa: E704
def isinf(input): return unary(IsInf, input)  # noqa: E704
def isfinite(input): return unary(IsFinite, input)  # noqa: E704


def square(input):
    return pow(input, 2)  # PyTorch's square is pow(a, 2): PowBackward0, and int64 for bool input


def abs(input):  # noqa: A001
    _no_bool_unary(input, "abs_cpu")
    return unary(Abs, input)


def relu(input):
    if input.dtype is _dtype.bool:
        raise RuntimeError("Boolean inputs not supported for relu")
    return unary(Relu, input)


def sign(input):
    return input.clone() if input.dtype is _dtype.bool else unary(Sign, input)  # the sign of True is True


def _rounding(cls, kernel):
    def f(input):
        _no_bool_unary(input, kernel)
        # on integers the identity, but a new tensor all the same (PyTorch returns a copy)
        return unary(cls, input) if input.dtype.is_floating_point else input.clone()
    f.__name__ = f.__qualname__ = cls.ufunc
    return f


floor, ceil = _rounding(Floor, "floor_vml_cpu"), _rounding(Ceil, "ceil_vml_cpu")
trunc = _rounding(Trunc, "trunc_vml_cpu")
_round = _rounding(Round, "round_vml_cpu")


def round(input, *, decimals=None):  # noqa: A001
    if decimals is None:
        return _round(input)
    if not decimals and not input.dtype.is_floating_point:  # (round(t) of integers is a copy)
        raise NotImplementedError(f"\"round_vml_cpu\" not implemented for '{input.dtype._short}'")
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"\"round_cpu\" not implemented for '{input.dtype._short}'")
    return RoundDecimals.apply(input, decimals=int(decimals))


def bitwise_not(input):
    if input.dtype.is_floating_point:
        raise hinted(NotImplementedError, f"\"bitwise_not_cpu\" not implemented for '{input.dtype._short}'",
                     "bitwise_not (~) takes integer and bool tensors: for a mask use a bool tensor, e.g. ~(x > 0)")
    return unary(BitNot, input)


class ClampTensor(Primitive):
    """clamp with tensor bounds (ClampBackward0): the gradient goes to whichever of the input and
    the bounds the result is, with PyTorch's choice at ties (the input)."""
    _node_name = "ClampBackward0"
    pack_order = (2, 1, 0)  # (PyTorch saves `max`, `min`, `self`)

    @staticmethod
    def forward(ctx, a, lo, hi, *, given=()):
        ctx.save_for_backward(a, lo, hi)
        if given and ctx is not NULL_CTX:  # the arguments as given, before their conversion to the common
            from ..autograd.function import SavedTensor  # dtype: PyTorch keeps these (an in-place change is caught)
            ctx.given = [SavedTensor(t) for t in given]
        xp, out = a._device.xp, a._data
        return clip_array(xp, out, None if lo is None else lo._data, None if hi is None else hi._data)

    @staticmethod
    def backward(ctx, grad):
        a, lo, hi = ctx.saved_tensors
        for t in ctx.__dict__.get("given", ()):
            t.unpack(ctx)
        need = ctx.needs_input_grad
        if lo is not None and hi is not None and need[0]:  # PyTorch ANDs (a <= hi) into (a >= lo) in place
            common.check_fits(common.broadcast_shapes(a.shape, lo.shape), hi.shape)
        keep = (a >= lo) if lo is not None else None
        if hi is not None:
            keep = (a <= hi) if keep is None else keep & (a <= hi)
        g_lo = g_hi = None
        if lo is not None and need[1]:
            if hi is not None:  # PyTorch's formula ANDs (lo < hi) into (a < lo) in place: it can't grow
                common.check_fits(common.broadcast_shapes(a.shape, lo.shape), lo.shape, hi.shape)
            g_lo = where((a < lo) & (lo < hi) if hi is not None else a < lo, grad, 0.0)
        if hi is not None and need[2]:
            if lo is not None:  # PyTorch's formula ANDs (hi < lo) into (a > hi) in place: it can't grow
                common.check_fits(common.broadcast_shapes(a.shape, hi.shape), hi.shape, lo.shape)
            g_hi = where((a > hi) | (hi < lo) if lo is not None else a > hi, grad, 0.0)
        return where(keep, grad, 0.0), g_lo, g_hi


class ClampMinTensor(ClampTensor):
    _node_name = "ClampMinBackward1"  # clamp_min(t, tensor)


class ClampMaxTensor(ClampTensor):
    _node_name = "ClampMaxBackward1"


def clamp(input, min=None, max=None, *, _node=ClampTensor):  # noqa: A002
    T = common.tensor_cls()
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if isinstance(min, T) or isinstance(max, T):
        bounds = [x if isinstance(x, T) or x is None else input.new_tensor(x) for x in (min, max)]
        dt = common.result_dtype(input, *(x for x in bounds if x is not None))
        if dt is _dtype.bool and min is not None and max is not None:  # (one bound runs maximum / minimum)
            raise NotImplementedError("\"clamp_cpu\" not implemented for 'Bool'")
        given = tuple(x for x in (input, min, max) if isinstance(x, T) and x.dtype is not dt)
        input, lo, hi = (x if x is None or x.dtype is dt else x.to(dt) for x in (input, *bounds))
        dev = common.same_device("clamp", *(x for x in (input, lo, hi) if x is not None))
        lo, hi = (x if x is None else common.to_device_of(x, dev) for x in (lo, hi))
        try:
            return laid_out(_node.apply(input, lo, hi, given=given), *(x for x in (input, lo, hi) if x is not None))
        except ValueError:
            common.broadcast_shapes(*(x.shape for x in (input, lo, hi) if x is not None), op="clamp")
            raise
    if not input.dtype.is_floating_point and (isinstance(min, float) or isinstance(max, float)):
        input = input.to(get_default_dtype())
    elif input.dtype is _dtype.bool and any(x.__class__ is int for x in (min, max)):
        input = input.to(_dtype.int64)  # bool clamped by an int: promoted, as PyTorch does
    _no_bool_clamp(input, min, max)
    min, max = checked_bounds(input.dtype, min, max)  # noqa: A001
    return laid_out(Clamp.apply(input, min=min, max=max), input)


def checked_bounds(dt, *bounds):
    """Python-number bounds as PyTorch's kernels take them: converted to the tensor's dtype, checked
    (300 does not fit int8, 1e300 not float32), a float truncated and -1 wrapped into uint8."""
    return tuple(b if b is None or b.__class__ is bool or isinstance(b, common.tensor_cls()) else
                 _dtype.checked_scalar(b, dt) for b in bounds)


def _no_bool_clamp(a, lo, hi, in_place=False):
    """PyTorch's clamp kernels take no bool tensor (one clamped by an int or a float is promoted first,
    which clamp_ cannot write back)."""
    if a.dtype is _dtype.bool and in_place:
        for b in (lo, hi):
            if b.__class__ in (int, float):
                raise RuntimeError(f"result type {'Float' if b.__class__ is float else 'Long'} can't be cast to the "
                                   "desired output type bool")
    if a.dtype is _dtype.bool:
        which = "clamp" if lo is not None and hi is not None else "clamp_min" if lo is not None else "clamp_max"
        raise NotImplementedError(f"\"{which}_scalar_cpu\" not implemented for 'Bool'")


def _clamp_one(cls, a, lo, hi):
    if not a.dtype.is_floating_point and isinstance(lo if hi is None else hi, float):
        a = a.to(get_default_dtype())
    elif a.dtype is _dtype.bool and (lo if hi is None else hi).__class__ is int:
        a = a.to(_dtype.int64)  # (as in clamp)
    _no_bool_clamp(a, lo, hi)
    lo, hi = checked_bounds(a.dtype, lo, hi)
    return cls.apply(a, min=lo, max=hi)


def clamp_min(input, min):  # noqa: A002
    return clamp(input, min, _node=ClampMinTensor) if isinstance(min, common.tensor_cls()) else \
        _clamp_one(ClampMin, input, min, None)


def clamp_max(input, max):  # noqa: A002
    return clamp(input, None, max, _node=ClampMaxTensor) if isinstance(max, common.tensor_cls()) else \
        _clamp_one(ClampMax, input, None, max)


import builtins as _builtins  # noqa: E402

builtins_abs = _builtins.abs
