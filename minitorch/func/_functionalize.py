"""functionalize: PyTorch's transform that rewrites a function's in-place ops and views as
out-of-place ops and copies, for compilers that cannot represent mutation.

minitorch runs eagerly, with no compiler to hand the program to: the function runs as written,
which computes the same values (an input it modifies is modified, as PyTorch copies the new
values back into it). What functionalization changes that a program can see is kept: a result
sharing memory with an input the function modified is a new tensor, and so, with
remove='mutations_and_views', is every result sharing memory with an input.
"""
from __future__ import annotations

import functools

from .._tensor import Tensor
from . import _tree


def functionalize(func, *, remove="mutations"):
    if remove not in ("mutations", "mutations_and_views"):
        raise RuntimeError(
            f"functionalize(f, remove='mutations'): received invalid argument for remove={remove}. Valid options are:\n"
            "     remove='mutations': all inplace and out= operators will be removed from the program, and replaced "
            "with their out-of-place equivalents.\n"
            "     remove='mutations_and_views': In addition to the above, all aliasing operators {view} will be "
            "replaced with their non-aliasing counterparts, {view}_copy.\n")

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        inputs = [t for t in _tree.leaves((args, kwargs)) if isinstance(t, Tensor)]
        versions = [t._version for t in inputs]
        out = func(*args, **kwargs)
        mutated = [t for t, v in zip(inputs, versions) if t._version != v]

        def fresh(t):
            # an input it wrote to comes back as a new tensor (PyTorch's copy of the new values), and
            # so does every result sharing its memory; without views, every result sharing an input's
            if not isinstance(t, Tensor) or any(t is i for i in inputs) and not any(t is m for m in mutated):
                return t
            if any(t._storage is m._storage for m in mutated) or remove == "mutations_and_views" and any(
                    t._storage is i._storage for i in inputs):
                return t.clone()
            return t
        return _tree.tree_map(fresh, out)

    return wrapped
