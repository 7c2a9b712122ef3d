"""Adam (and AdamW), with PyTorch's exact update rules, bias correction included.

For each parameter p with gradient g, at step t = 1, 2, ... (all in place, under no_grad):

    g  = g + weight_decay * p             (Adam's L2 penalty; AdamW instead decays p directly:
                                           p = p * (1 - lr * weight_decay))
    m  = beta1 * m + (1 - beta1) * g      (first moment: a running mean of gradients)
    v  = beta2 * v + (1 - beta2) * g^2    (second moment: a running mean of squared gradients)
    v_max = max(v_max, v)                 (amsgrad only; then v_max replaces v below)
    m_hat = m / (1 - beta1^t)             (bias correction: m and v start at 0)
    p  = p - lr * m_hat / (sqrt(v / (1 - beta2^t)) + eps)
"""
from __future__ import annotations

from .._factories import zeros_like
from ..autograd.grad_mode import no_grad
from .optimizer import Optimizer, addcdiv_, addcmul_, lerp_, scalar_state


def check_adam_args(lr, betas, eps, weight_decay):
    if not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")
    if not 0.0 <= eps:
        raise ValueError(f"Invalid epsilon value: {eps}")
    if not 0.0 <= betas[0] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
    if not 0.0 <= betas[1] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
    if not 0.0 <= weight_decay:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")


class Adam(Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
                 foreach=None, maximize=False, capturable=False, differentiable=False, fused=None,
                 decoupled_weight_decay=False):
        check_adam_args(lr, betas, eps, weight_decay)
        defaults = dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
                        maximize=maximize, foreach=foreach, capturable=capturable, differentiable=differentiable,
                        fused=fused, decoupled_weight_decay=decoupled_weight_decay)
        super().__init__(params, defaults)

    def step(self, closure=None):
        """One update of every parameter that has a gradient; returns closure()'s loss if given."""
        loss = self._closure_loss(closure)
        with no_grad():
            for group in self.param_groups:
                beta1, beta2 = group["betas"]
                lr, eps, wd, amsgrad = group["lr"], group["eps"], group["weight_decay"], group["amsgrad"]
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    grad = -p.grad if group["maximize"] else p.grad
                    state = self.state[p]
                    if len(state) == 0:
                        state["step"] = scalar_state()
                        state["exp_avg"] = zeros_like(p)
                        state["exp_avg_sq"] = zeros_like(p)
                        if amsgrad:
                            state["max_exp_avg_sq"] = zeros_like(p)
                    exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
                    state["step"].add_(1)
                    step = state["step"].item()
                    if wd != 0:
                        if group["decoupled_weight_decay"]:
                            p.mul_(1 - lr * wd)
                        else:
                            grad = grad.add(p, alpha=wd)
                    lerp_(exp_avg, grad, 1 - beta1)
                    addcmul_(exp_avg_sq.mul_(beta2), grad, grad, 1 - beta2)
                    step_size = lr / (1 - beta1 ** step)
                    bias_correction2_sqrt = (1 - beta2 ** step) ** 0.5
                    if amsgrad:
                        max_sq = state["max_exp_avg_sq"]
                        max_sq.copy_(max_sq.maximum(exp_avg_sq))
                        denom = (max_sq.sqrt() / bias_correction2_sqrt).add_(eps)
                    else:
                        denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
                    addcdiv_(p, exp_avg, denom, -step_size)
        return loss


class AdamW(Adam):
    """Adam with decoupled weight decay (p shrinks by lr * weight_decay each step)."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
                 maximize=False, foreach=None, capturable=False, differentiable=False, fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach, maximize=maximize,
                         capturable=capturable, differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)
