"""Differential check of vaudit's functional doubles (src/confirm/harness/vaudit_doubles) against the
real libraries: the same scenarios run with the real flask/requests (`real`) and, in a second
interpreter, with the real ones hidden so the harness serves its doubles (`double`), each through
the harness's own `case_context.install_doubles`. Prints one JSON object; test/confirm-doubles.test.ts
compares the two. Needs an interpreter with flask and requests installed."""
import importlib.abc
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

HARNESS, MODE = sys.argv[1], sys.argv[2]
sys.path.insert(0, HARNESS)
import case_context  # noqa: E402

class Hide(importlib.abc.MetaPathFinder):
    """The installed libraries, hidden: as if this Python lacked them (the doubles' finder serves them)."""
    served_by = None

    def find_spec(self, fullname, path=None, target=None):
        if fullname.split(".")[0] not in ("flask", "requests", "werkzeug"):
            return None
        if self.served_by is None:
            raise ModuleNotFoundError("No module named %r" % fullname, name=fullname)
        return self.served_by.find_spec(fullname, path, target)


hide = Hide()
if MODE == "double":
    sys.meta_path.insert(0, hide)
hide.served_by = case_context.install_doubles(["flask", "requests"])
import flask  # noqa: E402
import requests  # noqa: E402
from flask import Flask, abort, jsonify, request  # noqa: E402

assert (MODE == "double") == (getattr(flask, "VAUDIT_DOUBLE", None) == "flask"), "wrong flask for mode %s" % MODE
assert (MODE == "double") == (getattr(requests, "VAUDIT_DOUBLE", None) == "requests")
OUT = {}
KINDS = ["ConnectionError", "Timeout", "ConnectTimeout", "ReadTimeout", "HTTPError", "RequestException", "MissingSchema", "InvalidSchema", "JSONDecodeError"]


def exc(e, port=None):
    msg = str(e)
    if port:
        msg = msg.replace(str(port), "PORT")
    kinds = sorted(k for k in KINDS if isinstance(e, getattr(requests.exceptions, k)))
    std = sorted(n for n, c in (("ValueError", ValueError), ("OSError", OSError), ("KeyError", KeyError), ("json.JSONDecodeError", json.JSONDecodeError), ("RuntimeError", RuntimeError), ("TypeError", TypeError), ("AssertionError", AssertionError)) if isinstance(e, c))
    return {"type": type(e).__name__, "requests": kinds, "std": std, "message": msg.split("\n")[0], "code": getattr(e, "code", None), "description": getattr(e, "description", None)}


def record(name, fn, port=None):
    try:
        OUT[name] = {"value": fn()}
    except Exception as e:
        OUT[name] = {"raised": exc(e, port)}


# ---------------------------------------------------------------- requests against a local server
class H(BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass

    def _send(self, status, ctype, body):
        b = body.encode()
        self.send_response(status)
        if ctype:
            self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(b)))
        self.end_headers()
        self.wfile.write(b)

    def do_GET(self):
        p = self.path.split("?")[0]
        if p == "/json":
            self._send(200, "application/json", '{"a": 1, "b": [true, null]}')
        elif p == "/html500":
            self._send(500, "text/html", "<html>boom</html>")
        elif p == "/notjson":
            self._send(200, "text/plain", "hello")
        elif p == "/stall":
            time.sleep(1.5)
            self._send(200, "text/plain", "late")
        elif p == "/echo":
            self._echo()
        elif p == "/redir":
            self.send_response(302)
            self.send_header("Location", "/json")
            self.send_header("Content-Length", "0")
            self.end_headers()
        else:
            self._send(404, "text/html", "nope")

    def _echo(self):
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n).decode() if n else ""
        self._send(200, "application/json", json.dumps({"method": self.command, "path": self.path, "ctype": self.headers.get("Content-Type"), "body": body}))

    def do_POST(self):
        if self.path == "/redir303":
            n = int(self.headers.get("Content-Length") or 0)
            self.rfile.read(n)
            self.send_response(303)
            self.send_header("Location", "/echo?after=303")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self._echo()

    do_PUT = do_DELETE = _echo


srv = ThreadingHTTPServer(("127.0.0.1", 0), H)
srv.handle_error = lambda *a: None  # a client that timed out closed its end
threading.Thread(target=srv.serve_forever, daemon=True).start()
base = "http://127.0.0.1:%d" % srv.server_address[1]
import socket  # noqa: E402
s = socket.socket()
s.bind(("127.0.0.1", 0))
closed = s.getsockname()[1]
s.close()


def resp(r):
    return {"status": r.status_code, "ok": r.ok, "bool": bool(r), "text": r.text, "ctype": r.headers.get("content-type"), "encoding": r.encoding, "url": r.url.replace(base, "BASE"), "reason": r.reason}


record("get json", lambda: dict(resp(requests.get(base + "/json", timeout=5)), json=requests.get(base + "/json", timeout=5).json()))
record("get params", lambda: requests.get(base + "/echo?z=0", params={"a": "1", "b": ["x", "y"], "n": None}, timeout=5).json()["path"])
record("get params list", lambda: requests.get(base + "/echo", params=[("c", "1"), ("c", "2")], timeout=5).json()["path"])
record("post json", lambda: {k: v for k, v in requests.post(base + "/echo", json={"k": [1, 2], "s": "é"}, timeout=5).json().items()})
record("post form", lambda: requests.post(base + "/echo", data={"f": "v w", "g": ["1", "2"]}, timeout=5).json())
record("post headers", lambda: requests.post(base + "/echo", json={"x": 1}, headers={"Content-Type": "application/json"}, timeout=5).json()["ctype"])
record("put str", lambda: requests.put(base + "/echo", data="raw", timeout=5).json())
record("delete", lambda: requests.delete(base + "/echo", timeout=5).json()["method"])
record("500 response", lambda: resp(requests.get(base + "/html500", timeout=5)))
record("404 raise_for_status", lambda: requests.get(base + "/missing", timeout=5).raise_for_status(), srv.server_address[1])
record("500 raise_for_status", lambda: requests.get(base + "/html500", timeout=5).raise_for_status(), srv.server_address[1])
record("non-JSON json()", lambda: requests.get(base + "/notjson", timeout=5).json())
record("empty json()", lambda: requests.delete(base + "/missing-body-x", timeout=5).json()["body"])
record("refused", lambda: requests.get("http://127.0.0.1:%d/x" % closed, timeout=2), closed)
record("refused no timeout", lambda: requests.post("http://localhost:%d/run" % closed, json={"a": 1}), closed)
record("read timeout", lambda: requests.get(base + "/stall", timeout=0.3), srv.server_address[1])
record("read timeout tuple", lambda: requests.get(base + "/stall", timeout=(2, 0.3)), srv.server_address[1])
record("no timeout waits", lambda: requests.get(base + "/stall").text)
record("redirect", lambda: (lambda r: [r.status_code, r.url.replace(base, "BASE"), [h.status_code for h in r.history], r.json()])(requests.get(base + "/redir", timeout=5)))
record("redirect off", lambda: (lambda r: [r.status_code, r.headers.get("location"), r.is_redirect])(requests.get(base + "/redir", allow_redirects=False, timeout=5)))
record("head no follow", lambda: requests.head(base + "/redir", timeout=5).status_code)
record("303 after post", lambda: requests.post(base + "/redir303", json={"a": 1}, timeout=5).json())
record("bad port", lambda: requests.get("http://127.0.0.1:{'x': 0}/run"))
record("missing schema", lambda: requests.get("localhost/x"))
record("invalid schema", lambda: requests.get("ftp://localhost/x"))
record("session", lambda: requests.Session().get(base + "/json", timeout=5).json())
record("session ctx", lambda: (lambda s: s.post(base + "/echo", json=[1], timeout=5).json()["body"])(requests.session()))
record("hierarchy", lambda: {n: sorted(k for k in KINDS if issubclass(getattr(requests.exceptions, n), getattr(requests.exceptions, k))) for n in KINDS})
record("top-level names", lambda: [n for n in ("RequestException", "ConnectionError", "Timeout", "HTTPError", "ConnectTimeout", "ReadTimeout", "JSONDecodeError", "Response", "Session") if getattr(requests, n) is not None])
record("exceptions is requests", lambda: requests.exceptions.RequestException is requests.RequestException)

# ---------------------------------------------------------------- flask
app = Flask(__name__)


@app.route("/a", methods=["POST"])
def a():
    data = request.json
    return {"pass": data.get("x") == 1}


@app.route("/b")
def b():
    return jsonify(n=request.args.get("n", type=int), m=request.args.get("m", "d"), l=request.args.getlist("l"))


@app.post("/c")
def c():
    return jsonify([1, {"z": 1, "a": "é"}]), 201


@app.route("/d", methods=["put", "POST"])
def d():
    return {"form": request.form.to_dict(), "silent": request.get_json(silent=True), "method": request.method, "path": request.path}


record("rules", lambda: sorted([r.rule, r.endpoint, sorted(r.methods)] for r in app.url_map.iter_rules() if r.endpoint != "static"))
record("view functions", lambda: sorted(k for k in app.view_functions if k != "static"))


def in_ctx(path, fn, **kw):
    def go():
        with app.test_request_context(path, **kw):
            v = fn()
            if isinstance(v, tuple):
                v = [v[0].get_data(as_text=True), v[1]]
            elif hasattr(v, "get_data"):
                v = {"data": v.get_data(as_text=True), "status": v.status_code, "statusText": v.status, "mimetype": v.mimetype, "json": v.get_json(), "is_json": v.is_json}
            return v
    return go


record("view json", in_ctx("/a", a, method="POST", json={"x": 1}))
record("view json false", in_ctx("/a", a, method="POST", json={"x": 2}))
record("view text body", in_ctx("/a", a, method="POST", data="x", content_type="text/plain"))
record("view no body", in_ctx("/a", a, method="POST"))
record("view malformed", in_ctx("/a", a, method="POST", data="{", content_type="application/json"))
record("view null json", in_ctx("/a", a, method="POST", json=None))
record("jsonify args", in_ctx("/b?l=1&l=2&n=3", b))
record("query both", in_ctx("/b?l=1", b, query_string={"n": "3"}))
record("jsonify bad int", in_ctx("/b", b, query_string={"n": "x", "m": "q"}))
record("jsonify tuple", in_ctx("/c", c, method="POST"))
record("form", in_ctx("/d", d, method="PUT", data={"k": "v"}))
record("form json", in_ctx("/d", d, method="POST", json={"k": "v"}))
record("jsonify outside", lambda: jsonify(a=1))
record("request outside", lambda: request.json)
record("abort 404", lambda: abort(404))
record("abort 400 desc", lambda: abort(400, description="bad thing"))
record("abort 500", lambda: abort(500, "boom"))
record("abort 415", lambda: abort(415))
record("str NotFound", lambda: str(__import__("werkzeug.exceptions" if MODE == "real" else "flask", fromlist=["NotFound"]).NotFound()))
record("duplicate endpoint", lambda: app.add_url_rule("/e", "a", lambda: 1))
record("methods as str", lambda: app.route("/f", methods="POST")(lambda: 1))
record("post with methods", lambda: app.post("/g", methods=["GET"]))
record("response default", lambda: (lambda r: [r.mimetype, r.status, r.status_code, r.get_json()])(flask.Response("x")))
record("response status", lambda: (lambda r: [r.status_code, r.status])(flask.Response("x", status=404)))
record("logger name", lambda: app.logger.name)
record("app ctx jsonify", lambda: (lambda: [app.app_context().__enter__(), jsonify({"b": 1, "a": None}).get_data(as_text=True)][1])())
print(json.dumps(OUT, sort_keys=True))
sys.stdout.flush()
os._exit(0)
