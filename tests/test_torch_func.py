"""minitorch.func (grad, vjp, jvp, jacrev, jacfwd, hessian, vmap, functional_call,
stack_module_state), differentially against torch.func: each program runs in both libraries
and the results must agree in structure, values, shapes, dtypes and requires_grad; bad calls
must raise PyTorch's exception type with PyTorch's message first. The two tutorials
(per-sample gradients, model ensembling) run as written.

Skipped (visibly) when PyTorch is not installed.
"""
from __future__ import annotations

import copy
import re
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="PyTorch not installed: differential tests skipped")
import torch.func  # noqa: E402

import minitorch  # noqa: E402
import minitorch.func  # noqa: E402
import minitorch.nn.utils.stateless  # noqa: E402

pytestmark = pytest.mark.torch
LIBS = (("minitorch", minitorch, minitorch.func), ("torch", torch, torch.func))


def _data():
    rng = np.random.default_rng(0)
    return {"x": rng.standard_normal(3).astype(np.float32), "y": rng.standard_normal(3).astype(np.float32),
            "X": rng.standard_normal((4, 3)).astype(np.float32), "W": rng.standard_normal((2, 3)).astype(np.float32),
            "t": rng.standard_normal(4).astype(np.float32), "s": np.float32(0.7)}


def _same(m, t, path="result"):
    if isinstance(t, torch.Tensor):
        assert isinstance(m, minitorch.Tensor), f"{path}: {type(m)}"
        assert tuple(m.shape) == tuple(t.shape), f"{path}: shape {tuple(m.shape)} != {tuple(t.shape)}"
        assert str(m.dtype).split(".")[-1] == str(t.dtype).split(".")[-1], f"{path}: {m.dtype} != {t.dtype}"
        assert m.requires_grad == t.requires_grad, f"{path}: requires_grad {m.requires_grad} != {t.requires_grad}"
        np.testing.assert_allclose(m.detach().numpy(), t.detach().numpy(), rtol=2e-5, atol=2e-6, err_msg=path)
    elif isinstance(t, (tuple, list)):
        assert type(m).__name__ == type(t).__name__ and len(m) == len(t), f"{path}: {m!r} vs {t!r}"
        for i, (a, b) in enumerate(zip(m, t)):
            _same(a, b, f"{path}[{i}]")
    elif isinstance(t, dict):
        assert isinstance(m, dict) and list(m) == list(t), f"{path}: keys {list(m)} != {list(t)}"
        for k in t:
            _same(m[k], t[k], f"{path}[{k!r}]")
    else:
        assert m == t, f"{path}: {m!r} != {t!r}"


def _both(program):
    results = {name: program(lib, F, {k: lib.tensor(v) for k, v in _data().items()}) for name, lib, F in LIBS}
    _same(results["minitorch"], results["torch"])
    return results


def _f(x):
    return (x.sin() * x).sum()


# ---- values: each program returns what it computed; both libraries must agree ------------------

def _grad_cases():
    return {
        "grad": lambda lib, F, d: F.grad(_f)(d["x"]),
        "grad input requires grad": lambda lib, F, d: F.grad(_f)(d["x"].requires_grad_()),
        "grad captured parameter": lambda lib, F, d: _captured(F, d["x"], d["y"].requires_grad_()),
        "grad under no_grad": lambda lib, F, d: _no_grad(lib, lambda: F.grad(_f)(d["x"].requires_grad_())),
        "grad argnums tuple": lambda lib, F, d: F.grad(lambda x, y: (x * y.exp()).sum(), argnums=(0, 1))(d["x"],
                                                                                                       d["y"]),
        "grad argnums negative": lambda lib, F, d: F.grad(lambda x, y: (x * y.exp()).sum(), argnums=-1)(d["x"], d["y"]),
        "grad unused input": lambda lib, F, d: F.grad(lambda x, y: x.sum(), argnums=1)(d["x"], d["y"]),
        "grad integer output": lambda lib, F, d: F.grad(lambda x: x.sum().long())(d["x"]),
        "grad dict input": lambda lib, F, d: F.grad(lambda p: (p["w"] * p["b"]).sum())({"w": d["x"], "b": d["y"]}),
        "grad kwargs": lambda lib, F, d: F.grad(lambda x, *, k: (x * k).sum())(d["x"], k=d["y"]),
        "grad has_aux": lambda lib, F, d: F.grad(lambda x: (_f(x), {"a": x * 2, "b": [x.cos()]}), has_aux=True)(d["x"]),
        "grad of grad": lambda lib, F, d: F.grad(F.grad(lambda s: s.sin() * s ** 3))(d["s"]),
        "grad of grad requires grad": lambda lib, F, d: F.grad(lambda x: F.grad(_f)(x).sum())(d["x"].requires_grad_()),
        "grad_and_value": lambda lib, F, d: F.grad_and_value(_f)(d["x"]),
        "grad_and_value has_aux": lambda lib, F, d: F.grad_and_value(lambda x: (_f(x), x.mean()), has_aux=True)(d["x"]),
        "vjp": lambda lib, F, d: _vjp_twice(F, lambda x, y: (x * y, x.sin()), (d["x"], d["y"]), (d["y"], d["x"])),
        "vjp input requires grad": lambda lib, F, d: _vjp_twice(F, lib.exp, (d["x"].requires_grad_(),), d["y"]),
        "vjp has_aux": lambda lib, F, d: _vjp_aux(F, d),
        "jvp": lambda lib, F, d: F.jvp(lambda x, y: (x * y).tanh(), (d["x"], d["y"]), (d["y"], d["x"])),
        "jvp tuple output": lambda lib, F, d: F.jvp(lambda x: (x.sin(), x.sum()), (d["x"],), (d["y"],)),
        "jvp input requires grad": lambda lib, F, d: F.jvp(lambda x: x.exp(), (d["x"].requires_grad_(),), (d["y"],)),
        "jvp has_aux": lambda lib, F, d: F.jvp(lambda x: (x.sin(), x.cos()), (d["x"],), (d["y"],), has_aux=True),
        "jvp independent output": lambda lib, F, d: F.jvp(lambda x: d["y"] * 2, (d["x"],), (d["y"],)),
        "jacrev": lambda lib, F, d: F.jacrev(lambda x: d["W"] @ x.sin())(d["x"]),
        "jacrev argnums tuple, tuple output": lambda lib, F, d: F.jacrev(lambda x, y: (x * y, (x + y).sum()),
                                                                          argnums=(0, 1))(d["x"], d["y"]),
        "jacrev chunk_size": lambda lib, F, d: F.jacrev(lambda x: x.exp() * x.sum(), chunk_size=2)(d["x"]),
        "jacrev matrix input": lambda lib, F, d: F.jacrev(lambda w: (w @ d["x"]).relu())(d["W"]),
        "jacrev has_aux": lambda lib, F, d: F.jacrev(lambda x: (x.sin(), x.cos()), has_aux=True)(d["x"]),
        "jacfwd": lambda lib, F, d: F.jacfwd(lambda x: d["W"] @ x.sin())(d["x"]),
        "jacfwd argnums": lambda lib, F, d: F.jacfwd(lambda x, y: x * y ** 2, argnums=1)(d["x"], d["y"]),
        "jacfwd argnums tuple": lambda lib, F, d: F.jacfwd(lambda x, y: (x * y ** 2, x.sum()),
                                                           argnums=(0, 1))(d["x"], d["y"]),
        "jacfwd has_aux": lambda lib, F, d: F.jacfwd(lambda x: (x.sin(), x.cos()), has_aux=True)(d["x"]),
        "hessian": lambda lib, F, d: F.hessian(_f)(d["x"]),
        "hessian input requires grad": lambda lib, F, d: F.hessian(_f)(d["x"].requires_grad_()),
        "hessian argnums tuple": lambda lib, F, d: F.hessian(lambda x, y: (x.sin() * y.exp()).sum(),
                                                             argnums=(0, 1))(d["x"], d["y"]),
        "jacrev of jacrev": lambda lib, F, d: F.jacrev(F.jacrev(lambda x: x.tanh().prod()))(d["x"]),
        "jacrev dict output": lambda lib, F, d: F.jacrev(lambda x: {"s": x.sin(), "c": x.cos().sum()})(d["x"]),
        "jacrev empty output": lambda lib, F, d: F.jacrev(lambda x: x[:0])(d["x"]),
        "jacrev float64": lambda lib, F, d: F.jacrev(lambda x: x.sin())(d["x"].double()),
        "jacfwd 0-d input": lambda lib, F, d: F.jacfwd(lambda s: (s ** 3, s * d["x"]))(d["s"]),
        "hessian dict input": lambda lib, F, d: F.hessian(lambda p: (p["a"].sin() * p["b"]).sum())(
            {"a": d["x"], "b": d["y"]}),
        "jvp of grad (Hessian-vector product)": lambda lib, F, d: F.jvp(F.grad(_f), (d["x"],), (d["y"],)),
        "vjp of vjp": lambda lib, F, d: F.vjp(lambda x: F.vjp(lib.tanh, x)[1](d["y"])[0], d["x"])[1](d["x"]),
    }


def _captured(F, x, w):
    return F.grad(lambda x: (x * w).sum())(x)


def _no_grad(lib, fn):
    with lib.no_grad():
        return fn()


def _vjp_twice(F, f, primals, cotangents):
    out, vjp_fn = F.vjp(f, *primals)
    return out, vjp_fn(cotangents), vjp_fn(cotangents)  # vjp_fn can be called again


def _vjp_aux(F, d):
    out, vjp_fn, aux = F.vjp(lambda x: (x.sin(), {"c": x.cos()}), d["x"], has_aux=True)
    return out, vjp_fn(d["y"]), aux


def _vmap_cases():
    return {
        "vmap": lambda lib, F, d: F.vmap(lambda a: a.sin() * a.sum())(d["X"]),
        "vmap in_dims=1 out_dims=1": lambda lib, F, d: F.vmap(lambda a: a * 2, in_dims=1, out_dims=1)(d["X"]),
        "vmap in_dims None": lambda lib, F, d: F.vmap(lambda a, w: w @ a, in_dims=(0, None))(d["X"], d["W"]),
        "vmap non-tensor argument": lambda lib, F, d: F.vmap(lambda a, k: a * k, in_dims=(0, None))(d["X"], 3.0),
        "vmap batched dot": lambda lib, F, d: F.vmap(lib.dot)(d["X"], d["X"].flip(0)),
        "vmap nested (outer product)": lambda lib, F, d: F.vmap(F.vmap(lib.mul, (None, 0)), (0, None))(d["x"], d["y"]),
        "vmap dict input": lambda lib, F, d: F.vmap(lambda p: p["a"] * p["b"], in_dims=({"a": 0, "b": None},))(
            {"a": d["X"], "b": d["x"]}),
        "vmap tuple output, out_dims tuple": lambda lib, F, d: F.vmap(lambda a: (a.sum(), a * 2),
                                                                      out_dims=(0, 1))(d["X"]),
        "vmap out_dims None": lambda lib, F, d: F.vmap(lambda a: (a * 2, d["W"]), out_dims=(0, None))(d["X"]),
        "vmap out_dims single tuple": lambda lib, F, d: F.vmap(lambda a: a * 2, out_dims=(1,))(d["X"]),
        "vmap list output": lambda lib, F, d: F.vmap(lambda a: [a, a.max(dim=0)])(d["X"]),
        "vmap kwargs": lambda lib, F, d: F.vmap(lambda a, *, k: a * k)(d["X"], k=d["x"]),
        "vmap chunk_size": lambda lib, F, d: F.vmap(lambda a: a.exp(), chunk_size=3)(d["X"]),
        "vmap size-0 batch": lambda lib, F, d: F.vmap(lambda a: (a.sum(), a.unsqueeze(0)))(d["X"][:0]),
        "vmap size-0 batch requires grad": lambda lib, F, d: F.vmap(lambda a: a.sin(), in_dims=1)(
            d["X"][:, :0].requires_grad_()),
        "vmap negative dims": lambda lib, F, d: F.vmap(lambda a: a.unsqueeze(0), in_dims=-1, out_dims=-1)(d["X"]),
        "vmap nested in_dims": lambda lib, F, d: F.vmap(F.vmap(lib.mul, in_dims=(1, None)))(
            d["X"].reshape(2, 3, 2), d["x"][:2]),
        "vmap a module": lambda lib, F, d: _seeded(lib, lambda: F.vmap(lib.nn.Linear(3, 2))(d["X"])),
        "vmap input requires grad": lambda lib, F, d: F.vmap(lambda a: a.sin())(d["X"].requires_grad_()),
        "vmap randomness same": lambda lib, F, d: _seeded(lib, lambda: F.vmap(lambda a: a + lib.rand(3),
                                                                                randomness="same")(d["X"])),
        "vmap(grad): per-sample gradients": lambda lib, F, d: F.vmap(
            F.grad(lambda w, x, t: ((x @ w).tanh() - t) ** 2), in_dims=(None, 0, 0))(d["x"], d["X"], d["t"]),
        "vmap(grad) dict params": lambda lib, F, d: F.vmap(
            F.grad(lambda p, x: (p["w"] @ x + p["b"]).square().sum()), in_dims=(None, 0))(
            {"w": d["W"], "b": d["x"][:2]}, d["X"]),
        "vmap(jacrev)": lambda lib, F, d: F.vmap(F.jacrev(lambda a: a.sin() * a.sum()))(d["X"]),
        "vmap(jacfwd)": lambda lib, F, d: F.vmap(F.jacfwd(lambda a: a.sin()))(d["X"]),
        "vmap(hessian)": lambda lib, F, d: F.vmap(F.hessian(_f))(d["X"][:2]),
        "vmap(grad has_aux)": lambda lib, F, d: F.vmap(F.grad(lambda x: (x.square().sum(), x.mean()),
                                                              has_aux=True))(d["X"]),
        "vmap(vjp)": lambda lib, F, d: F.vmap(lambda a, v: F.vjp(lib.sin, a)[1](v))(d["X"], d["X"].cos()),
        "vmap(jvp)": lambda lib, F, d: F.vmap(lambda a, v: F.jvp(lib.sin, (a,), (v,)))(d["X"], d["X"].cos()),
        "grad(vmap)": lambda lib, F, d: F.grad(lambda w: F.vmap(lambda x: (w * x).sum().tanh())(d["X"]).sum())(d["x"]),
    }


def _seeded(lib, fn):
    lib.manual_seed(3)
    return fn()


CASES = {**_grad_cases(), **_vmap_cases()}


@pytest.mark.parametrize("name", list(CASES))
def test_same_results_as_torch_func(name):
    _both(CASES[name])


def test_top_level_names():
    """`torch.vmap` and `torch.func` are reachable from the top-level module, as in PyTorch."""
    assert minitorch.vmap is minitorch.func.vmap
    _both(lambda lib, F, d: lib.vmap(lambda a: a.norm())(d["X"]))


def test_vmap_randomness_different_draws_per_slice():
    for _, lib, F in LIBS:
        out = F.vmap(lambda a: a + lib.rand(()), randomness="different")(lib.zeros(3))
        assert out.shape == (3,) and len(set(out.tolist())) == 3


def test_vmap_randomness_error_leaves_the_generator_alone():
    for _, lib, F in LIBS:
        lib.manual_seed(0)
        before = lib.get_rng_state()
        with pytest.raises(RuntimeError, match="vmap: called random operation while in randomness error mode"):
            F.vmap(lambda a: a + lib.randn(()))(lib.zeros(3))
        with pytest.raises(RuntimeError, match="randomness error mode"):  # jacfwd maps its columns with vmap
            F.jacfwd(lambda a: a * lib.rand(()))(lib.zeros(2))
        assert lib.get_rng_state().equal(before)


def test_results_backpropagate_to_captured_parameters():
    """A transform inside an ordinary training step: loss.backward() reaches the parameters."""
    grads = {}
    for name, lib, F in LIBS:
        d = {k: lib.tensor(v) for k, v in _data().items()}
        w = d["W"].requires_grad_()
        per_sample = F.vmap(F.grad(lambda x: (w @ x).tanh().sum()))(d["X"])
        hvp = F.jvp(F.grad(lambda x: (w @ x.sin()).sum()), (d["x"],), (d["y"],))[1]
        (per_sample.square().sum() + hvp.sum()).backward()
        grads[name] = w.grad
    _same(grads["minitorch"], grads["torch"])


# ---- errors: PyTorch's exception type, and its message first ------------------------------------

ERRORS = {
    "grad non-scalar output": lambda lib, F, x: F.grad(lambda x: x)(x),
    "grad one-element 1-d output": lambda lib, F, x: F.grad(lambda x: x.sum().reshape(1))(x),
    "grad non-tensor output": lambda lib, F, x: F.grad(lambda x: 1.0)(x),
    "grad has_aux without a pair": lambda lib, F, x: F.grad(lambda x: x.sum(), has_aux=True)(x),
    "grad non-tensor aux": lambda lib, F, x: F.grad(lambda x: (x.sum(), 1.0), has_aux=True)(x),
    "grad integer input": lambda lib, F, x: F.grad(lambda x: x.sum())(lib.arange(3)),
    "grad non-tensor input": lambda lib, F, x: F.grad(lambda x: x)(3),
    "grad argnums out of range": lambda lib, F, x: F.grad(lambda a, b: a.sum(), argnums=2)(x, x),
    "grad argnums repeated": lambda lib, F, x: F.grad(lambda a, b: a.sum(), argnums=(0, 0))(x, x),
    "grad argnums empty": lambda lib, F, x: F.grad(lambda a, b: a.sum(), argnums=())(x, x),
    "grad argnums list": lambda lib, F, x: F.grad(lambda a, b: a.sum(), argnums=[0])(x, x),
    "vjp non-tensor primal": lambda lib, F, x: F.vjp(lambda a: a, 3.0),
    "vjp integer output": lambda lib, F, x: F.vjp(lambda a: a.long(), x),
    "vjp cotangent structure": lambda lib, F, x: F.vjp(lambda a: (a, a), x)[1](x),
    "vjp cotangent shape": lambda lib, F, x: F.vjp(lambda a: a, x)[1](lib.ones(4)),
    "jvp primals not a tuple": lambda lib, F, x: F.jvp(lib.sin, [x], [x]),
    "jvp structure mismatch": lambda lib, F, x: F.jvp(lib.sin, (x,), (x, x)),
    "jvp tangent shape": lambda lib, F, x: F.jvp(lib.sin, (x,), (lib.ones(4),)),
    "jvp non-tensor primal": lambda lib, F, x: F.jvp(lib.sin, (1.0,), (1.0,)),
    "jvp non-tensor output": lambda lib, F, x: F.jvp(lambda a: 1.0, (x,), (x,)),
    "jvp strict independent": lambda lib, F, x: F.jvp(lambda a: lib.ones(3), (x,), (x,), strict=True),
    "jacrev chunk_size 0": lambda lib, F, x: F.jacrev(lib.sin, chunk_size=0),
    "jacrev integer input": lambda lib, F, x: F.jacrev(lib.sin)(lib.arange(3)),
    "vmap size mismatch": lambda lib, F, x: F.vmap(lib.add)(lib.zeros(2, 3), lib.zeros(3, 3)),
    "vmap in_dims None": lambda lib, F, x: F.vmap(lambda a: a, in_dims=None)(x),
    "vmap in_dims list": lambda lib, F, x: F.vmap(lambda a, b: a, in_dims=[0, 0])(x, x),
    "vmap in_dims structure": lambda lib, F, x: F.vmap(lambda a, b: a, in_dims=(0, 0, 0))(x, x),
    "vmap in_dim float": lambda lib, F, x: F.vmap(lambda a: a, in_dims=(0.5,))(x),
    "vmap non-tensor mapped": lambda lib, F, x: F.vmap(lambda a, b: a)(x, 1.0),
    "vmap in_dim out of range": lambda lib, F, x: F.vmap(lambda a: a, in_dims=2)(x),
    "vmap 0-d input": lambda lib, F, x: F.vmap(lambda a: a)(x.sum()),
    "vmap nothing mapped": lambda lib, F, x: F.vmap(lambda a: a, in_dims=(None,))(x),
    "vmap no inputs": lambda lib, F, x: F.vmap(lambda: x)(),
    "vmap returns a float": lambda lib, F, x: F.vmap(lambda a: 1.0)(x),
    "vmap returns None": lambda lib, F, x: F.vmap(lambda a: None)(x),
    "vmap out_dims None on a mapped output": lambda lib, F, x: F.vmap(lambda a: a, out_dims=None)(x),
    "vmap out_dims structure": lambda lib, F, x: F.vmap(lambda a: (a, a), out_dims=(0, 0, 0))(x),
    "vmap out_dims float": lambda lib, F, x: F.vmap(lambda a: a, out_dims=0.5)(x),
    "vmap out_dim out of range": lambda lib, F, x: F.vmap(lambda a: a, out_dims=2)(x),
    "vmap randomness value": lambda lib, F, x: F.vmap(lambda a: a, randomness="foo"),
    "vmap chunk_size 0": lambda lib, F, x: F.vmap(lambda a: a, chunk_size=0),
    "functional_call not a dict": lambda lib, F, x: F.functional_call(lib.nn.Linear(3, 2), [1], (x,)),
    "functional_call repeated keys": lambda lib, F, x: F.functional_call(
        lib.nn.Linear(3, 2), ({"bias": lib.zeros(2)}, {"bias": lib.ones(2)}), (x,)),
    "functional_call strict": lambda lib, F, x: F.functional_call(
        lib.nn.Linear(3, 2), {"bias": lib.zeros(2), "extra": x}, (x,), strict=True),
    "functional_call tied weights": lambda lib, F, x: F.functional_call(
        _tied(lib), {"a.weight": lib.zeros(3, 3), "b.weight": lib.ones(3, 3)}, (x,)),
    "stack_module_state no models": lambda lib, F, x: F.stack_module_state([]),
    "stack_module_state mixed classes": lambda lib, F, x: F.stack_module_state([lib.nn.Linear(3, 3), lib.nn.ReLU()]),
    "stack_module_state mixed modes": lambda lib, F, x: F.stack_module_state([lib.nn.Linear(3, 3),
                                                                             lib.nn.Linear(3, 3).eval()]),
    "stack_module_state mixed requires_grad": lambda lib, F, x: F.stack_module_state(
        [lib.nn.Linear(3, 3), lib.nn.Linear(3, 3).requires_grad_(False)]),
}


def _tied(lib):
    m = lib.nn.Sequential()
    m.a = lib.nn.Linear(3, 3, bias=False)
    m.b = lib.nn.Linear(3, 3, bias=False)
    m.b.weight = m.a.weight
    return m


def _normalize(msg):
    return re.sub(r"\s+", " ", msg.replace("minitorch.", "torch.")).strip()


@pytest.mark.parametrize("name", list(ERRORS))
def test_same_errors_as_torch_func(name):
    raised = {}
    for lib_name, lib, F in LIBS:
        with pytest.raises(Exception) as info:
            ERRORS[name](lib, F, lib.tensor(_data()["x"]))
        raised[lib_name] = info.value
    m, t = raised["minitorch"], raised["torch"]
    assert type(m) is type(t), f"{type(m).__name__}: {m}  vs torch {type(t).__name__}: {t}"
    # the structures in vmap's messages are printed on one line here, over several in PyTorch
    want = _normalize(re.sub(r"TreeSpec\(.*", "", str(t), flags=re.S))
    assert _normalize(str(m)).startswith(want), f"\n{m}\nvs torch\n{t}"


# ---- functional_call and stack_module_state --------------------------------------------------------

def _module_program(lib, F, d):
    lib.manual_seed(0)
    model = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.BatchNorm1d(4), lib.nn.Tanh(), lib.nn.Linear(4, 2))
    params = {k: v.detach() * 2 for k, v in model.named_parameters()}
    buffers = {k: v.clone() for k, v in model.named_buffers()}
    y_dict = F.functional_call(model, params, d["X"])
    y_tuple = F.functional_call(model, (params, buffers), (d["X"],))  # batch norm updates *these* buffers
    y_partial = F.functional_call(model, {"3.bias": lib.zeros(2)}, args=(), kwargs={"input": d["X"]})
    model.eval()  # (in training mode batch norm would write to the buffers, which PyTorch's grad refuses)
    g = F.grad(lambda p: F.functional_call(model, (p, buffers), (d["X"],)).square().mean())(params)
    return y_dict, y_tuple, y_partial, buffers, g, dict(model.named_buffers()), model[0].weight


def test_functional_call():
    _both(_module_program)


def test_functional_call_puts_back_the_modules_tensors():
    for _, lib, F in LIBS:
        m = lib.nn.Linear(3, 2)
        before = dict(m.named_parameters())
        with pytest.raises(RuntimeError):
            F.functional_call(m, {"weight": lib.zeros(5, 5)}, (lib.zeros(3),))  # the call itself fails
        assert all(before[k] is p for k, p in m.named_parameters())
        assert isinstance(m.weight, lib.nn.Parameter)


def test_stateless_functional_call_is_deprecated():
    out = {}
    for name, lib, _ in LIBS:
        m = lib.nn.Linear(3, 2)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            out[name] = lib.nn.utils.stateless.functional_call(m, {"weight": lib.ones(2, 3), "bias": lib.zeros(2)},
                                                               lib.ones(1, 3))
        assert [x.category for x in w] == [FutureWarning]
        assert "torch.nn.utils.stateless.functional_call` is deprecated" in str(w[0].message)
    _same(out["minitorch"], out["torch"])


def test_stack_module_state():
    def program(lib, F, d):
        lib.manual_seed(0)
        models = [lib.nn.Sequential(lib.nn.Linear(3, 2), lib.nn.BatchNorm1d(2)) for _ in range(3)]
        params, buffers = F.stack_module_state(models)
        assert all(p.is_leaf for p in params.values())
        frozen, _ = F.stack_module_state([m.requires_grad_(False) for m in models])
        base = copy.deepcopy(models[0])
        ensemble = F.vmap(lambda p, b, x: F.functional_call(base, (p, b), (x,)), in_dims=(0, 0, None))
        out = ensemble(params, buffers, d["X"])
        return params, buffers, frozen, out

    _both(program)


# ---- the tutorials, as written (smaller sizes, CPU) ------------------------------------------------

def _per_sample_gradients(torch, nn, F, functional_call, vmap, grad):
    """PyTorch tutorial "Per-sample-gradients" (batch_size 4 instead of 64)."""
    torch.manual_seed(0)

    class SimpleCNN(nn.Module):
        def __init__(self):
            super(SimpleCNN, self).__init__()
            self.conv1 = nn.Conv2d(1, 32, 3, 1)
            self.conv2 = nn.Conv2d(32, 64, 3, 1)
            self.fc1 = nn.Linear(9216, 128)
            self.fc2 = nn.Linear(128, 10)

        def forward(self, x):
            x = self.conv1(x)
            x = F.relu(x)
            x = self.conv2(x)
            x = F.relu(x)
            x = F.max_pool2d(x, 2)
            x = torch.flatten(x, 1)
            x = self.fc1(x)
            x = F.relu(x)
            x = self.fc2(x)
            output = F.log_softmax(x, dim=1)
            return output

    def loss_fn(predictions, targets):
        return F.nll_loss(predictions, targets)

    device = "cpu"
    batch_size = 4
    data = torch.randn(batch_size, 1, 28, 28, device=device)
    targets = torch.randint(10, (batch_size,), device=device)
    model = SimpleCNN().to(device=device)

    def compute_grad(sample, target):
        sample = sample.unsqueeze(0)  # prepend batch dimension for processing
        target = target.unsqueeze(0)
        prediction = model(sample)
        loss = loss_fn(prediction, target)
        return torch.autograd.grad(loss, list(model.parameters()))

    def compute_sample_grads(data, targets):
        sample_grads = [compute_grad(data[i], targets[i]) for i in range(batch_size)]
        sample_grads = zip(*sample_grads)
        sample_grads = [torch.stack(shards) for shards in sample_grads]
        return sample_grads

    per_sample_grads = compute_sample_grads(data, targets)
    params = {k: v.detach() for k, v in model.named_parameters()}
    buffers = {k: v.detach() for k, v in model.named_buffers()}

    def compute_loss(params, buffers, sample, target):
        batch = sample.unsqueeze(0)
        targets = target.unsqueeze(0)
        predictions = functional_call(model, (params, buffers), (batch,))
        loss = loss_fn(predictions, targets)
        return loss

    ft_compute_grad = grad(compute_loss)
    ft_compute_sample_grad = vmap(ft_compute_grad, in_dims=(None, None, 0, 0))
    ft_per_sample_grads = ft_compute_sample_grad(params, buffers, data, targets)
    for per_sample_grad, ft_per_sample_grad in zip(per_sample_grads, ft_per_sample_grads.values()):
        assert torch.allclose(per_sample_grad, ft_per_sample_grad, atol=3e-3, rtol=1e-5)
    return ft_per_sample_grads


def _ensembling(torch, nn, F, stack_module_state, functional_call, vmap):
    """PyTorch tutorial "Model ensembling" (without `base_model.to('meta')`)."""
    torch.manual_seed(0)

    class SimpleMLP(nn.Module):
        def __init__(self):
            super(SimpleMLP, self).__init__()
            self.fc1 = nn.Linear(784, 128)
            self.fc2 = nn.Linear(128, 128)
            self.fc3 = nn.Linear(128, 10)

        def forward(self, x):
            x = x.flatten(1)
            x = self.fc1(x)
            x = F.relu(x)
            x = self.fc2(x)
            x = F.relu(x)
            x = self.fc3(x)
            return x

    device = "cpu"
    num_models = 10
    data = torch.randn(10, 64, 1, 28, 28, device=device)
    models = [SimpleMLP().to(device) for _ in range(num_models)]
    minibatches = data[:num_models]
    predictions_diff_minibatch_loop = [model(minibatch) for model, minibatch in zip(models, minibatches)]
    minibatch = data[0]
    predictions2 = [model(minibatch) for model in models]
    params, buffers = stack_module_state(models)
    base_model = copy.deepcopy(models[0])

    def fmodel(params, buffers, x):
        return functional_call(base_model, (params, buffers), (x,))

    assert [p.size(0) for p in params.values()] == [num_models] * 6
    assert minibatches.shape == (num_models, 64, 1, 28, 28)
    predictions1_vmap = vmap(fmodel)(params, buffers, minibatches)
    assert torch.allclose(predictions1_vmap, torch.stack(predictions_diff_minibatch_loop), atol=1e-3, rtol=1e-5)
    predictions2_vmap = vmap(fmodel, in_dims=(0, 0, None))(params, buffers, minibatch)
    assert torch.allclose(predictions2_vmap, torch.stack(predictions2), atol=1e-3, rtol=1e-5)
    return predictions1_vmap, predictions2_vmap


def test_tutorial_per_sample_gradients():
    got = {name: _per_sample_gradients(lib, lib.nn, lib.nn.functional, F.functional_call, F.vmap, F.grad)
           for name, lib, F in LIBS}
    for k in got["torch"]:
        np.testing.assert_allclose(got["minitorch"][k].numpy(), got["torch"][k].numpy(), atol=1e-5, err_msg=k)


def test_tutorial_ensembling():
    got = {name: _ensembling(lib, lib.nn, lib.nn.functional, F.stack_module_state, F.functional_call, F.vmap)
           for name, lib, F in LIBS}
    _same(got["minitorch"], got["torch"])


# ---- linearize, functionalize, rearrange ----------------------------------------------------------

def _linearize(lib, F, d):
    out, jvp_fn = F.linearize(lambda x, y: (x.sin() * y, x.sum()), d["x"], d["y"])
    return out, jvp_fn(d["y"], d["x"]), jvp_fn(d["x"], d["x"])


def _functionalize(lib, F, d):
    def f(a):
        b = a + 1
        c = b.view(-1)
        c.add_(1)
        return b

    def g(a):
        a.add_(1)
        return a, a.view(-1)
    x = d["x"].clone()
    r1, r2 = F.functionalize(g)(x)
    r3 = F.functionalize(lambda a: a.view(-1), remove="mutations_and_views")(x)
    r4, r5 = F.functionalize(lambda a: (a, a.view(-1)))(x)
    return (F.functionalize(f)(d["x"]), r1, r2, x, r1 is x, r2.data_ptr() == x.data_ptr(),
            r3.data_ptr() == x.data_ptr(), x._version, r4 is x, r5._base is x)


def _rearrange(lib, F, d):
    images = lib.arange(2 * 6 * 4 * 3.0).reshape(2, 6, 4, 3).requires_grad_()
    out = []
    for pattern, lengths in [("b h w c -> b h w c", {}), ("b h w c -> (b h) w c", {}), ("b h w c -> h (b w) c", {}),
                             ("b h w c -> b c h w", {}), ("b h w c -> b (c h w)", {}),
                             ("b (h1 h) (w1 w) c -> (b h1 w1) h w c", {"h1": 2, "w1": 2}),
                             ("b (h h1) (w w1) c -> b h w (c h1 w1)", {"h1": 2, "w1": 2}),
                             ("b ... c -> c ... b", {}), ("b h w c -> b h w c 1", {}), ("b h w c -> (b 1 h) w () c", {}),
                             ("b 1 w c -> b w c", {}), ("... -> ...", {}), ("b h w (c) -> b (h) w c", {})]:
        y = F.rearrange(images, pattern, **lengths)
        out.append((y, y.stride(), y.is_contiguous(), type(y.grad_fn).__name__))
    (out[5][0] * lib.arange(out[5][0].numel() * 1.0).reshape(out[5][0].shape)).sum().backward()
    out.append(images.grad)
    out.append(F.rearrange([d["x"], d["y"]], "n a -> a n"))
    return out


@pytest.mark.parametrize("program", [_linearize, _functionalize, _rearrange])
def test_linearize_functionalize_rearrange(program):
    _both(program)


@pytest.mark.parametrize("call", [
    "F.rearrange(x, 'b h w -> b h w')", "F.rearrange(x, 'b h w c -> b h w')", "F.rearrange(x, 'b h w c -> b h w c e')",
    "F.rearrange(x, 'b (h1 h) w c -> b h1 h w c', h1=2)", "F.rearrange(x, 'b (h1 h) w c -> b h1 h w c')",
    "F.rearrange(x, 'b h w c -> b h w c', q=2)", "F.rearrange(x, 'b h w c -> b h w c', h=4)",
    "F.rearrange(x, 'b h w c -> b h w c -> a')", "F.rearrange(x, 'b h w c -> b h w c ...')",
    "F.rearrange(x, 'b h w c -> b h w 2 c')", "F.rearrange(x, 'b h h c -> b h c')", "F.rearrange(x, 'b (h w c -> b')",
    "F.rearrange(x, 'b h w c. -> b')", "F.rearrange(x, 'b h w c -> b h w c', h=2.0)",
    "F.linearize(lambda a: a.sin(), x)[1](x, x)", "F.linearize(lambda a: a.sin(), x)[1](x.double())",
    "F.linearize(lambda a: a.sin(), x)[1](x[:1])", "F.functionalize(lambda a: a, remove='views')"])
def test_rearrange_linearize_functionalize_errors(call):
    raised = {}
    for lib_name, lib, F in LIBS:
        x = lib.zeros(2, 3, 4, 5)
        try:
            eval(call, {"F": F, "x": x})  # noqa: S307
            raised[lib_name] = None
        except Exception as e:  # noqa: BLE001 (the exception is what is compared)
            raised[lib_name] = (type(e).__name__, _normalize(str(e)))
    assert raised["minitorch"] == raised["torch"]
