"""Which files of a class folder are whose submission of which exercise, and when they came.

Two layouts are recognised:

    nbgrader's   CLASS/STUDENT/ASSIGNMENT/NOTEBOOK.ipynb (+ timestamp.txt), as nbgrader's
                 exchange leaves `submitted/` (or `autograded/`): the student id is the first
                 folder, only the ASSIGNMENT folder of the exercise being graded is read, and the
                 submission time is timestamp.txt's
    flat         CLASS/alice.ipynb, CLASS/bob (1).ipynb, or one folder per student
                 (CLASS/alice/hw.ipynb): the id is the file's name (or the folder's); the time is
                 the file's modification time

The layout is nbgrader's when some file lies two folders down in a folder named after a course
exercise. Every file read gets a row: a notebook is graded; any other file of the exercise's
folder (report.pdf, hw.ipynb.txt) is "not a notebook"; a second notebook of the same student
(wen.ipynb next to wen (1).ipynb, or two notebooks in one assignment folder) is a "duplicate" and
only one of them is graded: the one named after the exercise, else the newest, else the last in
name order (a browser names a second download "wen (1)").
"""
from __future__ import annotations

import datetime as dt
import fnmatch
import os
import re
from dataclasses import dataclass
from pathlib import Path

_COPY_SUFFIX = re.compile(r"^(.*?)(?:\s*\(\d+\)|-Copy\d+|\s+copy(?:\s*\d+)?)$", re.IGNORECASE)
TIMESTAMP_FILE = "timestamp.txt"


@dataclass
class Entry:
    path: Path
    student: str
    kind: str                 # "notebook", "not_notebook", "duplicate"
    submitted: str = ""       # ISO 8601, UTC ("" when unknown)
    submitted_from: str = ""  # "timestamp.txt" or "file time"
    duplicate_of: str = ""    # for a duplicate: the file graded instead


def _exercise_names():
    from ..exercises import FORMER_NAMES, all_exercises
    return set(all_exercises()) | set(FORMER_NAMES)


def _same_exercise(folder, exercise):
    from ..exercises import FORMER_NAMES
    return FORMER_NAMES.get(folder, folder) == exercise


def _walk(class_dir, exclude):
    """Every file under class_dir (relative paths), not inside hidden folders or excluded ones;
    a symbolic link to a folder is listed as a file (it gets a row saying it was refused)."""
    class_dir = Path(class_dir)
    excluded = [Path(e).resolve() for e in exclude]
    out = []
    for root, dirs, names in os.walk(class_dir, followlinks=False):
        here = Path(root)
        for d in list(dirs):
            p = here / d
            if d.startswith(".") or any(_inside(p, e) for e in excluded):
                dirs.remove(d)
            elif p.is_symlink():
                dirs.remove(d)
                out.append(p)
        out += [here / n for n in names if not any(_inside(here / n, e) for e in excluded)]
    return sorted(out, key=os.fsencode)


def _inside(p, d):
    try:
        Path(os.path.abspath(p)).relative_to(d)
        return True
    except ValueError:
        return False


def is_nbgrader_layout(class_dir, files=None):
    names = _exercise_names()
    for f in files if files is not None else _walk(class_dir, ()):
        parts = f.relative_to(class_dir).parts
        if len(parts) >= 3 and parts[1] in names:
            return True
    return False


def parse_timestamp(text):
    """nbgrader's timestamp.txt ("2026-03-01 17:04:05.123456 UTC", or ISO 8601) as ISO UTC."""
    text = text.strip().splitlines()[0].strip() if text.strip() else ""
    if not text:
        return ""
    tz_utc = text.upper().endswith((" UTC", "Z"))
    core = re.sub(r"\s*(UTC|Z)$", "", text, flags=re.IGNORECASE).replace(" ", "T", 1)
    try:
        t = dt.datetime.fromisoformat(core)
    except ValueError:
        return ""
    if t.tzinfo is None or tz_utc:
        t = t.replace(tzinfo=dt.timezone.utc) if t.tzinfo is None else t
    return t.astimezone(dt.timezone.utc).replace(microsecond=0).isoformat()


def file_time(path):
    try:
        st = os.lstat(path)
    except OSError:
        return ""
    return dt.datetime.fromtimestamp(st.st_mtime, dt.timezone.utc).replace(microsecond=0).isoformat()


def _display(text):
    return str(text).encode("utf-8", "backslashreplace").decode("utf-8")


def base_id(stem):
    """alice (1) -> alice; hw-Copy1 -> hw: the names a second copy of a file gets."""
    m = _COPY_SUFFIX.match(stem)
    return m.group(1).strip() if m and m.group(1).strip() else stem


def collect(class_dir, exercise, pattern="*.ipynb", exclude=()):
    """(entries, layout, skipped): an Entry per file that gets a row, "nbgrader" or "flat", and
    the files left out (other exercises' folders, nbgrader's own files), relative, for the log."""
    class_dir = Path(class_dir)
    files = _walk(class_dir, exclude)
    nbg = is_nbgrader_layout(class_dir, files)
    entries, skipped, stamps = [], [], {}
    for f in files:
        rel = f.relative_to(class_dir)
        parts = rel.parts
        if nbg:
            if len(parts) < 3 or not _same_exercise(parts[1], exercise):
                skipped.append(_display(rel))
                continue
            student = parts[0]
            if parts[-1] == TIMESTAMP_FILE and len(parts) == 3:
                try:
                    stamps[student] = parse_timestamp(f.read_text(encoding="utf-8", errors="replace")[:200])
                except OSError:
                    pass
                continue
        else:
            student = parts[0] if len(parts) > 1 else base_id(f.stem)
        notebook = fnmatch.fnmatch(f.name.lower(), pattern.lower()) or f.is_symlink()
        entries.append(Entry(f, _display(student), "notebook" if notebook else "not_notebook"))
    if not nbg:
        _flat_ids(entries, class_dir)
    for e in entries:
        stamp = stamps.get(e.student, "") if nbg else ""
        e.submitted, e.submitted_from = (stamp, TIMESTAMP_FILE) if stamp else (file_time(e.path), "file time")
    _mark_duplicates(entries, exercise)
    return entries, "nbgrader" if nbg else "flat", skipped


def _flat_ids(entries, class_dir):
    """Flat folder: ids from file names; with one folder per student, from the folders, unless
    two folders' files would then be confused (then the relative path, as before)."""
    rels = [e.path.relative_to(class_dir) for e in entries if e.kind == "notebook"]
    nested = [r for r in rels if len(r.parts) > 1]
    firsts = [r.parts[0] for r in nested]
    if len(set(firsts)) != len(firsts):
        for e in entries:
            r = e.path.relative_to(class_dir)
            if len(r.parts) > 1:
                e.student = _display(r.with_suffix("") if r.suffix else r)


def _mark_duplicates(entries, exercise):
    by = {}
    for e in entries:
        if e.kind == "notebook":
            by.setdefault(e.student, []).append(e)
    for group in by.values():
        if len(group) < 2:
            continue
        keep = max(group, key=lambda e: (base_id(e.path.stem) == exercise or e.path.stem == exercise,
                                         e.submitted if e.submitted_from == "file time" else "",
                                         os.fsencode(e.path.name)))
        for e in group:
            if e is not keep:
                e.kind, e.duplicate_of = "duplicate", _display(keep.path.name)
