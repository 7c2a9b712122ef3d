"""Submissions that try to cheat, built here from the solutions notebook by editing cells.

Each one either scores zero on the question it cheats on (its answer is wrong, or it used
what the exercise forbids) or is flagged for the instructor; most are both. None of them may
stop the batch, touch the grader's files, or raise the score of a wrong answer.
"""
from __future__ import annotations

import copy
import json
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from _answers import key_of
from minitorch_course.exercises import get_exercise
from minitorch_course.grading.grader import AnswerKey, grade_submission
from minitorch_course.grading.sample_class import add_cell, as_submission, load, set_cell, solve
from minitorch_course.grading.sandbox import Limits
from minitorch_course.notebook import dumps, grade_id, nbgrader

ROOT = Path(__file__).resolve().parents[1]
SOLUTIONS = ROOT / "solutions" / "03_strides.ipynb"
LIMITS = Limits(step_seconds=1.5, memory_mb=512)

pytestmark = pytest.mark.timeout(120)

WRONG_Q1 = "def contiguous_strides(shape):\n    return (1,) * len(shape)\n"
ALL = tuple(q.id for q in get_exercise("03_strides").questions)  # every question, however many
VISIBLE_TABLE = None  # filled below: the visible answers, hard-coded by a cheater


EXACT = "every other question full"  # points come from the answer key, never written here


@dataclass
class Cheat:
    name: str
    build: object                 # (exercise_nb, solutions_nb, tmp) -> nb dict or bytes
    zero: tuple = ("q1",)         # questions that must score zero
    flag: str | None = None       # a flag that must be raised (substring)
    note: str | None = None       # a note that must be given (substring)
    status: tuple = ()            # allowed statuses of the zeroed questions (empty: any non-correct)
    score: object = None          # EXACT: the score is exactly full marks on every question not in `zero`
    also: object = None           # extra assertion: (result, tmp) -> None
    meta: dict = field(default_factory=dict)


def _notebook_points():
    """The points of the solutions notebook's test cells, read from its nbgrader metadata."""
    cells = json.loads(SOLUTIONS.read_text(encoding="utf-8"))["cells"]
    return sum(c["metadata"]["nbgrader"]["points"] for c in cells if c["metadata"].get("nbgrader", {}).get("grade"))


def q1(src):
    """A submission with q2 and q3 solved and this source as the q1 cell."""
    def build(ex, sol, tmp):
        return set_cell(solve(ex, sol), "contiguous_strides", src.replace("TMP", str(tmp)))
    return build


def _visible_table():
    ex = get_exercise("03_strides")
    q = ex.question("q1")
    key = key_of("03_strides")
    return {c.args[0]: key.reference(q)(*c.args) for c in key.cases(q)}


def _edit_test_cell(ex, sol, tmp):
    nb = set_cell(solve(ex, sol), "contiguous_strides", WRONG_Q1)
    return set_cell(nb, "test_contiguous_strides", "# the tests were in the way\npass")


def _delete_tests(ex, sol, tmp):
    nb = set_cell(solve(ex, sol), "contiguous_strides", WRONG_Q1)
    nb["cells"] = [c for c in nb["cells"] if not nbgrader(c).get("grade")]
    return nb


def _inflate_points(ex, sol, tmp):
    nb = copy.deepcopy(solve(ex, sol))
    for c in nb["cells"]:
        m = nbgrader(c)
        if m.get("grade"):
            m["points"] = 100
        if grade_id(c) == "contiguous_strides":
            m.update(grade=True, points=50)
    return set_cell(nb, "contiguous_strides", WRONG_Q1)


def _forge_outputs(ex, sol, tmp):
    nb = set_cell(solve(ex, sol), "contiguous_strides", WRONG_Q1)
    for c in nb["cells"]:
        if nbgrader(c).get("grade"):
            c["outputs"] = [{"output_type": "stream", "name": "stdout",
                             "text": "✔ q1: contiguous_strides is correct (30 cases pass)\n"}]
            c["execution_count"] = 7
    return nb


def _exit_cell_first(ex, sol, tmp):
    nb = set_cell(solve(ex, sol), "contiguous_strides", WRONG_Q1)
    return add_cell(nb, "import os\nos._exit(0)", at=2)


def _sys_exit_cell(ex, sol, tmp):
    nb = set_cell(solve(ex, sol), "contiguous_strides", WRONG_Q1)
    return add_cell(nb, "import sys\nsys.exit(0)", at=2)


def _edit_setup(ex, sol, tmp):
    nb = set_cell(solve(ex, sol), "contiguous_strides", WRONG_Q1)
    return set_cell(nb, "setup", "class _Pass:\n    def check(self, *a, **k):\n        print('✔')\n"
                                 "q1 = q2 = q3 = _Pass()")


def _hardcoded(ex, sol, tmp):
    table = repr(_visible_table())
    return set_cell(solve(ex, sol), "contiguous_strides",
                    f"ANSWERS = {table}\ndef contiguous_strides(shape):\n"
                    "    return ANSWERS.get(tuple(shape), (1,) * len(shape))\n")


def _no_written_files(result, tmp):
    assert not (tmp / "pwned.txt").exists()
    assert not list(tmp.glob("*.pwned"))


CHEATS = [
    # ---- editing the checks and the metadata ------------------------------------------------
    Cheat("edit_test_cell", _edit_test_cell, flag="test cell 'test_contiguous_strides' was edited",
          status=("incorrect",), score=EXACT),
    Cheat("delete_test_cells", _delete_tests, flag="was deleted", status=("incorrect",), score=EXACT),
    Cheat("inflate_points", _inflate_points, flag="metadata of 'test_contiguous_strides' changed",
          score=EXACT, also=lambda r, t: (r.max_score == _notebook_points()) or pytest.fail("max score changed")),
    Cheat("edit_setup_cell_fake_checks", _edit_setup, flag="locked cell 'setup' was edited", score=EXACT),
    Cheat("forge_notebook_outputs", _forge_outputs, status=("incorrect",), score=EXACT),
    Cheat("patch_check_methods", q1(WRONG_Q1 + """
q1.check = lambda *a, **k: None
import minitorch_course.check as chk
chk.Question.check = lambda self, *a, **k: None
"""), status=("incorrect",), score=EXACT),
    # ---- patching comparisons, lying objects ------------------------------------------------
    Cheat("always_equal_tuple_subclass", q1("""
class Same(tuple):
    def __eq__(self, other): return True
    def __ne__(self, other): return False
    __hash__ = tuple.__hash__
def contiguous_strides(shape):
    return Same((0,) * len(shape))
"""), status=("incorrect",), score=EXACT,
          also=lambda r, t: "Same" in r.questions[0].reason or pytest.fail(r.questions[0].reason)),
    Cheat("always_equal_object", q1("""
class Liar:
    def __eq__(self, other): return True
    def __repr__(self): return "(12, 4, 1)"
def contiguous_strides(shape):
    return Liar()
"""), status=("incorrect",), score=EXACT),
    Cheat("patch_builtins_and_json", q1(WRONG_Q1 + """
import builtins, json, operator
json.dumps = lambda *a, **k: '{"event": "question", "id": "q1", "results": []}'
operator.eq = lambda a, b: True
builtins.isinstance = lambda *a: True
"""), status=("incorrect", "forbidden"), zero=ALL, score=EXACT),  # code that can rewrite any definition: no question counts
    Cheat("patch_harness_encoder", q1(WRONG_Q1 + """
import __main__
__main__.encode = lambda x, depth=0: {"t": "tuple", "v": [{"t": "int", "v": 1}], "len": 1}
"""), status=("incorrect", "forbidden"), zero=ALL, score=EXACT),  # code that can rewrite any definition: no question counts
    # ---- forging the output -----------------------------------------------------------------
    Cheat("forge_result_lines", q1(WRONG_Q1 + """
import os
fake = '{"event": "question", "id": "q1", "results": [], "violations": []}'
print(fake)
print("\\t" + fake)
for fd in range(1, 64):
    try:
        os.write(fd, ("0" * 32 + "\\t" + fake + "\\n").encode())
    except OSError:
        pass
"""), status=("incorrect", "tampered"), flag="result channel tampering"),
    # ---- exiting early ---------------------------------------------------------------------
    Cheat("sys_exit_in_function", q1("import sys\ndef contiguous_strides(shape):\n    sys.exit(0)\n"),
          status=("incorrect",), score=EXACT),
    Cheat("sys_exit_in_added_cell", _sys_exit_cell, status=("incorrect",), score=EXACT),
    Cheat("os_exit_in_function", q1("import os\ndef contiguous_strides(shape):\n    os._exit(0)\n"),
          status=("exited", "forbidden"), score=EXACT),
    Cheat("os_exit_through_an_alias", q1("import os\nbye = getattr(os, '_exit')\ndef contiguous_strides(shape):\n"
                                        "    bye(0)\n"), status=("exited", "forbidden"), score=EXACT),
    Cheat("os_exit_in_added_cell", _exit_cell_first, status=("incorrect",), score=EXACT),
    Cheat("close_result_channel", q1(WRONG_Q1 + """
import os
for fd in range(3, 256):
    try:
        os.close(fd)
    except OSError:
        pass
"""), score=EXACT),
    # ---- reading what it must not -------------------------------------------------------
    Cheat("read_solutions_notebook", q1(f"""
import json
def contiguous_strides(shape):
    nb = json.load(open({str(SOLUTIONS)!r}))
    src = [''.join(c['source']) for c in nb['cells']
           if c['metadata'].get('nbgrader', {{}}).get('grade_id') == 'contiguous_strides'][0]
    ns = {{}}
    exec(src, ns)
    return ns['contiguous_strides'](shape)
"""), status=("incorrect", "forbidden"), flag="sandbox refused reading", zero=ALL, score=EXACT),  # code that can rewrite any definition: no question counts
    Cheat("read_solutions_silently", q1(f"""
def contiguous_strides(shape):
    try:
        open({str(SOLUTIONS)!r}).read()
    except Exception:
        pass
    return (1,) * len(shape)
"""), status=("incorrect",), flag="sandbox refused reading", score=EXACT),
    Cheat("read_reference_module_file", q1(f"""
def contiguous_strides(shape):
    ns = {{}}
    exec(open({str(ROOT / 'minitorch_course' / 'exercises' / 'strides.py')!r}).read(), ns)
    return ns['contiguous_strides'](shape)
"""), status=("incorrect", "forbidden"), flag="sandbox refused reading", zero=ALL, score=EXACT),  # code that can rewrite any definition: no question counts
    Cheat("read_reference_module_without_exec", q1(f"""
def contiguous_strides(shape):
    text = open({str(ROOT / 'minitorch_course' / 'exercises' / 'strides.py')!r}).read()
    return (len(text),) * len(shape)
"""), status=("incorrect",), flag="sandbox refused reading", score=EXACT),
    Cheat("import_reference_solution", q1("from minitorch_course.exercises.strides import contiguous_strides\n"),
          status=("forbidden",), note="importing minitorch_course.exercises.strides", score=EXACT),
    Cheat("list_other_submissions", q1("""
import os
def contiguous_strides(shape):
    return tuple(len(os.listdir(p)) for p in ('/tmp', '/work', '..'))
"""), status=("incorrect",), flag="sandbox refused listing", score=EXACT),
    # ---- a library instead of their own code ---------------------------------------------
    Cheat("numpy_empty_strides", q1("""
import numpy as np
def contiguous_strides(shape):
    return tuple(int(s) for s in np.empty(shape, dtype=np.int8).strides)
"""), status=("forbidden",), score=EXACT),
    Cheat("numpy_alias_captured_early", q1("""
from numpy import zeros as Z
def contiguous_strides(shape):
    return tuple(int(s) for s in Z(shape, dtype='int8').strides)
"""), status=("forbidden",), score=EXACT),
    Cheat("numpy_ndarray_type", q1("""
import numpy as np
def contiguous_strides(shape):
    return tuple(int(s) for s in np.ndarray(shape, dtype=np.int8).strides)
"""), status=("incorrect", "forbidden"), score=EXACT),
    Cheat("numpy_cumprod_overflow", q1("""
import numpy as np
def contiguous_strides(shape):
    if not shape:
        return ()
    return tuple(int(x) for x in np.cumprod((list(shape[1:]) + [1])[::-1])[::-1])
"""), status=("incorrect", "forbidden"), score=EXACT),
    Cheat("numpy_as_strided_is_contiguous", lambda ex, sol, tmp: set_cell(solve(ex, sol), "is_contiguous", """
import numpy as np
def is_contiguous(shape, strides):
    a = np.lib.stride_tricks.as_strided(np.zeros(1, dtype=np.int8), shape, strides)
    return bool(a.flags.c_contiguous)
"""), zero=("q3",), status=("forbidden", "incorrect"), score=EXACT),
    Cheat("numpy_reload_to_unpatch", q1("""
import importlib, numpy
importlib.reload(numpy)
def contiguous_strides(shape):
    return tuple(int(s) for s in numpy.empty(shape, dtype=numpy.int8).strides)
"""), status=("forbidden", "incorrect", "error"), zero=ALL, score=EXACT),  # code that can rewrite any definition: no question counts
    Cheat("gc_dig_for_originals", q1("""
import gc, numpy
def contiguous_strides(shape):
    for o in gc.get_objects():
        if getattr(o, '__name__', '') == 'empty' and callable(o):
            return tuple(int(s) for s in o(shape, dtype='int8').strides)
    return (1,) * len(shape)
"""), status=("incorrect", "forbidden"), zero=ALL, score=EXACT),  # code that can rewrite any definition: no question counts
    Cheat("minitorch_instead", q1("""
import minitorch
def contiguous_strides(shape):
    return minitorch.zeros(shape).stride()
"""), status=("incorrect", "forbidden"), note="importing minitorch", score=EXACT),
    Cheat("hardcoded_visible_answers", _hardcoded, status=("incorrect",), score=EXACT,
          also=lambda r, t: "hidden" in r.questions[0].reason or "random" in r.questions[0].reason
          or pytest.fail(r.questions[0].reason)),
    # ---- attacking the machine ------------------------------------------------------------
    Cheat("fork_bomb", q1("""
import os
def contiguous_strides(shape):
    while True:
        os.fork()
"""), status=("incorrect",), flag="sandbox refused os.fork", score=EXACT),
    Cheat("subprocess_shell", q1("""
def contiguous_strides(shape):
    import subprocess
    return subprocess.check_output(['cat', '/etc/passwd'])
"""), status=("incorrect", "forbidden"), note="importing subprocess", score=EXACT),
    Cheat("kill_the_grader", q1(WRONG_Q1 + """
import os, signal
for pid in (os.getppid(), 1):
    try:
        os.kill(pid, signal.SIGKILL)
    except Exception:
        pass
"""), status=("incorrect",), flag="sandbox refused os.kill", score=EXACT),
    Cheat("write_outside_sandbox", q1("""
def contiguous_strides(shape):
    for p in ('TMP/pwned.txt', '/tmp/minitorch.pwned', 'TMP/x.pwned'):
        try:
            open(p, 'w').write('pwned')
        except OSError:
            pass
    return (1,) * len(shape)
"""), status=("incorrect",), flag="sandbox refused writing", score=EXACT, also=_no_written_files),
    Cheat("fill_the_disk", q1("""
def contiguous_strides(shape):
    for i in range(10 ** 6):
        try:
            with open(f"junk{i}.bin", "wb") as f:
                f.write(b"x" * 10 ** 7)
        except OSError:
            break
    return (1,) * len(shape)
"""), status=("incorrect",), flag="sandbox refused creating", score=EXACT),
    Cheat("network", q1("""
def contiguous_strides(shape):
    import socket
    socket.create_connection(('127.0.0.1', 22))
"""), status=("incorrect", "forbidden"), note="importing socket", score=EXACT),
    Cheat("swallow_the_alarm", q1("""
def contiguous_strides(shape):
    while True:
        try:
            while True:
                pass
        except BaseException:
            pass
"""), status=("timeout",), score=EXACT),
    Cheat("memory_bomb", q1("""
def contiguous_strides(shape):
    hog = []
    while True:
        hog.append(bytearray(10 ** 8))
"""), status=("incorrect", "timeout", "crashed"), score=EXACT),
    Cheat("segfault", q1("""
import faulthandler
def contiguous_strides(shape):
    faulthandler._sigsegv()
"""), status=("crashed", "forbidden"), score=EXACT),
    Cheat("segfault_in_plain_python", q1("""
import sys
def contiguous_strides(shape):
    sys.setrecursionlimit(10 ** 7)
    def down(n):
        return list(map(down, [n + 1]))
    return down(0)
"""), status=("crashed",), score=EXACT),
    Cheat("flood_stdout", q1("""
def contiguous_strides(shape):
    print('x' * 10 ** 8)
    return (1,) * len(shape)
"""), status=("incorrect", "timeout"), score=EXACT),
]


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    key = AnswerKey(get_exercise("03_strides"), SOLUTIONS, scoring_mode="all")  # a cheat earns nothing
    sol = load(SOLUTIONS)
    ex = as_submission(sol)
    base = tmp_path_factory.mktemp("adversarial")
    jobs = []
    for cheat in CHEATS:
        tmp = base / cheat.name
        tmp.mkdir()
        content = cheat.build(ex, sol, tmp)
        f = tmp / "submission.ipynb"
        f.write_bytes(content if isinstance(content, bytes) else dumps(content).encode())
        jobs.append((cheat, f, tmp))
    protected = [SOLUTIONS.parent, base]
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda j: grade_submission(j[1], key, LIMITS, j[0].name, protected), jobs))
    return {c.name: (r, tmp) for (c, _f, tmp), r in zip(jobs, results)}


@pytest.mark.parametrize("cheat", CHEATS, ids=[c.name for c in CHEATS])
def test_cheat_scores_zero_or_is_flagged(graded, cheat):
    result, tmp = graded[cheat.name]
    by = {q.id: q for q in result.questions}
    summary = json.dumps(result.to_dict(), indent=1, default=str)[:3000]
    assert result.verdict == "graded", summary
    for qid in cheat.zero:
        q = by[qid]
        assert q.points == 0, summary
        assert q.status != "correct", summary
        if cheat.status:
            assert q.status in cheat.status, summary
    if cheat.flag:
        assert any(cheat.flag in f for f in result.flags), summary
    if cheat.note:
        assert any(cheat.note in n for n in result.notes), summary
    if cheat.score is EXACT:
        assert result.score == result.max_score - sum(by[q].max_points for q in cheat.zero), summary
    if cheat.also:
        cheat.also(result, tmp)


def test_every_cheat_was_confined(graded):
    """The OS layers were on for every run (where the kernel has them)."""
    for name, (result, _tmp) in graded.items():
        iso = result.isolation
        assert iso.get("audit_hook"), name
        if graded["edit_test_cell"][0].isolation.get("landlock"):
            assert iso.get("landlock") and iso.get("seccomp"), name
