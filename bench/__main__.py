"""`python -m bench` (or `make bench`): print the benchmark tables.

    python -m bench                   all groups (about 2-3 minutes on a 2-core laptop)
    python -m bench --quick           fewer, shorter repeats: rough numbers in ~20 s
    python -m bench --only small      one group (small, large, autograd, depth, train, memory, random, gpu);
                                      repeatable,
                                      or comma-separated: --only small,autograd
    python -m bench --json out.json   also save every number (median, min, calls, ratios)
    python -m bench --threads 1       NumPy's BLAS and PyTorch both limited to 1 thread
    python -m bench --stat min        tables show the fastest repeat instead of the median
                                      (steadier when other processes share the CPUs)

Ratios are minitorch time / NumPy (or PyTorch) time, measured in the same run. PyTorch is
optional: without it the PyTorch columns say "n/a (PyTorch not installed)".
"""
from __future__ import annotations

import argparse
import os
import sys
import time

GROUPS = ("small", "large", "autograd", "depth", "train", "memory", "random", "gpu")
TITLES = {
    "small": "Small tensors: per-op cost (10x10 float32, no grad)",
    "large": "Large tensors: throughput (float32)",
    "autograd": "Autograd: graph recording, backward, one MLP training step",
    "depth": "Graph depth: forward cost per recorded op as the graph grows (GC on)",
    "train": "Training: one epoch of sklearn digits",
    "memory": "Memory: peak RSS of a digits training run, one fresh process each",
    "random": "Random draws: PyTorch's CPU stream, bit for bit (float32 unless noted)",
    "gpu": "GPU: minitorch on CuPy vs raw CuPy, and vs minitorch on the CPU",
}


def run_group(group, cfg, tiny=False):
    """The rows of one group. `tiny` shrinks the large sizes (smoke tests)."""
    from . import autograd, gpu, graph, memory, ops, random_draws, train
    if group == "random":
        return random_draws.rows(cfg, random_draws.TINY_N if tiny else None)
    if group == "small":
        return ops.small_rows(cfg)
    if group == "large":
        return ops.large_rows(cfg, ops.TINY_LARGE_SIZES if tiny else None)
    if group == "autograd":
        return autograd.rows(cfg, mlp_batch=8 if tiny else autograd.MLP_BATCH)
    if group == "depth":
        return graph.rows(cfg, graph.TINY_DEPTHS if tiny else graph.DEPTHS)
    if group == "train":
        return train.rows(cfg, limit=200 if tiny else None)
    if group == "memory":
        return memory.rows(cfg, limit=200 if tiny else None, epochs=1 if tiny else memory.EPOCHS)
    if group == "gpu":
        return gpu.rows(cfg, gpu.TINY_SIZES if tiny else None)
    raise ValueError(f"unknown group {group!r}; choose from {', '.join(GROUPS)}")


def render(group, rows):
    from . import gpu
    from ._timing import table
    if group == "gpu":
        return gpu.table(TITLES[group], rows)
    return table(TITLES[group], rows)


def summary(rows):
    """One line per row with a target: met or MISSED, with the ratio."""
    lines = []
    for r in rows:
        status = r.target_status() if r.group != "gpu" else ""
        if r.group == "gpu" and r.target and not r.skipped:
            ratio = r.ratio("raw")
            status = "" if ratio is None else f"<= 1.10x CuPy: {'met' if ratio <= 1.10 else 'MISSED'}"
        if status:
            other = r.target[0]
            ratio = r.ratio(other)
            why = r.times.get(other) if isinstance(r.times.get(other), str) else "n/a"
            lines.append(f"  {status.split(': ')[-1]:<7} {r.name.strip()}: "
                         f"{why if ratio is None else f'{ratio:.2f}x'} (target {status.split(':')[0]})")
    return lines


def main(argv=None):
    from . import _timing
    try:
        return _main(argv)
    finally:
        _timing.STAT = "median"  # --stat is process-wide while main runs; leave no trace (tests call main)


def _main(argv):
    from ._timing import Config, environment, header, save_json, setup_threads
    p = argparse.ArgumentParser(prog="python -m bench", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="fewer, shorter repeats (rough numbers, for smoke tests)")
    p.add_argument("--only", action="append", default=None, metavar="GROUP",
                   help=f"run only these groups ({', '.join(GROUPS)}); repeatable or comma-separated")
    p.add_argument("--json", metavar="PATH", help="save all results as JSON")
    p.add_argument("--threads", type=int, default=None,
                   help="threads for NumPy's BLAS and PyTorch (default: what NumPy's BLAS uses)")
    p.add_argument("--repeat", type=int, default=None, help="repeats per measurement (default 7, --quick 3)")
    p.add_argument("--stat", choices=("median", "min"), default="median",
                   help="statistic shown in the tables (default median; min is steadier on a busy machine)")
    p.add_argument("--from-json", metavar="PATH",
                   help="print the tables of a saved --json run again (e.g. with --stat min); measures nothing")
    p.add_argument("--tiny", action="store_true", help=argparse.SUPPRESS)  # smoke tests: tiny sizes
    p.add_argument("--min-time", type=float, default=None, help=argparse.SUPPRESS)  # smoke tests: seconds/repeat
    args = p.parse_args(argv)

    groups = []
    for item in args.only or GROUPS:
        for g in item.split(","):
            g = g.strip()
            if g not in GROUPS:
                p.error(f"unknown group {g!r} (choose from {', '.join(GROUPS)})")
            if g not in groups:
                groups.append(g)

    cfg = Config.make(quick=args.quick, repeat=args.repeat, min_time=args.min_time, stat=args.stat)
    if args.from_json:
        from ._timing import load_json
        env, saved = load_json(args.from_json)
        env["timing"]["statistic"] = args.stat
        print(header(env) + f"\n(re-printed from {args.from_json})")
        for g in groups:
            rows = [r for r in saved if r.group == g]
            if rows:
                print()
                print(render(g, rows))
        _print_summary([r for r in saved if r.group in groups], env["timing"]["quick"])
        return 0
    setup_threads(cfg, args.threads)
    env = environment(cfg)
    print(header(env), flush=True)
    started = time.perf_counter()
    all_rows = []
    for g in groups:
        rows = run_group(g, cfg, tiny=args.tiny)
        all_rows += rows
        print()
        print(render(g, rows), flush=True)
    _print_summary(all_rows, cfg.quick)
    load = _loadavg()
    print(f"\n(done in {time.perf_counter() - started:.0f} s" + (f"; load average now {load}" if load else "") + ")")
    if args.json:
        env["elapsed_s"] = time.perf_counter() - started
        env["loadavg_end"] = load
        save_json(args.json, env, all_rows)
        print(f"results saved to {args.json}")
    return 0


def _print_summary(rows, quick):
    lines = summary(rows)
    if lines:
        print("\nTargets" + ("  (--quick: rough numbers, not a verdict)" if quick else ""))
        print("=======")
        print("\n".join(lines))


def _loadavg():
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except (OSError, AttributeError):
        return None


if __name__ == "__main__":
    sys.exit(main())
