"""Reading the real thing: the source of a function or class, shown in the notebook.

    from minitorch_course.show import show_source
    show_source(torch.Tensor.stride)      # minitorch's code, with the file and line it comes from
    show_source(draw.memory_layout)       # a course helper: folded, one click opens it

Every lesson's "read the real thing" step is a call to show_source. The course's own helpers
(the drawings, the comparisons) are shown folded: they are there to be looked at when you are
curious, not read before the picture.
"""
from __future__ import annotations

import ast
import html
import inspect
from pathlib import Path

_ROOT = Path(__file__).resolve().parent.parent  # the folder holding minitorch/ and minitorch_course/


def _class_file(cls):
    """The file defining cls, found through its methods' code (inspect looks in the module named
    by __module__, and minitorch names its public classes after the package, as PyTorch does)."""
    for value in vars(cls).values():
        func = getattr(value, "__func__", getattr(value, "fget", value))
        code = getattr(func, "__code__", None)
        if code is not None and Path(code.co_filename).exists():
            return code.co_filename
    raise OSError(f"cannot find the source of {cls.__qualname__}")


def _class_source(cls):
    path = _class_file(cls)
    text = Path(path).read_text(encoding="utf-8")
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.ClassDef) and node.name == cls.__name__:
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            lines = text.splitlines(keepends=True)[first - 1:node.end_lineno]
            return lines, first, path
    raise OSError(f"cannot find the source of {cls.__qualname__} in {path}")


def _where(obj):
    """(path relative to the checkout or site-packages, first line, source lines) of obj."""
    target = inspect.unwrap(getattr(obj, "fget", None) or obj)  # properties: their getter
    try:
        lines, start = inspect.getsourcelines(target)
        path = inspect.getsourcefile(target)
    except (OSError, TypeError):
        if not inspect.isclass(target):
            raise
        lines, start, path = _class_source(target)
    path = Path(path).resolve()
    try:
        shown = path.relative_to(_ROOT).as_posix()
    except ValueError:
        shown = path.name
    return shown, start, "".join(lines)


class Source:
    """What show_source() displays: Markdown in a notebook (folded HTML when asked), text elsewhere."""

    def __init__(self, obj, folded=None):
        self.path, self.line, self.code = _where(obj)
        self.name = getattr(obj, "__qualname__", getattr(obj, "__name__", repr(obj)))
        if folded is None:  # the course's own helpers fold; the library is read open
            folded = self.path.startswith("minitorch_course/")
        self.folded = folded

    def __repr__(self):
        return f"{self.path}, line {self.line}:\n{self.code}"

    def _repr_markdown_(self):
        if self.folded:
            return None  # the HTML form folds; Markdown cannot
        return f"`{self.path}`, line {self.line}:\n```python\n{self.code}```"

    def _repr_html_(self):
        if not self.folded:
            return None
        return (f"<details><summary>How <code>{html.escape(self.name)}</code> is made "
                f"(<code>{html.escape(self.path)}</code>, line {self.line}): click to open</summary>"
                f"<pre><code class='language-python'>{html.escape(self.code)}</code></pre></details>")


def show_source(obj, folded=None):
    """Display the source of `obj` with the file and line it comes from.

    folded=None folds the course's own helpers (minitorch_course/...) and shows library code
    open; True or False decides it yourself."""
    source = Source(obj, folded)
    try:
        from IPython import get_ipython
        from IPython.display import display
        if get_ipython() is not None:
            display(source)
            return
    except ImportError:
        pass
    print(repr(source))

