"""Running a course notebook the way a learner does (a fresh kernel, top to bottom, errors
kept as outputs), and reading back what its cells printed. Shared by the exercise tests."""
import pytest


def execute(path, tmp_path, timeout=90):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    nb = nbformat.read(path, as_version=4)
    nbclient.NotebookClient(nb, timeout=timeout, kernel_name="python3", allow_errors=True,
                            resources={"metadata": {"path": str(tmp_path)}}).execute()
    return nb


def cell_text(cell):
    """Everything a cell showed: streams, tracebacks, error names and plain-text results."""
    out = []
    for o in cell.get("outputs", []):
        out.append(o.get("text", "") + "".join(o.get("traceback", [])) + o.get("ename", ""))
        out.append(str(o.get("data", {}).get("text/plain", "")))
    return "\n".join(out)


def notebook_text(nb):
    return "\n".join(cell_text(c) for c in nb.cells)
