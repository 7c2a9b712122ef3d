"""Forward-mode AD: `torch.autograd.forward_ad`, directional derivatives computed with the forward pass.

    with fwAD.dual_level():
        x = fwAD.make_dual(primal, tangent)     # a view of primal that carries a tangent t
        y = f(x)                                # every op on a dual tensor computes its output's tangent
        jvp = fwAD.unpack_dual(y).tangent       # J t, J the Jacobian of f at primal
    # on leaving the level every tangent is dropped: unpack_dual(y).tangent is None

How an op's tangent is computed here: from reverse mode, by the "double vjp" (as torch.func.jvp
does in func/_autodiff.py). For an op y = g(x) the vector-Jacobian product u -> J^T u is linear in
u, so differentiating it along t (with respect to u) gives J t, exactly. So each op on a dual
tensor runs once more on detached copies of its inputs, with autograd recording, and two
backward passes of that one op give its output's tangent. Views are the exception: a view's
tangent is the same view of its input's tangent (so an in-place write through the view reaches
the base's tangent too), and a custom Function uses its own `jvp` staticmethod.

What ordinary code sees does not change: a dual tensor's requires_grad and grad_fn are its
primal's, the tangents are kept beside the tensors (not in the graph), and forward mode works
under no_grad, as PyTorch's does. One level at a time, as PyTorch supports.
"""
from __future__ import annotations

import weakref
from collections import namedtuple

from .grad_mode import STATE

_level = [-1]  # the current level: -1 outside dual_level(), 0 inside
_duals = weakref.WeakSet()  # the tensors given a tangent at this level (dropped on exit)


class UnpackedDualTensor(namedtuple("UnpackedDualTensor", ["primal", "tangent"])):
    """(primal, tangent) of a dual tensor: what unpack_dual returns."""

    __slots__ = ()


def enter_dual_level():
    """Start a level (the one dual tensors are made at); returns it (0)."""
    if _level[0] >= 0:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    _level[0] = 0
    return 0


def exit_dual_level(*, level=None):
    """End the level: every tangent made at it is dropped."""
    if level is None:
        level = _level[0]
    if level != _level[0]:
        raise RuntimeError("Trying to exit a forward AD level that was not the last one that was created. This is "
                           "not supported.")
    for t in list(_duals):
        t.__dict__.pop("_fw_tangent", None)
    _duals.clear()
    STATE.dual = False
    _level[0] = level - 1


class dual_level:  # noqa: N801 (PyTorch's name)
    """The context all forward-mode computation happens in: `with fwAD.dual_level():`. Also a decorator."""

    def __enter__(self):
        return enter_dual_level()

    def __exit__(self, *exc):
        exit_dual_level()
        return False

    def __call__(self, func):
        import functools

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with dual_level():
                return func(*args, **kwargs)
        return wrapper


def make_dual(tensor, tangent, *, level=None):
    """A view of `tensor` carrying `tangent` (the tangent itself when laid out as tensor is, else a
    copy of it in tensor's layout)."""
    if level is None:
        level = _level[0]
    if level < 0:
        raise RuntimeError("Trying to create a dual Tensor for forward AD but no level exists, make sure to "
                           "enter_dual_level() first.")
    if not tensor.dtype.is_floating_point:
        raise ValueError(f"Expected primal to be floating point or complex, but got: {tensor.dtype}")
    if not tangent.dtype.is_floating_point:
        raise ValueError(f"Expected tangent to be floating point or complex, but got: {tangent.dtype}")
    if tangent_of(tensor) is not None:
        raise RuntimeError(f"Making a dual Tensor based on a Tensor that already has a forward gradient at the same "
                           f"level {level} is not supported.")
    if tangent.shape != tensor.shape:
        raise RuntimeError(f"Trying to set a forward gradient that has a different size than that of the original "
                           f"Tensor, this is not supported. Tensor is of size {list(tensor.shape)} while the given "
                           f"forward gradient is of size {list(tangent.shape)}.")
    with paused():
        dual = tensor.view_as(tensor)
        if tangent.stride() != tensor.stride() or tangent.storage_offset() != tensor.storage_offset():
            from .._ops.scatter_views import empty_strided
            tangent = empty_strided(tensor.shape, tensor.stride(), dtype=tangent.dtype,
                                    device=tangent.device).copy_(tangent)
    _attach(dual, tangent)
    STATE.dual = True  # from now on every op looks for tangents among its inputs
    return dual


def unpack_dual(tensor, *, level=None):
    """(primal, tangent): a view of `tensor` without its tangent, and the tangent (None if it has none)."""
    if level is None:
        level = _level[0]
    if level < 0:
        return UnpackedDualTensor(tensor, None)
    with paused():
        primal = tensor.view_as(tensor)
    # (inside a custom Function's forward and jvp, forward mode is off: no tensor shows a tangent)
    return UnpackedDualTensor(primal, tangent_of(tensor) if STATE.dual else None)


# ---- how ops carry tangents ------------------------------------------------------------------

def tangent_of(t):
    return t.__dict__.get("_fw_tangent") if hasattr(t, "_storage") else None


def _attach(t, tangent):
    if tangent is not None and t.dtype.is_floating_point:
        t.__dict__["_fw_tangent"] = tangent
        _duals.add(t)


class paused:  # noqa: N801 (used as a function: `with paused():`)
    """The ops inside compute no tangents (an op's own tangent computation, a custom forward)."""

    __slots__ = ("was",)

    def __enter__(self):
        self.was, STATE.dual = STATE.dual, False

    def __exit__(self, *exc):
        STATE.dual = self.was
        return False


def dual_apply(cls, inputs, kw):
    """Primitive.apply while dual tensors exist: the op, then its outputs' tangents."""
    tangents = [tangent_of(x) for x in inputs]
    with paused():
        out = cls.apply(*inputs, **kw)
        if cls.differentiable and any(t is not None for t in tangents):
            _attach_all(out, _op_tangents(cls, inputs, kw, tangents, out))
    return out


def _attach_all(out, tangents):
    for o, t in zip(out if isinstance(out, tuple) else (out,), tangents):
        _attach(o, t)


def _op_tangents(cls, inputs, kw, tangents, out):
    from .._ops.views import MultiViewPrimitive, ViewPrimitive
    if issubclass(cls, (ViewPrimitive, MultiViewPrimitive)):  # a view of the tangent, as the output is of the input
        res = cls.apply(tangents[0], **kw)
        return res if isinstance(res, tuple) else (res,)
    if hasattr(cls, "forward_derivative"):  # a formula of its own (a decomposition: no second derivative)
        from .._factories import zeros_like
        full = [zeros_like(x) if t is None and hasattr(x, "_storage") else t for x, t in zip(inputs, tangents)]
        return cls.forward_derivative(inputs, out if isinstance(out, tuple) else (out,), full, **kw)
    return double_vjp(cls, inputs, kw, tangents)


def double_vjp(cls, inputs, kw, tangents):
    """J t for op `cls` at `inputs`: J^T u is linear in u, so its derivative along t with respect to
    u is J t (one more run of the op, two backward passes). With grad mode on and an input that
    requires grad, that input keeps its history here, so that the tangent is differentiable in
    it as PyTorch's is, and every input takes part (PyTorch's formulas count a missing tangent as
    zeros, whose products with an input that requires grad are recorded too)."""
    from . import grad
    from .._factories import zeros_like
    from .grad_mode import enable_grad
    tracking = STATE.enabled and any(getattr(x, "_requires_grad", False) for x in inputs) or any(
        t is not None and t.requires_grad for t in tangents)
    with enable_grad():
        args, xs, ts = [], [], []
        for x, t in zip(inputs, tangents):
            if not hasattr(x, "_storage"):
                args.append(x)
                continue
            if tracking and x.dtype.is_floating_point:
                a = x.view_as(x) if x.requires_grad else x.detach().requires_grad_()
                xs.append(a)
                ts.append(zeros_like(x) if t is None else t)
            elif t is not None:
                a = x.detach().requires_grad_()
                xs.append(a)
                ts.append(t)
            else:
                a = x.detach()
            args.append(a)
        y = cls.apply(*args, **kw)
        ys = y if isinstance(y, tuple) else (y,)
        live = [o for o in ys if o.requires_grad]
        us = [zeros_like(o).requires_grad_() for o in live]
        if not live:
            return [zeros_like(o) if o.dtype.is_floating_point else None for o in ys]
        try:
            g = grad(live, xs, us, create_graph=True, allow_unused=True)
        except NotImplementedError as e:  # (a decomposition's backward, which has no derivative of its own)
            if not str(e).startswith("the second derivative of "):
                raise
            op = str(e).split()[4]
            raise NotImplementedError(f"forward-mode AD of {op} (a dual tensor as its input) is not implemented in "
                                      "minitorch") from None
        pairs = [(gi, t) for gi, t in zip(g, ts) if gi is not None and gi.requires_grad]
        jt = grad([p for p, _ in pairs], us, [t.to(p.dtype) for p, t in pairs], allow_unused=True,
                  create_graph=tracking) if pairs else [None] * len(us)
    found = dict(zip(map(id, live), jt))
    return [None if not o.dtype.is_floating_point else
            zeros_like(o) if found.get(id(o)) is None else _own(found[id(o)], ts, tracking) for o in ys]


def _own(result, tangents, tracking):
    # a tangent of its own (autograd may hand an input's tangent straight through, as for clone):
    # an in-place write into one tangent must not change another
    xp = result._device.xp
    if not tracking:
        result = result.detach()
    if any(xp.may_share_memory(result._data, t._data) for t in tangents):
        return result.clone()
    return result


def dual_inplace(self, cls, others, kw, write):
    """An in-place op while dual tensors exist: the tangent of self's new value, computed at its
    old one, is written into self's tangent once the op has written into self."""
    tangents = [tangent_of(x) for x in (self,) + tuple(others)]
    if not cls.differentiable or all(t is None for t in tangents):
        with paused():
            return write()
    with paused():
        # (at a copy of self's old value when the tangent keeps a graph: the write must not change what it read)
        old = self.clone() if STATE.enabled and self.requires_grad else self
        new = double_vjp(cls, (old,) + tuple(others), kw, tangents)[0]
        write()
        set_tangent(self, new)
    return self


def set_tangent(t, new):
    """t's tangent becomes `new`: written into the tangent t has (which views of t's memory share),
    else a new one; for a view of a base without a tangent, the base gets zeros and the view's
    part of them."""
    if new is None:
        return
    with paused():
        mine = tangent_of(t)
        if mine is None and t._base is not None and tangent_of(t._base) is None:
            from .._factories import zeros_like
            _attach(t._base, zeros_like(t._base))
        if mine is None and t._base is not None:
            mine = tangent_of(t._base).as_strided(t.shape, t.stride(), t.storage_offset())
            _attach(t, mine)
        if mine is None:
            _attach(t, new.to(t.dtype).clone())
        else:
            mine.copy_(new)


def take_tangent(t, out):
    """write_result's part: t, written with the values of `out` (a composite op's result), takes
    out's tangent."""
    set_tangent(t, tangent_of(out))


# ---- custom Functions: their jvp staticmethod ---------------------------------------------------

def function_tangents(args):
    """The tangents a custom Function's jvp gets, one per forward argument: the tangent of a dual
    tensor, zeros for another tensor, None for a non-tensor; None when no argument is dual."""
    from .._factories import zeros_like
    found = [tangent_of(a) for a in args]
    if all(t is None for t in found):
        return None
    return tuple(t if t is not None else zeros_like(a) if hasattr(a, "_storage") else None
                 for a, t in zip(args, found))


def function_jvp(cls, ctx, tangents, out):
    """Run cls.jvp(ctx, *tangents) (ctx.saved_tensors: what forward gave save_for_forward) and
    attach what it returns to the outputs."""
    from .function import SavedTensor
    saved = ctx._saved
    forward_saved = ctx.__dict__.get("_saved_forward")
    if forward_saved is not None:
        ctx._saved = tuple(None if t is None else SavedTensor(t) for t in forward_saved)
    try:
        with paused():
            res = cls.jvp(ctx, *tangents)
    finally:
        ctx._saved = saved
    outs = out if isinstance(out, tuple) else (out,)
    res = res if isinstance(res, tuple) else (res,)
    for o, t in zip(outs, res):
        if hasattr(o, "_storage") and t is not None:
            _attach(o, t)
    return out
