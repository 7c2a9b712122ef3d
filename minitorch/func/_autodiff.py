"""grad, grad_and_value, vjp, jvp, jacrev, jacfwd, hessian: derivatives as function transforms,
composed from autograd.grad.

    grad(f)(x)               d f / d x of a scalar f           (one backward pass)
    vjp(f, x) -> (y, vjp_fn) vjp_fn(v) = v^T J                 (one backward pass per call)
    jvp(f, (x,), (t,))       (f(x), J t)                       (two backward passes, see below)
    linearize(f, x)          (f(x), jvp_fn), jvp_fn(t) = J t
    jacrev(f)(x)             J, one vjp per output element     (vmap over the rows)
    jacfwd(f)(x)             J, one jvp per input element      (vmap over the columns)
    hessian(f)(x)            jacfwd(jacrev(f))(x)

How one transform runs: each input it differentiates is replaced by a tensor autograd can
differentiate against (a fresh leaf, or a view of the input when the input already has a
history), f runs on those, and autograd.grad(..., create_graph=True) gives the derivative
as an ordinary tensor with its own graph. Keeping that graph is what lets transforms nest
(grad(grad(f)), vmap(grad(f)), jacfwd(jacrev(f))): the outer transform differentiates
through it. On the way out a result is detached unless its graph reaches a tensor from
outside the transform that requires grad (a captured nn.Parameter, an input with
requires_grad=True), as in PyTorch: grad(f)(x) requires grad only if x (or something f
captured) did.

Forward mode (jvp, jacfwd) is built from reverse mode by the "double vjp": for a cotangent u,
g(u) = u^T J is linear in u, so differentiating g along t gives (d g / d u)^T t = J t, exactly.
"""
from __future__ import annotations

import functools

from .. import autograd
from .._factories import eye, zeros_like
from .._ops.join import split
from .._tensor import Tensor
from ..autograd.function import AccumulateGrad
from ..autograd.grad_mode import enable_grad, is_grad_enabled, no_grad
from . import _tree
from ._vmap import vmap

# ---- inputs in, results out ----------------------------------------------------------------------


def _differentiable(x, private):
    """The tensor a transform differentiates against, standing in for input `x`."""
    if not isinstance(x, Tensor):
        raise ValueError(f"Thing passed to transform API must be Tensor, got {type(x)}")
    if x.requires_grad:
        return x.view_as(x)  # keeps x's history, so whoever differentiates x sees through this transform
    leaf = x.detach().requires_grad_()  # (refused for an integer dtype, as in PyTorch)
    private.append(leaf)
    return leaf


def _reaches_outside(t, private):
    """Does `t`'s graph reach a leaf that requires grad other than this transform's own?"""
    mine = {id(p) for p in private}
    if t.grad_fn is None:
        return t.requires_grad and id(t) not in mine
    todo, seen = [t.grad_fn], set()
    while todo:
        node = todo.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, AccumulateGrad):
            if id(node.variable) not in mine:
                return True
        else:
            todo.extend(n for n, _ in node.next_functions)
    return False


def _unwrap(x, private, tracking):
    """A result leaving the transform: it keeps its graph only if grad mode was on when the
    transform was called (`tracking`) and the graph leads somewhere outside it."""
    if not isinstance(x, Tensor):
        raise RuntimeError(f"Expected tensors, got unsupported type {type(x)}")
    if x.requires_grad and not (tracking and _reaches_outside(x, private)):
        return x.detach()
    return x


def _unwrap_tree(tree, private, tracking):
    return _tree.tree_map(lambda x: _unwrap(x, private, tracking), tree)


def _grads_or_none(outputs, inputs, grad_outputs, retain_graph=None, create_graph=True):
    """autograd.grad over the outputs that require grad; None for an input nothing reached."""
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o.requires_grad]
    if not pairs:
        return [None] * len(inputs)
    return list(autograd.grad([o for o, _ in pairs], inputs, [g for _, g in pairs], retain_graph=retain_graph,
                              create_graph=create_graph, allow_unused=True))


def _autograd_grad(outputs, inputs, grad_outputs, retain_graph=None, create_graph=True):
    """The same with zeros for unreached inputs: the derivative of something independent of x is 0."""
    grads = _grads_or_none(outputs, inputs, grad_outputs, retain_graph, create_graph)
    return [zeros_like(x) if g is None else g for g, x in zip(grads, inputs)]


# ---- argnums: which positional arguments to differentiate ----------------------------------------

def _wrap_argnum(argnum, num_args):
    if not isinstance(argnum, int):
        raise RuntimeError(f"argnum must be int, got: {type(argnum)}")
    if -num_args <= argnum < num_args:
        return argnum % num_args
    raise RuntimeError(f"Got argnum={argnum}, but only {num_args} positional inputs")


def _slice_argnums(args, argnums, as_tuple=True):
    """The differentiated arguments: args[argnums] (a tuple of them for a tuple of argnums)."""
    if not isinstance(argnums, (int, tuple)):
        raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")
    if isinstance(argnums, int):
        arg = args[_wrap_argnum(argnums, len(args))]
        return (arg,) if as_tuple else arg
    argnums = tuple(_wrap_argnum(a, len(args)) for a in argnums)
    if len(argnums) == 0:
        raise RuntimeError("argnums must be non-empty")
    if len(set(argnums)) != len(argnums):
        raise RuntimeError(f"argnums elements must be unique, got {argnums}")
    return tuple(args[i] for i in argnums)


def _replace_args(args, new, argnums):
    """args with the differentiated ones swapped for `new` (one per argnum, or the one)."""
    if isinstance(argnums, int):
        argnums, new = (argnums % len(args),), (new,)
    else:
        argnums = tuple(a % len(args) for a in argnums)
    return tuple(new[argnums.index(i)] if i in argnums else a for i, a in enumerate(args))


def _split_aux(output, has_aux, api):
    if not has_aux:
        return output, None
    if not (isinstance(output, tuple) and len(output) == 2):
        raise RuntimeError(f"{api}: output of function f should be a tuple: (output, aux) if has_aux is True")
    return output


# ---- grad ------------------------------------------------------------------------------------------

def grad_and_value(func, argnums=0, has_aux=False):
    """grad_and_value(f)(*args) -> (d f / d args[argnums], f(*args)); with has_aux=True f
    returns (scalar, aux) and the result is (grad, (scalar, aux))."""
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        tracking, private = is_grad_enabled(), []
        with enable_grad():  # a transform differentiates even when called under no_grad
            diff_args = _tree.tree_map(lambda x: _differentiable(x, private), _slice_argnums(args, argnums, False))
            output = func(*_replace_args(args, diff_args, argnums), **kwargs)
            output, aux = _split_aux(output, has_aux, "grad_and_value(f)(*args)")
            if not isinstance(output, Tensor):
                raise RuntimeError("grad_and_value(f)(*args): Expected f(*args) to return a Tensor, got "
                                   f"{type(output)}")
            if output.dim() != 0:
                raise RuntimeError(f"grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, got tensor "
                                   f"with {output.dim()} dims. Maybe you wanted to use the vjp or jacrev APIs instead?")
            flat_diff, spec = _tree.flatten(diff_args)
            # create_graph: the gradient keeps a graph of its own, for an outer transform to differentiate
            grads = _autograd_grad([output], flat_diff, [None], create_graph=True)
        grads = _tree.unflatten([_unwrap(g, private, tracking) for g in grads], spec)
        output = _unwrap(output, private, tracking)
        if has_aux:
            return grads, (output, _unwrap_tree(aux, private, tracking))
        return grads, output

    return wrapper


def grad(func, argnums=0, has_aux=False):
    """`torch.func.grad`: grad(f)(*args) is the gradient of the scalar f(*args) with respect to
    args[argnums] (an int, or a tuple of ints for a tuple of gradients; an argument may be a
    dict or tuple of tensors, e.g. a model's parameters, and its gradient has that shape).
    With has_aux=True f returns (scalar, aux) and grad returns (gradient, aux)."""
    gv = grad_and_value(func, argnums, has_aux)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        grads, value = gv(*args, **kwargs)
        return (grads, value[1]) if has_aux else grads

    return wrapper


# ---- vjp -------------------------------------------------------------------------------------------

def vjp(func, *primals, has_aux=False):
    """`torch.func.vjp`: (func(*primals), vjp_fn), and vjp_fn(cotangents) is the tuple of
    cotangents^T d func / d primals, one per primal. vjp_fn can be called many times."""
    return _vjp_with_argnums(func, *primals, argnums=None, has_aux=has_aux)


def _vjp_with_argnums(func, *primals, argnums, has_aux):
    tracking, private = is_grad_enabled(), []
    with enable_grad():
        make = functools.partial(_differentiable, private=private)
        if argnums is None:
            diff_primals = _tree.tree_map(make, primals)
            primals = diff_primals
        else:
            diff_primals = _tree.tree_map(make, _slice_argnums(primals, argnums, as_tuple=False))
            primals = _replace_args(primals, diff_primals, argnums)
        output = func(*primals)
        output, aux = _split_aux(output, has_aux, "vjp(f, *primals)")
        flat_out, out_spec = _tree.flatten(output)
        _check_tensor_outputs(flat_out, "vjp(f, *primals)")
        for o in flat_out:
            if not (o.dtype.is_floating_point or o.dtype.is_complex):
                raise RuntimeError("vjp(f, ...): All outputs of f must be floating-point or complex Tensors, got "
                                   f"Tensor with dtype {o.dtype}")
    flat_diff, primals_spec = _tree.flatten(diff_primals)

    def vjp_fn(cotangents, retain_graph=True, create_graph=None):
        if create_graph is None:
            create_graph = is_grad_enabled()
        flat_ct, ct_spec = _tree.flatten(cotangents)
        if ct_spec != out_spec:
            raise RuntimeError("Expected pytree structure of cotangents to be the same as pytree structure of outputs "
                               f"to the function. cotangents: {_tree.pprint(ct_spec)}, primal output: "
                               f"{_tree.pprint(out_spec)}")
        if not all(isinstance(c, Tensor) for c in flat_ct):
            raise RuntimeError("vjp_fn: Expected cotangents to only contain Tensors, got "
                               f"{next(type(c) for c in flat_ct if not isinstance(c, Tensor))}")
        grads = _autograd_grad(flat_out, flat_diff, flat_ct, retain_graph=retain_graph, create_graph=create_graph)
        return _tree.unflatten([_unwrap(g, private, create_graph) for g in grads], primals_spec)

    output = _unwrap_tree(output, private, tracking)
    if has_aux:
        return output, vjp_fn, _unwrap_tree(aux, private, tracking)
    return output, vjp_fn


def _check_tensor_outputs(flat_out, api):
    if len(flat_out) == 0 or (len(flat_out) == 1 and flat_out[0] is None):
        raise RuntimeError(f"{api}: Expected f to be a function that has non-empty output (got output = {flat_out})")
    for o in flat_out:
        if not isinstance(o, Tensor):
            raise RuntimeError(f"{api}: expected f(*primals) to return only tensors, got unsupported type {type(o)}")


# ---- jvp: forward mode, by the double vjp -------------------------------------------------------

_JVP = "jvp(f, primals, tangents)"


def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """`torch.func.jvp`: (func(*primals), J tangents), J the Jacobian of func at primals.
    primals and tangents are tuples of the same structure."""
    return _jvp_with_argnums(func, primals, tangents, argnums=None, strict=strict, has_aux=has_aux)


def _jvp_with_argnums(func, primals, tangents, argnums, *, strict=False, has_aux):
    if not isinstance(primals, tuple):
        raise RuntimeError(f"{_JVP}: Expected primals to be a tuple. E.g. it should be valid to call f(*primals).")
    diff_args = primals if argnums is None else _slice_argnums(primals, argnums)
    flat_primals, primals_spec = _tree.flatten(diff_args)
    flat_tangents, tangents_spec = _tree.flatten(tangents)
    if primals_spec != tangents_spec:
        raise RuntimeError(f"{_JVP}: Expected primals and tangents to have the same python structure. For example, "
                           "if primals is a tuple of 3 tensors, tangents also must be. Got primals with structure "
                           f"{primals_spec} and tangents with structure {tangents_spec}")
    for what, flat in (("primals", flat_primals), ("tangents", flat_tangents)):
        if len(flat) == 0:
            raise RuntimeError(f"{_JVP}: Expected {what} to contain at least one Tensor.")
        for x in flat:
            if not isinstance(x, Tensor):
                raise RuntimeError(f"{_JVP}: Expected {what} to only contain Tensors, got {type(x)}")
    for p, t in zip(flat_primals, flat_tangents):
        if p.shape != t.shape:
            raise RuntimeError("Trying to set a forward gradient that has a different size than that of the original "
                               f"Tensor, this is not supported. Tensor is of size {list(p.shape)} while the given "
                               f"forward gradient is of size {list(t.shape)}.")
    tracking, private = is_grad_enabled(), []
    with enable_grad():
        flat_diff = [_differentiable(p, private) for p in flat_primals]
        duals = _tree.unflatten(flat_diff, primals_spec)
        if argnums is not None:  # (duals is a tuple here, one per argnum, even for one)
            duals = _replace_args(primals, duals[0] if isinstance(argnums, int) else duals, argnums)
        output = func(*duals)
        output, aux = _split_aux(output, has_aux, _JVP)
        flat_out, out_spec = _tree.flatten(output)
        _check_tensor_outputs(flat_out, _JVP)
        flat_jv = _double_vjp(flat_out, flat_diff, flat_tangents, strict, private)
    primals_out = _tree.unflatten([_unwrap(o, private, tracking) for o in flat_out], out_spec)
    tangents_out = _tree.unflatten([_unwrap(t, private, tracking) for t in flat_jv], out_spec)
    if has_aux:
        return primals_out, tangents_out, _unwrap_tree(aux, private, tracking)
    return primals_out, tangents_out


def linearize(func, *primals):
    """`torch.func.linearize`: (func(*primals), jvp_fn), jvp_fn(*tangents) the Jacobian of func at
    primals times the tangents (each call runs func again: minitorch keeps no traced graph)."""
    output = func(*primals)
    flat_primals, primals_spec = _tree.flatten(primals)
    meta = [(p.shape, p.device, p.dtype) for p in flat_primals]

    def jvp_fn(*tangents):
        flat_tangents, tangents_spec = _tree.flatten(tangents)
        if tangents_spec != primals_spec:
            raise RuntimeError(f"Expected the tangents {tangents_spec} to have the same argspec as the primals "
                               f"{primals_spec}")
        for i, (t, m) in enumerate(zip(flat_tangents, meta)):
            for what, have, want in zip(("shape", "device", "dtype"), (t.shape, t.device, t.dtype), m):
                if have != want:
                    raise RuntimeError(f"tangent:{i} with {what} {have} in flattened pytree doesn't match the {what} "
                                       f"{want} of the corresponding primal.")
        with no_grad():  # (the result is a plain tensor, as PyTorch's traced graph gives)
            return jvp(func, primals, tangents)[1]

    return output, jvp_fn


def _double_vjp(outputs, inputs, tangents, strict, private):
    """J t for every output, from two reverse passes. g = u^T J for dummy cotangents u (zeros
    will do: g is linear in u, so its derivative does not depend on where it is taken); then
    the vjp of g against t, with respect to u, is J t."""
    live = [k for k, o in enumerate(outputs) if o.requires_grad]  # the rest do not depend on the inputs
    us = [zeros_like(outputs[k]).requires_grad_() for k in live]
    private.extend(us)
    g = _autograd_grad([outputs[k] for k in live], inputs, us, create_graph=True)
    jv = _grads_or_none(g, us, tangents, create_graph=True) if live else []
    out = [None] * len(outputs)
    for k, t in zip(live, jv):
        out[k] = t
    for k, o in enumerate(outputs):
        if out[k] is None:
            if strict:
                raise RuntimeError("jvp(f, primals, tangents, strict=True): The output of f is independent of the "
                                   "inputs. This is not allowed with strict=True.")
            out[k] = zeros_like(o)
    return out


# ---- Jacobians and the Hessian ---------------------------------------------------------------------

def _standard_basis(flat_tensors):
    """One-hot directions for all elements of all the tensors together: for N elements in all,
    tensor k gets a (N, *shape_k) batch whose row j is 1 at element j (when j is one of its
    own) and 0 elsewhere. Row j, across the tensors, is the j-th unit vector."""
    numels = [t.numel() for t in flat_tensors]
    total, start, basis = sum(numels), 0, []
    for t, n in zip(flat_tensors, numels):
        basis.append(eye(total, dtype=t.dtype, device=t.device)[:, start:start + n].reshape(total, *t.shape))
        start += n
    return basis, numels


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None, _preallocate_and_copy=False):
    """`torch.func.jacrev`: the Jacobian of func with respect to args[argnums], one vjp per
    output element (vmap of vjp_fn over the rows of the identity). The result for one input and
    one output has shape output.shape + input.shape; tuples (or the argument's own structure)
    otherwise, outputs outside, inputs inside."""
    if not (chunk_size is None or chunk_size > 0):
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")

    @functools.wraps(func)
    def wrapper_fn(*args):
        _error_if_complex("jacrev", args, is_input=True)
        vjp_out = _vjp_with_argnums(func, *args, argnums=argnums, has_aux=has_aux)
        output, vjp_fn, aux = vjp_out if has_aux else (*vjp_out, None)
        flat_output, output_spec = _tree.flatten(output)
        _error_if_complex("jacrev", flat_output, is_input=False)
        flat_primals, primals_spec = _tree.flatten(_slice_argnums(args, argnums))
        basis, out_numels = _standard_basis(flat_output)
        rows = _tree.leaves(vmap(vjp_fn, chunk_size=chunk_size)(_tree.unflatten(basis, output_spec)))
        # rows[i]: (N, *primal_i.shape); its rows split by output give d output_k / d primal_i
        per_primal = [[block.reshape(tuple(out.shape) + tuple(p.shape))
                       for block, out in zip(split(r, out_numels, dim=0), flat_output)]
                      for r, p in zip(rows, flat_primals)]
        per_output = [_tree.unflatten(blocks, primals_spec) for blocks in zip(*per_primal)]
        if isinstance(argnums, int):
            per_output = [blocks[0] for blocks in per_output]
        jac = _tree.unflatten(per_output, output_spec)
        return (jac, aux) if has_aux else jac

    return wrapper_fn


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """`torch.func.jacfwd`: the Jacobian of func with respect to args[argnums], one jvp per
    input element (vmap of jvp over the columns of the identity). Same result as jacrev;
    cheaper when func has fewer inputs than outputs (here, where jvp is two vjps, rarely)."""
    @functools.wraps(func)
    def wrapper_fn(*args):
        _error_if_complex("jacfwd", args, is_input=True)
        primals = _slice_argnums(args, argnums)
        flat_primals, primals_spec = _tree.flatten(primals)
        basis, in_numels = _standard_basis(flat_primals)

        def push_jvp(tangents):
            out = _jvp_with_argnums(func, args, tangents, argnums=argnums, has_aux=has_aux)
            _error_if_complex("jacfwd", out[0], is_input=False)
            return (out[1], out[2]) if has_aux else out[1]

        results = vmap(push_jvp, randomness=randomness)(_tree.unflatten(basis, primals_spec))
        if has_aux:
            results, aux = results
            aux = _tree.tree_map(lambda a: a[0], aux)  # the same in every column: func's own aux
        columns, out_spec = _tree.flatten(results)
        # columns[k]: (N, *output_k.shape); moving N last and splitting it by input gives d output_k / d primal_i
        per_output = [_tree.unflatten([_unflatten_last(block, p.shape)
                                       for block, p in zip(split(c.movedim(0, -1), in_numels, dim=-1), flat_primals)],
                                      primals_spec)
                      for c in columns]
        if isinstance(argnums, int):
            per_output = [blocks[0] for blocks in per_output]
        jac = _tree.unflatten(per_output, out_spec)
        return (jac, aux) if has_aux else jac

    return wrapper_fn


def _unflatten_last(t, shape):
    return t.squeeze(-1) if len(shape) == 0 else t.unflatten(-1, tuple(shape))


def hessian(func, argnums=0):
    """`torch.func.hessian`: jacfwd(jacrev(func, argnums), argnums), the matrix of second
    derivatives (shape input.shape + input.shape for a scalar func)."""
    return jacfwd(jacrev(func, argnums), argnums)


def _error_if_complex(name, args, is_input):
    for i, x in enumerate(_tree.leaves(args)):
        if isinstance(x, Tensor) and x.dtype.is_complex:
            raise RuntimeError(f"{name}: Expected all {'inputs' if is_input else 'outputs'} to be real but received "
                               f"complex tensor at flattened input idx: {i}")
