"""nn.functional results laid out, and accumulated, as PyTorch 2.13 does.

1. Layout: PyTorch's nn kernels give their result, and the input's gradient, the input's
   `suggest_memory_format()` (channels-last for an image stored NHWC / NDHWC, row-major
   otherwise); layer and instance norm are always row-major, a crop-only pad keeps the crop's
   layout, elementwise compositions keep theirs. Each case compares the result's strides
   (indices too), values, dtype and the gradient's strides as a hook sees it.
2. Half precision: PyTorch's CPU kernels sum half in float (an average of 60000s is 60000,
   not inf) and batch norm keeps its statistics in half.

Skipped when PyTorch is not installed.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch

torch = pytest.importorskip("torch", reason="PyTorch not installed: differential tests skipped")

pytestmark = pytest.mark.torch


INPUTS = {  # name: (numel, reshape, permutation)
    "nhwc": (96, (2, 4, 4, 3), (0, 3, 1, 2)),  # an image stored channels-last
    "reversed4": (96, (4, 4, 3, 2), (3, 2, 1, 0)),
    "transposed4": (96, (2, 3, 4, 4), (0, 1, 3, 2)),
    "contiguous4": (96, (2, 3, 4, 4), (0, 1, 2, 3)),
    "nlc": (24, (2, 4, 3), (0, 2, 1)),
    "reversed3": (24, (4, 3, 2), (2, 1, 0)),
    "hwc": (48, (4, 4, 3), (2, 0, 1)),  # an unbatched image stored channels-last
    "ndhwc": (192, (2, 2, 4, 4, 3), (0, 4, 1, 2, 3)),
    "reversed5": (192, (4, 4, 2, 3, 2), (4, 3, 2, 1, 0)),
}


def make(lib, name):
    n, shape, perm = INPUTS[name]
    return (lib.arange(float(n)) / 10).reshape(shape).permute(tuple(perm))


def cases(lib):
    F = lib.nn.functional
    w2, w1 = lib.arange(54.).reshape(2, 3, 3, 3) / 50, lib.arange(18.).reshape(2, 3, 3) / 50
    wt2, wt1 = lib.arange(54.).reshape(3, 2, 3, 3) / 50, lib.arange(18.).reshape(3, 2, 3) / 50
    c = {  # name: (the input's ndim it takes, or None for any; the op)
        "adaptive_avg_pool1d": (3, lambda x: F.adaptive_avg_pool1d(x, 2)),
        "adaptive_max_pool1d": (3, lambda x: F.adaptive_max_pool1d(x, 2, return_indices=True)),
        "adaptive_avg_pool2d": (4, lambda x: F.adaptive_avg_pool2d(x, (2, 3))),
        "adaptive_avg_pool2d_1": (4, lambda x: F.adaptive_avg_pool2d(x, 1)),
        "adaptive_max_pool2d": (4, lambda x: F.adaptive_max_pool2d(x, (2, 3), return_indices=True)),
        "avg_pool1d": (3, lambda x: F.avg_pool1d(x, 2)),
        "avg_pool2d": (4, lambda x: F.avg_pool2d(x, 2)),
        "avg_pool2d_padded": (4, lambda x: F.avg_pool2d(x, 3, 1, 1)),
        "max_pool1d": (3, lambda x: F.max_pool1d(x, 2)),
        "max_pool1d_indices": (3, lambda x: F.max_pool1d(x, 2, return_indices=True)),
        "max_pool2d": (4, lambda x: F.max_pool2d(x, 2)),
        "max_pool2d_padded": (4, lambda x: F.max_pool2d(x, 3, 1, 1)),
        "max_pool2d_indices": (4, lambda x: F.max_pool2d(x, 2, return_indices=True)),
        "lp_pool1d": (3, lambda x: F.lp_pool1d(x, 2, 2)),
        "lp_pool2d": (4, lambda x: F.lp_pool2d(x, 2, 2)),
        "conv2d": (4, lambda x: F.conv2d(x, w2, lib.ones(2))),
        "conv2d_strided": (4, lambda x: F.conv2d(x, w2, None, padding=1, stride=2)),
        "conv2d_groups": (4, lambda x: F.conv2d(x, lib.arange(27.).reshape(3, 1, 3, 3) / 30, groups=3)),
        "conv1d": (3, lambda x: F.conv1d(x, w1, lib.ones(2))),
        "conv_transpose2d": (4, lambda x: F.conv_transpose2d(x, wt2, lib.ones(2))),
        "conv_transpose1d": (3, lambda x: F.conv_transpose1d(x, wt1)),
        "batch_norm_train": (None, lambda x: F.batch_norm(x, lib.zeros(3), lib.ones(3), lib.ones(3), lib.zeros(3),
                                                          True)),
        "batch_norm_no_stats": (None, lambda x: F.batch_norm(x, None, None, training=True)),
        "batch_norm_eval": (None, lambda x: F.batch_norm(x, lib.zeros(3), lib.ones(3) * 2, lib.ones(3), lib.zeros(3))),
        "group_norm": (None, lambda x: F.group_norm(x, 3, lib.ones(3), lib.zeros(3))),
        "group_norm_1": (None, lambda x: F.group_norm(x, 1)),
        "layer_norm": (None, lambda x: F.layer_norm(x, x.shape[-1:])),
        "layer_norm_2": (None, lambda x: F.layer_norm(x, x.shape[-2:], lib.ones(x.shape[-2:]),
                                                      lib.zeros(x.shape[-2:]))),
        "instance_norm": (None, lambda x: F.instance_norm(x)),
        "instance_norm_stats": (None, lambda x: F.instance_norm(x, lib.zeros(3), lib.ones(3), lib.ones(3),
                                                                lib.zeros(3))),
        "local_response_norm": (None, lambda x: F.local_response_norm(x, 2)),
        "rms_norm": (None, lambda x: F.rms_norm(x, x.shape[-1:])),
        "rms_norm_weight": (None, lambda x: F.rms_norm(x, x.shape[-1:], lib.ones(x.shape[-1:]))),
        "pad_crop": (None, lambda x: F.pad(x, (-1, 0))),
        "pixel_unshuffle": (4, lambda x: F.pixel_unshuffle(x, 2)),
        "pixel_shuffle": (4, lambda x: F.pixel_shuffle(x, 1)),
    }
    for mode in ("nearest", "nearest-exact", "linear", "bilinear", "bicubic", "trilinear", "area"):
        nd = {"linear": 3, "bilinear": 4, "bicubic": 4, "trilinear": 5, "area": 4}.get(mode)
        c[f"interpolate_{mode}"] = (nd, lambda x, m=mode: F.interpolate(x, scale_factor=2, mode=m))
        c[f"interpolate_{mode}_size"] = (nd, lambda x, m=mode: F.interpolate(x, size=(3,) * (x.ndim - 2), mode=m))
    for mode in ("constant", "reflect", "replicate", "circular"):
        c[f"pad_{mode}"] = (None, lambda x, m=mode: F.pad(x, (1, 1) * (x.ndim - 2), mode=m))
        c[f"pad_{mode}_last"] = (None, lambda x, m=mode: F.pad(x, (1, 2), mode=m))
    return c


def _strides(r):
    return tuple(_strides(v) for v in r) if isinstance(r, tuple) else tuple(r.stride())


def _values(r):
    return tuple(_values(v) for v in r) if isinstance(r, tuple) else (str(r.dtype).split(".")[-1],
                                                                        r.detach().numpy().copy())


def run(lib, op, inp):
    """The result's strides and values, and the strides of the gradient the op sends its input."""
    seen = []
    leaf = make(lib, inp).detach().requires_grad_()
    x = leaf * 1  # (keeps the layout) a non-leaf, so that the hook sees the op's own gradient
    x.register_hook(lambda g: seen.append(tuple(g.stride())))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = cases(lib)[op][1](x)
    out = r[0] if isinstance(r, tuple) else r
    out.backward(lib.linspace(-1, 1, out.numel()).reshape(out.shape))
    return _strides(r), _values(r), tuple(seen)


TABLE = [(op, inp) for op, (nd, _) in cases(torch).items() for inp, (_, shape, _) in INPUTS.items()
         if (nd is None or len(shape) == nd) and not (op.startswith("interpolate_area") and len(shape) == 5)
         and not (op == "local_response_norm" and inp == "reversed5")]  # (both refuse it: test below)


@pytest.mark.parametrize("op,inp", TABLE, ids=[f"{o}-{i}" for o, i in TABLE])
def test_layout_of_results_and_gradients(op, inp):
    try:
        want = run(torch, op, inp)
    except RuntimeError:
        with pytest.raises(RuntimeError):
            run(minitorch, op, inp)
        return
    got = run(minitorch, op, inp)
    assert got[0] == want[0], f"{op}({inp}) strides: PyTorch {want[0]}, minitorch {got[0]}"
    assert got[2] == want[2], f"{op}({inp}) gradient strides: PyTorch {want[2]}, minitorch {got[2]}"

    def same(a, b):
        if isinstance(a[0], tuple):
            return all(same(u, v) for u, v in zip(a, b))
        assert a[0] == b[0], f"{op}({inp}) dtype: PyTorch {a[0]}, minitorch {b[0]}"
        np.testing.assert_allclose(b[1], a[1], rtol=1e-5, atol=1e-5, err_msg=f"{op}({inp})")
        return True
    same(want[1], got[1])


def test_a_leaf_gradient_and_forward_of_a_channels_last_cnn_block():
    """The common case: an image batch read NHWC, through conv, batch norm, relu and pooling."""
    out = {}
    for lib in (torch, minitorch):
        F = lib.nn.functional
        x = make(lib, "nhwc")
        w = (lib.arange(54.).reshape(2, 3, 3, 3) / 50).requires_grad_()
        y = F.max_pool2d(F.relu(F.batch_norm(F.conv2d(x, w, padding=1), None, None, training=True)), 2)
        y.sum().backward()
        out[lib] = (y.stride(), y.detach().numpy(), w.grad.numpy())
    assert out[minitorch][0] == out[torch][0]
    np.testing.assert_allclose(out[minitorch][1], out[torch][1], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out[minitorch][2], out[torch][2], rtol=1e-5, atol=1e-5)


def test_adaptive_avg_pool_to_one_pixel_restrides_as_pytorch():
    for lib in (torch, minitorch):
        y = lib.nn.functional.adaptive_avg_pool2d(make(lib, "nhwc").requires_grad_(), 1)
        assert y.stride() == (3, 1, 3, 3) and type(y.grad_fn).__name__ == "AsStridedBackward1", lib
        y = lib.nn.functional.adaptive_avg_pool2d(make(lib, "contiguous4").requires_grad_(), 1)
        assert y.stride() == (3, 1, 1, 1) and type(y.grad_fn).__name__ == "MeanBackward1", lib


def _graph(fn, depth=3):
    names = []

    def walk(f, d):
        if f is not None and d < depth:
            names.append((d, type(f).__name__))
            for g, _ in f.next_functions:
                walk(g, d + 1)
    walk(fn, 0)
    return names


@pytest.mark.parametrize("inp", ["reversed4", "nhwc"])
@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_rms_norm_copies_into_the_suggested_layout_last(inp, dtype):
    got = {}
    for lib in (torch, minitorch):
        x = make(lib, inp).to(getattr(lib, dtype)).requires_grad_()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            y = lib.nn.functional.rms_norm(x, (x.shape[-1],), lib.ones(x.shape[-1], dtype=getattr(lib, dtype)))
        got[lib] = (y.stride(), _graph(y.grad_fn), y.detach().float().numpy())
    assert got[minitorch][:2] == got[torch][:2]
    np.testing.assert_allclose(got[minitorch][2], got[torch][2], rtol=1e-3)


def test_refusals_pytorch_makes_for_a_layout():
    for lib in (torch, minitorch):
        with pytest.raises(RuntimeError, match="Unsupported memory format"):  # NDHWC into the pixel shuffles
            lib.nn.functional.pixel_shuffle(make(lib, "ndhwc"), 1)
        with pytest.raises(RuntimeError, match="view size is not compatible"):  # its view of the volume
            lib.nn.functional.local_response_norm(make(lib, "reversed5"), 2)


def test_the_layout_copy_passes_its_gradient_through():
    from minitorch.nn._layout import CHANNELS_LAST, to_format
    x = minitorch.arange(24., dtype=minitorch.float64).reshape(1, 2, 3, 4).requires_grad_()
    y = to_format(x * 1, CHANNELS_LAST)
    assert y.stride() == (24, 1, 8, 2)
    assert minitorch.autograd.gradcheck(lambda t: to_format(t * 1, CHANNELS_LAST), (x,))


# ---- 2. half precision ------------------------------------------------------------------------

HALF_VALUES = {
    "big": [60000., 60000., 60000., 60000.] * 8,
    "mixed": [60000., -60000., 1e-4, 3.0, 60000., 60000., -1e-4, 0.5] * 4,
    "small": [1e-4, 2e-4, 3e-4, 1e-4] * 8,
    "near_max": [65000., 1.0, 65000., 1.0] * 8,
}


def half_cases(lib):
    F = lib.nn.functional
    h = lib.float16
    return {
        "avg_pool1d": lambda x: F.avg_pool1d(x.reshape(2, 4, 4), 2),
        "avg_pool1d_padded": lambda x: F.avg_pool1d(x.reshape(2, 4, 4), 3, 1, 1),
        "avg_pool2d": lambda x: F.avg_pool2d(x.reshape(2, 1, 4, 4), 2),
        "avg_pool2d_exclude_pad": lambda x: F.avg_pool2d(x.reshape(2, 1, 4, 4), 3, 1, 1, count_include_pad=False),
        "avg_pool2d_divisor": lambda x: F.avg_pool2d(x.reshape(2, 1, 4, 4), 2, divisor_override=3),
        "adaptive_avg_pool1d": lambda x: F.adaptive_avg_pool1d(x.reshape(2, 4, 4), 3),
        "adaptive_avg_pool2d": lambda x: F.adaptive_avg_pool2d(x.reshape(2, 1, 4, 4), 2),
        "lp_pool2d": lambda x: F.lp_pool2d(x.reshape(2, 1, 4, 4), 1, 2),
        "batch_norm_train": lambda x: F.batch_norm(x.reshape(2, 4, 4), None, None, training=True),
        "batch_norm_eval": lambda x: F.batch_norm(x.reshape(2, 4, 4), lib.zeros(4, dtype=h),
                                                  lib.full((4,), 3.0, dtype=h)),
        "batch_norm_running_stats": lambda x: (lambda rm, rv: (F.batch_norm(x.reshape(2, 4, 4), rm, rv,
                                                                            training=True), rm, rv))(
            lib.zeros(4, dtype=h), lib.ones(4, dtype=h)),
        "instance_norm": lambda x: F.instance_norm(x.reshape(2, 4, 4)),
        "group_norm": lambda x: F.group_norm(x.reshape(2, 4, 4), 2),
        "rms_norm": lambda x: F.rms_norm(x.reshape(8, 4), (4,)),
        "interpolate_bilinear": lambda x: F.interpolate(x.reshape(2, 1, 4, 4), scale_factor=1.5, mode="bilinear"),
    }


# where PyTorch's own order of a cancelling sum decides the last bits (60000 - 60000 + 1e-4 ...)
HALF_SKIP = {("adaptive_avg_pool2d", "mixed"), ("interpolate_bilinear", "mixed")}
HALF_TABLE = [(op, v) for op in half_cases(torch) for v in HALF_VALUES if (op, v) not in HALF_SKIP]


@pytest.mark.parametrize("op,vals", HALF_TABLE, ids=[f"{o}-{v}" for o, v in HALF_TABLE])
def test_half_precision_is_accumulated_as_pytorch(op, vals):
    res = []
    for lib in (torch, minitorch):
        r = half_cases(lib)[op](lib.tensor(HALF_VALUES[vals], dtype=lib.float16))
        res.append([(str(t.dtype).split(".")[-1], t.float().numpy()) for t in (r if isinstance(r, tuple) else (r,))])
    for (dt_t, a), (dt_m, b) in zip(*res):
        assert dt_t == dt_m
        np.testing.assert_array_equal(b, a, err_msg=f"{op}({vals})")


def test_batch_norm_writes_running_stats_without_a_new_version():
    got = {}
    for lib in (torch, minitorch):
        rm, rv = lib.zeros(3), lib.ones(3)
        lib.nn.functional.batch_norm(lib.arange(12.).reshape(4, 3), rm, rv, training=True)
        got[lib] = (rm._version, rv._version, rm.numpy().copy(), rv.numpy().copy())
    assert got[minitorch][:2] == got[torch][:2]
    np.testing.assert_array_equal(got[minitorch][2], got[torch][2])
    np.testing.assert_array_equal(got[minitorch][3], got[torch][3])


# ---- 3. cross_entropy with class probabilities of mixed dtypes -------------------------------

@pytest.mark.parametrize("dtypes", [("float64", "float32"), ("float32", "float64"), ("float32", "float32")])
@pytest.mark.parametrize("smoothing", [0.0, 0.1])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_probabilities_of_mixed_dtypes(dtypes, smoothing, weighted, reduction):
    """-(log_softmax(input) * target [* weight]) with log_softmax in the input's dtype, then
    promoted: the result's dtype, its value and the gradient (float32's log_softmax can differ
    from PyTorch's in its last bit: the tolerance)."""
    rs = np.random.RandomState(1)
    x_np, t_np, w_np = rs.randn(5, 4), rs.rand(5, 4), rs.rand(4)
    res = []
    for lib in (torch, minitorch):
        x = lib.tensor(x_np, dtype=getattr(lib, dtypes[0]), requires_grad=True)
        t = lib.tensor(t_np / t_np.sum(1, keepdims=True), dtype=getattr(lib, dtypes[1]))
        w = lib.tensor(w_np, dtype=getattr(lib, dtypes[1])) if weighted and dtypes[0] == dtypes[1] else None
        loss = lib.nn.functional.cross_entropy(x, t, weight=w, label_smoothing=smoothing, reduction=reduction)
        loss.sum().backward()
        res.append((str(loss.dtype).split(".")[-1], loss.detach().numpy(), x.grad.numpy()))
    (dt_t, v_t, g_t), (dt_m, v_m, g_m) = res
    assert dt_m == dt_t
    tol = 1e-14 if dtypes[0] == "float64" else 2e-7
    np.testing.assert_allclose(v_m, v_t, rtol=tol)
    np.testing.assert_allclose(g_m, g_t, rtol=tol * 10, atol=tol)


# ---- what the nodes keep, and empty inputs ------------------------------------------------------

SECOND_BACKWARD = {
    "avg_pool1d": lambda F, x: F.avg_pool1d(x, 2), "avg_pool2d": lambda F, x: F.avg_pool2d(x.unsqueeze(0), 2),
    "max_pool2d": lambda F, x: F.max_pool2d(x.unsqueeze(0), 2),
    "max_pool2d_overlapping": lambda F, x: F.max_pool2d(x.unsqueeze(0), 2, 1),
    "adaptive_avg_pool2d": lambda F, x: F.adaptive_avg_pool2d(x.unsqueeze(0), 3),
    "adaptive_max_pool2d": lambda F, x: F.adaptive_max_pool2d(x.unsqueeze(0), 3),
    "interpolate": lambda F, x: F.interpolate(x, scale_factor=2),
}


@pytest.mark.parametrize("op", list(SECOND_BACKWARD))
def test_a_second_backward_through_pooling_is_refused_as_in_pytorch(op):
    got = []
    for lib in (torch, minitorch):
        x = lib.arange(16.).reshape(1, 4, 4).requires_grad_()
        y = SECOND_BACKWARD[op](lib.nn.functional, x)
        y.sum().backward()
        try:
            y.sum().backward()
            got.append("runs")
        except RuntimeError:
            got.append("raises")
    assert got[1] == got[0]


@pytest.mark.parametrize("shape", [(2, 0, 3), (0, 2, 3), (1, 2, 0, 3)])
def test_interpolate_of_an_empty_tensor(shape):
    got = []
    for lib in (torch, minitorch):
        try:
            got.append(tuple(lib.nn.functional.interpolate(lib.zeros(shape), scale_factor=2).shape))
        except RuntimeError as e:
            got.append(str(e).split(",")[0][:40])
    assert got[1] == got[0]


@pytest.mark.parametrize("inp", ["nlc", "reversed3"])
@pytest.mark.parametrize("grad", [False, True])
def test_max_pool1d_without_a_gradient_is_a_fresh_row_major_result(inp, grad):
    got = []
    for lib in (torch, minitorch):
        x = make(lib, inp).requires_grad_(grad)
        y = lib.nn.functional.max_pool1d(x, 2)
        got.append((y.stride(), y._base is None, type(y.grad_fn).__name__))
    assert got[1] == got[0]
