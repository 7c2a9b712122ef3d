"""The cost of recording and running the graph (issue "Autograd").

- `a + b` on 10x10 with requires_grad=True: the forward op plus building its graph node.
  Target: within 1.3x of PyTorch. The NumPy column is plain `a + b` (NumPy has no graph),
  shown to size the overhead.
- `(a * b).sum().backward()` on 10x10: a tiny graph through the engine (vs PyTorch only).
  Target: within 1.8x of PyTorch.
- one MLP training step (64-128-128-10, batch 64, cross-entropy, SGD): forward, backward,
  update. NumPy column: the same step written by hand.
  "tensor ops" runs the same code on minitorch and torch (bench/_mlp.py:RawMLP), within 2x;
  "nn + optim" uses nn.Sequential / nn.CrossEntropyLoss / optim.SGD, within 1.1x (skipped,
  with a note, where minitorch.nn or minitorch.optim lack a piece).
- one step of lesson 15's CNN (bench/_cnn.py; batch 64 of 8x8 images, Adam): convolution,
  pooling and the optimizer, within 1.3x of PyTorch.
"""
from __future__ import annotations

import numpy as np

from . import _cnn, _mlp
from ._timing import NO_TORCH, Row, Skip, measure_row, try_torch

MLP_SIZES = (64, 128, 128, 10)
MLP_BATCH = 64


def _leaf_pair(lib, arrays):
    return [lib.tensor(a.copy(), requires_grad=True) for a in arrays]


def graph_rows(cfg, shape=(10, 10)):
    import minitorch
    torch = try_torch()
    rng = np.random.default_rng(5)
    arrays = [rng.standard_normal(shape, dtype=np.float32) for _ in range(2)]
    ns = {"minitorch": dict(zip("ab", _leaf_pair(minitorch, arrays))), "numpy": dict(zip("ab", arrays))}
    if torch:
        ns["torch"] = dict(zip("ab", _leaf_pair(torch, arrays)))
    size = "x".join(map(str, shape))
    rows = [measure_row(
        "autograd", "autograd.add_grad", f"a + b, requires_grad  ({size})",
        {"minitorch": "a + b", "numpy": "a + b", "torch": "a + b"}, cfg, ns,
        target=("torch", 1.3), have_torch=torch is not None,
        note="NumPy column: plain a + b (no graph), to show the recording overhead.")]
    rows.append(measure_row(
        "autograd", "autograd.mul_sum_backward", f"(a * b).sum().backward()  ({size})",
        {"minitorch": "(a * b).sum().backward(); a.grad = b.grad = None",
         "numpy": None,
         "torch": "(a * b).sum().backward(); a.grad = b.grad = None"}, cfg, ns,
        target=("torch", 1.8), have_torch=torch is not None,
        note="forward, graph and engine on the smallest useful graph (NumPy has no autograd: '-')."))
    return rows


def mlp_rows(cfg, sizes=MLP_SIZES, batch=MLP_BATCH):
    import minitorch
    torch = try_torch()
    weights = _mlp.init_weights(list(sizes), seed=0)
    x, y = _mlp.batch(batch, sizes[0], sizes[-1], seed=1)
    label = "-".join(map(str, sizes)) + f", batch {batch}"

    def xy(lib):
        return lib.from_numpy(x.copy()), lib.from_numpy(y.copy())

    np_model = _mlp.NumpyMLP(weights)
    stmts = {"minitorch": _stepper(_mlp.RawMLP(minitorch, weights), *xy(minitorch)),
             "numpy": _stepper(np_model, x, y),
             "torch": _stepper(_mlp.RawMLP(torch, weights), *xy(torch)) if torch else None}
    rows = [measure_row("autograd", "autograd.mlp_step_raw", f"MLP step, tensor ops  ({label})", stmts, cfg,
                        target=("torch", 2.0), have_torch=torch is not None, keep_gc=True, blocks=True,
                        note="forward + cross-entropy + backward + SGD update; the same code runs on minitorch "
                             "and torch; NumPy column: the step written by hand.")]
    missing = _mlp.missing_nn(minitorch)
    if missing:
        rows.append(Row("autograd", "autograd.mlp_step_nn", f"MLP step, nn + optim  ({label})",
                        skipped=f"minitorch lacks {', '.join(missing)} (not written yet)"))
        return rows
    try:
        mt_nn = _mlp.NNMLP(minitorch, weights)
        mt_nn.step(*xy(minitorch))
    except Exception as e:  # nn is being written: report what broke instead of failing the run
        rows.append(Row("autograd", "autograd.mlp_step_nn", f"MLP step, nn + optim  ({label})",
                        skipped=f"minitorch.nn step failed: {type(e).__name__}: {e}"))
        return rows
    stmts = {"minitorch": _stepper(mt_nn, *xy(minitorch)),
             "numpy": _stepper(_mlp.NumpyMLP(weights), x, y),
             "torch": _stepper(_mlp.NNMLP(torch, weights), *xy(torch)) if torch else None}
    rows.append(measure_row("autograd", "autograd.mlp_step_nn", f"MLP step, nn + optim  ({label})", stmts, cfg,
                            target=("torch", 1.1), have_torch=torch is not None, keep_gc=True, blocks=True,
                            note="optimizer.zero_grad(); loss_fn(model(x), y).backward(); optimizer.step()"))
    return rows


CNN_BATCH = 64


def cnn_rows(cfg, batch=CNN_BATCH):
    import minitorch
    torch = try_torch()
    weights = _cnn.init_weights(seed=0)
    x, y = _cnn.batch(batch, seed=1)
    name = f"CNN step, lesson 15's model  (batch {batch}, 1x8x8, Adam)"
    try:
        mt = _cnn.CNN(minitorch, weights)
        mt.step(minitorch.from_numpy(x.copy()), minitorch.from_numpy(y.copy()))
        mt = _cnn.CNN(minitorch, weights)
    except Exception as e:
        return [Row("autograd", "autograd.cnn_step", name, skipped=f"minitorch step failed: {type(e).__name__}: {e}")]
    stmts = {"minitorch": _stepper(mt, minitorch.from_numpy(x.copy()), minitorch.from_numpy(y.copy())),
             "numpy": Skip("-"),
             "torch": _stepper(_cnn.CNN(torch, weights), torch.from_numpy(x.copy()), torch.from_numpy(y.copy()))
             if torch else None}
    return [measure_row("autograd", "autograd.cnn_step", name, stmts, cfg, target=("torch", 1.3),
                        have_torch=torch is not None, keep_gc=True, blocks=True,
                        note="Conv2d-ReLU-MaxPool2d twice, Linear, cross-entropy, Adam: zero_grad, "
                             "forward, backward, step (no NumPy version: '-').")]


def _stepper(model, x, y):
    def step():
        model.step(x, y)
    return step


def rows(cfg, small_shape=(10, 10), mlp_sizes=MLP_SIZES, mlp_batch=MLP_BATCH, cnn_batch=CNN_BATCH):
    return graph_rows(cfg, small_shape) + mlp_rows(cfg, mlp_sizes, mlp_batch) + cnn_rows(cfg, cnn_batch)


__all__ = ["rows", "graph_rows", "mlp_rows", "cnn_rows", "NO_TORCH", "Skip"]
