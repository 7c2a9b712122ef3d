"""einsum: Einstein summation, composed of views, sums, multiplies and batched matmuls.

"ij,jk->ik" names each dim of each operand with a letter. Every operand is first lined up on
the same dims: the output's letters, then the letters summed away (a repeated letter takes a
diagonal, a missing one is a size-1 dim). Operands are then contracted pairwise, left to right:
a letter no later operand has is summed there, by one batched matmul when both operands have
it, else by a sum; dims in neither sum multiply elementwise. These are PyTorch's steps, so the
values, result layouts and grad_fn names (ViewBackward0 for a matmul, SumBackward1 for a sum,
MulBackward0 for an outer product) are PyTorch's.
"""
from __future__ import annotations

import math

from ..amp import autocast_mode as _amp  # (autocast: the ops that run in float16 / float32)
from . import common

_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"  # in PyTorch's order (and sublist numbers)


def _from_sublists(args):
    """einsum(op0, [0, 1], op1, [1, 2], [0, 2]): the sublist format, turned into an equation."""
    def letters(sub):
        out = []
        for s in sub:
            if s is Ellipsis:
                out.append("...")
            elif isinstance(s, int) and 0 <= s < 52:
                out.append(_LETTERS[s])
            else:
                raise ValueError("einsum(): subscript in subscript list is not within the valid range [0, 52)")
        return "".join(out)
    ops, subs = list(args[0::2]), list(args[1::2])
    out = None
    if len(ops) > len(subs):  # a trailing output sublist
        out = ops.pop()
        if isinstance(out, common.tensor_cls()):
            raise ValueError("einsum(): the sublist format needs a sublist after every operand")
    eq = ",".join(letters(s) for s in subs)
    if out is not None:
        eq += "->" + letters(out)
    return eq, ops


def _parse(equation, operands):
    """Each operand's labels and the output's: letters as themselves, ellipsis dims as
    negative ints (aligned from the right, as broadcasting aligns them)."""
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    terms = lhs.split(",")
    if len(terms) < len(operands):
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    if len(terms) > len(operands):
        raise RuntimeError("einsum(): fewer operands were provided than specified in the equation")
    labels, n_ell = [], 0
    for k, (term, op) in enumerate(zip(terms, operands)):
        named = term.replace("...", "")
        for i, c in enumerate(named):
            if c not in _LETTERS:
                raise RuntimeError(f"einsum(): invalid subscript given at index {eq.index(c)} in the equation string, "
                                   "subscripts must be in [a-zA-Z]")
        if "..." in term:
            e = op.ndim - len(named)
            if e < 0:
                raise RuntimeError(f"einsum(): the number of subscripts in the equation ({len(named)}) is more than "
                                   f"the number of dimensions ({op.ndim}) for operand {k}")
            head, _, tail = term.partition("...")
            labels.append(list(head) + list(range(-e, 0)) + list(tail))
            n_ell = max(n_ell, e)
        else:
            if len(term) != op.ndim:
                raise RuntimeError(f"einsum(): the number of subscripts in the equation ({len(term)}) does not match "
                                   f"the number of dimensions ({op.ndim}) for operand {k} and no ellipsis was given")
            labels.append(list(term))
    ellipsis = list(range(-n_ell, 0))
    if arrow:
        out = []
        for c in rhs.replace("...", "."):
            if c == ".":
                out += ellipsis
                continue
            if c not in _LETTERS:
                raise RuntimeError(f"einsum(): invalid subscript given at index {eq.index(c)} in the equation string, "
                                   "subscripts must be in [a-zA-Z]")
            if c in out:
                raise RuntimeError(f"einsum(): output subscript {c} appears more than once in the output")
            if not any(c in ls for ls in labels):
                raise RuntimeError(f"einsum(): output subscript {c} does not appear in the equation for any input "
                                   "operand")
            out.append(c)
    else:  # implicit output: ellipsis dims, then the letters seen exactly once, in alphabetical order
        counts = {}
        for ls in labels:
            for c in ls:
                if isinstance(c, str):
                    counts[c] = counts.get(c, 0) + 1
        out = ellipsis + sorted((c for c, n in counts.items() if n == 1), key=_LETTERS.index)
    return labels, out


def _aligned(t, ls, order, k, size, counts):
    """Operand k with its dims in `order`: a repeated letter's diagonal, a size-1 dim for each letter
    it lacks, then permuted. `size` and `counts` (how many operands have each dim with size != 1)
    are updated on the way, and broadcasting checked, with PyTorch's words."""
    perm = [-1] * len(order)
    d = 0
    for lab in ls:
        p = order.index(lab)
        if perm[p] != -1:  # a letter repeated within the operand
            prev = perm[p]
            if t.shape[d] != t.shape[prev]:
                raise RuntimeError(f"einsum(): subscript {lab} is repeated for operand {k} but the sizes don't match, "
                                   f"{t.shape[d]} != {t.shape[prev]}")
            t = t.diagonal(0, prev, d).movedim(-1, prev)
            continue
        n = t.shape[d]
        if n != 1:
            seen = size.get(lab, 1)
            if seen not in (1, n):
                if isinstance(lab, str):
                    raise RuntimeError(f"einsum(): subscript {lab} has size {n} for operand {k} which does not "
                                       f"broadcast with previously seen size {seen}")
                raise RuntimeError(f"einsum(): dimension {d} covered by ellipsis in operand {k}has size {n} which does "
                                   f"not broadcast with previously seen ellipsis with size {seen} for the respective "
                                   "dimension")
            size[lab] = n
            counts[p] += 1
        perm[p] = d
        d += 1
    for p in range(len(order)):
        if perm[p] == -1:
            t = t.unsqueeze(d)
            perm[p] = d
            d += 1
    return t.permute(perm)


def _sumproduct_pair(left, right, sum_dims):
    """left * right summed over `sum_dims` (kept as size-1 dims), two operands on the same dims: one
    bmm of (dims in both, dims in left only, summed) by (both, summed, dims in right only)."""
    if not sum_dims:
        return left * right
    from .linalg import bmm
    lro, lo, ro, sum_size = [], [], [], 1
    for i in range(left.ndim):
        sl, sr = left.shape[i] != 1, right.shape[i] != 1
        if i in sum_dims:
            if sl and sr:
                sum_size *= left.shape[i]
            elif sl:  # summed, but in one operand only: sum it there first
                left = left.sum(i, keepdim=True)
            elif sr:
                right = right.sum(i, keepdim=True)
        elif sl and sr:
            lro.append(i)
        elif sl:
            lo.append(i)
        else:
            ro.append(i)
    if lo and ro and lo[0] > ro[-1]:  # right's dims all come first: PyTorch swaps the operands (a row-major result)
        left, right, lo, ro = right, left, ro, lo
    lro_size = math.prod(left.shape[d] for d in lro)
    lo_size, ro_size = math.prod(left.shape[d] for d in lo), math.prod(right.shape[d] for d in ro)
    out_size = [left.shape[d] for d in lro] + [left.shape[d] for d in lo] + [1] * len(sum_dims) + [right.shape[d] for d in ro]
    back = [0] * left.ndim  # the dims of bmm's result back in their places
    for j, d in enumerate(lro + lo + sum_dims + ro):
        back[d] = j
    left = left.permute(lro + lo + sum_dims + ro).reshape(lro_size, lo_size, sum_size)
    right = right.permute(lro + sum_dims + ro + lo).reshape(lro_size, sum_size, ro_size)
    return bmm(left, right).view(out_size).permute(back)


@_amp.lower_precision
def einsum(*args):
    if not args:
        raise TypeError("einsum(): must specify the equation string and at least one operand, or at least one "
                        "operand and its subscripts list")
    if isinstance(args[0], str):
        equation, operands = args[0], list(args[1:])
        if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
            operands = list(operands[0])
    else:
        equation, operands = _from_sublists(args)
    if not operands:
        raise ValueError("einsum(): must provide at least one operand")
    common.same_device("einsum", *operands)
    labels, out = _parse(equation, operands)
    # the common dims: the output's, then the ellipsis (when the output has none), then the summed letters
    ellipsis = sorted({lab for ls in labels for lab in ls if not isinstance(lab, str)})
    order = list(out) + [lab for lab in ellipsis if lab not in out]
    order += sorted({lab for ls in labels for lab in ls if isinstance(lab, str) and lab not in out}, key=_LETTERS.index)
    n_out = len(out)
    size, counts = {}, [0] * len(order)
    ops = [_aligned(t, ls, order, k, size, counts) for k, (t, ls) in enumerate(zip(operands, labels))]
    while len(ops) > 1:
        a, b = ops.pop(0), ops.pop(0)
        # a summed dim no later operand has is summed now: by the bmm if both have it, else by a sum
        sum_dims, a_dims, b_dims = [], [], []
        for d in range(n_out, len(order)):
            if a.shape[d] != 1 and b.shape[d] != 1:
                counts[d] -= 1
                if counts[d] == 1:
                    sum_dims.append(d)
                    counts[d] = 0
            elif counts[d] == 1:
                if a.shape[d] != 1:
                    a_dims.append(d)
                    counts[d] = 0
                elif b.shape[d] != 1:
                    b_dims.append(d)
                    counts[d] = 0
        if a_dims:
            a = a.sum(a_dims, keepdim=True)
        if b_dims:
            b = b.sum(b_dims, keepdim=True)
        ops.insert(0, _sumproduct_pair(a, b, sum_dims))
    result = ops[0]
    if len(order) > n_out:  # the summed dims: all size 1 by now, unless there was one operand
        if len(operands) > 1:
            return result.view(result.shape[:n_out])
        return result.sum(list(range(n_out, len(order))))
    return result
