"""minitorch: a small PyTorch-compatible tensor and autograd library, built to be read.

    import minitorch as torch
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    (x * x).sum().backward()
    x.grad            # tensor([2., 4., 6.])
"""
from __future__ import annotations

__version__ = "0.1.0"

from . import _dtype
from ._device import device
from ._dtype import (bool, double, float, float16, float32, float64, get_default_dtype, half, int,  # noqa: A004
                     int8, int16, int32, int64, long, promote_types, set_default_dtype, short, uint8)
from ._dtype import dtype
from ._size import Size
from ._tensor import Tensor
from . import _methods  # noqa: F401  (attaches operators and methods to Tensor)
from . import cuda  # noqa: F401  (registers the "cuda" device type; CuPy itself loads lazily)
from . import autograd
from .autograd import enable_grad, inference_mode, is_grad_enabled, no_grad, set_grad_enabled
from ._factories import (arange, as_tensor, empty, empty_like, eye, from_numpy, full, full_like, linspace,
                         multinomial, normal, ones, ones_like, rand, rand_like, randint, randint_like, randn,
                         randn_like, randperm, tensor, zeros, zeros_like)
from ._random import Generator, get_rng_state, initial_seed, manual_seed, seed, set_rng_state
from ._printing import set_printoptions
from ._ops.pointwise import (abs, add, bitwise_and, bitwise_not, bitwise_or, bitwise_xor, ceil, clamp,  # noqa: A004
                             cos, div, eq, exp, expm1, floor, floor_divide, ge, gt, isfinite, isinf, isnan, le,
                             log, log1p, logical_and, logical_not, logical_or, logical_xor, lt, maximum, minimum,
                             mul, ne, neg, pow, reciprocal, relu, remainder, fmod, round, rsqrt, sigmoid, sign, sin,
                             sqrt, square, sub, tanh, true_divide, trunc, where)
from ._ops.reduce import (all, amax, amin, any, argmax, argmin, cumprod, cumsum, log_softmax, logsumexp, max,  # noqa
                          mean, min, norm, prod, softmax, std, sum, var)
from ._ops.views import (as_strided, expand, flatten, movedim, narrow, permute, reshape, squeeze, t, transpose,
                         unflatten, unsqueeze)
from ._ops.join import cat, chunk, concat, concatenate, flip, hstack, split, stack, tile, unbind, vstack
from ._ops.index import gather, index_select, masked_fill, nonzero
from ._ops.linalg import bmm, dot, matmul, mm, mv, outer
from ._ops.common import broadcast_shapes

clip = clamp
multiply, subtract, divide = mul, sub, div
absolute, negative = abs, neg
swapaxes = swapdims = transpose
moveaxis = movedim


def is_tensor(obj):
    return isinstance(obj, Tensor)


def numel(t):
    return t.numel()


def clone(t):
    return t.clone()


def detach(t):
    return t.detach()


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    return builtins_bool(isclose(a, b, rtol, atol, equal_nan).all())


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    xp = a._device.xp
    bd = b._data if isinstance(b, Tensor) else b
    return Tensor._make(xp.isclose(a._data, bd, rtol=rtol, atol=atol, equal_nan=equal_nan), a._device)


def equal(a, b):
    return a.shape == b.shape and builtins_bool((a == b).all())


def result_type(a, b):
    from ._ops.common import result_dtype
    return result_dtype(a, b)


import builtins as _builtins  # noqa: E402

builtins_bool = _builtins.bool

from . import nn, optim, utils  # noqa: E402,F401
