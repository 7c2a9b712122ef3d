"""The training exercises (14 training loop, 15 im2col, 16 embedding): check() says not
attempted / incorrect (with input, expected and actual) / correct; common mistakes are caught
while float32 rounding is not; the references agree with minitorch itself (nn.Linear +
optim.SGD, F.conv2d, nn.Embedding's gradient); and the grader runs exercise 14 with minitorch
inside the sandbox while refusing nn.Linear and minitorch_course, fast.

The generic guarantees (each solution scores full marks, each untouched exercise zero, the
release is in sync, the notebooks run) are parametrized over every exercise in
tests/test_grading.py, tests/test_release_sync.py and tests/test_course_exercises.py.
"""
from __future__ import annotations

import json
import math
import random
import types
from pathlib import Path

import pytest

import minitorch
from minitorch import nn
from _answers import answers_of, key_of
from minitorch_course import CheckFailed, load_exercise
from minitorch_course.exercises import get_exercise

from minitorch_course.grading.grader import AnswerKey, grade_submission
from minitorch_course.grading.sample_class import as_submission, load, set_cell, solve
from minitorch_course.grading.sandbox import Limits
from minitorch_course.notebook import dumps
from minitorch.nn import functional as F

ROOT = Path(__file__).resolve().parents[1]
emb, i2c, tl = answers_of("16_embedding"), answers_of("15_im2col"), answers_of("14_training_loop")
NAMES = ["14_training_loop", "15_im2col", "16_embedding"]
LIMITS = Limits(step_seconds=2.0, memory_mb=512)

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(autouse=True)
def progress_file(tmp_path, monkeypatch):
    monkeypatch.setenv("MINITORCH_PROGRESS", str(tmp_path / "progress.json"))


def _not_written(*args, **kwargs):
    raise NotImplementedError("Replace this line with your code, then run the test cell below.")


def _verdict(name, i, fn):
    return load_exercise(name)[i].evaluate(fn)


def _forward(fn):
    """The notebook's run_linear_forward (the instructor's driver cell), calling fn as the
    learner's linear_forward."""
    driver = key_of("14_training_loop").reference(get_exercise("14_training_loop").question("q2"))
    return types.FunctionType(driver.__code__, {**driver.__globals__, "linear_forward": fn})


# ---- the three outcomes --------------------------------------------------------------------------
@pytest.mark.parametrize("name", NAMES)
def test_not_attempted_then_correct(name):
    for q in load_exercise(name):
        r = q.evaluate(_not_written)
        assert r.status == "not_attempted" and "is not written yet" in r.message
        r = q.evaluate(key_of(name).reference(q.spec))
        assert r.status == "correct" and r.passed == r.total > 20


def test_check_raises_with_input_expected_and_actual():
    q1 = load_exercise("16_embedding")[0]
    with pytest.raises(CheckFailed) as e:
        q1.check(fn=lambda weight, ids, padding_idx=None: ids)
    text = str(e.value)
    assert "embedding_lookup([[0.0, 0.0], [1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], [1, 2])" in text
    assert "returned [1, 2]" in text and "expected [[1.0, 2.0], [3.0, 4.0]]" in text


# ---- 14: common mistakes caught, float32 rounding accepted -------------------------------------------
def _init_bound_from_out(i, o, u):
    bound = 1 / math.sqrt(o)
    v = [(2 * x - 1) * bound for x in u]
    return (minitorch.tensor(v[:i * o]).reshape(o, i), minitorch.tensor(v[i * o:i * o + o]))


def _init_transposed(i, o, u):
    bound = 1 / math.sqrt(i)
    v = [(2 * x - 1) * bound for x in u]
    return (minitorch.tensor(v[:i * o]).reshape(i, o), minitorch.tensor(v[i * o:i * o + o]))


def _init_float64(i, o, u):
    w, b = tl.linear_init(i, o, u)
    return w.double(), b.double()


@pytest.mark.parametrize("fn, words", [
    (_init_bound_from_out, ["linear_init(", "expected"]),
    (_init_transposed, ["has shape"]),
    (_init_float64, ["has dtype float64, expected float32"]),
    (lambda i, o, u: (tl.linear_init(i, o, u)[0].tolist(), tl.linear_init(i, o, u)[1].tolist()),
     ["is a list, expected a tensor"]),
])
def test_linear_init_mistakes(fn, words):
    r = _verdict("14_training_loop", 0, fn)
    assert r.status == "incorrect", r
    assert all(w in r.details[0] for w in words), r.details[0]


@pytest.mark.parametrize("fn", [
    lambda x, w, b: minitorch.tensor(x) @ minitorch.tensor(w).T,                            # no bias
    lambda x, w, b: minitorch.tensor(x) @ minitorch.tensor(w) + (0 if b is None else minitorch.tensor(b)),
    lambda x, w, b: tl.linear_forward(x, w, b).tolist(),                                    # not a tensor
])
def test_linear_forward_mistakes(fn):
    assert _verdict("14_training_loop", 1, _forward(fn)).status == "incorrect"


def _copies(x, weight, bias):
    """Right values, but made from copies: minitorch.tensor(a tensor) leaves the graph."""
    x, weight = minitorch.tensor(x, dtype=minitorch.float32), minitorch.tensor(weight, dtype=minitorch.float32)
    out = x @ weight.T
    return out if bias is None else out + minitorch.tensor(bias, dtype=minitorch.float32)


@pytest.mark.filterwarnings("ignore:To copy construct from a tensor")
def test_linear_forward_off_the_graph_fails_and_says_why():
    """A result with the right values that is not in the weights' graph would pass a check of
    values alone, and then make (c) fail for a reason far from its cause."""
    r = _verdict("14_training_loop", 1, _forward(_copies))
    assert r.status == "incorrect", r.lines()
    first = r.details[0]
    assert "requires_grad=True" in first and "out.sum().backward()" in first, first
    assert "weight.grad is None" in first and "not connected to weight in the autograd graph" in first, first
    assert "minitorch.tensor(weight) makes a copy" in first, first
    assert 0 < r.passed < r.total  # the cases without tensors that require grad pass: only the graph is wrong
    assert _verdict("14_training_loop", 1, _forward(tl.linear_forward)).status == "correct"


@pytest.mark.filterwarnings("ignore:To copy construct from a tensor")
def test_grader_fails_linear_forward_off_the_graph(tmp_path):
    forward = ("def linear_forward(x, weight, bias):\n"
               "    import minitorch\n"
               "    x, weight = minitorch.tensor(x, dtype=minitorch.float32), minitorch.tensor(weight, dtype=minitorch.float32)\n"
               "    out = x @ weight.T\n"
               "    return out if bias is None else out + minitorch.tensor(bias, dtype=minitorch.float32)\n")
    key, r = _grade("14_training_loop", tmp_path, linear_forward=forward)
    q2 = r.questions[1]
    assert q2.status == "incorrect" and q2.points < q2.max_points, r.to_dict()
    assert "not connected to" in q2.reason and "autograd graph" in q2.reason, q2.reason


def _epoch(zero_grad=True, reduction="mean", skip_short=False, record_after=False, dtype=minitorch.float32):
    def train_epoch(weight, bias, x, y, lr, batch_size):
        weight = minitorch.tensor(weight, dtype=dtype, requires_grad=True)
        bias = minitorch.tensor(bias, dtype=dtype, requires_grad=True)
        x, y = minitorch.tensor(x, dtype=dtype), minitorch.tensor(y)
        opt = minitorch.optim.SGD([weight, bias], lr=lr)
        losses = []
        stop = len(x) - len(x) % batch_size if skip_short else len(x)
        for s in range(0, stop, batch_size):
            if zero_grad:
                opt.zero_grad()
            loss = F.cross_entropy(x[s:s + batch_size] @ weight.T + bias, y[s:s + batch_size],
                                   reduction=reduction)
            loss.backward()
            opt.step()
            if record_after:
                with minitorch.no_grad():
                    loss = F.cross_entropy(x[s:s + batch_size] @ weight.T + bias, y[s:s + batch_size])
            losses.append(loss.item())
        return losses, weight.tolist(), bias.tolist()
    return train_epoch


@pytest.mark.parametrize("mistake", [dict(zero_grad=False), dict(reduction="sum"), dict(skip_short=True),
                                     dict(record_after=True)])
def test_train_epoch_mistakes_are_caught(mistake):
    r = _verdict("14_training_loop", 2, _epoch(**mistake))
    assert r.status == "incorrect", (mistake, r)
    assert "train_epoch(" in r.details[0]


def test_train_epoch_float64_and_plain_python_pass():
    assert _verdict("14_training_loop", 2, _epoch(dtype=minitorch.float64)).status == "correct"

    def by_hand(weight, bias, x, y, lr, batch_size):  # no autograd at all, float64
        w, b, losses = [r[:] for r in weight], bias[:], []
        for s in range(0, len(x), batch_size):
            xb, yb = x[s:s + batch_size], y[s:s + batch_size]
            gw, gb, total = [[0.0] * len(w[0]) for _ in w], [0.0] * len(b), 0.0
            for row, cls in zip(xb, yb):
                z = [sum(wi * xi for wi, xi in zip(wr, row)) + bj for wr, bj in zip(w, b)]
                m = max(z)
                lse = m + math.log(sum(math.exp(v - m) for v in z))
                total += lse - z[cls]
                for j, zj in enumerate(z):
                    d = (math.exp(zj - lse) - (j == cls)) / len(xb)
                    gb[j] += d
                    for k, xk in enumerate(row):
                        gw[j][k] += d * xk
            losses.append(total / len(xb))
            w = [[wi - lr * g for wi, g in zip(wr, gr)] for wr, gr in zip(w, gw)]
            b = [bj - lr * g for bj, g in zip(b, gb)]
        return losses, w, b

    assert _verdict("14_training_loop", 2, by_hand).status == "correct"


def test_training_loop_references_agree_with_nn_linear_and_sgd():
    rng = random.Random(14)
    for _ in range(20):
        i, c, m, bs = rng.randint(1, 5), rng.randint(2, 5), rng.randint(1, 12), rng.randint(1, 5)
        minitorch.manual_seed(rng.randrange(1000))
        layer = nn.Linear(i, c)
        x = minitorch.randn(m, i)
        y = minitorch.randint(0, c, (m,))
        assert (tl.linear_forward(x, layer.weight, layer.bias) - layer(x)).abs().max().item() < 1e-6
        losses, w, b = tl.train_epoch(layer.weight.tolist(), layer.bias.tolist(), x.tolist(), y.tolist(),
                                      0.3, bs)
        opt = minitorch.optim.SGD(layer.parameters(), lr=0.3)
        theirs = []
        for s in range(0, m, bs):
            opt.zero_grad()
            loss = F.cross_entropy(layer(x[s:s + bs]), y[s:s + bs])
            loss.backward()
            opt.step()
            theirs.append(loss.item())
        assert losses == pytest.approx(theirs, rel=1e-6)
        assert (minitorch.tensor(w) - layer.weight).abs().max().item() < 1e-6
        assert (minitorch.tensor(b) - layer.bias).abs().max().item() < 1e-6


def test_linear_init_has_pytorchs_bound():
    u = [0.0, 1.0 - 1e-9] * 50
    w, b = tl.linear_init(16, 5, u[:85])
    assert tuple(w.shape) == (5, 16) and tuple(b.shape) == (5,) and w.dtype == minitorch.float32
    assert w.abs().max().item() == pytest.approx(0.25, rel=1e-6)
    minitorch.manual_seed(0)
    layer = nn.Linear(16, 5)
    assert layer.weight.abs().max().item() <= 0.25


# ---- 15 ----------------------------------------------------------------------------------------------
def test_conv2d_output_shape_mistakes():
    no_dilation = lambda h, w, k, s=1, p=0, d=1: i2c.conv2d_output_shape(h, w, k, s, p, 1)  # noqa: E731
    ceil = lambda h, w, k, s=1, p=0, d=1: tuple(  # noqa: E731
        -(-(n - x) // s) + 1 for n, x in zip(i2c.conv2d_output_shape(h, w, 1, 1, p, 1), (k, k)))
    as_list = lambda *a: list(i2c.conv2d_output_shape(*a))  # noqa: E731
    for fn in (no_dilation, ceil, as_list):
        assert _verdict("15_im2col", 0, fn).status == "incorrect"


def _transposed_im2col(image, kernel_size, stride=1, padding=0):
    rows = i2c.im2col(image, kernel_size, stride, padding)
    return [list(col) for col in zip(*rows)]


def _int_padding(image, kernel_size, stride=1, padding=0):
    padded = i2c.im2col(image, kernel_size, stride, padding)
    return [[0 if v == 0.0 else v for v in row] for row in padded]


def _taps_column_major(image, kernel_size, stride=1, padding=0):
    rows = i2c.im2col(image, kernel_size, stride, padding)
    kh, kw = kernel_size if isinstance(kernel_size, tuple) else (kernel_size, kernel_size)
    c = len(image)
    return [rows[ch * kh * kw + j * kh + i] for ch in range(c) for i in range(kw) for j in range(kh)]


@pytest.mark.parametrize("fn", [_transposed_im2col, _int_padding, _taps_column_major])
def test_im2col_mistakes_are_caught(fn):
    assert _verdict("15_im2col", 1, fn).status == "incorrect"


def test_im2col_with_numpy_is_fine_but_sliding_windows_are_not():
    np = pytest.importorskip("numpy")

    def with_numpy(image, kernel_size, stride=1, padding=0):
        pair = lambda v: tuple(v) if isinstance(v, (tuple, list)) else (v, v)  # noqa: E731
        (kh, kw), (sh, sw), (ph, pw) = pair(kernel_size), pair(stride), pair(padding)
        a = np.pad(np.array(image, dtype=float), ((0, 0), (ph, ph), (pw, pw)))
        c, h, w = a.shape
        oh, ow = (h - kh) // sh + 1, (w - kw) // sw + 1
        cols = [a[ch, i:i + sh * oh:sh, j:j + sw * ow:sw].reshape(-1)
                for ch in range(c) for i in range(kh) for j in range(kw)]
        return np.stack(cols).tolist()

    assert _verdict("15_im2col", 1, with_numpy).status == "correct"

    def windows(image, kernel_size, stride=1, padding=0):
        np.lib.stride_tricks.sliding_window_view(np.array(image), (1, 1))
        return with_numpy(image, kernel_size, stride, padding)

    r = _verdict("15_im2col", 1, windows)
    assert r.status == "incorrect" and "sliding_window_view" in r.message


def test_im2col_reference_computes_conv2d():
    rng = random.Random(15)
    for _ in range(30):
        c, oc = rng.randint(1, 3), rng.randint(1, 3)
        kh, kw = rng.randint(1, 3), rng.randint(1, 3)
        s, p = (rng.randint(1, 3), rng.randint(1, 3)), (rng.randint(0, 2), rng.randint(0, 2))
        h, w = rng.randint(kh, 7), rng.randint(kw, 7)
        minitorch.manual_seed(rng.randrange(1000))
        x, weight, bias = minitorch.randn(c, h, w), minitorch.randn(oc, c, kh, kw), minitorch.randn(oc)
        expected = F.conv2d(x.unsqueeze(0), weight, bias, s, p)[0]
        oh, ow = i2c.conv2d_output_shape(h, w, (kh, kw), s, p)
        assert tuple(expected.shape) == (oc, oh, ow)
        cols = minitorch.tensor(i2c.im2col(x.tolist(), (kh, kw), s, p))
        ours = (weight.reshape(oc, -1) @ cols + bias.reshape(-1, 1)).reshape(oc, oh, ow)
        assert (ours - expected).abs().max().item() < 1e-5


def test_conv2d_output_shape_agrees_with_dilated_conv2d():
    for h, w, k, s, p, d in [(9, 9, 3, 1, 0, 2), (10, 7, 3, 2, 1, 2), (12, 12, 2, 3, 2, 3)]:
        out = F.conv2d(minitorch.randn(1, 1, h, w), minitorch.randn(1, 1, k, k), None, s, p, d)
        assert tuple(out.shape[2:]) == i2c.conv2d_output_shape(h, w, k, s, p, d)


# ---- 16 ----------------------------------------------------------------------------------------------
def _lookup_zeroing_padding(weight, ids, padding_idx=None):
    if isinstance(ids, list):
        return [_lookup_zeroing_padding(weight, i, padding_idx) for i in ids]
    return [0.0] * len(weight[0]) if ids == padding_idx else list(weight[ids])


def _grad(assign=False, keep_padding=False, negative=True, int_zeros=False):
    def embedding_grad(ids, grad_out, num_embeddings, padding_idx=None):
        pairs = []

        def walk(i, g):
            if isinstance(i, list):
                for a, b in zip(i, g):
                    walk(a, b)
            else:
                pairs.append((i, g))
        walk(ids, grad_out)
        dim = len(pairs[0][1])
        if negative and padding_idx is not None and padding_idx < 0:
            padding_idx += num_embeddings
        grad = [[0 if int_zeros else 0.0] * dim for _ in range(num_embeddings)]
        for i, g in pairs:
            if i == padding_idx and not keep_padding:
                continue
            grad[i] = list(g) if assign else [a + b for a, b in zip(grad[i], g)]
        return grad
    return embedding_grad


@pytest.mark.parametrize("fn", [_grad(assign=True), _grad(keep_padding=True), _grad(negative=False),
                                _grad(int_zeros=True)])
def test_embedding_grad_mistakes_are_caught(fn):
    assert _verdict("16_embedding", 1, fn).status == "incorrect"
    assert _verdict("16_embedding", 1, _grad()).status == "correct"


def test_lookup_does_not_zero_the_padding_row():
    r = _verdict("16_embedding", 0, _lookup_zeroing_padding)
    assert r.status == "incorrect" and "expected [[1.0, 1.0], [9.0, 9.0], [1.0, 1.0]]" in r.details[0]


def test_embedding_references_agree_with_nn_embedding():
    rng = random.Random(16)
    for _ in range(20):
        num, dim = rng.randint(2, 8), rng.randint(1, 4)
        pad = rng.choice([None, rng.randrange(num), -rng.randint(1, num)])
        ids = [[rng.randrange(num) for _ in range(rng.randint(1, 5))] for _ in range(rng.randint(1, 3))]
        width = max(len(r) for r in ids)
        ids = [r + r[:1] * (width - len(r)) for r in ids]
        minitorch.manual_seed(rng.randrange(1000))
        table = nn.Embedding(num, dim, padding_idx=pad)
        out = table(minitorch.tensor(ids))
        assert out.tolist() == emb.embedding_lookup(table.weight.tolist(), ids, pad)
        g = minitorch.randn(*out.shape)
        (out * g).sum().backward()
        ours = minitorch.tensor(emb.embedding_grad(ids, g.tolist(), num, pad))
        assert (ours - table.weight.grad).abs().max().item() < 1e-5


# ---- the grader: minitorch inside the sandbox for 14, not the shortcuts --------------------------------
def _grade(name, tmp_path, **cells):
    ex = get_exercise(name)
    path = ROOT / "solutions" / ex.notebook
    key = AnswerKey(ex, path)
    sol = load(path)
    nb = solve(as_submission(sol, ex.name), sol)
    for gid, src in cells.items():
        nb = set_cell(nb, gid, src)
    sub = tmp_path / "sub.ipynb"
    sub.write_text(dumps(nb), encoding="utf-8")
    return key, grade_submission(sub, key, LIMITS)


def test_training_loop_grading_uses_minitorch_in_the_sandbox_fast(tmp_path):
    key, r = _grade("14_training_loop", tmp_path)
    assert r.verdict == "graded" and r.score == key.max_score > 0, r.to_dict()
    assert r.isolation.get("audit_hook") and not r.flags
    assert r.runs == 1, r.to_dict()  # every cell and question in one sandboxed run, no restart


def test_training_loop_forbids_nn_linear_and_the_answer_key(tmp_path):
    forward = ("def linear_forward(x, weight, bias):\n"
               "    import minitorch\n"
               "    from minitorch.nn import functional as F\n"
               "    x, weight = minitorch.as_tensor(x, dtype=minitorch.float32), minitorch.as_tensor(weight, dtype=minitorch.float32)\n"
               "    return F.linear(x, weight, None if bias is None else minitorch.as_tensor(bias, dtype=minitorch.float32))\n")
    cheat = ("def train_epoch(weight, bias, x, y, lr, batch_size):\n"
             "    from minitorch_course.exercises import training_loop\n"
             "    return training_loop.train_epoch(weight, bias, x, y, lr, batch_size)\n")
    key, r = _grade("14_training_loop", tmp_path, linear_forward=forward, train_epoch=cheat)
    status = {q.id: q.status for q in r.questions}
    assert status == {"q1": "correct", "q2": "forbidden", "q3": "incorrect"}, r.to_dict()
    assert "minitorch.nn.functional.linear" in r.questions[1].reason
    assert "not allowed" in r.questions[2].reason
    assert r.score == 2


@pytest.mark.parametrize("name", ["15_im2col", "16_embedding"])
def test_other_exercises_grade_fast_and_refuse_minitorch(name, tmp_path):
    key, r = _grade(name, tmp_path)
    assert r.score == key.max_score and r.runs == 1, r.to_dict()
    ex = get_exercise(name)
    q = ex.questions[0]
    cell = f"import minitorch\n\n{q.function} = None\n"
    key, r = _grade(name, tmp_path, **{q.solution_cell: cell})
    assert r.questions[0].status in ("error", "missing") and r.questions[0].points == 0


def test_answer_keys_have_points_and_hidden_tests():
    for name, points in [("14_training_loop", [2.0, 2.0, 3.0]), ("15_im2col", [2.0, 3.0]),
                         ("16_embedding", [2.0, 3.0])]:
        ex = get_exercise(name)
        d = AnswerKey(ex, ROOT / "solutions" / ex.notebook).describe()
        assert [q["points"] for q in d["questions"]] == points
        assert all(q["hidden_cases"] >= 30 for q in d["questions"])
        assert all(len(q.hints) == 3 for q in ex.questions)


def test_answer_key_work_is_bounded():
    """What grading one submission asks of it: a bounded number of cases per question, each a
    small input (speed itself is measured in bench/, never asserted here)."""
    for name in NAMES:
        ex = get_exercise(name)
        key = AnswerKey(ex, ROOT / "solutions" / ex.notebook)
        for k in key.questions:
            assert 20 <= len(k.cases) <= 300, (name, k.spec.id, len(k.cases))
            assert all(len(json.dumps(e)) < 20_000 for e in k.encoded), (name, k.spec.id)
