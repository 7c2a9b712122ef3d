"""Differential tests against PyTorch for the volume layers and the spatial transformer: 3-D
convolution and pooling (and their modules, lazy ones included), affine_grid / grid_sample,
gumbel_softmax, the *_with_indices pooling functions, channel_shuffle and the deprecated
nn.NLLLoss2d / nn.Container names.

Each case runs on both libraries from the same float64 data and compares values, dtype,
shape, strides, the grad_fn's name and the gradients; errors are compared by type and by
PyTorch's message. Skipped when PyTorch is absent.
"""
from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="PyTorch not installed: differential tests skipped")

import minitorch as mt  # noqa: E402
from minitorch.autograd import gradcheck  # noqa: E402

pytestmark = pytest.mark.torch


def data(*shape, s=0):
    return np.random.default_rng(s).standard_normal(shape)


def run(lib, fn, arrays, grad_seed=9, dtype="float64", channels_last=False):
    """fn(F, *tensors) on lib: the result (and the indices, when fn returns a pair), after a
    backward of a fixed random gradient; returns (out, indices, leaves)."""
    leaves = [lib.tensor(a.astype(dtype), requires_grad=True) for a in arrays]
    ins = list(leaves)
    if channels_last:  # the first input stored channels-last, as a permuted NDHWC array
        x = ins[0]
        order = (0,) + tuple(range(2, x.ndim)) + (1,)
        back = (0, x.ndim - 1) + tuple(range(1, x.ndim - 1))
        ins[0] = x.permute(*order).contiguous().permute(*back)
        ins[0].retain_grad()
    out = fn(lib.nn.functional, *ins)
    idx = None
    if isinstance(out, tuple):
        out, idx = out
    g = lib.tensor(np.random.default_rng(grad_seed).standard_normal(tuple(out.shape)).astype(dtype))
    out.backward(g)
    return out, idx, (ins if channels_last else leaves)


def compare(fn, shapes, dtype="float64", channels_last=False, atol=1e-6):
    arrays = [data(*s, s=i) for i, s in enumerate(shapes)]
    t_out, t_idx, t_in = run(torch, fn, arrays, dtype=dtype, channels_last=channels_last)
    m_out, m_idx, m_in = run(mt, fn, arrays, dtype=dtype, channels_last=channels_last)
    assert tuple(m_out.shape) == tuple(t_out.shape)
    assert m_out.dtype.name == str(t_out.dtype).split(".")[-1]
    assert m_out.stride() == t_out.stride()
    assert type(m_out.grad_fn).__name__ == type(t_out.grad_fn).__name__
    np.testing.assert_allclose(m_out.detach().numpy(), t_out.detach().numpy(), rtol=1e-5, atol=atol)
    if t_idx is not None:
        np.testing.assert_array_equal(m_idx.numpy(), t_idx.numpy())
        assert m_idx.stride() == t_idx.stride()
    for a, b in zip(t_in, m_in):
        np.testing.assert_allclose(b.grad.numpy(), a.grad.numpy(), rtol=1e-5, atol=atol)
        assert b.grad.stride() == a.grad.stride()


CASES = {
    "conv3d": (lambda F, x, w, b: F.conv3d(x, w, b, stride=(1, 2, 1), padding=(1, 0, 1), dilation=(1, 1, 2)),
               [(2, 2, 4, 5, 6), (3, 2, 2, 3, 2), (3,)]),
    "conv3d_groups": (lambda F, x, w: F.conv3d(x, w, groups=2), [(1, 4, 3, 4, 3), (4, 2, 2, 2, 2)]),
    "conv3d_same_unbatched": (lambda F, x, w: F.conv3d(x, w, padding="same"), [(2, 3, 4, 3), (3, 2, 3, 3, 3)]),
    "conv_transpose3d": (lambda F, x, w, b: F.conv_transpose3d(x, w, b, stride=(2, 1, 2), padding=(0, 1, 1),
                                                               output_padding=(1, 0, 1), groups=2),
                         [(2, 4, 3, 4, 3), (4, 3, 2, 3, 3), (6,)]),
    "conv_transpose3d_dilated": (lambda F, x, w: F.conv_transpose3d(x, w, stride=2, dilation=2, output_padding=1),
                                 [(1, 2, 3, 2, 3), (2, 3, 2, 2, 2)]),
    "max_pool3d_tiled": (lambda F, x: F.max_pool3d(x, 2), [(2, 3, 4, 6, 5)]),
    "max_pool3d_indices": (lambda F, x: F.max_pool3d(x, (2, 3, 2), stride=(1, 2, 2), padding=1, dilation=(1, 1, 2),
                                                     ceil_mode=True, return_indices=True), [(2, 3, 4, 6, 5)]),
    "max_pool3d_with_indices": (lambda F, x: F.max_pool3d_with_indices(x, 2, 1), [(1, 2, 3, 3, 4)]),
    "avg_pool3d": (lambda F, x: F.avg_pool3d(x, (2, 3, 2), stride=(1, 2, 2), padding=1, ceil_mode=True,
                                             count_include_pad=False), [(2, 3, 4, 6, 5)]),
    "avg_pool3d_divisor": (lambda F, x: F.avg_pool3d(x, 2, divisor_override=3), [(1, 3, 4, 6, 5)]),
    "adaptive_avg_pool3d": (lambda F, x: F.adaptive_avg_pool3d(x, (2, 3, None)), [(2, 3, 5, 7, 5)]),
    "adaptive_avg_pool3d_1": (lambda F, x: F.adaptive_avg_pool3d(x, 1), [(2, 3, 5, 7, 5)]),
    "adaptive_max_pool3d": (lambda F, x: F.adaptive_max_pool3d(x, (2, 3, 4), return_indices=True), [(2, 3, 5, 7, 5)]),
    "adaptive_max_pool3d_unbatched": (lambda F, x: F.adaptive_max_pool3d_with_indices(x, 2), [(3, 5, 4, 5)]),
    "lp_pool3d": (lambda F, x: F.lp_pool3d(x, 2, (2, 2, 1)), [(2, 3, 4, 6, 5)]),
    "max_unpool3d": (lambda F, x: F.max_unpool3d(*F.max_pool3d(x, 2, return_indices=True), 2), [(2, 3, 4, 6, 6)]),
    "max_unpool2d_unbatched": (lambda F, x: F.max_unpool2d(*F.max_pool2d(x, 2, return_indices=True), 2,
                                                           output_size=(5, 5)), [(3, 4, 5)]),
    "max_unpool1d": (lambda F, x: F.max_unpool1d(*F.max_pool1d(x, 2, return_indices=True), 2), [(2, 3, 6)]),
    "max_pool2d_with_indices": (lambda F, x: F.max_pool2d_with_indices(x, 2, padding=1), [(2, 3, 6, 5)]),
    "max_pool1d_with_indices": (lambda F, x: F.max_pool1d_with_indices(x, 3, 2), [(2, 3, 7)]),
    "adaptive_max_pool1d_with_indices": (lambda F, x: F.adaptive_max_pool1d_with_indices(x, 2), [(2, 3, 5)]),
    "adaptive_max_pool2d_with_indices": (lambda F, x: F.adaptive_max_pool2d_with_indices(x, (2, 3)), [(2, 3, 5, 4)]),
    "channel_shuffle": (lambda F, x: F.channel_shuffle(x, 3), [(2, 6, 2, 3)]),
    # an unbatched image or volume is pooled as it is (PyTorch's node, not a squeeze of a batch of one)
    "max_pool3d_unbatched": (lambda F, x: F.max_pool3d(x, 2), [(3, 4, 6, 5)]),
    "max_pool3d_unbatched_indices": (lambda F, x: F.max_pool3d(x, 2, 1, 1, return_indices=True), [(3, 4, 6, 5)]),
    "avg_pool3d_unbatched": (lambda F, x: F.avg_pool3d(x, 2, 1, 1, ceil_mode=True), [(3, 4, 6, 5)]),
    "max_pool2d_unbatched": (lambda F, x: F.max_pool2d(x, 2), [(3, 6, 5)]),
    "max_pool2d_unbatched_indices": (lambda F, x: F.max_pool2d(x, 3, 2, 1, ceil_mode=True, return_indices=True),
                                     [(3, 6, 5)]),
    "avg_pool2d_unbatched": (lambda F, x: F.avg_pool2d(x, 2, 1, 1, count_include_pad=False), [(3, 6, 5)]),
    "affine_grid": (lambda F, t: F.affine_grid(t, (2, 3, 4, 5), align_corners=False), [(2, 2, 3)]),
    "affine_grid_3d": (lambda F, t: F.affine_grid(t, (2, 3, 4, 5, 3), align_corners=True), [(2, 3, 4)]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_torch(name):
    fn, shapes = CASES[name]
    compare(fn, shapes)


LAYOUT_CASES = ["conv3d", "conv_transpose3d_dilated", "max_pool3d_tiled", "max_pool3d_indices", "avg_pool3d",
                "adaptive_avg_pool3d", "adaptive_avg_pool3d_1", "adaptive_max_pool3d", "channel_shuffle"]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", LAYOUT_CASES)
def test_channels_last_volumes_laid_out_as_torch(name, dtype):
    """A channels-last volume: PyTorch's 3-D kernels keep that layout in some results (the
    convolutions only in float32, where oneDNN runs them) and give row-major gradients."""
    fn, shapes = CASES[name]
    compare(fn, shapes, dtype=dtype, channels_last=True, atol=1e-4 if dtype == "float32" else 1e-6)


@pytest.mark.parametrize("mode,padding_mode,align_corners",
                         list(itertools.product(["bilinear", "nearest"], ["zeros", "border", "reflection"],
                                                [False, True])))
@pytest.mark.parametrize("nd", [2, 3])
def test_grid_sample_matches_torch(nd, mode, padding_mode, align_corners):
    spatial, out = (3, 4, 5)[-nd:], (4, 3, 2)[-nd:]
    grid = np.random.default_rng(5).uniform(-1.3, 1.3, (2,) + out + (nd,))  # some points outside the input
    t_out, _, t_in = run(torch, lambda F, x, g: F.grid_sample(x, g, mode, padding_mode, align_corners),
                         [data(2, 3, *spatial), grid])
    m_out, _, m_in = run(mt, lambda F, x, g: F.grid_sample(x, g, mode, padding_mode, align_corners),
                         [data(2, 3, *spatial), grid])
    assert type(m_out.grad_fn).__name__ == type(t_out.grad_fn).__name__
    assert m_out.stride() == t_out.stride()
    np.testing.assert_allclose(m_out.detach().numpy(), t_out.detach().numpy(), atol=1e-12)
    for a, b in zip(t_in, m_in):
        np.testing.assert_allclose(b.grad.numpy(), a.grad.numpy(), atol=1e-10)


def test_spatial_transformer_in_float32():
    """The tutorial's use: an identity-plus-noise theta warps a batch of images."""
    theta = np.array([[[1.0, 0.1, 0.05], [-0.1, 0.9, 0.0]]] * 2, dtype=np.float32)
    x = data(2, 1, 6, 6).astype(np.float32)
    res = []
    for lib in (torch, mt):
        th = lib.tensor(theta, requires_grad=True)
        grid = lib.nn.functional.affine_grid(th, (2, 1, 6, 6), align_corners=False)
        y = lib.nn.functional.grid_sample(lib.tensor(x), grid, align_corners=False)
        y.sum().backward()
        res.append((y.detach().numpy(), th.grad.numpy(), y.dtype))
    np.testing.assert_allclose(res[1][0], res[0][0], atol=1e-5)
    np.testing.assert_allclose(res[1][1], res[0][1], rtol=1e-4, atol=1e-4)
    assert res[1][2].name == "float32"


GRADCHECKS = {
    "conv3d": (lambda x, w, b: mt.nn.functional.conv3d(x, w, b, stride=2, padding=1, groups=2),
               [(1, 4, 3, 4, 3), (2, 2, 2, 2, 2), (2,)]),
    "conv_transpose3d": (lambda x, w: mt.nn.functional.conv_transpose3d(x, w, stride=2, output_padding=1),
                         [(1, 2, 2, 2, 3), (2, 1, 2, 1, 2)]),
    "max_pool3d": (lambda x: mt.nn.functional.max_pool3d(x, 2, 1, padding=1), [(1, 2, 3, 3, 2)]),
    "max_pool3d_tiled": (lambda x: mt.nn.functional.max_pool3d(x, 2), [(1, 2, 4, 2, 2)]),
    "avg_pool3d": (lambda x: mt.nn.functional.avg_pool3d(x, 2, 1, 1, count_include_pad=False), [(1, 2, 3, 3, 2)]),
    "adaptive_avg_pool3d": (lambda x: mt.nn.functional.adaptive_avg_pool3d(x, (2, 2, 3)), [(1, 2, 3, 5, 4)]),
    "adaptive_max_pool3d": (lambda x: mt.nn.functional.adaptive_max_pool3d(x, 2), [(2, 3, 5, 3)]),
    "grid_sample": (lambda x, g: mt.nn.functional.grid_sample(x, g * 0.9, padding_mode="reflection",
                                                              align_corners=False), [(1, 2, 3, 4), (1, 3, 2, 2)]),
    "grid_sample_3d": (lambda x, g: mt.nn.functional.grid_sample(x, g * 0.6, align_corners=True),
                       [(1, 2, 2, 3, 3), (1, 2, 2, 1, 3)]),
    "affine_grid": (lambda t: mt.nn.functional.affine_grid(t, (2, 1, 3, 4), align_corners=False), [(2, 2, 3)]),
    "channel_shuffle": (lambda x: mt.nn.functional.channel_shuffle(x, 2), [(2, 4, 3)]),
    "max_unpool3d": (lambda x: mt.nn.functional.max_unpool3d(x, mt.tensor([[[[[0, 7]], [[9, 17]]]]]), 2, 1),
                     [(1, 1, 2, 1, 2)]),
}


@pytest.mark.parametrize("name", sorted(GRADCHECKS))
def test_gradcheck(name):
    fn, shapes = GRADCHECKS[name]
    ins = [mt.tensor(data(*s, s=i), requires_grad=True) for i, s in enumerate(shapes)]
    assert gradcheck(fn, tuple(ins))


# ---- errors -----------------------------------------------------------------------------------

X5 = (1, 2, 3, 4, 4)
ERRORS = {
    "conv3d_weight_dims": lambda L, F: F.conv3d(L.ones(X5), L.ones(1, 2, 2, 2)),
    "conv3d_kernel_too_big": lambda L, F: F.conv3d(L.ones(X5), L.ones(1, 2, 5, 1, 1)),
    "conv3d_bool": lambda L, F: F.conv3d(L.ones(X5).bool(), L.ones(1, 2, 1, 1, 1).bool()),
    "conv_transpose3d_output_padding": lambda L, F: F.conv_transpose3d(L.ones(X5), L.ones(2, 1, 1, 1, 1),
                                                                       output_padding=1),
    "max_pool3d_too_small": lambda L, F: F.max_pool3d(L.ones(X5), 4),
    "max_pool3d_bool": lambda L, F: F.max_pool3d(L.ones(X5).bool(), 2),
    "max_pool3d_pad": lambda L, F: F.max_pool3d(L.ones(X5), 2, padding=2),
    "max_pool3d_3d_input": lambda L, F: F.max_pool3d(L.ones(3, 4, 4), 2),
    "avg_pool3d_too_small": lambda L, F: F.avg_pool3d(L.ones(X5), 4),
    "adaptive_avg_pool3d_dims": lambda L, F: F.adaptive_avg_pool3d(L.ones(3, 4, 4), 2),
    "adaptive_max_pool3d_dims": lambda L, F: F.adaptive_max_pool3d(L.ones(3, 4, 4), 2),
    "adaptive_avg_pool3d_long": lambda L, F: F.adaptive_avg_pool3d(L.ones(X5).long(), 2),
    "grid_sample_batch": lambda L, F: F.grid_sample(L.ones(2, 3, 4, 5), L.zeros(1, 3, 3, 2), align_corners=False),
    "grid_sample_last_dim": lambda L, F: F.grid_sample(L.ones(2, 3, 4, 5), L.zeros(2, 3, 3, 3), align_corners=False),
    "grid_sample_empty": lambda L, F: F.grid_sample(L.ones(2, 3, 0, 5), L.zeros(2, 3, 3, 2), align_corners=False),
    "grid_sample_mode": lambda L, F: F.grid_sample(L.ones(2, 3, 4, 5), L.zeros(2, 3, 3, 2), mode="foo"),
    "grid_sample_padding": lambda L, F: F.grid_sample(L.ones(2, 3, 4, 5), L.zeros(2, 3, 3, 2), padding_mode="foo"),
    "grid_sample_long": lambda L, F: F.grid_sample(L.ones(2, 3, 4, 5).long(), L.zeros(2, 3, 3, 2).long(),
                                                   align_corners=False),
    "affine_grid_int": lambda L, F: F.affine_grid(L.ones(2, 2, 3).long(), (2, 3, 4, 5), align_corners=False),
    "affine_grid_theta": lambda L, F: F.affine_grid(L.ones(2, 3, 3), (2, 3, 4, 5), align_corners=False),
    "affine_grid_size": lambda L, F: F.affine_grid(L.ones(2, 2, 3), (2, 3, 5), align_corners=False),
    "affine_grid_zero": lambda L, F: F.affine_grid(L.ones(2, 2, 3), (2, 3, 0, 5), align_corners=False),
    "channel_shuffle_groups": lambda L, F: F.channel_shuffle(L.ones(2, 6, 3), 4),
    "channel_shuffle_zero": lambda L, F: F.channel_shuffle(L.ones(2, 6, 3), 0),
    "channel_shuffle_dims": lambda L, F: F.channel_shuffle(L.ones(3), 2),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_match_torch(name):
    make = ERRORS[name]
    with pytest.raises(Exception) as t_err:
        make(torch, torch.nn.functional)
    with pytest.raises(Exception) as m_err:
        make(mt, mt.nn.functional)
    assert m_err.type is t_err.type, (m_err.value, t_err.value)
    expected = str(t_err.value).replace("torch.", "minitorch.")  # (dtypes and sizes print as minitorch's)
    assert str(m_err.value).startswith(expected), (str(m_err.value), expected)


def test_align_corners_warning_and_eps_deprecation():
    for lib in (torch, mt):
        with pytest.warns(UserWarning, match="Default grid_sample and affine_grid behavior has changed"):
            lib.nn.functional.affine_grid(lib.zeros(1, 2, 3), (1, 1, 2, 2))
        with pytest.warns(UserWarning, match="`eps` parameter is deprecated"):
            lib.nn.functional.gumbel_softmax(lib.zeros(2, 3), eps=1e-3)


# ---- random draws ------------------------------------------------------------------------------

@pytest.mark.parametrize("hard", [False, True])
def test_gumbel_softmax_draws_torchs_noise(hard):
    res = []
    for lib in (torch, mt):
        lib.manual_seed(7)
        logits = lib.tensor(data(3, 5), requires_grad=True)
        y = lib.nn.functional.gumbel_softmax(logits, tau=0.5, hard=hard, dim=0)
        (y * lib.arange(5.0, dtype=lib.float64)).sum().backward()
        res.append((y.detach().numpy(), logits.grad.numpy(), type(y.grad_fn).__name__))
    np.testing.assert_allclose(res[1][0], res[0][0], atol=1e-12)
    np.testing.assert_allclose(res[1][1], res[0][1], atol=1e-10)
    assert res[1][2] == res[0][2]


# ---- modules ---------------------------------------------------------------------------------------

MODULES = [
    lambda nn: nn.Conv3d(2, 4, 3, stride=2, padding=1, bias=False),
    lambda nn: nn.Conv3d(2, 4, (1, 2, 3), padding="same", padding_mode="reflect"),
    lambda nn: nn.ConvTranspose3d(2, 4, (1, 2, 3), output_padding=(0, 1, 1), stride=2, groups=2),
    lambda nn: nn.MaxPool3d(2),
    lambda nn: nn.MaxPool3d((2, 1, 2), stride=1, padding=(1, 0, 1), ceil_mode=True),
    lambda nn: nn.AvgPool3d((2, 3, 3), stride=(1, 2, 2), padding=1),
    lambda nn: nn.LPPool3d(2, 2),
    lambda nn: nn.AdaptiveAvgPool3d((2, None, 3)),
    lambda nn: nn.AdaptiveMaxPool3d(2),
    lambda nn: nn.ChannelShuffle(2),
]


@pytest.mark.parametrize("i", range(len(MODULES)))
def test_modules_match_torch(i):
    x = data(2, 2, 4, 6, 6).astype(np.float32)
    res = []
    for lib in (torch, mt):
        lib.manual_seed(0)
        m = MODULES[i](lib.nn)
        res.append((repr(m), m(lib.tensor(x)).detach().numpy()))
    assert res[1][0] == res[0][0]
    np.testing.assert_allclose(res[1][1], res[0][1], rtol=1e-5, atol=1e-5)


def test_max_unpool3d_module_and_lazy_layers():
    x = data(1, 2, 4, 4, 4).astype(np.float32)
    for make in (lambda nn: nn.LazyConv3d(3, 2), lambda nn: nn.LazyConvTranspose3d(3, 2),
                 lambda nn: nn.LazyBatchNorm3d(), lambda nn: nn.LazyInstanceNorm3d(affine=True)):
        res = []
        for lib in (torch, mt):
            lib.manual_seed(0)
            m = make(lib.nn)
            before = repr(m)
            y = m(lib.tensor(x))
            res.append((before, repr(m), type(m).__name__, y.detach().numpy()))
        assert res[1][:3] == res[0][:3]
        np.testing.assert_allclose(res[1][3], res[0][3], rtol=1e-5, atol=1e-5)
    res = []
    for lib in (torch, mt):
        pool, unpool = lib.nn.MaxPool3d(2, return_indices=True), lib.nn.MaxUnpool3d(2)
        y = unpool(*pool(lib.tensor(x)))
        res.append((repr(unpool), y.numpy()))
    assert res[1][0] == res[0][0]
    np.testing.assert_array_equal(res[1][1], res[0][1])


def test_deprecated_names_and_import_paths():
    for lib in (torch, mt):
        with pytest.warns(FutureWarning, match="`NLLLoss2d` has been deprecated"):
            loss = lib.nn.NLLLoss2d()
        assert isinstance(loss, lib.nn.NLLLoss) and repr(loss) == "NLLLoss2d()"
        with pytest.warns(FutureWarning, match="`nn.Container` is deprecated"):
            box = lib.nn.Container(act=lib.nn.ReLU())
        assert repr(box) == "Container(\n  (act): ReLU()\n)"
    from minitorch.nn.modules.batchnorm import LazyBatchNorm3d  # noqa: F401
    from minitorch.nn.modules.conv import Conv3d, ConvTranspose3d, LazyConv3d, LazyConvTranspose3d  # noqa: F401
    from minitorch.nn.modules.instancenorm import LazyInstanceNorm3d  # noqa: F401
    from minitorch.nn.modules.pooling import (AdaptiveAvgPool3d, AdaptiveMaxPool3d, AvgPool3d,  # noqa: F401
                                              LPPool3d, MaxPool3d, MaxUnpool3d)
    assert MaxPool3d is mt.nn.MaxPool3d and Conv3d is mt.nn.Conv3d
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mt.nn.MaxPool3d(2)(mt.ones(1, 1, 2, 2, 2))
