"""vmap: run a function written for one example on a whole batch.

    vmap(f)(xs)              ==  stack([f(x) for x in xs])
    vmap(f, in_dims=1)(xs)   ==  stack([f(xs.select(1, i)) for i in range(xs.shape[1])])
    vmap(f, out_dims=1)(xs)  ==  the same, stacked along dim 1

This vmap is that loop, written out. PyTorch instead pushes the batch dimension into every
operation f calls (one batched matmul, not B small ones); for a pure function (its result
depends only on its arguments, it changes nothing outside) both give the same values, shapes,
dtypes and gradients, up to float rounding (a batched kernel may sum in another order than
the same op on one example: PyTorch's own loop and its vmap differ the same way). Where they
can differ more:

- f sees real tensors of one example, so things PyTorch's batched tensors refuse work here:
  `.item()`, `if x.sum() > 0:` (data-dependent control flow), `.numpy()`.
- out_dims=None: PyTorch refuses an output that came from a mapped input; here an output is
  refused when the slices' outputs differ (an output equal in every slice is returned once).
- randomness='different' draws each slice's numbers in turn, not one batched draw, so the
  numbers are not PyTorch's (the shapes and the distribution are). randomness='error' watches
  the default CPU generator: a draw from another generator (generator=, a GPU's) goes unseen.
- The result is a new stacked tensor: its strides can differ from PyTorch's (which may return
  a view of an input, or an expanded tensor, for an output that did not depend on the batch).
- chunk_size only bounds memory in PyTorch; a loop holds one slice at a time anyway, so here
  it is checked and otherwise changes nothing.
"""
from __future__ import annotations

import functools

from .._ops.join import stack
from .._random import get_rng_state, set_rng_state
from .._tensor import Tensor
from . import _tree


def _get_name(func):
    if hasattr(func, "__name__"):
        return func.__name__
    if isinstance(func, functools.partial):
        return f"functools.partial({_get_name(func.func)}, ...)"
    return repr(func)  # e.g. an nn.Module


def _check_randomness_arg(randomness):
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(
            f"Only allowed values for randomness are 'error', 'different', or 'same'. Got {randomness}")


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """`torch.vmap` / `torch.func.vmap`: map `func` over dimension `in_dims` of its inputs.

    in_dims: an int (every positional argument is mapped along that dim), or a tuple with one
    entry per argument, each an int, None (the argument is passed whole to every call, e.g.
    the parameters) or a nested tuple/dict matching that argument's structure. Keyword
    arguments are never mapped. out_dims: where the mapped dimension goes in each output.
    randomness: 'error' (a random op inside raises), 'different' or 'same' (every slice
    draws the same numbers). See the module docstring for how this loop differs from
    PyTorch's batched execution."""
    _check_randomness_arg(randomness)
    if not (chunk_size is None or chunk_size > 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        _check_out_dims(out_dims, func)
        batch_size, flat_in_dims, flat_args, args_spec = _process_batched_inputs(in_dims, args, func)
        outputs = _run_slices(func, batch_size, flat_in_dims, flat_args, args_spec, randomness, kwargs)
        return _stack_outputs(outputs, out_dims, batch_size, func)

    return wrapped


# ---- the inputs: which dim of which argument is mapped ------------------------------------------

def _process_batched_inputs(in_dims, args, func):
    name = _get_name(func)
    if not isinstance(in_dims, (int, tuple)):
        raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): expected `in_dims` to be int or a "
                         f"(potentially nested) tuple matching the structure of inputs, got: {type(in_dims)}.")
    if len(args) == 0:
        raise ValueError(f"vmap({name})(<inputs>): got no inputs. Maybe you forgot to add inputs, or you are "
                         "trying to vmap over a function with no inputs. The latter is unsupported.")
    flat_args, args_spec = _tree.flatten(args)
    flat_in_dims = _tree.broadcast_prefix(in_dims, args_spec)
    if flat_in_dims is None:
        raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): in_dims is not compatible with the "
                         f"structure of `inputs`. in_dims has structure {_tree.flatten(in_dims)[1]} but inputs has "
                         f"structure {args_spec}.")
    for i, (arg, in_dim) in enumerate(zip(flat_args, flat_in_dims)):
        if in_dim is None:
            continue
        if not isinstance(in_dim, int):
            raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={in_dim} for an input "
                             "but in_dim must be either an integer dimension or None.")
        if not isinstance(arg, Tensor):
            raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={in_dim} for an input "
                             f"but the input is of type {type(arg)}. We cannot vmap over non-Tensor arguments, "
                             "please use None as the respective in_dim")
        if not -arg.dim() <= in_dim < arg.dim():
            raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={in_dim} for some "
                             f"input, but that input is a Tensor of dimensionality {arg.dim()} so expected in_dim "
                             f"to satisfy -{arg.dim()} <= in_dim < {arg.dim()}.")
        flat_in_dims[i] = in_dim % arg.dim()
    sizes = [arg.shape[d] for arg, d in zip(flat_args, flat_in_dims) if d is not None]
    if not sizes:
        raise ValueError("vmap: Expected at least one Tensor to vmap over")
    if any(s != sizes[0] for s in sizes):
        raise ValueError("vmap: Expected all tensors to have the same size in the mapped dimension, got sizes "
                         f"{sizes} for the mapped dimension")
    return sizes[0], flat_in_dims, flat_args, args_spec


# ---- the loop ------------------------------------------------------------------------------------

def _run_slices(func, batch_size, flat_in_dims, flat_args, args_spec, randomness, kwargs):
    """func's output for each slice i of the mapped inputs (views: gradients flow back)."""
    if batch_size == 0:
        # No slice to run: one call on zeros shaped like a slice tells the outputs' shapes. (The
        # sum over the empty mapped dim is such zeros, and keeps the input's graph.)
        probe = [a if d is None else a.sum(d) if a.requires_grad else a.new_zeros(a.shape[:d] + a.shape[d + 1:])
                 for a, d in zip(flat_args, flat_in_dims)]
        return [func(*_tree.unflatten(probe, args_spec), **kwargs)]
    outputs = []
    state = get_rng_state() if randomness != "different" else None
    for i in range(batch_size):
        if randomness == "same":
            set_rng_state(state)  # every slice draws from where the first one started
        sliced = [a if d is None else a.select(d, i) for a, d in zip(flat_args, flat_in_dims)]
        outputs.append(func(*_tree.unflatten(sliced, args_spec), **kwargs))
        if randomness == "error":
            # PyTorch's batched random ops raise; here the draw has happened, so undo it and raise.
            after = get_rng_state()
            if not after.equal(state):
                set_rng_state(state)
                raise RuntimeError(
                    "vmap: called random operation while in randomness error mode. Please either use the 'same' "
                    "or 'different' randomness flags on vmap or perform the randomness operation out of vmap")
    return outputs


# ---- the outputs: stack each along its out_dim ---------------------------------------------------

def _check_out_dims(out_dims, func):
    for d in ([out_dims] if isinstance(out_dims, int) else _tree.leaves(out_dims)):
        if d is not None and not isinstance(d, int):
            raise ValueError(f"vmap({_get_name(func)}, ..., out_dims={out_dims}): `out_dims` must be an int, None "
                             "or a python collection of ints representing where in the outputs the vmapped "
                             "dimension should appear.")


def _flat_out_dims(out_dims, first_output, spec, func):
    if isinstance(first_output, Tensor):  # a lone tensor also takes out_dims=(d,)
        if isinstance(out_dims, int) or out_dims is None:
            return [out_dims]
        if isinstance(out_dims, tuple) and len(out_dims) == 1:
            return list(out_dims)
        flat = None
    else:
        flat = _tree.broadcast_prefix(out_dims, spec)
    if flat is None:
        raise ValueError(f"vmap({_get_name(func)}, ..., out_dims={out_dims})(<inputs>): out_dims is not compatible "
                         f"with the structure of `outputs`. out_dims has structure {_tree.flatten(out_dims)[1]} but "
                         f"outputs has structure {spec}.")
    return flat


def _stack_outputs(outputs, out_dims, batch_size, func):
    name = _get_name(func)
    flat_outputs, spec = _tree.flatten(outputs[0])
    columns = [[x] for x in flat_outputs]  # columns[k]: output k of every slice
    for i, out in enumerate(outputs[1:], 1):
        leaves, s = _tree.flatten(out)
        if s != spec:
            raise RuntimeError(f"vmap({name}, ...): `{name}` returned outputs of different structure for different "
                               f"slices ({spec} for slice 0, {s} for slice {i}); every slice must return the same "
                               "structure")
        for col, x in zip(columns, leaves):
            col.append(x)
    results = []
    for col, out_dim in zip(columns, _flat_out_dims(out_dims, outputs[0], spec, func)):
        first = col[0]
        if out_dim is None:
            if isinstance(first, Tensor) and not all(x is first or _same(x, first) for x in col[1:]):
                raise ValueError(f"vmap({name}, ...): `{name}` can not return a BatchedTensor when out_dim is None "
                                 "(this output differs between slices, so it depends on the mapped inputs)")
            results.append(first)
            continue
        if not all(isinstance(x, Tensor) for x in col):
            bad = next(x for x in col if not isinstance(x, Tensor))
            raise ValueError(f"vmap({name}, ...): `{name}` must only return Tensors, got type {type(bad)}. Did you "
                             "mean to set out_dims= to None for output?")
        if any(x.shape != first.shape for x in col):
            shapes = sorted({tuple(x.shape) for x in col})
            raise RuntimeError(f"vmap({name}, ...): `{name}` returned tensors of different shapes {shapes} for "
                               "different slices; every slice's output must have the same shape")
        if batch_size == 0:
            stacked = first.unsqueeze(0)[:0]  # no slices: empty, shaped (and tracked) like the probe's output
        else:
            stacked = stack(col)
        if out_dim not in (0, -stacked.dim()):  # stacked along 0, then moved: the strides PyTorch's often has
            stacked = stacked.movedim(0, out_dim)
        results.append(stacked)
    return _tree.unflatten(results, spec)


def _same(a, b):
    return a.shape == b.shape and a.dtype == b.dtype and a.equal(b)
