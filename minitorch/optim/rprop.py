"""Rprop (resilient backpropagation): each weight has its own step size, and only the *sign*
of its gradient is used. For each parameter p with gradient g, PyTorch's rules:

    f = etaplus   where g * g_prev > 0   (same direction as last step: grow the step)
        etaminus  where g * g_prev < 0   (the sign flipped, a minimum was jumped: shrink it)
        1         where g * g_prev = 0
    step_size = clamp(step_size * f, step_size_min, step_size_max)
    g = 0 where the sign flipped         (and no move there this step)
    p = p - sign(g) * step_size;   g_prev = g

Meant for full-batch training: minibatch noise flips gradient signs at random.
"""
from __future__ import annotations

from .._factories import full_like, zeros_like
from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from .optimizer import Optimizer, addcmul_, scalar_state


class Rprop(Optimizer):
    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *, capturable=False, foreach=None,
                 maximize=False, differentiable=False):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        defaults = dict(lr=lr, etas=etas, step_sizes=step_sizes, foreach=foreach, maximize=maximize,
                        differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    def step(self, closure=None):
        """One update of every parameter that has a gradient; returns closure()'s loss if given."""
        loss = self._closure_loss(closure)
        with no_grad():
            for group in self.param_groups:
                etaminus, etaplus = group["etas"]
                step_size_min, step_size_max = group["step_sizes"]
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    grad = -p.grad if group["maximize"] else p.grad
                    state = self.state[p]
                    if len(state) == 0:
                        state["step"] = scalar_state()
                        state["prev"] = zeros_like(p)
                        state["step_size"] = full_like(grad, float(group["lr"]))
                    state["step"].add_(1)
                    factor = grad.mul(state["prev"]).sign()
                    factor[factor.gt(0)] = etaplus
                    factor[factor.lt(0)] = etaminus
                    factor[factor.eq(0)] = 1
                    state["step_size"].mul_(factor).clamp_(step_size_min, step_size_max)
                    grad = grad.clone()
                    grad[factor.eq(etaminus)] = 0
                    addcmul_(p, grad.sign(), state["step_size"], -1)
                    state["prev"].copy_(grad)
        return loss
