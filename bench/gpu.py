"""minitorch on CuPy vs raw CuPy, and minitorch's GPU vs its CPU.

Rows: large elementwise (add, mul, exp on 4M float32), matmul 2048 float32 and float16,
reductions over 4096x4096 (sum, sum over dim=1), and the digits MLP step (64-128-128-10,
batch 64; raw CuPy = the hand-written step of bench/_mlp.py run with xp=cupy).

Columns: minitorch on the GPU, raw CuPy, their ratio (target: close to 1, the wrapper's
overhead), minitorch on the CPU, and the GPU speedup (CPU time / GPU time). GPU kernels run
asynchronously, so every timed statement ends with a device synchronize.

Without a GPU (minitorch.cuda.is_available() is False) the group prints
"no GPU: skipped (<reason>)". The same code can be run on the CPU (device="cpu",
xp=numpy) which is how the smoke test exercises it on machines without a GPU.
"""
from __future__ import annotations

import numpy as np

from . import _mlp
from ._timing import Row, compare, fmt_ratio, fmt_time, Timing

SIZES = {"elementwise": (2048, 2048), "matmul": 2048, "reduce": (4096, 4096), "mlp": (64, 128, 128, 10),
         "batch": 64}
TINY_SIZES = {"elementwise": (64, 64), "matmul": 32, "reduce": (64, 64), "mlp": (64, 128, 128, 10), "batch": 64}


def unavailable_reason():
    """None when minitorch sees a GPU; otherwise why not (from minitorch.cuda)."""
    import minitorch
    if minitorch.cuda.is_available():
        return None
    try:
        return minitorch.cuda._cupy_state()[2] or "minitorch.cuda.is_available() is False"
    except Exception:
        return "minitorch.cuda.is_available() is False"


def _gpu_backend():
    import cupy
    import minitorch

    def sync():
        minitorch.cuda.synchronize()
    return "cuda", cupy, sync


def device_rows(cfg, device, xp, sync, sizes=None, cpu_reference=True):
    """The GPU rows, run on `device` with raw-array module `xp` (CuPy, or NumPy for tests)."""
    import minitorch
    sizes = {**SIZES, **(sizes or {})}
    rows = []

    def to_dev(arr):
        return minitorch.tensor(arr, device=device)

    def bench(key, name, mt_fn_dev, raw_fn, mt_fn_cpu, note=""):
        stmts = {"minitorch": mt_fn_dev, "raw": raw_fn}
        if cpu_reference and mt_fn_cpu is not None:
            stmts["minitorch_cpu"] = mt_fn_cpu
        times = compare(stmts, cfg, pause=True)
        if "minitorch_cpu" not in times:
            times["minitorch_cpu"] = "-"
        rows.append(Row("gpu", f"gpu.{key}", name, times, target=("raw", 1.10), note=note))

    rng = np.random.default_rng(7)
    shape = sizes["elementwise"]
    a_np, b_np = (rng.standard_normal(shape, dtype=np.float32) for _ in range(2))
    a, b = to_dev(a_np), to_dev(b_np)
    ra, rb = xp.asarray(a_np), xp.asarray(b_np)
    ca, cb = minitorch.from_numpy(a_np), minitorch.from_numpy(b_np)
    n = int(np.prod(shape))
    label = f"{n / 2**20:g}M float32" if n >= 2**20 else f"{n} float32"
    bench("add", f"a + b  ({label})", lambda: (a + b, sync()), lambda: (ra + rb, sync()), lambda: ca + cb)
    bench("mul", f"a * b  ({label})", lambda: (a * b, sync()), lambda: (ra * rb, sync()), lambda: ca * cb)
    bench("exp", f"a.exp()  ({label})", lambda: (a.exp(), sync()), lambda: (xp.exp(ra), sync()), lambda: ca.exp())

    m = sizes["matmul"]
    for dt_name, np_dt, mt_dt in (("float32", np.float32, minitorch.float32),
                                  ("float16", np.float16, minitorch.float16)):
        x_np, w_np = (rng.standard_normal((m, m)).astype(np_dt) for _ in range(2))
        x, w = to_dev(x_np), to_dev(w_np)
        rx, rw = xp.asarray(x_np), xp.asarray(w_np)
        cx, cw = minitorch.from_numpy(x_np), minitorch.from_numpy(w_np)
        cpu = (lambda cx=cx, cw=cw: cx @ cw) if dt_name == "float32" else None  # NumPy float16 matmul: no BLAS
        bench(f"matmul_{dt_name}", f"a @ b  ({m}x{m} {dt_name})",
              lambda x=x, w=w: (x @ w, sync()), lambda rx=rx, rw=rw: (rx @ rw, sync()), cpu,
              note="" if cpu else "no CPU column: NumPy has no BLAS for float16 (it would take minutes)")

    shape = sizes["reduce"]
    r_np = rng.standard_normal(shape, dtype=np.float32)
    r, rr, cr = to_dev(r_np), xp.asarray(r_np), minitorch.from_numpy(r_np)
    size = "x".join(map(str, shape))
    bench("sum", f"a.sum()  ({size} float32)", lambda: (r.sum(), sync()), lambda: (rr.sum(), sync()),
          lambda: cr.sum())
    bench("sum_dim1", f"a.sum(dim=1)  ({size} float32)", lambda: (r.sum(dim=1), sync()),
          lambda: (rr.sum(axis=1), sync()), lambda: cr.sum(dim=1))

    layers, bs = sizes["mlp"], sizes["batch"]
    weights = _mlp.init_weights(list(layers), seed=0)
    x_np, y_np = _mlp.batch(bs, layers[0], layers[-1], seed=1)
    mt_dev = _mlp.RawMLP(minitorch, weights, device=device)
    raw = _mlp.NumpyMLP(weights, xp=xp)
    mt_cpu = _mlp.RawMLP(minitorch, weights)
    xd, yd = to_dev(x_np), to_dev(y_np)
    xr, yr = xp.asarray(x_np), xp.asarray(y_np)
    xc, yc = minitorch.from_numpy(x_np), minitorch.from_numpy(y_np)
    bench("mlp_step", f"MLP step  ({'-'.join(map(str, layers))}, batch {bs})",
          lambda: (mt_dev.step(xd, yd), sync()), lambda: (raw.step(xr, yr), sync()), lambda: mt_cpu.step(xc, yc),
          note="tensor-ops step of bench/_mlp.py; raw column: the hand-written step with xp=cupy")
    return rows


def rows(cfg, sizes=None):
    why = unavailable_reason()
    if why is not None:
        return [Row("gpu", "gpu.all", "GPU benchmarks", skipped=f"no GPU: skipped ({why})")]
    device, xp, sync = _gpu_backend()
    return device_rows(cfg, device, xp, sync, sizes)


def table(title, rows, raw_name="CuPy"):
    """The GPU table: minitorch GPU | raw | mt/raw | minitorch CPU | speedup (CPU / GPU)."""
    if len(rows) == 1 and rows[0].skipped:
        return f"{title}\n{'=' * len(title)}\n{rows[0].skipped}"
    cols = ["benchmark", "minitorch GPU", f"raw {raw_name}", f"mt/{raw_name}", "minitorch CPU", "GPU speedup",
            "target"]
    body = []
    for r in rows:
        if r.skipped:
            body.append([r.name, f"skipped: {r.skipped}"] + [""] * 5)
            continue
        mt, raw, cpu = (r.times.get(k) for k in ("minitorch", "raw", "minitorch_cpu"))
        speed = (cpu.value / mt.value) if isinstance(cpu, Timing) and isinstance(mt, Timing) else None
        status = ""
        ratio = r.ratio("raw")
        if ratio is not None:
            status = f"<= 1.10x {raw_name}: {'met' if ratio <= 1.10 else 'MISSED'}"
        body.append([r.name, _t(mt), _t(raw), fmt_ratio(ratio), _t(cpu),
                     "-" if speed is None else f"{speed:.1f}x", status])
    widths = [max(len(cols[i]), *(len(b[i]) for b in body)) for i in range(len(cols))]
    out = [title, "=" * len(title), "  ".join(c.ljust(w) for c, w in zip(cols, widths)).rstrip(),
           "  ".join("-" * w for w in widths)]
    for b in body:
        out.append("  ".join(x.ljust(w) if i == 0 else x.rjust(w) for i, (x, w) in enumerate(zip(b, widths))))
    notes = [f"  - {r.name}: {r.note}" for r in rows if r.note]
    if notes:
        out += ["notes:"] + notes
    return "\n".join(out)


def _t(t):
    return fmt_time(t.value) if isinstance(t, Timing) else (t or "-")
