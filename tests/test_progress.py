"""Progress a learner can read: one vocabulary, no false attempts, and a way to carry it.

- states are "not started", "attempted", "done", the same words in the table, its HTML and the
  one-line summary each exercise notebook opens with;
- a check on an untouched stub (or before the function exists) is not an attempt;
- export_progress() / import_progress() carry progress to a fresh machine (a reset Colab
  runtime) and merge without losing anything.
"""
from __future__ import annotations

import json

import pytest

from minitorch_course import export_progress, import_progress, load_exercise, progress, show_progress
from minitorch_course.exercises import all_exercises
from _answers import answers_of

strides_module = answers_of("03_strides")  # the instructor's solutions (solutions/03_strides.ipynb)


@pytest.fixture
def progress_file(tmp_path, monkeypatch):
    path = tmp_path / "progress.json"
    monkeypatch.setenv("MINITORCH_PROGRESS", str(path))
    return path


@pytest.fixture
def qs():
    return load_exercise("03_strides")


def _stub(*args):
    raise NotImplementedError("Replace this line with your code, then run the test cell below.")


def _entry(path, q="q1"):
    return json.loads(path.read_text())["exercises"]["03_strides"][q]


def test_a_check_on_an_untouched_stub_is_not_an_attempt(qs, progress_file):
    with pytest.raises(AssertionError, match="not written yet"):
        qs[0].check(fn=_stub)
    with pytest.raises(AssertionError, match="not defined yet"):
        qs[0].check()  # contiguous_strides is not defined in this module
    assert not progress_file.exists() or "q1" not in json.loads(progress_file.read_text())["exercises"].get(
        "03_strides", {})
    row = next(r for r in show_progress().rows if r["exercise"] == "03_strides" and r["question"] == "q1")
    assert row["state"] == "not started" and row["attempts"] == 0


def test_states_follow_the_learner(qs, progress_file):
    with pytest.raises(AssertionError):
        qs[0].check(fn=lambda shape: ())
    assert _entry(progress_file)["attempts"] == 1
    rows = {r["question"]: r for r in show_progress().rows if r["exercise"] == "03_strides"}
    assert rows["q1"]["state"] == "attempted" and rows["q2"]["state"] == "not started"
    qs[0].check(fn=strides_module.contiguous_strides)
    with pytest.raises(AssertionError):  # a later failed experiment does not undo "done"
        qs[0].check(fn=lambda shape: ())
    rows = {r["question"]: r for r in show_progress().rows if r["exercise"] == "03_strides"}
    assert rows["q1"]["state"] == "done" and rows["q1"]["attempts"] == 3


def test_one_vocabulary_everywhere(qs, progress_file):
    with pytest.raises(AssertionError):
        qs[1].check(fn=lambda index, strides, offset=0: -1)
    qs[0].check(fn=strides_module.contiguous_strides)
    view = show_progress()
    text, html = repr(view), view._repr_html_()
    line = show_progress("03_strides")
    total = sum(len(e.questions) for e in all_exercises().values())
    assert f"1 of {total} questions done" in text
    for state in ("done", "attempted", "not started"):
        assert state in text and state in html
    for old in ("correct", "incorrect", "not_attempted", "missing"):
        assert old not in text.replace("questions done", "") and f">{old}<" not in html
    summary = repr(line)
    n = len(all_exercises()["03_strides"].questions)
    assert summary.startswith(f"Your progress: exercise 03_strides: 1 of {n} questions done, 1 attempted")
    assert "\n" not in summary and f"1 of {total}" in summary and "show_progress()" in summary
    assert "<b>" in line._repr_html_()


def test_summary_line_knows_former_names_and_refuses_unknown_ones(progress_file):
    assert repr(show_progress("01_strides")).startswith("Your progress: exercise 03_strides:")
    with pytest.raises(ValueError, match="no exercise named"):
        show_progress("99_nothing")


def test_export_then_import_into_a_fresh_machine(qs, progress_file, tmp_path, monkeypatch, capsys):
    qs[0].check(fn=strides_module.contiguous_strides)
    qs[0].hint(1)
    saved = export_progress(tmp_path / "mine.json")
    assert "import_progress(" in capsys.readouterr().out
    fresh = tmp_path / "fresh" / "progress.json"  # a reset runtime: nothing there
    monkeypatch.setenv("MINITORCH_PROGRESS", str(fresh))
    assert show_progress().done == 0
    view = import_progress(saved)
    assert view.done == 1
    assert json.loads(fresh.read_text())["exercises"]["03_strides"]["q1"]["hints"] == [1]


def test_import_merges_without_losing_anything(progress_file, tmp_path):
    progress_file.write_text(json.dumps({"version": 1, "exercises": {"03_strides": {
        "q1": {"status": "correct", "attempts": 2, "hints": [1], "solution_viewed": False,
               "first_correct": "2026-01-02T00:00:00+00:00"},
        "q2": {"status": "incorrect", "attempts": 1, "hints": [], "solution_viewed": False}}}}))
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"version": 1, "exercises": {"03_strides": {
        "q1": {"status": "incorrect", "attempts": 5, "hints": [2], "solution_viewed": True,
               "first_correct": "2026-01-01T00:00:00+00:00"},
        "q2": {"status": "correct", "attempts": 3, "hints": [], "solution_viewed": False},
        "q3": {"status": "incorrect", "attempts": 1, "hints": [], "solution_viewed": False}}}}))
    import_progress(other)
    data = json.loads(progress_file.read_text())["exercises"]["03_strides"]
    assert data["q1"]["status"] == "correct" and data["q1"]["attempts"] == 5
    assert data["q1"]["hints"] == [1, 2] and data["q1"]["solution_viewed"] is True
    assert data["q1"]["first_correct"] == "2026-01-01T00:00:00+00:00"
    assert data["q2"]["status"] == "correct" and data["q3"]["status"] == "incorrect"


def test_import_refuses_a_file_that_is_not_progress(progress_file, tmp_path):
    bad = tmp_path / "notes.json"
    bad.write_text(json.dumps({"something": "else"}))
    with pytest.raises(ValueError, match="not a progress file"):
        import_progress(bad)
    bad.write_text("{not json")
    with pytest.raises(ValueError, match="not a progress file"):
        import_progress(bad)
    with pytest.raises(TypeError, match="export_progress"):
        import_progress()  # off Colab there is no file chooser: the path is required


def test_old_records_read_in_the_new_words(progress_file):
    progress_file.write_text(json.dumps({"version": 1, "exercises": {"03_strides": {
        "q1": {"status": "not_attempted", "attempts": 4, "hints": [], "solution_viewed": False},
        "q2": {"status": "missing", "attempts": 1, "hints": [], "solution_viewed": False}}}}))
    rows = {r["question"]: r for r in show_progress().rows if r["exercise"] == "03_strides"}
    assert rows["q1"]["state"] == rows["q2"]["state"] == "not started"


def test_state_of_is_total():
    assert [progress.state_of(e) for e in ({}, None, {"status": "incorrect"}, {"status": "correct"})] == [
        "not started", "not started", "attempted", "done"]
