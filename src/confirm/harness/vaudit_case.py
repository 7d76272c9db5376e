"""One control case (run_cases.py): run in this process (`run_case`), or in a forked process of its own
under the guard, with its bound kept by the parent (`run_forked`).
"""
import asyncio
import builtins
import importlib
import inspect
import json
import os
import signal
import sys
import time

import case_context
from vaudit_clock import FixedClock
from vaudit_guard import GuardChannel, install_guard, reap_strays
from vaudit_specs import CELL, PORTS, CaseDeadline, CaseFinder, NoWitness, Recorder, decode, resolve_qualname, start_server, to_json


ANSWERS = [None]  # the answer channel's fd (the parent's only; closed in every case process)
BEFORE_UNTRUSTED = None  # set in a case child: called by run_case once its trusted set-up is done


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
            if case.get("globals"):  # module-level names doubled for this case (its own process)
                g = getattr(inspect.unwrap(getattr(fn, "__func__", fn)), "__globals__", None)
                if isinstance(g, dict):
                    for name, spec in case["globals"].items():
                        g[name] = decode(spec, rec, name)
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
