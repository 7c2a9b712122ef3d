"""minitorch.save / minitorch.load: round trips, the weights-only guard, foreign files, and
(when PyTorch is installed) files moving between the two libraries both ways."""
from __future__ import annotations

import collections
import io
import os
import pickle
import zipfile

import numpy as np
import pytest

import minitorch
from minitorch import nn, optim

DTYPES = ["float32", "float64", "float16", "int64", "int32", "int16", "int8", "uint8", "bool"]


def roundtrip(obj, **load_kw):
    buf = io.BytesIO()
    minitorch.save(obj, buf)
    buf.seek(0)
    return minitorch.load(buf, **load_kw)


def _values(dtype, shape=(2, 3)):
    arr = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape) - 2.5
    return arr.astype(dtype) if dtype != "bool" else arr > 0


# ---- round trips ------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(2, 3), (), (0, 4), (3, 1, 2)], ids=["2x3", "0d", "empty", "3x1x2"])
def test_tensor_round_trip(dtype, shape):
    t = minitorch.tensor(_values(dtype, shape))
    back = roundtrip(t)
    assert isinstance(back, minitorch.Tensor) and not isinstance(back, nn.Parameter)
    assert back.dtype is t.dtype and back.shape == t.shape
    np.testing.assert_array_equal(back.numpy(), t.numpy())
    assert back.numpy() is not t.numpy()  # a copy, not the same memory


@pytest.mark.parametrize("make", [lambda t: t.t(), lambda t: t[:, ::2], lambda t: t[1:],
                                  lambda t: t.expand(3, 2, 4)[1], lambda t: t[0].expand(3, 4)],
                         ids=["transposed", "step-sliced", "offset", "expanded-row", "expanded"])
def test_views_keep_their_layout(make):
    base = minitorch.arange(8.0).reshape(2, 4)
    v = make(base)
    back = roundtrip(v)
    assert back.tolist() == v.tolist()
    assert back.stride() == v.stride() and back.storage_offset() == v.storage_offset()


def test_tensors_sharing_memory_still_share_it():
    base = minitorch.arange(6.0).reshape(2, 3)
    got = roundtrip({"base": base, "col": base[:, 1], "t": base.t()})
    got["base"][0, 1] = 100.0
    assert got["col"].tolist() == [100.0, 4.0]
    assert got["t"][1, 0].item() == 100.0


def test_requires_grad_and_parameters_survive():
    p = nn.Parameter(minitorch.ones(2, 2))
    q = nn.Parameter(minitorch.zeros(3), requires_grad=False)
    x = minitorch.tensor([1.0, 2.0], requires_grad=True)
    y = (x * 2).detach()
    got = roundtrip([p, q, x, y])
    assert type(got[0]) is nn.Parameter and got[0].requires_grad and got[0].is_leaf
    assert type(got[1]) is nn.Parameter and not got[1].requires_grad
    assert got[2].requires_grad and got[2].is_leaf and type(got[2]) is minitorch.Tensor
    assert not got[3].requires_grad


def test_plain_values_and_containers():
    obj = collections.OrderedDict(
        a=1, b=2.5, c="text", d=None, e=True, f=[1, (2, 3)], g={"nested": {"t": minitorch.tensor([1, 2])}},
        h={3, 4}, i=b"bytes", j=minitorch.float64, k=minitorch.device("cpu"), m=minitorch.Size([2, 3]), n=-7 ** 30,
        o=complex(1, 2), p=collections.Counter("aab"), q=bytearray(b"xy"))
    got = roundtrip(obj)
    assert type(got) is collections.OrderedDict and list(got) == list(obj)
    assert got["g"]["nested"]["t"].tolist() == [1, 2]
    for k in "abcdefhinopq":
        assert got[k] == obj[k], k
    assert got["j"] is minitorch.float64 and got["k"] == minitorch.device("cpu")
    assert got["m"] == minitorch.Size([2, 3]) and isinstance(got["m"], minitorch.Size)


def test_paths_and_file_objects(tmp_path):
    t = minitorch.tensor([[1.5, 2.5]])
    for target in [str(tmp_path / "a.pt"), tmp_path / "b.pth"]:
        minitorch.save(t, target)
        assert minitorch.load(target).tolist() == [[1.5, 2.5]]
    with open(tmp_path / "c.pt", "wb") as f:
        minitorch.save({"t": t}, f)
    with open(tmp_path / "c.pt", "rb") as f:
        assert minitorch.load(f)["t"].tolist() == [[1.5, 2.5]]
    assert zipfile.is_zipfile(tmp_path / "c.pt")


def _model():
    minitorch.manual_seed(0)
    return nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))


def test_module_state_dict_round_trip():
    model = _model()
    sd = roundtrip(model.state_dict())
    assert list(sd) == list(model.state_dict())
    fresh = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
    fresh.load_state_dict(sd)
    x = minitorch.randn(5, 3)
    assert fresh(x).tolist() == model(x).tolist()


@pytest.mark.parametrize("make", [lambda ps: optim.SGD(ps, lr=0.1, momentum=0.9), lambda ps: optim.Adam(ps, lr=0.01)],
                         ids=["sgd-momentum", "adam"])
def test_optimizer_state_dict_round_trip(make):
    """Training resumed from a checkpoint takes exactly the steps the uninterrupted run takes."""
    def step(model, opt, x):
        opt.zero_grad()
        model(x).pow(2).sum().backward()
        opt.step()

    x = minitorch.randn(4, 3)
    model = _model()
    opt = make(model.parameters())
    step(model, opt, x)
    ckpt = roundtrip({"model": model.state_dict(), "optim": opt.state_dict(), "epoch": 1})
    step(model, opt, x)

    resumed = _model()
    resumed.load_state_dict(ckpt["model"])
    opt2 = make(resumed.parameters())
    opt2.load_state_dict(ckpt["optim"])
    step(resumed, opt2, x)
    for a, b in zip(model.parameters(), resumed.parameters()):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-6)
    assert ckpt["epoch"] == 1


def test_map_location_forms():
    t = minitorch.tensor([1.0, 2.0])
    seen = []

    def where(storage, location):
        seen.append(location)
        return storage

    for loc in [None, "cpu", minitorch.device("cpu"), {"cpu": "cpu"}, where, lambda s, loc: "cpu"]:
        assert roundtrip(t, map_location=loc).tolist() == [1.0, 2.0]
    assert seen == ["cpu"]


def test_map_location_to_a_missing_gpu_says_what_to_do():
    if minitorch.cuda.is_available():
        pytest.skip("a GPU is there: the storage would load onto it")
    with pytest.raises(RuntimeError, match="map_location=torch.device\\('cpu'\\)"):
        roundtrip(minitorch.ones(2), map_location={"cpu": "cuda:0"})


def test_whole_objects_need_weights_only_false():
    model = _model()
    buf = io.BytesIO()
    minitorch.save(model, buf)
    buf.seek(0)
    with pytest.raises(pickle.UnpicklingError, match="(?s)Weights only load failed.*Sequential"):
        minitorch.load(buf)
    buf.seek(0)
    back = minitorch.load(buf, weights_only=False)
    x = minitorch.randn(2, 3)
    assert back(x).tolist() == model(x).tolist()


class Settings:  # a user's own class, stored in a checkpoint
    def __init__(self, lr):
        self.lr = lr


def test_own_classes_can_be_allowed():
    buf = io.BytesIO()
    minitorch.save({"cfg": Settings(0.5)}, buf)
    buf.seek(0)
    with pytest.raises(pickle.UnpicklingError, match="add_safe_globals"):
        minitorch.load(buf)
    buf.seek(0)
    with minitorch.serialization.safe_globals([Settings]):
        assert minitorch.load(buf)["cfg"].lr == 0.5
    assert Settings not in minitorch.serialization.get_safe_globals()
    minitorch.serialization.add_safe_globals([Settings])
    try:
        buf.seek(0)
        assert minitorch.load(buf)["cfg"].lr == 0.5
    finally:
        minitorch.serialization.clear_safe_globals()


# ---- files that must be refused -----------------------------------------------------------

def _archive(data_pkl, extra=()):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("archive/data.pkl", data_pkl)
        for name, data in extra:
            z.writestr(name, data)
    buf.seek(0)
    return buf


class _Evil:
    def __init__(self, path):
        self.path = path

    def __reduce__(self):
        return (os.system, (f"touch {self.path}",))


def test_a_malicious_pickle_never_runs(tmp_path):
    marker = tmp_path / "pwned"
    payloads = [pickle.dumps({"w": _Evil(marker)}, protocol=p) for p in (2, 4)]
    buf = io.BytesIO()
    minitorch.save({"w": _Evil(marker)}, buf)  # written by save itself, like a tampered checkpoint
    payloads.append(zipfile.ZipFile(io.BytesIO(buf.getvalue())).read("archive/data.pkl"))
    for data in payloads:
        with pytest.raises(pickle.UnpicklingError, match="(?s)Weights only load failed.*(system|blocked)"):
            minitorch.load(_archive(data))
        assert not marker.exists()


@pytest.mark.parametrize("payload", [
    b"cbuiltins\neval\n(S'1+1'\ntR.",
    b"cbuiltins\ngetattr\n(cbuiltins\nobject\nS'__subclasses__'\ntR.",
    b"c__builtin__\nexec\n(S'x=1'\ntR.",
    b"csubprocess\ncall\n(S'true'\ntR.",
], ids=["eval", "getattr", "exec", "subprocess"])
def test_dangerous_globals_are_refused(payload):
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed"):
        minitorch.load(_archive(payload))


@pytest.mark.parametrize("content", [b"hello, this is not a checkpoint", b"", pickle.dumps({"a": 1}),
                                     np.arange(4).tobytes()], ids=["text", "empty", "plain-pickle", "raw-bytes"])
def test_a_foreign_file_is_refused_clearly(tmp_path, content):
    path = tmp_path / "model.pt"
    path.write_bytes(content)
    with pytest.raises(pickle.UnpicklingError, match="not a checkpoint written by minitorch.save or torch.save"):
        minitorch.load(path)
    with pytest.raises(pickle.UnpicklingError, match="not a checkpoint"):
        minitorch.load(path, weights_only=False)


def test_a_zip_without_data_pkl_is_refused():
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("readme.txt", "hello")
    buf.seek(0)
    with pytest.raises(pickle.UnpicklingError, match="not a checkpoint"):
        minitorch.load(buf)


def test_a_damaged_archive_is_an_unpickling_error():
    buf = io.BytesIO()
    minitorch.save(minitorch.ones(3), buf)
    raw = zipfile.ZipFile(io.BytesIO(buf.getvalue()))
    data = raw.read("archive/data.pkl")
    with pytest.raises(pickle.UnpicklingError):
        minitorch.load(_archive(data))  # the storage record is missing


def test_the_legacy_format_is_not_written():
    with pytest.raises(NotImplementedError, match="zip"):
        minitorch.save(minitorch.ones(2), io.BytesIO(), _use_new_zipfile_serialization=False)


def test_load_needs_a_path_or_file_object():
    with pytest.raises(AttributeError):
        minitorch.load(12345)


def test_the_archive_is_pytorchs_layout():
    buf = io.BytesIO()
    minitorch.save({"w": minitorch.ones(2, 3), "v": minitorch.arange(3)}, buf)
    z = zipfile.ZipFile(io.BytesIO(buf.getvalue()))
    names = set(z.namelist())
    assert {"archive/data.pkl", "archive/version", "archive/byteorder", "archive/data/0", "archive/data/1"} <= names
    assert z.read("archive/byteorder") == b"little"
    for info in z.infolist():
        assert info.compress_type == zipfile.ZIP_STORED
        if info.filename.startswith("archive/data/"):  # storages start 64-byte aligned
            data_start = info.header_offset + 30 + len(info.filename) + len(info.extra)
            assert data_start % 64 == 0
    assert b"torch._utils" in z.read("archive/data.pkl") and b"_rebuild_tensor_v2" in z.read("archive/data.pkl")


# ---- with PyTorch: files move both ways ------------------------------------------------------

def _torch():
    return pytest.importorskip("torch", reason="PyTorch not installed: checkpoint exchange not checked")


@pytest.mark.torch
@pytest.mark.parametrize("dtype", DTYPES)
def test_pytorch_reads_a_minitorch_file(dtype):
    torch = _torch()
    base = minitorch.tensor(_values(dtype, (3, 4)))
    buf = io.BytesIO()
    minitorch.save({"t": base, "view": base.t()[1:], "p": nn.Parameter(minitorch.ones(2)), "n": 3}, buf)
    buf.seek(0)
    got = torch.load(buf)  # PyTorch's default: weights_only=True
    assert str(got["t"].dtype) == f"torch.{dtype}"
    np.testing.assert_array_equal(got["t"].numpy(), base.numpy())
    np.testing.assert_array_equal(got["view"].numpy(), base.t()[1:].numpy())
    assert got["view"].stride() == base.t()[1:].stride()
    assert got["view"].untyped_storage().data_ptr() == got["t"].untyped_storage().data_ptr()
    assert isinstance(got["p"], torch.nn.Parameter) and got["n"] == 3


@pytest.mark.torch
def test_minitorch_reads_a_pytorch_checkpoint(tmp_path):
    torch = _torch()
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    model(torch.randn(5, 3)).sum().backward()
    opt.step()
    path = tmp_path / "ckpt.pt"
    base = torch.arange(12.0).reshape(3, 4)
    torch.save({"model": model.state_dict(), "optim": opt.state_dict(), "epoch": 7,
                "extras": [torch.tensor([1, 2]), torch.float16, torch.Size([2]), torch.device("cpu")],
                "base": base, "view": base.t()[1:]}, path)
    ckpt = minitorch.load(path)
    assert ckpt["view"].tolist() == base.t()[1:].tolist() and ckpt["view"].stride() == base.t()[1:].stride()
    ckpt["base"][1, 1] = -1.0  # still one storage
    assert ckpt["view"][0, 1].item() == -1.0
    mine = _model()
    mine.load_state_dict(ckpt["model"])
    x = np.random.default_rng(0).standard_normal((2, 3)).astype(np.float32)
    np.testing.assert_allclose(mine(minitorch.tensor(x)).detach().numpy(), model(torch.tensor(x)).detach().numpy(),
                               rtol=1e-5, atol=1e-6)
    o = optim.Adam(mine.parameters(), lr=0.01)
    o.load_state_dict(ckpt["optim"])
    assert ckpt["epoch"] == 7 and ckpt["extras"][0].tolist() == [1, 2]
    assert ckpt["extras"][1] is minitorch.float16 and ckpt["extras"][2] == minitorch.Size([2])


@pytest.mark.torch
def test_a_pytorch_whole_model_pickle_is_refused_by_default(tmp_path):
    torch = _torch()
    path = tmp_path / "whole.pt"
    torch.save(torch.nn.Linear(2, 2), path)
    with pytest.raises(pickle.UnpicklingError, match="(?s)Weights only load failed.*torch.nn.modules.linear.Linear"):
        minitorch.load(path)
