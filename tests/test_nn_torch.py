"""Differential tests: minitorch.nn / optim / data against PyTorch itself.

Same weights in -> same outputs, losses and gradients out; same optimizer trajectories.
Skipped as a whole when PyTorch is not installed.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="PyTorch not installed: differential tests skipped")

import torch.nn.functional as TF  # noqa: E402

import minitorch as mt  # noqa: E402
import minitorch.nn.functional as MF  # noqa: E402

pytestmark = pytest.mark.torch

@pytest.fixture(autouse=True)
def _seed():
    """Fresh, fixed random states, so each test sees the same weights whatever ran before."""
    torch.manual_seed(0)
    mt.manual_seed(0)


TOL = {mt.float32: dict(rtol=2e-5, atol=2e-6), mt.float64: dict(rtol=1e-10, atol=1e-12)}


def pair(arr, requires_grad=True):
    """The same values as a minitorch and a PyTorch leaf tensor."""
    arr = np.ascontiguousarray(arr)
    return (mt.tensor(arr, requires_grad=requires_grad and arr.dtype.kind == "f"),
            torch.tensor(arr, requires_grad=requires_grad and arr.dtype.kind == "f"))


def close(m, t, dtype=mt.float32, scale=1.0):
    assert m is not None and t is not None
    tol = TOL[dtype]
    np.testing.assert_allclose(m.detach().numpy(), t.detach().numpy(), rtol=tol["rtol"] * scale,
                               atol=tol["atol"] * scale)


def randn(*shape, seed=0, dtype=np.float32):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def copy_weights(tmod, mmod):
    """Load a PyTorch module's state into the minitorch module of the same architecture."""
    sd = {k: mt.tensor(v.detach().numpy()) for k, v in tmod.state_dict().items()}
    mmod.load_state_dict(sd)
    return mmod


def check_module(tmod, mmod, *inputs, dtype=mt.float32, scale=1.0):
    """Forward with the same weights and inputs; backward a random upstream gradient; compare
    outputs, input gradients and every parameter gradient."""
    copy_weights(tmod, mmod)
    m_in, t_in = zip(*(pair(x) for x in inputs))
    mo, to = mmod(*m_in), tmod(*t_in)
    close(mo, to, dtype, scale)
    g = randn(*to.shape, seed=99, dtype=to.detach().numpy().dtype)
    mo.backward(mt.tensor(g))
    to.backward(torch.tensor(g))
    for mi, ti in zip(m_in, t_in):
        if ti.requires_grad:
            close(mi.grad, ti.grad, dtype, scale)
    mp, tp = dict(mmod.named_parameters()), dict(tmod.named_parameters())
    assert list(mp) == list(tp)
    for name in tp:
        close(mp[name].grad, tp[name].grad, dtype, scale)


# ---- layers --------------------------------------------------------------------------------------

@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("shape", [(5, 4), (2, 3, 4)])
def test_linear(bias, shape):
    check_module(torch.nn.Linear(4, 3, bias=bias), mt.nn.Linear(4, 3, bias=bias), randn(*shape))


def test_linear_float64():
    check_module(torch.nn.Linear(4, 3).double(), mt.nn.Linear(4, 3).double(), randn(6, 4, dtype=np.float64),
                 dtype=mt.float64)


CONV_CASES = [
    dict(in_channels=1, out_channels=4, kernel_size=3),
    dict(in_channels=3, out_channels=2, kernel_size=3, stride=2, padding=1),
    dict(in_channels=2, out_channels=3, kernel_size=(3, 2), stride=(1, 2), padding=(2, 1), dilation=(1, 2)),
    dict(in_channels=2, out_channels=2, kernel_size=1, bias=False),
    dict(in_channels=2, out_channels=3, kernel_size=3, padding="same"),
]


@pytest.mark.parametrize("kw", CONV_CASES)
def test_conv2d(kw):
    check_module(torch.nn.Conv2d(**kw), mt.nn.Conv2d(**kw), randn(2, kw["in_channels"], 9, 8), scale=5)


@pytest.mark.parametrize("kw", CONV_CASES[:3])
def test_conv2d_float64(kw):
    check_module(torch.nn.Conv2d(**kw).double(), mt.nn.Conv2d(**kw).double(),
                 randn(2, kw["in_channels"], 7, 6, dtype=np.float64), dtype=mt.float64)


def test_conv2d_unbatched():
    check_module(torch.nn.Conv2d(2, 3, 3, padding=1), mt.nn.Conv2d(2, 3, 3, padding=1), randn(2, 5, 5), scale=5)


POOL_CASES = [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1), dict(kernel_size=(2, 3), stride=1),
              dict(kernel_size=3, stride=1, padding=1, dilation=2)]


@pytest.mark.parametrize("kw", POOL_CASES)
def test_maxpool2d(kw):
    check_module(torch.nn.MaxPool2d(**kw), mt.nn.MaxPool2d(**kw), randn(2, 3, 9, 8))
    m_out, m_idx = MF.max_pool2d(mt.tensor(randn(2, 3, 9, 8)), return_indices=True, **kw)
    t_out, t_idx = TF.max_pool2d(torch.tensor(randn(2, 3, 9, 8)), return_indices=True, **kw)
    assert m_idx.tolist() == t_idx.tolist()


def test_maxpool2d_ties_route_to_the_first_maximum():
    x = np.zeros((1, 1, 4, 4), dtype=np.float32)
    check_module(torch.nn.MaxPool2d(2), mt.nn.MaxPool2d(2), x)
    check_module(torch.nn.MaxPool2d(3, stride=1, padding=1), mt.nn.MaxPool2d(3, stride=1, padding=1), x)


@pytest.mark.parametrize("kw", [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1)])
def test_avgpool2d(kw):
    check_module(torch.nn.AvgPool2d(**kw), mt.nn.AvgPool2d(**kw), randn(2, 3, 7, 6))


@pytest.mark.parametrize("padding_idx", [None, 0, 3])
def test_embedding(padding_idx):
    t = torch.nn.Embedding(6, 4, padding_idx=padding_idx)
    m = mt.nn.Embedding(6, 4, padding_idx=padding_idx)
    copy_weights(t, m)
    ids = np.array([[1, 0, 3, 3], [5, 1, 0, 2]])
    mo, to = m(mt.tensor(ids)), t(torch.tensor(ids))
    close(mo, to)
    g = randn(2, 4, 4, seed=3)
    mo.backward(mt.tensor(g))
    to.backward(torch.tensor(g))
    close(m.weight.grad, t.weight.grad)


def test_embedding_padding_row_initialised_to_zero_like_pytorch():
    assert mt.nn.Embedding(5, 3, padding_idx=2).weight[2].tolist() == \
        torch.nn.Embedding(5, 3, padding_idx=2).weight[2].tolist()


@pytest.mark.parametrize("name", ["relu", "sigmoid", "tanh", "softmax", "log_softmax", "leaky_relu"])
def test_activations(name):
    x = randn(4, 5, seed=1) * 5
    mx, tx = pair(x)
    kw = {"dim": 1} if "softmax" in name else {}
    mo, to = getattr(MF, name)(mx, **kw), getattr(TF, name)(tx, **kw)
    close(mo, to)
    g = randn(4, 5, seed=2)
    mo.backward(mt.tensor(g))
    to.backward(torch.tensor(g))
    close(mx.grad, tx.grad)


@pytest.mark.parametrize("ndim", [1, 2, 3, 4])
def test_implicit_softmax_dim_matches(ndim):
    x = randn(*([3] * ndim))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        close(MF.softmax(mt.tensor(x)), TF.softmax(torch.tensor(x)))


# ---- losses --------------------------------------------------------------------------------------

def check_loss(m_fn, t_fn, logits, target, dtype=mt.float32, target_grad=False):
    ml, tl = pair(logits)
    mt_, tt = pair(target, requires_grad=target_grad)
    mo, to = m_fn(ml, mt_), t_fn(tl, tt)
    close(mo, to, dtype)
    g = randn(*to.shape, seed=5) if to.ndim else np.float32(1.0)
    mo.backward(mt.tensor(g))
    to.backward(torch.tensor(g))
    close(ml.grad, tl.grad, dtype)
    if target_grad:
        close(mt_.grad, tt.grad, dtype)


REDUCTIONS = ["mean", "sum", "none"]


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_mse_and_l1(reduction):
    a, b = randn(4, 3, seed=1), randn(4, 3, seed=2)
    check_loss(lambda x, y: MF.mse_loss(x, y, reduction=reduction),
               lambda x, y: TF.mse_loss(x, y, reduction=reduction), a, b, target_grad=True)
    check_loss(lambda x, y: mt.nn.L1Loss(reduction=reduction)(x, y),
               lambda x, y: torch.nn.L1Loss(reduction=reduction)(x, y), a, b)


CE_CASES = [
    dict(),
    dict(weight=[1.0, 2.0, 0.5, 1.5, 1.0]),
    dict(ignore_index=2),
    dict(label_smoothing=0.1),
    dict(label_smoothing=0.1, ignore_index=2),
    dict(label_smoothing=0.2, weight=[1.0, 2.0, 0.5, 1.5, 1.0], ignore_index=1),
]


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("kw", CE_CASES)
def test_cross_entropy(kw, reduction):
    logits = randn(6, 5, seed=3) * 3
    target = np.array([0, 4, 2, 1, 2, 3])
    mkw, tkw = dict(kw), dict(kw)
    if "weight" in kw:
        mkw["weight"], tkw["weight"] = mt.tensor(kw["weight"]), torch.tensor(kw["weight"])
    check_loss(lambda x, y: mt.nn.CrossEntropyLoss(reduction=reduction, **mkw)(x, y),
               lambda x, y: torch.nn.CrossEntropyLoss(reduction=reduction, **tkw)(x, y), logits, target)


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_cross_entropy_spatial_and_probabilities(reduction):
    logits = randn(2, 4, 3, 3, seed=4)
    target = np.random.default_rng(0).integers(0, 4, (2, 3, 3))
    check_loss(lambda x, y: MF.cross_entropy(x, y, reduction=reduction),
               lambda x, y: TF.cross_entropy(x, y, reduction=reduction), logits, target)
    probs = np.random.default_rng(1).dirichlet(np.ones(4), size=5).astype(np.float32)
    check_loss(lambda x, y: MF.cross_entropy(x, y, reduction=reduction, label_smoothing=0.1),
               lambda x, y: TF.cross_entropy(x, y, reduction=reduction, label_smoothing=0.1),
               randn(5, 4, seed=6), probs)


def test_cross_entropy_extreme_logits():
    logits = np.array([[1e4, 0.0, -1e4], [-3e4, 3e4, 0.0]], dtype=np.float32)
    check_loss(MF.cross_entropy, TF.cross_entropy, logits, np.array([2, 0]))


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_nll_loss(reduction):
    logp = np.log(np.random.default_rng(2).dirichlet(np.ones(4), size=6)).astype(np.float32)
    target = np.array([0, 3, 1, 1, 2, -100])
    w = [0.5, 1.0, 2.0, 1.0]
    check_loss(lambda x, y: mt.nn.NLLLoss(weight=mt.tensor(w), reduction=reduction)(x, y),
               lambda x, y: torch.nn.NLLLoss(weight=torch.tensor(w), reduction=reduction)(x, y), logp, target)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("extra", ["none", "weight", "pos_weight"])
def test_bce_with_logits(reduction, extra):
    logits = randn(5, 3, seed=7) * 4
    logits[0, 0], logits[1, 1] = 200.0, -200.0
    target = np.random.default_rng(3).uniform(size=(5, 3)).astype(np.float32)
    mkw, tkw = {}, {}
    if extra == "weight":
        mkw["weight"], tkw["weight"] = mt.tensor([1.0, 0.5, 2.0]), torch.tensor([1.0, 0.5, 2.0])
    elif extra == "pos_weight":
        mkw["pos_weight"], tkw["pos_weight"] = mt.tensor([3.0, 0.5, 1.0]), torch.tensor([3.0, 0.5, 1.0])
    check_loss(lambda x, y: mt.nn.BCEWithLogitsLoss(reduction=reduction, **mkw)(x, y),
               lambda x, y: torch.nn.BCEWithLogitsLoss(reduction=reduction, **tkw)(x, y), logits, target,
               target_grad=True)


def test_bce_on_probabilities():
    p = np.random.default_rng(4).uniform(0.05, 0.95, size=(4, 3)).astype(np.float32)
    y = (np.random.default_rng(5).uniform(size=(4, 3)) > 0.5).astype(np.float32)
    check_loss(MF.binary_cross_entropy, TF.binary_cross_entropy, p, y)


# ---- whole models ----------------------------------------------------------------------------------

def mlp(nn):
    return nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 16), nn.Tanh(), nn.Linear(16, 10))


def cnn(nn):
    return nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(4, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Flatten(), nn.Linear(8 * 2 * 2, 10))


class TextNet:
    @staticmethod
    def make(nn):
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.embed = nn.Embedding(20, 8, padding_idx=0)
                self.fc = nn.Linear(8, 2)

            def forward(self, ids):
                return self.fc(self.embed(ids).mean(1))
        return Net()


@pytest.mark.parametrize("make,x", [(mlp, randn(16, 64, seed=11)), (cnn, randn(16, 1, 8, 8, seed=12))])
def test_whole_model_output_loss_and_gradients(make, x):
    torch.manual_seed(0)
    tm, mm = make(torch.nn), make(mt.nn)
    assert list(tm.state_dict()) == list(mm.state_dict())
    copy_weights(tm, mm)
    y = np.random.default_rng(0).integers(0, 10, 16)
    mo, to = mm(mt.tensor(x)), tm(torch.tensor(x))
    close(mo, to, scale=5)
    ml, tl = MF.cross_entropy(mo, mt.tensor(y)), TF.cross_entropy(to, torch.tensor(y))
    close(ml, tl)
    ml.backward()
    tl.backward()
    tp = dict(tm.named_parameters())
    for name, p in mm.named_parameters():
        close(p.grad, tp[name].grad, scale=10)


def test_embedding_model_gradients():
    tm, mm = TextNet.make(torch.nn), TextNet.make(mt.nn)
    copy_weights(tm, mm)
    ids = np.random.default_rng(1).integers(0, 20, (6, 7))
    y = np.array([0, 1, 1, 0, 1, 0])
    ml = MF.cross_entropy(mm(mt.tensor(ids)), mt.tensor(y))
    tl = TF.cross_entropy(tm(torch.tensor(ids)), torch.tensor(y))
    close(ml, tl)
    ml.backward()
    tl.backward()
    tp = dict(tm.named_parameters())
    for name, p in mm.named_parameters():
        close(p.grad, tp[name].grad)


# ---- optimizers --------------------------------------------------------------------------------------

OPT_CASES = [
    ("SGD", dict(lr=0.1)),
    ("SGD", dict(lr=0.05, momentum=0.9)),
    ("SGD", dict(lr=0.05, momentum=0.9, dampening=0.3, weight_decay=1e-2)),
    ("SGD", dict(lr=0.05, momentum=0.9, nesterov=True, weight_decay=1e-3)),
    ("Adam", dict(lr=1e-2)),
    ("Adam", dict(lr=1e-2, betas=(0.8, 0.99), weight_decay=1e-2)),
    ("Adam", dict(lr=1e-2, amsgrad=True)),
    ("AdamW", dict(lr=1e-2, weight_decay=0.1)),
]


@pytest.mark.parametrize("name,kw", OPT_CASES)
def test_optimizer_trajectories_match(name, kw):
    # float64: Adam divides by sqrt(v), which amplifies float32 rounding of tiny gradients
    # (a unit active for one sample) far past any tolerance that would still catch a wrong rule
    torch.manual_seed(0)
    tm, mm = mlp(torch.nn).double(), mlp(mt.nn).double()
    copy_weights(tm, mm)
    topt = getattr(torch.optim, name)(tm.parameters(), **kw)
    mopt = getattr(mt.optim, name)(mm.parameters(), **kw)
    for step in range(6):
        x = randn(8, 64, seed=step, dtype=np.float64)
        y = np.random.default_rng(step).integers(0, 10, 8)
        for model, opt, lib, F in ((tm, topt, torch, TF), (mm, mopt, mt, MF)):
            opt.zero_grad()
            F.cross_entropy(model(lib.tensor(x)), lib.tensor(y)).backward()
            opt.step()
        tp = dict(tm.named_parameters())
        for pname, p in mm.named_parameters():
            np.testing.assert_allclose(p.detach().numpy(), tp[pname].detach().numpy(), rtol=1e-8, atol=1e-10,
                                       err_msg=f"{name} step {step} {pname}")


def test_optimizer_state_dict_layout_matches():
    tm, mm = mlp(torch.nn), mlp(mt.nn)
    topt, mopt = torch.optim.Adam(tm.parameters(), lr=0.1), mt.optim.Adam(mm.parameters(), lr=0.1)
    for model, opt, lib in ((tm, topt, torch), (mm, mopt, mt)):
        model(lib.ones(2, 64)).sum().backward()
        opt.step()
    ts, ms = topt.state_dict(), mopt.state_dict()
    assert list(ts["state"]) == list(ms["state"])
    assert sorted(ts["state"][0]) == sorted(ms["state"][0])
    assert ts["param_groups"][0]["params"] == ms["param_groups"][0]["params"]
    for k in ("lr", "betas", "eps", "weight_decay", "amsgrad"):
        assert ts["param_groups"][0][k] == ms["param_groups"][0][k]


# ---- Module behaviour -------------------------------------------------------------------------------

def test_reprs_match():
    def build(nn):
        return nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.Conv2d(3, 4, (3, 2), stride=2, bias=False, dilation=2),
            nn.ReLU(), nn.MaxPool2d(2), nn.AvgPool2d(3, stride=1, padding=1), nn.Flatten(),
            nn.Linear(4, 3), nn.Dropout(0.1), nn.Embedding(10, 3, padding_idx=0), nn.Softmax(dim=1),
            nn.LogSoftmax(dim=-1), nn.Sigmoid(), nn.Tanh(), nn.LeakyReLU(0.2), nn.Identity(),
            nn.Unflatten(1, (2, 3)), nn.ModuleList([nn.Linear(1, 1)]), nn.CrossEntropyLoss(), nn.MSELoss())
    assert repr(build(mt.nn)) == repr(build(torch.nn))


def test_state_dict_and_parameter_names_match():
    class Net:
        @staticmethod
        def make(nn):
            class M(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.register_buffer("stat", torch_or(nn).zeros(3))
                    self.body = nn.Sequential(nn.Linear(2, 3), nn.ModuleList([nn.Linear(3, 3), nn.ReLU()]))
                    self.head = nn.Linear(3, 1, bias=False)
            return M()
    t, m = Net.make(torch.nn), Net.make(mt.nn)
    assert list(t.state_dict()) == list(m.state_dict())
    assert [n for n, _ in t.named_parameters()] == [n for n, _ in m.named_parameters()]
    assert [n for n, _ in t.named_modules()] == [n for n, _ in m.named_modules()]
    assert [n for n, _ in t.named_children()] == [n for n, _ in m.named_children()]


def torch_or(nn):
    return torch if nn is torch.nn else mt


def test_load_state_dict_messages_match():
    t, m = mlp(torch.nn), mlp(mt.nn)
    sd_t = t.state_dict()
    del sd_t["2.bias"]
    sd_t["2.gamma"] = torch.zeros(1)
    sd_t["extra"] = torch.zeros(1)
    sd_t["0.weight"] = torch.zeros(3, 3)
    sd_m = {k: mt.tensor(v.numpy()) for k, v in sd_t.items()}
    with pytest.raises(RuntimeError) as et:
        t.load_state_dict(sd_t)
    with pytest.raises(RuntimeError) as em:
        m.load_state_dict(sd_m)
    assert str(em.value).replace("minitorch.Size", "torch.Size") == str(et.value)
    sd_t["0.weight"] = t.state_dict()["0.weight"]
    sd_m["0.weight"] = mt.tensor(sd_t["0.weight"].numpy())
    rt, rm = t.load_state_dict(sd_t, strict=False), m.load_state_dict(sd_m, strict=False)
    assert rt.missing_keys == rm.missing_keys and rt.unexpected_keys == rm.unexpected_keys


def test_setattr_error_message_matches():
    with pytest.raises(TypeError) as et:
        torch.nn.Linear(1, 1).weight = torch.zeros(1, 1)
    with pytest.raises(TypeError) as em:
        mt.nn.Linear(1, 1).weight = mt.zeros(1, 1)
    assert str(em.value) == str(et.value)


def test_default_init_statistics_match():
    mt.manual_seed(0)
    torch.manual_seed(0)
    for make in (lambda nn: nn.Linear(300, 200), lambda nn: nn.Conv2d(16, 32, 3)):
        tm, mm = make(torch.nn), make(mt.nn)
        for name, tp in tm.named_parameters():
            a, b = tp.detach().numpy(), dict(mm.named_parameters())[name].detach().numpy()
            assert abs(a.std() - b.std()) < 0.1 * a.std(), name
            assert abs(np.abs(a).max() - np.abs(b).max()) < 0.05 * np.abs(a).max(), name
    te, me = torch.nn.Embedding(500, 40), mt.nn.Embedding(500, 40)
    assert abs(te.weight.detach().numpy().std() - me.weight.detach().numpy().std()) < 0.03


@pytest.mark.parametrize("nl,param", [("linear", None), ("conv2d", None), ("sigmoid", None), ("tanh", None),
                                      ("relu", None), ("leaky_relu", None), ("leaky_relu", 0.3), ("selu", None)])
def test_calculate_gain_matches(nl, param):
    assert mt.nn.init.calculate_gain(nl, param) == pytest.approx(torch.nn.init.calculate_gain(nl, param))


@pytest.mark.parametrize("shape", [(4, 3), (8, 3, 5, 5), (2, 6, 3)])
def test_fans_match(shape):
    assert mt.nn.init._calculate_fan_in_and_fan_out(mt.empty(*shape)) == \
        torch.nn.init._calculate_fan_in_and_fan_out(torch.empty(*shape))


def test_default_collate_matches_torch():
    from torch.utils.data import default_collate as tcollate

    from minitorch.utils.data import default_collate as mcollate
    batch = [(np.ones(2, dtype=np.float32), 3, 0.5, True), (np.zeros(2, dtype=np.float32), 4, 1.5, False)]
    tb = tcollate(batch)
    mb = mcollate(batch)
    assert type(tb) is type(mb) and len(tb) == len(mb)
    for a, b in zip(mb, tb):
        assert a.dtype.name == str(b.dtype).replace("torch.", "") and a.tolist() == b.tolist()


def test_dataloader_batches_match_torch_without_shuffle():
    x = randn(11, 3)
    y = np.arange(11)
    tl = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(torch.tensor(x), torch.tensor(y)),
                                     batch_size=4, drop_last=False)
    ml = mt.utils.data.DataLoader(mt.utils.data.TensorDataset(mt.tensor(x), mt.tensor(y)), batch_size=4)
    assert len(tl) == len(ml)
    for (tx, ty), (mx, my) in zip(tl, ml):
        assert mx.tolist() == tx.tolist() and my.tolist() == ty.tolist()

