"""exercises/ and the check data are generated from solutions/ by one command, and never drift
from it; the answers stay in solutions/ (the package holds none: tests/test_release_wheel.py
checks the built wheel)."""
from __future__ import annotations

import io
import json
import re
import shutil
import sys
from pathlib import Path

import pytest

from minitorch_course import answers, checkdata
from minitorch_course import release as rel
from minitorch_course.exercises import all_exercises
from minitorch_course.grading.harness import decode_plain, encode_args
from minitorch_course.notebook import (BEGIN_SOLUTION, CODE_STUB, END_SOLUTION, NotebookError, cell_source,
                                       grade_id, hidden_blocks, literal, nbgrader, parse_hidden_checks,
                                       parse_notebook, strip_hidden, strip_solution, validate_source_notebook,
                                       without_markers)

ROOT = Path(__file__).resolve().parents[1]
SOLUTIONS = sorted((ROOT / "solutions").glob("*.ipynb"))


def test_there_is_at_least_one_exercise():
    assert SOLUTIONS and all_exercises()


@pytest.mark.parametrize("src", SOLUTIONS, ids=[p.stem for p in SOLUTIONS])
def test_exercise_notebook_is_exactly_the_release_of_its_solutions(src):
    dst = ROOT / "exercises" / src.name
    assert dst.exists(), f"run: python -m minitorch_course.release ({dst} is missing)"
    assert dst.read_text(encoding="utf-8") == rel.build(src), (
        f"{dst} is out of sync with {src}: run `python -m minitorch_course.release` "
        "(exercises/ is generated; never edit it by hand)")


def test_every_exercise_module_has_its_notebooks():
    for name, ex in all_exercises().items():
        assert (ROOT / "solutions" / ex.notebook).exists(), name
        assert (ROOT / "exercises" / ex.notebook).exists(), name
    assert {p.stem for p in SOLUTIONS} == set(all_exercises())


@pytest.mark.parametrize("src", SOLUTIONS, ids=[p.stem for p in SOLUTIONS])
def test_released_notebook_hides_solutions_and_hidden_tests(src):
    sol = parse_notebook(src.read_bytes())
    ex = parse_notebook((ROOT / "exercises" / src.name).read_bytes())
    text = json.dumps(ex)
    for marker in ("BEGIN SOLUTION", "END SOLUTION", "BEGIN HIDDEN TESTS", "END HIDDEN TESTS"):
        assert marker not in text
    ex_cells = {grade_id(c): c for c in ex["cells"]}
    for c in sol["cells"]:
        g, src_text = grade_id(c), cell_source(c)
        mine = cell_source(ex_cells[g])
        if nbgrader(c).get("solution"):
            hidden = [ln.strip() for ln in src_text.split("\n")
                      if ln.strip() and ln not in without_markers(strip_solution(src_text)).split("\n")]
            assert hidden and not any(h in mine for h in hidden if len(h) > 12), g
            # the uniform stub, at the indentation of the solution, once per solution block
            blocks = sum(bool(BEGIN_SOLUTION.match(ln)) for ln in src_text.split("\n"))
            assert CODE_STUB[1] in mine and mine.count("NotImplementedError") == blocks >= 1, g
        if nbgrader(c).get("grade"):
            assert "check(cases=" not in mine and "seed=" not in mine, g
    for c in ex["cells"]:
        if c["cell_type"] == "code":
            assert c["outputs"] == [] and c["execution_count"] is None
    assert ex["metadata"]["minitorch"]["exercise"] == src.stem


@pytest.mark.parametrize("src", SOLUTIONS, ids=[p.stem for p in SOLUTIONS])
def test_check_data_is_exactly_the_release_of_its_solutions(src):
    """checks/NAME.json (what a learner's check() compares with) is what release computes now."""
    dst = checkdata.path_of(src.stem)
    assert dst.exists(), f"run: python -m minitorch_course.release ({dst} is missing)"
    stored, fresh = dst.read_text(encoding="utf-8"), rel.build_checks(src)
    assert stored == fresh or checkdata.same(json.loads(stored), json.loads(fresh)), (
        f"{dst} is out of sync with {src} (or with the exercise module, or with the library whose "
        "messages it holds): run `python -m minitorch_course.release` (checks/ is generated)")


def test_check_data_compares_floats_within_a_machines_rounding():
    a = {"t": "float", "v": 0.6931471824645996}
    assert checkdata.same(a, {"t": "float", "v": 0.6931471824645997})
    assert not checkdata.same(a, {"t": "float", "v": 0.6931481824645996})
    assert not checkdata.same({"t": "int", "v": 1}, {"t": "float", "v": 1.0})
    assert not checkdata.same([1, 2], [1, 2, 3]) and not checkdata.same({"a": 1}, {"b": 1})
    assert not checkdata.same(True, 1.0)


def _stored_cases(name):
    data = checkdata.load(name)
    return {qid: [tuple(decode_plain(a) for a in args) for args, _ in q["cases"]]
            for qid, q in data["questions"].items()}


@pytest.mark.parametrize("name", sorted(all_exercises()))
def test_check_data_holds_the_visible_cases_and_no_hidden_one(name):
    ex = all_exercises()[name]
    key = answers.load(ex, ROOT / "solutions" / ex.notebook)
    stored = _stored_cases(name)
    assert set(stored) == {q.id for q in ex.questions}
    for q in ex.questions:
        assert stored[q.id] == [c.args for c in key.cases(q)], q.id  # exactly the visible ones, in order
        # the instructor's own hidden cases are not there (random hidden ones come from the same
        # generators as the visible ones, so a small input space may repeat one: that is no leak)
        written = [a for block in hidden_blocks(cell_source(key.cells[q.test_cell]))
                   for _qid, kw in parse_hidden_checks(block) for a in kw.get("cases", [])]
        mine = {json.dumps(encode_args(a), sort_keys=True) for a in stored[q.id]}
        leaked = [a for a in written if json.dumps(encode_args(tuple(a)), sort_keys=True) in mine]
        assert not leaked, f"{name} {q.id}: hidden cases in the check data: {leaked[:3]}"


@pytest.mark.parametrize("name", sorted(all_exercises()))
def test_exercise_modules_hold_no_reference_solution(name):
    """The exercise module (installed with the package) has inputs, comparisons and hints; the
    answers are only in solutions/ (answers.py reads them)."""
    ex = all_exercises()[name]
    module = sys.modules[ex.questions[0].random_cases.__module__]
    text = _normalised(Path(module.__file__).read_text(encoding="utf-8"))
    key = answers.load(ex, ROOT / "solutions" / ex.notebook)
    for q in ex.questions:
        assert not hasattr(q, "reference")
        for body in solution_bodies(cell_source(key.cells[q.solution_cell])):
            assert body not in text, f"{module.__file__} holds the body of {q.id}'s solution"


def solution_bodies(source):
    """The code between ### BEGIN SOLUTION and ### END SOLUTION, each block normalised."""
    out, cur = [], None
    for line in source.split("\n"):
        if BEGIN_SOLUTION.match(line):
            cur = []
        elif END_SOLUTION.match(line):
            out.append(_normalised("\n".join(cur)))
            cur = None
        elif cur is not None:
            cur.append(line)
    return [b for b in out if len(b) > 20]


def _normalised(text):
    """Code without comments, blank lines and indentation: a copy reindented or recommented is
    still the same code."""
    lines = [re.sub(r"\s+#.*$|^\s*#.*$", "", ln).strip() for ln in text.replace("\r\n", "\n").split("\n")]
    return "\n".join(ln for ln in lines if ln)


def test_solutions_notebooks_are_valid_nbgrader_sources():
    for src in SOLUTIONS:
        nb = parse_notebook(src.read_bytes())
        assert validate_source_notebook(nb) == []
        assert rel.check_against_spec(nb, src.stem) == []
        nbformat = pytest.importorskip("nbformat")
        nbformat.validate(nbformat.reads(src.read_text(encoding="utf-8"), as_version=4))


def test_release_command_check_mode(tmp_path):
    sols, exs, checks = tmp_path / "solutions", tmp_path / "exercises", tmp_path / "checks"
    sols.mkdir()
    shutil.copy(SOLUTIONS[0], sols)
    out = io.StringIO()
    assert rel.run(sols, exs, check=True, out=out, checks=checks) == 1 and "OUT OF DATE" in out.getvalue()
    assert not exs.exists() and not checks.exists()
    assert rel.run(sols, exs, out=io.StringIO(), checks=checks) == 0
    assert rel.run(sols, exs, check=True, out=io.StringIO(), checks=checks) == 0
    data = checks / f"{SOLUTIONS[0].stem}.json"
    assert data.read_text() == checkdata.path_of(SOLUTIONS[0].stem).read_text()
    target = exs / SOLUTIONS[0].name
    target.write_text(target.read_text().replace("YOUR CODE HERE", "my code"))  # a hand edit
    out = io.StringIO()
    assert rel.run(sols, exs, check=True, out=out, checks=checks) == 1 and SOLUTIONS[0].name in out.getvalue()
    edited = json.loads(data.read_text())
    first = next(iter(edited["questions"].values()))["cases"][0]
    first[1] = {"t": "str", "v": "an expected value of my own", "len": 27}  # and one of the check data
    data.write_text(json.dumps(edited))
    out = io.StringIO()
    assert rel.run(sols, exs, check=True, out=out, checks=checks) == 1 and data.name in out.getvalue()
    args = ["--solutions", str(sols), "--exercises", str(exs), "--checks", str(checks)]
    assert rel.main(["--check", *args]) == 1
    assert rel.main(args) == 0
    assert target.read_text() == rel.build(SOLUTIONS[0])
    assert data.read_text() == rel.build_checks(SOLUTIONS[0])


def test_release_is_of_the_checkout_not_of_the_current_folder(tmp_path, monkeypatch):
    """A release run from another folder (with a solutions/ of its own) releases the checkout the
    package is in, unless --root says otherwise."""
    assert rel.repo_root() == ROOT
    (tmp_path / "solutions").mkdir()
    (tmp_path / "solutions" / SOLUTIONS[0].name).write_text("{ not a notebook")
    monkeypatch.chdir(tmp_path)
    assert rel.main(["--check", SOLUTIONS[0].stem]) == 0  # the checkout's, which is up to date
    assert rel.main(["--check", "--root", str(tmp_path), SOLUTIONS[0].stem]) == 1  # that one is broken
    assert rel.main(["--root", str(tmp_path / "nowhere")]) == 2


def test_release_refuses_a_broken_source(tmp_path):
    nb = json.loads(SOLUTIONS[0].read_text())
    for c in nb["cells"]:
        if nbgrader(c).get("solution"):
            c["source"] = cell_source(c).replace("### END SOLUTION", "")
            break
    (tmp_path / "solutions").mkdir()
    (tmp_path / "solutions" / SOLUTIONS[0].name).write_text(json.dumps(nb))
    out = io.StringIO()
    assert rel.run(tmp_path / "solutions", tmp_path / "exercises", out=out, checks=tmp_path / "checks") == 1
    assert "BEGIN without END" in out.getvalue() and not (tmp_path / "exercises").exists()
    assert not (tmp_path / "checks").exists()


# ---- the nbgrader-format helpers ------------------------------------------------------------
def test_strip_solution_keeps_the_indentation():
    src = "def f(x):\n    '''doc'''\n    ### BEGIN SOLUTION\n    return x\n    ### END SOLUTION\n"
    assert strip_solution(src) == "def f(x):\n    '''doc'''\n    " + "\n    ".join(CODE_STUB) + "\n"
    assert without_markers(src) == "def f(x):\n    '''doc'''\n    return x\n"
    for bad in ("### BEGIN SOLUTION\nx", "### END SOLUTION", "### BEGIN SOLUTION\n### BEGIN SOLUTION"):
        with pytest.raises(NotebookError):
            strip_solution(bad)


def test_hidden_tests_are_read_not_run():
    src = "q1.check()\n### BEGIN HIDDEN TESTS\nq1.check(random=5)\n### END HIDDEN TESTS\n"
    assert strip_hidden(src) == "q1.check()"
    calls = parse_hidden_checks("q1.check(cases=[((2 ** 40, 1),), ((1,) * 3,)], random=2, seed=-1)")
    assert calls == [("q1", {"cases": [((2 ** 40, 1),), ((1, 1, 1),)], "random": 2, "seed": -1})]
    for bad in ("import os", "q1.check(cases=open('x'))", "q1.check(cases=[x for x in 'ab'])",
                "q1.check(cases=2 ** 10 ** 6)", "q1.check(cases=(1,) * 10 ** 9)", "print(1)",
                "q1.check(os.system('id'))", "q1.check(evil=1)"):
        with pytest.raises(NotebookError):
            parse_hidden_checks(bad)
    import ast
    with pytest.raises(ValueError):
        literal(ast.parse("__import__('os')", mode="eval").body)


def test_validation_finds_authoring_mistakes():
    nb = json.loads(SOLUTIONS[0].read_text())
    cells = [c for c in nb["cells"] if nbgrader(c)]
    cells[1]["metadata"]["nbgrader"]["grade_id"] = grade_id(cells[0])
    tests = [c for c in nb["cells"] if nbgrader(c).get("grade")]
    del tests[0]["metadata"]["nbgrader"]["points"]
    problems = "\n".join(validate_source_notebook(nb))
    assert "duplicate grade_id" in problems and "without points" in problems


def test_release_tags_the_cells_an_untouched_exercise_fails_in():
    """nbval runs exercises/ too: the cells that raise until the learner writes their code carry
    nbval's raises-exception tag (nbgrader ignores tags); the others, and solutions/, do not."""
    from minitorch_course.notebook import RAISES_TAG, expected_failures, release

    def cell(src, gid, **nbg):
        meta = {"grade": False, "solution": False, "locked": True, "grade_id": gid, "schema_version": 3}
        meta.update(nbg)
        return {"cell_type": "code", "metadata": {"nbgrader": meta}, "source": src, "outputs": [],
                "execution_count": None}

    stub_in_def = "def f(x):\n    ### BEGIN SOLUTION\n    return x\n    ### END SOLUTION"
    stub_at_top = "### BEGIN SOLUTION\nanswer = 42\n### END SOLUTION"
    nb = {"cells": [
        cell("import numpy as np\nfrom minitorch_course import load_exercise\nq1, = load_exercise('x')", "setup"),
        cell(stub_in_def, "f", solution=True, locked=False),
        cell("q1.check()", "test_f", grade=True, points=1),
        cell(stub_at_top, "answer", solution=True, locked=False),
        cell("def driver(p):\n    return [f(v) for v in p]\nLIMIT = 3", "drivers"),
        cell("print(driver([1, 2]))\nresult = 5", "demo"),
        cell("print(result + 1)", "after_demo"),
        cell("print(np.ones(2))", "unrelated"),
        cell("show_progress()", "progress"),
        {"cell_type": "markdown", "metadata": {}, "source": "f(1)"},
    ]}
    out = release(nb, "x")
    tagged = [grade_id(c) for c in out["cells"] if RAISES_TAG in c.get("metadata", {}).get("tags", [])]
    assert tagged == ["test_f", "answer", "demo", "after_demo"]
    assert expected_failures(out["cells"]) == [i for i, c in enumerate(out["cells"])
                                               if grade_id(c) in ("test_f", "answer", "demo", "after_demo")]
    assert not any("tags" in c["metadata"] for c in nb["cells"])  # the solutions notebook is unchanged
    for src in SOLUTIONS:  # and no solutions notebook carries the tag
        assert RAISES_TAG not in src.read_text(encoding="utf-8")
