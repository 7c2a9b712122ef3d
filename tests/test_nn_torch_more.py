"""Differential tests, part two: the breadth of nn / nn.functional / nn.utils / optim /
lr_scheduler / utils.data against PyTorch itself.

Functions: same inputs -> same values, gradients of every input, and grad_fn names. Modules:
PyTorch's weights copied in -> same outputs and gradients of inputs and parameters, same
parameter names, state_dict keys and repr, in train and eval mode. Optimizers and schedulers:
the same trajectories and learning rates, step after step. Skipped when PyTorch is absent.
"""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="PyTorch not installed: differential tests skipped")

import torch.nn.functional as TF  # noqa: E402

import minitorch as mt  # noqa: E402
import minitorch.nn.functional as MF  # noqa: E402

pytestmark = pytest.mark.torch

TOL = {np.float32: 2e-5, np.float64: 1e-10}


@pytest.fixture(autouse=True)
def _seed():
    torch.manual_seed(0)
    mt.manual_seed(0)


def R(*shape, seed=0, dtype=np.float32, scale=1.0):
    return (np.random.default_rng(seed).standard_normal(shape) * scale).astype(dtype)


def U(*shape, seed=0, dtype=np.float32, lo=0.0, hi=1.0):
    return np.random.default_rng(seed).uniform(lo, hi, shape).astype(dtype)


def pair(a, requires_grad=True):
    a = np.ascontiguousarray(a)
    rg = requires_grad and a.dtype.kind == "f"
    return mt.tensor(a, requires_grad=rg), torch.tensor(a, requires_grad=rg)


def close(m, t, tol=2e-5, what=""):
    assert (m is None) == (t is None), what
    if t is None:
        return
    m, t = m.detach().numpy(), t.detach().numpy()
    assert m.shape == t.shape and m.dtype == t.dtype, (what, m.shape, t.shape, m.dtype, t.dtype)
    np.testing.assert_allclose(m, t, rtol=tol, atol=tol, err_msg=what)


def _outs(o):
    return list(o) if isinstance(o, (tuple, list)) else [o]


def check(mfn, tfn, *arrays, names=True, tol=None, grad_inputs=True):
    """Call both functions on the same inputs; compare outputs, the gradients of every input
    for a random upstream gradient, and (names=True) the grad_fn names."""
    tol = tol or TOL[np.float64 if any(a.dtype == np.float64 for a in arrays) else np.float32]
    ms, ts = zip(*(pair(a, grad_inputs) for a in arrays))
    mo, to = _outs(mfn(*ms)), _outs(tfn(*ts))
    assert len(mo) == len(to)
    for i, (a, b) in enumerate(zip(mo, to)):
        close(a, b, tol, f"output {i}")
        if names and b.grad_fn is not None:
            assert type(a.grad_fn).__name__ == type(b.grad_fn).__name__, (a.grad_fn, b.grad_fn)
    diff = [(a, b) for a, b in zip(mo, to) if b.requires_grad]
    if not diff:
        return
    for k, (a, b) in enumerate(diff):
        g = np.asarray(np.random.default_rng(99 + k).standard_normal(b.shape)).astype(b.detach().numpy().dtype)
        a.backward(mt.tensor(g), retain_graph=True)
        b.backward(torch.tensor(g), retain_graph=True)
    for i, (m, t) in enumerate(zip(ms, ts)):
        if t.requires_grad:
            close(m.grad, t.grad, tol * 5, f"grad of input {i}")


# ---- convolution and pooling -------------------------------------------------------------------------

@pytest.mark.parametrize("kw", [dict(groups=2), dict(groups=2, stride=2, padding=1), dict(groups=4, dilation=2),
                                dict(groups=4, padding="same")])
def test_conv2d_groups(kw):
    check(lambda x, w, b: MF.conv2d(x, w, b, **kw), lambda x, w, b: TF.conv2d(x, w, b, **kw),
          R(2, 4, 7, 6), R(4, 4 // kw["groups"], 3, 3, seed=1), R(4, seed=2))


def test_conv2d_same_padding_with_an_even_kernel():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(lambda x, w: MF.conv2d(x, w, padding="same"), lambda x, w: TF.conv2d(x, w, padding="same"),
              R(2, 3, 7, 6), R(4, 3, 2, 4, seed=1))


@pytest.mark.parametrize("kw", [dict(), dict(stride=2, padding=1), dict(groups=2, dilation=2), dict(padding="same")])
def test_conv1d(kw):
    check(lambda x, w, b: MF.conv1d(x, w, b, **kw), lambda x, w, b: TF.conv1d(x, w, b, **kw),
          R(2, 4, 9), R(6, 4 // kw.get("groups", 1), 3, seed=1), R(6, seed=2))
    check(lambda x, w: MF.conv1d(x, w, **kw), lambda x, w: TF.conv1d(x, w, **kw),
          R(4, 9), R(6, 4 // kw.get("groups", 1), 3, seed=1))


def test_conv_float64():
    check(lambda x, w: MF.conv2d(x, w, groups=2), lambda x, w: TF.conv2d(x, w, groups=2),
          R(2, 4, 6, 5, dtype=np.float64), R(4, 2, 3, 3, seed=1, dtype=np.float64))


TRANSPOSED = [dict(), dict(stride=2, padding=1, output_padding=1), dict(groups=2, dilation=2),
              dict(stride=(2, 3), output_padding=(1, 2)), dict(stride=2, dilation=3, output_padding=2)]


@pytest.mark.parametrize("kw", TRANSPOSED)
def test_conv_transpose2d(kw):
    check(lambda x, w, b: MF.conv_transpose2d(x, w, b, **kw), lambda x, w, b: TF.conv_transpose2d(x, w, b, **kw),
          R(2, 4, 5, 4), R(4, 6 // kw.get("groups", 1), 3, 3, seed=1), R(6, seed=2))


@pytest.mark.parametrize("kw", [dict(stride=(2, 1, 1), padding=(0, 2, 1)), dict(groups=2, output_padding=1, stride=2)])
def test_conv_transpose3d_a_few_images_at_a_time(kw, monkeypatch):
    """A batch whose columns are too large for memory at once goes through in chunks of images."""
    monkeypatch.setattr(mt.nn._conv, "_COLUMNS_AT_ONCE", 9000)  # (two images, then the last one)
    check(lambda x, w, b: MF.conv_transpose3d(x, w, b, **kw), lambda x, w, b: TF.conv_transpose3d(x, w, b, **kw),
          R(5, 4, 3, 4, 5), R(4, 6 // kw.get("groups", 1), 3, 2, 2, seed=1), R(6, seed=2))


@pytest.mark.parametrize("kw", TRANSPOSED[:3])
def test_conv_transpose1d(kw):
    check(lambda x, w, b: MF.conv_transpose1d(x, w, b, **kw), lambda x, w, b: TF.conv_transpose1d(x, w, b, **kw),
          R(2, 4, 5), R(4, 6 // kw.get("groups", 1), 3, seed=1), R(6, seed=2))


POOLS = [dict(kernel_size=2, ceil_mode=True), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True),
         dict(kernel_size=2, stride=1, dilation=2, ceil_mode=True), dict(kernel_size=3, stride=2)]


@pytest.mark.parametrize("kw", POOLS)
def test_max_pool_ceil_mode(kw):
    check(lambda x: MF.max_pool2d(x, **kw), lambda x: TF.max_pool2d(x, **kw), R(2, 3, 7, 6))
    check(lambda x: MF.max_pool2d(x, return_indices=True, **kw), lambda x: TF.max_pool2d(x, return_indices=True, **kw),
          R(2, 3, 7, 6))
    check(lambda x: MF.max_pool1d(x, **kw), lambda x: TF.max_pool1d(x, **kw), R(2, 3, 7))


@pytest.mark.parametrize("kernel", [2, (2, 3), 1])
def test_max_pool_tiled_windows(kernel):
    """kernel = stride, no padding (nn.MaxPool2d(2)): ties, -inf and odd sizes as PyTorch has them."""
    x = np.round(R(2, 3, 7, 9))  # many ties in each window
    x[0, 0, :2, :3] = -np.inf
    check(lambda x: MF.max_pool2d(x, kernel), lambda x: TF.max_pool2d(x, kernel), x)
    check(lambda x: MF.max_pool2d(x, kernel), lambda x: TF.max_pool2d(x, kernel), R(2, 3, 8, 6, dtype=np.float64))
    check(lambda x: MF.max_pool2d(x, kernel, return_indices=True),
          lambda x: TF.max_pool2d(x, kernel, return_indices=True), x)


AVG = [dict(kernel_size=2, ceil_mode=True), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True),
       dict(kernel_size=3, stride=2, padding=1, count_include_pad=False),
       dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, count_include_pad=False),
       dict(kernel_size=(3, 2), stride=(2, 1), padding=(1, 1)), dict(kernel_size=3, padding=1, divisor_override=2)]


@pytest.mark.parametrize("kw", AVG)
def test_avg_pool(kw):
    check(lambda x: MF.avg_pool2d(x, **kw), lambda x: TF.avg_pool2d(x, **kw), R(2, 3, 7, 6))
    if isinstance(kw["kernel_size"], int) and "divisor_override" not in kw:
        check(lambda x: MF.avg_pool1d(x, **kw), lambda x: TF.avg_pool1d(x, **kw), R(2, 3, 7))


@pytest.mark.parametrize("size", [1, 2, 3, (2, 4), (None, 3), (5, 7)])
def test_adaptive_pool2d(size):
    check(lambda x: MF.adaptive_avg_pool2d(x, size), lambda x: TF.adaptive_avg_pool2d(x, size), R(2, 3, 7, 6))
    check(lambda x: MF.adaptive_max_pool2d(x, size, True), lambda x: TF.adaptive_max_pool2d(x, size, True),
          R(2, 3, 7, 6))
    check(lambda x: MF.adaptive_avg_pool2d(x, size), lambda x: TF.adaptive_avg_pool2d(x, size), R(3, 7, 6))


@pytest.mark.parametrize("size", [1, 3, 5])
def test_adaptive_pool1d(size):
    check(lambda x: MF.adaptive_avg_pool1d(x, size), lambda x: TF.adaptive_avg_pool1d(x, size), R(2, 3, 7))
    check(lambda x: MF.adaptive_max_pool1d(x, size), lambda x: TF.adaptive_max_pool1d(x, size), R(2, 3, 7))


def test_lp_pool():
    check(lambda x: MF.lp_pool2d(x, 2, 2), lambda x: TF.lp_pool2d(x, 2, 2), R(2, 3, 6, 6))
    check(lambda x: MF.lp_pool1d(x, 3, 2), lambda x: TF.lp_pool1d(x, 3, 2), U(2, 3, 6, lo=0.1), names=False)


PADS = [((2, 3, 5), (1, 2)), ((2, 3, 5, 6), (1, 2, 2, 1)), ((1, 2, 3, 4, 4), (1, 1, 2, 1, 1, 0)), ((3, 5), (2, 1)),
        ((2, 3, 5), (1, 1, 1, 1)), ((2, 3, 5), (-1, 2)), ((2, 3, 5, 4), (2, -1, 0, 3)), ((2, 1, 6), (5, 0)),
        ((1, 2, 3, 4, 5), (0, 4, 3, 0, 2, 2))]


@pytest.mark.parametrize("shape,amounts", PADS)
@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
def test_pad(shape, amounts, mode):
    if mode != "constant" and len(shape) - len(amounts) // 2 not in (1, 2):
        pytest.skip("PyTorch pads only the last 1-3 dims of a batch in this mode")
    check(lambda x: MF.pad(x, amounts, mode=mode), lambda x: TF.pad(x, amounts, mode=mode), R(*shape))


def test_pad_value_and_errors():
    check(lambda x: MF.pad(x, (1, 2, 0, 3, 1, 0), value=2.5), lambda x: TF.pad(x, (1, 2, 0, 3, 1, 0), value=2.5),
          R(2, 3, 4))
    for args in [((1, 1, 3),), ((1, 1, 1, 1, 1, 1, 1, 1),), ((3, 3), "reflect"), ((4, 4), "circular"),
                 ((1, 1, 1, 1), "reflect")]:
        with pytest.raises((RuntimeError, NotImplementedError)) as em:
            MF.pad(mt.zeros(1, 3), *args)
        with pytest.raises((RuntimeError, NotImplementedError)) as et:
            TF.pad(torch.zeros(1, 3), *args)
        assert type(em.value) is type(et.value) and str(em.value) == str(et.value)


def test_unfold_fold():
    check(lambda x: MF.unfold(x, 3, padding=1, stride=2), lambda x: TF.unfold(x, 3, padding=1, stride=2),
          R(2, 3, 7, 6))
    check(lambda x: MF.unfold(x, (2, 3), dilation=2), lambda x: TF.unfold(x, (2, 3), dilation=2), R(3, 7, 6))
    check(lambda x: MF.fold(x, (5, 6), 2), lambda x: TF.fold(x, (5, 6), 2), R(2, 12, 20))


def test_conv_and_pool_errors_match():
    cases = [
        lambda F, T: F.conv2d(T.randn(1, 2, 5, 5), T.randn(4, 3, 2, 2), groups=2),
        lambda F, T: F.conv2d(T.randn(1, 2, 5, 5), T.randn(3, 1, 2, 2), groups=2),
        lambda F, T: F.conv2d(T.randn(1, 2, 5, 5), T.randn(3, 2, 2, 2), groups=0),
        lambda F, T: F.conv2d(T.randn(1, 2, 5, 5), T.randn(3, 2, 2, 2), stride=0),
        lambda F, T: F.conv1d(T.randn(5), T.randn(1, 1, 2)),
        lambda F, T: F.conv_transpose2d(T.randn(1, 2, 3, 3), T.randn(3, 2, 2, 2)),
        lambda F, T: F.max_pool2d(T.randn(1, 2, 3, 3), 4),
        lambda F, T: F.avg_pool2d(T.randn(1, 2, 3, 3), 3, padding=2),
        lambda F, T: F.conv2d(T.randn(1, 2, 5, 5), T.randn(4, 2, 2, 2), padding="same", stride=2),
    ]
    for case in cases:
        with pytest.raises(Exception) as et:
            case(TF, torch)
        with pytest.raises(Exception) as em:
            case(MF, mt)
        assert type(em.value) is type(et.value)
        assert str(em.value) == str(et.value), (str(em.value), str(et.value))


# ---- losses ---------------------------------------------------------------------------------------

REDUCTIONS = ["mean", "sum", "none"]
# composed in PyTorch too, but with core ops whose node names differ (ClampMin, DivBackward1, ...)
LOSS_NAMES_DIFFER = {"multi_margin_loss", "margin_ranking_loss", "triplet_margin_loss", "cross_entropy_probs"}


def _loss_cases():
    x, y = R(4, 5), R(4, 5, seed=1)
    p, q = U(4, 5, seed=2, lo=0.01, hi=0.99), U(4, 5, seed=3)
    sign = np.sign(R(4, 5, seed=4))
    w5, pw5 = U(5, seed=5), U(5, seed=6) * 3
    return [
        ("mse_loss", {}, (x, y)), ("mse_loss_broadcast", {}, (x, R(5, seed=7))),
        ("mse_loss_weight", dict(weight=U(4, 5, seed=8)), (x, y)), ("l1_loss", {}, (x, y)),
        ("smooth_l1_loss", dict(beta=0.5), (2 * x, y)), ("smooth_l1_loss", dict(beta=0.0), (2 * x, y)),
        ("smooth_l1_loss", {}, (2 * x, y)), ("huber_loss", dict(delta=0.3), (2 * x, y)), ("huber_loss", {}, (2 * x, y)),
        ("soft_margin_loss", dict(target=sign), (x,)),
        ("binary_cross_entropy", {}, (p, q)), ("binary_cross_entropy", dict(weight=w5), (p, q)),
        ("binary_cross_entropy_with_logits", {}, (3 * x, q)),
        ("binary_cross_entropy_with_logits", dict(weight=w5, pos_weight=pw5), (3 * x, q)),
        ("kl_div", {}, (np.log(p), q)), ("kl_div", dict(log_target=True), (np.log(p), np.log(q + 0.01))),
        ("poisson_nll_loss", {}, (x, 3 * q)), ("poisson_nll_loss", dict(log_input=False, full=True), (p + 0.1, 3 * q)),
        ("gaussian_nll_loss", {}, (x, y, p + 0.1)), ("margin_ranking_loss", dict(margin=0.3), (x[0], y[0], sign[0])),
        ("hinge_embedding_loss", dict(target=sign), (x,)),
        ("multilabel_soft_margin_loss", dict(target=(q > 0.5).astype(np.float32)), (x,)),
        ("cosine_embedding_loss", dict(target=np.array([1, -1, 1, -1]), margin=0.1), (x, y)),
        ("triplet_margin_loss", dict(swap=True), (x, y, R(4, 5, seed=9))),
        ("multi_margin_loss", dict(target=np.array([1, 0, 4, 2]), weight=w5), (x,)),
        ("multi_margin_loss", dict(target=np.array([1, 0, 4, 2]), p=2), (x,)),
    ]


def _as(lib, v):
    return lib.tensor(v) if isinstance(v, np.ndarray) else v


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("case", range(len(_loss_cases())))
def test_losses(case, reduction):
    name, kw, arrays = _loss_cases()[case]
    fname = name.replace("_broadcast", "").replace("_weight", "") if name.startswith("mse") else name

    def call(F, lib):
        opts = {k: _as(lib, v) for k, v in kw.items()}
        target = opts.pop("target", None)
        if target is not None:
            return lambda *xs: getattr(F, fname)(*xs, target, reduction=reduction, **opts)
        return lambda *xs: getattr(F, fname)(*xs, reduction=reduction, **opts)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(call(MF, mt), call(TF, torch), *arrays, names=name not in LOSS_NAMES_DIFFER)


CLASS_SHAPES = [((4, 5), (4,)), ((5,), ()), ((2, 5, 3), (2, 3)), ((2, 5, 3, 2), (2, 3, 2)),
                ((2, 5, 3, 2, 2), (2, 3, 2, 2))]


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("shape,tshape", CLASS_SHAPES)
def test_nll_and_cross_entropy_any_shape(shape, tshape, reduction):
    rng = np.random.default_rng(0)
    t = np.where(rng.random(tshape) < 0.2, -100, rng.integers(0, 5, tshape))
    w = U(5, seed=3)
    for kw in (dict(), dict(weight=w), dict(label_smoothing=0.1), dict(weight=w, label_smoothing=0.2)):
        def call(F, lib, fn):
            opts = {k: _as(lib, v) for k, v in kw.items()}
            return lambda x: getattr(F, fn)(x, lib.tensor(t), reduction=reduction, **opts)
        check(call(MF, mt, "cross_entropy"), call(TF, torch, "cross_entropy"), R(*shape))
        if "label_smoothing" not in kw:
            check(call(MF, mt, "nll_loss"), call(TF, torch, "nll_loss"), R(*shape))


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("smoothing", [0.0, 0.2])
def test_every_target_ignored_gives_zero_gradient(reduction, smoothing):
    t = np.full(4, -100)
    check(lambda x: MF.cross_entropy(x, mt.tensor(t), reduction=reduction, label_smoothing=smoothing),
          lambda x: TF.cross_entropy(x, torch.tensor(t), reduction=reduction, label_smoothing=smoothing), R(4, 5))
    check(lambda x: MF.nll_loss(x, mt.tensor(t), reduction=reduction),
          lambda x: TF.nll_loss(x, torch.tensor(t), reduction=reduction), R(4, 5))


def test_zero_total_weight_gives_nan_like_pytorch():
    t, w = np.array([1, -100, 2]), np.array([1.0, 0.0, 0.0, 1.0], dtype=np.float32)
    check(lambda x: MF.cross_entropy(x, mt.tensor(t), mt.tensor(w)),
          lambda x: TF.cross_entropy(x, torch.tensor(t), torch.tensor(w)), R(3, 4))


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_cross_entropy_probability_targets(reduction):
    for ls in (0.0, 0.1):
        check(lambda x, p: MF.cross_entropy(x, p, reduction=reduction, label_smoothing=ls),
              lambda x, p: TF.cross_entropy(x, p, reduction=reduction, label_smoothing=ls), R(4, 5), U(4, 5),
              names=False)


def test_loss_float64_and_messages():
    check(lambda x, y: MF.huber_loss(x, y), lambda x, y: TF.huber_loss(x, y), R(3, 4, dtype=np.float64),
          R(3, 4, seed=1, dtype=np.float64))
    for case in (lambda F, T: F.binary_cross_entropy(T.tensor([1.5]), T.tensor([1.0])),
                 lambda F, T: F.soft_margin_loss(T.ones(2), T.ones(2, requires_grad=True)),
                 lambda F, T: F.nll_loss(T.zeros(2, 3), T.tensor([0, 1]), weight=T.ones(2)),
                 lambda F, T: F.huber_loss(T.zeros(2), T.zeros(2), delta=0)):
        with pytest.raises(Exception) as et:
            case(TF, torch)
        with pytest.raises(Exception) as em:
            case(MF, mt)
        assert type(em.value) is type(et.value)
        assert str(em.value).startswith(str(et.value)), (str(em.value), str(et.value))


# ---- normalisation, distances, activations --------------------------------------------------------------

@pytest.mark.parametrize("shape", [(4, 3), (4, 3, 5), (2, 3, 4, 5)])
def test_batch_norm(shape):
    check(lambda x, w, b: MF.batch_norm(x, None, None, w, b, training=True),
          lambda x, w, b: TF.batch_norm(x, None, None, w, b, training=True), R(*shape), R(3, seed=1), R(3, seed=2))
    rm, rv = R(3, seed=3), U(3, seed=4) + 0.5
    check(lambda x, w, b: MF.batch_norm(x, mt.tensor(rm), mt.tensor(rv), w, b),
          lambda x, w, b: TF.batch_norm(x, torch.tensor(rm), torch.tensor(rv), w, b), R(*shape), R(3, seed=1),
          R(3, seed=2))
    (m1, v1), (m2, v2) = (mt.tensor(rm), mt.tensor(rv)), (torch.tensor(rm), torch.tensor(rv))
    x = R(*shape, seed=5)
    MF.batch_norm(mt.tensor(x), m1, v1, training=True, momentum=0.3)
    TF.batch_norm(torch.tensor(x), m2, v2, training=True, momentum=0.3)
    close(m1, m2)
    close(v1, v2)


@pytest.mark.parametrize("shape", [(4, 3), (4, 3, 5), (2, 3, 4, 5)])
def test_layer_rms_norm_normalize_cosine(shape):
    d = shape[-1]
    check(lambda x, w, b: MF.layer_norm(x, (d,), w, b), lambda x, w, b: TF.layer_norm(x, (d,), w, b),
          R(*shape), R(d, seed=1), R(d, seed=2))
    check(lambda x: MF.layer_norm(x, shape[1:]), lambda x: TF.layer_norm(x, shape[1:]), R(*shape))
    check(lambda x: MF.rms_norm(x, shape[1:]), lambda x: TF.rms_norm(x, shape[1:]), R(*shape))
    check(lambda x, w: MF.rms_norm(x, (d,), w, eps=1e-5), lambda x, w: TF.rms_norm(x, (d,), w, eps=1e-5),
          R(*shape), R(d, seed=1))
    check(lambda x: MF.normalize(x, dim=-1), lambda x: TF.normalize(x, dim=-1), R(*shape))
    check(lambda x, y: MF.cosine_similarity(x, y), lambda x, y: TF.cosine_similarity(x, y), R(*shape),
          R(*shape, seed=1))


def test_cosine_similarity_broadcast_and_zero_vectors():
    check(lambda x, y: MF.cosine_similarity(x, y, dim=-1), lambda x, y: TF.cosine_similarity(x, y, dim=-1),
          R(3, 1, 4), R(1, 5, 4, seed=1))
    check(lambda x, y: MF.cosine_similarity(x, y), lambda x, y: TF.cosine_similarity(x, y),
          np.zeros((2, 3), np.float32), R(2, 3))


@pytest.mark.parametrize("shape", [(4, 6, 4), (2, 6, 4, 5)])
def test_group_instance_local_response_norm(shape):
    check(lambda x, w, b: MF.group_norm(x, 3, w, b), lambda x, w, b: TF.group_norm(x, 3, w, b), R(*shape),
          R(6, seed=1), R(6, seed=2))
    check(lambda x, w, b: MF.instance_norm(x, weight=w, bias=b), lambda x, w, b: TF.instance_norm(x, weight=w, bias=b),
          R(*shape), R(6, seed=1), R(6, seed=2))
    check(lambda x: MF.local_response_norm(x, 3), lambda x: TF.local_response_norm(x, 3), R(*shape), names=False)


def test_distances():
    check(lambda x, y: MF.pairwise_distance(x, y), lambda x, y: TF.pairwise_distance(x, y), R(4, 5),
          R(4, 5, seed=1), names=False)
    check(lambda x: MF.pdist(x), lambda x: TF.pdist(x), R(4, 5), names=False)


ACTIVATIONS = [("gelu", {}), ("gelu", dict(approximate="tanh")), ("silu", {}), ("mish", {}), ("elu", {}),
               ("elu", dict(alpha=0.5)), ("selu", {}), ("celu", dict(alpha=0.7)), ("softplus", {}),
               ("softplus", dict(beta=2, threshold=1)), ("logsigmoid", {}), ("hardtanh", {}),
               ("hardtanh", dict(min_val=-0.5, max_val=2)), ("relu6", {}), ("leaky_relu", dict(negative_slope=0.2)),
               ("hardsigmoid", {}), ("hardswish", {}), ("threshold", dict(threshold=0.1, value=-2.0)),
               ("softshrink", {}), ("hardshrink", {}), ("softsign", {}), ("tanhshrink", {}), ("glu", {}),
               ("glu", dict(dim=0)), ("softmin", dict(dim=1))]


@pytest.mark.parametrize("name,kw", ACTIVATIONS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_activations(name, kw, dtype):
    x = R(4, 6, dtype=dtype, scale=4)
    check(lambda t: getattr(MF, name)(t, **kw), lambda t: getattr(TF, name)(t, **kw), x)


@pytest.mark.parametrize("name", ["silu", "mish", "elu", "selu", "celu", "hardtanh", "relu6", "leaky_relu",
                                  "hardsigmoid", "hardswish"])
def test_inplace_activations(name):
    def run(F, lib):
        def f(x):
            h = x * 1.0
            out = getattr(F, name)(h, inplace=True)
            assert out is h
            return out
        return f
    check(run(MF, mt), run(TF, torch), R(4, 6, scale=4), names=False)


def test_prelu_rrelu_gelu_extremes():
    check(lambda x, w: MF.prelu(x, w), lambda x, w: TF.prelu(x, w), R(4, 3, 2), U(3), names=False)
    check(lambda x: MF.rrelu(x), lambda x: TF.rrelu(x), R(4, 6, scale=4), names=False)
    x = np.array([-1e4, -40, -8, -3, -2.2, -2.0, -1e-3, 0, 1e-30, 2.0, 2.2, 3, 8, 40, 1e4], np.float64)
    check(lambda t: MF.gelu(t), lambda t: TF.gelu(t), x)
    check(lambda t: MF.gelu(t), lambda t: TF.gelu(t), x.astype(np.float32))


# ---- resizing --------------------------------------------------------------------------------------------

def _resize_cases():
    out = []
    for shape in [(2, 3, 5), (2, 3, 5, 4), (1, 2, 3, 4, 5)]:
        nd = len(shape) - 2
        modes = ["nearest", "nearest-exact"] + (["area"] if nd < 3 else []) + \
            {1: ["linear"], 2: ["bilinear", "bicubic"], 3: ["trilinear"]}[nd]
        for mode in modes:
            for kw in [dict(scale_factor=2), dict(scale_factor=1.7), dict(size=7), dict(size=3),
                       dict(scale_factor=0.6), dict(scale_factor=2.5, recompute_scale_factor=True),
                       dict(size=tuple(range(2, 2 + nd)))]:
                for ac in ([None] if mode in ("nearest", "nearest-exact", "area") else [False, True]):
                    out.append((shape, dict(kw, mode=mode, align_corners=ac)))
    return out


@pytest.mark.parametrize("shape,kw", _resize_cases())
def test_interpolate(shape, kw):
    check(lambda x: MF.interpolate(x, **kw), lambda x: TF.interpolate(x, **kw), R(*shape))


def test_pixel_shuffle():
    check(lambda x: MF.pixel_shuffle(x, 2), lambda x: TF.pixel_shuffle(x, 2), R(2, 8, 3, 4), names=False)
    check(lambda x: MF.pixel_unshuffle(x, 2), lambda x: TF.pixel_unshuffle(x, 2), R(2, 2, 4, 6), names=False)


def test_one_hot():
    for args in [([0, 2],), ([0, 2], 4), ([[1], [3]],), ([], 3)]:
        ids = np.array(args[0], dtype=np.int64)
        m, t = MF.one_hot(mt.tensor(ids), *args[1:]), TF.one_hot(torch.tensor(ids), *args[1:])
        assert m.tolist() == t.tolist() and m.dtype is mt.int64 and tuple(m.shape) == tuple(t.shape)
    for ids, n in [([0.0, 2.0], -1), ([0, -1], -1), ([0, 5], 3), ([], -1)]:
        with pytest.raises(RuntimeError) as et:
            TF.one_hot(torch.tensor(ids, dtype=torch.float32 if isinstance(ids[0:1] and ids[0], float)
                                    else torch.int64), n)
        with pytest.raises(RuntimeError) as em:
            MF.one_hot(mt.tensor(ids, dtype=mt.float32 if isinstance(ids[0:1] and ids[0], float) else mt.int64), n)
        assert str(em.value) == str(et.value)


# ---- attention -------------------------------------------------------------------------------------

@pytest.mark.parametrize("kw", [dict(), dict(is_causal=True), dict(scale=0.3)])
def test_scaled_dot_product_attention(kw):
    check(lambda q, k, v: MF.scaled_dot_product_attention(q, k, v, **kw),
          lambda q, k, v: TF.scaled_dot_product_attention(q, k, v, **kw), R(2, 2, 3, 4), R(2, 2, 5, 4, seed=1),
          R(2, 2, 5, 4, seed=2), names=False)


def test_scaled_dot_product_attention_masks_and_groups():
    allow = np.ones((3, 5), bool)
    allow[1] = False  # a query that may attend to nothing gets zeros, as in PyTorch
    for m in (allow, R(3, 5, seed=3)):
        check(lambda q, k, v: MF.scaled_dot_product_attention(q, k, v, attn_mask=mt.tensor(m)),
              lambda q, k, v: TF.scaled_dot_product_attention(q, k, v, attn_mask=torch.tensor(m)),
              R(2, 3, 4), R(2, 5, 4, seed=1), R(2, 5, 4, seed=2), names=False)
    check(lambda q, k, v: MF.scaled_dot_product_attention(q, k, v, enable_gqa=True),
          lambda q, k, v: TF.scaled_dot_product_attention(q, k, v, enable_gqa=True),
          R(1, 4, 3, 8), R(1, 2, 5, 8, seed=1), R(1, 2, 5, 8, seed=2), names=False)


# ---- modules ---------------------------------------------------------------------------------------

def copy_weights(tmod, mmod):
    """PyTorch's parameters and buffers into the minitorch module (strictly: the keys must match)."""
    mmod.load_state_dict({k: mt.tensor(v.detach().numpy()) for k, v in tmod.state_dict().items()})


def check_module(name, args, kwargs, *inputs, train=True, tol=None):
    """Same construction in both libraries: same repr, parameter names and shapes, state_dict
    keys; with PyTorch's weights copied in, same outputs, input and parameter gradients, in
    training mode (if train) and in eval mode."""
    tmod, mmod = getattr(torch.nn, name)(*args, **kwargs), getattr(mt.nn, name)(*args, **kwargs)
    assert repr(mmod) == repr(tmod)
    assert [(n, tuple(p.shape)) for n, p in mmod.named_parameters()] == \
        [(n, tuple(p.shape)) for n, p in tmod.named_parameters()]
    assert list(mmod.state_dict()) == list(tmod.state_dict())
    copy_weights(tmod, mmod)
    for mode in ([True] if train else []) + [False]:
        tmod.train(mode)
        mmod.train(mode)
        for p in list(tmod.parameters()) + list(mmod.parameters()):
            p.grad = None
        check(lambda *xs: mmod(*xs), lambda *xs: tmod(*xs), *inputs, names=False, tol=tol)
        for (n, mp), tp in zip(mmod.named_parameters(), tmod.parameters()):
            close(mp.grad, tp.grad, (tol or 2e-5) * 10, f"{name}.{n}.grad ({'train' if mode else 'eval'})")
        for (n, mb), tb in zip(mmod.named_buffers(), tmod.buffers()):
            close(mb, tb, (tol or 2e-5) * 10, f"{name} buffer {n}")


MODULES = [
    ("GELU", (), {}, [(4, 5)]), ("GELU", ("tanh",), {}, [(4, 5)]), ("SiLU", (), {}, [(4, 5)]),
    ("Mish", (), {}, [(4, 5)]), ("ELU", (0.5,), {}, [(4, 5)]), ("SELU", (), {}, [(4, 5)]),
    ("CELU", (), {}, [(4, 5)]), ("Softplus", (2.0, 1.0), {}, [(4, 5)]), ("LogSigmoid", (), {}, [(4, 5)]),
    ("Hardtanh", (-0.5, 0.7), {}, [(4, 5)]), ("ReLU6", (), {}, [(4, 5)]), ("Hardsigmoid", (), {}, [(4, 5)]),
    ("Hardswish", (), {}, [(4, 5)]), ("Threshold", (0.1, 20.0), {}, [(4, 5)]), ("Softshrink", (), {}, [(4, 5)]),
    ("Hardshrink", (), {}, [(4, 5)]), ("Softsign", (), {}, [(4, 5)]), ("Tanhshrink", (), {}, [(4, 5)]),
    ("GLU", (), {}, [(4, 6)]), ("PReLU", (), {}, [(4, 5)]), ("PReLU", (3,), {}, [(4, 3, 5)]),
    ("Softmin", (1,), {}, [(4, 5)]), ("Softmax2d", (), {}, [(2, 3, 4, 5)]), ("LeakyReLU", (0.2,), {}, [(4, 5)]),
    ("Conv1d", (4, 6, 3), dict(stride=2, padding=1, groups=2), [(2, 4, 9)]),
    ("Conv1d", (2, 3, 3), dict(padding="same", padding_mode="reflect"), [(2, 2, 9)]),
    ("Conv2d", (4, 6, 3), dict(groups=2, padding=1), [(2, 4, 7, 6)]),
    ("Conv2d", (2, 3, (3, 2)), dict(padding=(1, 2), padding_mode="circular"), [(2, 2, 7, 6)]),
    ("Conv2d", (2, 3, 3), dict(padding=1, padding_mode="replicate", bias=False), [(2, 2, 7, 6)]),
    ("Conv2d", (2, 3, 4), dict(padding="same", dilation=1), [(2, 2, 7, 6)]),
    ("ConvTranspose2d", (4, 6, 3), dict(stride=2, padding=1, output_padding=1, groups=2), [(2, 4, 5, 4)]),
    ("ConvTranspose1d", (4, 3, 3), dict(stride=2), [(2, 4, 5)]),
    ("MaxPool1d", (3,), dict(stride=2, ceil_mode=True), [(2, 3, 8)]),
    ("MaxPool2d", (3,), dict(stride=2, padding=1, ceil_mode=True), [(2, 3, 8, 7)]),
    ("AvgPool1d", (3,), dict(stride=2, padding=1, count_include_pad=False), [(2, 3, 8)]),
    ("AvgPool2d", (3,), dict(stride=2, padding=1, ceil_mode=True, count_include_pad=False), [(2, 3, 8, 7)]),
    ("AdaptiveAvgPool1d", (3,), {}, [(2, 3, 8)]), ("AdaptiveAvgPool2d", ((2, None),), {}, [(2, 3, 8, 7)]),
    ("AdaptiveAvgPool2d", (1,), {}, [(2, 3, 8, 7)]), ("AdaptiveMaxPool1d", (3,), {}, [(2, 3, 8)]),
    ("AdaptiveMaxPool2d", ((3, 2),), {}, [(2, 3, 8, 7)]), ("LPPool2d", (2, 2), {}, [(2, 3, 6, 6)]),
    ("BatchNorm1d", (3,), {}, [(4, 3)]), ("BatchNorm1d", (3,), dict(affine=False), [(4, 3, 5)]),
    ("BatchNorm2d", (3,), dict(momentum=None), [(2, 3, 4, 5)]), ("BatchNorm2d", (3,), dict(bias=False), [(2, 3, 4, 5)]),
    ("BatchNorm2d", (3,), dict(track_running_stats=False), [(2, 3, 4, 5)]),
    ("LayerNorm", (5,), {}, [(2, 3, 5)]), ("LayerNorm", ((3, 5),), dict(elementwise_affine=False), [(2, 3, 5)]),
    ("LayerNorm", (5,), dict(bias=False), [(2, 3, 5)]), ("GroupNorm", (2, 6), {}, [(2, 6, 4, 5)]),
    ("InstanceNorm1d", (3,), {}, [(2, 3, 8)]), ("InstanceNorm2d", (3,), dict(affine=True), [(2, 3, 4, 5)]),
    ("InstanceNorm2d", (3,), dict(track_running_stats=True), [(2, 3, 4, 5)]),
    ("InstanceNorm1d", (3,), {}, [(3, 8)]), ("RMSNorm", (5,), {}, [(2, 3, 5)]),
    ("RMSNorm", ((3, 5),), dict(eps=1e-6), [(2, 3, 5)]), ("LocalResponseNorm", (3,), {}, [(2, 5, 4, 4)]),
    ("Bilinear", (3, 4, 2), {}, [(5, 3), (5, 4)]), ("Bilinear", (3, 4, 2), dict(bias=False), [(2, 5, 3), (2, 5, 4)]),
    ("Upsample", (), dict(scale_factor=2), [(2, 3, 4, 5)]),
    ("Upsample", (), dict(size=(5, 7), mode="bilinear", align_corners=True), [(2, 3, 4, 5)]),
    ("UpsamplingNearest2d", (), dict(scale_factor=2), [(2, 3, 4, 5)]),
    ("UpsamplingBilinear2d", (), dict(size=6), [(2, 3, 4, 5)]), ("PixelShuffle", (2,), {}, [(2, 8, 3, 4)]),
    ("PixelUnshuffle", (2,), {}, [(2, 2, 4, 6)]), ("Unfold", (2,), dict(stride=2), [(2, 3, 6, 6)]),
    ("Fold", ((5, 6), 2), {}, [(2, 12, 20)]), ("CosineSimilarity", (), {}, [(4, 5), (4, 5)]),
    ("PairwiseDistance", (), {}, [(4, 5), (4, 5)]), ("ZeroPad2d", (2,), {}, [(2, 3, 4, 5)]),
    ("ConstantPad1d", ((1, 2), 3.5), {}, [(2, 3, 4)]), ("ReflectionPad2d", (1,), {}, [(2, 3, 4, 5)]),
    ("ReplicationPad1d", (2,), {}, [(2, 3, 4)]), ("CircularPad2d", (1,), {}, [(2, 3, 4, 5)]),
    ("ZeroPad1d", (1,), {}, [(2, 3, 4)]), ("ReflectionPad1d", ((2, 1),), {}, [(2, 3, 4)]),
    ("ReplicationPad2d", ((1, 0, 2, 1),), {}, [(2, 3, 4, 5)]), ("ConstantPad2d", (1, -1.0), {}, [(3, 4, 5)]),
    ("Identity", (), {}, [(3, 4)]), ("Flatten", (), {}, [(2, 3, 4)]), ("Unflatten", (1, (2, 2)), {}, [(3, 4)]),
]


@pytest.mark.filterwarnings("ignore:Using padding='same'")
@pytest.mark.parametrize("name,args,kwargs,shapes", MODULES, ids=[m[0] for m in MODULES])
def test_modules(name, args, kwargs, shapes):
    inputs = [R(*s, seed=i, scale=3 if "shrink" in name.lower() or "tanh" in name.lower() else 1.0)
              for i, s in enumerate(shapes)]
    check_module(name, args, kwargs, *inputs)


@pytest.mark.parametrize("name,kwargs", [("Dropout1d", {}), ("Dropout2d", dict(p=0.3)), ("Dropout3d", {}),
                                         ("RReLU", {})])
def test_random_modules_in_eval_mode(name, kwargs):
    shape = {"Dropout1d": (2, 3, 4), "Dropout3d": (2, 3, 4, 5, 2)}.get(name, (2, 3, 4, 5))
    check_module(name, (), kwargs, R(*shape), train=False)


def test_feature_dropout_zeroes_whole_channels():
    x = mt.ones(50, 8, 3, 3)
    out = mt.nn.Dropout2d(0.5)(x)
    per_channel = out.reshape(50, 8, 9)
    assert bool(((per_channel == 0).all(-1) | (per_channel == 2).all(-1)).all())
    assert 0.3 < float((per_channel[..., 0] == 0).float().mean()) < 0.7
    assert mt.nn.Dropout1d(1.0)(mt.ones(2, 3, 4)).abs().sum().item() == 0


def test_batch_norm_running_statistics_over_steps():
    for kw in (dict(), dict(momentum=None), dict(momentum=0.5)):
        tb, mb = torch.nn.BatchNorm2d(3, **kw), mt.nn.BatchNorm2d(3, **kw)
        for step in range(4):
            x = R(4, 3, 2, 2, seed=step, scale=step + 1)
            close(mb(mt.tensor(x)), tb(torch.tensor(x)))
        close(mb.running_mean, tb.running_mean)
        close(mb.running_var, tb.running_var)
        assert mb.num_batches_tracked.item() == tb.num_batches_tracked.item() == 4
        tb.eval()
        mb.eval()
        x = R(4, 3, 2, 2, seed=9)
        close(mb(mt.tensor(x)), tb(torch.tensor(x)))


def test_batch_norm_errors_match():
    for make, shape in [(lambda nn: nn.BatchNorm2d(3), (2, 3, 4)), (lambda nn: nn.BatchNorm1d(3), (1, 3)),
                        (lambda nn: nn.BatchNorm1d(3), (2, 3, 4, 5))]:
        with pytest.raises(ValueError) as et:
            make(torch.nn)(torch.zeros(*shape))
        with pytest.raises(ValueError) as em:
            make(mt.nn)(mt.zeros(*shape))
        assert str(em.value) == str(et.value).replace("torch.Size", "minitorch.Size")


def test_containers_of_parameters():
    def build(nn, lib):
        class M(nn.Module):
            def __init__(self):
                super().__init__()
                self.ps = nn.ParameterList([nn.Parameter(lib.ones(2, 3)), lib.zeros(4)])
                self.ps.append(nn.Parameter(lib.ones(1, dtype=lib.float64)))
                self.ps.extend([lib.ones(2)])
                self.d = nn.ParameterDict({"b": lib.zeros(3), "a": nn.Parameter(lib.ones(2))})
                self.d["c"] = lib.ones(1)

            def forward(self, x):
                return sum((p.sum() for p in self.ps), x) + self.d["a"].sum() * x
        return M()
    t, m = build(torch.nn, torch), build(mt.nn, mt)
    assert repr(m).replace("minitorch", "torch") == repr(t)
    assert [n for n, _ in m.named_parameters()] == [n for n, _ in t.named_parameters()]
    assert list(m.state_dict()) == list(t.state_dict())
    assert len(m.ps) == len(t.ps) == 4 and list(m.d.keys()) == list(t.d.keys())
    assert isinstance(m.ps[1], mt.nn.Parameter) and m.ps[1].requires_grad
    assert "a" in m.d and m.d.get("zz") is None and [k for k, _ in m.d.items()] == ["a", "b", "c"]
    m.d.pop("c")
    t.d.pop("c")
    assert list(m.state_dict()) == list(t.state_dict())
    m(mt.tensor(1.0)).backward()
    assert m.ps[0].grad.tolist() == [[1.0] * 3] * 2 and m.d["a"].grad.tolist() == [1.0, 1.0]


def test_sequential_and_module_list_methods():
    for nn in (torch.nn, mt.nn):
        s = nn.Sequential(nn.ReLU(), nn.Tanh())
        s.insert(1, nn.Sigmoid())
        s.extend([nn.Identity()])
        popped = s.pop(0)
        both = s + nn.Sequential(nn.ReLU())
        ml = nn.ModuleList([nn.ReLU(), nn.Tanh()])
        ml.pop(0)
        md = nn.ModuleDict({"a": nn.ReLU(), "b": nn.Tanh()})
        md.pop("a")
        runs = nn.ModuleList([nn.Linear(2, 2), nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 2), nn.Linear(2, 2),
                              nn.Linear(2, 2)])
        yield_ = (repr(s), repr(both), type(popped).__name__, repr(ml), repr(md), repr(runs), repr(nn.ModuleList()))
        if nn is torch.nn:
            expected = yield_
    assert yield_ == expected


# ---- recurrent layers ----------------------------------------------------------------------------

RNNS = [("RNN", dict()), ("RNN", dict(num_layers=2, nonlinearity="relu", bias=False)),
        ("RNN", dict(bidirectional=True, batch_first=True)), ("LSTM", dict()),
        ("LSTM", dict(num_layers=2, bidirectional=True)), ("LSTM", dict(proj_size=3, batch_first=True)),
        ("GRU", dict()), ("GRU", dict(num_layers=3, bidirectional=True, batch_first=True))]


def _rnn_pair(name, kw, in_size=4, hidden=5):
    return getattr(torch.nn, name)(in_size, hidden, **kw), getattr(mt.nn, name)(in_size, hidden, **kw)


def _flat(out):
    """(output, h) or (output, (h, c)) as a flat list."""
    o, h = out
    return [o] + (list(h) if isinstance(h, tuple) else [h])


@pytest.mark.parametrize("name,kw", RNNS)
@pytest.mark.parametrize("with_state", [False, True])
def test_recurrent_layers(name, kw, with_state):
    t, m = _rnn_pair(name, kw)
    assert repr(m) == repr(t)
    assert [(n, tuple(p.shape)) for n, p in m.named_parameters()] == \
        [(n, tuple(p.shape)) for n, p in t.named_parameters()]
    copy_weights(t, m)
    x = R(3, 6, 4) if kw.get("batch_first") else R(6, 3, 4)
    dirs = 2 if kw.get("bidirectional") else 1
    h_size = kw.get("proj_size") or 5
    states = [R(kw.get("num_layers", 1) * dirs, 3, h_size, seed=1)]
    if name == "LSTM":
        states.append(R(kw.get("num_layers", 1) * dirs, 3, 5, seed=2))

    def run(mod):
        def f(x, *hs):
            hx = None if not hs else (tuple(hs) if name == "LSTM" else hs[0])
            return _flat(mod(x, hx))
        return f
    check(run(m), run(t), x, *(states if with_state else []), names=False)
    for (n, mp), tp in zip(m.named_parameters(), t.parameters()):
        close(mp.grad, tp.grad, 2e-4, n)


@pytest.mark.parametrize("name", ["RNN", "LSTM", "GRU"])
def test_recurrent_unbatched_and_float64(name):
    t, m = _rnn_pair(name, dict(num_layers=2))
    t, m = t.double(), m.double()
    copy_weights(t, m)
    check(lambda x: _flat(m(x)), lambda x: _flat(t(x)), R(6, 4, dtype=np.float64), names=False)


@pytest.mark.parametrize("name,kw", [("RNN", {}), ("LSTM", dict(bidirectional=True)), ("GRU", dict(num_layers=2)),
                                     ("LSTM", dict(batch_first=True, proj_size=2))])
@pytest.mark.parametrize("enforce_sorted", [True, False])
def test_recurrent_layers_on_packed_sequences(name, kw, enforce_sorted):
    lengths = [6, 4, 4, 1] if enforce_sorted else [4, 6, 1, 4]
    t, m = _rnn_pair(name, kw)
    copy_weights(t, m)
    bf = kw.get("batch_first", False)
    x = R(4, 6, 4) if bf else R(6, 4, 4)

    def run(lib, mod):
        rnn = lib.nn.utils.rnn

        def f(x):
            packed = rnn.pack_padded_sequence(x, lengths, batch_first=bf, enforce_sorted=enforce_sorted)
            out, h = mod(packed)
            padded, lens = rnn.pad_packed_sequence(out, batch_first=bf, total_length=7)
            assert lens.tolist() == lengths
            return [padded, packed.data] + (list(h) if isinstance(h, tuple) else [h])
        return f
    check(run(mt, m), run(torch, t), x, names=False)


def test_rnn_utils():
    seqs = [R(3, 2), R(5, 2, seed=1), R(1, 2, seed=2)]
    for kw in (dict(), dict(batch_first=True, padding_value=-1.0), dict(padding_side="left")):
        check(lambda *s: mt.nn.utils.rnn.pad_sequence(list(s), **kw),
              lambda *s: torch.nn.utils.rnn.pad_sequence(list(s), **kw), *seqs, names=False)
    tp = torch.nn.utils.rnn.pack_sequence([torch.tensor(s) for s in seqs], enforce_sorted=False)
    mp = mt.nn.utils.rnn.pack_sequence([mt.tensor(s) for s in seqs], enforce_sorted=False)
    close(mp.data, tp.data)
    assert mp.batch_sizes.tolist() == tp.batch_sizes.tolist()
    assert mp.sorted_indices.tolist() == tp.sorted_indices.tolist()
    assert mp.unsorted_indices.tolist() == tp.unsorted_indices.tolist()
    for a, b in zip(mt.nn.utils.rnn.unpack_sequence(mp), torch.nn.utils.rnn.unpack_sequence(tp)):
        close(a, b)
    for lib in (torch, mt):
        with pytest.raises(RuntimeError, match="must be sorted in decreasing order"):
            lib.nn.utils.rnn.pack_padded_sequence(lib.zeros(3, 2, 1), [1, 3])


@pytest.mark.parametrize("name,kw", [("RNNCell", {}), ("RNNCell", dict(nonlinearity="relu", bias=False)),
                                     ("LSTMCell", {}), ("GRUCell", {})])
def test_cells(name, kw):
    t, m = getattr(torch.nn, name)(4, 5, **kw), getattr(mt.nn, name)(4, 5, **kw)
    assert repr(m) == repr(t)
    copy_weights(t, m)
    flat = (lambda o: list(o)) if name == "LSTMCell" else (lambda o: o)
    check(lambda x: flat(m(x)), lambda x: flat(t(x)), R(3, 4), names=False)
    check(lambda x: flat(m(x)), lambda x: flat(t(x)), R(4), names=False)
    h = [R(3, 5, seed=1)] + ([R(3, 5, seed=2)] if name == "LSTMCell" else [])
    pack = (lambda hs: tuple(hs)) if name == "LSTMCell" else (lambda hs: hs[0])
    check(lambda x, *hs: flat(m(x, pack(hs))), lambda x, *hs: flat(t(x, pack(hs))), R(3, 4), *h, names=False)


def test_recurrent_errors_match():
    cases = [lambda nn, T: nn.LSTM(4, 5)(T.zeros(3, 2, 3)),
             lambda nn, T: nn.GRU(4, 5)(T.zeros(3, 2, 4), T.zeros(2, 2, 5)),
             lambda nn, T: nn.RNN(4, 5)(T.zeros(3, 2, 4, 1)), lambda nn, T: nn.RNN(4, 5, nonlinearity="sigmoid"),
             lambda nn, T: nn.LSTM(4, 5)(T.zeros(3, 2, 4), (T.zeros(1, 2, 5), T.zeros(1, 3, 5))),
             lambda nn, T: nn.GRU(4, 5, proj_size=2), lambda nn, T: nn.LSTM(4, 5, proj_size=5)]
    for case in cases:
        with pytest.raises(Exception) as et:
            case(torch.nn, torch)
        with pytest.raises(Exception) as em:
            case(mt.nn, mt)
        assert type(em.value) is type(et.value) and str(em.value) == str(et.value)
    for nn in (torch.nn, mt.nn):
        with pytest.warns(UserWarning, match="non-zero dropout expects num_layers greater than 1"):
            nn.LSTM(2, 3, dropout=0.5)


# ---- multi-head attention ------------------------------------------------------------------------------

MHA = [dict(), dict(batch_first=True), dict(bias=False), dict(add_bias_kv=True), dict(add_zero_attn=True),
       dict(kdim=3, vdim=6), dict(batch_first=True, kdim=3, vdim=6, add_bias_kv=True)]


@pytest.mark.parametrize("kw", MHA)
@pytest.mark.parametrize("need_weights,average", [(True, True), (True, False), (False, True)])
def test_multihead_attention(kw, need_weights, average):
    t, m = torch.nn.MultiheadAttention(8, 2, **kw), mt.nn.MultiheadAttention(8, 2, **kw)
    assert repr(m) == repr(t)
    assert [(n, tuple(p.shape)) for n, p in m.named_parameters()] == \
        [(n, tuple(p.shape)) for n, p in t.named_parameters()]
    copy_weights(t, m)
    bf = kw.get("batch_first", False)
    shape = (lambda n, length, e: (n, length, e)) if bf else (lambda n, length, e: (length, n, e))
    q, k, v = R(*shape(2, 3, 8)), R(*shape(2, 5, kw.get("kdim", 8)), seed=1), R(*shape(2, 5, kw.get("vdim", 8)), seed=2)
    kpm = np.zeros((2, 5), bool)
    kpm[1, 3:] = True
    causal = np.triu(np.ones((3, 5), bool), 1)

    def run(mod, lib):
        def f(q, k, v):
            out, w = mod(q, k, v, need_weights=need_weights, average_attn_weights=average,
                         key_padding_mask=lib.tensor(kpm), attn_mask=lib.tensor(causal))
            return [out] if w is None else [out, w]
        return f
    check(run(m, mt), run(t, torch), q, k, v, names=False)
    for (n, mp), tp in zip(m.named_parameters(), t.parameters()):
        close(mp.grad, tp.grad, 2e-4, n)


def test_multihead_self_attention_unbatched_and_float_mask():
    t, m = torch.nn.MultiheadAttention(8, 4), mt.nn.MultiheadAttention(8, 4)
    copy_weights(t, m)
    mask = R(3, 3, seed=5)
    check(lambda x, mk: list(m(x, x, x, attn_mask=mk)), lambda x, mk: list(t(x, x, x, attn_mask=mk)), R(3, 8), mask,
          names=False)
    t.eval()
    m.eval()
    with torch.no_grad(), mt.no_grad():
        x = R(2, 3, 8, seed=6)
        close(m(mt.tensor(x), mt.tensor(x), mt.tensor(x))[0], t(torch.tensor(x), torch.tensor(x), torch.tensor(x))[0])


# ---- nn.utils ------------------------------------------------------------------------------------

def _two_models():
    t = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU(), torch.nn.Linear(3, 2))
    m = mt.nn.Sequential(mt.nn.Linear(4, 3), mt.nn.ReLU(), mt.nn.Linear(3, 2))
    copy_weights(t, m)
    x = R(5, 4, scale=10)
    t(torch.tensor(x)).pow(2).sum().backward()
    m(mt.tensor(x)).pow(2).sum().backward()
    return t, m


@pytest.mark.parametrize("max_norm,norm_type", [(1.0, 2.0), (100.0, 2.0), (0.5, 1.0), (0.5, float("inf")),
                                                (2.0, 3.0)])
def test_clip_grad_norm(max_norm, norm_type):
    t, m = _two_models()
    tn = torch.nn.utils.clip_grad_norm_(t.parameters(), max_norm, norm_type)
    mn = mt.nn.utils.clip_grad_norm_(m.parameters(), max_norm, norm_type)
    close(mn, tn, 1e-5)
    for mp, tp in zip(m.parameters(), t.parameters()):
        close(mp.grad, tp.grad, 1e-5)


def test_clip_grad_value_and_vectors():
    t, m = _two_models()
    torch.nn.utils.clip_grad_value_(t.parameters(), 0.3)
    mt.nn.utils.clip_grad_value_(m.parameters(), 0.3)
    for mp, tp in zip(m.parameters(), t.parameters()):
        close(mp.grad, tp.grad)
    tv, mv = torch.nn.utils.parameters_to_vector(t.parameters()), mt.nn.utils.parameters_to_vector(m.parameters())
    close(mv, tv)
    assert mv.grad_fn is not None
    new = R(mv.shape[0], seed=4)
    torch.nn.utils.vector_to_parameters(torch.tensor(new), t.parameters())
    mt.nn.utils.vector_to_parameters(mt.tensor(new), m.parameters())
    for mp, tp in zip(m.parameters(), t.parameters()):
        close(mp, tp)
    assert float(mt.nn.utils.clip_grad_norm_([], 1.0)) == float(torch.nn.utils.clip_grad_norm_([], 1.0)) == 0.0
    for lib in (torch, mt):
        p = lib.nn.Parameter(lib.ones(2))
        p.grad = lib.tensor([float("inf"), 1.0])
        with pytest.raises(RuntimeError, match="is non-finite, so it cannot be clipped"):
            lib.nn.utils.clip_grad_norm_([p], 1.0, error_if_nonfinite=True)


# ---- optimizers ------------------------------------------------------------------------------------

OPTIMIZERS = [
    ("SGD", dict(lr=0.1)), ("SGD", dict(lr=0.05, momentum=0.9)), ("SGD", dict(lr=0.05, momentum=0.9, nesterov=True)),
    ("SGD", dict(lr=0.05, momentum=0.8, dampening=0.3, weight_decay=0.01)), ("SGD", dict(lr=0.1, maximize=True)),
    ("Adam", dict(lr=0.01)), ("Adam", dict(lr=0.01, amsgrad=True, weight_decay=0.1)),
    ("Adam", dict(lr=0.01, betas=(0.3, 0.8), maximize=True)), ("AdamW", dict(lr=0.01)),
    ("AdamW", dict(lr=0.01, amsgrad=True, weight_decay=0.3)), ("RMSprop", dict(lr=0.01)),
    ("RMSprop", dict(lr=0.01, momentum=0.9, centered=True, weight_decay=0.1)), ("RMSprop", dict(lr=0.01, alpha=0.3)),
    ("Adagrad", dict(lr=0.1)),
    ("Adagrad", dict(lr=0.1, lr_decay=0.01, weight_decay=0.1, initial_accumulator_value=0.5)),
    ("Adadelta", dict()), ("Adadelta", dict(lr=0.5, rho=0.5, weight_decay=0.1)), ("Adamax", dict(lr=0.01)),
    ("NAdam", dict(lr=0.01)), ("NAdam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True)),
    ("RAdam", dict(lr=0.01)), ("RAdam", dict(lr=0.01, weight_decay=0.1)),
]


def _mlp(nn):
    return nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 3))


def _train(lib, F, model, opt, steps, dtype):
    for step in range(steps):
        x = lib.tensor(R(5, 6, seed=step, dtype=dtype))
        y = lib.tensor(np.random.default_rng(step).integers(0, 3, 5))
        opt.zero_grad()
        F.cross_entropy(model(x), y).backward()
        opt.step()


@pytest.mark.parametrize("name,kw", OPTIMIZERS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_optimizer_trajectories(name, kw, dtype):
    tm, mm = _mlp(torch.nn), _mlp(mt.nn)
    if dtype == np.float64:
        tm, mm = tm.double(), mm.double()
    copy_weights(tm, mm)
    topt, mopt = getattr(torch.optim, name)(tm.parameters(), **kw), getattr(mt.optim, name)(mm.parameters(), **kw)
    for _ in range(4):
        _train(torch, TF, tm, topt, 5, dtype)
        _train(mt, MF, mm, mopt, 5, dtype)
        for (n, mp), tp in zip(mm.named_parameters(), tm.parameters()):
            close(mp, tp, 1e-5 if dtype == np.float32 else 1e-12, f"{name} {n}")
    ts, ms = topt.state_dict(), mopt.state_dict()
    assert ms["param_groups"] == ts["param_groups"]
    assert list(ms["state"]) == list(ts["state"])
    for k in ts["state"]:
        assert list(ms["state"][k]) == list(ts["state"][k])
        for key, tv in ts["state"][k].items():
            close(ms["state"][k][key], tv, 1e-5 if dtype == np.float32 else 1e-12, f"{name} state {k} {key}")


def test_optimizer_state_dict_moves_between_libraries():
    """A PyTorch optimizer state_dict, its tensors converted, loads into ours (and training goes on
    identically), since the layout (indices, keys, group options) is the same."""
    tm, mm = _mlp(torch.nn).double(), _mlp(mt.nn).double()
    copy_weights(tm, mm)
    topt = torch.optim.Adam(tm.parameters(), lr=0.01, amsgrad=True)
    _train(torch, TF, tm, topt, 3, np.float64)
    copy_weights(tm, mm)
    mopt = mt.optim.Adam(mm.parameters(), lr=0.5)
    sd = topt.state_dict()
    mopt.load_state_dict({"state": {k: {n: mt.tensor(v.numpy()) for n, v in s.items()} for k, s in sd["state"].items()},
                          "param_groups": sd["param_groups"]})
    assert mopt.param_groups[0]["lr"] == 0.01 and mopt.param_groups[0]["amsgrad"]
    _train(torch, TF, tm, topt, 3, np.float64)
    _train(mt, MF, mm, mopt, 3, np.float64)
    for mp, tp in zip(mm.parameters(), tm.parameters()):
        close(mp, tp, 1e-12)


def test_param_groups_named_params_and_zero_grad():
    for lib in (torch, mt):
        model = _mlp(lib.nn)
        opt = lib.optim.SGD([{"params": model[0].parameters()}, {"params": model[2].parameters(), "lr": 0.5}],
                            lr=0.1, momentum=0.9)
        assert [g["lr"] for g in opt.param_groups] == [0.1, 0.5]
        named = lib.optim.Adam(model.named_parameters())
        assert named.param_groups[0]["param_names"] == ["0.weight", "0.bias", "2.weight", "2.bias"]
        assert named.state_dict()["param_groups"][0]["param_names"] == named.param_groups[0]["param_names"]
        model(lib.ones(2, 6)).sum().backward()
        opt.zero_grad()
        assert all(p.grad is None for p in model.parameters())
        model(lib.ones(2, 6)).sum().backward()
        opt.zero_grad(set_to_none=False)
        assert all(float(p.grad.abs().sum()) == 0 for p in model.parameters())
        with pytest.raises(ValueError, match="some parameters appear in more than one parameter group"):
            opt.add_param_group({"params": model[0].weight})
        calls = []
        h = opt.register_step_pre_hook(lambda o, a, k: calls.append("pre"))
        opt.register_step_post_hook(lambda o, a, k: calls.append("post"))
        opt.step()
        h.remove()
        opt.step()
        assert calls == ["pre", "post", "post"]


# ---- learning-rate schedulers -----------------------------------------------------------------------

def _schedulers(lib):
    S = lib.optim.lr_scheduler
    return [
        lambda o: S.StepLR(o, step_size=3, gamma=0.5), lambda o: S.MultiStepLR(o, [2, 5, 5, 9], gamma=0.3),
        lambda o: S.ExponentialLR(o, 0.9), lambda o: S.CosineAnnealingLR(o, T_max=7, eta_min=0.001),
        lambda o: S.LambdaLR(o, lambda e: 0.95 ** e), lambda o: S.MultiplicativeLR(o, lambda e: 0.9),
        lambda o: S.LinearLR(o, start_factor=0.1, total_iters=4), lambda o: S.ConstantLR(o, factor=0.5, total_iters=3),
        lambda o: S.PolynomialLR(o, total_iters=8, power=2.0),
        lambda o: S.OneCycleLR(o, max_lr=0.5, total_steps=25), lambda o: S.OneCycleLR(o, max_lr=[0.5, 1.0],
                                                                                     total_steps=25,
                                                                                     anneal_strategy="linear",
                                                                                     three_phase=True),
        lambda o: S.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=4),
        lambda o: S.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=3, mode="exp_range", gamma=0.9),
        lambda o: S.CosineAnnealingWarmRestarts(o, T_0=4, T_mult=2, eta_min=0.01),
        lambda o: S.SequentialLR(o, [S.LinearLR(o, start_factor=0.1, total_iters=3), S.ExponentialLR(o, 0.8)],
                                 milestones=[3]),
        lambda o: S.ChainedScheduler([S.StepLR(o, 2, 0.5), S.ExponentialLR(o, 0.95)]),
    ]


@pytest.mark.parametrize("case", range(len(_schedulers(mt))))
@pytest.mark.parametrize("optimizer", ["SGD", "Adam"])
def test_scheduler_lr_sequences(case, optimizer):
    seqs, states = [], []
    for lib in (torch, mt):
        p = [lib.nn.Parameter(lib.ones(2)), lib.nn.Parameter(lib.ones(1))]
        kw = dict(momentum=0.9) if optimizer == "SGD" else {}
        opt = getattr(lib.optim, optimizer)([{"params": [p[0]]}, {"params": [p[1]], "lr": 0.2}], lr=0.1, **kw)
        sched = _schedulers(lib)[case](opt)
        seq = [(sched.get_last_lr(), [dict((k, g[k]) for k in ("lr", "momentum", "betas") if k in g)
                                      for g in opt.param_groups])]
        for _ in range(24):
            opt.step()
            sched.step()
            seq.append((list(sched.get_last_lr()), [dict((k, g[k]) for k in ("lr", "momentum", "betas") if k in g)
                                                    for g in opt.param_groups]))
        seqs.append(seq)
        states.append(sorted(k for k in sched.state_dict()))
    assert seqs[0] == seqs[1]  # exactly: same formulas, same order of float operations
    assert states[0] == states[1]


def test_reduce_lr_on_plateau():
    metrics = [1.0, 0.9, 0.95, 0.95, 0.96, 0.97, 0.5, 0.6, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1]
    for kw in (dict(), dict(mode="max", factor=0.5, patience=1, cooldown=2), dict(threshold_mode="abs", patience=0,
                                                                                   min_lr=0.03)):
        seqs = []
        for lib in (torch, mt):
            opt = lib.optim.SGD([lib.nn.Parameter(lib.ones(1))], lr=0.1)
            sched = lib.optim.lr_scheduler.ReduceLROnPlateau(opt, **dict(dict(patience=2), **kw))
            out = []
            for m in metrics:
                opt.step()
                sched.step(m)
                out.append((sched.get_last_lr(), sched.num_bad_epochs, sched.best, sched.cooldown_counter))
            seqs.append(out)
        assert seqs[0] == seqs[1]


def test_scheduler_warnings_and_state_dict():
    for lib in (torch, mt):
        opt = lib.optim.SGD([lib.nn.Parameter(lib.ones(1))], lr=0.1)
        sched = lib.optim.lr_scheduler.StepLR(opt, 2)
        with pytest.warns(UserWarning, match=r"Detected call of `lr_scheduler.step\(\)` before `optimizer.step\(\)`"):
            sched.step()
        with pytest.warns(UserWarning, match="The epoch parameter in `scheduler.step\\(\\)` was not necessary"):
            sched.step(5)
        with pytest.warns(UserWarning, match="please use `get_last_lr\\(\\)`"):
            sched.get_lr()
        sd = sched.state_dict()
        assert "optimizer" not in sd and sd["last_epoch"] == 5
        fresh = lib.optim.lr_scheduler.StepLR(opt, 2)
        fresh.load_state_dict(sd)
        assert fresh.last_epoch == 5 and fresh.get_last_lr() == sched.get_last_lr()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        opt = mt.optim.SGD([mt.nn.Parameter(mt.ones(1))], lr=0.1)
        sched = mt.optim.lr_scheduler.StepLR(opt, 2)
        opt.step()
        sched.step()  # the right order: no warning


# ---- utils.data --------------------------------------------------------------------------------------

def _show(x):
    """A comparable picture of a collated batch (types, dtypes, shapes and values)."""
    if isinstance(x, (torch.Tensor, mt.Tensor)):
        return ("tensor", str(x.dtype).split(".")[-1], tuple(x.shape), x.tolist())
    if isinstance(x, dict):
        return (type(x).__name__, {k: _show(v) for k, v in x.items()})
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return ("namedtuple", tuple(_show(v) for v in x))
    if isinstance(x, (list, tuple)):
        return (type(x).__name__, [_show(v) for v in x])
    return (type(x).__name__, x.tolist() if isinstance(x, np.ndarray) else x)


def _outcome(fn, *args):
    try:
        return _show(fn(*args))
    except Exception as e:  # noqa: BLE001 (the exception is what is compared)
        return (type(e).__name__, str(e))


def test_default_collate_and_convert_match():
    import collections

    from torch.utils.data import default_collate as tcollate, default_convert as tconvert

    from minitorch.utils.data import default_collate as mcollate, default_convert as mconvert
    point = collections.namedtuple("point", "x y")
    batches = [[1, 2, 3], [1.5, 2.0], [True, False], ["a", "b"], [np.float32(1.5), np.float32(2)],
               [np.int64(3), np.int64(4)], [np.array([1, 2]), np.array([3, 4])], [np.array(1.5), np.array(2.5)],
               [{"a": 1, "b": np.ones(2)}, {"a": 2, "b": np.zeros(2)}],
               [collections.OrderedDict(a=1.0), collections.OrderedDict(a=2.0)], [point(1, 2.0), point(3, 4.0)],
               [(1, [2.0, 3.0]), (4, [5.0, 6.0])], [[1, 2], [3, 4]], [np.array(["a"]), np.array(["b"])],
               [None, None], [np.bool_(True), np.bool_(False)], [[1, 2], [3]]]
    for batch in batches:
        assert _outcome(mcollate, batch) == _outcome(tcollate, batch), batch
    for sample in [np.array([1, 2]), {"a": np.ones(2), "b": 1}, (np.ones(1), 2), [np.ones(1)], 3, "s",
                   np.float64(2.0), np.array(["x"])]:
        assert _outcome(mconvert, sample) == _outcome(tconvert, sample), sample


class _Stream:
    """The same IterableDataset for both libraries: numbers, a tensor and a dict per sample."""

    @staticmethod
    def make(lib, n, with_len=True):
        base = lib.utils.data.IterableDataset

        class Stream(base):
            def __iter__(self):
                info = lib.utils.data.get_worker_info()
                assert info is None  # the main process
                for i in range(n):
                    yield {"x": lib.full((2,), float(i)), "i": i}

        if with_len:
            Stream.__len__ = lambda self: n
        return Stream()


@pytest.mark.parametrize("batch_size,drop_last", [(3, False), (3, True), (5, False), (1, True), (None, False)])
def test_iterable_dataset_loader(batch_size, drop_last):
    out, lens = [], []
    for lib in (torch, mt):
        loader = lib.utils.data.DataLoader(_Stream.make(lib, 7), batch_size=batch_size, drop_last=drop_last)
        out.append([_show(b) for b in loader])
        lens.append(len(loader))
    assert out[0] == out[1] and lens[0] == lens[1]
    chained = [list(lib.utils.data.ChainDataset([_Stream.make(lib, 2), _Stream.make(lib, 3)])) for lib in (torch, mt)]
    assert [_show(b) for b in chained[0]] == [_show(b) for b in chained[1]]


def test_iterable_dataset_loader_errors():
    for opts in (dict(shuffle=True), dict(sampler=[0, 1]), dict(batch_sampler=[[0]])):
        msgs = []
        for lib in (torch, mt):
            with pytest.raises(ValueError) as e:
                lib.utils.data.DataLoader(_Stream.make(lib, 3), **opts)
            msgs.append(str(e.value).split(", but got")[0])
        assert msgs[0] == msgs[1]
    for lib in (torch, mt):
        with pytest.raises(TypeError):
            len(lib.utils.data.DataLoader(_Stream.make(lib, 3, with_len=False)))
    assert mt.utils.data.get_worker_info() is None is torch.utils.data.get_worker_info()


@pytest.mark.parametrize("replacement", [True, False])
def test_weighted_and_subset_random_samplers(replacement):
    w = [0.1, 0.5, 0.2, 0.2, 1.0, 0.0, 3.0]
    t = list(torch.utils.data.WeightedRandomSampler(w, 5, replacement, generator=torch.Generator().manual_seed(3)))
    m = list(mt.utils.data.WeightedRandomSampler(w, 5, replacement, generator=mt.Generator().manual_seed(3)))
    assert m == t and len(mt.utils.data.WeightedRandomSampler(w, 5)) == 5
    torch.manual_seed(4)
    mt.manual_seed(4)
    assert list(mt.utils.data.WeightedRandomSampler(w, 6)) == list(torch.utils.data.WeightedRandomSampler(w, 6))
    idx = [5, 6, 7, 8, 20]
    assert list(mt.utils.data.SubsetRandomSampler(idx, generator=mt.Generator().manual_seed(2))) == \
        list(torch.utils.data.SubsetRandomSampler(idx, generator=torch.Generator().manual_seed(2)))
    for lib in (torch, mt):
        with pytest.raises(ValueError, match="num_samples should be a positive integer value"):
            lib.utils.data.WeightedRandomSampler(w, 0)
        with pytest.raises(ValueError, match="weights should be a 1d sequence"):
            lib.utils.data.WeightedRandomSampler([[1.0, 2.0]], 2)


def test_loader_with_weighted_sampler_and_workers_argument():
    x = np.arange(12, dtype=np.float32)
    batches = []
    for lib in (torch, mt):
        sampler = lib.utils.data.WeightedRandomSampler(np.linspace(0.1, 1, 12), 9,
                                                       generator=lib.Generator().manual_seed(0))
        loader = lib.utils.data.DataLoader(lib.utils.data.TensorDataset(lib.tensor(x)), batch_size=4, sampler=sampler,
                                           generator=lib.Generator().manual_seed(1))
        batches.append([b[0].tolist() for b in loader])
    assert batches[0] == batches[1]


def test_stack_dataset():
    pair_ = [lib.utils.data.StackDataset(lib.utils.data.TensorDataset(lib.arange(3)), [10, 11, 12])[1]
             for lib in (torch, mt)]
    assert _show(pair_[1]) == _show(pair_[0])
    m = mt.utils.data.StackDataset(x=[1, 2], y=["a", "b"])
    t = torch.utils.data.StackDataset(x=[1, 2], y=["a", "b"])
    assert m[1] == t[1] and len(m) == len(t)
    assert _show(mt.utils.data.default_collate([m[0], m[1]])) == _show(torch.utils.data.default_collate([t[0], t[1]]))


@pytest.mark.parametrize("kw", [dict(max_norm=1.0), dict(max_norm=1.5, norm_type=1.0), dict(scale_grad_by_freq=True),
                                dict(scale_grad_by_freq=True, padding_idx=3), dict(sparse=True)])
def test_embedding_options(kw):
    te, me = torch.nn.Embedding(6, 3, **kw), mt.nn.Embedding(6, 3, **kw)
    assert repr(me) == repr(te)
    w = R(6, 3, scale=2)
    with torch.no_grad(), mt.no_grad():
        te.weight.copy_(torch.tensor(w))
        me.weight.copy_(mt.tensor(w))
    ids = np.array([[1, 0, 3, 3], [5, 1, 0, 2]])
    to, mo = te(torch.tensor(ids)), me(mt.tensor(ids))
    close(mo, to)
    close(me.weight, te.weight)  # max_norm renormalised the rows used, in place
    g = R(2, 4, 3, seed=1)
    to.backward(torch.tensor(g))
    mo.backward(mt.tensor(g))
    tg = te.weight.grad.to_dense() if te.weight.grad.is_sparse else te.weight.grad
    close(me.weight.grad, tg)


# ---- transformer layers ------------------------------------------------------------------------------

@pytest.mark.parametrize("kw", [dict(), dict(batch_first=True, norm_first=True, activation="gelu"),
                                dict(bias=False, dim_feedforward=16)])
def test_transformer(kw):
    args = (8, 2)
    opts = dict(dict(dim_feedforward=12, dropout=0.0), **kw)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t_layer, m_layer = torch.nn.TransformerEncoderLayer(*args, **opts), mt.nn.TransformerEncoderLayer(*args, **opts)
        t_enc, m_enc = torch.nn.TransformerEncoder(t_layer, 2), mt.nn.TransformerEncoder(m_layer, 2)
    t_dec = torch.nn.TransformerDecoder(torch.nn.TransformerDecoderLayer(*args, **opts), 2, torch.nn.LayerNorm(8))
    m_dec = mt.nn.TransformerDecoder(mt.nn.TransformerDecoderLayer(*args, **opts), 2, mt.nn.LayerNorm(8))
    for t, m in ((t_enc, m_enc), (t_dec, m_dec)):
        assert repr(m) == repr(t)
        assert [n for n, _ in m.named_parameters()] == [n for n, _ in t.named_parameters()]
        copy_weights(t, m)
    bf = kw.get("batch_first", False)
    src, tgt = (R(2, 5, 8), R(2, 4, 8, seed=1)) if bf else (R(5, 2, 8), R(4, 2, 8, seed=1))
    causal_t = torch.nn.Transformer.generate_square_subsequent_mask(4)
    causal_m = mt.nn.Transformer.generate_square_subsequent_mask(4)
    close(causal_m, causal_t)
    kpm = np.zeros((2, 5), bool)
    kpm[0, 4] = True

    def run(enc, dec, lib, causal):
        def f(s, t):
            memory = enc(s, src_key_padding_mask=lib.tensor(kpm))
            return [memory, dec(t, memory, tgt_mask=causal, memory_key_padding_mask=lib.tensor(kpm))]
        return f
    check(run(m_enc, m_dec, mt, causal_m), run(t_enc, t_dec, torch, causal_t), src, tgt, names=False, tol=1e-4)
    for (n, mp), tp in zip(m_dec.named_parameters(), t_dec.parameters()):
        close(mp.grad, tp.grad, 1e-3, n)


@pytest.mark.filterwarnings("ignore:enable_nested_tensor is True")
def test_full_transformer_and_its_warning():
    t, m = (lib.nn.Transformer(8, 2, 1, 1, 16, dropout=0.0) for lib in (torch, mt))
    assert [n for n, _ in m.named_parameters()] == [n for n, _ in t.named_parameters()]
    copy_weights(t, m)
    check(lambda s, g: m(s, g), lambda s, g: t(s, g), R(5, 2, 8), R(3, 2, 8, seed=1), names=False, tol=1e-4)
    for lib in (torch, mt):
        with pytest.warns(UserWarning, match="enable_nested_tensor is True, but self.use_nested_tensor is False"):
            lib.nn.TransformerEncoder(lib.nn.TransformerEncoderLayer(8, 2), 1)


def test_signatures_match():
    """Every new name takes PyTorch's arguments, in PyTorch's order (so positional calls work)."""
    import inspect
    names = ["Bilinear", "Conv1d", "ConvTranspose1d", "ConvTranspose2d", "MaxPool1d", "AvgPool1d", "AdaptiveAvgPool2d",
             "BatchNorm1d", "BatchNorm2d", "LayerNorm", "GroupNorm", "InstanceNorm2d", "RMSNorm", "GELU", "SiLU", "ELU",
             "Softplus", "Hardtanh", "PReLU", "RReLU", "Threshold", "SmoothL1Loss", "HuberLoss", "KLDivLoss",
             "MSELoss", "L1Loss", "PoissonNLLLoss", "GaussianNLLLoss", "TripletMarginLoss", "CosineEmbeddingLoss",
             "MarginRankingLoss", "MultiMarginLoss", "RNNCell", "LSTMCell", "GRUCell", "MultiheadAttention",
             "TransformerEncoderLayer", "TransformerDecoderLayer", "TransformerEncoder", "Transformer", "Upsample",
             "Fold", "Unfold", "CosineSimilarity", "PairwiseDistance", "Embedding"]
    for n in names:
        t = list(inspect.signature(getattr(torch.nn, n).__init__).parameters)
        m = list(inspect.signature(getattr(mt.nn, n).__init__).parameters)
        assert m == t, (n, m, t)
    fnames = ["gelu", "silu", "elu", "softplus", "smooth_l1_loss", "huber_loss", "kl_div", "conv1d", "conv2d",
              "conv_transpose1d", "conv_transpose2d", "adaptive_avg_pool2d", "one_hot", "pad", "normalize",
              "interpolate", "batch_norm", "layer_norm", "group_norm", "instance_norm", "cosine_similarity", "unfold",
              "fold", "avg_pool1d", "avg_pool2d", "mse_loss", "l1_loss", "cross_entropy",
              "nll_loss", "binary_cross_entropy", "binary_cross_entropy_with_logits", "scaled_dot_product_attention",
              "embedding", "pairwise_distance", "triplet_margin_loss", "poisson_nll_loss", "gaussian_nll_loss",
              "dropout1d", "dropout2d", "leaky_relu", "hardtanh", "glu", "rms_norm", "pixel_shuffle"]
    for n in fnames:
        try:
            t = list(inspect.signature(getattr(TF, n)).parameters)
        except ValueError:  # a C function without a Python signature (gelu, silu, ...)
            continue
        m = list(inspect.signature(getattr(MF, n)).parameters)
        assert m == t, (n, m, t)
    for n in ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax", "NAdam", "RAdam"]:
        t = list(inspect.signature(getattr(torch.optim, n).__init__).parameters)
        m = list(inspect.signature(getattr(mt.optim, n).__init__).parameters)
        assert m == t, (n, m, t)
    for n in ["StepLR", "MultiStepLR", "ExponentialLR", "CosineAnnealingLR", "LambdaLR", "ReduceLROnPlateau",
              "OneCycleLR", "LinearLR", "SequentialLR", "CyclicLR", "CosineAnnealingWarmRestarts", "PolynomialLR"]:
        t = list(inspect.signature(getattr(torch.optim.lr_scheduler, n).__init__).parameters)
        m = list(inspect.signature(getattr(mt.optim.lr_scheduler, n).__init__).parameters)
        assert m == t, (n, m, t)
    for n in ["DataLoader", "WeightedRandomSampler", "SubsetRandomSampler", "RandomSampler"]:
        t = list(inspect.signature(getattr(torch.utils.data, n).__init__).parameters)
        m = list(inspect.signature(getattr(mt.utils.data, n).__init__).parameters)
        assert m == t, (n, m, t)


@pytest.mark.filterwarnings("ignore:enable_nested_tensor is True")
@pytest.mark.parametrize("no_grad,training", [(True, False), (False, False), (True, True)])
def test_transformer_encoder_inference_path_zeroes_padding(no_grad, training):
    t, m = (lib.nn.TransformerEncoder(lib.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True), 2,
                                      lib.nn.LayerNorm(8)) for lib in (torch, mt))
    copy_weights(t, m)
    with torch.no_grad(), mt.no_grad():
        m.norm.bias.fill_(0.5)
        t.norm.bias.fill_(0.5)
    t.train(training)
    m.train(training)
    x = R(2, 5, 8)
    kpm = np.zeros((2, 5), bool)
    kpm[0, 3:] = True
    if no_grad:
        with torch.no_grad(), mt.no_grad():
            a = t(torch.tensor(x), src_key_padding_mask=torch.tensor(kpm))
            b = m(mt.tensor(x), src_key_padding_mask=mt.tensor(kpm))
    else:
        a = t(torch.tensor(x), src_key_padding_mask=torch.tensor(kpm))
        b = m(mt.tensor(x), src_key_padding_mask=mt.tensor(kpm))
    close(b, a, 1e-5)


def test_rms_norm_of_half_computes_in_float():
    """x * x of -10000 overflows half: PyTorch's rms_norm squares in float32 (gives -2.0, not 0)."""
    rows = [[-10000.0, 1.5, 2.5, 2.0]]
    m = MF.rms_norm(mt.tensor(rows, dtype=mt.float16), (4,))
    t = TF.rms_norm(torch.tensor(rows, dtype=torch.float16), (4,))
    assert m.dtype is mt.float16
    np.testing.assert_allclose(m.numpy().astype(np.float32), t.numpy().astype(np.float32), rtol=1e-3)
