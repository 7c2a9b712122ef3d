"""Differential tests against PyTorch for the rest of nn that real programs use: the losses
multilabel_margin_loss, ctc_loss, triplet_margin_with_distance_loss and AdaptiveLogSoftmaxWithLoss;
nn.utils.prune (the pruning tutorial), the conv/linear + BatchNorm fusion, skip_init,
invert_permutation and convert_conv2d_weight_memory_format; grid_sample(mode='bicubic').

Both libraries run the same program after the same manual_seed (minitorch draws PyTorch's
random numbers), and values, dtypes, shapes, grad_fn names, gradients, state_dict keys, reprs
and exceptions (type and first line of the message) are compared. Skipped without PyTorch.
"""
from __future__ import annotations

import importlib
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="PyTorch not installed: differential tests skipped")

import minitorch as mt  # noqa: E402

pytestmark = pytest.mark.torch


def both(program):
    """program(lib) on torch and on minitorch, each after manual_seed(0): a list of results."""
    torch.manual_seed(0)
    a = program(torch)
    mt.manual_seed(0)
    return a, program(mt)


def outcome(f):
    """f()'s result, or its exception as (type name, first line of the message)."""
    try:
        return f()
    except Exception as e:  # noqa: BLE001
        return (type(e).__name__, str(e).splitlines()[0])


def _names(v):
    """Text with the library's name taken out (reprs, messages: torch.Size vs minitorch.Size)."""
    if isinstance(v, tuple):
        return tuple(_names(w) for w in v)
    return v.replace("minitorch", "T").replace("torch", "T") if isinstance(v, str) else v


def assert_same(a, b, atol=1e-5):
    assert len(a) == len(b)
    for i, (x, y) in enumerate(zip(a, b)):
        if isinstance(x, torch.Tensor):
            assert isinstance(y, mt.Tensor), (i, x, y)
            assert tuple(x.shape) == tuple(y.shape), (i, x.shape, y.shape)
            assert str(x.dtype).split(".")[1] == str(y.dtype).split(".")[1], (i, x.dtype, y.dtype)
            assert type(x.grad_fn).__name__ == type(y.grad_fn).__name__, (i, x.grad_fn, y.grad_fn)
            np.testing.assert_allclose(y.detach().numpy(), x.detach().numpy(), atol=atol, rtol=1e-5,
                                       equal_nan=True, err_msg=f"result {i}")
        elif isinstance(x, (str, tuple)) and any(isinstance(v, str) for v in (x if isinstance(x, tuple) else [x])):
            assert _names(x) == _names(y), (i, x, y)
        else:
            assert x == y, (i, x, y)


# ---- multilabel_margin_loss ------------------------------------------------------------------

X4 = np.random.default_rng(1).standard_normal((4, 5))
Y4 = [[3, 0, -1, 1, 2], [0, 1, 2, 3, 4], [-1, 1, 2, 3, 0], [2, 2, -1, 0, 0]]


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_multilabel_margin_loss(reduction):
    def program(M):
        x = M.tensor(X4, requires_grad=True)
        loss = M.nn.functional.multilabel_margin_loss(x, M.tensor(Y4), reduction=reduction)
        loss.sum().backward()
        x1 = M.tensor(X4[0], dtype=M.float32, requires_grad=True)
        loss1 = M.nn.MultiLabelMarginLoss(reduction=reduction)(x1, M.tensor([1, 4, -1, 0, 0]))
        loss1.backward()
        return [loss, x.grad, loss1, x1.grad]
    assert_same(*both(program))


def test_multilabel_margin_loss_gradcheck_and_errors():
    x = mt.tensor(X4, requires_grad=True)
    assert mt.autograd.gradcheck(lambda a: mt.nn.functional.multilabel_margin_loss(a, mt.tensor(Y4)), (x,))

    def program(M):
        F, x, y = M.nn.functional, M.tensor(X4), M.tensor(Y4)
        return [outcome(lambda: F.multilabel_margin_loss(x, y[:, :3])),
                outcome(lambda: F.multilabel_margin_loss(x, y.float())),
                outcome(lambda: F.multilabel_margin_loss(x[None], y[None])),
                outcome(lambda: F.multilabel_margin_loss(x, y + 1)),
                outcome(lambda: F.multilabel_margin_loss(x.half(), y)), repr(M.nn.MultiLabelMarginLoss())]
    assert_same(*both(program))


# ---- ctc_loss --------------------------------------------------------------------------------

LP = np.random.default_rng(0).standard_normal((7, 3, 5))
PADDED = ([[1, 2, 2, 3], [4, 1, 0, 0], [2, 2, 2, 0]], [7, 6, 5], [4, 2, 3])
CASES = {
    "padded": dict(targets=PADDED[0], lengths=PADDED[1:]),
    "concatenated, tensor lengths": dict(targets=[1, 2, 2, 3, 4, 1, 2, 2, 2], lengths=PADDED[1:], as_tensors=True),
    "impossible": dict(targets=[[1, 1, 1, 1], [4, 1, 0, 0], [2, 2, 2, 0]], lengths=([4, 6, 5], [4, 2, 3])),
    "zero_infinity": dict(targets=[[1, 1, 1, 1], [4, 1, 0, 0], [2, 2, 2, 0]], lengths=([4, 6, 5], [4, 2, 3]),
                          zero_infinity=True),
    "blank=4, float64": dict(targets=[[1, 2, 2, 3], [0, 1, 4, 4], [0, 0, 2, 0]], lengths=PADDED[1:], blank=4,
                             dtype="float64"),
    "unbatched": dict(targets=[1, 2, 3], lengths=((7,), (3,)), unbatched=True),
    "empty targets and input": dict(targets=[[1, 2], [1, 1], [0, 0]], lengths=([7, 6, 0], [2, 0, 0])),
}


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("case", list(CASES))
def test_ctc_loss(case, reduction):
    c = CASES[case]

    def program(M):
        x = M.tensor(LP, dtype=getattr(M, c.get("dtype", "float32")), requires_grad=True)
        lp = x.log_softmax(2)
        if c.get("unbatched"):
            lp = lp[:, 0]
        il, tl = c["lengths"]
        if c.get("as_tensors"):
            il, tl = M.tensor(il), M.tensor(tl)
        loss = M.nn.CTCLoss(blank=c.get("blank", 0), reduction=reduction,
                            zero_infinity=c.get("zero_infinity", False))(lp, M.tensor(c["targets"]), il, tl)
        loss.sum().backward()
        return [loss, x.grad]
    assert_same(*both(program))


def test_ctc_loss_gradient_through_log_softmax_and_errors():
    x = mt.tensor(LP[:5, :2], requires_grad=True)
    assert mt.autograd.gradcheck(
        lambda a: mt.nn.functional.ctc_loss(a.log_softmax(2), mt.tensor([[1, 2], [3, 3]]), [5, 4], [2, 2]), (x,))

    def program(M):
        F, lp, tg = M.nn.functional, M.tensor(LP, dtype=M.float32).log_softmax(2), M.tensor(PADDED[0])
        return [outcome(lambda: F.ctc_loss(lp, tg, [8, 6, 5], [4, 2, 3])),
                outcome(lambda: F.ctc_loss(lp, tg, [7, 6, 5], [5, 2, 3])),
                outcome(lambda: F.ctc_loss(lp, tg, [7, 6], [4, 2, 3])),
                outcome(lambda: F.ctc_loss(lp, tg, [7, 6, 5], [4, 2])),
                outcome(lambda: F.ctc_loss(lp, tg, [7, -1, 5], [4, 2, 3])),
                outcome(lambda: F.ctc_loss(lp, M.tensor([1, 2, 3]), [7, 6, 5], [4, 2, 3])),
                outcome(lambda: F.ctc_loss(lp.half(), tg, [7, 6, 5], [4, 2, 3])),
                F.ctc_loss(lp, tg.float(), [7, 6, 5], [4, 2, 3]),  # (float labels are taken as ints)
                repr(M.nn.CTCLoss(blank=2, zero_infinity=True))]
    assert_same(*both(program))


# ---- triplet_margin_with_distance_loss ---------------------------------------------------------

TRIPLET = [np.random.default_rng(k).standard_normal((3, 4)) for k in (1, 2, 3)]


@pytest.mark.parametrize("kw", [{}, {"swap": True, "reduction": "sum"}, {"cosine": True, "reduction": "none"},
                                {"margin": 0.5, "module": True}])
def test_triplet_margin_with_distance_loss(kw):
    def program(M):
        a, p, n = (M.tensor(t, requires_grad=True) for t in TRIPLET)
        opts = {k: v for k, v in kw.items() if k not in ("cosine", "module")}
        if kw.get("cosine"):
            opts["distance_function"] = lambda u, v: 1 - M.nn.functional.cosine_similarity(u, v)
        if kw.get("module"):
            crit = M.nn.TripletMarginWithDistanceLoss(distance_function=M.nn.PairwiseDistance(p=1.0), **opts)
            loss, extra = crit(a, p, n), [repr(crit), list(crit.state_dict())]
        else:
            loss, extra = M.nn.functional.triplet_margin_with_distance_loss(a, p, n, **opts), []
        loss.sum().backward()
        return [loss, a.grad, p.grad, n.grad, *extra]
    assert_same(*both(program))


def test_triplet_margin_with_distance_loss_errors():
    def program(M):
        a = M.ones(3, 4)
        F = M.nn.functional
        return [repr(M.nn.TripletMarginWithDistanceLoss()),
                outcome(lambda: M.nn.TripletMarginWithDistanceLoss(margin=0)),
                outcome(lambda: F.triplet_margin_with_distance_loss(a, a, a[0])),
                outcome(lambda: F.triplet_margin_with_distance_loss(a, a, a, margin=-1)),
                outcome(lambda: F.triplet_margin_with_distance_loss(a, a, a, reduction="x"))]
    assert_same(*both(program))


# ---- AdaptiveLogSoftmaxWithLoss -----------------------------------------------------------------

def test_adaptive_log_softmax_with_loss():
    def program(M):
        m = M.nn.AdaptiveLogSoftmaxWithLoss(16, 20, [4, 10], div_value=2.0)  # weights from the seed
        x = M.randn(6, 16, requires_grad=True)
        out = m(x, M.tensor([0, 5, 19, 3, 12, 9]))
        out.loss.backward()
        one = m(x[0], M.tensor(7))
        small = M.nn.AdaptiveLogSoftmaxWithLoss(4, 6, [2], head_bias=True)
        return [out.output, out.loss, type(out).__name__, out._fields, x.grad, m.tail[1][0].weight.grad,
                m.head.weight.grad, m.log_prob(x), m.predict(x), one.output, one.loss, list(m.state_dict()),
                repr(m), small.predict(M.randn(50, 4) * 3),
                outcome(lambda: m(x, M.tensor([0, 20, 1, 1, 1, 1]))),
                outcome(lambda: m(x, M.tensor([0, 1, 2]))), outcome(lambda: m(x, M.zeros(6, 1, dtype=M.int64))),
                outcome(lambda: M.nn.AdaptiveLogSoftmaxWithLoss(4, 6, [3, 2]))]
    assert_same(*both(program))


# ---- nn.utils.prune ---------------------------------------------------------------------------------

def _lenet(M):
    nn = M.nn

    class LeNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1, self.conv2 = nn.Conv2d(1, 6, 3), nn.Conv2d(6, 16, 3)
            self.fc1, self.fc2, self.fc3 = nn.Linear(16 * 5 * 5, 120), nn.Linear(120, 84), nn.Linear(84, 10)

        def forward(self, x):
            F = M.nn.functional
            x = F.max_pool2d(F.relu(self.conv2(F.max_pool2d(F.relu(self.conv1(x)), 2))), 2)
            return self.fc3(F.relu(self.fc2(F.relu(self.fc1(x.flatten(1))))))
    return LeNet()


def test_prune_tutorial():
    """The steps of PyTorch's pruning tutorial, on the same LeNet."""
    def program(M):
        prune = importlib.import_module(M.__name__ + ".nn.utils.prune")
        model = _lenet(M)
        module = model.conv1
        r = []
        prune.random_unstructured(module, name="weight", amount=0.3)
        r += [[n for n, _ in module.named_parameters()], [n for n, _ in module.named_buffers()],
              module.weight, [type(h).__name__ for h in module._forward_pre_hooks.values()]]
        prune.l1_unstructured(module, name="bias", amount=3)
        r += [module.bias, module.bias_mask]
        prune.ln_structured(module, name="weight", amount=0.5, n=2, dim=0)  # iterative: a PruningContainer
        hook = [h for h in module._forward_pre_hooks.values() if h._tensor_name == "weight"][0]
        r += [module.weight_mask, [type(h).__name__ for h in hook], list(model.state_dict())]
        prune.random_structured(model.conv2, "weight", amount=2, dim=1)
        r += [model.conv2.weight_mask]
        prune.remove(module, "weight")
        r += [[n for n, _ in module.named_parameters()], module.weight, prune.is_pruned(model),
              outcome(lambda: prune.remove(module, "weight"))]
        params = [(model.conv1, "weight"), (model.conv2, "weight"), (model.fc1, "weight"), (model.fc2, "weight"),
                  (model.fc3, "weight")]
        prune.global_unstructured(params, pruning_method=prune.L1Unstructured, amount=0.2)
        r += [float((m.weight == 0).sum()) for m, _ in params]
        out = model(M.randn(2, 1, 28, 28))
        out.sum().backward()
        r += [out, model.fc1.weight_orig.grad, model.conv2.weight_orig.grad]
        return r
    assert_same(*both(program))


def test_prune_hook_recomputes_and_custom_mask():
    def program(M):
        prune = importlib.import_module(M.__name__ + ".nn.utils.prune")
        m = M.nn.Linear(4, 3)
        prune.l1_unstructured(m, "weight", 0.5, importance_scores=M.arange(12.0).reshape(3, 4))
        with M.no_grad():
            m.weight_orig.add_(1.0)
        before = m.weight.clone()
        m(M.ones(1, 4))  # the forward pre-hook: weight = weight_orig * weight_mask again
        prune.custom_from_mask(m, "bias", M.tensor([0, 1, 0]))
        prune.identity(m, "bias")
        m2 = M.nn.Linear(2, 2)
        prune.identity(m2, "weight")
        return [before, m.weight, m.bias, m.bias_mask, m2.weight_mask, list(m.state_dict()),
                L1 := prune.L1Unstructured(amount=2).prune(M.tensor([[3.0, -1.0], [0.5, 2.0]])), type(L1).__name__,
                outcome(lambda: prune.l1_unstructured(M.nn.Linear(2, 2), "weight", amount=1.5)),
                outcome(lambda: prune.l1_unstructured(M.nn.Linear(2, 2), "weight", amount=5)),
                outcome(lambda: prune.random_structured(M.nn.Linear(2, 2), "bias", amount=1, dim=0)),
                outcome(lambda: prune.l1_unstructured(M.nn.Linear(2, 2), "weight", amount="a")),
                outcome(lambda: prune.global_unstructured([(m2, "weight")], prune.RandomStructured, amount=1)),
                prune.is_pruned(M.nn.Linear(2, 2))]
    assert_same(*both(program))


# ---- fusion, skip_init, invert_permutation, memory format ----------------------------------------

def _random_bn(M, bn):
    bn.running_mean.uniform_(-1, 1)
    bn.running_var.uniform_(0.5, 2)
    bn.weight.data.uniform_()
    bn.bias.data.uniform_()
    return bn.eval()


def test_fuse_conv_and_linear_bn():
    def program(M):
        nn, fusion = M.nn, M.nn.utils
        conv, bn = nn.Conv2d(3, 4, 3, bias=False).eval(), _random_bn(M, nn.BatchNorm2d(4))
        fused = fusion.fuse_conv_bn_eval(conv, bn)
        x = M.randn(2, 3, 5, 5)
        convt = nn.ConvTranspose2d(3, 4, 3).eval()
        fused_t = fusion.fuse_conv_bn_eval(convt, bn, transpose=True)
        lin, bn1 = nn.Linear(3, 4).eval(), _random_bn(M, nn.BatchNorm1d(4))
        fused_l = fusion.fuse_linear_bn_eval(lin, bn1)
        xl = M.randn(5, 3)
        w, b = fusion.fuse_conv_bn_weights(conv.weight, None, bn.running_mean, bn.running_var, bn.eps, None, None)
        return [fused(x), bn(conv(x)), fused.weight, fused.bias, type(fused.bias).__name__, fused.bias.requires_grad,
                repr(fused), fused_t(x), bn(convt(x)), fused_l(xl), bn1(lin(xl)), w, b,
                outcome(lambda: fusion.fuse_linear_bn_eval(lin, nn.BatchNorm1d(3).eval())),
                outcome(lambda: fusion.fuse_conv_bn_eval(conv, nn.BatchNorm2d(4)))]
    assert_same(*both(program), atol=1e-5)


def test_skip_init_invert_permutation_memory_format():
    def program(M):
        m = M.nn.utils.skip_init(M.nn.Linear, 5, 2)
        after = M.rand(3)  # skip_init drew nothing from the random stream
        seq = M.nn.Sequential(M.nn.Conv2d(2, 3, 3), M.nn.Sequential(M.nn.ConvTranspose2d(3, 2, 2)), M.nn.Linear(2, 2))
        M.nn.utils.convert_conv2d_weight_memory_format(seq, M.channels_last)
        perm = M.tensor([2, 0, 3, 1])
        return [tuple(m.weight.shape), repr(m), after, seq[0].weight.stride(), seq[1][0].weight.stride(),
                seq[2].weight.stride(), M.nn.utils.rnn.invert_permutation(perm),
                M.nn.utils.rnn.invert_permutation(None), outcome(lambda: M.nn.utils.skip_init(M.nn.ReLU)),
                outcome(lambda: M.nn.utils.skip_init(int))]
    assert_same(*both(program))


# ---- grid_sample(mode='bicubic') ------------------------------------------------------------------

IMG = np.random.default_rng(0).standard_normal((2, 3, 5, 6))
GRID = np.random.default_rng(1).uniform(-1.3, 1.3, (2, 4, 3, 2))


@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align_corners", [False, True])
def test_grid_sample_bicubic(padding_mode, align_corners):
    def program(M):
        x = M.tensor(IMG, dtype=M.float32, requires_grad=True)
        g = M.tensor(GRID, dtype=M.float32, requires_grad=True)
        y = M.nn.functional.grid_sample(x, g, mode="bicubic", padding_mode=padding_mode, align_corners=align_corners)
        (y * M.arange(y.numel(), dtype=M.float32).reshape(y.shape).remainder(7)).sum().backward()
        return [y, x.grad, g.grad]
    assert_same(*both(program), atol=1e-4)
    x = mt.tensor(IMG[:1, :1], requires_grad=True)
    g = mt.tensor(GRID[:1], requires_grad=True)
    assert mt.autograd.gradcheck(lambda a, b: mt.nn.functional.grid_sample(
        a, b, mode="bicubic", padding_mode=padding_mode, align_corners=align_corners), (x, g))


def test_grid_sample_bicubic_5d_refused():
    def program(M):
        return [outcome(lambda: M.nn.functional.grid_sample(M.zeros(1, 1, 2, 2, 2), M.zeros(1, 1, 1, 1, 3),
                                                            mode="bicubic", align_corners=False))]
    assert_same(*both(program))


# ---- fractional max pooling ---------------------------------------------------------------------

FRACTIONAL = [(2, (2, 3, 9, 8), (2, 3), dict(output_size=(4, 5))), (2, (3, 11, 10), 2, dict(output_size=(6, 7))),
              (2, (2, 2, 50, 32), 3, dict(output_ratio=(0.5, 0.5))),
              (3, (2, 3, 9, 8, 7), 2, dict(output_size=(4, 3, 5))), (3, (4, 11, 10, 9), (2, 3, 2), dict(output_ratio=0.5))]


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
@pytest.mark.parametrize("nd,shape,kernel,size", FRACTIONAL)
def test_fractional_max_pool_draws_torchs_windows(nd, shape, kernel, size, dtype):
    """The same seed gives the same windows (the samples come from torch.rand, and the window
    starts are computed in the input's dtype, as PyTorch's kernel does), maxima, indices and
    gradient."""
    def program(M):
        x = M.randn(*shape).to(getattr(M, dtype)).requires_grad_()
        out, idx = getattr(M.nn.functional, f"fractional_max_pool{nd}d")(x, kernel, return_indices=True, **size)
        (out.float() * M.arange(out.numel()).reshape(out.shape)).sum().backward()
        return [out, idx, x.grad]
    assert_same(*both(program), atol=1e-3 if dtype == "float16" else 1e-5)


def test_fractional_max_pool_nan_ties_samples_and_modules():
    def program(M):
        F = M.nn.functional
        x = M.tensor([[[[1., float("nan"), 3., 3.], [float("nan"), 2., 3., 5.], [-float("inf"), -float("inf"), 0., 0.],
                        [1., 1., 1., 1.]]]], requires_grad=True)
        out, idx = F.fractional_max_pool2d(x, 2, output_size=3, return_indices=True,
                                           _random_samples=M.tensor([[[0.3, 0.7]]]))
        out.sum().backward()
        vol = M.arange(512.).reshape(1, 1, 8, 8, 8)
        r = [out, idx, x.grad, F.fractional_max_pool3d_with_indices(vol, 2, (5, 3, 4), _random_samples=M.tensor(
            [[[0.99, 0.01, 0.5]]]))[1], F.fractional_max_pool2d(M.randn(1, 1, 5, 5), 0, output_size=3)]
        m2 = M.nn.FractionalMaxPool2d(3, output_ratio=(0.5, 0.5), return_indices=True)
        m3 = M.nn.FractionalMaxPool3d(2, output_size=3, _random_samples=M.rand(1, 2, 3))
        r += [repr(m2), m2.kernel_size, m2.output_ratio, list(m3.state_dict()), m2(M.randn(2, 2, 9, 9))[1],
              m3(M.randn(2, 5, 6, 5)), isinstance(m3, M.nn.FractionalMaxPool2d)]
        with M.autocast("cpu", dtype=M.float16):
            r.append(F.fractional_max_pool2d(M.randn(1, 2, 8, 8, dtype=M.float16), 2, output_size=4))
        out, idx = F.fractional_max_pool2d(M.randn(1, 1, 6, 6, requires_grad=True), 2, 3, return_indices=True)
        idx.add_(0)  # (backward reads the indices)
        return r + [outcome(lambda: out.sum().backward())]
    assert_same(*both(program))


FRACTIONAL_ERRORS = [
    lambda F, M: F.fractional_max_pool2d(M.randn(1, 1, 5, 5), 2),
    lambda F, M: F.fractional_max_pool2d(M.randn(1, 1, 5, 5), 2, output_size=5),
    lambda F, M: F.fractional_max_pool2d(M.randn(1, 1, 5, 5), (2, 6), output_size=(4, 1)),
    lambda F, M: F.fractional_max_pool2d(M.randn(5, 5), 2, output_size=3, _random_samples=M.rand(1, 1, 2)),
    lambda F, M: F.fractional_max_pool2d(M.randn(1, 2, 5, 5), 2, output_size=3,
                                         _random_samples=M.rand(1, 2, 2, dtype=M.float64)),
    lambda F, M: F.fractional_max_pool2d(M.randn(2, 2, 5, 5), 2, output_size=3, _random_samples=M.rand(1, 2, 2)),
    lambda F, M: F.fractional_max_pool2d(M.randn(2, 2, 5, 5), 2, output_size=3, _random_samples=M.rand(2, 3, 2)),
    lambda F, M: F.fractional_max_pool2d(M.randn(2, 2, 5, 5), 2, output_size=3, _random_samples=M.rand(2, 2, 3)),
    lambda F, M: F.fractional_max_pool2d(M.randn(2, 2, 5, 5), 2, output_ratio=(0.5, 0.5, 0.5)),
    lambda F, M: F.fractional_max_pool2d(M.randn(2, 2, 5, 5), (2, 2, 2), output_size=3),
    lambda F, M: F.fractional_max_pool2d(M.randn(2, 2, 5, 5), 2.0, output_size=3),
    lambda F, M: F.fractional_max_pool2d(M.randn(2, 0, 5, 5), 2, output_size=3),
    lambda F, M: F.fractional_max_pool2d(M.randn(2, 2, 5, 5), 2, output_size=-1),
    lambda F, M: F.fractional_max_pool2d(M.randn(1, 1, 5, 5).int(), 2, output_size=3),
    lambda F, M: F.fractional_max_pool2d(M.randn(1, 1, 5, 5).int(), 2, output_size=3,
                                         _random_samples=M.rand(1, 1, 2).int()),
    lambda F, M: F.fractional_max_pool3d(M.randn(1, 1, 5, 5, 5), (2, 2, 2), output_size=(3, 4, 4)),
    lambda F, M: F.fractional_max_pool3d(M.randn(1, 1, 5, 5, 5), 2, output_size=(3, 3)),
    lambda F, M: F.fractional_max_pool3d(M.randn(1, 1, 5, 0, 5), 2, output_size=3),
    lambda F, M: F.fractional_max_pool3d(M.randn(5, 5), 2, output_size=3),
    lambda F, M: M.nn.FractionalMaxPool2d(2),
    lambda F, M: M.nn.FractionalMaxPool2d(2, output_size=3, output_ratio=0.5),
    lambda F, M: M.nn.FractionalMaxPool2d(2, output_ratio=(0.5, 0)),
    lambda F, M: M.nn.FractionalMaxPool3d((1, 0, 1), output_size=3),
]


def test_fractional_max_pool_errors():
    assert_same(*both(lambda M: [outcome(lambda: f(M.nn.functional, M)) for f in FRACTIONAL_ERRORS]))


# ---- linear_cross_entropy ------------------------------------------------------------------------

def test_linear_cross_entropy_loss_docstring_example():
    def program(M):
        M.manual_seed(283)
        loss = M.nn.LinearCrossEntropyLoss(5, 10, out_features=(4, 3))
        x = M.randn(2, 5, requires_grad=True)
        out = loss(x, M.randint(0, 10, (2, 4, 3)))
        out.backward()
        x2 = M.randn(2, 5, requires_grad=True)
        out2 = loss(x2, M.randn(2, 10, 4, 3).softmax(dim=1))
        out2.backward()
        return [repr(loss), list(loss.state_dict()), out, x.grad, out2, x2.grad, loss.linear.weight.grad]
    assert_same(*both(program))


@pytest.mark.parametrize("kw", [dict(), dict(reduction="none"), dict(reduction="sum", label_smoothing=0.2),
                                dict(ignore_index=2), dict(bias=True), dict(probabilities=True)])
def test_linear_cross_entropy(kw):
    def program(M):
        kw_ = dict(kw)
        x, w = M.randn(4, 5, requires_grad=True), M.randn(7, 5, requires_grad=True)
        t = M.randn(4, 7).softmax(1) if kw_.pop("probabilities", False) else M.tensor([2, 0, 6, 2])
        b = M.randn(7, requires_grad=True) if kw_.pop("bias", False) else None
        loss = M.nn.functional.linear_cross_entropy(x, w, t, linear_bias=b, weight=M.rand(7), **kw_)
        loss.sum().backward()
        return [loss, x.grad, w.grad, None if b is None else b.grad,
                M.nn.functional.linear_cross_entropy(x[0], w, t[0], **kw_)]
    assert_same(*both(program))


def test_linear_cross_entropy_options_and_errors():
    def program(M):
        F, nn = M.nn.functional, M.nn
        x, w, t = M.randn(4, 5), M.randn(7, 5), M.tensor([2, 0, 6, 2])
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            r = [F.linear_cross_entropy(x, w, t, options=nn.LinearCrossEntropyOptions()),
                 F.linear_cross_entropy(x, w, t, options=nn.LinearCrossEntropyOptions(), label_smoothing=0.1)]
        r += [tuple(str(c.message) for c in caught), repr(nn.LinearCrossEntropyOptions(batch_chunk_size=3)),
              repr(nn.LinearCrossEntropyLoss(5, 10, bias=True, options=nn.LinearCrossEntropyOptions()))]
        errors = [lambda: nn.LinearCrossEntropyLoss(5, 10, weight=M.ones(3)),
                  lambda: nn.LinearCrossEntropyLoss(5, 10, label_smoothing=2),
                  lambda: F.linear_cross_entropy(M.randn(2, 2, 5), w, t), lambda: F.linear_cross_entropy(x, x[0], t),
                  lambda: F.linear_cross_entropy(x, M.randn(7, 4), t),
                  lambda: F.linear_cross_entropy(x, w, t, linear_bias=M.randn(3)),
                  lambda: F.linear_cross_entropy(x[0], M.randn(7, 3, 5), t),
                  lambda: F.linear_cross_entropy(x, w, M.randn(4, 7).softmax(1), ignore_index=3),
                  lambda: nn.LinearCrossEntropyOptions(acc_policy="x"),
                  lambda: nn.LinearCrossEntropyOptions(batch_chunk_size=0),
                  lambda: nn.LinearCrossEntropyOptions(chunking_method="foo")]
        return r + [outcome(f) for f in errors]
    assert_same(*both(program))


# ---- SyncBatchNorm, DataParallel and torch.distributed in one process ----------------------------

def test_sync_batch_norm_in_one_process():
    def program(M):
        nn = M.nn
        m = nn.SyncBatchNorm(3)
        x = M.randn(4, 3, 5, requires_grad=True)
        y = m(x)
        y.pow(2).sum().backward()
        r = [repr(m), m.process_group, y, x.grad, m.running_mean, m.num_batches_tracked]
        m.eval()
        r += [m(x), outcome(lambda: m(M.randn(3))), outcome(lambda: m(M.randn(4, 0, 2))), m(M.randn(4, 3, 2, 2, 2))]
        net = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.Sequential(nn.BatchNorm1d(5, momentum=None)),
                            nn.InstanceNorm2d(3))
        net.eval()
        s = nn.SyncBatchNorm.convert_sync_batchnorm(net)
        r += [repr(s), s[1].weight is net[1].weight, s[1].running_var is net[1].running_var, s[1].training,
              list(s.state_dict()), isinstance(s[1], nn.modules.batchnorm._BatchNorm)]
        m = nn.SyncBatchNorm(2, momentum=None)
        m(M.randn(4, 2))
        m(M.randn(4, 2))
        return r + [m.running_mean]
    assert_same(*both(program))


def test_data_parallel_and_distributed_without_a_process_group():
    def program(M):
        dist = importlib.import_module(M.__name__ + ".distributed")
        m = M.nn.Linear(3, 2)
        dp = M.nn.DataParallel(m)
        x = M.randn(4, 3)
        return [repr(dp), dp.device_ids, dp.module is m, list(dp.state_dict()), dp(x), M.equal(dp(x), m(x)),
                M.nn.parallel.DataParallel is M.nn.DataParallel, dist.is_available(), dist.is_initialized(),
                outcome(dist.get_rank), outcome(lambda: dist.all_reduce(x)), outcome(dist.new_group),
                outcome(lambda: M.nn.parallel.DistributedDataParallel(m))]
    assert_same(*both(program))


# ---- pad_sequence / unpad_sequence ----------------------------------------------------------------

def test_unpad_sequence_transposes_the_padded_batch_in_place():
    def program(M):
        rnn = importlib.import_module(M.__name__ + ".nn.utils.rnn")
        a = M.arange(6.).reshape(3, 2).requires_grad_()
        seqs = [a, a[:2] * 2, a[:1] + 1]
        padded = rnn.pad_sequence(seqs)
        out = rnn.unpad_sequence(padded, M.tensor([3, 2, 1]))
        sum(o.sum() for o in out).backward()
        packed = rnn.pack_sequence([M.tensor([1, 2, 3]), M.tensor([4, 5]), M.tensor([6])])
        return [tuple(padded.shape), *out, a.grad, out[1]._base is None, *rnn.unpack_sequence(packed),
                outcome(lambda: rnn.unpad_sequence(padded, [3, 2, 1])), outcome(lambda: rnn.pad_sequence(3)),
                rnn.pad_sequence(M.ones(2, 3), batch_first=True, padding_side="left")]
    assert_same(*both(program))
