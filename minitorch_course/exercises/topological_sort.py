"""Exercise 09, topological sort: the order a backward pass visits a graph, and backprop by hand.

Graphs are plain data (dicts of node names), so the learner's code is plain Python and the
answers are plain data: an order (a list of names, made unique by a tie-breaking rule) and a
dict of gradients (floats, compared within a small tolerance, since a gradient summed along
several paths may be added up in any order). The reference solutions are the solution cells
of solutions/09_topological_sort.ipynb.
"""
from __future__ import annotations

import math

from ..spec import Exercise, QuestionSpec
from ._approx import approx


# ---- inputs -------------------------------------------------------------------------------
# y = tanh-free version of lesson 09's running example: y = a*b + exp(a)
EXAMPLE = {"a": ("leaf", 2.0), "b": ("leaf", -3.0), "ab": ("mul", "a", "b"),
           "ea": ("exp", "a"), "y": ("add", "ab", "ea")}


def _graph_of(nodes):
    return {name: [a for a in node[1:] if node[0] != "leaf"] for name, node in nodes.items()}


def _visible_q1():
    return [
        ({"y": ["a", "b"], "a": [], "b": []},),
        ({"x": []},),
        ({"y": ["x", "x"], "x": []},),                       # x*x: one input used twice
        (_graph_of(EXAMPLE),),
        ({"d": ["c"], "c": ["b"], "b": ["a"], "a": []},),    # a chain
        ({"z": ["b", "a"], "b": ["a"], "a": []},),          # a is an input of z and of b
        ({"loss": ["p2"], "p2": ["h", "w2"], "h": ["p1"], "p1": ["x", "w1"],
          "x": [], "w1": [], "w2": []},),
        ({"u": ["a"], "v": ["a"], "a": []},),                # two outputs share an input
        ({"c": [], "b": [], "a": []},),                      # no edges at all: alphabetical
        ({"n1": ["n0"], "n10": ["n1", "n2"], "n2": ["n0"], "n0": []},),
    ]


def _names(rng, n):
    pool = ["a", "b", "c", "d", "e", "f", "g", "h", "k", "m", "p", "q", "r", "s", "t", "u", "v",
            "w", "x", "y", "z", "h1", "h2", "w1", "w2", "out", "loss", "n10", "n2", "A", "B"]
    return rng.sample(pool, n)


def _random_dag(rng, n, p):
    """A random DAG on n shuffled names: edges only from later to earlier nodes of a hidden
    order, so no cycles; names are shuffled so alphabetical order tells nothing."""
    names = _names(rng, n)
    graph = {}
    for i, node in enumerate(names):
        inputs = [names[j] for j in range(i) if rng.random() < p]
        if inputs and rng.random() < 0.2:
            inputs.append(rng.choice(inputs))  # an input used twice
        rng.shuffle(inputs)
        graph[node] = inputs
    keys = list(graph)
    rng.shuffle(keys)
    return {k: graph[k] for k in keys}


def _random_q1(rng, n):
    return [(_random_dag(rng, rng.randint(1, 14), rng.choice([0.15, 0.3, 0.5])),) for _ in range(n)]


def _visible_q2():
    return [
        ({"x": ("leaf", 3.0), "y": ("mul", "x", "x")}, "y"),
        (EXAMPLE, "y"),
        ({"a": ("leaf", 1.5), "b": ("leaf", -0.5), "s": ("add", "a", "b")}, "s"),
        ({"x": ("leaf", 0.5), "e": ("exp", "x"), "ee": ("exp", "e")}, "ee"),
        ({"x": ("leaf", 2.0), "unused": ("leaf", 7.0), "y": ("exp", "x")}, "y"),
        ({"x": ("leaf", 4.0)}, "x"),
        ({"x": ("leaf", -1.0), "w": ("leaf", 0.5), "b": ("leaf", 0.25), "wx": ("mul", "w", "x"),
          "z": ("add", "wx", "b"), "e": ("exp", "z"), "y": ("mul", "e", "x")}, "y"),
        (EXAMPLE, "ab"),                                    # the output need not be the last node
        ({"a": ("leaf", 1.0), "b": ("add", "a", "a"), "c": ("add", "b", "b"),
          "d": ("add", "c", "c")}, "d"),                   # a diamond of diamonds: 8
    ]


def _random_q2(rng, n):
    out = []
    for _ in range(n):
        names = _names(rng, rng.randint(2, 12))
        n_leaves = rng.randint(1, max(1, len(names) // 2))
        nodes, vals = {}, {}
        for i, name in enumerate(names):
            if i < n_leaves:
                v = round(rng.uniform(-1.5, 1.5), 3)
                nodes[name], vals[name] = ("leaf", v), v
                continue
            for _try in range(20):
                op = rng.choice(["add", "mul", "mul", "exp"])
                a, b = rng.choice(names[:i]), rng.choice(names[:i])
                v = (vals[a] + vals[b] if op == "add" else vals[a] * vals[b] if op == "mul"
                     else math.exp(vals[a]) if vals[a] < 3 else None)
                if v is not None and abs(v) < 50:
                    break
            else:
                op, a, b, v = "add", names[0], names[0], 2 * vals[names[0]]
            nodes[name] = (op, a) if op == "exp" else (op, a, b)
            vals[name] = v
        keys = list(nodes)
        rng.shuffle(keys)
        output = names[-1] if rng.random() < 0.8 else rng.choice(names)
        out.append(({k: nodes[k] for k in keys}, output))
    return out


# ---- the exercise ---------------------------------------------------------------------------
EXERCISE = Exercise(
    name="09_topological_sort",
    title="Topological sort: the order of a backward pass",
    forbidden_calls=("numpy.*",),
    forbidden_imports=("minitorch", "torch", "jax", "tensorflow", "graphlib", "networkx"),
    forbidden_reason="write these in plain Python: minitorch, graphlib and friends would do the "
                     "sorting and the differentiating for you, which is what this exercise asks of you",
    questions=[
        QuestionSpec(
            id="q1", function="topo_order", title="(a) every node before its inputs",
            solution_cell="topo_order", test_cell="test_topo_order",
            visible_cases=_visible_q1, random_cases=_random_q1,
            hints=[
                "A node may be placed once every node that USES it (its consumers) has been "
                "placed. At the start that is true only of the outputs: nodes nobody uses.",
                "Count, for each node, how many distinct consumers it has. Keep a sorted list of "
                "'ready' nodes (count 0). Repeatedly take the smallest ready node, append it to "
                "the order, and lower the count of each of its distinct inputs; an input whose "
                "count reaches 0 becomes ready.",
                "Use set(graph[node]) so that an input listed twice (x*x) is counted once, and "
                "sort the ready list after adding to it. Return a list of every node in graph.",
            ]),
        QuestionSpec(
            id="q2", function="backprop_scalar", title="(b) backprop over an expression graph",
            solution_cell="backprop_scalar", test_cell="test_backprop_scalar",
            visible_cases=_visible_q2, random_cases=_random_q2,
            compare=approx(rel_tol=1e-9, abs_tol=1e-9),
            hints=[
                "Two passes. Forward: compute the value of every node from its inputs. Backward: "
                "start with grad[output] = 1.0 and grad 0.0 everywhere else.",
                "Visit the nodes in topo_order of the graph {name: inputs} (leaves have no "
                "inputs): a node's gradient is complete before it is sent on. add sends g to both "
                "inputs; mul sends g * (the other input's value); exp sends g * exp(input), which "
                "is the node's own value.",
                "Always += into the input's gradient: an input used twice (mul, 'x', 'x') or by "
                "two nodes gets both shares. Return {leaf: float} for every leaf, 0.0 for a leaf "
                "the output does not depend on.",
            ]),
    ],
)
