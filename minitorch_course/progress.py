"""The learner's progress across the course, kept on their own machine.

Stored as JSON in ~/.minitorch/progress.json, or wherever MINITORCH_PROGRESS points (a file
path). Never inside the repository, never sent anywhere. A broken or unwritable file never
breaks a check(): progress is a convenience, the checks are what matter.

    from minitorch_course import show_progress
    show_progress()          # a table: exercise, question, status, attempts, hints used
"""
from __future__ import annotations

import datetime as _dt
import html
import json
import os
import tempfile
import warnings
from pathlib import Path

ENV_VAR = "MINITORCH_PROGRESS"
STATUS_ICON = {"correct": "✔", "incorrect": "✘", "not_attempted": "·", "missing": "·", None: "·"}


def progress_path() -> Path:
    env = os.environ.get(ENV_VAR)
    if env:
        return Path(env).expanduser()
    return Path.home() / ".minitorch" / "progress.json"


def _now():
    return _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat()


def load(path=None) -> dict:
    path = Path(path) if path else progress_path()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(data, dict) and isinstance(data.get("exercises"), dict):
            return data
    except FileNotFoundError:
        pass
    except (OSError, ValueError):
        try:  # keep the unreadable file for the curious, start afresh
            path.replace(path.with_suffix(".json.broken"))
        except OSError:
            pass
    return {"version": 1, "exercises": {}}


def _save(data, path=None):
    path = Path(path) if path else progress_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".progress-", suffix=".json")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(data, f, indent=1, sort_keys=True)
        os.replace(tmp, path)
    except OSError as e:
        warnings.warn(f"could not save progress to {path}: {e} (set {ENV_VAR} to another file)",
                      stacklevel=3)


def _entry(data, exercise, qid):
    return data["exercises"].setdefault(exercise, {}).setdefault(
        qid, {"status": None, "attempts": 0, "hints": [], "solution_viewed": False})


def record_check(exercise, qid, status, passed=0, total=0):
    data = load()
    e = _entry(data, exercise, qid)
    e["attempts"] = int(e.get("attempts", 0)) + 1
    if e.get("status") != "correct" or status == "correct":
        e["status"] = status  # once correct, a later experiment does not undo it
    e["last_checked"] = _now()
    e["last_result"] = {"status": status, "passed": passed, "total": total}
    if status == "correct" and not e.get("first_correct"):
        e["first_correct"] = _now()
    _save(data)


def record_hint(exercise, qid, n):
    data = load()
    e = _entry(data, exercise, qid)
    if n not in e["hints"]:
        e["hints"] = sorted(set(e["hints"]) | {n})
    _save(data)


def record_solution(exercise, qid):
    data = load()
    _entry(data, exercise, qid)["solution_viewed"] = True
    _save(data)


def reset(exercise=None):
    """Forget progress (of one exercise, or of all)."""
    data = load()
    if exercise is None:
        data["exercises"] = {}
    else:
        data["exercises"].pop(exercise, None)
    _save(data)


class ProgressView:
    """What show_progress() returns: a table in a notebook, text in a terminal."""

    def __init__(self, rows, path):
        self.rows, self.path = rows, path

    @property
    def done(self):
        return sum(r["status"] == "correct" for r in self.rows)

    def __repr__(self):
        lines = [f"Course progress: {self.done} of {len(self.rows)} questions correct ({self.path})"]
        for r in self.rows:
            lines.append(f"  {STATUS_ICON.get(r['status'], '·')} {r['exercise']:<14} {r['question']:<4} "
                         f"{r['function']:<20} {r['status'] or 'not started':<14} "
                         f"attempts {r['attempts']}, hints {r['hints']}")
        return "\n".join(lines)

    def _repr_html_(self):
        color = {"correct": "#1a7f37", "incorrect": "#cf222e"}
        body = "".join(
            f"<tr><td>{html.escape(r['exercise'])}</td><td>{r['question']}</td>"
            f"<td><code>{html.escape(r['function'])}</code></td>"
            f"<td style='color:{color.get(r['status'], '#57606a')}'>"
            f"{STATUS_ICON.get(r['status'], '·')} {r['status'] or 'not started'}</td>"
            f"<td>{r['attempts']}</td><td>{r['hints']}</td>"
            f"<td>{'yes' if r['solution_viewed'] else ''}</td></tr>" for r in self.rows)
        pct = 100 * self.done // max(1, len(self.rows))
        return (f"<div><b>Course progress: {self.done} of {len(self.rows)} questions correct</b>"
                f"<div style='background:#eaeef2;width:300px;height:8px;border-radius:4px'>"
                f"<div style='background:#1a7f37;width:{3 * pct}px;height:8px;border-radius:4px'>"
                f"</div></div><table><tr><th>exercise</th><th>question</th><th>function</th>"
                f"<th>status</th><th>attempts</th><th>hints used</th><th>solution seen</th></tr>"
                f"{body}</table><small>saved in {html.escape(str(self.path))}</small></div>")


def show_progress():
    """The table of every exercise and question in the course, with what you have done."""
    from .exercises import FORMER_NAMES, all_exercises
    data = load()
    former = {new: old for old, new in FORMER_NAMES.items()}
    rows = []
    for name, ex in all_exercises().items():
        done = data["exercises"].get(name) or data["exercises"].get(former.get(name), {})
        for q in ex.questions:
            e = done.get(q.id, {})
            rows.append({"exercise": name, "question": q.id, "function": q.function,
                         "status": e.get("status"), "attempts": e.get("attempts", 0),
                         "hints": len(e.get("hints", [])),
                         "solution_viewed": e.get("solution_viewed", False)})
    return ProgressView(rows, progress_path())
