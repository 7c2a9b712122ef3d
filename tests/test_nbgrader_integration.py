"""The course's grader with real nbgrader (an optional extra: pip install 'minitorch[nbgrader]'):
scores and comments written into nbgrader's gradebook.db, as formgrader and `nbgrader export`
read them. Skipped where nbgrader is not installed."""
from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

api = pytest.importorskip("nbgrader.api", reason="nbgrader is not installed (pip install 'minitorch[nbgrader]')")

from minitorch_course.grading import cli  # noqa: E402
from minitorch_course.grading.sample_class import as_submission, load, solve  # noqa: E402
from minitorch_course.notebook import dumps  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
EXERCISES = ("03_strides", "05_views")
pytestmark = pytest.mark.timeout(300)


def _class(root):
    for student, solved, stamp in (("alice", True, "2026-03-01 10:00:00 UTC"), ("bob", False, "2026-03-03 10:00:00 UTC")):
        for name in EXERCISES:
            sol = load(ROOT / "solutions" / f"{name}.ipynb")
            nb = as_submission(sol, name)
            folder = root / student / name
            folder.mkdir(parents=True)
            (folder / f"{name}.ipynb").write_text(dumps(solve(nb, sol) if solved else nb), encoding="utf-8")
            (folder / "timestamp.txt").write_text(stamp)
    return root


def test_scores_and_comments_reach_nbgrader_and_its_export(tmp_path):
    cls, out, db = _class(tmp_path / "submitted"), tmp_path / "grades", tmp_path / "gradebook.db"
    assert cli.main([str(cls), "--exercise", ",".join(EXERCISES), "--out", str(out), "--jobs", "2", "--quiet",
                     "--deadline", "2026-03-02T00:00", "--nbgrader-db", str(db)]) == 0
    books = {n: json.loads((out / n / "gradebook.json").read_text(encoding="utf-8")) for n in EXERCISES}
    with api.Gradebook(f"sqlite:///{db}") as gb:
        for name, book in books.items():
            assert gb.find_assignment(name).duedate is not None
            for e in book["submissions"]:
                sub = gb.find_submission(name, e["student"])
                assert sub.score == pytest.approx(e["score"]) and sub.max_score == pytest.approx(e["max_score"])
                assert (sub.timestamp.isoformat()[:19] == e["submitted"][:19])
                for q, meta in zip(e["questions"], book["meta"]["questions"]):
                    c = gb.find_comment(meta["solution_cell"], name, name, e["student"])
                    assert c.auto_comment.startswith(f"{q['id']}: ")
        assert gb.find_submission("03_strides", "bob").total_seconds_late > 0  # nbgrader sees it late
        assert gb.find_submission("03_strides", "alice").total_seconds_late == 0
    exe = shutil.which("nbgrader", path=os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", ""))
    if exe is None:
        pytest.skip("no nbgrader command beside this Python")
    to = tmp_path / "export.csv"
    subprocess.run([exe, "export", f"--CourseDirectory.db_url=sqlite:///{db}", f"--CsvExportPlugin.to={to}"],
                   cwd=tmp_path, check=True, capture_output=True, timeout=120)
    rows = {(r["assignment"], r["student_id"]): r for r in csv.DictReader(open(to, encoding="utf-8"))}
    for name, book in books.items():
        for e in book["submissions"]:
            assert float(rows[name, e["student"]]["score"]) == pytest.approx(e["score"])


def test_regrading_one_student_leaves_the_others_in_nbgrader(tmp_path):
    cls, out, db = _class(tmp_path / "submitted"), tmp_path / "grades", tmp_path / "gradebook.db"
    args = [str(cls), "--exercise", "03_strides", "--out", str(out), "--jobs", "2", "--quiet", "--nbgrader-db", str(db)]
    assert cli.main(args) == 0
    nb = cls / "bob" / "03_strides" / "03_strides.ipynb"
    sol = load(ROOT / "solutions" / "03_strides.ipynb")
    nb.write_text(dumps(solve(as_submission(sol, "03_strides"), sol)), encoding="utf-8")
    assert cli.main(args + ["--student", "bob"]) == 0
    with api.Gradebook(f"sqlite:///{db}") as gb:
        full = gb.find_submission("03_strides", "alice").max_score
        assert gb.find_submission("03_strides", "alice").score == pytest.approx(full)
        assert gb.find_submission("03_strides", "bob").score == pytest.approx(full)


# ---- nbgrader autograde's checksum warnings on test cells with hidden tests (jupyter/nbgrader#1961)
CONFIG = '''import os
c = get_config()
c.CourseDirectory.root = os.path.dirname(os.path.abspath(__file__))
c.ClearSolutions.code_stub = {"python": '# YOUR CODE HERE\\nraise NotImplementedError("Replace this line with your code, then run the test cell below.")'}
if os.environ.get("QUIET"):
    from minitorch_course.grading.nbgrader_quiet import quiet_hidden_test_checksums
    quiet_hidden_test_checksums()
'''


def _nbgrader(exe, course, *args, quiet=False):
    env = dict(os.environ, MINITORCH_SOLUTIONS=str(course / "source"),
               PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
               PATH=os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", ""))
    env.pop("QUIET", None)
    if quiet:
        env["QUIET"] = "1"
    p = subprocess.run([exe, *args], cwd=course, env=env, capture_output=True, text=True, timeout=240)
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    return p.stdout + p.stderr


def test_autograde_warns_only_about_edited_test_cells(tmp_path):
    exe = shutil.which("nbgrader", path=os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", ""))
    if exe is None:
        pytest.skip("no nbgrader command beside this Python")
    course = tmp_path / "course"
    (course / "source" / "03_strides").mkdir(parents=True)
    shutil.copy(ROOT / "solutions" / "03_strides.ipynb", course / "source" / "03_strides")
    (course / "nbgrader_config.py").write_text(CONFIG)
    _nbgrader(exe, course, "generate_assignment", "03_strides", "--force")
    released = load(course / "release" / "03_strides" / "03_strides.ipynb")
    sol = load(ROOT / "solutions" / "03_strides.ipynb")
    hidden = [c["metadata"]["nbgrader"]["grade_id"] for c in sol["cells"]
              if "BEGIN HIDDEN TESTS" in "".join(c["source"])]
    assert hidden
    edited = hidden[0]
    for student in ("honest", "editor"):
        nb = solve(released, sol)
        if student == "editor":
            for c in nb["cells"]:
                if c["metadata"].get("nbgrader", {}).get("grade_id") == edited:
                    c["source"] = c["source"] + "\n# my note" if isinstance(c["source"], str) else c["source"] + ["\n# my note"]
        folder = course / "submitted" / student / "03_strides"
        folder.mkdir(parents=True)
        (folder / "03_strides.ipynb").write_text(json.dumps(nb))
    plain = _nbgrader(exe, course, "autograde", "03_strides", "--force")
    warned = [ln for ln in plain.splitlines() if "Attribute 'checksum'" in ln]
    assert len(warned) == 2 * len(hidden)  # nbgrader's own: every hidden-test cell of both notebooks
    quiet = _nbgrader(exe, course, "autograde", "03_strides", "--force", quiet=True)
    warned = [ln for ln in quiet.splitlines() if "Attribute 'checksum'" in ln]
    assert len(warned) == 1 and f"cell {edited} " in warned[0]  # only the real edit
    with api.Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        full = gb.find_submission("03_strides", "honest").max_score
        assert gb.find_submission("03_strides", "honest").score == pytest.approx(full)  # hidden tests ran
