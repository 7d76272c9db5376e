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
            if spec.get("stall"):
                held.append(conn)
                continue
            try:
                conn.settimeout(1)
                conn.recv(65536)
                body = spec.get("body", "").encode()
                status = int(spec.get("status", 200))
                head = "HTTP/1.1 %d X\r\nContent-Type: %s\r\nContent-Length: %d\r\nConnection: close\r\n\r\n" % (
                    status, spec.get("contentType", "text/plain"), len(body))
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


# ---------------------------------------------------------------- defence in depth (issue 17)
# Each case runs in a forked child of this harness: untrusted code (the suite's verifier modules,
# its task lambdas) never shares a process with the answer channel, cannot change how later cases
# run, and can only shape its own case's answer. Before that code runs, the child installs an audit
# hook (PEP 578) that refuses file writes outside the cell, reads of the user's home folders and of
# other processes under /proc, network other than the case's own 127.0.0.1 stub endpoints, starting
# processes other than the case's stub tools, signals to other processes, ctypes, and raising
# resource limits. This is a second layer behind the host's isolation (bubblewrap), NOT a sandbox:
# an audit hook sees only what CPython audits, and native code can go around it.

ANSWERS = [None]  # the answer channel's fd (the parent's only; closed in every case process)
BEFORE_UNTRUSTED = None  # set in a case child: called by run_case once its trusted set-up is done
GUARD_REFUSALS = []  # what the guard refused in this case's process (the case is then a `sandbox` non-result)
GUARD_POLICY = {}  # from the request: {"denyRead": [folder, ...]}
LOOPBACK = {"127.0.0.1", "localhost", "::1", "0.0.0.0", "ip6-localhost"}
_SHELL_META = set(";&|`$()<>\n\\*?[]{}~!#'\"")
_SENSITIVE_PROC = {"environ", "mem", "fd", "fdinfo", "root", "cwd", "cmdline", "exe", "map_files", "task", "maps", "smaps", "pagemap", "syscall", "auxv"}


class GuardRefused(PermissionError):
    """An operation the control-case guard refuses (a PermissionError: code that handles OSError sees one)."""


def install_guard(case):
    cell = os.path.realpath(CELL)
    # the case's own folders: the cell, and the fixture folders bound privately for this run (bwrap)
    private = [cell] + [os.path.realpath(r) for r in case_context.fixture_roots()]
    allow_read = [os.path.realpath(p) for p in {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix} if p]
    allow_read += [os.path.realpath(p) for p in sys.path if p and os.path.isabs(p)]
    deny_read = [os.path.realpath(p) for p in GUARD_POLICY.get("denyRead") or [] if isinstance(p, str) and os.path.isabs(p) and p != "/"]
    ports = set()
    for s in case.get("servers") or []:
        try:
            ports.add(int(s.get("port")))
        except (TypeError, ValueError):
            pass
    stub_dir = None
    stubs = set()
    first = ((case.get("env") or {}).get("PATH") or "").replace("{cell}", CELL).split(":")[0]
    if first and os.path.realpath(first).startswith(cell + os.sep) and os.path.isdir(first):
        stub_dir = os.path.realpath(first)
        stubs = set(os.listdir(stub_dir))
    me = os.getpid()
    token = [0]
    busy = [False]

    import _posixsubprocess
    import subprocess

    real_fork_exec = _posixsubprocess.fork_exec

    def fork_exec(*a, **kw):
        # `subprocess.Popen` audits before it forks; this call does not audit by itself.
        sys.audit("vaudit.fork_exec", a[1] if len(a) > 1 else None)
        return real_fork_exec(*a, **kw)

    _posixsubprocess.fork_exec = fork_exec
    if hasattr(subprocess, "_fork_exec"):
        subprocess._fork_exec = fork_exec

    def refuse(what):
        GUARD_REFUSALS.append(what)
        raise GuardRefused(1, "vaudit control-case guard: %s is not allowed in a control case" % what)

    def path_of(p):
        if isinstance(p, int):
            return None
        try:
            p = os.fsdecode(os.fspath(p))
        except TypeError:
            return None
        return os.path.realpath(os.path.join(CELL, p))

    def within(p, root):
        return p == root or p.startswith(root.rstrip(os.sep) + os.sep)

    def check_write(p, what):
        q = path_of(p)
        if q is None or q == "/dev/null" or any(within(q, d) for d in private):
            return
        refuse("%s outside the case folder (%s)" % (what, q))

    def check_read(p, what):
        q = path_of(p)
        if q is None or any(within(q, d) for d in private):
            return
        if q.startswith("/proc/"):
            parts = q.split("/")
            if len(parts) > 2 and parts[2].isdigit() and int(parts[2]) != me:
                refuse("%s of another process (%s)" % (what, q))
            if len(parts) > 3 and parts[3] in _SENSITIVE_PROC:
                refuse("%s of %s" % (what, q))
        if any(within(q, a) for a in allow_read):
            return
        for d in deny_read:
            if within(q, d):
                refuse("%s in the user's home folder (%s)" % (what, q))

    def parent_of(pid):
        try:
            with open("/proc/%d/stat" % int(pid)) as f:
                return int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            return None

    def check_addr(addr, what):
        host = addr[0] if isinstance(addr, tuple) and addr else addr
        port = addr[1] if isinstance(addr, tuple) and len(addr) > 1 else None
        if isinstance(host, bytes):
            host = host.decode("latin-1")
        if isinstance(host, str) and host in LOOPBACK and (port in ports or port in PORTS):
            return  # the case's own endpoints: fixed ports from the spec, and ports allocated for it
        if isinstance(host, str) and host in LOOPBACK:
            # as under bubblewrap's empty network: nothing of this case listens there
            raise ConnectionRefusedError(111, "Connection refused (vaudit control-case guard: no endpoint of this case on port %s)" % (port,))
        refuse("%s to %r (only the case's own 127.0.0.1 endpoints %s)" % (what, addr, sorted(ports)))

    def check_popen(executable, args, env):
        if isinstance(args, (str, bytes)):
            args = [args]
        args = [os.fsdecode(a) if isinstance(a, (bytes, os.PathLike)) else str(a) for a in (args or [])]
        prog = os.fsdecode(executable) if executable is not None else (args[0] if args else "")
        if len(args) >= 3 and args[1] == "-c" and os.path.basename(prog) in ("sh", "bash", "dash"):
            cmd = args[2]
            if any(ch in _SHELL_META for ch in cmd):
                refuse("a shell command with shell syntax (%r)" % cmd[:80])
            words = cmd.split()
            prog = words[0] if words else ""
        name = os.path.basename(prog)
        if stub_dir is None or name not in stubs:
            refuse("starting the process %r (only the case's stub tools)" % prog[:80])
        if "/" in prog and not within(os.path.realpath(prog), stub_dir):
            refuse("starting %r from outside the case's stub folder" % prog[:80])
        if env is not None:
            path = env.get("PATH") if isinstance(env, dict) else None
            if isinstance(path, bytes):
                path = path.decode("latin-1")
            if not path or os.path.realpath(path.split(":")[0]) != stub_dir:
                refuse("starting a stub tool with another PATH")
        token[0] += 1

    def check(event, args):
        if event == "open":
            path, mode, flags = (list(args) + [None, None, None])[:3]
            writing = (isinstance(mode, str) and any(c in mode for c in "wax+")) or (
                isinstance(flags, int) and flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND))
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
                if isinstance(p, (str, bytes, os.PathLike)):
                    check_write(p, event)
        elif event in ("socket.connect", "socket.connect_ex", "socket.sendto", "socket.sendmsg"):
            check_addr(args[1] if len(args) > 1 else None, "a network connection")
        elif event == "socket.bind":
            # Binding an ephemeral loopback port is how libraries probe the stack (urllib3 binds
            # ("::1", 0) at import to learn whether IPv6 works); a fixed or outside address is refused.
            addr = args[1] if len(args) > 1 else None
            host = addr[0] if isinstance(addr, tuple) and addr else None
            port = addr[1] if isinstance(addr, tuple) and len(addr) > 1 else None
            if isinstance(host, bytes):
                host = host.decode("latin-1")
            if not (isinstance(host, str) and host in ("127.0.0.1", "::1", "localhost") and port == 0):
                refuse("listening on a socket")
        elif event in ("socket.getaddrinfo", "socket.gethostbyname", "socket.gethostbyname_ex", "socket.gethostbyaddr", "socket.getnameinfo"):
            host = args[0] if args else None
            if isinstance(host, tuple):
                host = host[0]
            if isinstance(host, bytes):
                host = host.decode("latin-1")
            if host not in LOOPBACK and host is not None:
                refuse("a name lookup of %r" % (host,))
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
            if not args or not (args[0] == me or parent_of(args[0]) == me):
                refuse("signalling another process")
        elif event == "os.killpg":
            refuse("signalling a process group")
        elif event.startswith("ctypes.") or event in ("resource.setrlimit", "resource.prlimit", "sys.remote_exec"):
            refuse(event)
        elif event == "import" and args and args[0] in ("_posixsubprocess", "_ctypes", "ctypes", "_xxsubinterpreters"):
            refuse("importing %s" % args[0])

    def hook(event, args):
        if busy[0]:
            return
        busy[0] = True
        try:
            check(event, args)
        finally:
            busy[0] = False

    sys.addaudithook(hook)


# ---------------------------------------------------------------- one case, in its own process
ANSWER_LIMIT = 16 * 1024 * 1024
GRACE_S = 1.0
SETUP_MS = 10000  # the bound on a case's set-up (harness.ts keeps the same default)
STATUSES = {"returned", "raised", "deadline", "unavailable", "nowitness", "error", "sandbox"}


def run_forked(case):
    """Run one case in a forked child (guard installed before untrusted code) and return its
    answer. The parent enforces the case's bound by killing the child and keeps the case id."""
    import select

    cid = case.get("id")
    rfd, wfd = os.pipe()
    pid = os.fork()
    if pid == 0:  # the case's own process: nothing here returns
        code = 0
        try:
            os.close(rfd)
            if ANSWERS[0] is not None:
                os.close(ANSWERS[0])
            global BEFORE_UNTRUSTED
            BEFORE_UNTRUSTED = install_guard
            res = run_case(case)
            if GUARD_REFUSALS:
                # The code tried what a control case may not do: whatever it answered after that
                # is not evidence about the verifier as it would run on its own machine.
                res["status"] = "sandbox"
                res["detail"] = "the control-case guard refused %s%s" % (
                    GUARD_REFUSALS[0], "" if len(GUARD_REFUSALS) == 1 else " (and %d more)" % (len(GUARD_REFUSALS) - 1))
                res["guard"] = GUARD_REFUSALS[:20]
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
    os.close(wfd)
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
    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:
        pass
    _, status = os.waitpid(pid, 0)
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
        sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
        return {"id": cid, "status": "crash", "events": [], "lines": {},
                "detail": "the case's process died without an answer (%s)" % ("signal %d" % sig if sig else "exit %d" % os.WEXITSTATUS(status))}
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


def run_case(case):
    cid = case.get("id")
    op = case.get("op", "call")
    fn = owner = module = None  # bound on every path: only "call"/"lambda" cases set them
    out = {"id": cid, "status": "error", "events": [], "lines": {}}
    t0 = time.perf_counter()
    t_call = [None]  # when the case's clock started (the call); set-up before it is timed apart
    bound = case.get("timeoutMs", 2000) / 1000.0
    # Set-up (fixtures, module doubles, importing the verifier's modules and the libraries they import)
    # has its own bound and does not count against the case's: importing Flask can take seconds.
    deadline = [t0 + case.get("setupMs", SETUP_MS) / 1000.0]
    traced = set(case.get("traceFiles") or [m["filename"] for m in case.get("modules", [])])
    if op == "lambda":
        traced.add("<lambda>")
    lines = {}
    events = []
    seen_exc = set()
    keep_alive = []  # exception objects stay referenced, so their ids are not reused within the case

    def local(frame, event, arg):
        if event == "line":
            lines.setdefault(frame.f_code.co_filename, set()).add(frame.f_lineno)
            if time.perf_counter() > deadline[0]:
                raise CaseDeadline()
        elif event == "exception":
            exc = arg[1]
            if id(exc) not in seen_exc and not isinstance(exc, CaseDeadline):
                seen_exc.add(id(exc))
                keep_alive.append(exc)
                events.append({"type": type(exc).__name__, "message": str(exc)[:300],
                               "file": frame.f_code.co_filename, "line": frame.f_lineno, "func": frame.f_code.co_name})
        return local

    def tracer(frame, event, arg):
        if frame.f_code.co_filename in traced:
            return local(frame, event, arg)
        return None

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


def main():
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
    for case in req.get("cases", []):
        if not isinstance(case, dict):
            continue
        try:
            res = run_forked(case)
        except BaseException as e:
            res = {"id": case.get("id"), "status": "error", "detail": "%s: %s" % (type(e).__name__, e)}
        line = (json.dumps(res) + "\n").encode()
        view = memoryview(line)
        while view:
            n = os.write(answers, view)
            view = view[n:]


if __name__ == "__main__":
    main()
