"""Devices and placement, exercised without a GPU through the simulated device.

The simulated device (tests/_simulated_device.py) is a NumPy-backed second device type
that only this test suite registers. Every path a GPU would take runs through it: copies on
transfer, mismatch errors, `.to()` returning self, gradients flowing back across devices.
Real-GPU tests live in tests/gpu/ and skip without one.
"""
import subprocess
import sys

import numpy as np
import pytest

import minitorch as torch

import _simulated_device as sim

SIM0, SIM1 = "simulated:0", "simulated:1"


@pytest.fixture(autouse=True, scope="module")
def simulated_device():
    sim.register()
    yield
    sim.unregister()


# ---- device objects ------------------------------------------------------------------

@pytest.mark.parametrize("spec, type_, index, text", [
    ("cpu", "cpu", None, "cpu"),
    ("cuda", "cuda", None, "cuda"),
    ("cuda:1", "cuda", 1, "cuda:1"),
    (("cuda", 2), "cuda", 2, "cuda:2"),
    (3, "cuda", 3, "cuda:3"),
])
def test_device_parsing(spec, type_, index, text):
    d = torch.device(*spec) if isinstance(spec, tuple) else torch.device(spec)
    assert (d.type, d.index, str(d)) == (type_, index, text)
    assert d == torch.device(text) and d != text and torch.device(d) is d  # never equal to a string, as in PyTorch


def test_device_repr_matches_pytorch():
    assert repr(torch.device("cuda:1")) == "device(type='cuda', index=1)"
    assert repr(torch.device("cpu")) == "device(type='cpu')"


@pytest.mark.parametrize("bad", ["gpu", "cuda:x", "CUDA", "cuda:-1", "cpu0", " cpu", "cuda:01"])
def test_invalid_device_strings(bad):
    with pytest.raises(RuntimeError) as e:
        torch.device(bad)
    assert bad.split(":")[0] in str(e.value) or "index" in str(e.value)


def test_device_strings_parse_as_pytorch():
    # PyTorch keeps a CPU index on the device object, but a tensor made there is on plain "cpu"
    assert torch.device("cpu:1").index == 1 and torch.device("cpu:0") != torch.device("cpu")
    assert torch.zeros(2, device="cpu:1").device == torch.device("cpu")
    with pytest.raises(RuntimeError, match="Device string must not be empty"):
        torch.device("")
    with pytest.raises(RuntimeError, match="Invalid device string: 'cpu0'"):
        torch.device("cpu0")
    with pytest.raises(RuntimeError, match="Device index must not be negative"):
        torch.device("cuda", -1)


def test_unknown_type_names_the_known_ones():
    with pytest.raises(RuntimeError, match="Expected one of cpu, cuda.*device type at start of device string: gpu"):
        torch.device("gpu")


# ---- CUDA without a GPU --------------------------------------------------------------------

needs_no_gpu = pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has a GPU")


@needs_no_gpu
def test_cuda_reports_unavailable_with_reason():
    assert torch.cuda.is_available() is False
    assert torch.cuda.device_count() == 0
    with pytest.raises(RuntimeError) as e:
        torch.zeros(2, device="cuda")
    msg = str(e.value)
    assert "CUDA is not available" in msg and ("CuPy" in msg) and "device='cpu'" in msg


@needs_no_gpu
def test_moving_to_cuda_without_gpu_explains():
    with pytest.raises(RuntimeError, match="CUDA is not available"):
        torch.ones(2).cuda()


def test_import_does_not_import_cupy():
    code = "import sys, minitorch; print('cupy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_import_survives_a_broken_cupy(tmp_path):
    (tmp_path / "cupy").mkdir()
    (tmp_path / "cupy" / "__init__.py").write_text("raise OSError('libcudart.so: cannot open shared object')\n")
    code = ("import minitorch; print(minitorch.cuda.is_available()); "
            "import minitorch.cuda as c; print(c._cupy_state()[2])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin"})
    first, reason = out.stdout.strip().split("\n", 1)
    assert first == "False" and "libcudart" in reason


# ---- placement on the simulated device -------------------------------------------------------

def test_factories_take_device():
    for make in [lambda: torch.zeros(2, 3, device=SIM0), lambda: torch.ones(2, device=SIM0),
                 lambda: torch.full((2,), 1.5, device=SIM0), lambda: torch.arange(4, device=SIM0),
                 lambda: torch.tensor([1.0, 2.0], device=SIM0), lambda: torch.randn(3, device=SIM0),
                 lambda: torch.eye(2, device=SIM0), lambda: torch.linspace(0, 1, 3, device=SIM0),
                 lambda: torch.randint(0, 5, (3,), device=SIM0), lambda: torch.empty(2, device=SIM0)]:
        assert make().device == torch.device(SIM0)


def test_like_factories_keep_device():
    t = torch.ones(2, 2, device=SIM1)
    for f in [torch.zeros_like, torch.ones_like, torch.rand_like, torch.randn_like, torch.empty_like]:
        assert f(t).device == torch.device(SIM1)
    assert t.new_zeros(3).device == torch.device(SIM1)


def test_to_copies_memory_and_back():
    a = torch.tensor([1.0, 2.0, 3.0])
    b = a.to(SIM0)
    assert b.device == torch.device(SIM0) and b.tolist() == [1.0, 2.0, 3.0]
    assert b.data_ptr() != a.data_ptr()
    a.add_(10)  # the copy on the other device must not see it
    assert b.tolist() == [1.0, 2.0, 3.0]
    c = b.cpu()
    assert c.device == torch.device("cpu") and c.data_ptr() != b.data_ptr()


def test_to_returns_self_when_nothing_changes():
    a = torch.ones(2, device=SIM0)
    assert a.to(SIM0) is a
    assert a.to(torch.device(SIM0), torch.float32) is a
    assert a.to(a) is a
    cpu = torch.ones(2)
    assert cpu.to("cpu") is cpu and cpu.cpu() is cpu
    assert cpu.to("cpu", copy=True) is not cpu


def test_to_device_and_dtype_together():
    a = torch.tensor([1, 2, 3])
    b = a.to(SIM1, torch.float64)
    assert (b.device, b.dtype) == (torch.device(SIM1), torch.float64)
    c = a.to(b)
    assert (c.device, c.dtype) == (torch.device(SIM1), torch.float64)
    d = a.to(device=SIM0, dtype=torch.float16)
    assert (d.device, d.dtype) == (torch.device(SIM0), torch.float16)


def test_cross_device_copy():
    a = torch.arange(3.0, device=SIM0)
    b = a.to(SIM1)
    assert b.device == torch.device(SIM1) and b.tolist() == [0.0, 1.0, 2.0]


def test_ops_stay_on_device():
    a = torch.randn(3, 4, device=SIM0)
    w = torch.randn(4, 2, device=SIM0)
    for out in [a + 1, a * a, a.exp(), a.sum(1), a @ w, a.T, a[0], torch.cat([a, a]), a.relu(), a.max(1).values]:
        assert out.device == torch.device(SIM0)


def test_mixing_devices_raises_pytorch_error():
    a = torch.ones(3, device=SIM0)
    b = torch.ones(3)
    expected = "Expected all tensors to be on the same device, but found at least two devices, simulated:0 and cpu!"
    for op in [lambda: a + b, lambda: b * a, lambda: torch.cat([a, b]), lambda: torch.where(b > 0, a, b),
               lambda: torch.maximum(a, b)]:
        with pytest.raises(RuntimeError) as e:
            op()
        assert expected in str(e.value)
    with pytest.raises(RuntimeError, match="found at least two devices"):
        torch.ones(2, 3, device=SIM0) @ torch.ones(3, 2)
    with pytest.raises(RuntimeError, match="simulated:1, simulated:0|simulated:0, simulated:1|simulated:0 and simulated:1|simulated:1 and simulated:0"):
        torch.ones(2, device=SIM0) + torch.ones(2, device=SIM1)


def test_zero_dim_cpu_tensor_may_join_a_device_op():
    a = torch.ones(3, device=SIM0)
    out = a * torch.tensor(2.0)
    assert out.device == torch.device(SIM0) and out.tolist() == [2.0, 2.0, 2.0]


def test_in_place_mixing_devices_raises():
    a = torch.ones(3, device=SIM0)
    with pytest.raises(RuntimeError, match="same device"):
        a.add_(torch.ones(3))


def test_numpy_on_device_tensor_says_call_cpu():
    a = torch.ones(2, device=SIM0)
    with pytest.raises(TypeError, match=r"Use Tensor.cpu\(\) to copy the tensor to host memory first"):
        a.numpy()
    np.testing.assert_array_equal(a.cpu().numpy(), np.ones(2, np.float32))


def test_repr_shows_device():
    assert repr(torch.tensor([1.0, 2.0], device=SIM0)) == "tensor([1., 2.], device='simulated:0')"


def test_item_and_tolist_from_device():
    a = torch.tensor([[1.5, 2.0]], device=SIM0)
    assert a.tolist() == [[1.5, 2.0]] and a[0, 0].item() == 1.5


def test_gradients_flow_back_across_to():
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x.to(SIM0)
    assert y.grad_fn.name() == "ToCopyBackward0"
    (y * y).sum().backward()
    assert x.grad.device == torch.device("cpu")
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 4.0, 6.0])


def test_gradients_on_the_device_stay_there():
    w = torch.randn(3, 2, device=SIM0, requires_grad=True)
    x = torch.randn(4, 3, device=SIM0)
    (x @ w).relu().sum().backward()
    assert w.grad.device == torch.device(SIM0) and w.grad.shape == w.shape


def test_index_tensor_on_cpu_for_device_tensor():
    a = torch.arange(5.0, device=SIM0)
    out = a[torch.tensor([0, 4])]
    assert out.device == torch.device(SIM0) and out.tolist() == [0.0, 4.0]


# ---- modules and optimizers on a second device ------------------------------------------------

def test_module_to_moves_parameters_and_grads_in_place():
    nn = torch.nn
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    params_before = list(model.parameters())
    model(torch.randn(3, 4)).sum().backward()
    out = model.to(SIM0)
    assert out is model
    params_after = list(model.parameters())
    assert all(a is b for a, b in zip(params_before, params_after))  # same Parameter objects: optimizers keep them
    assert all(p.device == torch.device(SIM0) for p in params_after)
    assert all(p.grad.device == torch.device(SIM0) for p in params_after)


def test_model_and_input_on_different_devices_raise():
    model = torch.nn.Linear(4, 2).to(SIM0)
    with pytest.raises(RuntimeError, match="same device"):
        model(torch.randn(3, 4))


def test_training_on_the_simulated_device_matches_cpu():
    nn, optim = torch.nn, torch.optim

    def train(device):
        torch.manual_seed(0)
        model = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 3)).to(device)
        opt = optim.Adam(model.parameters(), lr=0.05)
        torch.manual_seed(1)
        x = torch.randn(32, 6).to(device)
        y = torch.randint(0, 3, (32,)).to(device)
        losses = []
        for _ in range(15):
            opt.zero_grad()
            loss = nn.functional.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            losses.append(loss.item())
        return losses, [p.detach().cpu().numpy() for p in model.parameters()], model

    cpu_losses, cpu_params, _ = train("cpu")
    sim_losses, sim_params, model = train(SIM0)
    assert all(p.device == torch.device(SIM0) for p in model.parameters())
    assert sim_losses[-1] < sim_losses[0]
    np.testing.assert_allclose(sim_losses, cpu_losses, rtol=1e-6)
    for a, b in zip(sim_params, cpu_params):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)


def test_state_dict_loads_across_devices():
    a = torch.nn.Linear(3, 2)
    b = torch.nn.Linear(3, 2).to(SIM1)
    b.load_state_dict(a.state_dict())
    assert b.weight.device == torch.device(SIM1)
    np.testing.assert_array_equal(b.weight.detach().cpu().numpy(), a.weight.detach().numpy())
