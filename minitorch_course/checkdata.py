"""What a learner's check() compares with: the visible cases and their expected values, as
plain data, computed by `make release` from the instructor's solutions.

    minitorch_course/checks/03_strides.json      (package data: installed with the course)

Each question's visible cases (the fixed ones and the seeded random ones) are stored with the
expected outcome of each, encoded as the sandbox encodes a result (grading/harness.encode):
tagged JSON that says what a value is (a tuple or a list, an int or a float, a tensor's dtype,
shape and values) and holds no code. Hidden cases are never stored here: they stay in the
instructor's solutions notebook (answers.py), which the grader reads. These files are
generated, never edited: tests/test_release_sync.py fails when one differs from what
`python -m minitorch_course.release` computes from solutions/.
"""
from __future__ import annotations

import json
import math
import threading
from pathlib import Path

from .grading.harness import decode_plain, encode, encode_args
from .spec import Array, Case, Foreign, Raised, decode

CHECKS_DIR = Path(__file__).resolve().parent / "checks"
FORMAT = 1


class CheckDataError(ValueError):
    """A value the check data cannot hold, or a file that is not check data."""


# ---- writing (make release) -------------------------------------------------------------------
def encode_outcome(v):
    """An expected outcome (as spec.expected_outcome gives it) as tagged plain data."""
    if isinstance(v, Raised):
        return {"t": "raised", "error": {"type": v.type, "message": v.message}}
    if isinstance(v, Array):
        out = {"t": "array", "kind": v.kind, "dtype": v.dtype, "shape": list(v.shape)}
        if v.values is not None:
            out["flat"] = list(_flat(v.values)) if v.shape else [v.values]
        return out
    if isinstance(v, Foreign):
        if v.type.startswith("numpy.") and type(v.value) in (bool, int, float):
            return {"t": "np", "type": v.type, "v": encode(v.value)}
        if v.type.startswith("<") or v.type in ("nested value", "value", "str", "int", "list", "tuple", "dict"):
            raise CheckDataError(f"a reference result that cannot be stored: {v}")
        return {"t": "obj", "type": v.type, "repr": v.repr}
    if type(v) in (tuple, list):
        return {"t": type(v).__name__, "v": [encode_outcome(x) for x in v], "len": len(v)}
    if type(v) is dict:
        return {"t": "dict", "v": [[encode_outcome(k), encode_outcome(x)] for k, x in v.items()], "len": len(v)}
    return encode(v)


def _flat(values):
    if isinstance(values, list):
        for x in values:
            yield from _flat(x)
    else:
        yield values


def build(answers) -> dict:
    """The check data of one exercise, from its answer key (answers.Answers)."""
    ex = answers.exercise
    questions = {}
    for q in ex.questions:
        cases = answers.cases(q)
        expected = answers.expected(q, cases)
        rows = []
        for c, e in zip(cases, expected):
            enc = encode_outcome(e)
            if decode(json.loads(json.dumps(enc))) != e:  # what check() will read is what was computed
                raise CheckDataError(f"{ex.name} {q.id}: the expected value of {q.call_text(c.args)} "
                                     "does not survive being stored")
            rows.append([encode_args(c.args), enc])
        questions[q.id] = {"function": q.function, "cases": rows}
    return {"format": FORMAT, "exercise": ex.name,
            "generated": f"from solutions/{ex.notebook} by `python -m minitorch_course.release`; "
                         "do not edit by hand",
            "questions": questions}


def dumps(data: dict) -> str:
    """Deterministic JSON, one case per line (so that a change reads well in a diff)."""
    head = {k: v for k, v in data.items() if k != "questions"}
    lines = ["{" + json.dumps(head, sort_keys=True, ensure_ascii=False)[1:-1] + ', "questions": {']
    qids = list(data["questions"])
    for i, qid in enumerate(qids):
        q = data["questions"][qid]
        lines.append(f' {json.dumps(qid)}: {{"function": {json.dumps(q["function"])}, "cases": [')
        rows = [f"  {json.dumps(r, ensure_ascii=False, separators=(',', ':'))}" for r in q["cases"]]
        lines.append(",\n".join(rows))
        lines.append(" ]}" + ("," if i < len(qids) - 1 else ""))
    lines.append("}}")
    return "\n".join(lines) + "\n"


def same(a, b, rel_tol=1e-6, abs_tol=1e-9) -> bool:
    """Do two check data (parsed JSON) say the same? Exactly, but for floats, which may differ in
    their last bits between machines (another BLAS, another libm: exp, log and matmul results of
    float32 computations), and are compared within a tolerance far tighter than any check's."""
    if type(a) is float or type(b) is float:
        return type(a) in (float, int) and type(b) in (float, int) and not isinstance(a, bool) and not isinstance(
            b, bool) and (a == b or math.isclose(a, b, rel_tol=rel_tol, abs_tol=abs_tol)
                          or (math.isnan(a) and math.isnan(b)))
    if type(a) is not type(b):
        return False
    if type(a) is list:
        return len(a) == len(b) and all(same(x, y, rel_tol, abs_tol) for x, y in zip(a, b))
    if type(a) is dict:
        return a.keys() == b.keys() and all(same(a[k], b[k], rel_tol, abs_tol) for k in a)
    return a == b


def path_of(name: str, folder=None) -> Path:
    return Path(folder or CHECKS_DIR) / f"{name}.json"


# ---- reading (check()) --------------------------------------------------------------------------
_CACHE: dict = {}
_LOCK = threading.Lock()


def load(name: str, folder=None) -> dict | None:
    """The stored check data of exercise `name` (None when there is none)."""
    path = path_of(name, folder)
    try:
        st = path.stat()
    except OSError:
        return None
    key = (str(path), st.st_mtime_ns, st.st_size)
    with _LOCK:
        if key not in _CACHE:
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError) as e:
                raise CheckDataError(f"{path} is not check data ({e})") from None
            if not isinstance(data, dict) or data.get("format") != FORMAT or data.get("exercise") != name:
                raise CheckDataError(f"{path} is not check data of {name} (format {FORMAT})")
            _CACHE[key] = data
        return _CACHE[key]


def visible(exercise, q, folder=None):
    """(cases, expected outcomes) of q's visible cases, from the stored data; None when the
    data has no such question (an exercise changed after its last release)."""
    data = load(exercise.name, folder)
    entry = (data or {}).get("questions", {}).get(q.id)
    if not isinstance(entry, dict) or entry.get("function") != q.function:
        return None
    cases = [Case(tuple(decode_plain(a) for a in args), "visible") for args, _ in entry["cases"]]
    return cases, [decode(e) for _, e in entry["cases"]]
