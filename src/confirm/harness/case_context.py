"""What a control case needs around the verifier's own code (imported by run_cases.py):

- import-time module doubles for third-party modules that the verifier's OWN files import and this
  Python lacks (`doubleModules`: top-level names written in the verifier's import statements). A
  double lets the module load; the moment the path under test touches one (attribute, call,
  iteration…) the case stops with `MissingModule` and is reported `unavailable`, naming the module,
  what was touched and where. Imports made by libraries are never doubled (only the names the
  verifier wrote are served, and only when the real import fails).
- functional doubles (`vaudit_doubles/<name>.py`: flask, requests) for such a module when vaudit
  ships one: a small, working re-implementation of the API surface verifier code uses, grounded in
  the real library's behaviour (each file says what it covers). The case then runs through it; the
  answer names it (`functionalDoubles`). Touching a name the double does not define stops the case
  as `unavailable`, naming it. The real module, when installed, is always used instead.
- file fixtures at absolute paths (`files`, `dirs`): written fresh for each case under the folders
  the host bound privately for this run (bubblewrap); the harness refuses them elsewhere.
- routes driven through their web app (`route`): the Flask object that registered the view, the
  rule and method from its `url_map`, the body in `test_request_context(json=...)`.
- verdict reading the way the caller does (`verdict`): a JSON body's key, a tuple's first item.
"""
import importlib
import importlib.abc
import importlib.util
import os
import shutil
import sys
import types

PHASE = {"call": False, "touched": None}


class MissingModule(BaseException):
    """The path under test touched a module double (BaseException: `except Exception` cannot eat it)."""

    def __init__(self, module, what, file=None, line=None):
        super().__init__("%s is not installed in this Python; the path under test uses %s" % (module, what))
        self.module, self.what, self.file, self.line = module, what, file, line


HARNESS = os.path.dirname(os.path.abspath(__file__))


def _caller():
    """The verifier's frame that touched a double; (None, None) when the harness itself called it
    (the function under test is itself a double, e.g. a view a missing web framework registered)."""
    f = sys._getframe(2)
    while f is not None and f.f_code.co_filename == __file__:
        f = f.f_back
    if f is None or os.path.dirname(os.path.abspath(f.f_code.co_filename)) == HARNESS:
        return None, None
    return f.f_code.co_filename, f.f_lineno


def _missing(root, what):
    file, line = _caller()
    if file is None:
        what = "%s (the function under test is itself made by %s: its decorator comes from it)" % (what, root)
    e = MissingModule(root, what, file, line)
    PHASE["touched"] = PHASE["touched"] or e  # seen even if a bare `except:` eats it
    return e


def _touch(d, what):
    if PHASE["call"]:
        raise _missing(object.__getattribute__(d, "_root"), what)


class Missing:
    """A stand-in for any object of a missing module, usable while modules load."""

    def __init__(self, root, path):
        object.__setattr__(self, "_root", root)
        object.__setattr__(self, "_path", path)

    def _sub(self, name):
        return Missing(object.__getattribute__(self, "_root"), object.__getattribute__(self, "_path") + name)

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        _touch(self, object.__getattribute__(self, "_path") + "." + name)
        return self._sub("." + name)

    def __setattr__(self, name, value):
        _touch(self, object.__getattribute__(self, "_path") + "." + name)

    def __call__(self, *a, **kw):
        _touch(self, object.__getattribute__(self, "_path") + "()")
        return self._sub("()")

    def __getitem__(self, k):
        _touch(self, object.__getattribute__(self, "_path") + "[...]")
        return self._sub("[...]")

    def __iter__(self):
        _touch(self, "iteration over " + object.__getattribute__(self, "_path"))
        return iter(())

    def __bool__(self):
        _touch(self, "the truth value of " + object.__getattribute__(self, "_path"))
        return True

    def __or__(self, other):
        return self

    __ror__ = __or__

    def __instancecheck__(self, obj):
        _touch(self, "isinstance(…, %s)" % object.__getattribute__(self, "_path"))
        return False

    def __mro_entries__(self, bases):
        # `class C(missing.Base):` while modules load: a real, empty base class
        return (type(object.__getattribute__(self, "_path").rsplit(".", 1)[-1], (), {}),)

    def __repr__(self):
        return "<module double %s>" % object.__getattribute__(self, "_path")


class DoubleModule(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        root = self.__name__.split(".")[0]
        if PHASE["call"]:
            raise _missing(root, "%s.%s" % (self.__name__, name))
        return Missing(root, "%s.%s" % (self.__name__, name))


FUNCTIONAL = os.path.join(HARNESS, "vaudit_doubles")


def functional_double(root):
    """The file of vaudit's functional double of the top-level module `root`, if there is one."""
    p = os.path.join(FUNCTIONAL, root + ".py")
    return p if root.isidentifier() and os.path.isfile(p) else None


def missing_in_double(root, what):
    """What a functional double raises when the path under test uses something it does not provide."""
    return _missing(root, "%s, which vaudit's functional double of %s does not provide" % (what, root))


def double_attr(root, name):
    """Module `__getattr__` of a functional double: a name it does not define."""
    if name.startswith("__") and name.endswith("__"):
        raise AttributeError(name)
    if PHASE["call"]:
        raise missing_in_double(root, "%s.%s" % (root, name))
    return Missing(root, "%s.%s" % (root, name))


class DoubleFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Consulted after every real finder: serves only the named top-level modules (and their
    submodules) that no real finder could find: vaudit's functional double when it ships one,
    else an import-time double."""

    def __init__(self, names):
        self.names = set(names or [])
        self.served = []
        self.functional = []

    def find_spec(self, fullname, path=None, target=None):
        root = fullname.split(".")[0]
        if root not in self.names:
            return None
        fpath = functional_double(root)
        if PHASE["call"] and fpath is None:
            return None  # an import while the function runs: the real ModuleNotFoundError
        if root not in self.served:
            self.served.append(root)
        if fpath is not None:
            if root not in self.functional:
                self.functional.append(root)
            if fullname == root:
                return importlib.util.spec_from_file_location(fullname, fpath, submodule_search_locations=[])
            return importlib.util.spec_from_loader(fullname, self)  # a submodule the double defines
        return importlib.util.spec_from_loader(fullname, self, is_package=True)

    def create_module(self, spec):
        root, _, rest = spec.name.partition(".")
        if functional_double(root) is not None:
            parent = sys.modules.get(spec.name.rsplit(".", 1)[0])
            sub = (getattr(parent, "SUBMODULES", None) or {}).get(spec.name.rsplit(".", 1)[1]) if parent is not None else None
            if sub is None:
                raise ModuleNotFoundError("No module named %r (vaudit's functional double of %s does not provide it)" % (spec.name, root), name=spec.name)
            return sub
        m = DoubleModule(spec.name)
        m.__path__ = []
        m.__file__ = "<module double %s>" % spec.name
        return m

    def exec_module(self, module):
        return None


def case_modules(added, finder, doubles):
    """The modules a case loaded that must not outlive it: the verifier's own (and their packages)
    and module doubles. Real libraries stay imported for the next case (importing them again under
    the tracer is what a case would otherwise spend its time on)."""
    own = set()
    if finder is not None:
        own = set(finder.modules) | set(finder.packages)
    served = set(doubles.served) if doubles is not None else set()
    return [m for m in added if m in own or m.split(".")[0] in served or m.split(".")[0] in own]


def install_doubles(names):
    if not names:
        return None
    # The real modules load first, untraced (a library's import under the line tracer costs seconds;
    # the verifier's own import statements then find them loaded). Only those that fail are doubled.
    absent = []
    for n in names:
        if n in sys.modules:
            continue
        try:
            importlib.import_module(n)
        except ImportError:
            absent.append(n)
        except Exception:  # a library that fails while loading is not doubled: the verifier's import meets the same failure
            pass
    f = DoubleFinder(absent)
    f.written = set(names)
    sys.meta_path.append(f)
    return f


def remove_doubles(f):
    if f is not None and f in sys.meta_path:
        sys.meta_path.remove(f)


# ---------------------------------------------------------------- absolute-path file fixtures
def fixture_roots():
    """Folders the host bound privately for this run (bubblewrap), from the environment."""
    return [r for r in os.environ.get("VAUDIT_FIXTURE_ROOTS", "").split(":") if r]


def write_fixtures(case, cell):
    files = case.get("files") or {}
    dirs = case.get("dirs") or []
    if not files and not dirs:
        return
    roots = fixture_roots()
    for p in list(files) + dirs:
        if not os.path.isabs(p):  # relative: in the run's own cell (the case's working folder)
            if ".." in p.split("/"):
                raise RuntimeError("fixture %s leaves the cell" % p)
            continue
        if not any(p == r or p.startswith(r.rstrip("/") + "/") for r in roots):
            raise RuntimeError("fixture %s lies outside the folders bound for this run" % p)
    files = {(p if os.path.isabs(p) else os.path.join(cell, p)): v for p, v in files.items()}
    dirs = [d if os.path.isabs(d) else os.path.join(cell, d) for d in dirs]
    for r in roots:  # every case starts from empty folders
        for name in os.listdir(r):
            full = os.path.join(r, name)
            if os.path.isdir(full) and not os.path.islink(full):
                shutil.rmtree(full, ignore_errors=True)
            else:
                os.unlink(full)
    for d in dirs:
        os.makedirs(d, exist_ok=True)
    for p, spec in files.items():
        os.makedirs(os.path.dirname(p), exist_ok=True)
        content = spec["content"] if isinstance(spec, dict) else spec
        with open(p, "w", encoding="utf-8") as fh:
            fh.write(content.replace("{vaudit-cell}", cell))
        if isinstance(spec, dict) and spec.get("mode"):
            os.chmod(p, int(spec["mode"]))


# ---------------------------------------------------------------- routes through their app
def _is_app(v):
    if isinstance(v, (Missing, types.ModuleType)):
        return False
    try:  # context-bound proxies (flask.request) raise on any attribute outside a request
        return all(hasattr(v, a) for a in ("url_map", "test_request_context", "view_functions"))
    except RuntimeError:  # "Working outside of request context"
        return False


def find_route(module, fn, want):
    """(app, rule, method) for the view `fn` registered in a web app of `module`, or an error text."""
    apps = [v for v in list(vars(module).values()) if _is_app(v)]
    if not apps:
        return None, "no Flask app object in the module registers the view"
    for app in apps:
        for rule in app.url_map.iter_rules():
            view = app.view_functions.get(rule.endpoint)
            if view is fn or getattr(view, "__wrapped__", None) is fn:
                methods = [m for m in sorted(rule.methods or []) if m not in ("HEAD", "OPTIONS")]
                method = want.get("method") if want.get("method") in methods else (methods[0] if methods else "GET")
                return (app, rule, method), None
    return None, "the view is not registered in the app's url_map"


def call_route(found, fn, want, call):
    app, rule, method = found
    body = want.get("json")
    kw = {"method": method}
    if method in ("GET", "HEAD", "DELETE"):
        kw["query_string"] = body or {}
    else:
        kw["json"] = body if body is not None else {}
    with app.test_request_context(rule.rule, **kw):
        return call()


# ---------------------------------------------------------------- verdict as the caller reads it
def read_verdict(value, how):
    """The verdict the caller takes from a returned value: `key:<k>` (a JSON body's key, as in
    `response.json()["pass"]`), `first` (a `(bool, msg)` tuple's first item), else the value."""
    if not how:
        return value
    if how.startswith("key:"):
        k = how[4:]
        body = value
        if hasattr(value, "get_json"):
            body = value.get_json(silent=True)
        if isinstance(body, dict) and k in body:
            return body[k]
        return value
    if how == "first" and isinstance(value, (tuple, list)) and value:
        return value[0]
    return value
