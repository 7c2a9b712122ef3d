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
