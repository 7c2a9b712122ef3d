"""The course's exercises: one module per exercise, each defining EXERCISE (see ..spec).

A new exercise is a new module here plus its notebook in solutions/; nothing else changes.
"""
from __future__ import annotations

import importlib
import pkgutil

_CACHE = {}

# Exercises are numbered after the lesson they belong to; these were renamed to match. An old
# name still loads the exercise, finds its saved progress and grades its notebook.
FORMER_NAMES = {"01_strides": "03_strides", "02_broadcasting": "04_broadcasting",
                "03_views": "05_views", "06_devices": "08_devices"}


def all_exercises():
    """{name: Exercise} for every module in this package."""
    if not _CACHE:
        for info in pkgutil.iter_modules(__path__):
            mod = importlib.import_module(f"{__name__}.{info.name}")
            ex = getattr(mod, "EXERCISE", None)
            if ex is not None:
                _CACHE[ex.name] = ex
    return dict(sorted(_CACHE.items()))


def get_exercise(name):
    exercises = all_exercises()
    name = FORMER_NAMES.get(name, name)
    if name in exercises:
        return exercises[name]
    matches = [k for k in exercises if k.split("_", 1)[-1] == name or k.startswith(name + "_")]
    if len(matches) == 1:
        return exercises[matches[0]]
    raise KeyError(f"no exercise named {name!r}; the course has: {', '.join(exercises) or 'none'}")
