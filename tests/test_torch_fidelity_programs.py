"""What the programs of tests/programs/ p54-p69 found, each case compared with PyTorch itself:
the error messages (and exception types) of default_collate, batch_norm, nn.LSTM's hx,
embedding and tensor indexing with float ids; flip / tile taking `dims=`; the autograd.Function
API (forward + setup_context, once_differentiable, set_materialize_grads(False), the repr of a
custom Function's node); and the graphs nn.RNN / GRU / LSTM record (per-direction outputs
concatenated, the in-place transpose of batch_first, one MkldnnRnnLayerBackward0 node per LSTM
layer, with PyTorch's values, gradients and second derivatives). Skipped when PyTorch is absent.
"""
from __future__ import annotations

import re

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="PyTorch not installed: differential tests skipped")

import minitorch as mt  # noqa: E402
from minitorch.autograd.function import once_differentiable  # noqa: E402

pytestmark = pytest.mark.torch

LIBS = (torch, mt)


def _error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 (the error is what is compared)
        return type(e).__name__, str(e)
    return None


def _same_error(make):
    """make(lib) -> a callable; both libraries raise the same type with the same message."""
    want, got = _error(make(torch)), _error(make(mt))
    assert want is not None
    assert got == want


def _node(name):  # a node's name as both libraries spell it
    return re.sub(r"0x[0-9a-f]+", "0x?", name).replace("minitorch", "torch")


# ---- error messages ----------------------------------------------------------------------------------

def test_default_collate_of_unequal_tensors_is_stacks_error():
    def make(lib):
        from importlib import import_module
        data = import_module(f"{lib.__name__}.utils.data")
        ds = [lib.tensor([1, 2, 3]), lib.tensor([4, 5]), lib.tensor([6])]
        return lambda: next(iter(data.DataLoader(ds, batch_size=3)))
    _same_error(make)


@pytest.mark.parametrize("bad", ["running_mean", "running_var", "weight", "bias"])
def test_batch_norm_checks_the_running_stats_first(bad):
    def make(lib):
        sizes = {"running_mean": 8, "running_var": 8, "weight": 8, "bias": 8}
        sizes.update({k: 4 for k in list(sizes)[list(sizes).index(bad):]})  # this one and the later ones wrong
        t = {k: lib.ones(n) for k, n in sizes.items()}
        return lambda: lib.nn.functional.batch_norm(lib.randn(4, 8, 3), t["running_mean"], t["running_var"],
                                                    t["weight"], t["bias"], training=True)
    _same_error(make)


@pytest.mark.parametrize("missing", [0, 1])
def test_batch_norm_in_eval_mode_names_the_missing_statistic(missing):
    def make(lib):
        stats = [lib.zeros(4), lib.ones(4)]
        stats[missing] = None
        return lambda: lib.nn.functional.batch_norm(lib.randn(2, 4), *stats, training=False)
    _same_error(make)


def test_lstm_hx_given_as_one_tensor():
    def make(lib):
        lib.manual_seed(0)
        m = lib.nn.LSTM(3, 4, num_layers=2, bidirectional=True)
        return lambda: m(lib.randn(5, 2, 3), lib.zeros(4, 2, 4))
    _same_error(make)


def test_lstm_hx_as_a_list():
    x = np.random.default_rng(0).standard_normal((5, 2, 3)).astype(np.float32)
    outs = []
    for lib in LIBS:
        lib.manual_seed(0)
        m = lib.nn.LSTM(3, 4)
        out, (h, c) = m(lib.tensor(x), [lib.zeros(1, 2, 4), lib.ones(1, 2, 4)])
        outs.append(out.detach().numpy())
    np.testing.assert_allclose(outs[1], outs[0], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("case", ["embedding", "embedding_bag indices", "embedding_bag offsets", "index"])
def test_float_ids_and_indices_errors_are_pytorchs_words(case):
    def make(lib):
        F = lib.nn.functional
        w = lib.randn(5, 2)
        return {"embedding": lambda: F.embedding(lib.tensor([1.0, 2.0]), w),
                "embedding_bag indices": lambda: F.embedding_bag(lib.tensor([1.0, 2.0]), w, lib.tensor([0])),
                "embedding_bag offsets": lambda: F.embedding_bag(lib.tensor([1, 2]), w, lib.tensor([0.0])),
                "index": lambda: lib.zeros(3)[lib.tensor([0.0, 1.0])]}[case]
    _same_error(make)


def test_the_hint_rides_along_as_a_note():
    try:
        mt.nn.functional.embedding(mt.tensor([1.0]), mt.randn(3, 2))
    except RuntimeError as e:
        assert "long()" in " ".join(getattr(e, "__notes__", [str(e)]))


# ---- flip / tile ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("call", [
    lambda L, x: L.flip(x, dims=(0,)),
    lambda L, x: x.flip(dims=[1]),
    lambda L, x: x.flip(0, 1),
    lambda L, x: L.flip(x, [0, 1]),
    lambda L, x: L.tile(x, dims=(2,)),
    lambda L, x: x.tile(dims=(2, 1)),
])
def test_flip_and_tile_take_dims_by_keyword(call):
    a = np.arange(6).reshape(2, 3)
    np.testing.assert_array_equal(call(mt, mt.tensor(a)).numpy(), call(torch, torch.tensor(a)).numpy())


@pytest.mark.parametrize("call", [
    lambda L, x: L.flip(x, dim=1),
    lambda L, x: x.flip(1, foo=2),
    lambda L, x: x.flip(0, dims=1),
    lambda L, x: x.tile(foo=1),
])
def test_flip_and_tile_keyword_errors(call):
    _same_error(lambda L: lambda: call(L, L.arange(6).reshape(2, 3)))


# ---- autograd.Function ---------------------------------------------------------------------------------

def _setup_context_function(lib):
    class Scale(lib.autograd.Function):
        seen = []

        @staticmethod
        def forward(x, scale=2.0):
            return x * scale

        @staticmethod
        def setup_context(ctx, inputs, output):
            Scale.seen.append((len(inputs), inputs[1], lib.is_grad_enabled(), type(output).__name__))
            ctx.scale = inputs[1]

        @staticmethod
        def backward(ctx, g):
            return g * ctx.scale, None
    return Scale


def test_float_of_a_tensor_that_requires_grad_warns_once():
    import warnings
    x = mt.ones(1, requires_grad=True) * 2
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        for _ in range(3):
            float(x)
    assert len(w) <= 1  # (once per process, as PyTorch's TORCH_WARN_ONCE)


def test_forward_and_setup_context_style():
    results = []
    for lib in LIBS:
        Scale = _setup_context_function(lib)
        x = lib.ones(2, requires_grad=True)
        y = Scale.apply(x) + Scale.apply(x, scale=3.0) + Scale.apply(x, 4.0)
        y.sum().backward()
        with lib.no_grad():
            Scale.apply(x)
        Scale.apply(lib.ones(2))  # nothing requires grad: setup_context still runs
        results.append((x.grad.tolist(), Scale.seen, _node(y.grad_fn.next_functions[0][0].next_functions[0][0].name()),
                        _error(lambda: Scale.apply(x, 1.0, 2.0))))
    assert results[1] == results[0]


def test_custom_function_node_repr_names_its_module_builtin_nodes_do_not():
    reprs = []
    for lib in LIBS:
        class Double(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2
        x = lib.ones(2, requires_grad=True)
        y = Double.apply(x)
        reprs.append([_node(repr(y.grad_fn)), type(y.grad_fn).__module__.replace("minitorch", "torch"),
                      _node(repr((x * 2).grad_fn)), repr(y).replace("minitorch", "torch")])
    assert reprs[1] == reprs[0]


def _sort_function(lib, decorate):
    class SortFunc(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            values, idx = x.sort()
            ctx.mark_non_differentiable(idx)
            ctx.save_for_backward(x, idx)
            return values, idx

        @staticmethod
        def backward(ctx, g1, g2):
            x, idx = ctx.saved_tensors
            SortFunc.grad_mode = lib.is_grad_enabled()
            return lib.zeros_like(x).index_add_(0, idx, g1)
    if decorate:
        SortFunc.backward = staticmethod(decorate(SortFunc.backward))
    return SortFunc


def test_once_differentiable_runs_backward_without_grad_and_refuses_a_second():
    seen = []
    for lib, once in ((torch, torch.autograd.function.once_differentiable), (mt, once_differentiable)):
        SortFunc = _sort_function(lib, once)
        x = lib.tensor([3.0, 1.0, 2.0], requires_grad=True)
        s, idx = SortFunc.apply(x)
        g, = lib.autograd.grad((s * s).sum(), x, create_graph=True)
        seen.append((g.tolist(), g.requires_grad, _node(repr(g.grad_fn)), _node(g.grad_fn.name()),
                     SortFunc.grad_mode, _error(lambda: g.sum().backward()), idx.requires_grad))
        s, _ = SortFunc.apply(x)  # a plain backward: no Error node
        g, = lib.autograd.grad((s * s).sum(), x)
        seen.append((g.requires_grad, g.grad_fn))
    assert seen[2:] == seen[:2]


def test_set_materialize_grads_false_passes_none_for_unused_outputs():
    seen = []
    for lib in LIBS:
        class TwoOut(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.set_materialize_grads(False)
                return x.clone(), x.clone()

            @staticmethod
            def backward(ctx, g1, g2):
                seen.append((g1 is None, g2 is None))
                return g1 if g2 is None else g2 if g1 is None else g1 + g2
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        first, second = TwoOut.apply(a)
        first.sum().backward()
        second.sum().backward()
        seen.append(a.grad.tolist())
    assert seen[3:] == seen[:3]


# ---- the graphs of nn.RNN / GRU / LSTM -----------------------------------------------------------------

def _graph(lib, cls, kw, x):
    lib.manual_seed(0)
    m = getattr(lib.nn, cls)(3, 4, **kw)
    out, h = m(lib.tensor(x))
    h = h[0] if isinstance(h, tuple) else h
    names = lambda fn: [n.name() if n is not None else None for n, _ in fn.next_functions]  # noqa: E731
    return (out.grad_fn.name(), names(out.grad_fn)[:3], h.grad_fn.name(), names(h.grad_fn), out._version,
            out.stride())


@pytest.mark.parametrize("cls", ["RNN", "GRU", "LSTM"])
@pytest.mark.parametrize("kw", [{}, {"bidirectional": True}, {"num_layers": 2}, {"batch_first": True},
                                {"num_layers": 2, "bidirectional": True, "batch_first": True}], ids=str)
def test_recurrent_layers_record_pytorchs_graph(cls, kw):
    x = np.random.default_rng(0).standard_normal((5, 2, 3)).astype(np.float32)
    assert _graph(mt, cls, kw, x) == _graph(torch, cls, kw, x)


def _lstm_run(lib, kw, x, hx, double):
    lib.manual_seed(0)
    m = lib.nn.LSTM(3, 4, **kw)
    x = lib.tensor(x, requires_grad=True)
    args = (x,) if hx is None else (x, tuple(lib.tensor(h, requires_grad=True) for h in hx))
    out, (h, c) = m(*args)
    loss = (out ** 2).sum() + (h * 3).sum() + c.sum()
    wrt = [x, *m.parameters(), *args[1:][0]] if hx is not None else [x, *m.parameters()]
    grads = lib.autograd.grad(loss, wrt, create_graph=double)
    res = [out, h, c, *grads]
    if double:
        res += lib.autograd.grad(sum((g ** 2).sum() for g in grads), [x, *list(m.parameters())[:2]])
    return [t.detach().numpy() for t in res]


@pytest.mark.parametrize("kw,hx,double", [
    ({}, False, False), ({}, True, False), ({}, False, True), ({"bias": False}, False, False),
    ({"num_layers": 2, "bidirectional": True}, True, False), ({"num_layers": 2, "bidirectional": True}, False, True),
    ({"batch_first": True}, False, False),
], ids=str)
def test_lstm_layer_node_values_gradients_and_second_derivatives(kw, hx, double):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((5, 2, 3)).astype(np.float32)
    layers = kw.get("num_layers", 1) * (2 if kw.get("bidirectional") else 1)
    h = [rng.standard_normal((layers, 2, 4)).astype(np.float32) for _ in range(2)] if hx else None
    for a, b in zip(_lstm_run(mt, kw, x, h, double), _lstm_run(torch, kw, x, h, double)):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=2e-5)


def test_lstm_layer_node_gradcheck():
    from minitorch.nn.rnn import _LSTMLayer
    rng = np.random.default_rng(2)
    ts = [mt.tensor(rng.standard_normal(s), dtype=mt.float64, requires_grad=True)
          for s in [(3, 2, 2), (8, 2), (8, 2), (8,), (8,), (2, 2), (2, 2)]]
    for reverse in (False, True):
        fn = lambda *a: _LSTMLayer.apply(*a, reverse)  # noqa: E731
        assert mt.autograd.gradcheck(fn, ts)
        assert mt.autograd.gradgradcheck(fn, ts)
