"""Exercise 06, in place and the version counter: a tensor whose views share one storage, and
the check autograd makes before it uses a tensor it saved.

The learner writes two classes: MiniTensor (a 1-D tensor as a window onto a shared Storage:
views, out-of-place and in-place add, the version counter) and SavedValue (what a backward
node keeps: the tensor and its version, refusing to hand it back once an in-place write moved
the version). The grader only calls functions on plain data, so each question is graded
through a *driver*: run_views and run_saved, defined in a locked cell of the notebook (the
exercise's driver_cells), interpret a program (a list of plain instructions) against the
learner's classes and return plain data: values, versions, and the message of the error
SavedValue raises. The classes (reference solutions) and the drivers are the notebook's cells,
solutions/06_inplace_version.ipynb.
"""
from __future__ import annotations

from ..spec import Exercise, QuestionSpec


# ---- inputs -------------------------------------------------------------------------------
def _visible_q1():
    return [
        ([("new", "x", [0, 1, 2, 3, 4, 5]), ("add_", "x", 10)],),
        ([("new", "x", [1, 2, 3]), ("add", "y", "x", 5)],),
        ([("new", "x", [0, 1, 2, 3, 4, 5]), ("view", "evens", "x", 0, 3, 2), ("add_", "evens", 100)],),
        ([("new", "x", [0, 1, 2, 3, 4, 5]), ("view", "tail", "x", 2, 4, 1), ("add_", "x", 1),
          ("add_", "tail", 10)],),
        ([("new", "x", [0, 1, 2, 3, 4, 5, 6, 7]), ("view", "a", "x", 1, 4, 2), ("view", "b", "a", 1, 2, 2),
          ("add_", "b", 1000)],),
        ([("new", "x", [5, 6, 7]), ("add", "y", "x", 1), ("add_", "y", 1), ("add_", "x", -5)],),
        ([("new", "x", [1, 2, 3, 4]), ("view", "v", "x", 0, 4, 1), ("add", "w", "v", 0), ("add_", "w", 9)],),
        ([("new", "x", [0, 10, 20, 30]), ("view", "last", "x", 3, 1, 1), ("add_", "last", 1),
          ("add_", "last", 1)],),
        ([("new", "p", [1, 1]), ("new", "q", [2, 2]), ("add_", "p", 1), ("add_", "q", 2), ("add_", "p", 3)],),
    ]


def _random_tensor_steps(rng, n_steps, names):
    """A random program of tensor instructions over tensors named from `names`."""
    prog, sizes, k = [], {}, 0

    def fresh():
        nonlocal k
        k += 1
        return f"{names}{k}"
    for _ in range(rng.randint(1, 2)):
        name, n = fresh(), rng.randint(3, 9)
        prog.append(("new", name, [rng.randint(-9, 9) for _ in range(n)]))
        sizes[name] = n
    for _ in range(n_steps):
        how, src = rng.random(), rng.choice(sorted(sizes))
        if how < 0.35:
            start = rng.randrange(sizes[src])
            step = rng.choice([1, 1, 2, 3])
            size = rng.randint(1, len(range(start, sizes[src], step)))
            name = fresh()
            prog.append(("view", name, src, start, size, step))
            sizes[name] = size
        elif how < 0.5:
            name = fresh()
            prog.append(("add", name, src, rng.randint(-5, 5)))
            sizes[name] = sizes[src]
        else:
            prog.append(("add_", src, rng.choice([1, 2, 10, -3, 100])))
    return prog, sizes


def _random_q1(rng, n):
    return [(_random_tensor_steps(rng, rng.randint(2, 8), "t")[0],) for _ in range(n)]


def _visible_q2():
    return [
        ([("new", "x", [1, 2, 3]), ("save", "s", "x"), ("unpack", "s")],),
        ([("new", "x", [1, 2, 3]), ("save", "s", "x"), ("add_", "x", 1), ("unpack", "s")],),
        ([("new", "x", [1, 2, 3]), ("add_", "x", 1), ("save", "s", "x"), ("unpack", "s"), ("add_", "x", 1),
          ("add_", "x", 1), ("unpack", "s")],),
        ([("new", "x", [0, 1, 2, 3]), ("view", "row", "x", 0, 2, 1), ("save", "s", "x"), ("add_", "row", 5),
          ("unpack", "s")],),
        ([("new", "x", [0, 1, 2, 3]), ("add", "y", "x", 1), ("save", "s", "x"), ("add_", "y", 5),
          ("unpack", "s")],),
        ([("new", "x", [4, 5]), ("save", "a", "x"), ("add_", "x", 1), ("save", "b", "x"), ("unpack", "a"),
          ("unpack", "b")],),
        ([("new", "x", [0, 1, 2, 3, 4, 5]), ("view", "odd", "x", 1, 3, 2), ("save", "s", "odd"),
          ("add_", "x", 1), ("unpack", "s")],),
    ]


def _random_q2(rng, n):
    out = []
    for _ in range(n):
        prog, sizes = _random_tensor_steps(rng, rng.randint(1, 4), "t")
        keys = []
        for _ in range(rng.randint(3, 8)):
            how = rng.random()
            if how < 0.3 or not keys:
                key = f"s{len(keys) + 1}"
                prog.append(("save", key, rng.choice(sorted(sizes))))
                keys.append(key)
            elif how < 0.6:
                prog.append(("unpack", rng.choice(keys)))
            else:
                prog.append(("add_", rng.choice(sorted(sizes)), rng.choice([1, -1, 7])))
        prog.append(("unpack", rng.choice(keys)))
        out.append((prog,))
    return out


# ---- the exercise ---------------------------------------------------------------------------
EXERCISE = Exercise(
    name="06_inplace_version",
    title="In place: shared storage, views and the version counter",
    driver_cells=("storage_and_drivers",),
    forbidden_imports=("minitorch", "torch", "jax", "tensorflow"),
    forbidden_reason="these classes must be plain Python: minitorch's tensors do this for you, "
                     "which is what this exercise asks you to do",
    questions=[
        QuestionSpec(
            id="q1", function="run_views", title="(a) MiniTensor: views, add and add_",
            solution_cell="mini_tensor", test_cell="test_mini_tensor", answer="MiniTensor",
            visible_cases=_visible_q1, random_cases=_random_q1,
            hints=[
                "A MiniTensor owns no numbers: element i lives at storage.values[offset + i * stride]. "
                "tolist() reads them; add_ writes them; every view of the same storage sees the write.",
                "view(start, size, step) makes a MiniTensor over the *same* storage: its first element "
                "is this tensor's element `start` (so the offset moves by start * self.stride) and one "
                "step is `step` of this tensor's steps (stride self.stride * step).",
                "add(c) builds a new Storage from [v + c for v in self.tolist()] (version 0); add_(c) "
                "adds c at each of its positions in the storage, then storage.version += 1 once, and "
                "returns self. version reads storage.version, so all views share it.",
            ]),
        QuestionSpec(
            id="q2", function="run_saved", title="(b) SavedValue: refuse a tensor modified in place",
            solution_cell="saved_value", test_cell="test_saved_value", answer="SavedValue",
            visible_cases=_visible_q2, random_cases=_random_q2,
            hints=[
                "Saving must remember two things: the tensor itself (not a copy) and its version at "
                "that moment.",
                "unpack() compares the tensor's version now with the one remembered. Any in-place write "
                "to the storage, through the tensor or any view of it, moved it; a write to a copy "
                "made by add() did not.",
                "When they differ, raise RuntimeError(f\"modified by an inplace operation: is at "
                "version {now}; expected version {saved}\"); otherwise return the tensor itself.",
            ]),
    ],
)
