"""The breadth of nn / optim / data without PyTorch: numerical gradient checks of every new
differentiable piece (first and second derivatives), and behaviour checked against NumPy
or against hand-derived values."""
from __future__ import annotations

import inspect
import math
import warnings

import numpy as np
import pytest

import minitorch as torch
import minitorch.nn.functional as F
from minitorch import nn, optim
from minitorch.autograd import gradcheck, gradgradcheck
from minitorch.nn.utils.weight_norm import WeightNormInterface
from minitorch.utils import data


def f64(*shape, seed=0, requires_grad=True, scale=1.0):
    a = np.random.default_rng(seed).standard_normal(shape) * scale
    return torch.tensor(a, dtype=torch.float64, requires_grad=requires_grad)


def pos(*shape, seed=0, lo=0.1, hi=0.9):
    a = np.random.default_rng(seed).uniform(lo, hi, shape)
    return torch.tensor(a, dtype=torch.float64, requires_grad=True)


# ---- gradient checks ----------------------------------------------------------------------------

GRADCHECKS = {
    "embedding_bag": (lambda w, p: F.embedding_bag(torch.tensor([1, 2, 4, 5, 4, 3, 2, 9]), w, torch.tensor([0, 3, 5]),
                                                   mode="sum", per_sample_weights=p, padding_idx=2),
                      lambda: (f64(10, 3), f64(8, seed=1))),
    "weight_norm": (lambda v, g: WeightNormInterface.apply(v, g, dim=0), lambda: (f64(4, 3, 5), f64(4, 1, 1, seed=1))),
    "conv2d_groups": (lambda x, w, b: F.conv2d(x, w, b, stride=2, padding=1, groups=2),
                      lambda: (f64(1, 4, 5, 4), f64(4, 2, 3, 3, seed=1), f64(4, seed=2))),
    "conv1d_dilated": (lambda x, w: F.conv1d(x, w, dilation=2, padding="same"),
                       lambda: (f64(2, 2, 7), f64(3, 2, 3, seed=1))),
    "conv_transpose2d": (lambda x, w, b: F.conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1, groups=2),
                         lambda: (f64(1, 4, 3, 3), f64(4, 1, 3, 3, seed=1), f64(2, seed=2))),
    "conv_transpose1d": (lambda x, w: F.conv_transpose1d(x, w, stride=3, dilation=2, output_padding=1),
                         lambda: (f64(2, 2, 4), f64(2, 3, 2, seed=1))),
    "max_pool_ceil": (lambda x: F.max_pool2d(x, 3, 2, 1, ceil_mode=True), lambda: (f64(1, 2, 6, 5),)),
    "max_pool1d": (lambda x: F.max_pool1d(x, 2, ceil_mode=True), lambda: (f64(2, 2, 7),)),
    "avg_pool_exclude_pad": (lambda x: F.avg_pool2d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False),
                             lambda: (f64(1, 2, 6, 5),)),
    "avg_pool1d": (lambda x: F.avg_pool1d(x, 3, 2, 1), lambda: (f64(2, 2, 7),)),
    "adaptive_avg": (lambda x: F.adaptive_avg_pool2d(x, (3, 2)), lambda: (f64(1, 2, 5, 7),)),
    "adaptive_max": (lambda x: F.adaptive_max_pool2d(x, (2, 3)), lambda: (f64(1, 2, 5, 7),)),
    "pad_reflect": (lambda x: F.pad(x, (2, 1, 1, 2), mode="reflect"), lambda: (f64(1, 2, 4, 4),)),
    "pad_replicate": (lambda x: F.pad(x, (2, 1), mode="replicate"), lambda: (f64(2, 3, 4),)),
    "pad_circular": (lambda x: F.pad(x, (-1, 2, 1, 1), mode="circular"), lambda: (f64(1, 2, 3, 4),)),
    "pad_constant_crop": (lambda x: F.pad(x, (1, -1, -1, 2), value=0.5), lambda: (f64(2, 3, 4),)),
    "interpolate_bilinear": (lambda x: F.interpolate(x, scale_factor=1.7, mode="bilinear"), lambda: (f64(1, 2, 3, 4),)),
    "interpolate_bicubic": (lambda x: F.interpolate(x, size=(5, 3), mode="bicubic", align_corners=True),
                            lambda: (f64(1, 1, 3, 4),)),
    "interpolate_nearest": (lambda x: F.interpolate(x, scale_factor=2), lambda: (f64(1, 2, 3),)),
    "interpolate_trilinear": (lambda x: F.interpolate(x, size=(3, 2, 3), mode="trilinear"),
                              lambda: (f64(1, 1, 2, 3, 2),)),
    "unfold_fold": (lambda x: F.fold(F.unfold(x, 2, padding=1), (4, 5), 2, padding=1), lambda: (f64(1, 2, 4, 5),)),
    "batch_norm_train": (lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True),
                         lambda: (f64(4, 3, 2), f64(3, seed=1), f64(3, seed=2))),
    "batch_norm_eval": (lambda x, w: F.batch_norm(x, torch.zeros(3, dtype=torch.float64),
                                                  torch.ones(3, dtype=torch.float64) * 2, w),
                        lambda: (f64(4, 3), f64(3, seed=1))),
    "layer_norm": (lambda x, w, b: F.layer_norm(x, (4,), w, b), lambda: (f64(3, 4), f64(4, seed=1), f64(4, seed=2))),
    "group_norm": (lambda x, w, b: F.group_norm(x, 2, w, b), lambda: (f64(2, 4, 3), f64(4, seed=1), f64(4, seed=2))),
    "instance_norm": (lambda x: F.instance_norm(x), lambda: (f64(2, 3, 5),)),
    "rms_norm": (lambda x, w: F.rms_norm(x, (4,), w), lambda: (f64(3, 4), f64(4, seed=1))),
    "normalize": (lambda x: F.normalize(x, dim=-1), lambda: (f64(3, 4),)),
    "cosine_similarity": (lambda x, y: F.cosine_similarity(x, y), lambda: (f64(3, 4), f64(3, 4, seed=1))),
    "local_response_norm": (lambda x: F.local_response_norm(x, 3), lambda: (f64(1, 4, 3, 2),)),
    "mse": (lambda x, y: F.mse_loss(x, y), lambda: (f64(3, 4), f64(3, 4, seed=1))),
    "smooth_l1": (lambda x, y: F.smooth_l1_loss(x, y, beta=0.5, reduction="sum"),
                  lambda: (f64(3, 4, scale=2), f64(3, 4, seed=1))),
    "huber": (lambda x, y: F.huber_loss(x, y, delta=0.7), lambda: (f64(3, 4, scale=2), f64(3, 4, seed=1))),
    "bce": (lambda x, y: F.binary_cross_entropy(x, y), lambda: (pos(3, 4), pos(3, 4, seed=1))),
    "bce_logits": (lambda x, y: F.binary_cross_entropy_with_logits(
        x, y, pos_weight=torch.tensor([1.0, 2.0, 0.5, 3.0], dtype=torch.float64)),
        lambda: (f64(3, 4), pos(3, 4, seed=1))),
    "soft_margin": (lambda x: F.soft_margin_loss(x, torch.tensor([1.0, -1.0, 1.0], dtype=torch.float64)),
                    lambda: (f64(3),)),
    "kl_div": (lambda x, y: F.kl_div(x, y, reduction="batchmean"), lambda: (f64(3, 4), pos(3, 4, seed=1))),
    "nll_spatial": (lambda x: F.nll_loss(x.log_softmax(1), torch.tensor([[0, 2, -100], [1, 1, 0]])),
                    lambda: (f64(2, 3, 3),)),
    "nll_none_weighted": (lambda x, w: F.nll_loss(x.log_softmax(1) * w, torch.tensor([3, -100, 0]), reduction="none"),
                          lambda: (f64(3, 4), f64(4, seed=1))),
    "cross_entropy_smoothing": (lambda x: F.cross_entropy(x, torch.tensor([0, 2, 1]), label_smoothing=0.2),
                                lambda: (f64(3, 4),)),
    "gelu": (lambda x: F.gelu(x), lambda: (f64(3, 4, scale=2),)),
    "gelu_tanh": (lambda x: F.gelu(x, approximate="tanh"), lambda: (f64(3, 4, scale=2),)),
    "silu_mish": (lambda x: F.silu(x) + F.mish(x), lambda: (f64(3, 4, scale=2),)),
    "elu_selu_celu": (lambda x: F.elu(x) + F.selu(x) + F.celu(x, 0.7), lambda: (f64(3, 4, scale=2),)),
    "softplus_logsigmoid": (lambda x: F.softplus(x, beta=2) + F.logsigmoid(x), lambda: (f64(3, 4, scale=2),)),
    "hard_activations": (lambda x: F.hardswish(x) + F.hardsigmoid(x) + F.hardtanh(x, -2, 2) + F.leaky_relu(x, 0.3),
                         lambda: (f64(3, 4, scale=2),)),
    "glu": (lambda x: F.glu(x, 0), lambda: (f64(4, 3),)),
    "rrelu_train": (lambda x: (torch.manual_seed(0), F.rrelu(x, training=True))[1], lambda: (f64(3, 4),)),
    "shrink_threshold": (lambda x: F.softshrink(x, 0.3) + F.hardshrink(x, 0.3) + F.threshold(x, 0.1, 2.0),
                         lambda: (f64(3, 4, scale=2),)),
    "erf": (lambda x: __import__("minitorch.nn._activation", fromlist=["Erf"]).Erf.apply(x), lambda: (f64(3, 4),)),
    # (padding_idx and scale_grad_by_freq change the gradient on purpose: checked against PyTorch instead)
    "embedding": (lambda w: F.embedding(torch.tensor([[0, 2, 2], [1, 0, 3]]), w), lambda: (f64(4, 3),)),
    "linear": (lambda x, w, b: F.linear(x, w, b) + F.linear(x, w),
               lambda: (f64(3, 4), f64(2, 4, seed=1), f64(2, seed=2))),
    "max_pool_double": (lambda x: F.max_pool2d(x, 2, 1), lambda: (f64(1, 2, 4, 4),)),
    # kernel = stride, no padding: the windows tile the image (the last row and column left out)
    "max_pool_tiled": (lambda x: F.max_pool2d(x, (2, 3)), lambda: (f64(2, 2, 5, 7),)),
    "prelu": (lambda x, w: F.prelu(x, w), lambda: (f64(2, 3, 2), pos(3, seed=1))),
    # an empty batch: zero gradients for the weight and bias (PyTorch computes it without its kernels)
    "conv_empty_batch": (lambda x, w, b: F.conv2d(x, w, b, padding=1).sum() + F.conv_transpose2d(x, w, b).sum(),
                         lambda: (f64(0, 2, 3, 3), f64(2, 2, 2, 2, seed=1), f64(2, seed=2))),
    "bilinear": (lambda a, b, w, c: F.bilinear(a, b, w, c),
                 lambda: (f64(2, 3), f64(2, 2, seed=1), f64(4, 3, 2, seed=2), f64(4, seed=3))),
    "attention": (lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True),
                  lambda: (f64(1, 3, 4), f64(1, 3, 4, seed=1), f64(1, 3, 4, seed=2))),
    "pixel_shuffle": (lambda x, y: (F.pixel_shuffle(x, 2) ** 2).sum() + (F.pixel_unshuffle(y, 2) ** 3).sum(),
                      lambda: (f64(1, 8, 2, 3), f64(2, 1, 4, 6, seed=1))),
    "max_pool3d": (lambda x: F.max_pool3d(x, 2, 1, padding=1), lambda: (f64(1, 2, 3, 3, 2),)),
    "max_pool3d_tiled": (lambda x: F.max_pool3d(x, 2), lambda: (f64(1, 2, 4, 2, 2),)),
    "avg_pool3d": (lambda x: F.avg_pool3d(x, 2, 1, 1, count_include_pad=False), lambda: (f64(1, 2, 3, 3, 2),)),
    "adaptive_pool3d": (lambda x: F.adaptive_avg_pool3d(x, (2, 2, 3)) + F.adaptive_max_pool3d(x, (2, 2, 3)),
                        lambda: (f64(1, 2, 3, 5, 4),)),
    "grid_sample": (lambda x, g: F.grid_sample(x, g * 0.9, padding_mode="reflection", align_corners=False),
                    lambda: (f64(1, 2, 3, 4), f64(1, 3, 2, 2, seed=1))),
    "grid_sample_3d": (lambda x, g: F.grid_sample(x, g * 0.6, align_corners=True),
                       lambda: (f64(1, 2, 2, 3, 3), f64(1, 2, 2, 1, 3, seed=1))),
    "affine_grid": (lambda t: F.affine_grid(t, (2, 1, 3, 4), align_corners=False), lambda: (f64(2, 2, 3),)),
    "channel_shuffle": (lambda x: F.channel_shuffle(x, 2), lambda: (f64(2, 4, 3),)),
    "max_unpool": (lambda x, y: F.max_unpool2d(x, torch.tensor([[[[0, 3], [9, 14]]]]), 2).sum()
                   + F.max_unpool3d(y, torch.tensor([[[[[0, 7]], [[9, 17]]]]]), 2, 1).sum(),
                   lambda: (f64(1, 1, 2, 2), f64(1, 1, 2, 1, 2, seed=1))),
    "multilabel_margin_loss": (lambda x: F.multilabel_margin_loss(x, torch.tensor([[3, 0, -1, 1, 2], [0, 1, 2, 3, 4]])),
                               lambda: (f64(2, 5),)),
    # (through log_softmax: PyTorch's ctc gradient formula is exact only for log-probabilities)
    "ctc_loss": (lambda x: F.ctc_loss(x.log_softmax(2), torch.tensor([[1, 2], [3, 3]]), [5, 4], [2, 2]),
                 lambda: (f64(5, 2, 4),)),
    "fractional_max_pool": (lambda x, y: F.fractional_max_pool2d(x, 2, (3, 2), _random_samples=torch.tensor(
        [[[0.3, 0.8], [0.6, 0.1]]], dtype=torch.float64)).sum() + F.fractional_max_pool3d(
        y, 2, 2, _random_samples=torch.tensor([[[0.2, 0.5, 0.9]]], dtype=torch.float64)).sum() * 2,
                            lambda: (f64(1, 2, 5, 4), f64(1, 1, 4, 4, 4, seed=1))),
}


@pytest.mark.parametrize("name", sorted(GRADCHECKS))
def test_gradcheck(name):
    fn, make = GRADCHECKS[name]
    assert gradcheck(fn, make())


SECOND_ORDER = ["max_pool3d", "avg_pool3d", "adaptive_pool3d", "affine_grid", "channel_shuffle", "max_unpool",
                "max_pool_double", "max_pool_tiled", "embedding", "linear", "adaptive_max", "pad_constant_crop", "unfold_fold",
                "conv2d_groups", "conv_transpose2d", "avg_pool_exclude_pad", "adaptive_avg", "pad_reflect",
                "interpolate_bilinear", "batch_norm_train", "layer_norm", "group_norm", "mse", "huber", "bce_logits",
                "nll_spatial", "nll_none_weighted", "gelu", "silu_mish", "elu_selu_celu", "softplus_logsigmoid", "attention", "pixel_shuffle",
                "fractional_max_pool"]


@pytest.mark.parametrize("name", SECOND_ORDER)
def test_gradgradcheck(name):
    fn, make = GRADCHECKS[name]
    assert gradgradcheck(fn, make())


# which checks above exercise each primitive of nn (its forward, and through second derivatives its backward)
NN_COVERAGE = {
    "EmbeddingBagOp": ["embedding_bag"], "WeightNormInterface": ["weight_norm"],
    "Addmm": ["linear"], "Mm": ["linear"], "EmbeddingLookup": ["embedding"], "EmbeddingDense": ["embedding"],
    "Im2Col": ["unfold_fold"], "Col2Im": ["unfold_fold"], "Conv2d": ["conv2d_groups", "conv1d_dilated"],
    "ConvTranspose2d": ["conv_transpose2d", "conv_transpose1d"], "MaxPool2d": ["max_pool_ceil", "max_pool1d"],
    "TiledMaxPool2d": ["max_pool_tiled"], "Im2ColLast": ["conv2d_groups"], "Col2ImLast": ["conv2d_groups"],
    "PoolGather": ["max_pool_double"], "PoolScatter": ["max_pool_double"], "AvgPool2d": ["avg_pool_exclude_pad"],
    "AdaptiveAvgPool2d": ["adaptive_avg"], "AdaptiveMaxPool2d": ["adaptive_max"], "MseLoss": ["mse"],
    "SmoothL1Loss": ["smooth_l1"], "HuberLoss": ["huber"], "SoftMarginLoss": ["soft_margin"],
    "BinaryCrossEntropy": ["bce"], "BinaryCrossEntropyWithLogits": ["bce_logits"],
    "NllLoss": ["cross_entropy_smoothing"], "NllLossGrad": ["nll_spatial", "nll_none_weighted"],
    "NllLoss2d": ["nll_spatial"], "Erf": ["erf", "gelu"], "Gelu": ["gelu", "gelu_tanh"], "Silu": ["silu_mish"],
    "Mish": ["silu_mish"], "Elu": ["elu_selu_celu"], "Celu": ["elu_selu_celu"], "Softplus": ["softplus_logsigmoid"],
    "LogSigmoid": ["softplus_logsigmoid"], "Hardtanh": ["hard_activations"], "LeakyRelu": ["hard_activations"],
    "Hardsigmoid": ["hard_activations"], "Hardswish": ["hard_activations"], "Threshold": ["shrink_threshold"],
    "Softshrink": ["shrink_threshold"], "Hardshrink": ["shrink_threshold"], "Glu": ["glu"], "RreluWithNoise": ["rrelu_train"],
    "Normalize": ["layer_norm"], "BatchNorm": ["batch_norm_train", "batch_norm_eval"], "GroupNorm": ["group_norm"],
    "ConstantPadNd": ["pad_constant_crop"], "IndexPadAdd": ["pad_reflect"], "ReflectionPad2D": ["pad_reflect"],
    "ReplicationPad1D": ["pad_replicate"], "CopySlices": ["pad_circular"],
    "UpsampleBilinear2D": ["interpolate_bilinear"],
    "UpsampleBicubic2D": ["interpolate_bicubic"], "UpsampleNearest1D": ["interpolate_nearest"],
    "UpsampleTrilinear3D": ["interpolate_trilinear"], "PixelShuffle": ["pixel_shuffle"],
    "PixelUnshuffle": ["pixel_shuffle"],
    "MaxPool3d": ["max_pool3d"], "TiledMaxPool3d": ["max_pool3d_tiled"], "AvgPool3d": ["avg_pool3d"],
    "AdaptiveAvgPool3d": ["adaptive_pool3d"], "AdaptiveMaxPool3d": ["adaptive_pool3d"], "GridSample": ["grid_sample"],
    "GridSample3d": ["grid_sample_3d"], "AffineGrid": ["affine_grid"], "ChannelShuffle": ["channel_shuffle"],
    "MaxUnpool2d": ["max_unpool"], "MaxUnpool3d": ["max_unpool"],
    "FractionalMaxPool2d": ["fractional_max_pool"], "FractionalMaxPool3d": ["fractional_max_pool"],
    "MultilabelMarginLoss": ["multilabel_margin_loss"], "CtcLoss": ["ctc_loss"], "PreluKernel": ["prelu"],
    "SafeSoftmax": ["attention"], "EmptyConvolution": ["conv_empty_batch"], "Trilinear": ["bilinear"],
}


def test_every_nn_primitive_has_a_gradient_check():
    from minitorch._ops._prim import Primitive
    seen, stack = set(), [Primitive]
    while stack:
        for sub in stack.pop().__subclasses__():
            stack.append(sub)
            concrete = sub.__module__.startswith("minitorch.nn") and not sub.__name__.startswith("_")
            if concrete and sub.__name__ not in ("IndexPad", "Resample"):  # the bases of the named variants
                seen.add(sub.__name__)
    variants = {n for n in seen if n.startswith(("ReflectionPad", "ReplicationPad", "Upsample", "IndexPadBackward"))}
    missing = sorted(seen - set(NN_COVERAGE) - variants)
    assert not missing, f"nn primitives without a gradient check: {missing}"
    for names in NN_COVERAGE.values():
        assert all(n in GRADCHECKS for n in names)


def test_gradcheck_recurrent_and_attention_modules():
    for mod, x in [(nn.LSTM(3, 2, num_layers=2, bidirectional=True).double(), f64(4, 2, 3)),
                   (nn.GRU(3, 2, batch_first=True).double(), f64(2, 4, 3)),
                   (nn.RNN(3, 2, nonlinearity="relu").double(), f64(4, 2, 3))]:
        assert gradcheck(lambda t: mod(t)[0], (x,))
    mha = nn.MultiheadAttention(4, 2, batch_first=True).double()
    assert gradcheck(lambda q: mha(q, q, q)[0], (f64(2, 3, 4),))


def test_erf_matches_math_erf():
    from minitorch.nn._activation import erf_array
    x = np.concatenate([np.linspace(-7, 7, 20001), [0.0, 2.2, 2.0, -2.2, 1e-300, np.inf, -np.inf]])
    ref = np.array([math.erf(v) for v in x])
    assert np.max(np.abs(erf_array(np, x) - ref)) < 5e-15
    assert np.max(np.abs(erf_array(np, x.astype(np.float32)) - ref)) < 1e-7
    assert np.isnan(erf_array(np, np.array([np.nan])))[0]


# ---- behaviour -----------------------------------------------------------------------------------

def test_cross_entropy_all_targets_ignored_gives_zero_gradient():
    x = f64(3, 4)
    loss = F.cross_entropy(x, torch.tensor([-100, -100, -100]))
    assert math.isnan(loss.item())
    loss.backward()
    assert x.grad.tolist() == [[0.0] * 4] * 3


def test_avg_pool_divisors_by_hand():
    ones = torch.ones(1, 1, 5, 5)
    # 3x3 windows, stride 2, padding 1: the corner window holds 4 pixels of 9 (counting the padding)
    assert F.avg_pool2d(ones, 3, 2, 1)[0, 0, 0, 0].item() == pytest.approx(4 / 9)
    assert F.avg_pool2d(ones, 3, 2, 1, count_include_pad=False)[0, 0].tolist() == [[1.0] * 3] * 3
    assert F.avg_pool2d(ones, 2, ceil_mode=True).shape == (1, 1, 3, 3)
    assert F.avg_pool2d(ones, 2, ceil_mode=True)[0, 0, 2, 2].item() == 1.0  # a 1-pixel window, divisor 1
    assert F.max_pool2d(torch.arange(25.0).reshape(1, 1, 5, 5), 2, ceil_mode=True)[0, 0].tolist() == \
        [[6.0, 8.0, 9.0], [16.0, 18.0, 19.0], [21.0, 23.0, 24.0]]


def test_grouped_conv_is_separate_convolutions():
    x, w = f64(2, 4, 5, 5, requires_grad=False), f64(6, 2, 3, 3, seed=1, requires_grad=False)
    out = F.conv2d(x, w, groups=2)
    halves = torch.cat([F.conv2d(x[:, :2], w[:3]), F.conv2d(x[:, 2:], w[3:])], 1)
    np.testing.assert_allclose(out.numpy(), halves.numpy(), rtol=1e-12)
    depthwise = nn.Conv2d(4, 4, 3, groups=4, bias=False)
    assert depthwise.weight.shape == (4, 1, 3, 3) and depthwise(torch.randn(1, 4, 6, 6)).shape == (1, 4, 4, 4)


def test_conv_transpose_is_the_adjoint_of_conv():
    x, w = f64(1, 2, 4, 4, requires_grad=False), f64(2, 3, 3, 3, seed=1, requires_grad=False)
    y = f64(1, 3, 9, 9, seed=2, requires_grad=False)
    lhs = (F.conv_transpose2d(x, w, stride=2) * y).sum().item()  # <T x, y> == <x, conv(y)>
    assert lhs == pytest.approx((x * F.conv2d(y, w, stride=2)).sum().item(), rel=1e-12)
    assert nn.ConvTranspose2d(2, 3, 3, stride=2)(torch.randn(1, 2, 4, 4), output_size=(10, 10)).shape == (1, 3, 10, 10)


def test_batch_norm_running_statistics_by_numpy():
    bn = nn.BatchNorm1d(2, momentum=0.25)
    x = np.random.default_rng(0).standard_normal((8, 2)).astype(np.float32) * 3 + 1
    bn(torch.tensor(x))
    np.testing.assert_allclose(bn.running_mean.numpy(), 0.25 * x.mean(0), rtol=1e-5)
    np.testing.assert_allclose(bn.running_var.numpy(), 0.75 + 0.25 * x.var(0, ddof=1), rtol=1e-5)
    assert bn.num_batches_tracked.item() == 1
    bn.eval()
    out = bn(torch.tensor(x)).detach().numpy()
    np.testing.assert_allclose(out, (x - bn.running_mean.numpy()) / np.sqrt(bn.running_var.numpy() + 1e-5), rtol=1e-5)
    assert list(bn.state_dict()) == ["weight", "bias", "running_mean", "running_var", "num_batches_tracked"]


def test_lstm_step_by_hand():
    lstm = nn.LSTM(2, 3).double()
    x = f64(1, 1, 2, requires_grad=False)
    out, (h, c) = lstm(x)
    W, U, b1, b2 = (p.detach().numpy() for p in lstm.parameters())
    gates = x.numpy()[0, 0] @ W.T + b1 + b2
    i, f, g, o = np.split(gates, 4)
    sig = lambda v: 1 / (1 + np.exp(-v))  # noqa: E731
    c_ref = sig(i) * np.tanh(g)
    np.testing.assert_allclose(c.detach().numpy()[0, 0], c_ref, rtol=1e-12)
    np.testing.assert_allclose(out.detach().numpy()[0, 0], sig(o) * np.tanh(c_ref), rtol=1e-12)


def test_packed_sequence_skips_the_padding():
    rnn = nn.GRU(2, 3, batch_first=True)
    x = torch.randn(2, 4, 2)
    packed = nn.utils.rnn.pack_padded_sequence(x, [4, 2], batch_first=True)
    _, h = rnn(packed)
    _, h_short = rnn(x[1:, :2])
    np.testing.assert_allclose(h[0, 1].detach().numpy(), h_short[0, 0].detach().numpy(), rtol=1e-6)
    assert packed.batch_sizes.tolist() == [2, 2, 1, 1]


def test_clip_grad_norm_by_numpy():
    ps = [nn.Parameter(torch.zeros(3)), nn.Parameter(torch.zeros(2))]
    ps[0].grad, ps[1].grad = torch.tensor([3.0, 0.0, 4.0]), torch.tensor([12.0, 0.0])
    total = nn.utils.clip_grad_norm_(ps, 6.5)
    assert total.item() == pytest.approx(13.0)
    assert ps[0].grad.tolist() == pytest.approx([1.5, 0.0, 2.0], rel=1e-6)
    nn.utils.clip_grad_value_(ps, 1.0)
    assert ps[0].grad.tolist() == pytest.approx([1.0, 0.0, 1.0])
    vec = nn.utils.parameters_to_vector(ps)
    assert vec.shape == (5,)
    nn.utils.vector_to_parameters(torch.arange(5.0), ps)
    assert ps[1].tolist() == [3.0, 4.0]


def test_parameter_list_and_dict_register():
    m = nn.Module()
    m.ps = nn.ParameterList([torch.ones(2), nn.Parameter(torch.zeros(1))])
    m.pd = nn.ParameterDict({"w": torch.ones(3)})
    assert [n for n, _ in m.named_parameters()] == ["ps.0", "ps.1", "pd.w"]
    assert isinstance(m.ps[0], nn.Parameter) and len(m.ps) == 2 and "w" in m.pd


def test_scheduler_sequences_by_formula():
    opt = optim.SGD([nn.Parameter(torch.ones(1))], lr=1.0)
    sched = optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    lrs = []
    for _ in range(6):
        opt.step()
        sched.step()
        lrs.append(sched.get_last_lr()[0])
    assert lrs == [1.0, 0.5, 0.5, 0.25, 0.25, 0.125]
    opt = optim.SGD([nn.Parameter(torch.ones(1))], lr=1.0)
    cos = optim.lr_scheduler.CosineAnnealingLR(opt, T_max=4)
    got = []
    for _ in range(4):
        opt.step()
        cos.step()
        got.append(cos.get_last_lr()[0])
    assert got == pytest.approx([(1 + math.cos(math.pi * t / 4)) / 2 for t in range(1, 5)], abs=1e-12)
    with pytest.warns(UserWarning, match="before `optimizer.step\\(\\)`"):
        optim.lr_scheduler.ExponentialLR(optim.SGD([nn.Parameter(torch.ones(1))], lr=1.0), 0.5).step()


@pytest.mark.parametrize("name", ["RMSprop", "Adagrad", "Adadelta", "Adamax", "NAdam", "RAdam", "AdamW"])
def test_new_optimizers_minimise_a_quadratic(name):
    target = torch.tensor([3.0, -1.0, 0.5])
    w = nn.Parameter(torch.zeros(3))
    opt = getattr(optim, name)([w], lr={"Adadelta": 20.0, "Adagrad": 1.0}.get(name, 0.1))
    for _ in range(400):
        opt.zero_grad()
        ((w - target) ** 2).sum().backward()
        opt.step()
    np.testing.assert_allclose(w.detach().numpy(), target.numpy(), atol=0.1)


class Countdown(data.IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        assert data.get_worker_info() is None
        return iter(range(self.n, 0, -1))


def test_iterable_dataset_batches():
    assert [b.tolist() for b in data.DataLoader(Countdown(5), batch_size=2)] == [[5, 4], [3, 2], [1]]
    assert [b.tolist() for b in data.DataLoader(Countdown(5), batch_size=2, drop_last=True)] == [[5, 4], [3, 2]]
    assert list(data.DataLoader(Countdown(2), batch_size=None)) == [2, 1]
    with pytest.raises(ValueError, match="expected unspecified shuffle option"):
        data.DataLoader(Countdown(3), shuffle=True)


def test_weighted_random_sampler_follows_the_weights():
    counts = np.bincount(list(data.WeightedRandomSampler([1.0, 0.0, 3.0], 4000,
                                                         generator=torch.Generator().manual_seed(0))), minlength=3)
    assert counts[1] == 0 and 0.7 < counts[2] / 4000 < 0.8
    assert sorted(data.WeightedRandomSampler([1.0, 1.0, 1.0], 3, replacement=False)) == [0, 1, 2]


def test_nn_modules_do_not_import_numpy():
    import minitorch.nn as pkg
    from minitorch.nn import (_activation, _attention, _conv, _distance, _embedding, _loss, _norm, _padding,
                              _upsample, activation, attention, container, conv, normalization, padding, pooling,
                              rnn)
    from minitorch.nn.utils import clip_grad, convert_parameters
    from minitorch.nn.utils import rnn as rnn_utils
    for mod in (_activation, _attention, _conv, _distance, _embedding, _loss, _norm, _padding, _upsample, activation,
                attention, container, conv, normalization, padding, pooling, rnn, clip_grad, convert_parameters,
                rnn_utils, pkg.functional):
        src = inspect.getsource(mod)
        assert "import numpy" not in src and "np." not in src, mod.__name__


def test_no_warnings_in_a_normal_training_step():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), nn.GELU(), nn.MaxPool2d(2),
                              nn.Flatten(), nn.LayerNorm(16), nn.Linear(16, 3))
        opt = optim.AdamW(model.parameters(), lr=1e-3)
        sched = optim.lr_scheduler.OneCycleLR(opt, max_lr=0.01, total_steps=3)
        for _ in range(2):
            opt.zero_grad()
            F.cross_entropy(model(torch.randn(4, 1, 4, 4)), torch.tensor([0, 1, 2, 0])).backward()
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            sched.step()
