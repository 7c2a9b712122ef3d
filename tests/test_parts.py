"""Parts: the hooks of minitorch/parts.py, and the course's saving and plugging in of a learner's
functions (minitorch_course/parts.py).

- every hook is None unless a learner's part is plugged in, and use_mine() restores them;
- with a part plugged in, minitorch really computes with it (a spy sees the calls, and a part
  that answers differently changes minitorch's result);
- a passing check() saves the learner's source (with its helpers, imports and constants), a
  failing one never replaces it; export_progress / import_progress carry saved parts along.
"""
from __future__ import annotations

import json

import numpy as np
import pytest

import minitorch
from minitorch import parts as hooks
from minitorch_course import load_exercise, parts
from minitorch_course.answers import namespace


@pytest.fixture(autouse=True)
def _own_progress(tmp_path, monkeypatch):
    monkeypatch.setenv("MINITORCH_PROGRESS", str(tmp_path / "progress.json"))
    yield
    parts.use_library()


def test_every_hook_is_documented_and_unset_by_default():
    assert hooks.in_use() == []
    assert set(hooks.HOOKS) == {p.name for p in parts.PARTS}
    for name in hooks.HOOKS:
        assert f"\n{name}(" in hooks.__doc__, f"{name} is not in minitorch/parts.py's list"


def test_use_mine_plugs_in_and_the_block_restores():
    ref = namespace("05_views")
    with parts.use_mine(functions={"transpose_strides": ref.transpose_strides}) as m:
        assert m.plugged == ["transpose_strides"]
        assert hooks.transpose_strides is not None
    assert hooks.in_use() == []


def test_nothing_saved_means_nothing_plugged_in():
    m = parts.use_mine()
    assert m.plugged == [] and len(m.problems) == len(parts.PARTS)
    assert hooks.in_use() == []


def _spy(fn, calls, name):
    def spy(*args, **kw):
        calls.append(name)
        return fn(*args, **kw)
    spy.__name__ = fn.__name__
    return spy


def _reference_functions():
    out = {}
    for p in parts.PARTS:
        ns = namespace(p.exercise)
        out[p.name] = getattr(ns, p.function)
    return out


def test_each_part_is_called_where_its_hook_is():
    ref = _reference_functions()
    calls = []
    spies = {name: _spy(fn, calls, name) for name, fn in ref.items()}
    mt = minitorch
    with parts.use_mine(functions=spies):
        x = mt.arange(24.0).view(2, 3, 4)                 # contiguous_strides
        x.is_contiguous()                                 # is_contiguous
        mt.broadcast_shapes((3, 1), (4,))                 # broadcast_shapes
        mt.arange(3.0).view(3, 1).expand(2, 3, 4)         # expand_strides (and contiguous_strides)
        x.transpose(0, 2)                                 # transpose_strides
        mt.arange(12.0).view(4, 3).t().view(3, 2, 2)      # view_strides
        x[:, 1:3]                                         # slice_view
        a = mt.tensor([[1.0], [2.0]], requires_grad=True)
        b = mt.tensor([0.5, 1.5, 2.0], requires_grad=True)
        (a * b / (b + 1)).tanh().sigmoid().pow(2).sum().backward()   # topo_order, local_backward, unbroadcast
        mt.ones(2, 3, requires_grad=True).mean(0).sum().backward()                  # reduce_backward
        m = mt.ones(2, 3, requires_grad=True)
        (m @ mt.ones(3, 2)).view(4).sum().backward()      # matmul_backward, view_backward
        p = mt.tensor([1.0, 2.0], requires_grad=True)
        p.grad = mt.tensor([0.1, 0.2])
        mt.optim.SGD([p], lr=0.1).step()                  # sgd_step
        mt.optim.Adam([p], lr=0.1).step()                 # adam_step
        mt.nn.functional.conv2d(mt.ones(1, 1, 4, 4), mt.ones(1, 1, 3, 3), padding=1)   # im2col
        w = mt.ones(4, 2, requires_grad=True)
        mt.nn.functional.embedding(mt.tensor([1, 3, 1]), w).sum().backward()      # embedding_grad
        e = a.exp()
        e.add_(1)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):  # version_check
            e.sum().backward()
    assert set(calls) == set(hooks.HOOKS)


def test_a_part_that_answers_differently_changes_minitorch():
    def column_major(shape):
        strides, step = [], 1
        for n in shape:
            strides.append(step)
            step *= n
        return tuple(strides)

    x = minitorch.arange(6.0)
    with parts.use_mine(functions={"contiguous_strides": column_major}):
        y = x.view(2, 3)
        assert y.stride() == (1, 2)
        assert y.tolist() == [[0.0, 2.0, 4.0], [1.0, 3.0, 5.0]]
    assert x.view(2, 3).tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]


def test_strides_outside_the_tensor_are_refused_not_read():
    def keeps_strides(shape, strides, new_shape):
        return (0,) * (len(new_shape) - len(shape)) + tuple(strides)

    with parts.use_mine(functions={"expand_strides": keeps_strides}):
        with pytest.raises(RuntimeError, match="expand_strides gave strides .* outside the memory"):
            minitorch.arange(3.0).view(3, 1).expand(2, 3, 4)


def test_a_formula_for_single_numbers_still_runs_elementwise():
    def local_backward(op, inputs, grad):  # branches on a value: cannot take whole arrays
        if op == "mul":
            x, y = inputs
            return (grad * y if y > -1e300 else 0.0, grad * x)
        raise ValueError(op)

    a = minitorch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = minitorch.tensor([4.0, 5.0, 6.0], requires_grad=True)
    with parts.use_mine(functions={"local_backward": local_backward}):
        (a * b).sum().backward()
    assert a.grad.tolist() == [4.0, 5.0, 6.0] and b.grad.tolist() == [1.0, 2.0, 3.0]


# ---- saving ----------------------------------------------------------------------------------
SCALE = 1


def _helper_step(size):
    return size * SCALE


def contiguous_strides(shape):
    strides, step = [], 1
    for size in reversed(shape):
        strides.append(step)
        step = step * _helper_step(size)
    return tuple(reversed(strides))


def wrong_contiguous_strides(shape):
    return tuple(1 for _ in shape)


def test_a_passing_check_saves_the_source_with_its_helpers():
    q1, _, _ = load_exercise("03_strides")
    q1.check(fn=contiguous_strides)
    record = parts.saved()["contiguous_strides"]
    src = record["source"]
    assert "def _helper_step" in src and "SCALE = 1" in src and "def contiguous_strides" in src
    fn = parts.compile_part(parts.BY_NAME["contiguous_strides"], src)
    assert fn((2, 3, 4)) == (12, 4, 1)


def test_a_failing_check_never_replaces_a_saved_part():
    q1, _, _ = load_exercise("03_strides")
    q1.check(fn=contiguous_strides)
    before = parts.saved_source("contiguous_strides")
    with pytest.raises(AssertionError):
        q1.check(fn=wrong_contiguous_strides)
    assert parts.saved_source("contiguous_strides") == before
    with parts.use_mine("contiguous_strides") as m:
        assert m.plugged == ["contiguous_strides"]
        assert minitorch.arange(24.0).view(2, 3, 4).stride() == (12, 4, 1)


class SavedValue:
    """A learner's class, graded through the exercise's driver."""

    def __init__(self, tensor):
        self.tensor, self.saved_version = tensor, _version_of(tensor)

    def unpack(self):
        if _version_of(self.tensor) != self.saved_version:
            raise RuntimeError("modified by an inplace operation")
        return self.tensor


def _version_of(t):
    return t.version


def run_saved(program):  # stands for the exercise's driver: the part is the class it drives
    return program


def test_a_class_part_is_saved_through_its_driver():
    assert parts.save_on_pass("06_inplace_version", "q2", run_saved) == "version_check"
    src = parts.saved_source("version_check")
    assert "class SavedValue" in src and "def _version_of" in src and "def run_saved" not in src
    with parts.use_mine("version_check"):
        a = minitorch.tensor([1.0, 2.0], requires_grad=True)
        e = a.exp()
        e.add_(1)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            e.sum().backward()


def test_saved_parts_travel_with_exported_progress(tmp_path, monkeypatch):
    from minitorch_course import progress
    parts.save_solutions(["im2col"])
    out = progress.export_progress(tmp_path / "export.json")
    assert "im2col" in json.loads(out.read_text())["parts"]
    monkeypatch.setenv("MINITORCH_PROGRESS", str(tmp_path / "fresh" / "progress.json"))
    assert parts.saved() == {}
    progress.import_progress(out)
    assert list(parts.saved()) == ["im2col"]


def test_mine_lists_yours_and_the_librarys():
    parts.save_solutions(["topo_order"])
    table = repr(parts.mine())
    assert "topo_order" in table and "yours, saved" in table and "the library's" in table
    with parts.use_mine():
        assert "yours, in use" in repr(parts.mine())


def test_the_library_is_unchanged_without_parts():
    x = np.arange(24.0).reshape(2, 3, 4)
    t = minitorch.tensor(x)
    assert t.transpose(0, 2).stride() == (1, 4, 12)
    assert t.transpose(0, 2).tolist() == x.transpose(2, 1, 0).tolist()


def test_the_reference_reduce_backward_is_minitorchs():
    import random
    bf = namespace("10_backward_formulas")
    rng = random.Random(5)
    for op, grad, shape, dims, keepdim in bf._random_q3(rng, 80) + bf._visible_q3():
        x = minitorch.zeros(shape, dtype=minitorch.float64, requires_grad=True)
        out = x.sum(dims, keepdim=keepdim) if op == "sum" else x.mean(dims, keepdim=keepdim)
        out.backward(minitorch.tensor(grad, dtype=minitorch.float64))
        assert np.allclose(bf.reduce_backward(op, grad, shape, dims, keepdim), x.grad.numpy(), rtol=1e-12), \
            (op, grad, shape, dims, keepdim)
