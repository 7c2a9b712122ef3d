"""The factorizations LAPACK keeps in compact form, and what reads them back.

    geqrf(A) -> (a, tau)          QR as Householder reflectors: R on and above a's diagonal, the
                                  reflectors' vectors below it, their scales in tau
    householder_product(a, tau)   Q's first n columns from them: H_1 H_2 ... H_k, H_i = I - tau_i v_i v_i^T
    ldl_factor(A) -> (LD, piv)    A = P L D L^T P^T for a symmetric A (Bunch-Kaufman pivoting): L below
                                  LD's diagonal, D's 1x1 and 2x2 blocks on it and just below it
    ldl_solve(LD, piv, B)         X with A X = B from them

NumPy has neither LDL nor the reflector product: both are LAPACK's unblocked loops (sytf2, sytrs,
org2r) written out, one step per column, so they agree with PyTorch's to rounding. geqrf comes from
NumPy's QR ('raw' mode, LAPACK's own geqrf). Like PyTorch, only householder_product has a gradient.
"""
from __future__ import annotations

import math

from . import return_types
from ._linalg_decomp import _no_double_backward, _np_quiet_all, _tensors, lapack_layout
from ._ops._prim import MultiOutputPrimitive, Primitive

_Geqrf = return_types._return_type("geqrf", ("a", "tau"))
_LdlFactor = return_types._return_type("linalg_ldl_factor", ("LD", "pivots"))
_LdlFactorEx = return_types._return_type("linalg_ldl_factor_ex", ("LD", "pivots", "info"))


class Geqrf(MultiOutputPrimitive):
    _node_name = "GeqrfBackward0"

    @staticmethod
    def forward(ctx, A):
        xp, a = A._device.xp, A._data
        batch, (m, n) = a.shape[:-2], a.shape[-2:]
        flat = a.reshape((-1, m, n))
        h = xp.empty_like(flat)
        tau = xp.zeros((flat.shape[0], min(m, n)), dtype=a.dtype)
        for i in range(flat.shape[0]):  # ('raw' QR is not batched in NumPy 1.x; it returns a^T)
            hi, ti = xp.linalg.qr(flat[i], mode="raw")
            h[i], tau[i] = hi.T, ti
        return lapack_layout(h.reshape(a.shape)), tau.reshape(batch + (min(m, n),))

    @staticmethod
    def backward(ctx, ga, gtau):
        raise NotImplementedError("the derivative for 'geqrf' is not implemented.")


def geqrf(input, *, out=None):  # noqa: A002
    if input.ndim < 2:
        raise RuntimeError("torch.geqrf: input must have at least 2 dimensions.")
    if not input.dtype.is_floating_point or input.dtype.itemsize < 4:
        raise NotImplementedError(f"\"geqrf_cpu\" not implemented for '{input.dtype._short}'")
    from .linalg import _no_out
    _no_out("geqrf", out)
    return _Geqrf(*Geqrf.apply(input))


class HouseholderProduct(Primitive):
    """Q = H_1 ... H_k applied to the first n columns of I, from the last reflector to the first:
    X <- X - tau_i v_i (v_i^T X). Backward runs the steps in reverse, each one's inputs kept."""
    _node_name = "LinalgHouseholderProductBackward0"

    @staticmethod
    def forward(ctx, A, tau):
        xp, a, t = A._device.xp, A._data, tau._data
        m, n, k = a.shape[-2], a.shape[-1], t.shape[-1]
        V = xp.tril(a[..., :, :k], -1) + xp.eye(m, k, dtype=a.dtype)  # v_i: column i, 1 on the diagonal
        X = xp.broadcast_to(xp.eye(m, n, dtype=a.dtype), a.shape).copy()
        before = []
        for i in reversed(range(k)):
            v = V[..., :, i:i + 1]
            before.append(X)
            X = X - t[..., i, None, None] * (v @ (v.swapaxes(-1, -2) @ X))
        ctx.V, ctx.tau, ctx.before, ctx.n = V, t, before[::-1], n
        return lapack_layout(X)

    @staticmethod
    def backward(ctx, grad):
        _no_double_backward("linalg.householder_product")
        V, tau = _tensors(ctx, grad, "V", "tau")
        g, g_v, g_tau = grad, [], []
        for i in range(tau.shape[-1]):  # step i maps X (kept) to X - tau_i v (v^T X)
            X = type(grad)._make(ctx.before[i], grad._device)
            v, t = V[..., :, i:i + 1], tau[..., i, None, None]
            vg, vx = v.mT @ g, v.mT @ X
            g_tau.append(-(vg * vx).sum((-2, -1)))
            g_v.append(-t * (g @ vx.mT + X @ vg.mT))
            g = g - t * (v @ vg)
        from ._ops.join import cat, stack
        gV = cat(g_v, -1).tril(-1)
        gA = cat([gV, gV.new_zeros(gV.shape[:-1] + (ctx.n - gV.shape[-1],))], -1) if ctx.n > gV.shape[-1] else gV
        return gA, stack(g_tau, -1)


def householder_product(input, tau, *, out=None):
    op = "torch.linalg.householder_product"
    if input.ndim < 2:
        raise RuntimeError(f"{op}: input must have at least 2 dimensions.")
    if input.shape[-2] < input.shape[-1]:
        raise RuntimeError(f"{op}: input.shape[-2] must be greater than or equal to input.shape[-1]")
    if input.shape[-1] < tau.shape[-1]:
        raise RuntimeError(f"{op}: input.shape[-1] must be greater than or equal to tau.shape[-1]")
    if tau.ndim != input.ndim - 1:
        raise RuntimeError(f"{op}: Expected tau to have one dimension less than input, but got tau.ndim equal to "
                           f"{tau.ndim} and input.ndim is equal to {input.ndim}")
    if tuple(tau.shape[:-1]) != tuple(input.shape[:-2]):
        raise RuntimeError(f"{op}: Expected batch dimensions of tau to be equal to input.shape[:-2], but got "
                           f"{list(tau.shape[:-1])}")
    if tau.dtype is not input.dtype:
        raise RuntimeError(f"{op}: tau dtype {tau.dtype._short} does not match input dtype {input.dtype._short}")
    if not input.dtype.is_floating_point or input.dtype.itemsize < 4:
        raise NotImplementedError(f"\"orgqr_cpu\" not implemented for '{input.dtype._short}'")
    from .linalg import _no_out
    _no_out("householder_product", out)
    return HouseholderProduct.apply(input, tau)


# ---- LDL^T with Bunch-Kaufman pivoting (LAPACK's sytf2 and sytrs, lower triangle) ---------------

_ALPHA = (1 + math.sqrt(17)) / 8  # the pivot threshold that bounds the growth of L's entries


def _sytf2(xp, a):
    """One matrix: (LD, pivots, info) as LAPACK's dsytf2 with UPLO='L' leaves them. pivots are
    1-based; a 2x2 block at k, k+1 has both pivots -p (rows k+1 and p were swapped)."""
    n = a.shape[-1]
    A = xp.tril(a).copy()
    piv = [0] * n
    info, k = 0, 0
    while k < n:
        step, absakk = 1, abs(float(A[k, k]))
        imax = k + 1 + int(xp.argmax(xp.abs(A[k + 1:, k]))) if k < n - 1 else k
        colmax = abs(float(A[imax, k])) if k < n - 1 else 0.0
        if max(absakk, colmax) == 0 or math.isnan(absakk):  # a zero column: D(k) = 0, nothing to eliminate
            info, kp = info or k + 1, k
        else:
            if absakk >= _ALPHA * colmax:
                kp = k
            else:  # the largest entry off the diagonal in row / column imax
                rowmax = float(xp.abs(A[imax, k:imax]).max())
                if imax < n - 1:
                    rowmax = max(rowmax, float(xp.abs(A[imax + 1:, imax]).max()))
                if absakk >= _ALPHA * colmax * (colmax / rowmax):
                    kp = k
                elif abs(float(A[imax, imax])) >= _ALPHA * rowmax:
                    kp = imax
                else:
                    kp, step = imax, 2
            kk = k + step - 1
            if kp != kk:  # swap rows and columns kk and kp of the trailing lower triangle
                A[kp + 1:, kk], A[kp + 1:, kp] = A[kp + 1:, kp].copy(), A[kp + 1:, kk].copy()
                seg = A[kk + 1:kp, kk].copy()
                A[kk + 1:kp, kk] = A[kp, kk + 1:kp]
                A[kp, kk + 1:kp] = seg
                A[kk, kk], A[kp, kp] = A[kp, kp].copy(), A[kk, kk].copy()
                if step == 2:
                    A[k + 1, k], A[kp, k] = A[kp, k].copy(), A[k + 1, k].copy()
            if step == 1 and k < n - 1:  # A22 -= x x^T / d, then L's column is x / d
                x, d11 = A[k + 1:, k].copy(), 1 / A[k, k]
                A[k + 1:, k + 1:] -= xp.tril(xp.outer(x, d11 * x))
                A[k + 1:, k] = d11 * x
            elif step == 2 and k < n - 2:  # the same with the 2x2 block D = [[d11, d21], [d21, d22]]
                d21 = A[k + 1, k]
                d11, d22 = A[k + 1, k + 1] / d21, A[k, k] / d21
                d21 = 1 / (d11 * d22 - 1) / d21
                wk = d21 * (d11 * A[k + 2:, k] - A[k + 2:, k + 1])
                wkp1 = d21 * (d22 * A[k + 2:, k + 1] - A[k + 2:, k])
                A[k + 2:, k + 2:] -= xp.tril(xp.outer(A[k + 2:, k], wk))
                A[k + 2:, k + 2:] -= xp.tril(xp.outer(A[k + 2:, k + 1], wkp1))
                A[k + 2:, k], A[k + 2:, k + 1] = wk, wkp1
        if step == 1:
            piv[k] = kp + 1
        else:
            piv[k] = piv[k + 1] = -(kp + 1)
        k += step
    return A, piv, info


def _sytrs(xp, LD, piv, b):
    """One system: X with A X = b, A = P L D L^T P^T as _sytf2 leaves it (LAPACK's dsytrs, 'L')."""
    n, B = LD.shape[-1], b.copy()

    def swap(i, j):
        if i != j:
            B[[i, j]] = B[[j, i]]
    k = 0
    while k < n:  # L D Y = P^T b, forward
        if piv[k] > 0:
            swap(k, piv[k] - 1)
            B[k + 1:] -= xp.outer(LD[k + 1:, k], B[k])
            B[k] *= 1 / LD[k, k]
            k += 1
        else:
            swap(k + 1, -piv[k] - 1)
            B[k + 2:] -= xp.outer(LD[k + 2:, k], B[k])
            B[k + 2:] -= xp.outer(LD[k + 2:, k + 1], B[k + 1])
            akm1k = LD[k + 1, k]
            akm1, ak = LD[k, k] / akm1k, LD[k + 1, k + 1] / akm1k
            denom = akm1 * ak - 1
            bkm1, bk = B[k] / akm1k, B[k + 1] / akm1k
            B[k], B[k + 1] = (ak * bkm1 - bk) / denom, (akm1 * bk - bkm1) / denom
            k += 2
    k = n - 1
    while k >= 0:  # L^T P^T x = Y, backward
        if piv[k] > 0:
            B[k] -= LD[k + 1:, k] @ B[k + 1:]
            swap(k, piv[k] - 1)
            k -= 1
        else:
            B[k] -= LD[k + 1:, k] @ B[k + 1:]
            B[k - 1] -= LD[k + 1:, k - 1] @ B[k + 1:]
            swap(k, -piv[k] - 1)
            k -= 2
    return B


class LdlFactor(MultiOutputPrimitive):
    _node_name = "NotImplemented"

    @staticmethod
    def forward(ctx, A):
        xp, a = A._device.xp, A._data
        batch, n = a.shape[:-2], a.shape[-1]
        flat = a.reshape((-1, n, n))
        LD, piv, info = xp.empty_like(flat), xp.zeros((flat.shape[0], n), xp.int32), xp.zeros(flat.shape[0], xp.int32)
        with _np_quiet_all():
            for i in range(flat.shape[0]):
                LD[i], p, info[i] = _sytf2(xp, flat[i])
                piv[i] = xp.asarray(p, dtype=xp.int32)
        return lapack_layout(LD.reshape(a.shape)), piv.reshape(batch + (n,)), info.reshape(batch)

    @staticmethod
    def backward(ctx, *grads):
        raise RuntimeError("derivative for aten::linalg_ldl_factor_ex is not implemented")


def _ldl_error(op, info):
    # (PyTorch has no message for sytrf's info: its check fails an internal assertion)
    flat = info.reshape(-1)
    return RuntimeError(f"false INTERNAL ASSERT FAILED at \"/__w/pytorch/pytorch/aten/src/ATen/native/"
                        f"BatchLinearAlgebra.cpp\":1642, please report a bug to PyTorch. {op}: Unknown error code: "
                        f"{int(flat[(flat > 0).argmax()])}.")


def ldl_factor_ex(input, *, hermitian=False, check_errors=False, out=None):
    """(LD, pivots, info): info 0, or the first k with D(k) = 0 (1-based)."""
    op = "torch.linalg.ldl_factor_ex"
    from .linalg import _matrices, _no_out
    _no_out("ldl_factor_ex", out)
    if input.ndim >= 2 and input.dtype.is_floating_point and input.dtype.itemsize < 4:
        raise NotImplementedError(f"\"ldl_factor_kernel_cpu\" not implemented for '{input.dtype._short}'")
    LD, piv, info = LdlFactor.apply(_matrices(op, input))
    if check_errors and bool((info._data > 0).any()):
        raise _ldl_error(op, info._data)
    return _LdlFactorEx(LD, piv, info)


def ldl_factor(input, *, hermitian=False, out=None):
    from .linalg import _no_out
    _no_out("ldl_factor", out)
    LD, piv, info = ldl_factor_ex(input, hermitian=hermitian)
    if bool((info._data > 0).any()):
        raise _ldl_error("torch.linalg.ldl_factor", info._data)
    return _LdlFactor(LD, piv)


class LdlSolve(Primitive):
    _node_name = "NotImplemented"

    @staticmethod
    def forward(ctx, LD, pivots, B):
        xp = LD._device.xp
        batch = xp.broadcast_shapes(LD.shape[:-2], pivots.shape[:-1], B.shape[:-2])
        n, cols = LD.shape[-1], B.shape[-1]
        ld = xp.broadcast_to(LD._data, batch + (n, n)).reshape((-1, n, n))
        piv = xp.broadcast_to(pivots._data, batch + (n,)).reshape((-1, n))
        b = xp.broadcast_to(B._data, batch + (n, cols)).reshape((-1, n, cols))
        with _np_quiet_all():
            x = xp.stack([_sytrs(xp, ld[i], [int(p) for p in piv[i]], b[i]) for i in range(b.shape[0])]) \
                if b.shape[0] else b.copy()
        return lapack_layout(x.reshape(batch + (n, cols)))

    @staticmethod
    def backward(ctx, grad):
        raise RuntimeError("derivative for aten::linalg_ldl_solve is not implemented")


def ldl_solve(LD, pivots, B, *, hermitian=False, out=None):
    op = "torch.linalg.ldl_solve"
    from .linalg import _matrices, _no_out
    from ._ops import common
    _no_out("ldl_solve", out)
    _matrices(op, LD)
    if B.ndim < 2:
        raise IndexError(f"Dimension out of range (expected to be in range of [-{max(B.ndim, 1)}, "
                         f"{max(B.ndim, 1) - 1}], but got -2)")
    if B.dtype is not LD.dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type {B.dtype._short} and A of "
                           f"type {LD.dtype._short} instead.")
    if B.shape[-2] != LD.shape[-1]:
        raise RuntimeError(f"{op}: Incompatible shapes of A and B for the equation AX = B ({LD.shape[-2]}x"
                           f"{LD.shape[-1]} and {B.shape[-2]}x{B.shape[-1]})")
    common.broadcast_shapes(LD.shape[:-2], pivots.shape[:-1], B.shape[:-2], op=op)
    return LdlSolve.apply(LD, pivots.int(), B)
