"""`minitorch.nn.init`: fill a tensor in place with a starting distribution.

Every function works under no_grad (filling a parameter is not part of the model's
computation) and returns the tensor. The random ones draw from minitorch's generator
(`minitorch.manual_seed`), or the `generator=` given, exactly as PyTorch's do: after the same
seed a layer starts from PyTorch's weights, bit for bit.

Why the scales: a layer's output variance is fan_in * Var(w) * Var(x). Xavier/Glorot picks
Var(w) = 2 / (fan_in + fan_out) to keep both the forward signal and the backward gradient
steady; Kaiming/He picks Var(w) = gain^2 / fan, which accounts for ReLU zeroing half the
units (gain sqrt(2)).
"""
from __future__ import annotations

import math
import warnings

from ..autograd.grad_mode import no_grad


def calculate_gain(nonlinearity, param=None):
    """The recommended gain for a nonlinearity (PyTorch's table)."""
    linear_fns = ["linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
                  "conv_transpose3d"]
    if nonlinearity in linear_fns or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            negative_slope = 0.01
        elif not isinstance(param, bool) and isinstance(param, (int, float)):
            negative_slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + negative_slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor):
    """fan_in = in_features * receptive field (kh*kw for a conv), fan_out = out_features * field."""
    if tensor.dim() < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    num_input_fmaps, num_output_fmaps = tensor.size(1), tensor.size(0)
    receptive = 1
    for s in tensor.shape[2:]:
        receptive *= s
    return num_input_fmaps * receptive, num_output_fmaps * receptive


def _calculate_correct_fan(tensor, mode):
    mode = mode.lower()
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of fan_in, fan_out")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def uniform_(tensor, a=0.0, b=1.0, generator=None):
    """Fill with values drawn from U(a, b)."""
    with no_grad():
        return tensor.uniform_(a, b, generator=generator)


def normal_(tensor, mean=0.0, std=1.0, generator=None):
    """Fill with values drawn from N(mean, std^2)."""
    with no_grad():
        return tensor.normal_(mean, std, generator=generator)


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None):
    """N(mean, std^2) cut to [a, b], by PyTorch's rejection sampling: when the bounds keep
    more than 30% of the mass, draw normals and redraw those outside (then the values are
    PyTorch's, bit for bit); otherwise propose uniforms on [a, b] and accept each with
    probability pdf(x) / pdf(mode)."""
    def norm_cdf(x):
        return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0

    if (mean < a - 2 * std) or (mean > b + 2 * std):
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The distribution of values "
                      "may be incorrect.", stacklevel=2)
    from .. import _factories
    from .._ops.pointwise import where
    with no_grad():
        if norm_cdf((b - mean) / std) - norm_cdf((a - mean) / std) > 0.3:
            lo, hi = (_factories.tensor(v, dtype=tensor.dtype).item() for v in (a, b))
            result = tensor.normal_(mean, std, generator=generator)
            while True:
                outside = (result < lo) | (result > hi)
                if not outside.any():
                    break
                result = where(outside, _factories.empty_like(result).normal_(mean, std, generator=generator), result)
            if result is not tensor:
                tensor.copy_(result)
            return tensor
        log_peak = -0.5 * ((max(a, min(mean, b)) - mean) / std) ** 2

        def rejected(x):
            log_pdf = x.sub(mean).div_(std).pow_(2).mul_(-0.5).sub_(log_peak)
            return _factories.empty_like(x).uniform_(generator=generator).log_().gt(log_pdf)

        result = tensor.uniform_(a, b, generator=generator)
        pending = rejected(result)
        while pending.any():
            candidates = _factories.empty_like(tensor).uniform_(a, b, generator=generator)
            result = where(pending, candidates, result)
            pending = where(pending, rejected(candidates), pending)
        if result is not tensor:
            tensor.copy_(result)
        return tensor


def constant_(tensor, val):
    with no_grad():
        return tensor.fill_(val)


def zeros_(tensor):
    with no_grad():
        return tensor.zero_()


def ones_(tensor):
    with no_grad():
        return tensor.fill_(1.0)


def eye_(tensor):
    if tensor.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    from .._factories import eye
    with no_grad():
        return tensor.copy_(eye(*tensor.shape, dtype=tensor.dtype))


def orthogonal_(tensor, gain=1.0, generator=None):
    """A (semi-)orthogonal matrix, times gain: the Q of the QR factorisation of a N(0, 1) matrix
    (rows by the rest of the dims flattened), its columns' signs fixed so that Q is uniform."""
    if tensor.ndim < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    from .._tensor import Tensor
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    flat = tensor.new_empty((rows, cols)).normal_(0, 1, generator=generator)
    xp, a = flat._device.xp, flat._data
    a = a.T if rows < cols else a
    q, r = xp.linalg.qr(a)
    q = q * xp.sign(xp.diagonal(r))
    q = q.T if rows < cols else q
    with no_grad():
        tensor.view_as(flat).copy_(Tensor._make(xp.ascontiguousarray(q.astype(a.dtype)), flat._device))
        return tensor.mul_(gain)


def xavier_uniform_(tensor, gain=1.0, generator=None):
    """U(-a, a) with a = gain * sqrt(6 / (fan_in + fan_out))."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    a = math.sqrt(3.0) * std
    return uniform_(tensor, -a, a, generator)


def xavier_normal_(tensor, gain=1.0, generator=None):
    """N(0, std^2) with std = gain * sqrt(2 / (fan_in + fan_out))."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return normal_(tensor, 0.0, std, generator)


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """U(-bound, bound) with bound = gain * sqrt(3 / fan). nn.Linear and nn.Conv2d use a=sqrt(5),
    which works out to bound = 1/sqrt(fan_in)."""
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    std = calculate_gain(nonlinearity, a) / math.sqrt(fan)
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """N(0, std^2) with std = gain / sqrt(fan)."""
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    std = calculate_gain(nonlinearity, a) / math.sqrt(fan)
    return normal_(tensor, 0.0, std, generator)


def dirac_(tensor, groups=1):
    """The identity of a convolution: weight (out, in, *k) with 1 at each kernel's centre for
    channel d of each group, so that conv(x) == x on as many channels as fit."""
    if tensor.ndim not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    if tensor.shape[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    per_group = tensor.shape[0] // groups
    centre = tuple(n // 2 for n in tensor.shape[2:])
    with no_grad():
        tensor.zero_()
        for g in range(groups):
            for d in range(min(per_group, tensor.shape[1])):
                tensor[(g * per_group + d, d) + centre] = 1
    return tensor


def sparse_(tensor, sparsity, std=0.01, generator=None):
    """A 2-D weight drawn from N(0, std), then ceil(sparsity * rows) zeros in each column (at rows
    chosen by randperm, column by column, as PyTorch draws them)."""
    from .._factories import randperm
    if tensor.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    num_zeros = math.ceil(sparsity * rows)
    with no_grad():
        tensor.normal_(0, std, generator=generator)
        for c in range(cols):
            tensor[randperm(rows)[:num_zeros], c] = 0
    return tensor


def _deprecated(new):
    """The old name without the trailing underscore, which PyTorch still accepts with a warning."""
    old = new.__name__[:-1]

    def deprecated_init(*args, **kwargs):
        warnings.warn(f"`nn.init.{old}` is now deprecated in favor of `nn.init.{new.__name__}`.", FutureWarning,
                      stacklevel=2)
        return new(*args, **kwargs)
    deprecated_init.__name__ = deprecated_init.__qualname__ = old
    deprecated_init.__doc__ = f"{old}(...): deprecated, use nn.init.{new.__name__}."
    return deprecated_init


(uniform, normal, constant, eye, dirac, xavier_uniform, xavier_normal, kaiming_uniform, kaiming_normal, orthogonal,
 sparse) = (_deprecated(f) for f in (uniform_, normal_, constant_, eye_, dirac_, xavier_uniform_, xavier_normal_,
                                      kaiming_uniform_, kaiming_normal_, orthogonal_, sparse_))
