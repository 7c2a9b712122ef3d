"""A made-up class of submissions, to try the grader (and to measure it) before a real one.

    python -m minitorch_course.grading.sample_class OUT_DIR [--n 60] [--kind correct]
    python -m minitorch_course.grade OUT_DIR --exercise 03_strides --out grades/

The submissions are the solutions notebook with cells edited the way students (and cheaters)
do: correct answers written differently, wrong answers, untouched stubs, crashes, infinite
loops, memory bombs, malformed files, the wrong exercise. Each file name says what it is.
Only for 03_strides; the editing helpers work for any exercise.
"""
from __future__ import annotations

import argparse
import copy
import json
import sys
from pathlib import Path

from ..notebook import cell_source, dumps, grade_id, release


def load(path) -> dict:
    return json.loads(Path(path).read_text(encoding="utf-8"))


def as_submission(solutions_nb, name="03_strides") -> dict:
    """What a student starts from: the released exercise."""
    return release(solutions_nb, name)


def set_cell(nb, gid, source) -> dict:
    """A copy of nb with the cell of this grade_id given a new source."""
    nb = copy.deepcopy(nb)
    for c in nb["cells"]:
        if grade_id(c) == gid:
            c["source"] = source
            return nb
    raise KeyError(gid)


def solve(nb, solutions_nb, *gids) -> dict:
    """Copy the instructor's solution cells (the listed ones, or all) into nb."""
    nb = copy.deepcopy(nb)
    src = {grade_id(c): cell_source(c) for c in solutions_nb["cells"] if grade_id(c)}
    for c in nb["cells"]:
        g = grade_id(c)
        if g in src and (c.get("metadata", {}).get("nbgrader", {}).get("solution")) and (not gids or g in gids):
            c["source"] = src[g]
    return nb


def add_cell(nb, source, at=None) -> dict:
    nb = copy.deepcopy(nb)
    cell = {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": source}
    nb["cells"].insert(len(nb["cells"]) if at is None else at, cell)
    return nb


CS = "contiguous_strides"
FI = "flat_index"
IC = "is_contiguous"

ALT_CORRECT = {
    CS: '''def contiguous_strides(shape):
    out = [1] * len(shape)
    for d in range(len(shape) - 2, -1, -1):
        out[d] = out[d + 1] * shape[d + 1]
    return tuple(out)''',
    FI: '''def flat_index(index, strides, offset=0):
    return offset + sum(i * s for i, s in zip(index, strides))''',
    IC: '''def is_contiguous(shape, strides):
    want = contiguous_strides(shape)
    return all(n == 1 or s == w for n, s, w in zip(shape, strides, want))''',
}


def _kinds(sol):
    """name -> function(exercise_nb) -> notebook dict or raw bytes."""
    def correct(ex):
        return solve(ex, sol)

    def correct_alt(ex):
        nb = ex
        for g, s in ALT_CORRECT.items():
            nb = set_cell(nb, g, s)
        return nb

    def correct_noisy(ex):  # prints and warns: not penalised
        nb = solve(ex, sol)
        return set_cell(nb, CS, '''import warnings
def contiguous_strides(shape):
    print("computing strides for", shape)
    warnings.warn("this is just a warning")
    strides, step = [], 1
    for size in reversed(shape):
        strides.append(step)
        step *= size
    return tuple(reversed(strides))''')

    def wrong(ex):  # a list, and off by one
        nb = solve(ex, sol)
        nb = set_cell(nb, CS, '''def contiguous_strides(shape):
    out, step = [], 1
    for size in reversed(shape):
        out.insert(0, step)
        step *= size
    return out''')
        return set_cell(nb, IC, '''def is_contiguous(shape, strides):
    return tuple(strides) == contiguous_strides(shape)''')

    def partial(ex):
        return solve(ex, sol, CS)

    def untouched(ex):
        return ex

    def crash(ex):  # unbounded recursion past the C stack: the process dies of SIGSEGV
        nb = solve(ex, sol)
        return set_cell(nb, FI, '''import sys
def flat_index(index, strides, offset=0):
    sys.setrecursionlimit(10 ** 7)

    def down(n):  # each call goes through map(), a C function: the C stack runs out
        return list(map(down, [n + 1]))
    return down(0)''')

    def loop(ex):
        nb = solve(ex, sol)
        return set_cell(nb, CS, '''def contiguous_strides(shape):
    while True:
        pass''')

    def stubborn_loop(ex):  # swallows the alarm: the grader's watchdog kills it
        nb = solve(ex, sol)
        return set_cell(nb, IC, '''def is_contiguous(shape, strides):
    while True:
        try:
            while True:
                pass
        except BaseException:
            pass''')

    def memory_bomb(ex):
        nb = solve(ex, sol)
        return set_cell(nb, CS, '''def contiguous_strides(shape):
    hog = []
    while True:
        hog.append(bytearray(50_000_000))''')

    def numpy_cheat(ex):
        nb = solve(ex, sol)
        return set_cell(nb, CS, '''import numpy as np
def contiguous_strides(shape):
    a = np.empty(shape, dtype=np.int8)
    return tuple(int(s) for s in a.strides)''')

    def malformed(ex):
        return dumps(solve(ex, sol))[:1500].encode()

    def wrong_exercise(ex):
        nb = copy.deepcopy(ex)
        nb["cells"] = [c for c in nb["cells"] if grade_id(c) in ("intro",)]
        for c in nb["cells"]:
            c["metadata"] = {}
        nb["metadata"]["minitorch"] = {"exercise": "04_broadcasting"}
        return add_cell(nb, "def broadcast_shapes(a, b):\n    return a")

    return {"correct": correct, "correct_alt": correct_alt, "correct_noisy": correct_noisy,
            "wrong": wrong, "partial": partial, "untouched": untouched, "crash": crash,
            "loop": loop, "stubborn_loop": stubborn_loop, "memory_bomb": memory_bomb,
            "numpy_cheat": numpy_cheat, "malformed": malformed, "wrong_exercise": wrong_exercise}


# which solution cells each kind gets wrong (None: all of them, the file is not graded)
LOSES = {"correct": (), "correct_alt": (), "correct_noisy": (), "wrong": (CS, IC), "partial": (FI, IC),
         "untouched": None, "crash": (FI,), "loop": (CS,), "stubborn_loop": (IC,), "memory_bomb": (CS,),
         "numpy_cheat": (CS,), "malformed": None, "wrong_exercise": None}


def expected_score(kind, key):
    """A kind's score, all or nothing per question, from the answer key's points."""
    lost = LOSES[kind]
    return sum(k.points for k in key.questions if lost is not None and k.spec.solution_cell not in lost)


def make_class(out_dir, solutions_path, n=60, kinds=None):
    """Write n submissions to out_dir, cycling through the kinds. Returns {file name: kind}."""
    sol = load(solutions_path)
    ex = as_submission(sol)
    builders = _kinds(sol)
    names = list(kinds or builders)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    made = {}
    for i in range(n):
        kind = names[i % len(names)]
        content = builders[kind](ex)
        fname = f"student{i:03d}_{kind}.ipynb"
        (out / fname).write_bytes(content if isinstance(content, bytes) else dumps(content).encode())
        made[fname] = kind
    return made


def main(argv=None):
    from ..release import repo_root
    p = argparse.ArgumentParser(prog="python -m minitorch_course.grading.sample_class")
    p.add_argument("out_dir", type=Path)
    p.add_argument("--n", type=int, default=60)
    p.add_argument("--kind", action="append", help="only these kinds (e.g. --kind correct, to measure "
                   "throughput); default: all of them, in turn")
    p.add_argument("--solutions", type=Path, default=repo_root() / "solutions" / "03_strides.ipynb")
    a = p.parse_args(argv)
    made = make_class(a.out_dir, a.solutions, a.n, kinds=a.kind)
    print(f"wrote {len(made)} submissions to {a.out_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
