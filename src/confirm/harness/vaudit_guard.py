"""The control-case guard of the harness (run_cases.py): the audit hook each case process installs before
its untrusted code runs, the refusal channel it reports on, and the reaping of whatever a case started.
"""
import os
import signal
import sys
import types

import case_context
from vaudit_specs import CELL, PORTS


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

GUARD_FD = [None]  # in a case child: the write end of its refusal channel (read by the parent)
GUARD_POLICY = {}  # from the request: {"denyRead": [folder, ...]}
GUARD_KEYS = [0]  # the first key of the next guard's wrappers in this process
REFUSAL_UNREPORTED = 86  # a case process whose refusal could not be sent exits with this code
LOOPBACK = {"127.0.0.1", "localhost", "::1", "0.0.0.0", "ip6-localhost"}
_SHELL_META = set(";&|`$()<>\n\\*?[]{}~!#'\"")
_SENSITIVE_PROC = {"environ", "mem", "fd", "fdinfo", "root", "cwd", "cmdline", "exe", "map_files", "task", "maps", "smaps", "pagemap", "syscall", "auxv"}
# os functions that take a folder descriptor: the audit event of each carries the path, not the
# folder it is relative to, so the guard wraps them (kwarg names of the folder fds, path positions)
DIR_FD_CALLS = {
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
    # (os.lstat, json.dumps, vaudit_specs.PORTS, LOOPBACK) but not these references.
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
    for name, spots in DIR_FD_CALLS.items():
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
