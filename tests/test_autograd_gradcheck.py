"""Every differentiable op of the core, checked against finite differences (float64).

`CASES` is the explicit list of what is covered: one entry per op and per form (tensor and
scalar operands, broadcast shapes, dims, keepdim, ...). A new differentiable op needs a new
entry here; `test_every_differentiable_primitive_has_a_case` fails until it has one.

Each case runs on contiguous leaves and again on non-contiguous ones (transposed and strided
views, detached into leaves), so backward formulas that assume a layout are caught. The same
table drives tests/test_autograd_torch.py, which compares values and gradients with PyTorch.
"""
from __future__ import annotations

import zlib

import numpy as np
import pytest

import minitorch
from minitorch.autograd import gradcheck, gradgradcheck
from minitorch.autograd.gradcheck import GradcheckError


class Case:
    """fn(lib, *inputs): lib is minitorch (or torch, in the differential tests).

    shapes: one shape per input that requires grad.
    domain: "any" (|x| in [0.3, 1.5], either sign: away from the kinks of abs, relu, ...),
            "pos" ([0.5, 2.0]: log, sqrt, fractional powers), or a per-input tuple of those.
    zero_at: (input, flat index) pairs set to exactly 0 (prod with zeros).
    layouts: the input layouts the op accepts (view() refuses non-contiguous input, as in PyTorch).
    """

    def __init__(self, name, fn, *shapes, domain="any", zero_at=(), atol=1e-5, rtol=1e-3, eps=1e-6,
                 layouts=("contiguous", "noncontiguous")):
        self.name, self.fn, self.shapes, self.layouts = name, fn, shapes, layouts
        self.domain = domain if isinstance(domain, tuple) else (domain,) * len(shapes)
        self.zero_at = zero_at
        self.atol, self.rtol, self.eps = atol, rtol, eps

    def __repr__(self):
        return self.name


def values(case, seed=0):
    """The input values of a case, as float64 NumPy arrays (the same for every library)."""
    rng = np.random.default_rng([zlib.crc32(case.name.encode()), seed])
    out = []
    for shape, dom in zip(case.shapes, case.domain):
        if dom == "pos":
            v = rng.uniform(0.5, 2.0, shape)
        else:
            v = rng.uniform(0.3, 1.5, shape) * rng.choice([-1.0, 1.0], shape)
        out.append(np.asarray(v, dtype=np.float64))
    for k, i in case.zero_at:
        out[k].reshape(-1)[i] = 0.0
    return out


def noncontiguous(lib, arr):
    """A leaf with arr's values whose memory is a transposed, strided view of a larger buffer."""
    if arr.ndim == 0:
        return lib.tensor(arr)
    if arr.ndim == 1:
        buf = np.zeros(2 * arr.shape[0])
        buf[::2] = arr
        return lib.tensor(buf)[::2]
    shape = arr.shape[:-2] + (arr.shape[-1], 2 * arr.shape[-2])
    buf = np.zeros(shape)
    buf[..., ::2] = np.swapaxes(arr, -1, -2)
    return lib.tensor(buf)[..., ::2].transpose(-1, -2)


def make_inputs(lib, case, layout, seed=0):
    xs = []
    for v in values(case, seed):
        t = lib.tensor(v) if layout == "contiguous" else noncontiguous(lib, v)
        xs.append(t.detach().requires_grad_(True))
    return xs


def _idx(lib, *v):
    return lib.tensor(list(v), dtype=lib.int64)


def _assign_slice(lib, x, v):
    y = x * 1  # a non-leaf: indexed assignment is recorded (IndexPutBackward0 / CopySlices)
    y[1] = v
    return y


def _assign_scalar(lib, x):
    y = x * 1
    y[:, 1] = 2.0
    return y


def _assign_advanced(lib, x, v):
    y = x * 1
    y[_idx(lib, 0, 2)] = v
    return y


def _assign_mask(lib, x):
    y = x * 2
    y[x < 0] = 0.0
    return y


def _assign_step(lib, x, v):
    y = x * 1
    y[:, ::2] = v * 2
    return y


def _assign_then_use(lib, x, v):
    y = x * 1
    y[0, 1:] = v
    return y.sin()


def _split_sum(lib, x):
    a, b, c = x.split(2, dim=1)  # sizes 2, 2, 1
    return a * 1.0, b * 2.0, c * 3.0


CASES = [
    # ---- binary pointwise: tensor (broadcast) and Python-scalar operands ----
    Case("add", lambda L, x, y: x + y, (2, 3), (3,)),
    Case("add_outer_broadcast", lambda L, x, y: L.add(x, y), (3, 1), (1, 4)),
    Case("add_alpha", lambda L, x, y: L.add(x, y, alpha=2.5), (2, 3), (2, 1)),
    Case("add_scalar", lambda L, x: x + 1.5, (2, 3)),
    Case("radd_scalar", lambda L, x: 1.5 + x, (2, 3)),
    Case("sub", lambda L, x, y: x - y, (2, 3), (2, 1)),
    Case("sub_scalar", lambda L, x: x - 2.0, (2, 3)),
    Case("sub_alpha", lambda L, x, y: L.sub(x, y, alpha=-1.5), (2, 3), (3,)),
    Case("rsub_scalar", lambda L, x: 2.0 - x, (2, 3)),
    Case("mul", lambda L, x, y: x * y, (4, 1, 3), (2, 3)),
    Case("mul_same", lambda L, x: x * x, (2, 3)),
    Case("mul_scalar", lambda L, x: x * 3.0, (2, 3)),
    Case("rmul_scalar", lambda L, x: 3.0 * x, (2, 3)),
    Case("div", lambda L, x, y: x / y, (2, 3), (3,)),
    Case("div_scalar", lambda L, x: x / 3.0, (2, 3)),
    Case("rdiv_scalar", lambda L, x: 3.0 / x, (2, 3)),
    Case("pow", lambda L, x, y: x ** y, (2, 3), (3,), domain=("pos", "any")),
    Case("pow_scalar_2", lambda L, x: x ** 2, (2, 3)),
    Case("pow_scalar_3", lambda L, x: L.pow(x, 3), (2, 3)),
    Case("pow_scalar_half", lambda L, x: x ** 0.5, (2, 3), domain="pos"),
    Case("pow_scalar_negative", lambda L, x: x ** -1.5, (2, 3), domain="pos"),
    Case("pow_scalar_zero", lambda L, x: x ** 0, (2, 3)),
    Case("rpow_scalar", lambda L, x: 2.0 ** x, (2, 3)),
    Case("maximum", lambda L, x, y: L.maximum(x, y), (2, 3), (3,)),
    Case("minimum", lambda L, x, y: L.minimum(x, y), (2, 1), (2, 3)),
    Case("where", lambda L, x, y: L.where(x > 0, x, y), (2, 3), (3,)),
    Case("where_scalar", lambda L, x: L.where(x > 0, x, 0.0), (2, 3)),
    # ---- unary pointwise ----
    Case("neg", lambda L, x: -x, (2, 3)),
    Case("exp", lambda L, x: x.exp(), (2, 3)),
    Case("log", lambda L, x: x.log(), (2, 3), domain="pos"),
    Case("sqrt", lambda L, x: L.sqrt(x), (2, 3), domain="pos"),
    Case("abs", lambda L, x: x.abs(), (2, 3)),
    Case("sin", lambda L, x: x.sin(), (2, 3)),
    Case("cos", lambda L, x: L.cos(x), (2, 3)),
    Case("tanh", lambda L, x: x.tanh(), (2, 3)),
    Case("sigmoid", lambda L, x: x.sigmoid(), (2, 3)),
    Case("relu", lambda L, x: x.relu(), (2, 3)),
    Case("clamp", lambda L, x: x.clamp(-0.5, 0.8), (3, 4)),
    Case("clamp_min", lambda L, x: L.clamp(x, min=0.1), (3, 4)),
    Case("clamp_max", lambda L, x: x.clamp(max=-0.2), (3, 4)),
    Case("clamp_tensor_bounds", lambda L, x, lo, hi: x.clamp(lo - 1.0, hi + 1.0), (2, 3), (3,), (2, 1)),
    Case("clamp_tensor_min", lambda L, x, lo: x.clamp(min=lo), (2, 3), (3,)),
    Case("log1p", lambda L, x: x.log1p(), (2, 3), domain="pos"),
    Case("expm1", lambda L, x: x.expm1(), (2, 3)),
    Case("rsqrt", lambda L, x: x.rsqrt(), (2, 3), domain="pos"),
    Case("reciprocal", lambda L, x: x.reciprocal(), (2, 3)),
    Case("remainder", lambda L, x, y: x % y, (2, 3), (3,), domain=("any", "pos")),
    Case("remainder_scalar", lambda L, x: L.remainder(x, 0.7), (2, 3)),
    Case("fmod", lambda L, x, y: L.fmod(x, y), (2, 3), (3,), domain=("any", "pos")),
    Case("fmod_scalar", lambda L, x: x.fmod(0.7), (2, 3)),
    Case("pow_inplace", lambda L, x: (x * 1).pow_(3), (2, 3)),
    Case("masked_fill", lambda L, x, v: x.masked_fill(x > 0, 0.0) + x.masked_fill(x < 0, v.sum()), (2, 3), (2,)),
    # ---- reductions ----
    Case("sum", lambda L, x: x.sum(), (2, 3)),
    Case("sum_dim", lambda L, x: x.sum(1), (2, 3, 2)),
    Case("sum_dims_keepdim", lambda L, x: x.sum(dim=(0, 2), keepdim=True), (2, 3, 2)),
    Case("sum_neg_dim", lambda L, x: L.sum(x, -1), (2, 3)),
    Case("mean", lambda L, x: x.mean(), (2, 3)),
    Case("mean_dim", lambda L, x: x.mean(0), (2, 3)),
    Case("mean_dims_keepdim", lambda L, x: x.mean((1, 2), keepdim=True), (2, 3, 2)),
    Case("prod", lambda L, x: x.prod(), (2, 3)),
    Case("prod_dim", lambda L, x: x.prod(1), (3, 4)),
    Case("prod_one_zero", lambda L, x: x.prod(1), (3, 4), zero_at=((0, 5),)),
    Case("prod_two_zeros", lambda L, x: x.prod(), (2, 3), zero_at=((0, 1), (0, 4))),
    Case("max", lambda L, x: x.max(), (3, 4)),
    Case("max_dim", lambda L, x: x.max(1).values, (3, 4)),
    Case("max_dim_keepdim", lambda L, x: x.max(dim=0, keepdim=True)[0], (3, 4)),
    Case("min", lambda L, x: L.min(x), (3, 4)),
    Case("min_dim", lambda L, x: x.min(-1).values, (3, 4)),
    Case("amax", lambda L, x: x.amax(dim=(0, 2)), (2, 3, 2)),
    Case("amin", lambda L, x: L.amin(x, 1, keepdim=True), (3, 4)),
    Case("std", lambda L, x: x.std(), (3, 4)),
    Case("std_dim", lambda L, x: x.std(1), (3, 4)),
    Case("var", lambda L, x: x.var(), (3, 4)),
    Case("var_dim_biased", lambda L, x: x.var(0, correction=0, keepdim=True), (3, 4)),
    Case("norm", lambda L, x: x.norm(), (3, 4)),
    Case("norm_dim", lambda L, x: x.norm(dim=1), (3, 4)),
    Case("norm_p1", lambda L, x: x.norm(p=1), (3, 4)),
    Case("norm_p3", lambda L, x: x.norm(p=3, dim=0), (3, 4)),
    Case("norm_inf", lambda L, x: x.norm(p=float("inf")), (3, 4)),
    Case("logsumexp", lambda L, x: x.logsumexp(1), (3, 4)),
    Case("logsumexp_dims", lambda L, x: L.logsumexp(x, (0, 1)), (3, 4)),
    Case("softmax", lambda L, x: x.softmax(-1), (3, 4)),
    Case("softmax_dim0", lambda L, x: L.softmax(x, 0), (3, 4)),
    Case("log_softmax", lambda L, x: x.log_softmax(1), (3, 4)),
    Case("cumsum", lambda L, x: x.cumsum(0), (3, 4)),
    Case("cumsum_last", lambda L, x: L.cumsum(x, -1), (3, 4)),
    Case("cumprod", lambda L, x: x.cumprod(1), (3, 4)),
    Case("cumprod_with_zeros", lambda L, x: x.cumprod(0), (4, 3), zero_at=((0, 4), (0, 6), (0, 8), (0, 11))),
    # ---- matmul: every shape rule ----
    Case("matmul_1d_1d", lambda L, x, y: x @ y, (4,), (4,)),
    Case("matmul_2d_1d", lambda L, x, y: x @ y, (3, 4), (4,)),
    Case("matmul_1d_2d", lambda L, x, y: x @ y, (4,), (4, 5)),
    Case("matmul_2d_2d", lambda L, x, y: L.matmul(x, y), (3, 4), (4, 5)),
    Case("matmul_batched", lambda L, x, y: x @ y, (2, 3, 4), (2, 4, 5)),
    Case("matmul_batched_2d", lambda L, x, y: x @ y, (2, 3, 4), (4, 5)),
    Case("matmul_2d_batched", lambda L, x, y: x @ y, (3, 4), (2, 4, 5)),
    Case("matmul_batched_1d", lambda L, x, y: x @ y, (2, 3, 4), (4,)),
    Case("matmul_1d_batched", lambda L, x, y: x @ y, (4,), (2, 4, 3)),
    Case("matmul_broadcast_batch", lambda L, x, y: x @ y, (2, 1, 3, 4), (3, 4, 2)),
    Case("mm", lambda L, x, y: x.mm(y), (3, 4), (4, 2)),
    Case("bmm", lambda L, x, y: L.bmm(x, y), (2, 3, 4), (2, 4, 2)),
    # ---- views and shapes ----
    Case("view", lambda L, x: x.view(6, 2), (3, 4), layouts=("contiguous",)),
    Case("view_infer", lambda L, x: x.view(-1), (3, 4), layouts=("contiguous",)),
    Case("view_of_transposed", lambda L, x: x.t().view(2, 2, 3).sum(1) * x[:, 0], (3, 4), layouts=("contiguous",)),
    Case("reshape", lambda L, x: x.reshape(2, 6), (3, 4)),
    Case("reshape_of_transposed", lambda L, x: x.t().reshape(-1), (3, 4)),
    Case("reshape_alias", lambda L, x: x.t().reshape(4, 3, 1), (3, 4), layouts=("contiguous",)),
    Case("transpose", lambda L, x: x.transpose(0, 2), (2, 3, 4)),
    Case("t", lambda L, x: x.t() * L.tensor([1.0, 2.0, 3.0], dtype=L.float64), (3, 4)),
    Case("T", lambda L, x: x.T + 1.0, (3, 4)),
    Case("mT", lambda L, x: x.mT @ x, (2, 3, 4)),
    Case("permute", lambda L, x: x.permute(2, 0, 1), (2, 3, 4)),
    Case("squeeze", lambda L, x: x.squeeze(), (3, 1, 4, 1)),
    Case("squeeze_dim", lambda L, x: x.squeeze(1), (3, 1, 4)),
    Case("squeeze_dims", lambda L, x: x.squeeze((1, 3)), (3, 1, 4, 1)),
    Case("unsqueeze", lambda L, x: x.unsqueeze(1), (3, 4)),
    Case("flatten", lambda L, x: x.flatten(), (2, 3, 4)),
    Case("flatten_from_1", lambda L, x: L.flatten(x, 1), (2, 3, 4)),
    Case("expand", lambda L, x: x.expand(2, 3, 4), (3, 1)),
    Case("expand_keep", lambda L, x: x.expand(2, -1, -1), (1, 3, 4)),
    Case("expand_as", lambda L, x, y: x.expand_as(y) * y, (1, 4), (3, 4)),
    Case("narrow", lambda L, x: x.narrow(1, 1, 2), (3, 4)),
    Case("narrow_copy", lambda L, x: x.narrow_copy(1, 1, 2), (3, 4)),
    Case("view_chain", lambda L, x: x.t()[1:, ::2].unsqueeze(0).flatten(), (3, 4)),
    # ---- indexing ----
    Case("getitem_int", lambda L, x: x[1], (3, 4)),
    Case("getitem_negative", lambda L, x: x[-1, -2], (3, 4)),
    Case("getitem_slice", lambda L, x: x[1:3], (4, 3)),
    Case("getitem_step", lambda L, x: x[::2, 1::2], (4, 5)),
    Case("getitem_column", lambda L, x: x[:, 1], (3, 4)),
    Case("getitem_none_ellipsis", lambda L, x: x[None, ..., 1:], (2, 3)),
    Case("getitem_none", lambda L, x: x[:, None] * x[None], (2, 3)),
    Case("getitem_ellipsis", lambda L, x: x[...] * 2, (2, 3)),
    Case("getitem_int_tensor_repeats", lambda L, x: x[_idx(L, 0, 2, 0)], (3, 4)),
    Case("getitem_list", lambda L, x: x[[1, 0, 1]], (3, 4)),
    Case("getitem_mask", lambda L, x: x[x > 0], (3, 4)),
    Case("getitem_two_tensors", lambda L, x: x[_idx(L, 0, 2, 2), _idx(L, 1, 3, 3)], (3, 4)),
    Case("getitem_slice_and_tensor", lambda L, x: x[1:, _idx(L, 1, 1, 0)], (3, 4)),
    Case("index_select", lambda L, x: x.index_select(1, _idx(L, 3, 0, 3)), (3, 4)),
    Case("select", lambda L, x: x.select(1, 2), (3, 4)),
    Case("setitem_row", _assign_slice, (3, 4), (4,)),
    Case("setitem_scalar", _assign_scalar, (3, 4)),
    Case("setitem_advanced", _assign_advanced, (3, 4), (1, 4)),
    Case("setitem_mask", _assign_mask, (3, 4)),
    Case("setitem_step", _assign_step, (3, 4), (3, 1)),
    Case("setitem_then_use", _assign_then_use, (3, 4), (3,)),
    # ---- joining, splitting, copying ----
    Case("cat", lambda L, x, y: L.cat([x, y]), (2, 3), (1, 3)),
    Case("cat_dim1_three", lambda L, x, y, z: L.cat([x, y, z], dim=1), (2, 1), (2, 3), (2, 2)),
    Case("stack", lambda L, x, y: L.stack([x, y]), (2, 3), (2, 3)),
    Case("stack_last", lambda L, x, y: L.stack([x, y], dim=-1), (2, 3), (2, 3)),
    Case("split", _split_sum, (2, 5)),
    Case("split_sizes", lambda L, x: x.split([1, 3], dim=0), (4, 2)),
    Case("chunk", lambda L, x: x.chunk(3, 1), (2, 6)),
    Case("unbind", lambda L, x: L.unbind(x, 1), (2, 3)),
    Case("repeat", lambda L, x: x.repeat(2, 3), (2, 3)),
    Case("repeat_new_dim", lambda L, x: x.repeat(2, 1, 2), (2, 3)),
    Case("tile", lambda L, x: x.tile(2), (2, 3)),
    Case("flip", lambda L, x: x.flip(0), (3, 4)),
    Case("flip_dims", lambda L, x: L.flip(x, (0, 1)), (3, 4)),
    Case("gather", lambda L, x: x.gather(1, L.tensor([[0, 0, 2], [1, 3, 1], [2, 2, 2]])), (3, 4)),
    Case("gather_dim0", lambda L, x: L.gather(x, 0, L.tensor([[0, 2, 1, 0]])), (3, 4)),
    Case("clone", lambda L, x: x.clone() * 2, (2, 3)),
    Case("contiguous", lambda L, x: x.t().contiguous(), (2, 3)),
    Case("to_float32_and_back", lambda L, x: (x * 3).to(L.float32).to(L.float64), (2, 3),
         atol=2e-3, eps=1e-3),
    Case("to_dtype_float32", lambda L, x: x.to(L.float32) * 2, (2, 3), atol=2e-3, eps=1e-3),
    Case("double_of_float", lambda L, x: x.float().double(), (2, 3), atol=2e-3, eps=1e-3),
]

# Primitives with a recorded backward, and the case names that exercise each. A primitive
# added to minitorch/_ops without an entry here fails test_every_differentiable_primitive_has_a_case.
COVERAGE = {
    "Add": ["add", "add_scalar"], "Sub": ["sub"], "AddAlpha": ["add_alpha"], "SubAlpha": ["sub_alpha"], "Rsub": ["rsub_scalar"], "Mul": ["mul", "mul_scalar"],
    "Div": ["div", "div_scalar"], "Reciprocal": ["rdiv_scalar", "reciprocal"], "Pow": ["pow_inplace"],
    "PowTensor": ["pow"], "PowScalar": ["pow_scalar_2", "pow_scalar_half", "pow_scalar_negative", "pow_scalar_zero"],
    "PowScalarBase": ["rpow_scalar"], "Log1p": ["log1p"], "Expm1": ["expm1"], "Rsqrt": ["rsqrt"],
    "Remainder": ["remainder"], "RemainderScalar": ["remainder_scalar"], "Fmod": ["fmod"],
    "FmodScalar": ["fmod_scalar"],
    "ClampTensor": ["clamp_tensor_bounds", "clamp_tensor_min"], "MaskedFill": ["masked_fill"],
    "Var": ["var", "var_dim_biased"], "Std": ["std", "std_dim"], "Norm": ["norm", "norm_dim", "norm_p1", "norm_p3",
                                                                         "norm_inf"],
    "LogSumExp": ["logsumexp", "logsumexp_dims"], "Stack": ["stack", "stack_last"], "Split": ["split", "chunk"],
    "SplitWithSizes": ["split_sizes"], "Unbind": ["unbind"], "Repeat": ["repeat", "repeat_new_dim", "tile"],
    "Bmm": ["bmm"], "MatmulFolded": ["matmul_batched", "matmul_batched_2d", "matmul_batched_1d", "matmul_1d_batched"],
    "VecMat": ["matmul_1d_2d"], "MatBatch": ["matmul_2d_batched"], "IndexSelect": ["index_select"],
    "ClampMin": ["clamp_min"], "ClampMax": ["clamp_max"],
    "Maximum": ["maximum"], "Minimum": ["minimum"], "Where": ["where"],
    "Neg": ["neg"], "Exp": ["exp"], "Log": ["log"], "Sqrt": ["sqrt"], "Abs": ["abs"], "Sin": ["sin"],
    "Cos": ["cos"], "Tanh": ["tanh"], "Sigmoid": ["sigmoid"], "Relu": ["relu"], "Clamp": ["clamp"],
    "Sum": ["sum"], "SumDim": ["sum_dim"], "Mean": ["mean"], "MeanDim": ["mean_dim"], "Prod": ["prod_one_zero"],
    "ProdAll": ["prod", "prod_two_zeros"],
    "Cumsum": ["cumsum"], "Cumprod": ["cumprod"], "AMax": ["amax"], "AMin": ["amin"],
    "MaxAll": ["max"], "MinAll": ["min"],
    "MaxDim": ["max_dim"], "MinDim": ["min_dim"], "LogSoftmax": ["log_softmax"], "Softmax": ["softmax"],
    "Matmul": ["matmul_2d_2d", "matmul_batched"], "Dot": ["matmul_1d_1d"], "Mv": ["matmul_2d_1d"],
    "View": ["view"], "ReshapeAlias": ["reshape_alias"], "Permute": ["permute"], "Transpose": ["transpose"], "MatrixT": ["t"],
    "Expand": ["expand"], "Squeeze": ["squeeze"], "SqueezeDim": ["squeeze_dim"], "SqueezeDims": ["squeeze_dims"],
    "Unsqueeze": ["unsqueeze"], "AsStrided": ["setitem_then_use"],
    "Select": ["getitem_int"], "Slice": ["getitem_slice"], "Index": ["getitem_mask"],
    "IndexUnsqueeze": ["getitem_none"], "Alias": ["getitem_ellipsis"],
    "IndexPutInto": ["getitem_slice"], "IndexPut": ["setitem_row"], "Gather": ["gather"],
    "ScatterAlong": ["gather", "max_dim"], "Cat": ["cat"], "Flip": ["flip"], "Clone": ["clone"],
    "ToCopy": ["to_float32_and_back"], "NarrowCopy": ["narrow_copy"],
    # pieces of the Tensor method layer (in-place fill / copy), checked in test_autograd_inplace.py
    "Fill": [], "FillTensor": [], "Zero": [], "Copy": [],
    # piecewise-constant: gradient 0 by definition, checked in test_zero_gradient_ops
    "Sign": [], "Floor": [], "Ceil": [], "Round": [], "Trunc": [], "RoundDecimals": [],
    # floor division is piecewise constant and, as in PyTorch, its backward refuses (test_torch_fidelity)
    "FloorDivide": [], "DivFloor": [], "DivTrunc": [],
}

# The wider API's ops (special math, ordering, scatter, shape ops, fused products): their
# cases live in tests/_api_cases.py and run here, and against PyTorch, like the core's.
from _api_cases import API_CASES, API_COVERAGE  # noqa: E402

CASES += [Case(name, fn, *shapes, **options) for name, fn, shapes, options in API_CASES]
COVERAGE.update(API_COVERAGE)

CASE_NAMES = [c.name for c in CASES]
CASE_LAYOUTS = [pytest.param(c, lay, id=f"{c.name}-{lay}") for c in CASES for lay in c.layouts]


def test_case_names_are_unique():
    assert len(CASE_NAMES) == len(set(CASE_NAMES))


def _differentiable_primitives():
    from minitorch._ops import _prim
    import minitorch._methods  # noqa: F401  (defines Fill and Copy)
    seen, stack = {}, [_prim.Primitive]
    while stack:
        cls = stack.pop()
        for sub in cls.__subclasses__():
            stack.append(sub)
            abstract = sub.forward is minitorch.autograd.Function.forward  # a base class such as ViewPrimitive
            core = sub.__module__.startswith(("minitorch._ops", "minitorch._methods"))  # nn has its own tests
            if core and sub.differentiable and not abstract and not sub.__name__.startswith("_"):
                seen[sub.__name__] = sub
    return seen


def test_every_differentiable_primitive_has_a_case():
    prims = _differentiable_primitives()
    missing = sorted(set(prims) - set(COVERAGE))
    assert not missing, f"differentiable primitives without a gradient test: {missing}; add a Case and a COVERAGE entry"
    for prim, names in COVERAGE.items():
        for n in names:
            assert n in CASE_NAMES, f"COVERAGE[{prim!r}] names an unknown case {n!r}"


@pytest.mark.parametrize("case, layout", CASE_LAYOUTS)
def test_gradcheck(case, layout):
    xs = make_inputs(minitorch, case, layout)
    if layout == "noncontiguous":
        assert not any(x.is_contiguous() for x in xs if x.ndim and x.numel() > 1)
    assert gradcheck(lambda *a: case.fn(minitorch, *a), xs, eps=case.eps, atol=case.atol, rtol=case.rtol)


# Every backward is made of recorded ops, so every case has a second derivative (the float32
# round trips are left out: finite differences of a float32 gradient are too coarse).
GRADGRAD_CASES = [c for c in CASES if c.eps == 1e-6]


@pytest.mark.parametrize("case", GRADGRAD_CASES, ids=[c.name for c in GRADGRAD_CASES])
def test_gradgradcheck(case):
    xs = make_inputs(minitorch, case, "contiguous")
    assert gradgradcheck(lambda *a: case.fn(minitorch, *a), xs, atol=1e-4)


def test_zero_gradient_ops():
    """Piecewise-constant ops are recorded (PyTorch does too) and pass back exact zeros."""
    x = minitorch.tensor([-1.7, -0.2, 0.4, 2.5], dtype=minitorch.float64, requires_grad=True)
    for name, y in [(n, getattr(x, n)()) for n in ["sign", "floor", "ceil", "round", "trunc"]] + [
            ("round(decimals=1)", x.round(decimals=1))]:
        assert y.requires_grad, name
        (g,) = minitorch.autograd.grad((y * -3).sum(), x)
        assert g.tolist() == [0.0, 0.0, 0.0, 0.0], name
        assert not np.signbit(g.numpy()).any(), name  # +0., as PyTorch's zeros (never -0. from -3 * 0)


# ---- gradcheck itself must be able to fail -----------------------------------------------

class _WrongSquare(minitorch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * x  # should be 2 * x


def test_gradcheck_detects_a_wrong_backward():
    x = minitorch.tensor([0.5, -1.0, 2.0], dtype=minitorch.float64, requires_grad=True)
    with pytest.raises(GradcheckError, match="Jacobian mismatch for output 0 with respect to input 0"):
        gradcheck(_WrongSquare.apply, (x,))
    assert gradcheck(_WrongSquare.apply, (x,), raise_exception=False) is False


def test_gradcheck_detects_a_wrong_second_derivative():
    class WrongSecond(minitorch.autograd.Function):  # right first derivative, made of non-recorded data
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * 3 * x.detach() ** 2  # detached: d/dx of this is lost

    x = minitorch.tensor([0.5, -1.0, 2.0], dtype=minitorch.float64, requires_grad=True)
    assert gradcheck(WrongSecond.apply, (x,))
    assert gradgradcheck(WrongSecond.apply, (x,), raise_exception=False) is False


def test_gradcheck_checks_every_output_and_input():
    class WrongSecondInput(minitorch.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            return x + y, x * 2

        @staticmethod
        def backward(ctx, ga, gb):
            return ga + 2 * gb, ga * 0.5  # d(x+y)/dy is 1, not 0.5

    x = minitorch.tensor([0.5, -1.0], dtype=minitorch.float64, requires_grad=True)
    y = minitorch.tensor([1.5, 2.0], dtype=minitorch.float64, requires_grad=True)
    with pytest.raises(GradcheckError, match="with respect to input 1"):
        gradcheck(WrongSecondInput.apply, (x, y))


def test_gradcheck_detects_a_wrong_gradient_shape():
    class WrongShape(minitorch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.sum()

        @staticmethod
        def backward(ctx, grad):
            return grad.expand(2)

    x = minitorch.ones(3, dtype=minitorch.float64, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"invalid gradient at index 0 - got \[2\] but expected shape "
                                           r"compatible with \[3\]"):
        gradcheck(WrongShape.apply, (x,))


def test_gradcheck_warns_on_single_precision():
    x = minitorch.tensor([1.0, 2.0], requires_grad=True)
    with pytest.warns(UserWarning, match="not float64"):
        gradcheck(lambda a: a * 2, (x,), atol=1e-2, eps=1e-2)


def test_gradcheck_leaves_noncontiguous_inputs_unchanged():
    x = noncontiguous(minitorch, np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])).requires_grad_()
    before = x.tolist()
    assert gradcheck(lambda a: (a * a).sum(0), (x,))
    assert x.tolist() == before and x.grad is None


# ---- points where finite differences cannot decide: PyTorch's conventions, by hand ---------

SPECIAL_POINTS = [  # (function, input, expected gradient of f(x).sum())
    ("abs at 0 is 0", lambda x: x.abs(), [0.0, 1.0], [0.0, 1.0]),
    ("relu at 0 is 0", lambda x: x.relu(), [0.0, 1.0], [0.0, 1.0]),
    ("sqrt at 0 is inf", lambda x: x.sqrt(), [0.0, 4.0], [float("inf"), 0.25]),
    ("x ** 0 is constant, even at 0", lambda x: x ** 0, [0.0, 2.0], [0.0, 0.0]),
    ("0 ** x has gradient 0 for x >= 0", lambda x: 0.0 ** x, [0.0, 1.0], [0.0, 0.0]),
    ("tensor 0 ** x likewise", lambda x: minitorch.zeros(2, dtype=minitorch.float64) ** x, [0.0, 1.0], [0.0, 0.0]),
    ("norm of a zero vector is 0", lambda x: (x * 0).norm(), [1.0, 2.0], [0.0, 0.0]),
    ("p-norm of a zero vector is 0", lambda x: (x * 0).norm(p=3), [1.0, 2.0], [0.0, 0.0]),
    ("std of constant data is 0", lambda x: (x * 0 + 1).std(), [1.0, 2.0], [0.0, 0.0]),
    ("clamp passes at its bounds", lambda x: x.clamp(0.0, 1.0), [0.0, 1.0], [1.0, 1.0]),
    ("maximum splits ties", lambda x: minitorch.maximum(x, minitorch.ones(2, dtype=minitorch.float64)),
     [1.0, 2.0], [0.5, 1.0]),
    ("max() splits ties evenly", lambda x: x.max(), [3.0, 3.0], [0.5, 0.5]),
    ("prod with two zeros", lambda x: x.prod(), [0.0, 0.0], [0.0, 0.0]),
    ("prod with one zero", lambda x: x.prod(), [0.0, 5.0], [5.0, 0.0]),
    ("cumprod with a zero", lambda x: x.cumprod(0), [2.0, 0.0], [1.0, 2.0]),
]


@pytest.mark.parametrize("fn, x, expected", [c[1:] for c in SPECIAL_POINTS], ids=[c[0] for c in SPECIAL_POINTS])
def test_gradients_at_special_points(fn, x, expected):
    t = minitorch.tensor(x, dtype=minitorch.float64, requires_grad=True)
    fn(t).sum().backward()
    assert t.grad.tolist() == expected
