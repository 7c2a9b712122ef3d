"""One setting names the repository: every badge, install cell and clone derives from it.

minitorch_course/links.py holds REPOSITORY and BRANCH. The lessons (built by
tools/make_notebook.py), the exercises (built by `python -m minitorch_course.release`), README.md's
badges and lesson 16's `git clone` must all be what links.py makes of that setting, and nothing
may name another repository. The mutation test changes the setting and checks that every
generated link follows, so an agreement by coincidence (a copied string) fails.
"""
from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path

import pytest

from minitorch_course import links
from minitorch_course import release as rel
from minitorch_course.notebook import cell_source, grade_id

ROOT = Path(__file__).resolve().parent.parent
LESSON_SOURCES = sorted((ROOT / "tools" / "lessons").glob("[0-9][0-9]_*.py"))
LESSONS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
EXERCISES = sorted((ROOT / "exercises").glob("[0-9][0-9]_*.ipynb"))
SOLUTIONS = sorted((ROOT / "solutions").glob("[0-9][0-9]_*.ipynb"))

# every place a repository can be named: Colab, Binder, pip/git URLs on GitHub
REPO_URL = re.compile(r"(?:colab\.research\.google\.com/github/|mybinder\.org/v2/gh/|github\.com/)"
                      r"([\w.-]+/[\w.-]+?)(?:\.git)?(?=[/@?)\"'\s]|$)")


def _builder():
    spec = importlib.util.spec_from_file_location("make_notebook", ROOT / "tools" / "make_notebook.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("make_notebook", module)
    spec.loader.exec_module(module)
    return sys.modules["make_notebook"]


def _cells(path):
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def test_there_is_something_to_check():
    assert LESSONS and EXERCISES and LESSON_SOURCES


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.stem)
def test_lesson_badges_and_install_cell_come_from_links(path):
    cells = _cells(path)
    assert cell_source(cells[0]).startswith(links.badges(f"notebooks/{path.name}"))
    assert cells[1]["cell_type"] == "code" and cell_source(cells[1]) == links.colab_install_cell()


@pytest.mark.parametrize("path", EXERCISES, ids=lambda p: p.stem)
def test_exercise_opens_with_badges_install_cell_and_progress_line(path):
    cells = _cells(path)
    ids = [grade_id(c) for c in cells]
    assert ids[0] == "colab_badges" and cell_source(cells[0]) == links.badges(f"exercises/{path.name}")
    setup = next(i for i, c in enumerate(cells) if "from minitorch_course import" in cell_source(c))
    install = ids.index("colab_setup")
    assert install < setup, "the Colab install must run before the course is imported"
    assert cell_source(cells[install]) == links.colab_install_cell()
    assert ids[setup + 1] == "progress_line"
    assert cell_source(cells[setup + 1]).startswith(f'show_progress("{path.stem}")')


def test_readme_badges_come_from_links():
    builder = _builder()
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert readme == builder.root_readme_text(), "README.md badges are stale: python tools/make_notebook.py --readme"
    assert links.binder_badge("notebooks/00_welcome.ipynb") in readme
    assert links.colab_badge("notebooks/00_welcome.ipynb") in readme


def test_lesson_16_clones_the_repository_named_by_links():
    source = (ROOT / "tools" / "lessons" / "16_token_sequences.py").read_text(encoding="utf-8")
    assert "links.clone_url()" in source and "git" in source
    assert "https://github.com" not in source


TEXTS = LESSON_SOURCES + LESSONS + EXERCISES + SOLUTIONS + [ROOT / "README.md", ROOT / "notebooks" / "README.md"]


@pytest.mark.parametrize("path", TEXTS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_other_repository_is_named(path):
    text = path.read_text(encoding="utf-8")
    named = {m.group(1) for m in REPO_URL.finditer(text)}
    assert named <= {links.REPOSITORY}, f"{path.name} names {sorted(named - {links.REPOSITORY})}"


def test_changing_the_setting_changes_every_generated_link(monkeypatch):
    builder = _builder()
    fork, branch = "someone-else/their-fork", "teaching"
    monkeypatch.setattr(links, "REPOSITORY", fork)
    monkeypatch.setattr(links, "BRANCH", branch)
    lesson = builder.new_notebook("00_welcome")
    assert f"github/{fork}/blob/{branch}/notebooks/00_welcome.ipynb" in lesson.cells[0].source
    assert f"mybinder.org/v2/gh/{fork}/{branch}" in lesson.cells[0].source
    assert f"git+https://github.com/{fork}@{branch}" in lesson.cells[1].source
    exercise = json.loads(rel.build(SOLUTIONS[0]))
    text = json.dumps(exercise)
    assert f"github/{fork}/blob/{branch}/exercises/{SOLUTIONS[0].name}" in text
    assert f"git+https://github.com/{fork}@{branch}" in text
    assert "minitorch-course/minitorch-course" not in text
    assert builder.root_badges().count(fork) == 2
    assert links.clone_url() == f"https://github.com/{fork}.git"


def test_install_cell_does_nothing_off_colab_and_imports_only_sys():
    code = links.colab_install_cell()
    ns: dict = {}
    exec(compile(code, "<colab_setup>", "exec"), ns)  # noqa: S102 - our own cell; not on Colab here
    assert "subprocess" not in ns, "off Colab the cell must not even import subprocess"
    assert links.pip_requirement() in code
