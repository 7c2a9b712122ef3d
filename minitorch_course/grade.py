"""`python -m minitorch_course.grade CLASS_DIR --exercise NAME --out DIR`: see grading/cli.py."""
import sys

from .grading.cli import main

if __name__ == "__main__":
    sys.exit(main())
