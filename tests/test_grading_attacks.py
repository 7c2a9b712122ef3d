"""The grader against a broad set of submissions (tests/grading_attacks/cases.py): forged
reports and frame walking, values that lie about their type, reading what the sandbox must not
see, every road to a forbidden function or type, loops in disguise, broken and odd notebooks,
and honest notebooks with the noise real learners leave in them.

No wrong, empty or forbidden answer gains a point; every honest variant keeps full marks; every
file gets a row. The submissions are graded together, two sandboxes at a time, as a class is.
And check(), in a real IPython shell, agrees with the grader on every answer it is shown.
"""
from __future__ import annotations

import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from grading_attacks.cases import CASES, RIGHT_CS, WRONG_CS, np_route

from minitorch_course.exercises import get_exercise
from minitorch_course.grading.grader import AnswerKey, grade_submission
from minitorch_course.grading.sample_class import add_cell, as_submission, load, set_cell, solve
from minitorch_course.grading.sandbox import Limits
from minitorch_course.notebook import dumps, grade_id

ROOT = Path(__file__).resolve().parents[1]
LIMITS = Limits(step_seconds=1.5, memory_mb=512)

pytestmark = pytest.mark.timeout(300)


def _apply(nb, edits):
    for edit in edits:
        if edit[0] == "set":
            nb = set_cell(nb, edit[1], edit[2])
        elif edit[0] == "add":
            nb = add_cell(nb, edit[1], at=edit[2])
        else:
            nb = edit[1](json.loads(dumps(nb)))
    return nb


def _grade_cases(base):
    keys, solved = {}, {}
    for name in sorted({c.exercise for c in CASES}):
        ex = get_exercise(name)
        path = ROOT / "solutions" / ex.notebook
        sol = load(path)
        keys[name], solved[name] = AnswerKey(ex, path, scoring_mode="all"), solve(as_submission(sol, ex.name), sol)
    jobs = []
    for case in CASES:
        content = _apply(solved[case.exercise], case.edits)
        f = base / f"{case.name}.ipynb"
        f.write_bytes(content if isinstance(content, bytes) else dumps(content).encode())
        jobs.append((case, f))
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda j: grade_submission(j[1], keys[j[0].exercise], LIMITS, j[0].name,
                                                           [base]), jobs))
    return [(c, r, keys[c.exercise]) for (c, _f), r in zip(jobs, results)]


def _faults(case, result, key):
    """What is wrong with the grader's verdict on this case (empty: nothing)."""
    by = {q.id: q for q in result.questions}
    out = []
    if set(by) != {k.spec.id for k in key.questions}:
        out.append("not every question has a verdict")
    out += [f"{q.id} is {q.status} without a reason" for q in result.questions if q.status != "correct" and not q.reason]
    for qid in case.zero:
        q = by.get(qid)
        if q is None or q.points != 0 or q.status == "correct":
            out.append(f"{qid} gained a point ({q and q.status}: {q and q.reason[:200]})")
        elif case.status and q.status not in case.status:
            out.append(f"{qid} is {q.status}, expected one of {case.status} ({q.reason[:200]})")
    for qid in case.full:
        q = by.get(qid)
        if q is None or q.points != q.max_points:
            out.append(f"{qid} lost its points ({q and q.status}: {q and q.reason[:200]})")
    if result.verdict == "graded" and not result.isolation.get("audit_hook"):
        out.append("graded outside the sandbox's confinement")
    return out


def test_no_point_without_the_answer_and_every_point_for_it(tmp_path):
    """Every case, graded together as a class is (one test, so that the class is graded once
    whatever the number of test workers); the message lists each case the grader got wrong."""
    graded = _grade_cases(tmp_path)
    faults = {c.name: f for c, r, k in graded if (f := _faults(c, r, k))}
    assert not faults, json.dumps(faults, indent=1)
    # the suite is broad: tampering, robustness and honest cases, over several exercises
    assert {"03_strides", "17_vectorise", "15_im2col", "14_training_loop", "06_inplace_version"} <= {
        c.exercise for c in CASES}
    assert len(CASES) >= 100 and sum(1 for c in CASES if c.full and not c.zero) >= 8
    assert {"graded", "malformed", "too_large"} <= {r.verdict for _c, r, _k in graded}


# ---- check() in the notebook and the grader agree ---------------------------------------------------
MAP_LAMBDA = ("import numpy as np\npairwise_sq_dists = lambda X, Y: np.array(list(map(lambda x: ((np.asarray(x, "
              "dtype=np.float64) - np.asarray(Y, dtype=np.float64)) ** 2).sum(axis=1), X)), dtype=np.float64)"
              ".reshape(len(X), len(Y))\n")
VECTORISED = ("import numpy as np\ndef pairwise_sq_dists(X, Y):\n    X, Y = np.asarray(X, dtype=np.float64), "
              "np.asarray(Y, dtype=np.float64)\n    return ((X[:, None, :] - Y[None, :, :]) ** 2).sum(axis=2)\n")
AGREEMENT = [
    ("right", "03_strides", RIGHT_CS),
    ("wrong", "03_strides", WRONG_CS),
    ("right_with_an_unused_forbidden_import", "03_strides", "import minitorch\n" + RIGHT_CS),
    ("right_with_torch_imported_for_comparison", "03_strides",
     "try:\n    import torch\nexcept ImportError:\n    pass\n" + RIGHT_CS),
    ("uses_a_forbidden_module", "03_strides",
     "import minitorch\ndef contiguous_strides(shape):\n    return minitorch.zeros(shape).stride()\n"),
    ("numpy_type_and_methods", "03_strides", np_route("import numpy", "numpy.ndarray")),
    ("numpy_function", "03_strides", "import numpy as np\ndef contiguous_strides(shape):\n"
                                     "    return tuple(s // 8 for s in np.zeros(shape).strides)\n"),
    ("exec_defined", "03_strides", "exec(" + repr(RIGHT_CS) + ")\n"),
    ("magic_cell", "03_strides", "%%time\n" + RIGHT_CS),
    ("helper_in_another_cell", "03_strides",
     ("def _step(n):\n    return n\n", RIGHT_CS.replace("step *= size", "step *= _step(size)"))),
    ("vectorised", "17_vectorise", VECTORISED),
    ("map_and_lambda", "17_vectorise", MAP_LAMBDA),
    ("loop_in_a_scratch_cell", "17_vectorise", ("for i in range(3):\n    print(i)\n", VECTORISED)),
]

SHELL = r'''
import json, os, sys
from traitlets.config import Config
from IPython.core.interactiveshell import InteractiveShell
cases, setups = json.loads(sys.stdin.read())
out = {}
for name, exercise, cells in cases:
    InteractiveShell.clear_instance()
    c = Config()
    c.HistoryManager.hist_file = ":memory:"
    sh = InteractiveShell.instance(config=c)
    for cell in [setups[exercise], *cells, "q1.check()"]:  # as a learner runs them: stored in the history
        r = sh.run_cell(cell, store_history=True)
    out[name] = r.error_in_exec is None
sys.stdout.write("RESULT " + json.dumps(out) + "\n")
'''


def test_check_and_the_grader_agree(tmp_path):
    """In a real IPython shell (the cells run as a learner runs them, then q1.check()): check()
    says ✔ exactly where the grader gives q1 its points."""
    pytest.importorskip("IPython", reason="check() reads the cells from IPython's history")
    cases = [(name, exercise, list(src) if isinstance(src, tuple) else [src]) for name, exercise, src in AGREEMENT]
    keys, solved, setups = {}, {}, {}
    for exercise in {e for _n, e, _c in cases}:
        ex = get_exercise(exercise)
        path = ROOT / "solutions" / ex.notebook
        sol = load(path)
        keys[exercise], solved[exercise] = AnswerKey(ex, path, scoring_mode="all"), solve(as_submission(sol, ex.name), sol)
        setups[exercise] = "".join(c["source"] for c in sol["cells"] if grade_id(c) == "setup")
    env = {"HOME": str(tmp_path), "IPYTHONDIR": str(tmp_path / "ipython"), "PATH": "/usr/bin:/bin",
           "MINITORCH_PROGRESS": str(tmp_path / "progress.json"), "MPLBACKEND": "Agg"}
    p = subprocess.run([sys.executable, "-c", SHELL], input=json.dumps([cases, setups]), capture_output=True,
                       text=True, timeout=240, env=env, cwd=tmp_path)
    line = [ln for ln in p.stdout.splitlines() if ln.startswith("RESULT ")]
    assert line, p.stdout[-2000:] + p.stderr[-2000:]
    checked = json.loads(line[0][7:])
    jobs = []
    for name, exercise, cells in cases:
        gid = keys[exercise].questions[0].spec.solution_cell
        nb = set_cell(solved[exercise], gid, cells[-1])
        for extra in cells[:-1]:
            nb = add_cell(nb, extra, at=3)
        f = tmp_path / f"{name}.ipynb"
        f.write_text(dumps(nb), encoding="utf-8")
        jobs.append((f, keys[exercise]))
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda j: grade_submission(j[0], j[1], LIMITS), jobs))
    graded = {name: r.questions[0].status == "correct" for (name, _e, _c), r in zip(cases, results)}
    assert checked == graded
    assert checked["right"] and checked["right_with_an_unused_forbidden_import"] and not checked["wrong"]
    assert not checked["numpy_type_and_methods"] and not checked["exec_defined"] and checked["magic_cell"]
    assert checked["vectorised"] and not checked["map_and_lambda"] and checked["loop_in_a_scratch_cell"]


# ---- honest noise, in every exercise ---------------------------------------------------------------
def _noisy(nb, key):
    """A solved notebook with what real learners leave in: magics, a timing cell, debug prints
    and warnings in a wrapper, type-hinted helpers, scratch cells with imports (allowed or not:
    unused by the answers), a duplicated solution cell, Windows line endings, stored outputs."""
    nb = json.loads(dumps(nb))
    first = True
    for c in nb["cells"]:
        gid = grade_id(c)
        q = key.solution_cells.get(gid)
        if q is None or c["cell_type"] != "code":
            continue
        src = "".join(c["source"]) if isinstance(c["source"], list) else c["source"]
        if q.answer is None:  # a function: wrapped the way a learner debugging it might
            fn = q.function
            src += (f"\n\n_{fn}_unwrapped = {fn}\n\n\ndef {fn}(*args, **kwargs):\n"
                    f"    \"\"\"Mine, with a print to see what the tests call.\"\"\"\n"
                    f"    print('calling {fn} with', len(args), 'arguments')\n"
                    f"    warnings.warn('debugging', UserWarning, stacklevel=2)\n"
                    f"    return _{fn}_unwrapped(*args, **kwargs)\n")
        src = "from __future__ import annotations\n\nimport warnings\n" + src
        if first:
            src = "%%time\n" + src.replace("\n", "\r\n")
            first = False
        c["source"] = src
        c["outputs"] = [{"output_type": "stream", "name": "stdout", "text": "x" * 10_000}]
    setup = next(i for i, c in enumerate(nb["cells"]) if grade_id(c) == "setup")
    scratch = ("%matplotlib inline\n!pip install -q nothing\nimport math, itertools, functools, collections, random\n"
               "try:\n    import numpy as np\n    print(np.zeros(3))\nexcept Exception as e:\n    print(e)\n")
    nb = add_cell(nb, scratch, at=setup + 1)
    sol = [i for i, c in enumerate(nb["cells"]) if grade_id(c) in key.solution_cells]
    copy = json.loads(json.dumps(nb["cells"][sol[-1]]))
    nb["cells"].insert(sol[-1] + 1, copy)  # the same answer twice: Restart & Run All runs both
    nb = add_cell(nb, "print('done')\n%timeit -n 1 -r 1 1 + 1\n")
    return nb


def test_honest_noise_keeps_full_marks_in_every_exercise(tmp_path):
    from minitorch_course.exercises import all_exercises
    jobs = []
    for name, ex in all_exercises().items():
        path = ROOT / "solutions" / ex.notebook
        sol, key = load(path), AnswerKey(ex, path, scoring_mode="all")
        f = tmp_path / f"{name}.ipynb"
        f.write_text(dumps(_noisy(solve(as_submission(sol, ex.name), sol), key)), encoding="utf-8")
        jobs.append((f, key))
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda j: grade_submission(j[0], j[1], LIMITS), jobs))
    lost = {Path(f).stem: [(q.id, q.status, q.reason[:300]) for q in r.questions if q.status != "correct"]
            for (f, _k), r in zip(jobs, results) if r.score != r.max_score}
    assert not lost, json.dumps(lost, indent=1)


@pytest.mark.parametrize("folder", ["solutions", "exercises"])
def test_the_course_notebooks_keep_their_own_rules(folder):
    """check() reads every cell a learner ran, the instructor's included: in every solutions and
    released notebook, run top to bottom, no question breaks a rule (so that check() and the
    grader can only differ by what the learner wrote)."""
    from minitorch_course.exercises import all_exercises
    from minitorch_course.grading import rules
    from minitorch_course.notebook import cell_source, python_code
    broken = {}
    for name, ex in all_exercises().items():
        nb = load(ROOT / folder / ex.notebook)
        program = rules.Program([python_code(cell_source(c))[0] for c in nb["cells"] if c["cell_type"] == "code"])
        for q in ex.questions:
            found = rules.violations(program, q.written, rules.Rules.of(ex, q), defined_here=True)
            if found:
                broken[f"{name} {q.id}"] = [v.text for v in found]
    assert not broken, broken
