"""A token-sequence classifier with nn.Embedding on the synthetic reviews of text_data.py.

ids (batch, seq_len) -> embeddings (batch, seq_len, dim) -> mean over the real (non-pad)
tokens -> MLP -> 2 classes.

    python -m examples.text_classifier
"""
from __future__ import annotations

import minitorch as torch
from minitorch import nn

from ._common import fit
from .text_data import make_dataset


class BagOfEmbeddings(nn.Module):
    def __init__(self, vocab_size, dim=32, hidden=32, classes=2):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, dim, padding_idx=0)
        self.mlp = nn.Sequential(nn.Linear(dim, hidden), nn.ReLU(), nn.Linear(hidden, classes))

    def forward(self, ids):
        e = self.embed(ids)                                    # (B, L, dim); pad rows are zero
        mask = (ids != 0).unsqueeze(-1).to(e.dtype)            # (B, L, 1)
        pooled = (e * mask).sum(1) / mask.sum(1).clamp(min=1)  # mean over real tokens
        return self.mlp(pooled)


def main(seed=0, epochs=8, progress=False):
    torch.manual_seed(seed)
    train, test, vocab = make_dataset(seed=seed)
    model = BagOfEmbeddings(len(vocab))
    metrics = fit(model, train, test, epochs=epochs, lr=1e-2, batch_size=64, seed=seed, progress=progress)
    metrics["model"] = model
    metrics["vocab"] = vocab
    return metrics


if __name__ == "__main__":
    m = main(progress=True)
    print(f"Text classifier: test accuracy {m['test_accuracy']:.4f}, train loss {m['train_loss']:.4f}, "
          f"{m['seconds']:.1f} s")
