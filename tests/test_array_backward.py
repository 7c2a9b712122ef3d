"""The array-level backward: without create_graph the engine moves backend arrays between nodes
and wraps Tensors only where one is asked for. These tests pin what must not change with it."""
import numpy as np
import pytest

import minitorch as torch
from minitorch import parts
from minitorch.autograd import engine


@pytest.fixture
def array_nodes(monkeypatch):
    """The names of the nodes whose backward ran on arrays."""
    names = []
    real = engine._array_backward

    def spy(node, grads):
        assert all(g is None or not isinstance(g, torch.Tensor) for g in grads)
        names.append(node.name())
        return real(node, grads)

    monkeypatch.setattr(engine, "_array_backward", spy)
    return names


def _grads(fn, *shapes, create_graph=False, seed=0):
    gen = np.random.default_rng(seed)
    xs = [torch.tensor(gen.standard_normal(s).astype(np.float32), requires_grad=True) for s in shapes]
    fn(*xs).backward(create_graph=create_graph)
    return [x.grad.detach().numpy().copy() for x in xs]


PROGRAMS = {
    "pointwise": (lambda a, b: ((a * b + a / (b * b + 1) - b).exp().log1p().tanh().sigmoid().relu() ** 2).sum(),
                  (3, 4), (4,)),
    "reductions": (lambda a, b: (a.mean(1, keepdim=True) * b).sum(0).mean() + a.sum(), (3, 4), (1, 4)),
    "views": (lambda a, b: (a.t().reshape(2, 6).permute(1, 0).unsqueeze(0).squeeze(0).expand(2, 6, 2)
                            * b.view(1, 1, 2)).sum(), (3, 4), (2,)),
    "matmul": (lambda a, b: (a @ b).sum() + (a[0] @ b).sum() + (b.t() @ a[0]).sum(), (3, 4), (4, 5)),
    "linear": (lambda x, w, b: torch.nn.functional.linear(x, w, b).relu().sum(), (6, 4), (3, 4), (3,)),
    "cross_entropy": (lambda x, w: torch.nn.functional.cross_entropy(x @ w, torch.tensor([0, 2, 1, 2])),
                      (4, 3), (3, 3)),
    "softmax": (lambda x: (x.softmax(1) * x.log_softmax(1)).sum(), (4, 5)),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_the_array_path_gives_the_tensor_paths_gradients(name, array_nodes):
    fn, *shapes = PROGRAMS[name]
    recorded = _grads(fn, *shapes, create_graph=True)  # create_graph records: the Tensor path
    assert array_nodes == []
    plain = _grads(fn, *shapes)
    assert array_nodes, "no node ran on arrays"
    for r, p in zip(recorded, plain):
        np.testing.assert_allclose(p, r, rtol=1e-6, atol=1e-7)


def test_hooks_retain_grad_and_custom_functions_get_tensors(array_nodes):
    seen = []

    class Double(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            seen.append(("function", type(g)))
            return g * 2

    x = torch.ones(3, requires_grad=True)
    x.register_hook(lambda g: seen.append(("leaf hook", type(g))))
    y = Double.apply(x.exp())
    y.retain_grad()
    y.register_hook(lambda g: seen.append(("hook", type(g))) or g * 3)
    (y * y).sum().backward()
    assert sorted(seen) == [("function", torch.Tensor), ("hook", torch.Tensor), ("leaf hook", torch.Tensor)]
    e = np.exp(np.float32(1))
    np.testing.assert_allclose(y.grad.numpy(), [12 * e] * 3, rtol=1e-6)  # retained after the hook
    np.testing.assert_allclose(x.grad.numpy(), [12 * e * 2 * e] * 3, rtol=1e-6)
    assert "MulBackward0" in array_nodes and "ExpBackward0" in array_nodes


def test_leaf_grads_are_their_own_memory():
    a = torch.ones(2, 3, requires_grad=True)
    b = torch.ones(2, 3, requires_grad=True)
    g = torch.full((2, 3), 5.0)
    (a + b).backward(g)  # both leaves get the very same gradient array
    assert a.grad.data_ptr() != b.grad.data_ptr() != g.data_ptr()
    a.grad.add_(1)
    assert b.grad.tolist() == [[5.0] * 3] * 2 and g.tolist() == [[5.0] * 3] * 2
    c = torch.ones(6, requires_grad=True)
    c.view(2, 3).backward(g)  # a view of the caller's gradient
    assert c.grad.data_ptr() != g.data_ptr() and c.grad.is_contiguous()
    (a * 2).sum().backward()  # accumulates in place
    assert a.grad.tolist() == [[8.0] * 3] * 2


def test_the_semantics_checked_on_saved_tensors_stay():
    x = torch.ones(3, requires_grad=True)
    y = x * 1
    z = (y * y).sum()
    y.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.backward()
    w = (x.exp() * 2).sum()
    w.backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        w.backward()
    v = (x.tanh() * 2).sum()
    v.backward(retain_graph=True)
    v.backward()
    np.testing.assert_allclose(x.grad.numpy(), [2 * np.exp(1) + 4 * (1 - np.tanh(1) ** 2)] * 3, rtol=1e-6)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # (forward's -inf * 0)
def test_broadcast_dtype_and_nonfinite_values(array_nodes):
    a = torch.zeros(3, 1, requires_grad=True)
    b = torch.tensor([0.0, 1.0], dtype=torch.float64, requires_grad=True)
    (a.log() * b.float()).sum().backward()  # log at 0: -inf and inf are values, not warnings
    assert a.grad.shape == (3, 1) and a.grad.dtype is torch.float32
    assert b.grad.dtype is torch.float64 and b.grad.tolist()[0] == float("-inf")
    assert np.isposinf(a.grad.numpy()).all()  # 1 / 0, summed back from (3, 2)


def test_autograd_grad_returns_tensors(array_nodes):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    (g,) = torch.autograd.grad((x * x).sum(), x)
    assert isinstance(g, torch.Tensor) and g.tolist() == [2.0, 4.0] and x.grad is None
    assert array_nodes == ["SumBackward0", "MulBackward0"]


def test_create_graph_still_records():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    (g,) = torch.autograd.grad((x ** 3).sum(), x, create_graph=True)
    assert g.grad_fn is not None
    g.sum().backward()
    assert x.grad.tolist() == [6.0, 12.0]


def test_a_course_part_gets_tensors(monkeypatch, array_nodes):
    calls = []

    def local_backward(op, inputs, grad, needs):
        calls.append((op, type(grad)))
        return (grad, grad) if op == "add" else (grad * inputs[1], grad * inputs[0])

    monkeypatch.setattr(parts, "local_backward", local_backward)
    a = torch.ones(2, requires_grad=True)
    ((a + a) * a).sum().backward()
    assert calls == [("mul", torch.Tensor), ("add", torch.Tensor)] and array_nodes == []
    assert a.grad.tolist() == [4.0, 4.0]
