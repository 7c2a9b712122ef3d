"""Adagrad: each weight's step shrinks with the sum of its squared gradients so far.

For each parameter p with gradient g, at step t (in place, under no_grad), PyTorch's rules:

    g   = g + weight_decay * p
    clr = lr / (1 + (t - 1) * lr_decay)
    s   = s + g^2                               (s starts at initial_accumulator_value)
    p   = p - clr * g / (sqrt(s) + eps)
"""
from __future__ import annotations

from .._factories import full_like
from ..autograd.grad_mode import no_grad
from .optimizer import Optimizer, addcdiv_, addcmul_, scalar_state


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
        with no_grad():
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    grad = -p.grad if group["maximize"] else p.grad
                    state = self.state[p]
                    state["step"].add_(1)
                    step = state["step"].item()
                    if group["weight_decay"] != 0:
                        grad = grad.add(p, alpha=group["weight_decay"])
                    clr = group["lr"] / (1 + (step - 1) * group["lr_decay"])
                    total = addcmul_(state["sum"], grad, grad, 1)
                    addcdiv_(p, grad, total.sqrt().add_(group["eps"]), -clr)
        return loss
