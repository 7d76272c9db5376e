/**
 * Keystroke behaviour of a real `vaudit lsp` process: a one-character edit
 * re-lints only the edited document (no workspace re-read), the answer stays
 * answered, and memory stays bounded over many edits (trees freed, caches swept).
 * Full-size figures come from bench/lsp-latency.mjs; bounds here are generous
 * for a loaded 2-core CI machine.
 */
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error plain ESM helpers shared with bench/
import { startClient, rangeOf } from '../bench/lsp-client.mjs';
// @ts-expect-error plain ESM helpers shared with bench/
import { makeWorkspace } from '../bench/lsp-workspace.mjs';
import { LintSession } from '../src/engine/session.js';

const roots: string[] = [];
afterAll(() => { for (const r of roots) rmSync(r, { recursive: true, force: true }); });

describe('engine session', () => {
  it('re-parses only the edited Python file and reuses the project on JSON edits', async () => {
    const ws = makeWorkspace({ pyLines: 200, entries: 20 });
    roots.push(ws.root);
    const s = await LintSession.create({ root: ws.root });
    try {
      const first = await s.lint([ws.py, ws.task]);
      expect(first.reparsed.sort()).toEqual(expect.arrayContaining([ws.py]));
      // same text: nothing to re-parse
      s.setDocument(ws.py, ws.pyText);
      expect((await s.lint([ws.py])).reparsed).toEqual([]);
      // a JSON edit keeps the Python project
      s.setDocument(ws.task, ws.taskText.replace('lambda dump:', 'lambda dumb:'));
      expect((await s.lint([ws.task])).reparsed).toEqual([]);
      // a Python edit re-parses that file only (the __init__.py files stay)
      s.setDocument(ws.py, ws.pyText + '\nx = 1\n');
      expect((await s.lint([ws.py])).reparsed).toEqual([ws.py]);
      // same findings as the one-shot engine for the same buffers
      const again = await s.lint([ws.task]);
      expect(again.byFile.get(ws.task)!.every((f) => f.file === ws.task)).toBe(true);
    } finally {
      await s.dispose();
    }
  });
});

describe('vaudit lsp under many edits', () => {
  it('answers each keystroke and keeps memory bounded over 200 edits', async () => {
    const ws = makeWorkspace({ pyLines: 150, entries: 24 });
    roots.push(ws.root);
    const c = await startClient({ root: ws.root, env: { NODE_OPTIONS: '--expose-gc' } });
    try {
      const uriPy = c.open(ws.py, ws.pyText);
      const uriTask = c.open(ws.task, ws.taskText);
      await Promise.all([
        c.nextDiagnostics(uriPy, (p: { version: number }) => p.version === 1, 30_000),
        c.nextDiagnostics(uriTask, (p: { version: number }) => p.version === 1, 30_000),
      ]);
      const texts = new Map([[ws.py, ws.pyText], [ws.task, ws.taskText]]);
      const uris = new Map([[ws.py, uriPy], [ws.task, uriTask]]);
      const spot = new Map([
        [ws.py, ws.pyText.indexOf('        found = None') + 13],
        [ws.task, ws.taskText.indexOf("lambda dump: dump['time']") + 17],
      ]);
      const stats = async () => c.conn.sendRequest('vaudit/stats', { gc: true });
      const times: number[] = [];
      let warm: { memory: NodeJS.MemoryUsage } | undefined;
      for (let i = 0; i < 200; i++) {
        const f = i % 2 === 0 ? ws.py : ws.task;
        const text = texts.get(f)!;
        const at = spot.get(f)!;
        const insert = Math.floor(i / 2) % 2 === 0;
        const t0 = performance.now();
        const v = c.change(f, insert ? rangeOf(text, at, at) : rangeOf(text, at, at + 1), insert ? 'x' : '');
        await c.nextDiagnostics(uris.get(f), (p: { version: number }) => p.version === v, 30_000);
        times.push(performance.now() - t0);
        texts.set(f, insert ? text.slice(0, at) + 'x' + text.slice(at) : text.slice(0, at) + text.slice(at + 1));
        if (i === 39) warm = await stats();
      }
      const end = await stats();
      const mb = (n: number) => n / 1048576;
      const median = [...times].sort((a, b) => a - b)[times.length >> 1]!;
      console.log(`lsp-perf: median round trip ${median.toFixed(1)} ms; heap ${mb(warm!.memory.heapUsed).toFixed(1)} → ${mb(end.memory.heapUsed).toFixed(1)} MB; external ${mb(warm!.memory.external).toFixed(1)} → ${mb(end.memory.external).toFixed(1)} MB`);
      // Latency is measured by bench/lsp-latency.mjs, never asserted here (a loaded machine is slow).
      // bounded: no growth with the number of edits beyond noise
      expect(mb(end.memory.heapUsed - warm!.memory.heapUsed)).toBeLessThan(15);
      expect(mb(end.memory.external - warm!.memory.external)).toBeLessThan(5);
      const session = end.sessions[0];
      expect(session.pythonTrees).toBe(3);
      expect(session.embeddedCached).toBeLessThanOrEqual(24 * 3);
      // the server log shows the keystroke re-lints touched one document each
      const relints = c.logs.filter((l: { message: string }) => /linted /.test(l.message)).slice(-10);
      for (const l of relints) expect(l.message).toMatch(/linted (mixin\.py|big\.json) in/);
    } finally {
      expect(await c.stop()).toEqual({ code: 0, signal: null });
    }
  }, 120_000);
});
