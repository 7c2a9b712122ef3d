"""The exercises of lessons 01, 02, 11, 17 and 18: their references agree with minitorch, and
17_vectorise's rule (no Python loops) is enforced the same way in check() and in the grader."""
from __future__ import annotations

import contextlib
import operator
import random
from pathlib import Path

import numpy as np
import pytest

import minitorch
from minitorch_course import load_exercise
from _answers import answers_of
from minitorch_course.exercises import all_exercises
from minitorch_course.grading.grader import AnswerKey, grade_submission
from minitorch_course.grading.sample_class import add_cell, as_submission, load, set_cell, solve
from minitorch_course.grading.sandbox import Limits
from minitorch_course.notebook import dumps
from minitorch_course.spec import Raised, expected_outcome, function_defs, python_loops

ROOT = Path(__file__).resolve().parents[1]
diagnose, dtype_rules = answers_of("18_diagnose"), answers_of("02_dtype_rules")
grad_mechanics, tensor_shapes = answers_of("11_grad_mechanics"), answers_of("01_tensor_shapes")
LIMITS = Limits(step_seconds=3.0, memory_mb=768)

pytestmark = pytest.mark.timeout(180)


@pytest.fixture(autouse=True)
def progress_file(tmp_path, monkeypatch):
    monkeypatch.setenv("MINITORCH_PROGRESS", str(tmp_path / "progress.json"))


def _all_cases(ex_name, qid, n=300):
    q = next(q for q in all_exercises()[ex_name].questions if q.id == qid)
    return q, q.cases() + q.cases([], n, "test")


# ---- 01_tensor_shapes ------------------------------------------------------------------------------
def test_shape_of_agrees_with_minitorch():
    q, cases = _all_cases("01_tensor_shapes", "q1")
    errors = 0
    for c in cases:
        want = expected_outcome(tensor_shapes.shape_of, c.args, q.raises)
        try:
            got = tuple(minitorch.tensor(c.args[0]).shape)
        except ValueError as e:
            got = Raised("ValueError", str(e).removeprefix("tensor(): "))
        if isinstance(want, Raised):
            errors += 1
            assert isinstance(got, Raised), c.args  # minitorch refuses it too
            if want.message.startswith("expected sequence") and " at dim 1 " in want.message:  # ragged rows of a matrix as PyTorch does
                assert got == want, c.args
        else:
            assert got == want, c.args
    assert errors > 30


def test_from_flat_agrees_with_minitorch_reshape():
    q, cases = _all_cases("01_tensor_shapes", "q2")
    for c in cases:
        values, shape = c.args
        want = expected_outcome(tensor_shapes.from_flat, c.args, q.raises)
        try:
            got = minitorch.tensor(values).reshape(shape).tolist()
        except (ValueError, RuntimeError) as e:
            got = Raised("ValueError", str(e))
        assert got == want, c.args


# ---- 02_dtype_rules ------------------------------------------------------------------------------
def test_dtype_rules_agree_with_minitorch():
    _, cases = _all_cases("02_dtype_rules", "q1")
    for c in cases:
        assert str(minitorch.tensor(c.args[0]).dtype) == "minitorch." + dtype_rules.infer_dtype(*c.args), c.args
    ops = {"+": operator.add, "*": operator.mul, "/": operator.truediv}
    _, cases = _all_cases("02_dtype_rules", "q2")
    for name, scalar, op in [c.args for c in cases]:
        got = ops[op](minitorch.ones(2, dtype=getattr(minitorch, name)), scalar).dtype
        assert str(got) == "minitorch." + dtype_rules.scalar_op_dtype(name, scalar, op), (name, scalar, op)


# ---- 11_grad_mechanics -----------------------------------------------------------------------------
def _run_modes(program):
    tensors, stack = {}, []
    for op, *args in program:
        if op == "leaf":
            tensors[args[0]] = minitorch.ones(2, requires_grad=args[1])
        elif op == "op":
            tensors[args[0]] = sum((tensors[i] for i in args[1][1:]), tensors[args[1][0]] * 1)
        elif op == "detach":
            tensors[args[0]] = tensors[args[1]].detach()
        elif op == "end":
            stack.pop().__exit__(None, None, None)
        else:
            cm = {"no_grad": minitorch.no_grad, "enable_grad": minitorch.enable_grad,
                  "set_grad_enabled": minitorch.set_grad_enabled}[op](*args)
            cm.__enter__()
            stack.append(cm)
    return {name: t.requires_grad for name, t in tensors.items()}


def _run_events(events):
    sizes = {leaf: len(g) for op, *args in events if op == "forward" for leaf, g in args[1].items()}
    leaves = {leaf: minitorch.zeros(n, requires_grad=True) for leaf, n in sizes.items()}
    graphs, errors = {}, []
    for i, (op, *args) in enumerate(events):
        if op == "forward":
            graphs[args[0]] = sum((leaves[leaf] * minitorch.tensor(g)).sum() for leaf, g in args[1].items())
        elif op == "backward":
            try:
                graphs[args[0]].backward(retain_graph=args[1])
            except RuntimeError as e:
                assert "second time" in str(e)
                errors.append(i)
        elif op == "zero_grad":
            for t in leaves.values():
                t.grad = None
        elif op == "hook" and args[0] in leaves:
            leaves[args[0]].register_hook(lambda g, s=args[1]: g * s)
    return {leaf: None if t.grad is None else t.grad.tolist() for leaf, t in leaves.items()}, errors


def test_grad_mechanics_agree_with_minitorch():
    assert minitorch.is_grad_enabled()
    _, cases = _all_cases("11_grad_mechanics", "q1")
    for c in cases:
        assert grad_mechanics.requires_grad_after(*c.args) == _run_modes(*c.args), c.args
    assert minitorch.is_grad_enabled()
    _, cases = _all_cases("11_grad_mechanics", "q2")
    raised = 0
    for c in cases:
        want = grad_mechanics.grads_after(*c.args)
        assert want == _run_events(*c.args), c.args
        raised += bool(want[1])
    assert raised > 10


# ---- 18_diagnose ----------------------------------------------------------------------------------
def test_diagnose_classifies_every_message_minitorch_gives():
    rng = random.Random(5)
    seen = set()
    for _ in range(10):
        for category, fn in diagnose._errors(rng):
            assert diagnose.diagnose(diagnose._message(fn)) == category
            seen.add(category)
    assert seen == set(diagnose.CATEGORIES)


def test_fix_matmul_agrees_with_minitorch():
    _, cases = _all_cases("18_diagnose", "q2")
    for sa, sb in [c.args for c in cases]:
        a, b = minitorch.ones(sa), minitorch.ones(sb)
        works = {}
        for name, (x, y) in {"fits": (a, b), "b": (a, b.T), "a": (a.T, b), "both": (a.T, b.T)}.items():
            try:
                x @ y
                works[name] = True
            except RuntimeError:
                works[name] = False
        fix = diagnose.fix_matmul(sa, sb)
        assert (fix == "none") == (not any(works.values())) and (fix == "none" or works[fix]), (sa, sb)


# ---- 17_vectorise: no Python loops -------------------------------------------------------------------
LOOPED = '''def pairwise_sq_dists(X, Y):
    X, Y = np.asarray(X, dtype=np.float64), np.asarray(Y, dtype=np.float64)
    D = np.zeros((len(X), len(Y)))
    for i in range(len(X)):
        D[i] = ((X[i] - Y) ** 2).sum(axis=1)
    return D'''

HELPER = '''def _row(x, Y):
    return [float(((x - Y[j]) ** 2).sum()) for j in range(len(Y))]


def pairwise_sq_dists(X, Y):
    X, Y = np.asarray(X, dtype=np.float64), np.asarray(Y, dtype=np.float64)
    return np.array(list(map(lambda x: _row(x, Y), X))).reshape(len(X), len(Y))'''

VECTORIZE = '''def pairwise_sq_dists(X, Y):
    X, Y = np.asarray(X, dtype=np.float64), np.asarray(Y, dtype=np.float64)
    f = np.vectorize(lambda i, j: ((X[i] - Y[j]) ** 2).sum())
    return f(*np.indices((len(X), len(Y)))).astype(np.float64)'''


def test_python_loops_finds_loops_in_helpers_and_recursion():
    defs = function_defs([HELPER, "%timeit 1\nx = 1"])
    assert python_loops(defs, "pairwise_sq_dists") == ["a list comprehension in _row() (its line 2)"]
    defs = function_defs(["def f(n):\n    return f(n - 1) if n else 0", "def g():\n    while True:\n        pass"])
    assert python_loops(defs, "f") == ["recursion: f() calls itself"]
    assert python_loops(defs, "g") == ["a while loop in g() (its line 2)"]
    assert python_loops(defs, "missing") == []
    defs = function_defs(["f = lambda xs: sum(x * x for x in xs)"])
    assert python_loops(defs, "f") == ["a generator expression in f() (its line 1)"]


LAMBDA = """pairwise_sq_dists = lambda X, Y: np.array([[sum((a - b) ** 2 for a, b in zip(x, y)) for y in Y] for x in X], dtype=np.float64).reshape(len(X), len(Y))"""


def test_vectorise_check_refuses_loops_in_the_notebook(tmp_path):
    q1 = load_exercise("17_vectorise")[0]
    for i, src in enumerate((LOOPED, HELPER, LAMBDA)):
        cell = tmp_path / f"cell{i}.py"  # as IPython does, so that inspect finds the source
        cell.write_text(src)
        ns = {"np": np, "__name__": "__main__"}
        exec(compile(src, str(cell), "exec"), ns)  # noqa: S102 - our own test code
        r = q1.evaluate(ns["pairwise_sq_dists"])
        assert r.status == "incorrect" and "loops in Python" in r.message, r


def _grade_17(tmp_path, source):
    ex = all_exercises()["17_vectorise"]
    sol_path = ROOT / "solutions" / ex.notebook
    sol = load(sol_path)
    nb = set_cell(solve(as_submission(sol, ex.name), sol), "pairwise_sq_dists", source)
    p = tmp_path / "s.ipynb"
    p.write_text(dumps(nb), encoding="utf-8")
    return {x.id: x for x in grade_submission(p, AnswerKey(ex, sol_path), LIMITS).questions}


def test_vectorise_grader_refuses_loops_and_loop_helpers(tmp_path):
    for src in (LOOPED, HELPER, VECTORIZE, LAMBDA):
        q = _grade_17(tmp_path, src)
        assert q["q1"].status == "forbidden" and q["q1"].points == 0, (src, q["q1"])
        assert q["q2"].status == q["q3"].status == "correct"
    assert "loops in Python" in _grade_17(tmp_path, LOOPED)["q1"].reason


def test_vectorise_grader_accepts_another_vectorised_answer(tmp_path):
    other = '''def pairwise_sq_dists(X, Y):
    X, Y = np.asarray(X, dtype=np.float64), np.asarray(Y, dtype=np.float64)
    return (X ** 2).sum(1)[:, None] - 2 * X @ Y.T + (Y ** 2).sum(1)[None, :]'''
    assert _grade_17(tmp_path, other)["q1"].status == "correct"


def test_a_loop_in_an_unrelated_cell_is_allowed(tmp_path):
    ex = all_exercises()["17_vectorise"]
    sol_path = ROOT / "solutions" / ex.notebook
    sol = load(sol_path)
    nb = add_cell(solve(as_submission(sol, ex.name), sol), "for i in range(3):\n    print(i)\n")
    p = tmp_path / "s.ipynb"
    p.write_text(dumps(nb), encoding="utf-8")
    r = grade_submission(p, AnswerKey(ex, sol_path), LIMITS)
    assert all(q.status == "correct" for q in r.questions), r.questions
