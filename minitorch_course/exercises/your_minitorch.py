"""Exercise 19, your minitorch: the parts you wrote in exercises 03-16, assembled in one notebook,
each checked again, then minitorch's tests and a training run on them (the capstone).

Questions q1-q17 are one part each (minitorch_course/parts.py: ASSEMBLED): the same function,
inputs, comparison and hints as in the exercise where it was first written, so a part graded here
is graded as it was there. Questions q18-q34 grade the same parts again, in the same order, on
the capstone's tests (capstone.TESTS): each case is one of minitorch's tests of that part, run by
the driver `capstone_test` with the part plugged into minitorch (the library's code for every
other part), and its value is compared with the one the reference part gives on the same path,
with the test's precision. The notebook then runs capstone.run_tests() and capstone.train() on
the functions defined in it. The reference solutions are the solution cells of
solutions/19_your_minitorch.ipynb.
"""
from __future__ import annotations

import dataclasses

from .. import capstone
from ..parts import ASSEMBLED
from ..spec import Exercise, QuestionSpec, within
from . import backward_formulas, broadcasting, embedding, im2col, optimizer_steps, strides, topological_sort, views

_SOURCES = {m.EXERCISE.name: m.EXERCISE for m in (strides, broadcasting, views, topological_sort, backward_formulas,
                                                  optimizer_steps, im2col, embedding)}


def _question(i, part):
    source = next(q for q in _SOURCES[part.exercise].questions if q.id == part.question)
    return dataclasses.replace(
        source, id=f"q{i}", title=f"{part.name} (from {part.exercise} {part.question})",
        solution_cell=part.name, test_cell=f"test_{part.name}")


def _describe(args):
    part, name = args
    test = next(t for t in capstone.tests_of(part) if t.name == name)
    return f"{test.input}  [minitorch's test {name}, on your {part}]"


def _capstone_question(i, part, first):
    rtol, atol = capstone.precision_of(part.name)
    names = [t.name for t in capstone.tests_of(part.name)]
    return QuestionSpec(
        id=f"q{i}", function="capstone_test", answer=part.function,
        title=f"minitorch's tests of {part.what}, on your {part.name}",
        solution_cell=part.name, test_cell=f"capstone_{part.name}",
        visible_cases=lambda names=names, part=part.name: [(part, n) for n in names],
        random_cases=lambda rng, n: [], visible_random=0,
        compare=within(rtol, atol), describe=_describe,
        hints=[f"Each case is one of minitorch's own tests, run with your {part.function} plugged in (the "
               f"library's code for the other parts); the message shows what the test does, the value it "
               f"expected and the one it got. Make q{first}.check() pass first: these tests use {part.function} "
               "on the inputs minitorch gives it.",
               "A case can fail while q{0}.check() passes when your function returns the right values in a "
               "form the library cannot use (a list where a tuple of ints is asked, numpy scalars, ...) or "
               "changes its inputs in place.".format(first)])


EXERCISE = Exercise(
    name="19_your_minitorch",
    title="Your minitorch: your parts, assembled, train a model",
    # decided by reading the source only: the capstone's tests run minitorch itself in the same
    # process, and minitorch builds its views with as_strided
    forbidden_types=("numpy.lib.stride_tricks.as_strided", "numpy.lib.stride_tricks.sliding_window_view",
                     "numpy.convolve", "numpy.correlate", "builtins.memoryview", "numpy.ndarray"),
    forbidden_imports=("minitorch", "torch", "jax", "tensorflow", "graphlib", "networkx", "sympy", "optax",
                       "scipy", "skimage", "cv2"),
    forbidden_attributes=("strides=", "__array_interface__", "__array_struct__"),
    forbidden_reason="each part is yours: minitorch, PyTorch and the libraries that would do a part for you "
                     "(graph sorts, symbolic derivatives, optimizers, sliding windows) are not allowed",
    driver_cells=("capstone_driver",),
    driver_imports=("minitorch.*", "minitorch_course.capstone"),
    questions=([_question(i, part) for i, part in enumerate(ASSEMBLED, start=1)]
               + [_capstone_question(i, part, i - len(ASSEMBLED))
                  for i, part in enumerate(ASSEMBLED, start=len(ASSEMBLED) + 1)]),
)
