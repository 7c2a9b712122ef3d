"""Run a submission's code in a fresh, confined Python process; bring back plain data only.

One run = one `python -I harness.py` process in a new empty temp dir, with a stripped
environment, its own session (so the whole process group can be killed), resource limits,
Landlock + seccomp + an audit hook (see harness.py), and a per-run random nonce. The harness
reports, step by step (each cell, then each question), on a pipe the grader reads while the
process runs. The grader keeps its own records of what it saw: when each step started and
ended by its own clock, each refused operation as it arrived, and how the process ended
(exit status, signal, the grader's own kill for time). Those records, never the reports' words,
decide a step's fate. When a run dies (a loop that ignores the alarm, a crash, os._exit, the
memory limit), the culprit step gets that verdict and a new process runs what is left, so one
bad question never costs the others; a submission has one time budget for all its runs, and
a capped number of runs.
"""
from __future__ import annotations

import functools
import json
import os
import secrets
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from .harness import OUTPUT_LIMIT, plan  # what the harness keeps of stdout, and of stderr

HARNESS = Path(__file__).with_name("harness.py")
COURSE_PACKAGE = Path(__file__).resolve().parents[1]  # holds the exercises' reference solutions
MAX_CHANNEL_BYTES = 96 << 20  # what one run may send back; more is flooding


@dataclass
class Limits:
    step_seconds: float = 5.0      # one cell, or one question's cases
    memory_mb: int = 1024          # RLIMIT_AS
    file_mb: int = 16              # RLIMIT_FSIZE: what the submission (and its reports) may write
    startup_seconds: float = 15.0  # Python + NumPy start, landlock, seccomp: generous
    confine: bool = True           # Landlock + seccomp (off only to test the other layers)
    budget_seconds: float | None = None  # all runs of one submission together; None: 6 x step
    max_runs: int | None = None    # processes per submission; None: questions + 3

    @property
    def budget(self):
        return float(self.budget_seconds) if self.budget_seconds else 6.0 * self.step_seconds

    def runs_for(self, n_questions):
        return int(self.max_runs) if self.max_runs else n_questions + 3


@dataclass
class RunResult:
    """What the runs of one submission brought back, and what the grader itself observed.
    `cells` and `questions` hold the harness's reports: plain data written by a process the
    submission controls, so they are read as values only. Everything else is the grader's."""
    cells: dict = field(default_factory=dict)      # cell id -> report (untrusted)
    questions: dict = field(default_factory=dict)  # question id -> report (untrusted)
    deaths: dict = field(default_factory=dict)     # "cell:ID" / "question:ID" -> (status, why): observed
    not_run: dict = field(default_factory=dict)    # question id -> why it was never run
    seconds: dict = field(default_factory=dict)    # step -> seconds, by the grader's clock
    refusals: list = field(default_factory=list)   # (step or None, what): refused operations, as they came
    anomalies: list = field(default_factory=list)  # result channel tampering, seen by the grader
    tampered: set = field(default_factory=set)     # questions whose reports could not be trusted
    cut_cells: list = field(default_factory=list)  # added cells left out to keep within the budget
    output_cut: bool = False                       # the output went over what the harness keeps
    isolation: dict = field(default_factory=dict)
    stdout: str = ""
    stderr: str = ""
    runs: int = 0
    elapsed: float = 0.0
    infrastructure_error: str = ""


def _signal_name(n):
    try:
        return signal.Signals(n).name
    except ValueError:
        return f"signal {n}"


def _death(rc, killed_for, limits):
    """Why a run ended without finishing, in words for the feedback: (status, why)."""
    fixed = {
        "step": ("timeout", f"did not finish within {limits.step_seconds:g} s (an infinite loop?)"),
        "budget": ("timeout", f"was still running when the notebook's time budget "
                              f"({limits.budget:g} s in all) ran out"),
        "cells_budget": ("timeout", "was still running when the cells before the questions had used "
                                    "their share of the notebook's time budget"),
        "closed": ("exited", "closed the grader's result channel"),
        "flood": ("tampered", f"sent more than {MAX_CHANNEL_BYTES >> 20} MiB of results"),
        "forged": ("tampered", "wrote on the grader's result channel"),
    }
    if killed_for in fixed:
        return fixed[killed_for]
    if rc is not None and rc < 0:
        sig = _signal_name(-rc)
        why = {"SIGKILL": "was killed by the system (memory or CPU-time limit)",
               "SIGXCPU": "exceeded the CPU-time limit",
               "SIGSEGV": "crashed the Python process (SIGSEGV: e.g. unbounded recursion)",
               "SIGABRT": "aborted the Python process (SIGABRT)",
               "SIGBUS": "crashed the Python process (SIGBUS)"}.get(sig, f"was killed by {sig}")
        return "crashed", why
    if rc == 3:
        return "exited", ("ended the process early (exit code 3: os._exit(3), or by breaking the "
                          "grading harness, e.g. closing its files)")
    return "exited", f"ended the process early (exit code {rc}: os._exit or similar)"


def _clean_env(home):
    return {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "HOME": home,
            "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
            "NUMEXPR_NUM_THREADS": "1", "MPLBACKEND": "Agg", "PYTHONHASHSEED": "0"}


def _excerpt(path, limit=2000):
    try:
        with open(path, "rb") as f:
            data = f.read(limit + 1)
    except OSError:
        return ""
    text = data[:limit].decode("utf-8", "replace")
    return text + ("\n[... more output cut ...]" if len(data) > limit else "")


def clean_text(s, limit=2000):
    """A string from the sandbox, made safe to write anywhere: lone surrogates escaped, cut."""
    if not isinstance(s, str):
        s = str(s)
    return s[:limit].encode("utf-8", "backslashreplace").decode("utf-8")


# ---------------------------------------------------------------------------------------
# What the sandbox may read: the Python installation, minus anything the grader protects
# ---------------------------------------------------------------------------------------
_PROBE = ("import json, sys, importlib.util as u\n"
          "s = u.spec_from_file_location('h', sys.argv[1]); h = u.module_from_spec(s)\n"
          "s.loader.exec_module(h); print(json.dumps(sorted(h._read_roots())))")


@functools.lru_cache(maxsize=1)
def python_roots():
    """The read-only roots a `python -I` process needs (asked of one, once)."""
    home = tempfile.mkdtemp(prefix="minitorch-probe-")
    try:
        p = subprocess.run([sys.executable, "-I", "-c", _PROBE, str(HARNESS)], capture_output=True,
                           text=True, timeout=120, cwd=home, env=_clean_env(home))
        return tuple(json.loads(p.stdout))
    finally:
        shutil.rmtree(home, ignore_errors=True)


def _under(path, root):
    return path == root or path.startswith(root.rstrip("/") + "/")


def _without(root, protected, depth=0):
    """root, or (when a protected path lies inside it) its entries minus the protected ones."""
    root = os.path.realpath(root)
    if any(_under(root, p) for p in protected):
        return []
    if not any(_under(p, root) for p in protected):
        return [root]
    if depth > 8 or not os.path.isdir(root):
        return []
    try:
        entries = sorted(os.listdir(root))
    except OSError:
        return []
    return [r for e in entries for r in _without(os.path.join(root, e), protected, depth + 1)]


@functools.lru_cache(maxsize=16)
def read_roots(protected=()):
    """What the sandbox may read: the Python installation, with every protected path (and the
    course package, which holds the reference solutions) carved out of it. The job carries
    only this list, never the protected paths themselves."""
    prot = sorted({os.path.realpath(p) for p in (*protected, COURSE_PACKAGE)})
    return tuple(sorted({r for root in python_roots() for r in _without(root, prot)}))


# ---------------------------------------------------------------------------------------
# The result channel: a pipe, read as the run goes; every line checked against the plan
# ---------------------------------------------------------------------------------------
STEP_EVENTS = ("cell_start", "cell", "question_start", "question")


class _Channel:
    """Reads the harness's lines and keeps the grader's own record: which report came when
    (by the grader's clock), which step was open when a refusal came, and whether anything on
    the channel broke the plan (then nothing after it is used)."""

    def __init__(self, nonce, cell_ids, question_ids, steps=None):
        self.prefix = (nonce + "\t").encode()
        self.buf = b""
        # steps: [("cell" or "question", id)] in the order the harness runs them (harness.plan);
        # None: the cells, then the questions
        steps = steps or [("cell", c) for c in cell_ids] + [("question", q) for q in question_ids]
        self.order = (["start"] + [x for kind, i in steps for x in (f"{kind}_start:{i}", f"{kind}:{i}")]
                      + ["done"])
        self.next = 0
        self.events, self.anomalies, self.refusals, self.seconds = {}, [], [], {}
        self.open_step, self.open_since = None, None
        self.forged = False
        self.bytes = 0

    @property
    def started(self):
        return self.next > 0

    @property
    def done(self):
        return self.next == len(self.order)

    @property
    def in_cells(self):
        """True while no question has started yet."""
        return self.next < len(self.order) and not self.order[self.next].startswith(("question", "done"))

    def feed(self, data, now):
        self.bytes += len(data)
        self.buf += data
        *lines, self.buf = self.buf.split(b"\n")
        for raw in lines:
            if not self.forged:
                self._line(raw, now)
        if len(self.buf) > MAX_CHANNEL_BYTES:
            self._forge("a report line without an end")

    def _forge(self, what):
        self.forged = True
        if len(self.anomalies) < 10:
            self.anomalies.append(what)

    def _line(self, raw, now):
        if not raw.startswith(self.prefix):
            if len(self.anomalies) < 10:
                shown = clean_text(raw[:80].decode("utf-8", "replace"), 80)
                self.anomalies.append(f"a line without this run's nonce on the result channel: {shown!r}")
            return
        try:
            ev = json.loads(raw[len(self.prefix):])
        except (ValueError, RecursionError):
            return self._forge("a malformed report carrying the run's nonce")
        if not isinstance(ev, dict) or not isinstance(ev.get("event"), str):
            return self._forge("an unknown report carrying the run's nonce")
        kind = ev["event"]
        if kind == "refused":
            if self.started and not self.done and isinstance(ev.get("what"), str):
                if len(self.refusals) < 200:
                    self.refusals.append((self.open_step, clean_text(ev["what"], 300)))
                return
            return self._forge("a refusal report out of place")
        if kind in STEP_EVENTS:
            if not isinstance(ev.get("id"), str):
                return self._forge("a report without a step id")
            key = f"{kind}:{ev['id']}"
        else:
            key = kind
        if self.done or key != self.order[self.next]:
            return self._forge(f"a duplicated or out-of-order report ({clean_text(key, 80)})")
        self.next += 1
        self.events[key] = ev
        if kind in ("cell_start", "question_start"):
            self.open_step, self.open_since = key.replace("_start", ""), now
        elif kind in ("cell", "question"):
            self.seconds[key] = now - self.open_since
            self.open_step, self.open_since = None, None


# ---------------------------------------------------------------------------------------
# One run
# ---------------------------------------------------------------------------------------
@dataclass
class _Run:
    chan: _Channel
    rc: int | None
    killed_for: str | None
    stdout: str
    stderr: str
    output_cut: bool


def _next_deadline(chan, limits, t0, deadline, cells_deadline):
    """(when, why) of the next moment the grader must stop this run."""
    options = [(deadline, "budget")]
    if not chan.started:
        options.append((t0 + limits.startup_seconds, "startup"))
    if chan.open_since is not None:
        options.append((chan.open_since + limits.step_seconds + 1.0, "step"))
    if chan.in_cells and cells_deadline is not None:
        options.append((cells_deadline, "cells_budget"))
    return min(options)


def _watch(proc, fd, chan, limits, t0, deadline, cells_deadline):
    """Read the channel until the run is done, dies, or must be stopped. Returns why it was
    stopped by the grader (None: it finished or ended on its own)."""
    poller = select.poll()
    poller.register(fd, select.POLLIN | select.POLLHUP)
    eof_at = None
    while True:
        now = time.monotonic()
        when, why = _next_deadline(chan, limits, t0, deadline, cells_deadline)
        if now >= when:
            return why
        if eof_at is not None:
            if proc.poll() is not None:
                return None
            if now - eof_at > 1.0:
                return "closed"  # no report can come any more, yet the process goes on
            time.sleep(0.01)
            continue
        if not poller.poll(max(1, min(250, int((when - now) * 1000) + 1))):
            continue
        try:
            data = os.read(fd, 1 << 20)
        except BlockingIOError:
            continue
        if not data:
            eof_at = time.monotonic()
            continue
        chan.feed(data, time.monotonic())
        if chan.forged:
            return "forged"
        if chan.done:
            return None
        if chan.bytes > MAX_CHANNEL_BYTES:
            return "flood"


def run_once(job: dict, limits: Limits, deadline: float, cells_deadline: float | None = None) -> _Run:
    """One process, watched until it finishes, dies, or must be stopped."""
    sandbox = tempfile.mkdtemp(prefix="minitorch-sandbox-")
    io_dir = tempfile.mkdtemp(prefix="minitorch-io-")
    r = w = None
    try:
        full = dict(job)
        full["limits"] = {"memory_bytes": limits.memory_mb << 20,
                          "cpu_seconds": int(limits.budget + limits.startup_seconds) + 1,
                          "file_bytes": limits.file_mb << 20, "step_seconds": limits.step_seconds}
        full["confine"] = limits.confine
        with open(os.path.join(sandbox, "job.json"), "w", encoding="utf-8") as f:
            f.write(json.dumps(full))  # dumps, not dump: the C encoder
        nonce = secrets.token_hex(16)
        out_path, err_path = os.path.join(io_dir, "stdout"), os.path.join(io_dir, "stderr")
        chan = _Channel(nonce, [], [], [(kind, item["id"]) for kind, item in plan(job["cells"], job["questions"])])
        r, w = os.pipe()
        t0 = time.monotonic()
        with open(out_path, "wb") as of, open(err_path, "wb") as ef:
            proc = subprocess.Popen(
                [sys.executable, "-I", str(HARNESS), str(w)], cwd=sandbox, env=_clean_env(sandbox),
                stdin=subprocess.PIPE, stdout=of, stderr=ef, pass_fds=(w,), start_new_session=True,
                close_fds=True)
        os.close(w)
        w = None
        try:
            proc.stdin.write((nonce + "\n").encode())
            proc.stdin.close()
        except OSError:
            pass
        try:
            killed_for = _watch(proc, r, chan, limits, t0, deadline, cells_deadline)
        finally:
            _kill_group(proc)  # also whatever it may have left behind in its group
        cut = any(os.path.getsize(p) >= OUTPUT_LIMIT for p in (out_path, err_path))
        return _Run(chan, proc.returncode, killed_for, _excerpt(out_path), _excerpt(err_path), cut)
    finally:
        for fd in (r, w):
            if fd is not None:
                os.close(fd)
        shutil.rmtree(sandbox, ignore_errors=True)
        shutil.rmtree(io_dir, ignore_errors=True)


def _kill_group(proc):
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


# ---------------------------------------------------------------------------------------
# A submission: runs until every question has a verdict, within one budget
# ---------------------------------------------------------------------------------------
def _placed(questions, cells, skip):
    """The questions of a run, each with "after": the last cell that runs before it. A
    question's "at" is how many of `cells` come before its test cell (None: after them all);
    a cell left out of this run (it died before) moves the question up to the one before it."""
    out = []
    for q in questions:
        at = q.get("at")
        q = {k: v for k, v in q.items() if k != "at"}
        if at is not None:
            before = [c["id"] for c in cells[:at] if c["id"] not in skip]
            q["after"] = before[-1] if before else ""
        out.append(q)
    return out


def run_submission(cells, questions, limits: Limits, protected=(), **job_extra) -> RunResult:
    """Run the cells, then the questions; rerun what is left after a run dies, within the
    submission's time budget and its number of runs. A cell's "kind" says which cells may be
    left out when the cells run too long ("added": the learner's extra cells)."""
    res = RunResult()
    skip, pending = set(), [q["id"] for q in questions]
    qmap = {q["id"]: q for q in questions}
    t0 = time.monotonic()
    deadline = t0 + limits.budget
    job_extra = dict(job_extra, read_roots=list(read_roots(tuple(sorted(str(p) for p in protected)))))
    while pending:
        left = deadline - time.monotonic()
        if res.runs >= limits.runs_for(len(questions)) or left < 0.5:
            why = (f"the notebook's time budget ({limits.budget:g} s in all) ran out before it"
                   if left < 0.5 else f"the notebook's process died {res.runs} times, so the grader "
                                      "stopped restarting it")
            res.not_run.update({q: why for q in pending})
            break
        res.runs += 1
        run_cells = [c for c in cells if c["id"] not in skip]
        placed = _placed([qmap[q] for q in pending], cells, skip)
        reserve = min(left / 2, len(pending) * (limits.step_seconds + 1.0) + 2.0)  # + a restart
        job = {"cells": run_cells, "questions": placed, **job_extra}
        run = run_once(job, limits, deadline, time.monotonic() + left - reserve)
        chan = run.chan
        res.stdout, res.stderr = res.stdout or run.stdout, res.stderr or run.stderr
        res.output_cut |= run.output_cut
        res.anomalies += [a for a in chan.anomalies if a not in res.anomalies]
        res.refusals += [x for x in chan.refusals if x not in res.refusals]
        res.seconds.update(chan.seconds)
        if "start" not in chan.events and run.killed_for == "budget":
            res.not_run.update({q: f"the notebook's time budget ({limits.budget:g} s in all) ran out "
                                   "before it" for q in pending})
            break
        if "start" not in chan.events:
            res.infrastructure_error = (f"the sandbox did not start (exit code {run.rc}): "
                                        f"{run.stderr.strip()[-500:] or 'no message'}")
            break
        res.isolation = chan.events["start"].get("isolation", {})  # sent before any submitted code ran
        for c in run_cells:
            rep = chan.events.get(f"cell:{c['id']}")
            if rep is not None:
                res.cells.setdefault(c["id"], rep)
        for q in list(pending):
            rep = chan.events.get(f"question:{q}")
            if rep is not None:
                res.questions[q] = rep
                pending.remove(q)
        if chan.done:
            break
        status, why = _death(run.rc, run.killed_for, limits)
        culprit = chan.open_step
        if run.killed_for == "forged":
            res.tampered.update(pending)
            break
        if run.killed_for == "closed":
            res.anomalies.append(f"the result channel was closed during {culprit or 'the run'}")
        if culprit and culprit.startswith("cell:"):
            res.deaths[culprit] = (status, why)
            skip.add(culprit[5:])
            if run.killed_for == "cells_budget":  # the rerun leaves out the learner's slow extra cells
                slow = [c["id"] for c in run_cells if c.get("kind") == "added" and (
                    f"cell:{c['id']}" not in chan.events or chan.seconds.get(f"cell:{c['id']}", 0) >= 0.25)]
                res.cut_cells += [c for c in slow if c not in res.cut_cells]
                skip.update(slow)
        elif culprit and culprit.startswith("question:"):
            res.deaths[culprit] = (status, why)
            pending.remove(culprit[9:])
        else:  # between steps: the harness itself was hit; what is left gets the same fate
            res.deaths.update({f"question:{q}": (status, why) for q in pending})
            pending = []
        if run.killed_for == "budget":
            res.not_run.update({q: f"the notebook's time budget ({limits.budget:g} s in all) ran out "
                                   "before it" for q in pending})
            pending = []
    res.elapsed = time.monotonic() - t0
    return res
