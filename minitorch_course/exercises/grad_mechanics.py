"""Exercise 11, autograd mechanics: which tensors record a graph (grad modes, detach), and what
.grad holds after a sequence of backward passes (accumulation, retain_graph, zero_grad, hooks).

Both questions are simulations on plain data: a program of instructions in, plain data out
(a dict of booleans; a dict of gradients and the list of steps that raised). The notebook then
runs the same programs on real minitorch tensors and compares. Gradients are compared with a
float tolerance (a hook's scale may be applied in either order).
The reference solutions are the solution cells of solutions/11_grad_mechanics.ipynb.
"""
from __future__ import annotations

from ._approx import approx
from ..spec import Exercise, QuestionSpec


# ---- inputs -------------------------------------------------------------------------------
def _visible_q1():
    return [
        ([("leaf", "w", True), ("op", "y", ["w"])],),
        ([("leaf", "w", True), ("no_grad",), ("op", "y", ["w"]), ("end",), ("op", "z", ["w"])],),
        ([("leaf", "x", False), ("leaf", "w", True), ("op", "y", ["x"]), ("op", "z", ["x", "w"])],),
        ([("leaf", "w", True), ("detach", "d", "w"), ("op", "y", ["d"]), ("op", "z", ["d", "w"])],),
        ([("leaf", "w", True), ("no_grad",), ("enable_grad",), ("op", "y", ["w"]), ("end",),
          ("op", "z", ["w"]), ("end",)],),
        ([("leaf", "w", True), ("set_grad_enabled", False), ("op", "y", ["w"]), ("end",),
          ("set_grad_enabled", True), ("op", "z", ["w", "y"]), ("end",)],),
        ([("no_grad",), ("leaf", "w", True), ("op", "y", ["w"]), ("end",), ("op", "z", ["y"])],),
        ([],),
    ]


def _random_q1(rng, n):
    out = []
    for _ in range(n):
        prog, names, depth = [], [], 0
        for k in range(rng.randint(1, 14)):
            r = rng.random()
            name = f"t{k}"
            if not names or r < 0.2:
                prog.append(("leaf", name, rng.random() < 0.6))
                names.append(name)
            elif r < 0.55:
                prog.append(("op", name, rng.sample(names, rng.randint(1, min(3, len(names))))))
                names.append(name)
            elif r < 0.65:
                prog.append(("detach", name, rng.choice(names)))
                names.append(name)
            elif r < 0.85 or depth == 0:
                block = rng.choice([("no_grad",), ("enable_grad",), ("set_grad_enabled", rng.random() < 0.5)])
                prog.append(block)
                depth += 1
            else:
                prog.append(("end",))
                depth -= 1
        prog += [("end",)] * depth
        out.append((prog,))
    return out


def _visible_q2():
    return [
        ([("forward", "loss", {"w": [2.0, -2.0]}), ("backward", "loss", False)],),
        ([("forward", "loss", {"w": [2.0, -2.0]}), ("backward", "loss", False),
          ("forward", "loss", {"w": [2.0, -2.0]}), ("backward", "loss", False)],),   # accumulates
        ([("forward", "y", {"x": [1.0]}), ("backward", "y", False), ("backward", "y", False)],),  # twice
        ([("forward", "y", {"x": [1.0]}), ("backward", "y", True), ("backward", "y", False)],),   # retain
        ([("forward", "a", {"w": [1.0], "b": [0.5]}), ("backward", "a", False), ("zero_grad",),
          ("forward", "a", {"w": [3.0], "b": [0.5]}), ("backward", "a", False)],),
        ([("hook", "x", 0.5), ("forward", "y", {"x": [4.0, 8.0]}), ("backward", "y", False)],),
        ([("forward", "y", {"x": [4.0]}), ("hook", "x", 2.0), ("hook", "x", -1.0), ("backward", "y", False)],),
        ([("forward", "y", {"x": [1.0, 2.0]}), ("zero_grad",)],),                    # never backward: None
        ([("forward", "y", {"x": [1.0]}), ("forward", "z", {"x": [10.0], "w": [1.0]}),
          ("backward", "z", False), ("backward", "y", False), ("backward", "z", False)],),
    ]


def _random_q2(rng, n):
    out = []
    for _ in range(n):
        leaves = rng.sample(["w", "b", "x", "h"], rng.randint(1, 3))
        sizes = {leaf: rng.randint(1, 3) for leaf in leaves}
        graphs, events = [], []
        for _ in range(rng.randint(1, 10)):
            r = rng.random()
            if not graphs or r < 0.3:
                g = rng.choice(["loss", "y", "z"])
                used = rng.sample(leaves, rng.randint(1, len(leaves)))
                events.append(("forward", g, {leaf: [float(rng.randint(-8, 8)) / 2 for _ in range(sizes[leaf])]
                                              for leaf in used}))
                graphs.append(g)
            elif r < 0.75:
                events.append(("backward", rng.choice(graphs), rng.random() < 0.3))
            elif r < 0.88:
                events.append(("zero_grad",))
            else:
                events.append(("hook", rng.choice(leaves), rng.choice([0.5, 2.0, -1.0, 0.0])))
        out.append((events,))
    return out


# ---- the exercise ---------------------------------------------------------------------------
EXERCISE = Exercise(
    name="11_grad_mechanics",
    title="Autograd mechanics: who records a graph, and what .grad holds",
    forbidden_imports=("minitorch", "torch", "jax", "tensorflow"),
    forbidden_reason="simulate the rules in plain Python: minitorch would answer for you",
    questions=[
        QuestionSpec(
            id="q1", function="requires_grad_after", title="(a) requires_grad under grad modes and detach",
            solution_cell="requires_grad_after", test_cell="test_requires_grad_after",
            visible_cases=_visible_q1, random_cases=_random_q1,
            hints=[
                "Keep a stack of grad modes, starting with [True]: no_grad pushes False, enable_grad "
                "pushes True, set_grad_enabled(flag) pushes flag, end pops. The mode is the top.",
                "A leaf gets the flag it was made with, whatever the mode. An operation's result "
                "requires grad when recording is on (the top of the stack) and any input requires grad.",
                "detach() always gives requires_grad=False, and so does anything computed only from "
                "such tensors. Return a dict with every tensor's name.",
            ]),
        QuestionSpec(
            id="q2", function="grads_after", title="(b) .grad after backward, twice, zero_grad and hooks",
            solution_cell="grads_after", test_cell="test_grads_after",
            visible_cases=_visible_q2, random_cases=_random_q2,
            compare=approx(rel_tol=1e-9, abs_tol=1e-12),
            hints=[
                "Every leaf named in a forward starts with .grad None. A backward adds the graph's "
                "gradient into each leaf's .grad (None + g is g): gradients accumulate.",
                "A backward without retain frees the graph: a second backward of it raises (record its "
                "index, change nothing) until a new forward of that name builds it again. With "
                "retain=True the graph stays usable.",
                "zero_grad sets every .grad to None. Hooks registered on a leaf (in order) scale the "
                "gradient of every later backward before it is added. Return (grads, errors).",
            ]),
    ],
)
