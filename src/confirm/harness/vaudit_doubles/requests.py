"""A functional double of the part of `requests` that verifier code uses, over `http.client`.

Served by the control-case harness ONLY when this Python lacks `requests` and the verifier's own
files import it (case_context.DoubleFinder); whenever `requests` is installed the real one runs.
Semantics follow requests 2.32/2.34 as read from its source:
- `request(method, url, params=, data=, json=, headers=, auth=, timeout=, allow_redirects=, ...)`
  and `get/options/head/post/put/patch/delete`; `Session` with the same methods.
- `timeout=None` waits forever (as requests does); a number bounds the connection and each read;
  `(connect, read)` bounds the connection by `connect` and reads by `read`.
- Redirects are followed (at most 30, `TooManyRedirects` past that; `head` does not follow), a 303
  (and a 301/302 answering a POST) turning into a GET without a body, as requests does.
- An HTTP error status is a `Response`, not an exception; `raise_for_status()` raises `HTTPError`
  ("404 Client Error: Not Found for url: …"); `Response.json()` raises
  `requests.exceptions.JSONDecodeError` (also a `json.JSONDecodeError`).
- A refused or unreachable endpoint → `ConnectionError`; a connection that times out →
  `ConnectTimeout` (a `ConnectionError` and a `Timeout`); a read that times out → `ReadTimeout`;
  no scheme → `MissingSchema`; other schemes → `InvalidSchema`.
Not provided (touching them stops the case as `verifierUnavailable`, naming what was used):
multipart `files=`, anything not defined here (adapters, cookies jars, hooks…).
Differences that do not change a verdict: bodies are read eagerly (`stream=True` still yields the
same bytes), `Accept-Encoding: identity`, `verify`/`cert` are not consulted (control cases talk
plain HTTP to their own local endpoints).
"""
import base64 as _base64
import datetime as _datetime
import http.client as _http_client
import json as _json
import socket as _socket
import types as _types
import urllib.parse as _urlparse
from collections.abc import Mapping as _Mapping, MutableMapping as _MutableMapping

import case_context as _cc

VAUDIT_DOUBLE = "requests"


# ---------------------------------------------------------------- exceptions (requests.exceptions)
class RequestException(IOError):
    def __init__(self, *args, **kwargs):
        response = kwargs.pop("response", None)
        self.response = response
        self.request = kwargs.pop("request", None)
        if response is not None and not self.request and hasattr(response, "request"):
            self.request = response.request
        super().__init__(*args, **kwargs)


class InvalidJSONError(RequestException):
    pass


class JSONDecodeError(InvalidJSONError, _json.JSONDecodeError):
    def __init__(self, *args, **kwargs):
        _json.JSONDecodeError.__init__(self, *args)
        InvalidJSONError.__init__(self, *self.args, **kwargs)


class HTTPError(RequestException):
    pass


class ConnectionError(RequestException):  # noqa: A001 (the name requests uses)
    pass


class ProxyError(ConnectionError):
    pass


class SSLError(ConnectionError):
    pass


class Timeout(RequestException):
    pass


class ConnectTimeout(ConnectionError, Timeout):
    pass


class ReadTimeout(Timeout):
    pass


class URLRequired(RequestException):
    pass


class TooManyRedirects(RequestException):
    pass


class MissingSchema(RequestException, ValueError):
    pass


class InvalidSchema(RequestException, ValueError):
    pass


class InvalidURL(RequestException, ValueError):
    pass


class InvalidHeader(RequestException, ValueError):
    pass


class ChunkedEncodingError(RequestException):
    pass


class ContentDecodingError(RequestException):
    pass


class RetryError(RequestException):
    pass


exceptions = _types.ModuleType("requests.exceptions")
for _n, _v in list(globals().items()):
    if isinstance(_v, type) and issubclass(_v, BaseException) and _v.__module__ == __name__:
        setattr(exceptions, _n, _v)


# ---------------------------------------------------------------- structures
class CaseInsensitiveDict(_MutableMapping):
    def __init__(self, data=None, **kwargs):
        self._store = {}
        self.update(data or {}, **kwargs)

    def __setitem__(self, key, value):
        self._store[key.lower()] = (key, value)

    def __getitem__(self, key):
        return self._store[key.lower()][1]

    def __delitem__(self, key):
        del self._store[key.lower()]

    def __iter__(self):
        return (k for k, _ in self._store.values())

    def __len__(self):
        return len(self._store)

    def __eq__(self, other):
        if isinstance(other, _Mapping):
            other = CaseInsensitiveDict(other)
        else:
            return NotImplemented
        return {k: v for k, (_, v) in self._store.items()} == {k: v for k, (_, v) in other._store.items()}

    def copy(self):
        return CaseInsensitiveDict(self._store.values())

    def __repr__(self):
        return str(dict(self.items()))


_REASONS = dict((s.value, s.phrase) for s in __import__("http").HTTPStatus)


# ---------------------------------------------------------------- Response
class Response:
    def __init__(self):
        self.status_code = None
        self.headers = CaseInsensitiveDict()
        self.url = None
        self.encoding = None
        self.reason = None
        self.history = []
        self.cookies = {}
        self.elapsed = _datetime.timedelta(0)
        self.request = None
        self.raw = None
        self._content = b""

    def __repr__(self):
        return "<Response [%s]>" % self.status_code

    def __bool__(self):
        return self.ok

    def __enter__(self):
        return self

    def __exit__(self, *args):
        self.close()

    def __iter__(self):
        return self.iter_content(128)

    @property
    def ok(self):
        try:
            self.raise_for_status()
        except HTTPError:
            return False
        return True

    @property
    def is_redirect(self):
        return "location" in self.headers and self.status_code in (301, 302, 303, 307, 308)

    @property
    def content(self):
        return self._content

    @property
    def apparent_encoding(self):
        try:
            self._content.decode("utf-8")
            return "utf-8"
        except UnicodeDecodeError:
            return "ISO-8859-1"

    @property
    def text(self):
        if not self._content:
            return ""
        encoding = self.encoding or self.apparent_encoding
        try:
            return str(self._content, encoding, errors="replace")
        except (LookupError, TypeError):
            return str(self._content, errors="replace")

    def json(self, **kwargs):
        try:
            return _json.loads(self.text, **kwargs)
        except _json.JSONDecodeError as e:
            raise JSONDecodeError(e.msg, e.doc, e.pos)

    def iter_content(self, chunk_size=1, decode_unicode=False):
        data = self.text if decode_unicode else self._content
        step = chunk_size or len(data) or 1
        for i in range(0, len(data), step):
            yield data[i:i + step]

    def iter_lines(self, chunk_size=512, decode_unicode=False, delimiter=None):
        data = self.text if decode_unicode else self._content
        yield from (data.split(delimiter) if delimiter else data.splitlines())

    def raise_for_status(self):
        reason = self.reason
        if isinstance(reason, bytes):
            reason = reason.decode("iso-8859-1")
        msg = ""
        if 400 <= self.status_code < 500:
            msg = "%s Client Error: %s for url: %s" % (self.status_code, reason, self.url)
        elif 500 <= self.status_code < 600:
            msg = "%s Server Error: %s for url: %s" % (self.status_code, reason, self.url)
        if msg:
            raise HTTPError(msg, response=self)

    def close(self):
        return None


class PreparedRequest:
    def __init__(self, method, url, headers, body):
        self.method, self.url, self.headers, self.body = method, url, headers, body

    def __repr__(self):
        return "<PreparedRequest [%s]>" % self.method


def _encoding_from_headers(headers):
    ctype = headers.get("content-type")
    if not ctype:
        return None
    parts = [p.strip() for p in ctype.split(";")]
    for p in parts[1:]:
        if p.lower().startswith("charset="):
            return p.split("=", 1)[1].strip("'\"")
    if "text" in parts[0]:
        return "ISO-8859-1"
    if "application/json" in parts[0]:
        return "utf-8"
    return None


# ---------------------------------------------------------------- sending
def _unavailable(what):
    raise _cc.missing_in_double("requests", what)


def _encode_params(data):
    if isinstance(data, (str, bytes)):
        return data
    if hasattr(data, "read"):
        return data
    if hasattr(data, "__iter__"):
        items = data.items() if isinstance(data, _Mapping) else data
        out = []
        for k, vs in items:
            if isinstance(vs, (str, bytes)) or not hasattr(vs, "__iter__"):
                vs = [vs]
            for v in vs:
                if v is not None:
                    out.append((k.encode("utf-8") if isinstance(k, str) else k, v.encode("utf-8") if isinstance(v, str) else v))
        return _urlparse.urlencode(out, doseq=True)
    return data


def _prepare_url(url, params):
    if isinstance(url, bytes):
        url = url.decode("utf8")
    else:
        url = str(url)
    url = url.lstrip()
    if ":" in url and not url.lower().startswith("http"):
        scheme = url.split(":", 1)[0]
        if scheme and scheme.isalpha():
            raise InvalidSchema("No connection adapters were found for %r" % url)
    parts = _urlparse.urlsplit(url)
    if not parts.scheme:
        raise MissingSchema("Invalid URL %r: No scheme supplied. Perhaps you meant https://%s?" % (url, url))
    if parts.scheme.lower() not in ("http", "https"):
        raise InvalidSchema("No connection adapters were found for %r" % url)
    if not parts.hostname:
        raise InvalidURL("Invalid URL %r: No host supplied" % url)
    try:
        parts.port
    except ValueError:
        raise InvalidURL("Failed to parse: %s" % url)
    path = parts.path or "/"
    query = parts.query
    enc = _encode_params(params) if params else ""
    if isinstance(enc, bytes):
        enc = enc.decode("utf-8")
    if enc:
        query = "%s&%s" % (query, enc) if query else enc
    return _urlparse.urlunsplit((parts.scheme, parts.netloc, path, query, parts.fragment))


def _where(url):
    p = _urlparse.urlsplit(url)
    port = p.port or (443 if p.scheme == "https" else 80)
    path = p.path or "/"
    if p.query:
        path += "?" + p.query
    https = p.scheme == "https"
    return ("HTTPS" if https else "HTTP") + "ConnectionPool(host=%r, port=%d)" % (p.hostname, port), path, \
        ("HTTPS" if https else "HTTP") + "Connection(host=%r, port=%d)" % (p.hostname, port)


def _send(method, url, headers, body, connect_t, read_t, prepared):
    """One HTTP exchange over http.client: the connection bounded by `connect_t`, each read by
    `read_t` (None: wait forever), failures mapped onto requests' exceptions as urllib3 raises them."""
    p = _urlparse.urlsplit(url)
    pool, path, conn_name = _where(url)
    cls = _http_client.HTTPSConnection if p.scheme == "https" else _http_client.HTTPConnection
    conn = cls(p.hostname, p.port, timeout=connect_t)
    try:
        try:
            conn.connect()
        except (TimeoutError, _socket.timeout):
            raise ConnectTimeout("%s: Max retries exceeded with url: %s (Caused by ConnectTimeoutError(%s))" % (
                pool, path, _json.dumps("%s: Connection to %s timed out. (connect timeout=%s)" % (conn_name, p.hostname, connect_t))), request=prepared)
        except OSError as e:
            raise ConnectionError("%s: Max retries exceeded with url: %s (Caused by NewConnectionError(%s))" % (
                pool, path, _json.dumps("%s: Failed to establish a new connection: %s" % (conn_name, e))), request=prepared)
        conn.sock.settimeout(read_t)
        try:
            conn.request(method, path, body=body, headers=dict(headers.items()))
            r = conn.getresponse()
            content = r.read()
        except (TimeoutError, _socket.timeout):
            raise ReadTimeout("%s: Read timed out. (read timeout=%s)" % (pool, read_t), request=prepared)
        except (_http_client.HTTPException, OSError) as e:
            raise ConnectionError(("Connection aborted.", e), request=prepared)
    finally:
        conn.close()
    resp = Response()
    resp.status_code = int(r.status)
    resp.headers = CaseInsensitiveDict(list(r.getheaders()))
    resp.url = url
    resp.reason = r.reason or _REASONS.get(resp.status_code)
    resp.encoding = _encoding_from_headers(resp.headers)
    resp._content = content or b""
    resp.request = prepared
    return resp


def request(method, url, params=None, data=None, headers=None, cookies=None, files=None, auth=None, timeout=None,
            allow_redirects=True, proxies=None, hooks=None, stream=None, verify=None, cert=None, json=None):
    method = method.upper() if isinstance(method, str) else method.decode().upper()
    url = _prepare_url(url, params)
    if files:
        _unavailable("requests.%s(files=…) (a multipart upload)" % method.lower())
    hdrs = CaseInsensitiveDict({"User-Agent": "python-requests/2.32.3", "Accept-Encoding": "identity", "Accept": "*/*", "Connection": "close"})
    hdrs.update(headers or {})
    body = None
    ctype = None
    if not data and json is not None:
        body = _json.dumps(json, allow_nan=False).encode("utf-8")
        ctype = "application/json"
    elif data:
        if hasattr(data, "read"):
            body = data.read()
        elif isinstance(data, (str, bytes)):
            body = data
        else:
            body = _encode_params(data)
            ctype = "application/x-www-form-urlencoded"
        if isinstance(body, str):
            body = body.encode("utf-8")
    if ctype and "content-type" not in hdrs:
        hdrs["Content-Type"] = ctype
    if body is None and method in ("POST", "PUT", "PATCH"):
        hdrs.setdefault("Content-Length", "0")
    if auth is not None:
        if isinstance(auth, tuple) and len(auth) == 2:
            tok = _base64.b64encode(("%s:%s" % auth).encode("latin1")).decode("ascii")
            hdrs["Authorization"] = "Basic " + tok
        elif callable(auth):
            _unavailable("requests auth=%r (a custom auth handler)" % type(auth).__name__)
    if cookies:
        hdrs["Cookie"] = "; ".join("%s=%s" % kv for kv in dict(cookies).items())
    connect_t = read_t = timeout
    if isinstance(timeout, tuple):
        connect_t, read_t = timeout
    started = _datetime.datetime.now()
    history = []
    while True:
        prepared = PreparedRequest(method, url, hdrs, body)
        resp = _send(method, url, hdrs, body, connect_t, read_t, prepared)
        if not (allow_redirects and resp.is_redirect):
            break
        if len(history) >= 30:
            raise TooManyRedirects("Exceeded 30 redirects.", response=resp)
        history.append(resp)
        url = _urlparse.urljoin(url, resp.headers["location"])
        # as requests' rebuild_method: 303 (and 301/302 of a POST) become GET without a body
        if (resp.status_code == 303 and method != "HEAD") or (resp.status_code in (301, 302) and method == "POST"):
            method, body = "GET", None
            for h in ("Content-Type", "Content-Length"):
                hdrs.pop(h, None)
    resp.history = history
    resp.elapsed = _datetime.datetime.now() - started
    return resp


def get(url, params=None, **kwargs):
    return request("get", url, params=params, **kwargs)


def options(url, **kwargs):
    return request("options", url, **kwargs)


def head(url, **kwargs):
    kwargs.setdefault("allow_redirects", False)
    return request("head", url, **kwargs)


def post(url, data=None, json=None, **kwargs):
    return request("post", url, data=data, json=json, **kwargs)


def put(url, data=None, **kwargs):
    return request("put", url, data=data, **kwargs)


def patch(url, data=None, **kwargs):
    return request("patch", url, data=data, **kwargs)


def delete(url, **kwargs):
    return request("delete", url, **kwargs)


class Session:
    def __init__(self):
        self.headers = CaseInsensitiveDict({"User-Agent": "python-requests/2.32.3", "Accept": "*/*"})
        self.params = {}
        self.auth = None
        self.cookies = {}

    def __enter__(self):
        return self

    def __exit__(self, *args):
        self.close()

    def request(self, method, url, params=None, headers=None, auth=None, cookies=None, **kwargs):
        merged = CaseInsensitiveDict(self.headers)
        merged.update(headers or {})
        p = dict(self.params)
        if isinstance(params, _Mapping):
            p.update(params)
        elif params:
            p = params
        c = dict(self.cookies)
        c.update(cookies or {})
        return request(method, url, params=p or None, headers=merged, auth=auth or self.auth, cookies=c or None, **kwargs)

    def get(self, url, **kwargs):
        return self.request("GET", url, **kwargs)

    def options(self, url, **kwargs):
        return self.request("OPTIONS", url, **kwargs)

    def head(self, url, **kwargs):
        kwargs.setdefault("allow_redirects", False)
        return self.request("HEAD", url, **kwargs)

    def post(self, url, data=None, json=None, **kwargs):
        return self.request("POST", url, data=data, json=json, **kwargs)

    def put(self, url, data=None, **kwargs):
        return self.request("PUT", url, data=data, **kwargs)

    def patch(self, url, data=None, **kwargs):
        return self.request("PATCH", url, data=data, **kwargs)

    def delete(self, url, **kwargs):
        return self.request("DELETE", url, **kwargs)

    def close(self):
        return None


def session():
    return Session()


models = _types.ModuleType("requests.models")
models.Response, models.PreparedRequest = Response, PreparedRequest
structures = _types.ModuleType("requests.structures")
structures.CaseInsensitiveDict = CaseInsensitiveDict
sessions = _types.ModuleType("requests.sessions")
sessions.Session, sessions.session = Session, session
SUBMODULES = {"exceptions": exceptions, "models": models, "structures": structures, "sessions": sessions}


def __getattr__(name):
    return _cc.double_attr("requests", name)
