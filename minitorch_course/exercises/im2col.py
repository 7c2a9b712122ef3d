"""Exercise 15, im2col: the output shape of a 2-D convolution, and the unfolding of an image
into columns that turns a convolution into one matrix product.

conv2d_output_shape is PyTorch's formula (padding, dilation, stride; ints or pairs). im2col
works on one image as nested lists (channels, height, width) and returns the
(channels * kh * kw, out_h * out_w) matrix of torch.nn.functional.unfold, as nested lists,
in the same order. NumPy is allowed (padding, slicing) but not its sliding-window helpers,
which would do the unfolding itself. The values are copies of the input's (or 0.0 for
padding), so they are compared exactly. The notebook then multiplies the learner's columns
by a weight matrix and compares with minitorch.nn.functional.conv2d.
The reference solutions are the solution cells of solutions/15_im2col.ipynb.
"""
from __future__ import annotations

from ..spec import Exercise, QuestionSpec


# ---- inputs -------------------------------------------------------------------------------
def _maybe_pair(rng, lo, hi):
    if rng.random() < 0.3:
        return (rng.randint(lo, hi), rng.randint(lo, hi))
    return rng.randint(lo, hi)


def _first(v, i):
    return v[i] if isinstance(v, tuple) else v


def _visible_q1():
    return [
        (28, 28, 3), (28, 28, 5), (5, 5, 3, 1, 1), (32, 32, 3, 2, 1), (7, 7, 3, 2),
        (8, 8, 3, 2),                                            # floor: 3.5 -> 3
        (4, 6, (1, 3)), (10, 12, 3, (2, 3), (1, 0)), (9, 9, 3, 1, 0, 2), (9, 9, 3, 1, 2, 2),
        (1, 1, 1), (224, 224, 7, 2, 3), (6, 6, 6), (5, 7, (5, 7), 1, 0, 1),
    ]


def _random_q1(rng, n):
    out = []
    while len(out) < n:
        h, w = rng.randint(1, 40), rng.randint(1, 40)
        k, s = _maybe_pair(rng, 1, 7), _maybe_pair(rng, 1, 4)
        p, d = _maybe_pair(rng, 0, 3), _maybe_pair(rng, 1, 3)
        case = (h, w, k, s, p, d)
        if all(size + 2 * _first(p, i) - _first(d, i) * (_first(k, i) - 1) >= 1
               for i, size in enumerate((h, w))):
            out.append(case)
    return out


def _image(rng, c, h, w):
    return [[[float(rng.randint(-9, 9)) for _ in range(w)] for _ in range(h)] for _ in range(c)]


_A = [[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]]


def _visible_q2():
    two = [[[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0], [7.0, 8.0]]]
    return [
        (_A, 2), (_A, 3), (_A, 1), (_A, 2, 1), (_A, 3, 1, 1), (_A, 2, 2, 1),
        (two, 1), (two, 2), (two, 2, 1, 1),
        ([[[1.0, 2.0, 3.0, 4.0]]], (1, 2), (1, 2)),              # pairs
        ([[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]], (2, 1), 1, (0, 1)),
    ]


def _random_q2(rng, n):
    out = []
    while len(out) < n:
        c, h, w = rng.randint(1, 3), rng.randint(1, 6), rng.randint(1, 6)
        k, s, p = _maybe_pair(rng, 1, 3), _maybe_pair(rng, 1, 3), _maybe_pair(rng, 0, 2)
        if all(size + 2 * _first(p, i) >= _first(k, i) for i, size in enumerate((h, w))):
            out.append((_image(rng, c, h, w), k, s, p))
    return out


# ---- the exercise ---------------------------------------------------------------------------
EXERCISE = Exercise(
    name="15_im2col",
    title="Convolution as a matrix product: output shapes and im2col",
    forbidden_calls=("numpy.lib.stride_tricks.as_strided",
                     "numpy.lib.stride_tricks.sliding_window_view",
                     "numpy.convolve", "numpy.correlate"),
    # np.ndarray(shape, buffer=..., strides=...) lays any strides over a buffer, as as_strided
    # does; so do setting an array's .strides and handing NumPy an __array_interface__
    forbidden_types=("numpy.ndarray",),
    forbidden_attributes=("strides=", "__array_interface__", "__array_struct__"),
    forbidden_imports=("minitorch", "torch", "scipy", "jax", "tensorflow", "skimage", "cv2"),
    forbidden_reason="write the unfolding yourself (plain Python, or NumPy for padding and "
                     "slicing): sliding-window views (as_strided, or np.ndarray over a buffer with "
                     "strides of your own), convolution helpers and minitorch would do it for you",
    questions=[
        QuestionSpec(
            id="q1", function="conv2d_output_shape", title="(a) the output shape of a convolution",
            solution_cell="conv2d_output_shape", test_cell="test_conv2d_output_shape",
            visible_cases=_visible_q1, random_cases=_random_q1,
            hints=[
                "Without padding, stride or dilation, a k-wide kernel fits at size - k + 1 "
                "positions. Padding adds 2*p to the size; a stride of s keeps every s-th position.",
                "Dilation d spreads the kernel: it spans d*(k-1) + 1 inputs. So per dimension: "
                "out = (size + 2*p - d*(k-1) - 1) // s + 1, rounding down.",
                "Each of kernel_size, stride, padding, dilation can be an int or a pair: turn each "
                "into a pair first, use index 0 for the height and 1 for the width, and return a "
                "tuple of two ints.",
            ]),
        QuestionSpec(
            id="q2", function="im2col", title="(b) im2col: an image unfolded into columns",
            solution_cell="im2col", test_cell="test_im2col",
            visible_cases=_visible_q2, random_cases=_random_q2,
            hints=[
                "One column per output position (oy, ox), in row-major order; one row per "
                "(channel, kernel row i, kernel column j), channel slowest. The column holds the "
                "input patch the kernel sees at that position, flattened.",
                "The patch at (oy, ox) starts at input row oy*sh - ph and column ox*sw - pw: row "
                "c*kh*kw + i*kw + j, column oy*out_w + ox holds image[c][oy*sh + i - ph]"
                "[ox*sw + j - pw], or 0.0 when that falls in the padding.",
                "Four nested loops build each row: for c, i, j (the row), then for oy, ox (its "
                "values). out_h and out_w come from (a)'s formula (dilation 1). Return a list of "
                "lists of floats (with NumPy: .tolist()).",
            ]),
    ],
)
