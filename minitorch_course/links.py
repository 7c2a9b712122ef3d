"""Where the course lives: the one setting every badge, install line and clone derives from.

A fork changes REPOSITORY (and BRANCH, if it publishes another), then rebuilds what embeds
these links: the lessons (`python tools/make_notebook.py`), the exercises
(`python -m minitorch_course.release`) and README.md's Colab/Binder badges
(`python tools/make_notebook.py --readme`). tests/test_links.py fails until all of them agree.
"""
from __future__ import annotations

from urllib.parse import quote

REPOSITORY = "minitorch-course/minitorch-course"  # OWNER/NAME on GitHub
BRANCH = "main"

COLAB_BADGE_IMAGE = "https://colab.research.google.com/assets/colab-badge.svg"
BINDER_BADGE_IMAGE = "https://mybinder.org/badge_logo.svg"


def github_url() -> str:
    return f"https://github.com/{REPOSITORY}"


def clone_url() -> str:
    """What `git clone` takes (lesson 16 clones the examples on Colab)."""
    return f"{github_url()}.git"


def pip_requirement() -> str:
    """What pip installs on Colab: the library and the course package, from the repository."""
    return f"minitorch-course @ git+{github_url()}@{BRANCH}"


def colab_url(path: str) -> str:
    """Colab opens a notebook of the repository, e.g. colab_url("notebooks/00_welcome.ipynb")."""
    return f"https://colab.research.google.com/github/{REPOSITORY}/blob/{BRANCH}/{path}"


def binder_url(path: str | None = None) -> str:
    """Binder builds the repository from environment.yml and opens `path` in JupyterLab."""
    url = f"https://mybinder.org/v2/gh/{REPOSITORY}/{BRANCH}"
    return url + (f"?labpath={quote(path, safe='')}" if path else "")


def colab_badge(path: str) -> str:
    return f"[![Open In Colab]({COLAB_BADGE_IMAGE})]({colab_url(path)})"


def binder_badge(path: str | None = None) -> str:
    return f"[![Launch on Binder]({BINDER_BADGE_IMAGE})]({binder_url(path)})"


def badges(path: str) -> str:
    """The two badges a notebook opens with."""
    return f"{colab_badge(path)} {binder_badge(path)}"


def colab_install_cell() -> str:
    """The first code cell of every lesson and exercise: on Colab it installs the course
    (library and course package, one distribution); anywhere else it does nothing, and imports
    nothing but sys (so that a grader's sandbox, which refuses subprocess, runs it untroubled)."""
    return f'''\
# On Google Colab, install the course first; anywhere else this cell does nothing.
import sys

if "google.colab" in sys.modules:
    import subprocess

    subprocess.run([sys.executable, "-m", "pip", "install", "-q",
                    "{pip_requirement()}"], check=True)'''
