"""Stochastic gradient descent, with PyTorch's exact momentum / Nesterov / weight-decay rules.

For each parameter p with gradient g (all in place, on the backend arrays: `sgd_update`):

    g = g + weight_decay * p                         (L2 penalty, if weight_decay != 0)
    b = g                        on the first step   (momentum buffer, if momentum != 0)
    b = momentum * b + (1 - dampening) * g           afterwards
    g = g + momentum * b  (nesterov)   or   g = b
    p = p - lr * g
"""
from __future__ import annotations

from .. import parts as _parts
from .._tensor import Tensor
from .optimizer import Optimizer, arrays_with_grad, written


class SGD(Optimizer):
    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, *,
                 maximize=False, foreach=None, differentiable=False, fused=None):
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                        nesterov=nesterov, maximize=maximize, foreach=foreach, differentiable=differentiable,
                        fused=fused)
        super().__init__(params, defaults)

    def step(self, closure=None):
        """One update of every parameter that has a gradient; returns closure()'s loss if given."""
        if _parts.sgd_step is not None:  # a course part (minitorch/parts.py)
            return _parts.sgd_step(self, closure)
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            hyper = {k: group[k] for k in ("lr", "momentum", "dampening", "weight_decay", "nesterov", "maximize")}
            for p, a, g in arrays_with_grad(group):
                state = self.state[p] if group["momentum"] != 0 else None
                buf = state.get("momentum_buffer") if state is not None else None
                new_buf = sgd_update(a, g, None if buf is None else buf._data, **hyper)
                written(p)
                if buf is not None:
                    written(buf)
                elif new_buf is not None:  # the first step makes the buffer
                    state["momentum_buffer"] = Tensor._make(new_buf, p._device)
        return loss


def sgd_update(p, g, buf, *, lr, momentum, dampening, weight_decay, nesterov, maximize):
    """SGD's rule for one parameter, on its backend arrays: p (updated in place), its gradient g
    (only read), the momentum buffer buf (updated in place; None before the first step).
    Returns the buffer (a new one on the first step), or None without momentum."""
    if maximize:
        g = -g
    if weight_decay != 0:
        g = g + p * weight_decay
    if momentum != 0:
        if buf is None:
            buf = g.copy(order="K")
        else:
            buf *= momentum
            buf += g * (1 - dampening)
        g = g + buf * momentum if nesterov else buf
    p += g * -lr
    return buf if momentum != 0 else None
