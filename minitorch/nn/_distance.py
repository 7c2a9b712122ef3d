"""Distances and similarities between vectors, as PyTorch composes them."""
from __future__ import annotations

from ..amp import autocast_mode as _amp  # (autocast: the ops that run in float16 / float32)
from .._ops.reduce import Norm

class _LegacyNorm(Norm):
    _node_name = "NormBackward1"  # PyTorch's pairwise_distance calls the older at::norm(x, p, dim)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """||x1 - x2 + eps||_p over the last dim (eps keeps the gradient finite at x1 == x2)."""
    d = x1 - x2 + eps
    if not d.dtype.is_floating_point:
        d = d.float()
    return _LegacyNorm.apply(d, p=float(p), dims=(d.ndim - 1,) if d.ndim else (), keepdim=keepdim)


@_amp.float32_gpu
def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """x1 . x2 / (max(||x1||, eps) * max(||x2||, eps)) along dim, as PyTorch computes it: each
    vector divided by its norm first (the result stays in [-1, 1]); the clamp at eps is not
    differentiated (PyTorch applies it under no_grad)."""
    from .._ops.views import expand
    from ..autograd.grad_mode import no_grad
    from .._ops.common import broadcast_shapes
    from .._ops.common import result_dtype
    common = result_dtype(x1, x2)
    if not common.is_floating_point:
        raise RuntimeError(f"expected common dtype to be floating point, yet common dtype is {common._short} "
                           "(cosine_similarity: convert the inputs with .float())")
    # integer inputs are cast; a float input keeps its own dtype until the product promotes it (as in PyTorch)
    x1, x2 = (x if x.dtype.is_floating_point else x.to(common) for x in (x1, x2))
    shape = broadcast_shapes(x1.shape, x2.shape)
    x1, x2 = expand(x1, shape), expand(x2, shape)
    n1, n2 = x1.norm(2, dim, keepdim=True).clone(), x2.norm(2, dim, keepdim=True).clone()
    with no_grad():
        n1.clamp_(min=eps)
        n2.clamp_(min=eps)
    return ((x1 / n1) * (x2 / n2)).sum(dim)


@_amp.float32_gpu
def pdist(input, p=2.0):  # noqa: A002
    """The distances between all pairs of rows of an (N, M) input: the upper triangle, row by row."""
    if input.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.ndim}D")
    if not input.dtype.is_floating_point:
        raise RuntimeError("pdist only supports floating-point dtypes")
    from ._kernels import SINGLE_DOUBLE, check
    check("pdist", input.dtype, SINGLE_DOUBLE)
    n = input.shape[0]
    i, j = [], []
    for a in range(n):
        i += [a] * (n - a - 1)
        j += range(a + 1, n)
    from .._factories import tensor
    from .._dtype import int64
    ii, jj = tensor(i, dtype=int64, device=input.device), tensor(j, dtype=int64, device=input.device)
    return (input[ii] - input[jj]).norm(p, 1)
