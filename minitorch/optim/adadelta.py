"""Adadelta: steps scaled by the ratio of running RMS of past updates to that of gradients.

    g = g + weight_decay * p
    v = rho * v + (1 - rho) * g^2
    delta = sqrt(u + eps) / sqrt(v + eps) * g
    u = rho * u + (1 - rho) * delta^2
    p = p - lr * delta
"""
from __future__ import annotations

from .._factories import zeros_like
from ..autograd.grad_mode import no_grad
from .optimizer import Optimizer, addcmul_, scalar_state


class Adadelta(Optimizer):
    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *, capturable=False,
                 maximize=False, differentiable=False):
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize,
                        capturable=capturable, foreach=foreach, differentiable=differentiable)
        super().__init__(params, defaults)

    def step(self, closure=None):
        loss = self._closure_loss(closure)
        with no_grad():
            for group in self.param_groups:
                rho, eps = group["rho"], group["eps"]
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    grad = -p.grad if group["maximize"] else p.grad
                    state = self.state[p]
                    if len(state) == 0:
                        state["step"] = scalar_state()
                        state["square_avg"] = zeros_like(p)
                        state["acc_delta"] = zeros_like(p)
                    state["step"].add_(1)
                    if group["weight_decay"] != 0:
                        grad = grad.add(p, alpha=group["weight_decay"])
                    square_avg = addcmul_(state["square_avg"].mul_(rho), grad, grad, 1 - rho)
                    std = square_avg.add(eps).sqrt_()
                    delta = state["acc_delta"].add(eps).sqrt_().div_(std).mul_(grad)
                    addcmul_(state["acc_delta"].mul_(rho), delta, delta, 1 - rho)
                    p.add_(delta, alpha=-group["lr"])
        return loss
