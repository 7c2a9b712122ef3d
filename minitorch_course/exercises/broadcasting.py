"""Exercise 04, broadcasting: which shape, which strides, which dtype does `a + b` get?

The learner writes three small functions in plain Python; the reference solutions are the
solution cells of solutions/04_broadcasting.ipynb. broadcast_shapes raises PyTorch's
RuntimeError on shapes that do not broadcast: the question declares `raises=(RuntimeError,)`, so
the expected outcome of such a case is that error, same type and same message. The notebook then
plugs the learner's functions into minitorch.as_strided and compares the result with minitorch's
own broadcasting.
"""
from __future__ import annotations

from ..spec import Exercise, QuestionSpec


# ---- inputs -------------------------------------------------------------------------------
DTYPES = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64")


def _visible_q1():
    return [((3, 1), (4,)), ((2, 3), (2, 3)), ((5, 1, 4), (3, 1)), ((), (2, 2)), ((4,), ()),
            ((1,), (7,)), ((0,), (1,)), ((2, 0), (1, 1)), ((3,), (4,)), ((2, 3), (3, 2)),
            ((5, 4), (1, 3, 4), (2, 1, 1, 4)), ((8, 1, 6, 1), (7, 1, 5)), ((1, 3), (3, 1), (2, 1, 1)),
            ((3,), (2, 1), (4,)), ((2, 1), (1, 3), (5, 1, 1)), ((0,), (3,)), ((1, 1, 1), (1,)),
            ((2 ** 33, 1), (1, 2 ** 33)), ((2, 3, 4), (4, 1)), ()]


def _compatible(rng, shape):
    """A random shape that broadcasts with `shape` (some dims replaced by 1, some dropped)."""
    out = [1 if rng.random() < 0.35 else n for n in shape]
    drop = rng.randint(0, len(out)) if rng.random() < 0.5 else 0
    return tuple(out[drop:])


def _random_shape(rng, max_ndim=5):
    return tuple(rng.choice([1, 2, 3, 4, 5, 7]) for _ in range(rng.randint(0, max_ndim)))


def _random_q1(rng, n):
    out = []
    for _ in range(n):
        full = _random_shape(rng)
        shapes = [_compatible(rng, full) for _ in range(rng.choice([1, 2, 2, 2, 3, 4]))]
        if rng.random() < 0.35 and full:  # make one dim disagree
            k = rng.randrange(len(shapes))
            s = list(shapes[k])
            if s:
                i = rng.randrange(len(s))
                s[i] = s[i] + rng.choice([1, 2, 3]) if s[i] != 1 else rng.choice([2, 6])
                shapes[k] = tuple(s)
        out.append(tuple(shapes))
    return out


def _contiguous(shape):
    strides, step = [], 1
    for n in reversed(shape):
        strides.append(step)
        step *= n
    return tuple(reversed(strides))


def _visible_q2():
    return [((3, 1), (1, 1), (2, 3, 4)), ((3,), (1,), (2, 3)), ((1,), (1,), (5,)), ((), (), (2, 2)),
            ((2, 3), (3, 1), (2, 3)), ((2, 1, 4), (4, 4, 1), (2, 3, 4)), ((4,), (2,), (3, 4)),
            ((3, 1), (1, 3), (3, 1)), ((1, 1), (5, 7), (1, 1)), ((1, 4), (4, 1), (2, 1, 4)),
            ((3,), (4,), (2, 3)), ((2, 1), (1, 2), (6, 2, 5))]


def _random_q2(rng, n):
    out = []
    for _ in range(n):
        shape = _random_shape(rng, 4)
        strides = list(_contiguous(shape))
        if rng.random() < 0.4:  # strides of some view: any numbers will do
            strides = [rng.choice([0, 1, 2, 3, 8, 12, 60]) for _ in shape]
        new = [rng.choice([2, 3, 5]) if n == 1 and rng.random() < 0.6 else n for n in shape]
        # new dims in front are never of size 1: PyTorch gives those a stride of its own (unused)
        new = [rng.choice([2, 4]) for _ in range(rng.randint(0, 2))] + new
        out.append((shape, tuple(strides), tuple(new)))
    return out


def _visible_q3():
    return [("int64", "float16"), ("float32", "float32"), ("bool", "bool"), ("bool", "uint8"),
            ("int32", "int64"), ("uint8", "int8"), ("int8", "uint8"), ("uint8", "int16"),
            ("float16", "float64"), ("float64", "int64"), ("bool", "float16"), ("int8", "int16")]


def _random_q3(rng, n):
    return [(rng.choice(DTYPES), rng.choice(DTYPES)) for _ in range(n)]


# ---- the exercise ---------------------------------------------------------------------------
EXERCISE = Exercise(
    name="04_broadcasting",
    title="Broadcasting: which shape, which strides, which dtype?",
    forbidden_calls=("numpy.*",),
    forbidden_imports=("minitorch", "torch", "jax", "tensorflow"),
    forbidden_reason="these three functions must be plain Python: numpy.broadcast_shapes, "
                     "numpy.broadcast_to and numpy.promote_types compute the answers for you, "
                     "which is what this exercise asks you to do",
    questions=[
        QuestionSpec(
            id="q1", function="broadcast_shapes", title="(a) the shape two or more tensors broadcast to",
            solution_cell="broadcast_shapes", test_cell="test_broadcast_shapes",
            visible_cases=_visible_q1, random_cases=_random_q1,
            raises=(RuntimeError,),
            hints=[
                "Align the shapes from the right: pad the shorter one with 1s in front. Then, "
                "dim by dim, two sizes agree when they are equal or one of them is 1 (the "
                "result takes the other).",
                "With more than two shapes, do it pairwise from the left: broadcast the first two, "
                "then that result with the third, and so on. No shapes at all give ().",
                "Check the dims from the last to the first (PyTorch does, so it names the "
                "rightmost mismatch). When two sizes m (so far) and n (the next shape) disagree at "
                "dim d of the padded shapes, raise RuntimeError(f\"The size of tensor a ({m}) must match the size of "
                "tensor b ({n}) at non-singleton dimension {d}\"). A size 0 broadcasts with 1 only.",
            ]),
        QuestionSpec(
            id="q2", function="expand_strides", title="(b) the strides of an expanded view",
            solution_cell="expand_strides", test_cell="test_expand_strides",
            visible_cases=_visible_q2, random_cases=_random_q2,
            hints=[
                "expand copies nothing: a stretched dim reads the same memory again and again, "
                "so one step along it moves 0 elements.",
                "new_shape may have more dims than shape: they are new dims in front. Each of "
                "them gets stride 0.",
                "Pair each old dim with the last len(shape) new sizes: a dim whose size stays "
                "the same keeps its stride; a size-1 dim stretched to n gets stride 0.",
            ]),
        QuestionSpec(
            id="q3", function="result_dtype", title="(c) the dtype of a + b",
            solution_cell="result_dtype", test_cell="test_result_dtype",
            visible_cases=_visible_q3, random_cases=_random_q3,
            hints=[
                "First the category: bool < integers < floating point. When the two dtypes are "
                "in different categories, the higher one's dtype is the result, however narrow "
                "(int64 with float16 gives float16).",
                "In the same category the wider dtype wins (int16 with int64 gives int64; "
                "float16 with float32 gives float32).",
                "One special case: uint8 and int8 (0..255 and -128..127) fit neither in the "
                "other; PyTorch picks int16. Return the dtype's name, a str.",
            ]),
    ],
)
