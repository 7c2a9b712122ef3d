"""Keyword arguments, as PyTorch names them, on every function both libraries have.

A PyTorch program may pass any argument by keyword (`x.permute(dims=(1, 0))`,
`torch.matmul(input=a, other=b)`, `x.sum(dim=0, keepdim=True)`), and a keyword PyTorch does not
have is an error there (`F.one_hot(tensor=t)` is a TypeError). For every public callable of
`torch`, `torch.Tensor`, `torch.nn.functional`, `torch.linalg` and `torch.special` that minitorch
also has, this module reads PyTorch's parameter names and checks, by calling both libraries on
the same small inputs, that:

- minitorch accepts each call PyTorch accepts with every argument passed by keyword (the
  optional ones too, at their defaults), and gives the same result: so each keyword reaches the
  parameter it names;
- minitorch refuses with a TypeError each such call PyTorch refuses, a made-up keyword, and each
  of minitorch's own parameter names that PyTorch does not have (but its private ones, `_op`, and
  those in `OWN_NAMES_KEPT`, each with its reason).

One test per function runs all of its checks and lists every problem it finds.

Where the names come from: a Python function's own signature (`inspect.signature`); for a
builtin, its native schemas (`torch._C._jit_get_schemas_for_operator`), which list every overload
with its argument names and keyword-only markers, as PyTorch's argument parser takes them (a
function's `self` is `input` there; a method takes the schema minus `self`); else the signature
line its docstring opens with.

The inputs are derived from the schema's types (a Tensor is a small float matrix, an `int[]` a
shape, ...) and the argument names (`index` is a long vector, `dim` 0, ...), with `OVERRIDES` for
the functions that need other inputs. A signature whose derived inputs PyTorch itself refuses
checks nothing and is left out (`python tests/test_torch_signatures.py -v` lists those); so are
the functions in `LEFT_OUT`, each with its reason. `test_coverage` keeps the number checked from
silently falling.
"""
from __future__ import annotations

import functools
import inspect
import math
import re
import warnings

import numpy as np
import pytest

import minitorch
import minitorch.nn.functional as mF

torch = pytest.importorskip("torch", reason="PyTorch not installed: differential tests skipped")
import torch.nn.functional as tF  # noqa: E402

pytestmark = pytest.mark.torch

# namespace: (PyTorch's, minitorch's, prefix of the native op's name)
NAMESPACES = {
    "torch": (torch, minitorch, ""),
    "Tensor": (torch.Tensor, minitorch.Tensor, ""),
    "F": (tF, mF, ""),
    "linalg": (torch.linalg, minitorch.linalg, "linalg_"),
    "special": (torch.special, minitorch.special, "special_"),
}

# ---- inputs --------------------------------------------------------------------------------

R = np.random.default_rng(7)


def _f32(*shape, lo=0.1, hi=1.0):
    return R.uniform(lo, hi, shape).astype(np.float32)


class A:
    """An array, made into a tensor of each library at call time (fresh: in-place ops write)."""

    def __init__(self, arr, requires_grad=False):
        self.arr, self.requires_grad = np.asarray(arr), requires_grad

    def __repr__(self):
        return f"A{self.arr.shape}:{self.arr.dtype}"


class D:
    """A dtype, by name."""

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return self.name


def make(lib, v):
    if isinstance(v, A):
        return lib.tensor(v.arr.copy(), requires_grad=v.requires_grad)
    if isinstance(v, D):
        return getattr(lib, v.name)
    if isinstance(v, list):
        return [make(lib, x) for x in v]
    if isinstance(v, tuple):
        return tuple(make(lib, x) for x in v)
    return v


MAT, MAT2 = _f32(3, 3), _f32(3, 3)   # positive: log, sqrt, pow, ... stay real
F3, G3 = A(MAT), A(MAT2)
SPD = A(MAT @ MAT.T + 3 * np.eye(3, dtype=np.float32))  # symmetric positive definite
L3 = A(np.array([[0, 2, 1], [1, 0, 2], [2, 1, 0]]))   # long indices, same shape as the matrices
IDX = A(np.array([2, 0]))                              # a long index vector
I3 = A(np.array([[3, 6, 5], [4, 9, 12], [7, 2, 8]]))   # integers (bitwise ops, gcd, ...)
B3 = A(MAT > 0.5)
V3 = A(MAT[0])
BATCH, BATCH2 = A(_f32(2, 3, 3)), A(_f32(2, 3, 3))
IMG = A(_f32(1, 2, 4, 4))                               # N, C, H, W
SEQ = A(_f32(1, 2, 4))                                  # N, C, L
VOL = A(_f32(1, 2, 2, 4, 4))                            # N, C, D, H, W
SCALAR = A(np.float32(0.5))

TENSOR_BY_NAME = {  # argument name: its value, where a float matrix won't do
    "index": IDX, "indices": IDX, "mask": B3, "condition": B3, "other": G3, "mat2": G3, "vec": V3, "vec1": V3,
    "vec2": A(MAT2[0]), "mat1": F3, "mat": F3, "tensor1": F3, "tensor2": G3, "batch1": BATCH, "batch2": BATCH2,
    "boundaries": A(np.array([0.2, 0.5, 0.8], np.float32)), "sorted_sequence": A(np.array([0.2, 0.5, 0.8], np.float32)),
    "value": SCALAR, "source": A(_f32(2, 3)), "src": G3, "exponent": G3, "end": G3, "weight": G3,
}
INT_BY_NAME = {
    "dim": 0, "dim0": 0, "dim1": 1, "dim2": 1, "k": 1, "n": 2, "chunks": 3, "sections": 3, "split_size": 1,
    "diagonal": 0, "offset": 0, "start": 0, "length": 1, "groups": 1, "p": 2, "repeats": 2, "shifts": 1,
    "decimals": 0, "index": 0, "source": 0, "destination": 1, "start_dim": 0, "end_dim": -1, "num_classes": 3,
    "step": 1, "end": 3, "high": 5, "low": 0, "steps": 3, "minlength": 0, "bins": 4, "num_samples": 2,
    "upper": 1, "kernel_size": 2, "output_size": 2, "upscale_factor": 1, "downscale_factor": 1, "size": 2,
    "N": 3, "num_groups": 1, "ind": 1, "row": 3, "col": 3, "window_length": 4, "to": 5, "from": 0, "r": 2,
    "split_size_or_sections": 1, "indices_or_sections": 3, "tensor_indices_or_sections": 3, "diagonal_": 0,
}
INTS_BY_NAME = {
    "size": (3, 3), "shape": (3, 3), "dims": (1, 0), "dim": (0,), "repeats": (2, 1), "split_size": (1, 2),
    "split_sizes": (1, 2), "shifts": (1,), "source": (0,), "destination": (1,), "pad": (1, 1), "sizes": (3, 1),
    "stride": (3, 1), "physical_layout": (0, 1), "kernel_size": (2, 2), "output_size": (2, 2),
    "normalized_shape": (3,), "indices": (1,), "tensor_indices_or_sections": (1,),
}
SCALAR_BY_NAME = {
    "other": 2, "value": 1.5, "alpha": 1, "exponent": 2, "min": 0.2, "max": 0.8, "p": 2, "end": 5, "start": 0,
    "step": 1, "fill_value": 1.5, "beta": 1, "threshold": 0.5, "lambd": 0.5, "weight": 0.5, "ord": 2, "q": 0.5,
}
FLOAT_BY_NAME = {"p": 0.5, "eps": 1e-5, "min_val": -0.5, "max_val": 0.5, "rtol": 1e-5, "atol": 1e-8, "weight": 0.5,
                 "alpha": 1.0, "beta": 1.0, "value": 1.5, "threshold": 0.5, "lambd": 0.5, "negative_slope": 0.01,
                 "q": 0.5, "norm_type": 2.0, "margin": 1.0, "tau": 1.0, "from": 0.0, "to": 1.0, "mean": 0.0,
                 "std": 1.0, "lambd_": 1.0}
STR_BY_NAME = {"reduction": "mean", "approximate": "none", "rounding_mode": "floor", "reduce": "sum",
               "ord": "fro", "p": "fro", "mode": "constant", "indexing": "ij", "interpolation": "linear",
               "side": "left", "equation": "ij->ji"}
TENSOR_NAMES = {"input", "tensor", "self", "a", "x", "A", "B", "b", "target", "other", "weight", "input1", "input2",
                "x1", "x2", "LD", "LU", "anchor", "positive", "negative", "logits", "elements", "test_elements",
                "mean", "std", "log_input", "var", "theta", "grid", "query", "key", "y", "input_tensor"}


class Underivable(Exception):
    """No input for this argument: the signature is left out."""


def derive(name, typ):
    """A valid value for an argument named `name` of native type `typ` (None: a Python function's)."""
    if typ is None:  # a Python function: by its name alone
        if name in TENSOR_NAMES or name in TENSOR_BY_NAME and name not in INT_BY_NAME:
            return TENSOR_BY_NAME.get(name, F3)
        if name in ("tensors", "inputs", "matrices"):
            return [F3, G3]
        if name in INTS_BY_NAME and name not in INT_BY_NAME:
            return INTS_BY_NAME[name]
        if name in INT_BY_NAME:
            return INT_BY_NAME[name]
        if name in FLOAT_BY_NAME:
            return FLOAT_BY_NAME[name]
        if name in STR_BY_NAME:
            return STR_BY_NAME[name]
        raise Underivable(name)
    typ = typ[len("Optional["):-1] if typ.startswith("Optional[") else typ
    if typ == "Tensor":
        return TENSOR_BY_NAME.get(name, F3)
    if typ == "List[Tensor]":
        return [F3, G3]
    if typ in ("int", "SymInt"):
        return INT_BY_NAME.get(name, 1)
    if typ == "List[int]":
        return INTS_BY_NAME.get(name, (1,))
    if typ == "number":
        return SCALAR_BY_NAME.get(name, 2)
    if typ == "float":
        return FLOAT_BY_NAME.get(name, 0.5)
    if typ == "bool":
        return False
    if typ == "str" and name in STR_BY_NAME:
        return STR_BY_NAME[name]
    if typ == "ScalarType" or typ == "int" and name == "dtype":
        return D("float64")
    if typ == "Device":
        return "cpu"
    raise Underivable(f"{name}: {typ}")


def _each(names, values):
    return {n: values for n in names.split()}


OVERRIDES = {  # function name: its arguments' values, where the ones derived from names and types don't fit
    **_each("bmm baddbmm baddbmm_", {"input": BATCH, "mat2": BATCH2}),
    **_each("dot vdot inner outer ger", {"input": V3, "other": A(MAT2[0]), "tensor": A(MAT2[0]), "vec2": A(MAT2[0])}),
    **_each("addmv addmv_", {"input": V3}),
    **_each("addr addr_", {"vec1": V3, "vec2": A(MAT2[0])}),
    **_each("bitwise_and bitwise_or bitwise_xor bitwise_not bitwise_left_shift bitwise_right_shift gcd lcm "
            "bitwise_and_ bitwise_or_ bitwise_xor_ bitwise_not_ bitwise_left_shift_ bitwise_right_shift_ gcd_ "
            "lcm_ __and__ __or__ __xor__", {"input": I3, "other": A(np.array([[1, 2, 3], [3, 2, 1], [1, 1, 2]]))}),
    **_each("bincount", {"input": IDX, "weights": None}),
    **_each("cholesky cholesky_inverse cholesky_ex", {"input": SPD}),
    **_each("clamp clamp_ clip clip_", {"min": 0.2, "max": 0.8}),
    **_each("dropout dropout_ alpha_dropout alpha_dropout_ feature_dropout feature_dropout_ feature_alpha_dropout "
            "feature_alpha_dropout_ dropout1d dropout2d dropout3d", {"p": 0.0}),
    **_each("geometric_ bernoulli_", {"p": 0.5}),
    **_each("gather scatter scatter_ scatter_add scatter_add_ scatter_reduce scatter_reduce_ take_along_dim",
            {"index": L3}),
    **_each("index_put index_put_", {"indices": [IDX], "values": A(_f32(2, 3))}),
    **_each("index_fill index_fill_", {"value": 1.5}),
    **_each("masked_fill masked_fill_ fill_ fill", {"value": 1.5}),
    **_each("narrow narrow_copy", {"start": 1}),
    **_each("conv1d conv_transpose1d avg_pool1d max_pool1d max_pool1d_with_indices adaptive_avg_pool1d "
            "adaptive_max_pool1d adaptive_max_pool1d_with_indices lp_pool1d",
            {"input": SEQ, "weight": A(_f32(2, 2, 3)), "kernel_size": 2, "output_size": 2}),
    **_each("conv2d conv_transpose2d avg_pool2d max_pool2d max_pool2d_with_indices adaptive_avg_pool2d "
            "adaptive_max_pool2d adaptive_max_pool2d_with_indices lp_pool2d pixel_shuffle pixel_unshuffle "
            "channel_shuffle native_channel_shuffle local_response_norm unfold instance_norm group_norm",
            {"input": IMG, "weight": A(_f32(2, 2, 3, 3)), "kernel_size": 2, "output_size": 2, "num_groups": 2}),
    **_each("conv3d conv_transpose3d avg_pool3d max_pool3d max_pool3d_with_indices adaptive_avg_pool3d "
            "adaptive_max_pool3d adaptive_max_pool3d_with_indices lp_pool3d",
            {"input": VOL, "weight": A(_f32(2, 2, 1, 3, 3)), "kernel_size": (1, 2, 2), "output_size": 2}),
    **_each("prelu", {"weight": A(np.float32([0.25]))}),
    **_each("one_hot embedding", {"input": IDX, "tensor": IDX}),
    **_each("nll_loss cross_entropy multi_margin_loss", {"target": A(np.array([0, 2, 1]))}),
    **_each("multilabel_margin_loss", {"target": L3}),
    **_each("binary_cross_entropy", {"target": A((MAT > 0.5).astype(np.float32))}),
    **_each("cosine_embedding_loss margin_ranking_loss hinge_embedding_loss", {"target": A(np.float32([1, -1, 1]))}),
    **_each("glu", {"input": A(_f32(3, 4))}),
    **_each("interpolate upsample upsample_nearest upsample_bilinear", {"input": IMG, "scale_factor": 2.0}),
    **_each("layer_norm rms_norm", {"normalized_shape": (3,)}),
    **_each("batch_norm", {"running_mean": A(np.zeros(3, np.float32)), "running_var": A(np.ones(3, np.float32)),
                           "training": False}),
    **_each("diagonal_scatter", {"src": V3}),
    **_each("select_scatter", {"src": V3}),
    **_each("quantile nanquantile", {"q": 0.5}),
    **_each("linspace logspace", {"start": 0.0, "end": 1.0}),
    **_each("repeat_interleave", {"repeats": 2}),
    **_each("unflatten", {"sizes": (3, 1)}),
    **_each("histogram", {"bins": 3}),
    **_each("tensor_split", {"tensor_indices_or_sections": 3}),
    **_each("random_", {"from": 0, "to": 5}),
    **_each("float_power_", {"input": A(MAT.astype(np.float64))}),
    **_each("item is_nonzero", {"input": SCALAR}),
    **_each("combinations vander", {"input": V3, "x": V3}),
    **_each("retain_grad backward", {"input": A(MAT, requires_grad=True)}),
    **_each("pad", {"pad": (1, 1)}),
    **_each("threshold threshold_", {"threshold": 0.5, "value": 0.0}),
    **_each("unravel_index", {"indices": IDX, "shape": (3, 3)}),
    **_each("cdist", {"x1": F3, "x2": G3}),
    **_each("multi_dot", {"tensors": [F3, G3]}),
    **_each("lu_solve", {"LU_pivots": A(np.array([1, 2, 3], np.int32))}),
    **_each("tensorinv", {"input": A(_f32(4, 2, 2)), "ind": 1}),
    **_each("householder_product", {"tau": V3}),
    **_each("div divide div_ divide_", {"rounding_mode": "floor"}),
    **_each("scatter scatter_", {"reduce": "add"}),
    **_each("where", {"condition": B3}),
    **_each("matrix_rank pinv", {"tol": SCALAR, "rcond": SCALAR}),
    **_each("tensor_split", {"tensor_indices_or_sections": A(np.array([1]))}),
    **_each("margin_ranking_loss", {"target": A(np.sign(MAT - 0.5).astype(np.float32))}),
    **_each("dsplit", {"input": BATCH}),
}


# Their values are whatever memory held: only the shape and dtype are compared.
UNINITIALISED = {"empty", "empty_like", "empty_strided", "empty_permuted", "new_empty", "new_empty_strided"}

# The functions left out, and why.
LEFT_OUT = {
    "Tensor.register_hook": "takes a function: nothing to compare",
    "Tensor.register_post_accumulate_grad_hook": "takes a function: nothing to compare",
    "torch.vmap": "takes a function: nothing to compare",
    "torch.load": "reads a file", "torch.save": "writes a file", "torch.from_file": "reads a file",
    "torch.set_rng_state": "takes a state", "torch.manual_seed": "sets the process's random state",
    "torch.seed": "sets the process's random state", "torch.set_default_device": "changes the process's default",
    "torch.set_default_dtype": "changes the process's default",
    "torch.set_default_tensor_type": "changes the process's default",
    "torch.set_float32_matmul_precision": "changes the process's default",
    "torch.use_deterministic_algorithms": "changes the process's default",
    "torch.set_deterministic_debug_mode": "changes the process's default",
    "torch.set_num_threads": "changes the process's default",
    "torch.set_num_interop_threads": "changes the process's default", "torch.set_warn_always": "changes the process's default",
    "torch.set_flush_denormal": "changes the process's default",
    "torch.set_printoptions": "changes the process's default",
    "torch.compile": "compiles a model", "torch.from_dlpack": "takes a DLPack capsule",
    "Tensor.cuda": "needs a GPU", "Tensor.pin_memory": "needs a GPU", "Tensor.to_sparse": "sparse (refused here)",
    "Tensor.to_sparse_csr": "sparse", "Tensor.to_sparse_csc": "sparse", "Tensor.to_sparse_bsr": "sparse",
    "Tensor.to_sparse_bsc": "sparse", "Tensor.data_ptr": "a memory address: differs between libraries",
    "Tensor.untyped_storage": "a storage object: nothing to compare", "Tensor.apply_": "takes a function",
    "Tensor.map_": "takes a function", "Tensor.numpy": "a NumPy array: checked elsewhere",
    "linalg.eig": "its results are complex: refused here (README)", "linalg.eigvals": "complex: refused here",
    "Tensor.to_sparse_coo": "sparse: refused here (README)",
    "Tensor.bfloat16": "makes a bfloat16 tensor: refused here (README, tests/test_torch_bfloat16.py)",
    "F.elu_": "takes the native kernel's scale and input_scale (selu's), which only PyTorch's own code passes",
    "torch.get_rng_state": "the random state's bytes differ in layout", "torch.initial_seed": "process state",
}


# ---- PyTorch's signatures ------------------------------------------------------------------

class Param:
    """One parameter as PyTorch's argument parser sees it."""

    def __init__(self, name, kw_only=False, typ=None, has_default=False, default=None, pos_only=False):
        self.name, self.kw_only, self.typ, self.has_default, self.default = name, kw_only, typ, has_default, default
        self.pos_only = pos_only

    def __repr__(self):
        return f"{'*' if self.kw_only else ''}{self.name}{'=' if self.has_default else ''}"


def _python_params(fn, method):
    params = []
    for i, p in enumerate(inspect.signature(fn).parameters.values()):
        if method and i == 0 or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        has = p.default is not p.empty
        params.append(Param(p.name, p.kind is p.KEYWORD_ONLY, None, has, p.default if has else None,
                            p.kind is p.POSITIONAL_ONLY))
    return params


def _python_function(fn):
    """The Python function behind `fn` with a real signature (not `*args, **kwargs`), or None.
    boolean_dispatch (F.max_pool2d, torch.unique) keeps its two functions in its closure."""
    fn = inspect.unwrap(fn)
    if not inspect.isfunction(fn):
        return None
    params = inspect.signature(fn).parameters.values()
    if any(p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params):
        return fn
    for cell in fn.__closure__ or ():
        inner = cell.cell_contents
        if inspect.isfunction(inner) and inner is not fn:
            found = _python_function(inner)
            if found is not None:
                return found
    return None


def _docstring_params(fn, name):
    """The parameters of the signature line a builtin's docstring opens with: `float(memory_format=
    torch.preserve_format) -> Tensor`."""
    m = re.search(rf"^\s*{re.escape(name)}\((.*?)\)\s*->", fn.__doc__ or "", re.M)
    if not m:
        return None
    params, kw_only = [], False
    for part in filter(None, (s.strip() for s in m.group(1).split(","))):
        if part == "*":
            kw_only = True
            continue
        if part.startswith("*"):
            continue  # *args: positional only
        pname, _, default = part.partition("=")
        pname = pname.split(":")[0].strip()
        if pname in ("self", "**kwargs") or not pname.isidentifier():
            continue
        has = bool(default)
        try:
            value = eval(default.strip(), {"torch": torch}) if has else None  # noqa: S307  (PyTorch's own text)
        except Exception:  # noqa: BLE001
            value = _Unrepresentable
        params.append(Param(pname, kw_only, None, has, value))
    return params


class _Unrepresentable:
    """A default only PyTorch has (torch.preserve_format): left out of the call."""


def torch_signatures(ns, name):
    """PyTorch's signatures of `name` in namespace `ns`: (a list of Param lists, from Python?)."""
    owner, _, prefix = NAMESPACES[ns]
    fn = getattr(owner, name)
    method = ns == "Tensor"
    py = _python_function(fn)
    if py is not None:
        return [_python_params(py, method)], True
    sigs = []
    for s in torch._C._jit_get_schemas_for_operator("aten::" + prefix + name):
        args = s.arguments
        if any(a.is_out for a in args) or any("Dimname" in str(a.real_type) for a in args):
            continue
        if not any("Tensor" in str(a.type) for a in args) and not any(a.kwarg_only for a in args):
            continue  # TorchScript's overloads on Python numbers and lists (aten::add.int)
        if method and not any(a.name == "self" and str(a.type) == "Tensor" for a in args):
            continue
        params = []
        for a in args:
            pname, pos_only = a.name, False
            if pname == "self":
                if method:
                    continue
                # a function's Tensor `self` is `input` in PyTorch's Python signature; a number
                # `self` (torch.pow(2, t)) keeps its name, which no program spells: by position
                pname, pos_only = ("input", False) if str(a.type) == "Tensor" else ("self", True)
            params.append(Param(pname, a.kwarg_only, str(a.type), a.has_default_value(),
                                a.default_value if a.has_default_value() else None, pos_only))
        sigs.append(params)
    if not sigs:
        doc = _docstring_params(fn, name)
        if doc is not None:
            return [doc], True
    return sigs, False


# ---- calling -------------------------------------------------------------------------------

def call(ns, lib, name, args, kwargs):
    """`name` of `lib` ("torch" or "minitorch") in namespace `ns`, on fresh inputs."""
    torch_owner, mt_owner, _ = NAMESPACES[ns]
    module = torch if lib == "torch" else minitorch
    args = [make(module, a) for a in args]
    kwargs = {k: make(module, v) for k, v in kwargs.items()}
    # (PyTorch's manual_seed also seeds CUDA's lazily, which costs a stack trace: its CPU generator's alone)
    (torch.default_generator if lib == "torch" else minitorch).manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if ns == "Tensor":
            self, *args = args
            return getattr(self, name)(*args, **kwargs)
        return getattr(torch_owner if lib == "torch" else mt_owner, name)(*args, **kwargs)


def describe(x):
    if isinstance(x, (torch.Tensor, minitorch.Tensor)):
        try:
            arr = x.detach().numpy().copy()
        except (TypeError, RuntimeError):  # a sparse or complex result: PyTorch's own
            return ("other", f"{x.layout} {x.dtype}")
        return ("tensor", tuple(x.shape), str(x.dtype).split(".")[-1], arr)
    if isinstance(x, (tuple, list)):
        return ("seq", [describe(v) for v in x])
    if isinstance(x, (torch.dtype, minitorch.dtype)):
        return ("dtype", str(x).split(".")[-1])
    if isinstance(x, (bool, int, float, str)) or x is None:
        return ("value", x)
    return ("other", type(x).__name__)


def same(e, g, path="result"):
    assert e[0] == g[0], f"{path}: torch gives {e[0]}, minitorch {g[0]}"
    if e[0] == "tensor":
        assert e[1:3] == g[1:3], f"{path}: shape, dtype {g[1:3]} != torch's {e[1:3]}"
        if e[3].dtype.kind == "f":
            np.testing.assert_allclose(g[3], e[3], rtol=1e-4, atol=1e-5, equal_nan=True, err_msg=path)
        else:
            np.testing.assert_array_equal(g[3], e[3], err_msg=path)
    elif e[0] == "seq":
        assert len(e[1]) == len(g[1]), f"{path}: {len(g[1])} items, torch has {len(e[1])}"
        for i, (a, b) in enumerate(zip(e[1], g[1])):
            same(a, b, f"{path}[{i}]")
    elif e[0] == "value" and isinstance(e[1], float) and math.isnan(e[1]):
        assert isinstance(g[1], float) and math.isnan(g[1]), path
    elif e[0] == "value" and isinstance(e[1], float):
        assert g[1] == pytest.approx(e[1], rel=1e-4, abs=1e-6), path
    else:
        assert g == e, f"{path}: {g} != torch's {e}"


def _default(p):
    """The default to pass by keyword; _Unrepresentable for one only PyTorch has (torch.strided)."""
    v = p.default
    if isinstance(v, (bool, int, float, str, type(None))):
        return v
    if isinstance(v, (list, tuple)) and all(isinstance(x, (int, float)) for x in v):
        return tuple(v)
    return _Unrepresentable


class Case:
    """One signature of one function, with a value for each of its parameters."""

    def __init__(self, ns, name, sig, values, given):
        self.ns, self.name, self.sig, self.values, self.given = ns, name, sig, values, given

    @property
    def id(self):
        return f"{self.ns}.{self.name}({', '.join(map(repr, self.sig))})"

    def _self(self):
        return [self.values["__self__"]] if self.ns == "Tensor" else []

    def positional(self):
        """The required arguments by position (keyword-only ones by keyword), and those OVERRIDES
        gives; the rest left out."""
        args, kwargs = self._self(), {}
        for p in self.sig:
            if not p.has_default or p.name in self.given:
                if p.kw_only:
                    kwargs[p.name] = self.values[p.name]
                else:
                    args.append(self.values[p.name])
        return args, kwargs

    def keywords(self):
        """Every argument by keyword (but those PyTorch takes by position only)."""
        args, kwargs = self._self(), {}
        for p in self.sig:
            if self.values[p.name] is _Unrepresentable:
                continue
            if p.pos_only:
                args.append(self.values[p.name])
            else:
                kwargs[p.name] = self.values[p.name]
        return args, kwargs


def build_case(ns, name, sig):
    over = OVERRIDES.get(name, {})
    values = {}
    for p in sig:
        if p.name in over:
            values[p.name] = over[p.name]
        elif p.has_default:
            values[p.name] = _default(p)
        else:
            values[p.name] = derive(p.name, p.typ)
    if ns == "Tensor":
        values["__self__"] = over.get("input", F3)
    return Case(ns, name, sig, values, set(over) & {p.name for p in sig})


def _public(ns):
    torch_owner, mt_owner, _ = NAMESPACES[ns]
    for name in sorted(dir(torch_owner)):
        if name.startswith("_") or not hasattr(mt_owner, name):
            continue
        fn = getattr(torch_owner, name, None)
        if callable(fn) and not inspect.isclass(fn):
            yield name


def _outcome(ns, name, args, kwargs):
    """("ok", result) or ("TypeError", message) or ("error", message): PyTorch's answer to a call."""
    try:
        return "ok", call(ns, "torch", name, args, kwargs)
    except TypeError as e:
        return "TypeError", str(e)
    except Exception as e:  # noqa: BLE001
        return "error", f"{type(e).__name__}: {e}"


@functools.lru_cache(maxsize=None)
def collect():
    """The checks, decided by PyTorch's answers: (accepted, refused, dropped {id: why})."""
    accepted, refused, dropped = [], [], {}
    for ns in NAMESPACES:
        for name in _public(ns):
            if f"{ns}.{name}" in LEFT_OUT:
                continue
            sigs, _ = torch_signatures(ns, name)
            if not sigs:
                dropped[f"{ns}.{name}"] = "no signature found"
            for sig in sigs:
                try:
                    case = build_case(ns, name, sig)
                except Underivable as e:
                    dropped[f"{ns}.{name}{sig}"] = f"no input for {e}"
                    continue
                kind, msg = _outcome(ns, name, *case.positional())
                if kind != "ok":
                    dropped[case.id] = f"PyTorch refuses the derived inputs: {msg}"[:200]
                    continue
                kind, result = _outcome(ns, name, *case.keywords())
                if kind == "ok":
                    accepted.append((case, describe(result)))
                elif kind == "TypeError":
                    refused.append((case, case.keywords(), result))
                else:
                    dropped[case.id] = f"PyTorch refuses the all-keyword call: {result}"[:200]
    return accepted, refused, dropped


# ---- the checks ----------------------------------------------------------------------------

ACCEPTED, REFUSED, DROPPED = collect()


def _mt_function(ns, name):
    return getattr(NAMESPACES[ns][1], name)


def _first_cases():
    seen = {}
    for case, _ in ACCEPTED:
        seen.setdefault((case.ns, case.name), case)
    return list(seen.values())


FIRST = _first_cases()

# PyTorch's parser also takes NumPy's names for these (`torch.sum(x, axis=0, keepdims=True)`)
NUMPY_ALIASES = {"axis": "dim", "keepdims": "keepdim", "x": "input", "a": "input", "x1": "input", "x2": "other"}
# minitorch's names that PyTorch spells otherwise, on purpose
OWN_NAMES_KEPT = {
    "Tensor.uniform_:from_": "`from` is a Python keyword, which no call can spell (`x.uniform_(**{'from': 0})`): "
                             "minitorch names it `from_`, as PyTorch's documentation does",
    "Tensor.mul_:alpha": "mul_ shares add_'s in-place code, alpha= included: a definition of its own would cost a "
                         "call on every in-place multiply (README: Differences from PyTorch)",
    "torch.normal:requires_grad": "normal(mean_tensor, std, requires_grad=False): PyTorch's overloads on tensors "
                                  "take no factory keywords; minitorch refuses requires_grad=True there, not its "
                                  "default spelled out",
}


def _torch_names(ns, name):
    return {p.name for sig in torch_signatures(ns, name)[0] for p in sig}


def _own_names(case):
    """minitorch's parameter names for `case`'s function that no signature of PyTorch's has, each in
    a call that passes it by keyword: [(name, call)] where PyTorch's answer to that call is a
    TypeError. A name starting with `_` is minitorch's private one."""
    try:
        sig = inspect.signature(_mt_function(case.ns, case.name))
    except (TypeError, ValueError):
        return []
    params = list(sig.parameters.values())
    if case.ns == "Tensor" and params and params[0].kind is not params[0].VAR_POSITIONAL:
        params = params[1:]  # self
    sig = sig.replace(parameters=params)
    names = _torch_names(case.ns, case.name)
    args, kwargs = case.positional()
    self_arg, args = (args[:1], args[1:]) if case.ns == "Tensor" else ([], args)
    try:
        bound = sig.bind(*args, **kwargs)
    except TypeError:
        return []
    out = []
    for i, p in enumerate(params):
        if (p.name in names or p.name.startswith("_") or f"{case.ns}.{case.name}:{p.name}" in OWN_NAMES_KEPT
                or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD, p.POSITIONAL_ONLY)):
            continue
        if NUMPY_ALIASES.get(p.name) in names:  # the alias in place of PyTorch's name, at its value
            kargs, kw = case.keywords()
            if NUMPY_ALIASES[p.name] not in kw:
                continue
            kw[p.name] = kw.pop(NUMPY_ALIASES[p.name])
            call_args = (kargs, kw)
        elif p.name in bound.arguments:  # given by position: pass it, and all after it, by keyword
            pos = [bound.arguments[q.name] for q in params[:i] if q.name in bound.arguments]
            kw = {q.name: bound.arguments[q.name] for q in params[i:] if q.name in bound.arguments}
            call_args = (self_arg + pos, kw)
        elif p.default is not p.empty and _default(p) is not _Unrepresentable:
            call_args = (self_arg + list(args), dict(kwargs, **{p.name: _default(p)}))
        else:
            continue
        if _outcome(case.ns, case.name, *call_args)[0] == "TypeError":
            out.append((p.name, call_args))
    return out


def _checks():
    """{"ns.name": [(what, case, call, expected)]}: expected a result, or TypeError."""
    checks = {}
    for case, expected in ACCEPTED:
        checks.setdefault(f"{case.ns}.{case.name}", []).append((case.id, case, case.keywords(), expected))
    for case, call_args, _ in REFUSED:  # every argument by keyword, for an overload whose names PyTorch refuses
        checks.setdefault(f"{case.ns}.{case.name}", []).append((case.id, case, call_args, TypeError))
    for case in FIRST:
        args, kwargs = case.positional()
        made_up = (args, dict(kwargs, not_an_argument=1))
        if _outcome(case.ns, case.name, *made_up)[0] == "TypeError":
            checks[f"{case.ns}.{case.name}"].append(("not_an_argument=1", case, made_up, TypeError))
        for name, call_args in _own_names(case):
            checks[f"{case.ns}.{case.name}"].append((f"minitorch's own {name}=", case, call_args, TypeError))
    return checks


CHECKS = _checks()


def _problem(what, case, call_args, expected):
    """What is wrong with minitorch's answer to this call, or None."""
    try:
        got = call(case.ns, "minitorch", case.name, *call_args)
    except TypeError as e:
        return None if expected is TypeError else f"{what}: refused, where PyTorch accepts it: TypeError: {e}"
    if expected is TypeError:
        return f"{what}: accepted, where PyTorch refuses it with a TypeError"
    got = describe(got)
    try:
        if case.name in UNINITIALISED:
            assert got[:3] == expected[:3]
        else:
            same(expected, got)
    except AssertionError as e:
        return f"{what}: another result than PyTorch's: {e}"
    return None


@pytest.mark.parametrize("function", sorted(CHECKS))
def test_keywords(function):
    """Each signature with every argument by keyword, as PyTorch names it: accepted, with PyTorch's
    result; a keyword PyTorch refuses (made up, or minitorch's own name), refused."""
    problems = [p for check in CHECKS[function] if (p := _problem(*check)) is not None]
    assert not problems, "\n".join(problems)


def test_coverage():
    """The checks cover most of the API (a change in PyTorch's schemas or in the inputs must not
    silently drop them)."""
    assert len(ACCEPTED) > 1300 and len(CHECKS) > 1000, (len(ACCEPTED), len(CHECKS))


if __name__ == "__main__":
    import sys
    acc, ref, drop = collect()
    print(len(acc), "accepted;", len(ref), "refused;", len(drop), "dropped")
    if "-v" in sys.argv:
        for k, v in drop.items():
            print(" ", k, "--", v)
