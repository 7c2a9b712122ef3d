"""Writing the results: gradebook.csv, gradebook.json and one feedback file per student.

Everything a submission could have put into a result (its file name, an exception's message,
a value it returned) is text from the student: it is made safe for each place it goes. In
Markdown feedback it is escaped (no links, images, HTML or headings of the student's making);
in the CSV a cell that a spreadsheet would read as a formula is neutralised; everywhere, a
string that is not valid UTF-8 is shown with escapes. Each row is written inside its own error
boundary, and the CSV and JSON are written to a temporary file and renamed: they are complete,
one row per submission, or not there at all.
"""
from __future__ import annotations

import csv
import io
import json
import os
import re
import tempfile
from pathlib import Path

from . import scoring

VERDICT_TEXT = {
    "graded": "graded", "malformed": "not a readable notebook", "wrong_exercise": "wrong exercise",
    "unreadable": "unreadable file", "too_large": "file too large", "grader_error": "grader error",
    "refused": "not graded (a symbolic link or a special file)",
    "not_a_notebook": "not a notebook", "duplicate": "a duplicate (another copy was graded)",
}


def _fmt(x):
    return f"{x:g}"


def safe_text(s):
    """Any text, as valid UTF-8 (lone surrogates and undecodable bytes shown as escapes)."""
    return str(s).encode("utf-8", "backslashreplace").decode("utf-8")


def safe_name(student, taken):
    base = re.sub(r"[^A-Za-z0-9._-]+", "_", safe_text(student)).strip("._")[:80] or "student"
    name, i = base, 2
    while name.lower() in taken:
        name, i = f"{base}_{i}", i + 1
    taken.add(name.lower())
    return name


_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>|~&$])")
_MD_LINE_START = re.compile(r"^([#+\-=>]|\d+[.)])")


def md(text, limit=2000):
    """Submission text inside Markdown: on one line, with what Markdown would read as markup
    escaped (emphasis, code, links and images, HTML, tables, entities, math, and a heading, list
    or quote at its start), so that it shows as the characters it is."""
    text = " ".join(safe_text(text)[:limit].split())
    text = _MD_SPECIAL.sub(r"\\\1", text)
    return _MD_LINE_START.sub(lambda m: m.group(1)[:-1] + "\\" + m.group(1)[-1], text)


_FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "\n")


def cell(value):
    """A CSV cell that no spreadsheet reads as a formula."""
    text = safe_text(value)
    return "'" + text if text.startswith(_FORMULA_START) else text


def feedback_text(r, exercise, show_hidden=False):
    """The student's feedback file. Hidden cases' inputs and expected values are not in it
    unless show_hidden (the instructor's gradebook.json always has them, in `reason`)."""
    lines = [f"# {md(exercise)}: feedback for {md(r.student)}", "",
             f"**Score: {_fmt(r.score)} / {_fmt(r.max_score)}**", ""]
    if r.verdict != "graded":
        lines += [f"This submission could not be graded normally: {VERDICT_TEXT.get(r.verdict, md(r.verdict))}.",
                  "", md(r.reason), ""]
    lines += ["| question | points | result |", "|---|---|---|"]
    for q in r.questions:
        lines.append(f"| {md(q.id)} `{md(q.function)}` | {_fmt(q.points)} / {_fmt(q.max_points)} | "
                     f"{md(q.status.replace('_', ' '))} |")
    lines.append("")
    for q in r.questions:
        if q.status == "correct":
            continue
        lines += [f"## {md(q.id)} `{md(q.function)}`: {_fmt(q.points)} / {_fmt(q.max_points)} "
                  f"({md(q.status.replace('_', ' '))})", "",
                  md(q.reason if show_hidden or not getattr(q, "feedback", "") else q.feedback), ""]
        if q.points and getattr(q, "groups", None):  # partial credit, group by group
            lines += [f"- {md(scoring.describe(g))}" for g in q.groups] + [""]
    if r.flags:
        lines += ["## Reported to your instructor", ""] + [f"- {md(f)}" for f in r.flags] + [""]
    notes = [n.splitlines()[0] for n in r.notes if n.strip()]
    if notes:
        lines += ["## Notes", ""] + [f"- {md(n)}" for n in notes] + [""]
    return "\n".join(lines)


def _minimal_feedback(r, exercise, error):
    return (f"# {md(exercise)}: feedback for {md(getattr(r, 'student', '?'))}\n\n"
            f"**Score: {_fmt(getattr(r, 'score', 0.0))} / {_fmt(getattr(r, 'max_score', 0.0))}**\n\n"
            f"(The full feedback could not be written: {md(error)}.)\n")


def _atomic_write(path: Path, text: str):
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", errors="backslashreplace", newline="") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


HEADER_FIXED = ["student", "score", "max_score", "verdict"]
HEADER_TAIL = ["submitted", "late", "flags", "reason", "file", "feedback", "sha256"]


def _csv_row(e, qids):
    """A CSV row from a gradebook.json entry (a row of this run, or one kept from before)."""
    by = {q["id"]: q for q in e.get("questions", []) if isinstance(q, dict) and "id" in q}
    return [cell(e["student"]), _fmt(float(e["score"])), _fmt(float(e["max_score"])), cell(e["verdict"]),
            *[_fmt(float(by[q]["points"])) if q in by else "0" for q in qids],
            *[cell(by[q]["status"]) if q in by else "" for q in qids],
            cell(e.get("submitted", "")), cell(e.get("late", "")),
            cell(" | ".join(e.get("flags", []))), cell(e.get("reason", "")), cell(e.get("file", "")),
            cell(e.get("feedback", "")), cell(e.get("sha256", ""))]


def _error_row(e, qids, error):
    return [cell(e.get("student", "?")), "0", _fmt(float(e.get("max_score", 0.0))), "grader_error",
            *["0" for _ in qids], *["error" for _ in qids], "", "", "", cell(f"could not write this row: {error}"),
            cell(e.get("file", "?")), cell(e.get("feedback", "")), ""]


def _old_entries(out):
    try:
        data = json.loads((out / "gradebook.json").read_text(encoding="utf-8"))
        return [e for e in data["submissions"] if isinstance(e, dict) and isinstance(e.get("student"), str)]
    except (OSError, ValueError, KeyError, TypeError):
        return []


def _primary_first(results):
    """A student's graded notebook before their other files (each student's feedback file is
    that of their graded notebook)."""
    return sorted(results, key=lambda r: getattr(r, "verdict", "") not in ("graded", "malformed", "wrong_exercise"))


def _append(path: Path, text: str):
    try:
        _atomic_write(path, path.read_text(encoding="utf-8") + text)
    except OSError:
        pass


class GradebookMismatch(ValueError):
    """OUT already holds the gradebook of another exercise (or of other questions)."""


def read_existing(out: Path, key):
    """The entries of OUT/gradebook.json of an earlier run of the same exercise ([] when none).
    Raises GradebookMismatch when it is another exercise's."""
    path = out / "gradebook.json"
    if not path.is_file():
        return []
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        meta, entries = data["meta"], data["submissions"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise GradebookMismatch(f"{path} cannot be read ({type(e).__name__}: {e}); use --fresh to "
                                "start a new gradebook") from None
    if meta.get("exercise") != key.name:
        raise GradebookMismatch(f"{path} is the gradebook of {meta.get('exercise')!r}, not {key.name}: "
                                "use another --out (or --fresh to replace it)")
    return [e for e in entries if isinstance(e, dict) and isinstance(e.get("student"), str)]


def write_all(results, out: Path, meta: dict, key, merge=True, feedback=None):
    """Write this run's rows. merge: the rows of an earlier run into the same OUT are kept,
    except those of the students graded now (their rows and feedback files are replaced, and a
    feedback file no row names any more is removed). feedback(r) -> the text of a row's
    feedback file (default: feedback_text)."""
    out.mkdir(parents=True, exist_ok=True)
    qids = [k.spec.id for k in key.questions]
    fb_dir = out / "feedback"
    fb_dir.mkdir(exist_ok=True)
    now = {getattr(r, "student", None) for r in results}
    before = read_existing(out, key) if merge else _old_entries(out)
    if not merge:  # a fresh gradebook: every earlier row goes, its feedback file too
        now |= {e["student"] for e in before}
    kept = [e for e in before if e["student"] not in now]
    taken = {Path(str(e.get("feedback", ""))).stem.lower() for e in kept if e.get("feedback")}
    entries, files = [], {}
    for r in _primary_first(results):
        student = getattr(r, "student", "student")
        if student in files:  # a second file of the same student: told in the first one's feedback
            fb = files[student]
            _append(out / fb, f"- {md(getattr(r, 'reason', '') or Path(str(getattr(r, 'file', '?'))).name)}\n")
        else:
            name = safe_name(student, taken)
            fb = files[student] = f"feedback/{name}.md"
            try:
                text = feedback(r) if feedback else feedback_text(r, key.name)
            except Exception as e:  # noqa: BLE001 - one row never stops the others
                text = _minimal_feedback(r, key.name, f"{type(e).__name__}: {e}")
            if sum(getattr(x, "student", None) == student for x in results) > 1:
                text += "\n## Other files you handed in (not graded)\n\n"
            _atomic_write(fb_dir / f"{name}.md", text)
        try:
            entries.append(json.loads(json.dumps(dict(r.to_dict(), feedback=fb), default=safe_text)))
        except Exception as e:  # noqa: BLE001
            entries.append({"student": safe_text(getattr(r, "student", "?")), "file": safe_text(getattr(r, "file", "?")),
                            "verdict": "grader_error", "score": 0.0, "max_score": getattr(r, "max_score", 0.0),
                            "reason": f"could not write this row: {safe_text(e)}", "feedback": fb})
    named = {e.get("feedback") for e in kept + entries}
    for e in before:
        if e["student"] in now and e.get("feedback") not in named:
            stale = out / str(e.get("feedback", ""))
            if stale.parent == fb_dir and stale.is_file():
                stale.unlink()
    everything = sorted(kept + entries, key=lambda e: (e["student"].lower(), e.get("file", "")))

    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow([*HEADER_FIXED, *qids, *[f"{q}_status" for q in qids], *HEADER_TAIL])
    for e in everything:
        try:
            w.writerow(_csv_row(e, qids))
        except Exception as x:  # noqa: BLE001
            w.writerow(_error_row(e, qids, safe_text(f"{type(x).__name__}: {x}")))
    _atomic_write(out / "gradebook.csv", buf.getvalue())
    meta = dict(meta, rows=len(everything), kept_from_before=len(kept))
    data = {"meta": meta, "submissions": everything}
    _atomic_write(out / "gradebook.json", json.dumps(data, indent=1, ensure_ascii=False, default=safe_text) + "\n")
    return out / "gradebook.csv", out / "gradebook.json", fb_dir
