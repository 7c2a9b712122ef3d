"""What this machine offers the course: how the course was installed, and whether a GPU runs.

    from minitorch_course.machine import gpu_report
    print(gpu_report())      # "a GPU: ..." or why not, and the fix for *this* installation

The lessons print these lines; they are wrapped at word boundaries, so a notebook never
breaks a word in two.
"""
from __future__ import annotations

import os
import sys
import textwrap

WIDTH = 88
WHERE = {"colab": "on Colab", "binder": "on Binder", "conda": "in a conda environment", "pip": "in a pip/venv install"}


def install_kind() -> str:
    """How the course runs here: "colab", "binder", "conda" or "pip" (a venv, `make lab`)."""
    if "google.colab" in sys.modules or "COLAB_RELEASE_TAG" in os.environ:
        return "colab"
    if "BINDER_SERVICE_HOST" in os.environ or "BINDER_LAUNCH_HOST" in os.environ:
        return "binder"
    if os.path.isdir(os.path.join(sys.prefix, "conda-meta")):
        return "conda"
    return "pip"


def gpu_fix(kind: str, cupy_missing: bool) -> str:
    """The one step that gives minitorch a GPU, for this kind of installation."""
    if kind == "colab":
        return ("Runtime > Change runtime type > a GPU (T4 is free), then run the notebook again; "
                "Colab's GPU runtimes come with CuPy.")
    if kind == "binder":
        return "Binder has no GPUs: open the notebook on Colab (its badge) and pick a GPU runtime."
    if not cupy_missing:
        return ("CuPy is installed, so this machine needs an NVIDIA GPU with a working driver "
                "(`nvidia-smi` lists it).")
    if kind == "conda":
        return "on a machine with an NVIDIA GPU: `conda install -c conda-forge cupy`, then restart the kernel."
    return "on a machine with an NVIDIA GPU: `pip install -e '.[gpu]'` (CuPy), then restart the kernel."


def gpu_lines(width=WIDTH) -> list[str]:
    """The GPU verdict as lines of at most `width` characters, never splitting a word."""
    import minitorch
    if minitorch.cuda.is_available():
        n = minitorch.cuda.device_count()
        return [f"yes: {n} CUDA device(s), cuda:0 is {minitorch.cuda.get_device_name(0)}"]
    why = minitorch.cuda.unavailable_reason()
    kind = install_kind()
    text = [("none, and that is fine: every lesson runs on the CPU.", ""),
            (f"Why: {why}.", "     "),
            (f"To use one (the course runs {WHERE[kind]} here): {gpu_fix(kind, 'not installed' in why)}",
             "     ")]
    lines = []
    for paragraph, indent in text:
        lines += textwrap.wrap(paragraph, width, subsequent_indent=indent, break_long_words=False,
                               break_on_hyphens=False)
    return lines


def gpu_report(prefix="", width=WIDTH) -> str:
    """gpu_lines(), each line after `prefix` (e.g. "  GPU          "), as one string."""
    return "\n".join(prefix + line for line in gpu_lines(width - len(prefix)))


def wrapped(text: str, prefix="", width=WIDTH) -> str:
    """text in lines of at most `width` characters (prefix included), words kept whole."""
    lines = textwrap.wrap(" ".join(str(text).split()), width - len(prefix), break_long_words=False,
                          break_on_hyphens=False) or [""]
    return "\n".join(prefix + line for line in lines)
