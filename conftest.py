"""pytest, for the whole checkout. Notebooks run under nbval (notebooks/, solutions/,
exercises/) start kernels that inherit this process's environment, and their q1.check() calls
record progress: send it to a throwaway file, never to the developer's own
~/.minitorch/progress.json (a test that needs its own file still sets MINITORCH_PROGRESS)."""
import atexit
import os
import shutil
import tempfile
from pathlib import Path

import pytest

_DIR = tempfile.mkdtemp(prefix="minitorch-tests-")
os.environ["MINITORCH_PROGRESS"] = str(Path(_DIR) / "progress.json")
atexit.register(shutil.rmtree, _DIR, True)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """A notebook's cells run in one kernel, in order: under `-n`, each file's items stay on one
    worker (what `make test` asks with --dist loadfile), also when the command line says only -n."""
    if config.getoption("dist", "load") == "load":
        from xdist.scheduler import LoadFileScheduling
        return LoadFileScheduling(config, log)
    return None
