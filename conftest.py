"""pytest, for the whole checkout. Notebooks run under nbval (notebooks/, solutions/,
exercises/) start kernels that inherit this process's environment, and their q1.check() calls
record progress: send it to a throwaway file, never to the developer's own
~/.minitorch/progress.json (a test that needs its own file still sets MINITORCH_PROGRESS)."""
import atexit
import os
import shutil
import tempfile
from pathlib import Path

_DIR = tempfile.mkdtemp(prefix="minitorch-tests-")
os.environ["MINITORCH_PROGRESS"] = str(Path(_DIR) / "progress.json")
atexit.register(shutil.rmtree, _DIR, True)
