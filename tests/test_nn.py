"""minitorch.nn: Parameter, Module, layers, losses, functional, init (no PyTorch needed)."""
from __future__ import annotations

import copy
import inspect
import math
import pickle
import warnings

import numpy as np
import pytest

import minitorch as torch
import minitorch.nn.functional as F
from minitorch import nn
from minitorch.autograd import gradcheck, gradgradcheck


def f64(*shape, seed=0, requires_grad=True):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, dtype=torch.float64, generator=g, requires_grad=requires_grad)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 3)
        self.act = nn.ReLU()
        self.fc2 = nn.Linear(3, 2)
        self.register_buffer("running", torch.zeros(2))
        self.register_buffer("scratch", torch.ones(1), persistent=False)

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x))) + self.running


# ---- Parameter --------------------------------------------------------------------------------

def test_parameter_is_a_tensor_that_requires_grad_and_shares_memory():
    data = torch.zeros(3)
    p = nn.Parameter(data)
    assert isinstance(p, torch.Tensor) and isinstance(p, nn.Parameter)
    assert p.requires_grad and p.is_leaf
    data[0] = 5.0
    assert p[0].item() == 5.0  # same memory, as in PyTorch
    assert not nn.Parameter(torch.zeros(2), requires_grad=False).requires_grad


def test_parameter_repr_and_ops_give_plain_tensors():
    p = nn.Parameter(torch.tensor([1.0, 2.0]))
    assert repr(p) == "Parameter containing:\ntensor([1., 2.], requires_grad=True)"
    y = p * 2
    assert type(y) is torch.Tensor and y.grad_fn is not None
    assert type(p.detach()) is torch.Tensor


def test_parameter_survives_deepcopy_and_pickle():
    p = nn.Parameter(torch.tensor([1.0, 2.0]))
    p.grad = torch.tensor([0.5, 0.5])
    q = copy.deepcopy(p)
    assert type(q) is nn.Parameter and q.requires_grad and q.grad.tolist() == [0.5, 0.5]
    q.data[0] = 9.0
    assert p[0].item() == 1.0
    r = pickle.loads(pickle.dumps(p))
    assert type(r) is nn.Parameter and r.tolist() == [1.0, 2.0] and r.requires_grad


def test_parameter_rejects_non_tensors():
    with pytest.raises(TypeError, match="expected a Tensor"):
        nn.Parameter([1.0, 2.0])


# ---- Module registration and walking ----------------------------------------------------------

def test_setattr_registers_parameters_modules_buffers():
    m = Net()
    assert list(m._parameters) == []
    assert list(m._modules) == ["fc1", "act", "fc2"]
    assert list(m._buffers) == ["running", "scratch"]
    assert [n for n, _ in m.named_parameters()] == ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
    assert len(list(m.parameters())) == 4
    assert [n for n, _ in m.named_buffers()] == ["running", "scratch"]
    assert [n for n, _ in m.named_children()] == ["fc1", "act", "fc2"]
    assert [n for n, _ in m.named_modules()] == ["", "fc1", "act", "fc2"]
    assert list(m.modules())[0] is m and list(m.children())[0] is m.fc1
    assert list(m.parameters(recurse=False)) == []


def test_shared_parameter_is_listed_once():
    a = nn.Linear(2, 2)
    seq = nn.Sequential(a, nn.ReLU(), a)
    assert len(list(seq.parameters())) == 2
    assert [n for n, _ in seq.named_modules()] == ["", "0", "1"]


def test_assigning_wrong_types_to_registered_names():
    m = nn.Linear(2, 2)
    with pytest.raises(TypeError, match="cannot assign 'torch.FloatTensor' as parameter 'weight'"):
        m.weight = torch.zeros(2, 2)
    m.bias = None
    assert m.bias is None and "bias" in m._parameters
    assert [n for n, _ in m.named_parameters()] == ["weight"]


def test_module_needs_super_init_first():
    class Bad(nn.Module):
        def __init__(self):
            self.fc = nn.Linear(1, 1)

    with pytest.raises(AttributeError, match="before Module.__init__"):
        Bad()


def test_getattr_and_delattr():
    m = Net()
    with pytest.raises(AttributeError, match="'Net' object has no attribute 'nope'"):
        m.nope  # noqa: B018
    del m.fc2
    assert "fc2" not in m._modules
    assert not hasattr(m, "fc2")
    with pytest.raises(KeyError, match="parameter name"):
        m.register_parameter("a.b", None)


def test_register_parameter_rejects_non_leaf():
    m = nn.Module()
    x = torch.ones(2, requires_grad=True)
    with pytest.raises(TypeError, match="Parameter or None required"):
        m.register_parameter("w", x * 2)


def test_get_submodule_and_parameter():
    m = nn.Sequential(nn.Linear(2, 3), nn.Sequential(nn.Linear(3, 1)))
    assert m.get_submodule("1.0") is m[1][0]
    assert m.get_parameter("1.0.bias") is m[1][0].bias
    with pytest.raises(AttributeError):
        m.get_submodule("5")


def test_forward_hooks():
    m = nn.Linear(2, 2)
    seen = []
    h = m.register_forward_hook(lambda mod, inp, out: seen.append(out.shape))
    m(torch.ones(3, 2))
    h.remove()
    m(torch.ones(3, 2))
    assert seen == [torch.Size([3, 2])]
    h2 = m.register_forward_pre_hook(lambda mod, inp: (inp[0] * 0,))
    assert m(torch.ones(1, 2)).tolist() == m.bias.detach().reshape(1, 2).tolist()
    h2.remove()


def test_module_without_forward():
    with pytest.raises(NotImplementedError, match='missing the required "forward"'):
        nn.Module()(torch.ones(1))


# ---- state_dict -------------------------------------------------------------------------------

def test_state_dict_keys_and_sharing():
    m = Net()
    sd = m.state_dict()
    # own parameters and buffers first, then each child's (PyTorch's order); scratch is not persistent
    assert list(sd) == ["running", "fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
    assert not sd["fc1.weight"].requires_grad
    assert sd["fc1.weight"].data_ptr() == m.fc1.weight.data_ptr()  # detached, same memory (as PyTorch)
    assert m.state_dict(keep_vars=True)["fc1.weight"] is m.fc1.weight


def test_load_state_dict_copies_in_place():
    torch.manual_seed(0)
    a, b = Net(), Net()
    x = torch.randn(5, 4)
    w_before = b.fc1.weight
    res = b.load_state_dict({k: v.clone() for k, v in a.state_dict().items()})
    assert res.missing_keys == [] and res.unexpected_keys == []
    assert str(res) == "<All keys matched successfully>"
    assert b.fc1.weight is w_before  # same Parameter object, new values
    assert torch.equal(a(x), b(x))


def test_load_state_dict_strict_errors():
    m = Net()
    sd = m.state_dict()
    del sd["fc2.bias"]
    sd["fc2.extra"] = torch.zeros(1)
    sd["other.weight"] = torch.zeros(1)
    with pytest.raises(RuntimeError) as e:
        m.load_state_dict(sd)
    assert str(e.value) == ('Error(s) in loading state_dict for Net:\n\tMissing key(s) in state_dict: "fc2.bias". '
                            '\n\tUnexpected key(s) in state_dict: "other.weight", "fc2.extra". ')
    res = m.load_state_dict(sd, strict=False)
    assert res.missing_keys == ["fc2.bias"]
    assert sorted(res.unexpected_keys) == ["fc2.extra", "other.weight"]


def test_load_state_dict_size_mismatch():
    m = nn.Linear(2, 3)
    sd = nn.Linear(2, 2).state_dict()
    with pytest.raises(RuntimeError, match=r"size mismatch for weight: copying a param with shape .*\[2, 2\]\) from "
                                           r"checkpoint, the shape in current model is .*\[3, 2\]\)"):
        m.load_state_dict(sd)


# ---- modes, zero_grad, to, apply ----------------------------------------------------------------

def test_train_eval_flags_propagate():
    m = nn.Sequential(nn.Linear(2, 2), nn.Dropout(0.5), nn.Sequential(nn.Dropout(0.1)))
    assert all(x.training for x in m.modules())
    assert m.eval() is m
    assert not any(x.training for x in m.modules())
    m.train()
    assert all(x.training for x in m.modules())
    with pytest.raises(ValueError):
        m.train("yes")


def test_zero_grad():
    m = nn.Linear(3, 1)
    m(torch.ones(2, 3)).sum().backward()
    assert m.weight.grad is not None
    m.zero_grad(set_to_none=False)
    assert m.weight.grad.tolist() == [[0.0, 0.0, 0.0]]
    m(torch.ones(2, 3)).sum().backward()
    m.zero_grad()
    assert m.weight.grad is None and m.bias.grad is None


def test_to_dtype_in_place_keeps_parameter_objects_and_grads():
    torch.manual_seed(0)
    m = Net()
    w = m.fc1.weight
    opt = torch.optim.SGD(m.parameters(), lr=0.1)
    m(torch.randn(2, 4)).sum().backward()
    assert m.double() is m
    assert m.fc1.weight is w and w.dtype is torch.float64
    assert w.grad.dtype is torch.float64
    assert m.running.dtype is torch.float64
    before = w.detach().clone()
    opt.step()  # the optimizer still holds the converted parameters
    assert not torch.equal(before, w.detach())
    m.to(torch.float32)
    assert w.dtype is torch.float32 and m(torch.randn(2, 4)).dtype is torch.float32
    with pytest.raises(TypeError, match="floating point"):
        m.to(torch.int64)


def test_to_keeps_integer_buffers():
    m = nn.Module()
    m.register_buffer("count", torch.tensor(3))
    m.to(torch.float64)
    assert m.count.dtype is torch.int64


@pytest.fixture
def fake_device():
    """A second NumPy-backed device type, so moving between devices is tested without a GPU."""
    from minitorch import _device
    _device.register_backend(_device._Backend(
        "fakedev", load_module=lambda: np, to_host=lambda a: a.copy(), from_host=lambda a, i: a.copy(),
        count=lambda: 1, describe_missing=lambda: "test device"))
    yield torch.device("fakedev:0")
    del _device._BACKENDS["fakedev"]
    for k in [k for k in _device._cache if "fakedev" in str(k[0])]:
        del _device._cache[k]


def test_to_device_moves_parameters_grads_buffers(fake_device):
    torch.manual_seed(0)
    m = Net()
    m(torch.randn(2, 4)).sum().backward()
    w = m.fc1.weight
    opt = torch.optim.Adam(m.parameters(), lr=0.1)
    m.to(fake_device)
    assert m.fc1.weight is w and w.device == fake_device and w.grad.device == fake_device
    assert m.running.device == fake_device and m.scratch.device == fake_device
    x = torch.randn(2, 4)
    with pytest.raises(RuntimeError, match="same device"):
        m(x)
    out = m(x.to(fake_device))
    assert out.device == fake_device
    m.zero_grad()
    out.sum().backward()
    assert w.grad.device == fake_device
    opt.step()
    assert opt.state[w]["exp_avg"].device == fake_device
    m.cpu()
    assert w.device == torch.device("cpu")


def test_apply_visits_every_module():
    m = nn.Sequential(nn.Linear(2, 2), nn.Sequential(nn.Linear(2, 2), nn.ReLU()))
    seen = []
    assert m.apply(lambda mod: seen.append(type(mod).__name__)) is m
    assert seen == ["Linear", "Linear", "ReLU", "Sequential", "Sequential"]

    def init(mod):
        if isinstance(mod, nn.Linear):
            nn.init.ones_(mod.weight)
    m.apply(init)
    assert m[1][0].weight.tolist() == [[1.0, 1.0], [1.0, 1.0]]


def test_repr_like_pytorch():
    m = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                      nn.Sequential(nn.Linear(64, 10, bias=False), nn.Dropout(0.2)))
    assert repr(m) == """Sequential(
  (0): Conv2d(1, 4, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1))
  (1): ReLU()
  (2): MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)
  (3): Flatten(start_dim=1, end_dim=-1)
  (4): Sequential(
    (0): Linear(in_features=64, out_features=10, bias=False)
    (1): Dropout(p=0.2, inplace=False)
  )
)"""
    assert repr(nn.Embedding(10, 3, padding_idx=0)) == "Embedding(10, 3, padding_idx=0)"
    assert repr(nn.CrossEntropyLoss()) == "CrossEntropyLoss()"


def test_module_deepcopy_and_pickle():
    m = Net()
    c = copy.deepcopy(m)
    assert type(c.fc1.weight) is nn.Parameter
    with torch.no_grad():
        c.fc1.weight.fill_(0.0)
    assert not torch.equal(m.fc1.weight.detach(), c.fc1.weight.detach())
    p = pickle.loads(pickle.dumps(m.eval()))
    assert type(p.fc2.bias) is nn.Parameter and not p.training and list(p.state_dict()) == list(m.state_dict())
    x = torch.randn(3, 4)
    assert torch.equal(p(x), m(x))


# ---- containers ---------------------------------------------------------------------------------

def test_sequential_indexing():
    layers = [nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1)]
    s = nn.Sequential(*layers)
    assert len(s) == 3 and s[0] is layers[0] and s[-1] is layers[2]
    assert list(s) == layers
    sub = s[1:]
    assert isinstance(sub, nn.Sequential) and list(sub) == layers[1:]
    s.append(nn.Sigmoid())
    assert len(s) == 4 and isinstance(s[3], nn.Sigmoid)
    del s[1]
    assert [n for n, _ in s.named_children()] == ["0", "1", "2"]
    with pytest.raises(IndexError):
        s[10]
    from collections import OrderedDict
    named = nn.Sequential(OrderedDict(first=nn.Linear(1, 1), act=nn.Tanh()))
    assert [n for n, _ in named.named_parameters()] == ["first.weight", "first.bias"]


def test_sequential_forward_chains():
    s = nn.Sequential(nn.Linear(2, 2), nn.ReLU())
    x = torch.randn(4, 2)
    assert torch.equal(s(x), s[1](s[0](x)))


def test_modulelist_and_moduledict_register():
    ml = nn.ModuleList([nn.Linear(2, 2) for _ in range(3)])
    ml.append(nn.Linear(2, 1))
    ml.insert(0, nn.ReLU())
    assert len(ml) == 5 and isinstance(ml[0], nn.ReLU)
    assert len(list(ml.parameters())) == 8
    assert [n for n, _ in ml.named_parameters()][:2] == ["1.weight", "1.bias"]
    md = nn.ModuleDict({"a": nn.Linear(1, 2), "b": nn.ReLU()})
    assert "a" in md and list(md.keys()) == ["a", "b"]
    assert [n for n, _ in md.named_parameters()] == ["a.weight", "a.bias"]


# ---- layers ---------------------------------------------------------------------------------------

def test_linear_shapes_and_formula():
    m = nn.Linear(4, 3)
    x = torch.randn(5, 4)
    expected = x.numpy() @ m.weight.detach().numpy().T + m.bias.detach().numpy()
    np.testing.assert_allclose(m(x).detach().numpy(), expected, rtol=1e-5, atol=1e-6)
    assert m(torch.randn(2, 7, 4)).shape == (2, 7, 3)
    assert nn.Linear(4, 3, bias=False).bias is None
    with pytest.raises(RuntimeError, match="cannot be multiplied"):
        m(torch.randn(5, 3))


def test_default_initialisation_bounds():
    torch.manual_seed(0)
    m = nn.Linear(100, 50)
    bound = 1 / math.sqrt(100)  # kaiming_uniform_(a=sqrt(5)) gives U(-1/sqrt(fan_in), 1/sqrt(fan_in))
    w = m.weight.detach().numpy()
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.95 * bound
    assert abs(w.std() - bound / math.sqrt(3)) < 0.01
    assert np.abs(m.bias.detach().numpy()).max() <= bound
    c = nn.Conv2d(3, 8, 3)
    cb = 1 / math.sqrt(3 * 9)
    assert np.abs(c.weight.detach().numpy()).max() <= cb and np.abs(c.bias.detach().numpy()).max() <= cb
    e = nn.Embedding(1000, 20)
    ew = e.weight.detach().numpy()
    assert abs(ew.mean()) < 0.02 and abs(ew.std() - 1) < 0.02
    assert m.weight.grad_fn is None and m.weight.is_leaf


def test_conv2d_shapes_and_a_hand_computed_value():
    c = nn.Conv2d(2, 3, kernel_size=3, stride=2, padding=1)
    assert c(torch.randn(4, 2, 9, 7)).shape == (4, 3, 5, 4)
    assert c(torch.randn(2, 9, 7)).shape == (3, 5, 4)  # unbatched
    k = nn.Conv2d(1, 1, 2, bias=False)
    with torch.no_grad():
        k.weight.copy_(torch.tensor([[[[1.0, 2.0], [3.0, 4.0]]]]))
    x = torch.arange(9.0).reshape(1, 1, 3, 3)
    # top-left window [[0,1],[3,4]] . [[1,2],[3,4]] = 0 + 2 + 9 + 16
    assert k(x).tolist() == [[[[27.0, 37.0], [57.0, 67.0]]]]
    assert nn.Conv2d(1, 2, 3, padding="same")(torch.randn(1, 1, 5, 6)).shape == (1, 2, 5, 6)
    assert nn.Conv2d(1, 2, 3, dilation=2)(torch.randn(1, 1, 7, 7)).shape == (1, 2, 3, 3)


def test_conv2d_errors():
    c = nn.Conv2d(3, 4, 3)
    with pytest.raises(RuntimeError, match=r"expected input\[1, 2, 5, 5\] to have 3 channels, but got 2"):
        c(torch.randn(1, 2, 5, 5))
    with pytest.raises(RuntimeError, match="Kernel size can't be greater than actual input size"):
        c(torch.randn(1, 3, 2, 2))
    with pytest.raises(RuntimeError, match="Expected 3D .* or 4D"):
        c(torch.randn(3, 5))
    with pytest.raises(RuntimeError, match="should be the same"):
        c(torch.randn(1, 3, 5, 5, dtype=torch.float64))


def test_maxpool2d_values_and_gradient_routing():
    x = torch.tensor([[[[1.0, 5.0, 2.0, 0.0],
                        [3.0, 4.0, 8.0, 7.0],
                        [0.0, 0.0, 1.0, 1.0],
                        [9.0, 0.0, 1.0, 2.0]]]], requires_grad=True)
    out, idx = F.max_pool2d(x, 2, return_indices=True)
    assert out.tolist() == [[[[5.0, 8.0], [9.0, 2.0]]]]
    assert idx.tolist() == [[[[1, 6], [12, 15]]]]
    out.sum().backward()
    assert x.grad.tolist() == [[[[0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 0], [1, 0, 0, 1]]]]
    assert nn.MaxPool2d(3, stride=1, padding=1)(torch.randn(2, 3, 5, 5)).shape == (2, 3, 5, 5)
    with pytest.raises(RuntimeError, match="pad should be at most half"):
        F.max_pool2d(torch.randn(1, 1, 4, 4), 2, padding=2)


def test_overlapping_maxpool_adds_gradients():
    x = torch.tensor([[[[0.0, 0.0, 0.0], [0.0, 9.0, 0.0], [0.0, 0.0, 0.0]]]], requires_grad=True)
    F.max_pool2d(x, 2, stride=1).sum().backward()
    assert x.grad[0, 0, 1, 1].item() == 4.0  # the centre is the max of all four windows


def test_avgpool2d():
    x = torch.arange(16.0).reshape(1, 1, 4, 4)
    assert nn.AvgPool2d(2)(x).tolist() == [[[[2.5, 4.5], [10.5, 12.5]]]]


def test_embedding_lookup_padding_and_errors():
    e = nn.Embedding(5, 3, padding_idx=0)
    assert e.weight[0].tolist() == [0.0, 0.0, 0.0]
    ids = torch.tensor([[1, 0, 1], [4, 2, 0]])
    out = e(ids)
    assert out.shape == (2, 3, 3)
    assert torch.equal(out[0, 0], e.weight[1].detach())
    out.sum().backward()
    assert e.weight.grad[0].tolist() == [0.0, 0.0, 0.0]  # padding row: no gradient
    assert e.weight.grad[1].tolist() == [2.0, 2.0, 2.0]  # id 1 used twice: gradients add
    assert e.weight.grad[3].tolist() == [0.0, 0.0, 0.0]
    with pytest.raises(IndexError, match="index out of range in self"):
        e(torch.tensor([5]))
    with pytest.raises(RuntimeError, match="'indices' to have one of the following scalar types: Long, Int"):
        e(torch.tensor([1.0]))
    assert nn.Embedding(5, 2, padding_idx=-1).padding_idx == 4


def test_embedding_from_pretrained():
    w = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    e = nn.Embedding.from_pretrained(w)
    assert not e.weight.requires_grad
    assert e(torch.tensor([1])).tolist() == [[3.0, 4.0]]


def test_activations():
    x = torch.tensor([[-2.0, 0.0, 3.0]])
    assert nn.ReLU()(x).tolist() == [[0.0, 0.0, 3.0]]
    np.testing.assert_allclose(nn.Sigmoid()(x).numpy(), 1 / (1 + np.exp(-x.numpy())), rtol=1e-6)
    np.testing.assert_allclose(nn.Tanh()(x).numpy(), np.tanh(x.numpy()), rtol=1e-6)
    sm = nn.Softmax(dim=1)(x)
    np.testing.assert_allclose(sm.sum(1).numpy(), [1.0], rtol=1e-6)
    np.testing.assert_allclose(nn.LogSoftmax(dim=1)(x).exp().numpy(), sm.numpy(), rtol=1e-5)
    assert nn.LeakyReLU(0.1)(x).tolist()[0][0] == pytest.approx(-0.2)
    with pytest.warns(UserWarning, match="Implicit dimension choice"):
        F.softmax(x)
    big = torch.tensor([[1000.0, 0.0]])
    assert F.log_softmax(big, dim=1).isfinite().all()


def test_flatten_unflatten_identity():
    x = torch.randn(2, 3, 4, 5)
    assert nn.Flatten()(x).shape == (2, 60)
    assert nn.Flatten(0, 1)(x).shape == (6, 4, 5)
    assert nn.Unflatten(1, (3, 20))(nn.Flatten()(x)).shape == (2, 3, 20)
    assert nn.Identity()(x) is x


def test_dropout_training_and_eval():
    x = torch.ones(200, 100)
    d = nn.Dropout(0.3)
    torch.manual_seed(1)
    y1 = d(x)
    torch.manual_seed(1)
    y2 = d(x)
    assert torch.equal(y1, y2)  # seeded by minitorch's generator
    vals = np.unique(y1.numpy())
    assert vals.tolist() == [0.0, np.float32(1 / 0.7)]
    assert abs((y1 == 0).float().mean().item() - 0.3) < 0.02
    d.eval()
    assert d(x) is x
    assert F.dropout(x, 1.0).sum().item() == 0
    with pytest.raises(ValueError, match="between 0 and 1"):
        nn.Dropout(1.5)
    xg = torch.ones(10, requires_grad=True)
    torch.manual_seed(0)
    out = F.dropout(xg, 0.5)
    out.sum().backward()
    assert torch.equal(xg.grad, out.detach())  # gradient = the mask, scaled


# ---- losses -------------------------------------------------------------------------------------

def _np_log_softmax(z):
    z = z - z.max(axis=1, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=1, keepdims=True))


def test_mse_and_l1():
    a, b = torch.tensor([1.0, 2.0, 3.0]), torch.tensor([1.0, 0.0, 0.0])
    assert nn.MSELoss()(a, b).item() == pytest.approx(13 / 3)
    assert nn.MSELoss(reduction="sum")(a, b).item() == pytest.approx(13)
    assert nn.MSELoss(reduction="none")(a, b).tolist() == [0.0, 4.0, 9.0]
    assert nn.L1Loss()(a, b).item() == pytest.approx(5 / 3)
    with pytest.raises(ValueError, match="is not a valid value for reduction"):
        nn.MSELoss(reduction="avg")
    with pytest.warns(UserWarning, match="different to the input size"):
        F.mse_loss(torch.ones(3, 1), torch.ones(3))


def test_cross_entropy_matches_numpy():
    rng = np.random.default_rng(0)
    z = rng.standard_normal((6, 4)).astype(np.float32)
    y = np.array([0, 3, 1, 2, 3, 0])
    lp = _np_log_softmax(z)
    per = -lp[np.arange(6), y]
    logits, target = torch.tensor(z), torch.tensor(y)
    assert nn.CrossEntropyLoss()(logits, target).item() == pytest.approx(per.mean(), rel=1e-5)
    assert nn.CrossEntropyLoss(reduction="sum")(logits, target).item() == pytest.approx(per.sum(), rel=1e-5)
    np.testing.assert_allclose(nn.CrossEntropyLoss(reduction="none")(logits, target).numpy(), per, rtol=1e-5)
    w = np.array([1.0, 2.0, 0.5, 1.0], dtype=np.float32)
    expected = (per * w[y]).sum() / w[y].sum()
    assert nn.CrossEntropyLoss(weight=torch.tensor(w))(logits, target).item() == pytest.approx(expected, rel=1e-5)
    # NLLLoss on log_softmax is the same thing
    assert nn.NLLLoss()(F.log_softmax(logits, 1), target).item() == pytest.approx(per.mean(), rel=1e-5)


def test_cross_entropy_ignore_index_and_stability():
    logits = torch.tensor([[1e4, 0.0, -1e4], [0.0, 1e4, 0.0], [5.0, 5.0, 5.0]], requires_grad=True)
    target = torch.tensor([0, 2, -100])
    loss = F.cross_entropy(logits, target)
    assert math.isfinite(loss.item())
    assert loss.item() == pytest.approx(1e4 / 2, rel=1e-6)  # (0 + 1e4) / 2 non-ignored rows
    loss.backward()
    assert logits.grad[2].tolist() == [0.0, 0.0, 0.0]
    assert logits.grad.isfinite().all()
    assert F.cross_entropy(logits, torch.tensor([0, 2, 1]), ignore_index=1).item() == pytest.approx(5e3, rel=1e-6)


def test_cross_entropy_argument_errors():
    with pytest.raises(RuntimeError, match="expected target dtype to be Long or Byte, but got Float"):
        F.cross_entropy(torch.randn(3, 4), torch.tensor([0.0, 1.0, 2.0]))
    with pytest.raises(ValueError, match=r"Expected input batch_size \(3\) to match target batch_size \(2\)"):
        F.cross_entropy(torch.randn(3, 4), torch.tensor([0, 1]))
    with pytest.raises(IndexError, match="Target 4 is out of bounds"):
        F.cross_entropy(torch.randn(2, 4), torch.tensor([0, 4]))


def test_cross_entropy_spatial_and_probability_targets():
    logits = torch.randn(2, 3, 4, 5)
    target = torch.randint(0, 3, (2, 4, 5))
    per = F.cross_entropy(logits, target, reduction="none")
    assert per.shape == (2, 4, 5)
    manual = -F.log_softmax(logits, 1).gather(1, target.unsqueeze(1)).squeeze(1)
    np.testing.assert_allclose(per.numpy(), manual.numpy(), rtol=1e-6)
    probs = F.softmax(torch.randn(4, 3), 1)
    z = torch.randn(4, 3)
    expected = -(probs * F.log_softmax(z, 1)).sum(1).mean()
    assert F.cross_entropy(z, probs).item() == pytest.approx(expected.item(), rel=1e-6)


def test_bce_with_logits_stable_and_correct():
    z = torch.tensor([-1000.0, -2.0, 0.0, 3.0, 1000.0], requires_grad=True)
    y = torch.tensor([0.0, 1.0, 1.0, 0.0, 1.0])
    loss = F.binary_cross_entropy_with_logits(z, y, reduction="none")
    zn, yn = np.array([-1000.0, -2.0, 0.0, 3.0, 1000.0]), y.numpy()
    expected = np.maximum(zn, 0) - zn * yn + np.log1p(np.exp(-np.abs(zn)))
    np.testing.assert_allclose(loss.detach().numpy(), expected, rtol=1e-6)
    loss.sum().backward()
    sig = 1 / (1 + np.exp(-np.clip(zn, -500, 500)))
    np.testing.assert_allclose(z.grad.numpy(), sig - yn, atol=1e-7)
    pw = torch.tensor(3.0)
    lw = F.binary_cross_entropy_with_logits(z.detach(), y, pos_weight=pw, reduction="none")
    np.testing.assert_allclose(lw.numpy(), (1 - yn) * zn + (1 + 2 * yn) * (np.log1p(np.exp(-np.abs(zn)))
                                                                            + np.maximum(-zn, 0)), rtol=1e-6)
    with pytest.raises(ValueError, match="must be the same as input size"):
        F.binary_cross_entropy_with_logits(torch.zeros(3), torch.zeros(2))
    p = torch.tensor([0.2, 0.9])
    t = torch.tensor([0.0, 1.0])
    assert nn.BCELoss()(p, t).item() == pytest.approx(-(math.log(0.8) + math.log(0.9)) / 2, rel=1e-6)


def test_loss_modules_hold_options():
    w = torch.tensor([1.0, 2.0])
    loss = nn.CrossEntropyLoss(weight=w, ignore_index=3, label_smoothing=0.1)
    assert loss.weight is w and "weight" in loss._buffers and loss.ignore_index == 3
    assert nn.MSELoss(size_average=False).reduction == "sum"
    assert nn.MSELoss(reduce=False).reduction == "none"


# ---- nn.init ------------------------------------------------------------------------------------

def test_calculate_gain_and_fans():
    init = nn.init
    assert init.calculate_gain("relu") == pytest.approx(math.sqrt(2))
    assert init.calculate_gain("tanh") == pytest.approx(5 / 3)
    assert init.calculate_gain("leaky_relu", 0.2) == pytest.approx(math.sqrt(2 / 1.04))
    assert init.calculate_gain("conv2d") == 1 and init.calculate_gain("sigmoid") == 1
    with pytest.raises(ValueError, match="Unsupported nonlinearity"):
        init.calculate_gain("swish")
    assert init._calculate_fan_in_and_fan_out(torch.empty(8, 3, 5, 5)) == (75, 200)
    with pytest.raises(ValueError, match="fewer than 2 dimensions"):
        init.xavier_uniform_(torch.empty(3))


def test_init_distributions():
    init = nn.init
    g = torch.Generator().manual_seed(0)
    w = torch.empty(400, 300)
    init.xavier_uniform_(w, generator=g)
    a = math.sqrt(6 / 700)
    assert w.abs().max().item() <= a and abs(w.std().item() - a / math.sqrt(3)) < 2e-3
    init.xavier_normal_(w, gain=2.0, generator=g)
    assert abs(w.std().item() - 2 * math.sqrt(2 / 700)) < 2e-3
    init.kaiming_uniform_(w, nonlinearity="relu", generator=g)
    b = math.sqrt(2) * math.sqrt(3 / 300)
    assert w.abs().max().item() <= b and w.abs().max().item() > 0.99 * b
    init.kaiming_normal_(w, mode="fan_out", nonlinearity="relu", generator=g)
    assert abs(w.std().item() - math.sqrt(2 / 400)) < 2e-3
    init.normal_(w, 3.0, 0.5, generator=g)
    assert abs(w.mean().item() - 3.0) < 0.01 and abs(w.std().item() - 0.5) < 0.01
    init.uniform_(w, -2.0, -1.0, generator=g)
    assert w.min().item() >= -2.0 and w.max().item() < -1.0
    assert init.zeros_(w) is w and w.abs().sum().item() == 0
    assert init.ones_(w).sum().item() == w.numel()
    assert init.constant_(w, 0.25).mean().item() == 0.25


def test_init_works_on_parameters_without_recording():
    p = nn.Parameter(torch.empty(3, 4))
    nn.init.kaiming_uniform_(p, a=math.sqrt(5))
    assert p.grad_fn is None and p.is_leaf and p.requires_grad
    g1 = nn.init.normal_(torch.empty(5), generator=torch.Generator().manual_seed(7))
    g2 = nn.init.normal_(torch.empty(5), generator=torch.Generator().manual_seed(7))
    assert torch.equal(g1, g2)


# ---- gradient checks (float64) --------------------------------------------------------------------

@pytest.mark.parametrize("stride,padding,dilation", [(1, 0, 1), (2, 1, 1), ((1, 2), (1, 0), (2, 1))])
def test_gradcheck_conv2d(stride, padding, dilation):
    x, w, b = f64(2, 2, 6, 5, seed=1), f64(3, 2, 3, 2, seed=2), f64(3, seed=3)
    assert gradcheck(lambda x, w, b: F.conv2d(x, w, b, stride, padding, dilation), (x, w, b))


def test_gradgradcheck_conv2d():
    x, w = f64(1, 2, 4, 4, seed=1), f64(2, 2, 2, 2, seed=2)
    assert gradgradcheck(lambda x, w: F.conv2d(x, w, None, 1, 1), (x, w))


@pytest.mark.parametrize("kernel,stride,padding", [(2, None, 0), (3, 2, 1), (2, 1, 0)])
def test_gradcheck_max_pool2d(kernel, stride, padding):
    x = f64(2, 2, 5, 6, seed=4)
    assert gradcheck(lambda x: F.max_pool2d(x, kernel, stride, padding), (x,))
    assert gradgradcheck(lambda x: F.max_pool2d(x, kernel, stride, padding), (x,))


def test_gradcheck_avg_pool2d():
    x = f64(1, 2, 5, 5, seed=5)
    assert gradcheck(lambda x: F.avg_pool2d(x, 3, 2, 1), (x,))


def test_gradcheck_embedding():
    w = f64(6, 3, seed=6)
    ids = torch.tensor([[0, 2, 2], [5, 0, 1]])
    assert gradcheck(lambda w: F.embedding(ids, w), (w,))
    assert gradgradcheck(lambda w: F.embedding(ids, w, padding_idx=2) ** 2, (w,))


def test_gradcheck_detects_the_padding_row():
    # gradcheck is strict enough to see that padding_idx drops a real dependency
    w = f64(6, 3, seed=6)
    ids = torch.tensor([[0, 2, 2]])
    with pytest.raises(RuntimeError, match="Jacobian mismatch"):
        gradcheck(lambda w: F.embedding(ids, w, padding_idx=2), (w,))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_gradcheck_losses(reduction):
    z = f64(5, 4, seed=7)
    t = torch.tensor([0, 3, -100, 1, 3])
    w = torch.tensor([1.0, 2.0, 0.5, 1.5], dtype=torch.float64)
    assert gradcheck(lambda z: F.cross_entropy(z, t, weight=w, reduction=reduction), (z,))
    assert gradcheck(lambda z: F.cross_entropy(z, t, label_smoothing=0.2, reduction=reduction), (z,))
    assert gradcheck(lambda z: F.nll_loss(z, t, reduction=reduction), (z,))
    y = torch.rand(5, 4, dtype=torch.float64, requires_grad=True, generator=torch.Generator().manual_seed(8))
    pw = torch.tensor([0.5, 1.0, 2.0, 3.0], dtype=torch.float64)
    assert gradcheck(lambda z, y: F.binary_cross_entropy_with_logits(z, y, reduction=reduction), (z, y))
    assert gradcheck(lambda z, y: F.binary_cross_entropy_with_logits(z, y, reduction=reduction, pos_weight=pw),
                     (z, y))
    assert gradcheck(lambda z, y: F.mse_loss(z, y, reduction=reduction), (z, y))


def test_gradgradcheck_bce_with_logits():
    z = f64(3, 2, seed=9)
    y = torch.rand(3, 2, dtype=torch.float64, generator=torch.Generator().manual_seed(1))
    assert gradgradcheck(lambda z: F.binary_cross_entropy_with_logits(z, y), (z,))


def test_gradcheck_whole_cnn():
    x, w = f64(2, 1, 4, 4, seed=10), f64(2, 1, 3, 3, seed=11)
    w1, b1 = f64(3, 8, seed=12, requires_grad=False), f64(3, seed=13, requires_grad=False)
    t = torch.tensor([0, 2])

    def f(x, w):
        h = F.max_pool2d(F.relu(F.conv2d(x, w, None, padding=1)), 2).flatten(1)
        return F.cross_entropy(F.linear(h, w1, b1), t)
    assert gradcheck(f, (x, w))


# ---- the compute goes through the tensor's array module ------------------------------------------

def test_ops_do_not_import_numpy():
    from minitorch.nn import _conv, _embedding
    for mod in (_conv, _embedding, F):
        src = inspect.getsource(mod)
        assert "import numpy" not in src and "np." not in src, mod.__name__


def test_no_warnings_in_a_normal_forward_backward():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m = nn.Sequential(nn.Conv2d(1, 2, 3), nn.ReLU(), nn.Flatten(), nn.Linear(4, 3))
        F.cross_entropy(m(torch.randn(4, 1, 4, 3)), torch.tensor([0, 1, 2, 0])).backward()
