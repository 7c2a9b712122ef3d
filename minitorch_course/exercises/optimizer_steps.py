"""Exercise 13, optimizer steps: one step of SGD (momentum, weight decay) and of Adam, over lists
of floats, with PyTorch's exact formulas.

The functions are pure: they take the parameters, their gradients and the optimizer's state, and
return the new parameters and the new state, so one call is one step and the grader can start a
step from any state. The random cases' states come from running the instructor's solution for a
few steps (generators_use), so each case is the next step of a real trajectory. Floats are
compared within a tolerance: m*b + (1-b)*g and m + (g-m)*(1-b) are the same formula, rounded
differently. The reference solutions are the solution cells of
solutions/13_optimizer_steps.ipynb.
"""
from __future__ import annotations

from ..spec import Exercise, QuestionSpec
from ._approx import approx


# ---- inputs -------------------------------------------------------------------------------
def _vec(rng, n, scale=1.0):
    return [round(rng.uniform(-scale, scale), 4) for _ in range(n)]


def _run(step, rng, n, k, **hyper):
    """(params, grads, state) after k steps of `step` (the instructor's) on random gradients."""
    params, state = _vec(rng, n, 2.0), None
    for _ in range(k):
        params, state = step(params, _vec(rng, n), state, **hyper)
    return params, _vec(rng, n), state


def _visible_q1():
    return [
        ([1.0], [0.5], None, 0.1),
        ([1.0, -2.0], [0.5, 0.25], None, 0.1, 0.0, 0.0),
        ([1.0, -2.0], [0.5, 0.25], None, 0.1, 0.9),                      # first step: buf = g
        ([1.0, -2.0], [0.5, 0.25], [0.2, -0.4], 0.1, 0.9),               # later: buf = 0.9 buf + g
        ([1.0, -2.0], [0.5, 0.25], None, 0.1, 0.0, 0.01),                # weight decay
        ([1.0, -2.0], [0.5, 0.25], [1.0, 1.0], 0.05, 0.5, 0.1),
        ([], [], None, 0.1, 0.9),
        ([3.0], [0.0], [2.0], 1.0, 0.5),                                 # momentum keeps going
    ]


def _random_q1(rng, n, ref):
    out = []
    for _ in range(n):
        lr = rng.choice([0.1, 0.01, 0.5])
        momentum = rng.choice([0.0, 0.9, 0.5, 0.99])
        wd = rng.choice([0.0, 0.0, 1e-2, 0.1])
        hyper = dict(lr=lr, momentum=momentum, weight_decay=wd)
        params, grads, state = _run(ref.sgd_step, rng, rng.randint(1, 6), rng.randint(0, 4), **hyper)
        out.append((params, grads, state, lr, momentum, wd))
    return out


def _visible_q2():
    s1 = {"step": 1, "exp_avg": [0.05, 0.025], "exp_avg_sq": [0.00025, 6.25e-05]}
    return [
        ([1.0], [0.5], None),
        ([1.0, -2.0], [0.5, 0.25], None, 0.1),
        ([1.0, -2.0], [0.5, 0.25], s1, 0.1),
        ([1.0, -2.0], [-0.5, 0.0], s1, 0.1, (0.8, 0.99)),
        ([1.0, -2.0], [0.5, 0.25], None, 0.1, (0.9, 0.999), 1e-8, 0.1),   # weight decay
        ([1.0, -2.0], [0.5, 0.25], None, 0.1, (0.9, 0.999), 0.5),         # a big eps shows
        ([0.0], [0.0], None, 0.1),                                       # zero gradient: no move
        ([], [], None),
    ]


def _random_q2(rng, n, ref):
    out = []
    for _ in range(n):
        lr = rng.choice([1e-3, 1e-2, 0.1])
        betas = rng.choice([(0.9, 0.999), (0.8, 0.99), (0.5, 0.9)])
        eps = rng.choice([1e-8, 1e-8, 1e-3])
        wd = rng.choice([0.0, 0.0, 1e-2, 0.1])
        hyper = dict(lr=lr, betas=betas, eps=eps, weight_decay=wd)
        params, grads, state = _run(ref.adam_step, rng, rng.randint(1, 6), rng.randint(0, 6), **hyper)
        out.append((params, grads, state, lr, betas, eps, wd))
    return out


# ---- the exercise ---------------------------------------------------------------------------
EXERCISE = Exercise(
    name="13_optimizer_steps",
    title="Optimizer steps: SGD with momentum, and Adam",
    forbidden_calls=("numpy.*",),
    forbidden_imports=("minitorch", "torch", "jax", "tensorflow", "optax"),
    forbidden_reason="write these in plain Python (math is fine): minitorch.optim would take "
                     "the step for you, which is what this exercise asks of you",
    questions=[
        QuestionSpec(
            id="q1", function="sgd_step", title="(a) SGD with momentum and weight decay",
            solution_cell="sgd_step", test_cell="test_sgd_step",
            visible_cases=lambda ref: _visible_q1(), random_cases=_random_q1,
            generators_use=("sgd_step",),
            compare=approx(rel_tol=1e-9, abs_tol=1e-12),
            hints=[
                "For each parameter: d = g + weight_decay * p. Without momentum the step is "
                "p - lr * d, and the state stays None.",
                "With momentum, the buffer is b = d on the first step (state is None) and "
                "b = momentum * b_old + d afterwards; the step is p - lr * b. The new state is the "
                "list of new buffers.",
                "Return a tuple (new_params, new_state): two new lists (or the list and None). Do "
                "not change the lists you were given.",
            ]),
        QuestionSpec(
            id="q2", function="adam_step", title="(b) Adam, with bias correction",
            solution_cell="adam_step", test_cell="test_adam_step",
            visible_cases=lambda ref: _visible_q2(), random_cases=_random_q2,
            generators_use=("adam_step",),
            compare=approx(rel_tol=1e-9, abs_tol=1e-12),
            hints=[
                "Before the first step the state is None: start from step 0 and zero moments. "
                "This step is t = step + 1.",
                "Per parameter: g = g + weight_decay * p; m = b1*m + (1-b1)*g; "
                "v = b2*v + (1-b2)*g*g; m_hat = m / (1 - b1**t); v_hat = v / (1 - b2**t); "
                "p = p - lr * m_hat / (sqrt(v_hat) + eps).",
                "eps is added to sqrt(v_hat), not to v_hat. The new state is "
                "{'step': t, 'exp_avg': [m ...], 'exp_avg_sq': [v ...]} with t an int; return "
                "(new_params, new_state).",
            ]),
    ],
)
