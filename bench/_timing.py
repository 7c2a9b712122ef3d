"""Timing, results and tables shared by every benchmark group.

How a number is measured
------------------------
Each contender (minitorch, NumPy, PyTorch) is warmed up and calibrated first: the number of
calls per repeat is chosen so that one repeat lasts about `Config.min_time` (50 ms).
Then the repeats run *interleaved* (minitorch, NumPy, PyTorch, minitorch, NumPy, ...), so
a slow drift of the machine (another process, CPU frequency) hits all three alike; where
thread pools are involved, with pauses, or in blocks (see `compare`). Tables
show the **median** per call over the repeats (`--stat min`: the fastest; the JSON keeps
both). A statement given as a string ("a + b") is compiled into timeit's loop, so small ops
pay no extra Python call; a callable pays one call (~30 ns) for every contender alike.

Ratios are minitorch time / other time from the same run: below 1.00x minitorch is faster.
No test ever asserts on a time; `target` only labels a row "met" or "MISSED".
"""
from __future__ import annotations

import gc
import json
import math
import os
import platform
import statistics
import sys
import time
import timeit
from dataclasses import dataclass, field

CONTENDERS = ("minitorch", "numpy", "torch")
STAT = "median"  # the statistic tables and ratios show (Config.make sets it; --stat)
NO_TORCH = "n/a (PyTorch not installed)"


@dataclass
class Config:
    """How hard to measure. `quick` is for smoke tests and a first look (a few seconds)."""

    quick: bool = False
    repeat: int = 7
    min_time: float = 0.05  # seconds per repeat, at least
    threads: int | None = None  # filled in by setup_threads
    settle: float = 0.1  # seconds of pause where thread pools are involved (see compare)
    stat: str = "median"  # what tables and ratios use: "median" or "min" (JSON keeps both)

    @classmethod
    def make(cls, quick=False, repeat=None, min_time=None, stat="median"):
        global STAT
        STAT = stat
        c = cls(quick=quick, repeat=3 if quick else 7, min_time=0.002 if quick else 0.05,
                settle=0.01 if quick else 0.1, stat=stat)
        if repeat is not None:
            c.repeat = repeat
        if min_time is not None:
            c.min_time = min_time
        return c


@dataclass
class Timing:
    median: float  # seconds per call
    min: float
    number: int  # calls per repeat
    repeat: int

    @property
    def value(self):
        """The per-call time the tables use: the median, or the minimum with --stat min."""
        return self.min if STAT == "min" else self.median

    def as_dict(self):
        return {"median_s": self.median, "min_s": self.min, "number": self.number, "repeat": self.repeat}


@dataclass
class Row:
    """One benchmark: the same work done by each contender.

    `times[c]` is a Timing, or a string saying why contender `c` has no number.
    `target` is (contender, max_ratio): e.g. ("numpy", 1.10) means minitorch/NumPy <= 1.10.
    """

    group: str
    key: str  # stable id, e.g. "small.add" (what tests and JSON consumers look for)
    name: str  # what the table shows, e.g. "a + b  (10x10)"
    times: dict = field(default_factory=dict)
    target: tuple | None = None
    note: str = ""
    skipped: str = ""  # non-empty: the whole row did not run, and why
    unit: str = "s"  # what the Timing values count: seconds per call, or "bytes" (bench/memory.py)

    def ratio(self, other):
        m, o = self.times.get("minitorch"), self.times.get(other)
        if isinstance(m, Timing) and isinstance(o, Timing) and o.value > 0:
            return m.value / o.value
        return None

    def target_status(self):
        if self.target is None or self.skipped:
            return ""
        other, limit = self.target
        r = self.ratio(other)
        label = f"<= {limit:.2f}x {_SHORT.get(other, other)}"
        if r is None:
            return f"{label}: n/a"
        return f"{label}: {'met' if r <= limit else 'MISSED'}"

    def as_dict(self):
        d = {"group": self.group, "key": self.key, "name": self.name, "note": self.note,
             "skipped": self.skipped or None, "unit": self.unit, "times": {}, "ratios": {}}
        for c, t in self.times.items():
            d["times"][c] = t.as_dict() if isinstance(t, Timing) else t
            if c != "minitorch":
                d["ratios"][f"minitorch/{c}"] = self.ratio(c)
        if self.target:
            d["target"] = {"vs": self.target[0], "max_ratio": self.target[1], "status": self.target_status()}
        return d


_SHORT = {"numpy": "NumPy", "torch": "PyTorch", "minitorch": "minitorch"}


# ---- measuring --------------------------------------------------------------------------

def _timer(stmt, namespace, keep_gc):
    setup = "gc.enable()" if keep_gc else "pass"
    ns = dict(namespace or {})
    ns.setdefault("gc", gc)
    return timeit.Timer(stmt, setup=setup, globals=ns)


def _calibrate(timer, min_time):
    """Calls per repeat so that one repeat lasts about `min_time`.

    The per-call time is estimated from the fastest of 3 short runs, so one stall (another
    process taking the CPU) during calibration does not leave a too-small count behind.
    """
    n = 1
    while True:
        t = min(timer.timeit(n) for _ in range(3))
        if t >= min_time / 5 or n >= 10_000_000:
            break
        n *= 10
    return max(1, math.ceil(n * min_time / t)) if t > 0 else n


def compare(stmts, cfg, namespaces=None, keep_gc=False, pause=False, blocks=False):
    """Time each of `stmts` ({contender: statement string or callable}); None entries are skipped.

    A string statement runs in `namespaces[contender]` (a dict of globals). Returns
    {contender: Timing}. `keep_gc=True` leaves the garbage collector on (training loops,
    where collecting is part of the real cost); otherwise timeit turns it off, as usual.

    By default the repeats are interleaved (A B C A B C ...), so a drift of the machine hits
    all contenders alike. Thread pools need care: after a call, OpenBLAS's worker threads
    (NumPy, minitorch) and OpenMP's (PyTorch) keep spinning for a while, and the next
    contender fights them for the cores (measured: several times slower on a 2-core
    machine, always to the cost of whoever runs next). So:
    - `pause=True` (large ops): interleaved, with `cfg.settle` seconds of pause after each repeat;
    - `blocks=True` (training steps: many small BLAS calls, where waking a sleeping pool at
      every repeat would be measured too): 3 rounds of a block of repeats per contender
      (AAA BBB CCC AA BB CC ...), with a pause after each block.
    """
    if keep_gc:
        # Objects that exist before timing (PyTorch, scikit-learn and SciPy modules: 200k+)
        # are moved out of the collector's sight, so a collection costs what the timed
        # code allocated, as in a program that imports only the library being measured.
        gc.collect()
        gc.freeze()
    try:
        return _compare(stmts, cfg, namespaces, keep_gc, pause or blocks, blocks)
    finally:
        if keep_gc:
            gc.unfreeze()


def _compare(stmts, cfg, namespaces, keep_gc, pause, blocks):
    timers, numbers, samples = {}, {}, {}
    for c, stmt in stmts.items():
        if stmt is None:
            continue
        t = _timer(stmt, (namespaces or {}).get(c), keep_gc)
        t.timeit(1)  # warm up: first-call costs (imports, caches, allocator) are not the op's cost
        timers[c] = t
        numbers[c] = _calibrate(t, cfg.min_time)
        samples[c] = []
        if pause:
            time.sleep(cfg.settle)
    rounds = min(3, cfg.repeat) if blocks else cfg.repeat
    per_round = [cfg.repeat // rounds + (1 if i < cfg.repeat % rounds else 0) for i in range(rounds)]
    for k in per_round:
        for c, t in timers.items():
            for _ in range(k):
                samples[c].append(t.timeit(numbers[c]) / numbers[c])
            if pause:
                time.sleep(cfg.settle)
    return {c: Timing(statistics.median(s), min(s), numbers[c], cfg.repeat) for c, s in samples.items()}


def measure_row(group, key, name, stmts, cfg, namespaces=None, *, target=None, note="", keep_gc=False,
                have_torch=True, pause=False, blocks=False):
    """A Row from {contender: statement}. A contender whose statement is a string that is not
    Python code (e.g. "-", or a reason) is shown as that string; PyTorch missing shows n/a."""
    runnable, times = {}, {}
    for c, stmt in stmts.items():
        if c == "torch" and not have_torch:
            times[c] = NO_TORCH
        elif stmt is None or isinstance(stmt, Skip):
            times[c] = stmt.reason if isinstance(stmt, Skip) else "-"
        else:
            runnable[c] = stmt
    times.update(compare(runnable, cfg, namespaces, keep_gc, pause, blocks))
    return Row(group, key, name, {c: times[c] for c in CONTENDERS if c in times}, target=target, note=note)


@dataclass
class Skip:
    """In place of a statement: this contender has no number, for this reason."""

    reason: str


# ---- the environment ----------------------------------------------------------------------

def try_torch():
    """The torch module, or None when it is not installed (benchmarks then say n/a)."""
    try:
        import torch
    except Exception:  # ImportError, or a broken install
        return None
    return torch


def blas_threads_of_numpy():
    """How many threads NumPy's BLAS uses (threadpoolctl), or None when unknown."""
    try:
        import threadpoolctl
    except ImportError:
        return None
    import numpy  # noqa: F401  (loads its BLAS so threadpoolctl can see it)
    for info in threadpoolctl.threadpool_info():
        if info.get("user_api") == "blas" and "numpy" in info.get("filepath", "").lower():
            return info.get("num_threads")
    for info in threadpoolctl.threadpool_info():
        if info.get("user_api") == "blas":
            return info.get("num_threads")
    return None


_limiter = None  # keeps a threadpoolctl limit alive for the whole run


def setup_threads(cfg, threads=None):
    """Use the same number of threads for NumPy's BLAS and PyTorch's intra-op pool.

    By default that is what NumPy's BLAS already uses (OpenBLAS picks the CPU count);
    `threads=N` (`--threads N`) limits NumPy's BLAS through threadpoolctl and sets PyTorch
    to N too. NumPy's ufuncs and reductions are single-threaded whatever this says, while
    PyTorch also spreads large elementwise ops and reductions over its threads.
    """
    global _limiter
    import numpy  # noqa: F401  (its BLAS must be loaded for threadpoolctl to limit it)
    if threads is not None:
        try:
            import threadpoolctl
            _limiter = threadpoolctl.threadpool_limits(limits=threads, user_api="blas")
        except ImportError:
            for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
                os.environ[var] = str(threads)  # only effective if NumPy is not loaded yet
        n = threads
    else:
        n = blas_threads_of_numpy() or os.cpu_count() or 1
    torch = try_torch()
    if torch is not None:
        torch.set_num_threads(n)
    cfg.threads = n
    return n


def _blas_lines():
    try:
        import threadpoolctl
    except ImportError:
        threadpoolctl = None
    lines = []
    if threadpoolctl is not None:
        for info in threadpoolctl.threadpool_info():
            path = info.get("filepath", "")
            owner = "numpy" if "numpy" in path.lower() else "torch" if "torch" in path.lower() else "other"
            extra = ", ".join(f"{k}={info[k]}" for k in ("architecture", "threading_layer") if info.get(k))
            lines.append(f"{owner}: {info.get('internal_api')} {info.get('version') or ''} "
                         f"({info.get('user_api')}, {info.get('num_threads')} threads{', ' + extra if extra else ''})"
                         f"  {os.path.basename(path)}")
    else:
        try:
            import numpy
            cfg = numpy.show_config(mode="dicts")
            blas = cfg.get("Build Dependencies", {}).get("blas", {})
            lines.append(f"numpy: {blas.get('name', '?')} {blas.get('version', '')} "
                         "(threadpoolctl not installed: thread counts unknown)")
        except Exception as e:  # old NumPy without mode="dicts"
            lines.append(f"numpy BLAS: unknown ({type(e).__name__}); install threadpoolctl for details")
    return lines


def _loadavg():
    try:
        return list(os.getloadavg())
    except (OSError, AttributeError):
        return None


def _cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def environment(cfg):
    import numpy
    torch = try_torch()
    env = {
        "python": sys.version.split()[0],
        "numpy": numpy.__version__,
        "torch": torch.__version__ if torch is not None else None,
        "cpu": _cpu_name(),
        "cpu_count": os.cpu_count(),
        "threads": cfg.threads,
        "torch_threads": torch.get_num_threads() if torch is not None else None,
        "blas": _blas_lines(),
        "env": {k: v for k, v in os.environ.items()
                if k.startswith(("OPENBLAS_", "OMP_", "MKL_")) or k in ("NVPL_BLAS_DEBUG_CPU_TYPE",)},
        "loadavg_start": _loadavg(),
        "timing": {"repeat": cfg.repeat, "min_time_s": cfg.min_time, "quick": cfg.quick, "statistic": cfg.stat},
    }
    try:
        import minitorch
        env["minitorch"] = minitorch.__version__
    except Exception as e:
        env["minitorch"] = f"import failed: {e}"
    return env


def header(env):
    torch = env["torch"] or NO_TORCH
    lines = [
        "minitorch benchmarks: ratios are minitorch time / NumPy or PyTorch time, measured in this run "
        "(below 1.00x = minitorch faster)",
        f"python {env['python']}, minitorch {env['minitorch']}, numpy {env['numpy']}, torch {torch}",
        f"CPU: {env['cpu']} ({env['cpu_count']} logical CPUs); threads: NumPy BLAS {env['threads']}, "
        f"PyTorch intra-op {env['torch_threads'] if env['torch'] else 'n/a'} (set to match NumPy's BLAS; "
        "NumPy ufuncs/reductions are single-threaded, PyTorch may split large elementwise ops and reductions)",
        "BLAS: " + ("; ".join(env["blas"]) if env["blas"] else "unknown"),
        "environment: " + (", ".join(f"{k}={v}" for k, v in sorted(env["env"].items())) or "(no OPENBLAS_/OMP_/MKL_ "
                                                                                          "variables set)"),
        f"timing: {env['timing']['statistic']} per call of {env['timing']['repeat']} repeats, each >= "
        f"{env['timing']['min_time_s'] * 1e3:g} ms" + ("  [--quick: rough numbers]" if env["timing"]["quick"] else ""),
    ]
    load = env.get("loadavg_start")
    if load:
        busy = load[0] > 0.5
        lines.append(f"load average at start: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}"
                     + ("  WARNING: other processes are using the CPUs; multi-threaded (BLAS) numbers will be "
                        "noisy. Rerun on an idle machine, or use --stat min / --threads 1." if busy else ""))
    return "\n".join(lines)


# ---- tables -----------------------------------------------------------------------------

def fmt_time(s):
    if s is None or (isinstance(s, float) and math.isnan(s)):
        return "-"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6), ("ns", 1e-9)):
        if s >= scale:
            v = s / scale
            return f"{v:.3g} {unit}" if v < 100 else f"{v:.0f} {unit}"
    return f"{s * 1e9:.2f} ns"


def fmt_bytes(n):
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= scale:
            return f"{n / scale:.3g} {unit}" if n / scale < 100 else f"{n / scale:.0f} {unit}"
    return f"{n:.0f} B"


def fmt_ratio(r):
    return "-" if r is None else f"{r:.2f}x"


def _cell(row, c):
    t = row.times.get(c)
    if isinstance(t, Timing):
        return fmt_bytes(t.value) if row.unit == "bytes" else fmt_time(t.value)
    return t or "-"


def _ratio_cell(row, c):
    t = row.times.get(c)
    if isinstance(t, str):  # a reason (not installed, not applicable)
        return t if t == NO_TORCH else "-"
    return fmt_ratio(row.ratio(c))


def table(title, rows):
    cols = ["benchmark", "minitorch", "NumPy", "PyTorch", "mt/NumPy", "mt/PyTorch", "target"]
    body = []
    for r in rows:
        if r.skipped:
            body.append([r.name, f"skipped: {r.skipped}", "", "", "", "", ""])
            continue
        body.append([r.name, _cell(r, "minitorch"), _cell(r, "numpy"), _cell(r, "torch"),
                     _ratio_cell(r, "numpy"), _ratio_cell(r, "torch"), r.target_status()])
    widths = [max(len(cols[i]), *(len(b[i]) for b in body if not (b[1].startswith("skipped") and i > 0)))
              if body else len(cols[i]) for i in range(len(cols))]
    out = [title, "=" * len(title)]
    out.append("  ".join(c.ljust(w) for c, w in zip(cols, widths)).rstrip())
    out.append("  ".join("-" * w for w in widths))
    for b in body:
        if b[1].startswith("skipped"):
            out.append(f"{b[0].ljust(widths[0])}  {b[1]}")
        else:
            out.append("  ".join(x.ljust(w) if i == 0 else x.rjust(w) for i, (x, w) in enumerate(zip(b, widths))))
    notes = [f"  - {r.name.strip()}: {r.note}" for r in rows if r.note]
    if notes:
        out.append("notes:")
        out.extend(notes)
    return "\n".join(out)


def load_json(path):
    """(environment, rows) from a file written by save_json: tables can be re-printed, e.g.
    with another statistic, without measuring again (`python -m bench --from-json PATH`)."""
    with open(path) as f:
        data = json.load(f)
    rows = []
    for d in data["results"]:
        times = {}
        for c, t in d["times"].items():
            times[c] = (Timing(t["median_s"], t["min_s"], t["number"], t["repeat"]) if isinstance(t, dict) else t)
        target = (d["target"]["vs"], d["target"]["max_ratio"]) if d.get("target") else None
        rows.append(Row(d["group"], d["key"], d["name"], times, target=target, note=d.get("note") or "",
                        skipped=d.get("skipped") or "", unit=d.get("unit") or "s"))
    return data["environment"], rows


def save_json(path, env, rows):
    with open(path, "w") as f:
        json.dump({"environment": env, "results": [r.as_dict() for r in rows]}, f, indent=2)
