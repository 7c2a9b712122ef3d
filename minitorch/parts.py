"""Parts: the places where a mechanism you build in the course's exercises plugs into minitorch.

Every name below is a hook, None by default. When it is None (always, unless you ask for your
own parts), the library runs its own code and the hook costs one attribute read. When it is
set, the library computes with it at that place: a view builds its result with `as_strided`
from the strides the hook returns, the engine runs nodes in the order the hook gives, an
optimizer's step calls the hook on the parameter arrays.

The course sets them (`from minitorch_course import use_mine; use_mine()`), from the functions
you wrote in the exercises; its adapters (minitorch_course/parts.py) turn your functions, written
on plain Python values, into the signatures below.

Each hook: its signature (what the library calls it with, what it returns), the exercise where
you write it, the place in the library that calls it, and what the library does without it.

contiguous_strides(shape) -> strides                                     exercise 03 q1
    _ops/views.py View.forward, viewing a contiguous tensor; else NumPy's reshape
is_contiguous(shape, strides) -> bool                                    exercise 03 q3
    _tensor.py Tensor.is_contiguous; else its own loop
broadcast_shapes(*shapes) -> shape, or RuntimeError                      exercise 04 q1
    _ops/common.py broadcast_shapes (broadcast_shapes, broadcast_tensors, in-place ops)
expand_strides(shape, strides, new_shape) -> strides                     exercise 04 q2
    _ops/views.py Expand.forward; else its own strides
transpose_strides(shape, strides, dim0, dim1) -> (shape, strides)        exercise 05 q1
    _ops/views.py Transpose.forward; else ndarray.transpose
slice_view(shape, strides, offset, dim, start, stop, step)               exercise 05 q2
        -> (shape, strides, offset)
    _ops/index.py Slice.forward, for t[a:b, ::c] (slices only, none empty); else NumPy's slicing
view_strides(shape, strides, new_shape) -> strides, or None              exercise 05 q3
    _ops/views.py View.forward, viewing a strided tensor; else views.view_strides
version_check(saved_version, current_version) -> True if modified        exercise 06 q2
    autograd/function.py SavedTensor.unpack and SavedOutput.unpack; else `!=`
topo_order({node: [its input nodes]}) -> [nodes], each before its inputs exercise 09 q1
    autograd/engine.py run_backward (parts.Schedule); else the engine's ready queue
local_backward(op, inputs, grad, needs) -> a gradient per input          exercise 10 q1
    _ops/pointwise.py, the backward of Add, Sub, Mul, Div, Pow, PowScalar, Neg, Exp, Log,
    Tanh, Sigmoid, Relu (see below); else each op's own backward
unbroadcast(grad array, shape) -> array of that shape                    exercise 10 q2
    autograd/engine.py _sum_to; else two sums
reduce_backward(op, grad, shape, dims, keepdim) -> the input's gradient  exercise 10 q3
    _ops/reduce.py, the backward of Sum and Mean (op "sum", "mean"; grad a tensor, the result
    a tensor of `shape`); else _expand_back
matmul_backward(a, b, grad, needs) -> (grad_a, grad_b)                  exercise 10 q4
    _ops/linalg.py Matmul (a @ b of matrices, and of a vector, as a 1-row or 1-column matrix)
    and nn/_fused.py Addmm (nn.Linear: x @ w.T, asked as matmul_backward(x, w.t(), ...)); a, b
    and grad 2-D tensors, the results tensors (None where needs says no); else `grad @ b.mT`
    and `a.mT @ grad`. Batched matmuls (3-D and more) keep the library's formula.
view_backward(op, args, shape, grad) -> the input's gradient             exercise 10 q5
    _ops/views.py, the backward of View and reshape ("view", (new_shape,)), Permute, Transpose
    and t() ("permute", (dims,)), Expand ("expand", (new_shape,)), Squeeze ("squeeze",
    (new_shape,)) and Unsqueeze ("unsqueeze", (dim,)); shape the input's, grad a tensor, the
    result a tensor of `shape`; else a reshape, a permute, the engine's sum-back, a squeeze
sgd_step(optimizer, closure) -> loss                                     exercise 13 q1
    optim/sgd.py SGD.step; else SGD.step's own loop
adam_step(optimizer, closure) -> loss                                    exercise 13 q2
    optim/adam.py Adam.step; else Adam.step's own loop
im2col(xp, x, kernel, stride, padding) -> cols (N, C*kh*kw, OH*OW)       exercise 15 q2
    nn/_conv.py im2col_array (and conv_columns, for Conv2d); else strided windows
embedding_grad(xp, ids, grad, num, padding_idx) -> table gradient        exercise 16 q2
    nn/_embedding.py EmbeddingDense.forward; else index_add_flat

Shapes and strides are tuples of ints, strides in elements. Arrays are NumPy (or CuPy) arrays.
local_backward(op, inputs, grad, needs): op is "add", "sub", "mul", "div", "pow" (Add, Sub, Mul,
Div, Pow, PowScalar), or "neg", "exp", "log", "tanh", "sigmoid", "relu"; inputs what the op
kept for backward: its inputs (tensors, or Python numbers; 0.0 for add, sub and neg, which keep
nothing), or for exp, tanh, sigmoid and relu its output; grad the gradient of the output (a
tensor); needs which inputs want a gradient. It returns one gradient (a tensor, or None) per
input, in the broadcast shape: the engine sums them back (with `unbroadcast`). With it (or
unbroadcast, reduce_backward, matmul_backward or view_backward) in use, gradients of gradients
(create_graph=True) through those ops are not recorded.

A hook with a Python-level default of None is the whole mechanism: nothing here imports the
rest of the library, and setting a hook back to None restores the library's own code.
"""
from __future__ import annotations

contiguous_strides = None
is_contiguous = None
broadcast_shapes = None
expand_strides = None
transpose_strides = None
slice_view = None
view_strides = None
version_check = None
topo_order = None
local_backward = None
unbroadcast = None
reduce_backward = None
matmul_backward = None
view_backward = None
sgd_step = None
adam_step = None
im2col = None
embedding_grad = None

HOOKS = ("contiguous_strides", "is_contiguous", "broadcast_shapes", "expand_strides", "transpose_strides",
         "slice_view", "view_strides", "version_check", "topo_order", "local_backward", "unbroadcast",
         "reduce_backward", "matmul_backward", "view_backward", "sgd_step", "adam_step", "im2col", "embedding_grad")


def in_use():
    """The hooks that are set now (a part other than the library's own is plugged in)."""
    g = globals()
    return [name for name in HOOKS if g[name] is not None]


class Schedule(list):
    """The engine's queue of nodes when `topo_order` is set: the nodes in that order, popped
    from the front. The engine still appends a node when its inputs are ready; that is ignored:
    the order is the hook's, right or wrong (a node run before all of its consumers have run
    sends its inputs a partial gradient)."""

    def __init__(self, roots):
        graph, stack = {}, [n for n, _ in roots if n is not None]
        while stack:
            node = stack.pop()
            if node in graph:
                continue
            graph[node] = [nxt for nxt, _ in node.next_functions if nxt is not None]
            stack.extend(graph[node])
        super().__init__(reversed(topo_order(graph)))

    def append(self, node):
        pass
