"""Partial credit: how a question's points are split over its cases.

A question's cases come in groups: the visible ones (the learner's check() runs them), the
hidden ones (fixed inputs in the test cell's hidden block) and the seeded random ones (also
hidden). Three ways to score a question that is wrong on some cases, all compared by the
grader itself (a question that times out, breaks a rule, crashes or tampers scores 0):

    groups        (the default) its points are split over the groups it has, by the weights
                  of the exercise (DEFAULT_WEIGHTS unless the exercise or the question sets
                  them); each group earns its share in proportion to the cases it passes:
                  "3 of 4 hidden cases: 1.5 / 2"
    proportional  its points times the fraction of all its cases that pass
    all           all or nothing: full points when every case passes, else 0

`python -m minitorch_course.grade ... --scoring MODE` chooses for a grading run; an exercise
sets its own default with `Exercise(scoring=..., weights=...)`, a question its weights with
`QuestionSpec(weights=...)`.
"""
from __future__ import annotations

MODES = ("groups", "proportional", "all")
DEFAULT_MODE = "groups"
DEFAULT_WEIGHTS = {"visible": 1.0, "hidden": 1.0, "random": 1.0}
GROUP_NAMES = {"visible": "visible", "hidden": "hidden", "random": "random hidden"}


def _round(x):
    return round(x + 0.0, 2) + 0.0


def weights_of(exercise, spec):
    """The weights of a question's groups: the question's own, else the exercise's, else the
    course default."""
    return dict(getattr(spec, "weights", None) or getattr(exercise, "weights", None) or DEFAULT_WEIGHTS)


def mode_of(exercise, override=None):
    mode = override or getattr(exercise, "scoring", None) or DEFAULT_MODE
    if mode not in MODES:
        raise ValueError(f"unknown scoring {mode!r}: one of {', '.join(MODES)}")
    return mode


def groups(cases, outcomes, points, weights):
    """[{kind, passed, total, points, max_points}] for each group the question has, in the
    order visible, hidden, random. outcomes[i] says whether cases[i] passed (cases not compared
    count as failed)."""
    kinds = [k for k in ("visible", "hidden", "random") if any(c.kind == k for c in cases)]
    weight = {k: float(weights.get(k, 0.0)) for k in kinds}
    total_w = sum(weight.values())
    out = []
    for k in kinds:
        mine = [i for i, c in enumerate(cases) if c.kind == k]
        passed = sum(1 for i in mine if i < len(outcomes) and outcomes[i])
        share = points * weight[k] / total_w if total_w > 0 else points / len(kinds)
        out.append({"kind": k, "passed": passed, "total": len(mine), "max_points": _round(share),
                    "points": _round(share * passed / len(mine))})
    return out


def credit(mode, cases, outcomes, points, weights):
    """(points earned, groups) of a question whose cases were all compared (outcomes: one bool
    per case)."""
    parts = groups(cases, outcomes, points, weights)
    if all(outcomes) and len(outcomes) == len(cases):
        return points, parts
    if mode == "all" or not cases:
        return 0.0, parts
    if mode == "proportional":
        return _round(points * sum(map(bool, outcomes)) / len(cases)), parts
    return min(points, _round(sum(g["points"] for g in parts))), parts


def describe(group, shown=True):
    """ "3 of 4 hidden cases: 1.5 / 2" """
    name = GROUP_NAMES.get(group["kind"], group["kind"])
    return (f"{group['passed']} of {group['total']} {name} cases: "
            f"{group['points']:g} / {group['max_points']:g}")
