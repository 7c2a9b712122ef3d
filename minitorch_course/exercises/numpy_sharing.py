"""Exercise 07, NumPy sharing: do two views of one buffer share memory?

A view of a buffer is described as NumPy describes it (its __array_interface__): a byte offset
into the buffer, a shape, strides in bytes (possibly negative or 0) and an itemsize. The learner
writes, in plain Python, the byte bounds of a view (numpy.lib.array_utils.byte_bounds), NumPy's
quick test (np.may_share_memory: do the bounds overlap?) and the exact one (np.shares_memory: is
there a byte both views use?). The reference solutions are the solution cells of
solutions/07_numpy_sharing.ipynb; tests check them against NumPy on real arrays over one buffer.
"""
from __future__ import annotations

from ..spec import Exercise, QuestionSpec


# ---- inputs -------------------------------------------------------------------------------
# Views of a float32 array x = np.arange(24, dtype=np.float32).reshape(4, 6) (offset 0): the
# notebook builds them with NumPy and prints their descriptions.
X = (0, (4, 6), (24, 4), 4)
X_T = (0, (6, 4), (4, 24), 4)
ROW1 = (24, (6,), (4,), 4)
COL0 = (0, (4,), (24,), 4)
EVEN_COLS = (0, (4, 3), (24, 8), 4)
ODD_COLS = (4, (4, 3), (24, 8), 4)
FLIPPED = (92, (4, 6), (-24, -4), 4)
LAST_ROW = (72, (6,), (4,), 4)
TOP = (0, (2, 6), (24, 4), 4)
BOTTOM = (48, (2, 6), (24, 4), 4)
BYTES = (5, (3,), (1,), 1)                # x.reshape(-1).view(np.uint8)[5:8]
BROADCAST = (8, (5, 4), (0, 4), 4)        # np.broadcast_to(x[0, 2:], (5, 4)): stride 0
SCALAR = (44, (), (), 4)                  # x[1, 5], a 0-d view
VIEWS = [X, X_T, ROW1, COL0, EVEN_COLS, ODD_COLS, FLIPPED, LAST_ROW, TOP, BOTTOM, BYTES, BROADCAST, SCALAR]


def _visible_q1():
    return [(v,) for v in VIEWS] + [((40, (3, 2), (-12, 4), 4),), ((0, (1, 1), (7, 99), 8),),
                                    ((3, (2, 2, 2), (1, 2, 4), 1),), ((16, (3,), (-8,), 8),)]


def _random_view(rng, room=48):
    itemsize = rng.choice([1, 2, 4, 8])
    shape = tuple(rng.randint(1, 4) for _ in range(rng.randint(0, 3)))
    strides = []
    for _ in shape:
        how = rng.random()
        if how < 0.6:
            strides.append(itemsize * rng.choice([1, 2, 3, 4, 6]))
        elif how < 0.75:
            strides.append(-itemsize * rng.choice([1, 2, 3]))
        elif how < 0.85:
            strides.append(0)
        else:
            strides.append(rng.choice([1, 3, 5, 12, -7]))
    below = -sum(min(0, (n - 1) * s) for n, s in zip(shape, strides))
    return (below + rng.randint(0, room), shape, tuple(strides), itemsize)


def _random_q1(rng, n):
    return [(_random_view(rng),) for _ in range(n)]


def _visible_pairs():
    return [(X, X_T), (ROW1, COL0), (EVEN_COLS, ODD_COLS), (TOP, BOTTOM), (X, FLIPPED), (LAST_ROW, TOP),
            (LAST_ROW, FLIPPED), (ROW1, BYTES), (COL0, BYTES), (BROADCAST, ROW1), (BROADCAST, TOP),
            (SCALAR, ROW1), (SCALAR, EVEN_COLS), (SCALAR, ODD_COLS), (ODD_COLS, ROW1),
            ((0, (3,), (8,), 4), (4, (3,), (8,), 4)), ((0, (3,), (8,), 4), (2, (3,), (8,), 4)),
            ((0, (2,), (4,), 4), (8, (2,), (4,), 4))]


def _random_pairs(rng, n):
    out = []
    for _ in range(n):
        a = _random_view(rng, 24)
        if rng.random() < 0.4:  # the same layout, shifted: interleaved or overlapping
            b = (a[0] + rng.randint(1, 12), a[1], a[2], a[3])
        else:
            b = _random_view(rng, 24)
        out.append((a, b))
    return out


# ---- the exercise ---------------------------------------------------------------------------
EXERCISE = Exercise(
    name="07_numpy_sharing",
    title="NumPy sharing: do two views of one buffer share memory?",
    forbidden_calls=("numpy.*",),
    forbidden_imports=("minitorch", "torch", "jax", "tensorflow"),
    forbidden_reason="these three functions must be plain Python: NumPy answers these questions "
                     "for you (np.shares_memory), which is what this exercise asks you to do",
    questions=[
        QuestionSpec(
            id="q1", function="byte_bounds", title="(a) the bytes a view spans",
            solution_cell="byte_bounds", test_cell="test_byte_bounds",
            visible_cases=_visible_q1, random_cases=_random_q1,
            hints=[
                "The first element is at byte `offset`. Walking a dim of size n from its first element "
                "to its last moves (n - 1) * stride bytes: forward for a positive stride, backward for "
                "a negative one, not at all for stride 0.",
                "Start with low = high = offset; for each dim add (n - 1) * stride to high when it is "
                "positive, to low when it is negative. A 0-d view (shape ()) is just its one element.",
                "high is then where the last element *starts*: return (low, high + itemsize), one past "
                "the last byte.",
            ]),
        QuestionSpec(
            id="q2", function="may_share_memory", title="(b) NumPy's quick test: overlapping bounds",
            solution_cell="may_share_memory", test_cell="test_may_share_memory",
            visible_cases=_visible_pairs, random_cases=_random_pairs,
            hints=[
                "np.may_share_memory only compares the byte bounds of the two views: use your "
                "byte_bounds.",
                "Two half-open ranges [a_low, a_high) and [b_low, b_high) overlap when each starts "
                "before the other ends: a_low < b_high and b_low < a_high. Return a bool.",
            ]),
        QuestionSpec(
            id="q3", function="shares_memory", title="(c) the exact test: a byte both views use",
            solution_cell="shares_memory", test_cell="test_shares_memory",
            visible_cases=_visible_pairs, random_cases=_random_pairs,
            hints=[
                "Overlapping bounds are not enough: x[:, ::2] and x[:, 1::2] span the same bytes but "
                "use none in common. Look at the bytes each view really uses.",
                "Every index (i, j, ...) of a view is an element starting at offset + i * strides[0] + "
                "j * strides[1] + ..., and it uses itemsize bytes from there. itertools.product("
                "*[range(n) for n in shape]) gives every index (one, (), for a 0-d view).",
                "Put the bytes each view uses in a set (range(start, start + itemsize) per element); the "
                "views share memory when the two sets have a byte in common: not a.isdisjoint(b).",
            ]),
    ],
)
