"""The sandbox program: runs one submission's code on the grader's inputs, reports plain data.

The grader starts it as

    python -I harness.py RESULT_FD        (cwd: a fresh, empty-but-for-job.json directory)

and writes a one-line random nonce to its stdin. The program then, before any submitted code
runs, (1) reads job.json (the submission's cells, the questions' inputs, the limits), (2) sets
resource limits, (3) replaces forbidden library functions with ones that raise, (4) confines
itself with Landlock (files: read-only Python installation, read-write sandbox dir; no
network; no signals to other processes) and seccomp (no fork/exec, no new namespaces),
(5) installs an audit hook (files, imports, processes, sockets, ctypes), and only then runs
the cells and calls the learner's functions. Every report goes to RESULT_FD as one line
`NONCE<TAB>JSON`; it carries only plain data (the values the functions returned, encoded
by `encode`), never a verdict: the grader decides, in its own process.

This file imports nothing but the standard library (plus numpy when the job preloads it),
so it never drags minitorch, the reference solutions or the grader into the sandbox.
The encoding helpers and `forbid_calls` are also used by the in-notebook check().
"""
from __future__ import annotations

import builtins
import json
import json.encoder
import os
import sys
import traceback
import types

# ---------------------------------------------------------------------------------------
# Plain-data encoding. A value crosses the process boundary as tagged JSON, so the grader
# can tell a tuple from a list, an int from a numpy.int64, True from 1, without ever
# touching a submitted object.
# ---------------------------------------------------------------------------------------
MAX_ITEMS = 10_000
MAX_STR = 2_000
MAX_DEPTH = 32
MAX_INT_BITS = 4_000


def _safe_repr(x, limit=200):
    try:
        r = repr(x)
    except BaseException as e:  # noqa: BLE001 - a submitted __repr__ may do anything
        if isinstance(e, _Timeout):
            raise
        r = f"<repr failed: {type(e).__name__}>"
    if not isinstance(r, str):
        r = "<repr returned a non-string>"
    return r if len(r) <= limit else r[:limit] + "..."


def _type_name(t):
    mod = getattr(t, "__module__", None)
    name = getattr(t, "__qualname__", None) or getattr(t, "__name__", "?")
    if not isinstance(mod, str) or not isinstance(name, str):
        return "?"
    return name if mod == "builtins" else f"{mod}.{name}"


def encode(x, depth=0):
    """Encode a value as tagged plain data. Exact types only: a subclass of int or tuple is
    reported as an object of its own type, whatever its __eq__ says."""
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
        return {"t": "str", "v": x[:MAX_STR], "len": len(x)}
    if t is tuple or t is list:
        if depth >= MAX_DEPTH:
            return {"t": "deep"}
        return {"t": t.__name__, "v": [encode(i, depth + 1) for i in x[:MAX_ITEMS]], "len": len(x)}
    if t is dict:
        if depth >= MAX_DEPTH:
            return {"t": "deep"}
        items = list(x.items())[:MAX_ITEMS]
        return {"t": "dict", "v": [[encode(k, depth + 1), encode(v, depth + 1)] for k, v in items],
                "len": len(x)}
    name = _type_name(t)
    if name in ("numpy.ndarray", "minitorch._tensor.Tensor"):
        return _encode_array(x, name)
    if name.startswith("numpy.") and hasattr(t, "item") and getattr(x, "shape", None) == ():
        try:  # a numpy scalar: report its type and its value
            v = t.item(x)
        except Exception:  # noqa: BLE001
            v = None
        if type(v) in (bool, int, float):
            return {"t": "np", "type": name, "v": encode(v, depth + 1)}
    return {"t": "obj", "type": name, "repr": _safe_repr(x)}


def _encode_array(x, name):
    """An array or a tensor: its dtype, shape and values (as nested lists), when small."""
    try:
        arr = x._data if name == "minitorch._tensor.Tensor" else x
        if type(arr).__module__ != "numpy":  # a tensor on another device: no values
            return {"t": "obj", "type": name, "repr": _safe_repr(x)}
        dtype = str(x.dtype).rsplit(".", 1)[-1]  # "minitorch.float32" (or "torch.float32") -> "float32"
        shape = [int(n) for n in arr.shape]
        out = {"t": "array", "kind": "tensor" if name.startswith("minitorch") else "ndarray",
               "dtype": dtype, "shape": shape}
        if arr.size <= MAX_ITEMS:
            out["v"] = encode(arr.tolist())
        return out
    except _Timeout:
        raise
    except Exception:  # noqa: BLE001
        return {"t": "obj", "type": name, "repr": _safe_repr(x)}


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
            targets[id(v)] = (v, pat)
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
    for mod in list(sys.modules.values()):
        d = getattr(mod, "__dict__", None)
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

    def restore():
        for mod, key, val in reversed(undo):
            try:
                setattr(mod, key, val)
            except (AttributeError, TypeError):
                pass
        undo.clear()
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
    if not isinstance(msg, str):
        msg = "<non-string message>"
    out = {"type": _type_name(type(exc)), "message": msg[:MAX_STR]}
    if where:
        out.update(where)
    return out


def _strip_magics(source):
    """Notebook cells may hold IPython magics and shell escapes: comment them out."""
    lines = source.split("\n")
    if lines and lines[0].lstrip().startswith("%%"):
        return ""
    return "\n".join(("# " + ln) if ln.lstrip().startswith(("%", "!")) else ln for ln in lines)


def _snapshot(modules):
    """The namespaces of modules the harness itself relies on, so that a submission that
    monkeypatches them (builtins.isinstance, json.dumps, ...) cannot break the reporting."""
    return [(m.__dict__, dict(m.__dict__)) for m in modules]


def _restorer(snapshot):
    _tuple = tuple

    def restore():
        for d, saved in snapshot:
            for k in _tuple(d):
                if k not in saved:
                    del d[k]
            d.update(saved)
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


def main():  # noqa: C901 - one straight-line story, in the order it must happen
    sys.dont_write_bytecode = True  # imports never try to write outside the sandbox
    nonce = sys.stdin.readline().strip()
    result_fd = int(sys.argv[1])
    sandbox = os.path.realpath(os.getcwd())
    with open(os.path.join(sandbox, "job.json"), encoding="utf-8") as f:
        job = json.load(f)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    _write, _dumps, _monotonic = os.write, json.dumps, __import__("time").monotonic

    def emit(obj):
        data = (nonce + "\t" + _dumps(obj, allow_nan=True) + "\n").encode()
        while data:
            n = _write(result_fd, data)
            data = data[n:]

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

    # 2. libraries the cells may use, loaded by us; then the forbidden functions disarmed
    for mod in job.get("preload", []):
        try:
            __import__(mod)
        except ImportError:
            pass
    violations = []
    current = {"step": None}

    def on_forbidden(name):
        item = {"step": current["step"], "what": f"called {name}"}
        if item not in violations and len(violations) < 100:
            violations.append(item)
    forbid_calls(job.get("forbidden_calls", []), on_forbidden)

    # 3. OS confinement, then the audit hook
    protected = [os.path.realpath(p) for p in job.get("protected_paths", [])]
    read_roots = {r for r in _read_roots() if not any(_under(p, [r]) for p in protected)}
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

    def on_refused(what):
        item = {"step": current["step"], "what": what}
        if item not in violations and len(violations) < 100:
            violations.append(item)
    inner = make_audit_hook(read_roots, [sandbox, "/dev/null"], blocked, on_refused)

    def hook(event, args):
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

    restore = _restorer(_snapshot([builtins, json, json.encoder, sys.modules[__name__]]))
    emit({"event": "start", "isolation": isolation})

    # 5. the cells, in notebook order, each on its own: an error in one doesn't stop the rest
    ns = {"__name__": "__main__", "__builtins__": builtins}
    step_seconds = float(limits["step_seconds"])
    for cell in job["cells"]:
        cid = cell["id"]
        current["step"] = "cell:" + cid
        emit({"event": "cell_start", "id": cid})
        report = {"event": "cell", "id": cid}
        try:
            code = compile(_strip_magics(cell["source"]), f"<cell {cid}>", "exec")
        except (SyntaxError, ValueError) as e:
            report["error"] = {"type": type(e).__name__, "message": str(e)[:MAX_STR],
                               "cell": cid, "line": getattr(e, "lineno", None)}
            emit(report)
            continue
        t0 = _monotonic()
        try:
            arm(step_seconds)
            exec(code, ns)  # noqa: S102 - this is the sandbox
            disarm()
        except _Timeout:
            report["timeout"] = True
        except BaseException as e:  # noqa: BLE001 - SystemExit and KeyboardInterrupt included
            disarm()
            report["error"] = _error_info(e, e.__traceback__)
        finally:
            disarm()
            restore()
        report["seconds"] = round(_monotonic() - t0, 4)
        emit(report)

    # 6. the questions: call each function on the grader's inputs, report what came back
    for q in job["questions"]:
        qid = q["id"]
        current["step"] = "q:" + qid
        emit({"event": "question_start", "id": qid})
        report = {"event": "question", "id": qid, "results": []}
        fn = ns.get(q["function"])
        if fn is None:
            report["missing"] = True
        elif not callable(fn):
            report["not_callable"] = _type_name(type(fn))
        else:
            t0 = _monotonic()
            try:
                arm(step_seconds)
                for args in q["cases"]:
                    try:
                        current["step"] = "q:" + qid
                        value = fn(*[decode_plain(a) for a in args])
                        current["step"] = None  # what encode() itself calls is not the learner's
                        restore()
                        out = encode(value)
                    except _Timeout:
                        raise
                    except BaseException as e:  # noqa: BLE001
                        current["step"] = None
                        restore()
                        out = {"t": "raised", "error": _error_info(e, e.__traceback__)}
                    report["results"].append(out)
                disarm()
            except _Timeout:
                report["timeout"] = True
            finally:
                disarm()
                restore()
            report["seconds"] = round(_monotonic() - t0, 4)
        report["violations"] = [v["what"] for v in violations if v["step"] == "q:" + qid][:20]
        emit(report)
    current["step"] = None
    for stream in (sys.__stdout__, sys.__stderr__):
        try:
            stream.flush()
        except BaseException:  # noqa: BLE001
            pass
    emit({"event": "done", "violations": [v for v in violations][:50]})
    os._exit(0)


if __name__ == "__main__":
    try:
        main()
    except BaseException as e:  # noqa: BLE001
        try:
            sys.__stderr__.write(f"harness failure: {type(e).__name__}: {e}\n")
        finally:
            os._exit(3)
