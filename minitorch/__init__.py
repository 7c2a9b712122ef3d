"""minitorch: a small PyTorch-compatible tensor and autograd library, built to be read.

    import minitorch as torch
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    (x * x).sum().backward()
    x.grad            # tensor([2., 4., 6.])
"""
from __future__ import annotations

import warnings as _warnings

# PyTorch computes inf and nan silently; NumPy, which computes for us, would warn ("overflow
# encountered in exp"). Silence those warnings where minitorch's own code calls NumPy, and only
# there: a learner's NumPy code still warns as usual.
_QUIET_NUMPY = {"action": "ignore", "category": RuntimeWarning, "module": r"minitorch\."}
_warnings.filterwarnings(**_QUIET_NUMPY)

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
from .autograd import (enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled, no_grad,  # noqa: E402
                       set_grad_enabled)
from ._factories import (arange, as_tensor, empty, empty_like, eye, from_numpy, full, full_like, linspace,
                         multinomial, normal, ones, ones_like, rand, rand_like, randint, randint_like, randn,
                         randn_like, randperm, tensor, zeros, zeros_like)
from ._factories import bernoulli, poisson  # noqa: E402
from ._factories import range_ as range  # noqa: E402, A004  (the deprecated inclusive range)
from ._random import Generator, default_generator, get_rng_state, initial_seed, manual_seed, seed, set_rng_state
from . import _random_fill, random  # noqa: F401  (uniform_, normal_, ... on Tensor; minitorch.random)
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
from ._ops.pointwise import bitwise_left_shift, bitwise_right_shift, rsub  # noqa: E402
from ._ops.out import (abs, absolute, add, all, amax, amin, any, argmax, argmin, bitwise_and,  # noqa: A004,E402
                       bitwise_left_shift, bitwise_not, bitwise_or, bitwise_right_shift, bitwise_xor, bmm, cat, ceil,
                       clamp, clamp_max, clamp_min, concat, concatenate, cos, cumprod, cumsum, div, divide, dot, eq,
                       exp, expm1, floor, floor_divide, fmod, gather, ge, gt, hstack, index_select, le, log, log1p,
                       log_softmax, logical_and, logical_not, logical_or, logical_xor, logsumexp, lt, matmul, max,
                       maximum, mean, min, minimum, mm, mul, multiply, mv, ne, neg, negative, nonzero, norm, outer,
                       pow, prod, reciprocal, remainder, round, rsqrt, sigmoid, sign, sin, softmax, sqrt, square,
                       stack, std, sub, subtract, sum, tanh, true_divide, trunc, var, vstack, where)
from ._tensor import LEGACY_TYPES as _LEGACY_TYPES  # noqa: E402
from ._memory_format import channels_last, channels_last_3d, contiguous_format, memory_format, preserve_format  # noqa

ger = outer  # outer's old name, still in PyTorch
from . import backends  # noqa: E402,F401  (torch.backends.mps / cudnn probes)
globals().update(_LEGACY_TYPES)  # FloatTensor, LongTensor, ...: the legacy typed constructors
from . import _methods_extra  # noqa: F401,E402  (the wider API's Tensor methods)
from . import _methods_compat  # noqa: F401,E402  (other names PyTorch code uses)
from ._ops.special import (acos, acosh, addcdiv, addcmul, arccos, arccosh, arcsin, arcsinh, arctan, arctan2,  # noqa
                           arctanh, asin, asinh, atan, atan2, atanh, cosh, deg2rad, digamma, erf, erfc, erfinv, exp2,
                           fix, float_power, frac, i0, lerp, lgamma, log2, log10, logit, nan_to_num, polygamma,
                           rad2deg, sgn, sinc, sinh, tan)
from ._ops.sorting import (argsort, bincount, bucketize, histc, histogram, kthvalue, median, mode, msort,  # noqa
                           nanmedian, searchsorted, sort, topk, unique, unique_consecutive)
from ._ops.scatter import (index_add, index_copy, index_fill, index_put, masked_scatter, masked_select, put,  # noqa
                           scatter, scatter_add, scatter_reduce, take, take_along_dim)
from ._ops.shape_ops import (broadcast_tensors, broadcast_to, diag, diag_embed, diagonal, diff, meshgrid, ravel,  # noqa
                             repeat_interleave, roll, tril, triu, trace)
from ._ops.blas import addbmm, addmm, addmv, addr, baddbmm
from ._ops.stats import cdist, count_nonzero, dist, std_mean, var_mean
from ._ops.einsum import einsum
from ._ops.more import (aminmax, atleast_1d, atleast_2d, atleast_3d, cartesian_prod, column_stack,  # noqa: E402
                       copysign, cross, cummax, cummin, dsplit, dstack, fliplr, flipud, fmax, fmin, heaviside, hsplit,
                       hypot, inner, kron, logcumsumexp, nanmean, nansum, positive, rot90, scalar_tensor, signbit,
                       tensor_split, tensordot, vdot, vsplit, xlogy)
globals().update(_methods_extra.torch_inplace_functions())  # torch.sin_(t), torch.abs_(t), ...
from ._factories import logspace  # noqa: E402
from .autograd.anomaly_mode import is_anomaly_check_nan_enabled, is_anomaly_enabled  # noqa: E402
from ._dtype import can_cast as _can_cast  # noqa: E402


def can_cast(from_, to):
    """Whether an in-place op may write a `from_` result into a `to` tensor (a lower category may not)."""
    return _can_cast(_dtype.as_dtype(from_, "can_cast"), _dtype.as_dtype(to, "can_cast"))


def is_floating_point(t):
    return t.dtype.is_floating_point


def is_complex(t):
    return False  # minitorch has no complex dtypes


def is_inference(t):
    return t.is_inference()


def argwhere(t):
    return t.nonzero()


def conj(t):
    return t  # real tensors only: conjugation is the identity


conj_physical = resolve_conj = resolve_neg = conj



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
    from ._ops.common import broadcast_shapes, same_device
    if not isinstance(b, Tensor):
        raise TypeError(f"isclose(): argument 'other' (position 2) must be Tensor, not {type(b).__name__}")
    if a.dtype is not b.dtype:  # PyTorch compares like with like
        raise RuntimeError(f"{a.dtype._short} did not match {b.dtype._short} (convert one first, e.g. "
                           f"b.to(a.dtype))")
    same_device("isclose", a, b)
    broadcast_shapes(a.shape, b.shape, op="isclose")
    xp = a._device.xp
    return Tensor._make(xp.isclose(a._data, b._data, rtol=rtol, atol=atol, equal_nan=equal_nan), a._device)


def equal(a, b):
    return a.shape == b.shape and builtins_bool((a == b).all())


def result_type(a, b):
    from ._ops.common import result_dtype
    return result_dtype(a, b)


import builtins as _builtins  # noqa: E402

builtins_bool = _builtins.bool

from . import nn, optim, utils  # noqa: E402,F401
from .nn.functional import (adaptive_avg_pool1d, adaptive_max_pool1d, avg_pool1d, celu, conv1d, conv2d,  # noqa
                            conv_transpose1d, conv_transpose2d, cosine_similarity, group_norm, layer_norm, max_pool1d,
                            max_pool2d, pairwise_distance, pdist, pixel_shuffle, pixel_unshuffle, prelu, rrelu, selu)
from . import serialization, special  # noqa: E402
from . import linalg  # noqa: E402
from .linalg import det, inv as inverse  # noqa: E402
from ._ops.special_more import igamma, igammac, mvlgamma  # noqa: E402
from ._linalg_legacy import (cholesky_inverse, cholesky_solve, frobenius_norm, lu, lu_solve, lu_unpack,  # noqa: E402
                             matrix_exp, nuclear_norm, renorm, triangular_solve)
from ._ops.scatter_views import (as_strided_scatter, diagonal_scatter, empty_strided, histogramdd,  # noqa: E402
                                 index_reduce, select_scatter, slice_scatter)
from ._linalg_legacy import (cholesky, logdet, matrix_power, pinverse, qr, slogdet,  # noqa: E402
                             svd)
from ._typeinfo import finfo, iinfo  # noqa: E402
from . import accelerator, testing, version  # noqa: E402,F401
from .version import __version__  # noqa: E402  (the PyTorch API followed, with minitorch's version)
from . import amp  # noqa: E402,F401
from .amp import autocast  # noqa: E402
from .amp.autocast_mode import get_autocast_dtype, is_autocast_available, is_autocast_enabled  # noqa: E402
from ._runtime import (are_deterministic_algorithms_enabled, compile, get_deterministic_debug_mode,  # noqa
                       get_device, get_float32_matmul_precision, get_num_interop_threads, get_num_threads,
                       is_deterministic_algorithms_warn_only_enabled, is_warn_always_enabled,
                       set_deterministic_debug_mode, set_float32_matmul_precision, set_flush_denormal,
                       set_num_interop_threads, set_num_threads, set_warn_always, typename,
                       use_deterministic_algorithms)
from ._ops.numerics import (block_diag, corrcoef, cov, cumulative_trapezoid, diagflat, gcd, isneginf,  # noqa
                            isposinf, isreal, lcm, ldexp, logaddexp, logaddexp2, nanquantile, nextafter, quantile,
                            trapezoid, trapz, tril_indices, triu_indices)
# the constants and comparison aliases PyTorch exports
import math as _math  # noqa: E402

pi, e, inf, nan, newaxis = _math.pi, _math.e, _math.inf, _math.nan, None
greater, greater_equal, less, less_equal, not_equal = gt, ge, lt, le, ne
from .serialization import load, save  # noqa: E402
from ._functions_compat import (alpha_dropout, alpha_dropout_, asarray, batch_norm, bilinear,  # noqa: E402
                                binary_cross_entropy_with_logits, chain_matmul, combinations, constant_pad_nd,
                                cosine_embedding_loss, dropout, dropout_, embedding, feature_alpha_dropout,
                                feature_alpha_dropout_, feature_dropout, feature_dropout_, frexp, get_default_device,
                                gradient, hardshrink, hinge_embedding_loss, instance_norm, is_nonzero, is_same_size,
                                is_signed, isin, kl_div, margin_ranking_loss, poisson_nll_loss, rms_norm, row_stack,
                                select, set_default_device, threshold, threshold_, triplet_margin_loss, unravel_index,
                                vander)
from .nn.functional import (celu_, channel_shuffle, conv3d, conv_transpose3d, max_pool1d_with_indices,  # noqa
                            max_pool3d, rrelu_, selu_)
from . import distributions  # noqa: E402,F401
from . import func  # noqa: E402,F401  (grad, vmap, jacrev, functional_call, ...)
from . import jit, profiler  # noqa: E402,F401
from .autograd import profiler as _autograd_profiler  # noqa: E402,F401  (torch.autograd.profiler)
from .func import vmap  # noqa: E402
from .distributions._samplers import (_dirichlet_grad, _sample_dirichlet, _standard_gamma,  # noqa: E402,F401
                                      _standard_gamma_grad, binomial)


# Names PyTorch has that minitorch leaves out on purpose: asking for one says why.
_NO_COMPLEX = "minitorch has no complex dtypes (its tensors are real: NumPy's bool, integer and float types)"
_ABSENT = {
    "bfloat16": "minitorch has no bfloat16 (NumPy has no such type): use float16 for half precision, or float32",
    "complex32": _NO_COMPLEX, "complex64": _NO_COMPLEX, "complex128": _NO_COMPLEX, "cfloat": _NO_COMPLEX,
    "cdouble": _NO_COMPLEX, "chalf": _NO_COMPLEX, "complex": _NO_COMPLEX, "view_as_complex": _NO_COMPLEX,
    "view_as_real": _NO_COMPLEX, "polar": _NO_COMPLEX,
    "fft": "minitorch has no torch.fft: its results are complex, and " + _NO_COMPLEX,
    "sparse_coo_tensor": "minitorch has no sparse tensors (every tensor is dense)",
    "sparse_csr_tensor": "minitorch has no sparse tensors (every tensor is dense)",
    "quantization": "minitorch has no quantized tensors", "quantize_per_tensor": "minitorch has no quantized tensors",
    "distributed": "minitorch runs in one process: it has no torch.distributed",
    "onnx": "minitorch has no ONNX export", "export": "minitorch has no torch.export (models run eagerly)",
}


def __getattr__(name):
    if name in _ABSENT:
        raise AttributeError(f"module 'minitorch' has no attribute '{name}': {_ABSENT[name]}")
    raise AttributeError(f"module 'minitorch' has no attribute '{name}'")
