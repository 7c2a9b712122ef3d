"""Gradient clipping: scale (or clamp) the gradients in place before optimizer.step(), so one
huge gradient can't throw the parameters far away.

    total = || (||g_1||, ||g_2||, ...) ||          the norm of all gradients as one vector
    g_i  *= min(1, max_norm / (total + 1e-6))      (clip_grad_norm_, returns total)
    g_i   = clamp(g_i, -clip_value, clip_value)    (clip_grad_value_)
"""
from __future__ import annotations

import math
import warnings

from ..._factories import tensor
from ..._ops.join import stack
from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad


def _as_list(tensors):
    return [tensors] if isinstance(tensors, Tensor) else list(tensors)


def _norm(t, p):
    return t.abs().max() if math.isinf(p) and p > 0 else t.norm(p)


def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The norm of the norms of `tensors` (the norm of all of them concatenated)."""
    tensors = _as_list(tensors)
    norm_type = float(norm_type)
    if not tensors:
        return tensor(0.0)
    with no_grad():
        first = tensors[0].device
        total = _norm(stack([_norm(t, norm_type).to(first) for t in tensors]), norm_type)
    if error_if_nonfinite and bool(total.isnan() | total.isinf()):
        raise RuntimeError(f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so "
                           "it cannot be clipped. To disable this error and scale the gradients by the non-finite "
                           "norm anyway, set `error_if_nonfinite=False`")
    return total


def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    """Scale the gradients by min(1, max_norm / (total_norm + 1e-6)), in place."""
    grads = [p.grad for p in _as_list(parameters) if p.grad is not None]
    if not grads:
        return
    with no_grad():
        coef = (float(max_norm) / (total_norm + 1e-6)).clamp(max=1.0)
        for g in grads:  # multiplied even when coef is 1, as PyTorch does (no host sync to test it)
            g.mul_(coef.to(g.device))


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Scale all gradients together so their total norm is at most max_norm; returns the total
    norm from before clipping."""
    generator = not isinstance(parameters, (Tensor, list, tuple)) and hasattr(parameters, "__next__")
    parameters = _as_list(parameters)
    if generator and not parameters:
        warnings.warn("`parameters` is an empty generator, no gradient clipping will occur.", stacklevel=3)
    grads = [p.grad for p in parameters if p.grad is not None]
    total = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total, foreach)
    return total


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of `torch.nn.utils.clip_grad_norm_`.",
                  FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamp every gradient element into [-clip_value, clip_value], in place."""
    clip_value = float(clip_value)
    with no_grad():
        for p in _as_list(parameters):
            if p.grad is not None:
                p.grad.clamp_(min=-clip_value, max=clip_value)
