"""The lesson notebooks, checked without running them (nbval runs them; see notebooks/README.md).

- each notebook matches its source in tools/lessons/ (nobody edited the .ipynb by hand, nobody
  forgot to rebuild after editing the source);
- each starts with the Colab and Binder badges for itself and the Colab-only install cell;
- lesson cells hold no plotting code, no test-harness comments and no copy of show_source: the
  pictures are calls into minitorch_course.draw, with their drawing code one click away, and
  every lesson shows the real minitorch source of what it teaches;
- each carries the outputs of one clean top-to-bottom run: every code cell executed, in order,
  no errors, nothing on stderr, nothing machine-specific in an output that nbval compares;
- notebooks/README.md maps every seed claim C01-C50 to a cell that exists, or to a planned lesson.
"""
from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"


def _load_builder():
    spec = importlib.util.spec_from_file_location("make_notebook", ROOT / "tools" / "make_notebook.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("make_notebook", module)
    spec.loader.exec_module(module)
    return module


builder = _load_builder()
LESSONS = builder.lesson_names()
NOTEBOOK_FILES = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))


def _read(name):
    path = NOTEBOOKS / f"{name}.ipynb"
    if not path.exists():
        pytest.fail(f"{path.name} is missing: build it with python tools/make_notebook.py {name[:2]}")
    return nbformat.read(path, as_version=4)


def test_there_are_lessons():
    assert "00_welcome" in LESSONS
    assert NOTEBOOK_FILES, "no notebooks in notebooks/"


@pytest.mark.parametrize("path", NOTEBOOK_FILES, ids=lambda p: p.stem)
def test_every_notebook_has_a_source(path):
    assert path.stem in LESSONS, (
        f"{path.name} has no source tools/lessons/{path.stem}.py: lessons are written there and built "
        "with tools/make_notebook.py, never edited as .ipynb")


@pytest.mark.parametrize("name", LESSONS)
def test_notebook_matches_its_source(name):
    diffs = builder.sources_match(name)
    assert not diffs, "\n".join(diffs) + f"\nrebuild it: python tools/make_notebook.py {name[:2]}"


@pytest.mark.parametrize("name", LESSONS)
def test_colab_badge_and_install_cell(name):
    nb = _read(name)
    first, second = nb.cells[0], nb.cells[1]
    assert first.cell_type == "markdown" and first.source.startswith(builder.colab_badge(name))
    assert f"/blob/main/notebooks/{name}.ipynb" in first.source
    assert second.cell_type == "code" and second.id == "colab-setup"
    assert 'if "google.colab" in sys.modules:' in second.source
    assert second.outputs == [], "the Colab install cell must do nothing (and print nothing) off Colab"


@pytest.mark.parametrize("name", LESSONS)
def test_outputs_are_one_clean_run(name):
    nb = _read(name)
    counts = [c.execution_count for c in nb.cells if c.cell_type == "code"]
    assert None not in counts, f"{name}: some code cells were never run; rebuild with tools/make_notebook.py"
    assert counts == list(range(1, len(counts) + 1)), f"{name}: cells were not run once, top to bottom"
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            assert out.output_type != "error", f"{name} cell {cell.id}: stored error {out.ename}: {out.evalue}"
            assert not (out.output_type == "stream" and out.name == "stderr"), (
                f"{name} cell {cell.id} writes to stderr (a warning?): {out.text[:200]!r}")


@pytest.mark.parametrize("name", LESSONS)
def test_compared_outputs_are_machine_independent(name):
    nb = _read(name)
    for cell in nb.cells:
        if cell.cell_type != "code" or "nbval-ignore-output" in cell.metadata.get("tags", []):
            continue
        for out in cell.outputs:
            text = out.get("text", "") + "".join(
                v for k, v in out.get("data", {}).items() if k.startswith("text/") and isinstance(v, str))
            for pattern, what in builder._UNSTABLE:
                assert not pattern.search(text), f"{name} cell {cell.id} shows {what}: {text[:200]!r}"


@pytest.mark.parametrize("name", LESSONS)
def test_no_empty_or_duplicate_cell_ids(name):
    ids = [c.id for c in _read(name).cells]
    assert len(ids) == len(set(ids))


def test_readme_claims_table_is_current():
    assert (NOTEBOOKS / "README.md").read_text(encoding="utf-8") == builder.readme_text(), (
        "notebooks/README.md is stale: python tools/make_notebook.py --readme")


def test_every_claim_is_mapped_to_a_real_cell_or_a_planned_lesson():
    from claims import CLAIMS, LESSONS as PLAN, PLANNED  # tools/ is on sys.path via the builder
    assert list(CLAIMS) == [f"C{i:02d}" for i in range(1, 51)]
    readme = (NOTEBOOKS / "README.md").read_text(encoding="utf-8")
    for cid in CLAIMS:
        row = re.search(rf"^\| {cid} \|.*\| (.*) \|$", readme, re.MULTILINE)
        assert row, f"{cid} has no row in notebooks/README.md"
        where = row.group(1)
        if where.startswith("planned: lesson "):
            assert where.split()[-1] in PLAN, where
            continue
        refs = re.findall(r"\[`(\w+)`\]\(\w+\.ipynb\) cells? ((?:`[\w-]+`(?:, )?)+)", where)
        assert refs, f"{cid}: unreadable entry {where!r}"
        for stem, ids in refs:
            cells = {c.id: c for c in _read(stem).cells}
            for cell_id in re.findall(r"`([\w-]+)`", ids):
                assert cell_id in cells, f"{cid}: {stem} has no cell {cell_id}"
                assert cid in cells[cell_id].metadata.get("claims", []), f"{cid}: {stem}/{cell_id} does not claim it"
        assert PLANNED[cid] in PLAN


# ---- lessons show pictures and the real source, not plotting code or test machinery ------------------
def _code_cells(name):
    return [c for c in builder.parse(builder.LESSONS / f"{name}.py") if c["type"] == "code"]


@pytest.mark.parametrize("name", LESSONS)
def test_lesson_cells_hold_no_plotting_code_and_no_harness_comments(name):
    for cell in _code_cells(name):
        src = cell["source"]
        where = f"{name} cell {cell['options'].get('id')}"
        assert "NBVAL" not in src, f"{where}: a test-harness comment; use the cell tag nbval-ignore-output"
        assert "# noqa" not in src, f"{where}: a linter comment in a learner's cell"
        assert not re.search(r"^\s*(import|from) matplotlib|\bplt\.", src, re.M), (
            f"{where}: plotting code in a lesson; draw it with a function of minitorch_course/draw.py")
        assert not re.search(r"^def show_source\b", src, re.M), f"{where}: use minitorch_course.show.show_source"


@pytest.mark.parametrize("name", LESSONS)
def test_every_picture_has_its_drawing_code_one_click_away(name):
    source = "\n".join(c["source"] for c in _code_cells(name))
    drawn = set(re.findall(r"\bdraw\.(\w+)\(", source)) - {"table", "is_leaf_node"}
    shown = set(re.findall(r"show_source\(draw\.(\w+)\)", source))
    assert drawn <= shown, f"{name}: show_source(draw.X) missing for {sorted(drawn - shown)}"


@pytest.mark.parametrize("name", [n for n in LESSONS if not n.startswith("00")])
def test_every_lesson_reads_the_real_thing(name):
    """Each lesson shows the minitorch source of what it teaches (not only course helpers)."""
    calls = re.findall(r"show_source\(([^)]*)\)", "\n".join(c["source"] for c in _code_cells(name)))
    library = [c for c in calls if not c.startswith("draw.")]
    assert library, f"{name}: no show_source(...) of minitorch code"


@pytest.mark.parametrize("name", LESSONS)
def test_pytorch_comparisons_are_never_output_compared(name):
    for cell in builder.new_notebook(name).cells:
        if cell.cell_type == "code" and 'compare_with_pytorch("""' in cell.source:
            assert "nbval-ignore-output" in cell.metadata.get("tags", []), (
                f"{name} cell {cell.id}: its output depends on whether PyTorch is installed")
