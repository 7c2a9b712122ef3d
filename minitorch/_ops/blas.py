"""The BLAS-style fused products: beta * input + alpha * (a product of two tensors).

addmm (matrix @ matrix), addmv (matrix @ vector), addr (outer product), baddbmm (batched
matmul) and addbmm (batched matmul summed over the batch). `input` broadcasts to the
product's shape; beta = 0 ignores it entirely (even its NaNs), as in PyTorch.
"""
from __future__ import annotations

from ..amp import autocast_mode as _amp  # (autocast: the ops that run in float16 / float32)
from .._errors import hinted
from . import common
from ._prim import Primitive, mT
from .linalg import no_bool_kernel
from .inplace import check_inplace
from .inplace_prim import write_inplace


def _product(a, b):
    """a @ b; in float for half, whose product and added input PyTorch's CPU kernel sums in float
    and rounds to half once at the end."""
    if a._data.dtype.itemsize == 2 and a._data.dtype.kind == "f":
        return a._data.astype("float32") @ b._data.astype("float32")
    return a._data @ b._data


def _combine(ctx, inp, prod, beta, alpha, dtype=None):
    """beta * inp + alpha * prod, in the result dtype (prod's, unless given)."""
    ctx.beta, ctx.alpha = beta, alpha
    xp = inp._device.xp
    dtype = dtype or prod.dtype
    out = prod if alpha == 1 else prod * alpha
    if beta == 0:
        return out.astype(dtype, copy=False)
    i = inp._data if beta == 1 else inp._data * beta
    return (xp.broadcast_to(i, out.shape) + out).astype(dtype, copy=False)


def _input_grad(ctx, grad):
    if not ctx.needs_input_grad[0]:
        return None
    return grad * ctx.beta if ctx.beta != 1 else grad  # the engine sums it back to input's shape


def _scaled(ctx, g):
    return g * ctx.alpha if ctx.alpha != 1 else g


class Addmm(Primitive):
    _node_name = "AddmmBackward0"
    array_backward = True  # the formula below also runs on arrays (see _prim.py)
    kernel = "addmm_impl_cpu_"  # (PyTorch's kernel, named in its dtype errors)

    @classmethod
    def forward(cls, ctx, inp, a, b, *, beta, alpha):
        if a._data.size and b._data.size:  # (an empty product never reaches the kernel)
            no_bool_kernel(a, cls.kernel)
        need = ctx.needs_input_grad
        if need:  # each matrix's gradient reads only the other one
            ctx.save_for_backward(a if need[2] else None, b if need[1] else None)
        return _combine(ctx, inp, _product(a, b), beta, alpha, a._data.dtype)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        ga = _scaled(ctx, grad @ mT(b)) if ctx.needs_input_grad[1] else None
        gb = _scaled(ctx, mT(a) @ grad) if ctx.needs_input_grad[2] else None
        return _input_grad(ctx, grad), ga, gb


class Baddbmm(Addmm):
    _node_name = "BaddbmmBackward0"  # the same formulas, batched: mT transposes the last two dims
    kernel = "baddbmm"


class Addmv(Primitive):
    _node_name = "AddmvBackward0"

    @staticmethod
    def forward(ctx, inp, m, v, *, beta, alpha):
        if m._data.size and v._data.size:  # (as Addmm's)
            no_bool_kernel(m, "addmv_impl_cpu")
        need = ctx.needs_input_grad
        if need:  # (as Addmm's)
            ctx.save_for_backward(m if need[2] else None, v if need[1] else None)
        return _combine(ctx, inp, _product(m, v), beta, alpha, m._data.dtype)

    @staticmethod
    def backward(ctx, grad):
        m, v = ctx.saved_tensors
        gm = _scaled(ctx, grad.unsqueeze(1) * v.unsqueeze(0)) if ctx.needs_input_grad[1] else None
        gv = _scaled(ctx, m.t() @ grad) if ctx.needs_input_grad[2] else None
        return _input_grad(ctx, grad), gm, gv


class Addr(Primitive):
    _node_name = "AddrBackward0"

    @staticmethod
    def forward(ctx, inp, u, v, *, beta, alpha):
        need = ctx.needs_input_grad
        if need:  # (as Addmm's)
            ctx.save_for_backward(u if need[2] else None, v if need[1] else None)
        return _combine(ctx, inp, u._data[:, None] * v._data[None, :], beta, alpha)

    @staticmethod
    def backward(ctx, grad):
        u, v = ctx.saved_tensors
        gu = _scaled(ctx, grad @ v) if ctx.needs_input_grad[1] else None
        gv = _scaled(ctx, grad.t() @ u) if ctx.needs_input_grad[2] else None
        return _input_grad(ctx, grad), gu, gv


class Addbmm(Primitive):
    _node_name = "AddbmmBackward0"

    @staticmethod
    def forward(ctx, inp, a, b, *, beta, alpha):
        if a._data.size and b._data.size:  # (as Addmm's)
            no_bool_kernel(a, "addmm_impl_cpu_")
        need = ctx.needs_input_grad
        if need:  # (as Addmm's)
            ctx.save_for_backward(a if need[2] else None, b if need[1] else None)
        # (summed in the operands' dtype: NumPy would widen integers)
        return _combine(ctx, inp, (a._data @ b._data).sum(axis=0, dtype=a._data.dtype), beta, alpha)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        g = grad.unsqueeze(0)  # every batch entry gets the same upstream gradient
        ga = _scaled(ctx, g @ b.mT) if ctx.needs_input_grad[1] else None
        gb = _scaled(ctx, a.mT @ g) if ctx.needs_input_grad[2] else None
        return _input_grad(ctx, grad), ga, gb


# ---- public functions -------------------------------------------------------------------

def _same_dtypes(op, inp, a, b):
    """PyTorch's dtype checks of each op, in its order and words (addr promotes instead)."""
    from .linalg import _CTYPE
    hint = f"{op} does not promote: convert them to one dtype, e.g. with .to(input.dtype)"
    if op in ("addmm", "addbmm"):
        if inp.dtype is not b.dtype:
            raise hinted(RuntimeError, f"self and mat2 must have the same dtype, but got {inp.dtype._short} and "
                         f"{b.dtype._short}", hint)
        if a.dtype is not b.dtype:
            raise hinted(RuntimeError, f"mat1 and mat2 must have the same dtype, but got {a.dtype._short} and "
                         f"{b.dtype._short}", hint)
    elif op == "addmv":
        if not inp.dtype is a.dtype is b.dtype:
            raise hinted(RuntimeError, f"addmv input tensors must have the same dtype, but got {inp.dtype._short}, "
                         f"{a.dtype._short}, and {b.dtype._short}", hint)
    elif op == "baddbmm":
        if inp.dtype is not a.dtype:
            raise hinted(RuntimeError, f"Input dtypes must be the same, got: input {_CTYPE[inp.dtype.name]}, batch1: "
                         f"{_CTYPE[a.dtype.name]}, batch2: {_CTYPE[b.dtype.name]}", hint)
        if a.dtype is not b.dtype:
            no_bool_kernel(a, "baddbmm")  # (PyTorch's kernel is picked, by batch1's dtype, before this check)
            raise hinted(RuntimeError, f"expected scalar type {a.dtype._short} but found {b.dtype._short}", hint)


def _check(op, inp, a, b, out_shape, a_name="mat1", b_name="mat2"):
    common.same_device(op, inp, a, b)
    _same_dtypes(op, inp, a, b)
    if inp.shape != tuple(out_shape):
        from .views import expand
        expand(inp.detach(), out_shape)  # PyTorch expands the input to the product's shape: its errors


def _mm_shapes(op, a, b):
    if a.ndim != 2:
        raise RuntimeError(f"mat1 must be a matrix, got {a.ndim}-D tensor")
    if b.ndim != 2:
        raise RuntimeError(f"mat2 must be a matrix, got {b.ndim}-D tensor")
    if a.shape[1] != b.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({a.shape[0]}x{a.shape[1]} and "
                           f"{b.shape[0]}x{b.shape[1]})")


@_amp.lower_precision
def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    _same_dtypes("addmm", input, mat1, mat2)  # (PyTorch checks the dtypes before the shapes)
    _mm_shapes("addmm", mat1, mat2)
    _check("addmm", input, mat1, mat2, (mat1.shape[0], mat2.shape[1]))
    return Addmm.apply(input, mat1, mat2, beta=beta, alpha=alpha)


@_amp.lower_precision_gpu
def addmv(input, mat, vec, *, beta=1, alpha=1):
    if mat.ndim != 2 or vec.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {input.ndim}, {mat.ndim}, {vec.ndim}")
    if mat.shape[1] != vec.shape[0]:
        raise RuntimeError(f"size mismatch, got input ({input.shape[0] if input.ndim else 1}), mat "
                           f"({mat.shape[0]}x{mat.shape[1]}), vec ({vec.shape[0]})")
    _check("addmv", input, mat, vec, (mat.shape[0],), "mat", "vec")
    return Addmv.apply(input, mat, vec, beta=beta, alpha=alpha)


@_amp.lower_precision_gpu
def addr(input, vec1, vec2, *, beta=1, alpha=1):
    if vec1.ndim != 1 or vec2.ndim != 1:
        raise RuntimeError(f"addr: Expected 1-D argument vec1, but got {vec1.ndim}-D" if vec1.ndim != 1 else
                           f"addr: Expected 1-D argument vec2, but got {vec2.ndim}-D")
    _check("addr", input, vec1, vec2, (vec1.shape[0], vec2.shape[0]), "vec1", "vec2")
    dt = common.result_dtype(input, vec1, vec2)  # (addr, unlike the matrix products, promotes)
    input, vec1, vec2 = (t if t.dtype is dt else t.to(dt) for t in (input, vec1, vec2))
    return Addr.apply(input, vec1, vec2, beta=beta, alpha=alpha)


def _bmm_shapes(a, b):
    if a.ndim != 3 or b.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor" if a.ndim != 3 else "batch2 must be a 3D tensor")
    if a.shape[0] != b.shape[0] or a.shape[2] != b.shape[1]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{a.shape[0]}, "
                           f"{a.shape[2]}] but got: [{b.shape[0]}, {b.shape[1]}].")


def _size(t, d):
    """t.size(d), with PyTorch's IndexError for a dim t does not have."""
    if t.ndim == 0:
        raise IndexError(f"Dimension specified as {d} but tensor has no dimensions")
    return t.shape[common.wrap_dim(d, t.ndim)]


@_amp.lower_precision
def baddbmm(input, batch1, batch2, *, beta=1, alpha=1):
    _size(batch1, 0), _size(batch1, 1), _size(batch2, 2)  # (PyTorch sizes its result before its checks)
    _bmm_shapes(batch1, batch2)
    _check("baddbmm", input, batch1, batch2, (batch1.shape[0], batch1.shape[1], batch2.shape[2]), "batch1", "batch2")
    return Baddbmm.apply(input, batch1, batch2, beta=beta, alpha=alpha)


@_amp.lower_precision
def addbmm(input, batch1, batch2, *, beta=1, alpha=1):
    _size(batch1, 1), _size(batch2, 2)  # (as baddbmm)
    _bmm_shapes(batch1, batch2)
    _check("addbmm", input, batch1, batch2, (batch1.shape[1], batch2.shape[2]), "batch1", "batch2")
    return Addbmm.apply(input, batch1, batch2, beta=beta, alpha=alpha)


# ---- in-place: input += the product, recorded as the fused op (AddmmBackward0, ...) --------

def _inplace(self, cls, check, op, a, b, beta, alpha):
    check_inplace(self, op)  # (autograd's check first, as in PyTorch)
    out = check(self.detach(), a.detach(), b.detach(), beta=beta, alpha=alpha)  # the argument checks
    return write_inplace(self, cls, (a, b), {"beta": beta, "alpha": alpha}, op, (out.dtype, out.shape))


def addmm_(self, mat1, mat2, *, beta=1, alpha=1):
    return _inplace(self, Addmm, addmm, "addmm_", mat1, mat2, beta, alpha)


def addmv_(self, mat, vec, *, beta=1, alpha=1):
    return _inplace(self, Addmv, addmv, "addmv_", mat, vec, beta, alpha)


def addr_(self, vec1, vec2, *, beta=1, alpha=1):
    return _inplace(self, Addr, addr, "addr_", vec1, vec2, beta, alpha)


def baddbmm_(self, batch1, batch2, *, beta=1, alpha=1):
    return _inplace(self, Baddbmm, baddbmm, "baddbmm_", batch1, batch2, beta, alpha)


def addbmm_(self, batch1, batch2, *, beta=1, alpha=1):
    return _inplace(self, Addbmm, addbmm, "addbmm_", batch1, batch2, beta, alpha)
