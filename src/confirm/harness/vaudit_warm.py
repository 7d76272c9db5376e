"""The warm runner of the harness (run_cases.py): zygotes that import a verifier's modules once and fork
one process per case from that state.
"""
import importlib
import json
import os
import signal
import sys
import threading
import time

import case_context
from vaudit_case import ANSWERS, GRACE_S, SETUP_MS, CaseTrace, case_process, traced_files
from vaudit_guard import DIR_FD_CALLS, GUARD_FD, GUARD_KEYS, install_guard
from vaudit_specs import CaseDeadline, CaseFinder


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
    warm.patched += [(m, n, getattr(m, n)) for n in [*DIR_FD_CALLS, "listdir", "scandir"] for m in (os, posix) if hasattr(m, n)]
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
