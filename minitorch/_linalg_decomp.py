"""The matrix decompositions of torch.linalg: svd, eigh, qr, cholesky, lu, and what is built on them
(lstsq, pinv, slogdet, lu_solve, cholesky_solve, cholesky_inverse), with the triangular solve and
the matrix exponential.

Each is one primitive: the forward is one call into the backend's LAPACK (NumPy's or CuPy's; LU and
the triangular solve, which NumPy lacks, are short loops of their own, at the end), the backward
is PyTorch's formula written in Tensor ops. The formulas hold for distinct singular values
(eigenvalues): where two coincide the decomposition is not differentiable, and the division by
their difference gives inf or nan, as in PyTorch.

Singular vectors and eigenvectors are unique only up to sign: NumPy's LAPACK and PyTorch's may pick
different signs for the same matrix (README, Differences from PyTorch). Products that do not depend
on the sign (U S Vh, projections, pinv, lstsq) agree.
"""
from __future__ import annotations

import math

from ._ops._prim import MultiOutputPrimitive, Primitive
from ._ops.reduce import _np_quiet
from .autograd.grad_mode import STATE


def _no_double_backward(op):
    # The saved factors are plain arrays, so a backward recorded with create_graph=True would miss
    # their dependence on A: refuse rather than return a wrong second derivative.
    if STATE.enabled:
        raise NotImplementedError(f"the second derivative of {op} is not implemented in minitorch")


def _eye(n, like):
    return type(like)._make(like._device.xp.eye(n, dtype=like._data.dtype), like._device)


def lapack_layout(x):
    """x copied into the layout LAPACK leaves its results in, which PyTorch returns as they are:
    each matrix column-major (strides (1, rows)), the matrices one after another. So is_contiguous()
    and view() answer as PyTorch's do."""
    return x.swapaxes(-1, -2).copy().swapaxes(-1, -2)


def _tensors(ctx, grad, *names):
    make = type(grad)._make
    return [make(getattr(ctx, n), grad._device) for n in names]


def _unused(g):
    return not bool((g != 0).any())


class Svd(MultiOutputPrimitive):
    """A = U diag(S) Vh."""
    _node_name = "LinalgSvdBackward0"

    @staticmethod
    def forward(ctx, A, *, full_matrices):
        xp, a = A._device.xp, A._data
        m, n = a.shape[-2:]
        k = min(m, n)
        ctx.u = ctx.s = ctx.vh = None
        if a.size == 0:  # LAPACK is not called on an empty matrix: identity factors, as PyTorch's
            batch = a.shape[:-2]
            cols, rows = (m, n) if full_matrices else (k, k)
            u = xp.broadcast_to(xp.eye(m, cols, dtype=a.dtype), batch + (m, cols)).copy()
            vh = xp.broadcast_to(xp.eye(rows, n, dtype=a.dtype), batch + (rows, n)).copy()
            return u, xp.zeros(batch + (k,), dtype=a.dtype), vh
        with _np_quiet(A):
            u, s, vh = xp.linalg.svd(a, full_matrices=full_matrices)
        ctx.u, ctx.s, ctx.vh = u[..., :k], s, vh[..., :k, :]  # the backward sees the reduced factors
        return lapack_layout(u), s, lapack_layout(vh)

    @staticmethod
    def backward(ctx, gU, gS, gVh):
        _no_double_backward("linalg.svd")
        U, S, Vh = _tensors(ctx, gS, "u", "s", "vh")
        k = S.shape[-1]
        gU, gVh = gU[..., :k], gVh[..., :k, :]
        m, n = U.shape[-2], Vh.shape[-1]
        if _unused(gU) and _unused(gVh):  # only S is used: dA = U diag(gS) Vh
            return ((U * gS.unsqueeze(-2)) @ Vh,)
        # gA = U [ (skew(U^T gU) S + S skew(V^T gV)) / E + diag(gS) ] Vh, with E_jk = S_k^2 - S_j^2,
        # and, for a non-square A, the part of gU (gV) outside U's (V's) span.
        def skew(X):
            return X - X.mT
        UtgU, VtgV = skew(U.mT @ gU), skew(Vh @ gVh.mT)
        S2 = S * S
        E = S2.unsqueeze(-2) - S2.unsqueeze(-1) + _eye(k, S)
        core = (UtgU * S.unsqueeze(-2) + S.unsqueeze(-1) * VtgV) / E + gS.diag_embed()
        if m > n:
            gUSinv = gU / S.unsqueeze(-2)
            return ((U @ core + gUSinv - U @ (U.mT @ gUSinv)) @ Vh,)
        if m < n:
            gVSinv_t = (gVh.mT / S.unsqueeze(-2)).mT
            return (U @ (core @ Vh + gVSinv_t - (gVSinv_t @ Vh.mT) @ Vh),)
        return (U @ core @ Vh,)


class Eigh(MultiOutputPrimitive):
    """A = V diag(L) V^T for a symmetric A (only its lower or upper triangle is read)."""
    _node_name = "LinalgEighBackward0"

    @staticmethod
    def forward(ctx, A, *, UPLO):
        xp = A._device.xp
        with _np_quiet(A):
            L, V = xp.linalg.eigh(A._data, UPLO=UPLO)
        ctx.L, ctx.V = L, V
        return L, lapack_layout(V)

    @staticmethod
    def backward(ctx, gL, gV):
        _no_double_backward("linalg.eigh")
        L, V = _tensors(ctx, gL, "L", "V")
        if _unused(gV):  # only the eigenvalues are used
            return ((V * gL.unsqueeze(-2)) @ V.mT,)
        # gA = V [ skew(V^T gV) / 2 / E  with gL on the diagonal ] V^T, E_jk = L_k - L_j
        n = L.shape[-1]
        VtgV = V.mT @ gV
        E = L.unsqueeze(-2) - L.unsqueeze(-1) + _eye(n, L)
        inner = (0.5 * (VtgV - VtgV.mT)) / E
        eye = _eye(n, L) != 0
        inner = inner.where(~eye, gL.diag_embed())
        return (V @ inner @ V.mT,)

    @staticmethod
    def forward_derivative(inputs, outputs, tangents, *, UPLO):
        """Forward-mode AD (autograd/forward_ad.py): with M = V^T dA V, dL = diag(M) and
        dV = V (M / E) off the diagonal, E_jk = L_k - L_j."""
        L, V = outputs
        n = L.shape[-1]
        M = V.mT @ tangents[0] @ V
        E = L.unsqueeze(-2) - L.unsqueeze(-1) + _eye(n, L)
        off = (M / E).where(_eye(n, L) == 0, 0.0)
        return M.diagonal(0, -2, -1), V @ off


class Cholesky(MultiOutputPrimitive):
    """A = L L^T (upper=True: A = U^T U, U = L^T), and LAPACK's info (0, or the order of the first
    leading minor that is not positive-definite)."""
    _node_name = "LinalgCholeskyExBackward0"

    @staticmethod
    def forward(ctx, A, *, upper, op):
        xp = A._device.xp
        # PyTorch reads the upper triangle for upper=True: LAPACK's potrf('U') of A is potrf('L') of A^T
        L, info = cholesky_array(xp, A._data.swapaxes(-1, -2) if upper else A._data)
        if op is not None and bool((info > 0).any()):
            from .linalg import linalg_error
            raise linalg_error(op, info, lambda k: "The factorization could not be completed because the input is "
                               f"not positive-definite (the leading minor of order {k} is not positive-definite).")
        ctx.L, ctx.upper = L, upper
        return lapack_layout(L.swapaxes(-1, -2) if upper else L), info

    @staticmethod
    def backward(ctx, grad, _info):
        _no_double_backward("linalg.cholesky")
        (L,) = _tensors(ctx, grad, "L")
        gL = grad.mT if ctx.upper else grad
        # gA = sym(L^-T Phi(L^T gL) L^-1), Phi: the lower triangle with the diagonal halved
        phi = (L.mT @ gL).tril()
        phi = phi - 0.5 * phi.diagonal(0, -2, -1).diag_embed()
        from .linalg import inv
        Linv = inv(L)
        gA = Linv.mT @ phi @ Linv
        return (0.5 * (gA + gA.mT),)

    @staticmethod
    def forward_derivative(inputs, outputs, tangents, *, upper, op):
        """Forward-mode AD (autograd/forward_ad.py): dL = L Phi(L^-1 dA L^-T), Phi the lower
        triangle with the diagonal halved."""
        from .linalg import solve_triangular
        L = outputs[0].mT if upper else outputs[0]
        dA = tangents[0].mT if upper else tangents[0]
        X = solve_triangular(L, solve_triangular(L, dA, upper=False).mT, upper=False).mT
        dL = L @ (X.tril() - 0.5 * X.diagonal(0, -2, -1).diag_embed())
        return (dL.mT if upper else dL), None


def cholesky_array(xp, a):
    """(L, info) of a batch of matrices, from their lower triangles. Where a leading minor is not
    positive-definite, L is what LAPACK's unblocked potf2 leaves: the columns before it factored,
    that column's diagonal the non-positive value found, the rest of the lower triangle as it was."""
    batch, n = a.shape[:-2], a.shape[-1]
    try:
        return xp.linalg.cholesky(a), xp.zeros(batch, dtype=xp.int32)
    except xp.linalg.LinAlgError:
        pass
    L = xp.tril(a).reshape((-1, n, n))
    info = xp.zeros(L.shape[0], dtype=xp.int32)
    going = xp.ones(L.shape[0], dtype=bool)
    with _np_quiet_all():
        for j in range(n):
            d = L[:, j, j] - (L[:, j, :j] * L[:, j, :j]).sum(-1)
            bad = going & ~(d > 0)  # (a NaN stops it too)
            L[bad, j, j], info[bad] = d[bad], j + 1
            going &= ~bad
            root = xp.sqrt(xp.where(going, d, 1))
            L[going, j, j] = root[going]
            col = (L[:, j + 1:, j] - (L[:, j + 1:, :j] * L[:, None, j, :j]).sum(-1)) / root[:, None]
            L[going, j + 1:, j] = col[going]
    return L.reshape(a.shape), info.reshape(batch)


class Qr(MultiOutputPrimitive):
    """A = Q R, Q with orthonormal columns, R upper triangular."""
    _node_name = "LinalgQrBackward0"

    @staticmethod
    def forward(ctx, A, *, mode):
        xp, a = A._device.xp, A._data
        if a.size == 0 or mode == "r":
            q, r = _qr_numpy(xp, a, "complete" if mode == "complete" else "reduced")
        else:
            q, r = xp.linalg.qr(a, mode=mode)
        ctx.q, ctx.r, ctx.mode = q, r, mode
        if mode == "r":
            return xp.zeros((0,), dtype=a.dtype), lapack_layout(r)
        return lapack_layout(q), lapack_layout(r)

    @staticmethod
    def backward(ctx, gQ, gR):
        _no_double_backward("linalg.qr")
        Q, R = _tensors(ctx, gR, "q", "r")
        m, n = Q.shape[-2], R.shape[-1]
        if ctx.mode == "r":
            raise RuntimeError("The derivative of linalg.qr depends on Q, which is not computed when mode='r'. "
                               "Please use linalg.qr(A, mode='reduced') if you are going to differentiate through "
                               "linalg.qr.")
        if ctx.mode == "complete" and m > n:
            raise RuntimeError("The QR decomposition is not differentiable when mode='complete' and nrows > ncols.")
        if m >= n:
            return (_qr_backward_tall(gQ, gR, Q, R),)
        # A = Q [X | Y] with X = Q U square: Y's gradient is Q gV, and Y moves Q's gradient by Y gV^T
        U, gU, gV = R[..., :m], gR[..., :m], gR[..., m:]
        Y = Q @ R[..., m:]
        gX = _qr_backward_tall(gQ + Y @ gV.mT, gU, Q, U)
        from ._ops.join import cat
        return (cat([gX, Q @ gV], -1),)


def _qr_backward_tall(gQ, gR, Q, R):
    """m >= n: gA = (gQ + Q copyltu(M)) R^-T with M = R gR^T - gQ^T Q, copyltu(M) the symmetric
    matrix whose lower triangle is M's."""
    from .linalg import solve
    M = R @ gR.mT - gQ.mT @ Q
    sym = M.tril() + M.tril(-1).mT
    X = gQ + Q @ sym
    return solve(R, X.mT).mT


def _qr_numpy(xp, a, mode):
    m, n = a.shape[-2:]
    k = min(m, n)
    if a.size == 0:
        batch, cols = a.shape[:-2], m if mode == "complete" else k
        q = xp.broadcast_to(xp.eye(m, cols, dtype=a.dtype), batch + (m, cols)).copy()
        return q, xp.zeros(batch + (cols, n), dtype=a.dtype)
    return xp.linalg.qr(a, mode=mode)


def _pinv_array(xp, a, atol, rtol):
    m, n = a.shape[-2:]
    if a.size == 0:
        return xp.zeros(a.shape[:-2] + (n, m), dtype=a.dtype)
    u, s, vh = xp.linalg.svd(a, full_matrices=False)
    cutoff = xp.maximum(atol, rtol * s[..., :1])
    s_inv = xp.where(s > cutoff, 1 / xp.where(s > cutoff, s, 1), 0).astype(a.dtype)
    return (vh.swapaxes(-1, -2) * s_inv[..., None, :]) @ u.swapaxes(-1, -2)


class Pinv(Primitive):
    """The pseudo-inverse, from the SVD with the singular values below the tolerance dropped."""
    _node_name = "LinalgPinvBackward0"
    saves_output = True

    @staticmethod
    def forward(ctx, A, *, atol, rtol):
        ctx.save_for_backward(A)
        with _np_quiet(A):
            return _pinv_array(A._device.xp, A._data, atol, rtol)

    @staticmethod
    def backward(ctx, grad):
        (A,) = ctx.saved_tensors
        return (_pinv_backward(grad, ctx.saved_output, A),)


class Lstsq(MultiOutputPrimitive):
    """X = A^+ B, the least-squares solution (the minimum-norm one when A is rank deficient), and
    the squared residuals |A X - B|^2 of each column when asked for (else an empty tensor).
    The gradient is PyTorch's: through the pseudo-inverse for X; for a residual r = |e|^2 with
    e = A X - B at the optimum, dr/dA = 2 e X^T and dr/dB = -2 e."""
    _node_name = "LinalgLstsqBackward0"

    @staticmethod
    def forward(ctx, A, B, *, rtol, vector, residuals):
        xp, b = A._device.xp, (B._data[..., None] if vector else B._data)
        with _np_quiet(A):
            P = _pinv_array(xp, A._data, 0.0, rtol)
            X = P @ b
            E = A._data @ X - b
        ctx.P, ctx.X, ctx.E, ctx.b, ctx.vector = P, X, E, b, vector
        ctx.save_for_backward(A)
        res = (E * E).sum(-2) if residuals else xp.zeros((0,), dtype=b.dtype)
        if vector:
            return X[..., 0], res
        # LAPACK writes X over B, in a column-major buffer of max(m, n) rows: X is its first n rows
        m, n = A.shape[-2:]
        buf = xp.zeros(X.shape[:-2] + (X.shape[-1], max(m, n)), dtype=X.dtype)
        buf[..., :n] = X.swapaxes(-1, -2)
        return buf[..., :n].swapaxes(-1, -2), res

    @staticmethod
    def backward(ctx, gX, gRes):
        (A,) = ctx.saved_tensors
        P, X, E, B = _tensors(ctx, gX, "P", "X", "E", "b")
        if ctx.vector:
            gX = gX.unsqueeze(-1)
        gA = _pinv_backward(gX @ B.mT, P, A) if ctx.needs_input_grad[0] else None
        gB = P.mT @ gX
        if gRes.numel() and not _unused(gRes):
            w = 2 * E * gRes.unsqueeze(-2)
            gA = None if gA is None else gA + w @ X.mT
            gB = gB - w
        return gA, (gB.squeeze(-1) if ctx.vector else gB)


def _pinv_backward(grad, P, A):
    """PyTorch's pinv_backward (Golub and Pereyra's derivative of the pseudo-inverse), arranged
    so that the products stay as small as the shorter side of A."""
    m, n = A.shape[-2:]
    Pt, gt = P.mT, grad.mT
    if m <= n:
        K = gt @ P
        KPt = K @ Pt
        return -(P @ K).mT + KPt - (A @ P) @ KPt + (Pt @ P) @ (gt - K @ A)
    K = P @ gt
    PtK = Pt @ K
    return -(K @ P).mT + (gt - A @ K) @ P @ Pt + PtK - PtK @ P @ A


class Slogdet(MultiOutputPrimitive):
    """(sign, log|det A|)."""
    _node_name = "LinalgSlogdetBackward0"

    @staticmethod
    def forward(ctx, A):
        ctx.save_for_backward(A)
        with _np_quiet(A):
            sign, logabs = A._device.xp.linalg.slogdet(A._data)
        return sign.astype(A._data.dtype), logabs.astype(A._data.dtype)

    @staticmethod
    def backward(ctx, g_sign, g_logabs):
        (A,) = ctx.saved_tensors
        from .linalg import inv
        return (g_logabs.unsqueeze(-1).unsqueeze(-1) * inv(A).mT,)  # d log|det A| = A^-T


# ---- triangular solves, LU, the matrix exponential ----------------------------------------------
# NumPy has no triangular solver and no LU: both are the textbook loops below, vectorized over
# the batch (one step per row or column). LAPACK blocks the same arithmetic differently, so the
# results agree with PyTorch's to rounding, not bit for bit.

def triangular_solve_array(xp, a, b, upper, unit=False):
    """X with a X = b for triangular a (only its upper or lower triangle is read; unit: its
    diagonal is taken as ones), by substitution. A zero on the diagonal gives inf / nan, as LAPACK."""
    batch = xp.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a = xp.broadcast_to(a, batch + a.shape[-2:])
    x = xp.broadcast_to(b, batch + b.shape[-2:]).astype(a.dtype, copy=True)
    n = a.shape[-1]
    with _np_quiet_all():
        for i in (range(n - 1, -1, -1) if upper else range(n)):
            done = slice(i + 1, n) if upper else slice(0, i)
            row = x[..., i, :] - (a[..., i, done, None] * x[..., done, :]).sum(-2)
            x[..., i, :] = row if unit else row / a[..., i, i, None]
    return x


def lu_array(xp, a):
    """Partial-pivoting LU of a batch of (m, n) matrices, as LAPACK's getrf: (LU, pivots, info), the
    pivots 1-based row numbers (int32), info the first zero pivot's position (1-based) or 0."""
    m, n = a.shape[-2:]
    k = min(m, n)
    batch = a.shape[:-2]
    lu = a.reshape((math.prod(batch), m, n)).copy()
    rows = xp.arange(lu.shape[0])
    piv = xp.zeros((lu.shape[0], k), dtype=xp.int32)
    info = xp.zeros(lu.shape[0], dtype=xp.int32)
    with _np_quiet_all():
        for j in range(k):
            p = j + xp.argmax(xp.abs(lu[:, j:, j]), axis=-1)  # the first of the largest, as idamax
            piv[:, j] = p + 1
            top = lu[rows, j].copy()
            lu[rows, j] = lu[rows, p]
            lu[rows, p] = top
            d = lu[:, j, j]
            info = xp.where((info == 0) & (d == 0), j + 1, info).astype(xp.int32)
            lu[:, j + 1:, j] = xp.where(d[:, None] != 0, lu[:, j + 1:, j] / xp.where(d == 0, 1, d)[:, None],
                                        lu[:, j + 1:, j])
            lu[:, j + 1:, j + 1:] -= lu[:, j + 1:, j, None] * lu[:, j, None, j + 1:]
    return lu.reshape(a.shape), piv.reshape(batch + (k,)), info.reshape(batch)


def lu_solve_array(xp, lu, P, b):
    """X with A X = b for A = P L U given as packed factors: X = U^-1 L^-1 P^T b."""
    y = triangular_solve_array(xp, lu, P.swapaxes(-1, -2) @ b, upper=False, unit=True)
    return triangular_solve_array(xp, lu, y, upper=True)


def permutation_array(xp, pivots, m, dtype):
    """The permutation matrix P with A = P L U, from getrf's pivots (row j was swapped with row
    pivots[j] - 1, in order)."""
    batch, k = pivots.shape[:-1], pivots.shape[-1]
    flat = pivots.reshape((math.prod(batch), k)).astype(xp.int64) - 1
    perm = xp.broadcast_to(xp.arange(m), (flat.shape[0], m)).copy()
    rows = xp.arange(flat.shape[0])
    for j in range(k):
        p = flat[:, j]
        top = perm[rows, j].copy()
        perm[rows, j] = perm[rows, p]
        perm[rows, p] = top
    P = xp.zeros((flat.shape[0], m, m), dtype=dtype)
    P[rows[:, None], perm, xp.arange(m)] = 1  # row perm[i] of A is row i of L U
    return P.reshape(batch + (m, m))


def _np_quiet_all():
    import numpy
    return numpy.errstate(all="ignore")


class SolveTriangular(Primitive):
    """X = A^-1 B (left) or B A^-1 (right) for triangular A;  dB = A^-T g (g A^-T), and dA is
    -dB X^T (-X^T dB) restricted to A's triangle (and off its diagonal when unitriangular)."""
    _node_name = "LinalgSolveTriangularBackward0"
    saves_output = True

    @staticmethod
    def forward(ctx, A, B, *, upper, left, unitriangular):
        ctx.save_for_backward(A)
        ctx.upper, ctx.left, ctx.unit = upper, left, unitriangular
        xp = A._device.xp
        if left:
            return lapack_layout(triangular_solve_array(xp, A._data, B._data, upper, unitriangular))
        # X A = B  <=>  A^T X^T = B^T, with A^T's triangle the other one
        xt = triangular_solve_array(xp, A._data.swapaxes(-1, -2), B._data.swapaxes(-1, -2), not upper, unitriangular)
        return xt.swapaxes(-1, -2)

    @staticmethod
    def backward(ctx, grad):
        (A,) = ctx.saved_tensors
        X = ctx.saved_output
        from .linalg import solve_triangular
        gB = solve_triangular(A.mT, grad, upper=not ctx.upper, left=ctx.left, unitriangular=ctx.unit)
        gA = None
        if ctx.needs_input_grad[0]:
            gA = -(gB @ X.mT) if ctx.left else -(X.mT @ gB)
            gA = gA.triu(1 if ctx.unit else 0) if ctx.upper else gA.tril(-1 if ctx.unit else 0)
        return gA, gB


class TriangularSolve(MultiOutputPrimitive):
    """The deprecated torch.triangular_solve: (X with op(A) X = b, op(A) = A or A^T, and a copy of A),
    both outputs of one node."""
    _node_name = "TriangularSolveBackward0"

    @staticmethod
    def forward(ctx, b, A, *, upper, transpose, unitriangular):
        ctx.save_for_backward(A)
        ctx.upper, ctx.transpose, ctx.unit = upper, transpose, unitriangular
        xp, a = A._device.xp, A._data
        op_a = a.swapaxes(-1, -2) if transpose else a
        x = triangular_solve_array(xp, op_a, b._data, upper != transpose, unitriangular)
        ctx.x = x
        return lapack_layout(x), lapack_layout(a)

    @staticmethod
    def backward(ctx, gX, gA_copy):
        (A,) = ctx.saved_tensors
        from .linalg import solve_triangular
        X = type(gX)._make(ctx.x, gX._device)
        M = A.mT if ctx.transpose else A
        upper = ctx.upper != ctx.transpose  # the triangle op(A) has
        gb = solve_triangular(M.mT, gX, upper=not upper, unitriangular=ctx.unit)
        gM = -(gb @ X.mT)
        gA = gM.mT if ctx.transpose else gM
        gA = gA.triu(1 if ctx.unit else 0) if ctx.upper else gA.tril(-1 if ctx.unit else 0)
        return gb, gA + gA_copy


def _lu_backward(P, L, U, gL, gU):
    """A = P L U. Square: gA = P L^-T (tril(L^T gL, -1) + triu(gU U^T)) U^-T. A wide A (U = [U1 U2])
    or a tall one (L = [L1; L2]) adds the part of the gradient that the extra columns of U (rows of
    L) carry: PyTorch's linalg_lu_backward."""
    from ._ops.join import cat
    from .linalg import solve_triangular
    m, n = L.shape[-2], U.shape[-1]
    gL, gU = gL.tril(-1), gU.triu()
    if m == n:
        phi = (L.mT @ gL).tril(-1) + (gU @ U.mT).triu()
        inner = solve_triangular(L.mT, phi, upper=True, unitriangular=True)
        return P @ solve_triangular(U.mT, inner, upper=False, left=False)
    if m < n:  # wide: k = m
        U1 = U[..., :, :m]
        phi = solve_triangular(U1.mT, (L.mT @ gL - gU @ U.mT).tril(-1), upper=False, left=False)
        phi = cat([phi + gU[..., :, :m], gU[..., :, m:]], -1)
        return P @ solve_triangular(L.mT, phi, upper=True, unitriangular=True)
    L1 = L[..., :n, :]  # tall: k = n
    phi = solve_triangular(L1.mT, (gU @ U.mT - L.mT @ gL).triu(), upper=True, unitriangular=True)
    phi = cat([phi + gL[..., :n, :], gL[..., n:, :]], -2)
    return P @ solve_triangular(U.mT, phi, upper=False, left=False)


def _eye_rect(m, k, like):
    return type(like)._make(like._device.xp.eye(m, k, dtype=like._data.dtype), like._device)


class LuFactor(Primitive):
    """LU, the packed factors (L below the diagonal, its unit diagonal implied; U on and above)."""
    _node_name = "LinalgLuFactorExBackward0"
    saves_output = True
    reads_input_in_backward = False

    @staticmethod
    def forward(ctx, A, *, lu, P):
        ctx.P = P
        return lu

    @staticmethod
    def backward(ctx, grad):
        LU = ctx.saved_output
        P = type(grad)._make(ctx.P, grad._device)
        m, n = LU.shape[-2:]
        k = min(m, n)
        L = LU[..., :, :k].tril(-1) + _eye_rect(m, k, LU)
        return (_lu_backward(P, L, LU[..., :k, :].triu(), grad[..., :, :k], grad[..., :k, :]),)


class Lu(MultiOutputPrimitive):
    """(L, U) of A = P L U (P is returned beside them, without a gradient)."""
    _node_name = "LinalgLuBackward0"

    @staticmethod
    def forward(ctx, A, *, L, U, P):
        ctx.L, ctx.U, ctx.P = L, U, P
        return L, U

    @staticmethod
    def backward(ctx, gL, gU):
        _no_double_backward("linalg.lu")
        P, L, U = _tensors(ctx, gL, "P", "L", "U")
        return (_lu_backward(P, L, U, gL, gU),)


class LuUnpack(MultiOutputPrimitive):
    """(L, U) from packed LU factors: L = the strict lower part plus ones, U = the upper part."""
    _node_name = "LuUnpackBackward0"

    @staticmethod
    def forward(ctx, LU, *, L, U):
        ctx.k = min(LU.shape[-2:])
        return L, U

    @staticmethod
    def backward(ctx, gL, gU):
        from ._ops.join import cat
        m, n, k = gL.shape[-2], gU.shape[-1], ctx.k
        gL, gU = gL.tril(-1), gU.triu()
        if n > k:  # a wide LU: L is (m, k), its gradient fills LU's first k columns
            gL = cat([gL, gL.new_zeros(gL.shape[:-1] + (n - k,))], -1)
        if m > k:  # a tall LU: U is (k, n), its gradient fills LU's first k rows
            gU = cat([gU, gU.new_zeros(gU.shape[:-2] + (m - k, n))], -2)
        return (gL + gU,)


class LuSolve(Primitive):
    """X with A X = B (or X A = B; adjoint: with A^T) for A = P L U given as packed factors.
    dB is the solve of the transposed system; with dA the solve's gradient for A itself
    (-dB X^T for A X = B), d(LU) = tril(P^T dA U^T, -1) + triu(L^T P^T dA)."""
    _node_name = "LinalgLuSolveBackward0"
    saves_output = True

    @staticmethod
    def forward(ctx, LU, B, *, P, pivots, left, adjoint):
        ctx.save_for_backward(LU)
        ctx.P, ctx.pivots, ctx.left, ctx.adjoint = P, pivots, left, adjoint
        xp, lu = LU._device.xp, LU._data
        b = B._data if left else B._data.swapaxes(-1, -2)
        # left: A X = B; right: X A = B, i.e. A^T X^T = B^T; adjoint swaps A for A^T once more
        transposed = adjoint != (not left)
        if not transposed:  # X = U^-1 L^-1 P^T b
            x = lu_solve_array(xp, lu, P, b)
        else:  # A^T = U^T L^T P^T: X = P L^-T U^-T b
            y = triangular_solve_array(xp, lu.swapaxes(-1, -2), b, upper=False)
            x = P @ triangular_solve_array(xp, lu.swapaxes(-1, -2), y, upper=True, unit=True)
        return lapack_layout(x) if left else xp.ascontiguousarray(x.swapaxes(-1, -2))

    @staticmethod
    def backward(ctx, grad):
        (LU,) = ctx.saved_tensors
        X = ctx.saved_output
        from .linalg import lu_solve
        gB = lu_solve(LU, ctx.pivots, grad, left=ctx.left, adjoint=not ctx.adjoint)
        if not ctx.needs_input_grad[0]:
            return None, gB
        # the gradient for A = P L U of each of the four systems, then its share for L and for U
        if ctx.left:
            gA = -(X @ gB.mT) if ctx.adjoint else -(gB @ X.mT)
        else:
            gA = -(gB.mT @ X) if ctx.adjoint else -(X.mT @ gB)
        n = LU.shape[-1]
        P = type(grad)._make(ctx.P, grad._device)
        L, U = LU.tril(-1) + _eye(n, LU), LU.triu()
        PtgA = P.mT @ gA
        return (PtgA @ U.mT).tril(-1) + (L.mT @ PtgA).triu(), gB


# Pade's [13/13] approximant of exp, and the largest 1-norm it is accurate for (Higham, 2005)
_PADE13 = (64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0, 129060195264000.0,
           10559470521600.0, 670442572800.0, 33522128640.0, 1323241920.0, 40840800.0, 960960.0, 16380.0, 182.0, 1.0)
_THETA13 = 5.371920351148152


def matrix_exp_array(xp, a):
    """exp(A) by scaling and squaring: A / 2^s has a 1-norm the [13/13] Pade approximant is exact
    for (to double rounding); its exponential is then squared s times."""
    n = a.shape[-1]
    if a.size == 0:
        return a.copy()
    with _np_quiet_all():
        norm = xp.abs(a).sum(-2).max(-1)
        s = xp.where(xp.isfinite(norm) & (norm > _THETA13), xp.ceil(xp.log2(norm / _THETA13)), 0).astype(xp.int64)
        a = a / (2.0 ** s)[..., None, None].astype(a.dtype)
        b, eye = _PADE13, xp.eye(n, dtype=a.dtype)
        a2 = a @ a
        a4 = a2 @ a2
        a6 = a4 @ a2
        u = a @ (a6 @ (b[13] * a6 + b[11] * a4 + b[9] * a2) + b[7] * a6 + b[5] * a4 + b[3] * a2 + b[1] * eye)
        v = a6 @ (b[12] * a6 + b[10] * a4 + b[8] * a2) + b[6] * a6 + b[4] * a4 + b[2] * a2 + b[0] * eye
        bad = ~xp.isfinite(a).all(axis=(-2, -1))
        q = xp.where(bad[..., None, None], eye, v - u)
        r = xp.linalg.solve(q, v + u)
        r = xp.where(bad[..., None, None], xp.nan, r)
        for i in range(int(s.max()) if s.size else 0):
            r = xp.where((s > i)[..., None, None], r @ r, r)
    return r.astype(a.dtype, copy=False)


class MatrixExp(Primitive):
    """exp(A);  dA = the upper-right block of exp([[A^T, g], [0, A^T]]) (the Frechet derivative of
    exp at A^T applied to g), itself a matrix_exp, so higher derivatives follow."""
    _node_name = "LinalgMatrixExpBackward0"

    @staticmethod
    def forward(ctx, A):
        ctx.save_for_backward(A)
        return matrix_exp_array(A._device.xp, A._data)

    @staticmethod
    def backward(ctx, grad):
        (A,) = ctx.saved_tensors
        from ._ops.join import cat
        from .linalg import matrix_exp
        n = A.shape[-1]
        At = A.mT.expand(grad.shape)
        block = cat([cat([At, grad], -1), cat([grad * 0, At], -1)], -2)
        return (matrix_exp(block)[..., :n, n:],)


class CholeskySolve(Primitive):
    """X = (L L^T)^-1 B (upper: (U^T U)^-1 B);  dB = cholesky_solve(g, L), and with
    C = dB X^T + X dB^T, dL = -C L (upper: -U C)."""
    _node_name = "CholeskySolveBackward0"
    saves_output = True

    @staticmethod
    def forward(ctx, B, L, *, upper):
        ctx.save_for_backward(L)
        ctx.upper = upper
        xp, l = L._device.xp, L._data
        lower = l.swapaxes(-1, -2) if upper else l
        y = triangular_solve_array(xp, lower, B._data, upper=False)
        return lapack_layout(triangular_solve_array(xp, lower.swapaxes(-1, -2), y, upper=True))

    @staticmethod
    def backward(ctx, grad):
        (L,) = ctx.saved_tensors
        X = ctx.saved_output
        from ._linalg_legacy import cholesky_solve
        gB = cholesky_solve(grad, L, upper=ctx.upper)
        gL = None
        if ctx.needs_input_grad[1]:
            C = gB @ X.mT
            C = C + C.mT
            gL = -(L @ C) if ctx.upper else -(C @ L)
        return gB, gL


class CholeskyInverse(Primitive):
    """(L L^T)^-1 (upper: (U^T U)^-1);  with C = R (g + g^T) R for the result R,
    dL = -C L (upper: -U C)."""
    _node_name = "CholeskyInverseBackward0"
    saves_output = True

    @staticmethod
    def forward(ctx, L, *, upper):
        ctx.save_for_backward(L)
        ctx.upper = upper
        xp, l = L._device.xp, L._data
        diagonal = l.diagonal(0, -2, -1)
        if bool((diagonal == 0).any()):  # LAPACK's potri refuses a zero on the diagonal
            from .linalg import _singular
            raise _singular("cholesky_inverse", ((diagonal == 0).argmax(-1) + 1) * (diagonal == 0).any(-1))
        lower = l.swapaxes(-1, -2) if upper else l
        eye = xp.broadcast_to(xp.eye(l.shape[-1], dtype=l.dtype), l.shape)
        y = triangular_solve_array(xp, lower, eye, upper=False)
        return lapack_layout(triangular_solve_array(xp, lower.swapaxes(-1, -2), y, upper=True))

    @staticmethod
    def backward(ctx, grad):
        (L,) = ctx.saved_tensors
        R = ctx.saved_output
        C = R @ (grad + grad.mT) @ R
        return (-(L @ C) if ctx.upper else -(C @ L),)
