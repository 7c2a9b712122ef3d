"""The lessons' side-by-side with PyTorch: the very same lines, run on both libraries.

    compare_with_pytorch('''
    t = torch.ones(3)
    t.device == "cpu"
    str(t.device) == "cpu"
    ''')

runs the code twice, once with `torch` bound to minitorch and once to PyTorch, and compares the
value of every expression line (a line whose value would be shown in a notebook), or the error
it raises: the same type, and, on a line marked `# same message`, PyTorch's message inside ours
(ours may go on with the fix). It prints both columns and raises AssertionError on any
difference, so a lesson cannot claim an agreement that is not there. Without PyTorch installed it says so and does nothing else: the course never
needs PyTorch.

Write the code with `torch.` (and `np.`) only: `from torch import nn` would import the real
PyTorch in both runs. Leave randomness out: the two libraries draw different numbers.
"""
from __future__ import annotations

import ast
import importlib.util
import math
import textwrap

import numpy as np

WIDTH = 34  # characters of each value column


SAME_MESSAGE = "# same message"


class Raised:
    """An expression's outcome when it raised instead of returning."""

    def __init__(self, exc, compare_message=False):
        self.type = type(exc).__name__
        self.message = " ".join(str(exc).split())
        self.compare_message = compare_message

    def __repr__(self):
        return f"{self.type}: {self.message}"


def _short(dtype) -> str:
    return str(dtype).split(".")[-1]


def plain(value):
    """A library-neutral picture of a value: what two libraries must agree on."""
    if isinstance(value, Raised):
        return ("raises", value.type, value.message if value.compare_message else "")
    kind = type(value).__module__.split(".")[0]
    if kind in ("torch", "minitorch"):
        if hasattr(value, "requires_grad") and hasattr(value, "shape") and hasattr(value, "detach"):
            array = np.asarray(value.detach().cpu().numpy())
            return ("tensor", tuple(value.shape), _short(value.dtype), array, bool(value.requires_grad))
        if type(value).__name__ == "device":
            return ("device", str(value))
        if type(value).__name__ == "dtype":
            return ("dtype", _short(value))
        if type(value).__name__ == "Size":
            return tuple(int(n) for n in value)
        if hasattr(value, "next_functions"):  # a grad_fn node
            return ("node", type(value).__name__)
    if isinstance(value, np.ndarray):
        return ("array", value.shape, str(value.dtype), value)
    if isinstance(value, (tuple, list)):  # named tuples (max(dim=...)'s) compare as tuples
        return ("list" if isinstance(value, list) else "tuple", *[plain(v) for v in value])
    if isinstance(value, (bool, int, float, str, type(None), np.generic)):
        return value.item() if isinstance(value, np.generic) else value
    return ("object", type(value).__name__)


def agree(ours, theirs, rtol=1e-5, atol=1e-6) -> bool:
    """Do two plain() pictures match? Arrays: same shape and dtype, values close."""
    if isinstance(ours, np.ndarray) or isinstance(theirs, np.ndarray):
        return (isinstance(ours, np.ndarray) and isinstance(theirs, np.ndarray)
                and ours.shape == theirs.shape
                and np.allclose(ours.astype(float), theirs.astype(float), rtol=rtol, atol=atol, equal_nan=True))
    if isinstance(ours, tuple) and ours[:1] == ("raises",):
        # the same error type, and PyTorch's words in ours (ours may go on with the fix)
        return isinstance(theirs, tuple) and theirs[:2] == ours[:2] and theirs[2] in ours[2]
    if isinstance(ours, tuple) and isinstance(theirs, tuple):
        return len(ours) == len(theirs) and all(agree(a, b, rtol, atol) for a, b in zip(ours, theirs))
    if isinstance(ours, float) and isinstance(theirs, float):
        return math.isclose(ours, theirs, rel_tol=rtol, abs_tol=atol) or (math.isnan(ours) and math.isnan(theirs))
    return type(ours) is type(theirs) and ours == theirs


def _neutral(name, value):
    """Data both runs may share: plain Python and NumPy values, never a library's tensor."""
    if type(value).__module__.split(".")[0] in ("torch", "minitorch"):
        raise TypeError(f"compare_with_pytorch(values=...): {name} is a {type(value).__name__} of one "
                        "library; pass plain data (lists, numbers, NumPy arrays) and build tensors in the code")
    if isinstance(value, dict):
        return {k: _neutral(name, v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_neutral(name, v) for v in value)
    return value.copy() if isinstance(value, np.ndarray) else value


def run(code: str, library, values=None) -> list[tuple[str, object]]:
    """Execute `code` with `torch` = library; [(expression source, value or Raised)]."""
    code = textwrap.dedent(code).strip("\n")
    tree = ast.parse(code)
    ns = {"torch": library, "np": np, "__name__": "__compare__"}
    ns.update({k: _neutral(k, v) for k, v in (values or {}).items()})
    results = []
    lines = code.splitlines()
    for stmt in tree.body:
        src = ast.get_source_segment(code, stmt)
        same_message = any(SAME_MESSAGE in ln for ln in lines[stmt.lineno - 1:stmt.end_lineno])
        try:
            if isinstance(stmt, ast.Expr):
                value = eval(compile(ast.Expression(stmt.value), "<compare>", "eval"), ns)  # noqa: S307
                results.append((src, value))
            else:
                exec(compile(ast.Module([stmt], []), "<compare>", "exec"), ns)  # noqa: S102
        except Exception as e:  # noqa: BLE001 - an error is an outcome to compare, like a value
            results.append((src, Raised(e, same_message)))
    return results


def _clip(text: str, width: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def compare_with_pytorch(code: str, values=None, rtol=1e-5, atol=1e-6, show=True):
    """Run `code` with minitorch and with PyTorch, compare every expression line, print both.
    values: plain data (lists, numbers, NumPy arrays) the code may use, the same for both runs."""
    if importlib.util.find_spec("torch") is None:
        print("PyTorch not installed: skipped (with PyTorch installed, these lines run on both)")
        return None
    import torch as real_torch

    import minitorch
    ours, theirs = run(code, minitorch, values), run(code, real_torch, values)
    if [s for s, _ in ours] != [s for s, _ in theirs]:  # a statement raised on one side only
        raise AssertionError("minitorch and PyTorch disagree on which lines raise:\n"
                             f"  minitorch: {[s for s, v in ours if isinstance(v, Raised)]}\n"
                             f"  PyTorch:   {[s for s, v in theirs if isinstance(v, Raised)]}")
    rows, different = [], []
    for (src, a), (_, b) in zip(ours, theirs):
        same = agree(plain(a), plain(b), rtol, atol)
        rows.append((src, a, b, same))
        if not same:
            different.append(f"{src}\n    minitorch: {a!r}\n    PyTorch:   {b!r}")
    if show:
        left = min(60, max([len("expression")] + [len(s.splitlines()[0]) for s, *_ in rows]))
        print(f"{'expression':{left}}  {'minitorch':{WIDTH}}  PyTorch {real_torch.__version__.split('+')[0]}")
        for src, a, b, same in rows:
            mark = "" if same else "   <- DIFFERENT"
            print(f"{_clip(src.splitlines()[0], left):{left}}  {_clip(repr(a), WIDTH):{WIDTH}}  "
                  f"{_clip(repr(b), WIDTH)}{mark}")
    if different:
        raise AssertionError("minitorch and PyTorch differ:\n" + "\n".join(different))
    if show:
        print(f"PyTorch agrees on all {len(rows)} lines.")
    return rows
