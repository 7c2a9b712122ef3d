"""ASGD (averaged SGD): plain SGD with a slowly decaying step size, plus a running average ax
of the iterates, which is the estimate to use at the end (it averages out the noise of the
last steps). For each parameter p with gradient g at step t = 1, 2, ..., PyTorch's rules:

    g   = g + weight_decay * p
    p   = p * (1 - lambd * eta)          (eta: this step's size; lr at the first step)
    p   = p - eta * g
    ax  = p                              while mu = 1 (the first t0 steps)
    ax  = ax + mu * (p - ax)             afterwards
    eta = lr / (1 + lambd * lr * t) ^ alpha;   mu = 1 / max(1, t - t0)

The average lives in optimizer.state[p]["ax"]; the parameters themselves stay the SGD iterates.
"""
from __future__ import annotations

from .._factories import zeros_like
from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from .optimizer import Optimizer, scalar_state


class ASGD(Optimizer):
    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0, foreach=None, maximize=False,
                 differentiable=False, capturable=False):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay, foreach=foreach,
                        maximize=maximize, differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    def step(self, closure=None):
        """One update of every parameter that has a gradient; returns closure()'s loss if given."""
        loss = self._closure_loss(closure)
        with no_grad():
            for group in self.param_groups:
                lr, lambd, alpha, t0 = float(group["lr"]), group["lambd"], group["alpha"], group["t0"]
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    grad = -p.grad if group["maximize"] else p.grad
                    state = self.state[p]
                    if len(state) == 0:
                        state["step"] = scalar_state()
                        state["eta"] = scalar_state(lr)
                        state["mu"] = scalar_state(1.0)
                        state["ax"] = zeros_like(p)
                    state["step"].add_(1)
                    if group["weight_decay"] != 0:
                        grad = grad.add(p, alpha=group["weight_decay"])
                    eta = state["eta"].item()
                    p.mul_(1 - lambd * eta)
                    p.add_(grad, alpha=-eta)
                    if state["mu"].item() != 1:
                        state["ax"].add_(p.sub(state["ax"]).mul_(state["mu"]))
                    else:
                        state["ax"].copy_(p)
                    t = state["step"].item()
                    state["eta"].fill_(lr / ((1 + lambd * lr * t) ** alpha))
                    state["mu"].fill_(1 / max(1, t - t0))
        return loss
