"""torch.* functions beginner PyTorch code reaches for that are other names or small compositions
of minitorch's ops: membership and index arithmetic (isin, unravel_index), frexp, combinations,
vander, gradient, select, the default device, asarray, and the ATen spellings of nn.functional
ops (torch.dropout(x, p, train), torch.embedding(weight, indices), ...), whose argument order and
integer `reduction` codes differ from nn.functional's."""
from __future__ import annotations

import builtins
import itertools
import math

from . import _dtype
from ._tensor import Tensor


def isin(elements=None, test_elements=None, *, assume_unique=False, invert=False, element=None, test_element=None):
    """Whether each element of `elements` occurs in `test_elements` (either may be a number, which PyTorch's
    overloads name `element` and `test_element`)."""
    from ._factories import tensor
    elements = element if elements is None else elements
    test_elements = test_element if test_elements is None else test_elements
    if not isinstance(elements, Tensor) and not isinstance(test_elements, Tensor):
        raise TypeError("isin() received an invalid combination of arguments: at least one of elements and "
                        "test_elements must be a Tensor")
    el = elements if isinstance(elements, Tensor) else tensor(elements, device=test_elements.device)
    te = test_elements if isinstance(test_elements, Tensor) else tensor(test_elements, device=el.device)
    if el.numel() == 0 or te.numel() == 0:
        hit = el.new_zeros(el.shape, dtype=_dtype.bool)
    else:
        hit = (el.reshape(-1, 1) == te.reshape(1, -1)).any(dim=1).reshape(el.shape)
    return ~hit if invert else hit


def unravel_index(indices, shape):
    """The coordinates, one tensor per dim of `shape`, of flat (row-major) `indices`."""
    from ._factories import tensor
    if not isinstance(indices, Tensor):
        indices = tensor(indices)
    if indices.dtype.is_floating_point or indices.dtype is _dtype.bool:
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    if any(s < 0 for s in shape):
        raise ValueError("'shape' cannot have negative values, but got " + str(shape))
    n = math.prod(shape)
    flat = indices.long() % max(n, 1)  # (PyTorch wraps an index out of range rather than refusing it)
    out, step = [], n
    for s in shape:
        step //= max(s, 1)
        out.append((flat // step) % s if s else flat * 0)
    return tuple(out)


def frexp(input, *, out=None):  # noqa: A002
    """(mantissa, exponent) with input = mantissa * 2 ** exponent and 0.5 <= |mantissa| < 1."""
    from . import return_types
    if not input.dtype.is_floating_point:
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    m, e = input._device.xp.frexp(input._data)
    return return_types.frexp(Tensor._make(m, input._device), Tensor._make(e.astype("int32"), input._device))


def combinations(input, r=2, with_replacement=False):  # noqa: A002
    """Every r-element combination of a 1-D tensor's elements, as rows (itertools' order)."""
    from ._factories import empty, tensor
    from ._ops.join import stack
    if input.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return empty((0,), dtype=input.dtype, device=input.device)
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    rows = list(pick(builtins.range(input.shape[0]), r))
    if not rows:
        return empty((0, r), dtype=input.dtype, device=input.device)
    idx = tensor(rows, device=input.device)
    return stack([input[idx[:, j]] for j in builtins.range(r)], dim=1)


def vander(x, N=None, increasing=False):  # noqa: N803 (PyTorch's name)
    """The Vandermonde matrix: columns x**(N-1), ..., x, 1 (or the reverse with increasing=True)."""
    from ._factories import arange
    if x.ndim != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0] if N is None else N
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    dt = _dtype.promote_types(x.dtype, _dtype.int64)
    powers = arange(n, device=x.device)
    if not increasing:
        powers = powers.flip(0)
    if n == 0:
        return x.new_zeros((x.shape[0], 0), dtype=dt)
    return x.to(dt).unsqueeze(1) ** powers.to(dt)


def gradient(input, *, spacing=1, dim=None, edge_order=1):  # noqa: A002
    """The derivative estimated by central differences inside and one-sided ones at the edges
    (edge_order 1 or 2), one tensor per dim. `spacing`: a number, one per dim, or one 1-D tensor
    of sample coordinates per dim (unevenly spaced: PyTorch's second-order formula)."""
    from ._ops.join import cat
    dims = builtins.range(input.ndim) if dim is None else ((dim,) if isinstance(dim, int) else tuple(dim))
    dims = [d % input.ndim for d in dims]
    spacing = 1 if spacing is None else spacing  # (None: PyTorch's default, unit spacing)
    steps = spacing if isinstance(spacing, (list, tuple)) else [spacing] * len(dims)
    if len(steps) != len(dims):
        raise RuntimeError(f"torch.gradient expected spacing to be unspecified, a scalar or it's spacing and dim "
                           f"arguments to have the same length, but got a spacing argument of length {len(steps)} "
                           f"and a dim argument of length {len(dims)}.")
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    x = input if input.dtype.is_floating_point else input.to(_dtype.get_default_dtype())
    out = []
    for d, h in zip(dims, steps):
        n = x.shape[d]
        if n < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least edge_order+1")
        if isinstance(h, Tensor):
            first, inner, last = _uneven_differences(x, d, h, edge_order)
        else:
            inner = (x.narrow(d, 2, n - 2) - x.narrow(d, 0, n - 2)) / (2 * h)
            if edge_order == 1:
                first = (x.narrow(d, 1, 1) - x.narrow(d, 0, 1)) / h
                last = (x.narrow(d, n - 1, 1) - x.narrow(d, n - 2, 1)) / h
            else:
                first = (-1.5 * x.narrow(d, 0, 1) + 2 * x.narrow(d, 1, 1) - 0.5 * x.narrow(d, 2, 1)) / h
                last = (0.5 * x.narrow(d, n - 3, 1) - 2 * x.narrow(d, n - 2, 1) + 1.5 * x.narrow(d, n - 1, 1)) / h
        out.append(cat([first, inner, last], dim=d))
    return tuple(out)


def _uneven_differences(x, d, coords, edge_order):
    """gradient's (first, inner, last) along dim d with samples at `coords`: inside, the
    derivative of the parabola through each point and its two neighbours, at steps h1 (before)
    and h2 (after): (-h2/(h1(h1+h2))) f[i-1] + ((h2-h1)/(h1 h2)) f[i] + (h1/(h2(h1+h2))) f[i+1]."""
    if coords.ndim != 1:
        raise RuntimeError(f"torch.gradient expected each element of spacing to have one dimension, but got an "
                           f"element with {coords.ndim} dimensions!")
    n, shape = x.shape[d], [1] * x.ndim
    shape[d] = -1
    h = coords.diff()
    h1, h2 = h[:-1], h[1:]
    inner = ((-h2 / (h1 * (h1 + h2))).reshape(shape) * x.narrow(d, 0, n - 2)
             + ((h2 - h1) / (h1 * h2)).reshape(shape) * x.narrow(d, 1, n - 2)
             + (h1 / (h2 * (h1 + h2))).reshape(shape) * x.narrow(d, 2, n - 2))
    if edge_order == 1:
        return (x.narrow(d, 1, 1) - x.narrow(d, 0, 1)) / h[0], inner, \
            (x.narrow(d, n - 1, 1) - x.narrow(d, n - 2, 1)) / h[-1]
    a, b = h[0], h[1]
    first = (-(2.0 * a + b) / (a * (a + b)) * x.narrow(d, 0, 1) + (a + b) / (a * b) * x.narrow(d, 1, 1)
             - a / (b * (a + b)) * x.narrow(d, 2, 1))
    a, b = h[-1], h[-2]
    last = (a / (b * (a + b)) * x.narrow(d, n - 3, 1) - (a + b) / (a * b) * x.narrow(d, n - 2, 1)
            + (2 * a + b) / (a * (a + b)) * x.narrow(d, n - 1, 1))
    return first, inner, last


def nonzero_static(input, *, size, fill_value=-1):  # noqa: A002
    """nonzero()'s rows, exactly `size` of them: the first `size`, or all padded with rows of
    fill_value (a shape known before the data is, which compiled code needs)."""
    for name, v in (("size", size), ("fill_value", fill_value)):
        if not isinstance(v, int) or isinstance(v, bool):
            raise TypeError(f"nonzero_static(): argument '{name}' must be int, not {type(v).__name__}")
    if size < 0:
        raise RuntimeError("nonzero_static: 'size' must be an non-negative integer")
    found = input.nonzero()._data
    xp = input._device.xp
    rows = xp.full((size, input.ndim), fill_value, dtype=xp.int64)
    k = min(size, found.shape[0])
    rows[:k] = found[:k]
    return Tensor._make(rows, input._device)


def select(input, dim, index):  # noqa: A002
    return input.select(dim, index)


def is_nonzero(input):  # noqa: A002
    return input.is_nonzero()


def is_same_size(input, other):  # noqa: A002
    return input.is_same_size(other)


def is_signed(input):  # noqa: A002
    return input.is_signed()


def row_stack(tensors, *, out=None):
    from ._ops.join import vstack
    return vstack(tensors) if out is None else vstack(tensors, out=out)


def chain_matmul(*matrices, out=None):
    import warnings
    from .linalg import multi_dot
    warnings.warn("torch.chain_matmul is deprecated and will be removed in a future PyTorch release. Use "
                  "torch.linalg.multi_dot instead, which accepts a list of two or more tensors rather than "
                  "multiple parameters.", UserWarning, stacklevel=2)
    if len(matrices) == 1:
        return matrices[0].clone()
    return multi_dot(list(matrices))


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=None):
    """A tensor from obj, sharing its memory where it can (a tensor, a NumPy array, a buffer), as
    torch.asarray: copy=None copies only for another dtype or device, copy=False refuses to, and
    requires_grad=None keeps obj's (a tensor's autograd history included)."""
    import numpy as np
    from ._device import resolve
    from ._factories import from_numpy, frombuffer, tensor
    from ._tensor import warn_once
    t = obj if isinstance(obj, Tensor) else None
    grad = requires_grad if requires_grad is not None else t is not None and t.requires_grad
    if grad and requires_grad is None:
        warn_once("torch.asarray: unspecified requires_grad now defaults to obj.requires_grad instead of False. "
                  "Pass requires_grad=False explicitly to get the old behavior and silence this warning.")
    if t is None and isinstance(obj, (np.ndarray, np.generic)):
        if isinstance(obj, np.generic) and copy is False:
            raise RuntimeError("can't alias NumPy scalars. Either remove copy=False or transform it in a ndarray. ")
        t = from_numpy(np.asarray(obj))
        if t.ndim == 0:  # (a scalar or 0-d array is copied, as PyTorch does; copy=True has nothing more to copy)
            t, copy = t.clone(), None if copy else copy
    if t is None and type(obj).__name__ == "PyCapsule":
        from .utils.dlpack import from_dlpack
        t = from_dlpack(obj)
    if t is None:
        try:
            memoryview(obj)
        except TypeError:
            pass
        else:
            t = frombuffer(obj, dtype=_dtype.get_default_dtype() if dtype is None else dtype)
    if t is None:
        if copy is False:
            raise ValueError("can't alias arbitrary sequence into a tensor.")
        t = tensor(obj, dtype=dtype, device=device)
        copy = False
    dt = None if dtype is None else _dtype.as_dtype(dtype, "asarray")
    dev = None if device is None else resolve(device)
    other_device, other_dtype = dev is not None and dev != t.device, dt is not None and dt is not t.dtype
    if copy or copy is None and (other_device or other_dtype):
        t = t.to(device=dev or t.device, dtype=dt or t.dtype, copy=bool(copy)) if other_device or other_dtype \
            else t.clone()
    elif other_device:
        raise ValueError(f"can't alias tensor from device '{t.device}' to '{dev}'.")
    elif other_dtype:
        raise ValueError(f"can't alias tensor with dtype '{t.dtype._short}' into dtype '{dt._short}'.")
    if grad and not t.dtype.is_floating_point:
        raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
    # (like PyTorch, this sets requires_grad on obj itself when obj is a leaf returned as it is)
    return t.detach() if not t.is_leaf and not grad else t.requires_grad_(grad)


# ---- the default device -------------------------------------------------------------------------------
def get_default_device():
    from ._device import default_device, resolve
    return resolve(default_device())


def set_default_device(device):
    """Where factories put new tensors when no device= is given (None: the CPU again)."""
    from ._device import _DEFAULT, device as as_device
    _DEFAULT[0] = None if device is None else as_device(device)


def set_default_tensor_type(t):
    """The deprecated way to set the default float dtype: by legacy type (DoubleTensor) or its name."""
    import importlib
    import sys
    from ._tensor import _LegacyTensorType, warn_once
    if isinstance(t, str):  # a dotted name, 'torch.DoubleTensor': torch is this module
        first, *rest = t.split(".")
        t = sys.modules[__package__] if first in ("torch", __package__) else importlib.import_module(first)
        for part in rest:
            t = getattr(t, part)
    warn_once("torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use torch.set_default_dtype() "
              "and torch.set_default_device() as alternatives.")
    if not isinstance(t, _LegacyTensorType):
        raise TypeError("invalid type object: only floating-point types are supported as the default type")
    if not t.dtype.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    _dtype.set_default_dtype(t.dtype)


# ---- ATen spellings of nn.functional ops: torch.dropout(x, p, train), torch.embedding(weight, idx), ...
_REDUCTION = {0: "none", 1: "mean", 2: "sum"}  # (ATen's codes; these bindings default to 0, no reduction)


def _reduction(code, op):
    if code not in _REDUCTION:
        raise RuntimeError(f"{op}: reduction must be 0 (none), 1 (mean) or 2 (sum), got {code}")
    return _REDUCTION[code]


def _F():
    from .nn import functional
    return functional


def dropout(input, p, train):  # noqa: A002
    return _F().dropout(input, p, train)


def dropout_(input, p, train):  # noqa: A002
    return _F().dropout(input, p, train, inplace=True)


def alpha_dropout(input, p, train):  # noqa: A002
    return _F().alpha_dropout(input, p, train)


def alpha_dropout_(input, p, train):  # noqa: A002
    return _F().alpha_dropout(input, p, train, inplace=True)


def feature_alpha_dropout(input, p, train):  # noqa: A002
    return _F().feature_alpha_dropout(input, p, train)


def feature_alpha_dropout_(input, p, train):  # noqa: A002
    return _F().feature_alpha_dropout(input, p, train, inplace=True)


def feature_dropout(input, p, train):  # noqa: A002
    return _F().dropout2d(input, p, train) if input.ndim in (3, 4) else _F().dropout3d(input, p, train)


def feature_dropout_(input, p, train):  # noqa: A002
    f = _F().dropout2d if input.ndim in (3, 4) else _F().dropout3d
    return f(input, p, train, inplace=True)


def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    return _F().embedding(indices, weight, padding_idx=None if padding_idx == -1 else padding_idx,
                          scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)


def bilinear(input1, input2, weight, bias=None):
    return _F().bilinear(input1, input2, weight, bias)


def batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, cudnn_enabled):  # noqa
    return _F().batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps,  # noqa: A002
                  cudnn_enabled):
    return _F().instance_norm(input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps)


def rms_norm(input, normalized_shape, weight=None, eps=None):  # noqa: A002
    return _F().rms_norm(input, normalized_shape, weight, eps)


def threshold(input, threshold, value):  # noqa: A002
    return _F().threshold(input, threshold, value)


def threshold_(input, threshold, value):  # noqa: A002
    return _F().threshold(input, threshold, value, inplace=True)


def hardshrink(input, lambd=0.5):  # noqa: A002
    return _F().hardshrink(input, lambd)


def kl_div(input, target, reduction=0, *, log_target=False):  # noqa: A002
    return _F().kl_div(input, target, reduction=_reduction(reduction, "kl_div"), log_target=log_target)


def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction=0):  # noqa: A002
    return _F().binary_cross_entropy_with_logits(input, target, weight, reduction=_reduction(
        reduction, "binary_cross_entropy_with_logits"), pos_weight=pos_weight)


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction=0):
    return _F().margin_ranking_loss(input1, input2, target, margin, reduction=_reduction(reduction,
                                                                                         "margin_ranking_loss"))


def hinge_embedding_loss(input, target, margin=1.0, reduction=0):  # noqa: A002
    return _F().hinge_embedding_loss(input, target, margin, reduction=_reduction(reduction, "hinge_embedding_loss"))


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=0):
    return _F().cosine_embedding_loss(input1, input2, target, margin,
                                      reduction=_reduction(reduction, "cosine_embedding_loss"))


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False, reduction=0):
    return _F().triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap,
                                    reduction=_reduction(reduction, "triplet_margin_loss"))


def poisson_nll_loss(input, target, log_input, full, eps, reduction):  # noqa: A002
    return _F().poisson_nll_loss(input, target, log_input, full, eps=eps,
                                 reduction=_reduction(reduction, "poisson_nll_loss"))


def constant_pad_nd(input, pad, value=0):  # noqa: A002
    return _F().pad(input, pad, mode="constant", value=value)


def selu(input):  # noqa: A002
    return _F().selu(input)


def celu(input, alpha=1.0):  # noqa: A002
    return _F().celu(input, alpha)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):  # noqa: A002
    from .nn._activation import rrelu_with_generator
    return rrelu_with_generator(input, lower, upper, training, False, generator)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5, cudnn_enable=True):  # noqa: A002
    return _F().layer_norm(input, normalized_shape, weight, bias, eps)


def max_pool1d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):  # noqa: A002
    return _F().max_pool1d(input, kernel_size, stride or None, padding, dilation, ceil_mode)


def max_pool1d_with_indices(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):  # noqa: A002
    return _F().max_pool1d_with_indices(input, kernel_size, stride or None, padding, dilation, ceil_mode)


def max_pool2d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):  # noqa: A002
    return _F().max_pool2d(input, kernel_size, stride or None, padding, dilation, ceil_mode)


def max_pool3d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):  # noqa: A002
    return _F().max_pool3d(input, kernel_size, stride or None, padding, dilation, ceil_mode)


def adaptive_max_pool1d(input, output_size):  # noqa: A002  (the values and their indices, always)
    return _F().adaptive_max_pool1d(input, output_size, return_indices=True)
