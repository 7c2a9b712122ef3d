"""The backward pass: walk the graph from the outputs to the leaves.

1. Count, for every node reachable from the roots, how many edges point at it.
2. Start from the roots with their gradients. A node runs once every node that feeds it a
   gradient has run (its count reached zero), which is a topological order.
3. Each node's backward turns the gradient of its outputs into gradients of its inputs;
   each input gradient is checked against the input's shape and dtype, summed back to the
   input's shape when the op broadcast it (the one place where that happens), and added to
   what the next node has already received.
4. At the leaves, AccumulateGrad adds into `.grad`. Saved tensors are freed as nodes run,
   unless `retain_graph=True`.

Without `create_graph` nothing of the backward is recorded, so the gradients need not be
Tensors: the engine moves backend arrays between nodes and runs each op's backward formula
(the same one, see `array_backward` in autograd/function.py) on them, making a Tensor only
where one is asked for: a hook, `retain_grad`, a leaf's `.grad`, autograd.grad's results,
your own Function's backward, and the few ops whose formula needs Tensors.
"""
from __future__ import annotations

import numpy as np

from .. import parts as _parts
from .anomaly_mode import ANOMALY, run_checked
from .function import UNPACK, AccumulateGrad, edge
from .grad_mode import STATE, set_grad_enabled


def _sum_to(grad, shape, node, i):
    """Reduce a gradient that was broadcast up to `shape` (e.g. a bias added to a batch)."""
    gshape = grad.shape
    if gshape == shape:
        return grad
    lead = len(gshape) - len(shape)
    if lead < 0 or any(s != 1 and s != g for s, g in zip(shape, gshape[lead:])):
        raise RuntimeError(
            f"Function {node.name()} returned an invalid gradient at index {i} - got {list(gshape)} "
            f"but expected shape compatible with {list(shape)}")
    if _parts.unbroadcast is not None:  # a course part (minitorch/parts.py)
        return grad._make(_parts.unbroadcast(grad._data, tuple(shape)), grad._device)
    inner = tuple(lead + k for k, s in enumerate(shape) if s == 1 and gshape[lead + k] != 1)
    if inner:
        grad = grad.sum(dim=inner, keepdim=True)
    if lead:  # summing the leading dims away leaves exactly `shape`: no reshape needed
        grad = grad.sum(dim=tuple(range(lead)))
    return grad


def _validate(grad, meta, node, i):
    """Check a gradient that `node`'s backward returned for its input `i` against `meta`, what
    the input's producer recorded about it (shape, dtype, device); sum a broadcast one back."""
    shape, dtype, device = meta
    _differentiable(dtype)
    if grad._device is not device and grad._device != device:
        raise RuntimeError(
            f"Function {node.name()} returned an invalid gradient at index {i} - expected device "
            f"{device} but got {grad._device}")
    arr = grad._data
    if arr.shape != shape:
        grad = _sum_to(grad, shape, node, i)
        arr = grad._data
    if arr.dtype is not dtype.np and arr.dtype != dtype.np:
        grad = grad.to(dtype)
    return grad


def _differentiable(dtype):
    """A gradient only flows into a floating-point tensor; an integer one that requires grad (the
    result of an in-place comparison) stops it with PyTorch's engine assertion."""
    if not dtype.is_floating_point:
        raise RuntimeError('isDifferentiableType(grad.scalar_type()) INTERNAL ASSERT FAILED at '
                           '"/__w/pytorch/pytorch/torch/csrc/autograd/engine.cpp":998, please report a bug to PyTorch. ')


def _sum_to_array(arr, shape, node, i):
    """_sum_to on a backend array (the same checks and sums, without a Tensor around it)."""
    gshape = arr.shape
    lead = len(gshape) - len(shape)
    if lead < 0 or any(s != 1 and s != g for s, g in zip(shape, gshape[lead:])):
        raise RuntimeError(
            f"Function {node.name()} returned an invalid gradient at index {i} - got {list(gshape)} "
            f"but expected shape compatible with {list(shape)}")
    inner = tuple(lead + k for k, s in enumerate(shape) if s == 1 and gshape[lead + k] != 1)
    if inner:
        arr = arr.sum(axis=inner, keepdims=True)
    if lead:
        arr = arr.sum(axis=tuple(range(lead)))
    return arr


def _validate_array(arr, meta, node, i):
    """_validate for an array that an array-level backward returned (its device is its
    inputs' by construction: the formula computed it from them)."""
    shape, dtype, _ = meta
    _differentiable(dtype)
    if arr.shape != shape:
        arr = _sum_to_array(arr, shape, node, i)
    if arr.dtype is not dtype.np and arr.dtype != dtype.np:
        arr = arr.astype(dtype.np)
    return arr


def _moves_arrays(create_graph):
    """Whether this backward moves arrays: nothing of it is recorded, no anomaly mode, and no
    course part (minitorch/parts.py) is plugged in (the parts are written for Tensors)."""
    return not (create_graph or ANOMALY.enabled or _parts.in_use())


def _needs_tensors(node, captured):
    """In a backward that moves arrays, whether this node gets its gradients as Tensors."""
    fn = node._fn  # None for nodes that are no Function's: a leaf's AccumulateGrad takes arrays
    takes_arrays = fn.array_backward if fn is not None else isinstance(node, AccumulateGrad)
    return (not takes_arrays or node._pre_hooks or node._retain or node._post_hooks
            or node in captured)


def _as_tensors(node, grads):
    from .._tensor import Tensor
    metas = node._output_meta
    return [None if g is None else Tensor._make(g, metas[nr][2]) for nr, g in enumerate(grads)]


def _array_backward(node, grads):
    """The node's backward formula on arrays: its saved tensors unpack as arrays too."""
    UNPACK.arrays, UNPACK.xp = True, node._output_meta[0][2].xp
    try:
        res = node._fn.backward(node, *grads)
    finally:
        UNPACK.arrays = False
    return res if isinstance(res, tuple) else (res,)


def _grad_layout(leaf, arr):
    """Whether `arr` may be the leaf's .grad as it is laid out, and else the strides its copy gets
    (None: row-major): PyTorch's gradient layout contract, the leaf's own strides when its memory
    is dense (a transposed parameter gets a transposed gradient), row-major otherwise."""
    if leaf._data.flags.c_contiguous:  # (the common case, a parameter: decided by NumPy's flag)
        return arr.flags.c_contiguous, None
    from .._ops.common import _dense, _strides_from, elem_strides
    shape, strides = leaf._data.shape, elem_strides(leaf._data)
    if not _dense(shape, strides):
        strides = _strides_from(range(len(shape) - 1, -1, -1), shape, False)
    have = elem_strides(arr)
    fits = all(n == 1 and h != 0 or h == w for n, h, w in zip(shape, have, strides))
    return fits or not STATE.grad_layout, strides  # (enforce_grad_layout_policy(False): any layout fits)


def _accumulate_array(node, arr, given):
    """_accumulate for an array: a fresh one that nobody else holds becomes `.grad` as it is."""
    from .._tensor import Tensor
    leaf = node.variable
    old = leaf._grad
    if leaf._accum_hooks or old is None and (arr.base is not None or not _grad_layout(leaf, arr)[0]
                                             or id(arr) in given):
        _accumulate(leaf, Tensor._make(arr, node._output_meta[0][2]), False)  # hooks, or a copy of its own
    elif old is None:
        given.add(id(arr))
        leaf._grad = Tensor._make(arr, node._output_meta[0][2])
    else:
        old._data += arr
        old._storage.version += 1


def _run_leaf_hooks(leaf, grad):
    for hook in leaf._accum_hooks:
        res = hook(grad)
        if res is not None:
            grad = res
    return grad


def _accumulate(leaf, grad, create_graph, hooks=True, given=None):
    """Add `grad` into `leaf.grad`. `given` holds the storages already handed out in this
    backward pass (the caller's gradients, retained grads, other leaves' grads)."""
    if hooks and leaf._accum_hooks:
        grad = _run_leaf_hooks(leaf, grad)
    old = leaf._grad  # the attribute itself: reading .grad of a non-leaf (inputs=) would warn
    if old is None:
        if create_graph:
            leaf._grad = grad
        else:
            fits, strides = _grad_layout(leaf, grad._data)
            if given is not None and grad._base is None and fits and id(grad._storage) not in given:
                # a fresh result of backward that nobody else holds: keep it instead of copying
                given.add(id(grad._storage))
                leaf._grad = grad.detach()
            else:
                # a copy of its own, laid out as the leaf is: the gradient may be a broadcast view, the
                # caller's tensor or shared with another leaf, and later ones are added into it in place
                from .._ops.common import relayout
                from .._tensor import Tensor
                xp = grad._device.xp
                arr = xp.array(grad._data, order="C") if strides is None else \
                    relayout(grad._data, strides, xp, copy=True)
                leaf._grad = Tensor._make(arr, grad._device)
    elif create_graph or STATE.enabled and old._requires_grad:
        leaf._grad = old + grad
    else:
        old._data += grad._data
        old._storage.version += 1


def _collect(roots):
    """Dependency counts of every node reachable from the roots."""
    deps = {}
    seen = set()
    stack = [n for n, _ in roots if n is not None]
    for n in stack:
        seen.add(n)
    while stack:
        node = stack.pop()
        for nxt in node._next:  # the nodes of node.next_functions (without their output numbers)
            if nxt is None:
                continue
            deps[nxt] = deps.get(nxt, 0) + 1
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    return deps


def run_backward(tensors, grad_tensors, retain_graph, create_graph, inputs=None, allow_unused=False,
                 run_inputs=False):
    """The engine shared by Tensor.backward and autograd.grad.

    With `inputs` given (autograd.grad), gradients reaching those tensors are captured and
    returned instead of being accumulated into any `.grad`. `run_inputs` (backward(inputs=...)):
    the node of a non-leaf input runs too (and is freed), as in PyTorch, though its gradients go
    no further.
    """
    roots = [edge(t) for t in tensors]
    for k, (t, (node, _)) in enumerate(zip(tensors, roots)):
        if node is None and not t._no_grad_view:  # a no_grad view: nothing to do, as in PyTorch
            raise RuntimeError(f"element {k} of tensors does not require grad and does not have a grad_fn")
    for t, (node, _) in zip(tensors, roots):  # (a root's gradient is checked as any other: in its dtype)
        if node is not None:
            _differentiable(t.dtype)
    if retain_graph is None:
        retain_graph = create_graph

    capture = None
    if inputs is not None:
        capture = {}
        for k, t in enumerate(inputs):
            if not t.requires_grad:
                raise RuntimeError(f"One of the differentiated Tensors (index {k}) does not require grad")
            capture.setdefault(edge(t), []).append(k)
    deps = _collect(roots)
    arrays = _moves_arrays(create_graph)  # gradients move as backend arrays (see the docstring)
    captured = frozenset(n for n, _ in capture) if capture is not None else ()
    buffers = {}
    for (node, nr), g in zip(roots, grad_tensors):
        if node is not None:
            _add(buffers, node, nr, g._data if arrays else g)
    results = [None] * (len(inputs) if inputs is not None else 0)
    needed = _needed(roots, capture) if capture is not None else None

    # what is handed out in this pass (storages; arrays when arrays move), never stolen into a .grad
    given = {id(g._data) if arrays else id(g._storage) for g in grad_tensors}
    ready = []
    for node, _ in roots:
        if node is not None and deps.get(node, 0) == 0 and node not in ready:
            ready.append(node)
    if _parts.topo_order is not None:  # a course part orders the nodes (minitorch/parts.py)
        ready = _parts.Schedule(roots)
    # inf and nan in a gradient are values, as in PyTorch (sqrt at 0, x ** -1 at 0), not warnings
    with set_grad_enabled(create_graph), np.errstate(all="ignore"):
        while ready:
            node = ready.pop()
            grads = buffers.pop(node, None) or [None]
            wrapped = arrays and _needs_tensors(node, captured)
            if wrapped:  # this node runs, as every node otherwise does, on Tensors
                grads = _as_tensors(node, grads)
            if node._pre_hooks:
                for nr, hooks in node._pre_hooks.items():
                    for hook in hooks:
                        if nr < len(grads) and grads[nr] is not None:
                            res = hook(grads[nr])
                            if res is not None:
                                grads[nr] = res
            if node._retain:
                for nr, ref in node._retain.items():
                    t = ref()
                    if t is not None and nr < len(grads) and grads[nr] is not None:
                        g = grads[nr] if create_graph else grads[nr].detach()
                        given.add(id(g._data) if arrays else id(g._storage))
                        # like a leaf's, a retained grad adds up over backward calls
                        t._grad = g if t._grad is None else t._grad + g
            if capture is not None:
                leaf = node.variable if isinstance(node, AccumulateGrad) else None
                if leaf is not None and leaf._accum_hooks and grads[0] is not None:
                    grads[0] = _run_leaf_hooks(leaf, grads[0])  # autograd.grad sees them too
                for nr, g in enumerate(grads):
                    for k in capture.get((node, nr), ()):
                        results[k] = g
            runs = needed is None or node in needed or run_inputs and node in captured
            if grads[0] is None and grads.count(None) == len(grads):  # e.g. a backward returned None
                if not retain_graph and runs:  # (a node skipped on the way is not run, so keeps its tensors)
                    node._release()
                _release_deps(node, deps, ready)
                continue
            if isinstance(node, AccumulateGrad):
                leaf = node.variable  # None once freed: nobody can read its gradient then
                # (a leaf whose requires_grad was turned off since, or that was detach_()ed, gets none)
                if leaf is None or capture is not None or not leaf._requires_grad:
                    continue
                if arrays and not wrapped:
                    _accumulate_array(node, grads[0], given)
                else:
                    _accumulate(leaf, grads[0], create_graph, given=None if arrays else given)
                if node._post_accumulate:  # (register_post_accumulate_grad_hook: the leaf, its .grad updated)
                    for hook in tuple(node._post_accumulate):
                        hook(leaf)
                continue
            if not runs:
                _release_deps(node, deps, ready)
                continue
            if len(grads) < node._num_outputs:  # (None, or zeros when materialized, for the rest)
                grads = grads + [None] * (node._num_outputs - len(grads))
            if any(g is None for g in grads):
                grads = _materialize(node, grads, arrays and not wrapped)
            if arrays and not wrapped:
                in_grads = _array_backward(node, grads)
            else:
                in_grads = node._apply(grads) if not ANOMALY.enabled else run_checked(node, grads)
            if len(in_grads) != len(node._next):
                raise RuntimeError(
                    f"function {node.name()} returned an incorrect number of gradients (expected "
                    f"{len(node._next)}, got {len(in_grads)})")
            post = node._post_hooks
            if post:
                for hook in post:  # a hook may return the gradients to pass on instead, as in PyTorch
                    res = hook(in_grads, grads)
                    if res is not None:
                        res = tuple(res) if isinstance(res, (tuple, list)) else (res,)
                        if len(res) != len(in_grads):
                            raise RuntimeError(f"hook '{getattr(hook, '__name__', hook)}' has returned an incorrect "
                                               f"number of values (got {len(res)}, but expected {len(in_grads)})")
                        in_grads = res
            if not retain_graph:
                node._release()
            for i, (nxt, nr, g) in enumerate(zip(node._next, node._next_nr, in_grads)):
                if nxt is None:
                    continue
                if g is not None:
                    meta = nxt._output_meta[nr]
                    if not arrays:
                        g = _validate(g, meta, node, i)
                    elif wrapped:  # a node that ran on Tensors hands its next node an array again
                        g = _validate(g, meta, node, i)._data
                    else:
                        g = _validate_array(g, meta, node, i)
                    _add(buffers, nxt, nr, g)
                deps[nxt] -= 1
                if deps[nxt] == 0:
                    ready.append(nxt)

    if inputs is not None:
        for k, g in enumerate(results):
            if g is None and not allow_unused:
                raise RuntimeError(
                    f"The differentiated Tensor at index {k} appears to not have been used in the graph. "
                    "Set allow_unused=True if this is the desired behavior.")
        return tuple(results)
    return None


def _release_deps(node, deps, ready):
    for nxt in node._next:
        if nxt is None:
            continue
        deps[nxt] -= 1
        if deps[nxt] == 0:
            ready.append(nxt)


def _needed(roots, capture):
    """Nodes from which a captured input can be reached: only these need to run. A captured input's
    own node runs only if another one lies beyond it (PyTorch's: its saved tensors stay)."""
    targets = {n for n, _ in capture}
    memo = {}

    def reach(node):
        stack = [(node, False)]
        while stack:
            n, done = stack.pop()
            if n in memo and not done:
                continue
            if done:
                memo[n] = any(x in targets or memo.get(x, False) for x in n._next if x is not None)
                continue
            memo[n] = False  # provisional, the graph is acyclic
            stack.append((n, True))
            for x in n._next:
                if x is not None and x not in memo:
                    stack.append((x, False))
        return memo[node]

    for n, _ in roots:
        reach(n)
    return {n for n, v in memo.items() if v}


def _add(buffers, node, nr, g):
    buf = buffers.get(node)
    if buf is None:
        buf = buffers[node] = []
    while len(buf) <= nr:
        buf.append(None)
    buf[nr] = g if buf[nr] is None else buf[nr] + g


def _materialize(node, grads, arrays=False):
    """Outputs that got no gradient get zeros, so backward formulas need no None checks."""
    if not node._materialize_grads:
        return grads
    from .._tensor import Tensor
    metas = getattr(node, "_output_meta", None)
    out = []
    for nr, g in enumerate(grads):
        if g is None and metas is not None and metas[nr] is not None:
            shape, dtype, device = metas[nr]
            g = device.xp.zeros(shape, dtype.np) if arrays else Tensor._zeros(shape, dtype, device)
        out.append(g)
    return out
