"""Exercise 16, embeddings: nn.Embedding's lookup, and its backward pass.

Plain Python over nested lists. The lookup picks rows of the weight by index, for ids of any
shape (an int, a list, a list of lists, rectangular as a tensor of ids is); padding_idx changes
nothing in the forward pass, as
in PyTorch. The gradient of the weight adds up the output gradient's rows into the rows the
ids picked (an id that appears twice gets both), leaves rows no id picked at zero, and keeps
the padding row at zero. Gradients here are multiples of 1/4, so every sum is exact; floats
are still compared within a tolerance. The notebook checks both against nn.Embedding.
The reference solutions are the solution cells of solutions/16_embedding.ipynb.
"""
from __future__ import annotations

from ..spec import Exercise, QuestionSpec
from ._approx import approx


# ---- inputs -------------------------------------------------------------------------------
def _rows(rng, n, dim):
    return [[rng.randint(-20, 20) / 4 for _ in range(dim)] for _ in range(n)]


def _ids(rng, num, depth):
    """ids of `depth` dims (an int for 0), rectangular as a tensor of ids is."""
    def fill(shape):
        return rng.randrange(num) if not shape else [fill(shape[1:]) for _ in range(shape[0])]
    return fill([rng.randint(1, 4) for _ in range(depth)])


def _like(rng, ids, dim):
    if isinstance(ids, list):
        return [_like(rng, i, dim) for i in ids]
    return [rng.randint(-20, 20) / 4 for _ in range(dim)]


_W = [[0.0, 0.0], [1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]


def _visible_q1():
    return [
        (_W, [1, 2]), (_W, [3, 3, 1]), (_W, 2), (_W, [[1, 2], [0, 3]]),
        (_W, [0, 1], 0),                                     # forward: the padding row as it is
        ([[1.0, 1.0], [9.0, 9.0]], [0, 1, 0], 0),            # even when it is not zero
        (_W, [[[2]]]), ([[0.5], [-0.5]], [1, 0, 1, 1]),
    ]


def _random_q1(rng, n):
    out = []
    for _ in range(n):
        num, dim = rng.randint(1, 6), rng.randint(1, 4)
        pad = rng.choice([None, None, rng.randrange(num)])
        out.append((_rows(rng, num, dim), _ids(rng, num, rng.randint(0, 3)), pad))
    return out


def _visible_q2():
    return [
        ([1, 2], [[1.0, 2.0], [3.0, 4.0]], 4),
        ([1, 1], [[1.0, 2.0], [3.0, 4.0]], 3),               # a repeated id: rows add up
        ([3, 0, 3, 3], [[1.0], [2.0], [3.0], [4.0]], 5),
        (2, [0.5, -0.5], 3),                                 # one id, one row
        ([0, 1, 0], [[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]], 2, 0),   # the padding row stays 0
        ([2, 1, 2], [[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]], 3, -1),  # -1 is the last row
        ([[1, 2], [2, 0]], [[[1.0], [2.0]], [[3.0], [4.0]]], 3),
        ([[1, 2], [2, 0]], [[[1.0], [2.0]], [[3.0], [4.0]]], 3, 2),
    ]


def _random_q2(rng, n):
    out = []
    for _ in range(n):
        num, dim = rng.randint(1, 6), rng.randint(1, 4)
        ids = _ids(rng, num, rng.randint(0, 3))
        pad = rng.choice([None, None, rng.randrange(num), -rng.randint(1, num)])
        out.append((ids, _like(rng, ids, dim), num, pad))
    return out


# ---- the exercise ---------------------------------------------------------------------------
EXERCISE = Exercise(
    name="16_embedding",
    title="Embeddings: the lookup and its gradient",
    forbidden_calls=("numpy.*",),
    forbidden_imports=("minitorch", "torch", "jax", "tensorflow"),
    forbidden_reason="write these in plain Python: minitorch and NumPy would index and "
                     "accumulate for you, which is what this exercise asks of you",
    questions=[
        QuestionSpec(
            id="q1", function="embedding_lookup", title="(a) the lookup",
            solution_cell="embedding_lookup", test_cell="test_embedding_lookup",
            visible_cases=_visible_q1, random_cases=_random_q1,
            hints=[
                "An embedding is a table: id k stands for the row weight[k]. The output has one "
                "row for each id, in the shape of ids.",
                "ids may be an int (return that row) or a list (return a list of lookups, one "
                "per item): recursion handles every depth.",
                "padding_idx is only about the gradient: the forward pass returns the padding row "
                "like any other. Return copies of the rows, list(weight[k]).",
            ]),
        QuestionSpec(
            id="q2", function="embedding_grad", title="(b) the gradient of the table",
            solution_cell="embedding_grad", test_cell="test_embedding_grad",
            visible_cases=_visible_q2, random_cases=_random_q2,
            compare=approx(rel_tol=1e-9, abs_tol=1e-12),
            hints=[
                "out[n] = weight[ids[n]]: each output row is a copy of one table row, so its "
                "gradient flows back to that row only. A row used twice collects both gradients.",
                "Walk ids and grad_out together (recursively, like the lookup) to get the pairs "
                "(id, gradient row); start from num_embeddings rows of 0.0 and add each gradient "
                "row into row id.",
                "Skip the pairs whose id is the padding row; a negative padding_idx counts from "
                "the end (padding_idx + num_embeddings). Rows stay lists of floats (0.0, not 0).",
            ]),
    ],
)
