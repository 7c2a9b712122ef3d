"""Helpers the distributions share: parameter broadcasting, the lazy probs <-> logits pair, and
the draws every reparameterised sample starts from."""
from __future__ import annotations

import functools
import math
import numbers

import minitorch as torch

euler_constant = 0.57721566490153286060  # Euler-Mascheroni constant

__all__ = ["broadcast_all", "clamp_probs", "lazy_property", "logits_to_probs", "probs_to_logits",
           "tril_matrix_to_vec", "vec_to_tril_matrix"]


def broadcast_all(*values):
    """The values broadcast against each other as tensors; a Python number becomes a tensor of
    the first tensor's dtype and device (or of the default dtype when all are numbers)."""
    if not all(isinstance(v, (torch.Tensor, numbers.Number)) for v in values):
        raise ValueError("Input arguments must all be instances of Number, "
                         "torch.Tensor or objects implementing __torch_function__.")
    first = next((v for v in values if isinstance(v, torch.Tensor)), None)
    options = (dict(dtype=first.dtype, device=first.device) if first is not None
               else dict(dtype=torch.get_default_dtype()))
    tensors = [v if isinstance(v, torch.Tensor) else torch.tensor(v, **options) for v in values]
    return torch.broadcast_tensors(*tensors)


def _standard_normal(shape, dtype, device):
    # drawn by normal_ into a fresh tensor, as PyTorch does, so seeded samples are PyTorch's
    return torch.empty(shape, dtype=dtype, device=device).normal_()


def _mvlgamma(a, p):
    """log of the multivariate gamma function, log Gamma_p(a) = p (p-1)/4 log pi + sum_j lgamma(a - j/2)
    over j = 0 .. p-1 (torch.mvlgamma, which the Wishart and LKJ normalisers need)."""
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    if not bool((a > 0.5 * (p - 1)).all()):
        raise RuntimeError("All elements must be greater than (p-1)/2")
    args = torch.arange(-p * 0.5 + 0.5, 0.5, 0.5, dtype=a.dtype, device=a.device) + a.unsqueeze(-1)
    return args.lgamma().sum(-1) + p * (p - 1) * math.log(math.pi) / 4


def _sum_rightmost(value, dim):
    """`value` summed over its `dim` rightmost dimensions."""
    if dim == 0:
        return value
    return value.reshape(value.shape[:-dim] + (-1,)).sum(-1)


def logits_to_probs(logits, is_binary=False):
    """Log-odds to probabilities (sigmoid); or, along the last dim, unnormalised log
    probabilities to probabilities (softmax)."""
    if is_binary:
        return torch.sigmoid(logits)
    return torch.nn.functional.softmax(logits, dim=-1)


def clamp_probs(probs):
    """Probabilities clamped into [eps, 1 - eps], so that their logs are finite."""
    eps = torch.finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs, is_binary=False):
    """The inverse of logits_to_probs (log-odds, or log probabilities)."""
    ps = clamp_probs(probs)
    if is_binary:
        return torch.log(ps) - torch.log1p(-ps)
    return torch.log(ps)


class lazy_property:
    """A property computed on first use and then stored on the instance (so `probs` given
    means `logits` is derived only when asked for, and the other way round)."""

    def __init__(self, wrapped):
        self.wrapped = wrapped
        functools.update_wrapper(self, wrapped)

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        with torch.enable_grad():  # the derived parameter stays differentiable under no_grad
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


def _tril_mask(n, diag, device):
    # True on and below the `diag`-th diagonal of an n x n matrix
    arange = torch.arange(n, device=device)
    return arange < arange.view(-1, 1) + (diag + 1)


def tril_matrix_to_vec(mat, diag=0):
    """The entries on and below diagonal `diag` of (a batch of) D x D matrices, in row order."""
    n = mat.shape[-1]
    if diag < -n or diag >= n:
        raise ValueError(f"diag ({diag}) provided is outside [{-n}, {n - 1}].")
    return mat[..., _tril_mask(n, diag, mat.device)]


def vec_to_tril_matrix(vec, diag=0):
    """The inverse of tril_matrix_to_vec: vectors laid out, in row order, on and below diagonal
    `diag` of D x D matrices (zeros elsewhere)."""
    # D is the positive root of D^2 + (1 + 2 diag) D - |diag| (diag + 1) - 2 len(vec) = 0
    n = (-(1 + 2 * diag) + ((1 + 2 * diag) ** 2 + 8 * vec.shape[-1] + 4 * abs(diag) * (diag + 1)) ** 0.5) / 2
    eps = torch.finfo(vec.dtype).eps
    if round(n) - n > eps:
        raise ValueError(f"The size of last dimension is {vec.shape[-1]} which cannot be expressed as "
                         "the lower triangular part of a square D x D matrix.")
    n = round(n)
    mat = vec.new_zeros(vec.shape[:-1] + torch.Size((n, n)))
    mat[..., _tril_mask(n, diag, vec.device)] = vec
    return mat
