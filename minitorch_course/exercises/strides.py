"""Exercise 03, strides: where does element [i, j, k] of a tensor live in memory?

The learner writes three small functions in plain Python; the reference solutions are the
solution cells of solutions/03_strides.ipynb. Inputs come from fixed lists, from real minitorch
views (their .shape, .stride() and .storage_offset()), and from seeded random generators (the
layouts of (b) and (c) start from the instructor's contiguous_strides: generators_use); some
sizes are beyond 2**31 on purpose: the answer then needs Python's exact integers, and code that
builds a NumPy array to read its strides fails there.
"""
from __future__ import annotations

from ..spec import Exercise, QuestionSpec


# ---- inputs -------------------------------------------------------------------------------
HUGE = (2 ** 31, 2 ** 33, 2 ** 40, 3 * 2 ** 35)


# Real minitorch views of x = minitorch.arange(24).reshape(2, 3, 4): (expression, shape, stride(),
# storage_offset()). Kept as data so that the answer key never depends on the library at grading
# time; tests/test_course_feedback.py checks that minitorch still produces exactly these.
VIEWS = [
    ("x", (2, 3, 4), (12, 4, 1), 0),
    ("x.permute(2, 1, 0)", (4, 3, 2), (1, 4, 12), 0),  # every dim reversed (x.T is for 2-D only)
    ("x.transpose(0, 1)", (3, 2, 4), (4, 12, 1), 0),
    ("x.permute(1, 2, 0)", (3, 4, 2), (4, 1, 12), 0),
    ("x[:, 1]", (2, 4), (12, 1), 4),
    ("x[..., ::2]", (2, 3, 2), (12, 4, 2), 0),
    ("x[1:, :, 1:3]", (1, 3, 2), (12, 4, 1), 13),
    ("x.unsqueeze(1)", (2, 1, 3, 4), (12, 12, 4, 1), 0),
    ("x[:, :1]", (2, 1, 4), (12, 4, 1), 0),
    ("x[0, 0]", (4,), (1,), 0),
    ("x[1, 2, 3]", (), (), 23),
    ("x.reshape(6, 4)[::2]", (3, 4), (8, 1), 0),
    ("minitorch.arange(4).expand(3, 4)", (3, 4), (0, 1), 0),
    ("minitorch.as_strided(minitorch.arange(24), (3, 3), (4, 1), 2)", (3, 3), (4, 1), 2),
]


def _views():
    return VIEWS


def _random_shape(rng, max_ndim=5, max_size=5, huge=0.08, ones=0.25):
    shape = []
    for _ in range(rng.randint(0, max_ndim)):
        r = rng.random()
        if r < huge:
            shape.append(rng.choice(HUGE))
        elif r < huge + ones:
            shape.append(1)
        else:
            shape.append(rng.randint(2, max_size))
    return tuple(shape)


def _visible_q1():
    return [((2, 3, 4),), ((5,),), ((),), ((3, 1, 2),), ((1, 1),), ((2, 2, 2, 2),),
            ((4, 3),), ((7, 1),), ((1, 6),), ((2 ** 33, 2 ** 33, 2 ** 33),)]


def _random_q1(rng, n):
    return [(_random_shape(rng, max_ndim=6),) for _ in range(n)]


def _visible_q2():
    cases = [((1, 2), (3, 1)), ((0, 0, 0), (12, 4, 1), 0), ((1, 2, 3), (12, 4, 1), 0),
             ((1, 2), (1, 3), 0), ((2,), (2,), 1), ((), (), 7), ((2, 3), (0, 1), 0),
             ((1, 1, 1), (12, 4, 1), 5), ((3, 0), (2 ** 40, 1), 0)]
    for _name, shape, stride, offset in _views():
        last = tuple(n - 1 for n in shape)
        mid = tuple(n // 2 for n in shape)
        cases += [(last, stride, offset), (mid, stride, offset)]
    return cases


def _random_q2(rng, n, ref):
    out = []
    for _ in range(n):
        shape = _random_shape(rng, huge=0.05)
        strides = list(ref.contiguous_strides(shape))
        how = rng.random()
        if how < 0.3:
            rng.shuffle(strides)
        elif how < 0.6:
            strides = [rng.choice([0, 1, 2, 3, 5, 8, 13, 60, 2 ** 40]) for _ in shape]
        index = tuple(rng.randrange(size) for size in shape)
        if rng.random() < 0.3:
            out.append((index, tuple(strides)))
        else:
            out.append((index, tuple(strides), rng.choice([0, 1, 4, 13, 1000, 2 ** 35])))
    return out


def _visible_q3():
    cases = [((2, 3, 4), (12, 4, 1)), ((2, 3), (1, 2)), ((3, 1, 2), (2, 99, 1)),
             ((3, 4), (0, 1)), ((1, 4), (0, 1)), ((4, 1), (1, 1)), ((), ()),
             ((2, 3), (6, 2)), ((2, 3), (4, 1)), ((5,), (1,)), ((5,), (2,)), ((1,), (7,)),
             ((2 ** 33, 2 ** 33), (2 ** 33, 1)), ((2 ** 33, 2 ** 33), (1, 2 ** 33))]
    cases += [(shape, stride) for _name, shape, stride, _offset in _views()]
    return cases


def _random_q3(rng, n, ref):
    out = []
    for _ in range(n):
        shape = _random_shape(rng, huge=0.05, ones=0.3)
        strides = list(ref.contiguous_strides(shape))
        how = rng.random()
        big = [i for i, s in enumerate(shape) if s != 1]
        ones = [i for i, s in enumerate(shape) if s == 1]
        if how < 0.3 and ones:        # any stride on a size-1 dim: still contiguous
            for i in ones:
                strides[i] = rng.choice([0, 1, 7, 100, 2 ** 40])
        elif how < 0.5 and len(big) >= 2:   # transposed: not contiguous
            i, j = rng.sample(big, 2)
            strides[i], strides[j] = strides[j], strides[i]
        elif how < 0.65 and big:     # a gap, as after slicing with a step
            strides[rng.choice(big)] *= rng.choice([2, 3])
        elif how < 0.8 and big:      # an expanded dim
            strides[rng.choice(big)] = 0
        elif how < 0.9:
            strides = [rng.randint(0, 30) for _ in shape]
        out.append((shape, tuple(strides)))
    return out


# ---- the exercise ---------------------------------------------------------------------------
EXERCISE = Exercise(
    name="03_strides",
    title="Strides: where does element [i, j, k] live?",
    forbidden_calls=("numpy.*",),
    forbidden_types=("builtins.memoryview",),  # memoryview(...).cast(...).strides computes strides
    forbidden_imports=("minitorch", "torch", "jax", "tensorflow"),
    forbidden_reason="these three functions must be plain Python: NumPy, minitorch and memoryview "
                     "compute strides for you, which is what this exercise asks you to do",
    questions=[
        QuestionSpec(
            id="q1", function="contiguous_strides", title="(a) strides of a contiguous tensor",
            solution_cell="contiguous_strides", test_cell="test_contiguous_strides",
            visible_cases=_visible_q1, random_cases=_random_q1,
            hints=[
                "The last dim always has stride 1: neighbours along it sit next to each other "
                "in memory.",
                "Walk the shape from the last dim to the first, keeping a running product of "
                "the sizes you have passed: that product is the stride of the next dim.",
                "For (2, 3, 4): stride[2] = 1, stride[1] = 4, stride[0] = 3 * 4 = 12. Return a "
                "tuple of Python ints (like PyTorch's .stride()), and () for a 0-d shape ().",
            ]),
        QuestionSpec(
            id="q2", function="flat_index", title="(b) from an index to a position in storage",
            solution_cell="flat_index", test_cell="test_flat_index",
            visible_cases=lambda ref: _visible_q2(), random_cases=_random_q2,
            generators_use=("contiguous_strides",),
            hints=[
                "One step along dim d moves strides[d] elements through memory.",
                "So index (i, j, k) lives at offset + i*strides[0] + j*strides[1] + k*strides[2].",
                "zip(index, strides) pairs each index with its stride. A 0-d tensor has index () "
                "and lives at `offset`; the offset defaults to 0.",
            ]),
        QuestionSpec(
            id="q3", function="is_contiguous", title="(c) PyTorch's is_contiguous rule",
            solution_cell="is_contiguous", test_cell="test_is_contiguous",
            visible_cases=lambda ref: _visible_q3(), random_cases=_random_q3,
            generators_use=("contiguous_strides",),
            hints=[
                "Contiguous means the strides are those of contiguous_strides(shape), except "
                "that dims of size 1 are ignored: you never step along them.",
                "Walk from the last dim to the first with an expected stride that starts at 1. "
                "Skip size-1 dims; every other dim must have exactly the expected stride, which "
                "you then multiply by that dim's size.",
                "An expanded dim (stride 0), a transposed pair or a gap from a step slice breaks "
                "the rule; a size-1 dim with any stride does not. Return a bool.",
            ]),
    ],
)
