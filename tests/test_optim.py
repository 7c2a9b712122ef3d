"""minitorch.optim: Optimizer bookkeeping, and SGD / Adam against NumPy reference updates."""
from __future__ import annotations

import copy
import math

import numpy as np
import pytest

import minitorch as torch
from minitorch import nn, optim


def _params(seed=0):
    rng = np.random.default_rng(seed)
    return [nn.Parameter(torch.tensor(rng.standard_normal(s), dtype=torch.float64)) for s in [(3, 2), (2,)]]


def _grads(step, seed=100):
    rng = np.random.default_rng(seed + step)
    return [rng.standard_normal(s) for s in [(3, 2), (2,)]]


def _run(opt_cls, kwargs, steps=5, seed=0):
    ps = _params(seed)
    opt = opt_cls(ps, **kwargs)
    for k in range(steps):
        for p, g in zip(ps, _grads(k)):
            p.grad = torch.tensor(g, dtype=torch.float64)
        opt.step()
    return [p.detach().numpy().copy() for p in ps], opt


def _sgd_reference(lr, momentum=0.0, dampening=0.0, weight_decay=0.0, nesterov=False, maximize=False, steps=5):
    ps = [p.detach().numpy().copy() for p in _params()]
    bufs = [None] * len(ps)
    for k in range(steps):
        for i, g in enumerate(_grads(k)):
            d = -g if maximize else g
            if weight_decay:
                d = d + weight_decay * ps[i]
            if momentum:
                bufs[i] = d.copy() if bufs[i] is None else momentum * bufs[i] + (1 - dampening) * d
                d = d + momentum * bufs[i] if nesterov else bufs[i]
            ps[i] = ps[i] - lr * d
    return ps


def _adam_reference(lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, amsgrad=False, decoupled=False,
                    steps=5):
    ps = [p.detach().numpy().copy() for p in _params()]
    m = [np.zeros_like(p) for p in ps]
    v = [np.zeros_like(p) for p in ps]
    vmax = [np.zeros_like(p) for p in ps]
    b1, b2 = betas
    for k in range(steps):
        t = k + 1
        for i, g in enumerate(_grads(k)):
            if weight_decay and decoupled:
                ps[i] = ps[i] * (1 - lr * weight_decay)
            elif weight_decay:
                g = g + weight_decay * ps[i]
            m[i] = b1 * m[i] + (1 - b1) * g
            v[i] = b2 * v[i] + (1 - b2) * g * g
            vv = v[i]
            if amsgrad:
                vmax[i] = np.maximum(vmax[i], v[i])
                vv = vmax[i]
            m_hat = m[i] / (1 - b1 ** t)
            denom = np.sqrt(vv) / math.sqrt(1 - b2 ** t) + eps
            ps[i] = ps[i] - lr * m_hat / denom
    return ps


# ---- SGD ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("kw", [
    dict(lr=0.1),
    dict(lr=0.1, momentum=0.9),
    dict(lr=0.05, momentum=0.9, dampening=0.5),
    dict(lr=0.1, momentum=0.8, nesterov=True),
    dict(lr=0.1, momentum=0.9, weight_decay=0.01),
    dict(lr=0.1, weight_decay=0.1, maximize=True),
])
def test_sgd_matches_reference(kw):
    got, _ = _run(optim.SGD, kw)
    for a, b in zip(got, _sgd_reference(**kw)):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


def test_sgd_one_step_by_hand():
    p = nn.Parameter(torch.tensor([1.0, -2.0]))
    opt = optim.SGD([p], lr=0.5, momentum=0.9)
    p.grad = torch.tensor([0.2, 0.4])
    opt.step()
    assert p.tolist() == pytest.approx([0.9, -2.2])
    assert opt.state[p]["momentum_buffer"].tolist() == pytest.approx([0.2, 0.4])
    opt.step()  # buffer = 0.9 * b + g = [0.38, 0.76]
    assert p.tolist() == pytest.approx([0.9 - 0.19, -2.2 - 0.38])


def test_sgd_without_momentum_keeps_no_state():
    p = nn.Parameter(torch.ones(2))
    opt = optim.SGD([p], lr=0.1)
    p.grad = torch.ones(2)
    opt.step()
    assert len(opt.state) == 0


# ---- Adam -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("kw", [
    dict(lr=0.01),
    dict(lr=0.1, betas=(0.8, 0.99), eps=1e-6),
    dict(lr=0.01, weight_decay=0.1),
    dict(lr=0.01, amsgrad=True),
])
def test_adam_matches_reference(kw):
    got, opt = _run(optim.Adam, kw)
    for a, b in zip(got, _adam_reference(**kw)):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
    p0 = opt.param_groups[0]["params"][0]
    assert opt.state[p0]["step"].item() == 5
    assert ("max_exp_avg_sq" in opt.state[p0]) == kw.get("amsgrad", False)


def test_adamw_decouples_weight_decay():
    got, _ = _run(optim.AdamW, dict(lr=0.01, weight_decay=0.1))
    for a, b in zip(got, _adam_reference(lr=0.01, weight_decay=0.1, decoupled=True)):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
    plain, _ = _run(optim.Adam, dict(lr=0.01, weight_decay=0.1))
    assert not np.allclose(got[0], plain[0])


def test_adam_first_step_moves_each_weight_by_lr():
    # with bias correction, m_hat / sqrt(v_hat) = g / |g| on the first step
    p = nn.Parameter(torch.tensor([1.0, 1.0, 1.0], dtype=torch.float64))
    opt = optim.Adam([p], lr=0.1, eps=1e-12)
    p.grad = torch.tensor([3.0, -0.001, 50.0], dtype=torch.float64)
    opt.step()
    np.testing.assert_allclose(p.detach().numpy(), [0.9, 1.1, 0.9], rtol=1e-9)


# ---- the Optimizer base ---------------------------------------------------------------------------

def test_updates_are_in_place_and_not_recorded():
    p = nn.Parameter(torch.ones(3))
    ptr, version = p.data_ptr(), p._version
    for opt in (optim.SGD([p], lr=0.1, momentum=0.9), optim.Adam([p], lr=0.1)):
        (p * p).sum().backward()
        opt.step()
        opt.zero_grad()
    assert p.data_ptr() == ptr and p._version > version
    assert p.is_leaf and p.grad_fn is None and p.requires_grad


def test_param_groups_and_defaults():
    a, b = nn.Parameter(torch.ones(1)), nn.Parameter(torch.ones(1))
    opt = optim.SGD([{"params": [a]}, {"params": b, "lr": 0.5}], lr=0.1, momentum=0.9)
    assert [g["lr"] for g in opt.param_groups] == [0.1, 0.5]
    assert opt.param_groups[1]["momentum"] == 0.9 and opt.param_groups[1]["params"] == [b]
    a.grad, b.grad = torch.ones(1), torch.ones(1)
    opt.step()
    assert a.item() == pytest.approx(0.9) and b.item() == pytest.approx(0.5)
    c = nn.Parameter(torch.ones(1))
    opt.add_param_group({"params": [c], "lr": 1.0})
    assert len(opt.param_groups) == 3 and opt.param_groups[2]["momentum"] == 0.9
    with pytest.raises(ValueError, match="some parameters appear in more than one parameter group"):
        opt.add_param_group({"params": [a]})


def test_optimizer_argument_errors():
    p = nn.Parameter(torch.ones(1))
    with pytest.raises(ValueError, match="optimizer got an empty parameter list"):
        optim.SGD([], lr=0.1)
    with pytest.raises(ValueError, match="Invalid learning rate: -1"):
        optim.SGD([p], lr=-1)
    with pytest.raises(ValueError, match="Nesterov momentum requires a momentum and zero dampening"):
        optim.SGD([p], lr=0.1, nesterov=True)
    with pytest.raises(ValueError, match="Invalid beta parameter at index 1"):
        optim.Adam([p], betas=(0.9, 1.0))
    with pytest.raises(TypeError, match="iterable of Tensors"):
        optim.SGD(p, lr=0.1)
    with pytest.raises(ValueError, match="can't optimize a non-leaf Tensor"):
        optim.SGD([p * 2], lr=0.1)
    with pytest.raises(TypeError, match="ordered collections"):
        optim.SGD([{"params": {p}}], lr=0.1)


def test_zero_grad_and_params_without_grad():
    a, b = nn.Parameter(torch.ones(2)), nn.Parameter(torch.ones(2))
    opt = optim.Adam([a, b], lr=0.1)
    a.grad = torch.ones(2)
    opt.step()
    assert b.tolist() == [1.0, 1.0] and b not in opt.state  # no grad: skipped
    opt.zero_grad(set_to_none=False)
    assert a.grad.tolist() == [0.0, 0.0]
    opt.zero_grad()
    assert a.grad is None


def test_closure_is_called_with_grad_enabled():
    p = nn.Parameter(torch.tensor([2.0]))
    opt = optim.SGD([p], lr=0.25)

    def closure():
        opt.zero_grad()
        loss = (p * p).sum()
        loss.backward()
        return loss
    with torch.no_grad():
        loss = opt.step(closure)
    assert loss.item() == 4.0 and p.item() == pytest.approx(1.0)


def test_state_dict_round_trip_continues_identically():
    def train(opt, ps, steps, start=0):
        for k in range(start, start + steps):
            for p, g in zip(ps, _grads(k)):
                p.grad = torch.tensor(g, dtype=torch.float64)
            opt.step()

    for cls, kw in [(optim.Adam, dict(lr=0.05, amsgrad=True)), (optim.SGD, dict(lr=0.1, momentum=0.9))]:
        ps = _params()
        opt = cls(ps, **kw)
        train(opt, ps, 6)
        ref = [p.detach().numpy().copy() for p in ps]

        ps2 = _params()
        opt2 = cls(ps2, **kw)
        train(opt2, ps2, 3)
        sd = copy.deepcopy(opt2.state_dict())
        assert sorted(sd) == ["param_groups", "state"] and sd["param_groups"][0]["params"] == [0, 1]
        ps3 = [nn.Parameter(p.detach().clone()) for p in ps2]
        opt3 = cls(ps3, lr=123.0)  # hyper-parameters come back from the state dict
        opt3.load_state_dict(sd)
        assert opt3.param_groups[0]["lr"] == kw["lr"] and opt3.param_groups[0]["params"] == ps3
        train(opt3, ps3, 3, start=3)
        for a, b in zip(ps3, ref):
            np.testing.assert_allclose(a.detach().numpy(), b, rtol=1e-12)


def test_load_state_dict_checks_group_sizes():
    opt = optim.SGD(_params(), lr=0.1)
    other = optim.SGD([nn.Parameter(torch.ones(1))], lr=0.1)
    with pytest.raises(ValueError, match="doesn't match the size"):
        opt.load_state_dict(other.state_dict())


def test_repr():
    opt = optim.SGD([nn.Parameter(torch.ones(1))], lr=0.1, momentum=0.9)
    r = repr(opt)
    assert r == ("SGD (\nParameter Group 0\n    dampening: 0\n    differentiable: False\n    foreach: None\n"
                 "    fused: None\n    lr: 0.1\n    maximize: False\n    momentum: 0.9\n    nesterov: False\n"
                 "    weight_decay: 0\n)")  # PyTorch's, every default included


@pytest.mark.parametrize("make", [lambda ps: optim.SGD(ps, lr=0.1, momentum=0.9),
                                  lambda ps: optim.Adam(ps, lr=0.1)])
def test_optimizers_minimise_a_quadratic(make):
    target = torch.tensor([3.0, -1.0, 0.5])
    w = nn.Parameter(torch.zeros(3))
    opt = make([w])
    for _ in range(200):
        opt.zero_grad()
        ((w - target) ** 2).sum().backward()
        opt.step()
    np.testing.assert_allclose(w.detach().numpy(), target.numpy(), atol=1e-2)
