"""Tests on a real GPU through CuPy. Without one they skip, and say why."""
import numpy as np
import pytest

import minitorch as torch

_why = torch.cuda._cupy_state()[2]
pytestmark = [pytest.mark.gpu,
              pytest.mark.skipif(not torch.cuda.is_available(), reason=f"no CUDA GPU: {_why}")]


def test_cuda_device_basics():
    assert torch.cuda.device_count() >= 1
    t = torch.ones(3, device="cuda")
    assert t.device == torch.device("cuda:0") and t.is_cuda
    assert type(t._data).__module__.startswith("cupy")
    assert repr(t) == "tensor([1., 1., 1.], device='cuda:0')"


def test_round_trip_and_values_match_cpu():
    torch.manual_seed(0)
    a = torch.randn(64, 32)
    b = torch.randn(32, 16)
    ga, gb = a.cuda(), b.to("cuda")
    for cpu, gpu in [(a @ b, ga @ gb), ((a * 2).exp().sum(1), (ga * 2).exp().sum(1)),
                     (a.relu().mean(), ga.relu().mean()), (a.T.contiguous(), ga.T.contiguous())]:
        np.testing.assert_allclose(gpu.cpu().numpy(), cpu.numpy(), rtol=1e-4, atol=1e-5)


def test_mismatch_error_is_pytorchs():
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device, but found at least two "
                                           "devices, cuda:0 and cpu!"):
        torch.ones(2, device="cuda") + torch.ones(2)


def test_numpy_on_gpu_tells_to_call_cpu():
    with pytest.raises(TypeError, match=r"Tensor.cpu\(\)"):
        torch.ones(2, device="cuda").numpy()


def test_autograd_on_gpu():
    w = torch.randn(4, 3, device="cuda", requires_grad=True)
    x = torch.randn(5, 4, device="cuda")
    (x @ w).tanh().sum().backward()
    assert w.grad.device == torch.device("cuda:0")
    wc, xc = w.detach().cpu().requires_grad_(), x.cpu()
    (xc @ wc).tanh().sum().backward()
    np.testing.assert_allclose(w.grad.cpu().numpy(), wc.grad.numpy(), rtol=1e-4, atol=1e-5)


def test_float16_matmul():
    a = torch.randn(128, 128, device="cuda").half()
    out = a @ a
    assert out.dtype == torch.float16 and out.device.type == "cuda"


def test_module_to_cuda_and_train_step():
    nn = pytest.importorskip("minitorch.nn")
    if not hasattr(nn, "Linear"):
        pytest.skip("minitorch.nn.Linear not available")
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 3)).to("cuda")
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x = torch.randn(32, 8, device="cuda")
    y = torch.randint(0, 3, (32,), device="cuda")
    loss0 = None
    for _ in range(20):
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        loss0 = loss0 if loss0 is not None else loss.item()
    assert all(p.device.type == "cuda" for p in model.parameters())
    assert loss.item() < loss0


def test_cuda_module_functions():
    assert torch.cuda.current_device() == 0
    assert isinstance(torch.cuda.get_device_name(), str) and torch.cuda.get_device_name()
    torch.cuda.synchronize()
    torch.cuda.set_device(0)
    assert torch.ones(1, device="cuda").device == torch.device("cuda", 0)


def test_random_tensors_on_the_gpu_are_reproducible():
    torch.manual_seed(3)
    a = torch.randn(4, 5, device="cuda")
    torch.manual_seed(3)
    b = torch.randn(4, 5, device="cuda")
    assert a.device.type == "cuda"
    np.testing.assert_array_equal(a.cpu().numpy(), b.cpu().numpy())


def test_state_dict_of_a_gpu_model_loads_on_the_cpu():
    nn = torch.nn
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2)).cuda()
    state = {k: v.cpu() for k, v in model.state_dict().items()}
    cpu = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
    cpu.load_state_dict(state)
    x = torch.randn(5, 3)
    np.testing.assert_allclose(model(x.cuda()).detach().cpu().numpy(), cpu(x).detach().numpy(), rtol=1e-5,
                               atol=1e-6)
