"""A small convolutional network on the same digits, as (batch, 1, 8, 8) images.

    python -m examples.cnn_digits
"""
from __future__ import annotations

import minitorch as torch
from minitorch import nn

from ._common import fit, load_digits_tensors


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 16, kernel_size=3, padding=1), nn.ReLU(), nn.MaxPool2d(2),   # 16 x 4 x 4
            nn.Conv2d(16, 32, kernel_size=3, padding=1), nn.ReLU(), nn.MaxPool2d(2),  # 32 x 2 x 2
        )
        self.classifier = nn.Sequential(nn.Flatten(), nn.Linear(32 * 2 * 2, 10))

    def forward(self, x):
        return self.classifier(self.features(x))


def main(seed=0, epochs=12, progress=False):
    torch.manual_seed(seed)
    (x_tr, y_tr), (x_te, y_te) = load_digits_tensors(seed=seed)
    train = (x_tr.reshape(-1, 1, 8, 8), y_tr)
    test = (x_te.reshape(-1, 1, 8, 8), y_te)
    model = SmallCNN()
    metrics = fit(model, train, test, epochs=epochs, lr=5e-3, batch_size=64, seed=seed, progress=progress)
    metrics["model"] = model
    return metrics


if __name__ == "__main__":
    m = main(progress=True)
    print(f"CNN on digits: test accuracy {m['test_accuracy']:.4f}, train loss {m['train_loss']:.4f}, "
          f"{m['seconds']:.1f} s")
