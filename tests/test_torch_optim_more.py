"""Differential tests of the optimizers beyond the common ones, against PyTorch itself: LBFGS
(fixed step and strong-Wolfe line search), Rprop, ASGD, SparseAdam (which refuses the dense
gradients minitorch has), and optim.swa_utils (AveragedModel with SWA / EMA averages, SWALR,
update_bn). Same problem, same starting weights -> same parameters after every step, same
closure losses, same state_dict (keys, layout, values), same learning rates.

Skipped when PyTorch is absent.
"""
from __future__ import annotations

import copy
import inspect
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="PyTorch not installed: differential tests skipped")

import minitorch as mt  # noqa: E402

pytestmark = pytest.mark.torch

TOL = {np.float32: 1e-5, np.float64: 1e-12}


def R(*shape, seed=0, dtype=np.float32):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def close(m, t, tol, what=""):
    """Same value and type: tensors (dtype, shape, values), lists of them, Python scalars."""
    if isinstance(t, torch.Tensor):
        assert isinstance(m, mt.Tensor), (what, type(m))
        m, t = m.detach().numpy(), t.detach().numpy()
        assert m.shape == t.shape and m.dtype == t.dtype, (what, m.shape, t.shape, m.dtype, t.dtype)
        np.testing.assert_allclose(m, t, rtol=tol, atol=tol, err_msg=what)
    elif isinstance(t, (list, tuple)):
        assert type(m) is type(t) and len(m) == len(t), (what, m, t)
        for i, (a, b) in enumerate(zip(m, t)):
            close(a, b, tol, f"{what}[{i}]")
    else:
        assert type(m) is type(t), (what, type(m), type(t))
        if isinstance(t, float):
            assert m == pytest.approx(t, rel=tol, abs=tol), (what, m, t)
        else:
            assert m == t, (what, m, t)


def close_state_dicts(ms, ts, tol, what=""):
    assert ms["param_groups"] == ts["param_groups"], what
    assert list(ms["state"]) == list(ts["state"]), what
    for k, tstate in ts["state"].items():
        assert list(ms["state"][k]) == list(tstate), (what, k)
        for key, tv in tstate.items():
            close(ms["state"][k][key], tv, tol, f"{what} state {k} {key}")


def copy_weights(tmod, mmod):
    mmod.load_state_dict({k: mt.tensor(v.detach().numpy()) for k, v in tmod.state_dict().items()})


def mlp(lib, dtype):
    m = lib.nn.Sequential(lib.nn.Linear(3, 6), lib.nn.Tanh(), lib.nn.Linear(6, 1))
    return m.double() if dtype == np.float64 else m


def twin_mlps(dtype):
    torch.manual_seed(0)
    tm, mm = mlp(torch, dtype), mlp(mt, dtype)
    copy_weights(tm, mm)
    return tm, mm


def curve(dtype):
    """A 1-D curve to fit, with 3 input features (x, x^2, sin x)."""
    x = np.linspace(-2, 2, 24).astype(dtype)
    feats = np.stack([x, x ** 2 / 4, np.sin(x)], 1).astype(dtype)
    return feats, (np.cos(1.5 * x) + 0.1 * x).astype(dtype)[:, None]


# ---- Rprop and ASGD: step-by-step trajectories ---------------------------------------------------

OPTIMIZERS = [
    ("Rprop", dict()), ("Rprop", dict(lr=0.05, etas=(0.3, 1.5), step_sizes=(1e-3, 0.2))),
    ("Rprop", dict(lr=0.01, maximize=True)),
    ("ASGD", dict(lr=0.05)), ("ASGD", dict(lr=0.05, lambd=0.1, alpha=0.5, t0=3, weight_decay=0.01)),
    ("ASGD", dict(lr=0.02, t0=0, maximize=True)),
]


@pytest.mark.parametrize("name,kw", OPTIMIZERS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_trajectories_and_state_dict(name, kw, dtype):
    tm, mm = twin_mlps(dtype)
    topt, mopt = getattr(torch.optim, name)(tm.parameters(), **kw), getattr(mt.optim, name)(mm.parameters(), **kw)
    feats, target = curve(dtype)
    for step in range(8):
        for lib, model, opt in ((torch, tm, topt), (mt, mm, mopt)):
            rows = slice(3 * step % 24, 3 * step % 24 + 12)  # a moving minibatch: gradient signs change
            opt.zero_grad()
            lib.nn.functional.mse_loss(model(lib.tensor(feats[rows])), lib.tensor(target[rows])).backward()
            opt.step()
        for (n, mp), tp in zip(mm.named_parameters(), tm.parameters()):
            close(mp, tp, TOL[dtype], f"{name} step {step} {n}")
    close_state_dicts(mopt.state_dict(), topt.state_dict(), TOL[dtype], name)
    assert repr(mopt) == repr(topt)


def test_rprop_on_each_sign_case():
    """Gradient signs that stay, flip and vanish, element by element, and a parameter without a
    gradient (skipped)."""
    grads = [[1.0, -1.0, 0.0, 2.0], [1.0, 1.0, 3.0, -2.0], [0.5, 1.0, -3.0, 0.0], [-0.1, 0.0, 0.0, 5.0]]
    out = []
    for lib in (torch, mt):
        p, q = lib.zeros(4, requires_grad=True), lib.ones(2, requires_grad=True)
        opt = lib.optim.Rprop([p, q], lr=0.1, step_sizes=(0.01, 0.3))
        for g in grads:
            p.grad = lib.tensor(g)
            opt.step()
        out.append((p, q, opt.state_dict()))
    close(out[1][0], out[0][0], 1e-7)
    close(out[1][1], out[0][1], 0)
    close_state_dicts(out[1][2], out[0][2], 1e-7)


def test_asgd_averages_after_t0():
    """ax copies the iterate while mu = 1, then averages; eta decays from the first step."""
    out = []
    for lib in (torch, mt):
        p = lib.tensor([1.0, -2.0], dtype=lib.float64, requires_grad=True)
        opt = lib.optim.ASGD([p], lr=0.1, lambd=0.5, t0=2)
        for k in range(6):
            p.grad = p.detach() * (k + 1)
            opt.step()
            out.append({key: v.clone() for key, v in opt.state[p].items()})
    for m, t in zip(out[6:], out[:6]):
        for key in t:
            close(m[key], t[key], 1e-14, key)


# ---- LBFGS ---------------------------------------------------------------------------------------

def rosenbrock(x):
    return (1 - x[0]) ** 2 + 100 * (x[1] - x[0] ** 2) ** 2


LBFGS_CASES = [dict(lr=0.1, max_iter=10, history_size=5), dict(line_search_fn="strong_wolfe"),
               dict(lr=1, max_iter=7, history_size=3, line_search_fn="strong_wolfe"),
               dict(lr=0.5, max_iter=4, max_eval=6, tolerance_change=1e-3, line_search_fn="strong_wolfe")]


@pytest.mark.parametrize("kw", LBFGS_CASES)
def test_lbfgs_rosenbrock(kw):
    """Each step: the closure's first loss, the point, and the whole state (the history of steps
    and gradient changes, H_diag, t, counts) as PyTorch's. (Rosenbrock's valley amplifies the
    last-bit differences of float64 arithmetic: after three steps of up to 20 iterations they
    reach 1e-7 in the history of gradient differences.)"""
    runs = []
    for lib in (torch, mt):
        x = lib.tensor([-1.5, 2.0], dtype=lib.float64, requires_grad=True)
        opt = lib.optim.LBFGS([x], **kw)
        calls = []

        def closure():
            opt.zero_grad()
            loss = rosenbrock(x)
            loss.backward()
            calls.append(loss.item())
            return loss

        steps = [(opt.step(closure), x.detach().clone(), copy.deepcopy(opt.state_dict())) for _ in range(3)]
        runs.append((steps, calls, opt))
    (tsteps, tcalls, topt), (msteps, mcalls, mopt) = runs
    assert len(mcalls) == len(tcalls)
    np.testing.assert_allclose(mcalls, tcalls, rtol=1e-7)
    for i, ((tl, tx, ts), (ml, mx, ms)) in enumerate(zip(tsteps, msteps)):
        assert type(ml) is mt.Tensor and ml.requires_grad == tl.requires_grad
        close(ml, tl, 1e-9, f"loss {i}")
        close(mx, tx, 1e-9, f"x {i}")
        close_state_dicts(ms, ts, 1e-6, f"step {i}")
    assert repr(mopt) == repr(topt)


@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_lbfgs_fits_a_curve_with_an_mlp(line_search_fn, dtype):
    """A small full-batch curve fit, the way tutorials use LBFGS; parameters compared after every
    step (float32: rounding differences compound over 20 iterations a step, hence 1e-3)."""
    tm, mm = twin_mlps(dtype)
    feats, target = curve(dtype)
    runs = []
    for lib, model in ((torch, tm), (mt, mm)):
        opt = lib.optim.LBFGS(model.parameters(), lr=0.5 if line_search_fn is None else 1, max_iter=8,
                              history_size=10, line_search_fn=line_search_fn)
        x, y = lib.tensor(feats), lib.tensor(target)

        def closure():
            opt.zero_grad()
            loss = lib.nn.functional.mse_loss(model(x), y)
            loss.backward()
            return loss

        runs.append([(opt.step(closure).item(), [p.detach().clone() for p in model.parameters()]) for _ in range(3)])
    tol = 1e-3 if dtype == np.float32 else 1e-9
    for i, ((tl, tps), (ml, mps)) in enumerate(zip(*runs)):
        assert ml == pytest.approx(tl, rel=tol), i
        for mp, tp in zip(mps, tps):
            close(mp, tp, tol, f"step {i}")
    assert runs[1][-1][0] < runs[1][0][0] / 2  # it fits


def test_lbfgs_state_dict_round_trip_continues_identically():
    """A fresh LBFGS loaded with another's state_dict continues exactly where it stopped."""
    def run(opt_of, x, steps):
        opt = opt_of(x)

        def closure():
            opt.zero_grad()
            loss = rosenbrock(x)
            loss.backward()
            return loss
        for _ in range(steps):
            opt.step(closure)
        return opt, closure

    make = lambda x: mt.optim.LBFGS([x], history_size=4, line_search_fn="strong_wolfe")  # noqa: E731
    a = mt.tensor([-1.5, 2.0], dtype=mt.float64, requires_grad=True)
    opt_a, closure_a = run(make, a, 2)
    b = mt.tensor(a.detach().numpy(), requires_grad=True)
    opt_b = make(b)
    opt_b.load_state_dict(opt_a.state_dict())

    def closure_b():
        opt_b.zero_grad()
        loss = rosenbrock(b)
        loss.backward()
        return loss
    opt_a.step(closure_a)
    opt_b.step(closure_b)
    np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())


def test_lbfgs_at_a_minimum_returns_at_once():
    for lib in (torch, mt):
        x = lib.ones(2, dtype=lib.float64, requires_grad=True)
        opt = lib.optim.LBFGS([x])
        calls = []

        def closure():
            opt.zero_grad()
            loss = rosenbrock(x)
            loss.backward()
            calls.append(1)
            return loss
        assert opt.step(closure).item() == 0.0 and len(calls) == 1
        assert dict(opt.state[x]) == {"func_evals": 1, "n_iter": 0}


def test_lbfgs_errors_as_pytorch():
    for lib in (torch, mt):
        a, b = lib.zeros(2, requires_grad=True), lib.zeros(3, requires_grad=True)
        with pytest.raises(ValueError, match=r"LBFGS doesn't support per-parameter options \(parameter groups\)"):
            lib.optim.LBFGS([{"params": [a]}, {"params": [b]}])
        with pytest.raises(ValueError, match="Invalid learning rate: -1"):
            lib.optim.LBFGS([a], lr=-1)
        opt = lib.optim.LBFGS([a], line_search_fn="backtracking")

        def closure():
            opt.zero_grad()
            loss = ((a - 1) ** 2).sum()
            loss.backward()
            return loss
        with pytest.raises(RuntimeError, match="only 'strong_wolfe' is supported"):
            opt.step(closure)
        with pytest.raises(TypeError):
            opt.step()  # the closure is required


@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
def test_lbfgs_step_warns_nothing(line_search_fn):
    """Reading the closure's loss (a tensor that requires grad) as a number inside step() gives
    no "Converting a tensor with requires_grad=True to a scalar" warning, as in PyTorch."""
    for lib in (torch, mt):
        x = lib.tensor([-1.5, 2.0], requires_grad=True)
        opt = lib.optim.LBFGS([x], max_iter=5, line_search_fn=line_search_fn)

        def closure():
            opt.zero_grad()
            loss = rosenbrock(x)
            loss.backward()
            return loss
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            opt.step(closure)


def test_lbfgs_closure_may_return_a_number():
    out = []
    for lib in (torch, mt):
        x = lib.tensor([3.0, -1.0], dtype=lib.float64, requires_grad=True)
        opt = lib.optim.LBFGS([x], max_iter=5)

        def closure():
            opt.zero_grad()
            loss = ((x - 1) ** 2).sum()
            loss.backward()
            return loss.item()
        out.append((opt.step(closure), x.detach().clone()))
    assert type(out[1][0]) is float and out[1][0] == out[0][0]
    close(out[1][1], out[0][1], 1e-12)


def test_lbfgs_params_without_grad_count_as_zero():
    """A parameter the loss does not use keeps its value (its gradient is None: zeros)."""
    out = []
    for lib in (torch, mt):
        a, unused = lib.tensor([3.0, -1.0], requires_grad=True), lib.tensor([5.0], requires_grad=True)
        opt = lib.optim.LBFGS([a, unused], max_iter=5)

        def closure():
            opt.zero_grad()
            loss = ((a - 1) ** 2).sum()
            loss.backward()
            return loss
        opt.step(closure)
        out.append((a.detach().clone(), unused.detach().clone(), opt.state_dict()))
    close(out[1][0], out[0][0], 1e-6)
    close(out[1][1], out[0][1], 0)
    close_state_dicts(out[1][2], out[0][2], 1e-6)


# ---- SparseAdam ----------------------------------------------------------------------------------

def test_sparse_adam_builds_as_pytorch_and_refuses_dense_gradients():
    """minitorch has no sparse gradients; on a dense one PyTorch's SparseAdam refuses too."""
    for lib in (torch, mt):
        emb = lib.nn.Embedding(5, 3)
        opt = lib.optim.SparseAdam(emb.parameters(), lr=0.01)
        assert repr(opt) == repr(torch.optim.SparseAdam([torch.zeros(1)], lr=0.01))
        assert opt.step() is None  # no gradient yet: nothing to do
        emb(lib.tensor([0, 2])).sum().backward()
        with pytest.raises(RuntimeError, match="SparseAdam does not support dense gradients, please consider Adam"):
            opt.step()
        for bad, match in [(dict(lr=0.0), "Invalid learning rate: 0.0"), (dict(eps=0.0), "Invalid epsilon value"),
                           (dict(betas=(1.0, 0.9)), "Invalid beta parameter at index 0")]:
            with pytest.raises(ValueError, match=match):
                lib.optim.SparseAdam(emb.parameters(), **bad)


def test_constructor_signatures_match():
    for name in ["LBFGS", "Rprop", "ASGD", "SparseAdam"]:
        assert (list(inspect.signature(getattr(mt.optim, name).__init__).parameters)
                == list(inspect.signature(getattr(torch.optim, name).__init__).parameters)), name
        assert getattr(mt.optim, name)([mt.zeros(1)]).defaults == getattr(torch.optim, name)([torch.zeros(1)]).defaults
    for name in ["AveragedModel", "SWALR"]:
        assert (list(inspect.signature(getattr(mt.optim.swa_utils, name).__init__).parameters)
                == list(inspect.signature(getattr(torch.optim.swa_utils, name).__init__).parameters)), name
    for name in ["update_bn", "get_ema_multi_avg_fn", "get_swa_multi_avg_fn", "get_ema_avg_fn", "get_swa_avg_fn"]:
        assert (list(inspect.signature(getattr(mt.optim.swa_utils, name)).parameters)
                == list(inspect.signature(getattr(torch.optim.swa_utils, name)).parameters)), name
    assert set(mt.optim.swa_utils.__all__) == set(torch.optim.swa_utils.__all__)


# ---- swa_utils -----------------------------------------------------------------------------------

def bn_net(lib, dtype=np.float32):
    m = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.BatchNorm1d(4), lib.nn.ReLU(), lib.nn.Linear(4, 1))
    return m.double() if dtype == np.float64 else m


AVERAGING = [
    ("swa", lambda su: dict()),
    ("ema multi", lambda su: dict(multi_avg_fn=su.get_ema_multi_avg_fn(0.9))),
    ("ema multi buffers", lambda su: dict(multi_avg_fn=su.get_ema_multi_avg_fn(0.75), use_buffers=True)),
    ("ema avg_fn", lambda su: dict(avg_fn=su.get_ema_avg_fn(0.8))),
    ("swa multi", lambda su: dict(multi_avg_fn=su.get_swa_multi_avg_fn())),
    ("swa buffers", lambda su: dict(use_buffers=True)),
    ("custom", lambda su: dict(avg_fn=lambda avg, w, n: 0.5 * avg + 0.5 * w)),
]


@pytest.mark.parametrize("name,kw", AVERAGING, ids=[a[0] for a in AVERAGING])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_averaged_model_follows_training(name, kw, dtype):
    """Train with SGD, fold the weights in after every step: the averaged parameters, buffers,
    n_averaged, state_dict keys and outputs as PyTorch's."""
    torch.manual_seed(0)
    tm, mm = bn_net(torch, dtype), bn_net(mt, dtype)
    copy_weights(tm, mm)
    feats, target = curve(dtype)
    models = []
    for lib, model in ((torch, tm), (mt, mm)):
        avg = lib.optim.swa_utils.AveragedModel(model, **kw(lib.optim.swa_utils))
        opt = lib.optim.SGD(model.parameters(), lr=0.1, momentum=0.5)
        for step in range(5):
            opt.zero_grad()
            rows = slice(4 * step, 4 * step + 12)
            lib.nn.functional.mse_loss(model(lib.tensor(feats[rows])), lib.tensor(target[rows])).backward()
            opt.step()
            avg.update_parameters(model)
        models.append(avg)
    tavg, mavg = models
    tol = TOL[dtype] * 10
    assert list(mavg.state_dict()) == list(tavg.state_dict())
    for (k, mv), tv in zip(mavg.state_dict().items(), tavg.state_dict().values()):
        close(mv, tv, tol, f"{name} {k}")
    assert mavg.n_averaged.dtype == mt.int64 and int(mavg.n_averaged) == int(tavg.n_averaged) == 5
    assert repr(mavg) == repr(tavg)
    tavg.eval()
    mavg.eval()
    close(mavg(mt.tensor(feats)), tavg(torch.tensor(feats)), tol, f"{name} output")
    assert all(not p.grad_fn for p in mavg.parameters())


def test_averaged_model_refuses_two_averaging_functions():
    for lib in (torch, mt):
        su = lib.optim.swa_utils
        with pytest.raises(AssertionError, match="Only one of avg_fn and multi_avg_fn should be provided"):
            su.AveragedModel(lib.nn.Linear(1, 1), avg_fn=su.get_swa_avg_fn(), multi_avg_fn=su.get_swa_multi_avg_fn())
        for fn in (su.get_ema_multi_avg_fn, su.get_ema_avg_fn):
            with pytest.raises(ValueError, match=r"Invalid decay value 1.5 provided. Please provide a value in"):
                fn(1.5)


def test_averaged_model_is_a_copy():
    """The averaged model has its own parameters: training the model does not move them until
    update_parameters()."""
    model = mt.nn.Linear(2, 1)
    avg = mt.optim.swa_utils.AveragedModel(model)
    assert all(a is not b for a, b in zip(avg.parameters(), model.parameters()))
    with mt.no_grad():
        model.weight.add_(1.0)
    assert not mt.equal(avg.module.weight, model.weight)
    avg.update_parameters(model)
    assert mt.equal(avg.module.weight, model.weight)


@pytest.mark.parametrize("batches", ["tensors", "tuples"])
def test_update_bn(batches):
    """update_bn recomputes the running statistics as the plain average over the loader's
    batches, and restores momentum and the train / eval mode."""
    torch.manual_seed(0)
    tm, mm = bn_net(torch), bn_net(mt)
    copy_weights(tm, mm)
    data = [R(6, 3, seed=s) for s in range(4)]
    for lib, model in ((torch, tm), (mt, mm)):
        model.eval()
        loader = [lib.tensor(x) if batches == "tensors" else (lib.tensor(x), lib.zeros(6)) for x in data]
        lib.optim.swa_utils.update_bn(loader, model)
        assert not model.training and model[1].momentum == 0.1
    for (k, mv), tv in zip(mm.state_dict().items(), tm.state_dict().values()):
        close(mv, tv, 1e-5, k)
    assert int(mm[1].num_batches_tracked) == 4
    # a model without BatchNorm is left alone
    lin = mt.nn.Linear(3, 1)
    before = {k: v.clone() for k, v in lin.state_dict().items()}
    mt.optim.swa_utils.update_bn([mt.tensor(d) for d in data], lin)
    assert all(mt.equal(before[k], v) for k, v in lin.state_dict().items())


def test_update_bn_on_an_averaged_model():
    torch.manual_seed(0)
    tm, mm = bn_net(torch), bn_net(mt)
    copy_weights(tm, mm)
    data = [R(5, 3, seed=s) for s in range(3)]
    avgs = []
    for lib, model in ((torch, tm), (mt, mm)):
        avg = lib.optim.swa_utils.AveragedModel(model)
        avg.update_parameters(model)
        lib.optim.swa_utils.update_bn([lib.tensor(d) for d in data], avg)
        avgs.append(avg)
    for (k, mv), tv in zip(avgs[1].state_dict().items(), avgs[0].state_dict().values()):
        close(mv, tv, 1e-5, k)


SWALR_CASES = [dict(swa_lr=0.05), dict(swa_lr=0.05, anneal_epochs=3, anneal_strategy="linear"),
               dict(swa_lr=[0.01, 0.2], anneal_epochs=4), dict(swa_lr=0.3, anneal_epochs=0),
               dict(swa_lr=0.02, anneal_epochs=1, anneal_strategy="linear")]


@pytest.mark.parametrize("kw", SWALR_CASES)
def test_swalr_schedule(kw):
    """The lrs SWALR sets, step after step, after a CosineAnnealingLR phase as in PyTorch's SWA
    recipe; get_last_lr() and the state_dict too."""
    runs = []
    for lib in (torch, mt):
        a, b = lib.zeros(2, requires_grad=True), lib.zeros(1, requires_grad=True)
        opt = lib.optim.SGD([{"params": [a]}, {"params": [b], "lr": 0.5}], lr=0.1)
        cosine = lib.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=6)
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no "step before optimizer.step()" warning: it is the right order
            swa = lib.optim.swa_utils.SWALR(opt, **kw)
            lrs = []
            for epoch in range(10):
                opt.step()
                (swa if epoch >= 3 else cosine).step()
                lrs.append([g["lr"] for g in opt.param_groups] + swa.get_last_lr())
        state = swa.state_dict()
        runs.append((lrs, state, [g["swa_lr"] for g in opt.param_groups]))
    (tl, ts, tswa), (ml, ms, mswa) = runs
    np.testing.assert_allclose(ml, tl, rtol=1e-14, atol=1e-15)
    assert mswa == tswa
    assert set(ms) == set(ts) and "anneal_func" not in ms and "optimizer" not in ms
    for key in ("anneal_epochs", "_anneal_strategy", "base_lrs", "last_epoch", "_step_count"):
        assert ms[key] == ts[key], key


def test_swalr_state_dict_round_trip_and_errors():
    opt = mt.optim.SGD([mt.zeros(1, requires_grad=True)], lr=0.1)
    a = mt.optim.swa_utils.SWALR(opt, swa_lr=0.01, anneal_strategy="linear", anneal_epochs=5)
    for _ in range(2):
        opt.step()
        a.step()
    b = mt.optim.swa_utils.SWALR(mt.optim.SGD([mt.zeros(1, requires_grad=True)], lr=0.1), swa_lr=0.5)
    b.load_state_dict(a.state_dict())
    assert b.anneal_func is b._linear_anneal and b.anneal_epochs == 5
    for lib in (torch, mt):
        opt = lib.optim.SGD([lib.zeros(1, requires_grad=True)], lr=0.1)
        with pytest.raises(ValueError, match="anneal_strategy must be one of 'cos' or 'linear', instead got cosine"):
            lib.optim.swa_utils.SWALR(opt, 0.1, anneal_strategy="cosine")
        with pytest.raises(ValueError, match="anneal_epochs must be equal or greater than 0, got -1"):
            lib.optim.swa_utils.SWALR(opt, 0.1, anneal_epochs=-1)
        with pytest.raises(ValueError, match="swa_lr must have the same length as optimizer.param_groups"):
            lib.optim.swa_utils.SWALR(opt, [0.1, 0.2])
        sched = lib.optim.swa_utils.SWALR(opt, 0.1)
        with pytest.warns(UserWarning, match="please use `get_last_lr\\(\\)`"):
            sched.get_lr()
