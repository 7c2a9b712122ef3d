"""Random programs, run on PyTorch 2.13 and on minitorch, compared after every step.

A program is a few lines of Python over `T` (the library) and `F` (its nn.functional): one to
three input tensors (every dtype from bool to float64; 0-d, empty, size-1 and broadcastable
shapes; contiguous, transposed, permuted, step-sliced, offset, expanded and unsqueezed
layouts; float leaves that require grad), then 1-8 ops drawn from `OPS` with random, valid or
invalid, arguments, then often a backward with a random upstream gradient. The same source
runs with `T = torch` and with `T = minitorch`. After every line both must agree on:

- whether it raised, and the exception's type;
- the result: values (exact for integers and bools, to the dtype's tolerance for floats, the
  same NaN, inf and -0. positions), dtype, shape, Python types of non-tensor results;
- every tensor of the program so far (an in-place op or a view may change any of them):
  values, requires_grad, is_leaf, grad_fn's name, how `_version` moves (after the tensor is
  made), `.grad` of leaves, whether it is a view, and then its strides and storage offset, and
  which tensors share memory;
- the warnings' categories (NumPy's RuntimeWarnings must not reach the learner).

`OPS` is a table of templates, one op a line: `{a}` is a tensor of the program (`{af}` a
floating one, `{ai}` an integer one, ...), `{b}` a tensor broadcastable with it, `{d}` one of
its dims, `{s}` a Python scalar... (the `Draw` methods of the same names say what each gives).
A failing example prints as a program that runs unchanged on either library.

    MINITORCH_FUZZ_EXAMPLES=20000 pytest tests/test_torch_random_programs.py   # longer (default 6000)
    python tests/test_torch_random_programs.py --programs 20000 [--seed 1] [--known]   # a survey:
        # every distinct divergence not in KNOWN, each as the shortest program found for it

Skipped when PyTorch is not installed.
"""
from __future__ import annotations

import math
import os
import random
import re
import sys
import warnings

import numpy as np
import pytest

import minitorch

try:
    import torch
except ImportError:
    torch = None
    if __name__ != "__main__":
        pytest.skip("PyTorch not installed: differential tests skipped", allow_module_level=True)

pytestmark = pytest.mark.torch

EXAMPLES = int(os.environ.get("MINITORCH_FUZZ_EXAMPLES", "6000"))
SEED = os.environ.get("MINITORCH_FUZZ_SEED")
HYPOTHESIS_EXAMPLES = int(os.environ.get("MINITORCH_HYPOTHESIS_EXAMPLES", "300"))

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64"]
FLOATS = ("float16", "float32", "float64")
INTS = ("uint8", "int8", "int16", "int32", "int64")
# the extremes a value may take (int32/int64 keep clear of INT_MIN: INT_MIN // -1 traps in C)
INT_RANGE = {"uint8": (0, 255), "int8": (-128, 127), "int16": (-32768, 32767),
             "int32": (-(1 << 31) + 1, (1 << 31) - 1), "int64": (-(1 << 62), 1 << 62)}

# ---- the ops --------------------------------------------------------------------------------
# One template a line. A leading "!" marks a statement (its `{out}`, if any, names the new
# tensor); "~" a result whose values are not compared (uninitialised memory).

UNARY = ("abs neg sin cos tan exp log sqrt rsqrt sigmoid tanh relu floor ceil round trunc frac sign sgn "
         "reciprocal square log1p expm1 log2 log10 exp2 asin acos atan sinh cosh asinh acosh atanh erf erfc "
         "erfinv lgamma digamma sinc logical_not bitwise_not isnan isinf isfinite deg2rad rad2deg i0 "
         "nan_to_num positive fix absolute negative").split()
UNARY_INPLACE = ("abs neg sin cos exp log sqrt rsqrt sigmoid tanh relu floor ceil round trunc frac sign "
                 "reciprocal square log1p expm1 log2 asin atan erf logical_not bitwise_not nan_to_num "
                 "clamp_min clamp_max").split()
BINARY = ("add sub mul div true_divide floor_divide remainder fmod pow maximum minimum atan2 eq ne lt le gt ge "
          "logical_and logical_or logical_xor bitwise_and bitwise_or bitwise_xor bitwise_left_shift "
          "bitwise_right_shift float_power hypot copysign fmax fmin xlogy").split()
BINARY_INPLACE = ("add sub mul div floor_divide remainder fmod pow maximum atan2 eq lt logical_and "
                  "bitwise_and bitwise_or bitwise_xor bitwise_left_shift float_power").split()
OPERATORS = "+ - * / // % ** & | ^ << >> == != < <= > >= @".split()
REDUCTIONS = "sum mean prod amax amin all any std var logsumexp nansum count_nonzero".split()
DIM_OPS = "argmax argmin max min median mode cumsum cumprod softmax log_softmax sort argsort".split()

OPS = [
    # pointwise: functions, methods, in-place forms, with tensors and Python scalars
    *[f"T.{n}({{a}})" for n in UNARY],
    *[f"{{a}}.{n}()" for n in UNARY if n not in ("positive",)],
    *[f"{{a}}.{n}_({{s}})" if n.startswith("clamp") else f"{{a}}.{n}_()" for n in UNARY_INPLACE],
    *[f"T.{n}({{a}}, {{b}})" for n in BINARY],
    *[f"{{a}}.{n}({{s}})" for n in BINARY if n not in ("hypot", "copysign", "fmax", "fmin")],
    *[f"{{a}}.{n}_({{b}})" for n in BINARY_INPLACE],
    *[f"{{a}}.{n}_({{s}})" for n in ("add", "mul", "sub", "div", "pow", "remainder")],
    *[f"{{a}} {o} {{b}}" for o in OPERATORS],
    *[f"{{a}} {o} {{s}}" for o in OPERATORS[:-1]],
    *[f"{{s}} {o} {{a}}" for o in OPERATORS[:-1]],  # the reflected forms
    *[f"!{{a}} {o}= {{b}}" for o in OPERATORS[:13]],
    *[f"!{{a}} {o}= {{s}}" for o in OPERATORS[:13]],
    "-{a}", "~{a}", "abs({a})", "+{a}",
    "T.add({a}, {b}, alpha={s})", "T.sub({a}, {b}, alpha={s})", "{a}.add_({b}, alpha={s})",
    "T.div({a}, {b}, rounding_mode={rmode})", "{a}.div_({b}, rounding_mode={rmode})", "T.rsub({a}, {b})",
    "T.clamp({a}, {s}, {s})", "T.clamp({a}, min={s})", "T.clamp({a}, max={s})", "{a}.clamp({b}, {b})",
    "{a}.clamp_({s}, {s})", "T.clip({a}, {b})", "{a}.clamp_min({s})", "{a}.clamp_max({b})",
    "T.where({m}, {a}, {b})", "T.where({m}, {a}, {s})", "T.where({m}, {s}, {s})", "{a}.where({m}, {b})",
    "T.where({a})", "T.lerp({af}, {bf}, {sf})", "T.lerp({af}, {bf}, {bf})", "T.addcmul({a}, {b}, {b}, value={s})",
    "T.addcdiv({af}, {bf}, {bf}, value={s})", "T.logit({af})", "T.logit({af}, eps={sf})",
    "T.round({af}, decimals={si})", "T.polygamma({sn}, {af})", "T.isclose({a}, {b})", "T.allclose({a}, {b})",
    "T.equal({a}, {b})", "T.nan_to_num({af}, nan={sf}, posinf={sf})", "T.sigmoid({a}).sum()", "T.exp({a}).log()",
    "{a}.masked_fill({m}, {s})", "{a}.masked_fill_({m}, {s})", "{a}.masked_fill({m}, {b0})", "{a}.fill_({s})",
    "{a}.zero_()", "{a}.fill_({b0})", "{a}.copy_({b})", "T.signbit({af})", "T.heaviside({a}, {b})",
    # conversions, dtypes, type queries
    "{a}.to({dt})", "{a}.type({dt})", "{a}.float()", "{a}.double()", "{a}.half()", "{a}.int()", "{a}.long()",
    "{a}.bool()", "{a}.byte()", "{a}.short()", "{a}.char()", "{a}.to({b})", "{a}.type_as({b})",
    "{a}.to(dtype={dt}, copy=True)", "T.result_type({a}, {b})", "T.promote_types({a}.dtype, {dt})",
    "T.can_cast({a}.dtype, {dt})", "{a}.is_floating_point()", "T.is_tensor({a})", "{a}.dtype", "{a}.shape",
    "{a}.size()", "{a}.size({d})", "{a}.dim()", "{a}.numel()", "len({a})", "{a}.tolist()", "{a}.item()",
    "float({a})", "int({a})", "bool({a})", "{a}.element_size()", "{a}.is_contiguous()", "{a}.stride()",
    "{a}.storage_offset()", "{a}.numpy().tolist()", "repr({a})", "str({a})", "{a}.clone()",
    "{a}.contiguous()", "{a}.detach()", "{a}.detach_()", "{a}.requires_grad_()", "{af}.requires_grad_()",
    "!{a}.requires_grad = {k}", "{a}.is_leaf", "{a}.requires_grad", "{a}.grad_fn is None", "{a}.device",
    "{a}.new_tensor({lit})", "{a}.new_zeros({shape})", "{a}.new_ones({shape})", "{a}.new_full({shape}, {s})",
    "~{a}.new_empty({shape})", "T.zeros_like({a})", "T.ones_like({a}, dtype={dt})", "T.full_like({a}, {s})",
    "~T.empty_like({a})", "{a}.__array__().tolist()", "T.as_tensor({a}, dtype={dt})",
    "T.tensor({lit})", "T.tensor({lit}, dtype={dt})", "T.tensor({s})",
    # factories
    "T.zeros({shape}, dtype={dt})", "T.ones({shape})", "T.full({shape}, {s})", "T.full({shape}, {s}, dtype={dt})",
    "T.arange({si})", "T.arange({si}, {si})", "T.arange({sf}, {sf}, {sf})", "T.arange({si}, dtype={dt})",
    "T.linspace({sf}, {sf}, {sn})", "T.logspace({sf}, {sf}, {sn})", "T.eye({sn})", "T.eye({sn}, {sn})",
    "T.zeros({sn}, {sn})", "T.ones(size=({sn}, {sn}))", "~T.empty({shape})", "T.scalar_tensor({s})",
    "T.tril(T.ones({sn}, {sn}), {si})", "T.triu({a}, {si})", "T.tril({a})",
    "(T.manual_seed({sn}), T.rand({shape}))[1]", "(T.manual_seed({sn}), T.randn({shape}, dtype={dt}))[1]",
    "(T.manual_seed({sn}), T.randint({sp}, {shape}))[1]", "(T.manual_seed({sn}), T.randperm({sn}))[1]",
    "(T.manual_seed({sn}), T.rand_like({a}))[1]", "(T.manual_seed({sn}), T.randn_like({a}))[1]",
    "(T.manual_seed({sn}), T.randint_like({a}, {sp}))[1]", "(T.manual_seed({sn}), {a}.uniform_())[1]",
    "(T.manual_seed({sn}), {a}.normal_({sf}, {sp}))[1]", "(T.manual_seed({sn}), {a}.bernoulli_({sf}))[1]",
    "(T.manual_seed({sn}), {a}.random_({sp}))[1]", "(T.manual_seed({sn}), T.bernoulli({af}.sigmoid()))[1]",
    "(T.manual_seed({sn}), T.multinomial({af}.abs(), {sp}, replacement={k}))[1]",
    "(T.manual_seed({sn}), T.normal({af}, {sf}))[1]", "(T.manual_seed({sn}), F.dropout({a}, {sf}))[1]",
    "(T.manual_seed({sn}), T.poisson({af}.abs()))[1]", "(T.manual_seed({sn}), {a}.exponential_())[1]",
    # reductions, with dims, keepdim and dtype
    *[f"{{a}}.{n}()" for n in REDUCTIONS],
    *[f"T.{n}({{a}}, {{d}})" for n in REDUCTIONS],
    *[f"{{a}}.{n}({{ds}}, keepdim={{k}})" for n in REDUCTIONS if n not in ("all", "any", "count_nonzero")],
    *[f"{{a}}.{n}(dim={{d}}, keepdim={{k}})" for n in REDUCTIONS if n != "count_nonzero"],
    *[f"{{a}}.{n}({{d}})" for n in DIM_OPS],
    *[f"T.{n}({{a}}, dim={{d}})" for n in DIM_OPS if n not in ("softmax", "log_softmax")],
    *[f"{{a}}.{n}({{d}}, keepdim={{k}})" for n in ("argmax", "argmin", "max", "min", "median", "mode")],
    "{a}.max()", "{a}.min()", "{a}.argmax()", "{a}.argmin()", "{a}.median()", "T.max({a}, {b})",
    "{a}.sum(dtype={dt})", "{a}.mean(dtype={dt})", "{a}.prod(dtype={dt})", "{a}.cumsum({d}, dtype={dt})",
    "{a}.softmax({d}, dtype={dt})", "{a}.sum(axis={d}, keepdims={k})", "{a}.std({d}, correction={sn})",
    "{a}.var(unbiased={k})", "T.std_mean({a}, {d})", "T.var_mean({a}, {ds}, keepdim={k})",
    "{a}.norm()", "{a}.norm(p={pnorm})", "{a}.norm({pnorm}, {d}, keepdim={k})", "T.dist({a}, {b}, {pnorm})",
    "{a}.topk({sn})", "{a}.topk({sn}, {d}, largest={k})", "{a}.kthvalue({sp}, {d})", "{a}.sort(descending={k})",
    "T.sort({a}, {d}, stable=True)", "{a}.msort()", "{a}.unique()", "T.unique({a}, return_counts=True)",
    "T.unique({a}, sorted=True, return_inverse=True)", "{a}.unique_consecutive()", "{a}.nanmedian()",
    "T.bincount({ai}.clamp(-1, 9))", "T.histc({af}, bins={sp})", "T.searchsorted({a}.flatten().sort()[0], {b})",
    "T.bucketize({a}, {a}.flatten().sort()[0])", "{a}.cummax({d})", "{a}.cummin({d})",
    "T.logcumsumexp({af}, {d})", "{a}.aminmax()", "T.diff({a})", "T.diff({a}, dim={d})", "{a}.trace()",
    "{a}.nonzero()", "T.nonzero({a}, as_tuple=True)", "T.argwhere({a})", "{a}.count_nonzero({d})",
    # views and shapes
    "{a}.view({shape_of_a})", "{a}.reshape({shape_of_a})", "{a}.view(-1)", "{a}.flatten()", "{a}.ravel()",
    "{a}.flatten({d})", "{a}.unflatten({d}, {unf})", "{a}.squeeze()", "{a}.squeeze({d})", "{a}.unsqueeze({dn})",
    "{a}.squeeze_({d})", "{a}.unsqueeze_({dn})", "{a}.t()", "{a}.T", "{a}.mT", "{a}.t_()",
    "{a}.transpose({d}, {d})", "{a}.transpose_({d}, {d})", "{a}.swapaxes({d}, {d})", "{a}.permute({perm})",
    "T.permute({a}, {perm})", "{a}.movedim({d}, {d})", "{a}.expand({bshape})", "{a}.expand_as({b})",
    "T.broadcast_to({a}, {bshape})", "T.broadcast_tensors({a}, {b})", "{a}.narrow({d}, {sn}, {sn})",
    "{a}.select({d}, {si})", "{a}.unfold({d}, {sp}, {sp})", "{a}.diagonal()", "T.diagonal({a}, {si}, {d}, {d})",
    "T.diag({a})", "T.diag_embed({a})", "{a}.view({dt})", "{a}.view_as({b})", "{a}.reshape_as({b})",
    "{a}.as_strided({a}.shape, {a}.stride())", "{a}.unbind({d})", "{a}.split({sp}, {d})", "{a}.chunk({sp}, {d})",
    "{a}.split([1, {sn}], {d})", "T.tensor_split({a}, {sp}, {d})", "{a}.contiguous().view({shape_of_a})",
    "{a}.flip({d})", "{a}.flip({ds})", "T.fliplr({a})", "T.rot90({a})", "{a}.roll({si})", "{a}.roll({si}, {d})",
    "{a}.repeat({reps})", "{a}.tile({reps})", "{a}.repeat_interleave({sp})", "T.repeat_interleave({a}, {sp}, {d})",
    "{a}.resize_({shape})", "{a}.clone().resize_({shape_of_a})", "T.atleast_2d({a})", "T.atleast_1d({a})",
    "T.squeeze({a}, {ds})", "{a}.expand(-1, *{a}.shape[1:]) if {a}.dim() else {a}.expand(())",
    # indexing: reads and writes
    "{a}[{ix}]", "{a}[{ix}][{ix2}]", "{a}.__getitem__({ix})", "!{a}[{ix}] = {sv}", "!{a}[{ix}] += {sv}",
    "!{a}[{ix}] *= {s}", "{a}.index_select({d}, {it})", "T.index_select({a}, {d}, {it})", "{a}.gather({d}, {git})",
    "T.take_along_dim({a}, {git}, {d})", "T.take({a}, {it})", "{a}.masked_select({m})", "T.masked_select({a}, {m})",
    "{a}.index_fill({d}, {it}, {s})", "{a}.index_fill_({d}, {it}, {s})", "{a}.index_add({d}, {it}, {isrc})",
    "{a}.index_add_({d}, {it}, {isrc}, alpha={s})", "{a}.index_copy({d}, {it}, {isrc})",
    "{a}.index_copy_({d}, {it}, {isrc})", "{a}.scatter({d}, {git}, {s})", "{a}.scatter({d}, {git}, {gsrc})",
    "{a}.scatter_({d}, {git}, {gsrc})", "{a}.scatter_add({d}, {git}, {gsrc})",
    "{a}.scatter_add_({d}, {git}, {gsrc})", "{a}.scatter_reduce({d}, {git}, {gsrc}, {sred})",
    "{a}.scatter_reduce({d}, {git}, {gsrc}, {sred}, include_self=False)", "{a}.index_put(({it},), {b0})",
    "{a}.index_put_(({it},), {b0}, accumulate=True)", "{a}.masked_scatter({m}, {bs})",
    "{a}.masked_scatter_({m}, {bs})", "{a}.put_({it}, {isrc}, accumulate={k})", "{a}.put({it}, {isrc})",
    "{a}[{m}]", "!{a}[{m}] = {s}", "{a}[{it}]", "!{a}[{it}] = {s}", "{a}[..., {it}]", "{a}[{a} > 0]",
    # joins
    "T.cat({catl})", "T.concat({catl})", "T.stack({stkl})", "T.stack({stkl}, dim={dn})", "T.hstack({stkl})",
    "T.vstack({stkl})", "T.dstack({stkl})", "T.column_stack({stkl})", "T.cat([{a}, {b}])", "T.stack([{a}, {b}])",
    "T.meshgrid({a}.flatten(), {b}.flatten(), indexing='ij')", "T.cartesian_prod({a}.flatten(), {b}.flatten())",
    "T.cat([{a}, T.tensor([], dtype={dt})])", "T.cat([{a}], {d})", "T.cat(({a}, {a}), {d})",
    # matrix products
    "{a} @ {mat}", "T.matmul({a}, {mat})", "T.mm({a}, {mat})", "T.mv({a}, {vec})", "T.dot({a}, {vec})",
    "T.bmm({a}, {mat})", "T.outer({a}, {b})", "T.addmm({b}, {a}, {mat})", "T.einsum('ij->ji', {a})",
    "T.einsum('...i,...i->...', {a}, {b})", "T.inner({a}, {b})", "T.vdot({a}, {vec})", "T.kron({a}, {b})",
    "T.tensordot({a}, {b}, dims=1)", "T.cross({a}, {b}, dim=-1)", "T.cdist({af}, {bf})", "T.linalg.norm({af})",
    "T.linalg.vector_norm({af}, {pnorm})", "T.addmv({b}, {a}, {vec})", "T.addr({a}, {vec}, {vec})",
    "T.baddbmm({b}, {a}, {mat})", "T.linalg.matmul({a}, {mat})",
    # nn.functional and nn modules
    *[f"F.{n}({{a}})" for n in ("relu", "relu6", "elu", "selu", "celu", "gelu", "silu", "mish", "softplus",
                                "softsign", "tanhshrink", "logsigmoid", "hardtanh", "hardsigmoid", "hardswish",
                                "leaky_relu", "softshrink", "hardshrink", "sigmoid", "tanh")],
    "F.relu({a}, inplace=True)", "F.leaky_relu({a}, {sf})", "F.elu({a}, {sf})", "F.gelu({a}, approximate='tanh')",
    "F.threshold({a}, {sf}, {sf})", "F.softplus({a}, beta={sp}, threshold={sp})", "F.hardtanh_({a})",
    "F.softmax({a}, {d})", "F.log_softmax({a}, dim={d})", "F.softmin({a}, {d})", "F.glu({a}, {d})",
    "F.normalize({a}, dim={d})", "F.normalize({a}, p={pnorm}, dim={d})", "F.layer_norm({a}, {a}.shape[-1:])",
    "F.layer_norm({af}, {af}.shape[-2:], eps={sf})", "F.rms_norm({a}, {a}.shape[-1:])", "F.one_hot({ai}.clamp(-1, 5))",
    "F.one_hot({ai}.clamp(-1, 5), {sp})", "F.pad({a}, ({sn}, {sn}))", "F.pad({a}, ({sn}, {sn}), value={s})",
    "F.pad({a}, (1, 1), mode='reflect')", "F.pad({a}, (1, 2), mode='replicate')",
    "F.pad({a}, (1, 0), mode='circular')", "F.mse_loss({a}, {b})", "F.l1_loss({a}, {bs}, reduction={red})",
    "F.smooth_l1_loss({a}, {bs}, beta={sf})", "F.huber_loss({a}, {bs})", "F.mse_loss({a}, {bs}, reduction={red})",
    "F.binary_cross_entropy({af}.sigmoid(), {bs}.sigmoid())", "F.binary_cross_entropy_with_logits({a}, {bs})",
    "F.binary_cross_entropy_with_logits({a}, {bs}, pos_weight={b})", "F.kl_div({a}, {bs}, reduction={red})",
    "F.soft_margin_loss({a}, {bs})", "F.cosine_similarity({a}, {b})", "F.pairwise_distance({a}, {b})",
    "F.cross_entropy({logits}, {target})", "F.cross_entropy({logits}, {target}, reduction={red})",
    "F.cross_entropy({logits}, {target}, ignore_index=0)", "F.cross_entropy({logits}, {target}, "
    "label_smoothing={sf})", "F.nll_loss({logits}, {target})", "F.nll_loss({logits}.log_softmax(-1), {target}, "
    "reduction={red})", "F.cross_entropy({logits}, {logits}.softmax(-1))", "F.linear({a}, {mat}.mT)",
    "F.linear({a}, {mat}.mT, {vec2})", "F.bilinear({a}, {a}, T.ones(2, {a}.shape[-1], {a}.shape[-1]))",
    "F.embedding({ai}, {emb})", "F.embedding({ai}, {emb}, padding_idx=0)", "F.dropout({a}, {sf}, training=False)",
    "F.conv1d({conv1}, {w1})", "F.conv1d({conv1}, {w1}, padding={sn}, stride={sp})", "F.conv2d({conv2}, {w2})",
    "F.conv2d({conv2}, {w2}, padding={sn}, dilation={sp})", "F.conv2d({conv2}, {w2}, padding='same')",
    "F.conv_transpose1d({conv1}, {w1t})", "F.conv_transpose2d({conv2}, {w2t}, stride={sp})",
    "F.max_pool1d({conv1}, {sp})", "F.max_pool2d({conv2}, {sp})", "F.max_pool2d({conv2}, {sp}, ceil_mode=True)",
    "F.avg_pool1d({conv1}, {sp})", "F.avg_pool2d({conv2}, {sp}, padding={sn}, count_include_pad={k})",
    "F.adaptive_avg_pool1d({conv1}, {sp})", "F.adaptive_avg_pool2d({conv2}, {sp})",
    "F.adaptive_max_pool2d({conv2}, ({sp}, {sp}))", "F.max_pool2d({conv2}, 2, return_indices=True)",
    "F.lp_pool1d({conv1}, {sp}, {sp})", "F.interpolate({conv1}, scale_factor={sp})",
    "F.interpolate({conv2}, size=({sp}, {sp}), mode='bilinear')", "F.interpolate({conv2}, scale_factor=2, "
    "mode='nearest')", "F.pixel_shuffle({conv2}, 1)", "F.unfold({conv2}, {sp})", "F.batch_norm({conv2}, None, "
    "None, training=True)", "F.group_norm({conv2}, 1)", "F.instance_norm({conv2})", "F.local_response_norm({conv2}, 2)",
    "F.scaled_dot_product_attention({af}, {af}, {af})", "F.prelu({a}, T.tensor([0.25]))",
    "T.nn.Flatten()({a})", "T.nn.Softmax(dim={d})({a})", "T.nn.Identity()({a})", "T.nn.ReLU()({a})",
    "T.nn.Unflatten(0, (1, -1))({a})", "T.nn.MSELoss()({a}, {bs})", "T.nn.CrossEntropyLoss()({logits}, {target})",
    # autograd
    "{ag}.retain_grad()", "!{ag}.grad = None", "T.autograd.grad({ag}.sin().sum(), {ag})",
    "T.autograd.grad(({ag} * {ag}).sum(), {ag}, create_graph=True)[0]", "{ag}.detach().requires_grad_()",
    "!with T.no_grad(): {out} = {a} * 2", "!with T.no_grad(): {out} = {a}[1:]", "!with T.no_grad(): {a} += 1",
    # (not inference_mode: it behaves as no_grad, without PyTorch's inference tensors; README says so)
    "!with T.enable_grad(): {out} = {a}.exp()",
    "!{ag}.backward({grad})", "!{ag}.sum().backward(retain_graph={k})", "!({ag} * {b}).sum().backward()",
    "!{ag}.backward({grad}, inputs=[{ag}])", "!T.autograd.backward([{ag}], [{grad}])",
    "T.autograd.functional.jacobian(lambda t: t.sin(), {af})", "{ag}.grad_fn.name() if {ag}.grad_fn else None",
    "[n.name() for n, _ in {ag}.grad_fn.next_functions if n] if {ag}.grad_fn else None",
]
# the rarer call forms: out= and its rules, keyword spellings, Python numbers in odd places
OPS += ["T.add({a}, {b}, out={bs})", "T.mul({a}, {s}, out={a})", "T.sum({a}, {d}, out={bs})",
        "T.abs({a}, out={bs})", "T.matmul({a}, {mat}, out={bs})", "T.add(2, {a})", "T.mul({s}, {s})",
        "T.maximum({a}, {s})", "{a}.logical_and({s})", "T.pow({s}, {a})", "T.pow({a}, {b})", "{a}.pow({s})",
        "{a} ** -1", "2 ** {a}", "{a} ** 0.5", "{a}.float_power({s})", "T.bitwise_not({a})",
        "{a} == None", "{a}.eq({s})", "{a} in {a}", "{s} in {a}", "[t for t in {a}]", "list({a}.shape)",
        "{a}.apply_(lambda v: v * 2)", "{a}.map_({bs}, lambda x, y: x + y)", "T.numel({a})", "T.clone({a})"]


# ---- drawing: the argument generators -----------------------------------------------------------

class Choices:
    """The random decisions, from a random.Random (the survey) or from hypothesis (the test,
    so a failure shrinks). Every decision is one of these three calls."""

    def __init__(self, rng=None, data=None):
        self.rng, self.data = rng, data

    def integer(self, lo, hi):
        if self.data is not None:
            from hypothesis import strategies as st
            return self.data.draw(st.integers(lo, hi))
        return self.rng.randint(lo, hi)

    def choice(self, seq):
        seq = list(seq)
        return seq[self.integer(0, len(seq) - 1)]

    def chance(self, p):
        """True with probability p (hypothesis shrinks it to False)."""
        return self.integer(0, 999) >= 1000 * (1 - p)


def _lit_value(ch, dtype):
    if dtype == "bool":
        return ch.choice([False, True])
    if dtype in INTS:
        lo, hi = INT_RANGE[dtype]
        r = ch.integer(0, 99)
        if r < 75:
            return max(lo, ch.integer(-4, 9))
        if r < 88:
            return ch.choice([lo, hi, lo + 1, hi - 1, 0])
        return ch.integer(max(lo, -1000), min(hi, 1000))
    r = ch.integer(0, 99)
    if r < 45:
        return float(ch.integer(-4, 4))
    if r < 65:
        return ch.integer(-16, 16) / 4
    if r < 88:
        return round(ch.integer(-30000, 30000) / 10000, 4)
    return ch.choice([0.0, -0.0, float("nan"), float("inf"), float("-inf"), 1e-3, -1e4, 60000.0, 1e-6])


def _fmt(v):
    if isinstance(v, list):
        return "[" + ", ".join(_fmt(x) for x in v) + "]"
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
    return repr(v)


def literal_values(ch, shape, dtype):
    if not shape:
        return _lit_value(ch, dtype)
    return [literal_values(ch, shape[1:], dtype) for _ in range(shape[0])]


def literal(ch, shape, dtype, requires_grad=False):
    """Code for a new tensor of `shape` and `dtype` (a nested list literal)."""
    grad = ", requires_grad=True" if requires_grad else ""
    if 0 in shape and len(shape) > 1:  # a nested literal can't say (0, 3): reshape an empty one
        return f"T.tensor([], dtype=T.{dtype}).reshape({tuple(shape)})" + (".requires_grad_()" if grad else "")
    return f"T.tensor({_fmt(literal_values(ch, list(shape), dtype))}, dtype=T.{dtype}{grad})"


def draw_shape(ch, max_ndim=4, max_numel=36):
    ndim = ch.choice([1, 2, 0, 3, 2, 1, 4])
    ndim = min(ndim, max_ndim)
    shape = []
    for _ in range(ndim):
        r = ch.integer(0, 99)
        shape.append(0 if r < 6 else 1 if r < 26 else ch.integer(2, 4))
    while math.prod(shape) > max_numel:
        shape[shape.index(max(shape))] -= 1
    return tuple(shape)


def draw_dtype(ch):
    return ch.choice(["float32", "int64", "bool", "float64", "float16", "int32", "uint8", "int8", "int16",
                      "float32", "int64"])


def draw_input(ch, name):
    """Code for an input tensor: a literal, then a layout (a view of a bigger or reordered literal)."""
    dtype, shape = draw_dtype(ch), draw_shape(ch)
    grad = dtype in FLOATS and ch.chance(0.6)
    layout = ch.choice(["contiguous", "transposed", "permuted", "sliced", "offset", "expanded",
                        "unsqueezed", "contiguous"]) if shape else "contiguous"
    nd = len(shape)
    if layout == "transposed" and nd >= 2:
        src = literal(ch, shape[:-2] + (shape[-1], shape[-2]), dtype)
        code = f"{src}.transpose(-1, -2)"
    elif layout == "permuted" and nd >= 2:
        perm = list(range(nd))
        for i in range(nd - 1, 0, -1):
            j = ch.integer(0, i)
            perm[i], perm[j] = perm[j], perm[i]
        inv = [perm.index(i) for i in range(nd)]
        src = literal(ch, tuple(shape[p] for p in perm), dtype)
        code = f"{src}.permute({inv})"
    elif layout == "sliced":
        d = ch.integer(0, nd - 1)
        big = list(shape)
        big[d] = 2 * shape[d]
        key = ", ".join([":"] * d + ["::2"])
        code = f"{literal(ch, big, dtype)}[{key}]"
    elif layout == "offset":
        big = (shape[0] + 1,) + shape[1:]
        code = f"{literal(ch, big, dtype)}[1:]"
    elif layout == "expanded" and 1 in shape or layout == "expanded" and nd and ch.chance(0.5):
        small = tuple(1 if ch.chance(0.5) or n == 1 else n for n in shape)
        code = f"{literal(ch, small, dtype)}.expand({shape})"
    elif layout == "unsqueezed" and 1 in shape:
        d = shape.index(1)
        code = f"{literal(ch, shape[:d] + shape[d + 1:], dtype)}.unsqueeze({d})"
    else:
        return f"{name} = {literal(ch, shape, dtype, grad)}"
    if grad:  # a leaf with this layout, or a view of a leaf
        code = f"{code}.requires_grad_()" if ch.chance(0.5) else code.replace(
            f"dtype=T.{dtype})", f"dtype=T.{dtype}, requires_grad=True)", 1)
    return f"{name} = {code}"


class Draw:
    """Resolves a template's placeholders against the program's current tensors (read off the
    PyTorch side). `{a}`-like placeholders (the primary tensor) all name the same tensor."""

    PRIMARY = {"a": None, "af": FLOATS, "ai": INTS, "an": FLOATS + INTS, "ab": ("bool",), "ag": "grad"}

    def __init__(self, ch, env, new_name):
        self.ch, self.env, self.new_name = ch, env, new_name  # env: {name: torch value}
        self.prim = None
        self.dim = 0

    # the tensors of the program
    def tensors(self):
        return [n for n, v in self.env.items() if isinstance(v, torch.Tensor)]

    def pick(self, kind):
        names = self.tensors()
        if kind == "grad":
            good = [n for n in names if self.env[n].requires_grad and self.env[n].is_floating_point()]
        elif kind is None:
            good = names
        else:
            good = [n for n in names if str(self.env[n].dtype)[6:] in kind]
        if good and (self.ch.chance(0.93) or not names):
            return self.ch.choice(good)
        if names:
            return self.ch.choice(names)
        return literal(self.ch, draw_shape(self.ch), "float32")

    def primary(self, key="a"):
        if self.prim is None:
            self.prim = self.pick(self.PRIMARY[key])
        return self.prim

    @property
    def t(self):
        """The primary's PyTorch value (a new literal is evaluated)."""
        p = self.primary()
        if p not in self.env:
            self.env[p] = eval(p, _namespace(torch))  # noqa: S307 (our own literal)
        return self.env[p]

    @property
    def pshape(self):
        return tuple(self.t.shape)

    # placeholders: every method below is one
    def a(self):
        return self.primary("a")

    af = ai = an = ab = ag = a

    def e(self):
        return self.pick(None)

    def out(self):
        return self.new_name()

    def _broadcast_shape(self):
        shape = list(self.pshape)
        r = self.ch.integer(0, 99)
        if r < 4:  # incompatible, mostly
            return tuple(shape[:-1]) + (7,) if shape else (3,)
        keep = self.ch.integer(0, len(shape))
        out = [1 if self.ch.chance(0.25) else n for n in shape[len(shape) - keep:]]
        if self.ch.chance(0.12):
            out = [self.ch.choice([1, 2])] + out
        return tuple(out)

    def _other(self, dtypes=None, same_shape=False):
        want = self.pshape if same_shape else None
        cands = [n for n in self.tensors() if n != self.prim and (
            tuple(self.env[n].shape) == self.pshape if same_shape else _broadcastable(self.env[n].shape, self.pshape))
            and (dtypes is None or str(self.env[n].dtype)[6:] in dtypes)]
        if cands and self.ch.chance(0.4):
            return self.ch.choice(cands)
        shape = want if same_shape else self._broadcast_shape()
        pdt = str(self.t.dtype)[6:]
        dt = self.ch.choice(dtypes) if dtypes else pdt if self.ch.chance(0.5) else draw_dtype(self.ch)
        return literal(self.ch, shape, dt, requires_grad=dt in FLOATS and self.ch.chance(0.25))

    def b(self):
        return self._other()

    def bf(self):
        return self._other(FLOATS)

    def bs(self):
        return self._other(None if self.ch.chance(0.3) else (str(self.t.dtype)[6:],), same_shape=True)

    def b0(self):
        """A 0-d tensor."""
        return literal(self.ch, (), self.ch.choice([str(self.t.dtype)[6:], draw_dtype(self.ch)]))

    def m(self):
        shape = self.pshape if self.ch.chance(0.7) else self._broadcast_shape()
        return literal(self.ch, shape, "bool")

    def s(self):
        return self.ch.choice([self.si, self.sf, self.sf, self.si, lambda: self.ch.choice(["True", "False"])])()

    def sf(self):
        return _fmt(self.ch.choice([0.5, -1.5, 2.0, 0.0, -0.0, 1e-3, 3.25, float("nan"), float("inf"), -2.0, 1.0]))

    def si(self):
        return str(self.ch.choice([1, 2, -1, 0, 3, -2, 5, 255, -128, 300, 7]))

    def sn(self):
        return str(self.ch.integer(0, 3))

    def sp(self):
        return str(self.ch.integer(1, 3))

    def k(self):
        return self.ch.choice(["True", "False"])

    def d(self):
        n = len(self.pshape)
        if self.ch.chance(0.06):
            self.dim = self.ch.choice([n, -n - 1, 5])
        else:
            self.dim = self.ch.integer(-max(n, 1), max(n, 1) - 1)
        return str(self.dim)

    def dn(self):
        n = len(self.pshape) + 1
        return str(self.ch.integer(-n, n - 1) if self.ch.chance(0.95) else n)

    def ds(self):
        n = len(self.pshape)
        if n == 0 or self.ch.chance(0.05):
            return self.ch.choice(["()", "[]", "0", "(0, 0)", "-1"])
        dims = sorted({self.ch.integer(0, n - 1) for _ in range(self.ch.integer(1, n))})
        dims = [d - n if self.ch.chance(0.3) else d for d in dims]
        if self.ch.chance(0.04):
            dims.append(dims[0])
        return str(tuple(dims)) if self.ch.chance(0.6) else str(list(dims))

    def dt(self):
        return "T." + draw_dtype(self.ch)

    def rmode(self):
        return self.ch.choice(["None", "'floor'", "'trunc'"])

    def red(self):
        return self.ch.choice(["'mean'", "'sum'", "'none'"])

    def sred(self):
        return self.ch.choice(["'sum'", "'prod'", "'mean'", "'amax'", "'amin'"])

    def pnorm(self):
        return self.ch.choice(["2", "1", "'fro'", "float('inf')", "0", "3", "-1", "0.5"])

    def shape(self):
        return str(self.ch.choice([(), (2,), (0,), (2, 3), (1, 2, 2), (3, 0), (1,), (3, 1)]))

    def shape_of_a(self):
        """A shape with the primary's element count (sometimes with -1, sometimes wrong)."""
        n = self.t.numel()
        if self.ch.chance(0.05):
            return str((n + 1,))
        dims, rest = [], n
        for _ in range(self.ch.integer(0, 3)):
            divs = [k for k in range(1, rest + 1) if rest % k == 0] if rest else [0, 1, 2]
            dims.append(self.ch.choice(divs))
            rest = rest // dims[-1] if dims[-1] else 0
        dims.append(rest if n else 0)
        if self.ch.chance(0.3) and dims:
            i = self.ch.integer(0, len(dims) - 1)
            if dims[i] or n:
                dims[i] = -1
        return str(tuple(dims))

    def unf(self):
        n = self.pshape[self.dim] if self.pshape and -len(self.pshape) <= self.dim < len(self.pshape) else 1
        return self.ch.choice([f"(1, {n})", f"({n}, 1)", f"(-1, {max(n, 1)})", "(2, -1)"])

    def perm(self):
        n = len(self.pshape)
        p = list(range(n))
        for i in range(n - 1, 0, -1):
            j = self.ch.integer(0, i)
            p[i], p[j] = p[j], p[i]
        if self.ch.chance(0.05):
            p = p[:-1] if p else [0]
        return str(tuple(p))

    def bshape(self):
        shape = list(self.pshape)
        out = [self.ch.choice([n, -1]) if n != 1 else self.ch.choice([1, 2, 3, -1]) for n in shape]
        if self.ch.chance(0.2):
            out = [2] + out
        if self.ch.chance(0.04) and out:
            out[-1] = 5
        return str(tuple(out))

    def reps(self):
        n = len(self.pshape)
        return str(tuple(self.ch.integer(1, 2) for _ in range(max(n, self.ch.integer(0, n + 1)))))

    def lit(self):
        return _fmt(literal_values(self.ch, list(draw_shape(self.ch, 2, 6)), draw_dtype(self.ch)))

    def grad(self):
        """An upstream gradient for the primary: its shape and dtype, sometimes with inf or NaN."""
        return literal(self.ch, self.pshape, str(self.t.dtype)[6:] if self.t.is_floating_point() else "float32")

    # indexing
    def _ix_part(self, n):
        r = self.ch.integer(0, 99)
        if r < 30:
            return str(self.ch.integer(-n, n - 1) if n and self.ch.chance(0.95) else n)
        if r < 60:
            lo = self.ch.choice(["", "0", "1", "-1", "-2", "5"])
            hi = self.ch.choice(["", "2", "-1", "0", "9"])
            step = self.ch.choice(["", "", ":2", ":3", ":1"])
            return f"{lo}:{hi}{step}"
        if r < 68:
            return "None"
        if r < 76:
            return str([self.ch.integer(-n, n - 1) for _ in range(self.ch.integer(1, 3))]) if n else "[]"
        if r < 84:
            vals = [self.ch.integer(-n, n - 1) for _ in range(self.ch.integer(0, 3))] if n else []
            return f"T.tensor({vals}, dtype=T.int64)"
        if r < 90:
            return f"T.tensor({[self.ch.choice([True, False]) for _ in range(n)]})"
        if r < 93:
            return self.ch.choice(["True", "False"])
        return "..."

    def ix(self):
        self._last_ix = self._ix()
        return self._last_ix

    def _ix(self):
        shape = self.pshape
        parts, i = [], 0
        for _ in range(self.ch.integer(1, max(1, len(shape)) + (1 if self.ch.chance(0.2) else 0))):
            p = self._ix_part(shape[i] if i < len(shape) else 1)
            if p == "..." and "..." in parts:
                p = ":"
            parts.append(p)
            if p not in ("None", "True", "False", "..."):
                i += 1
        if self.ch.chance(0.1) and shape:
            return literal(self.ch, shape, "bool")
        return parts[0] if len(parts) == 1 else ", ".join(parts)

    def ix2(self):
        return self.ch.choice(["0", ":", "..., 0", "None", "-1", "1:"])

    def sv(self):
        """A value to write at the last drawn index: a scalar, or a tensor that broadcasts to it."""
        key = getattr(self, "_last_ix", None)
        if self.ch.chance(0.4) or key is None:
            return self.s()
        try:
            target = eval(f"__x[{key}]", {"T": torch, "__x": self.t, "nan": math.nan, "inf": math.inf})  # noqa: S307
        except Exception:  # noqa: BLE001 (the key is invalid: the program says so on both sides)
            return self.s()
        shape = tuple(target.shape)
        if self.ch.chance(0.3) and shape:
            shape = shape[1:]
        return literal(self.ch, shape, self.ch.choice([str(self.t.dtype)[6:], draw_dtype(self.ch)]))

    def it(self):
        """A 1-D int64 index into the last drawn dim (sometimes out of range, or negative)."""
        n = self._dim_size()
        vals = [self.ch.integer(-1 if self.ch.chance(0.05) else 0, max(n - 1, 0) + (self.ch.chance(0.05)))
                for _ in range(self.ch.integer(0 if n == 0 else 1, 3))]
        self._last_it_len = len(vals)
        return f"T.tensor({vals}, dtype=T.{self.ch.choice(['int64', 'int64', 'int32', 'float32'])})"

    def _dim_size(self):
        shape = self.pshape
        return shape[self.dim] if shape and -len(shape) <= self.dim < len(shape) else 1

    def isrc(self):
        """A source for index_add / index_copy at the last index: the primary's shape, that dim resized."""
        shape = list(self.pshape)
        k = self._last_it_len
        if shape and -len(shape) <= self.dim < len(shape):
            shape[self.dim] = k
        elif not shape:
            shape = [k] if k != 1 else []
        dt = str(self.t.dtype)[6:] if self.ch.chance(0.85) else draw_dtype(self.ch)
        return literal(self.ch, tuple(shape), dt)

    def git(self):
        """An int64 index of the primary's rank, each size at most the primary's, values along the dim."""
        shape = self.pshape
        n = self._dim_size()
        ish = tuple(self.ch.integer(0 if s == 0 else 1, s) for s in shape)
        self._git_shape = ish
        vals = np.array([self.ch.integer(0, max(n - 1, 0)) for _ in range(math.prod(ish))], dtype=np.int64)
        if self.ch.chance(0.05) and vals.size:
            vals[0] = n
        return f"T.tensor({vals.reshape(ish).tolist()}, dtype=T.int64)"

    def gsrc(self):
        shape = getattr(self, "_git_shape", self.pshape)
        if self.ch.chance(0.3):
            shape = self.pshape
        dt = str(self.t.dtype)[6:] if self.ch.chance(0.9) else draw_dtype(self.ch)
        return literal(self.ch, shape, dt)

    def catl(self):
        """Tensors to cat along a dim: the primary and one matching it except along that dim."""
        shape = list(self.pshape)
        d = int(self.d())
        other = list(shape)
        if shape and -len(shape) <= d < len(shape):
            other[d] = self.ch.integer(0, 3)
        dt = str(self.t.dtype)[6:] if self.ch.chance(0.7) else draw_dtype(self.ch)
        return f"[{self.primary()}, {literal(self.ch, tuple(other), dt)}], dim={d}"

    def stkl(self):
        dt = str(self.t.dtype)[6:] if self.ch.chance(0.7) else draw_dtype(self.ch)
        shape = self.pshape if self.ch.chance(0.92) else self._broadcast_shape()
        return f"[{self.primary()}, {literal(self.ch, shape, dt)}]"

    def mat(self):
        """A right operand for a matrix product: rows = the primary's last dim (mostly)."""
        shape = self.pshape
        k = shape[-1] if shape else 2
        if self.ch.chance(0.05):
            k += 1
        shape2 = (k, self.ch.integer(0, 3)) if len(shape) < 3 or self.ch.chance(0.5) else shape[:-2] + (
            k, self.ch.integer(1, 3))
        if self.ch.chance(0.1):
            shape2 = (k,)
        dt = str(self.t.dtype)[6:] if self.ch.chance(0.85) else draw_dtype(self.ch)
        return literal(self.ch, shape2, dt)

    def vec(self):
        k = self.pshape[-1] if self.pshape else 2
        dt = str(self.t.dtype)[6:] if self.ch.chance(0.85) else draw_dtype(self.ch)
        return literal(self.ch, (k + (1 if self.ch.chance(0.04) else 0),), dt)

    def vec2(self):
        return literal(self.ch, (self.ch.integer(0, 3),), str(self.t.dtype)[6:])

    # nn inputs: a tensor of the program when one has the right rank, else a new one
    def _ranked(self, ndim, shape):
        cands = [n for n in self.tensors() if self.env[n].ndim == ndim and self.env[n].is_floating_point()]
        if cands and self.ch.chance(0.5):
            self.prim = self.ch.choice(cands)
            return self.prim
        code = literal(self.ch, shape, self.ch.choice(["float32", "float32", "float64", "float16"]),
                       requires_grad=self.ch.chance(0.5))
        return code

    def logits(self):
        self._classes = self.ch.integer(1, 4)
        self._batch = self.ch.integer(0, 3)
        shape = (self._batch, self._classes) if self.ch.chance(0.85) else (self._classes,)
        self._lshape = shape
        return literal(self.ch, shape, self.ch.choice(["float32", "float64"]), requires_grad=self.ch.chance(0.7))

    def target(self):
        c = self._classes
        shape = self._lshape[:-1]
        vals = np.array([self.ch.integer(0, c - 1 + (self.ch.chance(0.03))) for _ in range(math.prod(shape))])
        return f"T.tensor({vals.reshape(shape).tolist()}, dtype=T.int64)"

    def emb(self):
        top = int(self.t.max()) + 1 if self.t.numel() and not self.t.is_floating_point() else 3
        return literal(self.ch, (max(1, min(top, 300)) if top < 300 else 3, self.ch.integer(1, 3)), "float32",
                       requires_grad=self.ch.chance(0.6))

    def conv1(self):
        self._c = self.ch.integer(1, 2)
        return self._ranked(3, (self.ch.integer(1, 2), self._c, self.ch.integer(1, 6)))

    def conv2(self):
        self._c = self.ch.integer(1, 2)
        return self._ranked(4, (self.ch.integer(1, 2), self._c, self.ch.integer(1, 5), self.ch.integer(1, 5)))

    def _in_channels(self):
        return self.env[self.prim].shape[1] if self.prim in self.env else self._c

    def w1(self):
        return literal(self.ch, (self.ch.integer(1, 2), self._in_channels(), self.ch.integer(1, 3)), "float32")

    def w2(self):
        return literal(self.ch, (self.ch.integer(1, 2), self._in_channels(), self.ch.integer(1, 3),
                                 self.ch.integer(1, 3)), "float32")

    def w1t(self):
        return literal(self.ch, (self._in_channels(), self.ch.integer(1, 2), self.ch.integer(1, 3)), "float32")

    def w2t(self):
        return literal(self.ch, (self._in_channels(), self.ch.integer(1, 2), self.ch.integer(1, 3),
                                 self.ch.integer(1, 3)), "float32")


PLACEHOLDER = re.compile(r"\{(\w+)\}")


def _broadcastable(s1, s2):
    for x, y in zip(reversed(tuple(s1)), reversed(tuple(s2))):
        if x != y and x != 1 and y != 1:
            return False
    return True


def fill(template, draw):
    """The template's code, every placeholder drawn (the primary first, wherever it stands)."""
    for m in PLACEHOLDER.finditer(template):
        if m.group(1) in Draw.PRIMARY:
            draw.primary(m.group(1))
            break

    return PLACEHOLDER.sub(lambda m: getattr(draw, m.group(1))(), template)


# ---- running a program on both libraries -------------------------------------------------------

class Divergence(AssertionError):
    def __init__(self, kind, detail, lines, where):
        self.kind, self.detail, self.lines, self.where = kind, detail, list(lines), where
        super().__init__(self.report())

    def report(self):
        body = "\n".join(self.lines)
        return (f"{self.kind}: {self.detail}\n\nat line {self.where + 1} of this program (runs on either library):\n"
                f"{HEADER}\n{body}\n")


HEADER = ("import torch as T                  # or: import minitorch as T\n"
          "import torch.nn.functional as F    # or: import minitorch.nn.functional as F\n"
          "nan, inf = float('nan'), float('inf')")


def _builtin_base(exc_type):
    for k in exc_type.__mro__:
        if k.__module__ == "builtins":
            return k.__name__
    return exc_type.__name__


def _namespace(lib):
    return {"T": lib, "F": lib.nn.functional, "nan": math.nan, "inf": math.inf, "__builtins__": __builtins__}


def _is_tensor(x):
    return isinstance(x, (torch.Tensor, minitorch.Tensor))


def _attr(t, name):
    """t.name, or what reading it raised."""
    try:
        return getattr(t, name)
    except Exception as e:  # noqa: BLE001 (compared like a value)
        return f"<raised {_builtin_base(type(e))}>"


def _grad_fn_name(t):
    g = t.grad_fn
    return None if g is None else g.name()


def _array(t):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # (of a clone: PyTorch's numpy() makes the memory it shares non-resizable, which the program would see)
        return t.detach().cpu().clone().numpy()


TOL = {"float16": 4e-3, "float32": 2e-5, "float64": 1e-9}


def _close(e, g, dtype):
    """Whether float arrays agree to the dtype's tolerance, with the same NaN / inf positions."""
    if e.shape != g.shape:
        return False
    if not np.array_equal(np.isnan(e), np.isnan(g)):
        return False
    fin = np.isfinite(e)
    if not np.array_equal(fin, np.isfinite(g)) or not np.array_equal(e[~fin & ~np.isnan(e)], g[~fin & ~np.isnan(g)]):
        return False
    e64, g64 = e[fin].astype(np.float64), g[fin].astype(np.float64)
    rtol = TOL[dtype]
    scale = max(1.0, float(np.abs(e64).max())) if e64.size else 1.0
    return bool(np.all(np.abs(e64 - g64) <= rtol * np.abs(e64) + rtol * scale))


def _bits_equal(e, g):
    if e.shape != g.shape or e.dtype != g.dtype:
        return False
    if e.dtype.kind == "f":
        return bool(np.array_equal(e, g, equal_nan=True) and np.array_equal(np.signbit(e), np.signbit(g)))
    return bool(np.array_equal(e, g))


def _describe(x, depth=0):
    """A comparable description of a non-tensor result (tensors inside are compared by _compare)."""
    if depth > 4:
        return ("deep",)
    if _is_tensor(x):
        return ("tensor",)
    if isinstance(x, (torch.Size, minitorch.Size)):
        return ("size", tuple(x))
    if isinstance(x, (torch.dtype, minitorch.dtype)):
        return ("dtype", str(x).split(".")[-1])
    if isinstance(x, (torch.device, minitorch.device)):
        return ("device", str(x))
    if isinstance(x, np.ndarray):
        return ("ndarray", x.dtype.str, x.shape, x.tolist())
    if isinstance(x, (tuple, list)):
        return ("seq", len(x), tuple(_describe(v, depth + 1) for v in x))
    if isinstance(x, float):
        return ("float", "nan" if math.isnan(x) else x)
    if x is None or isinstance(x, (bool, int, str)):
        return (type(x).__name__, x)
    return ("object", type(x).__name__)


class Runner:
    """Runs lines on both libraries and compares; raises Divergence at the first disagreement."""

    def __init__(self):
        self.ns = {"t": _namespace(torch), "m": _namespace(minitorch)}
        self.lines = []
        self.exact = {}  # name -> the two sides hold the same bits
        self.novalue = set()  # names of tensors whose memory is uninitialised (empty, resize_)
        self.stopped = False  # the two sides' values drifted apart: nothing more can be compared
        self.version_gap = {}  # name -> PyTorch's _version minus minitorch's when the tensor was made

    def tensors(self, side):
        return {k: v for k, v in self.ns[side].items() if re.fullmatch(r"v\d+", k) and _is_tensor(v)}

    def env(self):
        return {k: v for k, v in self.ns["t"].items() if re.fullmatch(r"v\d+", k)}

    def _exec(self, side, code):
        ns = self.ns[side]
        minitorch._tensor._WARNED.clear()  # (PyTorch is told to warn every time too)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            warnings.filterwarnings(**minitorch._QUIET_NUMPY)  # as minitorch installs it in a learner's process
            try:
                exec(compile(code, "<program>", "exec"), ns)  # noqa: S102 (the program is ours)
                err = None
            except Exception as e:  # noqa: BLE001 (the exception is what is compared)
                err = e
        return err, [w for w in caught if not str(w.message).startswith("The .grad attribute")]

    def step(self, code, values=True):  # values=False: the result's memory is uninitialised
        """Run one line on both; compare everything; True when the program can go on."""
        if self.stopped:
            return False
        i = len(self.lines)
        self.lines.append(code)
        used = set(re.findall(r"\bv\d+\b", code))
        exact_in = all(self.exact.get(n, True) for n in used)
        before = {s: dict(self.tensors(s)) for s in "tm"}
        err_t, warn_t = self._exec("t", code)
        err_m, warn_m = self._exec("m", code)
        fail = self._fail(i, exact_in)
        if err_t is not None or err_m is not None:
            if err_t is None:
                return fail("spurious error", f"PyTorch runs it; minitorch raised {type(err_m).__name__}: {err_m}")
            if err_m is None:
                return fail("missing error", f"PyTorch raised {type(err_t).__name__}: {err_t}; minitorch runs it")
            bt, bm = _builtin_base(type(err_t)), _builtin_base(type(err_m))
            if bt != bm:
                return fail("error type", f"PyTorch raised {bt} ({err_t}); minitorch raised {bm} ({err_m})")
            if isinstance(err_t, NameError):  # a line whose inputs a shrunk program no longer defines
                return True
        self._compare_warnings(warn_t, warn_m, fail)
        for k in before["t"]:
            same_t, same_m = self.ns["t"].get(k) is before["t"][k], self.ns["m"].get(k) is before["m"].get(k)
            if same_t != same_m:
                return fail("identity", f"{k} is {'still' if same_t else 'no longer'} the same object in PyTorch, "
                                        f"{'still' if same_m else 'no longer'} in minitorch")
        name = code.split(" = ", 1)[0] if re.match(r"v\d+ = ", code) else None
        if name and err_t is None and not values:
            self.novalue |= {k for k, v in self.tensors("t").items() if v is self.ns["t"][name]} | {name}
        if name and err_t is None:
            rt, rm = self.ns["t"][name], self.ns["m"][name]
            if not _is_tensor(rt):
                dt, dm = _describe(rt), _describe(rm)
                if not self._same_desc(dt, dm):
                    return fail("result", f"PyTorch gives {_short(rt)!r}, minitorch {_short(rm)!r}")
            idt = [k for k, v in before["t"].items() if v is rt]
            idm = [k for k, v in before["m"].items() if v is rm]
            if idt != idm:
                return fail("identity", f"the result is {idt or 'new'} in PyTorch, {idm or 'new'} in minitorch")
        return self._compare_tensors(fail)

    def _fail(self, i, exact_in):
        def fail(kind, detail):
            if not exact_in and kind != "dtype":  # the inputs already differed in their last bits
                self.stopped = True
                return False
            raise Divergence(kind, detail, self.lines, i)
        return fail

    @staticmethod
    def _same_desc(e, g):
        if e[0] == "float" and g[0] == "float":
            return e[1] == g[1] or (e[1] != "nan" and g[1] != "nan" and math.isclose(e[1], g[1], rel_tol=1e-5,
                                                                                  abs_tol=1e-6))
        if e[0] == "seq" and g[0] == "seq":
            return e[1] == g[1] and all(Runner._same_desc(a, b) for a, b in zip(e[2], g[2]))
        if e[0] == "ndarray" and g[0] == "ndarray":
            return e[1:3] == g[1:3] and _same_nested(e[3], g[3])
        if e[0] == "str" and g[0] == "str":
            return _same_text(e[1], g[1])
        return e == g

    def _compare_warnings(self, warn_t, warn_m, fail):
        cats_t = sorted({w.category.__name__ for w in warn_t})
        cats_m = sorted({w.category.__name__ for w in warn_m})
        if cats_t != cats_m:
            wt = "; ".join(f"{w.category.__name__}: {w.message}" for w in warn_t) or "nothing"
            wm = "; ".join(f"{w.category.__name__}: {w.message}" for w in warn_m) or "nothing"
            fail("warnings", f"PyTorch warns {wt}; minitorch warns {wm}")

    def _compare_tensors(self, fail):
        tt, tm = self.tensors("t"), self.tensors("m")
        if set(tt) != set(tm):
            return fail("names", f"tensors {sorted(tt)} in PyTorch, {sorted(tm)} in minitorch")
        storage_t, storage_m = {}, {}
        for name in sorted(tt, key=lambda n: int(n[1:])):
            a, b = tt[name], tm[name]
            if not _is_tensor(b):
                return fail("result", f"{name} is a {type(b).__name__} in minitorch")
            dt_a, dt_b = str(a.dtype).split(".")[-1], str(b.dtype).split(".")[-1]
            if dt_a != dt_b:
                return fail("dtype", f"{name}.dtype: PyTorch {dt_a}, minitorch {dt_b}")
            if tuple(a.shape) != tuple(b.shape):
                return fail("shape", f"{name}.shape: PyTorch {tuple(a.shape)}, minitorch {tuple(b.shape)}")
            for attr in ("requires_grad", "is_leaf"):
                if _attr(a, attr) != _attr(b, attr):
                    return fail(attr, f"{name}.{attr}: PyTorch {_attr(a, attr)}, minitorch {_attr(b, attr)}")
            # a fresh result's first version is PyTorch's kernel detail (an out= kernel starts at 1): what
            # must agree is how versions move from then on
            va, vb = _attr(a, "_version"), _attr(b, "_version")  # (an inference tensor has none: it raises)
            if isinstance(va, str) or isinstance(vb, str):
                if va != vb:
                    return fail("_version", f"{name}._version: PyTorch {va}, minitorch {vb}")
            elif va - vb != self.version_gap.setdefault(name, va - vb):
                return fail("_version", f"{name}._version: PyTorch {va}, minitorch {vb} (they differed by "
                                        f"{self.version_gap[name]} when it was made)")
            raised_a, raised_b = ("raised" in str(_attr(t, "grad_fn")) for t in (a, b))
            if raised_a or raised_b:  # (PyTorch refuses to show the history of some views whose base was
                if raised_a != raised_b:  # modified: nothing more to compare then)
                    return fail("grad_fn", f"{name}.grad_fn: PyTorch {_attr(a, 'grad_fn')}, minitorch "
                                           f"{_attr(b, 'grad_fn')}")
                continue
            if _grad_fn_name(a) != _grad_fn_name(b):
                return fail("grad_fn", f"{name}.grad_fn: PyTorch {_grad_fn_name(a)}, minitorch {_grad_fn_name(b)}")
            view_a, view_b = a._base is not None, b._base is not None
            if view_a != view_b:
                return fail("view", f"{name} is {'a view' if view_a else 'not a view'} in PyTorch, "
                                    f"{'a view' if view_b else 'not a view'} in minitorch")
            if view_a and a.numel():
                if tuple(a.stride()) != tuple(b.stride()) or a.storage_offset() != b.storage_offset():
                    return fail("strides", f"{name}: PyTorch strides {a.stride()} offset {a.storage_offset()}, "
                                           f"minitorch {b.stride()} offset {b.storage_offset()}")
            if a.numel():
                storage_t.setdefault(a.untyped_storage().data_ptr(), []).append(name)
                storage_m.setdefault(b.untyped_storage().data_ptr(), []).append(name)
            if name in self.novalue:
                self.exact[name] = False
            elif not self._compare_values(name, a, b, dt_a, fail):
                return False
            if a.is_leaf or a.retains_grad:
                if not self._compare_grads(name, a, b, fail):
                    return False
        alias_t = sorted(g for g in storage_t.values() if len(g) > 1)
        alias_m = sorted(g for g in storage_m.values() if len(g) > 1)
        if alias_t != alias_m:
            return fail("memory", f"shared memory: PyTorch {alias_t}, minitorch {alias_m}")
        return True

    def _compare_values(self, name, a, b, dtype, fail):
        ea, eb = _array(a), _array(b)
        if _bits_equal(ea, eb):
            self.exact[name] = True
            return True
        if dtype in FLOATS:
            if _close(ea, eb, dtype):
                zero = (ea == 0) & (eb == 0)
                if not np.array_equal(np.signbit(ea[zero]), np.signbit(eb[zero])):
                    return fail("sign of zero", f"{name}: PyTorch {_show(ea)}, minitorch {_show(eb)}")
                self.exact[name] = self._resync(a, b)
                return True
        return fail("values", f"{name} ({dtype}): PyTorch {_show(ea)}, minitorch {_show(eb)}")

    @staticmethod
    def _resync(a, b):
        """Within tolerance but not bit for bit: give minitorch PyTorch's bits, so later steps
        compare the ops, not the last bits they inherit (False when the memory is read-only)."""
        arr = b._data
        if not arr.flags.writeable or 0 in arr.strides:
            return False
        arr[...] = _array(a)
        return True

    def _compare_grads(self, name, a, b, fail):
        ga, gb = a.grad, b.grad
        if (ga is None) != (gb is None):
            return fail("grad", f"{name}.grad: PyTorch {'None' if ga is None else 'a tensor'}, minitorch "
                                f"{'None' if gb is None else 'a tensor'}")
        if ga is None:
            return True
        if tuple(ga.shape) != tuple(gb.shape) or str(ga.dtype)[6:] != str(gb.dtype).split(".")[-1]:
            return fail("grad", f"{name}.grad: PyTorch {tuple(ga.shape)} {ga.dtype}, minitorch {tuple(gb.shape)} "
                                f"{gb.dtype}")
        ea, eb = _array(ga), _array(gb)
        if _bits_equal(ea, eb) or (ea.dtype.kind == "f" and _close(ea, eb, str(ga.dtype)[6:])):
            return True
        return fail("grad", f"{name}.grad: PyTorch {_show(ea)}, minitorch {_show(eb)}")


def _same_nested(x, y):
    if isinstance(x, list) and isinstance(y, list):
        return len(x) == len(y) and all(_same_nested(a, b) for a, b in zip(x, y))
    if isinstance(x, float) and isinstance(y, float):
        return x == y or (math.isnan(x) and math.isnan(y)) or math.isclose(x, y, rel_tol=1e-5, abs_tol=1e-6)
    return type(x) is type(y) and x == y


def _same_text(x, y):
    """Printed tensors: the same, after the library's name and object addresses."""
    norm = [re.sub(r"0x[0-9a-f]+", "0x?", s.replace("minitorch.", "torch.")) for s in (x, y)]
    return norm[0] == norm[1]


def _short(x):
    s = repr(x)
    return s if len(s) < 300 else s[:300] + "..."


def _show(arr):
    with np.printoptions(precision=8, threshold=40):
        return np.array2string(arr, separator=", ")


# ---- a program ------------------------------------------------------------------------------

def run_program(ch, max_steps=8):
    """Draw and run one program; raises Divergence at the first disagreement."""
    runner = Runner()
    counter = [0]

    def new_name():
        counter[0] += 1
        return f"v{counter[0] - 1}"

    for _ in range(ch.integer(1, 3)):
        runner.step(draw_input(ch, new_name()))
    for _ in range(ch.integer(1, max_steps)):
        if runner.stopped:
            return runner
        template = ch.choice(OPS)
        flags = ""
        while template[:1] in "!~":
            flags, template = flags + template[0], template[1:]
        draw = Draw(ch, runner.env(), new_name)
        code = fill(template, draw)
        if "!" not in flags:
            code = f"{new_name()} = {code}"
        name = code.split(" = ")[0]
        if not runner.step(code, values="~" not in flags):
            return runner
        unpack_results(runner, name, new_name)
    backward(ch, runner, new_name)
    return runner


def unpack_results(runner, name, new_name):
    """A tuple of tensors (max with dim, split, ...) becomes tensors the program can use."""
    r = runner.ns["t"].get(name)
    if isinstance(r, (tuple, list)) and r and all(isinstance(x, torch.Tensor) for x in r) and name.startswith("v"):
        picks = [0, 1, len(r) - 1][:len(r)] if len(r) > 3 else list(range(len(r)))
        names = [new_name() for _ in picks]
        runner.step(", ".join(names) + " = " + ", ".join(f"{name}[{i}]" for i in picks))


def backward(ch, runner, new_name):
    """Often, end with backward from a tensor that requires grad, with a random upstream gradient,
    and sometimes a second one (freed graph or not)."""
    if runner.stopped or not ch.chance(0.75):
        return
    env = runner.env()
    outs = [n for n, v in env.items() if isinstance(v, torch.Tensor) and v.requires_grad]
    if not outs:
        return
    out = outs[-1] if ch.chance(0.7) else ch.choice(outs)
    draw = Draw(ch, env, new_name)
    draw.prim = out
    keep = ch.choice(["", ", retain_graph=True"])
    if not runner.step(f"{out}.backward({draw.grad()}{keep})"):
        return
    if ch.chance(0.3):
        runner.step(f"{out}.backward({draw.grad()})")


# ---- the test ---------------------------------------------------------------------------------

def _prepare():
    torch.set_warn_always(True)  # PyTorch warns some things once per process: every time, here
    minitorch._tensor._WARNED.clear()


@pytest.fixture(autouse=True)
def _restore_seed_state():
    state = torch.get_rng_state()
    yield
    torch.set_rng_state(state)
    torch.set_warn_always(False)


# Divergences found and not fixed yet: (kind, a pattern the failing line matches, why). A program
# that meets one of these ends there (it still counts); anything else fails the test. Each entry
# is an open finding, to be fixed and removed; README's "Differences from PyTorch" lists those
# that are deliberate.
KNOWN = [
    # -- minitorch refuses what PyTorch runs (loud: an error, never a wrong value); README names each
    ("spurious error", r"resize_\(\(-", "resize_ with a negative size: PyTorch makes a tensor with a negative dim when "
     "another dim is 0; minitorch refuses (README: Differences from PyTorch)"),
    ("spurious error|error type", r"out=", "an out= sharing memory with an input of a reduction or matrix product: "
     "PyTorch runs it reading the input as it overwrites it (or resizes the input first); minitorch refuses it (README)",
     r"some elements of the input tensor and the written-to tensor"),
    # -- silent differences README names (Differences from PyTorch), none of them changes an element read
    ("result|view|strides", r"\.stride\(\)|storage_offset\(\)", "the strides and storage_offset of an empty tensor: "
     "NumPy keeps no layout for an array of no elements (README: Memory)"),
    ("warnings", r"\.backward\(T\.tensor\(\[\]", "PyTorch's warning that an empty gradient does not have its "
     "tensor's strides: an empty tensor's strides are row-major here (README: Memory)"),
    ("strides", r"(?m)\[T\.tensor\(", "the layout of an advanced-indexing result of a non-contiguous input (and of "
     "its views): PyTorch orders its dims as the input's, minitorch's is row-major (README: Memory)"),
    ("strides", r"(?m)expand(_as)?\(|broadcast_to\(|broadcast_tensors\(", "the stride of a size-1 dim that a broadcast adds in "
     "front: PyTorch's is the next dim's size times its stride, minitorch's 0 (the course's expand_strides rule, "
     "README: Memory)"),
    ("values|shape|memory|strides", r"(?m)resize_\(|new_empty|T\.empty", "uninitialised memory (empty, new_empty, the "
     "elements a resize_ adds: zeros here) and a resize_ that grows a view (PyTorch grows the memory its base shares, "
     "minitorch gives the view memory of its own) (README: Memory)"),
    ("grad|missing error", r"(?m)\.sgn\(|T\.sgn\(", "sgn's gradient: PyTorch's is an efficient zero tensor that later "
     "backward steps keep zero, and a second backward into the same leaf refuses to add to (README)"),
    ("values", r"(?m)(?s)(\bnan\b|divide|/).*\.mode\(", "mode of data holding NaN: PyTorch's kernel sorts with a "
     "comparison NaN breaks, so its answer (and the index it gives) depends on where the NaN sits (README)"),
    ("values|grad", r"(?m)(?s)\.expand\(.*(nan)?median\((v\d+, )?(dim=)?-?\d", "median / nanmedian along a dim of an "
     "expanded (stride-0) input: PyTorch's kernel sorts the shared memory in place and returns other elements (a "
     "PyTorch bug, README); minitorch gives the median"),
    ("values|sign of zero", r"(?m)\.(topk|kthvalue)\(", "topk / kthvalue of tied values: PyTorch's partial sort picks "
     "among equal elements in an order it does not specify (README); minitorch takes the first"),
    ("values", r"(?m)\.(sort|argsort)\(", "sort / argsort of tied values: minitorch's sort is stable, PyTorch's "
     "unstable sort may order ties otherwise (README); the sorted values agree, the indices of ties may not",
     r"^v\d+ \(int64\)"),
    ("sign of zero|values", r"(?m)\.unique\(|T\.unique\(", "unique of more than 16 elements holding both 0. and -0. (or "
     "NaNs, with return_inverse): PyTorch's unstable sort decides which zero is kept (README)"),
    ("warnings", r"out=", "an op with out= that fails: PyTorch may resize out (and warn of it) before its error, "
     "minitorch checks first (README: Error messages)"),
    # -- float results, agreeing to rounding (README: "Float results agree to rounding"); each one op's case
    ("sign of zero", r"F\.softshrink", "softshrink in PyTorch gives x * 0 (the sign of x) in its scalar loop and +0. in "
     "its vectorised one, so the sign of a zero result depends on the element's position and the CPU (README)"),
    ("sign of zero", r"T\.(max|min|amax|amin|maximum|minimum|clamp|clip|fmax|fmin)\(|"
     r"\.(max|min|amax|amin|maximum|minimum|clamp|clip)_?\(",
     "a tie between 0. and -0. in maximum / minimum, amax / amin and max / min (and clamp with tensor bounds): "
     "PyTorch's vectorised loop keeps the second operand, its scalar loop (the last few elements) the first, so the "
     "sign depends on the position (README)"),
    ("sign of zero", r"F\.layer_norm\(|T\.inner\(|T\.einsum\(|T\.tensordot\(|matmul\(| @ |F\.linear\(|"
     r"F\.conv\w*\(|T\.logcumsumexp\(|F\.elu\(v\d+, -|F\.instance_norm\(|F\.nll_loss\(.*reduction='none'|"
     r"F\.cross_entropy\(T\.tensor\(\[-?\d",
     "the sign of a zero result of a sum of zero products (inner, einsum, tensordot, linear, matmul, a convolution "
     "over its padding: the summation order's), of logcumsumexp, layer_norm (of constant data, or eps=inf), elu with "
     "a negative alpha, "
     "instance_norm, unreduced nll_loss / cross_entropy of a 1-D input (README)"),
    ("values|sign of zero|grad|warnings",
     r"F\.(adaptive_avg_pool\w*|interpolate|hardshrink|kl_div|soft_margin_loss|gelu|elu|conv\w*|group_norm|bilinear|"
     r"instance_norm|batch_norm)\(.*(inf|nan|dtype=T\.float16)|polygamma|linspace|erfinv|i0\(|logcumsumexp",
     "float16 / inf / nan corner cases of a few ops: NaN where PyTorch's kernels skip a padded zero times inf (conv, "
     "pooling), half rounding of their steps, special functions near their poles (README)"),
    ("values", r"(?m)(?s)\binf\b.*F\.gelu\(", "gelu of inf: PyTorch's vectorised erf gives nan there (README)"),
    ("values", r"T\.addcdiv\(|F\.binary_cross_entropy_with_logits\(", "half-precision rounding of the steps of "
     "addcdiv and binary_cross_entropy_with_logits (README)"),
    ("values|grad_fn|grad", r"F\.scaled_dot_product_attention\(", "attention of some 4-D inputs: PyTorch's CPU "
     "computes it with its flash-attention kernel (blockwise: its own rounding, a NaN stays in its block, its own "
     "node) (README)"),
    ("values|sign of zero", r"T\.kron\(", "kron of mixed dtypes: PyTorch multiplies in float before rounding to the "
     "result's dtype, minitorch rounds the other operand first (README)"),
    ("values", r"F\.instance_norm\(|F\.group_norm\(|F\.layer_norm\(|F\.batch_norm\(", "the normalisation of data "
     "that is (nearly) constant: x - mean is rounding there, which 1 / sqrt(var + eps) magnifies, and NumPy's mean "
     "rounds otherwise than PyTorch's (README)", r"e-0[5-9]|e-[1-9]\d"),
    ("grad", r"(?m)T\.atan2\(|T\.xlogy\(|T\.lgamma\(", "atan2's gradient at (0, 0) with a zero upstream "
     "gradient, xlogy's at a NaN log, lgamma's at its poles with an infinite upstream gradient: PyTorch's formulas "
     "give 0 where minitorch's give 0 * nan (README)"),
    ("grad", r"\.backward\(.*\b(inf|nan)\b", "a backward with an infinite or NaN upstream gradient: inf * 0 gives nan "
     "where PyTorch's formula skips the zero (or the reverse) (README)"),
    ("grad", r"(?m)(?s)\bnan\b.*F\.(hardtanh|relu6|hardshrink|softshrink|elu|selu|celu|hardswish|threshold)\(",
     "the gradient of a piecewise activation at a NaN input: PyTorch's vectorised and scalar loops take different "
     "sides there, so its answer depends on the element's position and the CPU; minitorch takes the scalar loop's "
     "(README)"),
    ("grad", r"(?m)(?s)dtype=T\.float16.*F\.(group|layer|batch|instance)_norm\(", "the gradient of a normalisation "
     "in half precision with values near half's range: PyTorch's backward reduces in float, minitorch rounds "
     "its steps in half (README)"),
    ("grad", r"(?m)digamma\(|polygamma\(", "the gradient of digamma / polygamma at their poles, the non-positive "
     "integers and -inf: PyTorch's float series gives a huge finite value or nan there, minitorch inf (README)"),
]


def known(div):
    """The reason KNOWN gives for `div`, or None. A pattern is searched in the failing line; one that
    begins with "(?m)" in the whole program up to it (for a divergence seen after the op that causes
    it: a gradient at backward, a multiple result when it is unpacked). An entry's optional fourth
    pattern must also be found in what differs (PyTorch's grad_fn name, say)."""
    line = div.lines[div.where]
    program = "\n".join(div.lines[:div.where + 1])
    return next((entry[2] for entry in KNOWN if re.fullmatch(entry[0], div.kind)
                 and re.search(entry[1], program if entry[1].startswith("(?m)") else line)
                 and (len(entry) < 4 or re.search(entry[3], div.detail))), None)


def test_random_programs_agree_with_pytorch():
    """EXAMPLES programs (6000, about 40 s on 2 cores; MINITORCH_FUZZ_EXAMPLES for more), the same ones
    every run (MINITORCH_FUZZ_SEED picks others).

    Any silent difference fails: a value, dtype, shape, stride, gradient, version count, warning,
    or an error PyTorch raises that minitorch does not; the failure lists each one as the shortest
    program found for it. The one loud difference, minitorch refusing with an error a program
    PyTorch runs, is reported in a warning (with its repro) instead: a learner sees it, never a
    wrong number. KNOWN lists the open findings and the deliberate differences."""
    pytest.importorskip("torch", reason="PyTorch not installed: differential tests skipped")
    found = divergences(EXAMPLES, int(SEED or 0), 8)
    silent = {sig: d for sig, d in found.items() if d.kind != "spurious error"}
    refused = [d for d in found.values() if d.kind == "spurious error"]
    if refused:
        warnings.warn(UserWarning(f"{len(refused)} kinds of program PyTorch runs and minitorch refuses with an "
                                  "error (open findings):\n\n" + "\n\n".join(d.report() for d in refused[:5])))
    assert not silent, (f"{len(silent)} silent differences from PyTorch in {EXAMPLES} programs:\n\n"
                        + "\n\n".join(_minimise(d).report() for d in list(silent.values())[:10]))


def test_random_programs_drawn_by_hypothesis_agree_with_pytorch():
    """The same program generator driven by hypothesis (MINITORCH_HYPOTHESIS_EXAMPLES programs,
    300 by default, derandomized so every run draws the same ones): a silent difference fails
    with the program hypothesis shrank it to, the fewest steps and simplest values that show it."""
    pytest.importorskip("torch", reason="PyTorch not installed: differential tests skipped")
    hypothesis = pytest.importorskip("hypothesis", reason="hypothesis not installed")
    from hypothesis import strategies as st

    @hypothesis.settings(max_examples=HYPOTHESIS_EXAMPLES, deadline=None, database=None, derandomize=True,
                         suppress_health_check=list(hypothesis.HealthCheck))
    @hypothesis.given(st.data())
    def program_agrees(data):
        _prepare()
        try:
            run_program(Choices(data=data), 8)
        except Divergence as d:
            if d.kind != "spurious error" and known(d) is None:  # (a refusal is loud: not a failure)
                raise

    state = torch.get_rng_state()
    try:
        program_agrees()
    finally:
        torch.set_rng_state(state)


def test_a_divergence_reads_as_a_runnable_program():
    """The report is the program itself: both libraries run it, up to the line that differs."""
    pytest.importorskip("torch", reason="PyTorch not installed: differential tests skipped")
    runner = Runner()
    runner.step("v0 = T.tensor([1.0, -2.0])")
    with pytest.raises(Divergence) as info:
        runner.step("v1 = v0.abs() if T.__name__ == 'torch' else v0.clone()")
    text = info.value.report()
    assert "values" in text and "v1 = v0.abs()" in text and text.index("import torch as T") < text.index("v0 =")
    for lib in (torch, minitorch):
        ns = _namespace(lib)
        exec(compile(text.split("\n\n", 1)[1].split("\n", 1)[1], "<report>", "exec"), ns)  # noqa: S102
        assert _is_tensor(ns["v1"])


def test_the_op_table_covers_every_placeholder():
    """Every placeholder in OPS is a Draw method (a typo would only show as a skipped op)."""
    names = {m.group(1) for t in OPS for m in PLACEHOLDER.finditer(t)}
    missing = sorted(n for n in names if n != "shape" and not callable(getattr(Draw, n, None)))
    assert not missing, missing


# ---- the survey: python tests/test_torch_random_programs.py --programs N ---------------------------

def _minimise(div):
    """Drop lines while the same kind of divergence still happens at the same line's op."""
    lines, target = list(div.lines), div.lines[div.where]
    i = len(lines) - 1
    while i >= 0:
        if lines[i] != target:
            trial = lines[:i] + lines[i + 1:]
            d = _replay(trial)
            if d is not None and d.kind == div.kind and d.lines[d.where] == target:
                lines = trial
        i -= 1
    return _replay(lines) or div


def _replay(lines):
    _prepare()
    runner = Runner()
    try:
        for line in lines:
            if not runner.step(line):
                return None
    except Divergence as d:
        return d
    except Exception:  # noqa: BLE001 (a shortened program the harness itself can't run: not this divergence)
        return None
    return None


def _signature(div):
    line = div.lines[div.where]
    code = line.split(" = ", 1)[1] if re.match(r"v\d+ = ", line) else line
    op = re.sub(r"T\.tensor\(.*?dtype=T\.(\w+)[^)]*\)", r"<\1>", code)
    op = re.sub(r"v\d+", "v", op)
    op = re.sub(r"-?\d+(\.\d+)?", "#", op)
    return div.kind, op[:60]


def divergences(programs, seed, max_steps, include_known=False):
    """Run `programs` random programs drawn from `seed`: {signature: the shortest divergence of that kind}."""
    found = {}
    rng = random.Random(seed)
    state = torch.get_rng_state()
    try:
        for n in range(programs):
            _prepare()
            try:
                run_program(Choices(rng=random.Random(rng.getrandbits(64))), max_steps)
            except Divergence as d:
                if known(d) is not None and not include_known:
                    continue
                sig = _signature(d)
                if sig not in found or len(d.lines) < len(found[sig].lines):
                    found[sig] = d
            except Exception as e:  # noqa: BLE001 (a crash of the harness itself, e.g. on PyTorch's ZeroTensor: show it)
                print(f"program {n}: harness error {type(e).__name__}: {e}", file=sys.stderr)
    finally:
        torch.set_rng_state(state)
    return found


def survey(programs, seed, max_steps, include_known=False):
    found = divergences(programs, seed, max_steps, include_known)
    for sig, d in sorted(found.items()):
        d = _minimise(d)
        print("=" * 100)
        reason = known(d)
        print(d.report() + (f"(KNOWN: {reason})\n" if reason else ""))
    print(f"{programs} programs, {len(found)} distinct divergences")


if __name__ == "__main__":
    import argparse
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--programs", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--steps", type=int, default=8)
    parser.add_argument("--known", action="store_true", help="also report the divergences KNOWN lists")
    args = parser.parse_args()
    if torch is None:
        sys.exit("PyTorch is not installed")
    survey(args.programs, args.seed, args.steps, args.known)
