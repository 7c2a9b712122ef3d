"""Ready-made parametrizations (see nn.utils.parametrize): weight_norm, spectral_norm and
orthogonal, each registered on a module's tensor (its weight, by default).

    weight_norm(layer)     weight = g * v / ||v||          stored: original0 = g, original1 = v
    spectral_norm(layer)   weight = W / sigma_max(W)       stored: original = W, buffers _u, _v
    orthogonal(layer)      weight has orthonormal rows or columns (Q^T Q = I)

orthogonal maps an unconstrained stored matrix X to an orthogonal one: "matrix_exp" (the
default for square matrices) takes exp(A) of the skew-symmetric A = tril(X) - tril(X)^T,
"cayley" (I - A/2)^-1 (I + A/2), and "householder" (the default for others) the product of the
reflections I - tau v v^T given by the columns v of X below the diagonal. With
use_trivialization=True (the default) the result is also multiplied by a fixed orthogonal
`base` (a buffer) that starts as the layer's initial weight made orthogonal.
"""
from __future__ import annotations

import math

from ... import _factories
from ..._ops.join import cat
from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from ... import linalg
from .. import functional as F
from ..module import Module
from . import parametrize
from .weight_norm import _weight_norm, norm_except_dim

__all__ = ["orthogonal", "spectral_norm", "weight_norm"]


# ---- orthogonal ----------------------------------------------------------------------------------

def _matrix_exp(A):
    """exp(A) by scaling and squaring: exp(A) = exp(A / 2^s)^(2^s), with exp(A / 2^s) from its
    Taylor series, which converges fast once ||A / 2^s|| <= 1/2 (18 terms leave an error below
    1e-22). Made of matmuls, so autograd differentiates it."""
    n = A.shape[-1]
    size = float(A.detach().abs().sum(-2).max()) if A.numel() else 0.0
    s = max(0, math.ceil(math.log2(size / 0.5))) if size > 0.5 else 0
    X = A / (2 ** s)
    eye = _factories.eye(n, dtype=A.dtype, device=A.device)
    E = eye
    for k in range(18, 0, -1):  # Horner: I + X/1 (I + X/2 (I + X/3 (...)))
        E = eye + (X @ E) / k
    for _ in range(s):
        E = E @ E
    return E


def _householder_product(A, tau):
    """The first k columns of H_1 H_2 ... H_k, H_i = I - tau_i v_i v_i^T, where v_i is column i of A
    with 1 on the diagonal and 0 above it (LAPACK's orgqr, as torch.linalg.householder_product)."""
    n, k = A.shape[-2], A.shape[-1]
    V = A.tril(-1) + _factories.eye(n, k, dtype=A.dtype, device=A.device)
    Q = _factories.eye(n, dtype=A.dtype, device=A.device).expand(*A.shape[:-2], n, n)
    for i in range(k):
        v = V[..., :, i:i + 1]  # (..., n, 1)
        Q = Q - (Q @ v) @ (tau[..., i:i + 1, None] * v).mT
    return Q[..., :k]


def _make_orthogonal(A):
    """Q of A = QR, its columns' signs chosen so that R has a positive diagonal."""
    Q, R = linalg.qr(A)
    return Q * R.diagonal(dim1=-2, dim2=-1).sgn().unsqueeze(-2)


def _geqrf(A):
    """LAPACK's geqrf: R on and above the diagonal, the Householder vectors below it, and tau."""
    xp = A._device.xp
    data = A._data.reshape(-1, *A.shape[-2:])
    hs, taus = zip(*(xp.linalg.qr(m, mode="raw") for m in data))  # raw: geqrf's output, transposed
    h = xp.stack([m.T for m in hs]).reshape(A.shape)
    tau = xp.stack(taus).reshape(*A.shape[:-2], -1)
    return Tensor._make(xp.ascontiguousarray(h), A._device), Tensor._make(tau, A._device)


def _is_orthogonal(Q):
    n, k = Q.shape[-2], Q.shape[-1]
    eye = _factories.eye(k, dtype=Q.dtype, device=Q.device)
    from ..._typeinfo import finfo
    return bool((Q.mH @ Q).allclose(eye, atol=10.0 * n * finfo(Q.dtype).eps))


_MAPS = ("matrix_exp", "cayley", "householder")


class _Orthogonal(Module):
    def __init__(self, weight, orthogonal_map, *, use_trivialization=True):
        super().__init__()
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X):
        n, k = X.shape[-2], X.shape[-1]
        transposed = n < k
        if transposed:  # work on the tall version
            X = X.mT
            n, k = k, n
        if self.orthogonal_map in ("matrix_exp", "cayley"):
            X = X.tril()
            if n != k:  # pad to square with zeros
                X = cat([X, X.new_zeros(n, n - k).expand(*X.shape[:-2], -1, -1)], dim=-1)
            A = X - X.mH  # skew-symmetric, so exp(A) and the Cayley map of A are orthogonal
            if self.orthogonal_map == "matrix_exp":
                Q = _matrix_exp(A)
            else:
                eye = _factories.eye(n, dtype=A.dtype, device=A.device)
                Q = linalg.solve(eye - 0.5 * A, eye + 0.5 * A)
            if n != k:
                Q = Q[..., :k]
        else:
            A = X.tril(diagonal=-1)
            tau = 2.0 / (1.0 + (A * A).sum(dim=-2))
            Q = _householder_product(A, tau)
            Q = Q * X.diagonal(dim1=-2, dim2=-1).int().unsqueeze(-2)  # (the diagonal of X picks each sign)
        if hasattr(self, "base"):
            Q = self.base @ Q
        return Q.mT if transposed else Q

    def right_inverse(self, Q):
        with no_grad():
            if Q.shape != self.shape:
                raise ValueError(f"Expected a matrix or batch of matrices of shape {self.shape}. Got a tensor of "
                                 f"shape {Q.shape}.")
            Q_init = Q
            n, k = Q.shape[-2], Q.shape[-1]
            transpose = n < k
            if transpose:
                Q = Q.mT
                n, k = k, n
            if not hasattr(self, "base"):
                if self.orthogonal_map in ("cayley", "matrix_exp"):
                    raise NotImplementedError("It is not possible to assign to the matrix exponential or the Cayley "
                                              "parametrizations when use_trivialization=False.")
                A, tau = _geqrf(Q)  # the householder map of A gives back Q, up to the signs set here
                diag = A.diagonal(dim1=-2, dim2=-1)
                diag.sign_()
                diag[tau == 0.0] *= -1
                return A.mT if transpose else A
            if n == k:
                Q = Q.clone() if _is_orthogonal(Q) else _make_orthogonal(Q)
            else:  # complete the columns to a square orthogonal matrix with random ones
                N = _factories.randn(*(tuple(Q.shape[:-2]) + (n, n - k)), dtype=Q.dtype, device=Q.device)
                Q = _make_orthogonal(cat([Q, N], dim=-1))
            self.base = Q
            neg_Id = _factories.zeros_like(Q_init)  # the stored X for which the map gives the identity
            neg_Id.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
            return neg_Id


def orthogonal(module, name="weight", orthogonal_map=None, *, use_trivialization=True):
    """Make module.<name> an orthogonal matrix (or batch of them) at all times; returns the module."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.ndim < 2:
        raise ValueError(f"Expected a matrix or batch of matrices. Got a tensor of {weight.ndim} dimensions.")
    if orthogonal_map is None:
        orthogonal_map = "matrix_exp" if weight.shape[-2] == weight.shape[-1] or weight.is_complex() else "householder"
    if orthogonal_map not in _MAPS:
        raise ValueError(f'orthogonal_map has to be one of "matrix_exp", "cayley", "householder". Got: '
                         f"{orthogonal_map}")
    orth = _Orthogonal(weight, orthogonal_map, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module


# ---- weight norm ---------------------------------------------------------------------------------

class _WeightNorm(Module):
    def __init__(self, dim=0):
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g, weight_v):
        return _weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight):
        return norm_except_dim(weight, 2, self.dim), weight  # (g, v): stored as original0, original1


def weight_norm(module, name="weight", dim=0):
    """module.<name> = g * v / ||v|| (||v|| over every dim but dim), g and v trained; returns the module.
    A state_dict of the old nn.utils.weight_norm (<name>_g, <name>_v) still loads."""
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)

    def _weight_norm_compat_hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                 error_msgs):
        g_key, v_key = f"{prefix}{name}_g", f"{prefix}{name}_v"
        if g_key in state_dict and v_key in state_dict:
            state_dict[f"{prefix}parametrizations.{name}.original0"] = state_dict.pop(g_key)
            state_dict[f"{prefix}parametrizations.{name}.original1"] = state_dict.pop(v_key)

    module._register_load_state_dict_pre_hook(_weight_norm_compat_hook)
    return module


# ---- spectral norm -------------------------------------------------------------------------------

class _SpectralNorm(Module):
    """weight / sigma, sigma estimated by power iteration (u and v kept as buffers, one step
    per training forward); a 1-D weight is just normalised."""

    def __init__(self, weight, n_power_iterations=1, dim=0, eps=1e-12):
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of [-{ndim}, {ndim - 1}] but got "
                             f"{dim})")
        if n_power_iterations <= 0:
            raise ValueError(f"Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            weight_mat = self._reshape_weight_to_matrix(weight)
            h, w = weight_mat.shape
            u = weight_mat.new_empty(h).normal_(0, 1)
            v = weight_mat.new_empty(w).normal_(0, 1)
            self.register_buffer("_u", F.normalize(u, dim=0, eps=self.eps))
            self.register_buffer("_v", F.normalize(v, dim=0, eps=self.eps))
            self._power_method(weight_mat, 15)  # start from a good estimate

    def _reshape_weight_to_matrix(self, weight):
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.ndim) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, weight_mat, n_power_iterations):
        with no_grad():  # u and v are updated in place (the buffers)
            for _ in range(n_power_iterations):
                self._u.copy_(F.normalize(weight_mat.mv(self._v), dim=0, eps=self.eps))
                self._v.copy_(F.normalize(weight_mat.mH.mv(self._u), dim=0, eps=self.eps))

    def forward(self, weight):
        if weight.ndim == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        u, v = self._u.clone(), self._v.clone()  # (the next step must not change what backward reads)
        sigma = u.vdot(weight_mat.mv(v))
        return weight / sigma

    def right_inverse(self, value):
        return value  # the stored weight is the unnormalised one; u and v carry on from where they are


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """module.<name> = W / sigma_max(W) at every read; returns the module. dim: the output dim
    (0, or 1 for the transposed convolutions)."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        from ..conv import ConvTranspose1d, ConvTranspose2d
        dim = 1 if isinstance(module, (ConvTranspose1d, ConvTranspose2d)) else 0
    parametrize.register_parametrization(module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module
