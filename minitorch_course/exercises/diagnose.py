"""Exercise 18, diagnose: read an error message and name the kind of bug; and find which
operand of a matrix product to transpose.

diagnose(message) is graded on the real messages minitorch produces: the grader triggers the
errors itself (wrong shapes, dtypes, devices, in-place writes, backward twice, .numpy() on a
tensor that requires grad), in its own process, with varying shapes and dtypes, and sends the
message strings; a few of PyTorch's own wordings are added as literals. Strings in, a category
name out. fix_matmul works on two 2-D shapes (tuples) and returns a short string.
The reference solutions are the solution cells of solutions/18_diagnose.ipynb.
"""
from __future__ import annotations

from types import SimpleNamespace

from ..spec import Exercise, QuestionSpec

CATEGORIES = ("shape", "dtype", "device", "inplace", "backward_twice", "numpy_requires_grad")


# ---- inputs: real error messages, made here (in the grader's process) ------------------------
def _message(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the message is the point
        return str(e)
    raise AssertionError("expected an error")


def _errors(rng):
    """(category, thunk) pairs that trigger minitorch's errors, sized and typed by rng."""
    import numpy as np

    import minitorch as torch
    from minitorch import nn
    from minitorch._ops.common import same_device

    def _on(device, ndim):
        return SimpleNamespace(_device=torch.device(device), ndim=ndim)

    r = rng.randint
    dt = [torch.float64, torch.float16, torch.int64, torch.int32]
    a, b, c = r(2, 6), r(2, 6), r(7, 9)
    w = torch.ones(a, requires_grad=True)
    loss = (w * w).sum()
    loss.backward()
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 1
    z = y * y
    y.add_(1)
    return [
        ("shape", lambda: torch.ones(a, b) @ torch.ones(c, b)),
        ("shape", lambda: torch.ones(a, b).mm(torch.ones(a + c, b))),
        ("shape", lambda: torch.ones(a) + torch.ones(c)),
        ("shape", lambda: torch.ones(a, b).view(a * b + 1)),
        ("shape", lambda: torch.cat([torch.ones(a, b), torch.ones(a, c)])),
        ("shape", lambda: nn.Linear(a, 1)(torch.ones(2, c))),
        ("dtype", lambda: nn.Linear(a, 1)(torch.ones(2, a, dtype=rng.choice(dt)))),
        ("dtype", lambda: nn.CrossEntropyLoss()(torch.ones(a, 3), torch.zeros(a))),
        ("dtype", lambda: nn.BCEWithLogitsLoss()(torch.ones(a), torch.zeros(a, dtype=torch.int64))),
        ("dtype", lambda: torch.ones(a, dtype=rng.choice(dt)) @ torch.ones(a)),
        # The check every op makes of its operands' devices, on stand-ins that only carry a device
        # (a label) and a number of dims: the same message on every machine, GPU or not.
        ("device", lambda: same_device("add", _on(f"cuda:{r(0, 1)}", 2), _on("cpu", r(1, 3)))),
        ("device", lambda: same_device("matmul", _on("cpu", 2), _on("cuda:0", 2), _on("cuda:1", 1))),
        ("device", lambda: torch.device(rng.choice(["gpu", "cuda:x", "tpu", "CUDA:1"]))),
        ("inplace", lambda: torch.ones(a, requires_grad=True).sub_(0.1 * b)),
        ("inplace", lambda: torch.ones(a, requires_grad=True).mul_(b)),
        ("inplace", lambda: z.sum().backward()),
        ("backward_twice", lambda: loss.backward()),
        ("numpy_requires_grad", lambda: torch.ones(a, requires_grad=True).numpy()),
        ("numpy_requires_grad", lambda: np.asarray((w * 2).numpy())),
    ]


PYTORCH_MESSAGES = [  # PyTorch's wordings, for errors a machine without a GPU cannot trigger
    "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!",
    "Expected all tensors to be on the same device, but found at least two devices, cpu and cuda:0! "
    "(when checking argument for argument mat1 in method wrapper_CUDA_addmm)",
    "Torch not compiled with CUDA enabled",
    "mat1 and mat2 shapes cannot be multiplied (64x784 and 128x10)",
    "mat1 and mat2 must have the same dtype, but got Double and Float",
    "expected scalar type Long but found Float",
    "a leaf Variable that requires grad is being used in an in-place operation.",
]


def _visible_q1():
    import random
    rng = random.Random(18)
    return [(_message(fn),) for _, fn in _errors(rng)] + [(m,) for m in PYTORCH_MESSAGES]


def _random_q1(rng, n):
    out = []
    while len(out) < n:
        errors = _errors(rng)
        for _, fn in rng.sample(errors, min(len(errors), n - len(out))):
            out.append((_message(fn),))
    return out


def _visible_q2():
    return [((8, 4), (3, 4)), ((8, 4), (4, 3)), ((4, 8), (4, 3)), ((4, 8), (3, 4)), ((2, 3), (5, 7)),
            ((3, 3), (3, 3)), ((5, 2), (5, 2)), ((1, 6), (1, 6)), ((6, 1), (6, 1)), ((2, 3), (4, 3))]


def _random_q2(rng, n):
    return [((rng.randint(1, 5), rng.randint(1, 5)), (rng.randint(1, 5), rng.randint(1, 5))) for _ in range(n)]


# ---- the exercise ---------------------------------------------------------------------------
EXERCISE = Exercise(
    name="18_diagnose",
    title="Diagnose: from an error message to the kind of bug",
    forbidden_imports=("minitorch", "torch", "jax", "tensorflow"),
    forbidden_reason="read the messages yourself: minitorch is not needed here",
    questions=[
        QuestionSpec(
            id="q1", function="diagnose", title="(a) which kind of bug an error message reports",
            solution_cell="diagnose", test_cell="test_diagnose",
            visible_cases=_visible_q1, random_cases=_random_q1,
            visible_random=30,
            hints=[
                "Look for the words that only one kind of error uses, ignoring case (message.lower()): "
                "\"backward through the graph a second time\", \"numpy()\" with \"requires grad\", "
                "\"in-place operation\" (or \"inplace operation\"), \"device\" or \"cuda\", \"dtype\" / "
                "\"scalar type\" / \"result type\".",
                "The order matters: the in-place message names a tensor type (FloatTensor) and the "
                "backward-twice one mentions saved tensors; test the specific phrases first.",
                "Everything else in the list is about sizes (cannot be multiplied, must match, is "
                "invalid for input of size ...): return \"shape\".",
            ]),
        QuestionSpec(
            id="q2", function="fix_matmul", title="(b) which operand to transpose",
            solution_cell="fix_matmul", test_cell="test_fix_matmul",
            visible_cases=_visible_q2, random_cases=_random_q2,
            hints=[
                "a @ b needs a's last size to equal b's first: (n, k) @ (k, m) -> (n, m).",
                "Transposing swaps a shape's two sizes: a @ b.T needs k == m, a.T @ b needs n == p, "
                "a.T @ b.T needs n == m.",
                "Test in the order \"fits\", \"b\", \"a\", \"both\", and return the first that works; "
                "\"none\" if none does.",
            ]),
    ],
)
