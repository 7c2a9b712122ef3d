"""PyTorch's own documentation examples run on minitorch and give what they give on PyTorch.

Every public function, class and method of the namespaces below whose docstring in the installed
PyTorch 2.13 carries `>>>` examples is one case. Its examples run twice, in order, as doctest
would run them: once with `torch` bound to PyTorch and once with it bound to minitorch (imports
of torch submodules inside an example are pointed at minitorch, as tests/test_torch_programs.py
does), each after `manual_seed(0)`. Both runs must agree on:

- what each example displays (an expression's repr, what it prints) or the exception it raises
  (type and message), after the same normalising as the program tests (object addresses, the
  library's name, floats to 5 significant digits);
- every tensor the examples leave bound to a name: shape, dtype, requires_grad and values
  (to the dtype's tolerance; NaN, inf and -0. where PyTorch has them).

The examples are read from the installed PyTorch when the test runs; nothing of them is copied
here. What a docstring's examples need that minitorch does not have on purpose (complex dtypes,
sparse and quantized tensors, CUDA streams, ...) is in SKIP with the reason; a case whose
examples PyTorch itself cannot run on this machine (a GPU example, an example that is not
runnable as written) is skipped because PyTorch raised.

    python tests/test_torch_doc_examples.py [PREFIX ...]   # a survey: every case that differs, with both outputs

Skipped when PyTorch is not installed.
"""
from __future__ import annotations

import contextlib
import difflib
import doctest
import io
import itertools
import math
import os
import random
import re
import sys
import tempfile
import textwrap
import warnings
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from test_torch_programs import normalise, to_minitorch  # noqa: E402

import minitorch  # noqa: E402

try:
    import torch
except ImportError:
    torch = None
    if __name__ != "__main__":
        pytest.skip("PyTorch not installed: differential tests skipped", allow_module_level=True)

pytestmark = pytest.mark.torch

# The namespaces whose docstrings are read: (name, how to reach it from the top module).
NAMESPACES = ["", "Tensor", "nn", "nn.functional", "nn.init", "nn.utils", "nn.utils.rnn", "nn.utils.parametrize",
              "nn.utils.parametrizations", "nn.utils.prune", "linalg", "special", "distributions", "optim",
              "optim.lr_scheduler", "optim.swa_utils", "autograd", "autograd.functional", "autograd.graph",
              "autograd.forward_ad", "func", "utils.data", "utils.checkpoint", "testing", "amp", "random",
              "cuda", "distributions.transforms", "distributions.constraints", "distributions.kl"]

# Cases not run, each with its reason: what the examples need that minitorch leaves out on purpose
# (README: "Differences from PyTorch"). A key is a full name or a regular expression over names.
SKIP = {
    r".*(complex|polar|view_as_real|view_as_complex|\.real|\.imag|angle|conj\w*|resolve_neg|is_neg)$":
        "complex dtypes (README: real, dense tensors only)",
    r".*(sparse|to_dense|coalesce|crow_indices|col_indices|indices|values|_nnz|sspaddmm|smm|hspmm)\w*$":
        "sparse tensors (README: real, dense tensors only)",
    r".*(quantize|dequantize|q_\w+|int_repr|fake_quant)\w*$": "quantized tensors (README: real, dense tensors only)",
    r".*(fft|stft|istft|bartlett_window|blackman_window|hamming_window|hann_window|kaiser_window)$":
        "torch.fft and spectral windows' complex results (README: real, dense tensors only)",
    r"(cuda|Tensor)\.(Stream|Event|stream|record_stream|graph|CUDAGraph|memory_snapshot|\w*graph\w*)$":
        "CUDA streams and graphs (no GPU runtime of PyTorch's here)",
    r"(Stream|Event|cuda\.\w+)$": "CUDA runtime objects",
    r"jit\.\w+|compile|compiler\.\w+|export": "TorchScript / the compiler (README: torch.jit)",
    r"autograd\.graph\.(register_multi_grad_hook|allow_mutation_on_saved_tensors)$":
        "graph-level hooks over several tensors (not in minitorch)",
}


def _namespace_object(lib, path):
    obj = lib
    for part in filter(None, path.split(".")):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def cases():
    """[(full name, docstring)] of every public member with `>>>` examples, in PyTorch."""
    if torch is None:
        return []
    found, seen = [], set()
    for ns in NAMESPACES:
        mod = _namespace_object(torch, ns)
        if mod is None:
            continue
        for attr in sorted(dir(mod)):
            if attr.startswith("_"):
                continue
            try:
                obj = getattr(mod, attr)
            except Exception:  # noqa: BLE001 (a lazily imported submodule that fails: not a case)
                continue
            doc = getattr(obj, "__doc__", None)
            if not isinstance(doc, str) or ">>>" not in doc or isinstance(obj, type(sys)):
                continue
            name = f"{ns}.{attr}" if ns else attr
            key = (id(obj), doc) if not isinstance(obj, (int, float, str)) else name
            if key in seen:  # the same object reached from two namespaces (torch.nn.functional.relu, torch.relu)
                continue
            seen.add(key)
            found.append((name, doc))
    return found


def skip_reason(name):
    return next((why for pat, why in SKIP.items() if re.fullmatch(pat, name)), None)


# ---- running one case -------------------------------------------------------------------------

def parse(doc):
    """The docstring's examples; a docstring doctest can't parse as a whole (a prose line indented
    unlike its example) is parsed one example block at a time."""
    parser = doctest.DocTestParser()
    try:
        return parser.get_examples(doc)
    except ValueError:
        blocks = re.findall(r"(?m)((?:^[ \t]*(?:>>>|\.\.\.).*\n?)+(?:^[ \t]*(?!>>>)\S.*\n?)*)", doc)
        return [ex for b in blocks for ex in _parse_block(parser, b)]


def _parse_block(parser, block):
    try:
        return parser.get_examples(textwrap.dedent(block))
    except ValueError:
        return []


def _lib_namespace(lib):
    # (the standard modules the examples use without importing them)
    ns = {"__name__": "__doc_example__", "np": np, "numpy": np, "math": math, "io": io, "itertools": itertools,
          "random": random, "torch": lib, "nn": lib.nn, "F": lib.nn.functional, "Tensor": lib.Tensor}
    return ns


def _display(value, out):
    """What the interactive prompt shows for an expression statement (doctest's display hook)."""
    if value is not None:
        out.write(repr(value) + "\n")


def run_examples(doc, lib_name, limit=None):
    """Run a docstring's examples (the first `limit` of them) on `lib_name` ("torch" or
    "minitorch"): (the transcript, the namespace left, how many ran before the first exception).
    The transcript is what each example displayed, or the exception it raised; the run stops at
    the first exception."""
    lib = torch if lib_name == "torch" else minitorch
    examples = parse(doc)[:limit]
    ns = _lib_namespace(lib)
    out = io.StringIO()
    _reset(lib)
    lib.manual_seed(0)
    old_hook = sys.displayhook
    sys.displayhook = lambda v: _display(v, out)
    ran = len(examples)
    try:
        # (examples save files: "tensor.pt" lands in a folder of its own)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()), \
                warnings.catch_warnings(), tempfile.TemporaryDirectory() as tmp, _inside(tmp):
            warnings.simplefilter("ignore")
            for n, ex in enumerate(examples):
                source = ex.source if lib_name == "torch" else to_minitorch(ex.source)
                out.write(f">>> [{n}]\n")
                try:
                    # (an import the rewrite turned into two lines is a block, with nothing to display)
                    code = compile(source, f"<example {n}>", "single" if source.strip().count("\n") <= ex.source.strip(
                    ).count("\n") else "exec")
                    exec(code, ns)  # noqa: S102 (PyTorch's own documentation)
                except Exception as e:  # noqa: BLE001 (the exception is part of what is compared)
                    out.write(f"<raised {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}>\n")
                    ran = n
                    break
    finally:
        sys.displayhook = old_hook
        _reset(lib)
    return out.getvalue(), ns, ran


@contextlib.contextmanager
def _inside(folder):
    """The working directory set to `folder` for the block (contextlib.chdir is Python 3.11+)."""
    old = os.getcwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(old)


def _reset(lib):
    """The process-wide settings an example may change (set_default_device('cuda') would fail
    every later case)."""
    lib.set_default_dtype(lib.float32)
    lib.set_default_device(None)
    lib.set_printoptions(profile="default")
    lib.set_grad_enabled(True)
    lib.use_deterministic_algorithms(False)
    lib.autograd.set_detect_anomaly(False)


def _tensors(ns, lib):
    """{name: tensor} of the tensors (and tuples / lists of tensors) the examples left bound."""
    found = {}
    for name, v in ns.items():
        if isinstance(v, lib.Tensor):
            found[name] = v
        elif isinstance(v, (tuple, list)) and v and len(v) <= 16 and all(isinstance(t, lib.Tensor) for t in v):
            for i, t in enumerate(v):
                found[f"{name}[{i}]"] = t
    return found


def _as_array(t):
    return np.array(t.detach().cpu().tolist(), dtype=np.float64) if t.numel() else np.zeros(tuple(t.shape))


def compare_tensors(ns_torch, ns_mini, values=True):
    """The differences between the tensors both runs left bound, one line each (without their
    values when `values` is false)."""
    diffs = []
    theirs, ours = _tensors(ns_torch, torch), _tensors(ns_mini, minitorch)
    for name, t in theirs.items():
        m = ours.get(name)
        if m is None:
            diffs.append(f"{name}: a tensor in PyTorch, {type(ns_mini.get(name.split('[')[0])).__name__} here")
            continue
        if tuple(t.shape) != tuple(m.shape) or str(t.dtype) != str(m.dtype).replace("minitorch", "torch"):
            diffs.append(f"{name}: PyTorch {tuple(t.shape)} {t.dtype}, minitorch {tuple(m.shape)} {m.dtype}")
            continue
        if t.requires_grad != m.requires_grad:
            diffs.append(f"{name}: requires_grad PyTorch {t.requires_grad}, minitorch {m.requires_grad}")
        if t.is_complex() or t.layout != torch.strided or t.device.type != "cpu" or t.is_meta:
            continue
        if t.dtype == torch.bool or not t.is_floating_point():
            same = t.tolist() == m.tolist()
        elif not values:
            same = True
        else:
            # to the dtype's rounding, relative to the tensor's scale (a sum of many products
            # near 0. keeps the absolute error of its large terms)
            a, b = _as_array(t), _as_array(m)
            tol = {torch.float16: 2e-3, torch.float32: 2e-5, torch.float64: 1e-10}.get(t.dtype, 2e-5)
            finite = np.isfinite(a)
            scale = float(np.abs(a[finite]).max()) if finite.any() else 1.0
            same = a.shape == b.shape and bool(np.all(np.where(
                finite, np.abs(a - b) <= tol * (np.abs(a) + scale), (a == b) | np.isnan(a) & np.isnan(b))))
        if not same:
            diffs.append(f"{name}: values differ\n  PyTorch   {t.detach()}\n  minitorch {m.detach()}")
    return diffs


def differences(name, doc):
    """None when PyTorch itself can't run the first example; else the list of differences (empty:
    agree). Where PyTorch stops at an example it can't run here (a GPU, a file, a name the docs
    leave undefined), or minitorch stops at one of its deliberate differences (a complex dtype,
    say: README), the examples before it are compared."""
    want, ns_t, ran = run_examples(doc, "torch")
    limit = None
    if "<raised" in want and _pytorch_cannot(want):
        if ran == 0:
            return None
        limit = ran
        want, ns_t, _ = run_examples(doc, "torch", limit)
    got, ns_m, ran_m = run_examples(doc, "minitorch", limit)
    if "<raised" in got and _DELIBERATE.search(got.rsplit(">>> [", 1)[-1]):
        if ran_m == 0:
            return None
        want, ns_t, _ = run_examples(doc, "torch", ran_m)
        got, ns_m, _ = run_examples(doc, "minitorch", ran_m)
    diffs = []
    w, g = normalise(want), normalise(got)
    if name in UNINITIALISED:
        w, g = (re.sub(r"\s+", "", re.sub(r"#(e[-+]#)?", "#", _NUMBER.sub(
            "#", re.sub(r"(?<![\w.])-?\d+(?![\w.])", "#", x)))) for x in (w, g))
    if not same_transcript(w, g):
        diffs.append("\n".join(difflib.unified_diff(w.splitlines(), g.splitlines(), "torch", "minitorch",
                                                    lineterm="", n=1)))
    diffs += compare_tensors(ns_t, ns_m, values=name not in UNINITIALISED)
    return diffs


# Cases whose examples print or keep uninitialised memory (torch.empty and its kin): their numbers
# are whatever the memory held, so only the rest (shapes, dtypes, layouts) is compared.
UNINITIALISED = {"empty", "empty_strided", "empty_like", "Tensor.new_empty", "Tensor.new_empty_strided",
                 "Tensor.shape", "Tensor.size", "ones_like", "zeros_like", "empty_permuted", "nn.functional.pad",
                 "nn.utils.skip_init", "autograd.enforce_grad_layout_policy"}


# What minitorch leaves out on purpose says so in its error (README: "Differences from PyTorch")
_DELIBERATE = re.compile(r"<raised \w+: .*(has no complex dtypes|has no bfloat16|has no sparse|has no quantized|"
                         r"has no uint16, uint32 or uint64|"
                         r"has no torch\.fft|tensor\(\): can't convert data of dtype complex)")
_NUMBER = re.compile(r"(?<![\w.])-?(?:\d+\.\d*|\d+(?=e))(?:e[-+]?\d+)?|(?<![\w.])-?\d+\.(?!\w)")


def same_transcript(want, got):
    """Equal, but for printed floats that differ by float noise: a unit in the last printed digit
    (a rounding tie NumPy and PyTorch break by their own summation order), or both below 1e-5 (the
    residual of a float32 decomposition, the size of its rounding error), or closer than 1e-6 (the
    rounding of a float32 result near 0. computed from values near 1.)."""
    if want == got:
        return True
    if _NUMBER.sub("#", want) != _NUMBER.sub("#", got):
        return False
    for a, b in zip(_NUMBER.findall(want), _NUMBER.findall(got)):
        x, y = float(a), float(b)
        if x == y or abs(x) < 1e-5 and abs(y) < 1e-5 or abs(x - y) < 1e-6:
            continue
        mantissa = a.split("e")[0]
        decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
        if len(mantissa.replace("-", "").replace(".", "").lstrip("0")) < 4:  # a short number is exact
            return False
        unit = 10.0 ** (-decimals) * (10.0 ** int(a.split("e")[1]) if "e" in a else 1.0)
        if abs(x - y) > 1.01 * unit and abs(x - y) > 1e-4 * max(abs(x), abs(y)):
            return False
    return True


_NOT_RUNNABLE = re.compile(r"<raised (NameError|SyntaxError|IndentationError|ImportError|ModuleNotFoundError|"
                           r"FileNotFoundError|TypeError: .*ellipsis|AssertionError: Torch not compiled|"
                           r"RuntimeError: .*(CUDA|cuda|compile)|AttributeError: module 'torch' has no attribute)")


def _pytorch_cannot(transcript):
    return bool(_NOT_RUNNABLE.search(transcript.rsplit(">>> [", 1)[-1]))


# ---- the test ----------------------------------------------------------------------------------

# Cases whose examples make tensors of millions of elements (a 3-D convolution of a 20x16x10x50x100
# input): a second or more each, so `make test` leaves them to MINITORCH_DOC_EXAMPLES=all and to
# the survey.
SLOW = {"nn.ConvTranspose3d", "nn.CircularPad3d", "nn.Transformer", "nn.Conv3d", "nn.ReplicationPad3d",
        "nn.BatchNorm3d", "nn.LPPool3d", "conv_transpose3d", "nn.InstanceNorm3d", "nn.MaxPool3d", "nn.AvgPool3d",
        "nn.TransformerDecoder", "conv3d", "nn.FractionalMaxPool3d", "nn.functional.fractional_max_pool3d",
        "nn.MaxUnpool3d", "nn.BatchNorm2d"}

# Cases that still differ, each with the reason (open findings, to be fixed and removed).
KNOWN = {
    "sort": "ties: minitorch's sort is stable, PyTorch's unstable sort orders equal elements its own way (README)",
    "vmap": "torch.dot's repr: minitorch's functions are Python functions, PyTorch's are builtins",
    "set_flush_denormal": "NumPy cannot flush denormal numbers, so minitorch answers False (README)",
    "inference_mode": "inference tensors are ordinary tensors here: `_version` is readable (README)",
    "qr": "float32 rounding: NumPy's LAPACK gives R's -14. exactly where PyTorch's gives -14.000001, which "
          "PyTorch prints as -14.0000 (README: float results agree to rounding)",
    "linalg.qr": "the same R as `qr`, and residuals of 1e-7 that differ by rounding",
    "linalg.solve": "an allclose of float32 residuals that sit one rounding from its tolerance",
    "linalg.lu_solve": "an allclose of float32 residuals that sit one rounding from its tolerance",
    "linalg.solve_triangular": "an allclose of float32 residuals that sit one rounding from its tolerance",
    "conv_transpose3d": "float32 sums of thousands of products: printed values near 0. differ from the third digit "
                        "(against float64, minitorch's error is 2.8e-5 and PyTorch's 9.8e-5)",
    "func.functionalize": "the example traces with torch.fx (make_fx); minitorch has no torch.fx",
}

CASES = cases()


@pytest.mark.parametrize("name,doc", CASES, ids=[c[0] or "torch" for c in CASES])
def test_doc_examples_agree_with_pytorch(name, doc):
    why = skip_reason(name)
    if why:
        pytest.skip(why)
    if name in SLOW and os.environ.get("MINITORCH_DOC_EXAMPLES") != "all":
        pytest.skip("large tensors (seconds): run with MINITORCH_DOC_EXAMPLES=all")
    diffs = differences(name, doc)
    if diffs is None:
        pytest.skip("PyTorch itself can't run these examples here (a GPU, a file, or an undefined name)")
    if name in KNOWN:
        if not diffs:
            pytest.fail(f"{name} now agrees with PyTorch: remove it from KNOWN ({KNOWN[name]})")
        pytest.xfail(KNOWN[name])
    assert not diffs, f"{name}: its documentation examples differ on minitorch:\n" + "\n".join(diffs)


def test_enough_cases():
    """The namespaces still hold examples (a renamed namespace would silently test nothing)."""
    assert len(CASES) > 500, len(CASES)


if __name__ == "__main__":
    prefixes = [a for a in sys.argv[1:] if a != "--fast"]
    n_bad = n_run = 0
    for name, doc in CASES:
        if prefixes and not any(name.startswith(p) for p in prefixes):
            continue
        if skip_reason(name) or "--fast" in sys.argv and name in SLOW:
            continue
        d = differences(name, doc)
        if d is None:
            continue
        n_run += 1
        if d:
            n_bad += 1
            print("=" * 100)
            print(f"{name}{'   (KNOWN: ' + KNOWN[name] + ')' if name in KNOWN else ''}")
            print("\n".join(d)[:4000])
    print(f"{n_run} cases run, {n_bad} differ")
