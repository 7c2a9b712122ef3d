"""The primitive-op machinery: how a built-in op runs, and how it is recorded.

Every built-in op is a `Primitive`: a Function whose `forward(ctx, *inputs)` receives the
input Tensors (or Python scalars) and returns a backend array, and whose `backward` is made
of Tensor ops. `apply` wraps the array into a Tensor and, only when grad mode is on and an
input requires grad, creates the node that records it.
"""
from __future__ import annotations

from .. import _dtype
from .._dtype import _FROM_NP
from ..autograd.function import Function, SavedOutput, accumulator, refresh_view
from ..autograd import anomaly_mode
from ..autograd.anomaly_mode import ANOMALY
from ..autograd.grad_mode import STATE

_Tensor = None  # minitorch.Tensor, bound on first use (importing it at the top would be circular)
_Storage = None
_new = object.__new__


def _ndarray_cls():
    import numpy  # the CPU backend's array type (only to recognise it: nothing computes with it here)
    return numpy.ndarray


_ndarray = _ndarray_cls()


def _tensor_cls():
    # A function-level `from .._tensor import Tensor` costs ~0.5 us per call: too much per op.
    global _Tensor, _Storage
    if _Tensor is None:
        from .._tensor import Tensor, _Storage as storage
        _Tensor, _Storage = Tensor, storage
    return _Tensor


class _NullCtx:
    """The ctx a primitive's forward gets when nothing is recorded: saving is a no-op."""

    needs_input_grad = ()

    def save_for_backward(self, *tensors):
        pass

    def __setattr__(self, name, value):
        pass


NULL_CTX = _NullCtx()


class Primitive(Function):
    saves_output = False  # True when backward uses the result (exp, tanh, sigmoid, ...)
    reads_input_in_backward = True  # False when backward never looks at input 0 (add, sub, neg, ...)
    differentiable = True

    @classmethod
    def apply(cls, *inputs, **kw):
        Tensor = _Tensor or _tensor_cls()
        record = False
        dev = None
        for t in inputs:
            if type(t) is Tensor or isinstance(t, Tensor):
                if dev is None:
                    dev = t._device
                if t._seen_rebases is not None:  # a view: its history may need renewing first
                    refresh_view(t)
                if t._requires_grad:
                    record = True
        if not (record and STATE.enabled and cls.differentiable):
            if kw or len(inputs) != 2:
                return _wrap(Tensor, cls.forward(NULL_CTX, *inputs, **kw), dev)
            a, b = inputs  # binary ops, the commonest case: a plain call is cheaper than *inputs
            return _wrap(Tensor, cls.forward(NULL_CTX, a, b), dev)
        ctx = cls._node_cls()
        edges, metas = _wire(ctx, inputs, Tensor)
        data = cls.forward(ctx, *inputs, **kw)
        out = _wrap(Tensor, data, dev)
        if out._data.dtype.kind == "f":
            out._requires_grad = True
            out.grad_fn = ctx
            ctx.next_functions, ctx._input_meta = edges, metas
            if cls.saves_output:
                ctx._saved_output = SavedOutput(out)
        return out


def _wrap(Tensor, data, dev):
    """A new tensor around a forward's array: Tensor._make, written out for NumPy arrays (the
    commonest result), which saves a call on every op."""
    if data.__class__ is not _ndarray:
        return Tensor._make(data, dev)  # a NumPy scalar from a 0-d op, or another backend's array
    t = _new(Tensor)
    t._data = data
    t._device = dev
    t._storage = _Storage()
    return t


def _wire(ctx, inputs, Tensor):
    """One pass over a recorded op's inputs: which need a gradient (`ctx.needs_input_grad`,
    set now, since forward reads it), and, returned, where each gradient goes (an edge: the
    producing node, or the leaf's AccumulateGrad, or (None, 0) for a Python scalar or a
    tensor without grad, as PyTorch shows them) and what it must look like."""
    needs, edges, metas = [], [], []
    for t in inputs:
        if isinstance(t, Tensor) and t._requires_grad:
            needs.append(True)
            edges.append((t.grad_fn, t._output_nr) if t.grad_fn is not None else
                         (accumulator(t), 0) if not t._no_grad_view else (None, 0))  # a no_grad view leads nowhere
            # the array's shape (a plain tuple) serves the engine as well as t.shape, cheaper
            metas.append((t._data.shape, _FROM_NP[t._data.dtype], t._device))
        else:
            needs.append(False)
            edges.append((None, 0))
            metas.append(None)
    ctx.needs_input_grad = tuple(needs)
    if ANOMALY.enabled:  # remember the forward call, to name it if backward fails
        anomaly_mode.record(ctx)
    return tuple(edges), tuple(metas)


class MultiOutputPrimitive(Primitive):
    """A primitive whose forward returns a tuple of arrays (e.g. max with dim: values, indices)."""

    @classmethod
    def apply(cls, *inputs, **kw):
        Tensor = _Tensor or _tensor_cls()
        dev = next(t._device for t in inputs if isinstance(t, Tensor))
        for t in inputs:
            if isinstance(t, Tensor):
                refresh_view(t)
        record = STATE.enabled and any(isinstance(t, Tensor) and t.requires_grad for t in inputs)
        ctx = cls._node_cls() if record else NULL_CTX
        if record:
            edges, metas = _wire(ctx, inputs, Tensor)
        arrays = cls.forward(ctx, *inputs, **kw)
        outs = tuple(Tensor._make(a, dev) for a in arrays)
        if record:
            ctx._num_outputs = len(outs)
            ctx._output_meta = tuple((o.shape, o.dtype, o._device) for o in outs)
            for i, o in enumerate(outs):
                if o.dtype.is_floating_point:
                    o._requires_grad = True
                    o.grad_fn = ctx
                    o._output_nr = i
            ctx.next_functions, ctx._input_meta = edges, metas
        return outs


__all__ = ["Primitive", "MultiOutputPrimitive", "NULL_CTX"]
