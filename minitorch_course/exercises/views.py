"""Exercise 05, views: transpose, slice and view as new (shape, strides, offset) over one storage.

The learner writes three small functions in plain Python; the reference solutions are the
solution cells of solutions/05_views.ipynb. view_strides is PyTorch's own rule (computeStride in
aten/src/ATen/TensorUtils.cpp): the strides that let a tensor be viewed with a new shape without
copying, or None when no strides can. The notebook then plugs the learner's view_strides into
minitorch's Tensor.view and checks the learner's transpose and slice against minitorch's real
views.

Inputs never have a size-1 dim in the *new* shape of view_strides: the stride of a size-1 dim is
never used, so any number would be right there, and a comparison would have to allow that.
"""
from __future__ import annotations

import math

from ..spec import Exercise, QuestionSpec


# ---- inputs -------------------------------------------------------------------------------
# Real minitorch views of x = minitorch.arange(24).reshape(2, 3, 4): (expression, shape, stride(),
# storage_offset()); tests/test_course_feedback.py checks that minitorch still produces them.
VIEWS = [
    ("x", (2, 3, 4), (12, 4, 1), 0),
    ("x.permute(2, 1, 0)", (4, 3, 2), (1, 4, 12), 0),
    ("x.transpose(0, 1)", (3, 2, 4), (4, 12, 1), 0),
    ("x.permute(1, 2, 0)", (3, 4, 2), (4, 1, 12), 0),
    ("x[:, 1:]", (2, 2, 4), (12, 4, 1), 4),
    ("x[..., ::2]", (2, 3, 2), (12, 4, 2), 0),
    ("x[:, :, 1:3]", (2, 3, 2), (12, 4, 1), 1),
    ("x.unsqueeze(1)", (2, 1, 3, 4), (12, 12, 4, 1), 0),
    ("minitorch.arange(4).expand(3, 4)", (3, 4), (0, 1), 0),
]


def _contiguous(shape):
    strides, step = [], 1
    for n in reversed(shape):
        strides.append(step)
        step *= n
    return tuple(reversed(strides))


def _random_shape(rng, max_ndim=4, sizes=(1, 2, 3, 4, 5)):
    return tuple(rng.choice(sizes) for _ in range(rng.randint(1, max_ndim)))


def _random_layout(rng, shape):
    """Strides of some view with this shape: contiguous, permuted, stepped, expanded, ..."""
    strides = list(_contiguous(shape))
    how = rng.random()
    if how < 0.3 and len(shape) >= 2:
        i, j = rng.sample(range(len(shape)), 2)
        strides[i], strides[j] = strides[j], strides[i]
    elif how < 0.5:
        k = rng.randrange(len(shape))
        strides = [s * rng.choice([2, 3]) if d <= k else s for d, s in enumerate(strides)]
    elif how < 0.6:
        strides[rng.randrange(len(shape))] = 0
    elif how < 0.7:
        strides = [rng.choice([0, 1, 2, 3, 5, 7, 12]) for _ in shape]
    for d, n in enumerate(shape):  # the stride of a size-1 dim is anything
        if n == 1 and rng.random() < 0.5:
            strides[d] = rng.choice([0, 1, 7, 100])
    return tuple(strides)


def _visible_q1():
    cases = [((2, 3, 4), (12, 4, 1), 0, -1), ((2, 3), (3, 1), 0, 1), ((2, 3), (3, 1), 1, 0),
             ((5,), (1,), 0, 0), ((5,), (1,), 0, -1), ((2, 3, 4), (12, 4, 1), 1, 1),
             ((2, 3, 4, 5), (60, 20, 5, 1), -3, -1), ((3, 4), (0, 1), 0, 1), ((2, 1, 3), (3, 99, 1), 1, 2)]
    cases += [(shape, stride, 0, -1) for _e, shape, stride, _o in VIEWS]
    return cases


def _random_q1(rng, n):
    out = []
    for _ in range(n):
        shape = _random_shape(rng, 5)
        nd = len(shape)
        out.append((shape, _random_layout(rng, shape), rng.randint(-nd, nd - 1), rng.randint(-nd, nd - 1)))
    return out


def _visible_q2():
    return [((2, 10), (10, 1), 0, 1, 2, 8, 3), ((10,), (1,), 0, 0, 2, None, 1), ((10,), (1,), 0, 0, None, 3, 1),
            ((10,), (1,), 0, 0, None, None, 2), ((10,), (1,), 0, 0, -3, None, 1), ((10,), (1,), 5, 0, 1, -1, 4),
            ((2, 3, 4), (12, 4, 1), 0, 0, 1, None, 1), ((2, 3, 4), (12, 4, 1), 0, 2, 1, 3, 1),
            ((2, 3, 4), (12, 4, 1), 0, -1, None, None, 2), ((4, 3), (1, 4), 0, 0, 1, 100, 2),
            ((6,), (2,), 3, 0, -100, 4, 3), ((3, 4), (0, 1), 0, 0, 1, 2, 1), ((5, 5), (5, 1), 0, 1, 4, None, 7)]


def _random_q2(rng, n):
    out = []
    while len(out) < n:
        shape = _random_shape(rng, 4, sizes=(1, 2, 3, 5, 8, 10))
        strides = _random_layout(rng, shape)
        dim = rng.randrange(len(shape))
        size = shape[dim]
        start = rng.choice([None, rng.randint(-size - 2, size), rng.randint(0, size - 1)])
        stop = rng.choice([None, rng.randint(-size, size + 3), rng.randint(1, size)])
        step = rng.choice([None, 1, 1, 2, 3, 5])
        if not range(size)[slice(start, stop, step)]:
            continue  # empty slices: PyTorch and NumPy disagree on their offset; not asked
        d = dim - len(shape) if rng.random() < 0.3 else dim
        out.append((shape, strides, rng.choice([0, 0, 3, 17]), d, start, stop, step))
    return out


def _regroup(rng, shape):
    """A new shape with the same number of elements and no size-1 dims: adjacent dims merged,
    dims split into factors, or a random factorization."""
    sizes = [n for n in shape if n != 1]
    how = rng.random()
    if how < 0.35 and len(sizes) >= 2:
        i = rng.randrange(len(sizes) - 1)
        sizes[i:i + 2] = [sizes[i] * sizes[i + 1]]
    elif how < 0.7:
        split = []
        for n in sizes:
            f = rng.choice([f for f in (2, 3) if n % f == 0 and n > f] or [n])
            split += [f, n // f] if f != n and rng.random() < 0.6 else [n]
        sizes = split
    else:
        numel, sizes = math.prod(shape), []
        while numel > 1:
            f = rng.choice([f for f in range(2, numel + 1) if numel % f == 0][:3])
            sizes.append(f)
            numel //= f
    return tuple(sizes)


def _visible_q3():
    cases = [((4, 3), (1, 4), (2, 2, 3)), ((4, 3), (1, 4), (12,)), ((2, 3, 4), (12, 4, 1), (6, 4)),
             ((2, 3, 4), (12, 4, 1), (24,)), ((4, 3, 2), (1, 4, 12), (24,)), ((4, 3, 2), (1, 4, 12), (2, 2, 3, 2)),
             ((2, 3, 2), (12, 4, 2), (6, 2)), ((2, 3, 2), (12, 4, 2), (2, 6)), ((2, 3, 2), (12, 4, 1), (6, 2)),
             ((2, 3, 2), (12, 4, 1), (2, 6)), ((3, 4), (0, 1), (3, 2, 2)), ((3, 4), (0, 1), (12,)),
             ((2, 1, 3), (3, 7, 1), (6,)), ((2, 1, 3), (1, 5, 2), (6,)), ((1, 1), (3, 9), ()), ((), (), ()),
             ((6,), (2,), (2, 3)), ((2, 2, 2), (4, 2, 1), (8,))]
    return cases


def _random_q3(rng, n):
    out = []
    for _ in range(n):
        shape = _random_shape(rng, 4)
        out.append((shape, _random_layout(rng, shape), _regroup(rng, shape)))
    return out


# ---- the exercise ---------------------------------------------------------------------------
EXERCISE = Exercise(
    name="05_views",
    title="Views: transpose, slice and view, without copying",
    forbidden_calls=("numpy.*",),
    forbidden_imports=("minitorch", "torch", "jax", "tensorflow"),
    forbidden_reason="these three functions must be plain Python: NumPy and minitorch make the "
                     "views for you, which is what this exercise asks you to do",
    questions=[
        QuestionSpec(
            id="q1", function="transpose_strides", title="(a) transpose: swap two dims",
            solution_cell="transpose_strides", test_cell="test_transpose_strides",
            visible_cases=_visible_q1, random_cases=_random_q1,
            hints=[
                "A transpose moves no data: the new tensor walks the same storage, with two dims' "
                "sizes and strides swapped.",
                "Make negative dims non-negative first: dim % len(shape) turns -1 into the last dim.",
                "Copy shape and strides into lists, swap the items at dim0 and dim1 in both, and "
                "return (tuple(shape), tuple(strides)).",
            ]),
        QuestionSpec(
            id="q2", function="slice_view", title="(b) slicing: a new size, stride and offset",
            solution_cell="slice_view", test_cell="test_slice_view",
            visible_cases=_visible_q2, random_cases=_random_q2,
            hints=[
                "Only the sliced dim changes, and the offset: the view starts at the slice's first "
                "element, and one step along the dim now skips `step` old steps.",
                "Python resolves None, negatives and out-of-range bounds for you: "
                "slice(start, stop, step).indices(size) gives (first, stop, step) clamped to the dim; "
                "len(range(first, stop, step)) is the new size.",
                "New offset = offset + first * strides[dim]; new stride = strides[dim] * step. "
                "dim may be negative (-1 is the last): Python's list indexing handles that.",
            ]),
        QuestionSpec(
            id="q3", function="view_strides", title="(c) view: PyTorch's rule, or None",
            solution_cell="view_strides", test_cell="test_view_strides",
            visible_cases=_visible_q3, random_cases=_random_q3,
            hints=[
                "Cut the old dims into chunks: dims d-1 and d are in the same chunk when "
                "strides[d-1] == strides[d] * shape[d] (one step along d-1 is a full run of d). "
                "Size-1 old dims never end a chunk. A view exists only when the new dims can be "
                "grouped, from the right, into runs whose sizes multiply to each chunk's size.",
                "Within a chunk the elements are evenly spaced by the chunk's last stride, like a "
                "small contiguous tensor: the new dims of its run get contiguous strides, scaled by "
                "that stride.",
                "Walk the old dims from the last with a running product of their sizes; at each "
                "chunk's end, take new dims from the right while their running product is smaller "
                "than the chunk's size, giving each the stride (product so far) * (chunk's last "
                "stride). If the products differ, return None; at the end every new dim must be used.",
            ]),
    ],
)
