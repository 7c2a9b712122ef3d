"""Exercise 16, embeddings: nn.Embedding's lookup, and its backward pass.

Plain Python over nested lists. The lookup picks rows of the weight by index, for ids of any
shape (an int, a list, a list of lists); padding_idx changes nothing in the forward pass, as
in PyTorch. The gradient of the weight adds up the output gradient's rows into the rows the
ids picked (an id that appears twice gets both), leaves rows no id picked at zero, and keeps
the padding row at zero. Gradients here are multiples of 1/4, so every sum is exact; floats
are still compared within a tolerance. The notebook checks both against nn.Embedding.
The reference solutions are the solution cells of solutions/16_embedding.ipynb.
"""
from __future__ import annotations

from ..spec import Exercise, QuestionSpec
from ._approx import approx


# ---- reference solutions (identical to the solution cells of the notebook) ----------------
def embedding_lookup(weight, ids, padding_idx=None):
    """nn.functional.embedding(ids, weight, padding_idx): the rows of `weight` (a list of
    num_embeddings rows of floats) picked by `ids` (an int, or nested lists of ints), in the
    shape of ids with one more dimension. padding_idx does not change the forward pass.

    embedding_lookup([[0.0, 1.0], [2.0, 3.0]], [1, 1, 0]) == [[2.0, 3.0], [2.0, 3.0], [0.0, 1.0]]
    """
    if isinstance(ids, list):
        return [embedding_lookup(weight, i, padding_idx) for i in ids]
    return list(weight[ids])


def embedding_grad(ids, grad_out, num_embeddings, padding_idx=None):
    """The gradient of the loss with respect to nn.Embedding's weight, given `ids` (an int or
    nested lists of ints) and `grad_out`, the gradient with respect to the lookup's output
    (ids' shape plus one dimension). Returns num_embeddings rows of floats: row k is the sum of
    grad_out's rows where ids == k, and the padding row (padding_idx, which may be negative)
    stays zero.
    """
    def pairs(i, g):
        if isinstance(i, list):
            for i2, g2 in zip(i, g):
                yield from pairs(i2, g2)
        else:
            yield i, g

    found = list(pairs(ids, grad_out))
    dim = len(found[0][1])
    if padding_idx is not None and padding_idx < 0:
        padding_idx += num_embeddings
    grad = [[0.0] * dim for _ in range(num_embeddings)]
    for i, g in found:
        if i != padding_idx:
            grad[i] = [a + b for a, b in zip(grad[i], g)]
    return grad


# ---- inputs -------------------------------------------------------------------------------
def _rows(rng, n, dim):
    return [[rng.randint(-20, 20) / 4 for _ in range(dim)] for _ in range(n)]


def _ids(rng, num, depth):
    if depth == 0:
        return rng.randrange(num)
    return [_ids(rng, num, depth - 1) for _ in range(rng.randint(1, 4))]


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
            reference=embedding_lookup, visible_cases=_visible_q1, random_cases=_random_q1,
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
            reference=embedding_grad, visible_cases=_visible_q2, random_cases=_random_q2,
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
