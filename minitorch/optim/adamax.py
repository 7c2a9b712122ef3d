"""Adamax: Adam with the infinity norm in place of the second moment.

    m = beta1 * m + (1 - beta1) * g;   u = max(beta2 * u, |g| + eps)
    p = p - lr / (1 - beta1^t) * m / u
"""
from __future__ import annotations

from .._factories import zeros_like
from ..autograd.grad_mode import no_grad
from .adam import check_adam_args
from .optimizer import Optimizer, addcdiv_, lerp_, scalar_state


class Adamax(Optimizer):
    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, foreach=None, *,
                 maximize=False, differentiable=False, capturable=False):
        check_adam_args(lr, betas, eps, weight_decay)
        defaults = dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay, foreach=foreach,
                        maximize=maximize, differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    def step(self, closure=None):
        loss = self._closure_loss(closure)
        with no_grad():
            for group in self.param_groups:
                (beta1, beta2), eps = group["betas"], group["eps"]
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    grad = -p.grad if group["maximize"] else p.grad
                    state = self.state[p]
                    if len(state) == 0:
                        state["step"] = scalar_state()
                        state["exp_avg"] = zeros_like(p)
                        state["exp_inf"] = zeros_like(p)
                    state["step"].add_(1)
                    if group["weight_decay"] != 0:
                        grad = grad.add(p, alpha=group["weight_decay"])
                    lerp_(state["exp_avg"], grad, 1 - beta1)
                    exp_inf = state["exp_inf"]
                    exp_inf.copy_(exp_inf.mul_(beta2).maximum(grad.abs().add_(eps)))
                    clr = group["lr"] / (1 - beta1 ** state["step"].item())
                    addcdiv_(p, state["exp_avg"], exp_inf, -clr)
        return loss
