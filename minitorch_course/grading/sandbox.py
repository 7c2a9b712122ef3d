"""Run a submission's code in a fresh, confined Python process; bring back plain data only.

One run = one `python -I harness.py` process in a new empty temp dir, with a stripped
environment, its own session (so the whole process group can be killed), resource limits,
Landlock + seccomp + an audit hook (see harness.py), and a per-run random nonce. The
harness reports, step by step (each cell, then each question), on a file the grader opened;
the grader watches that file while the process runs, and kills the process group when a step
overruns its time. When a run dies (a loop that ignores the alarm, a crash, os._exit, the
memory limit), the culprit step gets that verdict and a new process runs what is left, so one
bad question never costs the others.
"""
from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

HARNESS = Path(__file__).with_name("harness.py")
EVENTS = {"start", "cell_start", "cell", "question_start", "question", "done"}


@dataclass
class Limits:
    step_seconds: float = 5.0      # one cell, or one question's cases
    memory_mb: int = 1024          # RLIMIT_AS
    file_mb: int = 16              # RLIMIT_FSIZE: what the submission (and its reports) may write
    startup_seconds: float = 15.0  # Python + NumPy start, landlock, seccomp: generous
    confine: bool = True           # Landlock + seccomp (off only to test the other layers)

    def hard_seconds(self, n_steps):
        return self.startup_seconds + (self.step_seconds + 1.0) * n_steps


@dataclass
class RunResult:
    """What one or more runs of a submission brought back (plain data only)."""
    cells: dict = field(default_factory=dict)      # id -> report dict from the harness, or a death
    questions: dict = field(default_factory=dict)  # id -> report dict, or a death
    violations: list = field(default_factory=list) # refused operations, as the harness saw them
    anomalies: list = field(default_factory=list)  # result channel tampering, seen by the grader
    isolation: dict = field(default_factory=dict)
    stdout: str = ""
    stderr: str = ""
    runs: int = 0
    seconds: float = 0.0
    infrastructure_error: str = ""
    deaths: list = field(default_factory=list)     # (step, status, why) for each run that died


def _signal_name(n):
    try:
        return signal.Signals(n).name
    except ValueError:
        return f"signal {n}"


def _death(rc, killed_for, limits):
    """Why a run ended without finishing, in words for the feedback."""
    if killed_for == "step":
        return "timeout", f"did not finish within {limits.step_seconds:g} s (an infinite loop?)"
    if killed_for == "hard":
        return "timeout", "the run as a whole exceeded its time limit"
    if rc is not None and rc < 0:
        sig = _signal_name(-rc)
        why = {"SIGKILL": "killed by the system (memory or CPU-time limit)",
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
    env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "HOME": home,
           "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
           "NUMEXPR_NUM_THREADS": "1", "MPLBACKEND": "Agg"}
    return env


def _excerpt(path, limit=2000):
    try:
        with open(path, "rb") as f:
            data = f.read(limit + 1)
    except OSError:
        return ""
    text = data[:limit].decode("utf-8", "replace")
    return text + ("\n[... more output cut ...]" if len(data) > limit else "")


class _Channel:
    """Reads the result file incrementally and checks every line it finds."""

    def __init__(self, path, nonce, cell_ids, question_ids):
        self.path, self.prefix = path, nonce + "\t"
        self.pos, self.buf = 0, b""
        self.order = (["start"] + [x for c in cell_ids for x in (f"cell_start:{c}", f"cell:{c}")]
                      + [x for q in question_ids for x in (f"question_start:{q}", f"question:{q}")] + ["done"])
        self.events, self.anomalies, self.open_step, self.open_since = [], [], None, None
        self.forged = False

    def poll(self):
        try:
            with open(self.path, "rb") as f:
                f.seek(self.pos)
                chunk = f.read(8 << 20)
        except OSError:
            return
        self.pos += len(chunk)
        self.buf += chunk
        *lines, self.buf = self.buf.split(b"\n")
        for raw in lines:
            self._line(raw)

    def _line(self, raw):
        line = raw.decode("utf-8", "replace")
        if not line.startswith(self.prefix):
            if len(self.anomalies) < 10:
                self.anomalies.append(f"a line without this run's nonce on the result channel: {line[:80]!r}")
            return
        try:
            ev = json.loads(line[len(self.prefix):])
        except (ValueError, RecursionError):
            self.forged = True
            self.anomalies.append("a malformed report carrying the run's nonce")
            return
        if not isinstance(ev, dict) or ev.get("event") not in EVENTS:
            self.forged = True
            self.anomalies.append("an unknown report carrying the run's nonce")
            return
        key = ev["event"] if ev["event"] in ("start", "done") else f"{ev['event']}:{ev.get('id')}"
        seen = [k for k, _ in self.events]
        nxt = [k for k in self.order if k not in seen]
        if key in seen or not nxt or key != nxt[0]:
            self.forged = True
            self.anomalies.append(f"a duplicated or out-of-order report ({key})")
            return
        self.events.append((key, ev))
        if ev["event"] in ("cell_start", "question_start"):
            self.open_step, self.open_since = key.split("_start:", 1)[0] + ":" + ev["id"], time.monotonic()
        elif ev["event"] in ("cell", "question", "done"):
            self.open_step, self.open_since = None, None


def run_once(job: dict, limits: Limits):
    """One process. Returns (channel, rc, killed_for, stdout, stderr, seconds)."""
    sandbox = tempfile.mkdtemp(prefix="minitorch-sandbox-")
    io_dir = tempfile.mkdtemp(prefix="minitorch-io-")
    try:
        full = dict(job)
        full["limits"] = {"memory_bytes": limits.memory_mb << 20,
                          "cpu_seconds": int(limits.hard_seconds(len(job["cells"]) + len(job["questions"]))) + 1,
                          "file_bytes": limits.file_mb << 20, "step_seconds": limits.step_seconds}
        full["confine"] = limits.confine
        with open(os.path.join(sandbox, "job.json"), "w", encoding="utf-8") as f:
            json.dump(full, f)
        nonce = secrets.token_hex(16)
        result_path = os.path.join(io_dir, "result")
        out_path, err_path = os.path.join(io_dir, "stdout"), os.path.join(io_dir, "stderr")
        chan = _Channel(result_path, nonce, [c["id"] for c in job["cells"]],
                        [q["id"] for q in job["questions"]])
        hard = limits.hard_seconds(len(job["cells"]) + len(job["questions"]))
        killed_for = None
        t0 = time.monotonic()
        with open(result_path, "wb") as rf, open(out_path, "wb") as of, open(err_path, "wb") as ef:
            proc = subprocess.Popen(
                [sys.executable, "-I", str(HARNESS), str(rf.fileno())], cwd=sandbox,
                env=_clean_env(sandbox), stdin=subprocess.PIPE, stdout=of, stderr=ef,
                pass_fds=(rf.fileno(),), start_new_session=True, close_fds=True)
            try:
                proc.stdin.write((nonce + "\n").encode())
                proc.stdin.close()
            except OSError:
                pass
            while True:
                try:
                    proc.wait(timeout=0.03)
                    break
                except subprocess.TimeoutExpired:
                    pass
                chan.poll()
                now = time.monotonic()
                if chan.open_since is not None and now - chan.open_since > limits.step_seconds + 1.0:
                    killed_for = "step"
                elif now - t0 > hard:
                    killed_for = "hard"
                if killed_for:
                    _kill_group(proc)
                    break
            _kill_group(proc)  # whatever it may have left behind in its group
        chan.poll()
        return (chan, proc.returncode, killed_for, _excerpt(out_path), _excerpt(err_path),
                time.monotonic() - t0)
    finally:
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


def run_submission(cells, questions, limits: Limits, **job_extra) -> RunResult:
    """Run the cells, then the questions; rerun what is left after a run dies."""
    res = RunResult()
    skip_cells, pending = set(), [q["id"] for q in questions]
    qmap = {q["id"]: q for q in questions}
    max_runs = len(cells) + len(questions) + 1
    t0 = time.monotonic()
    while pending and res.runs < max_runs:
        res.runs += 1
        run_cells = [c for c in cells if c["id"] not in skip_cells]
        job = {"cells": run_cells, "questions": [qmap[q] for q in pending], **job_extra}
        chan, rc, killed_for, out, err, _secs = run_once(job, limits)
        res.stdout = res.stdout or out
        res.stderr = res.stderr or err
        res.anomalies += [a for a in chan.anomalies if a not in res.anomalies]
        events = dict(chan.events)
        if "start" not in events:
            res.infrastructure_error = (f"the sandbox did not start (exit code {rc}): "
                                        f"{err.strip()[-500:] or 'no message'}")
            break
        res.isolation = events["start"].get("isolation", {})
        if chan.forged:
            for q in pending:
                res.questions[q] = {"tampered": True}
            break
        for c in run_cells:
            rep = events.get(f"cell:{c['id']}")
            if rep is not None and c["id"] not in res.cells:
                res.cells[c["id"]] = rep
        for q in list(pending):
            rep = events.get(f"question:{q}")
            if rep is not None:
                res.questions[q] = rep
                res.violations += [{"step": q, "what": v} for v in rep.get("violations", [])
                                   if isinstance(v, str)]
                pending.remove(q)
        if "done" in events:
            done = events["done"]
            for v in done.get("violations", []):
                if (isinstance(v, dict) and isinstance(v.get("what"), str)
                        and str(v.get("step", "")).startswith("cell:")):
                    item = {"step": v["step"], "what": v["what"]}
                    if item not in res.violations:
                        res.violations.append(item)
            break
        # the run died: blame the step that was running, run the rest again
        status, why = _death(rc, killed_for, limits)
        culprit = chan.open_step
        res.deaths.append((culprit or "between steps", status, why))
        if culprit and culprit.startswith("cell:"):
            cid = culprit[5:]
            skip_cells.add(cid)
            res.cells[cid] = {"died": status, "reason": why}
        elif culprit and culprit.startswith("question:"):
            qid = culprit[9:]
            res.questions[qid] = {"died": status, "reason": why}
            pending.remove(qid)
        else:  # between steps: the harness itself was hit; stop here
            for q in pending:
                res.questions[q] = {"died": status, "reason": why}
            pending = []
    res.seconds = time.monotonic() - t0
    return res
