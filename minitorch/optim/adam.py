"""Adam (and AdamW), with PyTorch's exact update rules, bias correction included.

For each parameter p with gradient g, at step t = 1, 2, ... (all in place, on the backend
arrays: `adam_update`):

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
from .. import parts as _parts
from ..autograd.grad_mode import no_grad
from .optimizer import Optimizer, addcdiv_, addcmul_, arrays_with_grad, lerp_, scalar_state, written


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
        if _parts.adam_step is not None:  # a course part (minitorch/parts.py)
            return _parts.adam_step(self, closure)
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            hyper = dict(beta1=beta1, beta2=beta2, lr=group["lr"], eps=group["eps"], weight_decay=group["weight_decay"],
                         maximize=group["maximize"], decoupled_weight_decay=group["decoupled_weight_decay"])
            for p, a, g in arrays_with_grad(group):
                state = self.state[p]
                if len(state) == 0:
                    with no_grad():
                        state["step"] = scalar_state()
                        state["exp_avg"] = zeros_like(p)
                        state["exp_avg_sq"] = zeros_like(p)
                        if group["amsgrad"]:
                            state["max_exp_avg_sq"] = zeros_like(p)
                tensors = [state[k] for k in ("step", "exp_avg", "exp_avg_sq", "max_exp_avg_sq") if k in state]
                max_sq = state["max_exp_avg_sq"]._data if group["amsgrad"] else None
                adam_update(p._device.xp, a, g, *(t._data for t in tensors[:3]), max_sq, **hyper)
                written(p, *tensors)
        return loss


def adam_update(xp, p, g, step, exp_avg, exp_avg_sq, max_exp_avg_sq, *, beta1, beta2, lr, eps, weight_decay,
                maximize, decoupled_weight_decay):
    """Adam's rule for one parameter, on backend arrays of module `xp`: p, the step count (0-d)
    and the moments are updated in place, the gradient g only read. max_exp_avg_sq: amsgrad's
    running maximum, or None."""
    if maximize:
        g = -g
    step += 1
    t = float(step)
    if weight_decay != 0:
        if decoupled_weight_decay:
            p *= 1 - lr * weight_decay
        else:
            g = g + p * weight_decay
    lerp_(exp_avg, g, 1 - beta1)
    exp_avg_sq *= beta2
    addcmul_(exp_avg_sq, g, g, 1 - beta2)
    step_size = lr / (1 - beta1 ** t)
    bias_correction2_sqrt = (1 - beta2 ** t) ** 0.5
    if max_exp_avg_sq is not None:
        max_exp_avg_sq[...] = xp.maximum(max_exp_avg_sq, exp_avg_sq)
        exp_avg_sq = max_exp_avg_sq
    denom = xp.sqrt(exp_avg_sq) / bias_correction2_sqrt + eps
    addcdiv_(p, exp_avg, denom, -step_size)


class AdamW(Adam):
    """Adam with decoupled weight decay (p shrinks by lr * weight_decay each step)."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
                 maximize=False, foreach=None, capturable=False, differentiable=False, fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach, maximize=maximize,
                         capturable=capturable, differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)
