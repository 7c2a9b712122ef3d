"""Activation functions beyond relu / sigmoid / tanh, one primitive each (PyTorch's grad_fn
names: GeluBackward0, SiluBackward0, ...), so that the graph stays one node per activation.

Each is a `_Pointwise`: `value` computes y = f(x) on arrays, `slope` gives f'(x) as tensor ops,
and backward is grad * f'(x), which is itself differentiable.
"""
from __future__ import annotations

import math
import struct

from ..amp import autocast_mode as _amp  # (autocast: the ops that run in float16 / float32)
from .._dtype import float16
from .._errors import hinted
from . import _kernels
from .._ops._prim import Primitive
from .._ops.inplace import run_inplace
from .._ops.common import wrap_dim
from .._ops.pointwise import _fp_quiet, checked_bounds, where


class _Pointwise(Primitive):
    @classmethod
    def forward(cls, ctx, x, **opts):
        ctx.save_for_backward(x)
        ctx.opts = opts
        return cls.values(x._device.xp, x._data, opts)

    @classmethod
    def values(cls, xp, a, opts):
        with _fp_quiet():
            if a.dtype == xp.float16:  # PyTorch computes half in float and rounds once, at the end
                return cls.value(xp, a.astype(xp.float32), **opts).astype(a.dtype)
            return cls.value(xp, a, **opts)

    @classmethod
    def backward(cls, ctx, grad):
        (x,) = ctx.saved_tensors
        if x.dtype is float16:
            return ((grad.float() * cls.slope(x.float(), **ctx.opts)).to(x.dtype),)
        return (grad * cls.slope(x, **ctx.opts),)


class _Gate(_Pointwise):
    """An activation whose slope is a gate, `scale` where `passes(x)` and 0 elsewhere. Backward
    selects, as PyTorch's does: a NaN or inf gradient stops at a closed gate (grad * 0 would be NaN)."""
    scale = 1.0

    @classmethod
    def backward(cls, ctx, grad):
        (x,) = ctx.saved_tensors
        g = grad if cls.scale == 1.0 else grad * cls.scale if grad.dtype is not float16 else \
            (grad.float() * cls.scale).to(float16)
        return (where(cls.passes(x, **ctx.opts), g, 0.0),)


def _apply(cls, x, inplace=False, op="", kernel=None, accepts=_kernels.FLOATING, **opts):
    """Run activation `cls` on x (in place: into x). `kernel` names PyTorch's kernel, which takes
    the dtypes `accepts` (its error for others comes from _kernels.check)."""
    _kernels.check(kernel or op, x.dtype, accepts, op)
    if not inplace:
        return cls.apply(x, **opts)

    def write():
        x._data[...] = cls.values(x._device.xp, x._data, opts)
    return run_inplace(x, cls, (), opts, write, op + "_")


# ---- erf, for the exact GELU ---------------------------------------------------------------------

def erf_array(xp, a):
    """erf from array ops (NumPy has no erf), computed in float64: to 1e-15 for float64 input,
    to 5e-9 (below float32's resolution) with fewer terms for float32. Near 0 the series
    erf(x) = 2/sqrt(pi) exp(-x^2) sum_n 2^n x^(2n+1) / (1*3*...*(2n+1)), whose terms are all
    positive (no cancellation); further out erf = 1 - erfc, erfc from its continued fraction
    erfc(x) = exp(-x^2)/sqrt(pi) / (x + (1/2)/(x + 1/(x + (3/2)/(x + ...))))."""
    terms, depth, cut = (40, 60, 2.2) if a.dtype.itemsize >= 8 else (20, 15, 2.0)
    x = a.astype(xp.float64)
    ax = xp.abs(x)
    small = xp.where(ax < cut, ax, 0.0)
    term = small.copy()
    total = small.copy()
    for n in range(1, terms):
        term = term * (2 * small * small) / (2 * n + 1)
        total = total + term
    series = 2 / math.sqrt(math.pi) * xp.exp(-small * small) * total
    big = xp.where(ax >= cut, ax, cut)
    frac = big
    for k in range(depth, 0, -1):
        frac = big + (k / 2) / frac
    tail = 1 - xp.exp(-big * big) / math.sqrt(math.pi) / frac
    out = xp.sign(x) * xp.where(ax < cut, series, tail)
    return xp.where(xp.isnan(x), x, out).astype(a.dtype, copy=False)


class Erf(_Pointwise):
    """erf(x);  d/dx = 2/sqrt(pi) exp(-x^2)."""
    _node_name = "ErfBackward0"

    @staticmethod
    def value(xp, a):
        return erf_array(xp, a)

    @staticmethod
    def slope(x):
        return (-(x * x)).exp() * (2 / math.sqrt(math.pi))


# ---- the activations -----------------------------------------------------------------------------

class Gelu(_Pointwise):
    """x * Phi(x), Phi the standard normal CDF (approximate='tanh': PyTorch's tanh formula).
    d/dx = Phi(x) + x phi(x)."""
    _node_name = "GeluBackward0"

    @staticmethod
    def value(xp, a, approximate):
        if approximate == "tanh":
            return 0.5 * a * (1 + xp.tanh(math.sqrt(2 / math.pi) * (a + 0.044715 * a * a * a)))
        return 0.5 * a * (1 + erf_array(xp, a * math.sqrt(0.5)))

    @staticmethod
    def slope(x, approximate):
        if approximate == "tanh":
            k = math.sqrt(2 / math.pi)
            t = (k * (x + 0.044715 * x * x * x)).tanh()
            return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * k * (1 + 3 * 0.044715 * x * x)
        cdf = 0.5 * (1 + Erf.apply(x * math.sqrt(0.5)))
        return cdf + x * (-0.5 * x * x).exp() * (1 / math.sqrt(2 * math.pi))


class Silu(_Pointwise):
    """x * sigmoid(x);  d/dx = s (1 + x (1 - s))."""
    _node_name = "SiluBackward0"

    @staticmethod
    def value(xp, a):
        return a / (1 + xp.exp(-a))

    @staticmethod
    def slope(x):
        s = x.sigmoid()
        return s * (1 + x * (1 - s))


class Mish(_Pointwise):
    """x * tanh(softplus(x));  d/dx = t + x sigmoid(x) (1 - t^2)."""
    _node_name = "MishBackward0"

    @staticmethod
    def value(xp, a):
        return a * xp.tanh(xp.logaddexp(0, a).astype(a.dtype, copy=False))

    @staticmethod
    def slope(x):
        t = Softplus.apply(x, beta=1.0, threshold=20.0).tanh()
        return t + x * x.sigmoid() * (1 - t * t)


class Elu(_Pointwise):
    """scale * x where x > 0, else scale * alpha * (exp(x * input_scale) - 1) (ELU, SELU)."""
    _node_name = "EluBackward0"

    @staticmethod
    def value(xp, a, alpha, scale, input_scale):
        return scale * xp.where(a > 0, a, alpha * xp.expm1(a * input_scale))

    @staticmethod
    def slope(x, alpha, scale, input_scale):
        # (PyTorch's test is x <= 0: a NaN takes the linear side's slope)
        return where(x <= 0, (x * input_scale).exp() * (scale * alpha * input_scale), scale)


class Celu(Elu):
    _node_name = "CeluBackward0"

    @staticmethod
    def slope(x, alpha, scale, input_scale):
        # PyTorch's CELU backward takes 1 / alpha with alpha rounded to float32: match it
        input_scale = 1.0 / float(x._device.xp.float32(alpha))
        return Elu.slope(x, alpha, scale, input_scale)


class Softplus(_Pointwise):
    """log(1 + exp(beta x)) / beta, and x itself once beta x > threshold;  d/dx = sigmoid(beta x)."""
    _node_name = "SoftplusBackward0"

    @staticmethod
    def value(xp, a, beta, threshold):
        return xp.where(a * beta > threshold, a, xp.log1p(xp.exp(a * beta)) / beta)

    @staticmethod
    def slope(x, beta, threshold):
        return where(x * beta > threshold, 1.0, (x * beta).sigmoid())


class LogSigmoid(_Pointwise):
    """log(sigmoid(x)) = -softplus(-x), stably;  d/dx = sigmoid(-x)."""
    _node_name = "LogSigmoidBackward0"

    @staticmethod
    def value(xp, a):
        return xp.minimum(a, 0) - xp.log1p(xp.exp(-xp.abs(a)))

    @staticmethod
    def slope(x):
        return (-x).sigmoid()


def _limits(xp, a, *scalars):
    """Python numbers as the elements of `a` hold them: PyTorch's integer kernels convert a float
    limit as C does (1.5 -> 1, -3 -> 253 in uint8)."""
    if a.dtype.kind == "f":
        return [xp.asarray(v, dtype=a.dtype) for v in scalars]
    return [xp.asarray(int(v)).astype(a.dtype) for v in scalars]


class Hardtanh(_Gate):
    """x clamped to [min_val, max_val];  d/dx = 1 strictly inside (and at NaN), else 0."""
    _node_name = "HardtanhBackward0"

    @staticmethod
    def value(xp, a, lo, hi):
        return xp.clip(a, *_limits(xp, a, lo, hi))

    @staticmethod
    def passes(x, lo, hi):
        return ((x <= lo) | (x >= hi)).logical_not()


class LeakyRelu(_Pointwise):
    """x where x > 0, else negative_slope * x."""
    _node_name = "LeakyReluBackward0"

    @staticmethod
    def value(xp, a, slope):
        return xp.where(a > 0, a, a * slope)

    @staticmethod
    def slope(x, slope):
        from .._ops.pointwise import where
        return where(x > 0, x.new_ones(()), x.new_full((), slope))  # (a select: an infinite slope stays off x > 0)


class Hardsigmoid(_Gate):
    """relu6(x + 3) / 6;  d/dx = 1/6 on (-3, 3)."""
    _node_name = "HardsigmoidBackward0"
    # PyTorch's backward takes 1/6 rounded to float32, in every dtype
    scale = struct.unpack("f", struct.pack("f", 1 / 6))[0]

    @staticmethod
    def value(xp, a):
        return xp.clip(a + 3, 0, 6) / 6

    @staticmethod
    def passes(x):
        return (x > -3) & (x < 3)


class Hardswish(_Pointwise):
    """x * relu6(x + 3) / 6;  d/dx = 0 up to -3, 1 from 3 on, (2x + 3)/6 between (PyTorch's ends)."""
    _node_name = "HardswishBackward0"

    @staticmethod
    def value(xp, a):
        return a * xp.clip(a + 3, 0, 6) / 6

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        inner = grad.float() * (x.float() / 3 + 0.5) if x.dtype is float16 else grad * (x / 3 + 0.5)
        return (where(x <= -3, 0.0, where(x < 3, inner.to(grad.dtype), grad)),)


class Threshold(_Gate):
    """x where x > threshold, else value;  d/dx = 1 where x > threshold."""
    _node_name = "ThresholdBackward0"

    @staticmethod
    def value(xp, a, threshold, value):
        threshold, value = _limits(xp, a, threshold, value)
        return xp.where(a <= threshold, value, a)  # NaN stays NaN

    @staticmethod
    def passes(x, threshold, value):
        return (x <= threshold).logical_not()  # PyTorch's test: a NaN threshold passes the gradient


class Softshrink(_Gate):
    """x - lambd above lambd, x + lambd below -lambd, 0 between."""
    _node_name = "SoftshrinkBackward0"

    @staticmethod
    def value(xp, a, lambd):
        # a * 0 in the band keeps NaN and the sign of zero, as PyTorch's scalar loop (its vectorised loop
        # gives +0.: the sign of a zero result depends there on where the element falls)
        return xp.where(a > lambd, a - lambd, xp.where(a < -lambd, a + lambd, a * 0)).astype(a.dtype, copy=False)

    @staticmethod
    def passes(x, lambd):
        return (x < -lambd) | (x > lambd) | x.isnan()  # NaN passes its gradient, as in PyTorch


class Hardshrink(Softshrink):
    """x where |x| > lambd, else 0."""
    _node_name = "HardshrinkBackward0"

    @staticmethod
    def value(xp, a, lambd):
        return xp.where((a >= -lambd) & (a <= lambd), 0, a).astype(a.dtype, copy=False)  # NaN stays NaN


class Glu(Primitive):
    """a * sigmoid(b), for a and b the two halves of x along dim."""
    _node_name = "GluBackward0"

    @staticmethod
    def forward(ctx, x, *, dim):
        xp = x._device.xp
        ctx.save_for_backward(x)
        ctx.dim = dim
        a, b = xp.split(x._data, 2, axis=dim)
        return a / (1 + xp.exp(-b))

    @staticmethod
    def backward(ctx, grad):
        from .._ops.join import cat
        (x,) = ctx.saved_tensors
        a, b = x.chunk(2, ctx.dim)
        s = b.sigmoid()
        return (cat([grad * s, grad * a * s * (1 - s)], ctx.dim),)


# ---- the functions (F.gelu, ...) ---------------------------------------------------------------

def gelu(input, approximate="none"):  # noqa: A002
    if approximate not in ("none", "tanh"):
        raise RuntimeError(f"approximate argument must be either none or tanh.")
    return _apply(Gelu, input, op="gelu", kernel="GeluKernelImpl", approximate=approximate)


def silu(input, inplace=False):  # noqa: A002
    return _apply(Silu, input, inplace, "silu", "silu_cpu")


def mish(input, inplace=False):  # noqa: A002
    return _apply(Mish, input, inplace, "mish", "mish_cpu")


def elu(input, alpha=1.0, inplace=False):  # noqa: A002
    return _apply(Elu, input, inplace, "elu", "elu_cpu", alpha=alpha, scale=1.0, input_scale=1.0)


_SELU_ALPHA, _SELU_SCALE = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946


def selu(input, inplace=False):  # noqa: A002
    return _apply(Elu, input, inplace, "selu", "elu_cpu", alpha=_SELU_ALPHA, scale=_SELU_SCALE, input_scale=1.0)


def celu(input, alpha=1.0, inplace=False):  # noqa: A002
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError")
    return _apply(Celu, input, inplace, "celu", "elu_cpu", alpha=alpha, scale=1.0, input_scale=1.0 / alpha)


@_amp.float32_gpu
def softplus(input, beta=1.0, threshold=20.0):  # noqa: A002
    return _apply(Softplus, input, op="softplus", kernel="softplus_cpu", beta=beta, threshold=threshold)


def logsigmoid(input):  # noqa: A002
    out = _apply(LogSigmoid, input, op="logsigmoid", kernel="log_sigmoid_cpu")
    if not out._data.flags.c_contiguous:  # (PyTorch's kernel writes a new row-major buffer)
        out._data = out._device.xp.ascontiguousarray(out._data)
    return out


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):  # noqa: A002
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    # PyTorch's hardtanh is a clamp: integers are clamped too, bool is refused
    if input.dtype.name == "bool":
        raise hinted(RuntimeError, "Bool inputs not supported for hardtanh", "convert the tensor, e.g. x.float()")
    if input.dtype.name == "uint8" and (min_val < 0 or max_val < 0):
        raise hinted(RuntimeError, "cannot do hardtanh on an unsigned type with negative limits",
                     "convert the tensor, e.g. x.float()")
    min_val, max_val = checked_bounds(input.dtype, min_val, max_val)  # (as clamp's: 300 does not fit int8)
    return _apply(Hardtanh, input, inplace, "hardtanh", accepts=_kernels.NOT_BOOL, lo=min_val, hi=max_val)


def relu6(input, inplace=False):  # noqa: A002
    return hardtanh(input, 0.0, 6.0, inplace)


def leaky_relu(input, negative_slope=0.01, inplace=False):  # noqa: A002
    return _apply(LeakyRelu, input, inplace, "leaky_relu", "leaky_relu_cpu", slope=negative_slope)


def hardsigmoid(input, inplace=False):  # noqa: A002
    return _apply(Hardsigmoid, input, inplace, "hardsigmoid", "hardsigmoid_cpu")


def hardswish(input, inplace=False):  # noqa: A002
    return _apply(Hardswish, input, inplace, "hardswish", "hardswish_cpu")


def threshold(input, threshold, value, inplace=False):  # noqa: A002
    # (value is converted to the input's dtype; threshold to its compute type: float for half)
    (value,) = checked_bounds(input.dtype, value)
    if input.dtype is not float16:
        (threshold,) = checked_bounds(input.dtype, threshold)
    return _apply(Threshold, input, inplace, "threshold", "threshold_cpu", _kernels.NOT_BOOL, threshold=threshold,
                  value=value)


def softshrink(input, lambd=0.5):  # noqa: A002
    if lambd < 0:
        raise RuntimeError(f"lambda must be greater or equal to 0, but found to be {lambd}.")
    return _apply(Softshrink, input, op="softshrink", kernel="softshrink_check", lambd=lambd)


def hardshrink(input, lambd=0.5):  # noqa: A002
    return _apply(Hardshrink, input, op="hardshrink", kernel="hardshrink_cpu", lambd=lambd)


def softsign(input):  # noqa: A002
    return input / (input.abs() + 1)


def tanhshrink(input):  # noqa: A002
    return input - input.tanh()


def glu(input, dim=-1):  # noqa: A002
    if input.ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    d = wrap_dim(dim, input.ndim, "glu")
    if input.shape[d] % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {d} is size {input.shape[d]}")
    _kernels.check("glu_cpu", input.dtype, op="glu")
    return Glu.apply(input, dim=d)


class PreluKernel(Primitive):
    """x where x > 0, else w * x (w broadcast over x), as PyTorch's _prelu_kernel:
    d/dx = 1 or w,  d/dw = 0 or x (summed back to w's shape by the engine)."""
    _node_name = "PreluKernelBackward0"

    @staticmethod
    def forward(ctx, x, w):
        ctx.save_for_backward(x, w)
        xp = x._device.xp
        return xp.where(x._data > 0, x._data, w._data * x._data).astype(x._data.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        x, w = ctx.saved_tensors
        positive = x > 0
        gx = where(positive, grad, w * grad) if ctx.needs_input_grad[0] else None
        gw = where(positive, 0.0, x * grad) if ctx.needs_input_grad[1] else None
        return gx, gw


@_amp.lower_precision
def prelu(input, weight):  # noqa: A002
    """x where x > 0, else weight * x, with one weight (or one per channel, dim 1)."""
    if weight.dtype is not input.dtype:
        raise hinted(RuntimeError, f"prelu: Type promoting not supported. Got {input.dtype._short} and "
                     f"{weight.dtype._short}", "convert the input to the weight's dtype, e.g. x.to(weight.dtype)")
    if weight.numel() != 1:
        if input.ndim == 0:
            raise RuntimeError("Not allow zero-dim input tensor.")
        channels = input.shape[1] if input.ndim > 1 else 1
        if channels != weight.numel():
            raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found parameter numbers = "
                               f"{weight.numel()} and channel size = {channels}.")
    if weight.ndim > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {weight.ndim}")
    _kernels.check("prelu_cpu", input.dtype, op="prelu")
    w = weight
    if input.ndim != weight.ndim:  # (PyTorch views the weight along dim 1 of the input)
        w = weight.reshape(tuple(weight.numel() if d == 1 else 1 for d in range(input.ndim)))
    return PreluKernel.apply(input, w)


class RreluWithNoise(Primitive):
    """x * noise: the slope each element drew (1 where x > 0);  d/dx = noise."""
    _node_name = "RreluWithNoiseBackward0"
    reads_input_in_backward = False

    @staticmethod
    def forward(ctx, x, *, noise):
        ctx.noise = noise
        return (x._data * noise).astype(x._data.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        return (grad * type(grad)._make(ctx.noise, grad._device),)


def _rrelu_noise(x, lower, upper, gen=None):
    """PyTorch's draws, element by element in row-major order: for each x <= 0 (a NaN is not) one
    uniform double, 53 bits of a 64-bit draw, scaled to [lower, upper); 1 for the others."""
    from .._random import generator, unit64
    xp = x._device.xp
    neg = x._data <= 0
    r = unit64(generator(gen), int(neg.sum())) * (upper - lower) + lower  # (drawn on the host)
    noise = xp.ones(neg.shape, dtype=x._data.dtype)
    noise[neg] = xp.asarray(r.astype(x._data.dtype))  # (the double cast to the input's dtype, as PyTorch's)
    return noise


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):  # noqa: A002
    """Leaky ReLU with a random slope in [lower, upper] while training; the mean slope otherwise."""
    return rrelu_with_generator(input, lower, upper, training, inplace)


def rrelu_with_generator(input, lower, upper, training, inplace, generator=None):  # noqa: A002
    """rrelu drawing from `generator` (torch.rrelu and rrelu_ take one; nn.functional.rrelu does not)."""
    if training:
        _kernels.check("rrelu_with_noise_out_cpu", input.dtype, _kernels.SINGLE_DOUBLE, "rrelu")
        out = RreluWithNoise.apply(input, noise=_rrelu_noise(input, lower, upper, generator))
        return input.copy_(out) if inplace else out
    return leaky_relu(input, (lower + upper) / 2, inplace)
