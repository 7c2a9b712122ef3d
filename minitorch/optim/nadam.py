"""NAdam: Adam with Nesterov momentum (a momentum schedule mu_t = beta1 (1 - 0.5 * 0.96^(t psi))).

    m, v as in Adam;  denom = sqrt(v / (1 - beta2^t)) + eps
    p = p - lr (1 - mu_t) / (1 - prod mu_1..t) * g / denom
          - lr mu_(t+1) / (1 - prod mu_1..t+1) * m / denom
"""
from __future__ import annotations

from .._factories import zeros_like
from ..autograd.grad_mode import no_grad
from .adam import check_adam_args
from .optimizer import Optimizer, addcdiv_, addcmul_, lerp_, scalar_state


class NAdam(Optimizer):
    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, momentum_decay=4e-3,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False):
        check_adam_args(lr, betas, eps, weight_decay)
        if not 0.0 <= momentum_decay:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        defaults = dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay,
                        momentum_decay=momentum_decay, decoupled_weight_decay=decoupled_weight_decay,
                        maximize=maximize, foreach=foreach, capturable=capturable, differentiable=differentiable)
        super().__init__(params, defaults)

    def step(self, closure=None):
        loss = self._closure_loss(closure)
        with no_grad():
            for group in self.param_groups:
                (beta1, beta2), lr, eps = group["betas"], group["lr"], group["eps"]
                wd, psi = group["weight_decay"], group["momentum_decay"]
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    grad = -p.grad if group["maximize"] else p.grad
                    state = self.state[p]
                    if len(state) == 0:
                        state["step"] = scalar_state()
                        state["mu_product"] = scalar_state(1.0)
                        state["exp_avg"] = zeros_like(p)
                        state["exp_avg_sq"] = zeros_like(p)
                    state["step"].add_(1)
                    step = state["step"].item()
                    bias_correction2 = 1 - beta2 ** step
                    if wd != 0:
                        if group["decoupled_weight_decay"]:
                            p.mul_(1 - lr * wd)
                        else:
                            grad = grad.add(p, alpha=wd)
                    mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * psi)))
                    mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * psi)))
                    mu_product = state["mu_product"].mul_(mu).item()
                    lerp_(state["exp_avg"], grad, 1 - beta1)
                    addcmul_(state["exp_avg_sq"].mul_(beta2), grad, grad, 1 - beta2)
                    denom = state["exp_avg_sq"].div(bias_correction2).sqrt().add_(eps)
                    addcdiv_(p, grad, denom, -lr * (1.0 - mu) / (1.0 - mu_product))
                    addcdiv_(p, state["exp_avg"], denom, (-lr * mu_next) / (1.0 - mu_product * mu_next))
        return loss
