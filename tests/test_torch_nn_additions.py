"""Differential tests for the nn additions against PyTorch itself: nn.EmbeddingBag,
nn.Buffer / UninitializedBuffer, the lazy convolution and normalisation layers, the hook-based
nn.utils.weight_norm / spectral_norm, nn.utils.parametrize and nn.utils.parametrizations,
Module.register_backward_hook, AlphaDropout / FeatureAlphaDropout, and the import paths under
torch.nn.modules.

Modules are built after the same manual_seed on both sides (minitorch draws PyTorch's random
numbers), so their weights agree without copying; outputs, gradients, state_dict keys, reprs,
exception types and warnings are compared. Skipped when PyTorch is absent.
"""
from __future__ import annotations

import copy
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="PyTorch not installed: differential tests skipped")

import torch.nn.functional as TF  # noqa: E402

import minitorch as mt  # noqa: E402
from minitorch.nn.embedding_bag import embedding_bag as mt_embedding_bag  # noqa: E402

pytestmark = pytest.mark.torch


def seed(s=0):
    torch.manual_seed(s)
    mt.manual_seed(s)


def both(make):
    """make(lib) on torch and on minitorch, each after manual_seed(0)."""
    seed()
    a = make(torch)
    seed()
    return a, make(mt)


def close(a, b, atol=1e-5):
    a = a.detach().numpy() if hasattr(a, "detach") else np.asarray(a)
    b = b.detach().numpy() if hasattr(b, "detach") else np.asarray(b)
    assert a.shape == b.shape, (a.shape, b.shape)
    np.testing.assert_allclose(b, a, rtol=1e-5, atol=atol)


def R(*shape, s=1):
    return np.random.default_rng(s).standard_normal(shape).astype(np.float32)


def same_error(ft, fm):
    with pytest.raises(Exception) as et:
        ft()
    with pytest.raises(type(et.value)) as em:
        fm()
    expected = str(et.value).split("\n")[0][:60]
    assert str(em.value).replace("minitorch", "torch").startswith(expected), (str(et.value), str(em.value))


# ---- EmbeddingBag ---------------------------------------------------------------------------------

IDS = [1, 2, 4, 5, 4, 3, 2, 9]


def _bag(ids, offsets, kw, psw=None, torch_offsets=None):
    """Values and gradients (weight, per_sample_weights) of embedding_bag on both libraries."""
    W = np.random.default_rng(3).standard_normal((10, 3))
    out = []
    for lib, fn, offs in ((torch, TF.embedding_bag, torch_offsets or offsets), (mt, mt_embedding_bag, offsets)):
        w = lib.tensor(W, requires_grad=True)
        p = None if psw is None else lib.tensor(psw, dtype=lib.float64, requires_grad=True)
        o = fn(lib.tensor(ids), w, None if offs is None else lib.tensor(offs), per_sample_weights=p, **kw)
        g = np.random.default_rng(4).standard_normal(tuple(o.shape))
        o.backward(lib.tensor(g))
        out.append((o, w.grad, None if p is None else p.grad, o.grad_fn.name()))
    return out


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("case", [
    dict(offsets=[0, 4]),
    dict(offsets=[0, 2, 2, 8], padding_idx=2),  # an empty bag, and padding left out (of the mean's count too)
    dict(offsets=[0, 3, 5], padding_idx=-6),
    dict(offsets=[0, 0, 8]),  # empty bags give zeros
])
def test_embedding_bag_1d_matches_torch(mode, case):
    case = dict(case)
    offsets = case.pop("offsets")
    (ot, gt, _, nt), (om, gm, _, nm) = _bag(IDS, offsets, dict(mode=mode, **case))
    close(ot, om)
    close(gt, gm)
    assert nm == nt == "EmbeddingBagBackward0"


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_embedding_bag_2d_input_matches_torch(mode):
    (ot, gt, _, _), (om, gm, _, _) = _bag([[1, 2, 3], [4, 4, 0]], None, dict(mode=mode, padding_idx=4))
    close(ot, om)
    close(gt, gm)


@pytest.mark.parametrize("padding_idx", [None, 4])
def test_embedding_bag_per_sample_weights_gradients(padding_idx):
    psw = [.1, .2, .3, .4, .5, .6, .7, .8]
    (ot, gt, pt, _), (om, gm, pm, _) = _bag(IDS, [0, 3, 5], dict(mode="sum", padding_idx=padding_idx), psw)
    close(ot, om)
    close(gt, gm)
    close(pt, pm)


@pytest.mark.parametrize("mode", ["sum", "mean"])
def test_embedding_bag_scale_grad_by_freq(mode):
    # (ids where PyTorch's CPU kernel agrees with F.embedding's counting; see the test below)
    (ot, gt, _, _), (om, gm, _, _) = _bag([4, 2, 4, 1], [0, 2], dict(mode=mode, scale_grad_by_freq=True))
    close(ot, om)
    close(gt, gm)


def test_embedding_bag_scale_grad_by_freq_divides_by_each_ids_count():
    """Each id's gradient divided by how often the id occurs, as F.embedding counts (PyTorch's
    embedding_bag CPU kernel miscounts some orders, e.g. ids [4, 5, 4] give id 5 half its
    gradient: minitorch follows the documented rule)."""
    w = mt.ones(10, 3, requires_grad=True)
    mt_embedding_bag(mt.tensor([4, 5, 4]), w, mt.tensor([0]), mode="sum", scale_grad_by_freq=True).sum().backward()
    ref = torch.ones(10, 3, requires_grad=True)
    TF.embedding(torch.tensor([4, 5, 4]), ref, scale_grad_by_freq=True).sum().backward()
    close(ref.grad, w.grad)


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_embedding_bag_include_last_offset(mode):
    """offsets has one more entry, the end of the last bag (CSR style). (Where that end is before
    the end of the input, PyTorch's kernels disagree with each other, float32 and float64, forward
    and backward; minitorch leaves the ids after it out of every bag, as documented.)"""
    (ot, gt, _, _), (om, gm, _, _) = _bag(IDS, [0, 4, 4, 8], dict(mode=mode, include_last_offset=True))
    close(ot, om)
    close(gt, gm)
    w = mt.tensor(np.random.default_rng(3).standard_normal((10, 3)))
    short = mt_embedding_bag(mt.tensor(IDS), w, mt.tensor([0, 4, 4, 7]), mode=mode, include_last_offset=True)
    close(mt_embedding_bag(mt.tensor(IDS[:7]), w, mt.tensor([0, 4, 4]), mode=mode), short)


def test_embedding_bag_module_matches_torch():
    bt, bm = both(lambda L: L.nn.EmbeddingBag(10, 3, mode="sum", padding_idx=0))
    assert repr(bm) == repr(bt) == "EmbeddingBag(10, 3, mode='sum', padding_idx=0)"
    assert list(bm.state_dict()) == list(bt.state_dict()) == ["weight"]
    close(bt.weight, bm.weight)  # N(0, 1), the padding row zero
    ids, offs = [0, 3, 3, 7, 1], [0, 2]
    ot, om = bt(torch.tensor(ids), torch.tensor(offs)), bm(mt.tensor(ids), mt.tensor(offs))
    close(ot, om)
    ot.sum().backward()
    om.sum().backward()
    close(bt.weight.grad, bm.weight.grad)
    bt, bm = both(lambda L: L.nn.EmbeddingBag(10, 3, max_norm=1.0, scale_grad_by_freq=True))
    assert repr(bm) == repr(bt)
    close(bt(torch.tensor([[1, 2], [2, 3]])), bm(mt.tensor([[1, 2], [2, 3]])))  # rows renormed in place
    close(bt.weight, bm.weight)


def test_embedding_bag_from_pretrained():
    w = [[1, 2.3, 3], [4, 5.1, 6.3]]
    bt = torch.nn.EmbeddingBag.from_pretrained(torch.tensor(w))
    bm = mt.nn.EmbeddingBag.from_pretrained(mt.tensor(w))
    close(bt(torch.tensor([[1, 0]])), bm(mt.tensor([[1, 0]])))
    assert bm.weight.requires_grad is bt.weight.requires_grad is False


@pytest.mark.parametrize("call", [
    lambda L, F, w: F(L.tensor(IDS), w, L.tensor([1, 4])),  # offsets[0] must be 0
    lambda L, F, w: F(L.tensor(IDS), w, L.tensor([0, 9])),  # past the end
    lambda L, F, w: F(L.tensor([1, 11]), w, L.tensor([0])),  # id out of range
    lambda L, F, w: F(L.tensor([1, -1]), w, L.tensor([0])),
    lambda L, F, w: F(L.tensor(IDS).float(), w, L.tensor([0, 4])),  # float ids
    lambda L, F, w: F(L.tensor(IDS), w, L.tensor([0, 4]), mode="max", per_sample_weights=L.ones(8)),
    lambda L, F, w: F(L.tensor(IDS), w, L.tensor([0, 4]), per_sample_weights=L.ones(8)),  # mean
    lambda L, F, w: F(L.tensor(IDS), w, L.tensor([0, 4]), mode="sum", per_sample_weights=L.ones(8).double()),
    lambda L, F, w: F(L.tensor(IDS), w, L.tensor([0, 4]), mode="sum", per_sample_weights=L.ones(7)),
    lambda L, F, w: F(L.tensor(IDS), w, L.tensor([0, 4]), mode="median"),
    lambda L, F, w: F(L.tensor(IDS), w),  # 1-D ids need offsets
    lambda L, F, w: F(L.tensor([[1, 2]]), w, L.tensor([0])),  # 2-D ids take none
    lambda L, F, w: F(L.tensor(IDS), w, L.tensor([0, 4]), mode="max", scale_grad_by_freq=True),
    lambda L, F, w: F(L.tensor([[[1]]]), w),
])
def test_embedding_bag_errors_match_torch(call):
    same_error(lambda: call(torch, TF.embedding_bag, torch.ones(10, 3)),
               lambda: call(mt, mt_embedding_bag, mt.ones(10, 3)))


# ---- Buffer -----------------------------------------------------------------------------------

def test_buffer_registers_on_assignment():
    def make(L):
        class M(L.nn.Module):
            def __init__(self):
                super().__init__()
                self.a = L.nn.Buffer(L.zeros(2))
                self.b = L.nn.Buffer(L.ones(1), persistent=False)
                self.fc = L.nn.Linear(2, 1)
        return M()
    t, m = both(make)
    assert list(m.state_dict()) == list(t.state_dict()) == ["a", "fc.weight", "fc.bias"]
    assert [n for n, _ in m.named_buffers()] == [n for n, _ in t.named_buffers()] == ["a", "b"]
    assert len(list(m.parameters())) == len(list(t.parameters())) == 2
    m.a, t.a = mt.ones(3), torch.ones(3)  # a plain tensor into a buffer's name stays a buffer
    assert list(m.state_dict()) == list(t.state_dict())
    b = mt.nn.Buffer(mt.ones(2, requires_grad=True))
    bt = torch.nn.Buffer(torch.ones(2, requires_grad=True))
    assert type(b) is mt.Tensor and isinstance(b, mt.nn.Buffer) and not isinstance(mt.ones(1), mt.nn.Buffer)
    assert b.requires_grad is bt.requires_grad and b.grad_fn is None and b.persistent is bt.persistent
    assert mt.nn.parameter.Buffer is mt.nn.Buffer


def test_buffer_errors_match_torch():
    same_error(lambda: torch.nn.Buffer([1, 2]), lambda: mt.nn.Buffer([1, 2]))
    def assign_twice(L):
        class M(L.nn.Module):
            def __init__(self):
                super().__init__()
                self.x = 1
                self.x = L.nn.Buffer(L.zeros(1))
        return M()
    same_error(lambda: assign_twice(torch), lambda: assign_twice(mt))


def test_uninitialized_buffer():
    ut, um = torch.nn.UninitializedBuffer(), mt.nn.UninitializedBuffer()
    assert repr(um) == repr(ut) == "<UninitializedBuffer>"
    assert um.requires_grad is ut.requires_grad is False and isinstance(um, mt.nn.Buffer)
    same_error(lambda: ut.shape, lambda: um.shape)
    um.materialize((2, 3))
    assert type(um) is mt.Tensor and tuple(um.shape) == (2, 3)
    assert mt.nn.parameter.is_lazy(mt.nn.UninitializedParameter()) and not mt.nn.parameter.is_lazy(mt.ones(1))


# ---- lazy modules -----------------------------------------------------------------------------

LAZY = [
    ("LazyConv1d", (4, 3), (2, 3, 7)),
    ("LazyConv2d", (8, 3), (2, 3, 6, 6)),
    ("LazyConv2d", (8, 3), (3, 6, 6)),  # unbatched: in_channels from dim 0
    ("LazyConvTranspose1d", (4, 3), (2, 3, 5)),
    ("LazyConvTranspose2d", (4, 2), (2, 3, 4, 4)),
    ("LazyBatchNorm1d", (), (4, 3)),
    ("LazyBatchNorm2d", (), (4, 3, 2, 2)),
    ("LazyInstanceNorm1d", (), (2, 3, 5)),
    ("LazyInstanceNorm2d", (), (2, 3, 4, 4)),
]


@pytest.mark.parametrize("name,args,shape", LAZY, ids=[f"{n}{len(s)}d" for n, _, s in LAZY])
def test_lazy_module_matches_torch(name, args, shape):
    t, m = both(lambda L: getattr(L.nn, name)(*args))
    assert repr(m) == repr(t)
    assert list(m.state_dict()) == list(t.state_dict())
    assert [repr(v) for v in m.state_dict().values()] == [repr(v) for v in t.state_dict().values()]
    x = R(*shape)
    xt, xm = torch.tensor(x, requires_grad=True), mt.tensor(x, requires_grad=True)
    seed(1)
    ot = t(xt)
    seed(1)
    om = m(xm)
    assert type(m).__name__ == type(t).__name__ == name[4:]
    assert repr(m) == repr(t)
    close(ot, om, atol=1e-4)
    ot.square().sum().backward()
    om.square().sum().backward()
    close(xt.grad, xm.grad, atol=1e-4)
    for (k, vt), (_, vm) in zip(t.state_dict().items(), m.state_dict().items()):
        close(vt, vm, atol=1e-4)
    for pt, pm in zip(t.parameters(), m.parameters()):
        close(pt.grad, pm.grad, atol=1e-3)


def test_lazy_module_loads_a_state_dict():
    seed()
    src = mt.nn.Conv2d(3, 4, 3)
    m = mt.nn.LazyConv2d(4, 3)
    m.load_state_dict(src.state_dict())
    close(src.weight, m.weight)
    x = mt.randn(1, 3, 5, 5)
    close(src(x), m(x))
    bn = mt.nn.LazyBatchNorm1d()
    bn.load_state_dict(mt.nn.BatchNorm1d(3).state_dict())
    assert tuple(bn.running_mean.shape) == (3,)


def test_lazy_module_errors_match_torch():
    same_error(lambda: torch.nn.LazyConv2d(4, 3)(torch.ones(3, 3)), lambda: mt.nn.LazyConv2d(4, 3)(mt.ones(3, 3)))
    same_error(lambda: torch.nn.LazyConv2d(4, 3, groups=2)(torch.ones(1, 3, 5, 5)),
               lambda: mt.nn.LazyConv2d(4, 3, groups=2)(mt.ones(1, 3, 5, 5)))
    same_error(lambda: torch.nn.LazyBatchNorm2d()(torch.ones(3, 3)), lambda: mt.nn.LazyBatchNorm2d()(mt.ones(3, 3)))


def test_instance_norm_checks_num_features_as_torch():
    same_error(lambda: torch.nn.InstanceNorm1d(4, affine=True)(torch.ones(2, 3, 5)),
               lambda: mt.nn.InstanceNorm1d(4, affine=True)(mt.ones(2, 3, 5)))
    with pytest.warns(UserWarning, match="does not match num_features"):
        mt.nn.InstanceNorm1d(4)(mt.ones(2, 3, 5))


# ---- weight_norm / spectral_norm (hook-based) ---------------------------------------------------

MAKERS = {
    "linear": (lambda L: L.nn.Linear(3, 2), (5, 3)),
    "conv1d": (lambda L: L.nn.Conv1d(2, 4, 3), (2, 2, 5)),
    "convT1d": (lambda L: L.nn.ConvTranspose1d(2, 4, 3), (2, 2, 5)),
}


def _train_steps(t, m, shape, steps=3):
    x = R(*shape)
    for _ in range(steps):
        ot, om = t(torch.tensor(x)), m(mt.tensor(x))
        ot.square().sum().backward()
        om.square().sum().backward()
    return ot, om


@pytest.mark.parametrize("dim", [0, 1, None, -1])
@pytest.mark.parametrize("kind", list(MAKERS))
def test_weight_norm_matches_torch(kind, dim):
    make, shape = MAKERS[kind]
    with pytest.warns(FutureWarning, match="weight_norm` is deprecated"):
        m = mt.nn.utils.weight_norm((seed(), make(mt))[1], dim=dim)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = torch.nn.utils.weight_norm((seed(), make(torch))[1], dim=dim)
    assert list(m.state_dict()) == list(t.state_dict())
    close(t.weight_g, m.weight_g)
    assert m.weight.grad_fn.name() == t.weight.grad_fn.name()
    ot, om = _train_steps(t, m, shape)
    close(ot, om)
    close(t.weight_g.grad, m.weight_g.grad, atol=1e-4)
    close(t.weight_v.grad, m.weight_v.grad, atol=1e-4)
    torch.nn.utils.remove_weight_norm(t)
    mt.nn.utils.remove_weight_norm(m)
    assert list(m.state_dict()) == list(t.state_dict())
    close(t.weight, m.weight)
    assert type(m.weight) is mt.nn.Parameter


def test_weight_norm_errors_match_torch():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t, m = both(lambda L: L.nn.utils.weight_norm(L.nn.Linear(3, 2)))
        same_error(lambda: torch.nn.utils.weight_norm(t), lambda: mt.nn.utils.weight_norm(m))
        same_error(lambda: torch.nn.utils.remove_weight_norm(t, "bias"),
                   lambda: mt.nn.utils.remove_weight_norm(m, "bias"))
        same_error(lambda: torch.nn.utils.weight_norm(torch.nn.LazyLinear(2)),
                   lambda: mt.nn.utils.weight_norm(mt.nn.LazyLinear(2)))


@pytest.mark.parametrize("kind", list(MAKERS))
def test_spectral_norm_matches_torch(kind):
    make, shape = MAKERS[kind]
    t, m = both(lambda L: L.nn.utils.spectral_norm(make(L)))
    assert list(m.state_dict()) == list(t.state_dict()) == ["bias", "weight_orig", "weight_u", "weight_v"]
    close(t.weight_u, m.weight_u)  # the random start, drawn as PyTorch draws it
    ot, om = _train_steps(t, m, shape)
    close(ot, om)
    close(t.weight_orig.grad, m.weight_orig.grad, atol=1e-4)
    close(t.weight_u, m.weight_u)
    t.eval()
    m.eval()
    x = R(*shape)
    close(t(torch.tensor(x)), m(mt.tensor(x)))
    torch.nn.utils.remove_spectral_norm(t)
    mt.nn.utils.remove_spectral_norm(m)
    assert list(m.state_dict()) == list(t.state_dict())
    close(t.weight, m.weight)


def test_spectral_norm_errors_match_torch():
    t, m = both(lambda L: L.nn.utils.spectral_norm(L.nn.Linear(3, 2)))
    same_error(lambda: torch.nn.utils.spectral_norm(t), lambda: mt.nn.utils.spectral_norm(m))
    same_error(lambda: torch.nn.utils.remove_spectral_norm(t, "bias"),
               lambda: mt.nn.utils.remove_spectral_norm(m, "bias"))
    same_error(lambda: torch.nn.utils.spectral_norm(torch.nn.Linear(3, 2), n_power_iterations=0),
               lambda: mt.nn.utils.spectral_norm(mt.nn.Linear(3, 2), n_power_iterations=0))


# ---- parametrize / parametrizations -------------------------------------------------------------

def _symmetric(L):
    class Symmetric(L.nn.Module):
        def forward(self, X):
            return X.triu() + X.triu(1).mT
    return Symmetric()


def test_register_parametrization_matches_torch():
    t, m = both(lambda L: L.nn.Linear(3, 3))
    L_t, L_m = torch.nn.utils.parametrize, mt.nn.utils.parametrize
    L_t.register_parametrization(t, "weight", _symmetric(torch))
    L_m.register_parametrization(m, "weight", _symmetric(mt))
    assert repr(m) == repr(t) and type(m).__name__ == "ParametrizedLinear"
    assert list(m.state_dict()) == list(t.state_dict()) == ["bias", "parametrizations.weight.original"]
    assert L_m.is_parametrized(m) and L_m.is_parametrized(m, "weight") and not L_m.is_parametrized(m, "bias")
    assert L_m.type_before_parametrizations(m) is mt.nn.Linear
    close(t.weight, m.weight)
    x = R(4, 3)
    ot, om = t(torch.tensor(x)), m(mt.tensor(x))
    close(ot, om)
    ot.sum().backward()
    om.sum().backward()
    close(t.parametrizations.weight.original.grad, m.parametrizations.weight.original.grad)
    with L_t.cached(), L_m.cached():
        assert m.weight is m.weight
    assert m.weight is not m.weight
    L_t.remove_parametrizations(t, "weight")
    L_m.remove_parametrizations(m, "weight")
    assert type(m) is mt.nn.Linear and list(m.state_dict()) == list(t.state_dict())
    close(t.weight, m.weight)
    assert isinstance(m.weight, mt.nn.Parameter)


def test_parametrization_errors_match_torch():
    class Bad(mt.nn.Module):
        def forward(self, X):
            return X[0]

    class BadT(torch.nn.Module):
        def forward(self, X):
            return X[0]
    same_error(lambda: torch.nn.utils.parametrize.register_parametrization(torch.nn.Linear(2, 2), "weight", BadT()),
               lambda: mt.nn.utils.parametrize.register_parametrization(mt.nn.Linear(2, 2), "weight", Bad()))
    same_error(lambda: torch.nn.utils.parametrize.register_parametrization(torch.nn.Linear(2, 2), "w", BadT()),
               lambda: mt.nn.utils.parametrize.register_parametrization(mt.nn.Linear(2, 2), "w", Bad()))
    same_error(lambda: torch.nn.utils.parametrize.remove_parametrizations(torch.nn.Linear(2, 2), "weight"),
               lambda: mt.nn.utils.parametrize.remove_parametrizations(mt.nn.Linear(2, 2), "weight"))


def test_parametrized_module_deepcopies_and_refuses_pickle():
    import pickle
    m = mt.nn.utils.parametrizations.weight_norm(mt.nn.Linear(3, 2))
    c = copy.deepcopy(m)
    close(m.weight, c.weight)
    assert c.parametrizations.weight.original0 is not m.parametrizations.weight.original0
    with pytest.raises(RuntimeError, match="only supported through state_dict"):
        pickle.dumps(m)


def test_parametrizations_weight_norm_matches_torch():
    t, m = both(lambda L: L.nn.utils.parametrizations.weight_norm(L.nn.Linear(3, 2)))
    assert repr(m) == repr(t)
    assert list(m.state_dict()) == list(t.state_dict()) == [
        "bias", "parametrizations.weight.original0", "parametrizations.weight.original1"]
    assert m.weight.grad_fn.name() == t.weight.grad_fn.name() == "WeightNormInterfaceBackward0"
    ot, om = _train_steps(t, m, (5, 3))
    close(ot, om)
    for pt, pm in zip(t.parameters(), m.parameters()):
        close(pt.grad, pm.grad, atol=1e-4)
    # a state_dict of the old weight_norm loads into the new one
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        old = mt.nn.utils.weight_norm(mt.nn.Linear(3, 2))
    m.load_state_dict(old.state_dict())
    close(old.weight, m.weight)
    m.weight = mt.ones(2, 3)  # assignment goes through right_inverse
    close(mt.ones(2, 3), m.weight)


def test_parametrizations_spectral_norm_matches_torch():
    t, m = both(lambda L: L.nn.utils.parametrizations.spectral_norm(L.nn.Linear(3, 4)))
    assert repr(m) == repr(t)
    assert list(m.state_dict()) == list(t.state_dict())
    close(t.parametrizations.weight[0]._u, m.parametrizations.weight[0]._u)
    ot, om = _train_steps(t, m, (5, 3))
    close(ot, om)
    close(t.parametrizations.weight.original.grad, m.parametrizations.weight.original.grad, atol=1e-4)
    t.eval()
    m.eval()
    close(t.weight, m.weight)


@pytest.mark.parametrize("shape,orthogonal_map,trivial", [
    ((3, 3), None, True),  # matrix_exp
    ((3, 3), "cayley", True),
    ((3, 3), "householder", True),
    ((4, 3), None, True),  # householder, the base completed with random columns
    ((3, 5), None, True),  # a wide matrix: its transpose is made orthogonal
    ((3, 3), "matrix_exp", False),
    ((4, 3), "householder", False),  # the stored tensor is geqrf's
])
def test_parametrizations_orthogonal_matches_torch(shape, orthogonal_map, trivial):
    t, m = both(lambda L: L.nn.utils.parametrizations.orthogonal(
        L.nn.Linear(shape[1], shape[0]), orthogonal_map=orthogonal_map, use_trivialization=trivial))
    assert repr(m) == repr(t) and list(m.state_dict()) == list(t.state_dict())
    close(t.weight, m.weight, atol=1e-5)
    w = m.weight.detach()
    Q = w if shape[0] >= shape[1] else w.mT
    close(np.eye(min(shape)), (Q.mT @ Q), atol=1e-5)
    opt_t = torch.optim.SGD(t.parameters(), lr=0.1)
    opt_m = mt.optim.SGD(m.parameters(), lr=0.1)
    x = R(6, shape[1])
    for _ in range(3):  # trained away from the start: the maps' values and gradients still agree
        for mod, opt, lib in ((t, opt_t, torch), (m, opt_m, mt)):
            opt.zero_grad()
            (mod(lib.tensor(x)) ** 3).sum().backward()
            opt.step()
    close(t.weight, m.weight, atol=1e-4)


def test_orthogonal_errors_match_torch():
    same_error(lambda: torch.nn.utils.parametrizations.orthogonal(torch.nn.Linear(3, 3), orthogonal_map="qr"),
               lambda: mt.nn.utils.parametrizations.orthogonal(mt.nn.Linear(3, 3), orthogonal_map="qr"))
    same_error(lambda: torch.nn.utils.parametrizations.orthogonal(torch.nn.Linear(3, 3), "bias"),
               lambda: mt.nn.utils.parametrizations.orthogonal(mt.nn.Linear(3, 3), "bias"))
    same_error(lambda: torch.nn.utils.parametrizations.orthogonal(torch.nn.Linear(3, 3), "w"),
               lambda: mt.nn.utils.parametrizations.orthogonal(mt.nn.Linear(3, 3), "w"))


# ---- register_backward_hook (legacy) --------------------------------------------------------------

@pytest.mark.parametrize("make", [lambda L: L.nn.Tanh(), lambda L: L.nn.Sequential(L.nn.Tanh(), L.nn.Sigmoid())])
def test_register_backward_hook_sees_the_last_ops_gradients(make):
    seen = {}

    def run(L):
        mod = make(L)
        got = []
        mod.register_backward_hook(lambda m, gi, go: got.append((gi, go)))
        x = L.tensor(R(4, 3), requires_grad=True)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            out = mod(x)
        out.sum().backward()
        seen[L.__name__] = got
        return [(m.category, str(m.message)) for m in w]
    wt, wm = run(torch), run(mt)
    assert wm == wt and "multiple autograd Nodes" in wm[0][1]
    (git, got_), = seen["torch"]
    (gim, gom), = seen["minitorch"]
    assert len(gim) == len(git) and len(gom) == len(got_)
    for a, b in zip(git + got_, gim + gom):
        assert (a is None) == (b is None)
        if a is not None:
            close(a, b)


def test_backward_hook_kinds_do_not_mix():
    for L in (torch, mt):
        lin = L.nn.Linear(2, 2)
        lin.register_backward_hook(lambda *a: None)
        with pytest.raises(RuntimeError, match="Cannot use both regular backward hooks and full backward hooks"):
            lin.register_full_backward_hook(lambda *a: None)
        lin = L.nn.Linear(2, 2)
        lin.register_full_backward_hook(lambda *a: None)
        with pytest.raises(RuntimeError, match="Cannot use both regular backward hooks and full backward hooks"):
            lin.register_backward_hook(lambda *a: None)


# ---- AlphaDropout / FeatureAlphaDropout -------------------------------------------------------

@pytest.mark.parametrize("name,shape", [("AlphaDropout", (4, 5)), ("FeatureAlphaDropout", (2, 3, 4)),
                                        ("FeatureAlphaDropout", (2, 3))])
@pytest.mark.parametrize("p", [0.0, 0.3, 1.0])
def test_alpha_dropout_matches_torch(name, shape, p):
    t, m = getattr(torch.nn, name)(p), getattr(mt.nn, name)(p)
    assert repr(m) == repr(t)
    x = R(*shape)
    xt, xm = torch.tensor(x, requires_grad=True), mt.tensor(x, requires_grad=True)
    seed(2)
    ot = t(xt)
    seed(2)
    om = m(xm)
    close(ot, om)
    ot.sum().backward()
    om.sum().backward()
    close(xt.grad, xm.grad)
    t.eval()
    m.eval()
    assert m(xm) is xm and t(xt) is xt


def test_alpha_dropout_errors_match_torch():
    same_error(lambda: torch.nn.AlphaDropout(1.5), lambda: mt.nn.AlphaDropout(1.5))
    same_error(lambda: torch.nn.FeatureAlphaDropout(0.5)(torch.ones(3)),
               lambda: mt.nn.FeatureAlphaDropout(0.5)(mt.ones(3)))


# ---- import paths ---------------------------------------------------------------------------------

@pytest.mark.parametrize("path,name", [
    ("nn.modules.loss", "_Loss"), ("nn.modules.loss", "_WeightedLoss"), ("nn.modules.module", "Module"),
    ("nn.modules.conv", "_ConvNd"), ("nn.modules.conv", "Conv2d"), ("nn.modules.batchnorm", "_BatchNorm"),
    ("nn.modules.batchnorm", "_NormBase"), ("nn.modules.linear", "Linear"), ("nn.modules.linear", "Identity"),
    ("nn.modules.activation", "MultiheadAttention"), ("nn.modules.dropout", "_DropoutNd"),
    ("nn.modules.sparse", "EmbeddingBag"), ("nn.modules.rnn", "RNNBase"), ("nn.modules.lazy", "LazyModuleMixin"),
    ("nn.modules.container", "Sequential"), ("nn.modules.pooling", "MaxPool2d"), ("nn.modules", "Linear"),
    ("nn.modules.instancenorm", "_InstanceNorm"), ("nn.modules.utils", "_pair"), ("nn.parameter", "Parameter"),
    ("nn.parameter", "UninitializedParameter"), ("nn.parameter", "Buffer"), ("nn.utils.parametrize", "cached"),
])
def test_torch_nn_modules_import_paths(path, name):
    import importlib
    getattr(importlib.import_module("torch." + path), name)
    obj = getattr(importlib.import_module("minitorch." + path), name)
    public = getattr(mt.nn, name, None)
    assert public is None or public is obj
    if path == "nn.modules.utils":
        assert obj(3) == (3, 3) and obj((1, 2)) == (1, 2)


# ---- numerical gradient checks of the new primitives (first and second derivatives) ---------

def _f64(*shape, s=0):
    return mt.tensor(np.random.default_rng(s).standard_normal(shape), dtype=mt.float64, requires_grad=True)


@pytest.mark.parametrize("kw", [dict(mode="sum"), dict(mode="mean", padding_idx=4), dict(mode="max"),
                                dict(mode="sum", padding_idx=-1)])  # (scale_grad_by_freq is no derivative)
def test_embedding_bag_gradcheck(kw):
    from minitorch.autograd import gradcheck, gradgradcheck
    ids, offs = mt.tensor(IDS), mt.tensor([0, 3, 3, 5])

    def fn(w):
        return mt_embedding_bag(ids, w, offs, **kw)
    assert gradcheck(fn, (_f64(10, 3),))
    assert gradgradcheck(fn, (_f64(10, 3),))


def test_embedding_bag_per_sample_weights_gradcheck():
    from minitorch.autograd import gradcheck, gradgradcheck
    ids, offs = mt.tensor(IDS), mt.tensor([0, 3, 5])

    def fn(w, p):
        return mt_embedding_bag(ids, w, offs, mode="sum", per_sample_weights=p, padding_idx=2)
    assert gradcheck(fn, (_f64(10, 3), _f64(8, s=1)))
    assert gradgradcheck(fn, (_f64(10, 3), _f64(8, s=1)))


@pytest.mark.parametrize("dim", [0, 2])
def test_weight_norm_interface_gradcheck(dim):
    from minitorch.autograd import gradcheck, gradgradcheck
    from minitorch.nn.utils.weight_norm import WeightNormInterface
    g_shape = (4, 1, 1) if dim == 0 else (1, 1, 5)

    def fn(v, g):
        return WeightNormInterface.apply(v, g, dim=dim)
    assert gradcheck(fn, (_f64(4, 3, 5), _f64(*g_shape, s=1)))
    assert gradgradcheck(fn, (_f64(4, 3, 5), _f64(*g_shape, s=1)))
