"""A multi-layer perceptron on scikit-learn's handwritten digits (8x8 images as 64 features).

    python -m examples.mlp_digits        # prints the final metrics, with a progress bar
"""
from __future__ import annotations

import minitorch as torch
from minitorch import nn

from ._common import fit, load_digits_tensors


def make_model():
    return nn.Sequential(
        nn.Linear(64, 128), nn.ReLU(),
        nn.Linear(128, 64), nn.ReLU(),
        nn.Linear(64, 10),
    )


def main(seed=0, epochs=20, progress=False):
    torch.manual_seed(seed)
    train, test = load_digits_tensors(seed=seed)
    model = make_model()
    metrics = fit(model, train, test, epochs=epochs, lr=3e-3, batch_size=64, seed=seed, progress=progress)
    metrics["model"] = model
    return metrics


if __name__ == "__main__":
    m = main(progress=True)
    print(f"MLP on digits: test accuracy {m['test_accuracy']:.4f}, train loss {m['train_loss']:.4f}, "
          f"{m['seconds']:.1f} s")
