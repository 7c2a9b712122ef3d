"""The course-wide gradebook: one row per student over every exercise graded into OUT, in a CSV
that a spreadsheet or an LMS imports (course.csv).

    student,name,email,03_strides,05_views,total,max_total,late,not_graded

A student's score on an exercise is that of their graded row (the late penalty applied); a
student with no graded notebook of an exercise scores 0 on it (the `not_graded` column says
why: no submission, not a notebook, ...). With a roster (`--roster roster.csv`, columns id,
name and email), every student on it has a row, in roster order, and students who handed in
work but are not on it follow, so that nobody is lost.
"""
from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from .gradebook import _atomic_write, _fmt, cell


def read_roster(path: Path):
    """[{id, name, email}] from a CSV with a header (id or student or username; name; email)."""
    with open(path, newline="", encoding="utf-8-sig") as f:
        rows = list(csv.DictReader(f))
    out = []
    for row in rows:
        low = {(k or "").strip().lower(): (v or "").strip() for k, v in row.items()}
        sid = low.get("id") or low.get("student") or low.get("username") or low.get("student_id")
        if sid:
            out.append({"id": sid, "name": low.get("name", ""), "email": low.get("email", "")})
    if not out:
        raise ValueError(f"{path}: no student ids (a header with an 'id' column, then one row per student)")
    return out


def _best(entries):
    """The row that counts for one student and exercise: a graded one, the highest score."""
    graded = [e for e in entries if e.get("verdict") == "graded"]
    pool = graded or entries
    return max(pool, key=lambda e: float(e.get("score", 0))) if pool else None


def write_course_csv(path: Path, books, roster=None) -> Path:
    exercises, by = [], {}
    maxima = {}
    for book in books:
        data = json.loads(Path(book).read_text(encoding="utf-8"))
        name = data["meta"]["exercise"]
        exercises.append(name)
        maxima[name] = float(data["meta"].get("max_score", 0))
        for e in data["submissions"]:
            by.setdefault(e["student"], {}).setdefault(name, []).append(e)
    people = [dict(r) for r in roster] if roster else []
    listed = {p["id"] for p in people}
    people += [{"id": s, "name": "", "email": ""} for s in sorted(by, key=str.lower) if s not in listed]
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(["student", "name", "email", *exercises, "total", "max_total", "late", "not_graded"])
    for p in people:
        total, late, missing = 0.0, [], []
        scores = []
        for ex in exercises:
            row = _best(by.get(p["id"], {}).get(ex, []))
            score = float(row["score"]) if row and row.get("verdict") == "graded" else 0.0
            total += score
            scores.append(_fmt(score))
            if row is None:
                missing.append(f"{ex}: no submission")
            elif row.get("verdict") != "graded":
                missing.append(f"{ex}: {row.get('verdict')}")
            if row and row.get("late"):
                late.append(f"{ex}: {row['late']}")
        w.writerow([cell(p["id"]), cell(p["name"]), cell(p["email"]), *scores, _fmt(total),
                    _fmt(sum(maxima.values())), cell("; ".join(late)), cell("; ".join(missing))])
    _atomic_write(Path(path), buf.getvalue())
    return Path(path)
