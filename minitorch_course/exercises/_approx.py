"""A comparison with a float tolerance, for exercises whose answers are computed in floating
point in more than one correct order (a gradient summed along two paths, an optimizer's update
written as b*m + (1-b)*g or as m + (g-m)*(1-b)). Structure and types are compared exactly,
as spec.compare_values does; only floats are compared within the tolerance."""
from __future__ import annotations

import math

from ..render import number_pair
from ..spec import compare_values, kind, show


def approx(rel_tol=1e-9, abs_tol=1e-12):
    """A QuestionSpec.compare that accepts floats within rel_tol / abs_tol of the expected."""

    def compare(expected, actual, where=""):
        here = where or "the result"
        if type(expected) is float and type(actual) is float:
            if math.isnan(expected) and math.isnan(actual):
                return None
            if math.isclose(actual, expected, rel_tol=rel_tol, abs_tol=abs_tol):
                return None
            e, a = number_pair(expected, actual)
            return f"{here} is {a}, expected {e}"
        if type(expected) in (list, tuple) and type(actual) is type(expected):
            if len(actual) != len(expected):
                return f"{here} has {len(actual)} items, expected {len(expected)}"
            for i, (e, a) in enumerate(zip(expected, actual)):
                r = compare(e, a, f"{here}[{i}]")
                if r:
                    return r
            return None
        if type(expected) is dict and type(actual) is dict:
            missing = [k for k in expected if k not in actual]
            extra = [k for k in actual if k not in expected]
            if missing:
                return f"{here} has no key {show(missing[0])} (expected keys: {show(sorted(expected, key=repr))})"
            if extra:
                return f"{here} has a key {show(extra[0])} that it should not have"
            for k in expected:
                r = compare(expected[k], actual[k], f"{here}[{k!r}]")
                if r:
                    return r
            return None
        if type(expected) is float and type(actual) is int and not isinstance(actual, bool):
            return f"{here} is {kind(actual)} ({actual!r}), expected a float near {expected!r}"
        return compare_values(expected, actual, where)

    return compare
