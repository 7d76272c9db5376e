/**
 * The control-case guard's known bypasses (issue 30), each run as a real case through the harness
 * (run_cases.py, no host around it, so only the guard and the harness stand in the way): a write
 * through a relative path after os.chdir, through a folder descriptor (dir_fd), from a second
 * thread racing the guard's own checks, to a port appended to the harness's globals, through the
 * unwrapped fork_exec, through gc, through the guard's frames; a refusal the case tries to hide;
 * a process a case leaves running. Every one ends `sandbox` (or does nothing) and nothing lands
 * outside the case's folder.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { liveProcesses } from './helpers/processes.js';

const HARNESS = resolve(import.meta.dirname, '../src/confirm/harness/run_cases.py');
let root: string;
let cell: string;
let out: string;
let server: Server;
let port = 0;
let connections = 0;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'vaudit-guard-bypass-'));
  cell = join(root, 'cell');
  out = join(root, 'out');
  mkdirSync(cell);
  mkdirSync(out);
  server = createServer((s) => {
    connections++;
    s.destroy();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as { port: number }).port;
});
afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
  rmSync(root, { recursive: true, force: true });
});

interface Answer {
  id: string;
  status: string;
  detail?: string;
  value?: unknown;
  guard?: string[];
}

/** Run cases whose function `f()` is `body` (indented by the caller), in one harness process. */
function run(bodies: Record<string, string>, extra: Record<string, unknown> = {}): Record<string, Answer> {
  const cases = Object.entries(bodies).map(([id, body]) => ({
    id,
    op: 'call',
    modules: [{ name: `m_${id}`, filename: `/virtual/${id}.py`, source: `import os, sys\nOUT = ${JSON.stringify(out)}\nPORT = ${port}\ndef f():\n${body}\n` }],
    entry: { module: `m_${id}`, qualname: 'f' },
    args: [],
    timeoutMs: 5000,
    ...extra,
  }));
  const r = spawnSync('python3', ['-I', '-B', HARNESS], { cwd: cell, input: JSON.stringify({ cases, guard: { denyRead: [] } }), encoding: 'utf8', timeout: 60_000 });
  const answers: Record<string, Answer> = {};
  for (const line of r.stdout.split('\n')) if (line.trim()) answers[(JSON.parse(line) as Answer).id] = JSON.parse(line) as Answer;
  return answers;
}

const ind = (code: string) =>
  code
    .trim()
    .split('\n')
    .map((l) => `    ${l}`)
    .join('\n');

describe('control-case guard: the bypasses of issue 30 are closed', () => {
  it('os.chdir then a relative open is checked against the real cwd', () => {
    const a = run({ chdir: ind(`os.chdir(OUT)\nopen("via-chdir", "w").write("x")\nreturn True`) });
    expect(a.chdir).toMatchObject({ status: 'sandbox' });
    expect(a.chdir!.detail).toMatch(/writing a file outside the case folder/);
    expect(readdirSync(out)).toEqual([]);
  });

  it('os.open with dir_fd (and os.mkdir, os.rename with folder descriptors) is checked against that folder', () => {
    const a = run({
      dirfd: ind(`d = os.open(OUT, os.O_RDONLY)\ntry:\n    os.close(os.open("via-dirfd", os.O_WRONLY | os.O_CREAT, dir_fd=d))\nexcept PermissionError:\n    pass\ntry:\n    os.mkdir("via-mkdir", dir_fd=d)\nexcept PermissionError:\n    pass\nreturn True`),
      listfd: ind(`d = os.open(OUT, os.O_RDONLY)\nopen("mine", "w").close()\nreturn sorted(os.listdir(d))`),
    });
    expect(a.dirfd).toMatchObject({ status: 'sandbox' });
    expect(a.dirfd!.detail).toMatch(/relative to a folder descriptor/);
    expect(a.dirfd!.guard).toHaveLength(2);
    // reading a folder by descriptor is reading: allowed where reading the folder is
    expect(a.listfd).toMatchObject({ status: 'returned', value: [] });
    expect(readdirSync(out)).toEqual([]);
  });

  it('a second thread keeping the guard busy does not switch it off for another thread', () => {
    const a = run({
      race: ind(`
import threading
stop = []
def spin():
    while not stop:
        try:
            open("spin", "w").close()
        except OSError:
            pass
ts = [threading.Thread(target=spin) for _ in range(3)]
for t in ts: t.start()
hits = 0
for i in range(3000):
    try:
        open(os.path.join(OUT, "race-%d" % i), "w").close()
        hits += 1
    except PermissionError:
        pass
stop.append(1)
for t in ts: t.join()
return hits`),
    });
    expect(a.race).toMatchObject({ status: 'sandbox' });
    expect(readdirSync(out)).toEqual([]);
  });

  it('appending a port to the harness globals (PORTS, in whichever harness module holds it) opens nothing', () => {
    const before = connections;
    const a = run({
      ports: ind(`
import socket, sys
ports = [m.__dict__["PORTS"] for m in list(sys.modules.values()) if isinstance(getattr(m, "__dict__", None), dict) and isinstance(m.__dict__.get("PORTS"), list)]
assert ports, "no harness module holds PORTS"
for p in ports:
    p.append(PORT)
try:
    socket.create_connection(("127.0.0.1", PORT), timeout=2).close()
    return "connected"
except OSError as e:
    return "refused %s" % e.errno`),
    });
    expect(a.ports).toMatchObject({ status: 'returned', value: 'refused 111' });
    expect(connections).toBe(before);
  });

  it('the original fork_exec is not reachable from the wrapper', () => {
    const a = run({
      closure: ind(`
import subprocess, _posixsubprocess
reached = []
for w in (getattr(subprocess, "_fork_exec", None), getattr(_posixsubprocess, "fork_exec", None)):
    for cell in (getattr(w, "__closure__", None) or ()):
        try:
            v = cell.cell_contents
        except ValueError:
            continue
        if getattr(v, "__name__", "") == "fork_exec" and type(v).__name__ == "builtin_function_or_method":
            reached.append(v)
for v in reached:
    try:
        v(["/bin/sh", "-c", "touch " + OUT + "/via-closure"], [b"/bin/sh"], True, (), None, None, -1, -1, -1, -1, -1, -1, -1, -1, False, False, -1, None, None, None, -1, None, False)
    except Exception:
        pass
return len(reached)`),
    });
    expect(a.closure).toMatchObject({ status: 'returned', value: 0 });
    expect(readdirSync(out)).toEqual([]);
    const b = run({
      closure2: ind(`
import subprocess
w = subprocess._fork_exec
found = [c.cell_contents for c in (w.__closure__ or ()) if type(getattr(c, "cell_contents", None)).__name__ == "builtin_function_or_method"]
return [getattr(f, "__name__", "") for f in found]`),
    });
    expect(b.closure2).toMatchObject({ status: 'returned' });
    expect(b.closure2!.value).not.toContain('fork_exec');
  });

  it('gc introspection (to reach and switch off the guard) is refused', () => {
    const a = run({ gc: ind(`import gc\nhooks = [o for o in gc.get_objects() if getattr(o, "__name__", "") == "hook"]\nreturn len(hooks)`) });
    expect(a.gc).toMatchObject({ status: 'sandbox' });
    expect(a.gc!.detail).toMatch(/gc\.get_objects/);
  });

  it("the guard's frames (through a refusal's traceback) are not readable", () => {
    const a = run({
      frames: ind(`
try:
    open(os.path.join(OUT, "x"), "w")
except PermissionError as e:
    tb, names = e.__traceback__, []
    while tb is not None:
        try:
            names.append(sorted(tb.tb_frame.f_locals))
        except PermissionError:
            names.append("refused")
        tb = tb.tb_next
    return names`),
    });
    expect(a.frames).toMatchObject({ status: 'sandbox' });
    expect(a.frames!.guard!.some((g) => /frames of the control-case guard/.test(g))).toBe(true);
  });

  it('a refusal cannot be hidden: clearing lists or closing the channel still ends sandbox', () => {
    const a = run({
      clear: ind(`
import sys
try:
    open(os.path.join(OUT, "x"), "w")
except PermissionError:
    pass
mods = [m.__dict__ for m in list(sys.modules.values()) if isinstance(getattr(m, "__dict__", None), dict)]
for name in ("GUARD_REFUSALS",):
    for g in mods:
        if isinstance(g.get(name), list):
            g[name].clear()
fd = next((g["GUARD_FD"][0] for g in mods if isinstance(g.get("GUARD_FD"), list)), None)
if fd is not None:
    os.close(fd)
return True`),
      closefirst: ind(`
import sys
mods = [m.__dict__ for m in list(sys.modules.values()) if isinstance(getattr(m, "__dict__", None), dict)]
fd = next((g["GUARD_FD"][0] for g in mods if isinstance(g.get("GUARD_FD"), list)), None)
assert fd is not None, "no harness module holds GUARD_FD"
if fd is not None:
    r, w = os.pipe()
    os.dup2(w, fd)
try:
    open(os.path.join(OUT, "x"), "w")
except PermissionError:
    pass
return True`),
      clean: ind(`return True`),
    });
    expect(a.clear).toMatchObject({ status: 'sandbox' });
    expect(a.closefirst).toMatchObject({ status: 'sandbox' });
    expect(a.closefirst!.detail).toMatch(/could not be reported/);
    // the next case is not touched by the earlier ones
    expect(a.clean).toMatchObject({ status: 'returned', value: true });
    expect(readdirSync(out)).toEqual([]);
  });

  it("a process a case leaves running (its own stub tool, detached) is killed before the next case", () => {
    const marker = `vaudit_stray_${randomBytes(5).toString('hex')}`;
    const bin = join(cell, 'bin');
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, 'bg'), `#!/bin/sh\nsetsid sh -c 'sleep 60; : ${marker}' </dev/null >/dev/null 2>&1 &\n`);
    chmodSync(join(bin, 'bg'), 0o755);
    const a = run(
      {
        leave: ind(`import subprocess\nsubprocess.run(["bg"])\nreturn True`),
        next: ind(`
import time
time.sleep(0.3)
return sum(1 for p in os.listdir("/proc") if p.isdigit() and ${JSON.stringify(marker)} in open("/proc/%s/cmdline" % p, "rb").read().decode("latin-1") if os.path.exists("/proc/%s/cmdline" % p))`),
      },
      { env: { PATH: `{cell}/bin:/usr/bin:/bin` } },
    );
    expect(a.leave).toMatchObject({ status: 'returned', value: true });
    // reading other processes' /proc is refused: either way the stray is gone
    expect(['sandbox', 'returned']).toContain(a.next!.status);
    if (a.next!.status === 'returned') expect(a.next!.value).toBe(0);
    expect(liveProcesses().filter((p) => p.cmd.includes(marker))).toEqual([]);
  });
});
