"""matmul with PyTorch's shape rules: 1-D vectors, 2-D matrices, batched N-D stacks."""
from __future__ import annotations

from ..amp import autocast_mode as _amp  # (autocast: the ops that run in float16 / float32)
from .. import parts as _parts
from .._errors import hinted
from . import common
from ._prim import Primitive, mT, unsqueeze


def no_bool_kernel(a, kernel):
    """PyTorch's CPU matrix-product kernels have no bool version (NumPy computes one): its error."""
    if a._data.dtype.kind == "b":
        raise hinted(NotImplementedError, f"\"{kernel}\" not implemented for 'Bool'",
                     "matrix products take numbers: convert with .int() or .float() first")


class Matmul(Primitive):
    _node_name = "MmBackward0"
    pack_order = (1, 0)  # PyTorch saves `mat2` before `self`: saved_tensors_hooks see that order
    array_backward = True  # the formula below also runs on arrays (see _prim.py)

    @classmethod
    def forward(cls, ctx, a, b):
        kernel = cls.kernel(a._data.ndim, b._data.ndim)
        if kernel == "dot" or a._data.size and b._data.size:  # (an empty product never reaches the kernel)
            no_bool_kernel(a, kernel)
        ctx.save_for_backward(a, b)
        x, y = a._data, b._data
        if y.ndim == 2 and x.ndim >= 2 and x.shape[-1] == 1 and y.shape[1] > 1 and x.size > 1 and x.dtype == y.dtype \
                and x.dtype.kind == "f" and x.dtype.itemsize > 2 and _folds(a):
            # a product over one term that PyTorch hands to BLAS's gemm: each element is the one product
            # (-2. * 0. is -0. there), where NumPy's loop adds it to 0.
            return x * y
        return x @ y

    @staticmethod
    def kernel(na, nb):
        """The PyTorch CPU kernel these shapes lead to (named in its dtype errors)."""
        return "dot" if na == nb == 1 else "addmv_impl_cpu" if nb == 1 else "addmm_impl_cpu_" if nb == 2 else "bmm"

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        # Treat a vector as a 1-row (a) or 1-column (b) matrix, so one formula covers all cases;
        # batch dims that were broadcast are summed back by the engine.
        a2 = unsqueeze(a, 0) if a.ndim == 1 else a
        b2 = unsqueeze(b, -1) if b.ndim == 1 else b
        g = grad
        if b.ndim == 1:
            g = unsqueeze(g, -1)
        if a.ndim == 1:
            g = unsqueeze(g, -2)
        if _parts.matmul_backward is not None and a2.ndim == b2.ndim == 2:  # a course part (parts.py)
            ga, gb = _parts.matmul_backward(a2, b2, g, ctx.needs_input_grad)
            return (ga.squeeze(-2) if a.ndim == 1 and ga is not None else ga,
                    gb.squeeze(-1) if b.ndim == 1 and gb is not None else gb)
        ga = gb = None
        if ctx.needs_input_grad[0]:
            ga = g @ mT(b2)  # (mT swaps the last two dims)
            if a.ndim == 1:
                ga = ga.squeeze(-2)
        if ctx.needs_input_grad[1]:
            gb = mT(a2) @ g
            if b.ndim == 1:
                gb = gb.squeeze(-1)
        return ga, gb


class Dot(Matmul):
    _node_name = "DotBackward0"  # vector @ vector


class Mv(Matmul):
    _node_name = "MvBackward0"  # matrix @ vector
    pack_order = None  # (`self`, then `vec`)


class Bmm(Matmul):
    _node_name = "BmmBackward0"


# PyTorch computes a batched matmul as one mm or bmm of folded shapes and shows the last step
# of that as the grad_fn: the names below are those, on the same gradient.
def _folds(a):
    """Whether PyTorch's matmul computes a (a matrix, or a batch it can view as one without a copy)
    times a matrix with one mm (else with bmm)."""
    shape, strides = a._data.shape, a._data.strides
    return all(strides[i] == strides[i + 1] * shape[i + 1] for i in range(a.ndim - 2))


class MatmulFolded(Matmul):
    _node_name = "UnsafeViewBackward0"


class VecMat(Matmul):
    _node_name = "SqueezeBackward4"  # vector @ matrix: a 1-row matrix product, squeezed


class MatBatch(Matmul):
    _node_name = "CloneBackward0"  # matrix @ batch of matrices


def _node_for(na, nb):
    if na == 2 and nb == 2:
        return Matmul
    if nb == 1:
        return Dot if na == 1 else Mv if na == 2 else MatmulFolded
    if na == 1:
        return VecMat if nb == 2 else MatmulFolded
    return MatBatch if na == 2 else MatmulFolded


_CTYPE = {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "long int", "int32": "int",
          "int16": "short int", "int8": "signed char", "uint8": "unsigned char", "bool": "bool"}


def _sizes(a, b):
    return f"{list(a.shape)} @ {list(b.shape)}"


def _shape_error(a, b, op):
    """PyTorch's message for sizes that do not fit, in the shapes it folds the operands to."""
    import math
    sa, sb = a.shape, b.shape
    hint = (f"{op} of {_sizes(a, b)}: the last dim of the first must equal the "
            f"{'first' if b.ndim == 1 else 'second-to-last'} dim of the second; transpose one with .T or .mT?")
    if b.ndim == 1:
        rows = math.prod(sa[:-1])
        return hinted(RuntimeError, f"size mismatch, got input ({rows}), mat ({rows}x{sa[-1]}), vec ({sb[0]})", hint)
    if b.ndim == 2:
        rows = math.prod(sa[:-1]) if a.ndim > 1 else 1
        return hinted(RuntimeError, f"mat1 and mat2 shapes cannot be multiplied ({rows}x{sa[-1]} and "
                      f"{sb[0]}x{sb[1]})", hint)
    batch = math.prod(common.broadcast_shapes(sa[:-2], sb[:-2], op=op))
    return hinted(RuntimeError, f"Expected size for first two dimensions of batch2 tensor to be: [{batch}, "
                  f"{sa[-1]}] but got: [{batch}, {sb[-2]}].", hint)


@_amp.lower_precision
def matmul(input, other, _op="matmul"):
    T = common.tensor_cls()
    if not isinstance(input, T) or not isinstance(other, T):
        bad = other if isinstance(input, T) else input
        raise TypeError(f"{_op}(): argument must be a Tensor, not {type(bad).__name__}")
    sa, sb = input._data.shape, other._data.shape
    if (len(sa) == 2 and len(sb) == 2 and sa[1] == sb[0] and input._device is other._device
            and input._data.dtype is other._data.dtype):
        return Matmul.apply(input, other)  # two matrices that fit: the commonest case needs none of the checks below
    if input.ndim == 0 or other.ndim == 0:
        raise RuntimeError(
            f"both arguments to {_op} need to be at least 1D, but they are {input.ndim}D and {other.ndim}D "
            "(use * to multiply by a scalar)")
    if input.ndim == 1 and other.ndim == 1 or input._device is not other._device:
        _check_pair(input, other, _op)  # (dot checks the dtypes before the sizes; the other kernels after)
    k_a = input.shape[-1]
    k_b = other.shape[-2] if other.ndim > 1 else other.shape[0]
    if input.ndim > 2 or other.ndim > 2:
        common.broadcast_shapes(input.shape[:-2] if input.ndim > 2 else (),
                                other.shape[:-2] if other.ndim > 2 else (), op=_op)
    if k_a != k_b:
        if input.ndim == 1 and other.ndim == 1:
            raise RuntimeError(
                f"inconsistent tensor size, expected tensor [{input.shape[0]}] and src [{other.shape[0]}] to have the "
                "same number of elements, but got {} and {} elements respectively".format(input.shape[0],
                                                                                          other.shape[0]))
        raise _shape_error(input, other, _op)
    input, other = _check_pair(input, other, _op)
    return _node_for(input.ndim, other.ndim).apply(input, other)


def _check_pair(a, b, op):
    if a._device is not b._device:
        common.same_device(op, a, b)  # both are at least 1-D here, so this raises
    if a.dtype is not b.dtype:
        if a.ndim == 1 and b.ndim == 1:
            raise RuntimeError(f"dot : expected both vectors to have same dtype, but found {a.dtype._short} and "
                               f"{b.dtype._short}")
        hint = f"{op} does not promote; convert one, e.g. b.to(a.dtype)"
        # PyTorch's wording is that of the kernel the shapes lead to: bmm, addmv or mm (a batch
        # times a matrix is folded into one mm when it can be viewed so, or the matrix needs a grad)
        if b.ndim > 2 or (a.ndim > 2 and b.ndim == 2 and not (a.is_contiguous() or b.requires_grad)):
            if not (a.numel() and b.numel()):  # PyTorch's bmm of an empty operand checks no dtypes: the
                from ..autograd.grad_mode import STATE  # result's is the second operand's (not recorded on an
                if STATE.enabled and not b.dtype.is_floating_point and (a.requires_grad or b.requires_grad):
                    raise RuntimeError(f"Autograd not support dtype: {b.dtype._short}")  # integer one)
                return a.to(b.dtype), b
            no_bool_kernel(a, "bmm")  # (bmm's kernel is picked, by the first dtype, before its check)
            raise hinted(RuntimeError, f"expected scalar type {a.dtype._short} but found {b.dtype._short}", hint)
        if a.ndim == 2 and b.ndim == 1:
            raise hinted(RuntimeError, f"addmv input tensors must have the same dtype, but got {b.dtype._short}, "
                         f"{a.dtype._short}, and {b.dtype._short}", hint)
        raise hinted(RuntimeError, f"expected m1 and m2 to have the same dtype, but got: {_CTYPE[a.dtype.name]} != "
                     f"{_CTYPE[b.dtype.name]}", hint)
    return a, b


@_amp.lower_precision
def mm(input, mat2):
    if input.ndim != 2 or mat2.ndim != 2:
        raise RuntimeError(f"mm: expected 2D tensors, got {input.ndim}D and {mat2.ndim}D (use matmul for other shapes)")
    return matmul(input, mat2, "mm")


@_amp.lower_precision
def bmm(input, mat2):
    if input.ndim != 3:
        raise RuntimeError(f"batch1 must be a 3D tensor (bmm got {input.ndim}D and {mat2.ndim}D)")
    if mat2.ndim != 3:
        raise RuntimeError(f"batch2 must be a 3D tensor (bmm got {input.ndim}D and {mat2.ndim}D)")
    if input.shape[0] != mat2.shape[0] or input.shape[2] != mat2.shape[1]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{input.shape[0]}, "
                           f"{input.shape[2]}] but got: [{mat2.shape[0]}, {mat2.shape[1]}].")
    input, mat2 = _check_pair(input, mat2, "bmm")
    return Bmm.apply(input, mat2)


def dot(input, tensor):
    if input.ndim != 1 or tensor.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.ndim}D and {tensor.ndim}D tensors")
    return matmul(input, tensor, "dot")


@_amp.lower_precision_gpu
def mv(input, vec):
    if input.ndim == 0:  # (PyTorch sizes its result, a.size(0), before its checks)
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    if input.ndim != 2 or vec.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {input.ndim}, {vec.ndim}")
    return matmul(input, vec, "mv")


def outer(input, vec2):
    for name, t in (("self", input), ("vec2", vec2)):
        if t.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {t.ndim}-D")
    return input.unsqueeze(1) * vec2.unsqueeze(0)
