"""The autograd and training exercises (09 topological sort, 10 backward formulas, 12 gradient
tape, 13 optimizer steps): check() says not attempted / incorrect (with input, expected and actual) / correct;
common mistakes are caught while rounding differences are not; the answer keys agree with
minitorch itself; the grader gives partial credit; the notebooks run.

The generic guarantees (each solution scores full marks, each untouched exercise zero, the
release is in sync) are parametrized over every exercise in tests/test_grading.py and
tests/test_release_sync.py.
"""
from __future__ import annotations

import itertools
import math
import random
from pathlib import Path

import numpy as np
import pytest

import _notebook_exec as nbx

import minitorch
from minitorch_course import CheckFailed, load_exercise
from _answers import answers_of, key_of
from minitorch_course.exercises import get_exercise
from minitorch_course.exercises._approx import approx
from minitorch_course.grading.grader import AnswerKey, grade_submission
from minitorch_course.grading.sample_class import as_submission, load, set_cell, solve
from minitorch_course.grading.sandbox import Limits
from minitorch_course.notebook import dumps

ROOT = Path(__file__).resolve().parents[1]
bf, tape = answers_of("10_backward_formulas"), answers_of("12_gradient_tape")
opt, topo = answers_of("13_optimizer_steps"), answers_of("09_topological_sort")
NAMES = ["09_topological_sort", "10_backward_formulas", "12_gradient_tape", "13_optimizer_steps"]

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(autouse=True)
def progress_file(tmp_path, monkeypatch):
    monkeypatch.setenv("MINITORCH_PROGRESS", str(tmp_path / "progress.json"))


def _not_written(*args, **kwargs):
    raise NotImplementedError("Replace this line with your code, then run the test cell below.")


# ---- the three outcomes, with what a learner needs to see ------------------------------------
# (exercise, question index, a wrong function, words the first failure must show: the call,
#  what it returned and what was expected)
WRONG = [
    ("09_topological_sort", 0, lambda graph: sorted(graph),
     ["topo_order({'y': ['a', 'b'], 'a': [], 'b': []})", "returned ['a', 'b', 'y']",
      "expected ['y', 'a', 'b']"]),
    ("09_topological_sort", 1, lambda nodes, output: {n: 1.0 for n in nodes if nodes[n][0] == "leaf"},
     ["backprop_scalar({'x': ('leaf', 3.0), 'y': ('mul', 'x', 'x')}, 'y')", "returned {'x': 1.0}",
      "expected {'x': 6.0}"]),
    ("10_backward_formulas", 0, lambda op, inputs, grad: tuple(grad for _ in inputs),
     ["local_backward('mul', (2.0, 3.0), 1.0)", "returned (1.0, 1.0)", "expected (3.0, 2.0)"]),
    ("10_backward_formulas", 1, lambda grad, shape: grad,
     ["unbroadcast([[1.0, 2.0], [3.0, 4.0]], (2,))", "returned [[1.0, 2.0], [3.0, 4.0]]",
      "expected [4.0, 6.0]"]),
    ("10_backward_formulas", 3, lambda a, b, grad: (grad, grad),
     ["matmul_backward([[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0], [7.0, 8.0]], [[1.0, 0.0], [0.0, 1.0]])",
      "returned ([[1.0, 0.0], [0.0, 1.0]], [[1.0, 0.0], [0.0, 1.0]])", "expected ([[5.0, 7.0], [6.0, 8.0]], "]),
    ("10_backward_formulas", 4, lambda op, args, shape, grad: grad,
     ["view_backward('view', ((3, 2),), (2, 3), [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])",
      "returned [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]", "expected [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]"]),
    ("12_gradient_tape", 0, lambda program, watched: list(program),
     ["record([('mul', ('x', 'y'), 't')], [])", "returned [('mul', ('x', 'y'), 't')]", "expected []"]),
    ("12_gradient_tape", 1, lambda t, values, target, sources: [0.0 for _ in sources],
     ["tape_gradient([('mul', ('x', 'y'), 't')], {'x': 2.0, 'y': 3.0, 't': 6.0}, 't', ['x'])",
      "returned [0.0]", "expected [3.0]"]),
    ("13_optimizer_steps", 0, lambda params, grads, state, lr, momentum=0.0, weight_decay=0.0:
        (params, state),
     ["sgd_step([1.0], [0.5], None, 0.1)", "returned ([1.0], None)", "expected ([0.95], None)"]),
    ("13_optimizer_steps", 1, lambda params, grads, state, *a, **k: (params, state),
     ["adam_step([1.0], [0.5], None)", "returned ([1.0], None)", "expected ([0.999], "]),
]


@pytest.mark.parametrize("name", NAMES)
def test_not_attempted_then_correct(name):
    ex = get_exercise(name)
    for q in load_exercise(name):
        r = q.evaluate(_not_written)
        assert r.status == "not_attempted" and "is not written yet" in r.message, r.lines()
        r = q.evaluate(key_of(name).reference(q.spec))
        assert r.status == "correct" and r.passed == r.total >= 25, r.lines()
        assert q.spec.function in r.message
    assert len(ex.questions) in (2, 3, 5)


@pytest.mark.parametrize("name, i, fn, words", WRONG, ids=[f"{w[0]}-q{w[1] + 1}" for w in WRONG])
def test_incorrect_shows_input_expected_and_actual(name, i, fn, words):
    q = load_exercise(name)[i]
    r = q.evaluate(fn)
    assert r.status == "incorrect" and "not right yet" in r.message
    for w in words:
        assert w in r.details[0], (w, r.details)
    with pytest.raises(CheckFailed):
        q.check(fn=fn)


def test_check_finds_the_function_by_name(capsys):
    q1 = load_exercise("13_optimizer_steps")[0]
    globals()["sgd_step"] = opt.sgd_step
    try:
        assert q1.check() is None
        assert "✔ q1: sgd_step is correct" in capsys.readouterr().out
    finally:
        globals().pop("sgd_step")


# ---- mistakes that must fail, rounding that must not --------------------------------------------
def _topo_dfs(graph):
    """A correct topological order, but not the one with the smallest names first."""
    seen, post = set(), []

    def visit(n):
        if n not in seen:
            seen.add(n)
            for p in graph[n]:
                visit(p)
            post.append(n)
    for n in graph:
        visit(n)
    return post[::-1]


def _backprop_assign(nodes, output):
    """Uses = instead of +=: wrong as soon as a node is used twice."""
    def value(n):
        op, *a = nodes[n]
        return a[0] if op == "leaf" else (value(a[0]) + value(a[1]) if op == "add" else
                                          value(a[0]) * value(a[1]) if op == "mul" else math.exp(value(a[0])))
    grads = {n: 0.0 for n in nodes}
    grads[output] = 1.0
    graph = {n: list(v[1:]) if v[0] != "leaf" else [] for n, v in nodes.items()}
    for n in topo.topo_order(graph):
        op, *a = nodes[n]
        if op == "add":
            grads[a[0]] = grads[n]
            grads[a[1]] = grads[n]
        elif op == "mul":
            grads[a[0]] = grads[n] * value(a[1])
            grads[a[1]] = grads[n] * value(a[0])
        elif op == "exp":
            grads[a[0]] = grads[n] * value(n)
    return {n: grads[n] for n in nodes if nodes[n][0] == "leaf"}


def _backprop_pull(nodes, output):
    """Right, but pulls each gradient from its consumers (memoised recursion) instead of
    pushing it to the inputs: the same sums, added up in another order."""
    def value(n):
        op, *a = nodes[n]
        return a[0] if op == "leaf" else (value(a[0]) + value(a[1]) if op == "add" else
                                          value(a[0]) * value(a[1]) if op == "mul" else math.exp(value(a[0])))
    consumers = {n: [] for n in nodes}
    for n, (op, *a) in nodes.items():
        if op != "leaf":
            for k, x in enumerate(a):
                consumers[x].append((n, k))
    memo = {}

    def grad(n):
        if n not in memo:
            total = 1.0 if n == output else 0.0
            for c, k in reversed(consumers[n]):
                op, *a = nodes[c]
                local = (1.0 if op == "add" else value(a[1 - k]) if op == "mul" else value(c))
                total = local * grad(c) + total
            memo[n] = total
        return memo[n]
    return {n: grad(n) for n in nodes if nodes[n][0] == "leaf"}


def _sigmoid_wrong(op, inputs, grad):
    if op == "sigmoid":
        s = 1 / (1 + math.exp(-inputs[0]))
        return (grad * s,)  # forgot (1 - s)
    return bf.local_backward(op, inputs, grad)


def _unbroadcast_leading_only(grad, shape):
    """Sums the leading dims but forgets the size-1 ones."""
    while isinstance(grad, list) and _ndim(grad) > len(shape):
        grad = _add_all(grad)
    return grad


def _ndim(g):
    return 1 + _ndim(g[0]) if isinstance(g, list) else 0


def _add_all(rows):
    out = rows[0]
    for r in rows[1:]:
        out = _add(out, r)
    return out


def _add(a, b):
    return [_add(x, y) for x, y in zip(a, b)] if isinstance(a, list) else a + b


def _record_direct_only(program, watched):
    """Keeps only ops on watched names, forgetting that their outputs are tracked too."""
    return [r for r in program if any(n in watched for n in r[1])]


def _tape_zero_not_none(t, values, target, sources):
    """0.0 where the answer is None: a source the target does not depend on."""
    return [0.0 if g is None else g for g in tape.tape_gradient(t, values, target, sources)]


def _sgd_decay_outside_momentum(params, grads, state, lr, momentum=0.0, weight_decay=0.0):
    """Adds weight decay after the momentum buffer instead of before it."""
    buf = [g if state is None else momentum * b + g for b, g in zip(state or grads, grads)]
    new = [p - lr * ((b if momentum else g) + weight_decay * p) for p, b, g in zip(params, buf, grads)]
    return new, (buf if momentum else None)


def _adam(params, grads, state, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0,
          correct=True, eps_inside=False, torch_style=False):
    b1, b2 = betas
    state = state or {"step": 0, "exp_avg": [0.0] * len(params), "exp_avg_sq": [0.0] * len(params)}
    t = state["step"] + 1
    ps, ms, vs = [], [], []
    for p, g, m, v in zip(params, grads, state["exp_avg"], state["exp_avg_sq"]):
        g = g + weight_decay * p
        if torch_style:  # PyTorch's own arithmetic: a lerp, and sqrt(v) / sqrt(1 - b2**t)
            m = m + (g - m) * (1 - b1)
            v = v * b2 + g * g * (1 - b2)
            denom = math.sqrt(v) / math.sqrt(1 - b2 ** t) + eps
            p = p - (lr / (1 - b1 ** t)) * (m / denom)
        else:
            m = b1 * m + (1 - b1) * g
            v = b2 * v + (1 - b2) * g * g
            mh, vh = (m / (1 - b1 ** t), v / (1 - b2 ** t)) if correct else (m, v)
            p = p - lr * mh / (math.sqrt(vh + eps) if eps_inside else math.sqrt(vh) + eps)
        ps.append(p)
        ms.append(m)
        vs.append(v)
    return ps, {"step": t, "exp_avg": ms, "exp_avg_sq": vs}


def _matmul_grad_b_untransposed(a, b, grad):
    grad_a, grad_b = bf.matmul_backward(a, b, grad)
    return grad_a, [list(col) for col in zip(*grad_b)]  # b's gradient, transposed (m x k)


def _view_backward_permute_not_inverted(op, args, shape, grad):
    if op != "permute":
        return bf.view_backward(op, args, shape, grad)
    dims = args[0]
    inverse = tuple(sorted(range(len(dims)), key=lambda d: dims[d]))
    return bf.view_backward(op, (inverse,), shape, grad)  # the permutation's inverse, where dims was right


def _view_backward_expand_leading_only(op, args, shape, grad):
    if op != "expand":
        return bf.view_backward(op, args, shape, grad)

    def add(x, y):
        return [add(p, q) for p, q in zip(x, y)] if isinstance(x, list) else x + y

    def sum_leading(g, depth):
        if depth == 0:
            return g
        total = sum_leading(g[0], depth - 1)
        for row in g[1:]:
            total = add(total, sum_leading(row, depth - 1))
        return total

    def first_of_size_one(g, shp):  # a stretched size-1 dim: keeps its first element, not the sum
        if not shp:
            return g
        return [first_of_size_one(row, shp[1:]) for row in (g[:1] if shp[0] == 1 else g)]

    return first_of_size_one(sum_leading(grad, len(args[0]) - len(shape)), shape)


@pytest.mark.parametrize("name, i, fn", [
    ("09_topological_sort", 0, _topo_dfs),
    ("09_topological_sort", 1, _backprop_assign),
    ("10_backward_formulas", 0, _sigmoid_wrong),
    ("10_backward_formulas", 1, _unbroadcast_leading_only),
    ("10_backward_formulas", 3, _matmul_grad_b_untransposed),
    ("10_backward_formulas", 4, _view_backward_permute_not_inverted),
    ("10_backward_formulas", 4, _view_backward_expand_leading_only),
    ("12_gradient_tape", 0, _record_direct_only),
    ("12_gradient_tape", 1, _tape_zero_not_none),
    ("13_optimizer_steps", 0, _sgd_decay_outside_momentum),
    ("13_optimizer_steps", 1, lambda *a, **k: _adam(*a, **k, correct=False)),
    ("13_optimizer_steps", 1, lambda *a, **k: _adam(*a, **k, eps_inside=True)),
], ids=["dfs-order", "assign-not-accumulate", "sigmoid-missing-1-s", "unbroadcast-size-1",
    "matmul-grad-b-untransposed", "view-permute-not-inverted", "view-expand-leading-only",
        "record-watched-inputs-only", "tape-0-for-unconnected", "sgd-decay-outside-momentum", "adam-no-bias-correction", "adam-eps-inside-sqrt"])
def test_common_mistakes_are_caught(name, i, fn):
    assert load_exercise(name)[i].evaluate(fn).status == "incorrect"


@pytest.mark.parametrize("name, i, fn", [
    ("13_optimizer_steps", 1, lambda *a, **k: _adam(*a, **k, torch_style=True)),
    ("10_backward_formulas", 0, lambda op, inputs, grad: (
        (grad / math.cosh(inputs[0]) ** 2,) if op == "tanh" else
        (grad * math.exp(-inputs[0]) / (1 + math.exp(-inputs[0])) ** 2,) if op == "sigmoid" else
        (grad / inputs[1], grad * (-inputs[0] / inputs[1]) / inputs[1]) if op == "div" else
        bf.local_backward(op, inputs, grad))),
    ("09_topological_sort", 1, _backprop_pull),
], ids=["adam-pytorch-arithmetic", "other-derivative-forms", "backprop-reordered"])
def test_equivalent_formulas_pass(name, i, fn):
    r = load_exercise(name)[i].evaluate(fn)
    r2 = load_exercise(name)[i].evaluate(fn, random=300, seed=7)
    assert r.status == r2.status == "correct", (r.lines(), r2.lines())


def test_numpy_is_caught():
    q1 = load_exercise("10_backward_formulas")[0]
    r = q1.evaluate(lambda op, inputs, grad: (float(grad * (1 - np.tanh(inputs[0]) ** 2)),)
                    if op == "tanh" else bf.local_backward(op, inputs, grad))
    assert r.status == "incorrect" and "numpy.tanh" in r.message


def test_approx_messages():
    c = approx(1e-9, 1e-12)
    assert c([1.0, 2.0], [1.0, 2.0 + 1e-14]) is None
    assert "[1] is 2.1, expected 2.0" in c([1.0, 2.0], [1.0, 2.1])
    assert "no key 'b'" in c({"a": 1.0, "b": 2.0}, {"a": 1.0})
    assert "a key 'z'" in c({"a": 1.0}, {"a": 1.0, "z": 0.0})
    assert "an int" in c(([1.0], None), ([1], None))
    assert "a list, expected None" in c(([1.0], None), ([1.0], []))
    assert c({"step": 1}, {"step": 1.0}) is not None  # the step count is an int


# ---- the answer keys agree with minitorch ---------------------------------------------------------
def test_topo_order_is_a_valid_order_and_the_smallest():
    rng = random.Random(0)
    for (graph,) in topo._random_q1(rng, 200) + topo._visible_q1():
        order = topo.topo_order(graph)
        pos = {n: i for i, n in enumerate(order)}
        assert sorted(order) == sorted(graph)
        assert all(pos[n] < pos[p] for n in graph for p in graph[n])
        if len(graph) <= 6:  # brute force: the smallest of all valid orders
            valid = [list(p) for p in itertools.permutations(graph)
                     if all(p.index(n) < p.index(q) for n in graph for q in graph[n])]
            assert order == min(valid)


def _minitorch_backprop(nodes, output):
    t = {}

    def build(n):
        if n not in t:
            op, *a = nodes[n]
            if op == "leaf":
                t[n] = minitorch.tensor(a[0], dtype=minitorch.float64, requires_grad=True)
            elif op == "add":
                t[n] = build(a[0]) + build(a[1])
            elif op == "mul":
                t[n] = build(a[0]) * build(a[1])
            else:
                t[n] = build(a[0]).exp()
        return t[n]
    for n in nodes:
        build(n)
    t[output].backward()
    return {n: (t[n].grad.item() if t[n].grad is not None else 0.0) for n in nodes if nodes[n][0] == "leaf"}


def test_backprop_scalar_matches_minitorch():
    rng = random.Random(1)
    for nodes, output in topo._random_q2(rng, 60) + topo._visible_q2():
        mine, theirs = topo.backprop_scalar(nodes, output), _minitorch_backprop(nodes, output)
        assert mine.keys() == theirs.keys()
        for k in mine:
            assert math.isclose(mine[k], theirs[k], rel_tol=1e-12, abs_tol=1e-12), (nodes, output, k)


def test_local_backward_matches_minitorch():
    rng = random.Random(2)
    for op, inputs, grad in bf._random_q1(rng, 150) + bf._visible_q1():
        xs = [minitorch.tensor(v, dtype=minitorch.float64, requires_grad=True) for v in inputs]
        out = {"mul": lambda a, b: a * b, "div": lambda a, b: a / b, "pow": lambda a, b: a ** b,
               "add": lambda a, b: a + b, "sub": lambda a, b: a - b, "neg": lambda a: -a,
               "exp": lambda a: a.exp(), "log": lambda a: a.log(), "relu": lambda a: a.relu(),
               "tanh": lambda a: a.tanh(), "sigmoid": lambda a: a.sigmoid()}[op](*xs)
        out.backward(minitorch.tensor(grad, dtype=minitorch.float64))
        mine = bf.local_backward(op, inputs, grad)
        assert type(mine) is tuple and len(mine) == len(inputs)
        for m, x in zip(mine, xs):
            assert math.isclose(m, x.grad.item(), rel_tol=1e-9, abs_tol=1e-15), (op, inputs, grad)


def test_unbroadcast_matches_minitorch():
    rng = random.Random(3)
    for grad, shape in bf._random_q2(rng, 150) + bf._visible_q2():
        g = minitorch.tensor(grad, dtype=minitorch.float64)
        x = minitorch.zeros(shape, dtype=minitorch.float64, requires_grad=True)
        (x + minitorch.zeros(tuple(g.shape), dtype=minitorch.float64)).backward(g)
        assert bf.unbroadcast(grad, shape) == x.grad.tolist(), (grad, shape)


def test_gradient_tape_matches_minitorch():
    """The tape keeps exactly the ops minitorch records; its gradients (None included) are
    minitorch.autograd.grad's."""
    ops = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
           "div": lambda a, b: a / b, "exp": lambda a: a.exp(), "tanh": lambda a: a.tanh()}
    rng = random.Random(5)
    for _ in range(80):
        program, leaves, values = tape._random_program(rng)
        watched = [n for n in leaves if rng.random() < 0.5]
        t = {n: minitorch.tensor(v, dtype=minitorch.float64, requires_grad=n in watched)
             for n, v in leaves.items()}
        for op, inputs, out in program:
            t[out] = ops[op](*[t[n] for n in inputs])
        kept = tape.record(program, watched)
        assert kept == [r for r in program if t[r[2]].grad_fn is not None]
        target = program[-1][2]
        if not watched or not t[target].requires_grad:
            assert all(g is None for g in tape.tape_gradient(kept, values, target, watched))
            continue
        theirs = minitorch.autograd.grad(t[target], [t[n] for n in watched], allow_unused=True)
        for mine, g in zip(tape.tape_gradient(kept, values, target, watched), theirs):
            assert (mine is None) == (g is None)
            assert g is None or math.isclose(mine, g.item(), rel_tol=1e-9, abs_tol=1e-12)


@pytest.mark.parametrize("which", ["sgd", "adam"])
def test_optimizer_steps_match_minitorch_optim(which):
    rng = random.Random(4)
    for _ in range(40):
        n = rng.randint(1, 5)
        start = [rng.uniform(-2, 2) for _ in range(n)]
        if which == "sgd":
            hyper = dict(lr=rng.choice([0.1, 0.01]), momentum=rng.choice([0.0, 0.9]),
                         weight_decay=rng.choice([0.0, 0.1]))
            make, step = minitorch.optim.SGD, opt.sgd_step
        else:
            hyper = dict(lr=rng.choice([0.1, 1e-3]), betas=rng.choice([(0.9, 0.999), (0.5, 0.9)]),
                         eps=rng.choice([1e-8, 1e-3]), weight_decay=rng.choice([0.0, 0.1]))
            make, step = minitorch.optim.Adam, opt.adam_step
        p = minitorch.tensor(start, dtype=minitorch.float64, requires_grad=True)
        o = make([p], **hyper)
        params, state = list(start), None
        for _ in range(8):
            g = [rng.uniform(-1, 1) for _ in range(n)]
            p.grad = minitorch.tensor(g, dtype=minitorch.float64)
            o.step()
            params, state = step(params, g, state, **hyper)
            assert all(math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12) for a, b in zip(params, p.tolist()))


# ---- the grader: partial credit for a typical mistake ------------------------------------------------
def test_grader_gives_partial_credit(tmp_path):
    ex = get_exercise("13_optimizer_steps")
    path = ROOT / "solutions" / ex.notebook
    key = AnswerKey(ex, path, scoring_mode="all")  # all or nothing per question
    sol = load(path)
    nb = solve(as_submission(sol, ex.name), sol, "sgd_step")
    nb = set_cell(nb, "adam_step", "def adam_step(params, grads, state, lr=1e-3, betas=(0.9, 0.999), eps=1e-8,\n"
                                   "              weight_decay=0.0):\n"
                                   "    # no bias correction\n"
                                   "    b1, b2 = betas\n"
                                   "    state = state or {'step': 0, 'exp_avg': [0.0] * len(params),\n"
                                   "                      'exp_avg_sq': [0.0] * len(params)}\n"
                                   "    m = [b1 * m + (1 - b1) * (g + weight_decay * p) for m, g, p in\n"
                                   "         zip(state['exp_avg'], grads, params)]\n"
                                   "    v = [b2 * v + (1 - b2) * (g + weight_decay * p) ** 2 for v, g, p in\n"
                                   "         zip(state['exp_avg_sq'], grads, params)]\n"
                                   "    new = [p - lr * a / (math.sqrt(b) + eps) for p, a, b in zip(params, m, v)]\n"
                                   "    return new, {'step': state['step'] + 1, 'exp_avg': m, 'exp_avg_sq': v}\n")
    sub = tmp_path / "s.ipynb"
    sub.write_text(dumps(nb), encoding="utf-8")
    r = grade_submission(sub, key, Limits(step_seconds=2.0, memory_mb=512))
    status = {q.id: q.status for q in r.questions}
    assert r.verdict == "graded" and status == {"q1": "correct", "q2": "incorrect"}, r.to_dict()
    assert r.score == key.questions[0].points < key.max_score
    q2 = r.questions[1]
    assert "adam_step(" in q2.reason and "expected" in q2.reason


def test_answer_keys_have_points_and_hidden_tests():
    for name in NAMES:
        ex = get_exercise(name)
        d = AnswerKey(ex, ROOT / "solutions" / ex.notebook).describe()
        assert [q["points"] for q in d["questions"]] == [3.0] * len(ex.questions)
        assert all(q["hidden_cases"] >= 200 for q in d["questions"]), d


# ---- the notebooks, as a learner runs them -------------------------------------------------------
_execute = nbx.execute
_text = nbx.notebook_text


DEMO = {"09_topological_sort": ["your order:", "recovered w = 0.5, c = -0.2"],
        "10_backward_formulas": ["sigmoid  x(3, 4): gradcheck True", "w.grad and b.grad agree"],
        "12_gradient_tape": ["watch ['b', 'target']  4 of 7 recorded"],
        "13_optimizer_steps": ["Adam  after 20 steps", "test accuracy: yours"]}


@pytest.mark.parametrize("name", NAMES)
def test_solutions_notebook_runs_clean(name, tmp_path):
    nb = _execute(ROOT / "solutions" / f"{name}.ipynb", tmp_path)
    errors = [o for c in nb.cells for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert not errors, errors
    text = _text(nb)
    for q in get_exercise(name).questions:
        assert f"✔ {q.id}: {q.function} is correct" in text
    for words in DEMO[name]:
        assert words in text


@pytest.mark.parametrize("name", NAMES)
def test_untouched_exercise_says_not_attempted(name, tmp_path):
    nb = _execute(ROOT / "exercises" / f"{name}.ipynb", tmp_path)
    tests = [c for c in nb.cells if c.get("metadata", {}).get("nbgrader", {}).get("grade")]
    assert len(tests) == len(get_exercise(name).questions)
    for c in tests:
        errs = [o for o in c.outputs if o.output_type == "error"]
        assert errs and errs[0].ename == "CheckFailed" and "is not written yet" in _text_of(c)


def _text_of(cell):
    return "\n".join(o.get("text", "") + "".join(o.get("traceback", [])) for o in cell.outputs)
