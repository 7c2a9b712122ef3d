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

