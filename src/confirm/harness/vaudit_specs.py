"""What a control case's request becomes in the harness (run_cases.py): decoded values and state
doubles, the verifier's module sources as importable modules, and stub servers for its endpoints.
"""
import builtins
import importlib
import importlib.abc
import importlib.util
import inspect
import json
import os
import sys
import threading
import types


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
