"""Exercise 10, backward formulas: the local derivatives of eleven ops, summing a gradient
back to a broadcast input's shape, the backward of sum and mean, of a matrix product, and of
the view ops (view, transpose, permute, expand, squeeze, unsqueeze).

Plain Python over floats and nested lists: the notebook then plugs the learner's functions
into a minitorch.autograd.Function and gradchecks it, but the grader compares plain data only.
Gradients for (b), (d) and (e), and the matrices of (d), are multiples of 1/4 and small, so
every sum is exact in floating point and any order of summation gives exactly the expected value.
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


def _matrix(rng, rows, cols):
    return [[rng.randint(-12, 12) / 4 for _ in range(cols)] for _ in range(rows)]


def _visible_q4():
    eye = [[1.0, 0.0], [0.0, 1.0]]
    return [
        ([[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0], [7.0, 8.0]], eye),
        ([[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0], [7.0, 8.0]], [[1.0, 1.0], [1.0, 1.0]]),
        ([[1.0, 2.0, 3.0]], [[1.0], [0.5], [-1.0]], [[2.0]]),                        # a row times a column
        ([[1.0], [2.0], [3.0]], [[4.0, -5.0]], [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]),   # an outer product
        ([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], [[1.0, 2.0], [0.5, -1.0]]),
        ([[3.0]], [[-2.0]], [[0.5]]),
    ]


def _random_q4(rng, n):
    out = []
    for _ in range(n):
        rows, inner, cols = (rng.choice([1, 2, 3, 4, 5]) for _ in range(3))
        out.append((_matrix(rng, rows, inner), _matrix(rng, inner, cols), _matrix(rng, rows, cols)))
    return out


VIEW_OPS = ("view", "transpose", "permute", "expand", "squeeze", "unsqueeze")


def _view_out_shape(op, args, shape):
    """The output's shape: what the gradient `grad` of a case has."""
    if op in ("view", "expand"):
        return tuple(args[0])
    if op == "transpose":
        s = list(shape)
        s[args[0]], s[args[1]] = s[args[1]], s[args[0]]
        return tuple(s)
    if op == "permute":
        return tuple(shape[d] for d in args[0])
    if op == "squeeze":
        return tuple(n for d, n in enumerate(shape) if d not in args[0])
    return tuple(shape[:args[0]]) + (1,) + tuple(shape[args[0]:])


def _view_case(op, args, shape, rng=None, grad=None):
    out = _view_out_shape(op, args, shape)
    return (op, args, tuple(shape), _nested(rng, out) if grad is None else grad)


def _visible_q5():
    g23 = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
    return [
        ("view", ((3, 2),), (2, 3), [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]),
        ("view", ((6,),), (2, 3), [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]),
        ("view", ((2, 3),), (6,), g23),
        ("view", ((1,),), (), [2.5]),                                  # a 0-d input
        ("transpose", (0, 1), (3, 2), g23),
        ("transpose", (1, 1), (2, 3), g23),                            # swapping a dim with itself
        ("transpose", (0, 2), (2, 1, 2), [[[1.0, 2.0]], [[3.0, 4.0]]]),
        ("permute", ((1, 2, 0),), (2, 1, 3), [[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]]),
        ("permute", ((0, 1),), (2, 3), g23),
        ("expand", ((2, 3),), (3,), g23),                              # a new leading dim: summed
        ("expand", ((2, 3),), (2, 1), g23),                            # a size-1 dim stretched: summed
        ("expand", ((2, 3),), (1, 1), g23),
        ("expand", ((2, 2, 3),), (1, 3), [g23, g23]),
        ("expand", ((2, 3),), (2, 3), g23),                            # nothing expanded
        ("squeeze", ((1,),), (2, 1, 3), g23),
        ("squeeze", ((0, 2),), (1, 3, 1), [1.0, 2.0, 3.0]),
        ("squeeze", ((0,),), (1,), 4.0),                               # down to 0-d
        ("unsqueeze", (0,), (2, 3), [g23]),
        ("unsqueeze", (2,), (2, 3), [[[1.0], [2.0], [3.0]], [[4.0], [5.0], [6.0]]]),
        ("unsqueeze", (0,), (), [1.5]),
    ]


def _random_q5(rng, n):
    out = []
    for _ in range(n):
        op = rng.choice(VIEW_OPS)
        shape = tuple(rng.choice([1, 2, 2, 3, 4]) for _ in range(rng.randint(1, 4)))
        nd = len(shape)
        if op == "view":
            numel, new = 1, []
            for size in shape:
                numel *= size
            while numel > 1:
                f = rng.choice([f for f in range(2, numel + 1) if numel % f == 0][:3])
                new.append(f)
                numel //= f
            while rng.random() < 0.3:
                new.insert(rng.randint(0, len(new)), 1)
            args = (tuple(new),)
        elif op == "transpose":
            args = (rng.randrange(nd), rng.randrange(nd))
        elif op == "permute":
            dims = list(range(nd))
            rng.shuffle(dims)
            args = (tuple(dims),)
        elif op == "expand":
            shape = tuple(1 if rng.random() < 0.4 else s for s in shape)
            lead = tuple(rng.choice([1, 2, 3]) for _ in range(rng.randint(0, 2)))
            args = (lead + tuple(rng.choice([1, 2, 3]) if s == 1 else s for s in shape),)
        elif op == "squeeze":
            shape = tuple(1 if rng.random() < 0.4 else s for s in shape)
            ones = [d for d, s in enumerate(shape) if s == 1]
            if not ones:
                shape, ones = shape + (1,), [nd]
            args = (tuple(sorted(rng.sample(ones, rng.randint(1, len(ones))))),)
        else:
            args = (rng.randint(0, nd),)
        out.append(_view_case(op, args, shape, rng))
    return out


# ---- the exercise ---------------------------------------------------------------------------
EXERCISE = Exercise(
    name="10_backward_formulas",
    title="Backward formulas, summing a gradient back to a broadcast shape, matmul and the views",
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
        QuestionSpec(
            id="q4", function="matmul_backward", title="(d) the backward of a matrix product",
            solution_cell="matmul_backward", test_cell="test_matmul_backward",
            visible_cases=_visible_q4, random_cases=_random_q4,
            hints=[
                "out[i][j] = sum over p of a[i][p] * b[p][j]. So a[i][p] reaches every out[i][j] "
                "with weight b[p][j], and b[p][j] every out[i][j] with weight a[i][p].",
                "grad_a[i][p] = sum over j of grad[i][j] * b[p][j] (grad @ b transposed); "
                "grad_b[p][j] = sum over i of a[i][p] * grad[i][j] (a transposed @ grad).",
                "grad_a has a's shape (n x k), grad_b has b's (k x m). zip(*b) walks b's columns; "
                "sum(x * y for x, y in zip(row, col)) is one dot product. Return (grad_a, grad_b).",
            ]),
        QuestionSpec(
            id="q5", function="view_backward", title="(e) the backward of the view ops",
            solution_cell="view_backward", test_cell="test_view_backward",
            visible_cases=_visible_q5, random_cases=_random_q5,
            hints=[
                "A view moves no numbers, it only reads them in another order: its backward puts "
                "each output gradient back at the input element it was read from. view, squeeze and "
                "unsqueeze read in the same (row-major) order; transpose and permute reorder dims; "
                "expand reads some input elements several times.",
                "view / squeeze / unsqueeze: flatten grad row-major and rebuild it with `shape`. "
                "transpose / permute: the input element at index i was output element j with "
                "j[k] = i[dims[k]]. expand: sum over the new leading dims and over the input's "
                "size-1 dims (as unbroadcast does).",
                "Write two helpers: element(nested, index) and build(shape, f), which makes nested "
                "lists of `shape` holding f(index); then each op is one build() call "
                "(a 0-d shape () gives a bare float).",
            ]),
    ],
)
