"""Submissions that try to score without earning it, and honest ones that must keep every
point: test fixtures for the grader (see tests/test_grading_attacks.py). Never part of the
course's own files."""
