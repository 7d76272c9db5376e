"""A functional double of the part of Flask that verifier code uses.

Served by the control-case harness ONLY when this Python lacks Flask and the verifier's own files
import it (case_context.DoubleFinder); whenever Flask is installed the real one runs. Semantics
follow Flask 3.1 / Werkzeug 3.1 as read from their source:
- `Flask(import_name)`: `route(rule, methods=[...], endpoint=)`, `get/post/put/delete/patch`,
  `add_url_rule` (methods upper-cased, default `("GET",)`, a `str` is a TypeError, OPTIONS added
  automatically, HEAD with GET; an endpoint bound to another function is an AssertionError),
  `url_map.iter_rules()`, `view_functions`, `config`, `logger`, `debug`, `errorhandler` and the
  request hooks (registered, not dispatched: control cases call one view), `app_context()`,
  `test_request_context(path, method=, query_string=, json=, data=, headers=, content_type=)`.
- `request` (outside a request context: RuntimeError "Working outside of request context."):
  `method`, `path`, `args`, `form` (url-encoded bodies), `values`, `headers`, `data`,
  `get_data()`, `is_json`, `json` / `get_json(force=, silent=)` — a body that is not declared JSON
  raises 415 UnsupportedMediaType, a malformed one 400 BadRequest; `silent=True` gives None.
- `jsonify(...)` (needs an application context) → a `Response` with `application/json`, keys
  sorted, compact separators, a trailing newline; `Response.get_json()` / `.json` / `.status_code`.
- `abort(code, description)` raises the HTTPException of that code; `send_file(path, mimetype=,
  as_attachment=)` reads the file (relative paths from the app's root path).
Anything else (templates, blueprints, sessions, the dev server) is not provided: touching it stops
the case as `verifierUnavailable`, naming what was used.
"""
import json as _json
import logging as _logging
import mimetypes as _mimetypes
import os as _os
import sys as _sys
import types as _types
from http import HTTPStatus as _HTTPStatus
from urllib.parse import parse_qsl as _parse_qsl, urlencode as _urlencode, urlsplit as _urlsplit

import case_context as _cc

VAUDIT_DOUBLE = "flask"
_REASONS = {s.value: s.phrase for s in _HTTPStatus}


# ---------------------------------------------------------------- HTTP exceptions (werkzeug.exceptions)
class HTTPException(Exception):
    code = None
    description = None

    def __init__(self, description=None, response=None):
        super().__init__()
        if description is not None:
            self.description = description
        self.response = response

    @property
    def name(self):
        return _REASONS.get(self.code, "Unknown Error")

    def __str__(self):
        return "%s %s: %s" % (self.code if self.code is not None else "???", self.name, self.description)

    def __repr__(self):
        return "<%s '%s: %s'>" % (type(self).__name__, self.code if self.code is not None else "???", self.name)


def _http_exc(name, code, description):
    return type(name, (HTTPException,), {"code": code, "description": description})


BadRequest = _http_exc("BadRequest", 400, "The browser (or proxy) sent a request that this server could not understand.")
Unauthorized = _http_exc("Unauthorized", 401, "The server could not verify that you are authorized to access the URL requested.")
Forbidden = _http_exc("Forbidden", 403, "You don't have the permission to access the requested resource.")
NotFound = _http_exc("NotFound", 404, "The requested URL was not found on the server. If you entered the URL manually please check your spelling and try again.")
MethodNotAllowed = _http_exc("MethodNotAllowed", 405, "The method is not allowed for the requested URL.")
Conflict = _http_exc("Conflict", 409, "A conflict happened while processing the request.")
UnsupportedMediaType = _http_exc("UnsupportedMediaType", 415, "The server does not support the media type transmitted in the request.")
InternalServerError = _http_exc("InternalServerError", 500, "The server encountered an internal error and was unable to complete your request. Either the server is overloaded or there is an error in the application.")
NotImplementedHTTP = _http_exc("NotImplemented", 501, "The server does not support the action requested by the browser.")
ServiceUnavailable = _http_exc("ServiceUnavailable", 503, "The server is temporarily unable to service your request due to maintenance downtime or capacity problems. Please try again later.")


class BadRequestKeyError(BadRequest, KeyError):
    def __init__(self, arg=None, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.args = () if arg is None else (arg,)


_BY_CODE = {c.code: c for c in (BadRequest, Unauthorized, Forbidden, NotFound, MethodNotAllowed, Conflict, UnsupportedMediaType,
                                InternalServerError, NotImplementedHTTP, ServiceUnavailable)}


def abort(code, *args, **kwargs):
    if not isinstance(code, int):
        raise HTTPException(response=code)
    if code not in _BY_CODE:
        if 400 <= code < 600:  # werkzeug knows every standard error code; a plain one with its name
            raise _http_exc(_REASONS.get(code, "HTTPException").replace(" ", ""), code, None)(*args, **kwargs)
        raise LookupError("no exception for %r" % code)
    raise _BY_CODE[code](*args, **kwargs)


# ---------------------------------------------------------------- data structures
class MultiDict(dict):
    """First value per key through `[]`/`get`; all values through `getlist`."""

    def __init__(self, pairs=()):
        super().__init__()
        self._lists = {}
        for k, v in pairs:
            self._lists.setdefault(k, []).append(v)
            if k not in self:
                dict.__setitem__(self, k, v)

    def get(self, key, default=None, type=None):
        try:
            rv = self[key]
        except KeyError:
            return default
        if type is not None:
            try:
                rv = type(rv)
            except (ValueError, TypeError):
                rv = default
        return rv

    def __getitem__(self, key):
        if key in self:
            return dict.__getitem__(self, key)
        raise BadRequestKeyError(key)  # werkzeug: a KeyError that is also a 400

    def getlist(self, key, type=None):
        vs = list(self._lists.get(key, []))
        if type is None:
            return vs
        out = []
        for v in vs:
            try:
                out.append(type(v))
            except (ValueError, TypeError):
                pass
        return out

    def to_dict(self, flat=True):
        return dict(self) if flat else {k: list(v) for k, v in self._lists.items()}


class Headers(dict):
    def __init__(self, items=()):
        super().__init__()
        for k, v in (items.items() if isinstance(items, dict) else items):
            self[k] = v

    def __setitem__(self, k, v):
        dict.__setitem__(self, k.title(), str(v))

    def __getitem__(self, k):
        return dict.__getitem__(self, k.title())

    def __contains__(self, k):
        return isinstance(k, str) and dict.__contains__(self, k.title())

    def get(self, k, default=None, type=None):
        if k not in self:
            return default
        v = self[k]
        if type is not None:
            try:
                return type(v)
            except (ValueError, TypeError):
                return default
        return v


def _mimetype(content_type):
    return (content_type or "").split(";")[0].strip().lower()


def _is_json_mimetype(mt):
    return mt == "application/json" or (mt.startswith("application/") and mt.endswith("+json"))


# ---------------------------------------------------------------- request / response
class Request:
    def __init__(self, app, path, method, query, body, content_type, headers):
        self.app = app
        self.method = method.upper()
        self.path = path
        self.query_string = query.encode("latin-1")
        self.full_path = "%s?%s" % (path, query)
        self.url = "http://localhost%s%s" % (path, "?" + query if query else "")
        self.base_url = "http://localhost" + path
        self.host = "localhost"
        self.host_url = "http://localhost/"
        self.remote_addr = "127.0.0.1"
        self.scheme = "http"
        self.args = MultiDict(_parse_qsl(query, keep_blank_values=True))
        self.headers = Headers(headers or {})
        if content_type:
            self.headers["Content-Type"] = content_type
        self.content_type = content_type
        self.mimetype = _mimetype(content_type)
        self._data = body or b""
        self.content_length = len(self._data)
        self.form = MultiDict(_parse_qsl(self._data.decode("utf-8", "replace"), keep_blank_values=True)) if self.mimetype == "application/x-www-form-urlencoded" else MultiDict()
        self.files = MultiDict()
        self.cookies = MultiDict()
        self._cached = {}
        self.view_args = {}
        self.endpoint = None
        self.url_rule = None

    @property
    def values(self):
        return MultiDict(list(self.args.items()) + ([] if self.method == "GET" else list(self.form.items())))

    @property
    def is_json(self):
        return _is_json_mimetype(self.mimetype)

    @property
    def data(self):
        return self.get_data()

    def get_data(self, cache=True, as_text=False, parse_form_data=False):
        return self._data.decode("utf-8", "replace") if as_text else self._data

    @property
    def json(self):
        return self.get_json()

    def get_json(self, force=False, silent=False, cache=True):
        if cache and silent in self._cached:
            return self._cached[silent]
        if not (force or self.is_json):
            if not silent:
                raise UnsupportedMediaType("Did not attempt to load JSON data because the request Content-Type was not 'application/json'.")
            return None
        try:
            rv = _json.loads(self._data)
        except ValueError:
            if not silent:
                # Flask turns the decoding failure into a plain 400 (outside debug mode)
                raise BadRequest()
            rv = None
            if cache:
                self._cached[True] = rv
        else:
            if cache:
                self._cached[False] = self._cached[True] = rv
        return rv


class Response:
    default_mimetype = "text/html"

    def __init__(self, response=None, status=None, headers=None, mimetype=None, content_type=None):
        if isinstance(response, (bytes, bytearray)):
            self._data = bytes(response)
        elif response is None:
            self._data = b""
        elif isinstance(response, str):
            self._data = response.encode("utf-8")
        else:
            self._data = b"".join(x.encode("utf-8") if isinstance(x, str) else bytes(x) for x in response)
        self.headers = Headers(headers or {})
        if content_type is None:
            mt = mimetype or self.default_mimetype
            content_type = mt + ("; charset=utf-8" if mt.startswith("text/") else "")
        self.headers["Content-Type"] = content_type
        self.status_code = 200
        if status is not None:
            if isinstance(status, int):
                self.status_code = status
            else:
                self.status_code = int(str(status).split()[0])

    @property
    def status(self):
        return "%d %s" % (self.status_code, _REASONS.get(self.status_code, "UNKNOWN").upper())

    @property
    def mimetype(self):
        return _mimetype(self.headers.get("Content-Type"))

    @property
    def content_type(self):
        return self.headers.get("Content-Type")

    @property
    def is_json(self):
        return _is_json_mimetype(self.mimetype)

    def get_data(self, as_text=False):
        return self._data.decode("utf-8") if as_text else self._data

    @property
    def data(self):
        return self._data

    @property
    def json(self):
        return self.get_json()

    def get_json(self, force=False, silent=False):
        if not (force or self.is_json):
            return None
        try:
            return _json.loads(self._data)
        except ValueError:
            if not silent:
                raise
            return None

    def __repr__(self):
        return "<Response %d bytes [%s]>" % (len(self._data), self.status)


# ---------------------------------------------------------------- contexts
_APPS = []  # pushed application contexts: (app, g)
_REQUESTS = []  # pushed request contexts


class _Proxy:
    def __init__(self, get, what):
        object.__setattr__(self, "_get", get)
        object.__setattr__(self, "_what", what)

    def _obj(self):
        o = object.__getattribute__(self, "_get")()
        if o is None:
            raise RuntimeError(object.__getattribute__(self, "_what"))
        return o

    def __getattr__(self, name):
        return getattr(self._obj(), name)

    def __setattr__(self, name, value):
        setattr(self._obj(), name, value)

    def __bool__(self):
        try:
            return bool(self._obj())
        except RuntimeError:
            return False

    def __repr__(self):
        try:
            return repr(self._obj())
        except RuntimeError:
            return "<LocalProxy unbound>"


_OUTSIDE_REQUEST = ("Working outside of request context.\n\nThis typically means that you attempted to use functionality that needed\n"
                    "an active HTTP request. Consult the documentation on testing for\ninformation about how to avoid this problem.")
_OUTSIDE_APP = ("Working outside of application context.\n\nThis typically means that you attempted to use functionality that needed\n"
                "the current application. To solve this, set up an application context\nwith app.app_context(). See the documentation for more information.")
request = _Proxy(lambda: _REQUESTS[-1] if _REQUESTS else None, _OUTSIDE_REQUEST)
current_app = _Proxy(lambda: _APPS[-1][0] if _APPS else None, _OUTSIDE_APP)
g = _Proxy(lambda: _APPS[-1][1] if _APPS else None, _OUTSIDE_APP)


def has_request_context():
    return bool(_REQUESTS)


def has_app_context():
    return bool(_APPS)


class _AppContext:
    def __init__(self, app):
        self.app = app

    def __enter__(self):
        _APPS.append((self.app, _types.SimpleNamespace()))
        return self

    def __exit__(self, *exc):
        _APPS.pop()


class _RequestContext:
    def __init__(self, app, req):
        self.app, self.request = app, req

    def __enter__(self):
        _APPS.append((self.app, _types.SimpleNamespace()))
        _REQUESTS.append(self.request)
        return self

    def __exit__(self, *exc):
        _REQUESTS.pop()
        _APPS.pop()


# ---------------------------------------------------------------- routing
class Rule:
    def __init__(self, rule, endpoint=None, methods=None, **options):
        self.rule = rule
        self.endpoint = endpoint
        self.methods = None if methods is None else set(m.upper() for m in methods)
        if self.methods is not None and "GET" in self.methods:
            self.methods.add("HEAD")
        self.defaults = options.get("defaults")
        self.strict_slashes = options.get("strict_slashes", True)

    def __repr__(self):
        return "<Rule '%s' (%s) -> %s>" % (self.rule, ", ".join(sorted(self.methods or [])), self.endpoint)


class Map:
    def __init__(self):
        self._rules = []

    def add(self, rule):
        self._rules.append(rule)

    def iter_rules(self, endpoint=None):
        return iter([r for r in self._rules if endpoint is None or r.endpoint == endpoint])

    def __iter__(self):
        return self.iter_rules()


class Flask:
    response_class = Response
    request_class = Request

    def __init__(self, import_name, static_url_path=None, static_folder="static", static_host=None, host_matching=False,
                 subdomain_matching=False, template_folder="templates", instance_path=None, instance_relative_config=False, root_path=None):
        self.import_name = import_name
        mod = _sys.modules.get(import_name)
        if root_path is None:
            f = getattr(mod, "__file__", None)
            root_path = _os.path.dirname(_os.path.abspath(f)) if f else _os.getcwd()
        self.root_path = root_path
        self.config = {"DEBUG": False, "TESTING": False, "PROVIDE_AUTOMATIC_OPTIONS": True, "JSON_SORT_KEYS": True, "SECRET_KEY": None}
        self.url_map = Map()
        self.view_functions = {}
        self.error_handler_spec = {}
        self.before_request_funcs, self.after_request_funcs, self.teardown_request_funcs = [], [], []

    @property
    def name(self):
        if self.import_name == "__main__":
            fn = getattr(_sys.modules["__main__"], "__file__", None)
            return "__main__" if fn is None else _os.path.splitext(_os.path.basename(fn))[0]
        return self.import_name

    @property
    def logger(self):
        return _logging.getLogger(self.name)

    @property
    def debug(self):
        return bool(self.config.get("DEBUG"))

    @debug.setter
    def debug(self, v):
        self.config["DEBUG"] = v

    def add_url_rule(self, rule, endpoint=None, view_func=None, provide_automatic_options=None, **options):
        if endpoint is None:
            endpoint = view_func.__name__
        options["endpoint"] = endpoint
        methods = options.pop("methods", None)
        if methods is None:
            methods = getattr(view_func, "methods", None) or ("GET",)
        if isinstance(methods, str):
            raise TypeError('Allowed methods must be a list of strings, for example: @app.route(..., methods=["POST"])')
        methods = {m.upper() for m in methods}
        required = set(getattr(view_func, "required_methods", ()))
        if provide_automatic_options is None:
            provide_automatic_options = getattr(view_func, "provide_automatic_options", None)
        if provide_automatic_options is None:
            if "OPTIONS" not in methods and self.config["PROVIDE_AUTOMATIC_OPTIONS"]:
                required.add("OPTIONS")
        methods |= required
        self.url_map.add(Rule(rule, methods=methods, **options))
        if view_func is not None:
            old = self.view_functions.get(endpoint)
            if old is not None and old != view_func:
                raise AssertionError("View function mapping is overwriting an existing endpoint function: %s" % endpoint)
            self.view_functions[endpoint] = view_func

    def route(self, rule, **options):
        def decorator(f):
            endpoint = options.pop("endpoint", None)
            self.add_url_rule(rule, endpoint, f, **options)
            return f
        return decorator

    def _method_route(self, method, rule, options):
        if "methods" in options:
            raise TypeError("Use the 'route' decorator to use the 'methods' argument.")
        return self.route(rule, methods=[method], **options)

    def get(self, rule, **options):
        return self._method_route("GET", rule, options)

    def post(self, rule, **options):
        return self._method_route("POST", rule, options)

    def put(self, rule, **options):
        return self._method_route("PUT", rule, options)

    def delete(self, rule, **options):
        return self._method_route("DELETE", rule, options)

    def patch(self, rule, **options):
        return self._method_route("PATCH", rule, options)

    def errorhandler(self, code_or_exception):
        def decorator(f):
            self.error_handler_spec[code_or_exception] = f
            return f
        return decorator

    def before_request(self, f):
        self.before_request_funcs.append(f)
        return f

    def after_request(self, f):
        self.after_request_funcs.append(f)
        return f

    def teardown_request(self, f):
        self.teardown_request_funcs.append(f)
        return f

    teardown_appcontext = teardown_request

    def app_context(self):
        return _AppContext(self)

    def test_request_context(self, path="/", base_url=None, query_string=None, method="GET", headers=None, data=None,
                             json=None, content_type=None, mimetype=None, **kwargs):
        if kwargs:
            raise _cc.missing_in_double("flask", "Flask.test_request_context(%s=…)" % ", ".join(sorted(kwargs)))
        parts = _urlsplit(path)
        query = parts.query
        if query_string is not None and parts.query:
            raise ValueError("Query string is defined in the path and as an argument")
        if query_string:
            qs = query_string if isinstance(query_string, str) else (
                query_string.decode("latin-1") if isinstance(query_string, bytes) else _urlencode(query_string, doseq=True))
            query = qs
        if json is not None:
            if data is not None:
                raise TypeError("can't provide both json and data")
            data = _json.dumps(json)
            if content_type is None and mimetype is None:
                content_type = "application/json"
        if isinstance(data, dict):
            data = _urlencode(data, doseq=True)
            content_type = content_type or "application/x-www-form-urlencoded"
        if isinstance(data, str):
            data = data.encode("utf-8")
        if content_type is None and mimetype is not None:
            content_type = mimetype
        return _RequestContext(self, self.request_class(self, parts.path or "/", method, query, data, content_type, headers))

    def make_response(self, rv):
        return make_response(rv)

    def run(self, *args, **kwargs):
        raise _cc.missing_in_double("flask", "Flask.run (the development server)")


# ---------------------------------------------------------------- helpers
def _default(o):
    import dataclasses
    import datetime
    import decimal
    import uuid
    if isinstance(o, datetime.date):
        from email.utils import format_datetime
        if not isinstance(o, datetime.datetime):
            o = datetime.datetime.combine(o, datetime.time())
        if o.tzinfo is None:
            o = o.replace(tzinfo=datetime.timezone.utc)
        return format_datetime(o.astimezone(datetime.timezone.utc), usegmt=True)
    if isinstance(o, (decimal.Decimal, uuid.UUID)):
        return str(o)
    if dataclasses and dataclasses.is_dataclass(o) and not isinstance(o, type):
        return dataclasses.asdict(o)
    if hasattr(o, "__html__"):
        return str(o.__html__())
    raise TypeError("Object of type %s is not JSON serializable" % type(o).__name__)


def jsonify(*args, **kwargs):
    app = current_app._obj()  # outside an application context: RuntimeError, as in Flask
    if args and kwargs:
        raise TypeError("app.json.response() takes either args or kwargs, not both")
    obj = None if not args and not kwargs else (args[0] if len(args) == 1 else (list(args) if args else kwargs))
    if app.debug:
        text = _json.dumps(obj, default=_default, ensure_ascii=True, sort_keys=True, indent=2)
    else:
        text = _json.dumps(obj, default=_default, ensure_ascii=True, sort_keys=True, separators=(",", ":"))
    return app.response_class(text + "\n", mimetype="application/json")


def make_response(*args):
    if not args:
        return Response()
    rv = args[0] if len(args) == 1 else args
    status = headers = None
    if isinstance(rv, tuple):
        rv, rest = rv[0], rv[1:]
        if len(rest) == 2:
            status, headers = rest
        elif len(rest) == 1:
            status, headers = (rest[0], None) if isinstance(rest[0], (int, str)) else (None, rest[0])
    if isinstance(rv, Response):
        if status is not None:
            rv.status_code = status if isinstance(status, int) else int(str(status).split()[0])
        return rv
    if isinstance(rv, (dict, list)):
        r = jsonify(rv)
        if status is not None:
            r.status_code = status
        return r
    return Response(rv, status=status, headers=headers)


def send_file(path_or_file, mimetype=None, as_attachment=False, download_name=None, conditional=True, etag=True, last_modified=None, max_age=None):
    app = current_app._obj()
    if hasattr(path_or_file, "read"):
        data = path_or_file.read()
        name = download_name
        if mimetype is None and name is None:
            raise ValueError("Unable to detect the MIME type because a file name is not available. Either set 'download_name', pass a path instead of a file, or set 'mimetype'.")
    else:
        path = _os.fspath(path_or_file)
        if not _os.path.isabs(path):
            path = _os.path.join(app.root_path, path)
        with open(path, "rb") as f:  # a missing file: FileNotFoundError, as werkzeug's send_file raises
            data = f.read()
        name = download_name or _os.path.basename(path)
    if mimetype is None:
        mimetype = _mimetypes.guess_type(name)[0] or "application/octet-stream"
    headers = {"Content-Disposition": "%s; filename=%s" % ("attachment" if as_attachment else "inline", name)} if (as_attachment or download_name) else {}
    return Response(data, headers=headers, mimetype=mimetype)


wrappers = _types.ModuleType("flask.wrappers")
wrappers.Request, wrappers.Response = Request, Response
SUBMODULES = {"wrappers": wrappers}


def __getattr__(name):
    return _cc.double_attr("flask", name)
