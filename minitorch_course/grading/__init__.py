"""Grading: a sandboxed runner (harness.py, sandbox.py), the static rules on how an answer
is written (rules.py, shared with the learner's check()), the grader (grader.py), the
gradebook writers (gradebook.py), partial credit (scoring.py), class folders and submission
times (layout.py), deadlines (late.py), the course-wide CSV (course.py), nbgrader's gradebook
(nbgrader_db.py, nbgrader_quiet.py) and the command line (cli.py).

    python -m minitorch_course.grade CLASS_DIR --exercise 03_strides --out OUT_DIR
"""
