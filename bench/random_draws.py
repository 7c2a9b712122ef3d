"""Random draws (issue "Same seed, same numbers"): rand and randn of a million values.

minitorch reproduces PyTorch's CPU stream bit for bit in NumPy: the Mersenne Twister runs in
NumPy's C generator, the transforms (24 or 53 bits to a float, Box-Muller in blocks of 16, the
float32 kernel's Cephes log/sin/cos with exact fused multiply-adds) on whole arrays. NumPy's own
generator (PCG64, a different stream) is the floor for the same amount of work. Reported, not
asserted.
"""
from __future__ import annotations

import numpy as np

from ._timing import measure_row, try_torch

N = 1_000_000
TINY_N = 1000  # smoke tests

DRAWS = [
    ("rand", "rand", "lib.rand(n)", "rng.random(n, dtype=np.float32)"),
    ("randn", "randn", "lib.randn(n)", "rng.standard_normal(n, dtype=np.float32)"),
    ("randn64", "randn (float64)", "lib.randn(n, dtype=lib.float64)", "rng.standard_normal(n)"),
]


def rows(cfg, n=None):
    import minitorch
    n = n or N
    torch = try_torch()
    ns = {"minitorch": {"lib": minitorch, "n": n}, "torch": {"lib": torch, "n": n},
          "numpy": {"np": np, "rng": np.random.default_rng(0), "n": n}}
    label = f"{n / 1e6:g}M" if n >= 10 ** 6 else str(n)
    out = []
    for key, name, stmt, np_stmt in DRAWS:
        out.append(measure_row("random", f"random.{key}", f"{name}  ({label})",
                               {"minitorch": stmt, "numpy": np_stmt, "torch": stmt}, cfg, ns,
                               have_torch=torch is not None))
    out[0].note = ("the same numbers as PyTorch after the same seed; NumPy's column is its own (different) "
                   "generator, for scale")
    return out
