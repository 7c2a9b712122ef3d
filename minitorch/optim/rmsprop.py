"""RMSprop: divide each step by a running root-mean-square of the gradients.

For each parameter p with gradient g (in place, under no_grad), PyTorch's rules:

    g  = g + weight_decay * p
    v  = alpha * v + (1 - alpha) * g^2                 (the running mean of squares)
    centered:  m = alpha * m + (1 - alpha) * g;  avg = sqrt(v - m^2) + eps
    else:      avg = sqrt(v) + eps
    momentum:  b = momentum * b + g / avg;  p = p - lr * b
    else:      p = p - lr * g / avg
"""
from __future__ import annotations

from .._factories import zeros_like
from ..autograd.grad_mode import no_grad
from .optimizer import Optimizer, addcdiv_, addcmul_, lerp_, scalar_state


class RMSprop(Optimizer):
    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        for name, v in (("learning rate", lr), ("epsilon value", eps), ("momentum value", momentum),
                        ("weight_decay value", weight_decay), ("alpha value", alpha)):
            if not 0.0 <= v:
                raise ValueError(f"Invalid {name}: {v}")
        defaults = dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered,
                        weight_decay=weight_decay, capturable=capturable, foreach=foreach, maximize=maximize,
                        differentiable=differentiable)
        super().__init__(params, defaults)

    def step(self, closure=None):
        loss = self._closure_loss(closure)
        with no_grad():
            for group in self.param_groups:
                lr, alpha, eps = group["lr"], group["alpha"], group["eps"]
                wd, momentum, centered = group["weight_decay"], group["momentum"], group["centered"]
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    grad = -p.grad if group["maximize"] else p.grad
                    state = self.state[p]
                    if len(state) == 0:
                        state["step"] = scalar_state()
                        state["square_avg"] = zeros_like(p)
                        if momentum > 0:
                            state["momentum_buffer"] = zeros_like(p)
                        if centered:
                            state["grad_avg"] = zeros_like(p)
                    state["step"].add_(1)
                    if wd != 0:
                        grad = grad.add(p, alpha=wd)
                    square_avg = addcmul_(state["square_avg"].mul_(alpha), grad, grad, 1 - alpha)
                    if centered:
                        grad_avg = lerp_(state["grad_avg"], grad, 1 - alpha)
                        avg = (square_avg - grad_avg * grad_avg).sqrt_().add_(eps)
                    else:
                        avg = square_avg.sqrt().add_(eps)
                    if momentum > 0:
                        buf = addcdiv_(state["momentum_buffer"].mul_(momentum), grad, avg)
                        p.add_(buf, alpha=-lr)
                    else:
                        addcdiv_(p, grad, avg, -lr)
        return loss
