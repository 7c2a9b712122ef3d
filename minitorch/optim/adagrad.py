"""Adagrad: each weight's step shrinks with the sum of its squared gradients so far.

For each parameter p with gradient g, at step t (in place, on the backend arrays: `adagrad_update`),
PyTorch's rules:

    g   = g + weight_decay * p
    clr = lr / (1 + (t - 1) * lr_decay)
    s   = s + g^2                               (s starts at initial_accumulator_value)
    p   = p - clr * g / (sqrt(s) + eps)
"""
from __future__ import annotations

from .._factories import full_like
from .optimizer import Optimizer, addcdiv_, addcmul_, arrays_with_grad, scalar_state, written


class Adagrad(Optimizer):
    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0, eps=1e-10,
                 foreach=None, *, maximize=False, differentiable=False, fused=None):
        for name, v in (("learning rate", lr), ("lr_decay value", lr_decay), ("weight_decay value", weight_decay),
                        ("initial_accumulator_value value", initial_accumulator_value), ("epsilon value", eps)):
            if not 0.0 <= v:
                raise ValueError(f"Invalid {name}: {v}")
        defaults = dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                        initial_accumulator_value=initial_accumulator_value, foreach=foreach, maximize=maximize,
                        differentiable=differentiable, fused=fused)
        super().__init__(params, defaults)
        for group in self.param_groups:  # PyTorch creates Adagrad's state up front
            for p in group["params"]:
                self.state[p]["step"] = scalar_state()
                self.state[p]["sum"] = full_like(p, group["initial_accumulator_value"])

    def step(self, closure=None):
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            hyper = {k: group[k] for k in ("lr", "lr_decay", "weight_decay", "eps", "maximize")}
            for p, a, g in arrays_with_grad(group):
                state = self.state[p]
                adagrad_update(p._device.xp, a, g, state["step"]._data, state["sum"]._data, **hyper)
                written(p, state["step"], state["sum"])
        return loss


def adagrad_update(xp, p, g, step, total, *, lr, lr_decay, weight_decay, eps, maximize):
    """Adagrad's rule for one parameter, on backend arrays of module `xp`: p, the step count and
    the sum of squared gradients updated in place, the gradient g only read."""
    if maximize:
        g = -g
    step += 1
    if weight_decay != 0:
        g = g + p * weight_decay
    clr = lr / (1 + (float(step) - 1) * lr_decay)
    addcmul_(total, g, g, 1)
    addcdiv_(p, g, xp.sqrt(total) + eps, -clr)
