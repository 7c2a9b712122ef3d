"""The sandbox program: runs one submission's code on the grader's inputs, reports plain data.

The grader starts it as

    python -I harness.py CHANNEL_FD        (cwd: a fresh directory holding only job.json)

with CHANNEL_FD the write end of a pipe, and writes a one-line random nonce to its stdin.
Before any submitted code runs, the program (1) reads job.json (the cells, the questions'
inputs, the limits, the paths it may read) and deletes it, (2) sets resource limits, (3)
replaces forbidden library functions with ones that raise, (4) confines itself with Landlock
(files: read-only Python installation, read-write sandbox dir; no network; no signals to other
processes) and seccomp (no fork/exec, no new namespaces), (5) installs an audit hook, and only
then runs the cells and calls the learner's functions.

Every report is one line `NONCE<TAB>JSON` on the pipe, and carries only plain data: the values
the functions returned (encoded by `encode`), what went wrong in a cell, and each refused
operation as it happens. Submitted code can read and rewrite anything in this process (the
nonce included), so the grader believes none of it except as values it compares itself; a
pipe cannot be rewound, so what was written stays written. This program decides nothing.

This file imports nothing but the standard library (plus what the job preloads), so it never
drags minitorch, the reference solutions or the grader into the sandbox. The one exception is
an exercise whose drivers need them (`Exercise.driver_imports`: exercise 19 runs minitorch's
tests with the learner's functions plugged in): those modules are loaded before any cell runs,
and every import of them by the learner's code is refused all the same (guard_imports); the
solutions and the course package's files stay unreadable. The encoding helpers and
`forbid_calls` are also used by the in-notebook check().
"""
from __future__ import annotations

import __future__
import ast
import builtins
import json
import json.encoder
import linecache
import os
import sys
import traceback
import types

# ---------------------------------------------------------------------------------------
# Plain-data encoding. A value crosses the process boundary as tagged JSON, so the grader
# can tell a tuple from a list, an int from a numpy.int64, True from 1, without ever
# touching a submitted object. Types are recognised by identity, never by name.
# ---------------------------------------------------------------------------------------
MAX_ITEMS = 10_000       # items of one list, tuple or dict (more: the length says so)
MAX_STR = 100_000        # characters of one string
MAX_DEPTH = 32
MAX_INT_BITS = 4_000
MAX_NODES = 200_000      # encoded values in one result, all levels together

_FROZEN_ARRAY_TYPES = None  # the sandbox fixes these once its libraries are loaded


def array_types():
    """{class: kind} for the real numpy.ndarray ("ndarray") and minitorch.Tensor ("tensor"),
    as loaded in this process; in the sandbox, as they were before submitted code ran."""
    if _FROZEN_ARRAY_TYPES is not None:
        return _FROZEN_ARRAY_TYPES
    out = {}
    np, mt = sys.modules.get("numpy"), sys.modules.get("minitorch")
    if isinstance(getattr(np, "ndarray", None), type):
        out[np.ndarray] = "ndarray"
    if isinstance(getattr(mt, "Tensor", None), type):
        out[mt.Tensor] = "tensor"
    return out


def _numpy_generic():
    np = sys.modules.get("numpy")
    generic = getattr(np, "generic", None)
    return generic if isinstance(generic, type) else None


def _safe_repr(x, limit=200):
    try:
        r = repr(x)
    except BaseException as e:  # noqa: BLE001 - a submitted __repr__ may do anything
        if isinstance(e, _Timeout):
            raise
        r = f"<repr failed: {type(e).__name__}>"
    if type(r) is not str:
        r = "<repr returned a non-string>"
    return r if len(r) <= limit else r[:limit] + "..."


def _type_name(t):
    """A readable name for messages only: never used to decide what a value is."""
    try:
        mod, name = t.__module__, t.__qualname__
    except BaseException as e:  # noqa: BLE001
        if isinstance(e, _Timeout):
            raise
        return "?"
    if type(mod) is not str or type(name) is not str:
        return "?"
    return name if mod == "builtins" else f"{mod}.{name}"


class _Encoder:
    """One value's encoding, within MAX_NODES encoded values in all."""

    def __init__(self):
        self.left = MAX_NODES
        self.arrays, self.generic = array_types(), _numpy_generic()

    def enc(self, x, depth=0):  # noqa: C901 - one branch per kind of value
        self.left -= 1
        if self.left < 0:
            return {"t": "big"}
        t = type(x)
        if x is None:
            return {"t": "none"}
        if t is bool:
            return {"t": "bool", "v": x}
        if t is int:
            if x.bit_length() > MAX_INT_BITS:
                return {"t": "int", "big": x.bit_length()}
            return {"t": "int", "v": x}
        if t is float:
            return {"t": "float", "v": x}
        if t is str:
            self.left -= len(x) // 64
            return {"t": "str", "v": x[:MAX_STR], "len": len(x)}
        if t is tuple or t is list:
            if depth >= MAX_DEPTH:
                return {"t": "deep"}
            items = [self.enc(i, depth + 1) for i in x[:min(MAX_ITEMS, max(self.left, 0))]]
            return {"t": "tuple" if t is tuple else "list", "v": items, "len": len(x)}
        if t is dict:
            if depth >= MAX_DEPTH:
                return {"t": "deep"}
            pairs = list(x.items())[:min(MAX_ITEMS, max(self.left, 0))]
            return {"t": "dict", "v": [[self.enc(k, depth + 1), self.enc(v, depth + 1)] for k, v in pairs],
                    "len": len(x)}
        kind = self.arrays.get(t)
        if kind is not None:
            return self._array(x, kind)
        if self.generic is not None and issubclass(t, self.generic):
            try:
                v = self.generic.item(x)  # the numpy scalar's own value, as a Python value
            except Exception:  # noqa: BLE001
                v = None
            if type(v) in (bool, int, float):
                return {"t": "np", "type": f"numpy.{t.__name__}", "v": self.enc(v, depth + 1)}
        return {"t": "obj", "type": _type_name(t), "repr": _safe_repr(x)}

    def _array(self, x, kind):
        """An array or a tensor: its dtype, shape and (when small) its values, row-major and
        flat; the grader checks that there are exactly prod(shape) of them."""
        ndarray = next((c for c, k in self.arrays.items() if k == "ndarray"), None)
        try:
            arr = x._data if kind == "tensor" else x
            if ndarray is None or type(arr) is not ndarray:  # a tensor on another device: no values
                return {"t": "obj", "type": _type_name(type(x)), "repr": _safe_repr(x)}
            out = {"t": "array", "kind": kind, "dtype": str(x.dtype).rsplit(".", 1)[-1],
                   "shape": [int(n) for n in arr.shape]}
            size = int(arr.size)
            if arr.dtype.kind in "biuf" and size <= max(self.left, 0):
                self.left -= size
                out["flat"] = ndarray.tolist(arr.reshape(-1))
            return out
        except _Timeout:
            raise
        except Exception:  # noqa: BLE001
            return {"t": "obj", "type": _type_name(type(x)), "repr": _safe_repr(x)}


def encode(x, depth=0):
    """Encode a value as tagged plain data. Exact types only: a subclass of int or tuple is
    reported as an object of its own type, whatever its __eq__ says."""
    return _Encoder().enc(x, depth)


def encode_args(args):
    """Arguments the grader sends (plain Python values only)."""
    return [encode(a) for a in args]


def decode_plain(e):
    """Inverse of encode for the plain values the grader itself produced (the inputs)."""
    t = e["t"]
    if t == "none":
        return None
    if t in ("bool", "int", "float", "str"):
        return e["v"]
    if t == "tuple":
        return tuple(decode_plain(i) for i in e["v"])
    if t == "list":
        return [decode_plain(i) for i in e["v"]]
    if t == "dict":
        return {decode_plain(k): decode_plain(v) for k, v in e["v"]}
    raise ValueError(f"cannot decode {t!r} as an input")


# ---------------------------------------------------------------------------------------
# Forbidden functions: replaced, in every loaded module, by a function that raises.
# ---------------------------------------------------------------------------------------
def plan(cells, questions):
    """The order of the steps of a run: [("cell", cell) or ("question", question)]. A question
    whose "after" names one of the cells runs right after it (where its test cell stands in the
    notebook), one whose "after" is "" before them all; one without (or whose cell is not in
    this run) after all the cells."""
    ids = {c["id"] for c in cells} | {""}
    after = {}
    for q in questions:
        after.setdefault(q.get("after") if q.get("after") in ids else None, []).append(q)
    steps = [("question", q) for q in after.get("", [])]
    for c in cells:
        steps.append(("cell", c))
        steps += [("question", q) for q in after.get(c["id"], [])]
    return steps + [("question", q) for q in after.get(None, [])]


class ForbiddenCallError(RuntimeError):
    """Raised when a learner's function calls a library function the exercise forbids."""

    __module__ = "minitorch_course"  # its name in messages, also when harness.py runs as a script


def _resolve(dotted):
    """`numpy.lib.stride_tricks.as_strided` -> the object, importing the module part."""
    import importlib
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for p in parts[i:]:
            obj = getattr(obj, p)
        return obj
    raise ImportError(dotted)


def _belongs(value, package):
    for owner in (value, type(value)):
        mod = getattr(owner, "__module__", None)
        if isinstance(mod, str) and (mod == package or mod.startswith(package + ".")):
            return True
    return False


def forbidden_targets(patterns):
    """Map id(object) -> (object, public name) for the patterns ('numpy.*' or dotted names)."""
    targets = {}
    for pat in patterns:
        if pat.endswith(".*"):
            package = pat[:-2]
            try:
                _resolve(package)
            except (ImportError, AttributeError):
                continue
            mods = [m for n, m in list(sys.modules.items())
                    if m is not None and (n == package or n.startswith(package + "."))]
            mods.sort(key=lambda m: len(m.__name__))  # prefer the shortest public name
            for m in mods:
                for name, v in list(vars(m).items()):
                    if (callable(v) and not isinstance(v, (type, types.ModuleType))
                            and _belongs(v, package) and id(v) not in targets):
                        pub = f"{m.__name__}.{name}"
                        targets[id(v)] = (v, pub.replace("numpy._core.", "numpy.").replace(
                            "numpy.core.", "numpy."))
        else:
            try:
                v = _resolve(pat)
            except (ImportError, AttributeError):
                continue
            targets[id(v)] = (v, pat[len("builtins."):] if pat.startswith("builtins.") else pat)
    return targets


def forbid_calls(patterns, on_call=None):
    """Replace every reference, in every loaded module, to a forbidden function by one that
    raises ForbiddenCallError (after calling on_call(name)). Returns a restore() callable.
    The replacements hold no reference to the original, so it cannot be recovered from them."""
    targets = forbidden_targets(patterns)
    if not targets:
        return lambda: None
    replacements = {}

    def make(name):
        def forbidden(*args, **kwargs):
            if on_call is not None:
                on_call(name)
            raise ForbiddenCallError(f"{name} is not allowed in this exercise")
        forbidden.__name__ = forbidden.__qualname__ = name.rsplit(".", 1)[-1]
        forbidden.__module__ = "forbidden"
        return forbidden

    undo = []

    def restore():
        for mod, key, val in reversed(undo):
            try:
                setattr(mod, key, val)
            except (AttributeError, TypeError):
                pass
        undo.clear()
    try:
        for mod in list(sys.modules.values()):
            try:  # the dict as it is: a lazily loaded module is not loaded by looking at it
                d = object.__getattribute__(mod, "__dict__")
            except AttributeError:
                continue
            if not isinstance(d, dict):
                continue
            for key, val in list(d.items()):
                hit = targets.get(id(val))
                if hit is not None and hit[0] is val:
                    rep = replacements.get(id(val))
                    if rep is None:
                        rep = replacements[id(val)] = make(hit[1])
                    try:
                        setattr(mod, key, rep)
                    except (AttributeError, TypeError):
                        continue
                    undo.append((mod, key, val))
    except BaseException:
        restore()  # never leave a library half disarmed
        raise
    return restore


# ---------------------------------------------------------------------------------------
# OS confinement: Landlock (files, network, signals) and seccomp (processes).
# ---------------------------------------------------------------------------------------
_LL_FS_ALL = {1: (1 << 13) - 1, 2: (1 << 14) - 1, 3: (1 << 15) - 1, 4: (1 << 15) - 1,
              5: (1 << 16) - 1}
_LL_READ = (1 << 0) | (1 << 2) | (1 << 3)  # EXECUTE | READ_FILE | READ_DIR
_LL_WRITE = _LL_READ | (1 << 1) | (1 << 14)  # ... | WRITE_FILE | TRUNCATE: no new files, no deletes
_LL_FILE_RIGHTS = (1 << 0) | (1 << 1) | (1 << 2) | (1 << 14) | (1 << 15)


def apply_landlock(read_paths, rw_paths):
    """Allow reading only read_paths and reading/writing (existing files) only in rw_paths,
    forever, for this process and its children; no new files anywhere (a submission cannot
    fill the disk); no TCP; (ABI >= 6) no signals or abstract sockets outside.
    Returns the Landlock ABI version used, or 0 where the kernel has none."""
    if not sys.platform.startswith("linux"):
        return 0
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    abi = libc.syscall(ctypes.c_long(444), None, ctypes.c_size_t(0), ctypes.c_uint32(1))
    if abi < 1:
        return 0
    fs_all = _LL_FS_ALL.get(abi, _LL_FS_ALL[5])

    class Attr(ctypes.Structure):
        _fields_ = [("fs", ctypes.c_uint64), ("net", ctypes.c_uint64), ("scoped", ctypes.c_uint64)]

    class PathBeneath(ctypes.Structure):
        _pack_ = 1
        _fields_ = [("allowed", ctypes.c_uint64), ("fd", ctypes.c_int32)]

    attr = Attr(fs_all, 3 if abi >= 4 else 0, 3 if abi >= 6 else 0)
    size = 8 if abi < 4 else (16 if abi < 6 else 24)
    rfd = libc.syscall(ctypes.c_long(444), ctypes.byref(attr), ctypes.c_size_t(size), ctypes.c_uint32(0))
    if rfd < 0:
        raise OSError(ctypes.get_errno(), "landlock_create_ruleset failed")
    try:
        for paths, access in ((read_paths, _LL_READ), (rw_paths, _LL_WRITE)):
            for p in paths:
                try:
                    fd = os.open(p, os.O_PATH | os.O_CLOEXEC)
                except OSError:
                    continue
                try:
                    allowed = access & fs_all
                    if not os.path.isdir(p):
                        allowed &= _LL_FILE_RIGHTS
                    rule = PathBeneath(allowed, fd)
                    if libc.syscall(ctypes.c_long(445), ctypes.c_int(rfd), ctypes.c_int(1),
                                    ctypes.byref(rule), ctypes.c_uint32(0)) != 0:
                        raise OSError(ctypes.get_errno(), f"landlock_add_rule failed for {p}")
                finally:
                    os.close(fd)
        if libc.prctl(38, 1, 0, 0, 0) != 0:  # PR_SET_NO_NEW_PRIVS
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS) failed")
        if libc.syscall(ctypes.c_long(446), ctypes.c_int(rfd), ctypes.c_uint32(0)) != 0:
            raise OSError(ctypes.get_errno(), "landlock_restrict_self failed")
    finally:
        os.close(rfd)
    return abi


_SECCOMP_TABLES = {
    # machine: (AUDIT_ARCH, clone, clone3, syscalls refused with EPERM)
    "x86_64": (0xC000003E, 56, 435, [57, 58, 59, 322, 101, 41, 42, 272, 308, 165, 321, 298, 310,
                                      311, 250, 248, 323, 425, 426, 427, 246, 155]),
    "aarch64": (0xC00000B7, 220, 435, [221, 281, 117, 198, 203, 97, 268, 40, 280, 241, 270, 271,
                                        219, 217, 282, 425, 426, 427, 104, 41]),
}


def apply_seccomp():
    """Refuse, for this process and any thread it starts: fork/vfork/clone of a process
    (threads are allowed), execve, ptrace, sockets, namespaces, mounts, bpf, io_uring,
    kexec, reading other processes' memory. Returns True when installed."""
    if not sys.platform.startswith("linux"):
        return False
    import ctypes
    import platform
    table = _SECCOMP_TABLES.get(platform.machine())
    if table is None:
        return False
    arch, clone, clone3, refused = table
    ld_w_abs, jeq, jset, jge, ret = 0x20, 0x15, 0x45, 0x35, 0x06
    allow, eperm, enosys = 0x7FFF0000, 0x00050000 | 1, 0x00050000 | 38
    prog = []  # (code, jt_label, jf_label, k); labels resolved below

    def emit(code, k, jt=None, jf=None):
        prog.append([code, jt, jf, k])

    emit(ld_w_abs, 4)                            # arch
    emit(jeq, arch, jt=None, jf="ALLOW")
    emit(ld_w_abs, 0)                            # syscall number
    if arch == 0xC000003E:
        emit(jge, 0x40000000, jt="EPERM", jf=None)  # x32 ABI: refuse
    for nr in refused:
        emit(jeq, nr, jt="EPERM", jf=None)
    emit(jeq, clone3, jt="ENOSYS", jf=None)      # glibc then falls back to clone
    emit(jeq, clone, jt="CLONE", jf="ALLOW")
    labels = {}
    labels["CLONE"] = len(prog)
    emit(ld_w_abs, 16)                           # clone flags (low 32 bits of args[0])
    emit(jset, 0x00010000, jt="ALLOW", jf="EPERM")   # CLONE_THREAD: a thread, fine
    labels["ALLOW"] = len(prog)
    emit(ret, allow)
    labels["EPERM"] = len(prog)
    emit(ret, eperm)
    labels["ENOSYS"] = len(prog)
    emit(ret, enosys)

    class Filter(ctypes.Structure):
        _fields_ = [("code", ctypes.c_uint16), ("jt", ctypes.c_uint8), ("jf", ctypes.c_uint8),
                    ("k", ctypes.c_uint32)]

    class Prog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_uint16), ("filter", ctypes.POINTER(Filter))]

    arr = (Filter * len(prog))()
    for i, (code, jt, jf, k) in enumerate(prog):
        def off(lbl):
            return 0 if lbl is None else labels[lbl] - i - 1
        arr[i] = Filter(code, off(jt), off(jf), k)
    fprog = Prog(len(prog), arr)
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(38, 1, 0, 0, 0) != 0:
        return False
    if libc.prctl(22, 2, ctypes.byref(fprog), 0, 0) != 0:  # PR_SET_SECCOMP, FILTER
        return False
    return True


# ---------------------------------------------------------------------------------------
# The audit hook: the second line (and, without Landlock, the first) for files, imports,
# processes, sockets and ctypes. Its refusals carry readable messages.
# ---------------------------------------------------------------------------------------
_BLOCKED_EVENTS = {
    "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork", "os.forkpty", "os.kill",
    "os.killpg", "subprocess.Popen", "pty.spawn", "sys.addaudithook", "gc.get_objects",
    "gc.get_referrers", "gc.get_referents", "sys._current_frames", "resource.setrlimit",
    "resource.prlimit", "os.chroot", "os.setuid", "os.setgid", "os.chown", "os.lchown",
    "webbrowser.open", "sys.remote_exec",
}
_BLOCKED_PREFIXES = ("ctypes.", "socket.", "_winapi.", "winreg.", "msvcrt.", "urllib.", "http.",
                     "ftplib.", "smtplib.", "poplib.", "imaplib.", "nntplib.", "telnetlib.")
_ALWAYS_BLOCKED_IMPORTS = ("minitorch_course", "ctypes", "_ctypes", "cffi", "_cffi_backend", "socket", "_socket",
                           "ssl", "_ssl", "subprocess", "_posixsubprocess", "multiprocessing",
                           "_multiprocessing", "pty", "concurrent", "asyncio", "select",
                           "selectors", "mmap", "_xxsubinterpreters", "_xxinterpchannels")


def _under(path, roots):
    return any(path == r or path.startswith(r.rstrip("/") + "/") for r in roots)


def make_audit_hook(read_roots, write_roots, blocked_imports, record):
    write_flags = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
    realpath, fspath = os.path.realpath, os.fspath
    blocked_imports = tuple(blocked_imports)

    def refuse(exc_type, what):
        record(what)
        raise exc_type(f"{what} is not allowed while grading")

    def hook(event, args):
        if event == "open":
            path, mode, flags = args
            if isinstance(path, int) or path is None:
                return
            try:
                p = realpath(fspath(path))
            except (TypeError, ValueError):
                return
            p = p.decode("utf-8", "replace") if isinstance(p, bytes) else p
            writing = (isinstance(mode, str) and any(c in mode for c in "wax+")) or bool(
                isinstance(flags, int) and flags & write_flags)
            if writing and not _under(p, write_roots):
                refuse(PermissionError, f"writing {p}")
            if writing and not os.path.exists(p):
                refuse(PermissionError, f"creating {p}")
            if not _under(p, read_roots) and not _under(p, write_roots):
                refuse(PermissionError, f"reading {p}")
        elif event in ("os.listdir", "os.scandir"):
            path = args[0] if args else "."
            if isinstance(path, int):
                return
            try:
                p = realpath(fspath(path if path is not None else "."))
            except (TypeError, ValueError):
                return
            p = p.decode("utf-8", "replace") if isinstance(p, bytes) else p
            if not _under(p, read_roots) and not _under(p, write_roots):
                refuse(PermissionError, f"listing {p}")
        elif event == "import":
            name = args[0]
            if isinstance(name, str) and any(name == b or name.startswith(b + ".")
                                              for b in blocked_imports):
                refuse(ImportError, f"importing {name}")
        elif event in _BLOCKED_EVENTS or event.startswith(_BLOCKED_PREFIXES):
            refuse(PermissionError, event)
    return hook


# ---------------------------------------------------------------------------------------
# Running the submission.
# ---------------------------------------------------------------------------------------
class _Timeout(BaseException):
    """Raised by the per-step alarm; a BaseException so that `except Exception` can't eat it."""


OUTPUT_LIMIT = 256 << 10  # bytes of stdout (and of stderr) kept per run; the rest is dropped


class _CappedStream:
    """sys.stdout / sys.stderr in the sandbox: writes to the real file descriptor until
    OUTPUT_LIMIT bytes, then drops the rest silently, so that a learner's debug prints never
    fail (never `OSError: File too large`) however much they print."""

    encoding, errors, newlines, mode = "utf-8", "backslashreplace", None, "w"

    def __init__(self, fd, name):
        self._fd, self.name, self.left, self.dropped = fd, name, OUTPUT_LIMIT, 0
        self.buffer = _CappedBytes(self)

    def write(self, s):
        if type(s) is not str:
            raise TypeError(f"write() argument must be str, not {type(s).__name__}")
        self._put(s[:max(self.left, 0)].encode("utf-8", "backslashreplace"), len(s))
        return len(s)

    def _put(self, data, n):
        if self.left <= 0:
            self.dropped += n
            return
        data = data[:self.left]
        self.left -= len(data)
        try:
            while data:
                data = data[os.write(self._fd, data):]
        except OSError:
            self.left = 0

    def writelines(self, lines):
        for line in lines:
            self.write(line)

    def flush(self):
        pass

    def fileno(self):
        return self._fd

    def isatty(self):
        return False

    def writable(self):
        return True

    def readable(self):
        return False

    def seekable(self):
        return False

    @property
    def closed(self):
        return False


class _CappedBytes:
    def __init__(self, stream):
        self._stream = stream

    def write(self, b):
        b = bytes(b)
        self._stream._put(b, len(b))
        return len(b)

    def flush(self):
        pass


class _Unavailable:
    """What a top-level import that failed in the sandbox binds, so that the rest of its cell
    still runs (as it does in the learner's own notebook); using it raises the import's error."""

    def __init__(self, name, why):
        object.__setattr__(self, "_why", f"{name} could not be imported while grading ({why})")

    def __getattr__(self, attr):
        raise ImportError(self._why)

    def __call__(self, *args, **kwargs):
        raise ImportError(self._why)

    def __repr__(self):
        return f"<unavailable while grading: {self._why}>"


def _display(*objs, **kwargs):
    """IPython's display(), for cells that call it: their repr, printed."""
    for o in objs:
        print(_safe_repr(o, 2000))


def _error_info(exc, tb):
    where = None
    try:
        for fs in reversed(traceback.StackSummary.extract(traceback.walk_tb(tb), limit=64,
                                                          lookup_lines=False)):
            if fs.filename.startswith("<cell "):
                where = {"cell": fs.filename[6:-1], "line": fs.lineno}
                break
    except BaseException:  # noqa: BLE001
        pass
    try:
        msg = str(exc)
    except BaseException:  # noqa: BLE001
        msg = "<str() of the exception failed>"
    if type(msg) is not str:
        msg = "<non-string message>"
    out = {"type": _type_name(type(exc)), "message": msg[:2000]}
    if isinstance(exc, SyntaxError) and str(exc.filename).startswith("<cell "):
        where = {"cell": exc.filename[6:-1], "line": exc.lineno}
    if where:
        out.update(where)
    return out


def _pieces(source, filename):
    """A cell, compiled as Python compiles it, but with each top-level import on its own, so
    that an import that fails here (a module the sandbox refuses, or lacks) does not stop the
    rest of the cell. Yields ("code", code) and ("import", code, names bound, module)."""
    tree = ast.parse(source, filename)
    flags, body = 0, []
    for stmt in tree.body:
        if isinstance(stmt, ast.ImportFrom) and stmt.module == "__future__" and not stmt.level:
            for a in stmt.names:
                flags |= getattr(getattr(__future__, a.name, None), "compiler_flag", 0)
        else:
            body.append(stmt)
    run = []

    def flush():
        if run:
            yield "code", compile(ast.Module(body=list(run), type_ignores=[]), filename, "exec",
                                  flags=flags, dont_inherit=True)
            run.clear()
    for stmt in body:
        if not isinstance(stmt, (ast.Import, ast.ImportFrom)):
            run.append(stmt)
            continue
        yield from flush()
        for alias in stmt.names:  # `import a, b` as `import a` then `import b`, as Python binds them
            one = ast.copy_location(type(stmt)(**{**vars(stmt), "names": [alias]}), stmt)
            if isinstance(stmt, ast.ImportFrom):
                module = f"{'.' * stmt.level}{stmt.module or ''}"
                name = [] if alias.name == "*" else [alias.asname or alias.name]
            else:
                module, name = alias.name, [alias.asname or alias.name.split(".")[0]]
            yield "import", compile(ast.Module(body=[one], type_ignores=[]), filename, "exec",
                                    flags=flags, dont_inherit=True), name, module
    yield from flush()


def _run_cell(source, cid, ns):
    """Run one cell in ns. Returns the imports that failed (module, error) or raises."""
    failed = []
    for piece in _pieces(source, f"<cell {cid}>"):
        if piece[0] == "code":
            exec(piece[1], ns)  # noqa: S102 - this is the sandbox
            continue
        _kind, code, names, module = piece
        try:
            exec(code, ns)  # noqa: S102
        except ImportError as e:
            why = f"{type(e).__name__}: {e}"
            for n in names:
                ns[n] = _Unavailable(module, why)
            failed.append([str(module), why[:300]])
    return failed


def _load_for_drivers(name):
    """Import a module the drivers need ("pkg.*": the package and every module in it, since
    the sandbox may not read its files once confined). False when it is not there."""
    import importlib
    whole = name.endswith(".*")
    try:
        module = importlib.import_module(name[:-2] if whole else name)
    except ImportError:
        return False
    if whole:
        import pkgutil
        for info in pkgutil.walk_packages(getattr(module, "__path__", []), module.__name__ + "."):
            try:
                importlib.import_module(info.name)
            except Exception:  # noqa: BLE001 - an optional part (a GPU backend) that is not here
                pass
    return True


def guard_imports(hidden, learner, trusted, on_refused):
    """Refuse to the learner's code (the globals `learner`) every import of the modules
    `hidden` (and their submodules), loaded or not: the drivers' packages, and what they loaded
    that the learner may not import. Python looks a loaded module up in sys.modules without an
    audit event, so the refusal is made in builtins.__import__, which every import statement
    calls with the globals of the code that runs it; the drivers (`trusted`, their globals) and
    the loaded modules themselves import as before. Returns a one-item list: how many such
    trusted imports are under way (the audit hook lets those load what is not loaded yet)."""
    real_import, hidden, busy = builtins.__import__, tuple(dict.fromkeys(hidden)), [0]
    _type, _dict, _modules = type, dict, sys.modules

    def trusted_code(g):
        if g is learner or _type(g) is not _dict:
            return False
        if g is trusted:
            return True
        name = g.get("__name__")
        module = _modules.get(name) if _type(name) is str else None
        return module is not None and getattr(module, "__dict__", None) is g

    def guarded(name, globals=None, locals=None, fromlist=(), level=0):
        if _type(name) is str and _type(level) is int:
            target = name
            if level and _type(globals) is _dict:
                target = globals.get("__package__") or globals.get("__name__") or ""
                target = target if _type(target) is str else ""
            if any(target == h or target.startswith(h + ".") for h in hidden):
                if not trusted_code(globals):
                    on_refused(target)
                    raise ImportError(f"importing {target} is not allowed while grading")
                busy[0] += 1
                try:
                    return real_import(name, globals, locals, fromlist, level)
                finally:
                    busy[0] -= 1
        return real_import(name, globals, locals, fromlist, level)
    builtins.__import__ = guarded
    return busy


def _snapshot(modules):
    """The namespaces of modules the harness itself relies on, so that a submission that
    monkeypatches them (builtins.isinstance, json.dumps, ...) cannot break the reporting."""
    return [(m.__dict__, dict(m.__dict__)) for m in modules]


def _restorer(snapshot, streams):
    _tuple, _sys = tuple, sys
    out, err = streams

    def restore():
        for d, saved in snapshot:
            for k in _tuple(d):
                if k not in saved:
                    del d[k]
            d.update(saved)
        _sys.stdout, _sys.stderr, _sys.__stdout__, _sys.__stderr__ = out, err, out, err
    return restore


def _read_roots():
    roots = set()
    for p in [sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix, *sys.path]:
        if p and os.path.isabs(p) and os.path.exists(p):
            roots.add(os.path.realpath(p))
    for p in ("/usr/lib", "/usr/lib64", "/lib", "/lib64", "/usr/share/zoneinfo",
              "/etc/ld.so.cache", "/dev/null", "/dev/urandom"):
        if os.path.exists(p):
            roots.add(os.path.realpath(p))
    return roots


def _loaded_sources():
    """The source files of the modules loaded so far (the harness's own included): Python reads
    them again to show a warning or a traceback line, which is no attempt to read the grader's files."""
    out = set()
    for m in list(sys.modules.values()):
        f = getattr(m, "__file__", None)
        if isinstance(f, str):
            out.add(os.path.realpath(f))
    return out


def main():  # noqa: C901 - one straight-line story, in the order it must happen
    sys.dont_write_bytecode = True  # imports never try to write outside the sandbox
    nonce = sys.stdin.readline().strip()
    channel = int(sys.argv[1])
    sandbox = os.path.realpath(os.getcwd())
    job_path = os.path.join(sandbox, "job.json")
    with open(job_path, encoding="utf-8") as f:
        job = json.load(f)
    os.unlink(job_path)  # the inputs of the hidden tests are not left lying around
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    _write, _dumps, _monotonic = os.write, json.dumps, __import__("time").monotonic
    prefix = (nonce + "\t").encode()

    def emit(obj):
        data = prefix + _dumps(obj, allow_nan=True).encode() + b"\n"
        while data:
            data = data[_write(channel, data):]

    # 1. resource limits (soft = hard, so they cannot be raised again)
    import resource
    import signal
    limits = job["limits"]
    for name, value in (("RLIMIT_AS", limits["memory_bytes"]), ("RLIMIT_CPU", limits["cpu_seconds"]),
                        ("RLIMIT_FSIZE", limits["file_bytes"]), ("RLIMIT_NOFILE", 256),
                        ("RLIMIT_CORE", 0), ("RLIMIT_NPROC", 0)):
        try:
            resource.setrlimit(getattr(resource, name), (value, value))
        except (ValueError, OSError, AttributeError):
            pass
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    out, err = _CappedStream(1, "<stdout>"), _CappedStream(2, "<stderr>")
    sys.stdout = sys.__stdout__ = out
    sys.stderr = sys.__stderr__ = err

    # 2. libraries the cells may use, and those the drivers need, loaded by us; then the
    # forbidden functions disarmed
    for mod in job.get("preload", []):
        try:
            __import__(mod)
        except ImportError:
            pass
    # the modules the instructor's drivers need and the learner may not import: loaded now,
    # and from here on imported only by code that is not the learner's (see guard_imports)
    hidden = [m.split(".")[0] for m in job.get("driver_imports", []) if _load_for_drivers(m)]
    global _FROZEN_ARRAY_TYPES
    _FROZEN_ARRAY_TYPES = array_types()
    linecache.getlines(__file__)  # warnings that point at this file show its lines from memory
    state = {"learner": False, "refused": 0}

    def refused(what):
        if state["learner"] and state["refused"] < 200:
            state["refused"] += 1
            emit({"event": "refused", "what": what[:300]})
    forbid_calls(job.get("forbidden_calls", []), lambda name: refused(f"called {name}"))

    # 3. OS confinement, then the audit hook
    read_roots = job.get("read_roots")
    read_roots = set(read_roots) if isinstance(read_roots, list) else _read_roots()
    isolation = {"landlock": 0, "seccomp": False, "audit_hook": True}
    if job.get("confine", True):
        try:
            isolation["landlock"] = apply_landlock(sorted(read_roots), [sandbox, "/dev/null"])
        except (OSError, AttributeError) as e:
            isolation["landlock_error"] = str(e)
        try:
            isolation["seccomp"] = apply_seccomp()
        except (OSError, AttributeError) as e:
            isolation["seccomp_error"] = str(e)
    for name in [n for n in sys.modules if n == "ctypes" or n.startswith(("ctypes.", "_ctypes"))]:
        del sys.modules[name]
    # no ctypes, sockets, processes; no exercise-forbidden package; no new submodule of a
    # package whose functions are forbidden (its functions would not have been disarmed)
    blocked = list(_ALWAYS_BLOCKED_IMPORTS) + list(job.get("forbidden_imports", []))
    sub_blocked = tuple(p[:-2] + "." for p in job.get("forbidden_calls", []) if p.endswith(".*"))
    own_sources = _loaded_sources()

    def on_refused(what):
        if what.startswith("reading ") and what[8:] in own_sources:
            return  # Python re-reading a loaded module's source (a warning's line): not the learner
        refused(what)
    inner = make_audit_hook(read_roots, [sandbox, "/dev/null"], blocked, on_refused)

    ns = {"__name__": "__main__", "__builtins__": builtins, "display": _display}
    drivers = {"__name__": "__main__"}
    importing = (guard_imports([*hidden, *blocked], ns, drivers, lambda name: refused(f"importing {name}"))
                 if hidden else None)

    def hook(event, args):
        if importing and importing[0] and event == "import" and args and isinstance(args[0], str) \
                and args[0].split(".")[0] in hidden:
            return  # a driver's module loading a part of itself it had not loaded yet
        if (event == "import" and sub_blocked and args and isinstance(args[0], str)
                and args[0].startswith(sub_blocked)):
            on_refused(f"importing {args[0]}")
            raise ImportError(f"importing {args[0]} is not allowed while grading")
        inner(event, args)
    sys.addaudithook(hook)

    # 4. the per-step alarm
    def on_alarm(signum, frame):
        raise _Timeout()
    signal.signal(signal.SIGALRM, on_alarm)

    def arm(seconds):
        signal.setitimer(signal.ITIMER_REAL, seconds)

    def disarm():
        signal.setitimer(signal.ITIMER_REAL, 0)

    restore = _restorer(_snapshot([builtins, json, json.encoder, sys.modules[__name__]]), (out, err))
    real_builtins = dict(builtins.__dict__)  # the drivers' builtins: a copy no cell has touched
    emit({"event": "start", "isolation": isolation})

    # 5. the cells, in notebook order, each on its own: an error in one doesn't stop the rest.
    # The instructor's drivers run in globals of their own (the learner's answers copied in),
    # with the real builtins; what they define is also given to the learner's namespace.
    # 6. each question right after the cell its test cell follows (Restart & Run All): its
    # function, and for a driver the learner's answers, as they stand at that point of the run.
    drivers["__builtins__"] = real_builtins
    step_seconds = float(limits["step_seconds"])
    answers = job.get("answers", [])

    def share_answers():
        for n in answers:
            if n in ns:
                drivers[n] = ns[n]
            else:
                drivers.pop(n, None)

    def run_question(q):
        qid = q["id"]
        emit({"event": "question_start", "id": qid})
        report = {"event": "question", "id": qid, "results": []}
        if q.get("driver"):
            share_answers()
        fn = (drivers if q.get("driver") else ns).get(q["function"])
        report["found"] = "missing" if fn is None else "function" if callable(fn) else _type_name(type(fn))
        if report["found"] == "function":
            try:
                arm(step_seconds)
                for args in q["cases"]:
                    try:
                        state["learner"] = True
                        value = fn(*[decode_plain(a) for a in args])
                        state["learner"] = False  # what encode() itself calls is not the learner's
                        restore()
                        out_value = encode(value)
                    except _Timeout:
                        raise
                    except BaseException as e:  # noqa: BLE001
                        state["learner"] = False
                        restore()
                        out_value = {"t": "raised", "error": _error_info(e, e.__traceback__)}
                    report["results"].append(out_value)
                disarm()
            except _Timeout:
                pass  # fewer results than cases: the grader's clock says why
            finally:
                disarm()
                state["learner"] = False
                restore()
        emit(report)

    for step, item in plan(job["cells"], job["questions"]):
        if step == "question":
            run_question(item)
            continue
        cell = item
        cid = cell["id"]
        emit({"event": "cell_start", "id": cid})
        report = {"event": "cell", "id": cid}
        is_driver = cell.get("kind") == "driver"
        where = drivers if is_driver else ns
        if is_driver:
            share_answers()
        before = set(where)
        try:
            state["learner"] = not is_driver
            arm(step_seconds)
            failed = _run_cell(cell["source"], cid, where)
            disarm()
            if failed:
                report["failed_imports"] = failed[:20]
        except _Timeout:
            pass  # the grader's own clock says how long the cell ran
        except BaseException as e:  # noqa: BLE001 - SystemExit and KeyboardInterrupt included
            disarm()
            report["error"] = _error_info(e, e.__traceback__)
        finally:
            disarm()
            state["learner"] = False
            restore()
        if is_driver:
            ns.update({k: drivers[k] for k in set(drivers) - before - {"__builtins__"}})
        emit(report)
    emit({"event": "done"})
    os._exit(0)


if __name__ == "__main__":
    try:
        main()
    except BaseException as e:  # noqa: BLE001
        try:
            os.write(2, f"harness failure: {type(e).__name__}: {e}\n".encode("utf-8", "replace"))
        finally:
            os._exit(3)
