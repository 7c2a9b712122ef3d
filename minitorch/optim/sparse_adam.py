"""SparseAdam: Adam that updates only the rows a *sparse* gradient names (the rows of an
nn.Embedding(sparse=True) that the batch looked up), and leaves the moments of the other rows
as they are.

minitorch has no sparse tensors: every gradient is dense (nn.Embedding(sparse=True) included),
and a dense gradient cannot say which of its zeros were looked up. So step() refuses, as
PyTorch's does for a dense gradient; optim.Adam is the optimizer to use.
"""
from __future__ import annotations

from .._tensor import Tensor
from .optimizer import Optimizer


class SparseAdam(Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, maximize=False):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 < lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, maximize=maximize))

    def step(self, closure=None):
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            if any(p.grad is not None for p in group["params"]):
                raise RuntimeError("SparseAdam does not support dense gradients, please consider Adam instead "
                                   "(minitorch has no sparse gradients: every gradient is dense, that of "
                                   "nn.Embedding(sparse=True) too; use optim.Adam)")
        return loss
