"""The primitive-op machinery: how a built-in op runs, and how it is recorded.

Every built-in op is a `Primitive`: a Function whose `forward(ctx, *inputs)` receives the
input Tensors (or Python scalars) and returns a backend array, and whose `backward` is made
of Tensor ops (or, with `array_backward`, of operators and the helpers at the end of this
file, so that it runs on arrays as well). `apply` wraps the array into a Tensor and, only
when grad mode is on and an input requires grad, creates the node that records it.
"""
from __future__ import annotations

from .. import _dtype
from .._dtype import _FROM_NP
from ..autograd.function import UNPACK, Function, SavedOutput, accumulator, refresh_view, shared
from ..autograd import anomaly_mode, forward_ad
from ..autograd.anomaly_mode import ANOMALY
from ..autograd.grad_mode import STATE

_Tensor = None  # minitorch.Tensor, bound on first use (importing it at the top would be circular)
IN_PLACE = [False]  # True while an in-place write records: PyTorch records it even on an integer result


def _tensor_cls():
    # A function-level `from .._tensor import Tensor` costs ~0.5 us per call: too much per op.
    global _Tensor
    if _Tensor is None:
        from .._tensor import Tensor
        _Tensor = Tensor
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
    _python_node = False  # a built-in op: its node prints as PyTorch's C++ nodes do (<MulBackward0 object at ...>)
    saves_output = False  # True when backward uses the result (exp, tanh, sigmoid, ...)
    reads_input_in_backward = True  # False when backward never looks at input 0 (add, sub, neg, ...)
    differentiable = True
    records_any_dtype = False  # True when even an integer result is recorded (PyTorch's in-place comparisons)
    int_result_error = True  # False: an integer result of an input that requires grad is simply not recorded

    @classmethod
    def apply(cls, *inputs, **kw):
        if STATE.dual:  # forward-mode AD: the op, then its output's tangent (autograd/forward_ad.py)
            return forward_ad.dual_apply(cls, inputs, kw)
        Tensor = _Tensor or _tensor_cls()
        record = False
        dev = None
        reads_grad_fn = STATE.enabled and cls.differentiable
        for t in inputs:
            if type(t) is Tensor or isinstance(t, Tensor):
                if dev is None:
                    dev = t._device
                if t._seen_version is not None and reads_grad_fn:  # a view: a recording op reads its
                    refresh_view(t)  # grad_fn, which may need renewing first
                # (or a view taken before its base required grad, which it does now: its gradient
                # goes nowhere, as in PyTorch)
                if t._requires_grad or t._seen_version is not None and t._base._requires_grad:
                    record = True
        try:
            if not (record and STATE.enabled and cls.differentiable):
                return Tensor._make(cls.forward(NULL_CTX, *inputs, **kw), dev)
            ctx = cls._node_cls()
            _wire(ctx, inputs, Tensor)
            arr = cls.forward(ctx, *inputs, **kw)
        except ValueError:  # NumPy could not broadcast the operands: PyTorch's error, not NumPy's
            from .common import refuse_unbroadcastable
            refuse_unbroadcastable(cls.__name__.lower(), *inputs)
            raise
        out = Tensor._make(arr, dev)
        if arr.dtype.kind == "f" or cls.records_any_dtype or IN_PLACE[0]:
            out._requires_grad = True
            out._grad_fn = ctx
            ctx._output_meta = _output_meta(ctx, out._data, dev)
            if cls.saves_output:
                ctx._saved_output = SavedOutput(out)
        elif cls.int_result_error and any(isinstance(t, Tensor) and t._requires_grad and t._data.dtype.kind != "f"
                                          for t in inputs):
            # (an integer tensor that requires grad, an in-place comparison's result: PyTorch refuses to record on)
            raise RuntimeError(f"Autograd not support dtype: {out.dtype._short}")
        return out


def _wire(ctx, inputs, Tensor):
    """Record, before forward runs, where each input's gradient goes (`ctx.next_functions`: the
    producing node, or the leaf's AccumulateGrad, or nowhere (None, 0) for a Python scalar or a
    tensor without grad, as PyTorch shows them) and which inputs need one (forward reads
    `ctx.needs_input_grad` to save only what backward will use)."""
    nodes, key = [], []  # key: per input, the output number its gradient goes to, or -1 for none
    for t in inputs:
        if (type(t) is Tensor or isinstance(t, Tensor)) and t._requires_grad:
            node = t._grad_fn
            if node is None and not t._no_grad_view:  # a leaf (a no_grad view leads nowhere)
                node = t._accum or accumulator(t)
            nodes.append(node)
            key.append(t._output_nr)
        else:
            nodes.append(None)
            key.append(-1)
    ctx._next = tuple(nodes)
    key = tuple(key)
    ctx._next_nr, ctx.needs_input_grad = _WIRINGS.get(key) or _wiring(key)
    if ANOMALY.enabled:  # remember the forward call, to name it if backward fails
        anomaly_mode.record(ctx)


_WIRINGS = {}  # key -> (output numbers, needs_input_grad): a handful of distinct ones, shared by all nodes


def _wiring(key):
    value = (shared(tuple(max(nr, 0) for nr in key)), shared(tuple(nr >= 0 for nr in key)))
    if len(key) <= 8:
        _WIRINGS[key] = value
    return value


def _output_meta(ctx, arr, dev):
    """The node's `_output_meta`, ((shape, dtype, device),). Most ops keep their first input's
    shape and dtype: then the tuple that input's producer holds is shared, not built again, so
    a long elementwise chain allocates no metadata per op (fewer objects for the garbage
    collector to walk: the cost per op stays flat as the graph grows)."""
    fn = ctx._next[0] if ctx._next else None
    if fn is not None:
        metas = fn._output_meta
        if len(metas) == 1 and metas[0] is not None:  # (None: a custom Function's non-tensor output)
            shape, dtype, device = metas[0]
            if dtype.np is arr.dtype and device is dev and shape == arr.shape:
                return metas
    return ((arr.shape, _FROM_NP[arr.dtype], dev),)


class MultiOutputPrimitive(Primitive):
    """A primitive whose forward returns a tuple of arrays (e.g. max with dim: values, indices)."""
    saved_outputs = ()  # the outputs backward reads (max's indices): an in-place change of one is refused there

    @classmethod
    def apply(cls, *inputs, **kw):
        if STATE.dual:  # (as in Primitive.apply)
            return forward_ad.dual_apply(cls, inputs, kw)
        Tensor = _Tensor or _tensor_cls()
        dev = next(t._device for t in inputs if isinstance(t, Tensor))
        if STATE.enabled:  # (only a recording op reads its inputs' grad_fn)
            for t in inputs:
                if isinstance(t, Tensor):
                    refresh_view(t)
        record = STATE.enabled and any(isinstance(t, Tensor) and t.requires_grad for t in inputs)
        ctx = cls._node_cls() if record else NULL_CTX
        if record:
            _wire(ctx, inputs, Tensor)
        try:
            arrays = cls.forward(ctx, *inputs, **kw)
        except ValueError:  # (as in Primitive.apply)
            from .common import refuse_unbroadcastable
            refuse_unbroadcastable(cls.__name__.lower(), *inputs)
            raise
        outs = tuple(Tensor._make(a, dev) for a in arrays)
        if record:
            ctx._num_outputs = len(outs)
            ctx._output_meta = tuple((o._data.shape, o.dtype, dev) for o in outs)
            for i, o in enumerate(outs):
                if o.dtype.is_floating_point:
                    o._requires_grad = True
                    o._grad_fn = ctx
                    o._output_nr = i
            if cls.saved_outputs:
                ctx._saved_outs = tuple(_saved_output(outs[i], i) for i in cls.saved_outputs)
        return outs


def _saved_output(t, i):
    kept = SavedOutput(t)
    kept.output_nr = i if t._grad_fn is not None else None  # (PyTorch's error names no node for indices)
    return kept


def check_saved_outputs(ctx):
    """PyTorch's error, in backward, when an output it reads (saved_outputs) was modified in place
    since: its version moved."""
    if ctx._freed:  # (after the graph was freed: a second backward)
        from ..autograd.function import freed_error
        raise freed_error()
    for kept in ctx.__dict__.get("_saved_outs", ()):
        kept.unpack(ctx)


# ---- what backward formulas are written with ---------------------------------------------
# A primitive with `array_backward = True` has one backward formula for two callers: the
# engine hands it Tensors when the backward is recorded (create_graph=True) or watched (hooks,
# anomaly mode), and backend arrays otherwise (the common case, at NumPy's speed). Operators
# (+ - * / ** @ < ...), .reshape, .squeeze(dim), .sum(dim), .T, .ndim and .shape mean the
# same on both; the helpers below are the few things spelled differently.

def is_tensor(x):
    return isinstance(x, _Tensor or _tensor_cls())


def array_module(x):
    """The module that computes on `x` (a Tensor, or an array of the backward that runs now):
    its device's, NumPy or CuPy (never guessed from the array's type)."""
    return x._device.xp if is_tensor(x) else UNPACK.xp


def mT(x):  # noqa: N802 (Tensor.mT's name)
    """`x.mT`: the last two dims swapped (NumPy arrays have .mT only from NumPy 2.0 on)."""
    return x.mT if is_tensor(x) else x.swapaxes(-1, -2)


def expand(g, shape):
    return g.expand(shape) if is_tensor(g) else array_module(g).broadcast_to(g, shape)


def permute(g, dims):
    return g.permute(dims) if is_tensor(g) else g.transpose(dims)


def unsqueeze(g, dim):
    if is_tensor(g):
        return g.unsqueeze(dim)
    dim = dim if dim >= 0 else dim + g.ndim + 1
    return g.reshape(g.shape[:dim] + (1,) + g.shape[dim:])  # (np.expand_dims costs 20x more)


def where(cond, a, b):
    if is_tensor(cond) or is_tensor(a) or is_tensor(b):
        from .pointwise import where as tensor_where
        return tensor_where(cond, a, b)
    return array_module(cond).where(cond, a, b)


def zero_where(cond, g):
    """where(cond, 0, g): `g` with zeros where `cond` holds, even where g is inf or NaN there.
    On NumPy arrays, where is slow on a scattered mask (about 1 ns an element); a multiply by
    the mask is 4x faster and gives the same when g is finite (adding 0.0 then turns the -0.0
    of a negative g times 0 into 0.0)."""
    if is_tensor(cond) or is_tensor(g):
        return where(cond, 0.0, g)
    xp = array_module(g)
    if xp.__name__ != "numpy" or not xp.isfinite(g).all():  # (CuPy's where is fast)
        return xp.where(cond, g.dtype.type(0), g)
    out = g * ~cond
    out += 0.0
    return out


def exp(x):
    return x.exp() if is_tensor(x) else array_module(x).exp(x)


def in_float(fn, *xs):
    """fn(*xs) computed in float32 when xs are float16, rounded back once: how PyTorch's kernels
    compute half (in float, their "opmath" type)."""
    x = xs[0]
    if not (x.dtype is _dtype.float16 if is_tensor(x) else x.dtype == _dtype.float16.np):
        return fn(*xs)
    if is_tensor(x):
        return fn(*(x.to(_dtype.float32) for x in xs)).to(_dtype.float16)
    return fn(*(x.astype("float32") for x in xs)).astype("float16")


def sum_keepdim(g, dim):
    return g.sum(dim=dim, keepdim=True) if is_tensor(g) else g.sum(axis=dim, keepdims=True)


__all__ = ["Primitive", "MultiOutputPrimitive", "NULL_CTX"]
