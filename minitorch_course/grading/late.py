"""Deadlines: which work came late, and what a late policy takes off.

The submission time is nbgrader's timestamp.txt where the class folder is nbgrader's, else the
file's modification time (layout.py). A policy is one of

    none     late work is marked (the gradebook's `late` column), its score kept (the default)
    zero     late work scores 0
    N%       N percent off the score of late work
    N%/day   N percent off per day late, or part of one (capped at 100%)
"""
from __future__ import annotations

import datetime as dt
import math
import re
from dataclasses import dataclass

_POLICY = re.compile(r"^(\d+(?:\.\d+)?)%(/day)?$")


@dataclass(frozen=True)
class Penalty:
    kind: str          # "none", "zero", "percent", "per_day"
    percent: float = 0.0

    def fraction(self, late_by: dt.timedelta) -> float:
        """The fraction of the score taken off work that is late_by late."""
        if self.kind == "zero":
            return 1.0
        if self.kind == "percent":
            return min(1.0, self.percent / 100)
        if self.kind == "per_day":
            days = math.ceil(late_by.total_seconds() / 86400)
            return min(1.0, days * self.percent / 100)
        return 0.0


def parse_penalty(text) -> Penalty:
    text = (text or "none").strip().lower().replace(" ", "")
    if text in ("none", "zero"):
        return Penalty(text)
    m = _POLICY.match(text)
    if not m:
        raise ValueError(f"--late-penalty {text!r}: use none, zero, N% or N%/day")
    return Penalty("per_day" if m.group(2) else "percent", float(m.group(1)))


def parse_deadline(text) -> dt.datetime:
    """ISO 8601 ("2026-03-01T23:59", "2026-03-01 23:59:00+01:00"); UTC unless it says otherwise."""
    core = text.strip().replace(" ", "T", 1)
    if core.upper().endswith("Z"):
        core = core[:-1] + "+00:00"
    try:
        t = dt.datetime.fromisoformat(core)
    except ValueError:
        raise ValueError(f"--deadline {text!r} is not an ISO date and time (e.g. 2026-03-01T23:59)") from None
    return (t.replace(tzinfo=dt.timezone.utc) if t.tzinfo is None else t).astimezone(dt.timezone.utc)


def apply(r, deadline: dt.datetime, penalty: Penalty):
    """Mark a row late (and take the penalty off its score) when it came after the deadline."""
    if not r.submitted:
        return
    try:
        when = dt.datetime.fromisoformat(r.submitted)
    except ValueError:
        return
    if when <= deadline:
        return
    by = when - deadline
    r.late = f"late by {by}"
    off = penalty.fraction(by)
    if off and r.score:
        before = r.score
        r.score = round(max(0.0, r.score * (1 - off)), 2)
        r.late += f" ({off:.0%} off: {before:g} -> {r.score:g})"
    r.notes.append(f"handed in {r.submitted} ({r.submitted_from}), {r.late}")
