"""The matrix decompositions of torch.linalg: svd, eigh, qr, cholesky, and what is built on them
(lstsq, pinv, slogdet).

Each is one primitive: the forward is one call into the backend's LAPACK (NumPy's or CuPy's), the
backward is PyTorch's formula written in Tensor ops. The formulas hold for distinct singular values
(eigenvalues): where two coincide the decomposition is not differentiable, and the division by
their difference gives inf or nan, as in PyTorch.

Singular vectors and eigenvectors are unique only up to sign: NumPy's LAPACK and PyTorch's may pick
different signs for the same matrix (README, Differences from PyTorch). Products that do not depend
on the sign (U S Vh, projections, pinv, lstsq) agree.
"""
from __future__ import annotations

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
        return u, s, vh

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
        return L, V

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


class Cholesky(Primitive):
    """A = L L^T (upper=True: A = U^T U, U = L^T)."""
    _node_name = "LinalgCholeskyExBackward0"

    @staticmethod
    def forward(ctx, A, *, upper):
        xp = A._device.xp
        try:
            L = xp.linalg.cholesky(A._data)
        except xp.linalg.LinAlgError:
            raise _not_positive_definite(A) from None
        ctx.L, ctx.upper = L, upper
        return L.swapaxes(-1, -2).copy() if upper else L

    @staticmethod
    def backward(ctx, grad):
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


def first_bad_minor(A):
    """The order of the first leading minor of A that is not positive definite, as LAPACK reports
    it (0 when A is positive definite)."""
    xp, a = A._device.xp, A._data
    for k in range(1, a.shape[-1] + 1):
        try:
            xp.linalg.cholesky(a[..., :k, :k])
        except xp.linalg.LinAlgError:
            return k
    return 0


def _not_positive_definite(A):
    from .linalg import LinAlgError
    return LinAlgError(f"linalg.cholesky: The factorization could not be completed because the input is not "
                       f"positive-definite (the leading minor of order {max(first_bad_minor(A), 1)} is not "
                       "positive-definite).")


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
            return xp.zeros((0,), dtype=a.dtype), r
        return q, r

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
        return (X[..., 0] if vector else X), res

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
