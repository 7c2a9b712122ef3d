"""Peak memory of a digits training run (issue "Speed a learner feels").

Each contender trains the digits MLP of bench/train.py (nn.Sequential + CrossEntropyLoss +
SGD; NumPy: the hand-written step) for a few epochs in a fresh Python process, which then
reports its peak resident set size. The number includes the interpreter, NumPy and the
library itself, as a learner's process would.

Where the peak is read: Linux's ru_maxrss (resource.getrusage) is inherited across fork and
exec, so a child started by this process (which has PyTorch and scikit-learn loaded) would
report at least our own peak. On Linux the child reads VmHWM from /proc/self/status instead
(the high-water mark of its own address space, the same quantity without the inheritance);
elsewhere it falls back to ru_maxrss.
The data is handed over as a .npz file, so no process imports scikit-learn.
Target: minitorch at most half of PyTorch.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile

import numpy as np

from ._timing import NO_TORCH, Row, Timing, try_torch

EPOCHS = 3
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Runs in the child: train, then print the peak RSS in bytes (ru_maxrss is KiB on Linux, bytes on macOS).
# The data is a .npz, so the child needs no scikit-learn.
CHILD = r"""
import json, resource, sys
import numpy as np
lib_name, data_path, epochs, threads = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
from bench import _mlp
d = np.load(data_path)
X, y, perm = d["X"], d["y"], d["perm"]
weights = _mlp.init_weights([64, 128, 128, 10], seed=0)
if lib_name == "numpy":
    model, conv = _mlp.NumpyMLP(weights), (lambda a: a)
else:
    lib = __import__(lib_name)
    if lib_name == "torch":
        lib.set_num_threads(threads)
    model, conv = _mlp.NNMLP(lib, weights), lib.from_numpy
X, y, perm = conv(X), conv(y), conv(perm)
for _ in range(epochs):
    for i in range(0, len(perm), 64):
        idx = perm[i:i + 64]
        loss = model.step(X[idx], y[idx])
try:
    with open("/proc/self/status") as f:
        peak = next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmHWM:"))
except (OSError, StopIteration):
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    peak = peak if sys.platform == "darwin" else peak * 1024
print(json.dumps({"peak_bytes": peak, "loss": float(loss)}))
"""


def _child(lib_name, data_path, epochs, threads):
    env = dict(os.environ, OPENBLAS_NUM_THREADS=str(threads), OMP_NUM_THREADS=str(threads))
    done = subprocess.run([sys.executable, "-c", CHILD, lib_name, data_path, str(epochs), str(threads)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    if done.returncode:
        return f"failed: {done.stderr.strip().splitlines()[-1] if done.stderr.strip() else done.returncode}"
    return json.loads(done.stdout.strip().splitlines()[-1])


def rows(cfg, limit=None, epochs=EPOCHS):
    from .train import load_digits_arrays
    name = f"peak RSS, digits MLP training ({epochs} epochs{f', first {limit} samples' if limit else ''})"
    try:
        X, y = load_digits_arrays(limit)
    except ImportError as e:
        return [Row("memory", "memory.digits_peak_rss", name, skipped=f"scikit-learn is not installed ({e})")]
    perm = np.random.default_rng(0).permutation(len(y)).astype(np.int64)
    threads = cfg.threads or 1
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "digits.npz")
        np.savez(path, X=X, y=y, perm=perm)
        results = {"minitorch": _child("minitorch", path, epochs, threads),
                   "numpy": _child("numpy", path, epochs, threads),
                   "torch": _child("torch", path, epochs, threads) if try_torch() else NO_TORCH}
    times, losses = {}, []
    for c, r in results.items():
        if isinstance(r, dict):
            times[c] = Timing(r["peak_bytes"], r["peak_bytes"], 1, 1)  # bytes: the row's unit
            losses.append(f"{c} {r['loss']:.4f}")
        else:
            times[c] = r
    row = Row("memory", "memory.digits_peak_rss", name, times, target=("torch", 0.5), unit="bytes",
              note="one fresh process per contender (interpreter + NumPy + the library included); "
                   "final loss: " + ", ".join(losses))
    return [row]
