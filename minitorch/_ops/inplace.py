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
from .._errors import hinted
from ..autograd.function import Node, SavedOutput, edge, refresh_view
from ..autograd.grad_mode import STATE
from . import common
from ._prim import IN_PLACE


def check_inplace(t, op):
    """PyTorch's checks before an in-place op is recorded, in its order (check_inplace)."""
    if not STATE.enabled:
        return
    base = t._base
    if not t._requires_grad:  # nothing recorded, nothing to protect; but a view taken before its base
        if t._seen_version is not None and base._requires_grad:  # required grad requires grad now
            _late_view_error(t, op)
        return
    if t._multi_view is not None and t._multi_view is not False:
        name = t._grad_fn.name() if t._grad_fn is not None else "a multi-output view"
        raise RuntimeError(
            f"Output {t._output_nr} of {name.rstrip('0123456789').removesuffix('Backward')} is a view and is being "
            "modified inplace. This view is the output of a function that returns multiple views. Such functions "
            "do not allow the output views to be modified inplace. You should replace the inplace operation by an "
            f"out-of-place one. ({op}: modify a .clone() of it instead)")
    if t._no_grad_view and base is not None and base._requires_grad:
        _no_grad_view_error(t, op)
    # a view made by a view op (not a detach() alias) whose memory belongs to a leaf, even one that
    # does not require grad itself (`leaf.expand(3).requires_grad_()`): the write could not be recorded
    # on the leaf's history
    if t._seen_version is not None and base._grad_fn is None:
        raise hinted(RuntimeError,
                     "a view of a leaf Variable that requires grad is being used in an in-place operation.",
                     f"{op}: modify a .clone() of the leaf instead, or do it under `with minitorch.no_grad():`")
    if t._grad_fn is None and not t._no_grad_view:
        raise hinted(RuntimeError, "a leaf Variable that requires grad is being used in an in-place operation.",
                     f"{op} on a tensor of shape {list(t.shape)}: wrap the update in `with minitorch.no_grad():`, "
                     "as optimizers do, or use the out-of-place form")


def _late_view_error(t, op):
    """An in-place op on a view taken (in grad mode) while its base did not require grad, which it
    does now: PyTorch's errors, by how the view was made."""
    if t._no_grad_view:
        _no_grad_view_error(t, op)
    if t._multi_view is False:  # (an output of split / unbind)
        _late_multi_view_error(op)
    raise hinted(RuntimeError, "a view of a leaf Variable that requires grad is being used in an in-place operation.",
                 f"{op}: modify a .clone() of the leaf instead, or do it under `with minitorch.no_grad():`")


def _late_multi_view_error(op):
    raise hinted(RuntimeError,
                 "A view was created in no_grad mode and is being modified inplace with grad mode enabled. This view "
                 "is the output of a function that returns multiple views. Such functions do not allow the output "
                 "views to be modified inplace. You should replace the inplace operation by an out-of-place one.",
                 f"{op}: modify a .clone() of it instead")


def _no_grad_view_error(t, op):
    raise RuntimeError(
        "A view was created in no_grad mode and is being modified inplace with grad mode enabled. Given that "
        "this use case is ambiguous and error-prone, it is forbidden. You can clarify your code by moving both "
        "the view and the inplace either both inside the no_grad block (if you don't want the inplace to be "
        f"tracked) or both outside (if you want the inplace to be tracked). ({op} on a view of shape "
        f"{list(t.shape)})")


def check_overlap(t, op):
    """An op writing every element may not write through an expanded tensor (several elements, one
    memory location): PyTorch refuses, except for fill_ and zero_, which write one value anyway."""
    arr = t._data
    if arr.size <= 1:
        return
    for n, s in zip(arr.shape, arr.strides):
        if s == 0 and n > 1:
            raise hinted(RuntimeError,
                         "unsupported operation: more than one element of the written-to tensor refers to a single "
                         "memory location. Please clone() the tensor before performing the operation.",
                         f"{op} on an expanded tensor of shape {list(t.shape)} and stride {list(t.stride())}")


def check_partial_overlap(t, others):
    """An input that shares some, but not all, of the memory an op writes would be read half
    overwritten: PyTorch refuses it (both dense; the same tensor, or one laid out the same, is fine)."""
    T = common.tensor_cls()
    for o in others:
        if isinstance(o, T) and o is not t and o._storage is t._storage and partial_overlap(t._data, o._data):
            raise partial_overlap_error()


def partial_overlap_error():
    return RuntimeError("unsupported operation: some elements of the input tensor and the written-to tensor refer to "
                        "a single memory location. Please clone() the tensor before performing the operation.")


def partial_overlap(a, b):
    """Whether arrays a and b (of one memory) share some elements but are not the same layout."""
    from .views import data_ptr
    if not (a.size and b.size and _dense(a) and _dense(b)):  # (else PyTorch does not check)
        return False
    a0, b0 = data_ptr(a), data_ptr(b)
    a1, b1 = a0 + a.nbytes, b0 + b.nbytes
    if (a0, a1) == (b0, b1):
        return a.strides != b.strides  # (compared as they are, as PyTorch's, size-1 dims too)
    return a0 < b1 and b0 < a1


def _dense(arr):
    """Its elements fill a block of memory without gaps or repeats, in some order of its dims."""
    expected = arr.itemsize
    for s, n in sorted((s, n) for n, s in zip(arr.shape, arr.strides) if n != 1):
        if s != expected:
            return False
        expected *= n
    return True


def iter_checks(t, op, *others):
    """PyTorch's first checks of an in-place elementwise op (its TensorIterator's), before any on
    the dtypes: t may not be expanded, and the operands' broadcast shape must be t's."""
    if not t._data.flags.c_contiguous:
        check_overlap(t, op)
    T = common.tensor_cls()
    shapes = [o.shape for o in others if isinstance(o, T) and o.shape != t.shape]
    if shapes:
        shape = common.broadcast_shapes(t.shape, *shapes, op=op)
        if tuple(shape) != tuple(t.shape):
            check_result(t, t.dtype, shape, op)


def check_result(t, result_dtype, result_shape, op, *, cpp_name=False):
    """An in-place op's result must fit its tensor: a dtype it can be cast to, the same shape.
    (`cpp_name`: PyTorch names the tensor's dtype as C++ does, "long int", for a Python-number bound.)"""
    if not _dtype.can_cast(result_dtype, t.dtype):
        want = _dtype.CPP_NAME[t.dtype.name] if cpp_name else t.dtype._short
        raise hinted(RuntimeError, f"result type {result_dtype._short} can't be cast to the desired output type {want}",
                     f"{op} writes into a {t.dtype} tensor; convert it first, e.g. t = t.float()")
    if tuple(result_shape) != tuple(t.shape):
        raise hinted(RuntimeError,
                     f"output with shape {list(t.shape)} doesn't match the broadcast shape {list(result_shape)}",
                     f"{op} can't grow the tensor it writes into")


def run_inplace(self, cls, others, kw, fast, op, *, overlap_ok=False, value_arg=False):
    """Run primitive `cls` on (self, *others) and write the result into self.

    `fast()` does the write without recording (a NumPy ufunc with out=, usually). `overlap_ok`:
    the op may write into an expanded tensor (fill_, zero_, an indexed write). `value_arg`: the
    other tensor is read once, as a number (fill_, masked_fill_), so it may share self's memory.
    """
    if STATE.dual:  # forward-mode AD: self's tangent follows the write (autograd/forward_ad.py)
        from ..autograd import forward_ad
        return forward_ad.dual_inplace(self, cls, others, kw, lambda: run_inplace(
            self, cls, others, kw, fast, op, overlap_ok=overlap_ok, value_arg=value_arg))
    check_inplace(self, op)
    if STATE.enabled:  # (the write's record reads self's history: a view's may need renewing first)
        refresh_view(self)
    if not overlap_ok and not self._data.flags.c_contiguous:  # row-major memory never overlaps itself
        check_overlap(self, op)
    if others and not value_arg:
        check_partial_overlap(self, others)
    T = common.tensor_cls()
    record = STATE.enabled and cls.differentiable and (
        self._requires_grad or any(isinstance(o, T) and o._requires_grad for o in others))
    if self._no_grad_view and STATE.enabled and record:
        _no_grad_view_error(self, op)
    if self._multi_view is False and record:  # (an output of split / unbind made while nothing required grad)
        _late_multi_view_error(op)
    if not record:
        try:
            fast()
        except ValueError:  # (as in Primitive.apply: PyTorch's error when the shapes do not broadcast)
            common.refuse_unbroadcastable(op, self, *others)
            raise
        self._storage.version += 1
        return self
    # Backward formulas that read the input need its value from *before* the write: give the
    # recorded op a copy (PyTorch's "original self"); ops that don't read it skip the copy.
    src = original(self) if cls.reads_input_in_backward else self
    IN_PLACE[0] = True  # (an integer self that requires grad is recorded on, as in PyTorch)
    try:
        result = cls.apply(src, *others, **kw)
    finally:
        IN_PLACE[0] = False
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


def original(t):
    """t's values as they are before an in-place write, with t's history: what the op's record
    reads in backward (PyTorch's "original self"). The record's edge is then t's producer, as in
    PyTorch, rather than a CloneBackward0."""
    alias = common.tensor_cls()._make(t._data.copy(), t._device)
    alias._requires_grad, alias._grad_fn, alias._output_nr = t._requires_grad, t.grad_fn, t._output_nr
    return alias


def write_result(self, out, op):
    """`self.op_()` for an op composed of others: `out` is its out-of-place result, computed from a
    copy of self. Write it in, and make the op's own record (Log1PBackward0, HypotBackward0, ...)
    self's history, as run_inplace does for a primitive, rather than a copy's."""
    check_inplace(self, op)
    if STATE.enabled:
        refresh_view(self)
    if not self._data.flags.c_contiguous:
        check_overlap(self, op)
    check_result(self, out.dtype, out.shape, op)
    node = out.grad_fn if STATE.enabled else None
    if self._no_grad_view and node is not None:
        _no_grad_view_error(self, op)
    if self._multi_view is False and node is not None:
        _late_multi_view_error(op)
    self._data[...] = out._data
    self._storage.version += 1
    if node is not None:
        _rebase(self, node)
        if "_saved_output" in node.__dict__:
            node._saved_output = SavedOutput(self)  # as run_inplace: a later write into self is caught
    if STATE.dual:  # forward-mode AD: self takes the result's tangent (autograd/forward_ad.py)
        from ..autograd import forward_ad
        forward_ad.take_tangent(self, out)
    return self


def write_unrecorded(self, out, op):
    """The in-place logical ops: PyTorch records nothing for them (not even on a leaf that requires
    grad), so the values change, the version moves, and the history stays as it was."""
    if not self._data.flags.c_contiguous:
        check_overlap(self, op)
    check_result(self, self.dtype, out.shape, op)
    self._data[...] = out._data
    self._storage.version += 1  # (the views of this memory renew their grad_fn when it is next read)
    return self


def _rebase(t, node):
    """Make `node` (the in-place op's record) the new history of `t`."""
    # (Views of this memory taken before now still carry the old history: the version counter,
    # bumped by the write, makes each renew its grad_fn when it is next read: refresh_view.)
    if node is None:
        return
    if t._base is None:
        old = t._grad_fn, t._output_nr
        t._requires_grad = True
        t._grad_fn = node
        t._output_nr = 0
        _follow_retain(t, *old)
        return
    base = t._base
    slices = CopySlices(base, t, node)
    old = base._grad_fn, base._output_nr
    base._requires_grad = True
    base._grad_fn = slices
    base._output_nr = 0
    _follow_retain(base, *old)
    # the view's own history becomes "a strided view of the new base"
    as_view_of_new_base(t, base)


def as_view_of_new_base(v, base):
    from .views import as_strided
    IN_PLACE[0] = True  # (PyTorch renews even an integer view's history)
    try:
        fresh = as_strided(base, v.shape, v.stride(), v.storage_offset())
    finally:
        IN_PLACE[0] = False
    old = v._grad_fn, v._output_nr
    v._requires_grad = True
    v._grad_fn = fresh._grad_fn
    v._output_nr = 0
    v._seen_version = base._storage.version
    _follow_retain(v, *old)


def _follow_retain(t, old_fn, old_nr):
    """retain_grad() follows the tensor to its new history: its .grad is then the gradient of its
    newest value, as in PyTorch."""
    if t._retains_grad:
        if old_fn is not None and old_fn._retain:
            old_fn._retain.pop(old_nr, None)
        t._retains_grad = False
        t.retain_grad()


class CopySlices(Node):
    """The base's node after an in-place op on one of its views: the gradient of the base is
    passed through, except in the view's region, where the op's own backward decides."""

    def __init__(self, base, view, fn):
        self.fn = fn
        self.size, self.stride, self.offset = view.shape, view.stride(), view.storage_offset()
        self.base_shape, self.base_stride = base.shape, base.stride()
        old = (base.grad_fn, base._output_nr) if base.grad_fn is not None else edge(base) if base.requires_grad else (None, 0)
        self.next_functions = (old,) + fn.next_functions[1:]
        self.needs_input_grad = (old[0] is not None,) + fn.needs_input_grad[1:]
        self._output_meta = ((base.shape, base.dtype, base._device),)

    def _release(self):
        self.fn._release()
        self._freed = True

    def _apply(self, grads):
        from .index import Index, IndexPutInto
        from .views import storage_index
        if self._freed:  # (PyTorch's CopySlices lets go of the op's node after a backward)
            from ..autograd.function import freed_error
            raise freed_error()
        T = common.tensor_cls()
        (grad,) = grads
        xp = grad._device.xp
        # Which element of the base (in row-major order) sits at each element of the view:
        # invert the base's storage positions, then look the view's positions up.
        base_pos = storage_index(self.base_shape, self.base_stride, 0, xp).reshape(-1)
        inv = xp.zeros(int(base_pos.max()) + 1 if base_pos.size else 0, dtype=xp.int64)
        inv[base_pos] = xp.arange(base_pos.size)
        at = (inv[storage_index(self.size, self.stride, self.offset, xp)],)
        # The view's region gets what the op's backward says; the rest of the base passes
        # through. Recorded ops only, so a second derivative goes through too.
        flat = grad.reshape(-1)
        in_grads = self.fn._apply([Index.apply(flat, key=at)])
        keep = xp.ones(base_pos.size, dtype=grad._data.dtype)
        keep[at] = 0
        res = flat * T._make(keep, grad._device)
        if in_grads[0] is not None:
            res = res + IndexPutInto.apply(in_grads[0], key=at, shape=(base_pos.size,), accumulate=False)
        return (res.reshape(self.base_shape),) + tuple(in_grads[1:])

    def name(self):
        return "torch::autograd::CopySlices"  # PyTorch's C++ name; repr shows the class, CopySlices


CopySlices.__name__ = "CopySlices"
