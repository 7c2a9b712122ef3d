"""PyTorch's error message, word for word, with minitorch's hint beside it.

`str(error)` is PyTorch's wording, so a program that prints an error (`except RuntimeError as e:
print(e)`) prints what PyTorch prints. The hint (the shapes or dtypes of this call and the fix)
rides along as a note (PEP 678), which Python and Jupyter show under the message in every
traceback. Python 3.10 has no notes: there the hint follows the message in parentheses."""
from __future__ import annotations

import sys


def hinted(cls, message, hint):
    """An exception of type `cls` whose message is `message` and whose note is `hint`."""
    if sys.version_info < (3, 11):
        return cls(f"{message} ({hint})")
    e = cls(message)
    e.add_note(hint)
    return e



def torch_arguments(name):
    """Decorate a function that PyTorch binds in C++: a call missing a required argument raises
    PyTorch's argument-parser TypeError (`linalg_solve() missing 1 required positional arguments:
    "B"`) instead of Python's. Only a failed call pays for the check."""
    import functools
    import inspect

    def wrap(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            try:
                return fn(*args, **kwargs)
            except TypeError as e:
                sig = inspect.signature(fn)
                try:
                    sig.bind(*args, **kwargs)
                except TypeError:
                    try:
                        given = sig.bind_partial(*args, **kwargs).arguments
                    except TypeError:
                        raise e from None
                    missing = [p.name for p in sig.parameters.values() if p.default is p.empty and p.name not in given
                               and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
                    if missing:  # (PyTorch's grammar: "1 ... arguments", "2 ... argument")
                        word = "arguments" if len(missing) == 1 else "argument"
                        listed = ", ".join(f'"{m}"' for m in missing)
                        raise TypeError(f"{name}() missing {len(missing)} required positional {word}: {listed}") \
                            from None
                raise e
        return wrapper
    return wrap
