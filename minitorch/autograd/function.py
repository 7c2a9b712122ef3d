"""Function and Node: how one operation is recorded into the autograd graph.

A `Function` is an operation with a `forward` and a `backward` written side by side. When
it runs on inputs that require grad (and grad mode is on), `apply` creates a *node*: the
`grad_fn` of its outputs. The node is also the `ctx` that `forward` saw, so whatever
forward saved (`ctx.save_for_backward`, or plain attributes) is there for backward. The
node points at the nodes that produced its inputs (`next_functions`), and that chain of
pointers *is* the computational graph.

Two kinds of Functions share this machinery:
- your own, the `torch.autograd.Function` API: `forward` takes and returns Tensors;
- minitorch's primitives (in `minitorch/_ops/`): `forward` returns a backend array (NumPy
  or CuPy) for speed, and `backward` is written with Tensor operations, so that with
  `create_graph=True` the backward pass is recorded too (second derivatives). Most of them
  (`array_backward = True`) write it with operators and a few helpers that arrays satisfy as
  well, so that an ordinary backward runs the same formula on arrays, at NumPy's speed.
"""
from __future__ import annotations

import functools
import inspect
import re
import weakref

from .. import parts as _parts
from .._errors import hinted
from . import anomaly_mode, forward_ad
from .anomaly_mode import ANOMALY
from .grad_mode import STATE, no_grad


class Node:
    """One recorded operation. Subclassed once per Function, so `type(y.grad_fn).__name__`
    is e.g. 'MulBackward0'."""

    # Set on every node the graph records, so they are slots (the cheapest fields to fill):
    #   _next, _next_nr   per input: the node its gradient goes to (None: nowhere) and which output
    #                     of that node the input was; `next_functions` pairs them up when asked
    #   needs_input_grad  per input: does it need a gradient (forward may read it to save less)
    #   _output_meta      (shape, dtype, device) per output: what a gradient of it must look like
    #                     (the engine checks what a backward returns against its input's producer)
    __slots__ = ("_next", "_next_nr", "needs_input_grad", "_output_meta", "__dict__", "__weakref__")

    _fn = None  # the Function class whose backward this node runs
    # The rest lives in the instance dict, from these class defaults: a node only sets what differs.
    _saved = ()
    _keeps_values = False  # True when backward also reads values kept outside save_for_backward
    _freed = False
    _pre_hooks = None  # {output_nr: [hook, ...]} from Tensor.register_hook on outputs
    _retain = None  # {output_nr: weakref to the tensor} from Tensor.retain_grad
    _post_hooks = None  # [hook, ...] from Node.register_hook
    _num_outputs = 1
    _materialize_grads = True
    _non_differentiable = ()
    _dirty = ()
    _arg_is_tensor = None  # a custom Function's: which forward arguments were tensors
    _unpack_order = None  # under saved_tensors_hooks: the order the saved tensors are packed and unpacked

    # -- the graph ----------------------------------------------------------------------
    @property
    def next_functions(self):
        """((node, output_nr), ...) per input: where each input's gradient goes ((None, 0): nowhere).
        Built when asked, as PyTorch does: a node keeps the nodes and the output numbers in two
        tuples (the numbers are shared between nodes), so recording an op allocates one tuple
        here, not one per input as well (fewer objects for the garbage collector to walk)."""
        return tuple(zip(self._next, self._next_nr))

    @next_functions.setter
    def next_functions(self, edges):
        self._next = tuple(n for n, _ in edges)
        self._next_nr = shared(tuple(nr for _, nr in edges))

    # -- the ctx API --------------------------------------------------------------------
    def save_for_backward(self, *tensors):
        """Keep tensors for backward; their version is recorded now and checked then."""
        if SAVED_TENSORS_HOOKS and self._fn is not None and self._fn.pack_order is not None \
                and len(self._fn.pack_order) == len(tensors):
            return self._save_in_order(tensors, self._fn.pack_order)
        try:
            self._saved = tuple(None if t is None else SavedTensor(t) for t in tensors)
        except AttributeError:  # not a tensor: checked only on failure, to keep saving cheap
            k = next(i for i, t in enumerate(tensors) if t is not None and not hasattr(t, "_storage"))
            raise TypeError(f"save_for_backward can only save variables, but argument {k} is of type "
                            f"{type(tensors[k]).__name__} (keep other values as ctx attributes, e.g. "
                            "ctx.k = k)") from None

    def _save_in_order(self, tensors, order):
        # PyTorch keeps an op's saved inputs in the alphabetical order of their argument names
        # (`other` before `self`): its pack hook sees them, and its unpack hook gives them back, so
        saved = [None] * len(tensors)
        for i in order:
            saved[i] = None if tensors[i] is None else SavedTensor(tensors[i])
        self._saved, self._unpack_order = tuple(saved), order

    @property
    def saved_tensors(self):
        if self._saved is None:  # (freed; a node that saved nothing may run again, as in PyTorch)
            raise freed_error()
        if self._unpack_order is not None:
            got = [None] * len(self._saved)
            for i in self._unpack_order:
                got[i] = None if self._saved[i] is None else self._saved[i].unpack(self)
            return tuple(got)
        return tuple(None if s is None else s.unpack(self) for s in self._saved)

    @property
    def saved_output(self):
        """The output a primitive kept for backward (see SavedOutput)."""
        if self._freed:
            raise freed_error()
        return self._saved_output.unpack(self)

    def save_for_forward(self, *tensors):
        """Keep tensors for a custom Function's jvp (forward-mode AD), where ctx.saved_tensors gives them."""
        self._saved_forward = tensors

    def set_materialize_grads(self, value: bool):
        self._materialize_grads = bool(value)

    def mark_non_differentiable(self, *tensors):
        self._non_differentiable = tuple(id(t) for t in tensors)

    def mark_dirty(self, *tensors):
        """Declare inputs that forward modified in place (and returns): they keep their identity
        and this node becomes their history."""
        self._dirty = tuple(id(t) for t in tensors)

    # -- introspection ------------------------------------------------------------------
    def name(self):
        return type(self).__name__

    def register_hook(self, hook):
        """hook(grad_inputs, grad_outputs) after this node's backward; may return new grad_inputs."""
        from .._tensor import _RemovableHandle
        if self._post_hooks is None:
            self._post_hooks = []
        self._post_hooks.append(hook)
        return _RemovableHandle(self._post_hooks, hook)

    def register_prehook(self, hook):
        """hook(grad_outputs) before this node's backward; may return new grad_outputs."""
        from .._tensor import _RemovableHandle
        self._add_pre_hook(0, hook)
        return _RemovableHandle(self._pre_hooks[0], hook)

    def _add_pre_hook(self, output_nr, hook):
        if self._pre_hooks is None:
            self._pre_hooks = {}
        self._pre_hooks.setdefault(output_nr, []).append(hook)

    _repr_prefix = ""  # a Python-level Function's node names its module, as PyTorch's do

    def __repr__(self):
        return f"<{self._repr_prefix}{type(self).__name__} object at {hex(id(self))}>"

    # -- run by the engine -------------------------------------------------------------
    def _release(self):
        if self._keeps_values or any(s is not None for s in self._saved):
            self._saved = None
        self.__dict__.pop("_saved_output", None)
        self._freed = True

    def _apply(self, grads):
        res = self._fn.backward(self, *grads)
        if not isinstance(res, tuple):
            res = (res,)
        is_tensor = self._arg_is_tensor
        if is_tensor is not None:  # a custom Function: one gradient per forward argument
            if len(res) > len(is_tensor) and all(g is None for g in res[len(is_tensor):]):
                res = res[:len(is_tensor)]  # trailing Nones for defaulted arguments, as PyTorch allows
            if len(res) != len(is_tensor):
                raise RuntimeError(
                    f"function {self.name()} returned an incorrect number of gradients (expected "
                    f"{len(is_tensor)}, got {len(res)})")
            res = tuple(g for g, t in zip(res, is_tensor) if t)
        return res


class AccumulateGrad(Node):
    """The node at a leaf: adds the gradient that reaches it into `leaf.grad`.

    The leaf holds its node for as long as it lives, so that every op recording the leaf reuses
    it (a result thrown away does not take the node with it), and the node reaches its leaf
    through a weak reference: no reference cycle, so a leaf is freed as soon as the last name
    for it goes. (PyTorch holds them the other way round; the one difference a program can see
    is a graph that outlives its leaf: `.variable` is then None and the gradient is dropped,
    as nobody could read it. A leaf with hooks is held strongly, see `hold`.)"""

    __slots__ = ("_leaf", "_held", "_post_accumulate")

    def __init__(self, leaf):
        self._leaf = weakref.ref(leaf)
        self._held = None
        self._post_accumulate = None  # hooks(leaf) run after .grad is updated
        self._next = self._next_nr = self.needs_input_grad = ()
        self._output_meta = ((leaf._data.shape, leaf.__dict__.get("_grad_dtype") or leaf.dtype, leaf._device),)

    @property
    def variable(self):
        """The leaf tensor (None once it has been freed)."""
        return self._leaf()

    def hold(self):
        """Keep the leaf alive while the graph is: its hooks must run even if the graph outlives
        every other name for it, as in PyTorch. (A reference cycle, freed by the garbage
        collector; leaves with hooks are few.)"""
        self._held = self._leaf()

    def name(self):
        return "torch::autograd::AccumulateGrad"  # PyTorch's name (its C++ class); the type is AccumulateGrad

    def _release(self):
        pass  # nothing saved; the leaf stays reachable

    def _apply(self, grads):
        raise AssertionError("the engine accumulates leaves itself")


def accumulator(leaf) -> AccumulateGrad:
    """The leaf's AccumulateGrad node, one per leaf, made the first time the leaf is recorded."""
    node = leaf._accum
    if node is None:
        node = leaf._accum = AccumulateGrad(leaf)
        if leaf._accum_hooks:
            node.hold()
    return node


_SHARED = {}


def shared(values: tuple) -> tuple:
    """One tuple for all equal tuples of a few small values (a node's output numbers, its
    needs_input_grad): there are only a handful of distinct ones, so nodes need not each
    keep their own."""
    if len(values) > 8:  # (cat of many tensors: not worth keeping)
        return values
    return _SHARED.setdefault(values, values)


def refresh_view(t):
    """PyTorch's rule for the grad_fn of a view: once its memory has been written in place since the
    view's node was made (through the base, another view, or under no_grad), the view becomes "a
    strided view of the base as it is now" (AsStridedBackward0 on the base's newest history). It
    runs when the grad_fn is read, or when an op that records reads it. Cheap when nothing moved."""
    seen = t._seen_version
    if seen is None or seen == t._storage.version:
        return
    base = t._base
    if t._grad_fn is None and not base._requires_grad:  # nothing recorded on either: nothing to renew
        t._seen_version = t._storage.version
        return
    if t._no_grad_view:
        raise RuntimeError(
            "A view was created in no_grad mode and its base or another view of its base has been modified "
            "inplace with grad mode enabled. Given that this use case is ambiguous and error-prone, it is "
            "forbidden. You can clarify your code by moving both the view and the inplace either both inside "
            "the no_grad block (if you don't want the inplace to be tracked) or both outside (if you want the "
            "inplace to be tracked). (take the view again after the in-place op, or .clone() it)")
    if t._multi_view is not None and t._multi_view is not False:
        name = t._grad_fn.name().rstrip("0123456789").removesuffix("Backward")
        raise RuntimeError(
            f"Output {t._output_nr} of {name} is a view and its base or another view of its base has been "
            "modified inplace. This view is the output of a function that returns multiple views. Such "
            "functions do not allow the output views to be modified inplace. You should replace the inplace "
            "operation by an out-of-place one. (take the split again after the in-place op, or .clone() it)")
    from .._ops.inplace import as_view_of_new_base
    from .grad_mode import enable_grad
    with enable_grad():  # the renewed history is recorded even when it is read under no_grad
        as_view_of_new_base(t, base)


NO_EDGE = (None, 0)  # the edge of an input that gets no gradient (shared: one tuple for all of them)


def edge(t):
    """Where a gradient for tensor `t` must go: (node, output_nr), or (None, 0)."""
    if t._seen_version is not None:
        refresh_view(t)
    if not t._requires_grad:
        return NO_EDGE
    fn = t._grad_fn
    if fn is None:
        # a view taken under no_grad requires grad but has no history: its gradient goes nowhere
        return (accumulator(t), 0) if not t._no_grad_view else NO_EDGE
    return (fn, t._output_nr)


def freed_error():
    return RuntimeError(
        "Trying to backward through the graph a second time (or directly access saved tensors after they have "
        "already been freed). Saved intermediate values of the graph are freed when you call .backward() or "
        "autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or "
        "if you need to access saved tensors after calling backward.")


class _Unpack:
    """How saved tensors unpack: as Tensors, or, while the engine runs a backward formula on
    backend arrays (see autograd/engine.py), as their arrays; `xp` is then their device's
    array module."""

    __slots__ = ("arrays", "xp")

    def __init__(self):
        self.arrays = False
        self.xp = None


UNPACK = _Unpack()


# (pack, unpack) pairs of the active torch.autograd.graph.saved_tensors_hooks, innermost last
SAVED_TENSORS_HOOKS = []


class SavedTensor:
    """A tensor kept for backward, with the version it had when saved. Under saved_tensors_hooks,
    what is kept is pack_hook(tensor), and unpack_hook gives the tensor back when backward runs."""

    __slots__ = ("tensor", "version", "unpack_hook", "had_history")

    def __init__(self, t):
        self.version = t._storage.version
        self.had_history = t._grad_fn is not None
        if SAVED_TENSORS_HOOKS:
            pack, self.unpack_hook = SAVED_TENSORS_HOOKS[-1]
            self.tensor = pack(t)
        else:
            self.tensor, self.unpack_hook = t, None

    def unpack(self, node):
        if self.unpack_hook is not None:
            t = self.unpack_hook(self.tensor)
            if not hasattr(t, "_storage"):
                raise TypeError(f"Output of saved tensor unpack_hook expected to be a Tensor but got result of "
                                f"type {type(t).__name__}")
            return t._data if UNPACK.arrays else t
        t = self.tensor
        if (t._storage.version != self.version if _parts.version_check is None  # (a part: minitorch/parts.py)
                else _parts.version_check(self.version, t._storage.version)):
            raise _modified_error(t, self.version, node)
        if self.had_history and t._grad_fn is None:  # (its history is gone: backward could not reach past it)
            raise RuntimeError("Trying to use a saved tensor that has been detached in-place, i.e. with .detach_()."
                               "This is not supported, please use out-of-place `.detach()` instead")
        return t._data if UNPACK.arrays else t


class SavedOutput:
    """An output kept for backward without a reference cycle: it is rebuilt on unpack as a
    tensor whose grad_fn is the node itself, so a recorded backward still differentiates it."""

    __slots__ = ("data", "storage", "version", "output_nr", "device", "base", "packed", "unpack_hook")

    def __init__(self, t):
        self.data, self.storage, self.version = t._data, t._storage, t._storage.version
        self.output_nr, self.device, self.base = t._output_nr, t._device, t._base
        self.unpack_hook = None
        if SAVED_TENSORS_HOOKS:  # (an output is packed as PyTorch packs its saved `result`)
            pack, self.unpack_hook = SAVED_TENSORS_HOOKS[-1]
            self.packed = pack(t)

    def unpack(self, node):
        from .._tensor import Tensor
        if self.unpack_hook is not None:
            t = self.unpack_hook(self.packed)
            return t._data if UNPACK.arrays else t
        if (self.storage.version != self.version if _parts.version_check is None  # (a part: minitorch/parts.py)
                else _parts.version_check(self.version, self.storage.version)):
            t = Tensor._make(self.data, self.device, self.storage, self.base)
            raise _modified_error(t, self.version, node, self.output_nr)
        if UNPACK.arrays:
            return self.data
        t = Tensor._make(self.data, self.device, self.storage, self.base)
        t._requires_grad = True
        t._grad_fn = node
        t._output_nr = self.output_nr
        return t


def _modified_error(t, expected, node, output_nr=None):
    """PyTorch's error for a saved tensor changed in place since it was saved; minitorch's hint,
    which names the node that saved it and the fix, rides along as a note."""
    where = ""
    fn = node if output_nr is not None else t.grad_fn
    if fn is not None:  # (PyTorch names the node's op: SigmoidBackward0 is "Sigmoid")
        op = re.sub(r"Backward\d*$", "", fn.name())
        where = f", which is output {t._output_nr if output_nr is None else output_nr} of {op},"
    hint = ("the backtrace further above shows the operation that failed to compute its gradient. The variable in "
            "question was changed in there or anywhere later. Good luck!" if anomaly_mode.is_anomaly_enabled() else
            "enable anomaly detection to find the operation that failed to compute its gradient, with "
            "torch.autograd.set_detect_anomaly(True, check_nan=False).")
    return hinted(RuntimeError,
                  "one of the variables needed for gradient computation has been modified by an inplace operation: "
                  f"[{t._type_name()} {list(t.shape)}]{where} is at version {t._storage.version}; expected version "
                  f"{expected} instead. Hint: {hint}",
                  f"{node.name()} saved this tensor for its backward pass, and a later in-place operation (a method "
                  "ending in '_', or an indexed assignment) changed it. Use the out-of-place form (x = x.mul(2) "
                  "instead of x.mul_(2)), or .clone() the tensor before modifying it.")


_CPP_NODES = {n: (lambda full: lambda self: full)(f"torch::autograd::{n}")
              for n in ("CopySlices", "CopyBackwards", "NotImplemented", "Error")}


class _FunctionMeta(type):
    def __init__(cls, name, bases, ns):
        super().__init__(name, bases, ns)
        node_name = ns.get("_node_name") or f"{name}Backward"
        if "_node_name" not in ns and getattr(cls, "_python_node", True):  # a Python-level Function's node
            attrs = {"_fn": cls, "__module__": __name__, "_repr_prefix": __name__ + "."}
        else:
            attrs = {"_fn": cls, "__module__": cls.__module__}
        cls._node_cls = type(node_name, (Node,), attrs)
        if node_name in _CPP_NODES:  # PyTorch's C++ nodes: name() gives the namespace, repr the class
            cls._node_cls.name = _CPP_NODES[node_name]


class Function(metaclass=_FunctionMeta):
    """Base class of differentiable operations: subclass it, write `forward(ctx, *inputs)`
    and `backward(ctx, *grad_outputs)` as static methods, and call `YourFn.apply(...)`.

    `backward` returns one gradient per input of forward (None for inputs that need none).
    """

    # True for a built-in op whose backward formula also runs on backend arrays: the engine then
    # hands it arrays (gradients and saved tensors) when nothing needs Tensors (no create_graph,
    # hooks or anomaly mode). Your own Functions' backward always gets Tensors, as in PyTorch.
    array_backward = False
    # The order (input positions) in which PyTorch saves this op's tensors, where it is not the
    # order forward passes them to save_for_backward: saved_tensors_hooks see that order.
    pack_order = None

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError(
            "You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError(
            "You must implement either the backward or vjp method for your custom "
            "autograd.Function to use it with backward mode AD.")

    vjp = backward

    @staticmethod
    def jvp(ctx, *grad_inputs):
        """Forward-mode AD (autograd/forward_ad.py): the outputs' tangents from the inputs' (one per
        forward argument: zeros for a tensor without one, None for a non-tensor)."""
        raise NotImplementedError("You must implement the jvp function for custom autograd.Function to use it with "
                                  "forward mode AD.")

    @staticmethod
    def setup_context(ctx, inputs, output):
        """The other style: `forward(*inputs)` without ctx, and this saves what backward needs
        from the inputs and the output (PyTorch 2's style, which torch.func transforms need)."""
        raise NotImplementedError("setup_context is not implemented.")

    @classmethod
    def apply(cls, *args, **kwargs):
        from .._tensor import Tensor
        ctx = cls._node_cls()
        separate = cls.setup_context is not Function.setup_context
        if separate:  # forward's defaults become inputs too, as setup_context sees them
            bound = inspect.signature(cls.forward).bind(*args, **kwargs)
            bound.apply_defaults()
            args, kwargs = bound.args, {}
        tensors = [a for a in args if isinstance(a, Tensor)]
        if STATE.enabled:  # (only a recording op reads its inputs' grad_fn)
            for t in tensors:
                refresh_view(t)
        record = STATE.enabled and any(t.requires_grad for t in tensors)
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
        tangents = forward_ad.function_tangents(args) if STATE.dual else None  # (forward-mode AD)
        with no_grad(), forward_ad.paused():
            if separate:
                out = cls.forward(*args)
                cls.setup_context(ctx, args, out)
            else:
                out = cls.forward(ctx, *args, **kwargs)
        single = not isinstance(out, tuple)
        outs = (out,) if single else out
        if not record:
            return out if tangents is None else forward_ad.function_jvp(cls, ctx, tangents, out)
        # Edges first: an input that forward modified in place (mark_dirty) is about to get this
        # node as its history, and its edge must still point at the old one.
        _connect(ctx, tensors)
        # outputs that get no gradient are handed to backward as zeros (set_materialize_grads)
        ctx._output_meta = tuple((o.shape, o.dtype, o._device) if isinstance(o, Tensor) else None for o in outs)
        wrapped = []
        for i, o in enumerate(outs):
            if isinstance(o, Tensor):
                if any(o is a for a in tensors):
                    if id(o) in ctx._dirty:
                        if _rebase_dirty(o, ctx, cls, args):
                            wrapped.append(o)
                            continue
                    else:  # an input returned as is: output a new alias
                        o = o.detach()
                if id(o) not in ctx._non_differentiable and o.dtype.is_floating_point:
                    o._requires_grad = True
                    o._grad_fn = ctx
                    o._output_nr = i
            wrapped.append(o)
        ctx._num_outputs = len(outs)
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
        ctx._arg_is_tensor = tuple(isinstance(a, Tensor) for a in args)
        out = wrapped[0] if single else tuple(wrapped)
        return out if tangents is None else forward_ad.function_jvp(cls, ctx, tangents, out)


def _rebase_dirty(t, node, cls, args):
    """An input modified in place by forward: PyTorch's in-place rules apply to it. Returns True
    when it was rebased as a view (CopySlices on its base), False when the caller links it."""
    from .._ops.inplace import _rebase, check_inplace, check_overlap
    if t.requires_grad and t.grad_fn is None:
        raise RuntimeError("a leaf Variable that requires grad has been used in an in-place operation.")
    check_inplace(t, f"{cls.__name__}.forward (mark_dirty)")
    check_overlap(t, f"{cls.__name__}.forward (mark_dirty)")
    if t._base is None:
        return False
    if args[0] is not t:
        raise NotImplementedError(
            f"{cls.__name__}: mark_dirty on a view is supported for the first argument of forward only")
    _rebase(t, node)
    return True


def _connect(node, inputs):
    """Record where each input's gradient goes (what it must look like, its producer knows)."""
    if ANOMALY.enabled:
        anomaly_mode.record(node)
    node.next_functions = [edge(t) for t in inputs]


def once_differentiable(fn):
    """Decorate a backward that is not differentiable itself (it may compute outside autograd):
    it runs under no_grad, and when a double backward would need its graph, its results hang
    on an `Error` node that raises if a second backward reaches it."""
    @functools.wraps(fn)
    def wrapper(ctx, *args):
        from .._tensor import Tensor
        with no_grad():
            outputs = fn(ctx, *args)
        if not STATE.enabled or not any(isinstance(a, Tensor) and a.requires_grad for a in args):
            return outputs
        outputs = outputs if isinstance(outputs, tuple) else (outputs,)
        return _DelayedError.apply(*(None if o is None else o.detach().requires_grad_() for o in outputs))
    return wrapper


class _DelayedError(Function):
    _node_name = "Error"  # (PyTorch's C++ node)

    @staticmethod
    def forward(ctx, *outputs):
        return outputs

    @staticmethod
    def backward(ctx, *grads):
        raise RuntimeError("trying to differentiate twice a function that was marked with @once_differentiable")
