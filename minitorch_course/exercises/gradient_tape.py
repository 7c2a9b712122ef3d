"""Exercise 12, a gradient tape: what a TensorFlow-style tape records, and the gradients it
gives, over programs written as data.

A program is a list of records (op, inputs, output) in the order they ran, over names (each
output name is new: no name is assigned twice). The learner's code is plain Python; the
answers are plain data: the records the tape keeps (compared exactly), and the gradients, a
float or None per source (floats compared within a small tolerance). The reference solutions
are the solution cells of solutions/12_gradient_tape.ipynb; the tapes of (b)'s cases are recorded
with the instructor's record() (generators_use).
"""
from __future__ import annotations

import math

from ..spec import Exercise, QuestionSpec
from ._approx import approx


# ---- inputs -------------------------------------------------------------------------------
def _run(program, leaves):
    values = dict(leaves)
    for op, inputs, output in program:
        a = values[inputs[0]]
        b = values[inputs[1]] if len(inputs) > 1 else None
        values[output] = {"add": lambda: a + b, "sub": lambda: a - b, "mul": lambda: a * b,
                          "div": lambda: a / b, "exp": lambda: math.exp(a),
                          "tanh": lambda: math.tanh(a)}[op]()
    return values


# lesson 12's f(x) = x**3 + x**2 (as x*x*x + x*x) with a constant, and a two-input neuron
F = [("mul", ("x", "x"), "x2"), ("mul", ("x2", "x"), "x3"), ("add", ("x3", "x2"), "f")]
NEURON = [("mul", ("w", "x"), "wx"), ("add", ("wx", "b"), "z"), ("tanh", ("z",), "y"),
          ("sub", ("y", "target"), "err"), ("mul", ("err", "err"), "loss")]
NEURON_LEAVES = {"w": 0.5, "x": 2.0, "b": -0.25, "target": 0.5}


def _visible_q1():
    return [
        ([("mul", ("x", "y"), "t")], ["x"]),
        ([("mul", ("x", "y"), "t")], []),
        (F, ["x"]),
        (NEURON, ["w", "b"]),
        (NEURON, ["target"]),
        (NEURON, ["x"]),
        ([("exp", ("a",), "e"), ("mul", ("b", "c"), "bc"), ("add", ("bc", "e"), "s")], ["b"]),
        ([("add", ("u", "v"), "s"), ("tanh", ("v",), "t")], ["u"]),      # v is not watched
        ([("add", ("a", "a"), "b"), ("add", ("b", "b"), "c")], ["a", "b"]),
        ([], ["x"]),
    ]


def _leaf_names(rng, k):
    return rng.sample(["a", "b", "c", "w", "x", "y", "z", "w1", "w2", "bias", "lr", "k"], k)


def _random_program(rng):
    leaves = {n: round(rng.uniform(-1.5, 1.5), 3) for n in _leaf_names(rng, rng.randint(1, 5))}
    for n in leaves:  # keep divisors away from 0
        if abs(leaves[n]) < 0.2:
            leaves[n] = 0.5
    names, values, program = list(leaves), dict(leaves), []
    for i in range(rng.randint(1, 9)):
        for _try in range(20):
            op = rng.choice(["add", "sub", "mul", "mul", "div", "exp", "tanh"])
            inputs = (rng.choice(names),) if op in ("exp", "tanh") else (rng.choice(names), rng.choice(names))
            a = values[inputs[0]]
            if op == "exp" and a > 2.5 or op == "div" and abs(values[inputs[1]]) < 0.2:
                continue
            out = f"t{i}"
            v = _run([(op, inputs, out)], values)[out]
            if abs(v) < 30:
                break
        else:
            op, inputs, out = "add", (names[0], names[0]), f"t{i}"
        program.append((op, inputs, out))
        values = _run(program[-1:], values)
        names.append(out)
    return program, leaves, values


def _random_q1(rng, n):
    out = []
    for _ in range(n):
        program, leaves, _values = _random_program(rng)
        watched = [x for x in leaves if rng.random() < 0.4]
        out.append((program, watched))
    return out


def _visible_q2(ref):
    neuron_values = _run(NEURON, NEURON_LEAVES)
    f_values = _run(F, {"x": 2.0})
    return [
        ([("mul", ("x", "y"), "t")], {"x": 2.0, "y": 3.0, "t": 6.0}, "t", ["x"]),
        ([("mul", ("x", "y"), "t")], {"x": 2.0, "y": 3.0, "t": 6.0}, "t", ["x", "y"]),
        (F, f_values, "f", ["x"]),                                   # 3*2**2 + 2*2 = 16
        (F, f_values, "x3", ["x", "x2"]),
        (ref.record(NEURON, ["w", "b"]), neuron_values, "loss", ["w", "b"]),
        (ref.record(NEURON, ["w", "b"]), neuron_values, "loss", ["w", "b", "x", "target"]),  # None
        (ref.record(NEURON, ["w", "b"]), neuron_values, "z", ["w", "b", "z", "y"]),
        ([("sub", ("a", "b"), "d"), ("div", ("d", "b"), "q")],
         {"a": 3.0, "b": 2.0, "d": 1.0, "q": 0.5}, "q", ["a", "b"]),
        ([("exp", ("a",), "e")], {"a": 0.0, "e": 1.0}, "e", ["a", "e"]),
        ([], {"x": 1.0}, "x", ["x"]),
        ([("add", ("a", "a"), "b")], {"a": 1.0, "b": 2.0}, "b", []),
    ]


def _random_q2(rng, n, ref):
    out = []
    for _ in range(n):
        program, leaves, values = _random_program(rng)
        watched = [x for x in leaves if rng.random() < 0.6] or [next(iter(leaves))]
        tape = ref.record(program, watched)
        names = list(values)
        target = tape[-1][2] if tape and rng.random() < 0.7 else rng.choice(names)
        sources = rng.sample(names, rng.randint(1, min(4, len(names))))
        out.append((tape, values, target, sources))
    return out


# ---- the exercise ---------------------------------------------------------------------------
EXERCISE = Exercise(
    name="12_gradient_tape",
    title="A gradient tape: what is recorded, and the gradients it gives",
    forbidden_calls=("numpy.*",),
    forbidden_imports=("minitorch", "torch", "jax", "tensorflow"),
    forbidden_reason="write these in plain Python (math is fine): minitorch's engine would "
                     "record and differentiate for you, which is what this exercise asks of you",
    questions=[
        QuestionSpec(
            id="q1", function="record", title="(a) what a tape records",
            solution_cell="record", test_cell="test_record",
            visible_cases=_visible_q1, random_cases=_random_q1,
            hints=[
                "A record is kept when one of its inputs is 'tracked': watched, or the output of "
                "a record the tape already kept. Its output then becomes tracked too.",
                "Walk the program once, in order, with a set of tracked names that starts as "
                "set(watched). The order matters: a later record can only depend on earlier ones.",
                "Return a new list of the kept records, as the same (op, inputs, output) tuples, "
                "in program order; [] when nothing is watched.",
            ]),
        QuestionSpec(
            id="q2", function="tape_gradient", title="(b) gradients from the tape",
            solution_cell="tape_gradient", test_cell="test_tape_gradient",
            visible_cases=_visible_q2, random_cases=_random_q2, generators_use=("record",),
            compare=approx(rel_tol=1e-9, abs_tol=1e-9),
            hints=[
                "The tape is already in the order the ops ran, so reversed(tape) visits every "
                "record after all the records that used its output: no sorting needed.",
                "Keep a dict of gradients that starts as {target: 1.0}. For each record (in "
                "reverse) whose output has a gradient g, add g * (local derivative) into each "
                "input's entry (.get(name, 0.0) + ...). exp's derivative is its output's value, "
                "tanh's is 1 - output**2; sub gives (1, -1); div x/y gives (1/y, -x/y**2).",
                "A source the walk never reached gets None (as TensorFlow's tape.gradient does), "
                "not 0.0; the target itself gets 1.0. Return a list, one entry per source.",
            ]),
    ],
)
