"""minitorch.linalg: the part of torch.linalg that beginner code uses.

Norms (vector, matrix, and `norm`, which picks one the way PyTorch does), the square-matrix
routines NumPy (or CuPy) provides in one call (inv, det, solve, svdvals), the decompositions
(svd, eigh, qr, cholesky, lu: minitorch/_linalg_decomp.py) and what is composed from them (lstsq,
pinv, slogdet, matrix_rank, cond, matrix_power, multi_dot, lu_solve, solve_ex), triangular
systems (solve_triangular), matrix_exp, vander and diagonal, tensordot's inverse (tensorinv,
tensorsolve) and the compact factorizations (householder_product, ldl_factor, ldl_solve:
minitorch/_linalg_compact.py). Each has its gradient where PyTorch has one. eig and eigvals (complex
results, which minitorch has no dtype for) are named here too and raise NotImplementedError.
"""
from __future__ import annotations

import math

import numpy as np

from .amp import autocast_mode as _amp  # (autocast: the ops that run in float16 / float32)
from . import _dtype, return_types
from ._linalg_decomp import (Cholesky, Eigh, Lstsq, Lu, LuFactor, LuSolve, LuUnpack, MatrixExp, Pinv, Qr, Slogdet,
                             SolveTriangular, Svd, cholesky_array, lapack_layout, lu_array, lu_solve_array,
                             permutation_array)
from ._errors import torch_arguments
from ._ops import common
from ._ops.linalg import matmul  # noqa: F401  (torch.linalg.matmul is torch.matmul)
from ._ops.reduce import _np_quiet, norm as _vector_norm
from ._ops._prim import Primitive
from .autograd.grad_mode import STATE


class _LinAlgError(RuntimeError):
    """A matrix the routine cannot handle (singular, not positive-definite): torch.linalg.LinAlgError,
    a RuntimeError (PyTorch's class is named _LinAlgError too, which is what a traceback shows)."""


LinAlgError = _LinAlgError


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


def linalg_error(op, info, message):
    """PyTorch's error for the first matrix of a batch whose LAPACK `info` is not 0 (`message(k)`
    says what info k means), with the batch element it was when there is a batch."""
    flat = info.reshape(-1)
    i = int((flat > 0).argmax())
    where = f"(Batch element {i}): " if info.ndim else ""
    return LinAlgError(f"{op}: {where}{message(int(flat[i]))}")


def _singular(op, info):
    if "inv" in op:
        return linalg_error(op, info, lambda k: f"The diagonal element {k} is zero, the inversion could not be "
                                                "completed because the input matrix is singular.")
    return linalg_error(op, info, lambda k: "The solver failed because the input matrix is singular.")


# ---- inv, det, solve, svdvals: forward in the backend, backward in Tensor ops ------------------

class Inv(Primitive):
    _node_name = "LinalgInvExBackward0"
    saves_output = True

    @staticmethod
    def forward(ctx, A, *, op, check):
        xp = A._device.xp
        try:
            return lapack_layout(xp.linalg.inv(A._data))
        except xp.linalg.LinAlgError:  # a zero pivot: PyTorch's error names it, or inv_ex's inf / nan
            eye = xp.broadcast_to(xp.eye(A.shape[-1], dtype=A._data.dtype), A.shape)
            return lapack_layout(_solve_by_lu(xp, A._data, eye, op if check else None))

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


def _solve_by_lu(xp, a, b, op):
    """X with a X = b by LAPACK's steps (getrf, then the two substitutions), for a matrix NumPy
    found singular: PyTorch's error naming the first zero pivot when `op` is given, else the inf
    and nan the substitutions give (inv_ex, solve_ex)."""
    lu, piv, info = lu_array(xp, a)
    if op is not None and bool((info > 0).any()):
        raise _singular(op, info) from None
    return lu_solve_array(xp, lu, permutation_array(xp, piv, a.shape[-2], a.dtype), b)


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
            x = _solve_by_lu(xp, xp.broadcast_to(a, xp.broadcast_shapes(a.shape[:-2], b.shape[:-2]) + a.shape[-2:]),
                             b, "torch.linalg.solve")
        if vector:  # (PyTorch lays out a batch of vector solutions as a column-major matrix too)
            return lapack_layout(x[..., 0]) if x.ndim > 2 else x[..., 0]
        return lapack_layout(x) if left else xp.ascontiguousarray(x.swapaxes(-1, -2))

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

    @staticmethod
    def forward_derivative(inputs, outputs, tangents):
        """Forward-mode AD (autograd/forward_ad.py): dS_i = u_i^T dA v_i."""
        U, _, Vh = svd(inputs[0], full_matrices=False)
        return (((U.mT @ tangents[0]) * Vh).sum(-1),)


@_amp.float32_cpu
def inv(A, *, out=None):
    _no_out("inv", out)
    return Inv.apply(_matrices("linalg.inv", A), op="linalg.inv", check=True)


def det(A, *, out=None):
    _no_out("det", out)
    return Det.apply(_matrices("linalg.det", A))


def solve(A, B, *, left=True, out=None):
    _no_out("solve", out)
    return Solve.apply(A, B, vector=_solve_operands(A, B, left), left=left)


def _solve_operands(A, B, left):
    """PyTorch's checks of A X = B (X A = B); whether B is a vector (or a batch of them)."""
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
    return vector


def svdvals(A, *, driver=None, out=None):
    _no_out("svdvals", out)
    return SvdVals.apply(_matrices("linalg.svd", A, square=False))


# ---- norms ---------------------------------------------------------------------------------

def vector_norm(input, ord=2, dim=None, keepdim=False, *, dtype=None, out=None):  # noqa: A002
    _no_out("vector_norm", out)
    if isinstance(ord, str):
        raise TypeError("linalg_vector_norm(): argument 'ord' (position 2) must be Number, not str")
    return _vector_norm(input, p=ord, dim=dim, keepdim=keepdim, dtype=dtype)


def matrix_norm(input, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None, out=None):  # noqa: A002
    """'fro', 'nuc', 1, -1, 2, -2, inf, -inf over the two dims `dim`, as torch.linalg.matrix_norm."""
    _no_out("matrix_norm", out)
    if input.ndim < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
    if dtype is not None:
        input = input.to(dtype)
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"linalg.matrix_norm: Expected a floating point or complex tensor as input. Got "
                           f"{input.dtype._short}")
    if not isinstance(dim, (tuple, list)) or len(dim) != 2:
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {dim}")
    d0, d1 = common.wrap_dims(tuple(dim), input.ndim, "linalg.matrix_norm")
    if ord == "fro":
        return _vector_norm(input, p=2, dim=(d0, d1), keepdim=keepdim)
    if ord in ("nuc", 2, -2):
        s = svdvals(input.movedim((d0, d1), (-2, -1)))
        r = s.sum(-1, keepdim=keepdim) if ord == "nuc" else s.amax(-1, keepdim) if ord == 2 else s.amin(-1, keepdim)
        if keepdim:  # back where the two dims were: the inverse of the movedim above
            rest = [d for d in range(input.ndim) if d not in (d0, d1)]
            order = rest + [d0, d1]
            r = r.unsqueeze(-1).permute([order.index(d) for d in range(input.ndim)])
        return r
    if ord in (1, -1, float("inf"), -float("inf")):
        if ord in (float("inf"), -float("inf")):  # the largest row sum: sum over columns first
            d0, d1 = d1, d0
        r = input.abs().sum(d0, keepdim=keepdim)
        if not keepdim and d1 > d0:
            d1 -= 1
        return r.amax(d1, keepdim=keepdim) if ord > 0 else r.amin(d1, keepdim=keepdim)
    raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")


def norm(input, ord=None, dim=None, keepdim=False, *, dtype=None, out=None):  # noqa: A002
    """A vector norm over one dim (or over everything when neither ord nor dim is given), else a
    matrix norm over two: torch.linalg.norm's rule."""
    _no_out("norm", out)
    if isinstance(dim, int):
        dim = (dim,)
    if dim is not None:
        if len(dim) == 2:
            return matrix_norm(input, "fro" if ord is None else ord, dim, keepdim, dtype=dtype)
        if isinstance(ord, str):
            raise RuntimeError(f"linalg.vector_norm: ord must be a number for a vector norm. Got {ord!r}")
        return vector_norm(input, 2 if ord is None else ord, dim, keepdim, dtype=dtype)
    if ord is None:
        return vector_norm(input, 2, None, keepdim, dtype=dtype)
    if input.ndim not in (1, 2):
        raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. "
                           f"Got {input.ndim}D.")
    if input.ndim == 1:
        if isinstance(ord, str):
            raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
        return vector_norm(input, ord, None, keepdim, dtype=dtype)
    return matrix_norm(input, ord, (-2, -1), keepdim, dtype=dtype)


# ---- decompositions, and what is composed from them -----------------------------------------

def svd(A, full_matrices=True, *, driver=None, out=None):
    """U, S, Vh with A = U diag(S) Vh (the signs of the singular vectors are LAPACK's choice)."""
    _no_out("svd", out)
    return return_types.linalg_svd(*Svd.apply(_matrices("linalg.svd", A, square=False), full_matrices=bool(full_matrices)))


def eigh(input, UPLO="L", *, out=None):
    """The eigenvalues (ascending) and eigenvectors of a symmetric matrix, from its lower (UPLO='L')
    or upper triangle."""
    _no_out("eigh", out)
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    return return_types.linalg_eigh(*Eigh.apply(_matrices("linalg.eigh", input), UPLO=UPLO))


def eigvalsh(input, UPLO="L", *, out=None):
    _no_out("eigvalsh", out)
    return eigh(input, UPLO).eigenvalues


def qr(A, mode="reduced", *, out=None):
    _no_out("qr", out)
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), 'r', "
                           "or 'complete'")
    return return_types.linalg_qr(*Qr.apply(_matrices("linalg.qr", A, square=False), mode=mode))


def cholesky(input, *, upper=False, out=None, _op="linalg.cholesky"):
    _no_out("cholesky", out)
    return Cholesky.apply(_matrices("linalg.cholesky", input), upper=bool(upper), op=_op)[0]


def cholesky_ex(input, *, upper=False, check_errors=False, out=None):
    """cholesky, with `info` (0, or the order of the first leading minor that is not positive
    definite) in place of the error; where info > 0, L is the partial factor LAPACK leaves."""
    _no_out("cholesky_ex", out)
    L, info = Cholesky.apply(_matrices("linalg.cholesky", input), upper=bool(upper),
                             op="linalg.cholesky_ex" if check_errors else None)
    return return_types.linalg_cholesky_ex(L, info)


def inv_ex(A, *, check_errors=False, out=None):
    """inv, with `info` (0, or the first zero pivot of A's LU, 1-based) in place of the error; where
    info > 0 the inverse holds the inf and nan LAPACK's substitutions give."""
    _no_out("inv_ex", out)
    inverse = Inv.apply(_matrices("linalg.inv", A), op="linalg.inv_ex", check=bool(check_errors))
    xp = A._device.xp
    info = xp.zeros(A.shape[:-2], dtype=xp.int32)
    if not bool(xp.isfinite(inverse._data).all()):  # (a zero pivot, or non-finite entries in A)
        info = lu_array(xp, A._data)[2]
    return return_types.linalg_inv_ex(inverse, type(A)._make(info, A._device))


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


def pinv(input, rcond=None, hermitian=False, *, atol=None, rtol=None, out=None):  # noqa: A002
    _no_out("pinv", out)
    if input.ndim < 2 or not input.dtype.is_floating_point or input.dtype.itemsize < 4:
        raise RuntimeError(f"linalg.pinv({input.dtype._short}{list(input.shape)}): expected a tensor with 2 or more "
                           "dimensions of float, double, cfloat or cdouble types")
    atol, rtol = _tolerance("linalg.pinv", input, atol, rtol, rcond)
    return Pinv.apply(input, atol=atol, rtol=rtol)


def matrix_rank(input, tol=None, hermitian=False, *, atol=None, rtol=None, out=None):  # noqa: A002
    _no_out("matrix_rank", out)
    if input.ndim < 2:
        raise RuntimeError("torch.linalg.matrix_rank: The input tensor input must have at least 2 dimensions.")
    if not input.dtype.is_floating_point or input.dtype.itemsize < 4:
        raise RuntimeError("This function doesn't handle types other than float and double")
    atol, rtol = _tolerance("linalg.matrix_rank", input, tol if tol is not None else atol, rtol)
    xp = input._device.xp
    s = svdvals(input.detach())._data
    if s.shape[-1] == 0:
        ranks = xp.zeros(s.shape[:-1], dtype=xp.int64)
    else:
        ranks = (s > xp.maximum(atol, rtol * s[..., :1])).sum(-1).astype(xp.int64)
    return type(input)._make(xp.asarray(ranks), input._device)


def lstsq(input, b, rcond=None, *, driver=None):
    """The least-squares solution X of A X = B (the minimum-norm one when A is rank deficient),
    with PyTorch's residuals, rank and singular values for each driver (empty when the driver does
    not compute them)."""
    op = "torch.linalg.lstsq"
    if not (input.dtype.is_floating_point and b.dtype.is_floating_point) or input.dtype.itemsize < 4:
        raise RuntimeError("This function doesn't handle types other than float and double")
    if input.dtype is not b.dtype:
        raise RuntimeError(f"{op}: Expected input and other to have the same dtype, but got input's dtype "
                           f"{input.dtype._short} and other's dtype {b.dtype._short}")
    if input.ndim < 2:
        raise RuntimeError(f"{op}: input must have at least 2 dimensions.")
    vector = b.ndim == input.ndim - 1
    if b.ndim < 1 or (not vector and b.ndim < 2):
        raise RuntimeError(f"{op}: other must have at least 1 dimension.")
    if (b.shape[-1] if vector else b.shape[-2]) != input.shape[-2]:
        raise RuntimeError(f"{op}: input.size(-2) should match other.size(-{1 if vector else 2})")
    driver = driver or "gelsy"
    if driver not in ("gels", "gelsy", "gelsd", "gelss"):
        raise RuntimeError(f"{op}: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)")
    common.same_device(op, input, b)
    m, n = input.shape[-2:]
    atol, rtol = _tolerance(op, input, None, None, rcond)
    xp = input._device.xp
    s = svdvals(input.detach())._data
    rank = (s > xp.maximum(atol, rtol * s[..., :1])).sum(-1) if s.shape[-1] else xp.zeros(s.shape[:-1], xp.int64)
    residuals = driver != "gelsy" and m > n and bool((rank == n).all())
    X, res = Lstsq.apply(input, b, rtol=rtol, vector=vector, residuals=residuals)
    from ._factories import tensor as _tensor
    make = type(input)._make
    rank_t = make(xp.asarray(rank).astype(xp.int64), input._device) if driver != "gels" else \
        _tensor([], dtype=_dtype.int64, device=input.device)
    sv = make(s, input._device) if driver in ("gelsd", "gelss") else _tensor([], dtype=input.dtype, device=input.device)
    return return_types.linalg_lstsq(X, res, rank_t, sv)


def slogdet(A, *, out=None):
    _no_out("slogdet", out)
    return return_types.linalg_slogdet(*Slogdet.apply(_matrices("linalg.slogdet", A)))


def logdet(input):
    """log det A: nan where det A < 0, -inf where it is 0 (PyTorch's composition of slogdet)."""
    sign, logabs = return_types.linalg_slogdet(*Slogdet.apply(_matrices("logdet", input)))
    from ._ops.pointwise import where
    return where(sign < 0, math.nan, logabs)


def matrix_power(input, n, *, out=None):
    """A to an integer power by repeated squaring, as PyTorch multiplies (n < 0: of the inverse)."""
    _no_out("matrix_power", out)
    if input.ndim < 2:
        raise RuntimeError("linalg.matrix_power: The input tensor A must have at least 2 dimensions.")
    if input.shape[-1] != input.shape[-2]:
        raise RuntimeError(f"linalg.matrix_power: A must be batches of square matrices, but they are {input.shape[-2]} "
                           f"by {input.shape[-1]} matrices")
    n = int(n)
    if n == 0:
        from ._factories import eye
        return input.clone().copy_(eye(input.shape[-1], dtype=input.dtype, device=input.device).expand_as(input))
    if n < 0:
        input, n = inv(input), -n
        if n == 1:
            return input
    if n == 1:
        return input.clone()
    z = result = None
    while n > 0:
        bit, n = n % 2, n // 2
        z = input if z is None else z @ z
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


def cond(input, p=None, *, out=None):
    """The condition number: the ratio of the extreme singular values (p None, 2, -2), else
    norm(A, p) * norm(inv(A), p)."""
    _no_out("cond", out)
    if input.ndim < 2:
        raise RuntimeError("linalg.cond: The input tensor must have at least 2 dimensions.")
    if p is None or p in (2, -2):
        s = svdvals(input)
        big, small = s.narrow(-1, 0, 1), s.narrow(-1, s.shape[-1] - 1, 1)
        return (big / small if p != -2 else small / big).squeeze(-1)
    _matrices("linalg.cond", input)
    inverse, info = inv_ex(input)
    inverse = inverse.masked_fill((info > 0).unsqueeze(-1).unsqueeze(-1), math.inf)
    # (0 * inf, the norm of a zero matrix times its inverse's, is inf, as in NumPy)
    return (matrix_norm(input, p) * matrix_norm(inverse, p)).nan_to_num(math.inf, math.inf, -math.inf)


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


# ---- triangular systems, LU, the matrix exponential --------------------------------------------

def _named(name, fields):
    """PyTorch's torch.return_types.<name> (from return_types.py where it is defined there)."""
    return getattr(return_types, name, None) or return_types._return_type(name, fields)


_LuFactor = _named("linalg_lu_factor", ("LU", "pivots"))
_LuFactorEx = _named("linalg_lu_factor_ex", ("LU", "pivots", "info"))
_Lu = _named("linalg_lu", ("P", "L", "U"))
_LuUnpack = _named("lu_unpack", ("P", "L", "U"))
_SolveEx = _named("linalg_solve_ex", ("result", "info"))


def _same_dtype(op, A, B, names=("A", "B")):
    if A.dtype is not B.dtype:
        a, b = names
        raise RuntimeError(f"{op}: Expected {a} and {b} to have the same dtype, but found {a} of type "
                           f"{A.dtype._short} and {b} of type {B.dtype._short} instead")


def solve_triangular(input, B, *, upper, left=True, unitriangular=False, out=None):
    """X with A X = B (left) or X A = B, for a triangular A: only its upper or lower triangle is read
    (unitriangular: with ones on the diagonal); batch dims broadcast."""
    B = triangular_operands(input, B, left)
    r = SolveTriangular.apply(input, B, upper=bool(upper), left=bool(left), unitriangular=bool(unitriangular))
    return _write("solve_triangular", r, out)


def triangular_operands(A, B, left=True):
    """PyTorch's checks of a triangular system; B in A's dtype (PyTorch solves in A's)."""
    op = "linalg.solve_triangular"
    for t, name in ((A, "A"), (B, "B")):
        if t.ndim < 2:
            raise RuntimeError(f"{op}: The input tensor {name} must have at least 2 dimensions.")
    _matrices(op, A)
    common.same_device(op, A, B)
    n = A.shape[-1]
    if (B.shape[-2] if left else B.shape[-1]) != n:
        eq = "AX = B" if left else "XA = B"
        raise RuntimeError(f"{op}: Incompatible shapes of A and B for the equation {eq} ({n}x{n} and "
                           f"{B.shape[-2]}x{B.shape[-1]})")
    common.broadcast_shapes(A.shape[:-2], B.shape[:-2], op=op)
    return B if B.dtype is A.dtype else B.to(A.dtype)


def _write(op, result, out):
    if out is None:
        return result
    from ._ops.out import write_out
    return write_out(f"linalg_{op}", result, out)


def _factor(op, A, pivot):
    """getrf's (LU, pivots, info) of A as arrays, with PyTorch's checks."""
    if A.ndim < 2:
        raise RuntimeError(f"{op}: Expected tensor with 2 or more dimensions. Got size: {list(A.shape)} instead")
    if not A.dtype.is_floating_point or A.dtype.itemsize < 4:
        raise NotImplementedError(f"\"lu_cpu\" not implemented for '{A.dtype._short}'")
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")
    return lu_array(A._device.xp, A._data)


def _zero_pivot(op, k):
    return (f"{op}: U[{k},{k}] is zero and using it on lu_solve would result in a division by zero. If you still "
            "want to perform the factorization, consider calling linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)")


def lu_factor_ex(A, *, pivot=True, check_errors=False, out=None):
    """The packed LU factors of A = P L U, the pivots (1-based rows, int32) and info (the first
    zero pivot, 1-based, or 0)."""
    lu, piv, info = _factor("torch.lu_factor", A, pivot)
    if check_errors and bool((info > 0).any()):
        raise RuntimeError(_zero_pivot("torch.linalg.lu_factor_ex", int(info.reshape(-1)[(info > 0).reshape(-1)][0])))
    xp, make = A._device.xp, type(A)._make
    P = permutation_array(xp, piv, A.shape[-2], A._data.dtype)
    LU = LuFactor.apply(A, lu=lapack_layout(lu), P=P)
    r = _LuFactorEx(LU, make(piv, A._device), make(info, A._device))
    return _write("lu_factor_ex", r, out)


def lu_factor(A, *, pivot=True, out=None):
    LU, piv, info = lu_factor_ex(A, pivot=pivot)
    if info.ndim == 0 and int(info) > 0:  # (a batch reports no error, as PyTorch's)
        raise RuntimeError(_zero_pivot("torch.linalg.lu_factor", int(info)))
    return _write("lu_factor", _LuFactor(LU, piv), out)


def _unpack(xp, lu):
    m, n = lu.shape[-2:]
    k = min(m, n)
    L = xp.tril(lu[..., :, :k], -1) + xp.eye(m, k, dtype=lu.dtype)
    return L, xp.triu(lu[..., :k, :])


def lu(A, *, pivot=True, out=None):
    """P, L, U with A = P L U: L unit lower triangular (m, k), U upper triangular (k, n)."""
    lu_, piv, info = _factor("linalg.lu", A, pivot)
    xp, make = A._device.xp, type(A)._make
    P = permutation_array(xp, piv, A.shape[-2], A._data.dtype)
    Lm, Um = _unpack(xp, lu_)
    L, U = Lu.apply(A, L=Lm, U=Um, P=P)
    return _write("lu", _Lu(make(P, A._device), L, U), out)


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True, *, out=None):
    """P, L, U from lu_factor's packed factors and pivots (empty tensors for the parts not asked for)."""
    if LU_data.ndim < 2:
        raise RuntimeError("torch.lu_unpack: Expected tensor with 2 or more dimensions. Got size: "
                           f"{list(LU_data.shape)} instead")
    if LU_pivots.dtype is not _dtype.int32:
        raise RuntimeError("torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of torch.int32 dtype.\n"
                           "Note: this function is intended to be used with the output produced by "
                           "torch.linalg.lu_factor")
    xp, make, dev = LU_data._device.xp, type(LU_data)._make, LU_data._device
    from ._factories import tensor as _tensor
    empty = _tensor([], dtype=LU_data.dtype, device=LU_data.device)
    if unpack_data:
        Lm, Um = _unpack(xp, LU_data._data)
        L, U = LuUnpack.apply(LU_data, L=Lm, U=Um)
    else:
        L = U = empty
    P = make(permutation_array(xp, LU_pivots._data, LU_data.shape[-2], LU_data._data.dtype), dev) if unpack_pivots \
        else empty
    return _write("lu_unpack", _LuUnpack(P, L, U), out)


def lu_solve(LU, pivots, B, *, left=True, adjoint=False, out=None):
    """X with A X = B (left=False: X A = B; adjoint: with A^T), A given by lu_factor."""
    op = "linalg.lu_solve"
    if LU.ndim < 2:
        raise RuntimeError(f"torch.{op}: The input tensor A must have at least 2 dimensions.")
    _matrices(op, LU)
    _same_dtype(op, LU, B, ("LU", "B"))
    n = LU.shape[-1]
    if (B.shape[-2] if left else B.shape[-1]) != n:
        raise RuntimeError(f"{op}: Incompatible shapes of A and B for the equation {'AX = B' if left else 'XA = B'} "
                           f"({n}x{n} and {B.shape[-2]}x{B.shape[-1]})")
    batch = common.broadcast_shapes(LU.shape[:-2], B.shape[:-2], pivots.shape[:-1], op=op)
    xp = LU._device.xp
    P = permutation_array(xp, xp.broadcast_to(pivots._data, batch + pivots.shape[-1:]), n, LU._data.dtype)
    r = LuSolve.apply(LU, B, P=P, pivots=pivots, left=bool(left), adjoint=bool(adjoint))
    return _write("lu_solve", r, out)


def solve_ex(A, B, *, left=True, check_errors=False, out=None):
    """solve, with `info` (0, or the first zero pivot of A's LU) beside the result; a singular A then
    gives the inf / nan the substitution produces, not an error."""
    from ._factories import zeros
    vector = _solve_operands(A, B, left)
    _, _, info = lu_array(A._device.xp, A._data.reshape((-1,) + A.shape[-2:]))
    info = info.reshape(A.shape[:-2])
    if bool((info > 0).any()):
        if check_errors:
            raise _singular("torch.linalg.solve_ex", info)
        LU, piv, _ = lu_factor_ex(A)
        X = lu_solve(LU, piv, B.unsqueeze(-1) if vector else B, left=left)
        X = X.squeeze(-1) if vector else X
    else:
        X = solve(A, B, left=left)
    r = _SolveEx(X, type(A)._make(info, A._device) if info.ndim else
                                     zeros((), dtype=_dtype.int32, device=A.device).fill_(int(info)))
    return _write("solve_ex", r, out)


def matrix_exp(input):
    """exp(A) = sum_k A^k / k!, by scaling and squaring a Pade approximant."""
    op = "linalg.matrix_exp"
    if input.ndim < 2:
        raise RuntimeError(f"{op}: The input tensor A must have at least 2 dimensions.")
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"{op}: Expected a floating point or complex tensor as input. Got {input.dtype._short}")
    if input.shape[-1] != input.shape[-2]:
        raise RuntimeError(f"{op}: A must be batches of square matrices, but they are {input.shape[-2]} by "
                           f"{input.shape[-1]} matrices")
    if input.dtype.itemsize < 4:  # (computed in float32, rounded once)
        return MatrixExp.apply(input.float()).to(input.dtype)
    return MatrixExp.apply(input)


def vander(x, *, N=None):
    """The Vandermonde matrix [1, x, x^2, ..., x^(N-1)] along a new last dim, made as PyTorch makes it:
    a cumulative product of copies of x after a column of ones."""
    if x.dtype is _dtype.bool:
        raise RuntimeError("linalg.vander supports floating point, complex, and integer tensors, but got Bool")
    n = (x.shape[-1] if x.ndim else 0) if N is None else int(N)
    if n <= 1:
        raise RuntimeError("N must be greater than 1.")
    from ._ops.join import cat
    if not x.dtype.is_floating_point:  # (cumprod computes integers in int64)
        x = x.long()
    ones_col = x.new_ones(x.shape + (1,))
    powers = x.unsqueeze(-1).expand(x.shape + (n - 1,)).cumprod(-1)
    return cat([ones_col, powers], -1)


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """A's diagonals over the last two dims (torch.diagonal with other defaults)."""
    return A.diagonal(offset, dim1, dim2)


# ---- tensordot's inverse, and the compact factorizations (minitorch/_linalg_compact.py) -----------

def tensorinv(input, ind=2, *, out=None):
    """X with tensordot(A, X, ind) the identity: inv of A seen as a (prod(A.shape[:ind]), ...) matrix,
    its result shaped A.shape[ind:] + A.shape[:ind]."""
    _no_out("tensorinv", out)
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    rows, cols = math.prod(input.shape[:ind]), math.prod(input.shape[ind:])
    if rows != cols:
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[ind:]) == "
                           f"prod(self.shape[:ind]), but got {cols} != {rows}")
    inverse = Inv.apply(_matrices("linalg.inv", input.reshape(rows, rows)), op="inv", check=True)
    return inverse.reshape(tuple(input.shape[ind:]) + tuple(input.shape[:ind]))


def tensorsolve(A, B, dims=None, *, out=None):
    """X with tensordot(A, X, X.ndim) = B: solve of A seen as a square matrix (its `dims` moved to
    the end first) against B flattened, the result shaped A.shape[B.ndim:]."""
    _no_out("tensorsolve", out)
    if dims is not None:
        dims = tuple(dims)
        A = A.movedim(dims, tuple(range(A.ndim - len(dims), A.ndim)))
    shape = tuple(A.shape[B.ndim:])
    n, m = math.prod(shape), B.numel()
    if n != m:
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == "
                           f"prod(self.shape[:other.ndim]), but got {n} != {m}")
    return solve(A.reshape(n, n), B.flatten()).reshape(shape)


from ._linalg_compact import householder_product, ldl_factor, ldl_factor_ex, ldl_solve  # noqa: E402


# ---- the public names ---------------------------------------------------------------------------

__all__ = ["cholesky", "cholesky_ex", "cond", "cross", "det", "diagonal", "eigh", "eigvalsh", "inv", "inv_ex",
           "lstsq", "lu", "lu_factor", "lu_factor_ex", "lu_solve", "matmul", "matrix_exp", "matrix_norm",
           "matrix_power", "matrix_rank", "multi_dot", "norm", "pinv", "qr", "slogdet", "solve", "solve_ex",
           "solve_triangular", "svd", "svdvals", "vander", "vecdot", "vector_norm", "tensorinv", "tensorsolve",
           "householder_product", "ldl_factor", "ldl_factor_ex", "ldl_solve"]
for _name in __all__:  # a call missing an argument: PyTorch's parser's error, which names the function so
    if _name != "matmul":
        globals()[_name] = torch_arguments(f"linalg_{_name}")(globals()[_name])
del _name


# eig and eigvals: named, so that a call says why they are missing
def _complex_only(name):
    def f(*args, **kwargs):
        raise NotImplementedError(f"torch.linalg.{name} is not implemented in minitorch: its results are complex "
                                  "tensors, and minitorch has no complex dtypes (for a symmetric matrix, "
                                  f"linalg.{'eigh' if name == 'eig' else 'eigvalsh'} gives the same, real, values)")
    f.__name__ = f.__qualname__ = name
    return f


eig, eigvals = _complex_only("eig"), _complex_only("eigvals")
