"""Exercise 14, a training loop: nn.Linear's initial weights and forward pass, then one epoch
of the loop every model is trained with (zero_grad, forward, loss, backward, step).

Here minitorch is the tool, not the thing being written: the learner's functions may import
it (the sandbox preloads it) and use tensors, autograd, cross_entropy and optim.SGD. Only
nn.Linear and nn.functional.linear are forbidden, since (a) and (b) ask to write them.
Each function imports minitorch in its own body: the grader runs the learner's solution
cells, not the notebook's setup cell. The grader passes plain lists (fixed initial weights,
a fixed tiny dataset) and compares plain data: the tensors' dtypes, shapes and values, the
loss of each batch and the weights after the epoch, within a float32 tolerance.

(b) promises that a result made from tensors that require grad stays in their autograd graph
(that is what (c) trains through), so it is graded through a driver, run_linear_forward (a
locked cell of the notebook): it makes the inputs named in its last argument tensors that
require grad, calls the learner's linear_forward, runs out.sum().backward() and returns the
result with the gradient each of those inputs received. A result built from a copy
(minitorch.tensor(weight)) leaves them None, and the message says so.
The reference solutions are the solution cells of solutions/14_training_loop.ipynb.
"""
from __future__ import annotations

from ..spec import Exercise, QuestionSpec, compare_values, show
from ._approx import approx

GRAPH_HINT = ("the result is not connected to {name} in the autograd graph: minitorch.tensor({name}) "
              "makes a copy outside the graph, while minitorch.as_tensor({name}, dtype=...) keeps a "
              "float32 tensor as it is")


def compare_forward(expected, actual, where=""):
    """run_linear_forward's (result, {input: gradient}): the result first, then each gradient,
    named as the learner knows it (weight.grad), with the reason a gradient did not arrive."""
    if not (type(expected) is tuple and type(actual) is tuple and len(actual) == 2 == len(expected)
            and type(expected[1]) is dict and type(actual[1]) is dict):
        return compare_values(expected, actual, where)
    why = compare_values(expected[0], actual[0], "the result")
    if why:
        return why
    for name, want in expected[1].items():
        got = actual[1].get(name)
        if got is None and want is not None:
            return f"{name}.grad is None after out.sum().backward(): " + GRAPH_HINT.format(name=name)
        why = compare_values(want, got, f"{name}.grad")
        if why:
            return why
    return compare_values(expected, actual, where)


def describe_forward(args):
    """How a case of run_linear_forward reads: the call the learner wrote, and on what."""
    x, weight, bias, grads = args
    parts = [f"{n} = minitorch.tensor({show(v, 80)}, requires_grad=True)" if n in grads else f"{n} = {show(v, 80)}"
             for n, v in (("x", x), ("weight", weight), ("bias", bias))]
    then = ", then out.sum().backward()" if grads else ""
    return f"linear_forward(x, weight, bias) with {', '.join(parts)}{then}"


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


_PARAMS = ("weight", "bias")  # what nn.Linear trains: they require grad
_ALL = ("x", "weight", "bias")  # and an input that requires grad too (a layer inside a network)


def _visible_q2():
    """(x, weight, bias, the names of those that are tensors requiring grad)."""
    return [
        ([[1.0, 2.0]], [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], [0.5, -0.5, 0.0], ()),
        ([1.0, 2.0], [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], [0.5, -0.5, 0.0], ()),   # one sample, 1-D
        ([[1.0, 2.0], [3.0, 4.0]], [[1.0, -1.0]], [0.0], ()),
        ([[1.0, 2.0], [3.0, 4.0]], [[2.0, 0.0], [0.0, 3.0]], None, ()),               # no bias
        ([[0.5, -1.0, 2.0], [0.0, 0.0, 0.0]], [[1.0, 2.0, 3.0], [-1.0, 0.5, 0.25]], [0.1, 0.2], ()),
        ([[1.0]], [[3.0]], [-3.0], ()),
        ([[1.0, 2.0]], [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], [0.5, -0.5, 0.0], _PARAMS),  # in the graph
        ([[1.0, 2.0], [3.0, 4.0]], [[1.0, -1.0]], [0.0], ("weight",)),
        ([[1.0, 2.0], [3.0, 4.0]], [[2.0, 0.0], [0.0, 3.0]], None, ("weight",)),
        ([[0.5, -1.0, 2.0], [0.0, 0.0, 0.0]], [[1.0, 2.0, 3.0], [-1.0, 0.5, 0.25]], [0.1, 0.2], _ALL),
        ([1.0, 2.0], [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], [0.5, -0.5, 0.0], _ALL),
    ]


def _random_q2(rng, n):
    out = []
    for _ in range(n):
        b, i, o = rng.randint(1, 5), rng.randint(1, 5), rng.randint(1, 4)
        x = _mat(rng, b, i, 2.0)
        if rng.random() < 0.2:
            x = x[0]
        bias = None if rng.random() < 0.2 else _mat(rng, 1, o)[0]
        grads = rng.choice([(), ("weight",), _PARAMS, _PARAMS, _ALL])
        out.append((x, _mat(rng, o, i), bias, tuple(g for g in grads if g != "bias" or bias is not None)))
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
    driver_cells=("linear_forward_driver",),
    forbidden_calls=("minitorch.nn.Linear", "minitorch.nn.functional.linear"),
    forbidden_imports=("minitorch_course", "torch", "jax", "tensorflow", "sklearn"),
    forbidden_reason="write the linear layer yourself: nn.Linear and nn.functional.linear would "
                     "do it for you (the rest of minitorch, optim.SGD included, is yours to use)",
    questions=[
        QuestionSpec(
            id="q1", function="linear_init", title="(a) nn.Linear's initial weight and bias",
            solution_cell="linear_init", test_cell="test_linear_init",
            visible_cases=_visible_q1, random_cases=_random_q1,
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
            id="q2", function="run_linear_forward", title="(b) nn.Linear's forward pass, in the graph",
            solution_cell="linear_forward", test_cell="test_linear_forward", answer="linear_forward",
            visible_cases=_visible_q2, random_cases=_random_q2,
            compare=compare_forward, describe=describe_forward,
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
            visible_cases=_visible_q3, random_cases=_random_q3,
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
