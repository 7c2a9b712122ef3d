"""Build the lesson notebooks from their Python sources, run them, and store their outputs.

A lesson is written once, as a plain Python file in jupytext's "percent" format, which VS Code,
PyCharm and Spyder also run cell by cell (tools/lessons/NN_name.py); jupytext reads it:

    # %% [markdown]
    # # A title
    # Some *markdown*; every line starts with "# ".

    # %% id="shape-attr" claims="C08 C49"
    t = torch.zeros(2, 3)
    t.shape

Options after `# %%` are jupytext's cell metadata, `key=value` pairs with JSON values:
    id="..."       a stable cell id (notebooks/README.md points at cells by id)
    claims="C08"   the seed claims this cell demonstrates (space separated); needs an id
    tags=[...]     notebook cell tags, e.g. ["nbval-ignore-output"] for a cell whose output
                   depends on the machine (it still runs under nbval, its output is not compared)
    jupyter={"source_hidden": true}   JupyterLab shows the cell's code folded

This script adds what every lesson has (the Colab and Binder badges and the Colab-only install
cell, all derived from minitorch_course/links.py), executes the notebook in a fresh kernel of the
current Python environment, makes the result deterministic (cell ids, widget ids, no timings, no
Python version in the metadata), refuses a notebook with an error output, writes
notebooks/NN_name.ipynb, and regenerates the lesson and claims tables in notebooks/README.md
and the badges of README.md. A lesson with a graded exercise (an exercise module of
minitorch_course.exercises whose name starts with the lesson's number) ends with a link to
exercises/NN_name.ipynb.

    python tools/make_notebook.py              # build and run every lesson
    python tools/make_notebook.py 01 03        # only lessons whose name starts with these
    python tools/make_notebook.py --readme     # only regenerate the tables and badges of the READMEs
    python tools/make_notebook.py --check      # do notebooks and README match their sources? (no kernel)
    python tools/make_notebook.py 02 --output-dir /tmp/nb   # a trial run that leaves notebooks/ alone
"""
from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
import uuid
from pathlib import Path

import jupytext
import nbformat

ROOT = Path(__file__).resolve().parent.parent
LESSONS = ROOT / "tools" / "lessons"
NOTEBOOKS = ROOT / "notebooks"
README = NOTEBOOKS / "README.md"
ROOT_README = ROOT / "README.md"
TIMEOUT_PER_CELL = 120  # seconds; a lesson must run in well under a minute in all

sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(ROOT))
from claims import CLAIMS, LESSONS as PLAN, PLANNED  # noqa: E402
from minitorch_course import links  # noqa: E402  (the one setting naming the repository)


# ---- parsing ---------------------------------------------------------------------------------

# Cell options a lesson may set; anything else is a typo that would silently do nothing.
OPTIONS = {"id", "claims", "tags", "jupyter"}


def parse(path: Path) -> list[dict]:
    """The cells of a percent-format file: [{"type", "source", "options"}], read by jupytext."""
    nb = jupytext.read(path, fmt="py:percent")
    cells = []
    for i, cell in enumerate(nb.cells):
        options = {k: v for k, v in cell.metadata.items() if k != "lines_to_next_cell"}
        where = f"{path.name}, cell {i} ({options.get('id', cell.cell_type)})"
        unknown = sorted(set(options) - OPTIONS)
        if unknown:
            raise SyntaxError(f"{where}: unknown cell option(s) {unknown}; known: {sorted(OPTIONS)}")
        if options.get("claims") and "id" not in options:
            raise SyntaxError(f"{where}: a cell with claims needs an id=\"...\"")
        cells.append({"type": cell.cell_type, "source": cell.source, "options": options})
    return cells


_TORCH_BRANCH = re.compile(r"\bif\s+(not\s+)?HAVE_TORCH\b|\bcompare_with_pytorch\(")


def colab_badge(name: str) -> str:
    """The Colab and Binder badges a lesson opens with."""
    return links.badges(f"notebooks/{name}.ipynb")


def build_cells(name: str, parsed: list[dict]) -> list:
    """Notebook cells for a lesson: badge + Colab install cell + the lesson's own cells."""
    cells = []
    first_md = next(i for i, c in enumerate(parsed) if c["type"] == "markdown")
    if first_md != 0:
        raise SyntaxError(f"{name}: a lesson starts with a markdown cell (its title)")
    seen = set()
    for i, c in enumerate(parsed):
        src = c["source"]
        if i == 0:
            src = colab_badge(name) + "\n\n" + src
        make = nbformat.v4.new_markdown_cell if c["type"] == "markdown" else nbformat.v4.new_code_cell
        cell = make(src)
        opts = c["options"]
        cell.id = opts.get("id") or f"{'md' if c['type'] == 'markdown' else 'code'}-{i:02d}"
        if cell.id in seen:
            raise SyntaxError(f"{name}: duplicate cell id {cell.id!r}")
        seen.add(cell.id)
        tags = list(opts.get("tags") or [])
        # A cell that branches on whether PyTorch is installed prints something else where it
        # is (CI installs it): it still runs and can fail an assert, but its output is not compared.
        if c["type"] == "code" and _TORCH_BRANCH.search(src) and "nbval-ignore-output" not in tags:
            tags.append("nbval-ignore-output")
        if tags:
            cell.metadata["tags"] = tags
        if opts.get("claims"):
            cell.metadata["claims"] = opts["claims"].split()
        if opts.get("jupyter"):  # e.g. {"source_hidden": true}: JupyterLab shows the cell folded
            cell.metadata["jupyter"] = opts["jupyter"]
        cells.append(cell)
        if i == 0:
            setup = nbformat.v4.new_code_cell(links.colab_install_cell())
            setup.id = "colab-setup"
            cells.append(setup)
    return cells


def exercise_cell(name: str):
    """The last cell of a lesson that has a graded exercise (numbered after its lesson), or None."""
    sys.path.insert(0, str(ROOT))
    from minitorch_course.exercises import all_exercises
    found = [ex for n, ex in all_exercises().items() if n[:2] == name[:2]]
    if not found:
        return None
    links = "\n".join(f"Exercise: [exercises/{ex.notebook}](../exercises/{ex.notebook})"
                      for ex in found)
    cell = nbformat.v4.new_markdown_cell(links)
    cell.id = "exercise-link"
    return cell


def new_notebook(name: str) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.cells = build_cells(name, parse(LESSONS / f"{name}.py"))
    link = exercise_cell(name)
    if link is not None:
        nb.cells.append(link)
    nb.metadata = {
        "kernelspec": {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"},
        "language_info": {"name": "python"},
        "colab": {"provenance": []},
    }
    return nb


# ---- executing -------------------------------------------------------------------------------

def _kernel_manager():
    """A kernel running *this* Python (the project venv), whatever `python` is on PATH."""
    from jupyter_client.kernelspec import KernelSpec, KernelSpecManager
    from jupyter_client.manager import KernelManager

    class HereSpecs(KernelSpecManager):
        def get_kernel_spec(self, kernel_name):
            return KernelSpec(argv=[sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
                              display_name="Python 3 (ipykernel)", language="python")

    return KernelManager(kernel_name="python3", kernel_spec_manager=HereSpecs())


def execute(nb: nbformat.NotebookNode) -> float:
    from nbclient import NotebookClient
    client = NotebookClient(nb, km=_kernel_manager(), timeout=TIMEOUT_PER_CELL, record_timing=False,
                            store_widget_state=True, allow_errors=False,
                            resources={"metadata": {"path": str(NOTEBOOKS)}})
    t0 = time.perf_counter()
    env = dict(os.environ, PYTHONHASHSEED="0", MPLBACKEND="module://matplotlib_inline.backend_inline")
    client.execute(env=env)
    return time.perf_counter() - t0


_WIDGET_ID = re.compile(r"[0-9a-f]{32}")
_UNSTABLE = [
    (re.compile(r"\b0x[0-9a-fA-F]{6,}\b"), "a memory address"),
    (re.compile(r"(?<![\w:/.])(/(home|Users|tmp|work|root|usr|opt)/|[A-Za-z]:\\\\)"), "an absolute path"),
]


def normalise(nb: nbformat.NotebookNode, name: str) -> None:
    """Make a freshly executed notebook byte-for-byte reproducible, and refuse a broken one."""
    if not _widget_state(nb):
        nb.metadata.pop("widgets", None)
    nb.metadata["language_info"] = {"name": "python"}  # drop the Python version of this machine
    nb.metadata["kernelspec"] = {"display_name": "Python 3 (ipykernel)", "language": "python",
                                 "name": "python3"}
    problems = []
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
        if cell.cell_type != "code":
            continue
        ignored = "nbval-ignore-output" in cell.metadata.get("tags", [])
        for out in cell.outputs:
            if out.output_type == "error":
                problems.append(f"cell {cell.id}: {out.ename}: {out.evalue}")
            if out.output_type == "stream" and out.name == "stderr":
                problems.append(f"cell {cell.id}: writes to stderr: {out.text[:200]!r}")
            text = out.get("text", "") + "".join(
                v for k, v in out.get("data", {}).items() if k.startswith("text/") and isinstance(v, str))
            for pattern, what in _UNSTABLE:
                if not ignored and pattern.search(text):
                    problems.append(f"cell {cell.id}: output shows {what} (machine-dependent): "
                                    f"{pattern.search(text).group(0)!r}; print something stable, or tag "
                                    "the cell nbval-ignore-output")
    if problems:
        raise RuntimeError(f"{name}: refusing to store this notebook:\n  " + "\n  ".join(problems))
    # widget model ids are random uuids: renumber them in order of appearance
    text = json.dumps(nb)
    ids = {}
    for m in _WIDGET_ID.finditer(text):
        if m.group(0) not in ids and _is_widget_id(nb, m.group(0)):
            ids[m.group(0)] = uuid.uuid5(uuid.NAMESPACE_URL, f"{name}/{len(ids)}").hex
    if ids:
        text = _WIDGET_ID.sub(lambda m: ids.get(m.group(0), m.group(0)), text)
        nb.clear()
        nb.update(nbformat.from_dict(json.loads(text)))


def _widget_state(nb):
    return nb.metadata.get("widgets", {}).get("application/vnd.jupyter.widget-state+json", {}).get("state")


def _is_widget_id(nb, s):
    state = _widget_state(nb) or {}
    return s in state


# ---- notebooks/README.md: the lesson and claims tables ----------------------------------------

BEGIN, END = "<!-- claims:begin (generated by tools/make_notebook.py) -->", "<!-- claims:end -->"
LESSONS_BEGIN, LESSONS_END = "<!-- lessons:begin (generated by tools/make_notebook.py) -->", "<!-- lessons:end -->"


def _built():
    return sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))


def claims_table() -> str:
    where: dict[str, dict[Path, list[str]]] = {}  # claim -> notebook -> cell ids
    for path in _built():
        nb = nbformat.read(path, as_version=4)
        for cell in nb.cells:
            for c in cell.metadata.get("claims", []):
                where.setdefault(c, {}).setdefault(path, []).append(cell.id)
    unknown = sorted(set(where) - set(CLAIMS))
    if unknown:
        raise ValueError(f"cells claim unknown IDs: {unknown}")
    rows = ["| ID | claim | where it is shown |", "|---|---|---|"]
    for cid, text in CLAIMS.items():
        shown = "; ".join(f"[`{path.stem}`]({path.name}) cell{'s' if len(ids) > 1 else ''} "
                          + ", ".join(f"`{i}`" for i in ids) for path, ids in where.get(cid, {}).items())
        shown = shown or f"planned: lesson {PLANNED[cid]}"
        rows.append(f"| {cid} | {text} | {shown} |")
    return "\n".join(rows)


def lessons_table() -> str:
    built = {p.stem[:2]: p for p in _built()}
    rows = ["| lesson | title | claims shown |", "|---|---|---|"]
    for number, topic in PLAN.items():
        path = built.get(number)
        if path is None:
            rows.append(f"| {number} | {topic} (planned) | |")
            continue
        nb = nbformat.read(path, as_version=4)
        title = next((ln.lstrip("# ").strip() for ln in nb.cells[0].source.splitlines() if ln.startswith("# ")),
                     path.stem)
        shown = sorted({c for cell in nb.cells for c in cell.metadata.get("claims", [])})
        rows.append(f"| {number} | [{title}]({path.name}) | {' '.join(shown)} |")
    return "\n".join(rows)


def _replace_block(text, begin, end, content):
    if begin not in text or end not in text:
        raise ValueError(f"a README lacks the markers {begin} ... {end}")
    head, rest = text.split(begin, 1)
    _, tail = rest.split(end, 1)
    return f"{head}{begin}\n{content}\n{end}{tail}"


def readme_text() -> str:
    text = README.read_text(encoding="utf-8")
    text = _replace_block(text, LESSONS_BEGIN, LESSONS_END, lessons_table())
    return _replace_block(text, BEGIN, END, claims_table())


BADGES_BEGIN, BADGES_END = "<!-- badges:begin (generated by tools/make_notebook.py) -->", "<!-- badges:end -->"


def root_badges() -> str:
    """README.md's badges: lesson 00 on Colab, the whole course on Binder."""
    return (f"{links.colab_badge('notebooks/00_welcome.ipynb')} "
            f"{links.binder_badge('notebooks/00_welcome.ipynb')}")


def root_readme_text() -> str:
    text = ROOT_README.read_text(encoding="utf-8")
    return _replace_block(text, BADGES_BEGIN, BADGES_END, root_badges())


# ---- main ------------------------------------------------------------------------------------

def lesson_names(prefixes=()):
    names = sorted(p.stem for p in LESSONS.glob("[0-9][0-9]_*.py"))
    if prefixes:
        names = [n for n in names if any(n.startswith(p) for p in prefixes)]
    return names


def sources_match(name: str) -> list[str]:
    """Differences between notebooks/NAME.ipynb and what its source would build (no execution)."""
    path = NOTEBOOKS / f"{name}.ipynb"
    if not path.exists():
        return [f"{path.name} does not exist: run python tools/make_notebook.py {name[:2]}"]
    stored = nbformat.read(path, as_version=4)
    fresh = new_notebook(name)
    diffs = []
    if len(stored.cells) != len(fresh.cells):
        diffs.append(f"{name}: {len(stored.cells)} cells stored, source has {len(fresh.cells)}")
    for a, b in zip(stored.cells, fresh.cells):
        for key in ("cell_type", "id", "source"):
            if a.get(key) != b.get(key):
                diffs.append(f"{name}: cell {b.get('id')}: {key} differs from the source")
                break
        else:
            for key in ("tags", "claims", "jupyter"):
                if a.metadata.get(key) != b.metadata.get(key):
                    diffs.append(f"{name}: cell {b.id}: metadata {key} differs from the source")
    return diffs


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("lessons", nargs="*", help="lesson name prefixes (default: all)")
    ap.add_argument("--check", action="store_true", help="only check notebooks and README against sources")
    ap.add_argument("--readme", action="store_true",
                    help="only regenerate the lesson and claims tables of notebooks/README.md")
    ap.add_argument("--allow-torch", action="store_true",
                    help="store outputs even though PyTorch is importable (they are meant to be made without it)")
    ap.add_argument("--output-dir", type=Path, default=None,
                    help="write the executed notebooks here instead of notebooks/ (and leave the README)")
    args = ap.parse_args(argv)
    names = lesson_names(args.lessons)
    if not args.check and not args.readme and not args.output_dir and not args.allow_torch:
        import importlib.util
        if importlib.util.find_spec("torch") is not None:
            ap.error("PyTorch is importable here, but the stored outputs are those of a run without it (CI's "
                     "`make test` may run either way; cells comparing with PyTorch are tagged "
                     "nbval-ignore-output). Build in an environment without torch, use --output-dir for a "
                     "trial, or pass --allow-torch.")
    if args.check:
        diffs = [d for n in names for d in sources_match(n)]
        if README.read_text(encoding="utf-8") != readme_text():
            diffs.append("notebooks/README.md: its tables are stale: run python tools/make_notebook.py --readme")
        if ROOT_README.read_text(encoding="utf-8") != root_readme_text():
            diffs.append("README.md: its badges are stale: run python tools/make_notebook.py --readme")
        print("\n".join(diffs) or f"{len(names)} notebooks and the README match their sources")
        return 1 if diffs else 0
    if not args.readme:
        for name in names:
            nb = new_notebook(name)
            seconds = execute(nb)
            normalise(nb, name)
            nbformat.validate(nb)
            out_dir = args.output_dir or NOTEBOOKS
            out_dir.mkdir(parents=True, exist_ok=True)
            nbformat.write(nb, out_dir / f"{name}.ipynb")
            print(f"{name}: executed in {seconds:.1f} s")
    if args.output_dir:
        return 0
    README.write_text(readme_text(), encoding="utf-8")
    ROOT_README.write_text(root_readme_text(), encoding="utf-8")
    print("notebooks/README.md: lesson and claims tables regenerated; README.md: badges")
    return 0


if __name__ == "__main__":
    sys.exit(main())
