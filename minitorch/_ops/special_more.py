"""The rest of torch.special: the scaled Bessel functions and erfcx (with their gradients), log_ndtr,
the incomplete gamma functions, Hurwitz's zeta, the multivariate log-gamma, the Bessel and Airy
functions and the orthogonal polynomials.

The numerics are in _specfun.py (in float64, rounded once to the input's dtype). PyTorch defines
no gradient for the Bessel, Airy and polynomial functions: their results do not require grad, as
there. For igamma and zeta it differentiates only in the second argument; asking for the other
raises its NotImplementedError.
"""
from __future__ import annotations

import math

from .. import _dtype
from . import _specfun, common
from ._prim import Primitive
from .inplace_prim import write_inplace
from .pointwise import _fp_quiet, laid_out, unary


def _float_input(op, x, half=False):
    """x as a float tensor (integers and bools in the default float dtype); float16 only where
    PyTorch has a kernel for it."""
    T = common.tensor_cls()
    if not isinstance(x, T):
        raise TypeError(f"special_{op}(): argument 'input' (position 1) must be Tensor, not {type(x).__name__}")
    if not x.dtype.is_floating_point:
        x = x.to(_dtype.get_default_dtype())
    if x.dtype.itemsize < 4 and not half:
        raise NotImplementedError(f"\"{op}_cpu\" not implemented for '{x.dtype._short}'")
    return x


def _compute(fn, x, *args):
    """fn(xp, *args, values) on x's values in float64, rounded back to x's dtype."""
    xp, a = x._device.xp, x._data
    with _fp_quiet():
        return fn(xp, *args, a.astype("float64")).astype(a.dtype)


def _with_out(op, result, out):
    if out is None:
        return result
    from .out import write_out
    return write_out(op, result, out)


# ---- with a gradient ---------------------------------------------------------------------

class I0e(Primitive):
    """exp(-|x|) I0(x);  d/dx = i1e(x) - sgn(x) i0e(x)."""
    _node_name = "SpecialI0EBackward0"
    saves_output = True

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return _compute(_specfun.scaled_bessel_i, x, 0)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return (grad * (i1e(x) - x.sgn() * ctx.saved_output),)


class I1e(Primitive):
    """exp(-|x|) I1(x);  d/dx = i0e(x) - i1e(x) (sgn(x) + 1/x), 1/2 at 0."""
    _node_name = "SpecialI1EBackward0"
    saves_output = True

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return _compute(_specfun.scaled_bessel_i, x, 1)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        zero = x == 0
        d = i0e(x) - ctx.saved_output * (x.sgn() + 1 / x.where(~zero, 1.0))
        return (grad * d.where(~zero, 0.5),)


class Erfcx(Primitive):
    """exp(x^2) erfc(x);  d/dx = 2x erfcx(x) - 2/sqrt(pi)."""
    _node_name = "SpecialErfcxBackward0"
    saves_output = True

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return _compute(_specfun.erfcx, x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return (grad * (2 * x * ctx.saved_output - 2 / math.sqrt(math.pi)),)


class LogNdtr(Primitive):
    """log Phi(x);  d/dx = phi(x) / Phi(x) = exp(-x^2/2 - log_ndtr(x)) / sqrt(2 pi)."""
    _node_name = "SpecialLogNdtrBackward0"
    saves_output = True

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return _compute(_specfun.log_ndtr, x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return (grad * (-x * x / 2 - ctx.saved_output).exp() / math.sqrt(2 * math.pi),)


def i0e(input, *, out=None):  # noqa: A002
    return _with_out("special_i0e", unary(I0e, _float_input("i0e", input, half=True)), out)


def i1e(input, *, out=None):  # noqa: A002
    return _with_out("special_i1e", unary(I1e, _float_input("i1e", input, half=True)), out)


def erfcx(input, *, out=None):  # noqa: A002
    return _with_out("special_erfcx", unary(Erfcx, _float_input("erfcx", input)), out)


def log_ndtr(input, *, out=None):  # noqa: A002
    return _with_out("special_log_ndtr", unary(LogNdtr, _float_input("log_ndtr", input)), out)


class Igamma(Primitive):
    """The regularized lower incomplete gamma P(a, x);  d/dx = x^(a-1) e^-x / Gamma(a), and no
    derivative in a (PyTorch has none)."""
    _node_name = "IgammaBackward0"
    upper, sign = False, 1

    @classmethod
    def forward(cls, ctx, a, x):
        ctx.save_for_backward(a, x)
        xp = a._device.xp
        with _fp_quiet():
            return _specfun.igamma(xp, a._data, x._data, cls.upper).astype(a._data.dtype)

    @classmethod
    def backward(cls, ctx, grad):
        a, x = ctx.saved_tensors
        if ctx.needs_input_grad[0]:
            raise NotImplementedError(f"the derivative for '{'igammac' if cls.upper else 'igamma'}: input' is not "
                                      "implemented.")
        return None, cls.sign * grad * ((a - 1) * x.log() - x - a.lgamma()).exp()


class Igammac(Igamma):
    """Q(a, x) = 1 - P(a, x);  d/dx = -x^(a-1) e^-x / Gamma(a)."""
    _node_name = "IgammacBackward0"
    upper, sign = True, -1


class Zeta(Primitive):
    """Hurwitz's zeta(x, q) = sum_k (k + q)^-x;  d/dq = -x zeta(x + 1, q), none in x."""
    _node_name = "SpecialZetaBackward0"

    @staticmethod
    def forward(ctx, x, q):
        ctx.save_for_backward(x, q)
        with _fp_quiet():
            return _specfun.zeta(x._device.xp, x._data, q._data).astype(x._data.dtype)

    @staticmethod
    def backward(ctx, grad):
        x, q = ctx.saved_tensors
        if ctx.needs_input_grad[0]:
            raise NotImplementedError("the derivative for 'zeta' is not implemented.")
        return None, grad * -x * zeta(x + 1.0, q)


class ZetaScalarSelf(Zeta):
    _node_name = "SpecialZetaBackward1"  # zeta(number, tensor)


class ZetaScalarOther(Zeta):
    _node_name = "SpecialZetaBackward2"  # zeta(tensor, number)


def _two_floats(op, kernel, a, b, numbers=False):
    """Both operands as tensors of their promoted float dtype, on one device. numbers: zeta's rules
    (a Python number for either, integers promoted to the default float, no float16 kernel); else
    igamma's (two tensors, no integer kernel, a float16 one)."""
    T = common.tensor_cls()
    for v, what, pos in ((a, "input", 1), (b, "other", 2)):
        if not isinstance(v, T) and not (numbers and isinstance(v, (int, float)) and not isinstance(v, bool)):
            raise TypeError(f"{op}(): argument '{what}' (position {pos}) must be Tensor, not {type(v).__name__}")
    if not isinstance(a, T) and not isinstance(b, T):
        raise TypeError(f"{op}(): expected at least one Tensor argument")
    dt = common.result_dtype(a, b)
    if not dt.is_floating_point:
        if not numbers:
            raise NotImplementedError(f"\"{kernel}\" not implemented for '{dt._short}'")
        dt = _dtype.get_default_dtype()
    if dt.itemsize < 4 and numbers:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{dt._short}'")
    ref = a if isinstance(a, T) else b
    dev = common.same_device(op, *(v for v in (a, b) if isinstance(v, T)))
    from .._factories import tensor
    a, b = (common.to_device_of(v, dev).to(dt) if isinstance(v, T) else tensor(float(v), dtype=dt, device=ref.device)
            for v in (a, b))
    return a, b


def gammainc(input, other, *, out=None):  # noqa: A002
    a, x = _two_floats("special_gammainc", "igamma_cpu", input, other)
    return _with_out("special_gammainc", _broadcast(Igamma, a, x, "igamma"), out)


def gammaincc(input, other, *, out=None):  # noqa: A002
    a, x = _two_floats("special_gammaincc", "igammac_cpu", input, other)
    return _with_out("special_gammaincc", _broadcast(Igammac, a, x, "igammac"), out)


def zeta(input, other, *, out=None):  # noqa: A002
    T = common.tensor_cls()
    cls = Zeta if isinstance(input, T) and isinstance(other, T) else ZetaScalarOther if isinstance(input, T) \
        else ZetaScalarSelf
    x, q = _two_floats("special_zeta", "zeta_cpu", input, other, numbers=True)
    return _with_out("special_zeta", _broadcast(cls, x, q, "zeta"), out)


igamma, igammac = gammainc, gammaincc  # torch.igamma, torch.igammac


def _broadcast(cls, a, b, op):
    try:
        return cls.apply(a, b)
    except ValueError:
        common.broadcast_shapes(a.shape, b.shape, op=op)
        raise


def _igamma_(self, other):
    out = gammainc(self.detach(), other.detach())
    return write_inplace(self, Igamma, (common.to_device_of(other, self._device).to(self.dtype),), {}, "igamma_",
                         (out.dtype, out.shape))


def _igammac_(self, other):
    out = gammaincc(self.detach(), other.detach())
    return write_inplace(self, Igammac, (common.to_device_of(other, self._device).to(self.dtype),), {}, "igammac_",
                         (out.dtype, out.shape))


class Mvlgamma(Primitive):
    """The multivariate log-gamma: p(p-1)/4 log(pi) + sum_j<p lgamma(x - j/2);
    d/dx = sum_j digamma(x - j/2)."""
    _node_name = "MvlgammaBackward0"

    @staticmethod
    def forward(ctx, x, *, p):
        ctx.save_for_backward(x)
        ctx.p = p
        xp, a = x._device.xp, x._data
        with _fp_quiet():
            terms = _specfun.lgamma(xp, a[..., None].astype("float64") - xp.arange(p) / 2.0)
            return (terms.sum(-1) + p * (p - 1) / 4 * math.log(math.pi)).astype(a.dtype)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        from .special import digamma
        shifts = x.new_tensor([-j / 2 for j in range(ctx.p)])
        return (grad * digamma(x.unsqueeze(-1) + shifts).sum(-1),)


def multigammaln(input, p, *, out=None):  # noqa: A002
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    if input.dtype is _dtype.bool:
        raise RuntimeError("The input tensor may not be a boolean tensor.")
    x = _float_input("mvlgamma", input, half=True)
    return _with_out("special_multigammaln", unary(Mvlgamma, x, p=int(p)), out)


mvlgamma = multigammaln


def _mvlgamma_(self, p):
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    result = (_dtype.get_default_dtype(), self.shape) if not self.dtype.is_floating_point else None
    return write_inplace(self, Mvlgamma, (), {"p": int(p)}, "mvlgamma_", result)


INPLACE = {"igamma_": _igamma_, "igammac_": _igammac_, "mvlgamma_": _mvlgamma_}


# ---- without a gradient (PyTorch defines none) ---------------------------------------------

def _no_grad(op, fn, *args, name="input"):
    """special.<op>, its argument named as PyTorch names it: `input`, or `x` (airy_ai, ...)."""
    def compute(input, out):  # noqa: A002
        x = _float_input(op, input)
        result = laid_out(common.tensor_cls()._make(_compute(fn, x, *args), x._device), x)
        return _with_out(f"special_{op}", result, out)

    def f(input, *, out=None):  # noqa: A002
        return compute(input, out)

    def f_x(x, *, out=None):
        return compute(x, out)
    f = f if name == "input" else f_x
    f.__name__ = f.__qualname__ = op
    return f


def _at_infinity(fn, pos, neg):
    """fn with PyTorch's values at +inf and -inf (where its series give nan)."""
    def g(xp, *args):
        x = args[-1]
        out = fn(xp, *args)
        return xp.where(x == xp.inf, pos, xp.where(x == -xp.inf, neg, out))
    return g


_nan = math.nan
bessel_j0 = _no_grad("bessel_j0", _at_infinity(_specfun.bessel_j, _nan, _nan), 0)
bessel_j1 = _no_grad("bessel_j1", _at_infinity(_specfun.bessel_j, _nan, _nan), 1)
bessel_y0 = _no_grad("bessel_y0", _at_infinity(_specfun.bessel_y, _nan, _nan), 0)
bessel_y1 = _no_grad("bessel_y1", _at_infinity(_specfun.bessel_y, _nan, _nan), 1)
modified_bessel_i0 = _no_grad("modified_bessel_i0", _at_infinity(_specfun.bessel_i, _nan, _nan), 0)
modified_bessel_i1 = _no_grad("modified_bessel_i1", _at_infinity(_specfun.bessel_i, _nan, _nan), 1)
modified_bessel_k0 = _no_grad("modified_bessel_k0", _specfun.bessel_k, 0)
modified_bessel_k1 = _no_grad("modified_bessel_k1", _specfun.bessel_k, 1)
scaled_modified_bessel_k0 = _no_grad("scaled_modified_bessel_k0", _specfun.scaled_bessel_k, 0, name="x")
scaled_modified_bessel_k1 = _no_grad("scaled_modified_bessel_k1", _specfun.scaled_bessel_k, 1, name="x")
spherical_bessel_j0 = _no_grad("spherical_bessel_j0", _specfun.spherical_bessel_j0, name="x")
airy_ai = _no_grad("airy_ai", _at_infinity(_specfun.airy_ai, _nan, _nan), name="x")


def _polynomial(op, fn, *args):
    def f(x, n, *, out=None):
        T = common.tensor_cls()
        if not isinstance(x, T) and not isinstance(n, T):
            raise TypeError(f"special_{op}(): expected at least one Tensor argument")
        dt = common.result_dtype(x, n)
        if not dt.is_floating_point:
            dt = _dtype.get_default_dtype()
        if dt.itemsize < 4:
            raise NotImplementedError(f"\"{op}_cpu\" not implemented for '{dt._short}'")
        ref = x if isinstance(x, T) else n
        xp = ref._device.xp
        xa = x.to(dt)._data if isinstance(x, T) else xp.asarray(float(x), dtype=dt.np)
        k = n.to(dt)._data if isinstance(n, T) else xp.asarray(float(n), dtype=dt.np)
        with _fp_quiet():
            shape = common.broadcast_shapes(xa.shape, k.shape, op=op)
            values = fn(xp, xp.broadcast_to(xa, shape), k, *args).astype(dt.np)
        values = values if values.flags.c_contiguous else values.copy()
        return _with_out(f"special_{op}", laid_out(T._make(values, ref._device), x, n), out)
    f.__name__ = f.__qualname__ = op
    return f


chebyshev_polynomial_t = _polynomial("chebyshev_polynomial_t", _specfun.chebyshev, "t")
chebyshev_polynomial_u = _polynomial("chebyshev_polynomial_u", _specfun.chebyshev, "u")
chebyshev_polynomial_v = _polynomial("chebyshev_polynomial_v", _specfun.chebyshev, "v")
chebyshev_polynomial_w = _polynomial("chebyshev_polynomial_w", _specfun.chebyshev, "w")
shifted_chebyshev_polynomial_t = _polynomial("shifted_chebyshev_polynomial_t", _specfun.chebyshev, "t", True)
shifted_chebyshev_polynomial_u = _polynomial("shifted_chebyshev_polynomial_u", _specfun.chebyshev, "u", True)
shifted_chebyshev_polynomial_v = _polynomial("shifted_chebyshev_polynomial_v", _specfun.chebyshev, "v", True)
shifted_chebyshev_polynomial_w = _polynomial("shifted_chebyshev_polynomial_w", _specfun.chebyshev, "w", True)
hermite_polynomial_h = _polynomial("hermite_polynomial_h", _specfun.hermite, True)
hermite_polynomial_he = _polynomial("hermite_polynomial_he", _specfun.hermite, False)
laguerre_polynomial_l = _polynomial("laguerre_polynomial_l", _specfun.laguerre)
legendre_polynomial_p = _polynomial("legendre_polynomial_p", _specfun.legendre)
