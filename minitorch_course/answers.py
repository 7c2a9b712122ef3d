"""The instructor's answers: the solution cells of solutions/NN_name.ipynb, run in a namespace
of their own. solutions/ is the single source of every reference answer; nothing of it ships
in the installed package.

Where the solutions are, in this order:

1. `$MINITORCH_SOLUTIONS`, when set: a folder holding NN_name.ipynb, or NN_name/NN_name.ipynb
   (nbgrader's source/ layout), for an instructor whose solutions live outside the checkout;
2. solutions/ of the course checkout this package is in (an editable install, `make lab`).

A learner who installed the course (pip, Colab) has neither: check() then uses the check data
that `make release` stored with the package (checkdata.py), and solution() says that the answers
are not here. Who uses this module: `make release` (to compute that check data), check() for
hidden or extra cases (`q1.check(cases=..., random=N, seed=S)`, as nbgrader's autograde runs
them) and solution(), and the grader, which computes every expected value itself, in its own
process, from the instructor's notebook (never from stored data a student could have seen).
Solution cells are the instructor's code: they run here as they are, trusted.
"""
from __future__ import annotations

import ast
import hashlib
import os
import threading
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace

from .notebook import (NotebookError, cell_source, grade_id, nbgrader, parse_notebook, validate_source_notebook,
                       without_markers)
from .spec import Exercise, decode_plain_copy, expected_outcome

SOLUTIONS_ENV = "MINITORCH_SOLUTIONS"


class AnswerKeyError(ValueError):
    """The instructor's notebook cannot serve as an answer key (the message says why)."""


# ---- where the solutions are ------------------------------------------------------------------
def checkout() -> Path | None:
    """The course checkout this package is in (the folder holding solutions/), or None."""
    root = Path(__file__).resolve().parents[1]
    return root if (root / "solutions").is_dir() else None


def solutions_notebook(name: str) -> Path | None:
    """The instructor's notebook of exercise `name`, or None where there is none."""
    env = os.environ.get(SOLUTIONS_ENV, "").strip()
    if env:
        folder = Path(env).expanduser()
        for path in (folder / f"{name}.ipynb", folder / name / f"{name}.ipynb"):
            if path.is_file():
                return path
        return None
    root = checkout()
    path = root / "solutions" / f"{name}.ipynb" if root else None
    return path if path is not None and path.is_file() else None


def where_they_would_be(name: str) -> str:
    """For messages: where solutions_notebook(name) looked."""
    env = os.environ.get(SOLUTIONS_ENV, "").strip()
    if env:
        return f"${SOLUTIONS_ENV} ({env}) holds no {name}.ipynb"
    return (f"this installation of the course has no solutions/{name}.ipynb (set ${SOLUTIONS_ENV} "
            "to the folder of the instructor's solutions notebooks)")


# ---- running them -----------------------------------------------------------------------------
def _imports_of(source, refused):
    """The top-level import statements of a cell, minus those of refused packages."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    out = []
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            mods = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            if not any(m.split(".")[0] in refused for m in mods):
                out.append(ast.unparse(node))
    return out


@dataclass
class Answers:
    """One exercise's answer key, read from the instructor's notebook and run once."""
    exercise: Exercise
    path: Path
    sha256: str
    notebook: dict
    cells: dict                   # grade_id -> cell
    prelude: str                  # the imports the learner's cells may rely on (from locked cells)
    drivers: list                 # [(grade_id, source)] of the driver cells
    namespace: dict = field(default_factory=dict)

    def reference(self, q):
        """The instructor's function that q calls (the driver, for a class-based question)."""
        fn = self.namespace.get(q.function)
        if not callable(fn):
            raise AnswerKeyError(f"{self.path}: the solution cell {q.solution_cell} does not define {q.function}")
        return fn

    @property
    def ref(self):
        """The instructor's definitions, as attributes (what case generators may use)."""
        return SimpleNamespace(**{k: v for k, v in self.namespace.items() if not k.startswith("__")})

    def source(self, q) -> str:
        """The solution cell of q as the instructor wrote it, without the solution markers."""
        return without_markers(cell_source(self.cells[q.solution_cell])).strip("\n")

    def cases(self, q, explicit=None, n_random=0, seed=None):
        return q.cases(explicit, n_random, seed, ref=self.ref)

    def expected(self, q, cases):
        """The expected outcome of each case (as the checker sees a result: spec.as_plain)."""
        ref = self.reference(q)
        try:
            return [expected_outcome(ref, tuple(decode_plain_copy(a) for a in c.args), q.raises) for c in cases]
        except Exception as e:  # noqa: BLE001 - an answer key that fails is the instructor's to fix
            raise AnswerKeyError(f"the reference {q.function} fails on the checker's inputs: "
                                 f"{type(e).__name__}: {e}") from None


def read(exercise: Exercise, path) -> Answers:
    """The answer key of `exercise` from the notebook at `path`, its cells run. Raises AnswerKeyError."""
    from .release import check_against_spec
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as e:
        raise AnswerKeyError(f"{path}: cannot read it ({e.strerror or e})") from None
    try:
        nb = parse_notebook(data)
    except NotebookError as e:
        raise AnswerKeyError(f"{path}: {e}") from None
    problems = validate_source_notebook(nb) + check_against_spec(nb, exercise.name)
    if problems:
        raise AnswerKeyError(f"{path}:\n  " + "\n  ".join(problems))
    cells = {grade_id(c): c for c in nb["cells"] if grade_id(c)}
    refused = set(exercise.forbidden_imports) | {"minitorch", "minitorch_course"}
    lines = []
    for c in nb["cells"]:
        meta = nbgrader(c)
        if c["cell_type"] == "code" and meta.get("locked") and not meta.get("grade"):
            lines += [ln for ln in _imports_of(cell_source(c), refused) if ln not in lines]
    prelude = "\n".join(f"try:\n    {ln}\nexcept ImportError:\n    pass" for ln in lines)
    drivers = [(g, cell_source(cells[g])) for g in exercise.driver_cells]
    answers = Answers(exercise, path, hashlib.sha256(data).hexdigest(), nb, cells, prelude, drivers)
    ns = answers.namespace
    ns["__name__"] = "__answer_key__"
    try:
        exec(compile(prelude, "<key prelude>", "exec"), ns)  # noqa: S102 - the instructor's code
        for q in exercise.questions:  # the solution cells, then the drivers that call them
            exec(compile(answers.source(q), f"<key {q.solution_cell}>", "exec"), ns)  # noqa: S102
        for g, src in drivers:
            exec(compile(src, f"<key {g}>", "exec"), ns)  # noqa: S102
    except Exception as e:  # noqa: BLE001
        raise AnswerKeyError(f"{path}: the solution cells do not run: {type(e).__name__}: {e}") from None
    for q in exercise.questions:
        answers.reference(q)
    return answers


_CACHE: dict = {}
_LOCK = threading.Lock()


def load(exercise: Exercise, path=None) -> Answers | None:
    """The answer key of `exercise`, from `path` or from where the solutions are (None when
    there are none). Read once per version of the file."""
    path = Path(path) if path is not None else solutions_notebook(exercise.name)
    if path is None:
        return None
    try:
        st = path.stat()
    except OSError:
        return None
    key = (exercise.name, str(path.resolve()), st.st_mtime_ns, st.st_size)
    with _LOCK:
        if key not in _CACHE:
            if len(_CACHE) >= 8:
                _CACHE.pop(next(iter(_CACHE)))
            _CACHE[key] = read(exercise, path)
        return _CACHE[key]


def namespace(name: str, path=None):
    """Exercise `name`'s module names (inputs, tables, case generators) with the instructor's
    definitions over them (reference solutions, drivers), as attributes: for tests and an
    instructor's own scripts, `strides = namespace("03_strides"); strides.contiguous_strides`.
    LookupError where the solutions are not."""
    import sys
    from .exercises import get_exercise
    ex = get_exercise(name)
    key = load(ex, path)
    if key is None:
        raise LookupError(f"no answers for {ex.name}: {where_they_would_be(ex.name)}")
    module = sys.modules[ex.questions[0].random_cases.__module__]
    names = {k: v for k, v in vars(module).items() if not k.startswith("__")}
    names.update(vars(key.ref))
    return SimpleNamespace(**names)
