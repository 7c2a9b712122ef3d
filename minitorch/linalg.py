"""minitorch.linalg: the part of torch.linalg that beginner code uses.

Norms (vector, matrix, and `norm`, which picks one the way PyTorch does), and the square-matrix
routines NumPy (or CuPy) provides in one call: inv, det, solve, svdvals. Each has its gradient.
The rest of torch.linalg is named here too and raises NotImplementedError when called.
"""
from __future__ import annotations

from ._ops import common
from ._ops.linalg import matmul  # noqa: F401  (torch.linalg.matmul is torch.matmul)
from ._ops.reduce import _np_quiet, norm as _vector_norm
from ._ops._prim import Primitive
from .autograd.grad_mode import STATE


class LinAlgError(RuntimeError):
    """A matrix the routine cannot handle (singular, ...): torch.linalg.LinAlgError."""


def _square_float(op, A):
    if A.ndim < 2:
        raise RuntimeError(f"{op}: The input tensor A must have at least 2 dimensions.")
    if not A.dtype.is_floating_point:
        raise RuntimeError(f"{op}: Expected a floating point or complex tensor as input. Got {A.dtype._short}")
    if A.dtype.itemsize < 4:
        raise RuntimeError(f"{op}: Low precision dtypes not supported. Got {A.dtype._short}")
    if op != "linalg.svd" and A.shape[-1] != A.shape[-2]:
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


def inv(A, *, out=None):
    _no_out("inv", out)
    return Inv.apply(_square_float("linalg.inv", A))


def det(A, *, out=None):
    _no_out("det", out)
    return Det.apply(_square_float("linalg.det", A))


def solve(A, B, *, left=True, out=None):
    _no_out("solve", out)
    _square_float("linalg.solve", A)
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
    return SvdVals.apply(_square_float("linalg.svd", A))


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


__all__ = ["det", "inv", "matmul", "matrix_norm", "norm", "solve", "svdvals", "vector_norm"]
for _name in ("cholesky", "eig", "eigh", "eigvals", "eigvalsh", "lstsq", "lu", "lu_factor", "matrix_exp",
              "matrix_power", "matrix_rank", "pinv", "qr", "slogdet", "svd", "tensorinv", "tensorsolve", "cross",
              "vecdot", "cond", "multi_dot", "householder_product"):
    globals()[_name] = _missing(_name)
del _name
