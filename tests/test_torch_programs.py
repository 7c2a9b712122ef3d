"""Real beginner PyTorch programs (tests/programs/*.py) run unchanged on minitorch: each runs as
written on PyTorch 2.13 and with its imports pointed at minitorch, and both print the same
(object addresses, the library's name and float noise below 5 significant digits aside).
Random numbers are PyTorch's after manual_seed, so printed random values must match too.

Skipped when PyTorch is not installed.
"""
from __future__ import annotations

import contextlib
import difflib
import io
import pathlib
import re
import sys
import warnings

import pytest

PROGRAMS = sorted((pathlib.Path(__file__).parent / "programs").glob("p*.py"))


def to_minitorch(source):
    """The program with its imports pointed at minitorch; nothing else changes."""
    source = re.sub(r"^(\s*)import torch\s*$", r"\1import minitorch as torch", source, flags=re.M)
    # `import torch.utils.data` binds the name torch too: to minitorch, with the submodule loaded
    source = re.sub(r"^(\s*)import torch(\.[\w.]+)\s*$", r"\1import minitorch\2\n\1import minitorch as torch", source,
                    flags=re.M)
    source = re.sub(r"^(\s*)import torch(\.[\w.]+) as (\w+)", r"\1import minitorch\2 as \3", source, flags=re.M)
    source = re.sub(r"^(\s*)from torch(\.[\w.]+)? import", r"\1from minitorch\2 import", source, flags=re.M)
    return source


_FLOAT = re.compile(r"(?<![\w.])-?\d+\.\d+(?:e[-+]?\d+)?")


def _round(m):
    """A float printed with more than 5 significant digits, to 5 (float32 sums differ in the last
    bits between libraries); a printed -0.000 is 0.000."""
    text = m.group()
    digits = len(re.sub(r"e.*|[-.]", "", text).lstrip("0"))
    if digits > 5:
        text = f"{float(text):.5g}"
    return text[1:] if re.fullmatch(r"-0\.0*", text) else text


def normalise(text):
    text = re.sub(r"0x[0-9a-fA-F]+", "0x?", text)
    text = text.replace("minitorch", "torch")
    return _FLOAT.sub(_round, text)


def run(path, lib):
    """What the program prints on `lib` ("torch" or "minitorch"), or the exception it ended with."""
    source = path.read_text()
    if lib == "minitorch":
        source = to_minitorch(source)
    out = io.StringIO()
    ns = {"__name__": "__main__", "__file__": str(path)}
    _reset(lib)  # (whatever tests ran before in this process may have changed them)
    threads = _one_thread(lib)
    with contextlib.redirect_stdout(out), warnings.catch_warnings(), threads:
        warnings.simplefilter("ignore")
        try:
            exec(compile(source, str(path), "exec"), ns)  # noqa: S102 (our own programs)
        except Exception as e:  # noqa: BLE001 (reported as the program's last line)
            print(f"\n<raised {type(e).__name__}: {e}>")
        finally:
            _reset(lib)
    return out.getvalue()


@contextlib.contextmanager
def _one_thread(lib):
    """PyTorch's intra-op threads, one while a program runs: these tensors are far too small to
    share out, and on a busy machine the waiting threads cost PyTorch more than the work itself."""
    mod = __import__(lib)
    before = mod.get_num_threads()
    mod.set_num_threads(1)
    try:
        yield
    finally:
        mod.set_num_threads(before)


def _reset(lib):
    """Process-wide settings a program may change."""
    mod = __import__(lib)
    mod.set_default_dtype(mod.float32)
    mod.set_printoptions(profile="default")
    mod.distributions.Distribution.set_default_validate_args(True)


@pytest.mark.parametrize("path", PROGRAMS, ids=[p.stem for p in PROGRAMS])
def test_program_prints_what_pytorch_prints(path):
    pytest.importorskip("torch", reason="PyTorch not installed: differential tests skipped")
    expected, got = normalise(run(path, "torch")), normalise(run(path, "minitorch"))
    assert "<raised" not in expected, f"the program fails on PyTorch itself:\n{expected}"
    if got != expected:
        diff = "\n".join(difflib.unified_diff(expected.splitlines(), got.splitlines(), "torch", "minitorch",
                                              lineterm="", n=2))
        pytest.fail(f"{path.name} prints differently on minitorch:\n{diff}")


def test_the_import_rewrite_touches_only_imports():
    src = ("import torch\nimport torch.nn as nn\nfrom torch import optim\nfrom torch.utils.data import DataLoader\n"
           "import torch.utils.data\nx = torch.ones(2)  # torch stays torch\n")
    want = ("import minitorch as torch\nimport minitorch.nn as nn\nfrom minitorch import optim\n"
            "from minitorch.utils.data import DataLoader\nimport minitorch.utils.data\nimport minitorch as torch\n"
            "x = torch.ones(2)  # torch stays torch\n")
    assert to_minitorch(src) == want


def test_enough_programs():
    assert len(PROGRAMS) >= 20


if __name__ == "__main__":
    for name in sys.argv[1:]:
        p = pathlib.Path(__file__).parent / "programs" / name
        e, g = normalise(run(p, "torch")), normalise(run(p, "minitorch"))
        print("\n".join(difflib.unified_diff(e.splitlines(), g.splitlines(), "torch", "minitorch", lineterm="")) or
              f"{name}: the same")
