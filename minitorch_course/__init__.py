"""The course machinery: exercises with check/hint/solution, progress, release and grading.

    from minitorch_course import load_exercise, show_progress
    q1, q2, q3 = load_exercise("03_strides")
    use_mine(); mine()     # minitorch on the parts you wrote (each saved when its check passed)

Instructors:  python -m minitorch_course.release            (solutions/ -> exercises/)
              python -m minitorch_course.grade CLASS_DIR --exercise 03_strides --out OUT
"""
from __future__ import annotations

from .check import CheckFailed, CheckResult, Question, load_exercise
from .parts import mine, use_library, use_mine
from .progress import export_progress, import_progress, show_progress

__all__ = ["CheckFailed", "CheckResult", "Question", "export_progress", "import_progress", "load_exercise",
           "mine", "show_progress", "use_library", "use_mine"]
