"""einsum: Einstein summation, composed of views, sums, multiplies and batched matmuls.

"ij,jk->ik" names each dim of each operand with a letter. A letter repeated within an operand
takes a diagonal; a letter that appears in one operand only and not in the output is summed
away; two operands are then contracted pairwise, left to right: the letters they share and
that are needed later become batch dims, the shared ones that are not are summed over by one
batched matmul, and the rest are kept. This is how PyTorch computes it too, so gradients come
from those ops, and grad_fn names match in the common cases (ViewBackward0 for a matmul,
PermuteBackward0 for a transpose, SumBackward1 for a sum, MulBackward0 for an outer product).
"""
from __future__ import annotations

import math

from . import common

_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


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
                raise ValueError("einsum(): expected subscript to be within the range [0, 52), but got " + str(s))
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


def _sizes(labels, operands):
    """The size of every label; a size-1 dim broadcasts against a larger one."""
    size = {}
    for k, (ls, op) in enumerate(zip(labels, operands)):
        for lab, n in zip(ls, op.shape):
            seen = size.get(lab, 1)
            if n != 1 and seen != 1 and n != seen:
                name = lab if isinstance(lab, str) else "..."
                raise RuntimeError(f"einsum(): subscript {name} has size {n} for operand {k} which does not broadcast "
                                   f"with previously seen size {seen}")
            size[lab] = n if n != 1 else seen
    return size


def _diagonals(t, ls):
    """Take the diagonal for each label repeated within one operand."""
    ls = list(ls)
    while len(set(ls)) != len(ls):
        lab = next(x for x in ls if ls.count(x) > 1)
        i = ls.index(lab)
        j = ls.index(lab, i + 1)
        t = t.diagonal(0, i, j)
        ls = [x for k, x in enumerate(ls) if k not in (i, j)] + [lab]
    return t, ls


def _sum_away(t, ls, keep):
    dims = [i for i, lab in enumerate(ls) if lab not in keep]
    if not dims:
        return t, ls
    return t.sum(dims), [lab for lab in ls if lab in keep]


def _broadcast(t, ls, size):
    want = [size[lab] for lab in ls]
    return (t.expand(want) if list(t.shape) != want else t), ls


def _contract(a, la, b, lb, keep, size):
    """a * b summed over the shared labels not in `keep`, by one batched matmul."""
    a, la = _sum_away(a, la, set(lb) | keep)
    b, lb = _sum_away(b, lb, set(la) | keep)
    batch = [x for x in la if x in lb and x in keep]
    summed = [x for x in la if x in lb and x not in keep]
    a_only = [x for x in la if x not in lb]
    b_only = [x for x in lb if x not in la]
    a = a.permute(*[la.index(x) for x in batch + a_only + summed]) if la != batch + a_only + summed else a
    b = b.permute(*[lb.index(x) for x in batch + summed + b_only]) if lb != batch + summed + b_only else b
    bs = [size[x] for x in batch]
    ms, ks, ns = [size[x] for x in a_only], [size[x] for x in summed], [size[x] for x in b_only]
    if not summed:  # nothing to sum over: an outer product per batch, by broadcasting
        out = a.reshape(bs + ms + [1] * len(ns)) * b.reshape(bs + [1] * len(ms) + ns)
    else:
        m, k, n = math.prod(ms), math.prod(ks), math.prod(ns)
        a2 = a.reshape(bs + [m, k]) if bs else a.reshape(m, k)
        b2 = b.reshape(bs + [k, n]) if bs else b.reshape(k, n)
        out = (a2 @ b2).reshape(bs + ms + ns)
    return out, batch + a_only + b_only


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
    dt = operands[0].dtype
    for op in operands[1:]:
        if op.dtype is not dt:
            raise RuntimeError(f"expected scalar type {dt._short} but found {op.dtype._short}")
    common.same_device("einsum", *operands)
    labels, out = _parse(equation, operands)
    size = _sizes(labels, operands)
    terms = []
    for t, ls in zip(operands, labels):
        t, ls = _diagonals(t, ls)
        terms.append(_broadcast(t, ls, size))
    result, lr = terms[0]
    for i, (t, ls) in enumerate(terms[1:], start=1):
        later = set(out)
        for _, rest in terms[i + 1:]:
            later |= set(rest)
        result, lr = _contract(result, lr, t, ls, later, size)
    result, lr = _sum_away(result, lr, set(out))
    order = [lr.index(x) for x in out]
    if order != list(range(len(order))) or result is operands[0]:
        result = result.permute(*order)
    return result
