"""Against PyTorch 2.13: mixed precision (autocast's float16 / float32 op lists on the CPU,
GradScaler's scaling, skipped steps and scale schedule, the deprecated torch.cuda.amp spellings),
memory formats (channels_last / channels_last_3d through to / contiguous / clone / empty / *_like /
is_contiguous / Module.to), torch.__version__ comparisons, the torch.cuda memory calls of a machine
without a GPU, nn.init's dirac_ / sparse_ and deprecated names, and the torch.* functions that are other names or small compositions
(minitorch/_functions_compat.py). Skipped when PyTorch is not installed.
"""
from __future__ import annotations

import warnings

import pytest

import minitorch

torch = pytest.importorskip("torch", reason="PyTorch not installed: differential tests skipped")

from tests.test_torch_core_checks import check  # noqa: E402  (one line of source, run on both)

pytestmark = pytest.mark.torch

MEMORY_FORMATS = [
    "T.ones(1,2,3,3).to(memory_format=T.channels_last).stride()",
    "T.ones(2,2,3,3).contiguous(memory_format=T.channels_last).stride()",
    "T.ones(2,2,3,3).clone(memory_format=T.channels_last).stride()",
    "T.ones(2,3).clone(memory_format=T.channels_last)",
    "T.ones(2,3).contiguous(memory_format=T.channels_last)",
    "T.ones(2,3).to(T.float64, memory_format=T.channels_last)",
    "T.ones(2,3).is_contiguous(memory_format=T.channels_last)",
    "T.ones(1,2,3,3).is_contiguous(memory_format=T.channels_last)",
    "T.ones(2,2,3,3).to(memory_format=T.channels_last).is_contiguous(memory_format=T.channels_last)",
    "T.ones(2,2,3,3).to(memory_format=T.channels_last).is_contiguous()",
    "T.empty(2,2,3,3, memory_format=T.channels_last).stride()",
    "T.empty(2,3, memory_format=T.preserve_format)",
    "T.zeros_like(T.ones(2,2,3,3), memory_format=T.channels_last).stride()",
    "T.full_like(T.ones(2,2,3,3), 2., memory_format=T.channels_last).stride()",
    "T.ones(2,2,1,3,3).to(memory_format=T.channels_last_3d).stride()",
    "T.ones(2,2,3,3).to(memory_format=T.channels_last_3d)",
    "T.ones(2,2,3,3).to(memory_format=T.channels_last).contiguous().stride()",
    "T.ones(2,2,3,3).to(memory_format=T.channels_last).clone().stride()",
    "T.ones(2,2,3,3).to(memory_format=T.channels_last).add(1).stride()",
    "T.ones(2,3).T.to(memory_format=T.contiguous_format).stride()",
    "T.ones(2,3).T.contiguous(memory_format=T.preserve_format)",
    "T.ones(2,2,3,3).to(T.float64, memory_format=T.channels_last).stride()",
    "T.ones(2,2,3,3, requires_grad=True).to(memory_format=T.channels_last).grad_fn.name()",
    "T.ones(2,2,3,3, requires_grad=True).contiguous(memory_format=T.channels_last).grad_fn.name()",
    "T.ones(2,2,3,3).contiguous(memory_format=3)", "T.ones(2).contiguous(memory_format=None)",
    "T.nn.Conv2d(2,2,1).to(memory_format=T.channels_last).weight.stride()",
    "T.nn.Linear(2,2).to(memory_format=T.channels_last).weight.stride()",
    "(T.manual_seed(0), T.randn_like(T.ones(1,2,3,3), memory_format=T.channels_last))[1]",
    "(T.manual_seed(0), T.rand_like(T.ones(1,2,3,3), memory_format=T.channels_last).stride())[1]",
    "(lambda x: x.to(memory_format=T.channels_last) is x)(T.ones(2,2,3,3).to(memory_format=T.channels_last))",
    "(lambda x: x.to(memory_format=T.contiguous_format) is x)(T.ones(2,3).T)",
]

FUNCTIONS = [
    "T.isin(T.tensor([1,2,3]), T.tensor([2]))", "T.isin(T.tensor([1,2,3]), 2)",
    "T.isin(T.tensor([[1,2],[3,4]]), T.tensor([4, 1]), invert=True)", "T.isin(T.tensor([1.,2.]), T.tensor([2]))",
    "T.isin(T.tensor([], dtype=T.int64), T.tensor([2]))",
    "T.unravel_index(T.tensor(5), (2,3))", "T.unravel_index(T.tensor([5, 0, -1, 6, -7]), (2,3))",
    "T.unravel_index(T.tensor([1.5]), (2,3))",
    "T.frexp(T.tensor([8.0, 0.3, -5.0, 0.0]))", "T.frexp(T.tensor([8.0], dtype=T.float64))", "T.frexp(T.tensor([8]))",
    "T.combinations(T.tensor([1,2,3]))", "T.combinations(T.tensor([1,2,3]), 3)",
    "T.combinations(T.tensor([1,2,3]), with_replacement=True)", "T.combinations(T.tensor([1,2]), 3)",
    "T.combinations(T.tensor([1,2]), 0)", "T.combinations(T.ones(2, 2))",
    "T.vander(T.tensor([1,2,3]))", "T.vander(T.tensor([1.,2.,3.]), N=2, increasing=True)",
    "T.vander(T.tensor([1,2,3]), N=0)",
    "T.gradient(T.tensor([1.,4.,9.,16.]))", "T.gradient(T.tensor([1.,4.,9.,16.]), spacing=2.)",
    "T.gradient(T.tensor([1.,4.,9.,16.]), edge_order=2)", "T.gradient(T.tensor([[1.,2.,4.],[2.,5.,9.]]))",
    "T.gradient(T.tensor([[1.,2.,4.],[2.,5.,9.]]), dim=1)", "T.gradient(T.tensor([1, 4, 9]))",
    "T.select(T.arange(6).reshape(2,3), 1, 0)", "T.is_nonzero(T.tensor([1]))", "T.is_same_size(T.ones(2), T.ones(2))",
    "T.is_signed(T.ones(2, dtype=T.uint8))", "T.row_stack([T.ones(2), T.zeros(2)])",
    "T.asarray([1, 2.0])", "T.asarray(T.ones(2), dtype=T.float64)", "str(T.get_default_device())",
    "(T.set_default_device('cpu'), str(T.get_default_device()), str(T.zeros(1).device), T.set_default_device(None))",
    "(lambda d: (d.__enter__(), str(T.ones(1).device), str(T.get_default_device()), d.__exit__(None, None, None))"
    "[1:3])(T.device('cpu'))",
    "T.dropout(T.ones(3), 0.5, False)", "T.embedding(T.eye(3), T.tensor([1, 2]))",
    "T.kl_div(T.tensor([-1., -2.]), T.tensor([0.3, 0.7]), 1)", "T.kl_div(T.tensor([-1., -2.]), T.tensor([0.3, 0.7]), 2)",
    "T.binary_cross_entropy_with_logits(T.tensor([1., -1.]), T.tensor([1., 0.]), None, None, 1)",
    "T.margin_ranking_loss(T.tensor([1., 2.]), T.tensor([2., 1.]), T.tensor([1., 1.]))",
    "T.hinge_embedding_loss(T.tensor([1., 2.]), T.tensor([1., -1.]))",
    "T.triplet_margin_loss(T.ones(1, 2), T.zeros(1, 2), T.ones(1, 2))",
    "T.cosine_embedding_loss(T.ones(1, 2), T.ones(1, 2), T.tensor([1.]), 0.0, 2)",
    "T.poisson_nll_loss(T.tensor([1., 2.]), T.tensor([1., 2.]), True, False, 1e-8, 1)",
    "T.threshold(T.tensor([1., 2.]), 1.5, 0.)", "T.hardshrink(T.tensor([0.2, 2.]))",
    "T.constant_pad_nd(T.ones(2), (1, 1), 3.)",
    "T.batch_norm(T.arange(6.).reshape(2, 3), None, None, None, None, True, 0.1, 1e-5, False)",
    "T.instance_norm(T.arange(6.).reshape(1, 2, 3), None, None, None, None, True, 0.1, 1e-5, False)",
    "T.rms_norm(T.tensor([[1., 2.]]), (2,))", "T.bilinear(T.ones(1, 2), T.ones(1, 2), T.ones(3, 2, 2), None)",
    "T.selu_(T.tensor([-1., 1.]))", "T.celu_(T.tensor([-1., 1.]))", "T.chain_matmul(T.eye(2), T.ones(2, 2))",
    "T.gcd_(T.tensor([4, 6]), T.tensor([6, 4]))", "T.ldexp_(T.tensor([1., 2.]), T.tensor([1, 2]))",
    "T.feature_dropout(T.ones(1, 2, 2), 0.5, False)", "T.alpha_dropout(T.ones(3), 0.5, False)",
    # nn.init: dirac_, sparse_ and the deprecated names without the underscore
    "T.nn.init.dirac_(T.empty(2, 2, 3))", "T.nn.init.dirac_(T.empty(4, 2, 3, 3), groups=2)",
    "T.nn.init.dirac_(T.empty(3, 2))", "(T.manual_seed(0), T.nn.init.sparse_(T.empty(4, 3), 0.5))[1]",
    "(T.manual_seed(0), T.nn.init.xavier_uniform(T.empty(2, 3)))[1]",
    "(T.manual_seed(0), T.nn.init.kaiming_normal(T.empty(2, 3)))[1]", "T.nn.init.constant(T.empty(2), 3.)",
    "T.nn.init.eye(T.empty(2, 2))", "T.nn.init.normal.__name__", "T.nn.init.dirac(T.empty(1, 1, 1, 3, 3))",
    # torch.testing.make_tensor: PyTorch's draws, checks and layouts
    "(T.manual_seed(0), T.testing.make_tensor((2, 3), dtype=T.float32, device='cpu'))[1]",
    "(T.manual_seed(0), T.testing.make_tensor(2, 3, dtype=T.int64, device='cpu', low=-2, high=3))[1]",
    "(T.manual_seed(0), T.testing.make_tensor((4,), dtype=T.bool, device='cpu'))[1]",
    "(T.manual_seed(0), T.testing.make_tensor((4,), dtype=T.uint8, device='cpu', exclude_zero=True))[1]",
    "(T.manual_seed(0), T.testing.make_tensor((2, 2), dtype=T.float16, device='cpu', noncontiguous=True).stride())[1]",
    "(T.manual_seed(0), T.testing.make_tensor((3,), dtype=T.float64, device='cpu', low=-1e308, high=1e308))[1]",
    "T.testing.make_tensor((2,), dtype=T.float32, device='cpu', requires_grad=True).requires_grad",
    "T.testing.make_tensor((2,), dtype=T.int32, device='cpu', requires_grad=True)",
    "T.testing.make_tensor((2,), dtype=T.float32, device='cpu', low=3, high=1)",
    "T.testing.make_tensor((2,), dtype=T.uint8, device='cpu', low=300, high=400)",
    "(T.manual_seed(0), T.testing.make_tensor((1, 2, 2, 2), dtype=T.float32, device='cpu', "
    "memory_format=T.channels_last).stride())[1]",
    # the CUDA calls a program makes on a machine without a GPU
    "T.cuda.empty_cache()", "T.cuda.memory_allocated()", "T.cuda.max_memory_allocated()", "T.cuda.memory_reserved()",
    "T.cuda.max_memory_reserved()", "T.cuda.is_initialized()", "T.cuda.is_bf16_supported()", "len(T.cuda.memory_stats())",
    "T.cuda.get_arch_list()",
    # torch.__version__ compares as a version
    "[T.__version__ >= v for v in ('2.0', '1.13.1', '2.13', '2.14', (2, 13), (2, 14), [1, 9])]",
    "[T.__version__ < v for v in ('2.0', '2.13.1', '3', (2, 14))]",
    "T.__version__.split('+')[0]", "isinstance(T.__version__, str)",
]


@pytest.mark.parametrize("src", MEMORY_FORMATS + FUNCTIONS)
def test_against_pytorch(src):
    check(src, exact=True)


def _amp_program(lib):
    """A float16 autocast region and a GradScaler'd training loop, recorded step by step."""
    F = lib.nn.functional
    lib.manual_seed(0)
    out = []
    x, w, t = lib.randn(4, 4), lib.randn(4, 4, requires_grad=True), lib.tensor([1, 0, 2, 3])
    h = x.half()
    with lib.autocast("cpu", dtype=lib.float16):
        y = x @ w
        out.append((y.dtype, y.grad_fn.name(), [type(f[0]).__name__ for f in y.grad_fn.next_functions]))
        loss = F.cross_entropy(y, t)
        out.append((loss.dtype, loss.grad_fn.name()))
        for r in (F.mse_loss(h, h), lib.mm(x, x), lib.mv(x, x[0]), lib.addmm(x, x, x), lib.bmm(x[None], x[None]),
                  x.softmax(-1), h.exp(), lib.einsum("ij,jk->ik", x, x), x.double() @ x.double(), lib.cdist(h, h),
                  h.prod(), lib.trace(h), F.linear(x, x, x[0]), F.l1_loss(h, h), F.binary_cross_entropy_with_logits(h, h),
                  F.scaled_dot_product_attention(x[None], x[None], x[None]), F.prelu(x, lib.ones(1)),
                  lib.baddbmm(x[None], x[None], x[None]), F.kl_div(h, h, reduction="batchmean")):
            out.append(r.dtype)
        with lib.autocast("cpu", enabled=False):
            out.append((x @ x).dtype)
        out.append(((x @ x).dtype, lib.is_autocast_enabled("cpu")))
    out.append(lib.is_autocast_enabled("cpu"))
    loss.backward()
    out.append((w.grad.dtype, round(float(w.grad.abs().sum()), 3)))

    @lib.autocast("cpu", dtype=lib.float16)
    def f(a):
        return a @ a
    out.append(f(x).dtype)
    with lib.autocast("cuda"):  # no GPU: a warning, and nothing cast
        out.append((x @ x).dtype)

    scaler = lib.amp.GradScaler("cpu", init_scale=4.0, growth_interval=2)
    p = lib.nn.Parameter(lib.ones(3))
    opt = lib.optim.SGD([p], lr=0.1)
    for i in range(5):  # the third step overflows: skipped, and the scale backs off
        opt.zero_grad()
        scaled = scaler.scale((p * (float("inf") if i == 2 else 1.0)).sum())
        scaled.backward()
        scaler.step(opt)
        scaler.update()
        out.append((float(scaled), scaler.get_scale(), p.tolist(), scaler._get_growth_tracker()))
    out.append(scaler.state_dict())
    again = lib.amp.GradScaler("cpu")
    again.load_state_dict(scaler.state_dict())
    out.append(again.get_scale())
    opt.zero_grad()
    scaler.scale(p.sum()).backward()
    scaler.unscale_(opt)
    out.append(p.grad.tolist())
    for call in (lambda: scaler.unscale_(opt), lambda: (scaler.step(opt), scaler.step(opt)),
                 lambda: lib.amp.GradScaler("cpu", growth_factor=0.5), lambda: lib.amp.GradScaler("cpu").load_state_dict({}),
                 lambda: scaler.step(opt, closure=lambda: 0)):
        try:
            call()
            out.append("no error")
        except Exception as e:  # noqa: BLE001
            out.append((type(e).__name__, str(e)))
    scaler.update()
    out.append(lib.amp.GradScaler("cuda").scale(lib.tensor(2.0)).item())  # no GPU: disabled, returned as it is
    out.append(lib.cuda.amp.GradScaler().is_enabled())
    out.append(lib.amp.GradScaler("cuda", enabled=False).state_dict())
    return [str(o).replace("minitorch.", "torch.") for o in out]


def test_autocast_and_grad_scaler_as_pytorch():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want, got = _amp_program(torch), _amp_program(minitorch)
    assert len(want) == len(got)
    for i, (w, g) in enumerate(zip(want, got)):
        assert w == g, f"step {i}: PyTorch {w}, minitorch {g}"


@pytest.mark.parametrize("call", ["lambda L: L.cuda.amp.GradScaler()", "lambda L: L.cuda.amp.autocast()",
                                  "lambda L: L.amp.GradScaler('cuda')", "lambda L: L.autocast('cuda')"])
def test_the_warnings_of_amp_without_a_gpu(call):
    def said(lib):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            eval(call)(lib)  # noqa: S307
        return [(x.category.__name__, str(x.message).split("\n")[0]) for x in w]
    assert said(minitorch) == said(torch)


def test_cpu_autocast_in_bfloat16_is_a_clear_error():
    """PyTorch's CPU autocast defaults to bfloat16, a dtype minitorch lacks: refused, not ignored."""
    with pytest.raises(NotImplementedError, match="bfloat16"):
        minitorch.autocast("cpu")
    with minitorch.autocast("cpu", enabled=False):  # (off: nothing to refuse)
        assert (minitorch.ones(2) @ minitorch.ones(2)).dtype is minitorch.float32
