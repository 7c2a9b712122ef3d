"""A full training epoch on real data (issue "Autograd"): scikit-learn's digits.

1797 8x8 images (64 features, scaled to [0, 1]), 10 classes; the MLP 64-128-128-10 of
bench/autograd.py; minibatches of 64 in a fixed shuffled order (29 steps, the last one
short); SGD with lr 0.1. Each contender indexes its own copy of the data with the same
permutation, so batching costs are included alike. Rows: "tensor ops" (same code on
minitorch and torch; target within 2x of PyTorch), "nn + optim" (the way a learner writes
it; target no slower than PyTorch), both against the NumPy hand-written step.
"""
from __future__ import annotations

import numpy as np

from . import _mlp
from ._timing import Row, measure_row, try_torch

SIZES = (64, 128, 128, 10)
BATCH = 64


def load_digits_arrays(limit=None):
    """(X float32 in [0, 1], y int64), or raise ImportError when scikit-learn is missing."""
    from sklearn.datasets import load_digits
    d = load_digits()
    X, y = (d.data / 16.0).astype(np.float32), d.target.astype(np.int64)
    if limit:
        X, y = X[:limit], y[:limit]
    return X, y


class Epoch:
    """One pass over (X, y) in `perm` order with `model.step(xb, yb)`; lib=None means NumPy."""

    def __init__(self, lib, model, X, y, perm, batch):
        conv = (lambda a: a) if lib is None else (lambda a: lib.from_numpy(a.copy()))
        self.model, self.X, self.y, self.perm = model, conv(X), conv(y), conv(perm)
        self.starts = range(0, len(perm), batch)
        self.batch = batch
        self.last_loss = None

    def __call__(self):
        X, y, perm, step, b = self.X, self.y, self.perm, self.model.step, self.batch
        for i in self.starts:
            idx = perm[i:i + b]
            loss = step(X[idx], y[idx])
        self.last_loss = loss.item()


def accuracy(model, lib, X, y):
    """Training accuracy of a RawMLP / NumpyMLP (a sanity check that the epochs learn)."""
    if lib is None:
        h = X
        for i, (W, b) in enumerate(model.params):
            h = h @ W + b
            if i < len(model.params) - 1:
                h = np.maximum(h, 0)
        return float((h.argmax(1) == y).mean())
    with lib.no_grad():
        h = lib.from_numpy(X.copy())
        for i, (W, b) in enumerate(model.params):
            h = h @ W + b
            if i < len(model.params) - 1:
                h = h.relu()
        return float((h.argmax(1).numpy() == y).mean())


def rows(cfg, limit=None, sizes=SIZES, batch=BATCH):
    import minitorch
    torch = try_torch()
    label_extra = f", first {limit} samples" if limit else ""
    try:
        X, y = load_digits_arrays(limit)
    except ImportError as e:
        why = f"scikit-learn is not installed ({e}); pip install scikit-learn"
        return [Row("train", "train.digits_raw", "digits epoch, tensor ops", skipped=why),
                Row("train", "train.digits_nn", "digits epoch, nn + optim", skipped=why)]
    n = len(y)
    perm = np.random.default_rng(0).permutation(n).astype(np.int64)
    weights = _mlp.init_weights(list(sizes), seed=0)
    steps = -(-n // batch)
    label = f"({n} samples, {steps} steps of {batch}{label_extra})"

    def epoch(lib, model):
        return Epoch(lib, model, X, y, perm, batch)

    # sanity check first, on fresh models: one epoch each, then training accuracy (should agree)
    accs = []
    for lib, nm in ((minitorch, "minitorch"), (None, "NumPy"), (torch, "torch")):
        if nm == "torch" and torch is None:
            continue
        model = _mlp.NumpyMLP(weights) if lib is None else _mlp.RawMLP(lib, weights)
        epoch(lib, model)()
        accs.append(f"{nm} {accuracy(model, lib, X, y):.3f}")
    mt = epoch(minitorch, _mlp.RawMLP(minitorch, weights))
    npe = epoch(None, _mlp.NumpyMLP(weights))
    th = epoch(torch, _mlp.RawMLP(torch, weights)) if torch else None
    out = [measure_row("train", "train.digits_raw", f"digits epoch, tensor ops  {label}",
                       {"minitorch": mt, "numpy": npe, "torch": th}, cfg, keep_gc=True, blocks=True,
                       target=("torch", 2.0), have_torch=torch is not None)]
    out[0].note = ("same code on minitorch and torch; training accuracy after one epoch from the same "
                   "weights: " + ", ".join(accs))
    missing = _mlp.missing_nn(minitorch)
    name = f"digits epoch, nn + optim  {label}"
    if missing:
        out.append(Row("train", "train.digits_nn", name,
                       skipped=f"minitorch lacks {', '.join(missing)} (not written yet)"))
        return out
    try:
        mt_nn = epoch(minitorch, _mlp.NNMLP(minitorch, weights))
        mt_nn()
    except Exception as e:
        out.append(Row("train", "train.digits_nn", name,
                       skipped=f"minitorch.nn epoch failed: {type(e).__name__}: {e}"))
        return out
    out.append(measure_row("train", "train.digits_nn", name,
                           {"minitorch": mt_nn, "numpy": epoch(None, _mlp.NumpyMLP(weights)),
                            "torch": epoch(torch, _mlp.NNMLP(torch, weights)) if torch else None},
                           cfg, keep_gc=True, blocks=True, target=("torch", 1.0),
                           have_torch=torch is not None,
                           note="nn.Sequential + nn.CrossEntropyLoss + optim.SGD; NumPy: the hand-written step"))
    return out
