"""Exercise 10, backward formulas: the local derivatives of eleven ops, summing a gradient
back to a broadcast input's shape, and the backward of sum and mean.

Plain Python over floats and nested lists: the notebook then plugs the learner's functions
into a minitorch.autograd.Function and gradchecks it, but the grader compares plain data only.
Gradients for (b) are multiples of 1/4 and small, so every sum is exact in floating point and
any order of summation gives exactly the expected value.
The reference solutions are the solution cells of solutions/10_backward_formulas.ipynb.
"""
from __future__ import annotations

from ..spec import Exercise, QuestionSpec
from ._approx import approx


# ---- inputs -------------------------------------------------------------------------------
OPS2 = ("mul", "div", "pow", "add", "sub")
OPS1 = ("tanh", "sigmoid", "neg", "exp", "log", "relu")


def _visible_q1():
    return [
        ("mul", (2.0, 3.0), 1.0), ("mul", (-1.5, 4.0), 2.0), ("mul", (0.0, 5.0), -1.0),
        ("div", (6.0, 3.0), 1.0), ("div", (1.0, -0.5), 0.5), ("div", (-2.0, 4.0), -3.0),
        ("pow", (2.0, 3.0), 1.0), ("pow", (9.0, 0.5), 1.0), ("pow", (0.5, -2.0), 0.25),
        ("pow", (1.0, 7.0), 1.0), ("pow", (3.0, 1.0), 2.0),
        ("tanh", (0.0,), 1.0), ("tanh", (1.0,), 1.0), ("tanh", (-2.0,), 0.5),
        ("sigmoid", (0.0,), 1.0), ("sigmoid", (2.0,), 1.0), ("sigmoid", (-3.0,), -2.0),
        ("sigmoid", (-40.0,), 1.0), ("tanh", (20.0,), 1.0),
        ("add", (2.0, -3.0), 1.5), ("sub", (2.0, -3.0), 1.5), ("neg", (4.0,), 2.0),
        ("exp", (0.0,), 1.0), ("exp", (2.0,), -0.5), ("log", (2.0,), 1.0), ("log", (0.25,), 3.0),
        ("relu", (1.5,), 2.0), ("relu", (-1.5,), 2.0), ("relu", (0.0,), 1.0),   # PyTorch: 0 at 0
    ]


def _random_q1(rng, n):
    out = []
    for _ in range(n):
        op = rng.choice(OPS2 + OPS1)
        grad = rng.choice([1.0, -1.0, round(rng.uniform(-3, 3), 4)])
        if op == "pow":
            inputs = (round(rng.uniform(0.1, 4.0), 4), round(rng.uniform(-3.0, 3.0), 3))
        elif op == "div":
            y = round(rng.uniform(0.2, 4.0), 4) * rng.choice([1, -1])
            inputs = (round(rng.uniform(-5, 5), 4), y)
        elif op in ("mul", "add", "sub"):
            inputs = (round(rng.uniform(-5, 5), 4), round(rng.uniform(-5, 5), 4))
        elif op == "log":
            inputs = (round(rng.uniform(0.05, 8.0), 4),)
        else:
            inputs = (round(rng.uniform(-6, 6), 4),)
        out.append((op, inputs, grad))
    return out


def _nested(rng, shape):
    if not shape:
        return rng.randint(-40, 40) / 4
    return [_nested(rng, shape[1:]) for _ in range(shape[0])]


def _visible_q2():
    return [
        ([[1.0, 2.0], [3.0, 4.0]], (2,)),
        ([[1.0, 2.0], [3.0, 4.0]], (2, 2)),
        ([[1.0, 2.0], [3.0, 4.0]], (1, 2)),
        ([[1.0, 2.0], [3.0, 4.0]], (2, 1)),
        ([[1.0, 2.0], [3.0, 4.0]], (1, 1)),
        ([[1.0, 2.0], [3.0, 4.0]], (1,)),
        ([[1.0, 2.0], [3.0, 4.0]], ()),
        ([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0], [1.0, 1.0, 1.0]], (3,)),   # a bias
        ([0.5, 0.25, -1.0], ()),
        ([0.5, 0.25, -1.0], (3,)),
        (2.5, ()),                                            # nothing to do for a 0-d grad
        ([[[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0], [7.0, 8.0]]], (2, 1, 2)),
        ([[[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0], [7.0, 8.0]]], (2, 1)),
        ([[[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0], [7.0, 8.0]]], (1, 1, 1)),
        ([[7.0]], (1,)),
    ]


def _random_q2(rng, n):
    out = []
    for _ in range(n):
        gshape = tuple(rng.choice([1, 2, 2, 3, 4]) for _ in range(rng.randint(0, 4)))
        keep = rng.randint(0, len(gshape))
        shape = tuple(1 if (s == 1 or rng.random() < 0.4) else s for s in gshape[len(gshape) - keep:])
        out.append((_nested(rng, gshape), shape))
    return out


def _visible_q3():
    return [
        ("sum", 2.0, (2, 3), (0, 1), False),
        ("sum", [1.0, 2.0, 3.0], (2, 3), (0,), False),
        ("sum", [1.0, -2.0], (2, 3), (1,), False),
        ("sum", [[1.0], [-2.0]], (2, 3), (1,), True),
        ("mean", 3.0, (2, 2), (0, 1), False),
        ("mean", [[6.0, 3.0]], (3, 2), (0,), True),
        ("mean", [1.5, -0.5], (2, 2, 2), (0, 2), False),
        ("sum", [[0.5, 1.0], [2.0, 4.0]], (2, 1, 2), (1,), False),
        ("sum", 1.0, (), (), False),                      # a 0-d input: its own sum
        ("mean", [4.0], (1, 4), (1,), False),
    ]


def _random_q3(rng, n):
    out = []
    for _ in range(n):
        shape = tuple(rng.choice([1, 2, 3, 4]) for _ in range(rng.randint(1, 3)))
        dims = tuple(sorted(rng.sample(range(len(shape)), rng.randint(1, len(shape)))))
        keepdim = rng.random() < 0.4
        out_shape = tuple(1 if d in dims else n for d, n in enumerate(shape)) if keepdim else \
            tuple(n for d, n in enumerate(shape) if d not in dims)
        out.append((rng.choice(["sum", "mean"]), _nested(rng, out_shape), shape, dims, keepdim))
    return out


# ---- the exercise ---------------------------------------------------------------------------
EXERCISE = Exercise(
    name="10_backward_formulas",
    title="Backward formulas, and summing a gradient back to a broadcast shape",
    forbidden_calls=("numpy.*",),
    forbidden_imports=("minitorch", "torch", "jax", "tensorflow", "sympy"),
    forbidden_reason="write these in plain Python (math is fine): minitorch and NumPy would "
                     "differentiate or reduce for you, which is what this exercise asks of you",
    questions=[
        QuestionSpec(
            id="q1", function="local_backward", title="(a) the local derivatives of eleven ops",
            solution_cell="local_backward", test_cell="test_local_backward",
            visible_cases=_visible_q1, random_cases=_random_q1,
            compare=approx(rel_tol=1e-7, abs_tol=1e-12),
            hints=[
                "The chain rule: d loss / d x = grad * (d out / d x). So each answer is grad times "
                "the derivative of the op with respect to that input, at the given values.",
                "mul: (grad*y, grad*x). div x/y: (grad/y, -grad*x/y**2). pow x**y: "
                "(grad*y*x**(y-1), grad*x**y*log(x)); x is always positive here.",
                "tanh: 1 - tanh(x)**2. sigmoid s = 1/(1+exp(-x)): s*(1-s). add: (grad, grad), sub: "
                "(grad, -grad), neg: -grad, exp: grad*exp(x), log: grad/x, relu: grad where x > 0, "
                "else 0.0 (at 0 too, as PyTorch). Return a tuple with one float per input: (g,) for "
                "the one-input ops, (gx, gy) for the others.",
            ]),
        QuestionSpec(
            id="q2", function="unbroadcast", title="(b) sum a gradient back to an input's shape",
            solution_cell="unbroadcast", test_cell="test_unbroadcast",
            visible_cases=_visible_q2, random_cases=_random_q2,
            hints=[
                "Broadcasting lined the shapes up from the right. The input was used once for every "
                "position of a leading dim it lacks, and once for every position along a dim where "
                "it has size 1: its gradient is the sum over all those uses.",
                "Find grad's shape by following [0] down the nested lists. For every index of grad "
                "(itertools.product of ranges), drop the leading dims the input lacks and put 0 "
                "where the input's size is 1: that is the input position it adds to.",
                "Accumulate into a dict {input index: sum}, then build nested lists of exactly "
                "`shape` from it (recursively). Shape () gives a bare float, shape (1,) a list [s].",
            ]),
        QuestionSpec(
            id="q3", function="reduce_backward", title="(c) the backward of sum and mean",
            solution_cell="reduce_backward", test_cell="test_reduce_backward",
            visible_cases=_visible_q3, random_cases=_random_q3,
            compare=approx(rel_tol=1e-9, abs_tol=1e-12),
            hints=[
                "Every input element went into exactly one output element of the sum: its gradient "
                "is that output's gradient. A mean also divides by how many elements it averaged.",
                "For each index of the input (itertools.product over `shape`), find the output "
                "element it went into: drop the reduced dims (or, with keepdim, put 0 there). "
                "The count for mean is the product of shape[d] over the reduced dims.",
                "Build nested lists of exactly `shape` (recursively); shape () gives a bare float. "
                "grad is a float when the output is 0-d (every dim reduced, keepdim False).",
            ]),
    ],
)
