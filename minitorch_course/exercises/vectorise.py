"""Exercise 17, vectorise: three computations written with whole-array NumPy operations, with
no Python loop anywhere: pairwise squared distances, a numerically stable softmax of each row,
and one-hot encoding.

Inputs are nested lists; answers are NumPy arrays (compared by shape, dtype and values within
a float tolerance). Each question has `no_loops=True`: besides being right, the learner's
function, and every function of theirs it calls, may contain no for/while loop, comprehension
or recursion. That is a static check of the source (spec.python_loops), the same in check()
and in the grader (which reads the submitted cells, never trusting the sandbox for it); NumPy's
helpers that loop in Python for you (vectorize, apply_along_axis, frompyfunc, fromiter) are
forbidden calls.
The reference solutions are the solution cells of solutions/17_vectorise.ipynb.
"""
from __future__ import annotations

from ..spec import Exercise, QuestionSpec


# ---- inputs -------------------------------------------------------------------------------
def _matrix(rng, n, d, lo=-10, hi=10):
    return [[rng.randint(lo * 4, hi * 4) / 4 for _ in range(d)] for _ in range(n)]


def _visible_q1():
    return [
        ([[0.0, 0.0], [1.0, 1.0]], [[1.0, 0.0]]),
        ([[1.0, 2.0, 3.0]], [[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]]),
        ([[0.0], [3.0], [-1.0]], [[1.0], [2.0]]),
        ([[1.0, -1.0], [2.0, 0.5], [0.0, 0.0], [4.0, 4.0]], [[0.0, 1.0], [2.0, 0.5], [-3.0, 3.0]]),
    ]


def _random_q1(rng, n):
    return [(_matrix(rng, rng.randint(1, 12), d := rng.randint(1, 6)), _matrix(rng, rng.randint(1, 12), d))
            for _ in range(n)]


def _visible_q2():
    return [
        ([[0.0, 0.0]],), ([[1.0, 2.0, 3.0]],), ([[1.0, 2.0], [3.0, 3.0], [-1.0, 5.0]],),
        ([[1000.0, 1001.0, 999.0]],),           # exp(1000) overflows: subtract the row's max first
        ([[-1000.0, -1000.0]],), ([[5.0]],), ([[0.0, 1.0, 2.0, 3.0], [10.0, 0.0, 0.0, 0.0]],),
    ]


def _random_q2(rng, n):
    out = []
    for _ in range(n):
        scale = rng.choice([1, 1, 10, 400])
        out.append(([[rng.randint(-8, 8) / 4 * scale for _ in range(k)] for k in [rng.randint(1, 8)]
                     for _ in range(rng.randint(1, 10))],))
    return out


def _visible_q3():
    return [([2, 0], 3), ([0, 1, 2], 3), ([1, 1, 1], 2), ([3], 5), ([], 4), ([0, 4, 2, 4], 5)]


def _random_q3(rng, n):
    out = []
    for _ in range(n):
        k = rng.randint(1, 10)
        out.append(([rng.randrange(k) for _ in range(rng.randint(0, 15))], k))
    return out


# ---- the exercise ---------------------------------------------------------------------------
EXERCISE = Exercise(
    name="17_vectorise",
    title="Vectorise: no Python loops, the whole array at once",
    forbidden_calls=("numpy.vectorize", "numpy.apply_along_axis", "numpy.apply_over_axes",
                     "numpy.frompyfunc", "numpy.fromiter", "numpy.piecewise"),
    forbidden_imports=("minitorch", "torch", "scipy", "sklearn", "jax", "tensorflow", "numba"),
    forbidden_reason="vectorise with NumPy's whole-array operations: helpers that call a Python "
                     "function per element (np.vectorize, apply_along_axis, ...) are loops in "
                     "disguise, and SciPy or minitorch would do the work for you",
    questions=[
        QuestionSpec(
            id="q1", function="pairwise_sq_dists", title="(a) pairwise squared distances",
            solution_cell="pairwise_sq_dists", test_cell="test_pairwise_sq_dists",
            visible_cases=_visible_q1, random_cases=_random_q1,
            no_loops=True,
            hints=[
                "Turn both into float64 arrays: X (n, d), Y (m, d). You need every row of X against "
                "every row of Y: an (n, m, d) array of differences, made by broadcasting.",
                "X[:, None, :] has shape (n, 1, d) and Y[None, :, :] has shape (1, m, d): their "
                "difference is (n, m, d). Square it and sum over the last axis.",
                "(diff ** 2).sum(axis=2). (Another way: |x|^2 - 2 x.y + |y|^2 with X @ Y.T, which "
                "needs no (n, m, d) array.)",
            ]),
        QuestionSpec(
            id="q2", function="softmax_rows", title="(b) softmax of each row, stably",
            solution_cell="softmax_rows", test_cell="test_softmax_rows",
            visible_cases=_visible_q2, random_cases=_random_q2,
            no_loops=True,
            hints=[
                "softmax(x)_j = exp(x_j) / sum_k exp(x_k), per row: reduce along axis=1 and keep the "
                "axis (keepdims=True) so that the (n, 1) result broadcasts against (n, k).",
                "exp(1000.0) is inf. Subtracting the row's maximum first changes nothing in the "
                "result (the factor cancels) and makes the largest exponent exp(0) = 1.",
                "z = x - x.max(axis=1, keepdims=True); e = np.exp(z); e / e.sum(axis=1, keepdims=True).",
            ]),
        QuestionSpec(
            id="q3", function="one_hot", title="(c) one-hot encoding",
            solution_cell="one_hot", test_cell="test_one_hot",
            visible_cases=_visible_q3, random_cases=_random_q3,
            no_loops=True,
            hints=[
                "Compare every label with every class id at once: labels as a column (n, 1) against "
                "np.arange(num_classes) as a row (1, num_classes) broadcasts to (n, num_classes).",
                "The comparison gives booleans; .astype(np.int64) makes them 0 and 1. An empty list "
                "of labels must still give shape (0, num_classes): np.asarray([]) is float, so give "
                "it dtype=np.int64.",
                "Another way: np.eye(num_classes, dtype=np.int64)[labels], indexing rows of the "
                "identity matrix with an int64 array.",
            ]),
    ],
)
