"""rearrange: einops' pattern language for reshape + permute, as torch.func has it.

    rearrange(images, "b h w c -> b c h w")              a permutation
    rearrange(images, "b h w c -> (b h) w c")            merge axes (a reshape)
    rearrange(images, "b (h1 h) w c -> (b h1) h w c", h1=2)   split one (its size given), then merge

Three steps, each an ordinary op: reshape the input into its elementary axes (splitting the
bracketed groups on the left), permute them into the right side's order, reshape into the right
side's groups. `...` stands for the axes not named; an axis written `1` on the right is a new
size-1 axis. As PyTorch's (which binds the left side's `1` to whatever size is there), a `1` on
the left is summed away.
"""
from __future__ import annotations

import math

from .._tensor import Tensor

_ELLIPSIS = "…"  # (one character for "...", so that it parses as one identifier)


class DimensionBindError(Exception):
    """The sizes a pattern gives do not fit the tensor (functorch.dim's error)."""


def _parse(expression):
    """The expression's axes: a list with, per axis of its side, a list of the identifiers it
    is made of (empty for `1` / `()`), or the ellipsis; and the set of identifiers."""
    if "." in expression:
        if "..." not in expression:
            raise ValueError("Expression may contain dots only inside ellipsis (...)")
        if expression.count("...") != 1 or expression.count(".") != 3:
            raise ValueError("Expression may contain dots only inside ellipsis (...); only one ellipsis for tensor ")
        expression = expression.replace("...", _ELLIPSIS)
    composition, names, group = [], set(), None

    def add(name):
        if name in names:
            raise ValueError(f"Indexing expression contains duplicate dimension '{name}'")
        if name.isdecimal():
            if int(name) == 1:
                if group is None:
                    composition.append([])
                return
            raise ValueError("rearrange only supports unnamed axes of size 1")
        if name != _ELLIPSIS and (not name.isidentifier() or name.startswith("_")):
            raise ValueError(f"Invalid axis identifier: {name}")
        names.add(name)
        if group is not None:
            if name == _ELLIPSIS:
                raise ValueError("Ellipsis is parenthesis in the left side is not allowed")
            group.append(name)
        else:
            composition.append(name if name == _ELLIPSIS else [name])

    word = ""
    for char in expression + " ":
        if char.isalnum() or char in "_" + _ELLIPSIS:
            word += char
            continue
        if word:
            add(word)
        word = ""
        if char == "(":
            if group is not None:
                raise ValueError("Axis composition is one-level (brackets inside brackets not allowed)")
            group = []
        elif char == ")":
            if group is None:
                raise ValueError("Brackets are not balanced")
            composition.append(group)
            group = None
        elif char != " ":
            raise ValueError(f"Unknown character '{char}'")
    if group is not None:
        raise ValueError(f"Imbalanced parentheses in expression: '{expression}'")
    return composition, names


def rearrange(tensor, pattern, **axes_lengths):
    """`torch.func.rearrange`: the tensor (or a list of tensors, stacked first) with its axes
    split, merged, permuted, added or removed as `pattern` ("left -> right") says."""
    if not isinstance(tensor, Tensor):
        from .._ops.join import stack
        tensor = stack(list(tensor))
    parts = pattern.split("->")
    if len(parts) != 2:
        raise ValueError("Pattern must contain a single '->' separator")
    (left, left_names), (right, right_names) = _parse(parts[0]), _parse(parts[1])
    if _ELLIPSIS in right_names and _ELLIPSIS not in left_names:
        raise ValueError(f"Ellipsis found in right side, but not left side of a pattern {pattern}")
    for length in axes_lengths.values():
        if not isinstance(length, int):
            raise TypeError(f"rearrange axis lengths must be integers, got: {type(length)}")
    if left_names != right_names:
        raise ValueError(f"Identifiers only on one side of rearrange expression (should be on both): "
                         f"{left_names ^ right_names}")
    if set(axes_lengths) - left_names:
        raise ValueError(f"Identifiers not found in rearrange expression: {set(axes_lengths) - left_names}")
    if _ELLIPSIS in left_names:
        named = sum(1 for a in left if a != _ELLIPSIS)
        if named > tensor.ndim:
            raise ValueError(f"Number of dimensions in pattern ({named}) must be less than or equal to the number of "
                             f"dimensions in the tensor ({tensor.ndim})")
    elif len(left) != tensor.ndim:
        raise ValueError(f"Number of dimensions in pattern ({len(left)}) must be equal to the number of dimensions "
                         f"in the tensor ({tensor.ndim})")

    if left == right == [_ELLIPSIS] or not left and not right:  # (nothing to do: PyTorch returns the tensor itself)
        return tensor
    # 1. the elementary axes: each left group split into its identifiers' sizes
    sizes, elementary, anonymous = dict(axes_lengths), [], []
    for dim, axis in _left_axes(left, tensor.ndim):
        if axis == _ELLIPSIS:
            elementary.append(f"{_ELLIPSIS}{dim}")
            sizes[elementary[-1]] = tensor.shape[dim]
        elif not axis:  # a `1` on the left: bound to whatever size is there, then summed away
            anonymous.append(len(elementary))
            elementary.append(f"1@{dim}")
            sizes[elementary[-1]] = tensor.shape[dim]
        else:
            _bind(axis, tensor.shape[dim], sizes, first=len(elementary))
            elementary += axis
    x = tensor.reshape([sizes[a] for a in elementary])
    # 2. permuted into the right side's order (a left `1` last); 3. grouped as the right side says
    ellipsis = [a for a in elementary if a.startswith(_ELLIPSIS)]
    groups = []
    for axis in right:
        groups += [[a] for a in ellipsis] if axis == _ELLIPSIS else [axis]
    groups += [[elementary[i]] for i in anonymous]
    x = x.permute([elementary.index(a) for group in groups for a in group])
    x = x.reshape([math.prod(sizes[a] for a in group) for group in groups])
    return x.sum(tuple(range(-len(anonymous), 0))) if anonymous else x


def _left_axes(left, ndim):
    """(the tensor's dim, the left side's axis for it), the ellipsis spread over the dims it covers."""
    dim = 0
    for axis in left:
        for _ in range(ndim - (len(left) - 1) if axis == _ELLIPSIS else 1):
            yield dim, axis
            dim += 1


def _bind(group, size, sizes, first):
    """Give every identifier of a left group its size: the ones given, and the one left unknown
    (at most one) inferred from the axis's size. (PyTorch's messages name the elementary axes
    d0, d1, ... from the left.)"""
    names = {a: f"d{first + i}" for i, a in enumerate(group)}
    unknown = [a for a in group if a not in sizes]
    known = math.prod(sizes[a] for a in group if a in sizes)
    if len(unknown) > 1:
        raise DimensionBindError(f"cannot infer the sizes of two dimensions at once {names[unknown[0]]} and "
                                 f"{names[unknown[1]]}")
    if unknown:
        if known == 0 or size % known:
            given = tuple(sizes[a] if a in sizes else "?" for a in group)
            raise DimensionBindError(f"inferred dimension does not evenly fit into larger dimension: {size} vs "
                                     f"{given}")
        sizes[unknown[0]] = size // known
    elif known != size:
        raise DimensionBindError(f"Dimension sizes to do not match ({size} != {known}) when matching dimension pack "
                                 f"({', '.join(names[a] for a in group)},)")
