"""The smaller names beginner PyTorch code uses, against PyTorch 2.13: constants and comparison
aliases, torch.accelerator / torch.version / process settings / torch.compile,
torch.testing.assert_close (its verdicts and its messages), autograd.Variable, Tensor methods
such as mH, is_nonzero, fill_diagonal_, cumsum_, sum_to_size and new, and the functions of
minitorch/_ops/numerics.py (logaddexp, quantile, cov, corrcoef, tril_indices, block_diag,
trapezoid, ...) with their gradients.

Skipped when PyTorch is not installed.
"""
from __future__ import annotations

import inspect
import math
import re
import warnings

import numpy as np
import pytest

import minitorch

torch = pytest.importorskip("torch", reason="PyTorch not installed: differential tests skipped")

pytestmark = pytest.mark.torch


def _flat(x):
    if isinstance(x, (torch.Tensor, minitorch.Tensor)):
        name = type(x.grad_fn).__name__ if x.grad_fn is not None else None
        return ("tensor", str(x.dtype).split(".")[-1], tuple(x.shape), x.detach().numpy().copy(), name)
    if isinstance(x, (torch.Size, minitorch.Size)):
        return ("size", tuple(x))
    if isinstance(x, (tuple, list)):
        return tuple(_flat(v) for v in x)
    if isinstance(x, str):
        return x.replace("minitorch", "torch")
    return x


def run(case, lib):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return _flat(case(lib))
        except Exception as e:  # noqa: BLE001
            return ("raises", type(e).__name__, str(e).split("\n")[0].replace("minitorch", "torch")[:60])


def assert_same(a, b, where="result"):
    if isinstance(a, tuple) and a and a[0] == "tensor":
        assert isinstance(b, tuple) and b[0] == "tensor", f"{where}: PyTorch {a}, minitorch {b}"
        assert a[1:3] == b[1:3] and a[4] == b[4], f"{where}: PyTorch {a[1:3] + a[4:]}, minitorch {b[1:3] + b[4:]}"
        np.testing.assert_allclose(b[3], a[3], rtol=1e-5, atol=1e-6, err_msg=where)
    elif isinstance(a, tuple):
        assert isinstance(b, tuple) and len(a) == len(b), f"{where}: PyTorch {a}, minitorch {b}"
        for i, (x, y) in enumerate(zip(a, b)):
            assert_same(x, y, f"{where}[{i}]")
    elif isinstance(a, float) and math.isnan(a):
        assert isinstance(b, float) and math.isnan(b), f"{where}: PyTorch {a}, minitorch {b}"
    else:
        assert a == b, f"{where}: PyTorch {a!r}, minitorch {b!r}"


def same(case):
    assert_same(run(case, torch), run(case, minitorch))


# ---- top-level names -----------------------------------------------------------------------------

def test_constants_and_aliases():
    same(lambda L: (L.pi, L.e, L.inf, L.nan, L.newaxis))
    x = [1.0, 2.0, 3.0]
    for name in ("greater", "greater_equal", "less", "less_equal", "not_equal"):
        same(lambda L: getattr(L, name)(L.tensor(x), 2.0))


def test_accelerator_version_and_settings():
    if minitorch.cuda.is_available():
        pytest.skip("compares with PyTorch's CPU build: this machine has a GPU")
    same(lambda L: (L.accelerator.is_available(), L.accelerator.current_accelerator(),
                    L.accelerator.device_count(), L.version.cuda, L.version.hip, L.version.debug))

    def settings(L):
        before = (L.get_float32_matmul_precision(), L.are_deterministic_algorithms_enabled())
        L.set_float32_matmul_precision("high")
        L.use_deterministic_algorithms(True, warn_only=True)
        after = (L.get_float32_matmul_precision(), L.are_deterministic_algorithms_enabled(),
                 L.is_deterministic_algorithms_warn_only_enabled(), L.get_deterministic_debug_mode())
        L.set_float32_matmul_precision("highest")
        L.use_deterministic_algorithms(False)
        n = L.get_num_threads()
        L.set_num_threads(1)
        one = L.get_num_threads()
        L.set_num_threads(n)
        return before, after, one, L.get_device(L.ones(1)), L.typename(L.ones(1)), L.typename(L.ones(1).long())
    same(settings)
    same(lambda L: L.set_num_threads(0))
    same(lambda L: L.set_num_threads(2.5))


def test_compile_returns_a_model_that_computes_the_same():
    """minitorch.compile's results are PyTorch's eager ones (which its compiled ones equal), for
    every call form PyTorch's signature takes. (PyTorch's own compiler is not run here: its first
    compile costs tens of seconds and switches off distributions' argument checks process-wide.)"""
    def case(L, compile):
        L.manual_seed(0)
        m = L.nn.Linear(3, 2)
        c = compile(m)
        f = compile(lambda x: x * 2 + 1)
        g = compile(mode="reduce-overhead")(lambda x: x - 1)
        x = L.arange(6.0).reshape(2, 3)
        return c(x).detach(), f(x), g(x)
    def eager(model=None, **kwargs):
        return model if model is not None else (lambda fn: fn)
    assert_same(run(lambda L: case(L, eager), torch), run(lambda L: case(L, L.compile), minitorch))
    theirs, ours = inspect.signature(torch.compile), inspect.signature(minitorch.compile)
    assert list(ours.parameters) == list(theirs.parameters)
    assert [p.kind for p in ours.parameters.values()] == [p.kind for p in theirs.parameters.values()]


# ---- torch.testing.assert_close ------------------------------------------------------------------

def _message(case, L):
    try:
        case(L)
    except (AssertionError, TypeError, ValueError) as e:
        text = str(e).replace("minitorch", "torch")
        return type(e).__name__, re.sub(r"\d\.\d{5,}(e-?\d+)?", lambda m: f"{float(m.group()):.4g}", text)
    return "passes"


ASSERT_CASES = {
    "close": lambda L: L.testing.assert_close(L.tensor([1.0, 2.0]), L.tensor([1.0, 2.0 + 1e-6])),
    "far": lambda L: L.testing.assert_close(L.tensor([1.0, 2.0, 3.0]), L.tensor([1.0, 2.0, 3.1])),
    "dtype": lambda L: L.testing.assert_close(L.tensor([1.0]), L.tensor([1.0], dtype=L.float64)),
    "no dtype check": lambda L: L.testing.assert_close(L.tensor([1.0]), L.tensor([1.0], dtype=L.float64),
                                                       check_dtype=False),
    "shape": lambda L: L.testing.assert_close(L.ones(2), L.ones(3)),
    "ints": lambda L: L.testing.assert_close(L.tensor([1, 2]), L.tensor([1, 3])),
    "2-d": lambda L: L.testing.assert_close(L.ones(2, 3), L.ones(2, 3) + L.tensor([0.0, 0.0, 1.0])),
    "scalars": lambda L: L.testing.assert_close(1.0, 1.1),
    "int and float": lambda L: L.testing.assert_close(1, 1.0),
    "list": lambda L: L.testing.assert_close([L.ones(2)], [L.zeros(2)]),
    "dict": lambda L: L.testing.assert_close({"a": L.ones(1)}, {"a": L.ones(1) * 2}),
    "nan": lambda L: L.testing.assert_close(L.tensor([math.nan]), L.tensor([math.nan])),
    "equal nan": lambda L: L.testing.assert_close(L.tensor([math.nan]), L.tensor([math.nan]), equal_nan=True),
    "msg": lambda L: L.testing.assert_close(L.ones(1), L.zeros(1), msg="custom"),
    "tolerances": lambda L: L.testing.assert_close(L.tensor([1.0]), L.tensor([1.0001]), rtol=0, atol=1e-5),
    "half a tolerance": lambda L: L.testing.assert_close(L.ones(1), L.ones(1), rtol=1e-5),
    "grad": lambda L: L.testing.assert_close(L.ones(2, requires_grad=True), L.ones(2)),
    "numpy": lambda L: L.testing.assert_close(np.ones(2), np.ones(2)),
    "mixed": lambda L: L.testing.assert_close(L.ones(2), np.ones(2)),
    "stride": lambda L: L.testing.assert_close(L.ones(2, 3).T, L.ones(3, 2), check_stride=True),
}


@pytest.mark.parametrize("name", ASSERT_CASES)
def test_assert_close_verdicts_and_messages(name):
    assert _message(ASSERT_CASES[name], minitorch) == _message(ASSERT_CASES[name], torch)


# ---- Variable and Tensor methods -------------------------------------------------------------

def test_variable():
    def case(L):
        from importlib import import_module
        Variable = import_module(L.__name__ + ".autograd").Variable
        t = L.ones(2)
        v = Variable(t, requires_grad=True)
        (v * 3).sum().backward()
        return v, v.is_leaf, v.grad, isinstance(t, Variable), Variable(), Variable(t).requires_grad
    same(case)
    same(lambda L: __import__(L.__name__ + ".autograd").autograd.Variable([1, 2]))


def test_small_tensor_methods():
    same(lambda L: (L.ones(2, 3).mH.shape, L.ones(4, 2, 3).mH.shape, L.ones(2, 3).H.shape,
                    L.ones(2, 3).adjoint().shape, L.ones(1).is_cpu, L.ones(1).is_complex(),
                    L.ones(1, dtype=L.uint8).is_signed(), L.ones(1).is_signed(), L.ones(1, dtype=L.bool).is_signed(),
                    L.ones(2).is_same_size(L.ones(2)), L.ones(2).equal(L.ones(2)), L.ones(2).equal(L.zeros(2)),
                    L.tensor([0.0]).is_nonzero(), L.tensor(3).is_nonzero(), L.ones(2).is_shared(),
                    L.ones(1).is_pinned(), L.ones(2).real, (L.ones(2) * 2).output_nr))
    same(lambda L: L.ones(2).H)
    same(lambda L: L.ones(2).mH)
    same(lambda L: L.ones(2).imag)
    same(lambda L: L.ones(2).is_nonzero())
    same(lambda L: L.ones(0).is_nonzero())


@pytest.mark.parametrize("shape,wrap", [((2, 3), False), ((4, 2), True), ((4, 2), False), ((7, 3), True),
                                        ((2, 5), True), ((3, 3, 3), False)])
def test_fill_diagonal_(shape, wrap):
    def case(L):
        t = L.zeros(*shape)
        r = t.fill_diagonal_(2.5, wrap=wrap)
        return r is t, t, t._version > 0
    same(case)

    def grad(L):
        x = L.ones(*shape, requires_grad=True)
        y = x * 2
        y.fill_diagonal_(0.0, wrap=wrap)
        y.sum().backward()
        return y, x.grad
    same(grad)


def test_inplace_aliases_cumsum_sum_to_size_and_new():
    def case(L):
        a = L.arange(6.0).reshape(2, 3)
        b = a.clone()
        b.multiply_(2).subtract_(1, alpha=2).divide_(2).true_divide_(2)
        c = a.clone().cumsum_(1)
        d = a.clone().cumprod_(0)
        x = L.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        y = x * 1
        y.cumsum_(0)
        y.sum().backward()
        return (b, c, d, y, x.grad, a.sum_to_size(1, 3), a.sum_to_size((2, 1)), a.sum_to_size(3),
                a.new(2, 3).shape, a.new([1, 2]), a.new((5, 2)), a.new(L.Size([2, 1])).shape, a.new().shape, str(a.long().new(2).dtype))
    same(case)
    same(lambda L: L.ones(2, 3).sum_to_size(2, 2))


# ---- numerics ------------------------------------------------------------------------------------

def _data(L, shape=(3, 4), seed=0, nan=False):
    a = np.random.default_rng(seed).standard_normal(shape)
    if nan:
        a[0, 1] = np.nan
    return L.tensor(a, dtype=L.float64, requires_grad=True)


@pytest.mark.parametrize("fn", ["logaddexp", "logaddexp2"])
def test_logaddexp(fn):
    def case(L):
        a, b = _data(L), _data(L, (4,), 1)
        big = L.tensor([1000.0, -1000.0, 0.0], dtype=L.float64)
        r = getattr(L, fn)(a, b)
        r.sum().backward()
        return r, a.grad, b.grad, getattr(L, fn)(big, big), getattr(a.detach(), fn)(b.detach())
    same(case)
    same(lambda L: getattr(L, fn)(L.tensor([1, 2]), L.tensor([3, 4])))


@pytest.mark.parametrize("interpolation", ["linear", "lower", "higher", "midpoint", "nearest"])
@pytest.mark.parametrize("dim,keepdim", [(None, False), (None, True), (0, False), (1, True), (-1, False)])
def test_quantile(interpolation, dim, keepdim):
    def case(L):
        a = _data(L, (3, 5))
        q = L.tensor([0.0, 0.25, 0.5, 0.9, 1.0], dtype=L.float64)
        r1 = L.quantile(a, 0.3, dim, keepdim, interpolation=interpolation)
        r2 = a.quantile(q, dim, keepdim, interpolation=interpolation)
        (r1.sum() + r2.sum()).backward()
        n = _data(L, (3, 5), nan=True)
        return (r1, r2, a.grad, L.quantile(n.detach(), 0.4, dim, keepdim, interpolation=interpolation),
                L.nanquantile(n.detach(), 0.4, dim, keepdim, interpolation=interpolation))
    out_t, out_m = run(case, torch), run(case, minitorch)
    # (PyTorch's grad_fn names for these compositions are not compared: the values and gradients are)
    strip = lambda out: tuple(o[:4] + (None,) if isinstance(o, tuple) and o and o[0] == "tensor" else o  # noqa
                              for o in out)
    assert_same(strip(out_t), strip(out_m))


def test_quantile_errors():
    same(lambda L: L.quantile(L.tensor([1, 2]), 0.5))
    same(lambda L: L.quantile(L.tensor([1.0, 2.0]), 1.5))
    same(lambda L: L.quantile(L.tensor([1.0, 2.0]), 0.5, interpolation="cubic"))
    same(lambda L: L.quantile(L.tensor([1.0, 2.0]), L.tensor([0.5], dtype=L.float64)))


@pytest.mark.parametrize("shape", [(3, 5), (5,), (1, 4)])
def test_cov_and_corrcoef(shape):
    def case(L):
        a = _data(L, shape)
        c, r = L.cov(a), L.corrcoef(a)
        (c.sum() + r.sum() * 2).backward()
        return c.detach(), r.detach(), a.grad, L.cov(a.detach(), correction=0), a.detach().cov(), \
            L.cov(L.tensor([[1, 2, 4], [0, 1, 1]]))
    same(case)


def test_isposinf_isneginf_isreal_gcd_lcm():
    same(lambda L: (L.isposinf(L.tensor([1.0, math.inf, -math.inf, math.nan])),
                    L.isneginf(L.tensor([1.0, math.inf, -math.inf])), L.isposinf(L.tensor([1, 2])),
                    L.isreal(L.ones(2)), L.gcd(L.tensor([12, -18, 0]), L.tensor([8, 12, 5])),
                    L.lcm(L.tensor([4, 6]), L.tensor([6, 4])), L.tensor([12, 9]).gcd_(L.tensor([8, 6]))))
    same(lambda L: L.gcd(L.tensor([1.0]), L.tensor([2.0])))


def test_index_helpers_and_trapezoid():
    same(lambda L: (L.tril_indices(3, 3), L.tril_indices(3, 4, 1), L.triu_indices(4, 3, -1), L.triu_indices(3, 3),
                    L.tril_indices(0, 3)))
    same(lambda L: (L.block_diag(L.ones(2, 2), L.tensor([3.0, 4.0]), L.tensor(5.0)),
                    L.block_diag(L.ones(1, 2, dtype=L.int64), L.ones(2, 1)), L.diagflat(L.tensor([[1, 2], [3, 4]])),
                    L.diagflat(L.tensor([1.0, 2.0]), 1)))

    def trap(L):
        y = _data(L, (3, 5))
        x = L.tensor([0.0, 0.5, 1.5, 2.0, 4.0], dtype=L.float64)
        r = L.trapezoid(y) + L.trapezoid(y, x) + L.trapezoid(y, dx=0.1) + L.trapz(y, x)
        r.sum().backward()
        return r.detach(), y.grad, L.trapezoid(y.detach(), dim=0), L.cumulative_trapezoid(y.detach()), \
            L.cumulative_trapezoid(y.detach(), x)
    same(trap)


# ---- what a program that prints an error, or walks a graph, sees -------------------------------

COMMON_ERRORS = {
    "matmul": lambda L: L.ones(2, 3) @ L.ones(2, 3),
    "mm dtype": lambda L: L.ones(2, 3) @ L.ones(3, 2, dtype=L.float64),
    "broadcast": lambda L: L.ones(3) + L.ones(4),
    "in-place broadcast": lambda L: L.ones(1, 3, 1).add_(L.ones(3, 3, 7)),
    "nonscalar backward": lambda L: (L.ones(2, requires_grad=True) * 2).backward(),
    "leaf in-place": lambda L: L.ones(2, requires_grad=True).add_(1),
    "no grad_fn": lambda L: L.ones(2).sum().backward(),
    "view": lambda L: L.ones(2, 3).T.view(6),
    "linear shapes": lambda L: L.nn.Linear(3, 2)(L.ones(4, 5)),
    "linear dtype": lambda L: L.nn.Linear(2, 2)(L.ones(1, 2, dtype=L.int64)),
    "cross_entropy target": lambda L: L.nn.functional.cross_entropy(L.ones(2, 3), L.tensor([0.0, 1.0])),
    "target range": lambda L: L.nn.functional.cross_entropy(L.ones(2, 3), L.tensor([0, 5])),
    "item": lambda L: L.ones(2).item(),
    "int requires grad": lambda L: L.ones(2, dtype=L.int64, requires_grad=True),
    "int requires_grad_": lambda L: L.ones(2, dtype=L.int64).requires_grad_(),
    "embedding": lambda L: L.nn.Embedding(3, 2)(L.tensor([5])),
    "bool": lambda L: bool(L.ones(2)),
    "bool of empty": lambda L: bool(L.ones(0)),
    "permute": lambda L: L.ones(2, 3).permute(0),
    "dim": lambda L: L.ones(2).sum(dim=3),
    "bmm": lambda L: L.bmm(L.ones(2, 3, 4), L.ones(2, 5, 6)),
}


@pytest.mark.parametrize("name", COMMON_ERRORS)
def test_common_errors_print_as_pytorchs(name):
    def case(L):
        try:
            COMMON_ERRORS[name](L)
        except Exception as e:  # noqa: BLE001
            return type(e).__name__, str(e).replace("minitorch", "torch")
        return "no error"
    assert case(minitorch) == case(torch)


def test_a_nodes_hook_may_replace_its_gradients():
    def case(L):
        x = L.ones(2, requires_grad=True)
        y = x * 3
        y.grad_fn.register_hook(lambda gi, go: (gi[0] * 10, None))
        y.sum().backward()
        return x.grad
    same(case)


def test_inference_mode_tensors():
    def case(L):
        a = L.ones(2, requires_grad=True)
        with L.inference_mode():
            f = a * 2
            inside = (L.is_inference_mode_enabled(), f.is_inference(), f.requires_grad, f[0].is_inference())
        return inside, L.is_inference_mode_enabled(), f.is_inference(), (f + 1).is_inference(), a.is_inference()
    same(case)


def test_linear_records_pytorchs_graph():
    def case(L):
        L.manual_seed(0)
        w, b = L.randn(2, 3, requires_grad=True), L.randn(2, requires_grad=True)
        out = []
        for shape, biases in [((3,), (b,)), ((4, 3), (b, None)), ((2, 4, 3), (b,))]:
            # (without a bias, a vector or a batch times W.t() is one node here, over an
            # MmBackward0 in PyTorch: README, Differences from PyTorch)
            for bias in biases:
                y = L.nn.functional.linear(L.randn(*shape, requires_grad=True), w, bias)
                y.sum().backward()
                out.append((type(y.grad_fn).__name__, y.grad_fn.next_functions[0][0].__class__.__name__))
        net = L.nn.Sequential(L.nn.Linear(3, 2), L.nn.ReLU(), L.nn.Linear(2, 1))
        loss = L.nn.functional.mse_loss(net(L.ones(4, 3)), L.zeros(4, 1))
        # the Neural Networks tutorial's walk: MseLoss -> Addmm -> AccumulateGrad (the bias)
        walk = [type(loss.grad_fn).__name__, type(loss.grad_fn.next_functions[0][0]).__name__,
                type(loss.grad_fn.next_functions[0][0].next_functions[0][0]).__name__]
        loss.backward()
        return out, walk, w.grad, b.grad, net[0].weight.grad.stride()
    same(case)


def test_cross_entropy_of_probabilities_and_attention_dtypes():
    def case(L):
        x = L.tensor([[1.0, 2.0, 0.5], [0.1, 0.2, 0.3]], requires_grad=True)
        p = L.tensor([[0.2, 0.3, 0.5], [1.0, 0.0, 0.0]])
        r = L.nn.functional.cross_entropy(x, p)
        r.backward()
        return r, x.grad, L.nn.functional.cross_entropy(L.ones(0, 3, requires_grad=True), L.ones(0, 3))
    same(case)
    for dq, dk in [("bool", "bool"), ("int64", "int64"), ("float32", "bool"), ("float32", "float64")]:
        same(lambda L: L.nn.functional.scaled_dot_product_attention(
            L.ones(2, 3, dtype=getattr(L, dq)), L.ones(4, 3, dtype=getattr(L, dk)), L.ones(4, 5, dtype=getattr(L, dk))))


def test_max_unpool_and_alpha_dropout():
    def case(L):
        x = L.arange(16.0).reshape(1, 1, 4, 4).requires_grad_()
        y, i = L.nn.functional.max_pool2d(x, 2, return_indices=True)
        u = L.nn.functional.max_unpool2d(y, i, 2)
        u.sum().backward()
        y1, i1 = L.nn.functional.max_pool1d(x.detach()[0], 2, return_indices=True)
        L.manual_seed(0)
        d = (L.nn.functional.alpha_dropout(L.ones(2, 3, 4), 0.3, True),
             L.nn.functional.feature_alpha_dropout(L.ones(2, 3, 4), 0.3, True))
        return u.detach(), x.grad, L.nn.MaxUnpool2d(2)(y, i).detach(), L.nn.functional.max_unpool1d(y1, i1, 2), d
    same(case)


def test_xlogy_gradient_where_x_is_zero():
    def case(L):
        x = L.tensor([0.0, 0.0, 1.0, 0.0], requires_grad=True)
        y = L.tensor([0.0, 0.5, 0.0, -1.0], requires_grad=True)
        L.xlogy(x, y).sum().backward()
        z = L.tensor([0.0, 2.0], requires_grad=True)
        L.xlogy(z, 0.5).sum().backward()
        return x.grad, y.grad, z.grad
    same(case)


# ---- creating tensors from other objects, and sizes ------------------------------------------------

@pytest.mark.parametrize("kw", [{}, {"requires_grad": True}, {"requires_grad": False}, {"copy": True},
                                {"copy": True, "requires_grad": False}, {"dtype": "float64"}, {"copy": False},
                                {"dtype": "float64", "copy": False}])
@pytest.mark.parametrize("source", ["leaf", "result", "plain", "array", "scalar", "list", "bytes"])
def test_asarray_copies_and_requires_grad_as_pytorch(source, kw):
    def case(L):
        make = {"leaf": lambda: L.tensor([1.0, 2.0], requires_grad=True),
                "result": lambda: L.tensor([1.0, 2.0], requires_grad=True) * 2, "plain": lambda: L.tensor([1.0, 2.0]),
                "array": lambda: np.array([1.0, 2.0]), "scalar": lambda: np.float32(2.0), "list": lambda: [1, 2],
                "bytes": lambda: bytearray(b"\x00\x00\x80\x3f")}
        obj = make[source]()
        args = {k: getattr(L, v) if k == "dtype" else v for k, v in kw.items()}
        t = L.asarray(obj, **args)
        shares = t.data_ptr() == (obj.data_ptr() if isinstance(obj, L.Tensor) else
                                  obj.__array_interface__["data"][0] if isinstance(obj, np.ndarray) else None)
        return (t.detach(), t.requires_grad, t.is_leaf, type(t.grad_fn).__name__, t is obj, shares,
                obj.requires_grad if isinstance(obj, L.Tensor) else None)
    same(case)


def test_frombuffer_and_from_file_share_memory(tmp_path):
    import array
    path = str(tmp_path / "t.bin")
    np.arange(6, dtype=np.float64).tofile(path)

    def case(L):
        np.arange(6, dtype=np.float64).tofile(path)
        a = array.array("i", [1, 2, 3])
        t = L.frombuffer(a, dtype=L.int32)
        t[0] = -1
        b = bytearray(b"\x01\x02\x03\x04\x05\x06\x07\x08")
        parts = (L.frombuffer(b, dtype=L.int32, count=1, offset=4), L.frombuffer(b, dtype=L.int16, offset=2))
        mapped = L.from_file(path, shared=False, size=6, dtype=L.float64)
        mapped[0] = 100.0  # (copy on write: the file keeps its 0.)
        shared = L.from_file(path, shared=True, size=3, dtype=L.float64)
        shared[1] = 7.0
        return t, a.tolist(), parts, mapped, np.fromfile(path).tolist(), L.from_file(path, size=0)
    same(case)
    for bad in [lambda L: L.frombuffer(bytearray(8), dtype=L.int32, count=3),
                lambda L: L.frombuffer(bytearray(8), dtype=L.int32, offset=1),
                lambda L: L.frombuffer(bytearray(8), dtype=L.int32, offset=8),
                lambda L: L.frombuffer(bytearray(), dtype=L.int32), lambda L: L.frombuffer([1, 2], dtype=L.int32),
                lambda L: L.from_file(path, size=7, dtype=L.float64),
                lambda L: L.from_file(str(tmp_path / "none.bin"), size=1)]:
        same(bad)


def test_dlpack_shares_memory_both_ways():
    def case(L):
        t = L.arange(4)
        t2 = L.from_dlpack(t)
        t2[:2] = -1
        t3 = L.from_dlpack(L.utils.dlpack.to_dlpack(t))
        t3[0] = -9
        a = np.from_dlpack(t)
        a[3] = 30
        return t, t2, t3, L.from_dlpack(np.arange(3.0)), int(t.__dlpack_device__()[0]), L.from_dlpack(t, copy=True)
    same(case)
    same(lambda L: np.from_dlpack(L.ones(2, requires_grad=True)))
    t = minitorch.arange(3)
    assert torch.from_dlpack(t).tolist() == [0, 1, 2] and minitorch.from_dlpack(torch.arange(3)).tolist() == [0, 1, 2]


@pytest.mark.parametrize("size", [(2, 3), [2, 3], "tensor", "numpy"])
def test_sizes_may_be_any_integer_with_index(size):
    """A size element may be a 0-d integer tensor (sum(lengths)) or a NumPy int, in every
    factory and in view / reshape / expand / new_*, as PyTorch's argument parser reads them."""
    def case(L):
        s = {"tensor": (L.tensor(2), 3), "numpy": (np.int64(2), 3)}.get(size, size)
        x = L.arange(6.0)
        return (L.zeros(s), L.ones(*s), L.empty(s).shape, L.full(s, 1.0), L.rand(s).shape, L.randn(*s).shape,
                L.randint(0, 5, s).shape, L.randint(5, size=s).shape, L.normal(0.0, 1.0, s).shape,
                L.empty_strided(s, (3, 1)).stride(), x.view(s), x.reshape(*s), L.reshape(x, s),
                L.ones(3).expand(s), x.new_zeros(s), x.new_ones(*s), x.new_empty(s).shape, x.new_full(s, 2.0),
                x.unflatten(0, s), x.new_empty_strided(s, (1, 2)).stride())
    same(case)


@pytest.mark.parametrize("call", ["zeros(2, 3.)", "zeros((2., 3))", "zeros(2.)", "zeros(True)", "ones(2, None)",
                                  "zeros(2, -1)", "ones(2, -1)", "full(2, 1.)", "full((2, 3.), 1.)", "rand((2, 3.))",
                                  "empty_strided((2, 3.), (3, 1))", "empty_strided((2, 3), (3., 1))",
                                  "zeros((tensor(2.), 3))", "zeros(tensor([2, 3]))", "zeros(tensor(2.))"])
def test_bad_sizes_raise_pytorchs_errors(call):
    same(lambda L: eval("L." + call.replace("tensor(", "L.tensor("), {"L": L}))
    same(lambda L: eval("L.ones(1).new_" + call.replace("tensor(", "L.tensor("), {"L": L}) if call.startswith(
        ("zeros", "ones", "full")) else None)


def test_empty_permuted_and_dim_order():
    def case(L):
        sizes = (2, 3, 5, 7)
        orders = [L.empty_permuted(sizes, p).stride() for p in [(0, 1, 2, 3), (0, 2, 3, 1), (3, 2, 1, 0)]]
        tensors = [L.empty(2, 3, 1), L.empty(3), L.empty(()), L.empty(2, 3).t(), L.empty(1, 3).expand(2, 3),
                   L.empty(4, 5)[:, ::2], L.empty(2, 3, 4, 5).permute(3, 1, 0, 2), L.empty(2, 0, 3),
                   L.empty(2, 3, 4).permute(1, 2, 0), L.empty(2, 1, 4, 5, memory_format=L.channels_last),
                   L.empty(2, 3, 4, 5, 6, memory_format=L.channels_last_3d), L.empty(2, 2)]
        return orders, [t.dim_order() for t in tensors], [run(lambda L: t.dim_order(ambiguity_check=True), L)
                                                          for t in tensors]
    same(case)
    for bad in ["empty_permuted((2, 3), (0,))", "empty_permuted((2, 3), (0, 0))", "empty_permuted((2, 3), (1, -2))",
                "empty_permuted((2, -3), (0, 1))", "empty(2, 3).dim_order(ambiguity_check=[1])",
                "empty(1, 2).dim_order(ambiguity_check=[L.contiguous_format, L.channels_last])",
                "empty(1, 2, 3, 4).dim_order(ambiguity_check=[L.contiguous_format, L.channels_last])"]:
        same(lambda L: eval("L." + bad, {"L": L}))


def test_storages():
    def case(L):
        t = L.tensor([1, 2, 3])
        typed = L.TypedStorage(5, dtype=L.float32)
        s = t.storage()
        s[0] = 7
        return (L.is_storage(t.untyped_storage()), L.is_storage(typed), L.is_storage(s), L.is_storage(t),
                L.is_storage([1]), t, s.tolist(), len(s), str(s.dtype), len(t[1:].untyped_storage()), repr(s),
                repr(L.tensor([1, 2], dtype=L.uint8).untyped_storage()), typed.size(), typed.nbytes(),
                L.typename(s), L.typename(t.untyped_storage()))
    same(case)


def test_narrow_copy_and_nonzero_static():
    def case(L):
        x = L.arange(12.0).reshape(3, 4).requires_grad_()
        y = L.narrow_copy(x, 1, 1, 2)
        y.sum().backward()
        z = L.tensor([[1, 0], [3, 2]])
        return (y, y.stride(), x.grad, x.detach().t().narrow_copy(0, -2, 2).stride(),
                L.nonzero_static(z, size=4), z.nonzero_static(size=1, fill_value=7),
                L.nonzero_static(L.tensor(3), size=2), L.nonzero_static(L.zeros(2, 0), size=1))
    same(case)
    for bad in ["narrow_copy(L.ones(3), 0, 2, 5)", "narrow_copy(L.ones(3), 0, 5, 1)",
                "narrow_copy(L.ones(3), 0, 1, -1)", "narrow_copy(L.tensor(1.), 0, 0, 1)", "nonzero_static(L.ones(2), size=-1)",
                "nonzero_static(L.ones(2), size=2.)", "nonzero_static(L.ones(2), size=3, fill_value=2.5)"]:
        same(lambda L: eval("L." + bad, {"L": L}))


def test_set_default_tensor_type_and_thread_safe_generator():
    def case(L):
        L.set_default_tensor_type(L.DoubleTensor)  # (deprecated: PyTorch warns once per process)
        try:
            made = str(L.tensor([1.2]).dtype), str(L.get_default_dtype())
            L.set_default_tensor_type("torch.HalfTensor")
            half = str(L.get_default_dtype())
            errors = [run(lambda L: L.set_default_tensor_type(t), L) for t in (L.LongTensor, L.float64, "foo")]
        finally:
            L.set_default_tensor_type(L.FloatTensor)
        return made, half, errors, str(L.get_default_dtype()), L.random.thread_safe_generator()
    same(case)


def test_grad_dtype():
    def case(L):
        x = L.tensor([1.0, 2.0], requires_grad=True)
        before = x.grad_dtype
        x.grad_dtype = L.float16
        (x * 2).sum().backward()
        z = L.tensor([1.0, 2.0], requires_grad=True)
        (z * 3).sum().backward()  # (its node exists before grad_dtype is set)
        z.grad = None
        z.grad_dtype = L.float64
        (z * 3).sum().backward()
        w = L.tensor([1.0, 2.0], requires_grad=True)
        refused = run(lambda L: setattr(w, "grad", L.ones(2, dtype=L.float64)), L)
        w.grad_dtype = None
        w.grad = L.ones(2, dtype=L.float64)
        y = x * 2
        return (str(before), x.grad, z.grad, refused, w.grad, str(L.tensor([1, 2]).grad_dtype),
                run(lambda L: y.grad_dtype, L), run(lambda L: setattr(y, "grad_dtype", L.float64), L),
                run(lambda L: setattr(x, "grad_dtype", 3), L))
    same(case)


def test_native_channel_shuffle_typename_and_layout():
    def case(L):
        x = L.arange(16.0).reshape(1, 4, 2, 2).requires_grad_()
        y = L.nn.functional.native_channel_shuffle(x, 2)
        return (y.detach(), y.grad_fn.name(), run(lambda L: y.sum().backward(), L),
                L.native_channel_shuffle(x.detach(), 2), run(lambda L: L.native_channel_shuffle(x, 3), L),
                L.typename(L.nn.Parameter), L.typename(L.ones(2)), L.typename(3), L.typename(L.Tensor),
                L.typename(np.ones(1)), L.typename(L.optim.SGD), repr(L.ones(1).layout), L.ones(1).is_sparse,
                L.ones(1).to_dense().shape)
    same(case)


@pytest.mark.parametrize("kw", ["fweights", "aweights", "both", "both0", "both2", "dof"])
def test_cov_weights(kw):
    def case(L):
        x = L.tensor([[0.0, 1.0, 2.0], [2.0, 1.0, 0.5]], requires_grad=True)
        fw, aw = L.tensor([1, 2, 3]), L.tensor([0.5, 1.0, 2.0], requires_grad=True)
        args = {"fweights": {"fweights": fw}, "aweights": {"aweights": aw}, "both": {"fweights": fw, "aweights": aw},
                "both0": {"fweights": fw, "aweights": aw, "correction": 0},
                "both2": {"fweights": fw, "aweights": aw, "correction": 2},
                "dof": {"fweights": fw, "correction": 9}}[kw]
        c = L.cov(x, **args)
        c.sum().backward()
        return c, x.grad, aw.grad, L.cov(L.tensor([[0, 1, 2], [2, 1, 7]]), **args).detach()
    same(case)
    for bad in ["fweights=L.tensor([0.5, 1., 2.])", "aweights=L.tensor([1, 2, 3])", "fweights=L.tensor([[1, 2, 3]])",
                "fweights=L.tensor([1, 2])", "fweights=L.tensor([1, -2, 3])", "aweights=L.tensor([1., -2, 3])",
                "fweights=L.tensor([0, 0, 0])"]:
        same(lambda L: eval(f"L.cov(L.ones(2, 3), {bad})", {"L": L}))


@pytest.mark.parametrize("edge_order", [1, 2])
def test_gradient_with_coordinates(edge_order):
    def case(L):
        t = L.tensor([[1.0, 2.5, 4.0, 8.0, 3.0], [10.0, 20.0, 40.0, 80.0, -1.0]], dtype=L.float64)
        c1 = L.tensor([0.0, 0.5, 1.75, 3.0, 7.0])
        return (L.gradient(t, spacing=(L.tensor([0.0, 2.0]), c1), edge_order=min(edge_order, 1)),
                L.gradient(t, spacing=[c1], dim=1, edge_order=edge_order),
                L.gradient(t.float(), spacing=[L.tensor([0, 1, 3, 4, 9])], dim=-1, edge_order=edge_order),
                L.gradient(L.tensor([4, 1, 1, 16]), spacing=(L.tensor([-2, -1, 1, 4]),), edge_order=edge_order),
                run(lambda L: L.gradient(t, spacing=(c1.reshape(1, 5),), dim=1), L))
    same(case)
