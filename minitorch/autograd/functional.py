"""`autograd.functional`: derivatives of a whole function, built on autograd.grad.

    jacobian(f, x)      d f(x) / d x, shaped f(x).shape + x.shape: one backward pass per output element
    hessian(f, x)       the Jacobian of the gradient of a scalar f
    vjp(f, x, v)        v^T J (one backward pass);     jvp(f, x, v)   J v (two, by the double-backward trick)
    vhp(f, x, v)        v^T H;                         hvp(f, x, v)   H v

`inputs` is a tensor or a tuple of tensors, and `f` is called as f(*inputs); the results mirror
that shape (a tuple per input, and for jacobian a tuple per output too), as in PyTorch. With
create_graph=True the results are themselves differentiable; otherwise they are detached.
`vectorize` and the strategy arguments are accepted for compatibility: the results are the
same, computed one backward pass at a time.
"""
from __future__ import annotations

from .grad_mode import enable_grad


def _tensor_cls():
    from .._tensor import Tensor
    return Tensor


def _as_tuple(x, what, fn):
    T = _tensor_cls()
    if isinstance(x, T):
        return False, (x,)
    if isinstance(x, (tuple, list)) and all(isinstance(t, T) for t in x):
        return True, tuple(x)
    got = type(x) if not isinstance(x, (tuple, list)) else f"{type(x).__name__} containing " + ", ".join(
        sorted({type(t).__name__ for t in x if not isinstance(t, T)}))
    raise TypeError(f"The {what} given to {fn} must be either a Tensor or a tuple of Tensors but the given {what} "
                    f"has type {got}.")


def _prepare(inputs, create_graph):
    """Inputs the function can be differentiated against: a view keeps an outer graph (for a
    second derivative), otherwise a detached leaf that requires grad."""
    out = []
    for x in inputs:
        if create_graph and x.requires_grad:
            out.append(x.view_as(x))
        else:
            out.append(x.detach().requires_grad_())  # (an integer input is refused, as in PyTorch)
    return tuple(out)


def _finish(ts, create_graph):
    return tuple(t if create_graph else t.detach() for t in ts)


def _independent(k):
    return f"The output of the user-provided function is independent of input {k}. This is not allowed in strict mode."


def _grads(outputs, inputs, grad_outputs, create_graph, strict, retain_graph=True, message=_independent):
    """autograd.grad, with zeros for the inputs an output does not depend on (an error when strict)."""
    from . import grad
    from .._factories import zeros_like
    needed = [(o, g) for o, g in zip(outputs, grad_outputs) if o.requires_grad]
    if needed:
        res = grad([o for o, _ in needed], inputs, [g for _, g in needed], retain_graph=retain_graph,
                   create_graph=create_graph, allow_unused=True)
    else:
        res = (None,) * len(inputs)
    out = []
    for i, (g, x) in enumerate(zip(res, inputs)):
        if g is None:
            if strict:
                raise RuntimeError(message(i))
            g = zeros_like(x)
        out.append(g)
    return tuple(out)


def _tuple_result(res, is_tuple):
    return res if is_tuple else res[0]


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(*inputs), v^T J): the vector-Jacobian product, one backward pass."""
    from .._factories import ones_like
    in_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
    with enable_grad():
        inputs = _prepare(inputs, create_graph)
        outputs = func(*inputs)
        out_tuple, outs = _as_tuple(outputs, "outputs of the user-provided function", "vjp")
        if v is None:
            if len(outs) != 1 or outs[0].numel() != 1:
                raise RuntimeError("The vector v can only be None if the user-provided function returns a single "
                                   "Tensor with a single element.")
            vs = (ones_like(outs[0]),)
        else:
            _, vs = _as_tuple(v, "v", "vjp")
        g = _grads(outs, inputs, vs, create_graph, strict, retain_graph=create_graph)
    return _tuple_result(_finish(outs, create_graph), out_tuple), _tuple_result(_finish(g, create_graph), in_tuple)


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(*inputs), J v): the Jacobian-vector product, by differentiating a vjp with respect
    to its (dummy) vector: vjp(u) = u^T J is linear in u, and its gradient along v is J v."""
    from .._factories import ones_like, zeros_like
    in_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
    with enable_grad():
        inputs = _prepare(inputs, create_graph)
        outputs = func(*inputs)
        out_tuple, outs = _as_tuple(outputs, "outputs of the user-provided function", "jvp")
        if v is None:
            if len(inputs) != 1 or inputs[0].numel() != 1:
                raise RuntimeError("The vector v can only be None if the input to the user-provided function is a "
                                   "single Tensor with a single element.")
            vs = (ones_like(inputs[0]),)
        else:
            _, vs = _as_tuple(v, "v", "jvp")
        us = tuple(zeros_like(o).requires_grad_(True) for o in outs)
        g = _grads(outs, inputs, us, True, strict)
        jv = _grads(g, us, vs, create_graph, strict)
    return _tuple_result(_finish(outs, create_graph), out_tuple), _tuple_result(_finish(jv, create_graph), out_tuple)


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False, strategy="reverse-mode"):
    """d func(*inputs) / d inputs: for one input and one output a tensor of shape
    output.shape + input.shape; a tuple over inputs (and over outputs) otherwise."""
    from .._factories import zeros
    from .._ops.join import stack
    _check_strategy(strategy, vectorize)
    in_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
    with enable_grad():
        inputs = _prepare(inputs, create_graph)
        outputs = func(*inputs)
        out_tuple, outs = _as_tuple(outputs, "outputs of the user-provided function", "jacobian")
        jac = []
        for i, out in enumerate(outs):
            if out.numel() == 0:  # (PyTorch stacks the rows of the Jacobian: none to stack)
                raise RuntimeError("stack expects a non-empty TensorList")
            rows = [[] for _ in inputs]
            for j in range(out.numel()):
                onehot = out.new_zeros(out.shape)
                onehot._data.reshape(-1)[j] = 1
                g = _grads((out,), inputs, (onehot,), create_graph, strict, message=lambda k: (
                    f"Output {i} of the user-provided function is independent of input {k}. This is not allowed in "
                    "strict mode."))
                for r, gk in zip(rows, g):
                    r.append(gk)
            per_input = []
            for r, x in zip(rows, inputs):
                shape = tuple(out.shape) + tuple(x.shape)
                block = stack(r).reshape(shape) if r else zeros(shape, dtype=x.dtype, device=x.device)
                per_input.append(block if create_graph else block.detach())
            jac.append(tuple(per_input))
    if out_tuple:
        return tuple(_tuple_result(j, in_tuple) for j in jac)
    return _tuple_result(jac[0], in_tuple)


def _check_strategy(strategy, vectorize):
    if strategy not in ("reverse-mode", "forward-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your function '
                             "has more outputs than inputs, \"forward-mode\" tends to be more performant. Otherwise, "
                             "prefer to use \"reverse-mode\".")
    if strategy == "forward-mode" and not vectorize:
        raise NotImplementedError("Computing Jacobian using forward-AD or forward-over-reverse Hessian is only "
                                  "implemented for `vectorize=True`.")


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False, outer_jacobian_strategy="reverse-mode"):
    """The matrix of second derivatives of a scalar func: shape input.shape + input.shape (for
    several inputs, a tuple of tuples H[i][j] = d^2 f / d input_i d input_j)."""
    T = _tensor_cls()
    in_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")

    def scalar_output(*xs):
        out = func(*xs)
        if not isinstance(out, T):
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if out.numel() != 1:
            raise RuntimeError("The Tensor returned by the function given to hessian should contain a single element")
        return out.reshape(())

    def gradient(*xs):
        return jacobian(scalar_output, xs, create_graph=True, strict=strict)

    _check_strategy(outer_jacobian_strategy, vectorize)
    res = jacobian(gradient, inputs, create_graph=create_graph, strict=strict)
    if not in_tuple:
        return res[0][0]
    return res


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(*inputs), v^T H) for a scalar func: differentiate (grad f) . v once more."""
    return _hessian_product("vhp", func, inputs, v, create_graph, strict)


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(*inputs), H v) for a scalar func. The Hessian of a twice continuously differentiable
    function is symmetric, so H v is v^T H, computed the same way."""
    return _hessian_product("hvp", func, inputs, v, create_graph, strict)


def _hessian_product(fn, func, inputs, v, create_graph, strict):
    from .._factories import ones_like
    in_tuple, inputs = _as_tuple(inputs, "inputs", fn)
    with enable_grad():
        inputs = _prepare(inputs, create_graph)
        out = func(*inputs)
        T = _tensor_cls()
        if not isinstance(out, T) or out.numel() != 1:
            raise RuntimeError(f"The Tensor returned by the function given to {fn} should contain a single element")
        if v is None:
            if len(inputs) != 1 or inputs[0].numel() != 1:
                raise RuntimeError("The vector v can only be None if the input to the user-provided function is a "
                                   "single Tensor with a single element.")
            vs = (ones_like(inputs[0]),)
        else:
            _, vs = _as_tuple(v, "v", fn)
        g = _grads((out,), inputs, (ones_like(out),), True, strict)
        hv = _grads(g, inputs, vs, create_graph, strict)
    return _finish((out,), create_graph)[0], _tuple_result(_finish(hv, create_graph), in_tuple)
