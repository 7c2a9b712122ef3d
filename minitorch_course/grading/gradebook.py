"""Writing the results: gradebook.csv, gradebook.json and one feedback file per student."""
from __future__ import annotations

import csv
import json
import re
from pathlib import Path

VERDICT_TEXT = {
    "graded": "graded", "malformed": "not a readable notebook", "wrong_exercise": "wrong exercise",
    "unreadable": "unreadable file", "too_large": "file too large", "grader_error": "grader error",
}


def _fmt(x):
    return f"{x:g}"


def safe_name(student, taken):
    base = re.sub(r"[^A-Za-z0-9._-]+", "_", student).strip("._") or "student"
    name, i = base, 2
    while name in taken:
        name, i = f"{base}_{i}", i + 1
    taken.add(name)
    return name


def feedback_text(r, exercise):
    lines = [f"# {exercise}: feedback for {r.student}", "",
             f"**Score: {_fmt(r.score)} / {_fmt(r.max_score)}**", ""]
    if r.verdict != "graded":
        lines += [f"This submission could not be graded normally: {VERDICT_TEXT.get(r.verdict, r.verdict)}.",
                  "", r.reason, ""]
    lines += ["| question | points | result |", "|---|---|---|"]
    for q in r.questions:
        lines.append(f"| {q.id} `{q.function}` | {_fmt(q.points)} / {_fmt(q.max_points)} | "
                     f"{q.status.replace('_', ' ')} |")
    lines.append("")
    for q in r.questions:
        if q.status == "correct":
            continue
        lines += [f"## {q.id} `{q.function}`: {_fmt(q.points)} / {_fmt(q.max_points)} ({q.status.replace('_', ' ')})",
                  "", q.reason, ""]
    if r.flags:
        lines += ["## Reported to your instructor", ""] + [f"- {f}" for f in r.flags] + [""]
    if r.notes:
        lines += ["## Notes", ""] + [f"- {n.splitlines()[0]}" for n in r.notes if n.strip()] + [""]
    return "\n".join(lines)


def write_all(results, out: Path, meta: dict, key):
    out.mkdir(parents=True, exist_ok=True)
    qids = [k.spec.id for k in key.questions]
    fb_dir = out / "feedback"
    fb_dir.mkdir(exist_ok=True)
    taken = set()
    rows = []
    for r in results:
        name = safe_name(r.student, taken)
        (fb_dir / f"{name}.md").write_text(feedback_text(r, key.name), encoding="utf-8")
        rows.append((r, f"feedback/{name}.md"))

    with open(out / "gradebook.csv", "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["student", "score", "max_score", "verdict", *qids, *[f"{q}_status" for q in qids],
                    "flags", "reason", "file", "feedback", "sha256"])
        for r, fb in rows:
            by = {q.id: q for q in r.questions}
            w.writerow([r.student, _fmt(r.score), _fmt(r.max_score), r.verdict,
                        *[_fmt(by[q].points) if q in by else "0" for q in qids],
                        *[by[q].status if q in by else "" for q in qids],
                        " | ".join(r.flags), r.reason, r.file, fb, r.sha256])

    data = {"meta": meta,
            "submissions": [dict(r.to_dict(), feedback=fb) for r, fb in rows]}
    (out / "gradebook.json").write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n",
                                        encoding="utf-8")
    return out / "gradebook.csv", out / "gradebook.json", fb_dir
