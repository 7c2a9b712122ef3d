"""`t.op_(...)` for any primitive of the wider API: run it on t and write the result into t's
memory, recorded as PyTorch records in-place ops (inplace.run_inplace holds the rules)."""
from __future__ import annotations

from . import inplace
from ._prim import NULL_CTX
from .pointwise import _quiet


def write_inplace(self, cls, others, kw, op, result=None, overlap_checked=True):
    """`result`: the (dtype, shape) the out-of-place op would give, checked against self first
    (a float result can't go into an integer tensor, a broadcast result can't grow self); a
    third item True names self's dtype as PyTorch does for a Python-number argument ("long int").
    `overlap_checked`: False for an op whose inputs PyTorch does not check for sharing self's memory."""
    inplace.check_inplace(self, op)  # (autograd's check first, as in PyTorch)
    if result is not None:
        inplace.check_result(self, *result[:2], op, cpp_name=len(result) > 2 and result[2])

    def fast():
        with _quiet(self):
            self._data[...] = cls.forward(NULL_CTX, self, *others, **kw)
    return inplace.run_inplace(self, cls, others, kw, fast, op, value_arg=not overlap_checked)
