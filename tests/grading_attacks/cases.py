"""The cases: each is a notebook made from an exercise's solved notebook by a few edits.

`zero`: questions that must score nothing (what the case attacks with a wrong, empty or
forbidden answer). `full`: questions that must keep their points. An honest case has every
question in `full`. Sources are written to be *right* wherever that is possible, so that it is
the grader's rule, not a wrong value, that stops them.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field

ALL3, ALL2 = ("q1", "q2", "q3"), ("q1", "q2")


@dataclass
class Case:
    name: str
    exercise: str
    edits: tuple                   # ("set", grade_id, source) | ("add", source, at) | ("nb", fn)
    zero: tuple = ("q1",)
    full: tuple = ()
    status: tuple = ()             # allowed statuses of the zeroed questions (empty: any but correct)
    meta: dict = field(default_factory=dict)


def cs(src):
    return ("set", "contiguous_strides", src)


def add(src, at=3):
    return ("add", src, at)


RIGHT_CS = '''def contiguous_strides(shape):
    strides, step = [], 1
    for size in reversed(shape):
        strides.append(step)
        step *= size
    return tuple(reversed(strides))
'''
WRONG_CS = "def contiguous_strides(shape):\n    return (1,) * len(shape)\n"
# a right answer built from numpy's array type and methods (never disarmed at run time)
NP_BODY = '''    a = A((len(shape),), dtype=object)
    a[:] = [*shape[1:], 1] if shape else []
    return tuple(int(x) for x in a[::-1].cumprod()[::-1])
'''


def np_route(prelude, getter="A"):
    """contiguous_strides computed with numpy's ndarray type, reached by `prelude`."""
    return prelude + "\n\ndef contiguous_strides(shape):\n" + (f"    A = {getter}\n" if getter != "A" else "") + NP_BODY


# ---- forged reports, frames, the harness's own objects -------------------------------------------
FRAMES = [
    Case("frames_emit_forged_results", "03_strides", (cs('''import sys
def contiguous_strides(shape):
    f = sys._getframe(1)
    while f is not None:
        emit = f.f_locals.get("emit")
        if callable(emit):
            emit({"event": "question", "id": "q1", "results": [], "died": "correct"})
        f = f.f_back
    return ()
'''),)),
    Case("closure_cells_rewritten", "03_strides", (cs('''import sys
def contiguous_strides(shape):
    f = sys._getframe(1)
    emit = f.f_locals.get("emit") or f.f_back.f_locals.get("emit")
    for cell in (emit.__closure__ or ()):
        try:
            cell.cell_contents = lambda *a, **k: None
        except Exception:
            pass
    return ()
'''),)),
    Case("harness_module_encode_patched", "17_vectorise", (("set", "pairwise_sq_dists", '''import sys
h = sys.modules["__main__"]
h.encode = lambda v, depth=0: {"t": "array", "kind": "ndarray", "dtype": "float64", "shape": [1, 1]}
def pairwise_sq_dists(X, Y):
    return None
'''),), zero=ALL3),
    Case("timeout_raised_by_hand", "03_strides", (cs('''import sys
def contiguous_strides(shape):
    f = sys._getframe(1)
    while f is not None:
        t = f.f_globals.get("_Timeout")
        if t is not None:
            raise t()
        f = f.f_back
    return ()
'''),)),
    Case("exception_traceback_frames", "03_strides", (cs('''def contiguous_strides(shape):
    try:
        raise ValueError
    except ValueError as e:
        g = e.__traceback__.tb_frame.f_back.f_globals
    return g["encode"]((1,) * len(shape))
'''),)),
    Case("fake_done_and_exit", "03_strides", (cs('''import os
def contiguous_strides(shape):
    for fd in range(3, 10):
        try:
            os.write(fd, b"\\t{\\"event\\": \\"done\\"}\\n")
        except OSError:
            pass
    return ()
'''),)),
    Case("garbage_on_every_fd", "03_strides", (add('''import os
for fd in range(0, 64):
    try:
        os.write(fd, b"\\x00garbage without a newline")
    except OSError:
        pass
'''), cs(WRONG_CS))),
    Case("thread_forges_reports", "03_strides", (add('''import threading, os, time
def _spam():
    while True:
        for fd in range(3, 8):
            try:
                os.write(fd, b'{"event": "question", "id": "q1", "results": []}\\n')
            except OSError:
                pass
        time.sleep(0.001)
threading.Thread(target=_spam, daemon=True).start()
'''), cs(WRONG_CS))),
    Case("sigalrm_ignored_then_loop", "03_strides", (cs('''import signal
def contiguous_strides(shape):
    signal.signal(signal.SIGALRM, signal.SIG_IGN)
    while True:
        pass
'''),), status=("timeout", "forbidden")),
    Case("exit_timer_from_a_cell", "03_strides", (add('''import faulthandler
faulthandler.dump_traceback_later(0.5, exit=True)
'''), cs('''import time
def contiguous_strides(shape):
    time.sleep(1.0)
    return (1,) * len(shape)
'''))),
    Case("keyboard_interrupt", "03_strides", (cs("def contiguous_strides(shape):\n    raise KeyboardInterrupt\n"),)),
    Case("system_exit_zero", "03_strides", (cs("def contiguous_strides(shape):\n    raise SystemExit(0)\n"),)),
]

# ---- values that lie about what they are -------------------------------------------------------------
VALUES = [
    Case("class_attribute_claims_tuple", "03_strides", (cs('''class T:
    __class__ = tuple
    def __eq__(self, other):
        return True
def contiguous_strides(shape):
    return T()
'''),)),
    Case("tuple_subclass_lying_len", "03_strides", (cs('''class T(tuple):
    def __len__(self):
        return 99
    def __iter__(self):
        return iter(())
def contiguous_strides(shape):
    return T(())
'''),)),
    Case("int_subclass_items", "03_strides", (cs('''class I(int):
    def __eq__(self, o):
        return True
    __hash__ = int.__hash__
def contiguous_strides(shape):
    return tuple(I(0) for _ in shape)
'''),)),
    Case("numpy_scalars", "03_strides", (cs('''def contiguous_strides(shape):
    out, step = [], 1
    for n in reversed(shape):
        out.append(step)
        step *= n
    import array
    return tuple(array.array("q", reversed(out)))
'''),)),
    Case("self_referential_list", "03_strides", (cs("def contiguous_strides(shape):\n    a = []\n    a.append(a)\n    return a\n"),)),
    Case("huge_result", "03_strides", (cs("def contiguous_strides(shape):\n    return [0] * 10 ** 7\n"),)),
    Case("generator_result", "03_strides", (cs("def contiguous_strides(shape):\n    return (x for x in shape)\n"),)),
    Case("repr_raises", "03_strides", (cs('''class R:
    def __repr__(self):
        raise RuntimeError("no")
    def __eq__(self, o):
        return True
def contiguous_strides(shape):
    return R()
'''),)),
    Case("nan_for_everything", "17_vectorise", (("set", "pairwise_sq_dists", '''import numpy as np
def pairwise_sq_dists(X, Y):
    return np.full((len(X), len(Y)), np.nan)
'''),)),
    Case("ndarray_subclass", "17_vectorise", (("set", "pairwise_sq_dists", '''import numpy as np
class A(np.ndarray):
    def tolist(self):
        return []
def pairwise_sq_dists(X, Y):
    return np.zeros((len(X), len(Y))).view(A)
'''),)),
    Case("shape_right_values_empty", "17_vectorise", (("set", "one_hot", '''import numpy as np
def one_hot(labels, num_classes):
    return np.empty((len(labels), 0), dtype=np.int64).reshape(len(labels), 0)
'''),), zero=("q3",)),
    Case("fake_tensor", "14_training_loop", (("set", "linear_forward", '''class Tensor:
    __module__ = "minitorch"
    def __init__(self, shape):
        import numpy
        self._data = numpy.zeros(shape, dtype="float32")
        self.dtype = "minitorch.float32"
def linear_forward(x, weight, bias):
    import minitorch
    x, weight = minitorch.as_tensor(x), minitorch.as_tensor(weight)
    return Tensor(tuple((x @ weight.T).shape))
'''),), zero=("q2",)),
]

# ---- reading what the sandbox must not see ------------------------------------------------------------
def _read(path_expr):
    return cs(f'''import os
def contiguous_strides(shape):
    try:
        data = open({path_expr}, "rb").read()
    except OSError:
        data = b""
    return (len(data),) * len(shape)
''')


READING = [
    Case("read_solutions_relative", "03_strides", (_read("'../../../../../../../../work/main/solutions/03_strides.ipynb'"),)),
    Case("read_exercise_module", "03_strides", (_read("'/work/main/minitorch_course/exercises/strides.py'"),)),
    Case("read_proc_parent_environ", "03_strides", (_read("f'/proc/{os.getppid()}/environ'"),)),
    Case("read_git_objects", "03_strides", (_read("'/work/main/.git/HEAD'"),)),
    Case("read_job_file", "03_strides", (_read("'job.json'"),)),
    Case("list_tmp_for_sandboxes", "03_strides", (cs('''import os
def contiguous_strides(shape):
    try:
        names = os.listdir("/tmp")
    except OSError:
        names = []
    return (len(names),) * len(shape)
'''),)),
    Case("import_answer_key_by_path", "03_strides", (cs('''import importlib.util
def contiguous_strides(shape):
    spec = importlib.util.spec_from_file_location("s", "/work/main/minitorch_course/exercises/strides.py")
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m.contiguous_strides(shape)
'''),), zero=ALL3),
]

# ---- the same forbidden thing, reached by every road ---------------------------------------------------
ROADS = [
    ("from_import", np_route("from numpy import ndarray as A")),
    ("module_alias", np_route("import numpy\nN = numpy", "N.ndarray")),
    ("star_import", np_route("from numpy import *", "ndarray")),
    ("dunder_import", np_route("A = __import__('numpy').ndarray")),
    ("importlib", np_route("import importlib\nA = importlib.import_module('num' + 'py').ndarray")),
    ("sys_modules", np_route("import sys\nA = sys.modules['numpy'].ndarray")),
    ("computed_getattr", np_route("import numpy\nA = getattr(numpy, 'nd' + 'array')")),
    ("constant_getattr", np_route("import numpy\nA = getattr(numpy, 'ndarray')")),
    ("vars_of_module", np_route("import numpy\nA = vars(numpy)['ndarray']")),
    ("module_dict", np_route("import numpy\nA = numpy.__dict__['ndarray']")),
    ("container", np_route("import numpy\nBOX = [numpy]", "BOX[0].ndarray")),
    ("default_argument", '''import numpy
def contiguous_strides(shape, A=numpy.ndarray):
''' + NP_BODY),
    ("class_attribute", '''import numpy
class K:
    A = numpy.ndarray
def contiguous_strides(shape):
    A = K.A
''' + NP_BODY),
    ("closure_factory", '''import numpy
def _make():
    A = numpy.ndarray
    def contiguous_strides(shape):
''' + NP_BODY.replace("    ", "        ", 3) + '''    return contiguous_strides
contiguous_strides = _make()
'''),
    ("callable_object", '''import numpy
class _C:
    def __call__(self, shape):
        A = numpy.ndarray
''' + NP_BODY.replace("    ", "        ", 3) + "contiguous_strides = _C()\n"),
    ("decorator_swap", '''import numpy
def _swap(f):
    def contiguous_strides(shape):
        A = numpy.ndarray
''' + NP_BODY.replace("    ", "        ", 3) + '''    return contiguous_strides
@_swap
def contiguous_strides(shape):
    return ()
'''),
    ("code_object_swap", '''import numpy
def _real(shape):
    A = numpy.ndarray
''' + NP_BODY + '''
def contiguous_strides(shape):
    return ()
contiguous_strides.__code__ = _real.__code__
'''),
    ("setattr_on_main", '''import numpy, sys
def _real(shape):
    A = numpy.ndarray
''' + NP_BODY + '''
def contiguous_strides(shape):
    return ()
setattr(sys.modules[__name__], "contiguous_" + "strides", _real)
'''),
    ("globals_rebind", '''import numpy
def _real(shape):
    A = numpy.ndarray
''' + NP_BODY + '''
def contiguous_strides(shape):
    return ()
globals()["contiguous_strides"] = _real
'''),
    ("eval_string", np_route("A = eval('__imp' + 'ort__(\"numpy\").ndarray')")),
    ("type_hints", '''import numpy, typing
def _h(x: numpy.ndarray):
    pass
def contiguous_strides(shape):
    A = typing.get_type_hints(_h)["x"]
''' + NP_BODY),
    ("annotations_dunder", '''import numpy
def _h(x: numpy.ndarray):
    pass
def contiguous_strides(shape):
    A = _h.__annotations__["x"]
''' + NP_BODY),
    ("walrus_alias", np_route("import numpy", "(M := numpy).ndarray")),
    ("for_alias", '''import numpy
def contiguous_strides(shape):
    for M in [numpy]:
        A = M.ndarray
''' + NP_BODY),
    ("with_alias", '''import numpy, contextlib
def contiguous_strides(shape):
    with contextlib.nullcontext(numpy) as M:
        A = M.ndarray
''' + NP_BODY),
    ("unpacking_alias", '''import numpy
def contiguous_strides(shape):
    M, _ = numpy, 1
    A = M.ndarray
''' + NP_BODY),
    ("comprehension_shadow", '''import numpy as np
def contiguous_strides(shape):
    [0 for np in [1]]
    A = np.ndarray
''' + NP_BODY),
    ("method_dunder_new", np_route("import numpy", "lambda s, dtype: numpy.ndarray.__new__(numpy.ndarray, s, dtype=dtype)")),
    ("private_module", np_route("import numpy", "numpy._core.multiarray.ndarray")),
    ("through_minitorch", np_route("import minitorch", "minitorch._tensor.np.ndarray")),
    ("through_another_library", np_route("import matplotlib.cbook", "matplotlib.cbook.np.ndarray")),
    ("pickle_global", np_route("import pickle", "pickle.loads(b'cnumpy\\nndarray\\n.')")),
    ("attrgetter", np_route("import numpy, operator", "operator.attrgetter('ndarray')(numpy)")),
    ("subclasses_walk", np_route("", "[c for c in object.__subclasses__() if c.__name__ == 'ndarray'][0]")),
    ("builtins_injected", '''import builtins, numpy
builtins.A = numpy.ndarray
def contiguous_strides(shape):
''' + NP_BODY),
    ("frame_globals", '''import sys, numpy
def contiguous_strides(shape):
    A = sys._getframe().f_globals["numpy"].ndarray
''' + NP_BODY),
    ("other_cell_import", ("import numpy as np\n", np_route("", "np.ndarray"))),
    ("lambda_default", np_route("import numpy", "(lambda N=numpy: N.ndarray)()")),
    ("module_as_class_attribute", "import numpy\nclass K:\n    m = numpy\ndef contiguous_strides(shape):\n    A = K.m.ndarray\n" + NP_BODY),
    ("global_declared_alias", "import numpy\ndef _setup():\n    global M\n    M = numpy\n_setup()\n"
                              "def contiguous_strides(shape):\n    A = M.ndarray\n" + NP_BODY),
    ("walrus_then_use", "import numpy\ndef contiguous_strides(shape):\n    (m := numpy)\n    A = m.ndarray\n" + NP_BODY),
    ("pydoc_locate", np_route("import pydoc", "pydoc.locate('numpy.nd' + 'array')")),
    ("pkgutil_resolve", np_route("import pkgutil\nA = pkgutil.resolve_name('numpy:ndarray')")),
    ("inspect_getmodule", np_route("import inspect", "inspect.getmodule(inspect).sys.modules['numpy'].ndarray")),
    ("reduce_getattr", np_route("import functools, numpy", "functools.reduce(getattr, ['ndarray'], numpy)")),
    ("logging_resolver", np_route("import logging.config", "logging.config.BaseConfigurator({}).resolve('numpy.ndarray')")),
    ("formatter_get_field", np_route("import string, numpy", "string.Formatter().get_field('0.ndarray', (numpy,), {})[0]")),
    ("os_sys_modules", np_route("import os", "os.sys.modules['numpy'].ndarray")),
    ("warnings_module_chain", np_route("import warnings", "warnings.sys.modules['numpy'].ndarray")),
]
FORBIDDEN = [Case(f"road_{name}", "03_strides",
                  tuple(add(s) for s in src[:-1]) + (cs(src[-1]),) if isinstance(src, tuple) else (cs(src),))
             for name, src in ROADS]

# specific forbidden functions (15: as_strided and friends), by the roads that survive identity
AS_STRIDED = '''def im2col(image, kernel_size, stride=1, padding=0):
    import numpy as np
    x = np.asarray(image, dtype=np.float64)
    k = kernel_size if isinstance(kernel_size, int) else kernel_size[0]
    v = VIEW(x, (x.shape[0], x.shape[1] - k + 1, x.shape[2] - k + 1, k, k),
             (x.strides[0], x.strides[1], x.strides[2], x.strides[1], x.strides[2]))
    return v.transpose(0, 3, 4, 1, 2).reshape(x.shape[0] * k * k, -1).tolist()
'''
SPECIFIC = [Case(f"im2col_{name}", "15_im2col", (("set", "im2col", pre + "\n" + AS_STRIDED),), zero=("q2",))
            for name, pre in [
                ("private_alias", "from numpy.lib._stride_tricks_impl import as_strided as VIEW"),
                ("module_alias", "import numpy\nST = numpy.lib.stride_tricks\nVIEW = ST.as_strided"),
                ("module_as_argument", "import numpy\ndef _get(m):\n    return m.lib.stride_tricks.as_strided\nVIEW = _get(numpy)"),
                ("dict_lookup", "import numpy\nVIEW = numpy.lib.stride_tricks.__dict__['as_' + 'strided']"),
                ("window_view", "import numpy\nVIEW = lambda x, s, st: numpy.lib.stride_tricks.sliding_window_view(x, s[-2:])"),
            ]]

# ---- how to write it: no loops in 17 --------------------------------------------------------------------
PSD = "pairwise_sq_dists"
LOOPS = [Case(f"loop_{name}", "17_vectorise", (("set", PSD, "import numpy as np\nimport functools, itertools\n" + src),))
         for name, src in [
             ("filter", "def pairwise_sq_dists(X, Y):\n    X, Y = np.asarray(X, dtype=np.float64), np.asarray(Y, dtype=np.float64)\n"
                        "    rows = list(filter(lambda r: True, X))\n    return ((np.array(rows)[:, None] - Y[None]) ** 2).sum(2)\n"),
             ("reduce", "def pairwise_sq_dists(X, Y):\n    X, Y = np.asarray(X, dtype=np.float64), np.asarray(Y, dtype=np.float64)\n"
                        "    D = functools.reduce(lambda acc, i: acc + [((X[i] - Y) ** 2).sum(1)], range(len(X)), [])\n"
                        "    return np.array(D, dtype=np.float64).reshape(len(X), len(Y))\n"),
             ("itertools", "def pairwise_sq_dists(X, Y):\n    X, Y = np.asarray(X, dtype=np.float64), np.asarray(Y, dtype=np.float64)\n"
                           "    D = np.array(list(itertools.starmap(lambda a, b: ((a - b) ** 2).sum(), itertools.product(X, Y))))\n"
                           "    return D.reshape(len(X), len(Y))\n"),
             ("sorted_key", "def pairwise_sq_dists(X, Y):\n    X, Y = np.asarray(X, dtype=np.float64), np.asarray(Y, dtype=np.float64)\n"
                            "    order = sorted(range(len(X)), key=lambda i: 0)\n    return ((X[order][:, None] - Y[None]) ** 2).sum(2)\n"),
             ("generator_in_helper", "def _rows(X, Y):\n    return np.array([((x - Y) ** 2).sum(1) for x in X])\n"
                                     "def pairwise_sq_dists(X, Y):\n    X, Y = np.asarray(X, dtype=np.float64), np.asarray(Y, dtype=np.float64)\n"
                                     "    return _rows(X, Y).reshape(len(X), len(Y))\n"),
             ("while_in_nested", "def pairwise_sq_dists(X, Y):\n    X, Y = np.asarray(X, dtype=np.float64), np.asarray(Y, dtype=np.float64)\n"
                                 "    def go():\n        D, i = np.zeros((len(X), len(Y))), 0\n        while i < len(X):\n"
                                 "            D[i] = ((X[i] - Y) ** 2).sum(1)\n            i += 1\n        return D\n    return go()\n"),
             ("recursion_lambda", "pairwise_sq_dists = lambda X, Y, i=0: (np.zeros((0, len(Y))) if i == len(X) else "
                                  "np.vstack([((np.asarray(X[i], dtype=np.float64) - np.asarray(Y, dtype=np.float64)) ** 2).sum(1), "
                                  "pairwise_sq_dists(X, Y, i + 1)])).reshape(len(X) - i, len(Y)).astype(np.float64)\n"),
             ("recursion_via_method", "class _R:\n    def go(self, X, Y, i):\n        if i == len(X):\n            return []\n"
                                      "        return [((X[i] - Y) ** 2).sum(1)] + self.go(X, Y, i + 1)\n"
                                      "def pairwise_sq_dists(X, Y):\n    X, Y = np.asarray(X, dtype=np.float64), np.asarray(Y, dtype=np.float64)\n"
                                      "    return np.array(_R().go(X, Y, 0), dtype=np.float64).reshape(len(X), len(Y))\n"),
             ("vectorize_private", "def pairwise_sq_dists(X, Y):\n    X, Y = np.asarray(X, dtype=np.float64), np.asarray(Y, dtype=np.float64)\n"
                                   "    f = np.lib._function_base_impl.vectorize(lambda i, j: ((X[i] - Y[j]) ** 2).sum())\n"
                                   "    return f(*np.indices((len(X), len(Y)))).astype(np.float64)\n"),
             ("loop_in_class_body", "class _T:\n    rows = [i for i in range(3)]\n"
                                    "def pairwise_sq_dists(X, Y):\n    _T.rows\n    X, Y = np.asarray(X, dtype=np.float64), np.asarray(Y, dtype=np.float64)\n"
                                    "    return ((X[:, None] - Y[None]) ** 2).sum(2)\n"),
             ("frompyfunc", "def pairwise_sq_dists(X, Y):\n    X, Y = np.asarray(X, dtype=np.float64), np.asarray(Y, dtype=np.float64)\n"
                            "    f = np.frompyfunc(lambda i, j: ((X[i] - Y[j]) ** 2).sum(), 2, 1)\n"
                            "    return f(*np.indices((len(X), len(Y)))).astype(np.float64)\n"),
         ]]

# ---- the notebook itself ------------------------------------------------------------------------------------
def _dup_solution_wrong_last(nb):
    cells = nb["cells"]
    i = next(i for i, c in enumerate(cells) if c.get("metadata", {}).get("nbgrader", {}).get("grade_id") == "contiguous_strides")
    wrong = json.loads(json.dumps(cells[i]))
    wrong["source"] = WRONG_CS
    cells.insert(i + 1, wrong)
    return nb


def _markdown_solution(nb):
    for c in nb["cells"]:
        if c.get("metadata", {}).get("nbgrader", {}).get("grade_id") == "contiguous_strides":
            c["cell_type"] = "markdown"
            c.pop("outputs", None)
            c.pop("execution_count", None)
    return nb


def _raw(data):
    return lambda nb: data


NOTEBOOK = [
    Case("later_wrong_copy_of_a_solution_cell", "03_strides", (("nb", _dup_solution_wrong_last),), status=("incorrect",)),
    Case("solution_cell_made_markdown", "03_strides", (("nb", _markdown_solution),), status=("missing",)),
    Case("deeply_nested_code", "03_strides", (cs("def contiguous_strides(shape):\n    return " + "(" * 5000 + ")" * 5000 + "\n"),)),
    Case("very_long_expression", "03_strides", (cs("def contiguous_strides(shape):\n    return " + "+".join(["0"] * 60000) + "\n"),)),
    Case("parser_memory_error", "03_strides", (cs("def contiguous_strides(shape):\n    return " + "-" * 100_000 + "1\n"),)),
    Case("parser_recursion_in_an_added_cell", "03_strides", (add("x = " + "+".join(["0"] * 60000) + "\n"),),
         zero=(), full=ALL3),
    Case("huge_solution_cell", "03_strides", (cs(WRONG_CS + "#" * (3 << 20) + "\n"),), status=("not_graded",)),
    Case("not_json", "03_strides", (("nb", _raw(b"\x00\x01 not json")),), zero=ALL3, status=("not_graded",)),
    Case("json_bomb", "03_strides", (("nb", _raw(b"[" * 200000 + b"]" * 200000)),), zero=ALL3, status=("not_graded",)),
    Case("cells_not_a_list", "03_strides", (("nb", _raw(b'{"cells": {"a": 1}}')),), zero=ALL3, status=("not_graded",)),
    Case("bad_source_type", "03_strides", (("nb", _raw(b'{"cells": [{"cell_type": "code", "source": ["a", 1]}]}')),),
         zero=ALL3, status=("not_graded",)),
    Case("integer_of_many_digits", "03_strides", (("nb", _raw(b'{"cells": [], "x": ' + b"7" * 6000 + b"}")),),
         zero=ALL3, status=("not_graded",)),
    Case("utf16_notebook", "03_strides", (("nb", lambda nb: json.dumps(nb).encode("utf-16")),), zero=(), full=ALL3),
    Case("lone_surrogate_in_json", "03_strides", (cs("def contiguous_strides(shape):\n    return '\\ud800'\n"),)),
]

# ---- honest variants: every point kept ---------------------------------------------------------------------------
HONEST = [
    Case("honest_helpers_and_type_hints", "03_strides", (cs('''from __future__ import annotations

from typing import Sequence


def _product(values: Sequence[int]) -> int:
    """The product of some sizes."""
    out = 1
    for v in values:
        out *= v
    return out


def contiguous_strides(shape: Sequence[int]) -> tuple[int, ...]:
    """Row-major strides: each dim skips the product of the sizes after it."""
    return tuple(_product(shape[d + 1:]) for d in range(len(shape)))
'''),), zero=(), full=ALL3),
    Case("honest_print_debugging_and_magics", "03_strides", (cs("%%time\n" + RIGHT_CS.replace(
        "    return tuple", "    print('strides of', shape, 'are', strides[::-1])\n    return tuple")),
        add("%matplotlib inline\n%load_ext autoreload\n%autoreload 2\n!pip install -q nothing\nimport numpy as np\n"
            "print(np.zeros((2, 3)).strides)\n"), add("contiguous_strides?\n", at=6)), zero=(), full=ALL3),
    Case("honest_scratch_cells_and_unused_imports", "03_strides", (
        add("import math, itertools, functools, collections\nimport numpy as np\nimport minitorch\n"
            "x = np.arange(6).reshape(2, 3)\nprint(x.strides)\n"),
        add("print(contiguous_strides((2, 3, 4)))\nq1.check()\n", at=8),
        add("try:\n    import torch\nexcept ImportError:\n    torch = None\n", at=2),
        cs("import torch  # to compare with PyTorch, in the notebook\n" + RIGHT_CS)), zero=(), full=ALL3),
    Case("honest_recursion_and_lru_cache", "03_strides", (cs('''import functools
import sys

sys.setrecursionlimit(10_000)


@functools.lru_cache(maxsize=None)
def _strides(shape):
    if not shape:
        return ()
    rest = _strides(shape[1:])
    return ((rest[0] * shape[1]) if rest else 1,) + rest


def contiguous_strides(shape):
    return _strides(tuple(shape))
'''),), zero=(), full=ALL3),
    Case("honest_class_and_warnings", "03_strides", (cs('''import warnings
import logging

logging.basicConfig(level=logging.INFO)
log = logging.getLogger("mine")


class _Shape:
    def __init__(self, dims):
        self.dims = tuple(dims)

    def strides(self):
        out, step = [], 1
        for n in reversed(self.dims):
            out.append(step)
            step *= n
        return tuple(reversed(out))


def contiguous_strides(shape):
    if len(shape) > 6:
        warnings.warn("a big tensor", stacklevel=2)
        log.info("shape %s", shape)
    assert all(isinstance(n, int) for n in shape), shape
    return _Shape(shape).strides()
'''),), zero=(), full=ALL3),
    Case("honest_windows_line_endings_and_unicode", "03_strides", (cs(RIGHT_CS.replace("\n", "\r\n").replace(
        "strides, step", "# données: les pas (strides) ✓\r\n    strides, step")),), zero=(), full=ALL3),
    Case("honest_vectorised_other_way", "17_vectorise", (("set", PSD, '''import numpy as np


def pairwise_sq_dists(X, Y):
    """|x|^2 - 2 x.y + |y|^2, without the (n, m, d) array."""
    X = np.asarray(X, dtype=np.float64)
    Y = np.asarray(Y, dtype=np.float64)
    sq = (X ** 2).sum(axis=1)[:, None] - 2 * X @ Y.T + (Y ** 2).sum(axis=1)[None, :]
    return np.maximum(sq, 0.0) if False else ((X[:, None, :] - Y[None, :, :]) ** 2).sum(axis=-1)
'''), add("for i in range(3):\n    print(i)\n"), add("rows = [r for r in range(5)]\nprint(rows)\n")), zero=(), full=ALL3),
    Case("honest_driver_class_with_extra_methods", "06_inplace_version", (add('''def show(t):
    print(t.tolist(), t.version)
'''),), zero=(), full=ALL2),
    Case("honest_training_loop_prints", "14_training_loop", (add("import minitorch\nprint(minitorch.zeros(2))\n"),),
         zero=(), full=ALL3),
]


def _edited_metadata(nb):
    """What Jupyter, VS Code or Colab write into a notebook the learner only worked in."""
    nb["metadata"]["kernelspec"] = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
    nb["metadata"]["colab"] = {"provenance": []}
    for i, c in enumerate(nb["cells"]):
        c["id"] = f"x{i}-{'y' * 20}"
        meta = c.setdefault("metadata", {})
        meta.update(collapsed=False, scrolled=True, tags=["mine"], jupyter={"source_hidden": False},
                    execution={"iopub.status.busy": "2025-01-01T00:00:00Z"})
        if c["cell_type"] == "code":
            c["execution_count"] = 1000 - i
            c["outputs"] = [{"output_type": "display_data", "data": {"image/png": "iVBOR" * 2000}, "metadata": {}},
                            {"output_type": "error", "ename": "E", "evalue": "", "traceback": []}]
    return nb


def _reordered(nb):
    """The solution cells moved, last first, to just after the setup cell."""
    cells = nb["cells"]
    sol = [c for c in cells if c.get("metadata", {}).get("nbgrader", {}).get("solution")]
    rest = [c for c in cells if c not in sol]
    at = next(i for i, c in enumerate(rest) if c.get("metadata", {}).get("nbgrader", {}).get("grade_id") == "setup") + 1
    nb["cells"] = rest[:at] + sol[::-1] + rest[at:]
    return nb


def _without_markdown(nb):
    nb["cells"] = [c for c in nb["cells"] if c["cell_type"] != "markdown"]
    return nb


HONEST += [
    Case("honest_edited_metadata_and_outputs", "03_strides", (("nb", _edited_metadata),), zero=(), full=ALL3),
    Case("honest_reordered_cells", "03_strides", (("nb", _reordered),), zero=(), full=ALL3),
    Case("honest_markdown_deleted", "03_strides", (("nb", _without_markdown),), zero=(), full=ALL3),
    Case("honest_reordered_driver_exercise", "06_inplace_version", (("nb", _reordered),), zero=(), full=ALL2),
]

CASES = FRAMES + VALUES + READING + FORBIDDEN + SPECIFIC + LOOPS + NOTEBOOK + HONEST
