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

VERDICT_TEXT = {
    "graded": "graded", "malformed": "not a readable notebook", "wrong_exercise": "wrong exercise",
    "unreadable": "unreadable file", "too_large": "file too large", "grader_error": "grader error",
    "refused": "not graded (a symbolic link or a special file)",
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


def feedback_text(r, exercise):
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
                  f"({md(q.status.replace('_', ' '))})", "", md(q.reason), ""]
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


def _csv_row(r, fb, qids):
    by = {q.id: q for q in r.questions}
    return [cell(r.student), _fmt(r.score), _fmt(r.max_score), cell(r.verdict),
            *[_fmt(by[q].points) if q in by else "0" for q in qids],
            *[cell(by[q].status) if q in by else "" for q in qids],
            cell(" | ".join(r.flags)), cell(r.reason), cell(r.file), cell(fb), cell(r.sha256)]


def _error_row(r, fb, qids, error):
    return [cell(getattr(r, "student", "?")), "0", _fmt(getattr(r, "max_score", 0.0)), "grader_error",
            *["0" for _ in qids], *["error" for _ in qids], "", cell(f"could not write this row: {error}"),
            cell(getattr(r, "file", "?")), cell(fb), ""]


def write_all(results, out: Path, meta: dict, key):
    out.mkdir(parents=True, exist_ok=True)
    qids = [k.spec.id for k in key.questions]
    fb_dir = out / "feedback"
    fb_dir.mkdir(exist_ok=True)
    taken, rows = set(), []
    for r in results:
        name = safe_name(getattr(r, "student", "student"), taken)
        fb = f"feedback/{name}.md"
        try:
            text = feedback_text(r, key.name)
        except Exception as e:  # noqa: BLE001 - one row never stops the others
            text = _minimal_feedback(r, key.name, f"{type(e).__name__}: {e}")
        _atomic_write(fb_dir / f"{name}.md", text)
        rows.append((r, fb))

    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(["student", "score", "max_score", "verdict", *qids, *[f"{q}_status" for q in qids],
                "flags", "reason", "file", "feedback", "sha256"])
    entries = []
    for r, fb in rows:
        try:
            w.writerow(_csv_row(r, fb, qids))
            entries.append(json.loads(json.dumps(dict(r.to_dict(), feedback=fb), default=safe_text)))
        except Exception as e:  # noqa: BLE001
            error = safe_text(f"{type(e).__name__}: {e}")
            w.writerow(_error_row(r, fb, qids, error))
            entries.append({"student": safe_text(getattr(r, "student", "?")),
                            "file": safe_text(getattr(r, "file", "?")),
                            "verdict": "grader_error", "score": 0.0, "reason": f"could not write this row: {error}",
                            "feedback": fb})
    _atomic_write(out / "gradebook.csv", buf.getvalue())
    data = {"meta": meta, "submissions": entries}
    _atomic_write(out / "gradebook.json", json.dumps(data, indent=1, ensure_ascii=False, default=safe_text) + "\n")
    return out / "gradebook.csv", out / "gradebook.json", fb_dir
