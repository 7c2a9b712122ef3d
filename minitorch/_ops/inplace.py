"""In-place operations (the methods ending in `_`), and how autograd stays correct with them.

An in-place op writes into the tensor's own memory, so every view of that memory sees the
change, and it bumps the version counter shared by all those views. Autograd needs three
rules (PyTorch's):
1. a leaf that requires grad may not be modified in place (its .grad would describe a value
   that no longer exists);
2. a tensor saved for backward must not change before backward runs: saved tensors
   remember their version, and the engine refuses a mismatch;
3. otherwise the op is recorded like its out-of-place twin, and the tensor's history is
   rebased onto the new node. When the tensor is a view, the node is recorded on its base
   instead (CopySlices), so the base's gradient is right too.
"""
from __future__ import annotations

from .. import _dtype
from ..autograd.function import Node, SavedOutput, edge
from ..autograd.grad_mode import STATE
from . import common


def check_inplace(t, op):
    if STATE.enabled and t.requires_grad and t.grad_fn is None:
        raise RuntimeError(
            "a leaf Variable that requires grad is being used in an in-place operation. "
            f"({op} on a tensor of shape {list(t.shape)}: wrap the update in `with minitorch.no_grad():`, "
            "as optimizers do, or use the out-of-place form)")
    base = t._base
    # only a view that is itself in the graph counts: detach() aliases share memory but not history
    if STATE.enabled and base is not None and t.requires_grad and base.requires_grad and base.grad_fn is None:
        raise RuntimeError(
            "a view of a leaf Variable that requires grad is being used in an in-place operation. "
            f"({op}: modify a .clone() of the leaf instead, or do it under `with minitorch.no_grad():`)")
    arr = t._data
    for n, s in zip(arr.shape, arr.strides):
        if s == 0 and n > 1:
            raise RuntimeError(
                "unsupported operation: more than one element of the written-to tensor refers to a single "
                f"memory location. Please clone() the tensor before performing the operation. ({op} on an "
                f"expanded tensor of shape {list(t.shape)} and stride {list(t.stride())})")


def check_result(t, result_dtype, result_shape, op):
    if not _dtype.can_cast(result_dtype, t.dtype):
        raise RuntimeError(
            f"result type {result_dtype._short if result_dtype._short != 'Half' else 'Half'} can't be cast to the "
            f"desired output type {t.dtype._short} ({op} writes into a {t.dtype} tensor; convert it first, "
            f"e.g. t = t.float())")
    if tuple(result_shape) != tuple(t.shape):
        raise RuntimeError(
            f"output with shape {list(t.shape)} doesn't match the broadcast shape {list(result_shape)} "
            f"({op} can't grow the tensor it writes into)")


def run_inplace(self, cls, others, kw, fast, op):
    """Run primitive `cls` on (self, *others) and write the result into self.

    `fast()` does the write without recording (a NumPy ufunc with out=, usually).
    """
    check_inplace(self, op)
    T = common.tensor_cls()
    record = STATE.enabled and cls.differentiable and (
        self.requires_grad or any(isinstance(o, T) and o.requires_grad for o in others))
    if not record:
        fast()
        self._storage.version += 1
        return self
    # Backward formulas that read the input need its value from *before* the write: give the
    # recorded op a copy (PyTorch's "original self"); ops that don't read it skip the copy.
    src = self.clone() if cls.reads_input_in_backward else self
    result = cls.apply(src, *others, **kw)
    if result.shape != self.shape:
        check_result(self, result.dtype, result.shape, op)
    self._data[...] = result._data
    self._storage.version += 1
    _rebase(self, result.grad_fn)
    if cls.saves_output:
        # The output the backward needs now lives in self (exp_, sigmoid_, ...): save that, so that
        # a later in-place change of self is caught, as in PyTorch, instead of keeping a hidden copy.
        result.grad_fn._saved_output = SavedOutput(self)
    return self


def _rebase(t, node):
    """Make `node` (the in-place op's record) the new history of `t`."""
    if node is None:
        return
    if t._base is None:
        t.requires_grad = True
        t.grad_fn = node
        t._output_nr = 0
        return
    base = t._base
    slices = CopySlices(base, t, node)
    base.requires_grad = True
    base.grad_fn = slices
    base._output_nr = 0
    # the view's own history becomes "a strided view of the new base"
    from .views import as_strided
    fresh = as_strided(base, t.shape, t.stride(), t.storage_offset())
    t.requires_grad = True
    t.grad_fn = fresh.grad_fn
    t._output_nr = 0


class CopySlices(Node):
    """The base's node after an in-place op on one of its views: the gradient of the base is
    passed through, except in the view's region, where the op's own backward decides."""

    def __init__(self, base, view, fn):
        super().__init__()
        self.fn = fn
        self.size, self.stride, self.offset = view.shape, view.stride(), view.storage_offset()
        self.base_shape, self.base_stride = base.shape, base.stride()
        old = (base.grad_fn, base._output_nr) if base.grad_fn is not None else edge(base) if base.requires_grad else (None, 0)
        self.next_functions = (old,) + fn.next_functions[1:]
        self._input_meta = ((base.shape, base.dtype, base._device),) + fn._input_meta[1:]

    def _release(self):
        self.fn._release()
        self._freed = True

    def _apply(self, grads):
        from .views import _as_strided
        T = common.tensor_cls()
        (grad,) = grads
        xp = grad._device.xp
        # a gradient buffer laid out exactly like the base, so the view's geometry applies
        res = xp.empty_like(grad._data)
        res[...] = grad._data
        if res.strides != tuple(s * res.itemsize for s in self.base_stride):
            res = xp.lib.stride_tricks.as_strided(xp.empty(res.size, res.dtype), self.base_shape,
                                                  tuple(s * res.itemsize for s in self.base_stride))
            res[...] = grad._data
        flat = res.reshape(-1, order="A")
        item = res.itemsize
        region = _as_strided(xp, flat[self.offset:], self.size, tuple(s * item for s in self.stride))
        g_view = T._make(region.copy(), grad._device)
        in_grads = self.fn._apply([g_view])
        g_self = in_grads[0]
        region[...] = 0 if g_self is None else g_self._data
        return (T._make(res, grad._device),) + tuple(in_grads[1:])

    def name(self):
        return "CopySlices"


CopySlices.__name__ = "CopySlices"
