"""The older top-level forms of the decompositions, still common in tutorials: torch.svd (V, not
Vh; `some` for the reduced factors), torch.qr(some=), torch.cholesky(upper=), torch.pinverse(rcond=),
torch.slogdet, torch.logdet, torch.matrix_power, torch.lu, torch.lu_solve, torch.triangular_solve,
torch.cholesky_solve, torch.cholesky_inverse, torch.det, torch.inverse, the deprecated nuclear_norm and
frobenius_norm, and renorm. Each is
torch.linalg's function underneath (or beside it), with PyTorch's deprecation warnings where it gives them."""
from __future__ import annotations

import warnings

from . import linalg, return_types
from ._ops._prim import Primitive
from ._ops.reduce import Norm


def svd(input, some=True, compute_uv=True, *, out=None):  # noqa: A002
    if not compute_uv:  # PyTorch returns square zero matrices in place of U and V then
        from ._factories import zeros
        m, n = input.shape[-2:]
        batch, kw = input.shape[:-2], dict(dtype=input.dtype, device=input.device)
        return return_types.svd(zeros(batch + (m, m), **kw), linalg.svdvals(input), zeros(batch + (n, n), **kw))
    U, S, Vh = linalg.svd(input, full_matrices=not some, out=out)
    return return_types.svd(U, S, Vh.mT)


def qr(input, some=True, *, out=None):  # noqa: A002
    warnings.warn("torch.qr is deprecated in favor of torch.linalg.qr and will be removed in a future PyTorch "
                  "release.\nThe boolean parameter 'some' has been replaced with a string parameter 'mode'.\n"
                  "Q, R = torch.qr(A, some)\nshould be replaced with\n"
                  "Q, R = torch.linalg.qr(A, 'reduced' if some else 'complete')", UserWarning, stacklevel=2)
    return return_types.qr(*linalg.qr(input, "reduced" if some else "complete", out=out))


def cholesky(input, upper=False, *, out=None):  # noqa: A002
    warnings.warn("torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be removed in a future "
                  "PyTorch release.\nL = torch.cholesky(A)\nshould be replaced with\nL = torch.linalg.cholesky(A)\n"
                  "and\nU = torch.cholesky(A, upper=True)\nshould be replaced with\nU = torch.linalg.cholesky(A).mH\n"
                  "This transform will produce equivalent results for all valid (symmetric positive definite) "
                  "inputs.", UserWarning, stacklevel=2)
    return linalg.cholesky(input, upper=upper, out=out, _op="cholesky")


def pinverse(input, rcond=1e-15):  # noqa: A002
    return linalg.pinv(input, rtol=rcond)


def det(input):  # noqa: A002  (torch.det: linalg.det, its argument named `input` as in PyTorch)
    return linalg.det(input)


def inverse(input, *, out=None):  # noqa: A002  (torch.inverse: linalg.inv)
    return linalg.inv(input, out=out)


def slogdet(input):  # noqa: A002
    return return_types.slogdet(*linalg.slogdet(input))


logdet = linalg.logdet
matrix_power = linalg.matrix_power


# ---- the older LU, triangular and Cholesky forms, and the deprecated norms ----------------------

def _deprecated(message):
    warnings.warn(message, UserWarning, stacklevel=3)


def triangular_solve(input, A, upper=True, transpose=False, unitriangular=False, *, out=None):  # noqa: A002
    """(X, a copy of A) with op(A) X = b, op(A) = A or A^T: torch.linalg.solve_triangular, older."""
    _deprecated("torch.triangular_solve is deprecated in favor of torch.linalg.solve_triangularand will be removed in "
                "a future PyTorch release.\ntorch.linalg.solve_triangular has its arguments reversed and does not "
                "return a copy of one of the inputs.\nX = torch.triangular_solve(B, A).solution\nshould be replaced "
                "with\nX = torch.linalg.solve_triangular(A, B).")
    from ._linalg_decomp import TriangularSolve
    input = linalg.triangular_operands(A, input)
    X, copy = TriangularSolve.apply(input, A, upper=bool(upper), transpose=bool(transpose),
                                    unitriangular=bool(unitriangular))
    r = _named("triangular_solve", ("solution", "cloned_coefficient"))(X, copy)
    return r if out is None else _out("triangular_solve", r, out)


def lu(A, pivot=True, get_infos=False, out=None):  # noqa: A002
    _deprecated("torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex and will be "
                "removed in a future PyTorch release.\nLU, pivots = torch.lu(A, compute_pivots)\nshould be replaced "
                "with\nLU, pivots = torch.linalg.lu_factor(A, compute_pivots)\nand\nLU, pivots, info = torch.lu(A, "
                "compute_pivots, get_infos=True)\nshould be replaced with\nLU, pivots, info = "
                "torch.linalg.lu_factor_ex(A, compute_pivots)")
    LU, piv, info = linalg.lu_factor_ex(A, pivot=pivot)
    r = _named("_lu_with_info", ("LU", "pivots", "info"))(LU, piv, info) if get_infos else (LU, piv)
    return r if out is None else _out("lu", r, out)


def lu_solve(input, LU_data, LU_pivots, *, out=None):  # noqa: A002
    _deprecated("torch.lu_solve is deprecated in favor of torch.linalg.lu_solveand will be removed in a future PyTorch "
                "release.\nNote that torch.linalg.lu_solve has its arguments reversed.\nX = torch.lu_solve(B, LU, "
                "pivots)\nshould be replaced with\nX = torch.linalg.lu_solve(LU, pivots, B)")
    return linalg.lu_solve(LU_data, LU_pivots, input, out=out)


lu_unpack = linalg.lu_unpack


def _square_batches(op, A):
    if A.ndim < 2:
        raise RuntimeError(f"{op}: The input tensor A must have at least 2 dimensions.")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"{op}: A must be batches of square matrices, but they are {A.shape[-2]} by "
                           f"{A.shape[-1]} matrices")
    linalg._matrices(op, A)


def cholesky_solve(input, input2, upper=False, *, out=None):  # noqa: A002
    """X with A X = B for A = L L^T (upper: U^T U), L from cholesky; batch dims broadcast."""
    from ._linalg_decomp import CholeskySolve
    if input.ndim < 2 or input2.ndim < 2:
        raise RuntimeError(f"b should have at least 2 dimensions, but has {input.ndim} dimensions instead"
                           if input.ndim < 2 else
                           f"u should have at least 2 dimensions, but has {input2.ndim} dimensions instead")
    _square_batches("cholesky_solve", input2)
    if input.dtype is not input2.dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type {input.dtype._short} and "
                           f"A of type {input2.dtype._short} instead.")
    if input.shape[-2] != input2.shape[-1]:
        raise RuntimeError(f"Incompatible matrix sizes for cholesky_solve: each A matrix is {input2.shape[-1]} by "
                           f"{input2.shape[-1]} but each b matrix is {input.shape[-2]} by {input.shape[-1]}")
        # (PyTorch's wording, from its checkInputsSolver)
    r = CholeskySolve.apply(input, input2, upper=bool(upper))
    return r if out is None else _out("cholesky_solve", r, out)


def cholesky_inverse(input, upper=False, *, out=None):  # noqa: A002
    """(L L^T)^-1 (upper: (U^T U)^-1): the inverse of A from its Cholesky factor."""
    from ._linalg_decomp import CholeskyInverse
    _square_batches("cholesky_inverse", input)
    r = CholeskyInverse.apply(input, upper=bool(upper))
    return r if out is None else _out("cholesky_inverse", r, out)


def nuclear_norm(input, dim=None, keepdim=False, *, out=None):  # noqa: A002
    warnings.warn("at::nuclear_norm is deprecated and it is just left for JIT compatibility. It will be removed in a "
                  "future PyTorch release. Please use `linalg.matrix_norm(A, 'nuc', dim, keepdim)` instead",
                  UserWarning, stacklevel=2)
    if isinstance(dim, bool):  # nuclear_norm(A, keepdim): the overload without dim
        dim, keepdim = None, dim
    r = linalg.matrix_norm(input, "nuc", (-2, -1) if dim is None else tuple(dim), keepdim)
    return r if out is None else _out("nuclear_norm", r, out)


def frobenius_norm(input, dim, keepdim=False, *, out=None):  # noqa: A002
    warnings.warn("at::frobenius_norm is deprecated and it is just left for JIT compatibility. It will be removed in "
                  "a future PyTorch release. Please use `linalg.vector_norm(A, 2., dim, keepdim)` instead",
                  UserWarning, stacklevel=2)
    dim = (dim,) if isinstance(dim, int) else tuple(dim)
    if len(dim) > 2:
        raise RuntimeError(f"Expected at most 2 dimensions, but got {len(dim)} dimensions instead.")
    from ._ops import common
    linalg.vector_norm(input.detach(), 2.0, dim, keepdim)  # its checks
    r = _FrobeniusNorm.apply(input, p=2.0, dims=common.wrap_dims(dim, input.ndim, "frobenius_norm"), keepdim=keepdim)
    return r if out is None else _out("frobenius_norm", r, out)


class _FrobeniusNorm(Norm):
    _node_name = "NormBackward1"  # (at::frobenius_norm is at::norm underneath)


def matrix_exp(input):  # noqa: A002
    return linalg.matrix_exp(input)


def _named(name, fields):
    return getattr(return_types, name, None) or return_types._return_type(name, fields)


def _out(op, result, out):
    from ._ops.out import write_out
    return write_out(op, result, out)


# ---- renorm -------------------------------------------------------------------------------

class Renorm(Primitive):
    """Each slice along `dim` whose p-norm n exceeds maxnorm scaled by maxnorm / (n + 1e-7);
    d/dx = maxnorm / (n + eps) (g - (sum g x) dn/dx / (n + eps)) where scaled, g elsewhere."""
    _node_name = "RenormBackward0"

    @staticmethod
    def forward(ctx, x, *, p, dim, maxnorm):
        ctx.save_for_backward(x)
        dims = tuple(d for d in range(x.ndim) if d != dim)
        ctx.p, ctx.maxnorm, ctx.dims = p, maxnorm, dims
        xp, a = x._device.xp, x._data
        norm = _slice_norms(xp, a, p, dims)
        factor = xp.where(norm > maxnorm, maxnorm / (norm + 1e-7), 1.0)
        return (a * factor).astype(a.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        p, dims, maxnorm = ctx.p, ctx.dims, ctx.maxnorm
        norm = linalg.vector_norm(x, p, dims, True)
        dot = (x * grad).sum(dims, keepdim=True)
        if p == float("inf"):  # the norm moves with the largest entries, shared among ties
            peak = (x.abs() == norm).to(x.dtype)
            dnorm = x.sgn() * peak / peak.sum(dims, keepdim=True)
        elif p == 1:
            dnorm = x.sgn()
        else:
            dnorm = x.sgn() * x.abs() ** (p - 1) / norm ** (p - 1)
        inv = 1 / (norm + 1e-7)
        scaled = maxnorm * inv * (grad - inv * dot * dnorm)
        return (scaled.where(norm > maxnorm, grad),)


def _slice_norms(xp, a, p, dims):
    import numpy
    with numpy.errstate(all="ignore"):
        if p == float("inf"):
            return xp.abs(a).max(axis=dims, keepdims=True)
        return (xp.abs(a) ** p).sum(axis=dims, keepdims=True) ** (1.0 / p)


def renorm(input, p, dim, maxnorm, *, out=None):  # noqa: A002
    """input with every slice along `dim` whose p-norm exceeds maxnorm scaled down to that norm."""
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
                           f"{input.dtype._short}")
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm:g}")
    if input.ndim <= 1:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {input.ndim} dimensions")
    from ._ops import common
    (dim,) = common.wrap_dims((dim,), input.ndim, "renorm")
    r = Renorm.apply(input, p=float(p), dim=dim, maxnorm=float(maxnorm))
    return r if out is None else _out("renorm", r, out)


def renorm_(self, p, dim, maxnorm):
    out = renorm(self.detach(), p, dim, maxnorm)  # the checks
    from ._ops import common
    from ._ops.inplace_prim import write_inplace
    (dim,) = common.wrap_dims((dim,), self.ndim, "renorm")
    return write_inplace(self, Renorm, (), dict(p=float(p), dim=dim, maxnorm=float(maxnorm)), "renorm_",
                         (out.dtype, out.shape))


INPLACE = {"renorm_": renorm_}

from ._linalg_compact import geqrf  # noqa: E402,F401  (torch.geqrf: QR as LAPACK keeps it)
INPLACE["geqrf"] = geqrf  # (with renorm_, the methods this module adds: t.geqrf())
