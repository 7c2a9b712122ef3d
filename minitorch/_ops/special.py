"""More elementwise math: tan, the inverse trig and hyperbolic functions, log2/log10/exp2,
erf and friends, lgamma/digamma, atan2, lerp, float_power, nan_to_num.

Forward and backward side by side, as in pointwise.py: forward returns an array computed by
the tensor's array module; backward is made of Tensor ops, so second derivatives work. The
in-place forms (`tan_`, `asin_`, ...) are at the bottom, in INPLACE.
"""
from __future__ import annotations

import math

from ..amp import autocast_mode as _amp  # (autocast: the ops that run in float16 / float32)
from .. import _dtype
from ..autograd.grad_mode import STATE
from . import _specfun, common, inplace
from ._prim import NULL_CTX, Primitive
from .inplace_prim import write_inplace
from .pointwise import _quiet, unary, where

_LN2, _LN10 = math.log(2.0), math.log(10.0)
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


def _call(a, name):
    """The array module's ufunc `name` on a, without NumPy's domain warnings (asin(2) is nan).
    Half precision is computed in float32 and rounded once, as PyTorch does."""
    x = a._data
    with _quiet(a):
        if x.dtype.itemsize == 2:
            return getattr(a._device.xp, name)(x.astype("float32")).astype(x.dtype)
        return getattr(a._device.xp, name)(x)


class _Unary(Primitive):
    """A float function of one input whose backward reads the input (saved)."""

    ufunc = None

    @classmethod
    def forward(cls, ctx, a):
        ctx.save_for_backward(a)
        return _call(a, cls.ufunc)


class Tan(Primitive):
    _node_name = "TanBackward0"
    saves_output = True
    reads_input_in_backward = False

    @staticmethod
    def forward(ctx, a):
        return _call(a, "tan")

    @staticmethod
    def backward(ctx, grad):
        y = ctx.saved_output
        return (grad * (1 + y * y),)


class Asin(_Unary):
    _node_name, ufunc = "AsinBackward0", "arcsin"

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return (grad * (1 - a * a).rsqrt(),)


class Acos(_Unary):
    _node_name, ufunc = "AcosBackward0", "arccos"

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return (-grad * (1 - a * a).rsqrt(),)


class Atan(_Unary):
    _node_name, ufunc = "AtanBackward0", "arctan"

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return (grad / (1 + a * a),)


class Sinh(_Unary):
    _node_name, ufunc = "SinhBackward0", "sinh"

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return (grad * a.cosh(),)


class Cosh(_Unary):
    _node_name, ufunc = "CoshBackward0", "cosh"

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return (grad * a.sinh(),)


class Asinh(_Unary):
    _node_name, ufunc = "AsinhBackward0", "arcsinh"

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return (grad * (a * a + 1).rsqrt(),)


class Acosh(_Unary):
    _node_name, ufunc = "AcoshBackward0", "arccosh"

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return (grad * (a * a - 1).rsqrt(),)


class Atanh(_Unary):
    _node_name, ufunc = "AtanhBackward0", "arctanh"

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return (grad / (1 - a * a),)


class Log2(_Unary):
    _node_name, ufunc = "Log2Backward0", "log2"

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return (grad / (a * _LN2),)


class Log10(_Unary):
    _node_name, ufunc = "Log10Backward0", "log10"

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return (grad / (a * _LN10),)


class Exp2(Primitive):
    _node_name = "Exp2Backward0"
    saves_output = True
    reads_input_in_backward = False

    @staticmethod
    def forward(ctx, a):
        return _call(a, "exp2")

    @staticmethod
    def backward(ctx, grad):
        return (grad * ctx.saved_output * _LN2,)


class Sinc(Primitive):
    _node_name = "SincBackward0"

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return _call(a, "sinc")  # sin(pi x) / (pi x), 1 at 0

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        zero = a == 0
        px = where(zero, 1.0, a) * math.pi  # the formula divides by x: keep 0 out of it
        d = (px * px.cos() - px.sin()) / (px * where(zero, 1.0, a))
        return (grad * where(zero, 0.0, d),)


class Erf(Primitive):
    _node_name = "ErfBackward0"

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        with _quiet(a):
            return _specfun.erf(a._device.xp, a._data)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return (grad * _TWO_OVER_SQRT_PI * (-a * a).exp(),)


class Erfc(Primitive):
    _node_name = "ErfcBackward0"

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        with _quiet(a):
            return _specfun.erfc(a._device.xp, a._data)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return (-grad * _TWO_OVER_SQRT_PI * (-a * a).exp(),)


class Erfinv(Primitive):
    """d/dx erfinv(x) = sqrt(pi) / 2 * exp(erfinv(x)^2), recomputed from the input as PyTorch does
    (its node keeps the input, not the result: an in-place change of the result is allowed)."""
    _node_name = "ErfinvBackward0"

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        with _quiet(a):
            return _specfun.erfinv(a._device.xp, a._data)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        y = Erfinv.apply(a)
        return (grad * (math.sqrt(math.pi) / 2) * (y * y).exp(),)


class Lgamma(Primitive):
    _node_name = "LgammaBackward0"

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        xp = a._device.xp
        with _quiet(a):  # lgamma(-inf) is +inf (|Gamma| grows without bound), as PyTorch has it
            return xp.where(a._data == -xp.inf, xp.inf, _specfun.lgamma(xp, a._data)).astype(a._data.dtype)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return (grad * digamma(a),)


class Polygamma(Primitive):
    """psi^(n)(x), the n-th derivative of digamma (n = 0: digamma itself)."""
    _node_name = "PolygammaBackward0"

    @staticmethod
    def forward(ctx, a, *, n):
        ctx.save_for_backward(a)
        ctx.n = n
        with _quiet(a):
            return _specfun.polygamma(a._device.xp, n, a._data)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return (grad * polygamma(ctx.n + 1, a),)


class Digamma(Polygamma):
    _node_name = "DigammaBackward0"


class PolygammaInplace(Polygamma):
    _node_name = "PolygammaBackward1"  # polygamma_(n): PyTorch's name for the in-place form


class I0(Primitive):
    _node_name = "I0Backward0"

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        with _quiet(a):
            return _specfun.i0(a._device.xp, a._data)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return (grad * i1(a),)  # I0' = I1


class I1(Primitive):
    _node_name = "SpecialI1Backward0"

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        with _quiet(a):
            return _specfun.i1(a._device.xp, a._data)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        zero = a == 0
        # I1' = I0 - I1 / x, whose limit at 0 is 1/2
        return (grad * where(zero, 0.5, i0(a) - i1(a) / where(zero, 1.0, a)),)


class _Scale(Primitive):
    """x * constant, as its own node (deg2rad and rad2deg have their own names in PyTorch)."""

    reads_input_in_backward = False
    factor = 1.0

    @classmethod
    def forward(cls, ctx, a):
        return a._data * a._data.dtype.type(cls.factor)

    @classmethod
    def backward(cls, ctx, grad):
        return (grad * cls.factor,)


class Deg2Rad(_Scale):
    _node_name, factor = "Deg2RadBackward0", math.pi / 180.0


class Rad2Deg(_Scale):
    _node_name, factor = "Rad2DegBackward0", 180.0 / math.pi


class Frac(Primitive):
    _node_name = "FracBackward0"
    reads_input_in_backward = False

    @staticmethod
    def forward(ctx, a):
        with _quiet(a):  # inf - inf is nan, silently
            return a._data - a._device.xp.trunc(a._data)

    @staticmethod
    def backward(ctx, grad):
        return (grad,)


class Sgn(Primitive):
    _node_name = "SgnBackward0"  # for real input, sign's twin: a defined gradient of 0
    saves_output = True  # (PyTorch's node keeps self and the result, which an in-place change must not touch)

    @staticmethod
    def forward(ctx, a):
        from .pointwise import Sign
        ctx.save_for_backward(a)
        return Sign.forward(ctx, a)

    @staticmethod
    def backward(ctx, grad):  # (+0., as PyTorch's; there a "zero tensor" that later steps keep zero)
        from .pointwise import zeros_like_grad
        ctx.saved_tensors, ctx.saved_output  # noqa: B018 (unpacked: their versions are checked)
        return (zeros_like_grad(grad),)


class Logit(Primitive):
    _node_name = "LogitBackward0"

    @staticmethod
    def forward(ctx, a, *, eps):
        ctx.save_for_backward(a)
        ctx.eps = eps
        xp, x = a._device.xp, a._data
        if eps is not None:  # PyTorch's order: below eps is eps, else above 1 - eps is 1 - eps (eps > 0.5 too)
            x = xp.where(x < eps, x.dtype.type(eps), xp.where(x > 1 - eps, x.dtype.type(1 - eps), x))
        with _quiet(a):
            return xp.log(x / (1 - x)).astype(a._data.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        # at 0 and 1 PyTorch's formula is grad * inf: -0. gives the inf of +0., not grad / -0.
        g = where((a == 0) | (a == 1), grad * math.inf, grad / (a * (1 - a)))
        if ctx.eps is None:  # outside [0, 1] logit is not defined, and neither is its gradient
            return (where((a < 0) | (a > 1), math.nan, g),)
        return (where((a < ctx.eps) | (a > 1 - ctx.eps), 0.0, g),)


class NanToNum(Primitive):
    _node_name = "NanToNumBackward0"

    @staticmethod
    def forward(ctx, a, *, nan, posinf, neginf):
        ctx.save_for_backward(a)
        from .convert import preserved  # PyTorch's result is empty_like(a): a's own strides
        return preserved(a, a._device.xp.nan_to_num(a._data, nan=nan, posinf=posinf, neginf=neginf))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return (grad * a.isfinite(),)


# ---- binary ----------------------------------------------------------------------------

class Atan2(Primitive):
    _node_name = "Atan2Backward0"
    pack_order = (1, 0)  # PyTorch saves `other` before `self`: saved_tensors_hooks see that order

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        with _quiet(a):
            return a._device.xp.arctan2(a._data, b._data)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        r2 = a * a + b * b
        return grad * b / r2, -grad * a / r2


class Lerp(Primitive):
    """start + weight * (end - start), written as PyTorch computes it: from the nearer end,
    so that weight 1 gives `end` exactly."""
    _node_name = "LerpBackward1"
    pack_order = (1, 0, 2)  # (PyTorch saves `end`, `self`, `weight`)

    @staticmethod
    def forward(ctx, start, end, weight):
        w = getattr(weight, "_data", weight)
        if not isinstance(w, (int, float)):  # (a number weight: the gradients need no values, PyTorch saves none)
            ctx.save_for_backward(start, end, weight)
        ctx.weight = w
        s, e, xp = start._data, end._data, start._device.xp
        d = e - s
        if isinstance(w, (int, float)):
            out = s + w * d if abs(w) < 0.5 else e - d * (1 - w)
        else:
            out = xp.where(abs(w) < 0.5, s + w * d, e - d * (1 - w))
        return out.astype(d.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        if isinstance(ctx.weight, (int, float)):
            return grad * (1 - ctx.weight), grad * ctx.weight, None
        start, end, weight = ctx.saved_tensors
        gw = grad * (end - start) if ctx.needs_input_grad[2] else None
        return grad * (1 - weight), grad * weight, gw


class LerpScalar(Lerp):
    _node_name = "LerpBackward0"


# ---- public functions ------------------------------------------------------------------

def _floating(cls, name):
    def f(input):
        return unary(cls, input, floating=True)  # integer and bool input compute in the default float dtype
    f.__name__ = f.__qualname__ = name
    return f


(tan, asin, acos, atan, sinh, cosh, asinh, acosh, atanh, log2, log10, exp2, sinc, erf, erfc, erfinv, lgamma, deg2rad,
 rad2deg, i0, i1) = (_floating(cls, name) for cls, name in [
    (Tan, "tan"), (Asin, "asin"), (Acos, "acos"), (Atan, "atan"), (Sinh, "sinh"), (Cosh, "cosh"), (Asinh, "asinh"),
    (Acosh, "acosh"), (Atanh, "atanh"), (Log2, "log2"), (Log10, "log10"), (Exp2, "exp2"), (Sinc, "sinc"),
    (Erf, "erf"), (Erfc, "erfc"), (Erfinv, "erfinv"), (Lgamma, "lgamma"), (Deg2Rad, "deg2rad"), (Rad2Deg, "rad2deg"),
    (I0, "i0"), (I1, "i1")])
tan, asin, acos, sinh, cosh, log2, log10, erfinv = (_amp.float32_gpu(f) for f in (  # float32 under GPU autocast
    tan, asin, acos, sinh, cosh, log2, log10, erfinv))
arcsin, arccos, arctan, arcsinh, arccosh, arctanh = asin, acos, atan, asinh, acosh, atanh


def digamma(input):
    return unary(Digamma, input, floating=True, n=0)


def polygamma(n, input):
    if not isinstance(n, int) or n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    return unary(Polygamma, input, floating=True, n=n)  # (PolygammaBackward0 for n = 0 too, as PyTorch)


def _not_bool(a, kernel):
    if a.dtype is _dtype.bool:
        raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")


def frac(input):
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"\"frac_cpu\" not implemented for '{input.dtype._short}'")
    return Frac.apply(input)


def fix(input):
    _not_bool(input, "trunc_vml_cpu")
    return input.trunc()


def sgn(input):
    return Sgn.apply(input) if input.dtype is not _dtype.bool else input.clone()


def logit(input, eps=None):
    if eps is not None and eps < 0:  # PyTorch's "no eps" is a negative one (its default is -1)
        eps = None
    return unary(Logit, input, floating=True, eps=eps)


def nan_to_num(input, nan=0.0, posinf=None, neginf=None):
    if not input.dtype.is_floating_point:
        return input.clone()  # integers have no nan or inf
    return NanToNum.apply(input, nan=0.0 if nan is None else nan, posinf=posinf, neginf=neginf)


def _float_operands(op, a, b):
    """Tensor operands of a float-valued binary op, promoted (ints to the default float)."""
    T = common.tensor_cls()
    for x, what in ((a, "input"), (b, "other")):
        if not isinstance(x, T):
            pos = 1 if what == "input" else 2
            raise TypeError(f"{op}(): argument '{what}' (position {pos}) must be Tensor, not {type(x).__name__}")
    dev = common.same_device(op, a, b)
    dt = common.result_dtype(a, b)
    if not dt.is_floating_point:
        dt = _dtype.get_default_dtype()
    return common.to_device_of(a, dev).to(dt), common.to_device_of(b, dev).to(dt)


def atan2(input, other):
    input, other = _float_operands("atan2", input, other)
    try:
        return Atan2.apply(input, other)
    except ValueError:
        common.broadcast_shapes(input.shape, other.shape, op="atan2")
        raise


arctan2 = atan2


def lerp(input, end, weight):
    T = common.tensor_cls()
    name = _dtype.CPP_NAME
    if end.dtype is not input.dtype:
        raise RuntimeError(f"expected dtype {name[input.dtype.name]} for `end` but got dtype {name[end.dtype.name]}")
    if isinstance(weight, T) and weight.dtype is not input.dtype and weight.ndim:
        raise RuntimeError(f"expected dtype {name[input.dtype.name]} for `weight` but got dtype "
                           f"{name[weight.dtype.name]}")
    if isinstance(weight, T) and not weight.ndim and weight.dtype is not input.dtype:
        dt = common.result_dtype(input, end, weight)  # a 0-d weight takes part in promotion, as in PyTorch
        input, end = input.to(dt), end.to(dt)
    if not input.dtype.is_floating_point:
        kernel = "lerp_kernel_tensor" if isinstance(weight, T) else "lerp_kernel_scalar"
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{input.dtype._short}'")
    dev = common.same_device("lerp", input, end, *([weight] if isinstance(weight, T) else []))
    if isinstance(weight, T):
        weight = common.to_device_of(weight, dev).to(input.dtype)
        cls = Lerp
    else:
        cls = LerpScalar
    end = common.to_device_of(end, dev)
    try:
        return cls.apply(input, end, weight)
    except ValueError:
        common.broadcast_shapes(input.shape, end.shape, getattr(weight, "shape", ()), op="lerp")
        raise


def float_power(input, exponent):
    """pow computed in float64, whatever the inputs' dtypes (PyTorch's rule)."""
    T = common.tensor_cls()
    input = input.to(_dtype.float64) if isinstance(input, T) else float(input)
    exponent = exponent.to(_dtype.float64) if isinstance(exponent, T) else float(exponent)
    return input ** exponent


# ---- in-place forms ------------------------------------------------------------------

def _inplace_prim(cls, op, floating=True, **fixed):
    """`t.op_()` for a unary primitive: a float result can't be written into an integer tensor."""
    def method(self, *args, **kw):
        kw = {**fixed, **kw}
        result = (_dtype.get_default_dtype(), self.shape) if floating and not self.dtype.is_floating_point else None
        return write_inplace(self, cls, args, kw, op, result)
    method.__name__ = method.__qualname__ = op
    return method


def inplace_from(fn, op, reads_others=True, tensor_arg=None):
    """`t.op_()` for an op composed of others: compute out of place, then write the result in,
    recorded as the op itself. The op runs on a clone when anything is recorded, so that what it
    saved for backward is not the tensor the write then overwrites."""
    T = common.tensor_cls()

    def method(self, *args, **kw):
        if args and tensor_arg and not isinstance(args[0], T):  # (the arguments' types first, as in PyTorch)
            raise TypeError(f"{op}(): argument '{tensor_arg}' (position 1) must be Tensor, not "
                            f"{type(args[0]).__name__}")
        inplace.check_inplace(self, op)  # (then autograd's check)
        inplace.iter_checks(self, op, *args, *kw.values())
        tensors = [a for a in (*args, *kw.values()) if isinstance(a, T)]
        if tensors and tensor_arg:
            inplace.check_result(self, common.result_dtype(self, *tensors), self.shape, op)
        if reads_others:  # (as each of its steps would: PyTorch's overlap check)
            inplace.check_partial_overlap(self, (*args, *kw.values()))
        recorded = STATE.enabled and any(isinstance(a, T) and a.requires_grad for a in (self, *args, *kw.values()))
        out = fn(inplace.original(self) if recorded else self, *args, **kw)
        return inplace.write_result(self, out, op)
    method.__name__ = method.__qualname__ = op
    return method


def _atan2_(self, other):
    T = common.tensor_cls()
    if not isinstance(other, T):
        raise TypeError(f"atan2_(): argument 'other' (position 1) must be Tensor, not {type(other).__name__}")
    inplace.check_inplace(self, "atan2_")
    inplace.iter_checks(self, "atan2_", other)
    out = atan2(self.detach(), other.detach())  # the checks and the result's dtype and shape
    b = common.to_device_of(other, self._device).to(self.dtype)
    return write_inplace(self, Atan2, (b,), {}, "atan2_", (out.dtype, out.shape))


def _lerp_(self, end, weight):
    T = common.tensor_cls()
    if not isinstance(end, T):
        got = f"({type(end).__name__}, {type(weight).__name__})"
        raise TypeError(f"lerp_() received an invalid combination of arguments - got {got}, but expected one of:\n"
                        " * (Tensor end, Tensor weight)\n * (Tensor end, Number weight)\n")
    inplace.check_inplace(self, "lerp_")
    if end.dtype is not self.dtype:  # (lerp's own dtype check comes first)
        lerp(self.detach(), end.detach(), weight.detach() if isinstance(weight, T) else weight)
    inplace.iter_checks(self, "lerp_", end, weight)
    out = lerp(self.detach(), end.detach(), weight.detach() if isinstance(weight, T) else weight)
    end = common.to_device_of(end, self._device)
    if isinstance(weight, T):
        weight = common.to_device_of(weight, self._device).to(self.dtype)
    return write_inplace(self, Lerp if isinstance(weight, T) else LerpScalar, (end, weight), {}, "lerp_",
                         (out.dtype, out.shape))


def _float_power_(self, exponent):
    from .pointwise import Pow, PowTensor
    T = common.tensor_cls()
    if self.dtype is not _dtype.float64:
        raise RuntimeError(f"the base given to float_power_ has dtype {self.dtype._short} but the operation's "
                           "result requires dtype Double")
    out = float_power(self.detach(), exponent.detach() if isinstance(exponent, T) else exponent)
    if isinstance(exponent, T):
        e = common.to_device_of(exponent, self._device).to(_dtype.float64)
        return write_inplace(self, PowTensor, (e,), {}, "float_power_", (out.dtype, out.shape))
    return write_inplace(self, Pow, (float(exponent),), {}, "float_power_", (out.dtype, out.shape))


def _frac_(self):
    if not self._data.flags.c_contiguous:
        inplace.check_overlap(self, "frac_")  # PyTorch's first check
    frac(self)  # its dtype check
    return write_inplace(self, Frac, (), {}, "frac_")


def _nan_to_num_(self, nan=0.0, posinf=None, neginf=None):
    if not self.dtype.is_floating_point:
        self._storage.version += 1  # nothing to replace, but a write all the same (PyTorch's version)
        return self
    kw = dict(nan=0.0 if nan is None else nan, posinf=posinf, neginf=neginf)
    return write_inplace(self, NanToNum, (), kw, "nan_to_num_")


def _logit_(self, eps=None):
    return _inplace_prim(Logit, "logit_")(self, eps=None if eps is not None and eps < 0 else eps)


def _polygamma_(self, n):
    if not isinstance(n, int) or n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    return _inplace_prim(PolygammaInplace, "polygamma_")(self, n=n)


def _ternary_(cls, fn, op):
    def method(self, tensor1, tensor2, *, value=1):
        out = fn(self.detach(), tensor1.detach(), tensor2.detach(), value=value)
        t1, t2 = (common.to_device_of(t, self._device).to(self.dtype) for t in (tensor1, tensor2))
        return write_inplace(self, cls, (t1, t2), {"value": _checked_value(out.dtype, value)}, op,
                             (out.dtype, out.shape))
    method.__name__ = method.__qualname__ = op
    return method


INPLACE = {
    "tan_": _inplace_prim(Tan, "tan_"), "asin_": _inplace_prim(Asin, "asin_"),
    "acos_": _inplace_prim(Acos, "acos_"), "atan_": _inplace_prim(Atan, "atan_"),
    "sinh_": _inplace_prim(Sinh, "sinh_"), "cosh_": _inplace_prim(Cosh, "cosh_"),
    "asinh_": _inplace_prim(Asinh, "asinh_"), "acosh_": _inplace_prim(Acosh, "acosh_"),
    "atanh_": _inplace_prim(Atanh, "atanh_"), "log2_": _inplace_prim(Log2, "log2_"),
    "log10_": _inplace_prim(Log10, "log10_"), "exp2_": _inplace_prim(Exp2, "exp2_"),
    "sinc_": _inplace_prim(Sinc, "sinc_"), "erf_": _inplace_prim(Erf, "erf_"),
    "erfc_": _inplace_prim(Erfc, "erfc_"), "erfinv_": _inplace_prim(Erfinv, "erfinv_"),
    "lgamma_": _inplace_prim(Lgamma, "lgamma_"), "digamma_": _inplace_prim(Digamma, "digamma_", n=0),
    "deg2rad_": _inplace_prim(Deg2Rad, "deg2rad_"), "rad2deg_": _inplace_prim(Rad2Deg, "rad2deg_"),
    "i0_": _inplace_prim(I0, "i0_"),
    "frac_": _frac_, "nan_to_num_": _nan_to_num_, "logit_": _logit_, "polygamma_": _polygamma_,
    "atan2_": _atan2_, "lerp_": _lerp_, "float_power_": _float_power_,
}
for _a, _b in [("arcsin_", "asin_"), ("arccos_", "acos_"), ("arctan_", "atan_"), ("arcsinh_", "asinh_"),
               ("arccosh_", "acosh_"), ("arctanh_", "atanh_"), ("arctan2_", "atan2_")]:
    INPLACE[_a] = INPLACE[_b]


# ---- addcmul / addcdiv: input + value * t1 * t2 (or t1 / t2), as optimizers write updates --

def _watch_given(ctx, given, saved):
    """tensor1 / tensor2 as given, before their conversion to the common dtype: PyTorch keeps those
    (where its backward reads them), so a later in-place change of one is caught."""
    if ctx is not NULL_CTX and any(g is not None for g in given):
        from ..autograd.function import SavedTensor
        ctx.given = [SavedTensor(g) for g, keep in zip(given, saved) if g is not None and keep]


def _check_given(ctx):
    for t in ctx.__dict__.get("given", ()):
        t.unpack(ctx)


class Addcmul(Primitive):
    _node_name = "AddcmulBackward0"

    @staticmethod
    def forward(ctx, a, t1, t2, *, value, given=(None, None)):
        need = ctx.needs_input_grad
        if need:  # save only what backward reads, as PyTorch does (a second backward then needs nothing freed)
            ctx.save_for_backward(t1 if need[2] else None, t2 if need[1] else None)
            _watch_given(ctx, given, (need[2], need[1]))
        ctx.value = value
        return a._data + value * (t1._data * t2._data)

    @staticmethod
    def backward(ctx, grad):
        _check_given(ctx)
        t1, t2 = ctx.saved_tensors
        need = ctx.needs_input_grad
        return grad, grad * t2 * ctx.value if need[1] else None, grad * t1 * ctx.value if need[2] else None


class Addcdiv(Primitive):
    _node_name = "AddcdivBackward0"

    @staticmethod
    def forward(ctx, a, t1, t2, *, value, given=(None, None)):
        need = ctx.needs_input_grad
        if need:  # (as Addcmul's; PyTorch keeps tensor2 whenever it records)
            ctx.save_for_backward(t1 if need[2] else None, t2)
            _watch_given(ctx, given, (need[2], True))
        ctx.value = value
        with _quiet(a):
            return a._data + value * (t1._data / t2._data)

    @staticmethod
    def backward(ctx, grad):
        _check_given(ctx)
        t1, t2 = ctx.saved_tensors
        need = ctx.needs_input_grad
        return (grad, grad * ctx.value / t2 if need[1] else None,
                -grad * ctx.value * t1 / (t2 * t2) if need[2] else None)


def _checked_value(dt, value):
    """`value` as PyTorch's kernel holds it: in the integer dtype (1.5 is 1; 300 does not fit int8),
    in float for float16 (its opmath type), else in the dtype itself, each conversion checked."""
    return _dtype.checked_scalar(value, _dtype.float32 if dt is _dtype.float16 else dt)


def _ternary(cls, op, a, t1, t2, value):
    dev = common.same_device(op, a, t1, t2)
    dt = common.result_dtype(a, t1, t2)
    if cls is Addcdiv and not dt.is_floating_point:
        raise RuntimeError("Integer division with addcdiv is no longer supported, and in a future  release addcdiv "
                           "will perform a true division of tensor1 and tensor2. The historic addcdiv behavior can "
                           "be implemented as (input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for "
                           "integer inputs and as (input + value * tensor1 / tensor2) for float inputs. The future "
                           "addcdiv behavior is just the latter implementation: (input + value * tensor1 / tensor2), "
                           "for all dtypes.")
    common.shapes_first(op, a, t1, t2)  # (the shapes are checked before a kernel is looked up for the dtype)
    if dt is _dtype.bool:
        raise NotImplementedError(f"\"{op}_cpu_out\" not implemented for 'Bool'")
    value = _checked_value(dt, value)
    given = tuple(x if x.dtype is not dt else None for x in (t1, t2))
    a, t1, t2 = (common.to_device_of(x, dev).to(dt) for x in (a, t1, t2))
    try:
        return cls.apply(a, t1, t2, value=value, given=given)
    except ValueError:
        common.broadcast_shapes(a.shape, t1.shape, t2.shape, op=op)
        raise


def addcmul(input, tensor1, tensor2, *, value=1):
    return _ternary(Addcmul, "addcmul", input, tensor1, tensor2, value)


def addcdiv(input, tensor1, tensor2, *, value=1):
    return _ternary(Addcdiv, "addcdiv", input, tensor1, tensor2, value)


INPLACE["addcmul_"] = _ternary_(Addcmul, addcmul, "addcmul_")
INPLACE["addcdiv_"] = _ternary_(Addcdiv, addcdiv, "addcdiv_")
