"""The index family on bad and corner-case input, against PyTorch 2.13: index_fill(_), index_copy(_),
index_add(_), index_put(_), index_select, put(_), take, take_along_dim, gather, scatter / scatter_add /
scatter_reduce (and their in-place forms) and masked_scatter(_).

Each op runs over a table of inputs: every dtype, 0-d, empty and size-1 tensors, negative and
out-of-range dims and indices, index tensors of every dtype and rank, sources of another dtype or
shape. Where PyTorch raises, minitorch must raise the same exception type with PyTorch's message
first (the check PyTorch makes first wins when two things are wrong); where PyTorch runs, minitorch
must give the same values, dtype and shape, and move `_version` the same way.

Skipped when PyTorch is not installed.
"""
from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest

import minitorch

torch = pytest.importorskip("torch", reason="PyTorch not installed: differential tests skipped")

pytestmark = pytest.mark.torch

DTYPES = ["bool", "uint8", "int8", "int32", "int64", "float16", "float32", "float64"]

SELF = {
    "0-d": "T.tensor(3).to(T.{dt})",
    "empty": "T.zeros(0, dtype=T.{dt})",
    "1-d": "T.arange(4).to(T.{dt})",
    "2-d": "T.arange(6).reshape(2, 3).to(T.{dt})",
    "2-d empty": "T.zeros(2, 0, dtype=T.{dt})",
}
INDEX = {
    "0-d": "T.tensor(0{x})",
    "one": "T.tensor([0]{x})",
    "two": "T.tensor([1, 0]{x})",
    "empty": "T.tensor([]{x})",
    "negative": "T.tensor([-1]{x})",
    "too big": "T.tensor([5]{x})",
    "2-d": "T.tensor([[0, 1]]{x})",
    "2-d empty": "T.zeros(1, 0{x})",
}
INDEX_DTYPES = {"int64": ", dtype=T.int64", "int32": ", dtype=T.int32", "float32": ", dtype=T.float32",
                "bool": ", dtype=T.bool"}
SOURCES = {
    "self": "src = a",
    "like index": "src = T.ones(idx.shape, dtype=a.dtype)",
    "one": "src = T.ones(1, dtype=a.dtype)",
    "0-d": "src = T.tensor(1, dtype=a.dtype)",
    "other dtype": "src = T.ones(idx.shape, dtype=T.float64 if a.dtype != T.float64 else T.int64)",
}
DIMS = [0, -1, 1]

# op: (statement, uses a dim, uses src). `a` is the tensor, `idx` the index, `src` a source.
OPS = {
    "index_select": ("r = T.index_select(a, {dim}, idx)", True, False),
    "index_fill": ("r = a.index_fill({dim}, idx, 1)", True, False),
    "index_fill_": ("r = a.index_fill_({dim}, idx, 1)", True, False),
    "index_fill tensor value": ("r = a.index_fill({dim}, idx, T.tensor(1))", True, False),
    "index_add": ("r = a.index_add({dim}, idx, src)", True, True),
    "index_add_": ("r = a.index_add_({dim}, idx, src)", True, True),
    "index_add alpha": ("r = a.index_add({dim}, idx, src, alpha=2)", True, True),
    "index_copy": ("r = a.index_copy({dim}, idx, src)", True, True),
    "index_copy_": ("r = a.index_copy_({dim}, idx, src)", True, True),
    "gather": ("r = T.gather(a, {dim}, idx)", True, False),
    "scatter": ("r = a.scatter({dim}, idx, src)", True, True),
    "scatter value": ("r = a.scatter({dim}, idx, 1)", True, False),
    "scatter_": ("r = a.scatter_({dim}, idx, src)", True, True),
    "scatter_ reduce": ("r = a.scatter_({dim}, idx, 2, reduce='multiply')", True, False),
    "scatter_add": ("r = a.scatter_add({dim}, idx, src)", True, True),
    "scatter_add_": ("r = a.scatter_add_({dim}, idx, src)", True, True),
    "scatter_reduce sum": ("r = a.scatter_reduce({dim}, idx, src, 'sum')", True, True),
    "scatter_reduce amax": ("r = a.scatter_reduce({dim}, idx, src, 'amax', include_self=False)", True, True),
    "scatter_reduce_ bad reduce": ("r = a.scatter_reduce_({dim}, idx, src, 'add')", True, True),
    "take_along_dim": ("r = T.take_along_dim(a, idx, {dim})", True, False),
    "take_along_dim flat": ("r = T.take_along_dim(a, idx)", False, False),
    "take": ("r = T.take(a, idx)", False, False),
    "put": ("r = a.put(idx, src)", False, True),
    "put_": ("r = a.put_(idx, src)", False, True),
    "put_ accumulate": ("r = a.put_(idx, src, accumulate=True)", False, True),
    "index_put": ("r = a.index_put((idx,), src)", False, True),
    "index_put_ accumulate": ("r = a.index_put_((idx,), src, accumulate=True)", False, True),
}

# PyTorch's own internal failures, not behaviour to copy
PYTORCH_BUGS = ("INTERNAL ASSERT FAILED",)


def outcome(lib, source):
    """What a program does: ("raises", type, first line) or ("runs", dtype, shape, values, _version of a)."""
    ns = {"T": lib}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            exec(compile(source, "<case>", "exec"), ns)  # noqa: S102 (our own table of programs)
        except Exception as e:  # noqa: BLE001 (the exception type is what is compared)
            return ("raises", type(e).__name__, str(e).split("\n")[0])
    r = ns["r"]
    values = r.detach().numpy().astype(np.float64).tolist() if r.numel() else []
    return ("runs", str(r.dtype).split(".")[-1], tuple(r.shape), values, ns["a"]._version)


def same(theirs, mine):
    if theirs[0] != mine[0]:
        return False
    if theirs[0] == "raises":
        # PyTorch's words first; Python 3.10 (no exception notes) puts the hint after them in parentheses
        return theirs[1] == mine[1] and (mine[2] == theirs[2] or mine[2].startswith(theirs[2] + " ("))
    return theirs[:3] == mine[:3] and np.allclose(theirs[3], mine[3], equal_nan=True) and theirs[4] == mine[4]


def programs(op, dtypes):
    statement, with_dim, with_src = OPS[op]
    for (sk, s), (ik, i), (xk, x), dt in itertools.product(SELF.items(), INDEX.items(), INDEX_DTYPES.items(),
                                                          dtypes):
        for dim in (DIMS if with_dim else [None]):
            for src in (SOURCES.values() if with_src else [""]):
                yield (f"a = {s.format(dt=dt)}\nidx = {i.format(x=x)}\n{src}\n"
                       f"v = a._version\n{statement.format(dim=dim)}")


def check(op, dtypes):
    bad = []
    for source in programs(op, dtypes):
        theirs, mine = outcome(torch, source), outcome(minitorch, source)
        if theirs[0] == "raises" and any(b in theirs[2] for b in PYTORCH_BUGS):
            continue
        if not same(theirs, mine):
            bad.append(f"{source}\n    torch:     {theirs}\n    minitorch: {mine}")
    assert not bad, f"{len(bad)} programs differ, e.g.:\n\n" + "\n\n".join(bad[:5])


@pytest.mark.parametrize("op", list(OPS))
def test_index_op_matches_pytorch_on_bad_and_corner_case_input(op):
    """Every op over the whole table, for an integer and a floating tensor."""
    check(op, ["int64", "float32"])


@pytest.mark.parametrize("op", ["index_fill", "index_add_", "scatter value", "scatter_reduce amax", "put_"])
def test_index_op_matches_pytorch_in_every_dtype(op):
    check(op, [d for d in DTYPES if d not in ("int64", "float32")])


# ---- values PyTorch converts, and what a write does to _version ---------------------------

CASES = [
    # alpha of index_add is converted to self's dtype first (2.5 is 2 for an integer tensor)
    "a = T.zeros(3, dtype=T.int64); r = a.index_add(0, T.tensor([0, 1]), T.tensor([3, 5]), alpha=2.5)",
    "a = T.zeros(3, 2, dtype=T.int32); r = a.index_add(0, T.tensor([2]), T.full((1, 2), 3, dtype=T.int32), alpha=1.9)",
    "a = T.zeros(3); r = a.index_add(0, T.tensor([0]), T.ones(1), alpha=True)",
    "a = T.zeros(3, dtype=T.bool); r = a.index_add(0, T.tensor([0]), T.ones(1, dtype=T.bool), alpha=2)",
    "a = T.zeros(3, dtype=T.uint8); r = a.index_add(0, T.tensor([0]), T.ones(1, dtype=T.uint8), alpha=-1)",
    "a = T.zeros(3, dtype=T.uint8); r = a.index_add(0, T.tensor([0]), T.ones(1, dtype=T.uint8), alpha=300)",
    "a = T.zeros(3); r = a.index_add(0, T.tensor([0]), T.ones(1), alpha=1j)",
    # values written by index_fill and scatter: converted, or PyTorch's overflow error
    "a = T.zeros(3, dtype=T.int64); r = a.index_fill(0, T.tensor([0]), 2.7)",
    "a = T.zeros(3, dtype=T.uint8); r = a.index_fill(0, T.tensor([0]), -1)",
    "a = T.zeros(3, dtype=T.uint8); r = a.index_fill(0, T.tensor([0]), 300)",
    "a = T.zeros(3, dtype=T.uint8); r = a.index_fill(0, T.tensor([], dtype=T.int64), 300)",
    "a = T.zeros(3, dtype=T.float16); r = a.index_fill(0, T.tensor([0]), 70000.)",
    "a = T.zeros(3, dtype=T.int8); r = a.index_fill(0, T.tensor([0]), float('nan'))",
    "a = T.zeros(3); r = a.index_fill(0, T.tensor([0]), 1.5j)",
    "a = T.zeros(3, dtype=T.int64); r = a.index_fill(0, T.tensor([0]), T.tensor(2.7))",
    "a = T.zeros(3, dtype=T.uint8); r = a.scatter(0, T.tensor([0]), 300)",
    "a = T.zeros(3, dtype=T.uint8); r = a.scatter(0, T.tensor([5]), 300)",
    "a = T.zeros(3, dtype=T.uint8); r = a.scatter(0, T.tensor([], dtype=T.int64), 300)",
    "a = T.zeros(3, dtype=T.int64); r = a.scatter(0, T.tensor([0]), 2.7, reduce='add')",
    # index_fill takes negative indices, index_copy and index_add do not
    "a = T.arange(3.); r = a.index_fill(0, T.tensor([-3, -1]), 9)",
    "a = T.arange(3.); r = a.index_copy(0, T.tensor([-1]), T.ones(1))",
    "a = T.arange(6.).reshape(2, 3); r = a.index_add(1, T.tensor([1, -1]), T.ones(2, 2))",
    "a = T.arange(6.).reshape(2, 3); r = a.index_add(1, T.tensor([1, -1], dtype=T.int32), T.ones(2, 2))",
    "a = T.zeros(2, 0); r = a.index_add(0, T.tensor([5], dtype=T.int32), T.ones(1, 0))",
    "a = T.zeros(2, 3); r = a.index_add(0, T.tensor([5]), T.ones(1, 3))",
    # the first index out of range, in order, is the one named
    "a = T.zeros(3); r = a.gather(0, T.tensor([1, 5, -7]))",
    "a = T.zeros(3); r = a.scatter(0, T.tensor([1, -5, 7]), 2.)",
    "a = T.zeros(2, 3); r = a.index_select(1, T.tensor([1, 4, 7]))",
    "a = T.zeros(3); r = a.take(T.tensor([1, 5, -7]))",
    # take_along_dim with a dim takes each index modulo the size (PyTorch 2.13)
    "a = T.arange(6.).reshape(2, 3); r = T.take_along_dim(a, T.tensor([[5], [-1]]), 1)",
    "a = T.arange(6.).reshape(2, 3); r = T.take_along_dim(a, T.tensor([[-4, 7]]), 1)",
    "a = T.zeros(2, 0); r = T.take_along_dim(a, T.tensor([[0]]), 1)",
    "a = T.zeros(0, 3); r = T.take_along_dim(a, T.tensor([[1]]), 1)",
    "a = T.arange(6.).reshape(2, 3).t(); r = T.take_along_dim(a, T.tensor([1]))",
    "a = T.arange(6.).reshape(2, 3); r = T.take_along_dim(a, T.tensor([[0], [1], [2]]), 1)",
    # index_put: the value's shape is checked before its dtype; one mask and one value converts it
    "a = T.zeros(3); r = a.index_put((T.tensor([0, 1]),), T.ones(3, dtype=T.int64))",
    "a = T.zeros(3); r = a.index_put((T.tensor([5]),), T.ones(1, dtype=T.int64))",
    "a = T.zeros(3, dtype=T.int64); r = a.index_put((T.tensor([True, False, True]),), T.tensor(2.5))",
    "a = T.zeros(3); r = a.index_put((T.tensor([0], dtype=T.int16),), T.ones(1))",
    "a = T.zeros(3); r = a.index_put((T.tensor([0]), T.tensor([0])), T.ones(1))",
    "a = T.zeros(0); r = a.index_put((T.tensor([0]),), T.ones(1))",
    "a = T.zeros(2, 0); r = a.index_put((T.tensor([5]),), T.ones(1))",
    # masked_scatter: shapes, then source's dtype, then the mask's
    "a = T.zeros(3); r = a.masked_scatter(T.tensor([1, 0, 1]), T.ones(2, dtype=T.int64))",
    "a = T.zeros(3); r = a.masked_scatter(T.tensor([1, 0, 1], dtype=T.uint8), T.ones(2))",
    "a = T.zeros(3); r = a.masked_scatter(T.tensor([True, False]), T.ones(2))",
    "a = T.zeros(1); r = a.masked_scatter(T.tensor([True, False, True]), T.ones(2))",
    "a = T.tensor(1.); r = a.masked_scatter_(T.tensor(True), T.ones(2))",
    # an in-place write may not read memory it writes
    "a = T.arange(3); r = a.index_fill_(0, a, 1)",
    "a = T.zeros(3); r = a.index_copy_(0, T.tensor([0, 1, 5.]), a[:1])",
    "a = T.zeros(3); r = a.index_add_(0, T.tensor([0, 1, 2]), a)",
    "a = T.zeros(3); r = a.put_(T.tensor([0]), a[:1])",
    "a = T.zeros(3); r = a.scatter_add_(0, T.tensor([0]), a[:1])",
    "a = T.zeros(3); r = a.index_put_((T.tensor([0]),), a[:1])",
    # 0-d tensors: one element for gather and scatter
    "a = T.tensor(2.); r = a.gather(0, T.tensor([0, 0]))",
    "a = T.zeros(3); r = a.gather(0, T.tensor(1))",
    "a = T.tensor(1.); r = a.scatter(0, T.tensor([0, 0]), T.ones(2))",
    "a = T.zeros(3); r = a.scatter(0, T.tensor(0), T.tensor(5.))",
    "a = T.tensor(1.); r = a.index_copy(0, T.tensor([0]), T.ones(1))",
    "a = T.tensor(True); r = a.index_copy(-1, T.tensor([0, 0]), T.tensor([True, False]))",
    "a = T.tensor(2.); r = a.index_fill(0, T.tensor([], dtype=T.int64), 1)",
    "a = T.zeros(3); r = a.scatter_reduce(0, T.tensor([0, 0]), T.tensor([2., 3.]), 'max')",
]


@pytest.mark.parametrize("source", CASES)
def test_index_op_case_matches_pytorch(source):
    source = source.replace("; r =", "\nv = a._version\nr =")
    theirs, mine = outcome(torch, source), outcome(minitorch, source)
    assert same(theirs, mine), f"{source}\n    torch:     {theirs}\n    minitorch: {mine}"


# ---- autograd: the leaf check comes first, and 0-d gathers and scatters differentiate ---------

@pytest.mark.parametrize("call", [
    "x.index_fill_(0, T.tensor([0.]), 1)", "x.index_copy_(0, T.tensor([0], dtype=T.int32), T.ones(1))",
    "x.index_add_(0, T.tensor([[0]]), T.ones(1))", "x.put_(T.tensor([0.]), T.ones(2))",
    "x.scatter_(0, T.tensor([0.]), 1.)", "x.scatter_add_(0, T.tensor([9]), T.ones(1))",
    "x.index_put_((T.tensor([9]),), T.ones(1))", "x.masked_scatter_(T.tensor([1, 0, 1]), T.ones(2))",
])
def test_in_place_on_a_leaf_that_requires_grad_is_refused_before_the_arguments_are_checked(call):
    results = []
    for lib in (torch, minitorch):
        x = lib.zeros(3, requires_grad=True)
        try:
            eval(call, {"T": lib, "x": x})  # noqa: S307 (our own table)
        except Exception as e:  # noqa: BLE001
            results.append((type(e).__name__, str(e).split("\n")[0]))
    assert len(results) == 2 and results[0][0] == results[1][0]
    assert results[1][1].startswith(results[0][1])


@pytest.mark.parametrize("program", [
    "y = x.gather(0, T.tensor([0, 0])) * T.tensor([2., 3.])",
    "y = x.expand(3).gather(0, T.tensor(1)) * 4",
    "y = T.zeros(3).scatter(0, T.tensor([1]), x) * 5",
    "y = x.scatter(0, T.tensor([0, 0]), T.ones(2)) + x",
    "y = x.index_add(0, T.tensor([0]), x, alpha=3)",
    "y = T.zeros(3).index_add(0, T.tensor([1, 1]), x.expand(2), alpha=2.5)",
    "y = T.zeros(3).scatter_reduce(0, T.tensor([0, 0]), x.expand(2) * T.tensor([1., 2.]), 'amax')",
])
def test_gradients_through_0d_gathers_and_scatters_match_pytorch(program):
    grads = []
    for lib in (torch, minitorch):
        x = lib.tensor(1.5, requires_grad=True)
        ns = {"T": lib, "x": x}
        exec(program, ns)  # noqa: S102 (our own table)
        y = ns["y"]
        y.sum().backward()
        grads.append((type(y.grad_fn).__name__, float(x.grad), tuple(y.shape)))
    assert grads[0] == grads[1]
