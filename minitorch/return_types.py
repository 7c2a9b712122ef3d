"""The named tuples ops with two results return (`values, indices = x.max(dim=1)`), printed as
PyTorch prints its torch.return_types: `torch.return_types.max(values=..., indices=...)`."""
from __future__ import annotations

import collections


def _return_type(name, fields=("values", "indices")):
    cls = collections.namedtuple(name, fields)
    cls.__module__ = __name__

    def __repr__(self):
        return f"{__name__}.{name}(\n" + ",\n".join(f"{f}={v!r}" for f, v in zip(fields, self)) + ")"
    cls.__repr__ = __repr__
    return cls


max, min, sort, topk, kthvalue, median, nanmedian, mode, cummax, cummin = (  # noqa: A001
    _return_type(n) for n in ("max", "min", "sort", "topk", "kthvalue", "median", "nanmedian", "mode", "cummax",
                              "cummin"))
aminmax = _return_type("aminmax", ("min", "max"))
histogram = _return_type("histogram", ("hist", "bin_edges"))
