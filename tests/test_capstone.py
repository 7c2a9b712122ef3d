"""The capstone (minitorch_course/capstone.py): minitorch's tests and the digits models, on a
learner's parts.

- with every part from solutions/, every test passes and both models reach 95 % test accuracy;
- with one part replaced by a plausible wrong version, the report names exactly that part;
- a part that is not written yet (it raises NotImplementedError) is named, and training on it
  names it too and does not crash.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from minitorch_course import capstone, parts
from minitorch_course.answers import namespace


@pytest.fixture(autouse=True)
def _own_progress(tmp_path, monkeypatch):
    monkeypatch.setenv("MINITORCH_PROGRESS", str(tmp_path / "progress.json"))
    yield
    parts.use_library()


@pytest.fixture(scope="module")
def reference():
    return {p.name: getattr(namespace(p.exercise), p.function) for p in parts.PARTS}


# ---- plausible wrong parts: one mistake each ---------------------------------------------------
def column_major_strides(shape):
    strides, step = [], 1
    for size in shape:
        strides.append(step)
        step *= size
    return tuple(strides)


def is_contiguous_without_size_one_rule(shape, strides):
    expected = 1
    for size, stride in zip(reversed(shape), reversed(strides)):
        if stride != expected:
            return False
        expected *= size
    return True


def broadcast_without_error(*shapes):
    n = max(len(s) for s in shapes)
    padded = [(1,) * (n - len(s)) + tuple(s) for s in shapes]
    return tuple(max(d) for d in zip(*padded))


def expand_keeping_strides(shape, strides, new_shape):
    return (0,) * (len(new_shape) - len(shape)) + tuple(strides)


def transpose_shape_only(shape, strides, dim0, dim1):
    shape = list(shape)
    shape[dim0], shape[dim1] = shape[dim1], shape[dim0]
    return tuple(shape), tuple(strides)


def slice_without_offset(shape, strides, offset, dim, start, stop, step):
    first, last, step = slice(start, stop, step).indices(shape[dim])
    shape, strides = list(shape), list(strides)
    shape[dim] = len(range(first, last, step))
    strides[dim] *= step
    return tuple(shape), tuple(strides), offset  # forgot: the view starts at element `first`


def view_as_if_contiguous(shape, strides, new_shape):
    out, step = [], 1
    for n in reversed(new_shape):
        out.append(step)
        step *= n
    return tuple(reversed(out))


class SavedValueReadingLate:
    """Reads the saved version when unpacked, not when saved: it never sees a change."""

    def __init__(self, tensor):
        self.tensor = tensor

    @property
    def saved_version(self):
        return self.tensor.version

    def unpack(self):
        if self.tensor.version != self.saved_version:
            raise RuntimeError("modified by an inplace operation")
        return self.tensor


def breadth_first_order(graph):
    consumers = {p for inputs in graph.values() for p in inputs}
    queue, order = sorted(n for n in graph if n not in consumers), []
    while queue:
        n = queue.pop(0)
        if n not in order:
            order.append(n)
            queue.extend(sorted(graph[n]))
    return order


def div_backward_sign_slip(op, inputs, grad):
    if op == "mul":
        x, y = inputs
        return (grad * y, grad * x)
    if op == "div":
        x, y = inputs
        return (grad / y, grad * x / (y * y))  # the minus sign is missing
    if op == "pow":
        x, y = inputs
        return (grad * y * x ** (y - 1), grad * x ** y * math.log(x))
    if op == "tanh":
        (x,) = inputs
        return (grad * (1 - math.tanh(x) ** 2),)
    if op == "sigmoid":
        (x,) = inputs
        s = 1 / (1 + math.exp(-x))
        return (grad * s * (1 - s),)
    return {"add": lambda: (grad, grad), "sub": lambda: (grad, -grad), "neg": lambda: (-grad,),
            "exp": lambda: (grad * math.exp(inputs[0]),), "log": lambda: (grad / inputs[0],),
            "relu": lambda: (grad * (inputs[0] > 0),)}[op]()


def unbroadcast_first_element(grad, shape):
    g = np.asarray(grad, dtype=float)
    lead = g.ndim - len(shape)
    if lead:
        g = g.sum(axis=tuple(range(lead)))
    out = g[tuple(slice(0, 1) if n == 1 else slice(None) for n in shape)]  # size-1 dims: not summed
    return out.tolist() if shape else float(out)


def mean_backward_without_count(op, grad, shape, dims, keepdim):
    g = np.asarray(grad, dtype=float)
    if not keepdim:
        for d in dims:
            g = np.expand_dims(g, d)
    out = np.broadcast_to(g, shape)  # forgot: a mean divides by the count
    return out.tolist() if shape else float(out)


def matmul_backward_grad_b_transposed(a, b, grad):
    a, b, grad = (np.asarray(v, dtype=float) for v in (a, b, grad))
    return (grad @ b.T).tolist(), (grad.T @ a).tolist()  # (m, k): b's gradient, transposed


def view_backward_permuting_forward(op, args, shape, grad):
    g = np.asarray(grad, dtype=float)
    if op == "permute":
        return np.transpose(g, args[0]).tolist()  # the permutation again, not its inverse
    if op == "transpose":
        return np.swapaxes(g, *args).tolist()
    if op == "expand":
        lead = g.ndim - len(shape)
        g = g.sum(axis=tuple(range(lead)))
        return g.sum(axis=tuple(d for d, n in enumerate(shape) if n == 1), keepdims=True).tolist()
    return g.reshape(shape).tolist()


def sgd_with_dampened_momentum(params, grads, state, lr, momentum=0.0, weight_decay=0.0):
    new_params, new_state = [], []
    for i, (p, g) in enumerate(zip(params, grads)):
        d = g + weight_decay * p
        if momentum != 0:
            d = d if state is None else momentum * state[i] + (1 - momentum) * d
            new_state.append(d)
        new_params.append(p - lr * d)
    return new_params, (new_state if momentum != 0 else None)


def adam_without_bias_correction(params, grads, state, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0):
    beta1, beta2 = betas
    if state is None:
        state = {"step": 0, "exp_avg": [0.0] * len(params), "exp_avg_sq": [0.0] * len(params)}
    new_params, ms, vs = [], [], []
    for p, g, m, v in zip(params, grads, state["exp_avg"], state["exp_avg_sq"]):
        g = g + weight_decay * p
        m = beta1 * m + (1 - beta1) * g
        v = beta2 * v + (1 - beta2) * g * g
        new_params.append(p - lr * m / (math.sqrt(v) + eps))
        ms.append(m)
        vs.append(v)
    return new_params, {"step": state["step"] + 1, "exp_avg": ms, "exp_avg_sq": vs}


def im2col_ignoring_padding(image, kernel_size, stride=1, padding=0):
    def pair(v):
        return tuple(v) if isinstance(v, (tuple, list)) else (v, v)

    (kh, kw), (sh, sw), (ph, pw) = pair(kernel_size), pair(stride), pair(padding)
    height, width = len(image[0]), len(image[0][0])
    out_h, out_w = (height + 2 * ph - kh) // sh + 1, (width + 2 * pw - kw) // sw + 1
    rows = []
    for channel in image:
        for i in range(kh):
            for j in range(kw):
                row = []
                for oy in range(out_h):
                    for ox in range(out_w):
                        y, x = oy * sh + i, ox * sw + j  # forgot "- padding"
                        row.append(float(channel[y][x]) if y < height and x < width else 0.0)
                rows.append(row)
    return rows


def embedding_grad_ignoring_padding(ids, grad_out, num_embeddings, padding_idx=None):
    flat_ids = np.asarray(ids).reshape(-1)
    g = np.asarray(grad_out, dtype=float).reshape(len(flat_ids), -1)
    out = np.zeros((num_embeddings, g.shape[1]))
    np.add.at(out, flat_ids, g)
    return out.tolist()


WRONG = {
    "contiguous_strides": column_major_strides,
    "is_contiguous": is_contiguous_without_size_one_rule,
    "broadcast_shapes": broadcast_without_error,
    "expand_strides": expand_keeping_strides,
    "transpose_strides": transpose_shape_only,
    "slice_view": slice_without_offset,
    "view_strides": view_as_if_contiguous,
    "version_check": SavedValueReadingLate,
    "topo_order": breadth_first_order,
    "local_backward": div_backward_sign_slip,
    "unbroadcast": unbroadcast_first_element,
    "reduce_backward": mean_backward_without_count,
    "matmul_backward": matmul_backward_grad_b_transposed,
    "view_backward": view_backward_permuting_forward,
    "sgd_step": sgd_with_dampened_momentum,
    "adam_step": adam_without_bias_correction,
    "im2col": im2col_ignoring_padding,
    "embedding_grad": embedding_grad_ignoring_padding,
}


def test_there_is_a_wrong_version_of_every_part():
    assert set(WRONG) == {p.name for p in parts.PARTS}


def test_the_solutions_parts_pass_every_test(reference):
    report = capstone.run_tests(functions=reference, show=False)
    assert report.total == len(capstone.TESTS) and report.total >= 2 * len(parts.PARTS)
    assert report.passed == report.total, repr(report)
    assert repr(report).startswith(f"your minitorch passes {report.total} of {report.total} tests")


@pytest.mark.parametrize("name", sorted(WRONG))
def test_a_wrong_part_is_named(reference, name):
    functions = dict(reference, **{name: WRONG[name]})
    report = capstone.run_tests(functions=functions, show=False)
    assert report.failed_parts() == [name], repr(report)
    text = repr(report)
    assert f"✘ part {name}, test " in text and "expected:" in text and "actual:" in text


def test_a_part_not_written_yet_is_named_and_training_goes_on(reference, capsys):
    def im2col(image, kernel_size, stride=1, padding=0):
        raise NotImplementedError("Replace this line with your code")

    report = capstone.run_tests(functions=dict(reference, im2col=im2col), show=False)
    assert report.failed_parts() == ["im2col"]
    assert "not written yet (they raise NotImplementedError): im2col" in repr(report)
    history = capstone.train("cnn", epochs=1, progress=False, functions={"im2col": im2col})
    assert "error" in history
    assert "your part im2col raised NotImplementedError" in capsys.readouterr().out


def test_training_on_the_solutions_parts_reaches_95_percent(reference, capsys):
    for kind in ("mlp", "cnn"):
        history = capstone.train(kind, progress=False, functions=reference)
        assert history["parts"] == [p.name for p in parts.PARTS]
        assert "error" not in history
        assert history["test_acc"][-1] >= 0.95, (kind, history["test_acc"])
    out = capsys.readouterr().out
    assert out.count("test accuracy: 0.9") == 2


def test_training_on_a_gpu_that_is_not_there_says_so_and_skips(reference, capsys):
    import minitorch
    if minitorch.cuda.is_available():
        pytest.skip("a GPU is here: tests/gpu/test_capstone_gpu.py trains on it")
    history = capstone.train("mlp", device="cuda", progress=False, functions=reference)
    assert history["skipped"].startswith("no CUDA GPU here") and history["test_acc"] == []
    assert "the mlp is not trained on cuda, skipped" in capsys.readouterr().out
    assert minitorch.parts.in_use() == []  # nothing was plugged in
