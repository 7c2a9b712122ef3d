"""The backward parts of exercise 10 that the capstone plugs in (matmul_backward, view_backward):
the reference answers agree with PyTorch's autograd on every case the checker asks (visible and
seeded random)."""
from __future__ import annotations

import random

import pytest

torch = pytest.importorskip("torch", reason="the answers are compared with PyTorch's gradients")

from _answers import answers_of  # noqa: E402
from minitorch_course.exercises import backward_formulas as bf  # noqa: E402

ref = answers_of("10_backward_formulas")


def test_matmul_backward_is_torchs():
    for a, b, grad in bf._visible_q4() + bf._random_q4(random.Random(0), 200):
        ta = torch.tensor(a, dtype=torch.float64, requires_grad=True)
        tb = torch.tensor(b, dtype=torch.float64, requires_grad=True)
        (ta @ tb).backward(torch.tensor(grad, dtype=torch.float64))
        assert ref.matmul_backward(a, b, grad) == (ta.grad.tolist(), tb.grad.tolist())


def _view(x, op, args):
    if op == "view":
        return x.view(tuple(args[0]))
    if op == "transpose":
        return x.transpose(*args)
    if op == "permute":
        return x.permute(tuple(args[0]))
    if op == "expand":
        return x.expand(tuple(args[0]))
    if op == "squeeze":
        return x.squeeze(args[0])
    return x.unsqueeze(args[0])


def test_view_backward_is_torchs():
    cases = bf._visible_q5() + bf._random_q5(random.Random(0), 400)
    assert {c[0] for c in cases} == set(bf.VIEW_OPS)
    for op, args, shape, grad in cases:
        x = torch.zeros(shape, dtype=torch.float64, requires_grad=True)
        _view(x, op, args).backward(torch.tensor(grad, dtype=torch.float64))
        assert ref.view_backward(op, args, shape, grad) == x.grad.tolist(), (op, args, shape)
