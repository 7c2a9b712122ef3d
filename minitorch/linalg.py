"""minitorch.linalg: the part of torch.linalg that beginner code uses.

Norms (vector, matrix, and `norm`, which picks one the way PyTorch does), the square-matrix
routines NumPy (or CuPy) provides in one call (inv, det, solve, svdvals), the decompositions
(svd, eigh, qr, cholesky: minitorch/_linalg_decomp.py) and what is composed from them (lstsq,
pinv, slogdet, matrix_rank, cond, matrix_power, multi_dot). Each has its gradient. The rest of
torch.linalg is named here too and raises NotImplementedError when called.
"""
from __future__ import annotations

import math

import numpy as np

from .amp import autocast_mode as _amp  # (autocast: the ops that run in float16 / float32)
from . import _dtype, return_types
from ._linalg_decomp import Cholesky, Eigh, Lstsq, Pinv, Qr, Slogdet, Svd, first_bad_minor
from ._ops import common
from ._ops.linalg import matmul  # noqa: F401  (torch.linalg.matmul is torch.matmul)
from ._ops.reduce import _np_quiet, norm as _vector_norm
from ._ops._prim import Primitive
from .autograd.grad_mode import STATE


class LinAlgError(RuntimeError):
    """A matrix the routine cannot handle (singular, ...): torch.linalg.LinAlgError."""


# The kernel PyTorch names when a float16 input has none ('"linalg_svd_cpu" not implemented for
# 'Half''); the other routines say "Low precision dtypes not supported".
_KERNELS = {"linalg.svd": "linalg_svd_cpu", "linalg.eigh": "linalg_eigh_cpu", "linalg.qr": "geqrf_cpu",
            "linalg.cholesky": "cholesky_cpu", "linalg.det": "lu_cpu"}


def _matrices(op, A, square=True):
    """A batch of float32 / float64 (square) matrices, or PyTorch's error for it."""
    if A.ndim < 2:
        raise RuntimeError(f"{op}: The input tensor A must have at least 2 dimensions.")
    kernel, name = _KERNELS.get(op), A.dtype._short
    if not A.dtype.is_floating_point:
        if op == "linalg.eigh":  # (eigh has no dtype check of its own: the kernel lookup fails)
            raise NotImplementedError(f"\"{kernel}\" not implemented for '{name}'")
        raise RuntimeError(f"{op}: Expected a floating point or complex tensor as input. Got {name}")
    if A.dtype.itemsize < 4:
        if kernel:
            raise NotImplementedError(f"\"{kernel}\" not implemented for '{name}'")
        raise RuntimeError(f"{op}: Low precision dtypes not supported. Got {name}")
    if square and A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"{op}: A must be batches of square matrices, but they are {A.shape[-2]} by "
                           f"{A.shape[-1]} matrices")
    return A


def _singular(op):
    return LinAlgError(f"{op}: The input matrix is singular, so the {'inversion' if 'inv' in op else 'solver'} "
                       "could not be completed (its rows are linearly dependent).")


# ---- inv, det, solve, svdvals: forward in the backend, backward in Tensor ops ------------------

class Inv(Primitive):
    _node_name = "LinalgInvExBackward0"
    saves_output = True

    @staticmethod
    def forward(ctx, A):
        xp = A._device.xp
        try:
            return xp.linalg.inv(A._data)
        except xp.linalg.LinAlgError:
            raise _singular("linalg.inv") from None

    @staticmethod
    def backward(ctx, grad):
        inv_t = ctx.saved_output.mT  # d(A^-1) = -A^-1 dA A^-1
        return (-(inv_t @ grad @ inv_t),)


class Det(Primitive):
    _node_name = "LinalgDetBackward0"
    saves_output = True

    @staticmethod
    def forward(ctx, A):
        ctx.save_for_backward(A)
        with _np_quiet(A):
            return A._device.xp.linalg.det(A._data)

    @staticmethod
    def backward(ctx, grad):
        (A,) = ctx.saved_tensors
        det = ctx.saved_output.unsqueeze(-1).unsqueeze(-1)
        # d det = det A^-T. PyTorch gives 0 for an exactly singular matrix (det = 0): so do we, by
        # inverting the identity in its place.
        safe = A if bool((det != 0).all()) else A.where(det != 0, eye_like(A))
        return ((grad.unsqueeze(-1).unsqueeze(-1) * det) * inv(safe).mT,)


def eye_like(A):
    xp = A._device.xp
    return type(A)._make(xp.broadcast_to(xp.eye(A.shape[-1], dtype=A._data.dtype), A.shape), A._device)


class Solve(Primitive):
    _node_name = "LinalgSolveExBackward0"
    saves_output = True

    @staticmethod
    def forward(ctx, A, B, *, vector, left):
        ctx.save_for_backward(A)
        ctx.vector, ctx.left = vector, left
        xp = A._device.xp
        a, b = (A._data, B._data) if left else (A._data.swapaxes(-1, -2), B._data.swapaxes(-1, -2))
        b = b[..., None] if vector else b
        try:
            x = xp.linalg.solve(a, b)  # batch dims broadcast; the engine sums them back
        except xp.linalg.LinAlgError:
            raise LinAlgError("torch.linalg.solve: The solver failed because the input matrix is singular.") from None
        return x[..., 0] if vector else x if left else x.swapaxes(-1, -2)

    @staticmethod
    def backward(ctx, grad):
        (A,) = ctx.saved_tensors
        X = ctx.saved_output
        if ctx.vector:
            grad, X = grad.unsqueeze(-1), X.unsqueeze(-1)
        gB = solve(A.mT, grad, left=ctx.left)
        if ctx.left:  # X = A^-1 B: dB = A^-T g, dA = -dB X^T
            gA = -(gB @ X.mT) if ctx.needs_input_grad[0] else None
        else:  # X = B A^-1: dB = g A^-T, dA = -X^T dB
            gA = -(X.mT @ gB) if ctx.needs_input_grad[0] else None
        return gA, (gB.squeeze(-1) if ctx.vector else gB)


class SvdVals(Primitive):
    _node_name = "LinalgSvdBackward0"

    @staticmethod
    def forward(ctx, A):
        xp = A._device.xp
        if A._data.size == 0:
            return xp.zeros(A.shape[:-2] + (min(A.shape[-2:]),), dtype=A._data.dtype)
        u, s, vh = xp.linalg.svd(A._data, full_matrices=False)
        ctx.u, ctx.vh = u, vh
        return s

    @staticmethod
    def backward(ctx, grad):
        # ds_i = u_i^T dA v_i (distinct singular values; PyTorch's formula for svdvals alone)
        if STATE.enabled:  # create_graph: u and v depend on A too, which this backward does not record
            raise NotImplementedError("the second derivative of linalg.svdvals (and of the 'nuc', 2 and -2 "
                                      "matrix norms) is not implemented in minitorch")
        make = type(grad)._make
        u, vh = make(ctx.u, grad._device), make(ctx.vh, grad._device)
        return ((u * grad.unsqueeze(-2)) @ vh,)


@_amp.float32_cpu
def inv(A, *, out=None):
    _no_out("inv", out)
    return Inv.apply(_matrices("linalg.inv", A))


def det(A, *, out=None):
    _no_out("det", out)
    return Det.apply(_matrices("linalg.det", A))


def solve(A, B, *, left=True, out=None):
    _no_out("solve", out)
    _matrices("linalg.solve", A)
    common.same_device("linalg.solve", A, B)
    if A.dtype is not B.dtype:
        raise RuntimeError(f"linalg.solve: Expected A and B to have the same dtype, but found A of type "
                           f"{A.dtype._short} and B of type {B.dtype._short} instead")
    vector = left and (B.ndim == 1 or (B.ndim == A.ndim - 1 and B.shape == A.shape[:-1]))
    rows, cols = (B.shape[-1], 1) if vector else B.shape[-2:] if left else B.shape[-2:][::-1]
    if rows != A.shape[-1]:
        raise RuntimeError(f"linalg.solve: Incompatible shapes of A and B for the equation AX = B "
                           f"({A.shape[-2]}x{A.shape[-1]} and {rows}x{cols})")
    common.broadcast_shapes(A.shape[:-2], B.shape[:-1] if vector else B.shape[:-2], op="linalg.solve")
    return Solve.apply(A, B, vector=vector, left=left)


def svdvals(A, *, driver=None, out=None):
    _no_out("svdvals", out)
    return SvdVals.apply(_matrices("linalg.svd", A, square=False))


# ---- norms ---------------------------------------------------------------------------------

def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None, out=None):  # noqa: A002
    _no_out("vector_norm", out)
    if isinstance(ord, str):
        raise TypeError("linalg_vector_norm(): argument 'ord' (position 2) must be Number, not str")
    return _vector_norm(x, p=ord, dim=dim, keepdim=keepdim, dtype=dtype)


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None, out=None):  # noqa: A002
    """'fro', 'nuc', 1, -1, 2, -2, inf, -inf over the two dims `dim`, as torch.linalg.matrix_norm."""
    _no_out("matrix_norm", out)
    if A.ndim < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
    if dtype is not None:
        A = A.to(dtype)
    if not A.dtype.is_floating_point:
        raise RuntimeError(f"linalg.matrix_norm: Expected a floating point or complex tensor as input. Got "
                           f"{A.dtype._short}")
    if not isinstance(dim, (tuple, list)) or len(dim) != 2:
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {dim}")
    d0, d1 = common.wrap_dims(tuple(dim), A.ndim, "linalg.matrix_norm")
    if ord == "fro":
        return _vector_norm(A, p=2, dim=(d0, d1), keepdim=keepdim)
    if ord in ("nuc", 2, -2):
        s = svdvals(A.movedim((d0, d1), (-2, -1)))
        r = s.sum(-1, keepdim=keepdim) if ord == "nuc" else s.amax(-1, keepdim) if ord == 2 else s.amin(-1, keepdim)
        if keepdim:  # back where the two dims were: the inverse of the movedim above
            rest = [d for d in range(A.ndim) if d not in (d0, d1)]
            order = rest + [d0, d1]
            r = r.unsqueeze(-1).permute([order.index(d) for d in range(A.ndim)])
        return r
    if ord in (1, -1, float("inf"), -float("inf")):
        if ord in (float("inf"), -float("inf")):  # the largest row sum: sum over columns first
            d0, d1 = d1, d0
        r = A.abs().sum(d0, keepdim=keepdim)
        if not keepdim and d1 > d0:
            d1 -= 1
        return r.amax(d1, keepdim=keepdim) if ord > 0 else r.amin(d1, keepdim=keepdim)
    raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None, out=None):  # noqa: A002
    """A vector norm over one dim (or over everything when neither ord nor dim is given), else a
    matrix norm over two: torch.linalg.norm's rule."""
    _no_out("norm", out)
    if isinstance(dim, int):
        dim = (dim,)
    if dim is not None:
        if len(dim) == 2:
            return matrix_norm(A, "fro" if ord is None else ord, dim, keepdim, dtype=dtype)
        if isinstance(ord, str):
            raise RuntimeError(f"linalg.vector_norm: ord must be a number for a vector norm. Got {ord!r}")
        return vector_norm(A, 2 if ord is None else ord, dim, keepdim, dtype=dtype)
    if ord is None:
        return vector_norm(A, 2, None, keepdim, dtype=dtype)
    if A.ndim not in (1, 2):
        raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. "
                           f"Got {A.ndim}D.")
    if A.ndim == 1:
        if isinstance(ord, str):
            raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
        return vector_norm(A, ord, None, keepdim, dtype=dtype)
    return matrix_norm(A, ord, (-2, -1), keepdim, dtype=dtype)


# ---- decompositions, and what is composed from them -----------------------------------------

def svd(A, full_matrices=True, *, driver=None, out=None):
    """U, S, Vh with A = U diag(S) Vh (the signs of the singular vectors are LAPACK's choice)."""
    _no_out("svd", out)
    return return_types.linalg_svd(*Svd.apply(_matrices("linalg.svd", A, square=False), full_matrices=bool(full_matrices)))


def eigh(A, UPLO="L", *, out=None):
    """The eigenvalues (ascending) and eigenvectors of a symmetric matrix, from its lower (UPLO='L')
    or upper triangle."""
    _no_out("eigh", out)
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    return return_types.linalg_eigh(*Eigh.apply(_matrices("linalg.eigh", A), UPLO=UPLO))


def eigvalsh(A, UPLO="L", *, out=None):
    _no_out("eigvalsh", out)
    return eigh(A, UPLO).eigenvalues


def qr(A, mode="reduced", *, out=None):
    _no_out("qr", out)
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), 'r', "
                           "or 'complete'")
    return return_types.linalg_qr(*Qr.apply(_matrices("linalg.qr", A, square=False), mode=mode))


def cholesky(A, *, upper=False, out=None):
    _no_out("cholesky", out)
    return Cholesky.apply(_matrices("linalg.cholesky", A), upper=bool(upper))


def cholesky_ex(A, *, upper=False, check_errors=False, out=None):
    """cholesky, with `info` (0, or the order of the first leading minor that is not positive
    definite) in place of the error; where info > 0, L is zeros (PyTorch's is a partial factor)."""
    _no_out("cholesky_ex", out)
    from ._factories import zeros, zeros_like
    _matrices("linalg.cholesky", A)
    info = zeros(A.shape[:-2], dtype=_dtype.int32, device=A.device)
    try:
        return return_types.linalg_cholesky_ex(cholesky(A, upper=upper), info)
    except LinAlgError:
        if check_errors or A.ndim > 2:
            raise
        return return_types.linalg_cholesky_ex(zeros_like(A), info.fill_(first_bad_minor(A)))


def inv_ex(A, *, check_errors=False, out=None):
    _no_out("inv_ex", out)
    from ._factories import zeros
    return return_types.linalg_inv_ex(inv(A), zeros(A.shape[:-2], dtype=_dtype.int32))


def _tolerance(op, A, atol, rtol, rcond=None):
    """PyTorch's rule: singular values at most max(atol, rtol * largest) count as zero; rtol is
    eps * max(m, n) when neither is given, 0 when only atol is."""
    def value(t):
        if t is None:
            return None
        return t._data if hasattr(t, "_data") else float(t)
    atol, rtol = value(atol), value(rcond if rcond is not None else rtol)
    if rtol is None:
        rtol = float(np.finfo(A.dtype.np).eps) * max(A.shape[-2:]) if atol is None else 0.0
    return 0.0 if atol is None else atol, rtol


def pinv(A, *, atol=None, rtol=None, hermitian=False, out=None):
    _no_out("pinv", out)
    if A.ndim < 2 or not A.dtype.is_floating_point or A.dtype.itemsize < 4:
        raise RuntimeError(f"linalg.pinv({A.dtype._short}{list(A.shape)}): expected a tensor with 2 or more "
                           "dimensions of float, double, cfloat or cdouble types")
    atol, rtol = _tolerance("linalg.pinv", A, atol, rtol)
    return Pinv.apply(A, atol=atol, rtol=rtol)


def matrix_rank(A, *, atol=None, rtol=None, hermitian=False, tol=None, out=None):
    _no_out("matrix_rank", out)
    if A.ndim < 2:
        raise RuntimeError("torch.linalg.matrix_rank: The input tensor input must have at least 2 dimensions.")
    if not A.dtype.is_floating_point or A.dtype.itemsize < 4:
        raise RuntimeError("This function doesn't handle types other than float and double")
    atol, rtol = _tolerance("linalg.matrix_rank", A, tol if tol is not None else atol, rtol)
    xp = A._device.xp
    s = svdvals(A.detach())._data
    if s.shape[-1] == 0:
        ranks = xp.zeros(s.shape[:-1], dtype=xp.int64)
    else:
        ranks = (s > xp.maximum(atol, rtol * s[..., :1])).sum(-1).astype(xp.int64)
    return type(A)._make(xp.asarray(ranks), A._device)


def lstsq(A, B, rcond=None, *, driver=None):
    """The least-squares solution X of A X = B (the minimum-norm one when A is rank deficient),
    with PyTorch's residuals, rank and singular values for each driver (empty when the driver does
    not compute them)."""
    op = "torch.linalg.lstsq"
    if not (A.dtype.is_floating_point and B.dtype.is_floating_point) or A.dtype.itemsize < 4:
        raise RuntimeError("This function doesn't handle types other than float and double")
    if A.dtype is not B.dtype:
        raise RuntimeError(f"{op}: Expected input and other to have the same dtype, but got input's dtype "
                           f"{A.dtype._short} and other's dtype {B.dtype._short}")
    if A.ndim < 2:
        raise RuntimeError(f"{op}: input must have at least 2 dimensions.")
    vector = B.ndim == A.ndim - 1
    if B.ndim < 1 or (not vector and B.ndim < 2):
        raise RuntimeError(f"{op}: other must have at least 1 dimension.")
    if (B.shape[-1] if vector else B.shape[-2]) != A.shape[-2]:
        raise RuntimeError(f"{op}: input.size(-2) should match other.size(-{1 if vector else 2})")
    driver = driver or "gelsy"
    if driver not in ("gels", "gelsy", "gelsd", "gelss"):
        raise RuntimeError(f"{op}: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)")
    common.same_device(op, A, B)
    m, n = A.shape[-2:]
    atol, rtol = _tolerance(op, A, None, None, rcond)
    xp = A._device.xp
    s = svdvals(A.detach())._data
    rank = (s > xp.maximum(atol, rtol * s[..., :1])).sum(-1) if s.shape[-1] else xp.zeros(s.shape[:-1], xp.int64)
    residuals = driver != "gelsy" and m > n and bool((rank == n).all())
    X, res = Lstsq.apply(A, B, rtol=rtol, vector=vector, residuals=residuals)
    from ._factories import tensor as _tensor
    make = type(A)._make
    rank_t = make(xp.asarray(rank).astype(xp.int64), A._device) if driver != "gels" else \
        _tensor([], dtype=_dtype.int64, device=A.device)
    sv = make(s, A._device) if driver in ("gelsd", "gelss") else _tensor([], dtype=A.dtype, device=A.device)
    return return_types.linalg_lstsq(X, res, rank_t, sv)


def slogdet(A, *, out=None):
    _no_out("slogdet", out)
    return return_types.linalg_slogdet(*Slogdet.apply(_matrices("linalg.slogdet", A)))


def logdet(A):
    """log det A: nan where det A < 0, -inf where it is 0 (PyTorch's composition of slogdet)."""
    sign, logabs = return_types.linalg_slogdet(*Slogdet.apply(_matrices("logdet", A)))
    from ._ops.pointwise import where
    return where(sign < 0, math.nan, logabs)


def matrix_power(A, n, *, out=None):
    """A to an integer power by repeated squaring, as PyTorch multiplies (n < 0: of the inverse)."""
    _no_out("matrix_power", out)
    if A.ndim < 2:
        raise RuntimeError("linalg.matrix_power: The input tensor A must have at least 2 dimensions.")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"linalg.matrix_power: A must be batches of square matrices, but they are {A.shape[-2]} "
                           f"by {A.shape[-1]} matrices")
    n = int(n)
    if n == 0:
        from ._factories import eye
        return A.clone().copy_(eye(A.shape[-1], dtype=A.dtype, device=A.device).expand_as(A))
    if n < 0:
        A, n = inv(A), -n
        if n == 1:
            return A
    if n == 1:
        return A.clone()
    z = result = None
    while n > 0:
        bit, n = n % 2, n // 2
        z = A if z is None else z @ z
        if bit:
            result = z if result is None else result @ z
    return result


def multi_dot(tensors, *, out=None):
    """The product of a chain of matrices (the first may be a vector, and the last), in the order
    that costs fewest multiplications."""
    _no_out("multi_dot", out)
    tensors = list(tensors)
    if len(tensors) < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {len(tensors)}")
    first, last = tensors[0].ndim == 1, tensors[-1].ndim == 1
    mats = [t.unsqueeze(0) if i == 0 and first else t.unsqueeze(-1) if i == len(tensors) - 1 and last else t
            for i, t in enumerate(tensors)]
    for i, t in enumerate(mats):
        if t.ndim != 2:
            where = "the first tensor must be 1D or 2D" if i == 0 else "the last tensor must be 1D or 2D" \
                if i == len(mats) - 1 else f"tensor {i} must be 2D"
            raise RuntimeError(f"multi_dot(): {where} but got {tensors[i].ndim}D")
        if t.dtype is not mats[0].dtype:
            from ._ops.linalg import _CTYPE
            raise RuntimeError(f"multi_dot(): all tensors must have be the same dtype but tensor 0 is "
                               f"{_CTYPE[mats[0].dtype.name]} and tensor {i} {_CTYPE[t.dtype.name]}")
    dims = [mats[0].shape[0]] + [t.shape[1] for t in mats]
    order = _chain_order(dims)

    def product(i, j):
        if i == j:
            return mats[i]
        k = order[i][j]
        return product(i, k) @ product(k + 1, j)
    r = product(0, len(mats) - 1)
    shape = r.shape[(1 if first else 0):(1 if last else 2)]
    return r.view(shape)


def _chain_order(dims):
    """The textbook dynamic programme for the cheapest bracketing of a matrix chain."""
    n = len(dims) - 1
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = math.inf
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k
    return split


def cond(A, p=None, *, out=None):
    """The condition number: the ratio of the extreme singular values (p None, 2, -2), else
    norm(A, p) * norm(inv(A), p)."""
    _no_out("cond", out)
    if A.ndim < 2:
        raise RuntimeError("linalg.cond: The input tensor must have at least 2 dimensions.")
    if p is None or p in (2, -2):
        s = svdvals(A)
        big, small = s.narrow(-1, 0, 1), s.narrow(-1, s.shape[-1] - 1, 1)
        return (big / small if p != -2 else small / big).squeeze(-1)
    _matrices("linalg.cond", A)
    return (matrix_norm(A, p) * matrix_norm(inv(A), p)).nan_to_num(math.inf, math.inf, -math.inf)


def vecdot(x, y, *, dim=-1, out=None):
    _no_out("vecdot", out)
    if not x.dtype.is_floating_point:
        raise RuntimeError(f"linalg.vecdot: Expected a floating point or complex tensor as input. Got {x.dtype._short}")
    if x.dtype is not y.dtype:
        raise RuntimeError(f"linalg.vecdot: Expected x and y to have the same dtype, but found x of type "
                           f"{x.dtype._short} and y of type {y.dtype._short} instead")
    return (x * y).sum(dim)


def cross(input, other, *, dim=-1, out=None):  # noqa: A002
    from ._ops.more import cross as _cross
    return _cross(input, other, dim=dim, out=out) if out is not None else _cross(input, other, dim=dim)


def _no_out(op, out):
    if out is not None:
        raise NotImplementedError(f"torch.linalg.{op}(out=...) is not implemented in minitorch: assign the result")


# ---- the rest of torch.linalg: named, so that a call says what is missing ------------------------

def _missing(name):
    def f(*args, **kwargs):
        raise NotImplementedError(f"torch.linalg.{name} is not implemented in minitorch (available: "
                                  f"{', '.join(__all__)})")
    f.__name__ = name
    return f


__all__ = ["cholesky", "cholesky_ex", "cond", "cross", "det", "eigh", "eigvalsh", "inv", "inv_ex", "lstsq",
           "matmul", "matrix_norm", "matrix_power", "matrix_rank", "multi_dot", "norm", "pinv", "qr", "slogdet",
           "solve", "svd", "svdvals", "vecdot", "vector_norm"]
for _name in ("eig", "eigvals", "lu", "lu_factor", "matrix_exp", "tensorinv", "tensorsolve",
              "householder_product"):
    globals()[_name] = _missing(_name)
del _name
