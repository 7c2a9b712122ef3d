"""Exercise 19, your minitorch: the parts you wrote in exercises 03-16, assembled in one notebook,
each checked again, then minitorch's tests and a training run on them (the capstone).

Each question is one part (minitorch_course/parts.py: PARTS): the same function, inputs,
comparison and hints as in the exercise where it was first written, so a part graded here is
graded as it was there. The notebook then runs capstone.run_tests() and capstone.train() on the
functions defined in it (in the learner's own process; the grader scores the questions).
The reference solutions are the solution cells of solutions/19_your_minitorch.ipynb.
"""
from __future__ import annotations

import dataclasses

from ..parts import ASSEMBLED
from ..spec import Exercise
from . import backward_formulas, broadcasting, embedding, im2col, optimizer_steps, strides, topological_sort, views

_SOURCES = {m.EXERCISE.name: m.EXERCISE for m in (strides, broadcasting, views, topological_sort, backward_formulas,
                                                  optimizer_steps, im2col, embedding)}


def _question(i, part):
    source = next(q for q in _SOURCES[part.exercise].questions if q.id == part.question)
    return dataclasses.replace(
        source, id=f"q{i}", title=f"{part.name} (from {part.exercise} {part.question})",
        solution_cell=part.name, test_cell=f"test_{part.name}")


EXERCISE = Exercise(
    name="19_your_minitorch",
    title="Your minitorch: your parts, assembled, train a model",
    forbidden_calls=("numpy.lib.stride_tricks.as_strided", "numpy.lib.stride_tricks.sliding_window_view",
                     "numpy.convolve", "numpy.correlate"),
    forbidden_imports=("minitorch", "torch", "jax", "tensorflow", "graphlib", "networkx", "sympy", "optax",
                       "scipy", "skimage", "cv2"),
    forbidden_types=("builtins.memoryview", "numpy.ndarray"),
    forbidden_attributes=("strides=", "__array_interface__", "__array_struct__"),
    forbidden_reason="each part is yours: minitorch, PyTorch and the libraries that would do a part for you "
                     "(graph sorts, symbolic derivatives, optimizers, sliding windows) are not allowed",
    questions=[_question(i, part) for i, part in enumerate(ASSEMBLED, start=1)],
)
