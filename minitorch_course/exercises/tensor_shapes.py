"""Exercise 01, tensor shapes: the shape of nested lists (and PyTorch's error for ragged ones),
a flat list of numbers read with a shape, and a batch of sentences padded into a rectangle.

All three work on plain Python data and return plain Python data. shape_of raises
ValueError("expected sequence of length N at dim D (got M)") for ragged data, the message
torch.tensor gives (after its "tensor(): " prefix in minitorch), and minitorch's own ValueError
where a number and a list are mixed up (PyTorch raises a terser TypeError there); the question
declares `raises=(ValueError,)`, so such a case expects that error, same type and same message.
from_flat raises minitorch's ValueError for a shape that does not fit the number of values.
The reference solutions are the solution cells of solutions/01_tensor_shapes.ipynb.
"""
from __future__ import annotations

from ..spec import Exercise, QuestionSpec


# ---- inputs -------------------------------------------------------------------------------
def _nested(rng, shape):
    if not shape:
        return rng.choice([rng.randint(-9, 9), round(rng.uniform(-5, 5), 1), True])
    return [_nested(rng, shape[1:]) for _ in range(shape[0])]


def _visible_q1():
    return [
        (3.5,), ([1.0, 2.0, 3.0],), ([[1, 2, 3], [4, 5, 6]],), ([[[0, 1], [2, 3]], [[4, 5], [6, 7]]],),
        ([],), ([[], []],), ([[5]],), ([True, False],),
        ([[1, 2], [3]],),                       # ragged: dim 1
        ([[1, 2], [3, 4, 5]],), ([[1], 2],), ([1, [2]],),
        ([[[1, 2], [3, 4]], [[5, 6], [7]]],),   # ragged deep down: dim 2
        ([[[1, 2]], [[3, 4]], [[5, 6], [7, 8]]],),
    ]


def _sizes_of_first_items(data):
    out = []
    while isinstance(data, list):
        out.append(len(data))
        data = data[0] if data else None
    return out


def _random_q1(rng, n):
    out = []
    for _ in range(n):
        shape = [rng.randint(0 if rng.random() < 0.1 else 1, 4) for _ in range(rng.randint(0, 4))]
        data = _nested(rng, shape)
        # Ragged data is made only where the first items give no size 0: with a 0 in the shape,
        # PyTorch 2.13 makes an empty tensor without looking at the other lists (minitorch checks).
        if rng.random() < 0.5 and 0 not in shape and len(shape) > 1:  # make it ragged somewhere
            x = data
            for _ in range(rng.randint(0, len(shape) - 2)):
                if not x or not isinstance(x[0], list):
                    break
                x = x[rng.randrange(len(x))]
            i = rng.randrange(len(x)) if x else None
            if i is not None and isinstance(x[i], list):
                if x[i] and rng.random() < 0.5:
                    x[i].pop()
                else:
                    x[i].append(x[i][0] if x[i] else 0)
        if 0 in _sizes_of_first_items(data):
            data = _nested(rng, shape)  # the change emptied a first item: back to a regular one
        out.append((data,))
    return out


def _visible_q2():
    return [
        ([1, 2, 3, 4, 5, 6], (2, 3)), ([1, 2, 3, 4, 5, 6], (3, 2)), ([1, 2, 3, 4, 5, 6], (6,)),
        (list(range(24)), (2, 3, 4)), ([7.5], ()), ([7.5], (1, 1)), ([], (0,)), ([], (2, 0)),
        ([1, 2, 3, 4, 5], (2, 3)),              # does not fit: the error
        ([1, 2], ()), ([1, 2, 3, 4], (1, 4, 1)),
    ]


def _random_q2(rng, n):
    out = []
    for _ in range(n):
        shape = tuple(rng.randint(0 if rng.random() < 0.05 else 1, 4) for _ in range(rng.randint(0, 4)))
        numel = 1
        for s in shape:
            numel *= s
        if rng.random() < 0.15:
            numel += rng.choice([-1, 1, 2]) if numel else 1
        out.append(([rng.randint(-99, 99) for _ in range(numel)], shape))
    return out


def _visible_q3():
    return [
        ([[5, 2, 7], [4]], 0), ([[1, 2], [3, 4]], 0), ([[3], [1, 4, 1, 5], [9, 2]], 0),
        ([[3], [1, 4, 1, 5], [9, 2]], -1), ([[]], 0), ([[], [8]], 99), ([], 0), ([[0, 0], [0]], 0),
    ]


def _random_q3(rng, n):
    return [([[rng.randint(1, 50) for _ in range(rng.randint(0, 7))] for _ in range(rng.randint(1, 6))],
             rng.choice([0, 0, -1, 1, 100])) for _ in range(n)]


# ---- the exercise ---------------------------------------------------------------------------
EXERCISE = Exercise(
    name="01_tensor_shapes",
    title="Tensor shapes: nested lists, a flat block of numbers, a padded batch",
    forbidden_imports=("minitorch", "torch", "numpy", "jax", "tensorflow"),
    preload=(),
    forbidden_reason="write these in plain Python: minitorch and NumPy would answer for you",
    questions=[
        QuestionSpec(
            id="q1", function="shape_of", title="(a) the shape of nested lists, or the ragged error",
            solution_cell="shape_of", test_cell="test_shape_of",
            visible_cases=_visible_q1, random_cases=_random_q1,
            raises=(ValueError,),
            hints=[
                "Follow the first item down: data, data[0], data[0][0], ... while it is a list. Their "
                "lengths are the shape PyTorch expects; an empty list ends the walk.",
                "Then check every list against that shape, in reading order (depth first): a list at "
                "dim d must have length shape[d]; the first one that does not raises ValueError(f\"expected "
                "sequence of length {shape[d]} at dim {d} (got {len(x)})\").",
                "A number where a list should be: \"(got int)\" (type(x).__name__). A list where a "
                "number should be (dim == len(shape)): \"expected a number at dim {d} (got a list of "
                "length {len(x)})\". Return tuple(shape).",
            ]),
        QuestionSpec(
            id="q2", function="from_flat", title="(b) a flat list read with a shape",
            solution_cell="from_flat", test_cell="test_from_flat",
            visible_cases=_visible_q2, random_cases=_random_q2,
            raises=(ValueError,),
            hints=[
                "First the number of elements: the product of the sizes (1 for shape ()). If it is not "
                "len(values), raise ValueError(f\"shape '{list(shape)}' is invalid for input of size "
                "{len(values)}\").",
                "Shape () is a single number: return values[0]. Otherwise dim 0 has shape[0] items, "
                "each holding numel // shape[0] consecutive values.",
                "Recursion does the rest: item i is from_flat(values[i*step:(i+1)*step], shape[1:]).",
            ]),
        QuestionSpec(
            id="q3", function="pad_batch", title="(c) sentences padded into a batch, and the mask",
            solution_cell="pad_batch", test_cell="test_pad_batch",
            visible_cases=_visible_q3, random_cases=_random_q3,
            hints=[
                "The batch's length is the longest sentence's (0 for an empty batch: max(..., default=0)).",
                "Each row: the ids, then pad_id repeated (longest - len(ids)) times. The mask row: True "
                "for each real token, then False for each pad.",
                "Return a tuple of two lists of lists: (padded, mask).",
            ]),
    ],
)
