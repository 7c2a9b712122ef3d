"""Lesson 15's small CNN, one training step, written once for minitorch and PyTorch.

Conv2d(1, 16, 3, padding=1) - ReLU - MaxPool2d(2) - Conv2d(16, 32, 3, padding=1) - ReLU -
MaxPool2d(2) - Flatten - Linear(128, 10), cross-entropy, Adam (lr 5e-3), on a batch of
8x8 one-channel images (the digits of lesson 15). Both libraries start from the same
float32 weights, made with NumPy from a seed, so their losses agree step for step.
"""
from __future__ import annotations

import numpy as np

SHAPES = [((16, 1, 3, 3), (16,)), ((32, 16, 3, 3), (32,)), ((10, 128), (10,))]


def init_weights(seed=0):
    """[(W, b), ...] float32, PyTorch's default bound 1/sqrt(fan_in)."""
    rng = np.random.default_rng(seed)
    out = []
    for w_shape, b_shape in SHAPES:
        bound = 1 / np.sqrt(int(np.prod(w_shape[1:])))
        out.append((rng.uniform(-bound, bound, w_shape).astype(np.float32),
                    rng.uniform(-bound, bound, b_shape).astype(np.float32)))
    return out


def batch(n, seed=1):
    rng = np.random.default_rng(seed)
    return rng.random((n, 1, 8, 8), dtype=np.float32), rng.integers(0, 10, n).astype(np.int64)


class CNN:
    def __init__(self, lib, weights, lr=5e-3):
        nn = lib.nn
        self.model = nn.Sequential(
            nn.Conv2d(1, 16, kernel_size=3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, kernel_size=3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Flatten(), nn.Linear(32 * 2 * 2, 10))
        layers = [m for m in self.model if hasattr(m, "weight")]
        with lib.no_grad():  # the same starting point in both libraries
            for layer, (W, b) in zip(layers, weights):
                layer.weight.copy_(lib.tensor(W.copy()))
                layer.bias.copy_(lib.tensor(b.copy()))
        self.loss_fn = nn.CrossEntropyLoss()
        self.opt = lib.optim.Adam(self.model.parameters(), lr=lr)

    def step(self, x, y):
        self.opt.zero_grad()
        loss = self.loss_fn(self.model(x), y)
        loss.backward()
        self.opt.step()
        return loss
