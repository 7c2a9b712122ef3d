"""environment.yml (conda, Binder) asks for what pyproject.toml (pip, `make lab`) asks for.

Every requirement of pyproject's dependencies and its dev extra appears in environment.yml under
the same name with the same version bounds, and nothing else is pinned there; Python's bound is
requires-python; the course itself is installed from the checkout (`pip: -e .`), as Binder needs.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NOT_IN_CONDA = {"playwright"}  # the optional browser smoke test only; documented in environment.yml
REQUIREMENT = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)\s*(.*)$")

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    tomllib = pytest.importorskip("tomli", reason="reading pyproject.toml on Python 3.10 needs tomli")


def _split(requirement):
    name, spec = REQUIREMENT.match(requirement.strip()).groups()
    return name.lower().replace("_", "-"), spec.replace(" ", "")


def pyproject_requirements():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    wanted = dict(_split(r) for r in project["dependencies"] + project["optional-dependencies"]["dev"])
    wanted["python"] = project["requires-python"].replace(" ", "")
    return {k: v for k, v in wanted.items() if k not in NOT_IN_CONDA}


def environment():
    """(conda dependencies {name: bounds}, pip lines) of environment.yml, read line by line (it
    is plain YAML: a list under `dependencies:`, and a list under `- pip:`)."""
    conda, pip, in_pip, section = {}, [], False, None
    for line in (ROOT / "environment.yml").read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        item = re.match(r"^(\s*)- (.*)$", line)
        if not item:
            section, in_pip = line.split(":")[0].strip(), False  # name:, channels:, dependencies:
            continue
        if section != "dependencies":
            continue
        indent, value = len(item.group(1)), item.group(2).strip()
        if value == "pip:":
            in_pip = True
        elif in_pip and indent > 2:
            pip.append(value)
        else:
            in_pip = False
            name, spec = _split(value)
            conda[name] = spec
    return conda, pip


def test_environment_yml_pins_what_pyproject_pins():
    conda, _ = environment()
    conda.pop("pip", None)
    wanted = pyproject_requirements()
    missing = sorted(set(wanted) - set(conda))
    extra = sorted(set(conda) - set(wanted))
    different = {k: (wanted[k], conda[k]) for k in set(wanted) & set(conda) if wanted[k] != conda[k]}
    assert not missing, f"in pyproject.toml but not in environment.yml: {missing}"
    assert not extra, f"in environment.yml but not in pyproject.toml: {extra}"
    assert not different, f"different bounds (pyproject, environment.yml): {different}"


def test_environment_installs_the_course_from_the_checkout():
    conda, pip = environment()
    assert "pip" in conda and pip == ["-e ."], pip

