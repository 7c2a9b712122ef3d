"""The capstone: minitorch's tests, and a training run, on the parts you wrote.

    from minitorch_course import capstone
    report = capstone.run_tests()      # "your minitorch passes N of M tests", and what failed
    history = capstone.train("mlp")    # the digits MLP of lesson 14, on your parts
    capstone.draw_parts()              # which parts of the library are yours

Each test exercises one part: it runs with that part of yours plugged in and every other part
the library's, so a failure names the part that is wrong. Expected values are computed here
with NumPy (never by minitorch). Training plugs in all your parts at once.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from . import parts as _parts
from .render import render_pair

RTOL, ATOL = 1e-5, 1e-6  # float32 arithmetic, in another order than NumPy's float64


@dataclass(frozen=True)
class Test:
    part: str
    name: str
    input: str                    # what the test does, as code a reader can run
    run: Callable                 # () -> plain value, computed by minitorch
    expected: Callable            # () -> plain value, computed with NumPy
    rtol: float = RTOL            # floats: float32 arithmetic, in another order than NumPy's
    atol: float = ATOL


@dataclass
class Outcome:
    test: Test
    ok: bool
    expected: object = None
    actual: object = None
    error: str = ""
    stub: bool = False     # the part raised NotImplementedError: not written yet

    def lines(self):
        t = self.test
        e, a = render_pair(self.expected, self.actual)
        out = [f"✘ part {t.part}, test {t.name}", f"    input:    {t.input}", f"    expected: {e}"]
        out.append(f"    actual:   {self.error}" if self.error else f"    actual:   {a}")
        return out


@dataclass
class Report:
    outcomes: list = field(default_factory=list)
    missing: list = field(default_factory=list)    # parts not saved: tested as the library's
    yours: list = field(default_factory=list)      # parts tested as yours
    functions: dict = field(default_factory=dict)  # {part: your function}, as tested

    @property
    def passed(self):
        return sum(o.ok for o in self.outcomes)

    @property
    def total(self):
        return len(self.outcomes)

    def failed_parts(self):
        return sorted({o.test.part for o in self.outcomes if not o.ok})

    def passing(self, functions=None):
        """{part: function} of the parts whose every test passed (of `functions`, or of those tested)."""
        failed = set(self.failed_parts())
        return {name: fn for name, fn in (self.functions if functions is None else functions).items()
                if name not in failed}

    def __bool__(self):
        return self.passed == self.total

    def __repr__(self):
        lines = [f"your minitorch passes {self.passed} of {self.total} tests"]
        stubs = sorted({o.test.part for o in self.outcomes if o.stub})
        for o in self.outcomes:
            if not o.ok and not o.stub:
                lines += o.lines()
        if stubs:
            lines.append("not written yet (they raise NotImplementedError): " + ", ".join(stubs))
        wrong = [p for p in self.failed_parts() if p not in stubs]
        if wrong:
            lines.append("wrong: " + ", ".join(wrong) + " (fix it in its exercise; check() saves it "
                         "again when it passes)")
        if self.missing:
            lines.append("not yours yet (the library's own code ran for them): " + ", ".join(self.missing))
        return "\n".join(lines)


# ---- the tests: a subset of minitorch's own, one part each --------------------------------------
def _mt():
    import minitorch
    return minitorch


def _arange(*shape):
    return np.arange(math.prod(shape), dtype=np.float32).reshape(shape)


def _strides_and_values(t):
    return [list(t.stride()), t.tolist()]


def _raises(fn):
    try:
        fn()
    except NotImplementedError:
        raise  # a part not written yet, not the error under test
    except Exception as e:  # noqa: BLE001 - the test reports which exception
        return type(e).__name__
    return "no error"


def _grads(build, *arrays):
    """Gradients of build(*tensors).sum() with respect to each input, as lists."""
    mt = _mt()
    ts = [mt.tensor(a, requires_grad=True) for a in arrays]
    build(*ts).sum().backward()
    return [t.grad.tolist() for t in ts]


_RNG = np.random.default_rng(0)
A34 = _RNG.uniform(0.5, 2.0, (3, 4)).astype(np.float32)
B34 = _RNG.uniform(0.5, 2.0, (3, 4)).astype(np.float32)
X31 = _RNG.uniform(-1, 1, (3, 1)).astype(np.float32)
X4 = _RNG.uniform(-1, 1, (4,)).astype(np.float32)


def _sig(x):
    return 1 / (1 + np.exp(-x))


def _conv_np(x, w, stride, padding):
    n, c, h, wd = x.shape
    o, _, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (padding, padding), (padding, padding)))
    oh, ow = (h + 2 * padding - kh) // stride + 1, (wd + 2 * padding - kw) // stride + 1
    out = np.zeros((n, o, oh, ow), dtype=np.float64)
    for i in range(oh):
        for j in range(ow):
            patch = xp[:, :, i * stride:i * stride + kh, j * stride:j * stride + kw]
            out[:, :, i, j] = np.einsum("nckl,ockl->no", patch, w)
    return out


_XC = _RNG.standard_normal((2, 3, 5, 5)).astype(np.float32)
_WC = _RNG.standard_normal((4, 3, 3, 3)).astype(np.float32)


def _conv_run(stride, padding):
    mt = _mt()
    x, w = mt.tensor(_XC), mt.tensor(_WC, requires_grad=True)
    out = mt.nn.functional.conv2d(x, w, stride=stride, padding=padding)
    (out * out).sum().backward()
    return [out.tolist(), w.grad.tolist()]


def _conv_expected(stride, padding):
    out = _conv_np(_XC.astype(np.float64), _WC.astype(np.float64), stride, padding)
    # d/dw of sum(out^2): 2 * out correlated with the input windows
    eps_grad = np.zeros_like(_WC, dtype=np.float64)
    xp = np.pad(_XC.astype(np.float64), ((0, 0), (0, 0), (padding, padding), (padding, padding)))
    for i in range(out.shape[2]):
        for j in range(out.shape[3]):
            patch = xp[:, :, i * stride:i * stride + 3, j * stride:j * stride + 3]
            eps_grad += np.einsum("no,nckl->ockl", 2 * out[:, :, i, j], patch)
    return [out.tolist(), eps_grad.tolist()]


def _optimizer_run(kind, steps, **kw):
    mt = _mt()
    p = mt.tensor(A34.copy(), requires_grad=True)
    opt = (mt.optim.SGD if kind == "sgd" else mt.optim.Adam)([p], **kw)
    for k in range(steps):
        p.grad = mt.tensor(B34 * (k + 1) - 1)
        opt.step()
    return p.tolist()


def _sgd_expected(steps, lr, momentum=0.0, weight_decay=0.0):
    p, buf = A34.astype(np.float64), None
    for k in range(steps):
        d = (B34 * (k + 1) - 1).astype(np.float64) + weight_decay * p
        if momentum:
            buf = d if buf is None else momentum * buf + d
            d = buf
        p = p - lr * d
    return p.tolist()


def _adam_expected(steps, lr, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0):
    p = A34.astype(np.float64)
    m = v = np.zeros_like(p)
    for t in range(1, steps + 1):
        g = (B34 * t - 1).astype(np.float64) + weight_decay * p
        m = betas[0] * m + (1 - betas[0]) * g
        v = betas[1] * v + (1 - betas[1]) * g * g
        p = p - lr * (m / (1 - betas[0] ** t)) / (np.sqrt(v / (1 - betas[1] ** t)) + eps)
    return p.tolist()


_IDS = [[1, 2, 1], [3, 0, 1]]
_TABLE = _RNG.standard_normal((5, 3)).astype(np.float32)
_GOUT = _RNG.standard_normal((2, 3, 3)).astype(np.float32)


def _embedding_run(padding_idx):
    mt = _mt()
    w = mt.tensor(_TABLE, requires_grad=True)
    out = mt.nn.functional.embedding(mt.tensor(_IDS), w, padding_idx=padding_idx)
    (out * mt.tensor(_GOUT)).sum().backward()
    return w.grad.tolist()


def _embedding_expected(padding_idx):
    g = np.zeros_like(_TABLE, dtype=np.float64)
    np.add.at(g, np.asarray(_IDS).reshape(-1), _GOUT.reshape(-1, 3).astype(np.float64))
    if padding_idx is not None:
        g[padding_idx] = 0
    return g.tolist()


def _modified_after_save(op):
    mt = _mt()
    a = mt.tensor(X4, requires_grad=True)
    if op == "exp":
        b = a.exp()
        b.add_(1)
        b.sum().backward()
    else:
        x = a * 1
        y = x * x
        x.mul_(2)
        y.sum().backward()


def _modified_before_save():
    mt = _mt()
    a = mt.tensor(X4, requires_grad=True)
    x = a * 1
    x.mul_(2)   # before x * x saves it: nothing to refuse
    (x * x).sum().backward()
    return a.grad.tolist()


def _t(a):
    return _mt().tensor(a)


_A45 = _RNG.standard_normal((4, 5)).astype(np.float32)
_W35 = _RNG.standard_normal((3, 5)).astype(np.float32)   # d loss / d out, through (out * w).sum()
_X234 = _RNG.standard_normal((2, 3, 4)).astype(np.float32)
_W234 = _RNG.standard_normal((2, 3, 4)).astype(np.float32)


def _weighted(w):
    """build(...) * w: the gradient of the result is w, not all ones, so every element counts."""
    return lambda out: out * _t(w)


TESTS = (
    Test("contiguous_strides", "view_strides_of_new_shape", "arange(24.).view(2, 3, 4).stride()",
         lambda: list(_t(_arange(24)).view(2, 3, 4).stride()), lambda: [12, 4, 1]),
    Test("contiguous_strides", "view_values", "arange(24.).view(4, 6)[2]",
         lambda: _t(_arange(24)).view(4, 6)[2].tolist(), lambda: _arange(24).reshape(4, 6)[2].tolist()),
    Test("contiguous_strides", "view_size_one_dim", "arange(6.).view(2, 1, 3).stride()",
         lambda: list(_t(_arange(6)).view(2, 1, 3).stride()), lambda: [3, 3, 1]),
    Test("is_contiguous", "fresh_and_transposed", "x = arange(12.).view(3, 4); [x.is_contiguous(), x.t().is_contiguous()]",
         lambda: [(x := _t(_arange(3, 4))).is_contiguous(), x.t().is_contiguous()], lambda: [True, False]),
    Test("is_contiguous", "sliced_and_size_one", "[x[:, ::2].is_contiguous(), arange(4.).view(1, 4).t().is_contiguous()]",
         lambda: [_t(_arange(3, 4))[:, ::2].is_contiguous(), _t(_arange(1, 4)).t().is_contiguous()],
         lambda: [False, True]),
    Test("broadcast_shapes", "two_shapes", "broadcast_shapes((3, 1), (4,))",
         lambda: list(_mt().broadcast_shapes((3, 1), (4,))), lambda: [3, 4]),
    Test("broadcast_shapes", "three_shapes", "broadcast_shapes((2, 1, 4), (3, 1), (1,))",
         lambda: list(_mt().broadcast_shapes((2, 1, 4), (3, 1), (1,))), lambda: [2, 3, 4]),
    Test("broadcast_shapes", "mismatch_raises", "broadcast_shapes((2, 3), (4,))",
         lambda: _raises(lambda: _mt().broadcast_shapes((2, 3), (4,))), lambda: "RuntimeError"),
    Test("expand_strides", "expand_new_and_stretched_dims", "arange(3.).view(3, 1).expand(2, 3, 4)",
         lambda: _strides_and_values(_t(_arange(3, 1)).expand(2, 3, 4)),
         lambda: [[0, 1, 0], np.broadcast_to(_arange(3, 1), (2, 3, 4)).tolist()]),
    Test("transpose_strides", "transpose_first_last", "arange(24.).view(2, 3, 4).transpose(0, -1)",
         lambda: _strides_and_values(_t(_arange(2, 3, 4)).transpose(0, -1)),
         lambda: [[1, 4, 12], _arange(2, 3, 4).transpose(2, 1, 0).tolist()]),
    Test("transpose_strides", "transpose_then_contiguous", "arange(24.).view(2, 3, 4).transpose(1, 2).contiguous()",
         lambda: _t(_arange(2, 3, 4)).transpose(1, 2).contiguous().tolist(),
         lambda: _arange(2, 3, 4).transpose(0, 2, 1).tolist()),
    Test("slice_view", "columns", "x = arange(24.).view(4, 6); y = x[:, 1:5:2]: stride, offset, values",
         lambda: [*_strides_and_values(y := _t(_arange(4, 6))[:, 1:5:2]), y.storage_offset()],
         lambda: [[6, 2], _arange(4, 6)[:, 1:5:2].tolist(), 1]),
    Test("slice_view", "clamped_and_negative", "x[1:100:2, -3:] of arange(24.).view(4, 6)",
         lambda: [*_strides_and_values(y := _t(_arange(4, 6))[1:100:2, -3:]), y.storage_offset()],
         lambda: [[12, 1], _arange(4, 6)[1:100:2, -3:].tolist(), 9]),
    Test("slice_view", "slice_of_a_transpose", "arange(24.).view(4, 6).t()[2:5]",
         lambda: _strides_and_values(_t(_arange(4, 6)).t()[2:5]),
         lambda: [[1, 6], _arange(4, 6).T[2:5].tolist()]),
    Test("view_strides", "view_of_transposed", "arange(12.).view(4, 3).t().view(...) -- a (3, 4) view with strides (1, 3), viewed as (3, 2, 2)",
         lambda: _strides_and_values(_t(_arange(4, 3)).t().view(3, 2, 2)),
         lambda: [[1, 6, 3], _arange(4, 3).T.reshape(3, 2, 2).tolist()]),
    Test("view_strides", "impossible_view_raises", "arange(12.).view(4, 3).t().view(12)",
         lambda: _raises(lambda: _t(_arange(4, 3)).t().view(12)), lambda: "RuntimeError"),
    Test("version_check", "saved_output_modified", "b = a.exp(); b.add_(1); b.sum().backward()",
         lambda: _raises(lambda: _modified_after_save("exp")), lambda: "RuntimeError"),
    Test("version_check", "saved_input_modified", "x = a * 1; y = x * x; x.mul_(2); y.sum().backward()",
         lambda: _raises(lambda: _modified_after_save("mul")), lambda: "RuntimeError"),
    Test("version_check", "modified_before_save", "x = a * 1; x.mul_(2); y = x * x; y.sum().backward(): a.grad",
         lambda: _modified_before_save(), lambda: (8 * X4).tolist()),
    Test("topo_order", "diamond", "a = x * 2; b = x * 3; y = a * b + a; y.sum().backward()",
         lambda: _grads(lambda x: (x * 2) * (x * 3) + x * 2, X4), lambda: [(12 * X4 + 2).tolist()]),
    Test("topo_order", "reused_node", "h = x * x; y = (h * h + h) * x; backward",
         lambda: _grads(lambda x: ((h := x * x) * h + h) * x, X4), lambda: [(5 * X4 ** 4 + 3 * X4 ** 2).tolist()]),
    Test("local_backward", "mul", "(a * b).sum().backward()", lambda: _grads(lambda a, b: a * b, A34, B34),
         lambda: [B34.tolist(), A34.tolist()]),
    Test("local_backward", "div", "(a / b).sum().backward()", lambda: _grads(lambda a, b: a / b, A34, B34),
         lambda: [(1 / B34).tolist(), (-A34 / B34 ** 2).tolist()]),
    Test("local_backward", "pow", "(a ** b).sum().backward()", lambda: _grads(lambda a, b: a ** b, A34, B34),
         lambda: [(B34 * A34 ** (B34 - 1)).tolist(), (A34 ** B34 * np.log(A34)).tolist()]),
    Test("local_backward", "pow_scalar", "(a ** 3).sum().backward()", lambda: _grads(lambda a: a ** 3, A34),
         lambda: [(3 * A34 ** 2).tolist()]),
    Test("local_backward", "add_sub", "(a + b - b * 0.5).sum().backward()",
         lambda: _grads(lambda a, b: a + b - b * 0.5, A34, B34),
         lambda: [np.ones_like(A34).tolist(), np.full_like(B34, 0.5).tolist()]),
    Test("local_backward", "neg_exp", "(-a).exp().sum().backward()", lambda: _grads(lambda a: (-a).exp(), X4),
         lambda: [(-np.exp(-X4)).tolist()]),
    Test("local_backward", "log", "a.log().sum().backward()", lambda: _grads(lambda a: a.log(), A34),
         lambda: [(1 / A34).tolist()]),
    Test("local_backward", "relu", "a.relu().sum().backward(), a with negatives and a zero",
         lambda: _grads(lambda a: a.relu(), np.array([-1.5, 0.0, 0.5, 2.0], dtype=np.float32)),
         lambda: [[0.0, 0.0, 1.0, 1.0]]),
    Test("local_backward", "tanh", "a.tanh().sum().backward()", lambda: _grads(lambda a: a.tanh(), X4),
         lambda: [(1 - np.tanh(X4) ** 2).tolist()]),
    Test("local_backward", "sigmoid", "a.sigmoid().sum().backward()", lambda: _grads(lambda a: a.sigmoid(), X4),
         lambda: [(_sig(X4) * (1 - _sig(X4))).tolist()]),
    Test("unbroadcast", "column_plus_row", "a (3, 1), b (4,): (a * b).sum().backward()",
         lambda: _grads(lambda a, b: a * b, X31, X4),
         lambda: [np.full((3, 1), X4.sum()).tolist(), np.full(4, X31.sum()).tolist()]),
    Test("unbroadcast", "bias_of_a_batch", "x (3, 4) + b (4,), then * x: ((x + b) * x).sum().backward()",
         lambda: _grads(lambda x, b: (x + b) * x, A34, X4)[1], lambda: A34.sum(axis=0).tolist()),
    Test("reduce_backward", "sum_over_a_dim", "(x.sum(1) * w).sum().backward(), x (3, 4)",
         lambda: _grads(lambda x: (x.sum(1) * _t(X31[:, 0])).sum(), A34),
         lambda: [np.repeat(X31, 4, axis=1).tolist()]),
    Test("reduce_backward", "mean_keepdim", "(x.mean(0, keepdim=True) * w).sum().backward(), x (3, 4)",
         lambda: _grads(lambda x: (x.mean(0, keepdim=True) * _t(X4)).sum(), A34),
         lambda: [np.broadcast_to(X4 / 3, (3, 4)).tolist()]),
    Test("reduce_backward", "mean_of_all", "x.mean().backward(), x (3, 4)",
         lambda: _grads(lambda x: x.mean(), A34), lambda: [np.full((3, 4), 1 / 12).tolist()]),
    Test("matmul_backward", "matrix_matrix", "((a @ b) * w).sum().backward(), a (3, 4), b (4, 5)",
         lambda: _grads(lambda a, b: _weighted(_W35)(a @ b), A34, _A45),
         lambda: [(_W35 @ _A45.T).tolist(), (A34.T @ _W35).tolist()]),
    Test("matmul_backward", "vector_times_matrix", "((v @ b) * w).sum().backward(), v (4,), b (4, 5)",
         lambda: _grads(lambda v, b: _weighted(_W35[0])(v @ b), X4, _A45),
         lambda: [(_A45 @ _W35[0]).tolist(), np.outer(X4, _W35[0]).tolist()]),
    Test("matmul_backward", "linear_layer", "(nn.functional.linear(x, w, b) * g).sum().backward(), x (3, 4), w (5, 4)",
         lambda: _grads(lambda x, w, b: _weighted(_W35)(_mt().nn.functional.linear(x, w, b)), A34, _A45.T.copy(),
                        _W35[1]),
         lambda: [(_W35 @ _A45.T).tolist(), (_W35.T @ A34).tolist(), _W35.sum(0).tolist()]),
    Test("view_backward", "view", "(x.view(4, 6) * w).sum().backward(), x (2, 3, 4)",
         lambda: _grads(lambda x: _weighted(_W234.reshape(4, 6))(x.view(4, 6)), _X234), lambda: [_W234.tolist()]),
    Test("view_backward", "permute_and_transpose", "(x.permute(2, 0, 1) * w).sum() and (x.transpose(0, 2) * w).sum()",
         lambda: _grads(lambda x: _weighted(_W234.reshape(4, 2, 3))(x.permute(2, 0, 1)), _X234)
         + _grads(lambda x: _weighted(_W234.reshape(4, 3, 2))(x.transpose(0, 2)), _X234),
         lambda: [_W234.reshape(4, 2, 3).transpose(1, 2, 0).tolist(), _W234.reshape(4, 3, 2).transpose(2, 1, 0).tolist()]),
    Test("view_backward", "expand", "(x.expand(2, 3, 4) * w).sum().backward(), x (3, 1)",
         lambda: _grads(lambda x: _weighted(_W234)(x.expand(2, 3, 4)), X31),
         lambda: [_W234.sum(axis=(0, 2))[:, None].tolist()]),
    Test("view_backward", "squeeze_and_unsqueeze", "(x.squeeze(1) * w).sum(), x (3, 1); (x.unsqueeze(1) * w).sum(), x (3, 4)",
         lambda: _grads(lambda x: _weighted(X4[:3])(x.squeeze(1)), X31)
         + _grads(lambda x: _weighted(_W234[0][:, None])(x.unsqueeze(1)), A34),
         lambda: [X4[:3, None].tolist(), _W234[0].tolist()]),
    Test("sgd_step", "plain", "SGD([p], lr=0.1): two steps", lambda: _optimizer_run("sgd", 2, lr=0.1),
         lambda: _sgd_expected(2, 0.1)),
    Test("sgd_step", "momentum_weight_decay", "SGD([p], lr=0.1, momentum=0.9, weight_decay=0.01): three steps",
         lambda: _optimizer_run("sgd", 3, lr=0.1, momentum=0.9, weight_decay=0.01),
         lambda: _sgd_expected(3, 0.1, 0.9, 0.01)),
    Test("adam_step", "three_steps", "Adam([p], lr=0.01): three steps", lambda: _optimizer_run("adam", 3, lr=0.01),
         lambda: _adam_expected(3, 0.01)),
    Test("adam_step", "betas_weight_decay", "Adam([p], lr=0.05, betas=(0.8, 0.9), weight_decay=0.1): two steps",
         lambda: _optimizer_run("adam", 2, lr=0.05, betas=(0.8, 0.9), weight_decay=0.1),
         lambda: _adam_expected(2, 0.05, (0.8, 0.9), 1e-8, 0.1)),
    # sums of 27 products, and gradients summed over 50 windows: float32 keeps about 5 digits
    Test("im2col", "conv2d_padding", "conv2d(x (2, 3, 5, 5), w (4, 3, 3, 3), padding=1) and w.grad",
         lambda: _conv_run(1, 1), lambda: _conv_expected(1, 1), rtol=1e-4, atol=1e-4),
    Test("im2col", "conv2d_stride", "conv2d(x (2, 3, 5, 5), w (4, 3, 3, 3), stride=2) and w.grad",
         lambda: _conv_run(2, 0), lambda: _conv_expected(2, 0), rtol=1e-4, atol=1e-4),
    Test("embedding_grad", "repeated_ids", "embedding(ids [[1, 2, 1], [3, 0, 1]], w (5, 3)): w.grad",
         lambda: _embedding_run(None), lambda: _embedding_expected(None)),
    Test("embedding_grad", "padding_idx", "embedding(ids, w, padding_idx=0): w.grad",
         lambda: _embedding_run(0), lambda: _embedding_expected(0)),
)


def _close(expected, actual, rtol=RTOL, atol=ATOL):
    if isinstance(expected, (list, tuple)) and isinstance(actual, (list, tuple)):
        return len(expected) == len(actual) and all(_close(e, a, rtol, atol) for e, a in zip(expected, actual))
    if isinstance(expected, bool) or isinstance(actual, bool) or isinstance(expected, str):
        return type(expected) is type(actual) and expected == actual
    if isinstance(expected, (int, float)) and isinstance(actual, (int, float)):
        return math.isclose(actual, expected, rel_tol=rtol, abs_tol=atol) or (math.isnan(expected) and math.isnan(actual))
    return expected == actual


def _describe(e):
    """'TypeName: message', then the hints the library attached to it as notes (PEP 678)."""
    return "; ".join([f"{type(e).__name__}: {e}", *map(str, getattr(e, "__notes__", None) or ())])


def run_test(test: Test) -> Outcome:
    expected = test.expected()
    try:
        actual = test.run()
    except Exception as e:  # noqa: BLE001 - a wrong part may raise anything
        return Outcome(test, False, expected, None, f"raised {_describe(e)}",
                       stub=isinstance(e, NotImplementedError))
    return Outcome(test, _close(expected, actual, test.rtol, test.atol), expected, actual)


def run_tests(functions=None, show=True) -> Report:
    """Every test, each with its part of yours plugged in: functions[part], or (functions None)
    the part you saved. A part you have neither is tested as the library's own, and listed."""
    broken = {}
    if functions is None:
        functions, broken = _parts.saved_functions()
    have = set(functions) | set(broken)
    report = Report(missing=[p.name for p in _parts.PARTS if p.name not in have],
                    yours=[p.name for p in _parts.PARTS if p.name in have], functions=dict(functions))
    for test in TESTS:
        if test.part in broken:
            report.outcomes.append(Outcome(test, False, test.expected(), None, broken[test.part]))
        elif test.part in functions:
            with _parts.use_mine(functions={test.part: functions[test.part]}):
                report.outcomes.append(run_test(test))
        else:
            report.outcomes.append(run_test(test))
    if show:
        print(repr(report))
    return report


def tests_of(part: str) -> list:
    """The tests of one part, in the order run_tests() runs them."""
    return [t for t in TESTS if t.part == part]


def precision_of(part: str):
    """(rtol, atol) that the values of a part's tests are compared with: the loosest of its tests'."""
    tests = tests_of(part)
    return max(t.rtol for t in tests), max(t.atol for t in tests)


def run_part_test(part: str, name: str, fn) -> object:
    """The plain value that test `name` of `part` computes with minitorch, with `fn` plugged in
    as that part and every other part the library's. Exercise 19 grades each part on these
    values (its driver calls this: in the grader's sandbox, in check() and, with the reference
    parts, for the expected values); NotImplementedError and a wrong part's errors propagate."""
    from minitorch import parts as hooks
    test = next((t for t in TESTS if (t.part, t.name) == (part, name)), None)
    if test is None:
        raise ValueError(f"the capstone has no test {name!r} of part {part!r}")
    if not callable(fn):
        raise TypeError(f"{_parts.BY_NAME[part].function} is a {type(fn).__name__}, not a function")
    before = {h: getattr(hooks, h) for h in hooks.HOOKS}
    try:
        for h in hooks.HOOKS:  # only this part is yours: a failure is this part's
            setattr(hooks, h, None)
        with _parts.use_mine(functions={part: fn}):
            return test.run()
    finally:
        for h, v in before.items():
            setattr(hooks, h, v)


def reference_parts() -> dict:
    """The course's reference parts, from the instructor's solutions ({} where they are not)."""
    from . import answers
    try:
        return {p.name: getattr(answers.namespace(p.exercise), p.function) for p in _parts.PARTS}
    except (LookupError, answers.AnswerKeyError, AttributeError):
        return {}


def functions_in(namespace=None) -> dict:
    """{part: function} for every part whose function is defined in `namespace` (default: the
    notebook's own, which in a Jupyter kernel is the namespace of `__main__`)."""
    if namespace is None:
        import __main__
        namespace = vars(__main__)
    return {p.name: namespace[p.function] for p in _parts.PARTS if callable(namespace.get(p.function))}


# ---- training on your parts --------------------------------------------------------------------
def _culprit(error, functions):
    """The part of yours in whose code `error` was raised (None: not in a part's code)."""
    codes = {}
    for name, fn in (functions or {}).items():
        code = getattr(fn, "__code__", None)
        if code is not None:
            codes[code.co_filename, code.co_firstlineno] = name
    found, tb = None, error.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        if code.co_filename.startswith("<your ") and code.co_filename[6:-1] in _parts.BY_NAME:
            found = code.co_filename[6:-1]
        elif (code.co_filename, code.co_firstlineno) in codes:
            found = codes[code.co_filename, code.co_firstlineno]
        tb = tb.tb_next
    return found
def digits(device="cpu"):
    """The digits of lessons 14-15: (x_train, y_train, x_test, y_test), images (N, 1, 8, 8)."""
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split
    mt = _mt()
    d = load_digits()
    idx_train, idx_test = train_test_split(np.arange(len(d.target)), test_size=0.25, random_state=0,
                                           stratify=d.target)
    x = (d.images.astype("float32") / 16.0)[:, None]
    y = d.target.astype("int64")
    return tuple(mt.tensor(a).to(device) for a in (x[idx_train], y[idx_train], x[idx_test], y[idx_test]))


def make_model(kind):
    mt = _mt()
    nn = mt.nn
    mt.manual_seed(0)
    if kind == "mlp":
        return nn.Sequential(nn.Flatten(), nn.Linear(64, 64), nn.Tanh(), nn.Linear(64, 10))
    if kind == "cnn":
        return nn.Sequential(nn.Conv2d(1, 16, kernel_size=3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                             nn.Conv2d(16, 32, kernel_size=3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                             nn.Flatten(), nn.Linear(32 * 2 * 2, 10))
    raise ValueError(f"model is 'mlp' or 'cnn', not {kind!r}")


def train(kind="mlp", epochs=None, device=None, progress=True, functions=None, show=True):
    """Train the digits MLP (Adam) or CNN (SGD with momentum) with every saved part of yours
    plugged in (functions: {part: function} instead of the saved ones), on `device` (default:
    the GPU when there is one, else the CPU; "cuda" without a GPU says so and skips). Returns
    the history: per-epoch train loss and test accuracy, the device and the parts used."""
    mt = _mt()
    device = str(device or ("cuda" if mt.cuda.is_available() else "cpu"))
    if device.startswith("cuda") and not mt.cuda.is_available():  # asked for a GPU there is not
        why = f"no CUDA GPU here: {mt.cuda._cupy_state()[2]}"
        if show:
            print(f"{why}: the {kind} is not trained on {device}, skipped (train(device='cpu') trains it on the CPU)")
        return {"train_loss": [], "test_acc": [], "device": device, "model": kind, "parts": [], "skipped": why}
    epochs = epochs or (12 if kind == "mlp" else 8)
    x_train, y_train, x_test, y_test = digits(device)
    model = make_model(kind).to(device)
    history = {"train_loss": [], "test_acc": [], "device": device, "model": kind}
    plugged = _parts.use_mine(functions=functions)
    history["parts"] = list(plugged.plugged)
    if show:
        library = [p.name for p in _parts.PARTS if p.name not in plugged.plugged]
        print(f"training the {kind} on {device} with {len(plugged.plugged)} part(s) of yours"
              + (f"; the library's own code for: {', '.join(library)}" if library else ""))
    try:
        with plugged:
            _fit(kind, model, epochs, (x_train, y_train, x_test, y_test), history, progress)
    except Exception as e:  # noqa: BLE001 - a part of yours that fails while training is named
        part = _culprit(e, functions)
        history["error"] = _describe(e)
        where = f"your part {part} raised" if part else "training stopped:"
        print(f"{where} {_describe(e)}" + (f" (fix it in exercise {_parts.BY_NAME[part].exercise})"
                                                    if part else ""))
        return history
    if show:
        print(f"test accuracy: {history['test_acc'][-1]:.3f}")
    return history


def _fit(kind, model, epochs, data, history, progress):
    mt = _mt()
    x_train, y_train, x_test, y_test = data
    device = x_train.device
    opt = (mt.optim.Adam(model.parameters(), lr=5e-3) if kind == "mlp"
           else mt.optim.SGD(model.parameters(), lr=0.05, momentum=0.9))
    loss_fn = mt.nn.CrossEntropyLoss()
    g = np.random.default_rng(0)
    bar = _bar(epochs, kind) if progress else None
    start = time.perf_counter()
    for _ in range(epochs):
        order = g.permutation(len(y_train))
        total = 0.0
        for i in range(0, len(order), 64):
            idx = mt.tensor(order[i:i + 64]).to(device)
            xb, yb = x_train[idx], y_train[idx]
            opt.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            opt.step()
            total += loss.item() * len(yb)
        history["train_loss"].append(total / len(order))
        history["test_acc"].append(accuracy(model, x_test, y_test))
        if bar is not None:
            bar.update(1)
            bar.set_postfix(loss=f"{history['train_loss'][-1]:.3f}", acc=f"{history['test_acc'][-1]:.3f}")
    if bar is not None:
        bar.close()
    history["seconds"] = time.perf_counter() - start


def accuracy(model, x, y):
    mt = _mt()
    model.eval()
    with mt.no_grad():
        acc = (model(x).argmax(dim=1) == y).float().mean().item()
    model.train()
    return acc


def _bar(total, desc):
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return None
    return tqdm(total=total, desc=f"training the {desc} on your parts", unit="epoch")


def draw_curves(*histories):
    from .draw import curves
    panels = [
        {"title": "training loss", "xlabel": "epoch", "ylabel": "cross-entropy",
         "lines": {h["model"]: (range(1, len(h["train_loss"]) + 1), h["train_loss"]) for h in histories}},
        {"title": "test accuracy", "xlabel": "epoch", "ylabel": "accuracy", "ylim": (0.5, 1.0), "hline": 0.95,
         "lines": {h["model"]: (range(1, len(h["test_acc"]) + 1), h["test_acc"]) for h in histories}},
    ]
    curves(panels)


def draw_parts(report=None):
    """A map of the parts of minitorch: yours (green; red where a test failed) or the library's."""
    from .draw import _finish, _plt
    plt = _plt()
    records = set(report.yours) if report is not None else set(_parts.saved())
    failed = set(report.failed_parts()) if report is not None else set()
    parts = _parts.PARTS
    fig, ax = plt.subplots(figsize=(9, 0.42 * len(parts) + 0.6))
    for i, p in enumerate(parts):
        y = len(parts) - 1 - i
        yours = p.name in records
        color = "#cf222e" if p.name in failed else "#2da44e" if yours else "#d0d7de"
        ax.barh(y, 1, color=color, edgecolor="white")
        label = "yours, wrong" if p.name in failed else "yours" if yours else "library's"
        ax.text(0.02, y, f"{p.name}  ({p.exercise} {p.question})", va="center", fontsize=9)
        ax.text(0.98, y, f"{p.what}: {label}", va="center", ha="right", fontsize=9)
    ax.set_xlim(0, 1)
    ax.set_ylim(-0.6, len(parts) - 0.4)
    ax.axis("off")
    ax.set_title(f"your minitorch: {sum(p.name in records for p in parts)} of {len(parts)} parts are yours")
    fig.tight_layout()
    _finish(fig)
