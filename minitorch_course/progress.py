"""The learner's progress across the course, kept on their own machine.

Stored as JSON in ~/.minitorch/progress.json, or wherever MINITORCH_PROGRESS points (a file
path). Never inside the repository, never sent anywhere. A broken or unwritable file never
breaks a check(): progress is a convenience, the checks are what matter.

    from minitorch_course import show_progress, export_progress, import_progress
    show_progress()               # a table: exercise, question, state, attempts, hints used
    show_progress("03_strides")   # one line: how far you are in one exercise, and in the course
    export_progress()             # a file to keep (on Colab: downloaded to your computer)
    import_progress("minitorch-progress.json")   # merge it back, e.g. into a fresh Colab runtime

A question is in one of three states: "not started", "attempted" (a check ran your code and
it was not right yet) or "done" (a check passed; a later failed experiment does not undo it).
Running a check on an untouched stub, or before the function exists, is not an attempt.
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
EXPORT_NAME = "minitorch-progress.json"
STATES = ("not started", "attempted", "done")
STATE_ICON = {"not started": "·", "attempted": "✘", "done": "✔"}
NOT_AN_ATTEMPT = ("not_attempted", "missing")  # check() statuses that ran none of the learner's code


def state_of(entry) -> str:
    """The state of one question's record: "not started", "attempted" or "done"."""
    status = (entry or {}).get("status")
    if status == "correct":
        return "done"
    return "attempted" if status == "incorrect" else "not started"


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
    if status in NOT_AN_ATTEMPT:
        return  # the stub raised NotImplementedError, or the function is not defined: nothing tried
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

    def count(self, state):
        return sum(r["state"] == state for r in self.rows)

    @property
    def done(self):
        return self.count("done")

    def __repr__(self):
        lines = [f"Course progress: {self.done} of {len(self.rows)} questions done ({self.path})"]
        for r in self.rows:
            lines.append(f"  {STATE_ICON[r['state']]} {r['exercise']:<14} {r['question']:<4} "
                         f"{r['function']:<20} {r['state']:<12} "
                         f"attempts {r['attempts']}, hints {r['hints']}")
        return "\n".join(lines)

    def _repr_html_(self):
        color = {"done": "#1a7f37", "attempted": "#cf222e"}
        body = "".join(
            f"<tr><td>{html.escape(r['exercise'])}</td><td>{r['question']}</td>"
            f"<td><code>{html.escape(r['function'])}</code></td>"
            f"<td style='color:{color.get(r['state'], '#57606a')}'>"
            f"{STATE_ICON[r['state']]} {r['state']}</td>"
            f"<td>{r['attempts']}</td><td>{r['hints']}</td>"
            f"<td>{'yes' if r['solution_viewed'] else ''}</td></tr>" for r in self.rows)
        pct = 100 * self.done // max(1, len(self.rows))
        return (f"<div><b>Course progress: {self.done} of {len(self.rows)} questions done</b>"
                f"<div style='background:#eaeef2;width:300px;height:8px;border-radius:4px'>"
                f"<div style='background:#1a7f37;width:{3 * pct}px;height:8px;border-radius:4px'>"
                f"</div></div><table><tr><th>exercise</th><th>question</th><th>function</th>"
                f"<th>state</th><th>attempts</th><th>hints used</th><th>solution seen</th></tr>"
                f"{body}</table><small>saved in {html.escape(str(self.path))}</small></div>")


class ProgressLine:
    """show_progress(exercise): one line, the one each exercise notebook opens with."""

    def __init__(self, exercise, rows, path):
        self.exercise, self.path = exercise, path
        self.mine = [r for r in rows if r["exercise"] == exercise]
        self.course_done, self.course_total = sum(r["state"] == "done" for r in rows), len(rows)

    def __repr__(self):
        done = sum(r["state"] == "done" for r in self.mine)
        tried = sum(r["state"] == "attempted" for r in self.mine)
        parts = [f"{done} of {len(self.mine)} questions done"] + ([f"{tried} attempted"] if tried else [])
        return (f"Your progress: exercise {self.exercise}: {', '.join(parts)} · whole course: "
                f"{self.course_done} of {self.course_total} · show_progress() for the table")

    def _repr_html_(self):
        marks = " ".join(STATE_ICON[r["state"]] for r in self.mine)
        return f"<div style='color:#57606a'><b>{html.escape(repr(self))}</b> <code>{marks}</code></div>"


def show_progress(exercise=None):
    """The table of every exercise and question in the course, with what you have done; with
    an exercise name (as every exercise notebook's first lines call it), one summary line."""
    from .exercises import FORMER_NAMES, all_exercises
    data = load()
    former = {new: old for old, new in FORMER_NAMES.items()}
    rows = []
    for name, ex in all_exercises().items():
        done = data["exercises"].get(name) or data["exercises"].get(former.get(name), {})
        for q in ex.questions:
            e = done.get(q.id, {})
            rows.append({"exercise": name, "question": q.id, "function": q.function,
                         "status": e.get("status"), "state": state_of(e), "attempts": e.get("attempts", 0),
                         "hints": len(e.get("hints", [])),
                         "solution_viewed": e.get("solution_viewed", False)})
    if exercise is not None:
        exercise = FORMER_NAMES.get(exercise, exercise)
        if exercise not in all_exercises():
            raise ValueError(f"no exercise named {exercise!r}; the exercises are: {', '.join(all_exercises())}")
        return ProgressLine(exercise, rows, progress_path())
    return ProgressView(rows, progress_path())


# ---- keeping progress across machines (Colab forgets it when its runtime is reset) ---------------
def _on_colab() -> bool:
    import sys
    return "google.colab" in sys.modules


def _merge_entry(mine: dict, theirs: dict) -> dict:
    """One question's record from two machines: done wins, counts add up to the larger."""
    out = dict(mine)
    statuses = {mine.get("status"), theirs.get("status")}
    out["status"] = next((s for s in ("correct", "incorrect") if s in statuses), None)
    out["attempts"] = max(int(mine.get("attempts", 0) or 0), int(theirs.get("attempts", 0) or 0))
    out["hints"] = sorted({h for h in list(mine.get("hints", [])) + list(theirs.get("hints", []))
                           if isinstance(h, int)})
    out["solution_viewed"] = bool(mine.get("solution_viewed")) or bool(theirs.get("solution_viewed"))
    for key, pick in (("first_correct", min), ("last_checked", max)):
        values = [v for v in (mine.get(key), theirs.get(key)) if isinstance(v, str)]
        if values:
            out[key] = pick(values)
    return out


def export_progress(path=EXPORT_NAME):
    """Write your progress to a file you keep. On Colab the file is also downloaded to your
    computer: a Colab runtime forgets everything (your progress too) when it is reset."""
    path = Path(path)
    data = load()
    path.write_text(json.dumps(data, indent=1, sort_keys=True), encoding="utf-8")
    questions = sum(len(qs) for qs in data["exercises"].values())
    if _on_colab():
        from google.colab import files  # noqa: PLC0415 - exists only on Colab
        files.download(str(path))
        print(f"Progress on {questions} question(s) saved in {path} and sent to your browser's downloads. "
              "In a new runtime: import_progress() and choose that file.")
    else:
        print(f"Progress on {questions} question(s) saved in {path}. Elsewhere: import_progress({str(path)!r}).")
    return path


def import_progress(path=None):
    """Merge a file written by export_progress() into the progress kept here (nothing is lost:
    a question done in either stays done). On Colab, with no path, a file chooser asks for it."""
    if path is None:
        if not _on_colab():
            raise TypeError(f"import_progress(path): give the file export_progress() wrote, e.g. {EXPORT_NAME!r}")
        from google.colab import files  # noqa: PLC0415 - exists only on Colab
        uploaded = files.upload()
        if not uploaded:
            print("No file chosen: nothing imported.")
            return None
        path = next(iter(uploaded))
    try:
        theirs = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise ValueError(f"{path} is not a progress file written by export_progress(): {e}") from None
    if not (isinstance(theirs, dict) and isinstance(theirs.get("exercises"), dict)):
        raise ValueError(f"{path} is not a progress file written by export_progress() (no 'exercises')")
    data = load()
    merged = 0
    for exercise, questions in theirs["exercises"].items():
        if not isinstance(questions, dict):
            continue
        mine = data["exercises"].setdefault(str(exercise), {})
        for qid, entry in questions.items():
            if isinstance(entry, dict):
                mine[str(qid)] = _merge_entry(mine.get(str(qid), {}), entry)
                merged += 1
    if not isinstance(data.get("parts"), dict):
        data["parts"] = {}
    parts = data["parts"]
    theirs_parts = theirs.get("parts") if isinstance(theirs.get("parts"), dict) else {}
    for name, record in theirs_parts.items():  # your saved parts (mine.py): the newer wins
        if isinstance(record, dict) and isinstance(record.get("source"), str):
            if str(record.get("saved", "")) >= str(parts.get(name, {}).get("saved", "")):
                parts[str(name)] = record
    _save(data)
    print(f"Imported progress on {merged} question(s) from {path} into {progress_path()}.")
    return show_progress()
