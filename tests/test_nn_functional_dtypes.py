"""nn.functional over every dtype, against PyTorch 2.13's CPU kernels.

Every public function of `nn.functional` runs on the same inputs in every dtype (bool, uint8 ..
int64, float16, float32, float64; for the losses and other two-operand functions every pair of
input / target dtypes) on PyTorch and on minitorch. Both must agree on whether it raises, the
exception's type (and minitorch's message starts with PyTorch's for the dtype errors
`"mse_cpu" not implemented for 'Long'`), the result's dtype, shape and values (the same NaN and
inf positions), and, for floating inputs, the gradient of every input for a fixed upstream
gradient. The table of cases below is the whole specification; a failure lists every
(function, dtypes) that differs.

    python tests/test_nn_functional_dtypes.py [name ...]    # print the differences, case by case

Skipped when PyTorch is not installed.
"""
from __future__ import annotations

import itertools
import sys
import warnings

import numpy as np
import pytest

import minitorch as mt
import minitorch.nn.functional as MF

try:
    import torch
    import torch.nn.functional as TF
except ImportError:
    torch = TF = None
    if __name__ != "__main__":
        pytest.skip("PyTorch not installed: differential tests skipped", allow_module_level=True)

pytestmark = pytest.mark.torch

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64"]
FLOATS = ["float16", "float32", "float64"]
TOL = {"float16": 2e-3, "float32": 2e-5, "float64": 1e-10}


# ---- inputs ----------------------------------------------------------------------------------------

def _values(shape, seed, lo=-2.5, hi=3.0):
    """Fixed values of a shape: a few multiples of 0.25 (exact in every float dtype; their
    integer conversion keeps some zeros, negatives and repeats)."""
    rng = np.random.default_rng(seed)
    return (np.round(rng.uniform(lo, hi, shape) * 4) / 4).tolist()


X = _values((2, 4), 0)                  # a batch of 2 rows of 4
Y = _values((2, 4), 1)
Z = _values((2, 4), 2)
P = np.round(np.random.default_rng(3).uniform(0, 1, (2, 4)) * 8).clip(0, 8) / 8  # probabilities
P = P.tolist()
SIGN = [[1.0, -1.0, 1.0, -1.0], [-1.0, -1.0, 1.0, 1.0]]
IMG = _values((1, 2, 4, 4), 4)          # (N, C, H, W)
SEQ = _values((1, 2, 6), 5)             # (N, C, L)
V2 = [[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]]


class In:
    """One operand: its values, and a fixed dtype (None: the dtype under test)."""

    def __init__(self, values, dtype=None, grad=True):
        self.values, self.dtype, self.grad = values, dtype, grad


def _make(lib, values, dtype, requires_grad):
    t = torch.tensor(values, dtype=torch.float64)
    if dtype in ("bool", "uint8"):
        t = t.abs()  # (a negative float has no defined uint8 conversion)
    t = t.to(getattr(torch, dtype))
    if lib is torch:
        return t.requires_grad_(requires_grad)
    return mt.tensor(t.tolist(), dtype=getattr(mt, dtype), requires_grad=requires_grad)


class Case:
    """F.<name>-like call `fn(lib, F, *operands)`. `vary`: 'same' runs every dtype for all
    varying operands at once, 'pairs' every pair of dtypes for the two varying operands."""

    def __init__(self, id, fn, *inputs, vary="same", grad=True, values=True, dtypes=DTYPES):  # noqa: A002
        self.id, self.fn, self.inputs, self.vary, self.grad, self.values = id, fn, inputs, vary, grad, values
        self.dtypes = dtypes

    def combos(self):
        n = sum(i.dtype is None for i in self.inputs)
        if self.vary == "pairs" and n == 2:
            return list(itertools.product(self.dtypes, repeat=2))
        return [(d,) * n for d in self.dtypes]

    def operands(self, lib, combo, grad):
        it = iter(combo)
        out = []
        for i in self.inputs:
            dt = i.dtype or next(it)
            rg = grad and self.grad and i.grad and dt in FLOATS
            out.append(_make(lib, i.values, dt, rg))
        return out


# ---- the cases ------------------------------------------------------------------------------------------

def _u(name, *args, **kw):
    """A function of one tensor: F.name(x, *args, **kw)."""
    label = name + ("" if not (args or kw) else "(" + ", ".join([repr(a) for a in args] +
                                                              [f"{k}={v!r}" for k, v in kw.items()]) + ")")
    return Case(label, lambda L, F, x: getattr(F, name)(x, *args, **kw), In(X))


def _inplace(name, *args, **kw):
    """The in-place form on a fresh copy (no autograd leaf), returning the written tensor."""
    def fn(L, F, x):
        x = x.detach().clone()
        out = getattr(F, name)(x, *args, inplace=True, **kw)
        assert out is x
        return x
    return Case(name + "(inplace=True)", fn, In(X), grad=False)


def _loss(name, x=X, y=Y, **kw):
    label = name + ("" if not kw else "(" + ", ".join(f"{k}={v!r}" for k, v in kw.items()) + ")")
    return Case(label, lambda L, F, a, b: getattr(F, name)(a, b, **kw), In(x), In(y), vary="pairs")


ACTIVATIONS = [
    _u("relu"), _u("sigmoid"), _u("tanh"), _u("softsign"), _u("tanhshrink"), _u("gelu"),
    _u("gelu", approximate="tanh"), _u("silu"), _u("mish"), _u("elu"), _u("elu", alpha=0.5), _u("selu"),
    _u("celu"), _u("celu", alpha=2.0), _u("softplus"), _u("softplus", beta=2, threshold=1), _u("logsigmoid"),
    _u("hardtanh"), _u("hardtanh", -2, 1.5), _u("relu6"), _u("leaky_relu"), _u("leaky_relu", 0.2),
    _u("hardsigmoid"), _u("hardswish"), _u("threshold", 0.5, 2.0), _u("threshold", 1, -3), _u("softshrink"),
    _u("softshrink", 1.0), _u("hardshrink"), _u("hardshrink", 1.0), _u("rrelu"), _u("glu"), _u("glu", 0),
    _u("softmax", 1), _u("softmax", 0), _u("log_softmax", 1), _u("softmin", 1),
] + [
    Case("softmax(dim=1, dtype=float64)", lambda L, F, x: F.softmax(x, 1, dtype=L.float64), In(X)),
    Case("log_softmax(dim=0, dtype=float32)", lambda L, F, x: F.log_softmax(x, 0, dtype=L.float32), In(X)),
    Case("prelu", lambda L, F, x, w: F.prelu(x, w), In(X), In([0.25], "float32"), vary="pairs"),
    Case("prelu(same dtype)", lambda L, F, x, w: F.prelu(x, w), In(X), In([0.25, -0.5, 1.0, 2.0])),
    Case("rrelu(training=True)", lambda L, F, x: (L.manual_seed(0), F.rrelu(x, training=True))[1], In(X)),
    Case("dropout(p=0.5)", lambda L, F, x: (L.manual_seed(0), F.dropout(x, 0.5))[1], In(X)),
    Case("dropout(p=nan)", lambda L, F, x: F.dropout(x, float("nan"), training=False), In(X)),
    Case("linear(0-d input)", lambda L, F, x, w: F.linear(x[0, 0], w), In(X), In(Y)),
    Case("dropout(training=False)", lambda L, F, x: F.dropout(x, 0.5, training=False), In(X)),
    Case("dropout(p=0)", lambda L, F, x: F.dropout(x, 0.0), In(X)),
    Case("dropout(p=1)", lambda L, F, x: F.dropout(x, 1.0), In(X)),
    Case("dropout1d", lambda L, F, x: (L.manual_seed(0), F.dropout1d(x, 0.5))[1], In(SEQ)),
    Case("dropout2d", lambda L, F, x: (L.manual_seed(0), F.dropout2d(x, 0.5))[1], In(IMG)),
] + [_inplace(n) for n in ("relu", "elu", "selu", "celu", "hardtanh", "relu6", "leaky_relu", "hardsigmoid",
                           "hardswish", "silu", "mish", "rrelu")] + [
    Case("threshold(inplace=True)", lambda L, F, x: F.threshold(x.detach().clone(), 0.5, 2.0, inplace=True),
         In(X), grad=False),
    Case("relu_", lambda L, F, x: F.relu_(x.detach().clone()), In(X), grad=False),
    Case("elu_", lambda L, F, x: F.elu_(x.detach().clone(), 0.5), In(X), grad=False),
    Case("leaky_relu_", lambda L, F, x: F.leaky_relu_(x.detach().clone(), 0.2), In(X), grad=False),
    Case("hardtanh_", lambda L, F, x: F.hardtanh_(x.detach().clone(), -1.0, 2.0), In(X), grad=False),
    Case("threshold_", lambda L, F, x: F.threshold_(x.detach().clone(), 1.0, -1.0), In(X), grad=False),
    Case("dropout(inplace=True)", lambda L, F, x: (L.manual_seed(0),
                                                   F.dropout(x.detach().clone(), 0.5, inplace=True))[1], In(X)),
]

LOSSES = [
    _loss("mse_loss"), _loss("mse_loss", reduction="none"), _loss("mse_loss", reduction="sum"),
    _loss("l1_loss"), _loss("l1_loss", reduction="none"), _loss("smooth_l1_loss"),
    _loss("smooth_l1_loss", beta=0.5, reduction="none"), _loss("smooth_l1_loss", beta=0.0), _loss("huber_loss"),
    _loss("huber_loss", delta=0.5, reduction="none"), _loss("soft_margin_loss", y=SIGN),
    _loss("soft_margin_loss", y=SIGN, reduction="none"),
    _loss("binary_cross_entropy", x=P, y=P), _loss("binary_cross_entropy", x=P, y=P, reduction="none"),
    _loss("binary_cross_entropy_with_logits", y=P), _loss("binary_cross_entropy_with_logits", y=P, reduction="sum"),
    _loss("kl_div", reduction="batchmean"), _loss("kl_div", reduction="none"),
    _loss("kl_div", reduction="sum", log_target=True),
    _loss("poisson_nll_loss"), _loss("poisson_nll_loss", log_input=False, x=P, full=True),
    _loss("hinge_embedding_loss", y=SIGN), _loss("multilabel_soft_margin_loss", y=P),
    _loss("cross_entropy", y=P), _loss("cross_entropy", y=P, label_smoothing=0.1),
    Case("gaussian_nll_loss", lambda L, F, a, b: F.gaussian_nll_loss(a, b, L.ones(2, 4)), In(X), In(Y),
         vary="pairs"),
    Case("gaussian_nll_loss(var dtype)", lambda L, F, a, v: F.gaussian_nll_loss(a, L.zeros(2, 4), v.abs() + 1),
         In(X), In(Y), vary="pairs"),
    Case("margin_ranking_loss", lambda L, F, a, b: F.margin_ranking_loss(a[0], a[1], b[0]), In(X), In(SIGN),
         vary="pairs"),
    Case("cosine_embedding_loss", lambda L, F, a, b: F.cosine_embedding_loss(a, b, L.tensor([1.0, -1.0])),
         In(X), In(Y), vary="pairs"),
    Case("cosine_embedding_loss(target dtype)",
         lambda L, F, a, t: F.cosine_embedding_loss(a, L.ones(2, 4), t[0, :2]), In(X), In(SIGN), vary="pairs"),
    Case("triplet_margin_loss", lambda L, F, a, b: F.triplet_margin_loss(a, b, b.flip(0)), In(X), In(Y),
         vary="pairs"),
    Case("nll_loss", lambda L, F, a, t: F.nll_loss(a, t), In(X), In([1.0, 3.0]), vary="pairs", grad=True),
    Case("nll_loss(weight)", lambda L, F, a, w: F.nll_loss(a, L.tensor([1, 3]), w), In(X),
         In([1.0, 0.5, 2.0, 1.0]), vary="pairs"),
    Case("nll_loss(none)", lambda L, F, a, t: F.nll_loss(a, t, reduction="none"), In(X), In([1.0, 3.0]),
         vary="pairs"),
    Case("cross_entropy(class ids)", lambda L, F, a, t: F.cross_entropy(a, t), In(X), In([1.0, 3.0]),
         vary="pairs"),
    Case("cross_entropy(label_smoothing=-0.5)", lambda L, F, a, t: F.cross_entropy(a, t, label_smoothing=-0.5),
         In(X), In([0.0, 2.0]), vary="pairs"),
    Case("cross_entropy(label_smoothing=1.5)", lambda L, F, a, t: F.cross_entropy(a, t, label_smoothing=1.5),
         In(X), In([0.0, 2.0])),
    Case("cross_entropy(class ids, smoothing)", lambda L, F, a, t: F.cross_entropy(a, t, label_smoothing=0.2),
         In(X), In([0.0, 2.0]), vary="pairs"),
    Case("multi_margin_loss", lambda L, F, a, t: F.multi_margin_loss(a, t), In(X), In([1.0, 3.0]),
         vary="pairs"),
    Case("binary_cross_entropy(weight)", lambda L, F, a, w: F.binary_cross_entropy(a, a.detach(), w), In(P),
         In(P), vary="pairs"),
    Case("binary_cross_entropy_with_logits(pos_weight)",
         lambda L, F, a, w: F.binary_cross_entropy_with_logits(a, L.full((2, 4), 0.5), pos_weight=w[0]),
         In(X), In(Y), vary="pairs"),
]

NORMS = [
    Case("layer_norm", lambda L, F, x: F.layer_norm(x, (4,)), In(X)),
    Case("layer_norm(weight, bias)", lambda L, F, x, w, b: F.layer_norm(x, (4,), w, b), In(X), In(Y[0]),
         In(Z[0])),
    Case("layer_norm(float32 weight)", lambda L, F, x, w: F.layer_norm(x, (4,), w), In(X),
         In(Y[0], "float32")),
    Case("rms_norm", lambda L, F, x: F.rms_norm(x, (4,)), In(X)),
    Case("rms_norm(weight)", lambda L, F, x, w: F.rms_norm(x, (4,), w), In(X), In(Y[0])),
    Case("rms_norm(float32 weight)", lambda L, F, x, w: F.rms_norm(x, (4,), w), In(X), In(Y[0], "float32")),
    Case("rms_norm(eps=0.1)", lambda L, F, x: F.rms_norm(x, (2, 4), eps=0.1), In(X)),
    Case("group_norm", lambda L, F, x: F.group_norm(x, 2), In(IMG)),
    Case("group_norm(weight)", lambda L, F, x, w: F.group_norm(x, 1, w, w), In(IMG), In([0.5, 2.0])),
    Case("instance_norm", lambda L, F, x: F.instance_norm(x), In(IMG)),
    Case("batch_norm(training)", lambda L, F, x: F.batch_norm(x, None, None, training=True), In(IMG)),
    Case("batch_norm(running stats)",
         lambda L, F, x: F.batch_norm(x, L.zeros(2), L.ones(2), training=True), In(IMG)),
    Case("batch_norm(eval)", lambda L, F, x, m: F.batch_norm(x, m, m.abs() + 1), In(X), In(Y[0]), grad=False),
    Case("batch_norm(eval, float32 stats)", lambda L, F, x: F.batch_norm(x, L.zeros(4), L.ones(4)), In(X)),
    Case("local_response_norm", lambda L, F, x: F.local_response_norm(x, 2), In(IMG)),
    Case("normalize", lambda L, F, x: F.normalize(x), In(X)),
    Case("normalize(p=1, dim=0)", lambda L, F, x: F.normalize(x, 1, 0), In(X)),
    Case("cosine_similarity", lambda L, F, a, b: F.cosine_similarity(a, b), In(X), In(Y), vary="pairs"),
    Case("pairwise_distance", lambda L, F, a, b: F.pairwise_distance(a, b), In(X), In(Y), vary="pairs"),
    Case("pdist", lambda L, F, x: F.pdist(x), In(X)),
]

LAYERS = [
    Case("linear", lambda L, F, x, w: F.linear(x, w), In(X), In(Y), vary="pairs"),
    Case("linear(bias)", lambda L, F, x, w, b: F.linear(x, w, b), In(X), In(Y), In(Z[0][:2])),
    Case("linear(3-D)", lambda L, F, x, w: F.linear(x.reshape(2, 2, 2), w[:, :2]), In(X), In(Y)),
    Case("bilinear", lambda L, F, a, b, w: F.bilinear(a, b, w.reshape(1, 4, 2)), In(X), In([[0.5, 1.0]] * 2),
         In(Z)),
    Case("conv1d", lambda L, F, x, w: F.conv1d(x, w), In(SEQ), In(_values((3, 2, 2), 6))),
    Case("conv1d(float32 weight)", lambda L, F, x, w: F.conv1d(x, w), In(SEQ), In(_values((3, 2, 2), 6), "float32")),
    Case("conv2d", lambda L, F, x, w: F.conv2d(x, w, padding=1), In(IMG), In(_values((3, 2, 2, 2), 7))),
    Case("conv2d(bias)", lambda L, F, x, w, b: F.conv2d(x, w, b), In(IMG), In(_values((3, 2, 2, 2), 7)),
         In([0.5, -1.0, 2.0])),
    Case("conv_transpose1d", lambda L, F, x, w: F.conv_transpose1d(x, w, stride=2), In(SEQ),
         In(_values((2, 3, 2), 8))),
    Case("conv_transpose2d", lambda L, F, x, w: F.conv_transpose2d(x, w), In(IMG), In(_values((2, 1, 2, 2), 9))),
    Case("unfold", lambda L, F, x: F.unfold(x, 2), In(IMG)),
    Case("fold", lambda L, F, x: F.fold(x.reshape(1, 8, 4), (3, 3), 2), In(_values((32,), 10))),
    Case("embedding", lambda L, F, i, w: F.embedding(i, w), In([[1.0, 0.0], [2.0, 1.0]]), In(V2 + V2[:1]),
         vary="pairs"),
    Case("embedding(padding_idx)", lambda L, F, i, w: F.embedding(i, w, padding_idx=0), In([1.0, 0.0, 2.0]),
         In(V2 + V2[:1], "float32")),
    Case("one_hot", lambda L, F, t: F.one_hot(t, 4), In([1.0, 0.0, 3.0])),
    Case("one_hot(-1)", lambda L, F, t: F.one_hot(t), In([1.0, 0.0, 3.0])),
    Case("scaled_dot_product_attention", lambda L, F, q, k, v: F.scaled_dot_product_attention(q, k, v),
         In([X]), In([Y]), In([Z])),
    Case("scaled_dot_product_attention(mixed)", lambda L, F, q, k: F.scaled_dot_product_attention(q, k, k),
         In([X]), In([Y]), vary="pairs"),
    Case("scaled_dot_product_attention(mask)",
         lambda L, F, q, m: F.scaled_dot_product_attention(q, q, q, attn_mask=m), In([X]),
         In([[1.0, 0.0], [0.0, 1.0]], grad=False), vary="pairs"),
    Case("flatten", lambda L, F, x: x.flatten() if L is torch else F.flatten(x), In(IMG)),
]

POOLS = [
    Case("max_pool2d", lambda L, F, x: F.max_pool2d(x, 2), In(IMG)),
    Case("max_pool2d(stride=1, padding=1)", lambda L, F, x: F.max_pool2d(x, 3, 1, 1), In(IMG)),
    Case("max_pool2d(return_indices)", lambda L, F, x: F.max_pool2d(x, 2, return_indices=True), In(IMG)),
    Case("max_pool1d", lambda L, F, x: F.max_pool1d(x, 2), In(SEQ)),
    Case("max_pool1d(ceil_mode)", lambda L, F, x: F.max_pool1d(x, 4, ceil_mode=True), In(SEQ)),
    Case("avg_pool2d", lambda L, F, x: F.avg_pool2d(x, 2), In(IMG)),
    Case("avg_pool2d(padding=1)", lambda L, F, x: F.avg_pool2d(x, 2, padding=1, count_include_pad=False), In(IMG)),
    Case("avg_pool1d", lambda L, F, x: F.avg_pool1d(x, 3), In(SEQ)),
    Case("lp_pool2d", lambda L, F, x: F.lp_pool2d(x, 2, 2), In(IMG)),
    Case("lp_pool1d", lambda L, F, x: F.lp_pool1d(x, 1, 2), In(SEQ)),
    Case("adaptive_avg_pool2d", lambda L, F, x: F.adaptive_avg_pool2d(x, 3), In(IMG)),
    Case("adaptive_avg_pool2d(1)", lambda L, F, x: F.adaptive_avg_pool2d(x, 1), In(IMG)),
    Case("adaptive_avg_pool1d", lambda L, F, x: F.adaptive_avg_pool1d(x, 4), In(SEQ)),
    Case("adaptive_max_pool2d", lambda L, F, x: F.adaptive_max_pool2d(x, 3), In(IMG)),
    Case("adaptive_max_pool2d(return_indices)", lambda L, F, x: F.adaptive_max_pool2d(x, 2, True), In(IMG)),
    Case("adaptive_max_pool1d", lambda L, F, x: F.adaptive_max_pool1d(x, 4), In(SEQ)),
]

RESHAPES = [
    Case(f"pad({mode})", lambda L, F, x, mode=mode: F.pad(x, (1, 2), mode=mode), In(SEQ))
    for mode in ("constant", "reflect", "replicate", "circular")
] + [
    Case("pad(constant, value=2.5)", lambda L, F, x: F.pad(x, (1, 1, 0, 1), value=2.5), In(X)),
    Case("pad(constant, value=-1)", lambda L, F, x: F.pad(x, (1, 1), value=-1), In(X)),
    Case("pad(2-D, reflect)", lambda L, F, x: F.pad(x, (1, 1, 1, 1), mode="reflect"), In(IMG)),
    Case("pad(negative)", lambda L, F, x: F.pad(x, (-1, 1)), In(X)),
    Case("pixel_shuffle", lambda L, F, x: F.pixel_shuffle(x.reshape(1, 4, 2, 4), 2), In(IMG)),
    Case("pixel_unshuffle", lambda L, F, x: F.pixel_unshuffle(x, 2), In(IMG)),
] + [
    Case(f"interpolate({mode})", lambda L, F, x, mode=mode: F.interpolate(x, scale_factor=2, mode=mode), In(IMG))
    for mode in ("nearest", "nearest-exact", "bilinear", "bicubic", "area")
] + [
    Case("interpolate(linear)", lambda L, F, x: F.interpolate(x, size=9, mode="linear"), In(SEQ)),
    Case("interpolate(nearest, 1-D)", lambda L, F, x: F.interpolate(x, size=9), In(SEQ)),
    Case("interpolate(bilinear, align_corners)",
         lambda L, F, x: F.interpolate(x, size=(3, 5), mode="bilinear", align_corners=True), In(IMG)),
]

CASES = ACTIVATIONS + LOSSES + NORMS + LAYERS + POOLS + RESHAPES
FAMILIES = {"activations": ACTIVATIONS, "losses": LOSSES, "norms": NORMS, "layers": LAYERS, "pools": POOLS,
            "reshapes": RESHAPES}


# ---- running and comparing ---------------------------------------------------------------------------

def _run(lib, case, combo, grad):
    F = TF if lib is torch else MF
    ops = case.operands(lib, combo, grad)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            out = case.fn(lib, F, *ops)
        except Exception as e:  # noqa: BLE001
            return ops, e
    return ops, out


def _arrays(out):
    return list(out) if isinstance(out, (tuple, list)) else [out]


def _np(t):
    return np.asarray(t.detach().numpy())


def _same_values(m, t, dt, inputs=()):
    """Equal values: exact for integers and bools; for floats to the tolerance of the result's
    dtype, or of the least precise floating input (a float64 result of float32 data is only
    as exact as float32), with the same NaN and inf positions."""
    m, t = _np(m), _np(t)
    if m.shape != t.shape:
        return f"shape {m.shape} != {t.shape}"
    if dt not in TOL:
        return None if np.array_equal(m, t) else f"values {m.tolist()} != {t.tolist()}"
    m64, t64 = m.astype(np.float64), t.astype(np.float64)
    if not np.array_equal(np.isnan(m64), np.isnan(t64)):
        return f"nan positions {m.tolist()} != {t.tolist()}"
    fin = np.isfinite(t64)
    if not np.array_equal(m64[~fin & ~np.isnan(t64)], t64[~fin & ~np.isnan(t64)]):
        return f"inf positions {m.tolist()} != {t.tolist()}"
    tol = max([TOL[dt]] + [TOL[_dname(i)] for i in inputs if _dname(i) in TOL])
    ok = np.isclose(m64, t64, rtol=tol, atol=tol, equal_nan=True)
    return None if ok.all() else f"values {m.tolist()} != {t.tolist()}"


def _dname(t):
    return str(t.dtype).rsplit(".", 1)[-1]


def compare(case, combo, grad=True):
    """None when both libraries agree on `case` in the dtypes `combo`; else what differs."""
    t_ops, t_out = _run(torch, case, combo, grad)
    m_ops, m_out = _run(mt, case, combo, grad)
    t_err, m_err = isinstance(t_out, Exception), isinstance(m_out, Exception)
    if t_err or m_err:
        if t_err != m_err:
            return (f"PyTorch {'raises ' + type(t_out).__name__ + ': ' + str(t_out)[:150] if t_err else 'runs'}, "
                    f"minitorch {'raises ' + type(m_out).__name__ + ': ' + str(m_out)[:150] if m_err else 'runs'}")
        if type(t_out).__name__ != type(m_out).__name__:
            return f"PyTorch raises {type(t_out).__name__}: {t_out}, minitorch {type(m_out).__name__}: {m_out}"
        t_msg = str(t_out).strip()
        if "not implemented for" in t_msg and not str(m_out).startswith(t_msg):
            return f"message: PyTorch {t_msg!r}, minitorch {str(m_out)!r}"
        return None
    touts, mouts = _arrays(t_out), _arrays(m_out)
    if len(touts) != len(mouts):
        return f"{len(touts)} results != {len(mouts)}"
    for i, (t, m) in enumerate(zip(touts, mouts)):
        if _dname(t) != _dname(m):
            return f"result {i} dtype: PyTorch {_dname(t)}, minitorch {_dname(m)}"
        diff = _same_values(m, t, _dname(t), t_ops)
        if diff:
            return f"result {i} {diff}"
    if not grad:
        return None
    # the gradient of every floating input, for a fixed upstream gradient
    pairs = [(t, m) for t, m in zip(touts, mouts) if t.requires_grad]
    if [m.requires_grad for m in mouts] != [t.requires_grad for t in touts]:
        return (f"requires_grad: PyTorch {[t.requires_grad for t in touts]}, minitorch "
                f"{[m.requires_grad for m in mouts]}")
    if not pairs:
        return None
    errs = []
    for lib, outs in ((torch, [p[0] for p in pairs]), (mt, [p[1] for p in pairs])):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                gs = [lib.tensor(np.linspace(-1, 1, max(o.numel(), 1))[:o.numel()].reshape(tuple(o.shape)).tolist(),
                                 dtype=o.dtype) for o in outs]
                lib.autograd.backward(outs, gs)
            errs.append(None)
        except Exception as e:  # noqa: BLE001
            errs.append(e)
    if (errs[0] is None) != (errs[1] is None):
        return f"backward: PyTorch {errs[0]!r}, minitorch {errs[1]!r}"
    if errs[0] is not None:
        return None if type(errs[0]).__name__ == type(errs[1]).__name__ else f"backward: {errs[0]!r} vs {errs[1]!r}"
    for i, (t, m) in enumerate(zip(t_ops, m_ops)):
        if not t.requires_grad:
            continue
        if (t.grad is None) != (m.grad is None):
            return f"grad of input {i}: PyTorch {t.grad}, minitorch {m.grad}"
        if t.grad is None:
            continue
        if _dname(t.grad) != _dname(m.grad):
            return f"grad of input {i} dtype: PyTorch {_dname(t.grad)}, minitorch {_dname(m.grad)}"
        diff = _same_values(m.grad, t.grad, _dname(t.grad), t_ops)
        if diff:
            return f"grad of input {i}: {diff}"
    return None


# Differences still open, each (case id, dtypes or None for all) with its reason. Narrow an entry
# when its cause is fixed; never widen one to make a new difference pass.
OPEN = [
    ("log_softmax(dim=0, dtype=float32)", ("float64",), "the core's log_softmax(dtype=) backward rounds its "
     "gradient through float32 differently from PyTorch's"),
    ("poisson_nll_loss", None, "mixed-precision compositions: PyTorch's exp of an integer input is float32, then "
     "promoted; a float16 input with integer targets keeps float16 in PyTorch's full=True term"),
    ("poisson_nll_loss(log_input=False, full=True)", None, "as above"),
    ("binary_cross_entropy_with_logits(pos_weight)", None, "an integer pos_weight: PyTorch computes pos_weight - 1 "
     "in its integer dtype (uint8 wraps)"),
    ("interpolate(bilinear)", ("uint8",), "PyTorch's uint8 resampling uses fixed-point weights; minitorch rounds "
     "the float result"),
    ("interpolate(bicubic)", ("uint8",), "as above"),
    ("interpolate(bilinear, align_corners)", ("uint8",), "as above"),
]


def _open(case, combo):
    return any(case.id == cid and (dts is None or tuple(combo) == dts) for cid, dts, _ in OPEN)


def differences(cases, include_open=False):
    out = []
    for case in cases:
        for combo in case.combos():
            if not include_open and _open(case, combo):
                continue
            diff = compare(case, combo)
            if diff:
                out.append(f"{case.id} {combo}: {diff}")
    return out


@pytest.mark.parametrize("family", list(FAMILIES))
def test_every_dtype_matches_pytorch(family):
    diffs = differences(FAMILIES[family])
    assert not diffs, f"{len(diffs)} differences from PyTorch:\n" + "\n".join(diffs[:60])


if __name__ == "__main__":
    wanted = sys.argv[1:]
    chosen = [c for c in CASES if not wanted or any(w in c.id for w in wanted)]
    found = differences(chosen, include_open=True)
    print("\n".join(found))
    print(f"{len(chosen)} cases, {sum(len(c.combos()) for c in chosen)} calls, {len(found)} differences")
