"""Reading notebooks in nbgrader's authoring format, and the release transform.

A solutions notebook marks its cells with nbgrader metadata (schema version 3):

    solution cell   {"solution": true,  "grade": false, "locked": false, "grade_id": ...}
    test cell       {"solution": false, "grade": true,  "locked": true,  "grade_id": ..., "points": N}
    locked cell     {"solution": false, "grade": false, "locked": true,  "grade_id": ...}

and its sources use nbgrader's delimiters: `### BEGIN SOLUTION` / `### END SOLUTION` around the
answer, `### BEGIN HIDDEN TESTS` / `### END HIDDEN TESTS` around tests the learner never sees.
A hidden block holds `qN.check(cases=[...], random=N, seed=S)` calls with literal arguments,
which nbgrader executes as they are and which our grader reads (never executes) with `ast`.

Everything here works on plain JSON dicts and never trusts a submitted notebook's structure.
"""
from __future__ import annotations

import ast
import copy
import json
import re

STUB_MESSAGE = "Replace this line with your code, then run the test cell below."
CODE_STUB = ["# YOUR CODE HERE", f'raise NotImplementedError("{STUB_MESSAGE}")']
MARKDOWN_STUB = "YOUR ANSWER HERE"
NBGRADER_KEYS = ("grade", "solution", "locked", "points", "grade_id", "task")

_DELIM = r"^\s*#+\s*{}\s*$"
BEGIN_SOLUTION = re.compile(_DELIM.format("BEGIN SOLUTION"))
END_SOLUTION = re.compile(_DELIM.format("END SOLUTION"))
BEGIN_HIDDEN = re.compile(_DELIM.format("BEGIN HIDDEN TESTS"))
END_HIDDEN = re.compile(_DELIM.format("END HIDDEN TESTS"))


class NotebookError(ValueError):
    """A notebook that is not well formed (the message says how)."""


# ---- reading ---------------------------------------------------------------------------------
def parse_notebook(data: bytes | str) -> dict:
    """JSON -> notebook dict, checking only what we rely on. Raises NotebookError."""
    if isinstance(data, bytes):
        encoding = json.detect_encoding(data)  # UTF-8, or UTF-16/32 as some editors save it
        try:
            data = data.decode("utf-8-sig" if encoding == "utf-8" else encoding)
        except UnicodeDecodeError as e:
            raise NotebookError(f"not UTF-8 text ({e.reason} at byte {e.start})") from None
    try:
        nb = json.loads(data)
    except json.JSONDecodeError as e:
        raise NotebookError(f"not valid JSON: {e.msg} at line {e.lineno}, column {e.colno}") from None
    except RecursionError:
        raise NotebookError("not valid notebook JSON: nested too deeply") from None
    except ValueError as e:  # e.g. an integer of thousands of digits
        raise NotebookError(f"not valid notebook JSON: {e}"[:200]) from None
    if not isinstance(nb, dict) or not isinstance(nb.get("cells"), list):
        raise NotebookError("valid JSON, but not a Jupyter notebook (no list of cells)")
    for i, cell in enumerate(nb["cells"]):
        if not isinstance(cell, dict) or not isinstance(cell.get("cell_type"), str):
            raise NotebookError(f"cell {i} is not a notebook cell")
        try:
            cell_source(cell)
        except NotebookError as e:
            raise NotebookError(f"cell {i}: {e}") from None
    return nb  # a cell's metadata that is not an object reads as none (see nbgrader())


def cell_source(cell) -> str:
    src = cell.get("source", "")
    if isinstance(src, str):
        return src
    if isinstance(src, list) and all(isinstance(s, str) for s in src):
        return "".join(src)
    raise NotebookError("its source is neither a string nor a list of strings")


def nbgrader(cell) -> dict:
    meta = cell.get("metadata")
    nbg = meta.get("nbgrader") if isinstance(meta, dict) else None
    return nbg if isinstance(nbg, dict) else {}


def grade_id(cell):
    gid = nbgrader(cell).get("grade_id")
    return gid if isinstance(gid, str) else None


def exercise_name(nb):
    meta = nb.get("metadata")
    mt = meta.get("minitorch") if isinstance(meta, dict) else None
    name = mt.get("exercise") if isinstance(mt, dict) else None
    return name if isinstance(name, str) else None


# ---- a code cell as plain Python: what the grader runs, and what check() reads -------------------
# IPython syntax a learner leaves in a cell. Timing and profiling magics run their code (once);
# cell magics of other languages are not Python, so their cell is not run; every other magic,
# shell escape (`!pip ...`) and help query (`np.sum?`) is skipped. Each gets a note.
RUNS_ITS_CODE = ("time", "timeit", "prun", "capture")
_LINE_MAGIC = re.compile(r"^%(time|timeit|prun)\b\s*(.*)$")
_TIMEIT_OPTION = re.compile(r"^(-[nrp]\s*\d+(\.\d+)?|-[tcqo])(\s+|$)")
_HELP = re.compile(r"^(\?{1,2}[\w.]+|[\w.]+\?{1,2})$")
_ASSIGN_SHELL = re.compile(r"^([A-Za-z_]\w*)\s*=\s*[!%]")


def _statement_of(rest):
    """The Python statement after `%timeit -n 10 -r 3`: its options dropped."""
    rest = rest.strip()
    while (m := _TIMEIT_OPTION.match(rest)) is not None:
        rest = rest[m.end():]
    return rest


def python_code(source: str) -> tuple[str, list[str]]:
    """A code cell's source as the Python it runs, with IPython syntax handled as the comment
    above says; line numbers are kept. Returns (code, notes: one per thing skipped)."""
    text = source.replace("\r\n", "\n").replace("\r", "\n")
    lines, notes = text.split("\n"), []
    head = lines[0].strip()
    if head.startswith("%%"):
        magic, _, rest = head[2:].partition(" ")
        if magic not in RUNS_ITS_CODE:
            return "", [f"a `%%{magic}` cell is not Python: it was not run"]
        lines[0] = _statement_of(rest) if magic == "timeit" else ""  # %%timeit's setup line
        notes.append(f"`%%{magic}` was skipped: the cell's code ran once, without it")
    try:
        ast.parse("\n".join(lines))
        return "\n".join(lines), notes  # plain Python (a `%` or `?` inside it is Python's own)
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        pass
    out = []
    for line in lines:
        stripped = line.lstrip()
        indent = line[:len(line) - len(stripped)]
        if (m := _LINE_MAGIC.match(stripped)) is not None:
            out.append(indent + (_statement_of(m.group(2)) or "pass"))
            notes.append(f"`%{m.group(1)}` was skipped: its statement ran once, without it")
        elif stripped.startswith(("%", "!")) or _HELP.match(stripped):
            out.append(f"{indent}pass  # {stripped}")
            notes.append(f"`{stripped[:60]}` was skipped (IPython syntax, not Python)")
        elif (m := _ASSIGN_SHELL.match(stripped)) is not None:
            out.append(f"{indent}{m.group(1)} = []  # {stripped}")
            notes.append(f"`{stripped[:60]}` was skipped (IPython syntax, not Python)")
        else:
            out.append(line)
    return "\n".join(out), list(dict.fromkeys(notes))


# ---- the two transforms ------------------------------------------------------------------------
def _replace_blocks(source, begin, end, replacement_lines, what):
    out, inside, indent = [], False, ""
    for line in source.split("\n"):
        if begin.match(line):
            if inside:
                raise NotebookError(f"{what}: a second BEGIN before END")
            inside, indent = True, line[: len(line) - len(line.lstrip())]
            out.extend(indent + r for r in replacement_lines)
        elif end.match(line):
            if not inside:
                raise NotebookError(f"{what}: END without BEGIN")
            inside = False
        elif not inside:
            out.append(line)
    if inside:
        raise NotebookError(f"{what}: BEGIN without END")
    return "\n".join(out)


def strip_solution(source: str) -> str:
    """The learner's version of a solution cell: each solution block becomes the stub."""
    return _replace_blocks(source, BEGIN_SOLUTION, END_SOLUTION, CODE_STUB, "solution block")


def strip_hidden(source: str) -> str:
    """A test cell without its hidden tests (and without the blank lines they leave)."""
    return _replace_blocks(source, BEGIN_HIDDEN, END_HIDDEN, [], "hidden tests").rstrip("\n")


def without_markers(source: str) -> str:
    """A solution cell as plain code: the delimiter lines dropped, the solution kept."""
    return "\n".join(ln for ln in source.split("\n")
                     if not (BEGIN_SOLUTION.match(ln) or END_SOLUTION.match(ln)))


def hidden_blocks(source: str) -> list[str]:
    blocks, cur = [], None
    for line in source.split("\n"):
        if BEGIN_HIDDEN.match(line):
            cur = []
        elif END_HIDDEN.match(line):
            if cur is not None:
                blocks.append("\n".join(cur))
            cur = None
        elif cur is not None:
            cur.append(line)
    return blocks


def parse_hidden_checks(block: str) -> list[tuple[str, dict]]:
    """`q1.check(cases=[...], random=50, seed=7)` lines -> [("q1", {kwargs})]. Only literal
    arguments are accepted: the grader reads hidden tests, it never executes them."""
    try:
        tree = ast.parse(block)
    except SyntaxError as e:
        raise NotebookError(f"hidden tests do not parse: {e}") from None
    calls = []
    for stmt in tree.body:
        call = stmt.value if isinstance(stmt, ast.Expr) else None
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
                and call.func.attr == "check" and isinstance(call.func.value, ast.Name)
                and not call.args):
            raise NotebookError("hidden tests must be `qN.check(cases=[...], random=N, seed=S)` "
                                f"calls; found: {ast.unparse(stmt)[:80]}")
        kwargs = {}
        for kw in call.keywords:
            if kw.arg not in ("cases", "random", "seed"):
                raise NotebookError(f"unknown argument {kw.arg!r} in hidden check()")
            try:
                kwargs[kw.arg] = literal(kw.value)
            except ValueError as e:
                raise NotebookError(f"hidden check() argument {kw.arg}: {e}") from None
        calls.append((call.func.value.id, kwargs))
    return calls


_OPS = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
        ast.FloorDiv: lambda a, b: a // b, ast.Pow: lambda a, b: a ** b}


def literal(node):
    """ast.literal_eval plus integer arithmetic (`2 ** 40`, `(1,) * 8`), bounded in size:
    hidden tests stay readable, and reading them still runs no code."""
    if isinstance(node, ast.Constant) and type(node.value) in (int, float, bool, str, type(None)):
        return node.value
    if isinstance(node, (ast.Tuple, ast.List)):
        items = [literal(e) for e in node.elts]
        return tuple(items) if isinstance(node, ast.Tuple) else items
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        v = literal(node.operand)
        if type(v) in (int, float):
            return -v
    if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
        a, b = literal(node.left), literal(node.right)
        if type(a) is int and type(b) is int and not (isinstance(node.op, ast.Pow) and not 0 <= b <= 512):
            return _OPS[type(node.op)](a, b)
        if (isinstance(node.op, ast.Mult) and isinstance(a, (tuple, list)) and type(b) is int
                and 0 <= b * len(a) <= 4096):
            return a * b
    raise ValueError(f"not a literal: {ast.unparse(node)[:60]}")


RAISES_TAG = "raises-exception"  # nbval: the cell is expected to raise; nbgrader ignores tags
_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom)


def _names_used(tree) -> set:
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}


def _defines_only(tree) -> bool:
    """True when running the cell only defines things (functions, classes, imports, constants):
    it calls nothing of the learner's, even if its functions will."""
    return all(isinstance(s, _DEFINITIONS)
               or (isinstance(s, (ast.Assign, ast.AnnAssign)) and s.value is not None
                   and not any(isinstance(n, ast.Call) for n in ast.walk(s.value)))
               or (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))
               for s in tree.body)


def _defined_names(tree) -> set:
    out = set()
    for s in tree.body:
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(s.name)
        elif isinstance(s, (ast.Assign, ast.AnnAssign)):
            targets = s.targets if isinstance(s, ast.Assign) else [s.target]
            out |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
    return out


def expected_failures(cells) -> list[int]:
    """Indices of the code cells of a *released* notebook that raise when it is run untouched,
    top to bottom: solution cells whose stub runs at the top level of the cell, graded test
    cells (their check() says "not written yet"), and the locked cells that run the learner's
    code (directly, or through functions defined in earlier cells that call it). Cells that only
    define things (drivers, helpers) are not among them."""
    out, learner = [], set()
    for c in cells:  # what the learner writes: the names their solution cells define
        if c.get("cell_type") == "code" and nbgrader(c).get("solution"):
            try:
                learner |= _defined_names(ast.parse(cell_source(c)))
            except SyntaxError:
                pass
    tainted = set(learner)
    for i, c in enumerate(cells):
        if c.get("cell_type") != "code":
            continue
        meta, src = nbgrader(c), cell_source(c)
        if meta.get("grade"):
            out.append(i)
            continue
        if meta.get("solution"):
            if any(ln.startswith("raise NotImplementedError") for ln in src.split("\n")):
                out.append(i)  # a stub at the cell's top level raises when the cell runs
            continue
        try:
            tree = ast.parse("\n".join(("# " + ln) if ln.lstrip().startswith(("%", "!")) else ln
                                       for ln in src.split("\n")))
        except SyntaxError:
            continue
        if not _names_used(tree) & tainted:
            continue
        if _defines_only(tree):
            tainted |= _defined_names(tree)  # e.g. a driver: calling it runs the learner's code
        else:
            out.append(i)  # it raises, so what it would have defined is missing later on
            tainted |= _defined_names(tree) | {n.id for n in ast.walk(tree)
                                               if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    return out


# grade_ids of the cells release adds; they are the instructor's, like the setup cell, and a
# grader should never run them (they install the course on Colab and show progress)
ADDED_CELLS = ("colab_badges", "colab_setup", "progress_line")


def _locked(cell_type, grade_id, source):
    cell = {"cell_type": cell_type, "id": grade_id, "source": source, "metadata": {"nbgrader": {
        "grade": False, "grade_id": grade_id, "locked": True, "schema_version": 3, "solution": False,
        "task": False}}}
    if cell_type == "code":
        cell.update(outputs=[], execution_count=None)
    return cell


def _add_learner_cells(cells, name):
    """What every released exercise opens with: the Colab and Binder badges, the Colab-only
    install cell (before the setup cell imports the course), and, after the setup cell, the
    one-line progress summary."""
    from . import links
    setup = next((i for i, c in enumerate(cells) if c.get("cell_type") == "code"), len(cells) - 1)
    cells.insert(setup + 1, _locked("code", "progress_line", f'show_progress("{name}")  # show_progress(): the whole table'))
    cells.insert(setup, _locked("code", "colab_setup", links.colab_install_cell()))
    cells.insert(0, _locked("markdown", "colab_badges", links.badges(f"exercises/{name}.ipynb")))


def _graded_setup(cells, name):
    """A graded handout: the setup cell loads the exercise with graded=True (no solution())."""
    call = re.compile(r"load_exercise\((['\"])" + re.escape(name) + r"\1\)")
    for cell in cells:
        if cell.get("cell_type") == "code" and call.search(cell_source(cell)):
            cell["source"] = call.sub(lambda m: f"load_exercise({m.group(1)}{name}{m.group(1)}, graded=True)",
                                      cell_source(cell))
            return
    raise NotebookError(f"a graded release needs a setup cell calling load_exercise({name!r})")


def release(nb: dict, name: str, source_path: str = "", graded: bool = False) -> dict:
    """solutions notebook -> exercise notebook (a new dict; the input is not changed).
    graded: a handout for a graded class, whose solution() shows no answer."""
    out = copy.deepcopy(nb)
    if graded:
        _graded_setup(out["cells"], name)
    for i, cell in enumerate(out["cells"]):
        meta = nbgrader(cell)
        src = cell_source(cell)
        where = f"cell {i} ({meta.get('grade_id', 'no grade_id')})"
        try:
            if meta.get("solution"):
                if cell["cell_type"] == "code":
                    if not any(BEGIN_SOLUTION.match(ln) for ln in src.split("\n")):
                        raise NotebookError("a solution cell without ### BEGIN SOLUTION")
                    src = strip_solution(src)
                else:
                    src = MARKDOWN_STUB
            src = strip_hidden(src) if hidden_blocks(src) else src
        except NotebookError as e:
            raise NotebookError(f"{where}: {e}") from None
        cell["source"] = src
        if cell["cell_type"] == "code":
            cell["outputs"] = []
            cell["execution_count"] = None
        if isinstance(cell.get("metadata"), dict):
            cell["metadata"].pop("execution", None)
    # an untouched exercise, run top to bottom under nbval, fails exactly in these cells
    for i in expected_failures(out["cells"]):
        cell = out["cells"][i]
        if not isinstance(cell.get("metadata"), dict):
            cell["metadata"] = {}
        tags = cell["metadata"].get("tags")
        tags = list(tags) if isinstance(tags, list) else []
        if RAISES_TAG not in tags:
            cell["metadata"]["tags"] = tags + [RAISES_TAG]
    _add_learner_cells(out["cells"], name)
    meta = out.setdefault("metadata", {})
    meta["minitorch"] = {
        "exercise": name,
        "release": release_id(out),
        **({"graded": True} if graded else {}),
        "generated": f"from {source_path or 'solutions/' + name + '.ipynb'} by "
                     "`python -m minitorch_course.release`; do not edit by hand",
    }
    return out


def locked_cells(nb) -> dict:
    """{grade_id: {"cell_type", "source", "grade"}} of a released notebook's locked cells: what
    a learner may not change, as the grader compares it."""
    out = {}
    for c in nb["cells"]:
        meta, gid = nbgrader(c), grade_id(c)
        if gid and meta.get("locked") and gid not in out:
            out[gid] = {"cell_type": c["cell_type"], "source": cell_source(c), "grade": bool(meta.get("grade"))}
            if meta.get("grade"):
                out[gid]["points"] = meta.get("points")
    return out


def release_id(nb) -> str:
    """A release's id: a digest of its locked cells, so that the same cells make the same id on
    any machine, and a changed instruction or test cell a new one."""
    import hashlib
    text = json.dumps(locked_cells(nb), sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def release_of(nb):
    """The release id a notebook's metadata names, or None."""
    meta = nb.get("metadata")
    mt = meta.get("minitorch") if isinstance(meta, dict) else None
    rid = mt.get("release") if isinstance(mt, dict) else None
    return rid if isinstance(rid, str) else None


def dumps(nb: dict) -> str:
    """Deterministic notebook JSON (nbformat's own layout: indent 1, sorted keys)."""
    return json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def validate_source_notebook(nb: dict) -> list[str]:
    """Problems with a solutions notebook as an nbgrader source (empty list: none)."""
    problems, seen = [], set()
    for i, cell in enumerate(nb["cells"]):
        meta = nbgrader(cell)
        if not meta:
            continue
        gid = meta.get("grade_id")
        where = f"cell {i} ({gid})"
        if meta.get("schema_version") != 3:
            problems.append(f"{where}: nbgrader schema_version is not 3")
        if not isinstance(gid, str) or not gid:
            problems.append(f"{where}: no grade_id")
        elif gid in seen:
            problems.append(f"{where}: duplicate grade_id")
        seen.add(gid)
        for key in ("grade", "solution", "locked"):
            if not isinstance(meta.get(key), bool):
                problems.append(f"{where}: nbgrader.{key} is not a bool")
        if meta.get("grade") and not isinstance(meta.get("points"), (int, float)):
            problems.append(f"{where}: a graded cell without points")
        if meta.get("solution") and meta.get("locked"):
            problems.append(f"{where}: a solution cell cannot be locked")
        src = cell_source(cell)
        try:
            for block in hidden_blocks(src):
                parse_hidden_checks(block)
            if hidden_blocks(src) and not meta.get("grade"):
                problems.append(f"{where}: hidden tests outside a graded test cell")
            strip_hidden(src)
            if meta.get("solution") and cell["cell_type"] == "code":
                strip_solution(src)
        except NotebookError as e:
            problems.append(f"{where}: {e}")
    return problems
