"""RMSprop: divide each step by a running root-mean-square of the gradients.

For each parameter p with gradient g (in place, on the backend arrays: `rmsprop_update`),
PyTorch's rules:

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
from .optimizer import Optimizer, addcdiv_, addcmul_, arrays_with_grad, lerp_, scalar_state, written


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
        for group in self.param_groups:
            hyper = {k: group[k] for k in ("lr", "alpha", "eps", "weight_decay", "momentum", "maximize")}
            for p, a, g in arrays_with_grad(group):
                state = self.state[p]
                if len(state) == 0:
                    with no_grad():
                        state["step"] = scalar_state()
                        state["square_avg"] = zeros_like(p)
                        if group["momentum"] > 0:
                            state["momentum_buffer"] = zeros_like(p)
                        if group["centered"]:
                            state["grad_avg"] = zeros_like(p)
                bufs = [state.get(k) for k in ("step", "square_avg", "momentum_buffer", "grad_avg")]
                rmsprop_update(p._device.xp, a, g, *(None if t is None else t._data for t in bufs), **hyper)
                written(p, *(t for t in bufs if t is not None))
        return loss


def rmsprop_update(xp, p, g, step, square_avg, momentum_buffer, grad_avg, *, lr, alpha, eps, weight_decay,
                   momentum, maximize):
    """RMSprop's rule for one parameter, on backend arrays of module `xp`: p and the state
    (step count, running averages, momentum buffer) updated in place, the gradient g only read.
    grad_avg is None unless centered, momentum_buffer None without momentum."""
    if maximize:
        g = -g
    step += 1
    if weight_decay != 0:
        g = g + p * weight_decay
    square_avg *= alpha
    addcmul_(square_avg, g, g, 1 - alpha)
    if grad_avg is not None:  # centered: divide by an estimate of the variance instead
        lerp_(grad_avg, g, 1 - alpha)
        avg = xp.sqrt(square_avg - grad_avg * grad_avg) + eps
    else:
        avg = xp.sqrt(square_avg) + eps
    if momentum > 0:
        momentum_buffer *= momentum
        addcdiv_(momentum_buffer, g, avg)
        p += momentum_buffer * -lr
    else:
        addcdiv_(p, g, avg, -lr)
