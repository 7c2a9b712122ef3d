"""torch.autograd.forward_ad (dual tensors) against PyTorch: the tangents ops compute, what a dual
tensor shows (repr, requires_grad, views, in-place writes, no_grad), custom Functions' jvp and
save_for_forward, gradcheck(check_forward_ad=True), gradients through tangents, and the errors.

Skipped (visibly) when PyTorch is not installed.
"""
from __future__ import annotations

import contextlib
import io
import re

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="PyTorch not installed: differential tests skipped")
import torch.autograd.forward_ad  # noqa: E402

import minitorch  # noqa: E402
import minitorch.autograd.forward_ad  # noqa: E402

pytestmark = pytest.mark.torch
LIBS = {"torch": torch, "minitorch": minitorch}


def _ops(lib):
    F = lib.nn.functional
    g = np.random.default_rng(0)
    Y = lib.tensor(g.standard_normal((3, 4)), dtype=lib.float32) + 2
    W = lib.tensor(g.standard_normal((4, 5)), dtype=lib.float32)
    idx = lib.tensor([[0], [1], [3]])
    return {
        "add": lambda x: x + Y, "sub": lambda x: 2 - x, "mul": lambda x: x * Y, "div": lambda x: Y / x,
        "pow": lambda x: x ** 3, "rpow": lambda x: 2 ** x, "exp": lib.exp, "tanh": lib.tanh, "relu": lib.relu,
        "sigmoid": lib.sigmoid, "abs": lib.abs, "matmul": lambda x: x @ W, "mv": lambda x: x @ W[:, 0],
        "sum": lambda x: x.sum(1), "mean": lambda x: x.mean(), "prod": lambda x: x.prod(1), "max": lambda x: x.max(1).values,
        "norm": lambda x: x.norm(), "var": lambda x: x.var(1), "softmax": lambda x: x.softmax(1),
        "log_softmax": lambda x: x.log_softmax(0), "logsumexp": lambda x: x.logsumexp(1), "cumsum": lambda x: x.cumsum(1),
        "sort": lambda x: x.sort(1).values, "view": lambda x: x.view(12), "reshape": lambda x: x.t().reshape(12),
        "permute": lambda x: x.permute(1, 0), "slice": lambda x: x[1:, ::2], "index": lambda x: x[[0, 2]],
        "mask": lambda x: x[x > 0], "expand": lambda x: x[0].expand(3, 4), "cat": lambda x: lib.cat([x, Y]),
        "stack": lambda x: lib.stack([x, x * 2]), "split": lambda x: x.split(2, 1)[1], "unbind": lambda x: x.unbind(0)[2],
        "where": lambda x: lib.where(x > 0, x, Y), "clamp": lambda x: x.clamp(-0.5, 0.5), "gather": lambda x: x.gather(1, idx),
        "scatter": lambda x: lib.zeros(3, 5).scatter(1, idx, x[:, :1]), "masked_fill": lambda x: x.masked_fill(x > 0, 0.),
        "linear": lambda x: F.linear(x, W.T, W[0]), "mse": lambda x: F.mse_loss(x, Y),
        "cross_entropy": lambda x: F.cross_entropy(x, lib.tensor([0, 1, 3])), "gelu": F.gelu,
        "layer_norm": lambda x: F.layer_norm(x, (4,)), "batch_norm": lambda x: F.batch_norm(x, None, None, training=True),
        "conv1d": lambda x: F.conv1d(x.unsqueeze(0), lib.ones(2, 3, 2)), "max_pool": lambda x: F.max_pool1d(x.unsqueeze(0), 2),
        "einsum": lambda x: lib.einsum("ij,jk->ik", x, W), "inv": lambda x: lib.linalg.inv(x[:, :3] + 3 * lib.eye(3)),
        "det": lambda x: lib.linalg.det(x[:, :3]), "cholesky": lambda x: lib.linalg.cholesky(x @ x.T + lib.eye(3)),
        "svdvals": lambda x: lib.linalg.svdvals(x), "eigvalsh": lambda x: lib.linalg.eigvalsh(x[:, :3] + x[:, :3].T),
        "double": lambda x: x.double(), "pad": lambda x: F.pad(x, (1, 2)), "lerp": lambda x: lib.lerp(x, Y, 0.3),
        "add_": lambda x: x.clone().add_(Y), "exp_": lambda x: x.clone().exp_(),
        "view mul_": lambda x: (lambda c: (c[0].mul_(2), c)[1])(x.clone()),
        "setitem": lambda x: (lambda z: (z.__setitem__((slice(None), slice(1, 3)), x[:, :2]), z)[1])(lib.zeros(3, 5)),
        "setitem index": lambda x: (lambda z: (z.__setitem__(lib.tensor([0, 2]), x[:2]), z)[1])(lib.zeros(3, 4)),
        "index_add": lambda x: lib.zeros(5, 4).index_add(0, lib.tensor([0, 1, 1]), x),
        "embedding": lambda x: F.embedding(lib.tensor([0, 2, 2]), x), "round": lambda x: x.round(),
        "zeros_like": lambda x: lib.zeros_like(x),
    }


def _tangent(lib, name, requires_grad=False, no_grad=False):
    fw = lib.autograd.forward_ad
    g = np.random.default_rng(1)
    x = lib.tensor(g.standard_normal((3, 4)), dtype=lib.float32, requires_grad=requires_grad)
    t = lib.tensor(g.standard_normal((3, 4)), dtype=lib.float32)
    with fw.dual_level(), (lib.no_grad() if no_grad else contextlib.nullcontext()):
        out = _ops(lib)[name](fw.make_dual(x, t))
        tangent = fw.unpack_dual(out).tangent
    return out.detach(), tangent


@pytest.mark.parametrize("name", list(_ops(minitorch)))
def test_tangents_of_ops(name):
    (out_t, tan_t), (out_m, tan_m) = _tangent(torch, name), _tangent(minitorch, name)
    np.testing.assert_allclose(out_m.numpy(), out_t.numpy(), rtol=1e-5, atol=1e-6)
    assert (tan_m is None) == (tan_t is None)
    if tan_t is not None:
        assert str(tan_m.dtype).split(".")[-1] == str(tan_t.dtype).split(".")[-1]
        np.testing.assert_allclose(tan_m.numpy(), tan_t.numpy(), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", ["mul", "add", "linear", "matmul", "exp_", "setitem"])
def test_tangents_require_grad_as_pytorchs_and_work_under_no_grad(name):
    for kwargs in ({"requires_grad": True}, {"requires_grad": True, "no_grad": True}):
        (out_t, tan_t), (out_m, tan_m) = _tangent(torch, name, **kwargs), _tangent(minitorch, name, **kwargs)
        assert tan_m.requires_grad == tan_t.requires_grad, (name, kwargs)
        np.testing.assert_allclose(tan_m.detach().numpy(), tan_t.detach().numpy(), rtol=1e-4, atol=1e-5)


def _transcript(lib):
    """What a program shows of dual tensors."""
    fw = lib.autograd.forward_ad
    out = io.StringIO()

    class Scale(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a, b, k):
            ctx.save_for_forward(a, b)
            print("forward sees:", fw.unpack_dual(a).tangent, file=out)
            return a * b * k

        @staticmethod
        def jvp(ctx, ga, gb, gk):
            a, b = ctx.saved_tensors
            print("jvp gets:", ga, gb, gk, file=out)
            return (ga * b + gb * a) * 2

    class NoJvp(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

    p, t = lib.tensor([1.0, 2.0]), lib.tensor([10.0, 20.0])
    w = lib.tensor([0.5, -1.0], requires_grad=True)
    with fw.dual_level() as level:
        print(level, file=out)
        d = fw.make_dual(p, t)
        print(d, d * w, (d * w).sum(), sep="\n", file=out)
        print(fw.unpack_dual(d).tangent is t, fw.unpack_dual(fw.make_dual(p.view(2, 1), t.view(1, 2).T)).tangent is t,
              file=out)
        u = fw.unpack_dual(d)
        print(u, u.primal._base is p, fw.unpack_dual(p).tangent, file=out)
        print(fw.unpack_dual(Scale.apply(d, lib.tensor([3.0, 4.0]), 2)).tangent, file=out)
        for bad in (lambda: NoJvp.apply(d), lambda: fw.make_dual(d, t), lambda: fw.make_dual(p, lib.ones(3)),
                    lambda: fw.make_dual(lib.arange(2), t), lambda: fw.make_dual(p, lib.arange(2)),
                    lambda: fw.enter_dual_level()):
            try:
                bad()
            except Exception as e:  # noqa: BLE001 (what is raised is compared)
                print(type(e).__name__, e, file=out)
        z = lib.zeros(4)
        z[1:3] = d
        c = d.clone()
        c[0:1].mul_(5)
        print(fw.unpack_dual(z).tangent, fw.unpack_dual(c).tangent, fw.unpack_dual(d.detach()).tangent, t, file=out)
        loss = fw.unpack_dual((d * w).exp().sum()).tangent  # reverse mode through a tangent
        loss.backward()
        print(w.grad, file=out)
    print(fw.unpack_dual(d), fw.unpack_dual(z).tangent, d, file=out)
    try:
        fw.make_dual(p, t)
    except RuntimeError as e:
        print(e, file=out)
    return re.sub(r"\bminitorch\b", "torch", out.getvalue())


def test_dual_tensors_show_what_pytorchs_show():
    assert _transcript(minitorch) == _transcript(torch)


def test_gradcheck_checks_forward_mode():
    def run(lib):
        class Exp(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.result = x.exp()
                return ctx.result

            @staticmethod
            def jvp(ctx, t):
                return t * ctx.result

        class WrongJvp(Exp):
            @staticmethod
            def backward(ctx, g):
                return g * ctx.result

            @staticmethod
            def jvp(ctx, t):
                return t * 2 * ctx.result
        x = lib.tensor([0.1, -0.3], dtype=lib.float64, requires_grad=True)
        ok = lib.autograd.gradcheck(Exp.apply, (x,), check_forward_ad=True, check_backward_ad=False,
                                    check_undefined_grad=False, check_batched_grad=False)
        try:
            lib.autograd.gradcheck(WrongJvp.apply, (x,), check_forward_ad=True)
            wrong = None
        except Exception as e:  # noqa: BLE001
            wrong = (type(e).__name__, str(e).splitlines()[0])
        return ok, lib.autograd.gradcheck(WrongJvp.apply, (x,), check_forward_ad=True, raise_exception=False), wrong
    assert run(minitorch) == run(torch)
