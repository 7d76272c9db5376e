"""vaudit control-case harness: runs MANY control cases in one interpreter.

Request (JSON on stdin): {"cases": [case, ...]}. Each case is one of
  {"id", "op": "call", "modules": [{"name", "filename", "source"}], "entry": {"module", "qualname"},
   "self": spec|null, "args": [spec...], "kwargs": {name: spec}, "timeoutMs", "env": {...},
   "servers": [{"port", "status", "body", "contentType", "stall"}], "traceFiles": [filename...]}
  {"id", "op": "compile", "source", "mode": "eval"|"exec", "filename"}
  {"id", "op": "regex", "pattern", "flags": int}
  {"id", "op": "lambda", "source", "args": [spec...], "timeoutMs"}   # eval(source)(*args), as verifiers do
  A "lambda" case may carry "imports": module names bound in its globals (as the verifier's module gives them).
  "call" and "lambda" cases may carry "clock": seconds since the epoch. The host clock the code reads
  (time.time/time_ns/localtime/gmtime/ctime/strftime, datetime.datetime.now/today/utcnow, datetime.date.today)
  then says that instant, from before the verifier's modules are imported until the case ends.
Module sources are executed unmodified (a sliced module keeps every selected line at its original
line number) under their real file names, so traced line numbers are the file's own.

Answer: one JSON line per case on stdout, written as soon as the case ends:
  {"id", "status": "returned"|"raised"|"deadline"|"unavailable"|"error", "value": json,
   "exception": {"type","message","file","line"} (escaped), "events": [{"type","message","file","line","func"}]
   (every exception raised in traced files, first event per exception object, even if later swallowed),
   "lines": {filename: [line, ...]}, "ms": float, "calls": [...], "detail": str}

Doubles (specs) provide application STATE only: {"$double": "object", "attrs": {...}},
{"$double": "callable", "returns": spec | "raises": {"type","message"} | "sequence": [spec...]},
{"$double": "response", "status", "text"}, {"$double": "self", "attrs": {...}} (the flagged method's
own class supplies every method not given as state), {"$tuple": [...]}, {"$set": [...]}.
"""
import asyncio
import builtins
import inspect
import importlib
import importlib.abc
import importlib.util
import json
import os
import signal
import sys
import threading
import time
import types

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # -I leaves the script's folder out
import case_context  # noqa: E402  (module doubles, fixtures, routes, verdict reading)

PORTS = []  # ports of the current case's stub servers (allocated per case: parallel cases never collide)
CELL = os.getcwd()  # the host's private directory for this run


class CaseDeadline(BaseException):
    """Raised into the case when its time bound passes (BaseException: `except Exception` cannot eat it)."""


class NoWitness(Exception):
    """The requested witness could not be synthesized from the task's own data."""


def _constants(src):
    import ast
    out = []
    try:
        for n in ast.walk(ast.parse(src or "", mode="eval")):
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and len(n.value) > 1 and n.value not in out:
                out.append(n.value)
    except SyntaxError:
        pass
    return out


def _lam(src):
    if isinstance(src, str) and src.strip().startswith("lambda"):
        try:
            return eval(compile(src, "<task-lambda>", "eval"), {"__builtins__": builtins})
        except Exception as e:  # the task's own lambda is broken: no witness from it
            raise NoWitness("the task lambda does not evaluate: %s: %s" % (type(e).__name__, e))
    return None


def _ok(fn, *a):
    # a witness predicate: any error means "does not hold" (this is the harness, not a verifier)
    try:
        return bool(fn(*a))
    except Exception:  # vaudit: ignore[swallowed-error-verdict]
        return False


def order_state(spec):
    """Two keys that both satisfy the task's `find` lambda, whose (transformed) targets hold the
    expected value and another value; returned in the requested insertion order. Only the task's
    own lambdas decide what matches."""
    find = _lam(spec.get("find"))
    key = _lam(spec.get("key"))
    expected = spec.get("value")
    other = spec.get("other", "vaudit-other")
    if find is None:
        raise NoWitness("no find lambda")
    consts = _constants(spec.get("find")) + _constants(spec.get("key"))
    keys = []
    for c in consts + ["name"]:
        for pre in ("obj.(1,)", "obj.(2,)", "obj.(3,)", "a.", "b.", "c."):
            for k in (pre + c, pre + "." + c, c + pre, c + "." + pre):
                if k not in keys:
                    keys.append(k)
    vals = [expected, other] + consts
    pairs = [(k, v) for k in keys for v in vals if _ok(find, k, v)]
    for (k1, v1) in pairs:
        for (k2, v2) in pairs:
            if k2 == k1:
                continue
            if key is None:
                if v1 == expected and v2 != expected:
                    st = [(k1, v1), (k2, v2)]
                    break
                continue
            try:
                t1, t2 = key(k1), key(k2)
            except Exception:
                continue
            if t1 != t2 and t1 not in (k1, k2) and t2 not in (k1, k2):
                st = [(k1, v1), (k2, v2), (t1, expected), (t2, other)]
                break
        else:
            continue
        break
    else:
        raise NoWitness("no two distinct keys satisfy the find lambda with the synthesized candidates")
    if spec.get("order", 0):
        st = [st[1], st[0]] + ([st[3], st[2]] if len(st) == 4 else [])
    return dict(st)


def to_json(v, depth=0):
    if depth > 8:
        return repr(v)[:200]
    if v is None or isinstance(v, (bool, int, str)):
        return v
    if isinstance(v, float):
        return v if v == v and v not in (float("inf"), float("-inf")) else repr(v)
    if isinstance(v, (list, tuple)):
        return [to_json(x, depth + 1) for x in list(v)[:200]]
    if isinstance(v, (set, frozenset)):
        return {"$set": sorted((to_json(x, depth + 1) for x in list(v)[:200]), key=repr)}
    if isinstance(v, dict):
        return {str(k): to_json(x, depth + 1) for k, x in list(v.items())[:200]}
    return {"$repr": repr(v)[:300]}


# ---------------------------------------------------------------- doubles
class Recorder:
    def __init__(self):
        self.calls = []


# What each library raises for a failure a stand-in simulates (a state source that is down, a reply
# that is not JSON, an HTTP error status): a stand-in raises the real library's class, so a verifier
# that catches the library's exception catches the stand-in's too (builtin `ConnectionError` is not a
# `requests.exceptions.ConnectionError`, and a handler of the latter lets the former escape).
LIBRARY_ERRORS = {
    "requests": {"ConnectionError": "requests.exceptions.ConnectionError", "JSONDecodeError": "requests.exceptions.JSONDecodeError",
                 "HTTPError": "requests.exceptions.HTTPError"},
    "httpx": {"ConnectionError": "httpx.ConnectError"},
    "urllib": {"ConnectionError": "urllib.error.URLError"},
    "aiohttp": {"ConnectionError": "aiohttp.ClientConnectionError"},
    "socket": {"ConnectionError": "builtins.ConnectionRefusedError"},
}


def _library_class(dotted):
    parts = dotted.split(".")
    cls = None
    for i in range(len(parts) - 1, 0, -1):  # the longest importable module prefix, then attributes
        try:
            obj = sys.modules.get(".".join(parts[:i])) or importlib.import_module(".".join(parts[:i]))
        except Exception:  # not in this Python (and no double serves it): try a shorter prefix
            continue
        for name in parts[i:]:
            obj = getattr(obj, name, None)
        cls = obj
        break
    return cls if isinstance(cls, type) and issubclass(cls, BaseException) else None


def library_exception(kind, libraries):
    """The class a failure of `kind` raises in the libraries the call may belong to: the library's own
    class when there is one candidate; when the library cannot be told (several candidates), one class
    that is an instance of each, so whichever of them the verifier catches, it catches this."""
    classes = []
    for lib in libraries or []:
        dotted = LIBRARY_ERRORS.get(lib, {}).get(kind)
        cls = _library_class(dotted) if dotted else None
        if cls is not None and cls not in classes:
            classes.append(cls)
    classes = [c for c in classes if not any(o is not c and issubclass(o, c) for o in classes)]
    if not classes:
        return None
    if len(classes) == 1:
        return classes[0]
    try:
        return type(kind, tuple(classes), {"__module__": "vaudit.stand-in", "__str__": lambda self: str(self.args[0]) if self.args else kind})
    except TypeError:  # incompatible layouts: the first candidate's own class
        return classes[0]


def exc_from(spec):
    name = spec.get("type", "RuntimeError")
    cls = library_exception(name, spec.get("library")) if spec.get("library") else None
    if cls is None:
        cls = getattr(builtins, name, None)
    if not (isinstance(cls, type) and issubclass(cls, BaseException)):
        cls = type(name, (Exception,), {})
    return cls(spec.get("message", "state double"))


class CallableDouble:
    def __init__(self, spec, rec, path):
        self._spec, self._rec, self._path, self._n = spec, rec, path, 0

    def __call__(self, *a, **kw):
        self._rec.calls.append({"path": self._path, "args": to_json(list(a)), "kwargs": to_json(kw)})
        s = self._spec
        if "raises" in s:
            e = exc_from(s["raises"])
            bases = type(e).__bases__ if type(e).__module__ == "vaudit.stand-in" else (type(e),)
            self._rec.calls[-1]["raised"] = " and ".join("%s.%s" % (c.__module__, c.__qualname__) if c.__module__ != "builtins" else c.__qualname__ for c in bases)
            raise e
        if "sequence" in s:
            seq = s["sequence"]
            i = min(self._n, len(seq) - 1)
            self._n += 1
            return decode(seq[i], self._rec, self._path) if seq else None
        return decode(s.get("returns"), self._rec, self._path)


class Response:
    def __init__(self, status, text, library=None):
        self.status_code = status
        self.status = status
        self.text = text
        self.content = text.encode()
        self.ok = 200 <= status < 400
        self._library = library or []

    def json(self):
        try:
            return json.loads(self.text)
        except json.JSONDecodeError as e:  # as the library's Response.json() raises it
            cls = library_exception("JSONDecodeError", self._library)
            if cls is None:
                raise
            raise cls(e.msg, e.doc, e.pos) from None

    def raise_for_status(self):
        if not self.ok:
            cls = library_exception("HTTPError", self._library) or OSError
            raise cls("%d Server Error for url: state endpoint" % self.status_code)

    def read(self):
        return self.content


class ObjectDouble:
    def __init__(self, attrs):
        self.__dict__.update(attrs)


def make_self(cls, attrs):
    class SelfDouble:
        def __getattr__(self, name):
            v = getattr(cls, name)  # AttributeError as the real object would raise
            if hasattr(v, "__get__"):
                return v.__get__(self, type(self))
            return v

    SelfDouble.__name__ = "SelfDouble[%s]" % getattr(cls, "__name__", "?")
    obj = SelfDouble()
    # The class's own constructor sets its instance state when it needs no arguments
    # (e.g. `def __init__(self, server=STATE_URL)`); doubles given for the case win.
    init = cls.__dict__.get("__init__") if isinstance(cls, type) else None
    if init is not None:
        try:
            init(obj)
        except Exception:
            pass
    for name, v in attrs.items():
        narrow_library(cls, name, v)
    obj.__dict__.update(attrs)
    return obj


def narrow_library(cls, name, double):
    """A stand-in for a method of the real class fails as the library that method uses: of the
    candidate libraries, those the method's own module imports (`VManager._request` in a module that
    imports requests raises requests' class, not one that is also urllib's)."""
    spec = getattr(double, "_spec", None) if isinstance(double, CallableDouble) else None
    if not isinstance(spec, dict):
        return
    raises = spec.get("raises") if isinstance(spec.get("raises"), dict) else None
    returns = spec.get("returns") if isinstance(spec.get("returns"), dict) and spec["returns"].get("$double") == "response" else None
    part = raises if raises is not None else returns
    libs = part.get("library") if part is not None else None
    if not libs or len(libs) < 2:
        return
    try:
        real = inspect.getattr_static(cls, name)
    except AttributeError:
        return
    g = getattr(getattr(real, "__func__", real), "__globals__", None)
    if not isinstance(g, dict):
        return
    used = {m.__name__ for m in g.values() if isinstance(m, types.ModuleType)}
    keep = [lib for lib in libs if any(u == lib or u.startswith(lib + ".") for u in used)]
    if keep:
        double._spec = dict(spec, **{"raises" if raises is not None else "returns": dict(part, library=keep)})


def decode(spec, rec, path="", cls=None):
    if isinstance(spec, str) and "{vaudit-port" in spec:
        for i, p in enumerate(PORTS):
            spec = spec.replace("{vaudit-port%d}" % i, str(p))
        return spec
    if isinstance(spec, list):
        return [decode(x, rec, path, None) for x in spec]
    if not isinstance(spec, dict):
        return spec
    if "$tuple" in spec:
        return tuple(decode(x, rec, path) for x in spec["$tuple"])
    if "$set" in spec:
        return set(decode(x, rec, path) for x in spec["$set"])
    if "$port" in spec:
        return PORTS[int(spec["$port"])]
    if "$bytes" in spec:
        return spec["$bytes"].encode()
    if "$witness" in spec:
        if spec["$witness"] == "order-state":
            return order_state(spec)
        raise NoWitness("unknown witness %r" % spec["$witness"])
    kind = spec.get("$double")
    if kind is None:
        return {k: decode(v, rec, path + "." + k) for k, v in spec.items()}
    if kind == "callable":
        return CallableDouble(spec, rec, path)
    if kind == "response":
        return Response(int(spec.get("status", 200)), spec.get("text", ""), spec.get("library"))
    attrs = {k: decode(v, rec, path + "." + k) for k, v in (spec.get("attrs") or {}).items()}
    if kind == "self" and cls is not None:
        return make_self(cls, attrs)
    return ObjectDouble(attrs)


# ---------------------------------------------------------------- module loading
class CaseFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def __init__(self, modules):
        self.modules = {m["name"]: m for m in modules}
        self.packages = set()
        for name in self.modules:
            parts = name.split(".")
            for i in range(1, len(parts)):
                self.packages.add(".".join(parts[:i]))

    def find_spec(self, fullname, path=None, target=None):
        if fullname in self.modules:
            m = self.modules[fullname]
            is_pkg = m.get("isPackage", False) or fullname in self.packages
            return importlib.util.spec_from_loader(fullname, self, origin=m["filename"], is_package=is_pkg)
        if fullname in self.packages:
            return importlib.util.spec_from_loader(fullname, self, is_package=True)
        return None

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        m = self.modules.get(module.__name__)
        if m is None:
            module.__path__ = []
            return
        module.__file__ = m["filename"]
        if module.__name__ in self.packages:
            module.__path__ = []
        code = compile(m["source"], m["filename"], "exec")
        exec(code, module.__dict__)


def resolve_qualname(module, qualname):
    obj, owner = module, None
    for part in qualname.split("."):
        owner = obj
        obj = obj.__dict__[part] if isinstance(obj, type) and part in obj.__dict__ else getattr(obj, part)
    return obj, owner


# ---------------------------------------------------------------- stub servers (state endpoints)
def start_server(spec):
    import socket

    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", int(spec.get("port") or 0)))  # 0: a free port for this case
    PORTS.append(srv.getsockname()[1])
    if spec.get("closed"):  # a port nothing listens on: the endpoint is down
        srv.close()
        return lambda: 0
    srv.listen(16)
    srv.settimeout(0.05)
    stop = threading.Event()
    held = []
    hits = [0]

    def serve():
        while not stop.is_set():
            try:
                conn, _ = srv.accept()
            except OSError:
                continue
            hits[0] += 1
            # `before`: the answers to the first connections (a retry path's earlier failures), then the spec's own
            before = spec.get("before") or []
            cur = before[hits[0] - 1] if hits[0] <= len(before) else spec
            if cur.get("stall"):
                held.append(conn)
                continue
            try:
                conn.settimeout(1)
                conn.recv(65536)
                body = cur.get("body", "").encode()
                status = int(cur.get("status", 200))
                head = "HTTP/1.1 %d X\r\nContent-Type: %s\r\nContent-Length: %d\r\nConnection: close\r\n\r\n" % (
                    status, cur.get("contentType", "text/plain"), len(body))
                conn.sendall(head.encode() + body)
            except OSError:
                pass
            finally:
                conn.close()

    t = threading.Thread(target=serve, daemon=True)
    t.start()

    def close():
        stop.set()
        t.join(1.0)  # the accept loop has let go of the socket before it is closed
        for c in held:
            c.close()
        srv.close()
        return hits[0]

    return close


# ---------------------------------------------------------------- defence in depth (issues 17, 30)
# Each case runs in a forked child of this harness: untrusted code (the suite's verifier modules,
# its task lambdas) never shares a process with the answer channel, cannot change how later cases
# run, and can only shape its own case's answer. Before that code runs, the child installs an audit
# hook (PEP 578) that refuses file writes outside the cell, reads of the user's home folders and of
# other processes under /proc, network other than the case's own 127.0.0.1 stub endpoints, starting
# processes other than the case's stub tools, signals to other processes, ctypes, raising resource
# limits, and reaching the guard itself (gc, frames of the guard, tracing). Each refusal is sent to
# the parent the moment it happens (the parent decides the case is `sandbox`; the case's code cannot
# take it back). This is a second layer behind the host's isolation (bubblewrap, a PID namespace,
# an unprivileged uid), NOT a sandbox: an audit hook sees only what CPython audits, and native code
# or an interpreter bug can go around it.
#
# The parent (trusted code only) is the child subreaper of everything its cases start: after each
# case it kills every process left (in whatever session or group it moved to), so nothing from one
# case is alive when the next starts. It is not dumpable: a case cannot ptrace it or take its
# descriptors (pidfd_getfd) without a capability the host has dropped.

ANSWERS = [None]  # the answer channel's fd (the parent's only; closed in every case process)
BEFORE_UNTRUSTED = None  # set in a case child: called by run_case once its trusted set-up is done
GUARD_FD = [None]  # in a case child: the write end of its refusal channel (read by the parent)
GUARD_POLICY = {}  # from the request: {"denyRead": [folder, ...]}
GUARD_KEYS = [0]  # the first key of the next guard's wrappers in this process
REFUSAL_UNREPORTED = 86  # a case process whose refusal could not be sent exits with this code
LOOPBACK = {"127.0.0.1", "localhost", "::1", "0.0.0.0", "ip6-localhost"}
_SHELL_META = set(";&|`$()<>\n\\*?[]{}~!#'\"")
_SENSITIVE_PROC = {"environ", "mem", "fd", "fdinfo", "root", "cwd", "cmdline", "exe", "map_files", "task", "maps", "smaps", "pagemap", "syscall", "auxv"}
# os functions that take a folder descriptor: the audit event of each carries the path, not the
# folder it is relative to, so the guard wraps them (kwarg names of the folder fds, path positions)
_DIR_FD_CALLS = {
    "open": (("dir_fd", 0),), "mkdir": (("dir_fd", 0),), "unlink": (("dir_fd", 0),), "remove": (("dir_fd", 0),),
    "rmdir": (("dir_fd", 0),), "rename": (("src_dir_fd", 0), ("dst_dir_fd", 1)), "replace": (("src_dir_fd", 0), ("dst_dir_fd", 1)),
    "link": (("src_dir_fd", 0), ("dst_dir_fd", 1)), "symlink": (("dir_fd", 1),), "chmod": (("dir_fd", 0),), "chown": (("dir_fd", 0),),
    "utime": (("dir_fd", 0),), "mkfifo": (("dir_fd", 0),), "mknod": (("dir_fd", 0),),
}


class GuardRefused(PermissionError):
    """An operation the control-case guard refuses (a PermissionError: code that handles OSError sees one)."""


def trusted_setup():
    """In the parent, before any case: become the child subreaper and stop being dumpable. ctypes is
    used here, by trusted code, and then taken out of sys.modules (importing it again is refused)."""
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
        libc.prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE = 0
    except Exception:  # no ctypes in this Python: the host's PID namespace still holds every process
        pass
    finally:
        for m in [m for m in sys.modules if m == "ctypes" or m.startswith("ctypes.") or m == "_ctypes"]:
            sys.modules.pop(m, None)


def reap_strays(keep=None):
    """Kill every process this harness still has below it (orphans of a case are reparented to it,
    the subreaper), until none is left; reap them. `keep`: a zygote, with what is below it."""
    me = os.getpid()
    for _ in range(50):
        kids = {}
        for e in os.listdir("/proc"):
            if not e.isdigit():
                continue
            try:
                with open("/proc/%s/stat" % e, "rb") as f:
                    st = f.read()
                fields = st.rsplit(b")", 1)[1].split()
            except (OSError, IndexError):
                continue
            if fields[0] != b"Z":
                kids.setdefault(int(fields[1]), []).append(int(e))
        found, todo = [], [me]
        while todo:
            for c in kids.get(todo.pop(), []):
                if c == keep:
                    continue
                found.append(c)
                todo.append(c)
        for p in found:
            try:
                os.kill(p, signal.SIGKILL)
            except OSError:
                pass
        while True:
            try:
                if os.waitpid(-1, os.WNOHANG)[0] == 0:
                    break
            except ChildProcessError:
                break
        if not found:
            return


class GuardChannel:
    """The refusal channel of one case: the child's guard writes each refusal as it happens; the
    parent reads them once the case's processes are gone and decides the case's status."""

    def __init__(self):
        self.r, self.w = os.pipe()

    def enter_child(self):
        os.close(self.r)
        GUARD_FD[0] = self.w

    def close_write(self):
        os.close(self.w)

    def discard(self):
        os.close(self.r)

    def verdict(self, cid, status):
        os.set_blocking(self.r, False)
        data = b""
        try:
            while len(data) < 65536:
                b = os.read(self.r, 65536)
                if not b:
                    break
                data += b
        except BlockingIOError:
            pass
        os.close(self.r)
        refused = [line.decode("utf-8", "replace") for line in data.split(b"\n") if line]
        if status is not None and os.WIFEXITED(status) and os.WEXITSTATUS(status) == REFUSAL_UNREPORTED and not refused:
            refused = ["an operation whose refusal could not be reported (the case's code closed or replaced the guard's channel)"]
        if not refused:
            return None
        # The code tried what a control case may not do: whatever it answered after that is not
        # evidence about the verifier as it would run on its own machine.
        return {"id": cid, "status": "sandbox", "events": [], "lines": {}, "guard": refused[:20],
                "detail": "the control-case guard refused %s%s" % (refused[0], "" if len(refused) == 1 else " (and %d more)" % (len(refused) - 1))}


def _codes_of(functions):
    """Every code object of these functions and the functions defined inside them."""
    out, todo = set(), [f.__code__ for f in functions]
    while todo:
        c = todo.pop()
        if c in out:
            continue
        out.add(c)
        todo.extend(k for k in c.co_consts if isinstance(k, types.CodeType))
    return out


def install_guard(case):
    import _thread
    import pathlib
    import posix
    import stat as stat_mod
    import _posixsubprocess
    import subprocess

    # Everything the guard uses is captured now: the case's code may replace module attributes
    # (os.lstat, json.dumps, __main__.PORTS, LOOPBACK) but not these references.
    lstat, readlink, getcwd, fstat, write, exit_, audit, getframe = os.lstat, os.readlink, os.getcwd, os.fstat, os.write, os._exit, sys.audit, sys._getframe
    getpid, get_ident, S_ISLNK, S_ISDIR = os.getpid, _thread.get_ident, stat_mod.S_ISLNK, stat_mod.S_ISDIR
    s_get, b_get, b_decode, t_get, t_len, i_int = str.__getitem__, bytes.__getitem__, bytes.decode, tuple.__getitem__, tuple.__len__, int.__int__
    path_str, fs_enc = pathlib.PurePath.__str__, sys.getfilesystemencoding()
    path_types = (pathlib.PurePosixPath, pathlib.PosixPath, pathlib.Path, pathlib.PurePath)
    refused_cls = GuardRefused
    frame_holders = (types.TracebackType, types.GeneratorType, types.CoroutineType, types.AsyncGeneratorType)
    ALL = slice(None)
    loopback = frozenset(LOOPBACK)
    shell_meta = frozenset(_SHELL_META)
    sensitive_proc = frozenset(_SENSITIVE_PROC)
    fd = GUARD_FD[0]
    try:
        fd_id = (fstat(fd).st_dev, fstat(fd).st_ino) if fd is not None else None
    except OSError:
        fd_id = None
    sent = [0]
    busy = set()  # threads inside the guard's own check (per thread: another thread is still checked)

    def resolve(path):
        """os.path.realpath of an absolute path, with only the functions captured above."""
        todo = [x for x in path.split("/") if x][::-1]
        out, hops = "", 0
        while todo:
            name = todo.pop()
            if name == ".":
                continue
            if name == "..":
                out = out.rsplit("/", 1)[0]
                continue
            nxt = out + "/" + name
            try:
                st = lstat(nxt)
            except (OSError, ValueError):
                out = nxt
                continue
            if S_ISLNK(st.st_mode) and hops < 40:
                hops += 1
                target = readlink(nxt)
                if target.startswith("/"):
                    out = ""
                todo.extend([x for x in target.split("/") if x][::-1])
            else:
                out = nxt
        return out or "/"

    cell = resolve(getcwd() if CELL is None else CELL)
    # the case's own folders: the cell, and the fixture folders bound privately for this run (bwrap)
    private = tuple([cell] + [resolve(r) for r in case_context.fixture_roots()])
    allow_read = [resolve(p) for p in {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix} if p]
    allow_read = tuple(allow_read + [resolve(p) for p in sys.path if p and os.path.isabs(p)])
    deny_read = tuple(resolve(p) for p in GUARD_POLICY.get("denyRead") or [] if isinstance(p, str) and os.path.isabs(p) and p != "/")
    ports = set(PORTS)  # the stub servers allocated for this case, started before the guard
    for s in case.get("servers") or []:
        try:
            ports.add(int(s.get("port")))
        except (TypeError, ValueError):
            pass
    ports = frozenset(ports)
    stub_dir = None
    stubs = frozenset()
    first = ((case.get("env") or {}).get("PATH") or "").replace("{cell}", CELL).split(":")[0]
    if first and resolve(first).startswith(cell + "/") and os.path.isdir(first):
        stub_dir = resolve(first)
        stubs = frozenset(os.listdir(stub_dir))
    me = getpid()
    token = [0]
    guard_codes = set()  # filled below: every code object of this function's inner functions

    def refuse(what):
        # Sent the moment it happens; a channel the case's code closed or replaced ends the case.
        if sent[0] < 20:
            sent[0] += 1
            try:
                st = fstat(fd)
                if (st.st_dev, st.st_ino) != fd_id:
                    raise OSError("replaced")
                write(fd, (what.replace("\n", " ")[:400] + "\n").encode("utf-8", "replace"))
            except BaseException:
                exit_(REFUSAL_UNREPORTED)
        raise refused_cls(1, "vaudit control-case guard: %s is not allowed in a control case" % what)

    def plain(p):
        """A path argument as an exact str, without running the case's code: None for a descriptor;
        str, bytes and pathlib paths only (another os.PathLike would run the case's __fspath__
        inside the guard, and could answer differently to the guard and to the call)."""
        tp = type(p)
        if issubclass(tp, int):
            return None
        if issubclass(tp, str):
            return s_get(p, ALL)
        if issubclass(tp, bytes):
            return b_decode(b_get(p, ALL), fs_enc, "surrogateescape")
        if tp in path_types:
            return s_get(path_str(p), ALL)
        refuse("a path given as an object that is not str, bytes or a pathlib path")

    def fd_folder(d):
        try:
            return readlink("/proc/self/fd/%d" % i_int(d))
        except (OSError, TypeError, ValueError):
            refuse("a path relative to a descriptor that is not an open folder")

    def path_of(p, dir_fd=None):
        q = plain(p)
        if q is None:
            return None
        if not q.startswith("/"):
            # relative to the real cwd (after any os.chdir), or to the folder descriptor given
            base = getcwd() if dir_fd is None else fd_folder(dir_fd)
            q = base.rstrip("/") + "/" + q
        return resolve(q)

    def within(p, root):
        return p == root or p.startswith(root.rstrip("/") + "/")

    def check_write(p, what, dir_fd=None):
        q = path_of(p, dir_fd)
        if q is None or q == "/dev/null" or any(within(q, d) for d in private):
            return
        refuse("%s outside the case folder (%s)" % (what, q))

    def check_read(p, what, dir_fd=None):
        q = path_of(p, dir_fd)
        if q is None or any(within(q, d) for d in private):
            return
        if q.startswith("/proc/"):
            parts = q.split("/")
            if len(parts) > 2 and parts[2].isdigit() and int(parts[2]) != me:
                refuse("%s of another process (%s)" % (what, q))
            if len(parts) > 3 and parts[3] in sensitive_proc:
                refuse("%s of %s" % (what, q))
        if any(within(q, a) for a in allow_read):
            return
        for d in deny_read:
            if within(q, d):
                refuse("%s in the user's home folder (%s)" % (what, q))

    def parent_of(pid):
        try:
            with open("/proc/%d/stat" % pid) as f:
                return int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            return None

    def exact_host(h):
        tp = type(h)
        if issubclass(tp, str):
            return s_get(h, ALL)
        if issubclass(tp, bytes):
            return b_decode(b_get(h, ALL), "latin-1")
        return None

    def check_addr(addr, what):
        host = port = None
        if issubclass(type(addr), tuple) and t_len(addr):
            host = exact_host(t_get(addr, 0))
            if t_len(addr) > 1 and issubclass(type(t_get(addr, 1)), int):
                port = i_int(t_get(addr, 1))
        else:
            host = exact_host(addr)
        if host in loopback and port in ports:
            return  # the case's own endpoints: fixed ports from the spec, and ports allocated for it
        if host in loopback:
            # as under bubblewrap's empty network: nothing of this case listens there
            raise ConnectionRefusedError(111, "Connection refused (vaudit control-case guard: no endpoint of this case on port %s)" % (port,))
        refuse("%s to %s (only the case's own 127.0.0.1 endpoints %s)" % (what, "%s:%s" % (host, port) if host is not None else "an address", sorted(ports)))

    def check_popen(executable, args, env):
        if issubclass(type(args), (str, bytes)):
            args = [args]
        words = []
        for a in (list(args) if issubclass(type(args), (list, tuple)) else []):
            w = plain(a)
            if w is None:
                refuse("starting a process with a descriptor as an argument")
            words.append(w)
        prog = plain(executable) if executable is not None else (words[0] if words else "")
        if len(words) >= 3 and words[1] == "-c" and prog.rsplit("/", 1)[-1] in ("sh", "bash", "dash"):
            cmd = words[2]
            if any(ch in shell_meta for ch in cmd):
                refuse("a shell command with shell syntax (%s)" % cmd[:80])
            split = cmd.split()
            prog = split[0] if split else ""
        name = prog.rsplit("/", 1)[-1]
        if stub_dir is None or name not in stubs:
            refuse("starting the process %s (only the case's stub tools)" % prog[:80])
        if "/" in prog and not within(resolve(prog if prog.startswith("/") else getcwd() + "/" + prog), stub_dir):
            refuse("starting %s from outside the case's stub folder" % prog[:80])
        if env is not None:
            path = None
            if issubclass(type(env), dict):
                path = dict.get(env, "PATH", None)
                if path is None:
                    path = dict.get(env, b"PATH", None)
            path = exact_host(path) if path is not None else None
            if not path or resolve(path.split(":")[0]) != stub_dir:
                refuse("starting a stub tool with another PATH")
        token[0] += 1

    def guarded_stack(f):
        """Whether this frame, or any frame it was called from, is the guard's own."""
        while f is not None:
            if f.f_code in guard_codes:
                return True
            f = f.f_back
        return False

    def check(event, args):
        if event == "open":
            path, mode, flags = (list(args) + [None, None, None])[:3]
            mode = s_get(mode, ALL) if issubclass(type(mode), str) else ""
            flags = i_int(flags) if issubclass(type(flags), int) else 0
            writing = any(c in mode for c in "wax+") or bool(flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND))
            if writing:
                check_write(path, "writing a file")
            check_read(path, "opening a file")
        elif event in ("os.listdir", "os.scandir", "glob.glob", "os.chdir", "glob.glob/2"):
            if args:
                check_read(args[0], "listing a folder" if event != "os.chdir" else "changing folder")
        elif event in ("os.remove", "os.rmdir", "os.mkdir", "os.chmod", "os.chown", "os.truncate", "os.utime", "os.chflags",
                       "os.lchmod", "os.lchown", "os.lchflags", "os.mkfifo", "os.mknod", "os.setxattr", "os.removexattr",
                       "shutil.rmtree", "tempfile.mkstemp", "tempfile.mkdtemp"):
            if args:
                check_write(args[0], event)
        elif event in ("os.rename", "os.link", "os.symlink", "shutil.copyfile", "shutil.copymode", "shutil.copystat",
                       "shutil.copytree", "shutil.move", "shutil.unpack_archive", "shutil.make_archive"):
            for p in list(args)[:2]:
                if issubclass(type(p), (str, bytes)) or type(p) in path_types:
                    check_write(p, event)
        elif event == "vaudit.dir_fd":
            what, p, d, writes = args
            (check_write if writes else check_read)(p, what, d)
        elif event in ("socket.connect", "socket.connect_ex", "socket.sendto", "socket.sendmsg"):
            check_addr(args[1] if len(args) > 1 else None, "a network connection")
        elif event == "socket.bind":
            # Binding an ephemeral loopback port is how libraries probe the stack (urllib3 binds
            # ("::1", 0) at import to learn whether IPv6 works); a fixed or outside address is refused.
            addr = args[1] if len(args) > 1 else None
            host = port = None
            if issubclass(type(addr), tuple) and t_len(addr) > 1:
                host = exact_host(t_get(addr, 0))
                port = i_int(t_get(addr, 1)) if issubclass(type(t_get(addr, 1)), int) else None
            if not (host in ("127.0.0.1", "::1", "localhost") and port == 0):
                refuse("listening on a socket")
        elif event in ("socket.getaddrinfo", "socket.gethostbyname", "socket.gethostbyname_ex", "socket.gethostbyaddr", "socket.getnameinfo"):
            host = args[0] if args else None
            if issubclass(type(host), tuple) and t_len(host):
                host = t_get(host, 0)
            if host is not None:
                host = exact_host(host)
                if host not in loopback:
                    refuse("a name lookup of %s" % (host if host is not None else "a non-string host"))
        elif event == "subprocess.Popen":
            check_popen(args[0], args[1], args[3] if len(args) > 3 else None)
        elif event == "vaudit.fork_exec":
            if token[0] <= 0:
                refuse("starting a process through _posixsubprocess")
            token[0] -= 1
        elif event in ("os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork", "os.forkpty", "os.startfile", "pty.spawn"):
            refuse(event)
        elif event == "os.kill":
            # the case's own process, or a process it started (subprocess kills a tool on timeout)
            pid = i_int(args[0]) if args and issubclass(type(args[0]), int) else None
            if pid is None or not (pid == me or parent_of(pid) == me):
                refuse("signalling another process")
        elif event in ("os.killpg", "signal.pthread_kill"):
            refuse("signalling a process group" if event == "os.killpg" else event)
        elif event.startswith("ctypes.") or event in ("resource.setrlimit", "resource.prlimit", "sys.remote_exec", "gc.get_objects",
                                                        "gc.get_referrers", "gc.get_referents", "sys._current_frames"):
            refuse(event)
        elif event == "sys._getframe":
            if guarded_stack(getframe(2)):
                refuse("reading the frames of the control-case guard")
        elif event == "object.__getattr__" and len(args) > 1 and type(args[0]) in frame_holders and args[1] in ("tb_frame", "gi_frame", "cr_frame", "ag_frame"):
            f = getattr(args[0], args[1], None)  # audited again, skipped: this thread is busy
            if type(f) is types.FrameType and guarded_stack(f):
                refuse("reading the frames of the control-case guard")
        elif event == "import" and args and args[0] in ("_posixsubprocess", "_ctypes", "ctypes", "_xxsubinterpreters"):
            refuse("importing %s" % args[0])

    def call(t, args):
        key, a, kw, box = args
        fn, pre = originals[i_int(key)]
        pre(a, kw)
        busy.discard(t)  # the call itself is checked like any other code
        try:
            box[1] = fn(*a, **kw)
            box[0] = True
        except BaseException as e:
            box[1] = e
            box[0] = False
        finally:
            busy.add(t)

    def hook(event, args):
        t = get_ident()
        if t in busy:
            return  # the guard's own operations (reading /proc, resolving a path)
        busy.add(t)
        try:
            if event == "vaudit.call" and len(args) == 4 and type(args[3]) is list and type(args[0]) is int and i_int(args[0]) in originals:
                call(t, args)
            else:
                check(event, args)
        finally:
            busy.discard(t)

    originals = {}  # key -> (the unwrapped function, its check): only the hook can read this
    # keys of this guard's wrappers, apart from those of a guard installed before it in this process (a
    # zygote's): each hook makes only its own guard's calls
    key_base = GUARD_KEYS[0]
    GUARD_KEYS[0] += 1000

    def gate(fn, before):
        """`fn` behind `before`. The wrapper holds only a key: it asks the hook (through an audit
        event) to check and make the call, so the unwrapped function is in no closure, global or
        attribute the case's code can read, and the call runs with tracing off."""
        key = key_base + len(originals)
        originals[key] = (fn, before)

        def wrapped(*a, **kw):
            box = [None, None]
            audit("vaudit.call", key, a, kw, box)
            if box[0] is True:
                return box[1]
            if box[0] is False:
                raise BaseException.with_traceback(box[1], None)
            raise refused_cls(1, "vaudit control-case guard: the guarded call did not run")
        wrapped.__name__ = getattr(fn, "__name__", "wrapped")
        return wrapped

    def before_fork_exec(a, kw):
        # `subprocess.Popen` audits before it forks (and is checked then); this call does not audit
        check("vaudit.fork_exec", ())

    def before_dir_fd(name, spots):
        def pre(a, kw):
            for fd_kw, pos in spots:
                d = kw.get(fd_kw)
                if d is None:
                    continue
                p = a[pos] if len(a) > pos else (kw.get("dst") if pos == 1 else kw.get("path", kw.get("src")))
                writes = name != "open" or bool((a[1] if len(a) > 1 else kw.get("flags", 0)) & (os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND))
                check("vaudit.dir_fd", ("%s relative to a folder descriptor" % ("writing a file" if writes else "opening a file") if name == "open" else "os.%s relative to a folder descriptor" % name, p, d, writes))
        return pre

    def before_fd_listing(name):
        def pre(a, kw):
            p = a[0] if a else kw.get("path")
            if issubclass(type(p), int):
                check("vaudit.dir_fd", ("listing a folder by descriptor", ".", p, False))
        return pre

    fork_exec = gate(_posixsubprocess.fork_exec, before_fork_exec)
    _posixsubprocess.fork_exec = fork_exec
    if hasattr(subprocess, "_fork_exec"):
        subprocess._fork_exec = fork_exec
    for name, spots in _DIR_FD_CALLS.items():
        original = getattr(posix, name, None) or getattr(os, name, None)
        if original is None:
            continue
        w = gate(original, before_dir_fd(name, spots))
        if original in os.supports_dir_fd:
            os.supports_dir_fd.add(w)
        setattr(os, name, w)
        if hasattr(posix, name):
            setattr(posix, name, w)
    for name in ("listdir", "scandir"):
        original = getattr(os, name)
        w = gate(original, before_fd_listing(name))
        if original in os.supports_fd:
            os.supports_fd.add(w)
        setattr(os, name, w)
        if hasattr(posix, name):
            setattr(posix, name, w)
    guard_codes.update(_codes_of([install_guard]))
    sys.addaudithook(hook)


# ---------------------------------------------------------------- one case, in its own process
ANSWER_LIMIT = 16 * 1024 * 1024
GRACE_S = 1.0
SETUP_MS = 10000  # the bound on a case's set-up (harness.ts keeps the same default)
STATUSES = {"returned", "raised", "deadline", "unavailable", "nowitness", "error", "sandbox"}


def case_process(case, rfd, wfd, warm=None):
    """The case's own process (forked by the harness, or by a zygote: `warm`): runs the case with the
    guard installed before its untrusted code and writes the answer to `wfd`. Never returns."""
    code = 0
    cid = case.get("id")
    try:
        if rfd is not None:
            os.close(rfd)
        if ANSWERS[0] is not None:
            os.close(ANSWERS[0])
        global BEFORE_UNTRUSTED
        BEFORE_UNTRUSTED = install_guard if warm is None else warm.before_untrusted
        res = run_case(case, warm)
        data = json.dumps(res).encode()
    except BaseException as e:  # the harness must answer even when the case broke it
        data = json.dumps({"id": cid, "status": "error", "detail": "%s: %s" % (type(e).__name__, str(e)[:300])}).encode()
        code = 1
    try:
        view = memoryview(data)
        while view:
            n = os.write(wfd, view)
            view = view[n:]
    finally:
        os._exit(code)


def run_forked(case, zygote=None, index=None):
    """Run one case in a forked child (guard installed before untrusted code) and return its
    answer. The parent enforces the case's bound by killing the child and keeps the case id.
    With a `zygote` (its modules already imported), the zygote forks the child for case `index`;
    None when the zygote is gone before the case started (the caller runs it cold)."""
    import select

    cid = case.get("id")
    rfd, wfd = os.pipe()
    channel = GuardChannel()
    if zygote is not None:
        pid = zygote.fork_case(index, wfd, channel.w)
        if pid is None:
            os.close(rfd)
            os.close(wfd)
            channel.close_write()
            channel.discard()
            return None
    else:
        pid = os.fork()
        if pid == 0:  # the case's own process: nothing here returns
            channel.enter_child()
            case_process(case, rfd, wfd)
    os.close(wfd)
    channel.close_write()
    # a call case has one bound for its set-up (loading its modules) and one for the call
    bound = (case.get("setupMs", SETUP_MS) + case.get("timeoutMs", 2000)) / 1000.0 if case.get("op", "call") in ("call", "lambda") else 10.0
    deadline = time.monotonic() + bound + GRACE_S
    chunks, size, why = [], 0, None
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            why = "deadline"
            break
        ready, _, _ = select.select([rfd], [], [], left)
        if not ready:
            continue
        b = os.read(rfd, 65536)
        if not b:
            break
        size += len(b)
        if size > ANSWER_LIMIT:
            why = "too-large"
            break
        chunks.append(b)
    os.close(rfd)
    if zygote is not None:
        status = zygote.reap(pid)
        reap_strays(keep=zygote.pid)  # the case's orphans come to this harness (the subreaper), not to the zygote
    else:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
        _, status = os.waitpid(pid, 0)
        reap_strays()  # nothing the case started outlives it
    refused = channel.verdict(cid, status)  # refusals decide, whatever the case answered
    if refused is not None:
        return refused
    if why == "deadline":
        return {"id": cid, "status": "deadline", "events": [], "lines": {},
                "detail": "the case did not finish within %d ms (its process was killed)" % int(bound * 1000)}
    if why == "too-large":
        return {"id": cid, "status": "error", "events": [], "lines": {}, "detail": "the case's answer exceeded %d bytes" % ANSWER_LIMIT}
    try:
        res = json.loads(b"".join(chunks).decode("utf-8"))
    except ValueError:
        res = None
    if not isinstance(res, dict) or res.get("status") not in STATUSES:
        if chunks:  # something else wrote to the case's answer pipe: no part of it is taken
            return {"id": cid, "status": "crash", "events": [], "lines": {},
                    "detail": "the case's answer was not one harness answer (its code wrote to the answer pipe); nothing of it is used"}
        sig = os.WTERMSIG(status) if status is not None and os.WIFSIGNALED(status) else None
        how = "signal %d" % sig if sig else "exit %d" % os.WEXITSTATUS(status) if status is not None else "its zygote did not say how it ended"
        return {"id": cid, "status": "crash", "events": [], "lines": {},
                "detail": "the case's process died without an answer (%s)" % how}
    res["id"] = cid  # the parent decides which case an answer belongs to
    return res


def missing_detail(case, module, rest):
    """Why a module was missing: a library this Python lacks, or the suite's own module that exists on
    disk (`suiteModules`, found by the oracle next to the verifier) but was not loaded into the case."""
    own = (case.get("suiteModules") or {}).get((module or "").split(".")[0])
    if own:
        return ("module %s is the suite's own (%s), present on disk, but vaudit did not load it into the control case "
                "(it loads only the files the function reaches through imports it can resolve)%s" % (module, own, rest))
    return "module %s is not installed in this Python (%s)%s" % (module, sys.executable, rest)


# ---------------------------------------------------------------- one case
class CaseTrace:
    """What `sys.settrace` records in the traced files: executed lines, and every exception raised there
    (first event per exception object, even if later swallowed). A case forked from a zygote starts
    from a copy of what the zygote's import of the same modules recorded."""

    def __init__(self, traced, deadline, warm=None):
        self.traced = traced
        self.deadline = deadline  # [perf_counter() bound]; a traced line past it raises CaseDeadline
        self.lines = {f: set(v) for f, v in warm.lines.items()} if warm is not None else {}
        self.events = list(warm.events) if warm is not None else []
        self.seen_exc = set(warm.seen_exc) if warm is not None else set()
        # exception objects stay referenced, so their ids are not reused within the case
        self.keep_alive = list(warm.keep_alive) if warm is not None else []

    def local(self, frame, event, arg):
        if event == "line":
            self.lines.setdefault(frame.f_code.co_filename, set()).add(frame.f_lineno)
            if time.perf_counter() > self.deadline[0]:
                raise CaseDeadline()
        elif event == "exception":
            exc = arg[1]
            if id(exc) not in self.seen_exc and not isinstance(exc, CaseDeadline):
                self.seen_exc.add(id(exc))
                self.keep_alive.append(exc)
                self.events.append({"type": type(exc).__name__, "message": str(exc)[:300],
                                    "file": frame.f_code.co_filename, "line": frame.f_lineno, "func": frame.f_code.co_name})
        return self.local

    def tracer(self, frame, event, arg):
        if frame.f_code.co_filename in self.traced:
            return self.local(frame, event, arg)
        return None


def traced_files(case):
    traced = set(case.get("traceFiles") or [m["filename"] for m in case.get("modules", [])])
    if case.get("op", "call") == "lambda":
        traced.add("<lambda>")
    return traced


class FixedClock:
    """The host clock set to one instant for a case (`clock`), undone by `restore()`. The verifier's modules
    are imported after it is set, so `from datetime import datetime` binds the fixed class too."""

    def __init__(self, t):
        import datetime as dt
        self.dt, self.saved = dt, (dt.datetime, dt.date, time.time, time.time_ns, time.localtime, time.gmtime, time.ctime, time.strftime)
        real_dt, real_date, localtime, gmtime, ctime, strftime = dt.datetime, dt.date, time.localtime, time.gmtime, time.ctime, time.strftime
        t = float(t)

        class datetime(real_dt):
            @classmethod
            def now(cls, tz=None):
                return cls.fromtimestamp(t, tz)

            @classmethod
            def today(cls):
                return cls.fromtimestamp(t)

            @classmethod
            def utcnow(cls):
                return cls.fromtimestamp(t, dt.timezone.utc).replace(tzinfo=None)

        class date(real_date):
            @classmethod
            def today(cls):
                return cls.fromtimestamp(t)

        datetime.__module__ = date.__module__ = "datetime"
        dt.datetime, dt.date = datetime, date
        time.time = lambda: t
        time.time_ns = lambda: int(t * 1e9)
        time.localtime = lambda secs=None: localtime(t if secs is None else secs)
        time.gmtime = lambda secs=None: gmtime(t if secs is None else secs)
        time.ctime = lambda secs=None: ctime(t if secs is None else secs)
        time.strftime = lambda fmt, tup=None: strftime(fmt, localtime(t) if tup is None else tup)

    def restore(self):
        dt = self.dt
        dt.datetime, dt.date, time.time, time.time_ns, time.localtime, time.gmtime, time.ctime, time.strftime = self.saved


def run_case(case, warm=None):
    """Run one case in this process. `warm`: the zygote's import of the case's modules (`Warm`), taken
    over instead of importing them again."""
    cid = case.get("id")
    op = case.get("op", "call")
    fn = owner = module = None  # bound on every path: only "call"/"lambda" cases set them
    out = {"id": cid, "status": "error", "events": [], "lines": {}}
    t0 = time.perf_counter()
    t_call = [None]  # when the case's clock started (the call); set-up before it is timed apart
    bound = case.get("timeoutMs", 2000) / 1000.0
    # Set-up (fixtures, module doubles, importing the verifier's modules and the libraries they import)
    # has its own bound and does not count against the case's: importing Flask can take seconds.
    trace = CaseTrace(traced_files(case), [t0 + case.get("setupMs", SETUP_MS) / 1000.0], warm)
    deadline, traced, lines, events, tracer = trace.deadline, trace.traced, trace.lines, trace.events, trace.tracer

    def on_alarm(signum, frame):
        raise CaseDeadline()

    finder = None
    saved_env = dict(os.environ)
    saved_cwd = os.getcwd()
    saved_path = list(sys.path)
    closers = []
    rec = Recorder()
    added_modules = []
    call_events_from = 0
    doubles = None
    PORTS.clear()
    clock = None

    try:
        if case.get("clock") is not None and op in ("call", "lambda"):
            clock = FixedClock(case["clock"])
        for k, v in (case.get("env") or {}).items():
            os.environ[k] = v.replace("{cell}", CELL)
        for s in case.get("servers") or []:
            closers.append(start_server(s))
        if BEFORE_UNTRUSTED is not None:
            BEFORE_UNTRUSTED(case)  # from here on, the case's code runs
        signal.signal(signal.SIGALRM, on_alarm)
        signal.setitimer(signal.ITIMER_REAL, max(0.001, deadline[0] - time.perf_counter()) + 0.05)
        if op == "compile":
            try:
                compile(case["source"], case.get("filename", "<vaudit>"), case.get("mode", "eval"))
                out["status"] = "returned"
                out["value"] = True
                if case.get("mode", "eval") == "eval":
                    import ast
                    body = ast.parse(case["source"], mode="eval").body
                    # what the string evaluates to, decided by Python's own parser (nothing is run)
                    out["value"] = {"node": type(body).__name__}
            except SyntaxError as e:
                out["status"] = "raised"
                out["exception"] = {"type": type(e).__name__, "message": e.msg, "line": e.lineno, "offset": e.offset}
        elif op == "regex":
            import re
            try:
                re.compile(case["pattern"], case.get("flags", 0))
                out["status"] = "returned"
                out["value"] = True
            except re.error as e:
                out["status"] = "raised"
                out["exception"] = {"type": "re.error", "message": e.msg, "pos": e.pos}
        else:
            if op == "lambda":
                code = compile(case["source"], "<lambda>", "eval")
                owner = None
                sys.settrace(tracer)
                glb = {"__builtins__": builtins}
                for name in case.get("imports") or []:  # modules the verifier's globals give the lambda
                    glb[name] = importlib.import_module(name)
                try:
                    fn = eval(code, glb)
                except Exception as e:  # a string that is not a lambda fails when evaluated
                    fn = None
                    out["status"] = "raised"
                    out["exception"] = {"type": type(e).__name__, "message": str(e)[:300], "file": "<lambda>", "line": 1}
                finally:
                    sys.settrace(None)
                if fn is not None and not callable(fn):
                    out["status"] = "raised"
                    out["exception"] = {"type": "TypeError", "message": "'%s' object is not callable" % type(fn).__name__, "file": "<lambda>", "line": 1}
                    fn = None
            else:
                if warm is not None:
                    # The zygote imported this case's modules (same sources, doubles and environment)
                    # before forking this process; what that import did or raised is this case's own.
                    doubles, finder, module, added_modules = warm.doubles, warm.finder, warm.module, warm.added
                    out["sharedSetupMs"] = warm.ms
                    if warm.exc is not None:
                        raise warm.exc
                else:
                    case_context.write_fixtures(case, CELL)
                    doubles = case_context.install_doubles(case.get("doubleModules"))
                    finder = CaseFinder(case["modules"])
                    sys.meta_path.insert(0, finder)
                    before = set(sys.modules)
                    try:
                        sys.settrace(tracer)
                        module = importlib.import_module(case["entry"]["module"])
                    finally:
                        sys.settrace(None)
                        added_modules = [m for m in sys.modules if m not in before]
                if not case["entry"].get("qualname"):
                    # module-level code: importing it was the run
                    out["status"] = "returned"
                    out["value"] = None
                    fn = None
                else:
                    fn, owner = resolve_qualname(module, case["entry"]["qualname"])
        if op in ("call", "lambda") and fn is not None:
            args = [decode(a, rec, "arg%d" % i) for i, a in enumerate(case.get("args") or [])]
            kwargs = {k: decode(v, rec, k) for k, v in (case.get("kwargs") or {}).items()}
            if case.get("self") is not None:
                args.insert(0, decode(case["self"], rec, "self", owner if isinstance(owner, type) else None))
            call_events_from = len(events)
            route = case.get("route")
            if route is not None and route.get("json") is not None:  # a body may name the case's ports ({"$port": i})
                route = dict(route, json=decode(route["json"], rec, "body"))
            found = None
            if route is not None and not isinstance(fn, case_context.Missing):
                found, why = case_context.find_route(module, fn, route)
                if found is None:
                    raise RuntimeError("route %s: %s" % (route.get("path", "?"), why))
                out["route"] = {"rule": found[1].rule, "method": found[2]}
            case_context.PHASE["call"] = True
            t_call[0] = time.perf_counter()
            out["setupMs"] = round((t_call[0] - t0) * 1000, 3)
            deadline[0] = t_call[0] + bound
            signal.setitimer(signal.ITIMER_REAL, bound + 0.05)
            sys.settrace(tracer)
            try:
                if found is not None:
                    value = case_context.call_route(found, fn, route, lambda: fn(*args, **kwargs))
                else:
                    value = fn(*args, **kwargs)
                if inspect.iscoroutine(value):
                    value = asyncio.run(value)
                out["status"] = "returned"
                if case.get("verdict"):
                    out["raw"] = to_json(value)
                    value = case_context.read_verdict(value, case["verdict"])
                out["value"] = to_json(value)
            except (CaseDeadline, case_context.MissingModule):
                raise
            except Exception as e:  # the verifier's own exception escaping the function
                tb = e.__traceback__
                file, line = None, None
                while tb is not None:
                    if tb.tb_frame.f_code.co_filename in traced:
                        file, line = tb.tb_frame.f_code.co_filename, tb.tb_lineno
                    tb = tb.tb_next
                out["status"] = "raised"
                out["exception"] = {"type": type(e).__name__, "message": str(e)[:300], "file": file, "line": line}
            finally:
                sys.settrace(None)
    except CaseDeadline:
        sys.settrace(None)
        if t_call[0] is None and op == "call":
            # set-up never finished: no case ran, so there is nothing to judge (a non-result)
            out["status"] = "error"
            out["phase"] = "setup"
            out["detail"] = "set-up (fixtures, doubles, importing the verifier's modules) did not finish within %d ms; the case never started" % case.get("setupMs", SETUP_MS)
        else:
            out["status"] = "deadline"
            out["detail"] = "the case did not finish within %d ms" % case.get("timeoutMs", 2000)
    except case_context.MissingModule as e:
        sys.settrace(None)
        out["status"] = "unavailable"
        out["missing"] = {"module": e.module, "uses": e.what, "file": e.file, "line": e.line}
        out["detail"] = missing_detail(case, e.module, "; the path under test uses %s%s" % (
            e.what, " at %s:%s" % (os.path.basename(e.file), e.line) if e.file else ""))
    except NoWitness as e:
        sys.settrace(None)
        out["status"] = "nowitness"
        out["detail"] = str(e)
    except ModuleNotFoundError as e:
        sys.settrace(None)
        out["status"] = "unavailable"
        out["detail"] = missing_detail(case, e.name or "?", "; vaudit doubles only modules the verifier's own files import unconditionally at top level, and this import is not one (a library's import, or one inside a function, `try` or `if` block)" if doubles is not None and (e.name or "").split(".")[0] not in doubles.written else "")
    except BaseException as e:  # loading the module failed, or a case-level error
        sys.settrace(None)
        if isinstance(e, (KeyboardInterrupt,)):
            raise
        out["status"] = "error"
        out["detail"] = "%s: %s" % (type(e).__name__, str(e)[:300])
    finally:
        if clock is not None:
            clock.restore()
        case_context.PHASE["call"] = False
        case_context.remove_doubles(doubles)
        signal.setitimer(signal.ITIMER_REAL, 0)
        sys.settrace(None)
        if finder is not None and finder in sys.meta_path:
            sys.meta_path.remove(finder)
        for m in case_context.case_modules(added_modules, finder, doubles):
            sys.modules.pop(m, None)
        hits = 0
        for c in closers:
            try:
                hits += c() or 0
            except OSError:
                pass
        if closers:
            out["serverHits"] = hits
        log = case.get("stubLog")
        if log:
            try:
                with open(os.path.join(CELL, log)) as f:
                    out["stubCalls"] = f.read().split()
            except OSError:
                out["stubCalls"] = []
        os.environ.clear()
        os.environ.update(saved_env)
        try:
            os.chdir(saved_cwd)
        except OSError:
            pass
        sys.path[:] = saved_path
    touched = case_context.PHASE["touched"]
    case_context.PHASE["touched"] = None
    if touched is not None and out["status"] != "unavailable":
        out["status"] = "unavailable"
        out["missing"] = {"module": touched.module, "uses": touched.what, "file": touched.file, "line": touched.line}
        out["detail"] = missing_detail(case, touched.module, "; the path under test uses %s%s (and swallowed the failure)" % (
            touched.what, " at %s:%s" % (os.path.basename(touched.file), touched.line) if touched.file else ""))
    if doubles is not None and doubles.served:
        out["doubles"] = doubles.served
        if doubles.functional:
            out["functionalDoubles"] = doubles.functional
    # A third-party import the host Python lacks, met while the function ran (even if a decorator
    # swallowed it), leaves the verdict meaningless: the case is unavailable, not a result.
    for ev in events[call_events_from:]:
        if ev["type"] == "ModuleNotFoundError" and out["status"] != "unavailable":
            out["status"] = "unavailable"
            out["detail"] = "import failed while the function ran: %s" % ev["message"]
    out["events"] = events
    out["lines"] = {f: sorted(v) for f, v in lines.items()}
    out["calls"] = rec.calls[:50]
    # `ms`: the case itself (the call, on its own clock); `setupMs`: what came before it
    out["ms"] = round((time.perf_counter() - (t_call[0] if t_call[0] is not None else t0)) * 1000, 3)
    return out


# ---------------------------------------------------------------- warm runner (issue 29)
# Importing a verifier's modules (and the libraries they import: Flask, requests) is most of what a
# case costs. Cases that share that import (same module sources, module doubles, traced files and
# set-up bound; no environment, fixtures or stub tools of their own, which a module's top-level code
# could read) share one ZYGOTE: a process forked from this harness that installs the
# guard, imports the modules once (traced, on the set-up bound, as a cold case does) and then forks
# one process per case from that state. Each case still runs in its own process, so it cannot change
# another case's answer; its process turns the zygote's guard off for good and installs its own
# case's guard before any of its code runs, and starts from a copy of what the zygote's import
# recorded (lines, exceptions) and raised. The answer pipe is this harness's (passed to the zygote
# for the one case), the case's bound is kept here, and a case that overruns is killed here. A
# zygote that cannot be used (its import was refused by the guard, used the network, where a cold
# case's endpoints would have listened, left threads running, or registered at-fork handlers of the
# suite's own; or it stops answering) is dropped, and its cases run cold, as before.
WARM_REPLY_S = 5.0  # how long the harness waits for a zygote's word about a case
NETWORK_EVENTS = {"socket.connect", "socket.connect_ex", "socket.sendto", "socket.sendmsg", "socket.getaddrinfo",
                  "socket.gethostbyname", "socket.gethostbyname_ex", "socket.gethostbyaddr", "socket.getnameinfo"}
NETWORK_USE = []  # network audit events while a zygote's modules loaded (it is then not used)
# One-shot passes through a zygote's guard for the harness's own acts: ("os.fork", None) for forking a
# case, ("open", "/proc/self/status") for counting its threads, ("socket.bind", port) for a case's stub
# endpoint on a fixed port (a cold case binds it before its
# guard is in). The zygote's guard stays on in the zygote and in each case's process until the case's
# own guard is in, so no code the suite's import left behind (patched functions, at-fork handlers,
# finalizers) ever runs unguarded.
HARNESS_ACTS = []


class Warm:
    """What a zygote's import left, taken over by each case forked from it."""

    def __init__(self):
        self.lines, self.events, self.seen_exc, self.keep_alive = {}, [], set(), []
        self.doubles = self.finder = self.module = self.exc = None
        self.added = []
        self.ms = 0.0
        self.switch = [False]  # the zygote's guard: on in the zygote, off in a case once its own is in
        self.path_before = list(sys.path)
        self.patched = []  # (object, name, original): what installing a guard replaces
        self.at_fork = []  # where the suite's own modules registered at-fork handlers
        self.key_next = 0  # the first key after the zygote guard's wrappers

    def before_untrusted(self, case):
        """In the case's process, where a cold case installs its guard: the case's own goes in (seeing
        sys.path as a cold case's guard does, before the import; wrapping what the zygote's guard had
        wrapped, as first installed), then the zygote's goes off."""
        for obj, name, orig in self.patched:
            setattr(obj, name, orig)
        now = list(sys.path)
        sys.path[:] = self.path_before
        GUARD_KEYS[0] = self.key_next  # whatever the suite's import set it to
        try:
            install_guard(case)
        finally:
            sys.path[:] = now
        del HARNESS_ACTS[:]
        self.switch[0] = False


def warm_key(case):
    """The set-up a case shares with others (a digest), or None when it has none to share or its set-up
    depends on the case itself."""
    import hashlib

    if case.get("op", "call") != "call" or not (case.get("entry") or {}).get("qualname"):
        return None  # module-level code: importing it is the case itself
    if case.get("env") or case.get("files") or case.get("dirs") or case.get("stubLog") or case.get("clock") is not None:
        return None  # (a fixed clock is set before the modules are imported)
    shared = [case.get("modules"), case.get("doubleModules"), case["entry"].get("module"), case.get("traceFiles"), case.get("setupMs")]
    return hashlib.sha256(json.dumps(shared, sort_keys=True).encode()).hexdigest()


def harness_act_of(event, args):
    """What a one-shot pass names of an event: the port of a bind, the path of an open."""
    if event == "socket.bind" and len(args) > 1 and isinstance(args[1], tuple) and len(args[1]) > 1:
        return args[1][1]
    if event == "open" and args:
        return args[0]
    return None


def install_switchable_guard(case):
    """`install_guard`'s hook behind a switch (an audit hook cannot be removed): the zygote's code runs
    under it, and a case forked from the zygote turns it off before installing its own. None when the
    guard did not install its hook through `sys.addaudithook` (the zygote is then not used)."""
    captured = []
    add = sys.addaudithook
    sys.addaudithook = captured.append
    try:
        install_guard(case)
    finally:
        sys.addaudithook = add
    if len(captured) != 1:
        return None
    hook, on = captured[0], [True]

    def switchable(event, args):
        if not on[0]:
            # a wrapper of the zygote's guard that the suite's import kept (`from os import listdir`) asks
            # this hook to make its call: checked by the zygote's guard (whose refusal ends the case)
            if event == "vaudit.call":
                hook(event, args)
            return
        if event in NETWORK_EVENTS:
            NETWORK_USE.append(event)
        for i, (what, which) in enumerate(HARNESS_ACTS):
            if what == event and (which is None or which == harness_act_of(event, args)):
                del HARNESS_ACTS[i]
                return
        hook(event, args)

    add(switchable)
    return on


def warm_import(case, warm):
    """The cold set-up of a call case (doubles, the verifier's modules under the tracer, on the set-up
    bound), once, recorded into `warm`."""
    t0 = time.perf_counter()
    trace = CaseTrace(traced_files(case), [t0 + case.get("setupMs", SETUP_MS) / 1000.0])
    register = os.register_at_fork

    def at_fork(**kw):
        # code of the suite's own that would run when each case forks (never in a cold case)
        f = sys._getframe(1)
        if f.f_code.co_filename in trace.traced:
            warm.at_fork.append("%s:%d" % (f.f_code.co_filename, f.f_lineno))
        return register(**kw)

    def on_alarm(signum, frame):
        raise CaseDeadline()

    os.register_at_fork = at_fork
    try:
        signal.signal(signal.SIGALRM, on_alarm)
        signal.setitimer(signal.ITIMER_REAL, max(0.001, trace.deadline[0] - time.perf_counter()) + 0.05)
        try:
            warm.doubles = case_context.install_doubles(case.get("doubleModules"))
            warm.finder = CaseFinder(case["modules"])
            sys.meta_path.insert(0, warm.finder)
            before = set(sys.modules)
            try:
                sys.settrace(trace.tracer)
                warm.module = importlib.import_module(case["entry"]["module"])
            finally:
                sys.settrace(None)
                warm.added = [m for m in sys.modules if m not in before]
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
    except KeyboardInterrupt:
        raise
    except BaseException as e:  # the import's own outcome: each case raises it where a cold case would
        sys.settrace(None)
        warm.exc = e
    os.register_at_fork = register
    warm.lines, warm.events, warm.seen_exc, warm.keep_alive = trace.lines, trace.events, trace.seen_exc, trace.keep_alive
    warm.ms = round((time.perf_counter() - t0) * 1000, 3)


def zygote_main(sock, cases, index):
    """The zygote's process: imports case `index`'s modules under the guard, answers `ready` (or why it
    cannot be used), then forks one process per `run <i>` (with the answer pipe passed along), says its
    pid, and when it ended, its wait status. Never returns."""
    import array
    import socket
    import _posixsubprocess
    import subprocess

    if ANSWERS[0] is not None:
        os.close(ANSWERS[0])
        ANSWERS[0] = None
    case = cases[index]
    fork, waitpid = os.fork, os.waitpid  # bound before the suite's modules load (they could replace them)
    warm = Warm()
    import posix

    warm.patched = [(m, n, getattr(m, n)) for m, n in ((_posixsubprocess, "fork_exec"), (subprocess, "_fork_exec")) if hasattr(m, n)]
    # the folder-descriptor calls the guard wraps: a case's own guard wraps the originals again
    warm.patched += [(m, n, getattr(m, n)) for n in [*_DIR_FD_CALLS, "listdir", "scandir"] for m in (os, posix) if hasattr(m, n)]
    switch = install_switchable_guard({"id": case.get("id"), "servers": []})
    if switch is None:
        sock.send(b"unusable: the guard's hook cannot be switched off")
        os._exit(0)
    warm.switch = switch
    warm.key_next = GUARD_KEYS[0]
    warm_import(case, warm)
    threads = threading.active_count()
    HARNESS_ACTS[:] = [("open", "/proc/self/status")]
    try:  # native threads too
        with open("/proc/self/status") as f:
            threads = max(threads, int(next(x for x in f if x.startswith("Threads:")).split()[1]))
    except (OSError, StopIteration, ValueError):
        pass
    del HARNESS_ACTS[:]
    # a refusal while the modules loaded ended the zygote (its guard has no channel): the cases run cold
    if warm.at_fork:
        sock.send(b"unusable: the modules register at-fork handlers (%s)" % warm.at_fork[0].encode()[-120:])
        os._exit(0)
    if NETWORK_USE:
        # a cold case's own endpoints (fixed ports too) listen while its modules load; the zygote's do not
        sock.send(b"unusable: loading the modules used the network (%s)" % NETWORK_USE[0].encode())
        os._exit(0)
    if threads > 1:
        sock.send(b"unusable: loading the modules started threads (a fork keeps only one)")
        os._exit(0)
    sock.send(b"ready")
    while True:
        try:
            msg, anc, _flags, _addr = sock.recvmsg(64, socket.CMSG_SPACE(array.array("i").itemsize))
        except OSError:
            os._exit(0)
        if not msg.startswith(b"run "):
            os._exit(0)
        fds = array.array("i")
        for level, kind, data in anc:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                fds.frombytes(data[:len(data) - len(data) % fds.itemsize])
        if len(fds) != 2:
            os._exit(1)
        HARNESS_ACTS[:] = [("os.fork", None)]  # the fork is the harness's own act; its at-fork handlers are not
        try:
            pid = fork()
        except OSError:
            os._exit(1)
        if pid == 0:  # the case's process: nothing here returns
            sock.close()
            case = cases[int(msg[4:])]
            # the case's stub endpoints on fixed ports: the harness binds them, as before a cold case's guard
            HARNESS_ACTS[:] = [("socket.bind", s.get("port")) for s in case.get("servers") or [] if s.get("port")]
            GUARD_FD[0] = fds[1]  # the case's refusal channel (its own guard takes it when installed)
            case_process(case, None, fds[0], warm)
        os.close(fds[0])
        os.close(fds[1])
        sock.send(b"pid %d" % pid)
        _, status = waitpid(pid, 0)
        sock.send(b"status %d" % status)


def parent_pid(pid):
    try:
        with open("/proc/%d/stat" % int(pid)) as f:
            return int(f.read().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return None


class Zygote:
    """The harness's side of one zygote (see above)."""

    def __init__(self, cases, index, key):
        import socket

        self.key, self.ok, self.why = key, False, None
        a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        pid = os.fork()
        if pid == 0:
            try:
                a.close()
                zygote_main(b, cases, index)
            finally:
                os._exit(1)
        b.close()
        self.sock, self.pid = a, pid
        # its set-up has a cold case's bound (the zygote stops its own import there) and some slack
        a.settimeout(cases[index].get("setupMs", SETUP_MS) / 1000.0 + GRACE_S + WARM_REPLY_S)
        msg = self._recv()
        self.ok = msg == b"ready"
        if not self.ok:
            self.stop((msg or b"unusable: it did not answer").decode("utf-8", "replace"))
        else:
            a.settimeout(WARM_REPLY_S)

    def _recv(self):
        try:
            return self.sock.recv(256)
        except OSError:
            return None

    def fork_case(self, index, wfd, gfd):
        """The pid of case `index`'s process, forked by the zygote with `wfd` as its answer pipe; None
        when the zygote is gone (nothing started). `gfd`: the case's refusal channel."""
        import array
        import socket

        if not self.ok:
            return None
        try:
            self.sock.sendmsg([b"run %d" % index], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [wfd, gfd]))])
        except OSError:
            self.stop("unusable: it stopped taking cases")
            return None
        msg = self._recv()
        try:
            return int(msg[4:]) if msg and msg.startswith(b"pid ") else self.stop("unusable: it did not start a case")
        except ValueError:
            return self.stop("unusable: it did not start a case")

    def reap(self, pid):
        """Kill the case's process (when it is still the zygote's child) and return its wait status,
        as the zygote saw it; None when the zygote did not say (it is then dropped)."""
        if self.ok and parent_pid(pid) == self.pid:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        msg = self._recv() if self.ok else None
        try:
            return int(msg[7:]) if msg and msg.startswith(b"status ") else self.stop("unusable: it did not report a case's end")
        except ValueError:
            return self.stop("unusable: it did not report a case's end")

    def stop(self, why=None):
        self.ok = False
        self.why = self.why or why
        if self.sock is not None:
            self.sock.close()
            self.sock = None
        if self.pid is not None:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except OSError:
                pass
            os.waitpid(self.pid, 0)
            self.pid = None
        return None


def main():
    trusted_setup()
    req = json.load(sys.stdin)
    GUARD_POLICY.update(req.get("guard") or {})
    # From here on, stdin is a pipe that never answers (like a terminal nobody types into): a tool
    # the verifier starts with inherited stdin waits, as it would on the real host.
    r, w = os.pipe()
    os.dup2(r, 0)
    main.keep = w
    # The answer channel is a private copy of stdout; fd 1 itself (inherited by every case process
    # and every tool it starts) goes to /dev/null, so case output cannot reach the channel.
    answers = ANSWERS[0] = os.dup(1)
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    os.close(null)
    sys.stdout = open(os.devnull, "w")
    cases = [c for c in req.get("cases", []) if isinstance(c, dict)]
    keys = [warm_key(c) if req.get("warm", True) else None for c in cases]
    zygote, dropped = None, {}
    for i, case in enumerate(cases):
        key = keys[i]
        if zygote is not None and (zygote.key != key or not zygote.ok):
            if not zygote.ok:
                dropped[zygote.key] = zygote.why
            zygote.stop()
            zygote = None
        # a zygote for two or more consecutive cases that share their set-up (harness.ts orders them)
        if zygote is None and key is not None and key not in dropped and i + 1 < len(cases) and keys[i + 1] == key:
            zygote = Zygote(cases, i, key)
            if not zygote.ok:
                dropped[key] = zygote.why
                zygote = None
        try:
            res = run_forked(case, zygote, i) if zygote is not None else None
            if zygote is not None and not zygote.ok:
                dropped[key] = zygote.why
            if res is None:
                res = run_forked(case)
                if key is not None and key in dropped:
                    res["warm"] = "ran cold: its zygote was %s" % dropped[key]
        except BaseException as e:
            res = {"id": case.get("id"), "status": "error", "detail": "%s: %s" % (type(e).__name__, e)}
        line = (json.dumps(res) + "\n").encode()
        view = memoryview(line)
        while view:
            n = os.write(answers, view)
            view = view[n:]
    if zygote is not None:
        zygote.stop()


if __name__ == "__main__":
    main()
