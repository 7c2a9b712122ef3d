"""Cost per recorded op as the graph grows (issue "Speed a learner feels").

A chain `h = h + a` of 10, 1,000 and 10,000 recorded ops on 10-element tensors that
require grad, built and then dropped, with the garbage collector on (as in a real program):
every op the library records leaves objects alive until the graph is freed, and once there
are many, Python's cyclic collector walks them all again and again. The table shows the
forward cost *per op*; a flat column means that cost does not grow with the graph.
Target for the deepest chain: within 1.8x of PyTorch.
"""
from __future__ import annotations

import numpy as np

from ._timing import Skip, Timing, measure_row, try_torch

DEPTHS = (10, 1_000, 10_000)
TINY_DEPTHS = (10, 100)


def _chain(lib, depth):
    x = lib.tensor(np.linspace(-1, 1, 10, dtype=np.float32), requires_grad=True)
    a = lib.tensor(np.full(10, 1e-3, dtype=np.float32), requires_grad=True)

    def build():
        h = x
        for _ in range(depth):
            h = h + a
        return h
    return build


def _per_op(t, depth):
    return Timing(t.median / depth, t.min / depth, t.number, t.repeat) if isinstance(t, Timing) else t


def rows(cfg, depths=DEPTHS):
    import minitorch
    torch = try_torch()
    out = []
    for depth in depths:
        row = measure_row(
            "depth", f"depth.chain{depth}", f"chain of {depth:,} ops h = h + a, per op  (10)",
            {"minitorch": _chain(minitorch, depth), "numpy": Skip("-"),
             "torch": _chain(torch, depth) if torch else None},
            cfg, keep_gc=True, blocks=True, have_torch=torch is not None,
            target=("torch", 1.8) if depth == max(depths) else None)
        row.times = {c: _per_op(t, depth) for c, t in row.times.items()}
        out.append(row)
    out[-1].note = ("forward only, GC on; per-op time = time to build the chain (and free it) / ops. "
                    "Flat down the column: the cost of an op does not grow with the graph.")
    return out
