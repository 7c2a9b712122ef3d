"""How an answer may be written: an exercise's rules, decided by reading the source.

A question can say *how* its answer must be written: no NumPy or minitorch ("numpy.*" in the
exercise's forbidden_calls), not these functions (a dotted name), not these modules
(forbidden_imports), no Python-level loops (no_loops). Those rules are decided here, in the
grader's process (on the submitted cells) and in check() (on the cells the learner ran), by
the same code reading the same kind of input: the source, never its behaviour. The sandbox's
runtime guard (harness.forbid_calls) is only a second line.

What is read: everything the graded name can reach in the program, that is every definition
it refers to (functions, classes with all their methods, lambdas, helpers of helpers, the
value of a global it uses), resolving names as Python does (local, enclosing, global, builtin)
and dotted names through the real modules of this process (`np.lib.stride_tricks.as_strided`
is found whatever alias or private path leads to it). Then:

- calls: a reachable use of a forbidden object (by identity: functions and types alike), of
  anything in a forbidden package, of a module holding a forbidden function passed around as a
  value; in a "plain Python" exercise (a "pkg.*" rule), of any module outside the standard
  library;
- imports: a reachable use of a module that may not be imported, or an import of it in
  reachable code;
- dynamic code, which would hide what the code does from this reading: exec/eval/compile,
  __import__ and importlib, getattr/setattr with computed names, globals()/vars(), frames,
  function internals (__code__, __globals__, ...), private parts of modules; those that can
  change any definition (exec, globals(), setting __code__, ...) count anywhere in the
  learner's cells, the others where reachable;
- loops (no_loops): for/while, comprehensions, map/filter/reduce/itertools, a Python function
  passed as a key=, recursion (through any number of functions).
"""
from __future__ import annotations

import ast
import builtins
import functools
import inspect
import re
import sys
import threading
import timeit
from dataclasses import dataclass

from ..spec import _LOOPS
from .harness import _ALWAYS_BLOCKED_IMPORTS, _belongs, forbidden_targets


@dataclass(frozen=True)
class Rules:
    """The rules of one question: forbidden call patterns, forbidden imports, no_loops."""
    calls: tuple = ()
    imports: tuple = ()
    no_loops: bool = False
    trusted: tuple = ()  # packages whose use is never a fault (the course's own, outside a notebook)
    attributes: tuple = ()  # "name": no use of the attribute; "name=": no setting it

    @classmethod
    def of(cls, exercise, spec):
        imports = tuple(dict.fromkeys((*exercise.forbidden_imports, *_ALWAYS_BLOCKED_IMPORTS)))
        calls = tuple(dict.fromkeys((*exercise.forbidden_calls, *getattr(exercise, "forbidden_types", ()))))
        return cls(calls, imports, bool(spec.no_loops),
                   attributes=tuple(getattr(exercise, "forbidden_attributes", ())))

    @property
    def attribute_uses(self):
        return frozenset(a for a in self.attributes if not a.endswith("="))

    @property
    def attribute_sets(self):
        return frozenset(a[:-1] for a in self.attributes if a.endswith("=")) | self.attribute_uses

    @property
    def packages(self):
        return tuple(p[:-2] for p in self.calls if p.endswith(".*"))

    @property
    def plain_python(self):
        """A "pkg.*" rule: the answer is plain Python, the standard library only."""
        return bool(self.packages)


@dataclass(frozen=True)
class Violation:
    kind: str   # "loop", "call", "import" or "dynamic"
    text: str   # "uses numpy.ndarray in f() (its line 3)"

    def __str__(self):
        return self.text


# ---- what counts as dynamic ----------------------------------------------------------------------
# Changing code, or running code the reading cannot see: counts anywhere in the learner's cells.
ANYWHERE_BUILTINS = ("exec", "eval", "compile", "globals", "__import__", "breakpoint")
SCOPE_BUILTINS = ("locals", "vars")  # at the top level they are globals(); vars(x) reads x's attributes
ATTRIBUTE_BUILTINS = ("getattr", "setattr", "delattr", "hasattr")  # fine with a constant name
ANYWHERE_MODULES = ("builtins", "__main__", "importlib", "imp", "pickle", "_pickle", "marshal", "copyreg",
                    "shelve", "dill", "cloudpickle", "code", "codeop", "runpy", "pdb", "bdb", "cProfile",
                    "profile", "trace", "doctest", "gc", "ctypes", "_ctypes", "ast")
ANYWHERE_ATTRS = ("f_globals", "f_locals", "f_back", "f_builtins", "f_code", "tb_frame", "gi_frame",
                  "cr_frame", "ag_frame", "__globals__", "__code__", "__closure__", "__builtins__",
                  "__defaults__", "__kwdefaults__", "__subclasses__", "__import__", "__reduce__",
                  "__reduce_ex__", "co_code", "co_consts")
ANYWHERE_STORED = ("__class__", "__bases__", "__dict__", "__call__", "__getattr__", "__getattribute__")
# Reading what the code does not name: counts where reachable.
REACHABLE_MODULES = ("inspect", "pydoc", "pkgutil", "unittest", "logging.config", "zipimport",
                     "modulefinder", "xmlrpc")  # they find objects from strings, or read any object
REACHABLE_ATTRS = ("__dict__", "__getattribute__", "__getattr__", "__self__", "__func__", "__wrapped__",
                   "__mro__", "__bases__", "__base__", "__loader__", "__spec__", "__annotations__",
                   "__objclass__", "__init_subclass__", "__class_getitem__", "mro")
KEYED = ("sorted", "min", "max", "sort", "nsmallest", "nlargest", "groupby", "merge")


@functools.lru_cache(maxsize=1)
def _dynamic_objects():
    """Objects whose use counts as dynamic code: {id: (object, name, anywhere?)}."""
    import operator
    import types
    import typing
    out = {}

    def add(obj, name, anywhere):
        out[id(obj)] = (obj, name, anywhere)
    for n in ANYWHERE_BUILTINS:  # getattr() and friends: by their arguments, see _Walker.call
        add(getattr(builtins, n), f"{n}()", True)
    for n in ("_getframe", "_current_frames", "settrace", "setprofile", "modules", "meta_path",
              "path_hooks", "path_importer_cache", "_current_exceptions", "addaudithook", "call_tracing"):
        if hasattr(sys, n):
            add(getattr(sys, n), f"sys.{n}", True)
    for n in ("currentframe", "stack", "trace", "getouterframes", "getinnerframes", "getframeinfo",
              "getmembers", "getmembers_static", "getattr_static", "get_annotations", "signature",
              "getclosurevars", "unwrap"):
        if hasattr(inspect, n):
            add(getattr(inspect, n), f"inspect.{n}", n in ("currentframe", "stack", "trace", "getouterframes",
                                                            "getinnerframes", "getclosurevars"))
    for n in ("FunctionType", "LambdaType", "CodeType", "ModuleType", "CellType", "MethodType", "new_class",
              "FrameType", "TracebackType"):
        if hasattr(types, n):
            add(getattr(types, n), f"types.{n}", n not in ("MethodType", "new_class"))
    add(operator.attrgetter, "operator.attrgetter", False)
    add(operator.methodcaller, "operator.methodcaller", False)
    add(typing.get_type_hints, "typing.get_type_hints", False)
    return out


@functools.lru_cache(maxsize=1)
def _stdlib_names():
    return frozenset(getattr(sys, "stdlib_module_names", ())) | frozenset(sys.builtin_module_names)


def _top(name):
    return name.split(".")[0]


def _within(name, prefixes):
    return any(name == p or name.startswith(p + ".") for p in prefixes)


_TARGETS_LOCK = threading.Lock()


@functools.lru_cache(maxsize=32)
def _targets(calls):
    """({id: (object, public name)} of the forbidden objects, the modules that hold any of them)."""
    specific = [p for p in calls if not p.endswith(".*")]
    with _TARGETS_LOCK:
        found = forbidden_targets(specific) if specific else {}
    holders = set()
    for obj, name in found.values():
        parts = name.split(".")
        holders |= {".".join(parts[:i]) for i in range(1, len(parts))}
    for mname, mod in list(sys.modules.items()):
        try:  # as it is: a lazily loaded module is not loaded by looking at it
            d = object.__getattribute__(mod, "__dict__")
        except AttributeError:
            continue
        if isinstance(d, dict) and any(id(v) in found and found[id(v)][0] is v for v in list(d.values())):
            parts = mname.split(".")
            holders |= {".".join(parts[:i]) for i in range(1, len(parts) + 1)}
    return found, frozenset(holders)


def _static_attr(obj, attr):
    """obj.attr as stored (no descriptor or __getattr__ runs); AttributeError when absent."""
    v = inspect.getattr_static(obj, attr)
    if isinstance(v, (staticmethod, classmethod)):
        v = v.__func__
    return v


# ---- the program: cells, parsed once, and the global names they bind -----------------------------
SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.ListComp, ast.SetComp,
          ast.DictComp, ast.GeneratorExp)
FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
BLOCKS = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try,
          getattr(ast, "TryStar", ast.Try), getattr(ast, "Match", ast.If))


@dataclass
class Binding:
    kind: str          # "def", "expr", "module", "from", "code", "param"
    node: object = None
    extra: object = None
    scope: object = None
    cell: int | None = None
    order: int = 0     # when a top-level statement made it (a later one sees it, an earlier one not)


def _parse(source):
    """A cell's AST (never changed once made), or None when Python could not run it either."""
    return _parse_small(source) if len(source) < 100_000 else _parse_any(source)


@functools.lru_cache(maxsize=128)
def _parse_small(source):
    return _parse_any(source)


def _parse_any(source):
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        return None


class Program:
    """The cells (plain Python, as notebook.python_code makes them), in the order they run.
    `trusted`: indices of the instructor's cells (the grader's prelude and drivers), which the
    reading follows but never faults."""

    def __init__(self, sources, trusted=()):
        self.trees = [_parse(s) for s in sources]
        self.trusted = set(trusted)
        self.globals, self.stars, self.patches, self._anywhere = {}, [], {}, None
        self.history, self._clock = {}, 0  # name -> [(order, conditional, Binding)], in order
        self.module = Scope(None, "module", None, self)
        for i, tree in enumerate(self.trees):
            if tree is not None:
                self._collect(tree.body, i, conditional=False)
                self._collect_globals(tree, i)

    def bindings(self, name, now=None):
        """What a global name is bound to at the end of the program, or (now: a statement's
        order) when that top-level statement runs."""
        if now is None:
            return self.globals.get(name, [])
        out = []
        for order, conditional, b in self.history.get(name, []):
            if order >= now:
                break
            out = out + [b] if conditional else [b]
        return out

    def definition_of(self, code):
        """The Binding of the function (def or lambda, at any depth) a code object was compiled
        from, with the scopes around it; None when it is not in these cells."""
        for tree in self.trees:
            if tree is None:
                continue
            stack = [(n, self.module) for n in reversed(tree.body)]
            while stack:
                n, sc = stack.pop()
                if isinstance(n, FUNCTIONS) and getattr(n, "name", "<lambda>") == code.co_name and (
                        code.co_firstlineno in (n.lineno, *[d.lineno for d in getattr(n, "decorator_list", [])])):
                    return Binding("def", n, scope=sc)
                if isinstance(n, SCOPES):
                    inner = Scope(n, "class" if isinstance(n, ast.ClassDef) else
                                  "function" if isinstance(n, FUNCTIONS) else "comp", sc)
                    stack += [(c, inner) for c in reversed(_inner_parts(n))]
                    stack += [(c, sc) for c in reversed(_outer_parts(n))]
                else:
                    stack += [(c, sc) for c in reversed(list(ast.iter_child_nodes(n)))]
        return None

    def _bind(self, name, b, conditional):
        b.order = self._clock
        self.history.setdefault(name, []).append((self._clock, conditional, b))
        if conditional:
            self.globals.setdefault(name, []).append(b)
        else:
            self.globals[name] = [b]

    def _collect(self, stmts, cell, conditional):  # noqa: C901 - one branch per statement kind
        for st in stmts:
            self._clock += 1
            if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                self._bind(st.name, Binding("def", st, cell=cell), conditional)
            elif isinstance(st, (ast.Assign, ast.AnnAssign)) and st.value is not None:
                targets = st.targets if isinstance(st, ast.Assign) else [st.target]
                for t in targets:
                    if isinstance(t, ast.Name):
                        self._bind(t.id, Binding("expr", st.value, extra=st, cell=cell), conditional)
                    else:
                        for n in _stored_names(t):
                            self._bind(n, Binding("code", st, cell=cell), conditional)
            elif isinstance(st, ast.AugAssign):
                for n in _stored_names(st.target):
                    self._bind(n, Binding("code", st, cell=cell), True)
            elif isinstance(st, ast.Import):
                for a in st.names:
                    if a.asname:
                        self._bind(a.asname, Binding("module", extra=a.name), conditional)
                    else:
                        self._bind(_top(a.name), Binding("module", extra=_top(a.name)), conditional)
            elif isinstance(st, ast.ImportFrom):
                for a in st.names:
                    if st.level:
                        self._bind(a.asname or a.name, Binding("code", st, cell=cell), conditional)
                    elif a.name == "*":
                        self.stars.append(st.module or "")
                    else:
                        self._bind(a.asname or a.name, Binding("from", extra=(st.module or "", a.name)),
                                   conditional)
            elif isinstance(st, BLOCKS):
                for n in _block_targets(st):
                    self._bind(n, Binding("code", st, cell=cell), True)
                for field in ("body", "orelse", "finalbody"):
                    self._collect(getattr(st, field, []) or [], cell, True)
                for h in getattr(st, "handlers", []) or []:
                    self._collect(h.body, cell, True)
                for case in getattr(st, "cases", []) or []:
                    self._collect(case.body, cell, True)
            for n in _walrus_targets(st):
                self._bind(n, Binding("code", st, cell=cell), True)

    def _collect_globals(self, tree, cell):
        """Names a function declares global and assigns: bound by running that function."""
        for top in tree.body:
            for node in _walk(top):
                if isinstance(node, FUNCTIONS[:2]):
                    declared = {n for g in _walk(node) if isinstance(g, ast.Global) for n in g.names}
                    for n in declared & set(_local_stores(node)):
                        self._bind(n, Binding("code", top, cell=cell), True)


def _walk(node):
    """ast.walk, depth first and without recursion (a submission's AST may be deep)."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(reversed(list(ast.iter_child_nodes(n))))


def _stored_names(target):
    return [n.id for n in _walk(target) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)]


def _block_targets(st):
    out = []
    if isinstance(st, (ast.For, ast.AsyncFor)):
        out += _stored_names(st.target)
    if isinstance(st, (ast.With, ast.AsyncWith)):
        for item in st.items:
            if item.optional_vars is not None:
                out += _stored_names(item.optional_vars)
    for h in getattr(st, "handlers", []) or []:
        if h.name:
            out.append(h.name)
    for case in getattr(st, "cases", []) or []:
        out += [n.name for n in _walk(case.pattern) if getattr(n, "name", None) and isinstance(n.name, str)]
        out += [n.rest for n in _walk(case.pattern) if isinstance(getattr(n, "rest", None), str)]
    return out


def _walrus_targets(st):
    if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, *BLOCKS)):
        return []
    return [n.target.id for n in _walk(st) if isinstance(n, ast.NamedExpr)]


# ---- scopes --------------------------------------------------------------------------------------
def _outer_parts(node):
    """The parts of a scope node Python evaluates in the enclosing scope."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        a = node.args
        out = [*a.defaults, *[d for d in a.kw_defaults if d is not None]]
        return [*getattr(node, "decorator_list", []), *out]
    if isinstance(node, ast.ClassDef):
        return [*node.decorator_list, *node.bases, *[k.value for k in node.keywords]]
    return [node.generators[0].iter]  # a comprehension's first iterable


def _annotations(node):
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        a = node.args
        args = [*a.posonlyargs, *a.args, *a.kwonlyargs, *(x for x in (a.vararg, a.kwarg) if x)]
        return [x.annotation for x in args if x.annotation is not None] + ([node.returns] if node.returns else [])
    return []


def _inner_parts(node):
    """The parts of a scope node evaluated in its own scope."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return list(node.body)
    if isinstance(node, ast.Lambda):
        return [node.body]
    gens = node.generators
    out = [g.target for g in gens] + [x for g in gens for x in g.ifs] + [g.iter for g in gens[1:]]
    return out + ([node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt])


def _own(nodes):
    """The nodes of a scope's own code: nested scopes are yielded but not entered."""
    stack = list(reversed(nodes))
    while stack:
        n = stack.pop()
        yield n
        if isinstance(n, SCOPES):
            stack.extend(reversed(_outer_parts(n)))
            if isinstance(n, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
                stack.extend(w for w in _walk(n) if isinstance(w, ast.NamedExpr))  # binds out here
            continue
        if isinstance(n, ast.AnnAssign):
            stack.extend(reversed([x for x in (n.target, n.value) if x is not None]))
            continue
        stack.extend(reversed(list(ast.iter_child_nodes(n))))


def _local_stores(node):
    return [n.id for n in _own(_inner_parts(node)) if isinstance(n, ast.Name)
            and isinstance(n.ctx, (ast.Store, ast.Del))]


class Scope:
    """A function, lambda, class or comprehension scope (or the module), with its local names."""

    def __init__(self, node, kind, parent, program=None):
        self.node, self.kind, self.parent = node, kind, parent
        self.program = program or (parent.program if parent else None)
        self.locals, self.declared_global, self.declared_nonlocal = {}, set(), set()
        if node is not None:
            self._table()

    def _table(self):  # noqa: C901
        node, add = self.node, self._add
        if isinstance(node, FUNCTIONS):
            a = node.args
            positional = [*a.posonlyargs, *a.args]
            defaults = [None] * (len(positional) - len(a.defaults)) + list(a.defaults)
            for arg, d in zip(positional, defaults):
                add(arg.arg, Binding("param", d, scope=self.parent))
            for arg, d in zip(a.kwonlyargs, a.kw_defaults):
                add(arg.arg, Binding("param", d, scope=self.parent))
            for arg in (a.vararg, a.kwarg):
                if arg is not None:
                    add(arg.arg, Binding("param"))
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            for g in node.generators:
                for n in _stored_names(g.target):
                    add(n, Binding("code"))
            return
        for n in _own(_inner_parts(node)):
            if isinstance(n, ast.Global):
                self.declared_global |= set(n.names)
            elif isinstance(n, ast.Nonlocal):
                self.declared_nonlocal |= set(n.names)
            elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n is not node:
                add(n.name, Binding("def", n, scope=self))
            elif isinstance(n, (ast.Assign, ast.AnnAssign)) and n.value is not None:
                for t in (n.targets if isinstance(n, ast.Assign) else [n.target]):
                    if isinstance(t, ast.Name):
                        add(t.id, Binding("expr", n.value, scope=self))
            elif isinstance(n, ast.Import):
                for al in n.names:
                    add(al.asname or _top(al.name), Binding("module", extra=al.name if al.asname else _top(al.name)))
            elif isinstance(n, ast.ImportFrom) and not n.level:
                for al in n.names:
                    if al.name != "*":
                        add(al.asname or al.name, Binding("from", extra=(n.module or "", al.name)))
            elif isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
                self.locals.setdefault(n.id, [])
                if not self.locals[n.id]:
                    self.locals[n.id].append(Binding("code"))
            elif isinstance(n, ast.ExceptHandler) and n.name:
                add(n.name, Binding("code"))
        for n in self.declared_global | self.declared_nonlocal:
            self.locals.pop(n, None)

    def _add(self, name, b):
        self.locals.setdefault(name, []).append(b)

    def lookup(self, name):
        """("local", scope) or ("global", None), as Python resolves a name used here."""
        s, first = self, True
        while s is not None and s.kind != "module":
            if name in s.declared_global:
                return "global", None
            if (first or s.kind != "class") and name in s.locals:
                return "local", s
            s, first = s.parent, False
        return "global", None


# ---- the reading ---------------------------------------------------------------------------------
class _Walker:
    """One question's reading of a program: reachability, denotations and the checks."""

    MAX_DEPTH = 60

    def __init__(self, program, rules):
        self.p, self.rules = program, rules
        self.found = []
        self.targets, self.holders = _targets(rules.calls)
        self.dynamic = _dynamic_objects()
        self.seen, self.queue, self.patches, self.now = set(), [], {}, None
        self.graph, self.labels = {}, {}
        self._global_cache, self._local_cache, self._class_scopes = {}, {}, {}

    def add(self, kind, text):
        """Record a violation, once per thing used (the first place it is used is enough)."""
        what = _LOCATION.sub("", text)
        if all((v.kind, _LOCATION.sub("", v.text)) != (kind, what) for v in self.found):
            self.found.append(Violation(kind, text))

    # -- denotations: what an expression names, as far as reading can tell --------------------
    def den_global(self, name, depth, now=None):
        key = (name, now)
        if key in self._global_cache:
            return self._global_cache[key]
        self._global_cache[key] = [None]  # a cycle of aliases names nothing known
        bs = self.p.bindings(name, now)
        if bs:
            out = [d for b in bs for d in self.den_binding(b, self.p.module, depth + 1)]
        elif hasattr(builtins, name):
            out = [("object", getattr(builtins, name), name)]
        else:
            out = [d for m in self.p.stars for d in self.den_attr(("module", m), name)] or [None]
        self._global_cache[key] = out = _unique(out)
        return out

    def den_name(self, name, scope, depth=0, now=None):
        where, s = scope.lookup(name)
        if where == "global":
            return self.den_global(name, depth, now)
        key = (id(s.node), name)
        if key in self._local_cache:
            return self._local_cache[key]
        self._local_cache[key] = [None]  # `d = d + 1`: a name defined by itself names nothing known
        out = _unique([d for b in s.locals[name] for d in self.den_binding(b, s, depth + 1)])
        self._local_cache[key] = out
        return out

    def den_binding(self, b, scope, depth):
        if depth > self.MAX_DEPTH:
            return [("opaque",)]
        if b.kind == "def":
            return [("def", b.node, b.scope or self.p.module)]
        if b.kind == "module":
            return [("module", b.extra)]
        if b.kind == "from":
            module, attr = b.extra
            return self.den_attr(("module", module), attr)
        if b.kind in ("expr", "param") and b.node is not None:
            top_level = b.scope is None and b.kind == "expr"  # `_f = f`: the f of that moment
            return self.den_expr(b.node, b.scope or scope, depth + 1, b.order if top_level else None)
        return [None]

    def den_expr(self, node, scope, depth=0, now=None):
        """What an expression names. now: the order of the top-level statement it runs in (its
        global names as they are then), or None (as they are when a function is called)."""
        if depth > self.MAX_DEPTH:
            return [("opaque",)]
        if isinstance(node, ast.Name):
            return self.den_name(node.id, scope, depth, now)
        if isinstance(node, ast.Attribute):
            bases = self.den_expr(node.value, scope, depth + 1, now)
            return [d for base in bases for d in self.den_attr(base, node.attr)]
        if isinstance(node, ast.Lambda):
            return [("def", node, scope)]
        if isinstance(node, ast.NamedExpr):
            return self.den_expr(node.value, scope, depth + 1, now)
        if isinstance(node, ast.IfExp):
            return self.den_expr(node.body, scope, depth + 1, now) + self.den_expr(node.orelse, scope, depth + 1, now)
        if isinstance(node, ast.BoolOp):
            return [d for v in node.values for d in self.den_expr(v, scope, depth + 1, now)]
        const = _getattr_const(node)
        if const is not None:
            bases = self.den_expr(node.args[0], scope, depth + 1, now)
            return [d for base in bases for d in self.den_attr(base, const)]
        return [None]

    def den_attr(self, d, attr):
        if d is not None and d[0] == "def" and isinstance(d[1], ast.ClassDef):
            return self.den_class_attr(d[1], d[2], attr)
        if d is None or d[0] in ("def", "opaque"):
            return [d if d and d[0] == "opaque" else None]
        if d[0] == "module":
            mod = sys.modules.get(d[1])
            if mod is None:
                return [("object", None, f"{d[1]}.{attr}")]
            try:
                v = _static_attr(mod, attr)
            except Exception:  # noqa: BLE001 - absent (or an odd module): a submodule, or unknown
                sub = f"{d[1]}.{attr}"
                return [("module", sub)] if sub in sys.modules else [("object", None, sub)]
            return [self._wrap(v, f"{d[1]}.{attr}")]
        obj, name = d[1], d[2]
        if obj is None:
            return [("object", None, f"{name}.{attr}")]
        try:
            return [self._wrap(_static_attr(obj, attr), f"{name}.{attr}")]
        except AttributeError:
            return [None]
        except Exception:  # noqa: BLE001 - an odd object of a library: nothing known
            return [None]

    def den_class_attr(self, node, scope, attr):
        """C.attr for a learner's class C: what its body binds to attr (its methods included)."""
        key = (id(node), attr)
        if key in self._local_cache:
            return self._local_cache[key]
        self._local_cache[key] = [None]
        inner = self._class_scopes.get(id(node)) or self._class_scopes.setdefault(id(node), Scope(node, "class", scope))
        out = _unique([x for b in inner.locals.get(attr, []) for x in self.den_binding(b, inner, 1)] or [None])
        self._local_cache[key] = out
        return out

    @staticmethod
    def _wrap(v, name):
        if isinstance(v, type(sys)):
            return ("module", v.__name__)
        return ("object", v, name)

    # -- the checks on one denotation ---------------------------------------------------------
    def check_den(self, d, where, ctx):  # noqa: C901 - one rule after the other
        if d is None:
            return
        if d[0] == "opaque":
            self.add("dynamic", f"a chain of aliases too long to check {where}")
            return
        if d[0] == "def":
            return
        name = d[1] if d[0] == "module" else d[2]
        obj = sys.modules.get(name) if d[0] == "module" else d[1]
        shown = name
        if _within(name, self.rules.trusted) or _within(_module_of(obj), self.rules.trusted):
            return
        if _within(name, self.rules.imports):
            self.add("import", f"uses {shown} {where}: {_top(name)} may not be imported here")
            return
        if _within(name, ANYWHERE_MODULES + REACHABLE_MODULES) and ctx != "membership":
            self.add("dynamic", f"uses {shown} {where}")  # by the path written: `builtins.len`, not len
            return
        if d[0] == "module" and _top(name).startswith("_") and name not in ("__future__",):
            self.add("dynamic", f"uses the private module {shown} {where}")
            return
        if obj is not None and id(obj) in self.dynamic and self.dynamic[id(obj)][0] is obj:
            if not (ctx == "membership" and obj is sys.modules):
                self.add("dynamic", f"uses {self.dynamic[id(obj)][1]} {where}")
            return
        for pkg in self.rules.packages:
            if d[0] == "module" and _within(name, [pkg]):
                if ctx not in ("base", "alias"):
                    self.add("call", f"uses the module {shown} {where}")
                return
            if d[0] == "object" and ((obj is None and _within(name, [pkg])) or (
                    obj is not None and (callable(obj) or isinstance(obj, type)) and _belongs(obj, pkg))):
                self.add("call", f"uses {_public(obj, name)} {where}")
                return
        if obj is not None and id(obj) in self.targets and self.targets[id(obj)][0] is obj:
            self.add("call", f"uses {self.targets[id(obj)][1]} {where}")
            return
        if d[0] == "module" and ctx == "use" and name in self.holders:
            self.add("call", f"passes the module {shown} around as a value {where}: "
                             "the functions it holds could not be checked")
            return
        if self.rules.plain_python and ctx != "membership" and not _in_stdlib(d, name, obj):
            self.add("call", f"uses {shown} {where}: only plain Python (the standard library) here")

    # -- reachability ---------------------------------------------------------------------------
    def reach(self, d):
        """Queue the learner's definition d (a def, class or lambda) for reading."""
        if d is None or d[0] != "def":
            return
        node, scope = d[1], d[2]
        if id(node) in self.seen:
            return
        self.seen.add(id(node))
        self.queue.append((node, scope, None))
        self.queue += [(v, sc, None) for v, sc in self.patches.get(id(node), [])]

    def reach_bindings(self, bindings):
        for b in bindings:
            scope = b.scope or self.p.module
            if b.kind == "def":
                self.reach(("def", b.node, scope))
            elif b.kind in ("expr", "code") and b.node is not None:
                for d in self.den_expr(b.node, scope) if b.kind == "expr" else ():
                    self.reach(d)
                stmt = b.extra if b.kind == "expr" and b.extra is not None else b.node
                self.queue.append((stmt, scope, b.order if b.scope is None else None))
            else:
                for d in self.den_binding(b, scope, 0):
                    self.check_den(d, "(where it is defined)", "use")

    def reach_values(self, name, now=None):
        """A global's value, computed by a top-level statement: that statement is read too."""
        for b in self.p.bindings(name, now):
            stmt = b.extra if b.kind == "expr" and b.extra is not None else b.node
            if b.kind in ("expr", "code") and stmt is not None and id(stmt) not in self.seen:
                self.seen.add(id(stmt))
                self.queue.append((stmt, self.p.module, b.order))

    def run(self, bindings):
        self.reach_bindings(bindings)
        while self.queue:
            node, scope, now = self.queue.pop()
            try:
                self.walk(node, scope, now)
            except RecursionError:
                self.add("dynamic", "code nested too deeply to check")
        if self.rules.no_loops:
            self.recursion()

    # -- walking one definition -------------------------------------------------------------------
    def walk(self, root, scope, now=None):  # noqa: C901 - a dispatcher
        """Read one definition or top-level statement. now: that statement's order, when its
        top-level code runs at that moment (a function's body runs later: its globals as at
        the end)."""
        stack = [(root, scope, None, None, False, now)]
        while stack:
            n, sc, parent, fn, in_annotation, t = stack.pop()
            self.now = t
            self.visit(n, sc, parent, fn, in_annotation)
            if isinstance(n, SCOPES):
                inner = Scope(n, "class" if isinstance(n, ast.ClassDef) else
                              "function" if isinstance(n, FUNCTIONS) else "comp", sc)
                inner_fn = (n, sc) if isinstance(n, FUNCTIONS) else fn
                inner_t = None if isinstance(n, FUNCTIONS) else t
                if isinstance(n, FUNCTIONS):
                    self.labels.setdefault(id(n), self._label(n, sc))
                for c in reversed(_inner_parts(n)):
                    stack.append((c, inner, n, inner_fn, False, inner_t))
                for c in reversed(_outer_parts(n)):
                    stack.append((c, sc, n, fn, in_annotation, t))
                for c in _annotations(n):
                    stack.append((c, sc, n, fn, True, t))
                continue
            for c in reversed(list(ast.iter_child_nodes(n))):
                ann = in_annotation or (isinstance(n, ast.AnnAssign) and c is n.annotation)
                stack.append((c, sc, n, fn, ann, t))

    def _label(self, fn, scope):
        name = getattr(fn, "name", None)
        if name is None:  # a lambda: the name it is bound to at the top level
            name = next((k for k, bs in self.p.globals.items() for b in bs if b.node is fn), "<lambda>")
        owner = scope
        while owner is not None and owner.kind not in ("class", "function", "module"):
            owner = owner.parent
        if owner is not None and owner.kind == "class":
            return f"{owner.node.name}.{name}"
        return name

    def where(self, node, fn):
        """"in f() (its line 3)", as the loop messages have always said it."""
        if fn is None:
            return _Where(node, "(at `{}`)")
        f, _scope = fn
        line = getattr(node, "lineno", f.lineno) - f.lineno + 1
        return f"in {self.labels.get(id(f), '?')}() (its line {line})"

    def forbidden_attribute(self, n, fn):
        """A use of an attribute the exercise forbids (the name, a setattr/getattr constant, a
        definition of that name in a class), or setting one it forbids setting."""
        uses, sets = self.rules.attribute_uses, self.rules.attribute_sets
        if isinstance(n, ast.Attribute):
            stored = isinstance(n.ctx, (ast.Store, ast.Del))
            if n.attr in uses or (stored and n.attr in sets):
                self.add("call", f"{'sets' if stored else 'uses'} .{n.attr} {self.where(n, fn)}")
        elif isinstance(n, ast.Name) and n.id in uses:
            self.add("call", f"uses {n.id} {self.where(n, fn)}")
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name in uses:
            self.add("call", f"defines {n.name} {self.where(n, fn)}")
        elif isinstance(n, ast.Call):
            for which in ("setattr", "delattr", "getattr", "hasattr"):
                name = _getattr_const(n, which)
                if name is not None and (name in uses or (which in ("setattr", "delattr") and name in sets)):
                    self.add("call", f"{'sets' if which == 'setattr' else 'uses'} .{name} {self.where(n, fn)}")

    def visit(self, n, scope, parent, fn, in_annotation):  # noqa: C901 - a dispatcher
        if self.rules.attributes:
            self.forbidden_attribute(n, fn)
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
            dens = self.den_name(n.id, scope, 0, self.now)
            for d in dens:
                self.reach(d)
                self.edge(fn, d)
            if scope.lookup(n.id)[0] == "global":
                self.reach_values(n.id, self.now)
            if not in_annotation and not (isinstance(parent, ast.Attribute) and parent.value is n):
                ctx = _context(n, parent, scope)
                for d in dens:
                    self.check_den(d, self.where(n, fn), ctx)
                    if ctx != "call" and d is not None and d[0] == "object" and any(
                            d[1] is getattr(builtins, b) for b in (*ATTRIBUTE_BUILTINS, *SCOPE_BUILTINS)):
                        self.add("dynamic", f"passes {n.id}() around as a value {self.where(n, fn)}")
        elif isinstance(n, ast.Attribute):
            if n.attr in ANYWHERE_ATTRS or n.attr in REACHABLE_ATTRS:
                self.add("dynamic", f"uses .{n.attr} {self.where(n, fn)}")
            if isinstance(n.ctx, ast.Load) and not (isinstance(parent, ast.Attribute) and parent.value is n):
                self.chain(n, scope, parent, fn, in_annotation)
            self.method_edge(n, scope, fn)
        elif isinstance(n, ast.Call):
            self.call(n, scope, fn)
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            for a in n.names:
                mod = (n.module or "") if isinstance(n, ast.ImportFrom) else a.name
                if isinstance(n, ast.ImportFrom) and n.level:
                    continue
                self.check_den(("module", mod), self.where(n, fn), "base")
                if isinstance(n, ast.ImportFrom) and a.name != "*":
                    for d in self.den_attr(("module", mod), a.name):
                        self.check_den(d, self.where(n, fn), "alias")
        if self.rules.no_loops:
            what = _LOOPS.get(type(n))
            if what:
                self.add("loop", f"{what} {self.where(n, fn)}")

    def chain(self, n, scope, parent, fn, in_annotation):
        """A dotted name: every prefix is checked (np.ndarray in np.ndarray.__new__ counts)."""
        parts, base = [], n
        while isinstance(base, ast.Attribute):
            parts.append(base.attr)
            base = base.value
        dens = self.den_expr(base, scope, 0, self.now)
        where, before = self.where(n, fn), len(self.found)
        for i, attr in enumerate(reversed(parts)):
            private = attr.startswith("_") and not attr.startswith("__") and any(
                d is not None and d[0] == "module" for d in dens)
            dens = [d for b in dens for d in self.den_attr(b, attr)]
            if private:
                self.add("dynamic", f"uses a private part of a module (.{attr}) {where}")
            if not in_annotation:
                last = i == len(parts) - 1
                for d in dens:
                    self.check_den(d, where, _context(n, parent, scope) if last else "base")
            if len(self.found) > before:
                return  # one reason per dotted name is enough

    def call(self, n, scope, fn):  # noqa: C901
        dens = [d for d in self.den_expr(n.func, scope, 0, self.now) if d is not None and d[0] == "object"]
        objs = [d[1] for d in dens if d[1] is not None]
        where = self.where(n, fn)
        for name in ATTRIBUTE_BUILTINS:
            if any(o is getattr(builtins, name) for o in objs) and _getattr_const(n, name) is None:
                self.add("dynamic", f"uses {name}() with a computed name {where}")
        if any(o is vars for o in objs) and (n.args or n.keywords):
            self.add("dynamic", f"uses vars() to read an object's attributes {where}")
        if not self.rules.no_loops:
            return
        for o in objs:
            if o is map or o is filter or o is functools.reduce or _belongs(o, "itertools"):
                self.add("loop", f"{getattr(o, '__name__', 'itertools')}() {where}: a Python-level loop")
            if o is iter and len(n.args) == 2:
                self.add("loop", f"iter() with a sentinel {where}: a Python-level loop")
        fname = n.func.attr if isinstance(n.func, ast.Attribute) else getattr(n.func, "id", "")
        for kw in n.keywords:
            if kw.arg == "key" and fname in KEYED and not isinstance(kw.value, ast.Constant):
                self.add("loop", f"a key= function for {fname}() {where}: a Python function called on "
                                 "each element")

    # -- recursion --------------------------------------------------------------------------------
    def edge(self, fn, d):
        if fn is None or d is None or d[0] != "def":
            return
        target = d[1]
        if isinstance(target, ast.ClassDef):
            for m in target.body:
                if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef)) and m.name in (
                        "__init__", "__new__", "__call__", "__post_init__"):
                    self.graph.setdefault(id(fn[0]), set()).add(id(m))
        elif isinstance(target, FUNCTIONS):
            self.graph.setdefault(id(fn[0]), set()).add(id(target))

    def method_edge(self, n, scope, fn):
        """self.m / cls.m inside a method: an edge to the class's own method m."""
        if fn is None or not isinstance(n.value, ast.Name):
            return
        s = fn[1]
        while s is not None and s.kind not in ("class", "module"):
            s = s.parent
        if s is None or s.kind != "class":
            return
        for m in s.node.body:
            if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef)) and m.name == n.attr:
                self.graph.setdefault(id(fn[0]), set()).add(id(m))

    def recursion(self):
        """Every cycle of calls among the learner's functions (self-calls included), once."""
        color, stack, reported = {}, [], set()

        def visit(u):
            todo = [(u, iter(sorted(self.graph.get(u, ()))))]
            color[u] = 1
            stack.append(u)
            while todo:
                node, it = todo[-1]
                nxt = next(it, None)
                if nxt is None:
                    todo.pop()
                    stack.pop()
                    color[node] = 2
                    continue
                if color.get(nxt) == 1:
                    cyc = stack[stack.index(nxt):]
                    key = frozenset(cyc)
                    if key not in reported:
                        reported.add(key)
                        names = [self.labels.get(c, "?") + "()" for c in cyc]
                        self.add("loop", f"recursion: {names[0]} calls itself" if len(cyc) == 1
                                 else "recursion: " + " → ".join(names + names[:1]))
                elif nxt not in color:
                    color[nxt] = 1
                    stack.append(nxt)
                    todo.append((nxt, iter(sorted(self.graph.get(nxt, ())))))
        for u in sorted(self.graph):
            if u not in color and u in self.labels:
                visit(u)

    # -- anywhere in the learner's cells --------------------------------------------------------
    def anywhere(self):
        """What counts anywhere in the learner's cells (the same for every question: read once
        per program), and the patches onto the learner's definitions found on the way."""
        if self.p._anywhere is None:
            found, self.found = self.found, []
            for i, tree in enumerate(self.p.trees):
                if tree is None or i in self.p.trusted:
                    continue
                try:
                    self._scan(tree)
                except RecursionError:
                    self.add("dynamic", "code nested too deeply to check")
            self.p._anywhere, self.p.patches = self.found, self.patches
            self.found = found
        self.patches = self.p.patches
        for v in self.p._anywhere:
            if v not in self.found:
                self.found.append(v)

    def _scan(self, tree):
        stack = [(n, self.p.module, tree) for n in reversed(tree.body)]
        while stack:
            n, sc, parent = stack.pop()
            where = _Where(n)
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
                if n.id == "__builtins__":
                    self.add("dynamic", f"uses __builtins__ {where}")
                elif n.id in ANYWHERE_BUILTINS:
                    if any(d is not None and d[0] == "object" and d[1] is getattr(builtins, n.id)
                           for d in self.den_name(n.id, sc)):
                        self.add("dynamic", f"uses {n.id}() {where}")
            elif isinstance(n, ast.Attribute):
                stored = isinstance(n.ctx, (ast.Store, ast.Del)) or (
                    isinstance(parent, ast.Subscript) and parent.value is n
                    and isinstance(parent.ctx, (ast.Store, ast.Del)))
                if n.attr in ANYWHERE_ATTRS or (stored and n.attr in ANYWHERE_STORED):
                    self.add("dynamic", f"uses .{n.attr} {where}")
                if isinstance(n.ctx, ast.Load) and not (isinstance(parent, ast.Attribute) and parent.value is n):
                    for d in self.den_expr(n, sc):
                        self._anywhere_den(d, where, _context(n, parent, sc))
            elif isinstance(n, (ast.Import, ast.ImportFrom)) and not getattr(n, "level", 0):
                for a in n.names:
                    mod = (n.module or "") if isinstance(n, ast.ImportFrom) else a.name
                    self._anywhere_den(("module", mod), where, "base")
                    if isinstance(n, ast.ImportFrom) and a.name != "*":
                        for d in self.den_attr(("module", mod), a.name):
                            self._anywhere_den(d, where, "alias")
            elif isinstance(n, ast.Call):
                objs = [d[1] for d in self.den_expr(n.func, sc) if d is not None and d[0] == "object"]
                if sc.kind in ("module", "class") and not n.args and any(o is locals or o is vars for o in objs):
                    self.add("dynamic", f"uses {getattr(n.func, 'id', 'locals')}() at the top level {where}")
                for name in ("setattr", "delattr"):
                    if any(o is getattr(builtins, name) for o in objs) and _getattr_const(n, name) is None:
                        self.add("dynamic", f"uses {name}() with a computed name {where}")
                if any(o in (timeit.timeit, timeit.repeat, timeit.Timer) for o in objs) and any(
                        not isinstance(a, (ast.Lambda, ast.Name, ast.Attribute)) for a in
                        [*n.args[:2], *[k.value for k in n.keywords if k.arg in ("stmt", "setup")]]):
                    self.add("dynamic", f"runs code from a string with timeit {where}")
            self._patch(n, sc)
            if isinstance(n, SCOPES):
                inner = Scope(n, "class" if isinstance(n, ast.ClassDef) else
                              "function" if isinstance(n, FUNCTIONS) else "comp", sc)
                stack.extend((c, inner, n) for c in reversed(_inner_parts(n)))
                stack.extend((c, sc, n) for c in reversed(_outer_parts(n)))
                continue
            stack.extend((c, sc, n) for c in reversed(list(ast.iter_child_nodes(n))))

    def _anywhere_den(self, d, where, ctx):
        if d is None or d[0] == "def":
            return
        name = d[1] if d[0] == "module" else d[2]
        obj = d[1] if d[0] == "object" else None
        if _within(name, ANYWHERE_MODULES) and ctx != "membership":
            self.add("dynamic", f"uses {name} {where}")
        elif obj is not None and id(obj) in self.dynamic and self.dynamic[id(obj)][2] \
                and self.dynamic[id(obj)][0] is obj and not (ctx == "membership" and obj is sys.modules):
            self.add("dynamic", f"uses {self.dynamic[id(obj)][1]} {where}")

    def _patch(self, n, sc):
        """C.attr = value on a learner's class or function: part of C from now on."""
        if isinstance(n, ast.Assign):
            for t in n.targets:
                if isinstance(t, ast.Attribute) and isinstance(t.ctx, ast.Store):
                    for d in self.den_expr(t.value, sc):
                        if d is not None and d[0] == "def":
                            self.p.patches.setdefault(id(d[1]), []).append((n.value, sc))
                            if id(d[1]) in self.seen:
                                self.queue.append((n.value, sc))


def _unique(dens, limit=64):
    """The denotations, each once (by what they name), at most `limit` of them."""
    out, seen = [], set()
    for d in dens:
        key = None if d is None else (d[0], *(x if isinstance(x, str) else id(x) for x in d[1:3]))
        if key not in seen:
            seen.add(key)
            out.append(d)
    return out[:limit]


def _module_of(obj):
    try:
        mod = getattr(obj, "__module__", None)
    except Exception:  # noqa: BLE001 - an odd object of a library
        return ""
    return mod if isinstance(mod, str) else ""


def _in_stdlib(d, name, obj):
    """Whether a module or object comes from the standard library (or is a plain constant)."""
    if d[0] == "object" and obj is not None and not (callable(obj) or isinstance(obj, type)):
        return True
    mod = _module_of(obj) if d[0] == "object" and obj is not None else ""
    top = _top(mod or name)
    return top in _stdlib_names() or (d[0] == "object" and hasattr(builtins, top))  # tuple.__hash__


def _public(obj, name):
    mod, qual = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None)
    if isinstance(mod, str) and isinstance(qual, str) and "<" not in qual:
        return f"{mod}.{qual}".replace("numpy._core.", "numpy.").replace("numpy.core.", "numpy.")
    return name


def _getattr_const(node, which=None):
    """The constant name of getattr(x, "name"[, default]) (or hasattr/setattr/delattr), else None."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
        return None
    if which is None and node.func.id != "getattr":
        return None
    if which is not None and node.func.id != which:
        return None
    if len(node.args) >= 2 and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str):
        return node.args[1].value
    return None


def _context(n, parent, scope=None):
    """How an expression is used: as the base of an attribute, assigned to a plain local or
    top-level name (an alias the reading follows), tested with `in`, called, or anything else
    ("use": passed, stored, returned, bound where the reading does not follow it...)."""
    if isinstance(parent, ast.Attribute) and parent.value is n:
        return "base"
    if _getattr_const(parent) is not None and parent.args[0] is n:  # getattr(np, "name"): as np.name
        return "base"
    if isinstance(parent, ast.Call) and parent.func is n:
        return "call"
    if isinstance(parent, (ast.Assign, ast.AnnAssign)) and parent.value is n:
        targets = parent.targets if isinstance(parent, ast.Assign) else [parent.target]
        hidden = set() if scope is None else scope.declared_global | scope.declared_nonlocal
        if all(isinstance(t, ast.Name) and t.id not in hidden for t in targets) and (
                scope is None or scope.kind != "class"):  # a class attribute is read as obj.name
            return "alias"
    if isinstance(parent, ast.Compare) and any(isinstance(op, (ast.In, ast.NotIn)) for op in parent.ops) \
            and n in parent.comparators:
        return "membership"
    return "use"


_LOCATION = re.compile(r" (in a cell, at `.*?`|in [\w.<>]+\(\) \(its line \d+\)|\(at `.*?`\)|\(where it is defined\))")


class _Where:
    """"in a cell, at `code`", made only when a message needs it."""

    def __init__(self, node, form="in a cell, at `{}`"):
        self.node, self.form = node, form

    def __str__(self):
        return self.form.format(_snippet(self.node))

    def __format__(self, spec):
        return str(self)


def _snippet(node):
    try:
        text = ast.unparse(node)
    except Exception:  # noqa: BLE001
        return "?"
    text = " ".join(text.split())
    return text if len(text) <= 60 else text[:57] + "..."


def violations(program: Program, target, rules: Rules, defined_here=False) -> list[Violation]:
    """The rules that `target` (a global name, or the Binding of a definition) breaks in
    `program`: [] when it keeps them. defined_here: a target the cells do not define is a fault
    too (check() in a notebook: the grader has the notebook's cells and nothing else)."""
    w = _Walker(program, rules)
    bindings = program.bindings(target) if isinstance(target, str) else [target]
    w.anywhere()
    if not bindings:  # not defined where reading can see: by a star import, or dynamically
        dens = [d for d in (w.den_global(target, 0) if isinstance(target, str) else ()) if d is not None]
        for d in dens:
            w.check_den(d, "(where it is defined)", "use")
        if defined_here and not dens and not w.found:
            w.add("dynamic", "is not defined in a cell of this notebook, and the grader has only "
                             "the notebook's cells")
        return w.found
    for b in bindings:
        if b.kind in ("module", "from"):
            source = b.extra if b.kind == "module" else ".".join(b.extra)
            w.add("dynamic", f"is imported ({source}), not written in the notebook")
    w.run(bindings)
    return w.found


__all__ = ["Program", "Rules", "Violation", "violations"]
