"""Exercise 14, a training loop: nn.Linear's initial weights and forward pass, then one epoch
of the loop every model is trained with (zero_grad, forward, loss, backward, step).

Here minitorch is the tool, not the thing being written: the learner's functions may import
it (the sandbox preloads it) and use tensors, autograd, cross_entropy and optim.SGD. Only
nn.Linear and nn.functional.linear are forbidden, since (a) and (b) ask to write them.
Each function imports minitorch in its own body: the grader runs the learner's solution
cells, not the notebook's setup cell. The grader passes plain lists (fixed initial weights,
a fixed tiny dataset) and compares plain data: the tensors' dtypes, shapes and values, the
loss of each batch and the weights after the epoch, within a float32 tolerance.
The reference solutions are the solution cells of solutions/14_training_loop.ipynb.
"""
from __future__ import annotations

import math


from ..spec import Exercise, QuestionSpec, compare_values, decode, encode
from ._approx import approx


# ---- reference solutions (identical to the solution cells of the notebook) ----------------
def linear_init(in_features, out_features, u):
    """nn.Linear(in_features, out_features)'s initial weight and bias, made from `u`: a list of
    uniform samples in [0, 1), the weight's out_features * in_features values first (row by
    row), then the bias's out_features. Returns (weight, bias): float32 tensors of shapes
    (out_features, in_features) and (out_features,), uniform in [-bound, bound).
    """
    import minitorch
    bound = 1 / math.sqrt(in_features)
    values = [(2 * v - 1) * bound for v in u]
    n = out_features * in_features
    weight = minitorch.tensor(values[:n], dtype=minitorch.float32).reshape(out_features, in_features)
    bias = minitorch.tensor(values[n:n + out_features], dtype=minitorch.float32)
    return weight, bias


def linear_forward(x, weight, bias):
    """nn.Linear's forward pass, y = x @ weight.T + bias, as a float32 tensor. x is (batch,
    in_features) or (in_features,), weight (out_features, in_features), bias (out_features,) or
    None; each a tensor or nested lists. Tensors that require grad must stay in the graph.
    """
    import minitorch
    x = minitorch.as_tensor(x, dtype=minitorch.float32)
    weight = minitorch.as_tensor(weight, dtype=minitorch.float32)
    out = x @ weight.T
    if bias is not None:
        out = out + minitorch.as_tensor(bias, dtype=minitorch.float32)
    return out


def train_epoch(weight, bias, x, y, lr, batch_size):
    """One epoch of SGD on a linear classifier with cross-entropy loss. weight, bias: the
    initial parameters (lists); x: the inputs (a list of rows), y: their classes (ints). Batches
    are x[0:batch_size], x[batch_size:2*batch_size], ... in order (the last may be shorter).
    Returns (losses, weight, bias): each batch's loss (floats, computed before its step) and
    the parameters after the epoch (lists).
    """
    import minitorch
    from minitorch.nn import functional as F
    weight = minitorch.tensor(weight, dtype=minitorch.float32, requires_grad=True)
    bias = minitorch.tensor(bias, dtype=minitorch.float32, requires_grad=True)
    x = minitorch.tensor(x, dtype=minitorch.float32)
    y = minitorch.tensor(y, dtype=minitorch.int64)
    optimizer = minitorch.optim.SGD([weight, bias], lr=lr)
    losses = []
    for start in range(0, len(x), batch_size):
        xb, yb = x[start:start + batch_size], y[start:start + batch_size]
        optimizer.zero_grad()
        loss = F.cross_entropy(linear_forward(xb, weight, bias), yb)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses, weight.tolist(), bias.tolist()


# ---- comparing tensors ----------------------------------------------------------------------
def compare_tensors(expected, actual, where=""):
    """compare_values, with the reference's tensors seen as a submission's are (encoded as
    plain data: kind, dtype, shape, values)."""
    return compare_values(decode(encode(expected)), actual, where)


# ---- inputs -------------------------------------------------------------------------------
def _u(rng, n):
    return [round(rng.random(), 4) for _ in range(n)]


def _mat(rng, rows, cols, scale=1.0):
    return [[round(rng.uniform(-scale, scale), 3) for _ in range(cols)] for _ in range(rows)]


def _visible_q1():
    return [
        (1, 1, [0.75, 0.25]),
        (4, 1, [0.0, 0.25, 0.5, 0.75, 1.0 - 2 ** -10]),      # bound 1/2: [-0.5, -0.25, 0, 0.25] ...
        (2, 3, [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]),
        (3, 2, [0.5] * 8),                                   # all zeros
        (9, 2, [0.0] * 18 + [0.99, 0.01]),
        (16, 1, [0.25] * 17),
    ]


def _random_q1(rng, n):
    out = []
    for _ in range(n):
        i, o = rng.randint(1, 6), rng.randint(1, 5)
        out.append((i, o, _u(rng, i * o + o)))
    return out


def _visible_q2():
    return [
        ([[1.0, 2.0]], [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], [0.5, -0.5, 0.0]),
        ([1.0, 2.0], [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], [0.5, -0.5, 0.0]),   # one sample, 1-D
        ([[1.0, 2.0], [3.0, 4.0]], [[1.0, -1.0]], [0.0]),
        ([[1.0, 2.0], [3.0, 4.0]], [[2.0, 0.0], [0.0, 3.0]], None),               # no bias
        ([[0.5, -1.0, 2.0], [0.0, 0.0, 0.0]], [[1.0, 2.0, 3.0], [-1.0, 0.5, 0.25]], [0.1, 0.2]),
        ([[1.0]], [[3.0]], [-3.0]),
    ]


def _random_q2(rng, n):
    out = []
    for _ in range(n):
        b, i, o = rng.randint(1, 5), rng.randint(1, 5), rng.randint(1, 4)
        x = _mat(rng, b, i, 2.0)
        if rng.random() < 0.2:
            x = x[0]
        bias = None if rng.random() < 0.2 else _mat(rng, 1, o)[0]
        out.append((x, _mat(rng, o, i), bias))
    return out


_X4 = [[1.0, 0.0], [0.0, 1.0], [-1.0, 0.5], [0.5, -1.0]]


def _visible_q3():
    w0 = [[0.1, -0.2], [0.0, 0.3], [-0.1, 0.1]]
    return [
        ([[0.0, 0.0], [0.0, 0.0]], [0.0, 0.0], [[1.0, 0.0]], [0], 0.5, 1),   # one step: loss log 2
        (w0, [0.0, 0.0, 0.0], _X4, [0, 1, 2, 1], 0.5, 4),                    # one full batch
        (w0, [0.0, 0.0, 0.0], _X4, [0, 1, 2, 1], 0.5, 2),                    # two batches
        (w0, [0.1, 0.0, -0.1], _X4, [0, 1, 2, 1], 1.0, 1),                   # four steps
        (w0, [0.1, 0.0, -0.1], _X4, [0, 1, 2, 1], 0.1, 3),                   # a last, short batch
        (w0, [0.0, 0.0, 0.0], _X4 + _X4, [2, 2, 0, 0, 1, 1, 2, 0], 0.8, 3),
    ]


def _random_q3(rng, n):
    out = []
    for _ in range(n):
        i, c, m = rng.randint(1, 4), rng.randint(2, 4), rng.randint(1, 9)
        x = _mat(rng, m, i, 2.0)
        y = [rng.randrange(c) for _ in range(m)]
        out.append((_mat(rng, c, i, 0.5), _mat(rng, 1, c, 0.5)[0], x, y,
                    rng.choice([0.1, 0.5, 1.0]), rng.randint(1, 4)))
    return out


# ---- the exercise ---------------------------------------------------------------------------
EXERCISE = Exercise(
    name="14_training_loop",
    title="A training loop: nn.Linear's init and forward, and one epoch of SGD",
    preload=("numpy", "minitorch", "minitorch.autograd.engine"),  # before confinement
    forbidden_calls=("minitorch.nn.Linear", "minitorch.nn.functional.linear"),
    forbidden_imports=("minitorch_course", "torch", "jax", "tensorflow", "sklearn"),
    forbidden_reason="write the linear layer yourself: nn.Linear and nn.functional.linear would "
                     "do it for you (the rest of minitorch, optim.SGD included, is yours to use)",
    questions=[
        QuestionSpec(
            id="q1", function="linear_init", title="(a) nn.Linear's initial weight and bias",
            solution_cell="linear_init", test_cell="test_linear_init",
            reference=linear_init, visible_cases=_visible_q1, random_cases=_random_q1,
            compare=compare_tensors,
            hints=[
                "PyTorch draws both the weight and the bias uniformly in [-bound, bound) with "
                "bound = 1 / sqrt(in_features) (in_features: the fan-in, the number of inputs "
                "each output sums over).",
                "A sample v in [0, 1) becomes (2*v - 1) * bound. The weight takes the first "
                "out_features*in_features samples, row by row, so its shape is "
                "(out_features, in_features), not (in_features, out_features).",
                "minitorch.tensor(values, dtype=minitorch.float32).reshape(out_features, "
                "in_features) for the weight; the next out_features samples for the bias. "
                "Return the tuple (weight, bias).",
            ]),
        QuestionSpec(
            id="q2", function="linear_forward", title="(b) nn.Linear's forward pass",
            solution_cell="linear_forward", test_cell="test_linear_forward",
            reference=linear_forward, visible_cases=_visible_q2, random_cases=_random_q2,
            compare=compare_tensors,
            hints=[
                "Each output is a weighted sum of the inputs: out[n, j] = sum_k x[n, k] * "
                "weight[j, k] + bias[j]. As tensors: x @ weight.T + bias.",
                "Turn each argument into a float32 tensor with minitorch.as_tensor(t, "
                "dtype=minitorch.float32): it leaves a float32 tensor as it is (and in the "
                "autograd graph), and converts nested lists.",
                "bias may be None (nn.Linear(..., bias=False)): then return x @ weight.T. A 1-D "
                "x (one sample) works unchanged: matmul of (in,) and (in, out) gives (out,).",
            ]),
        QuestionSpec(
            id="q3", function="train_epoch", title="(c) one epoch of the training loop",
            solution_cell="train_epoch", test_cell="test_train_epoch",
            reference=train_epoch, visible_cases=_visible_q3, random_cases=_random_q3,
            compare=approx(rel_tol=1e-4, abs_tol=1e-5),
            hints=[
                "Make weight and bias float32 tensors with requires_grad=True, x a float32 "
                "tensor, y an int64 tensor, and optimizer = minitorch.optim.SGD([weight, bias], "
                "lr=lr).",
                "For start in range(0, len(x), batch_size): take the batch x[start:start + "
                "batch_size] (and y's), then optimizer.zero_grad(); loss = "
                "F.cross_entropy(linear_forward(xb, weight, bias), yb); loss.backward(); "
                "optimizer.step(); append loss.item().",
                "Forgetting zero_grad() adds every batch's gradient to the previous ones: the "
                "first loss is right, the second is not. Return (losses, weight.tolist(), "
                "bias.tolist()).",
            ]),
    ],
)
