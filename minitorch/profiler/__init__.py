"""`torch.profiler`: where the time of a block of code goes, by named region.

    with torch.profiler.profile() as prof:
        with torch.profiler.record_function("forward"):
            out = model(x)
    print(prof.key_averages().table(sort_by="cpu_time_total", row_limit=10))

PyTorch's profiler records every operator (aten::addmm, ...) from inside its C++ dispatcher;
minitorch's records the regions you name with record_function (and the whole profiled block),
timed on the wall clock. Its table has PyTorch's columns for those rows.
"""
from __future__ import annotations

import enum
import time

_active = []  # the profiles recording now (nested profiles each see every region)


class ProfilerActivity(enum.Enum):
    CPU = 0
    CUDA = 1
    XPU = 2
    MTIA = 3


class ProfilerAction(enum.Enum):
    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


def schedule(*, wait, warmup, active, repeat=0, skip_first=0, skip_first_wait=0):
    """The action for each step number: skip, wait, warm up, then record `active` steps (repeat times)."""
    def action(step):
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        cycle = wait + warmup + active
        if repeat > 0 and step // cycle >= repeat:
            return ProfilerAction.NONE
        pos = step % cycle
        if pos < wait:
            return ProfilerAction.NONE
        if pos < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if pos < cycle - 1 else ProfilerAction.RECORD_AND_SAVE
    return action


class _Event:
    __slots__ = ("key", "count", "cpu_time_total")

    def __init__(self, key):
        self.key, self.count, self.cpu_time_total = key, 0, 0.0  # (microseconds, as PyTorch's)

    @property
    def cpu_time(self):
        return self.cpu_time_total / max(self.count, 1)

    @property
    def self_cpu_time_total(self):
        return self.cpu_time_total


class EventList(list):
    def table(self, sort_by=None, row_limit=100, **kwargs):
        rows = sorted(self, key=lambda e: -getattr(e, (sort_by or "cpu_time_total").replace("self_", ""), 0.0)) \
            if sort_by else list(self)
        rows = rows[:row_limit] if row_limit and row_limit > 0 else rows
        total = max((e.cpu_time_total for e in self), default=0.0) or 1.0
        head = f"{'Name':<32}{'CPU total %':>14}{'CPU total':>14}{'CPU time avg':>14}{'# of Calls':>12}"
        line = "-" * len(head)
        out = [line, head, line]
        for e in rows:
            out.append(f"{e.key[:31]:<32}{100 * e.cpu_time_total / total:>13.2f}%{_us(e.cpu_time_total):>14}"
                       f"{_us(e.cpu_time):>14}{e.count:>12}")
        out += [line, f"Self CPU time total: {_us(total)}", ""]
        return "\n".join(out)


def _us(t):
    return f"{t:.3f}us" if t < 1e3 else f"{t / 1e3:.3f}ms" if t < 1e6 else f"{t / 1e6:.3f}s"


class profile:
    def __init__(self, activities=None, schedule=None, on_trace_ready=None, record_shapes=False,
                 profile_memory=False, with_stack=False, with_flops=False, with_modules=False, **kwargs):
        self.schedule, self.on_trace_ready = schedule, on_trace_ready
        self.step_num = 0
        self._events = {}
        self._recording = schedule is None

    def __enter__(self):
        _active.append(self)
        self._start = time.perf_counter()
        return self

    def __exit__(self, *exc):
        _active.remove(self)
        if self.schedule is None:
            self._add("[profiled block]", (time.perf_counter() - self._start) * 1e6)
            if self.on_trace_ready is not None:
                self.on_trace_ready(self)
        return False

    def start(self):
        return self.__enter__()

    def stop(self):
        self.__exit__(None, None, None)

    def step(self):
        """The next training step (with a schedule: decides whether the coming step is recorded)."""
        if self.schedule is not None:
            was = self.schedule(self.step_num)
            self.step_num += 1
            now = self.schedule(self.step_num)
            if was == ProfilerAction.RECORD_AND_SAVE and self.on_trace_ready is not None:
                self.on_trace_ready(self)
            self._recording = now in (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE)
        else:
            self.step_num += 1

    def _add(self, key, us):
        if self._recording:
            e = self._events.setdefault(key, _Event(key))
            e.count += 1
            e.cpu_time_total += us

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0):
        return EventList(self._events.values())

    def events(self):
        return self.key_averages()

    def export_chrome_trace(self, path):
        import json
        trace = [{"name": e.key, "ph": "X", "ts": 0, "dur": e.cpu_time_total, "pid": 0, "tid": 0}
                 for e in self._events.values()]
        with open(path, "w") as f:
            json.dump({"traceEvents": trace}, f)


class record_function:
    """A named region: its wall time is added to every profile recording around it."""

    def __init__(self, name, args=None):
        self.name = name

    def __enter__(self):
        self._start = time.perf_counter()
        return self

    def __exit__(self, *exc):
        us = (time.perf_counter() - self._start) * 1e6
        for p in _active:
            p._add(self.name, us)
        return False

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def run(*args, **kwargs):
            with record_function(self.name):
                return fn(*args, **kwargs)
        return run


def tensorboard_trace_handler(dir_name, worker_name=None, use_gzip=False):
    """An on_trace_ready that writes each recorded trace as a Chrome trace file into dir_name."""
    import os

    def handler(prof):
        os.makedirs(dir_name, exist_ok=True)
        name = f"{worker_name or 'minitorch'}.{prof.step_num}.pt.trace.json"
        prof.export_chrome_trace(os.path.join(dir_name, name))
    return handler
