"""The built wheel (what `pip install` gives a learner) holds no answer: no file of it contains
the body of a reference solution, its check data holds no hidden case, and, installed on its
own, its check() works on the visible cases while hidden cases and solution() say plainly that
they need the instructor's solutions.

The wheel is built from a copy of the sources (pyproject.toml, README.md and the two packages)
with `pip wheel --no-deps --no-build-isolation`: the build uses the setuptools of this
environment, and nothing is downloaded.
"""
from __future__ import annotations

import ast
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pytest

from minitorch_course.exercises import all_exercises
from minitorch_course.grading.harness import encode_args
from minitorch_course.notebook import (BEGIN_SOLUTION, END_SOLUTION, cell_source, hidden_blocks, nbgrader,
                                       parse_hidden_checks, parse_notebook, without_markers)

ROOT = Path(__file__).resolve().parents[1]
SOLUTIONS = sorted((ROOT / "solutions").glob("*.ipynb"))

pytestmark = [pytest.mark.timeout(300),
              pytest.mark.skipif(importlib.util.find_spec("setuptools") is None,
                                 reason="building the wheel needs setuptools in this environment")]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    src = tmp_path_factory.mktemp("src")
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    for pkg in ("minitorch", "minitorch_course"):
        shutil.copytree(ROOT / pkg, src / pkg, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    out = tmp_path_factory.mktemp("wheel")
    r = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                        "-w", str(out), str(src)], capture_output=True, text=True, timeout=240)
    assert r.returncode == 0, r.stdout + r.stderr
    (whl,) = out.glob("*.whl")
    return whl


def _files(whl):
    with zipfile.ZipFile(whl) as z:
        return {n: z.read(n) for n in z.namelist() if not n.endswith("/")}


# ---- what a reference solution is, normalised ----------------------------------------------------
def _normalised(text):
    """Code without comments, blank lines and indentation (a copy recommented or reindented is
    still the same code)."""
    out = []
    for line in text.replace("\r\n", "\n").split("\n"):
        line = line.split("#", 1)[0].strip() if not line.strip().startswith(("'", '"')) else line.strip()
        if line:
            out.append(line)
    return "\n".join(out)


def _blocks(source):
    """The code between ### BEGIN SOLUTION and ### END SOLUTION of a cell, each block."""
    out, cur = [], None
    for line in source.split("\n"):
        if BEGIN_SOLUTION.match(line):
            cur = []
        elif END_SOLUTION.match(line):
            out.append("\n".join(cur))
            cur = None
        elif cur is not None:
            cur.append(line)
    return out


def _bodies(tree):
    """ast.dump of the body (docstring dropped) of every function and method in a module."""
    out = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant):
                body = body[1:]
            if body:
                out[ast.dump(ast.Module(body=body, type_ignores=[]))] = node.name
    return out


def _solutions():
    """[(exercise, solution cell, its text blocks, its function bodies)] for every solution cell."""
    out = []
    for path in SOLUTIONS:
        nb = parse_notebook(path.read_bytes())
        for c in nb["cells"]:
            if c["cell_type"] == "code" and nbgrader(c).get("solution"):
                src = cell_source(c)
                blocks = [b for b in (_normalised(b) for b in _blocks(src)) if len(b) > 24]
                out.append((path.stem, nbgrader(c)["grade_id"], blocks, _bodies(ast.parse(without_markers(src)))))
    return out


def test_the_solutions_are_what_the_test_looks_for():
    found = _solutions()
    # one solution cell per question, except where questions share one (exercise 19 grades each
    # part twice: on its exercise's cases and on the capstone's tests)
    assert len(found) == sum(len({q.solution_cell for q in e.questions}) for e in all_exercises().values())
    assert all(blocks and bodies for _n, _g, blocks, bodies in found)


def test_no_file_of_the_wheel_holds_a_reference_solution(wheel):
    files = _files(wheel)
    assert any(n.startswith("minitorch_course/exercises/") for n in files)
    texts = {}
    for name, data in files.items():
        try:
            texts[name] = data.decode("utf-8")
        except UnicodeDecodeError:
            continue
    normalised = {n: _normalised(t) for n, t in texts.items()}
    trees = {}
    for n, t in texts.items():
        if n.endswith(".py"):
            trees[n] = _bodies(ast.parse(t))
    leaks = []
    for ex, cell, blocks, bodies in _solutions():
        for n, text in normalised.items():
            leaks += [(ex, cell, n, "text") for b in blocks if b in text]
        for n, theirs in trees.items():
            leaks += [(ex, cell, n, f"{theirs[d]}()") for d in bodies if d in theirs]
    assert not leaks, leaks


def test_the_wheel_carries_check_data_without_hidden_cases(wheel):
    files = _files(wheel)
    for path in SOLUTIONS:
        name = f"minitorch_course/checks/{path.stem}.json"
        assert name in files, f"{name} is not in the wheel: check() would have nothing to compare with"
        data = json.loads(files[name])
        stored = {json.dumps(args, sort_keys=True) for q in data["questions"].values() for args, _ in q["cases"]}
        nb = parse_notebook(path.read_bytes())
        for c in nb["cells"]:
            for block in hidden_blocks(cell_source(c)):
                for _qid, kw in parse_hidden_checks(block):
                    for case in kw.get("cases", []):
                        assert json.dumps(encode_args(tuple(case)), sort_keys=True) not in stored, (path.stem, case)


LEARNER = textwrap.dedent('''
    import json, os, sys
    import minitorch_course
    from minitorch_course import load_exercise
    print("FROM", minitorch_course.__file__)
    q1, q2, q3 = load_exercise("03_strides")

    def contiguous_strides(shape):
        out, step = [], 1
        for n in reversed(shape):
            out.append(step)
            step *= n
        return tuple(reversed(out))

    r = q1.evaluate(contiguous_strides)
    print("VISIBLE", r.status, r.total)
    r = q1.evaluate(lambda shape: ())
    print("WRONG", r.status, r.details[0])
    r = q1.evaluate(contiguous_strides, cases=[((2, 3),)], random=5, seed=1)
    print("HIDDEN", r.status, r.details[0] if r.details else "")
    q1.solution()
''')


def test_installed_alone_check_works_and_the_answers_are_not_there(wheel, tmp_path):
    target = tmp_path / "site"
    r = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "-q", "--target",
                        str(target), str(wheel)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    assert not (target / "solutions").exists()
    env = {k: v for k, v in os.environ.items() if k != "MINITORCH_SOLUTIONS"}
    env.update(PYTHONPATH=str(target), MINITORCH_PROGRESS=str(tmp_path / "progress.json"))
    run = subprocess.run([sys.executable, "-c", LEARNER], capture_output=True, text=True, env=env,
                         cwd=tmp_path, timeout=120)
    out = run.stdout + run.stderr
    assert run.returncode == 0, out
    assert f"FROM {target}" in out, out  # the installed copy, not the checkout
    assert "VISIBLE correct 30" in out, out
    assert "WRONG incorrect contiguous_strides((2, 3, 4)) returned (), expected (12, 4, 1)" in out, out
    assert "HIDDEN unavailable" in out and "can only be checked where the instructor's solutions are" in out, out
    assert "No reference answer for q1 here" in out and "step *=" not in out, out

    env["MINITORCH_SOLUTIONS"] = str(ROOT / "solutions")  # an instructor's setting: then they are there
    run = subprocess.run([sys.executable, "-c", LEARNER], capture_output=True, text=True, env=env,
                         cwd=tmp_path, timeout=120)
    out = run.stdout + run.stderr
    assert run.returncode == 0, out
    assert "HIDDEN correct" in out and "A reference answer for q1" in out and "step *= size" in out, out
