"""exercises/ is generated from solutions/ by one command, and never drifts from it."""
from __future__ import annotations

import inspect
import io
import json
import shutil
import textwrap
from pathlib import Path

import pytest

from minitorch_course import release as rel
from minitorch_course.exercises import all_exercises
from minitorch_course.notebook import (BEGIN_SOLUTION, CODE_STUB, NotebookError, cell_source, grade_id, literal,
                                       nbgrader, parse_hidden_checks, parse_notebook, strip_hidden,
                                       strip_solution, validate_source_notebook, without_markers)

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


@pytest.mark.parametrize("name", sorted(all_exercises()))
def test_reference_solutions_are_the_notebooks_solution_cells(name):
    """The package's reference (check(), solution()) is the notebook's solution, character for character."""
    ex = all_exercises()[name]
    nb = parse_notebook((ROOT / "solutions" / ex.notebook).read_bytes())
    cells = {grade_id(c): c for c in nb["cells"]}
    for q in ex.questions:
        written = q.answer or q.reference  # a class the learner writes, tested through a driver
        in_notebook = without_markers(cell_source(cells[q.solution_cell])).strip()
        in_package = textwrap.dedent(inspect.getsource(written)).strip()
        assert in_notebook == in_package, f"{q.id}: {q.solution_cell} differs from {written.__qualname__}"
        if q.answer is not None:  # the driver: the same code in a locked driver cell
            driver = textwrap.dedent(inspect.getsource(q.reference)).strip()
            assert any(driver in cell_source(cells[g]) for g in ex.driver_cells), q.reference.__qualname__


def test_solutions_notebooks_are_valid_nbgrader_sources():
    for src in SOLUTIONS:
        nb = parse_notebook(src.read_bytes())
        assert validate_source_notebook(nb) == []
        assert rel.check_against_spec(nb, src.stem) == []
        nbformat = pytest.importorskip("nbformat")
        nbformat.validate(nbformat.reads(src.read_text(encoding="utf-8"), as_version=4))


def test_release_command_check_mode(tmp_path):
    sols, exs = tmp_path / "solutions", tmp_path / "exercises"
    sols.mkdir()
    shutil.copy(SOLUTIONS[0], sols)
    out = io.StringIO()
    assert rel.run(sols, exs, check=True, out=out) == 1 and "OUT OF DATE" in out.getvalue()
    assert rel.run(sols, exs, out=io.StringIO()) == 0
    assert rel.run(sols, exs, check=True, out=io.StringIO()) == 0
    target = exs / SOLUTIONS[0].name
    target.write_text(target.read_text().replace("YOUR CODE HERE", "my code"))  # a hand edit
    out = io.StringIO()
    assert rel.run(sols, exs, check=True, out=out) == 1 and SOLUTIONS[0].name in out.getvalue()
    assert rel.main(["--check", "--solutions", str(sols), "--exercises", str(exs)]) == 1
    assert rel.main(["--solutions", str(sols), "--exercises", str(exs)]) == 0
    assert target.read_text() == rel.build(SOLUTIONS[0])


def test_release_refuses_a_broken_source(tmp_path):
    nb = json.loads(SOLUTIONS[0].read_text())
    for c in nb["cells"]:
        if nbgrader(c).get("solution"):
            c["source"] = cell_source(c).replace("### END SOLUTION", "")
            break
    (tmp_path / "solutions").mkdir()
    (tmp_path / "solutions" / SOLUTIONS[0].name).write_text(json.dumps(nb))
    out = io.StringIO()
    assert rel.run(tmp_path / "solutions", tmp_path / "exercises", out=out) == 1
    assert "BEGIN without END" in out.getvalue() and not (tmp_path / "exercises").exists()


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
