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
from ._dtype import (bfloat16, bool, double, float, float16, float32, float64, get_default_dtype, half,  # noqa
                     int, int8, int16, int32, int64, long, promote_types, set_default_dtype, short, uint8)
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
from ._ops.views import (as_strided, expand, flatten, movedim, narrow, narrow_copy, permute, reshape, squeeze, t,
                         transpose, unflatten, unsqueeze)
from ._ops.join import (cat, chunk, concat, concatenate, flip, hstack, split, split_with_sizes, stack, tile,  # noqa
                        unbind, vstack)
from ._ops.index import gather, index_select, masked_fill, nonzero
from ._ops.linalg import bmm, dot, matmul, mm, mv, outer
from ._ops import common as _common
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
from ._factories import empty_permuted, from_file, frombuffer, logspace  # noqa: E402
from .autograd.anomaly_mode import is_anomaly_check_nan_enabled, is_anomaly_enabled  # noqa: E402
from ._dtype import can_cast as _can_cast  # noqa: E402


def can_cast(from_, to):
    """Whether an in-place op may write a `from_` result into a `to` tensor (a lower category may not)."""
    return _can_cast(_dtype.any_dtype(from_, "can_cast"), _dtype.any_dtype(to, "can_cast"))


def is_floating_point(input):
    return input.dtype.is_floating_point


def is_complex(input):
    return False  # minitorch has no complex dtypes


def is_inference(input):
    return input.is_inference()


def argwhere(input):
    return input.nonzero()


def conj(input):
    return input  # real tensors only: conjugation is the identity


conj_physical = resolve_conj = resolve_neg = conj



clip = clamp
multiply, subtract, divide = mul, sub, div
absolute, negative = abs, neg
swapdims = transpose


def swapaxes(input, axis0, axis1):  # noqa: A002  (NumPy's names, as PyTorch's)
    return transpose(input, axis0, axis1)


moveaxis = movedim


def broadcast_shapes(*shapes):
    """The shape tensors of these shapes broadcast to (the library's own takes the op to name in errors)."""
    return _common.broadcast_shapes(*shapes)


def is_tensor(obj):
    return isinstance(obj, Tensor)


def numel(input):
    return input.numel()


def clone(input, *, memory_format=None):
    return input.clone(memory_format=memory_format)


def detach(input):
    return input.detach()


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    return builtins_bool(isclose(input, other, rtol, atol, equal_nan).all())


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    from ._ops.common import broadcast_shapes, same_device
    if not isinstance(other, Tensor):
        raise TypeError(f"isclose(): argument 'other' (position 2) must be Tensor, not {type(other).__name__}")
    if input.dtype is not other.dtype:  # PyTorch compares like with like
        raise RuntimeError(f"{input.dtype._short} did not match {other.dtype._short} (convert one first, e.g. "
                           f"b.to(a.dtype))")
    same_device("isclose", input, other)
    broadcast_shapes(input.shape, other.shape, op="isclose")
    xp = input._device.xp
    return Tensor._make(xp.isclose(input._data, other._data, rtol=rtol, atol=atol, equal_nan=equal_nan), input._device)


def equal(input, other):
    return input.shape == other.shape and builtins_bool((input == other).all())


def result_type(tensor, other=None, *, scalar=None):
    """The dtype an op on the two would give: `result_type(tensor, other)`, or PyTorch's keywords for a
    number first, `result_type(scalar=2, tensor=t)`."""
    from ._ops.common import result_dtype
    return result_dtype(tensor, other if scalar is None else scalar)


import builtins as _builtins  # noqa: E402

builtins_bool = _builtins.bool

from . import nn, optim, utils  # noqa: E402,F401
from .utils.dlpack import from_dlpack  # noqa: E402
from .storage import TypedStorage, UntypedStorage, is_storage  # noqa: E402
from ._methods_compat import layout, strided  # noqa: E402
from .nn.functional import (adaptive_avg_pool1d, avg_pool1d, conv1d, conv2d, conv_transpose1d,  # noqa: E402
                            conv_transpose2d, cosine_similarity, group_norm, pairwise_distance, pdist, pixel_shuffle,
                            pixel_unshuffle, prelu)
from . import serialization, special  # noqa: E402
from . import linalg  # noqa: E402
from ._linalg_legacy import det, inverse  # noqa: E402
from ._ops.special_more import igamma, igammac, mvlgamma  # noqa: E402
from ._linalg_legacy import (cholesky_inverse, cholesky_solve, frobenius_norm, geqrf, lu, lu_solve, lu_unpack,  # noqa
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
                                is_signed, isin, kl_div, margin_ranking_loss, nonzero_static, poisson_nll_loss,
                                rms_norm, row_stack,
                                select, set_default_device, set_default_tensor_type, threshold, threshold_,
                                triplet_margin_loss, unravel_index,
                                vander)
from ._functions_compat import (adaptive_max_pool1d, celu, layer_norm, max_pool1d, max_pool1d_with_indices,  # noqa
                                max_pool2d, max_pool3d, rrelu, selu)
from .nn.functional import (celu_, channel_shuffle, conv3d, conv_transpose3d, native_channel_shuffle, rrelu_,  # noqa
                            selu_)
from . import distributions  # noqa: E402,F401
from . import func  # noqa: E402,F401  (grad, vmap, jacrev, functional_call, ...)
from . import distributed, jit, profiler  # noqa: E402,F401
from .autograd import profiler as _autograd_profiler  # noqa: E402,F401  (torch.autograd.profiler)
from .func import vmap  # noqa: E402
from .distributions._samplers import (_dirichlet_grad, _sample_dirichlet, _standard_gamma,  # noqa: E402,F401
                                      _standard_gamma_grad, binomial)


# Names PyTorch has that minitorch leaves out on purpose: asking for one says why.
_NO_COMPLEX = "minitorch has no complex dtypes (its tensors are real: NumPy's bool, integer and float types)"
_NO_WIDE_UINT = ("minitorch has no uint16, uint32 or uint64 (PyTorch itself supports them in a few ops only): use "
                 "int32 or int64")
_ABSENT = {  # (bfloat16 is a dtype here, which no tensor can have: _dtype.py)
    "complex32": _NO_COMPLEX, "complex64": _NO_COMPLEX, "complex128": _NO_COMPLEX, "cfloat": _NO_COMPLEX,
    "cdouble": _NO_COMPLEX, "chalf": _NO_COMPLEX, "complex": _NO_COMPLEX, "view_as_complex": _NO_COMPLEX,
    "view_as_real": _NO_COMPLEX, "polar": _NO_COMPLEX,
    "fft": "minitorch has no torch.fft: its results are complex, and " + _NO_COMPLEX,
    "sparse_coo_tensor": "minitorch has no sparse tensors (every tensor is dense)",
    "sparse_csr_tensor": "minitorch has no sparse tensors (every tensor is dense)",
    "quantization": "minitorch has no quantized tensors", "quantize_per_tensor": "minitorch has no quantized tensors",
    "onnx": "minitorch has no ONNX export", "export": "minitorch has no torch.export (models run eagerly)",
    "uint16": _NO_WIDE_UINT, "uint32": _NO_WIDE_UINT, "uint64": _NO_WIDE_UINT,
    "hash_tensor": "its result is uint64, and " + _NO_WIDE_UINT,
}


def __getattr__(name):
    if name in _ABSENT:
        raise AttributeError(f"module 'minitorch' has no attribute '{name}': {_ABSENT[name]}")
    raise AttributeError(f"module 'minitorch' has no attribute '{name}'")
