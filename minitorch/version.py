"""`minitorch.version`, as programs print `torch.version.cuda` to see what they run on.

`__version__` names the PyTorch API minitorch follows, with minitorch's own version as the local
label ("2.13.0+minitorch.0.1.0"), so that the checks programs make (`torch.__version__ >= "2.0"`)
take the branch written for that PyTorch. minitorch is not built against CUDA: `cuda` is None,
as in PyTorch's CPU build (a GPU is reached through CuPy, see minitorch.cuda)."""
from __future__ import annotations

import re

minitorch = "0.1.0"


class TorchVersion(str):
    """A version string that compares as a version (PEP 440 order, as PyTorch's): "2.13.0+x" is
    >= "2.0" and < (2, 14); a local label ("+x") sorts after the plain release."""

    @staticmethod
    def _key(v):
        if isinstance(v, (tuple, list)):
            v = ".".join(str(x) for x in v)
        m = re.fullmatch(r"\s*v?(\d+(?:\.\d+)*)(?:\+([a-z0-9.]+))?\s*", str(v), re.IGNORECASE)
        if not m:
            raise ValueError(f"Invalid version: {v!r}")
        release = [int(x) for x in m.group(1).split(".")]
        while len(release) > 1 and release[-1] == 0:
            release.pop()  # 2.13 == 2.13.0
        local = () if m.group(2) is None else (1,) + tuple(
            (1, int(x), "") if x.isdigit() else (0, 0, x.lower()) for x in m.group(2).split("."))
        return tuple(release), local

    def __eq__(self, other):
        return self._key(self) == self._key(other)

    __hash__ = str.__hash__

    def __lt__(self, other):
        return self._key(self) < self._key(other)

    def __le__(self, other):
        return self._key(self) <= self._key(other)

    def __gt__(self, other):
        return self._key(self) > self._key(other)

    def __ge__(self, other):
        return self._key(self) >= self._key(other)


__version__ = TorchVersion(f"2.13.0+minitorch.{minitorch}")
cuda = None
hip = None
rocm = None
xpu = None
debug = False
git_version = "unknown"
