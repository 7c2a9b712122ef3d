"""The same programs on a GPU and on the CPU: every gradcheck case (values and gradients), every
layer of minitorch.nn (placement, forward, backward), and training steps.

The device is a fixture: "cuda" on a machine with a GPU, else the tests skip and say why. In the
CuPy API check's recording run (tests/test_cupy_api.py) they run on the recording device instead
(NumPy posing as CuPy), which checks these tests, and the GPU path they reach, without a GPU.

Nothing here lists ops or layers by hand: the cases are tests/test_autograd_gradcheck.py's
CASES (which must cover every differentiable primitive), and the layers are every Module
subclass minitorch.nn exports, built from their constructor's argument names.
"""
from __future__ import annotations

import functools
import inspect
import os
import re
import sys

import numpy as np
import pytest

import minitorch as torch
from minitorch import nn

_TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [_TESTS, os.path.dirname(_TESTS)]  # tests/ (the gradcheck cases) and the root (bench/)
from test_autograd_gradcheck import CASES, make_inputs  # noqa: E402

pytestmark = pytest.mark.gpu
CPU = torch.device("cpu")


def _device_under_test():
    from minitorch import _device
    if "recording" in _device._BACKENDS:  # the CuPy API check's recording run
        return torch.device("recording:0")
    return torch.device("cuda:0") if torch.cuda.is_available() else None


@pytest.fixture
def dev():
    d = _device_under_test()
    if d is None:
        pytest.skip(f"no CUDA GPU: {torch.cuda.unavailable_reason()}")
    return d


# ---- ops: every gradcheck case ----------------------------------------------------------------

class OnDevice:
    """minitorch, with every factory that takes `device=` making its tensor on `device` unless
    told otherwise: a case written as fn(lib, *inputs) builds its inputs and constants there."""

    def __init__(self, device):
        self._device = device

    def __getattr__(self, name):
        obj = getattr(torch, name)
        if callable(obj) and not isinstance(obj, type) and _takes_device(obj):
            return functools.partial(_with_device, obj, self._device)
        return obj


@functools.lru_cache(maxsize=None)
def _takes_device(fn):
    try:
        return "device" in inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False


def _with_device(fn, device, *args, **kw):
    kw.setdefault("device", device)
    return fn(*args, **kw)


def _host(t):
    return None if t is None else t.detach().cpu().numpy(force=True).astype(np.float64)


def _flat(out):
    if isinstance(out, torch.Tensor):
        return [out]
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in _flat(o)]
    return []


def _weighted_sum(outs, device):
    """A loss that gives every element of every float output its own weight."""
    terms = [(o.double() * torch.tensor(np.linspace(-1.0, 2.0, max(o.numel(), 1)).reshape(tuple(o.shape)) + k,
                                        device=device)).sum()
             for k, o in enumerate(outs) if o.dtype.is_floating_point]
    return sum(terms) if terms else None


def _run_case(case, device):
    lib = OnDevice(device)
    xs = make_inputs(lib, case, "contiguous")
    outs = _flat(case.fn(lib, *xs))
    loss = _weighted_sum(outs, device)
    grads = torch.autograd.grad(loss, xs, allow_unused=True) if loss is not None and loss.requires_grad else []
    return [_host(o) for o in outs], [_host(g) for g in grads], [o.device for o in outs]


def _assert_same(what, got, want, rtol, atol):
    assert len(got) == len(want), f"{what}: {len(got)} on the device, {len(want)} on the CPU"
    for i, (x, y) in enumerate(zip(got, want)):
        assert (x is None) == (y is None), f"{what} {i}: {x} on the device, {y} on the CPU"
        if x is not None:
            assert x.shape == y.shape, f"{what} {i}: shape {x.shape} on the device, {y.shape} on the CPU"
            np.testing.assert_allclose(x, y, rtol=rtol, atol=atol, err_msg=f"{what} {i}")


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_op_values_and_gradients_match_the_cpu(dev, case):
    """float64 on the device and on the CPU: the same outputs and gradients, outputs on the device."""
    cpu_out, cpu_grad, _ = _run_case(case, CPU)
    out, grad, where = _run_case(case, dev)
    assert all(d == dev for d in where), f"{case.name}: outputs on {where}, expected {dev}"
    _assert_same(f"{case.name} output", out, cpu_out, rtol=1e-6, atol=1e-9)
    _assert_same(f"{case.name} gradient", grad, cpu_grad, rtol=1e-6, atol=1e-9)


# ---- layers: every Module subclass minitorch.nn exports ----------------------------------------

_CONTAINERS = ("Module", "Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict")

# values for the required constructor arguments, by name (a layer asking for another is skipped, named)
_ARGS = {
    "in_features": 4, "out_features": 3, "in1_features": 4, "in2_features": 5, "in_channels": 2,
    "out_channels": 3, "kernel_size": 2, "num_features": 2, "num_channels": 2, "num_groups": 1,
    "normalized_shape": 4, "num_embeddings": 10, "embedding_dim": 4, "input_size": 4, "hidden_size": 3,
    "embed_dim": 4, "num_heads": 2, "output_size": 2, "dim": 1, "padding": 1, "upscale_factor": 2,
    "downscale_factor": 2, "size": 4, "scale_factor": 2, "threshold": 0.5, "value": 0.0, "lambd": 0.5,
    "unflattened_size": (2, 2), "start_dim": 1, "end_dim": -1, "norm_type": 2, "d_model": 4, "nhead": 2,
}
# the feature / channel size an input needs, by the first of these arguments the layer has
_WIDTH = ("in_features", "in1_features", "in_channels", "num_features", "num_channels", "input_size", "embed_dim",
          "normalized_shape", "num_embeddings")


def layer_classes():
    return sorted((n, c) for n in dir(nn) for c in [getattr(nn, n)]
                  if isinstance(c, type) and issubclass(c, nn.Module) and n not in _CONTAINERS
                  and not n.startswith("_"))


def _required(fn):
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return None
    return [p.name for p in params if p.name != "self" and p.default is inspect.Parameter.empty
            and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]


def _input_candidates(cls, kw, n_inputs):
    """Inputs to try, as NumPy arrays: float shapes with the layer's width at dim 1 (or last), or
    class indices for an embedding; a loss gets (prediction, target) pairs."""
    width = next((kw[a] for a in _WIDTH if a in kw), 4)
    width = width[-1] if isinstance(width, tuple) else width
    rng = np.random.default_rng(0)

    def f(*shape):
        return rng.uniform(0.1, 0.9, shape).astype(np.float32)
    if "num_embeddings" in kw:
        return [[rng.integers(0, kw["num_embeddings"], (3, 5))]]
    shapes = [(3, width), (3, width, 6), (3, width, 6, 6), (3, 2, width), (width,), (3, width, 4, 4, 4)]
    if "in2_features" in kw:
        return [[f(3, kw["in1_features"]), f(3, kw["in2_features"])]]
    if cls.__name__.endswith("Loss"):
        pairs = [[f(3, 4), f(3, 4)], [f(3, 4), rng.integers(0, 4, (3,))], [np.log(f(3, 4)), f(3, 4)],
                 [np.log(f(3, 4)), rng.integers(0, 4, (3,))],
                 [f(3, 4), f(3, 4), f(3, 4)], [f(3), f(3), np.sign(f(3) - 0.5).astype(np.float32)],
                 [f(3, 4), f(3, 4), np.ones(3, np.float32)]]
        return [p for p in pairs if len(p) == n_inputs] or pairs
    return [[f(*s)] * n_inputs for s in shapes]


def _constructor_candidates(cls):
    """Keyword sets to build the layer with: its required arguments (named by its signature, or by
    the TypeError of a constructor that takes *args), then each known optional one added."""
    required = _required(cls.__init__) or []
    try:
        cls(**{a: _ARGS[a] for a in required if a in _ARGS})
    except TypeError as e:
        named = re.findall(r"'(\w+)'", str(e)) if "required" in str(e) else []
        required = list(dict.fromkeys(required + named))
    except Exception:
        pass
    unknown = [a for a in required if a not in _ARGS]
    if unknown:
        return None, f"no value known for constructor argument(s) {unknown} (add to _ARGS)"
    base = {a: _ARGS[a] for a in required}
    try:
        optional = [p for p in inspect.signature(cls.__init__).parameters if p in _ARGS and p not in base]
    except (TypeError, ValueError):
        optional = []
    return [base] + [{**base, p: _ARGS[p]} for p in optional], None


def build_layer(cls):
    """(constructor kwargs, input arrays) under which the layer runs on the CPU, or a reason not."""
    kws, why = _constructor_candidates(cls)
    if kws is None:
        return None, f"nn.{cls.__name__}: {why}"
    n_inputs = len(_required(cls.forward) or ["input"])
    errors = []
    for kw in kws:
        for inputs in _input_candidates(cls, kw, n_inputs):
            try:
                torch.manual_seed(0)
                m = cls(**kw).to(CPU).eval()
                m(*[torch.tensor(x, device=CPU) for x in inputs])
            except Exception as e:  # this input does not suit the layer: try the next
                errors.append(f"{type(e).__name__}: {e}"[:120])
                continue
            return (kw, inputs), None
    return None, f"nn.{cls.__name__}({kws[0]}): no input tried works on the CPU ({errors[-1] if errors else '-'})"


def _layer_run(cls, kw, inputs, device, state=None):
    torch.manual_seed(0)
    m = cls(**kw)
    if state is not None:
        m.load_state_dict(state)
    m = m.to(device).eval()
    xs = [torch.tensor(x, device=device) for x in inputs]
    for x in xs[:1] if cls.__name__.endswith("Loss") else xs:  # a loss's target needs no gradient
        if x.dtype.is_floating_point:
            x.requires_grad_(True)
    outs = _flat(m(*xs))
    loss = _weighted_sum(outs, device)
    params = [p for p in m.parameters()]
    targets = params + [x for x in xs if x.requires_grad]
    grads = torch.autograd.grad(loss, targets, allow_unused=True) if loss is not None and loss.requires_grad else []
    return m, outs, grads


@pytest.mark.parametrize("name, cls", layer_classes(), ids=[n for n, _ in layer_classes()])
def test_layer_placement_forward_and_backward_match_the_cpu(dev, name, cls):
    """Module.to(device) moves every parameter and buffer; forward and backward (eval mode, so
    dropout is off) give the CPU's values; outputs and gradients stay on the device."""
    built, why = build_layer(cls)
    if built is None:
        pytest.skip(why)
    kw, inputs = built
    cpu_model, cpu_outs, cpu_grads = _layer_run(cls, kw, inputs, CPU)
    model, outs, grads = _layer_run(cls, kw, inputs, dev, state=cpu_model.state_dict())
    placed = [(n, t.device) for n, t in list(model.named_parameters()) + list(model.named_buffers())
              if t is not None and t.device != dev]
    assert not placed, f"nn.{name}.to({dev}) left these elsewhere: {placed}"
    assert all(o.device == dev for o in outs), f"nn.{name}: outputs on {[o.device for o in outs]}"
    assert all(g is None or g.device == dev for g in grads), f"nn.{name}: gradients off the device"
    _assert_same(f"nn.{name} output", [_host(o) for o in outs], [_host(o) for o in cpu_outs], rtol=1e-4, atol=1e-5)
    _assert_same(f"nn.{name} gradient", [_host(g) for g in grads], [_host(g) for g in cpu_grads],
                 rtol=1e-4, atol=1e-5)


def test_most_layers_can_be_built_here():
    """Guard for the test above (runs without a GPU): the generic builder must reach most layers,
    or 'every layer' would quietly mean few."""
    results = {name: build_layer(cls) for name, cls in layer_classes()}
    built = [n for n, (b, _) in results.items() if b is not None]
    assert len(built) >= 0.75 * len(results), "layers the generic builder cannot build:\n" + "\n".join(
        why for b, why in results.values() if b is None)


# ---- training -----------------------------------------------------------------------------------

def _cnn():
    return nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                         nn.Linear(4 * 4 * 4, 10))


def _mlp():
    return nn.Sequential(nn.Linear(16, 32), nn.Tanh(), nn.Linear(32, 5))


def _train(make, optimizer, x, y, device, state, steps=5):
    torch.manual_seed(0)
    model = make()
    model.load_state_dict(state)
    model = model.to(device)
    opt = optimizer(model.parameters())
    xd, yd = torch.tensor(x, device=device), torch.tensor(y, device=device)
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(xd), yd)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return model, losses


@pytest.mark.parametrize("make, optimizer, shape", [
    (_cnn, lambda p: torch.optim.Adam(p, lr=1e-2), (8, 1, 8, 8)),
    (_mlp, lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9), (8, 16)),
], ids=["cnn-adam", "mlp-sgd-momentum"])
def test_training_steps_match_the_cpu(dev, make, optimizer, shape):
    rng = np.random.default_rng(1)
    x = rng.standard_normal(shape).astype(np.float32)
    classes = 10 if make is _cnn else 5
    y = rng.integers(0, classes, shape[0])
    torch.manual_seed(0)
    state = make().to(CPU).state_dict()
    cpu_model, cpu_losses = _train(make, optimizer, x, y, CPU, state)
    model, losses = _train(make, optimizer, x, y, dev, state)
    assert all(p.device == dev for p in model.parameters())
    assert losses[-1] < losses[0], f"training on {dev} did not lower the loss: {losses}"
    np.testing.assert_allclose(losses, cpu_losses, rtol=1e-4, atol=1e-5)
    for (n, p), q in zip(model.named_parameters(), cpu_model.parameters()):
        np.testing.assert_allclose(_host(p), _host(q), rtol=1e-3, atol=1e-5, err_msg=n)


# ---- the GPU benchmarks ---------------------------------------------------------------------------

def test_gpu_benchmark_rows_run(dev, monkeypatch):
    """bench/gpu.py's rows at tiny sizes on the device, minitorch and raw CuPy side by side (in the
    recording run the raw side computes through the CuPy stand-in, so its CuPy calls are checked)."""
    from bench import _timing, gpu
    from minitorch import _device, _factories
    # the benchmarks' CPU column relies on the CPU being the default device, as it is outside a test run
    monkeypatch.setattr(_factories, "_target", lambda device: CPU if device is None else _device.resolve(device))
    cfg = _timing.Config.make(quick=True, repeat=1, min_time=0.0002)
    cfg.settle = 0.0
    sync = torch.cuda.synchronize if dev.type == "cuda" else (lambda: None)
    rows = gpu.device_rows(cfg, str(dev), dev.xp, sync, gpu.TINY_SIZES)
    assert [r.key for r in rows] == ["gpu.add", "gpu.mul", "gpu.exp", "gpu.matmul_float32", "gpu.matmul_float16",
                                     "gpu.sum", "gpu.sum_dim1", "gpu.mlp_step"]
    assert all(not r.skipped for r in rows) and "GPU speedup" in gpu.table("GPU", rows)
