/**
 * Editor diagnostics equal a cold `vaudit check` when the verifier-path walk replays its memo (issue 32).
 * A real `vaudit lsp --stdio` process edits a copy of the demo suite; the session's walk over the call
 * graph from the entrypoints (src/engine/reach.ts) replays the last walk's edges for every file that kept
 * its cross-file summary and visits only the edited file's units again, and walks from scratch when a
 * summary changed. Steps do both — a body edit, a body edit that calls a helper-server route (a new
 * verifier path through an unchanged file), a task whose reference breaks (other entrypoints, same
 * memo), a routed method renamed — and after each every open document's published diagnostics must
 * equal the findings of a fresh `vaudit check --format json` process over the same files, and the
 * server's `vaudit/stats` counters must say which walk ran.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error plain ESM helper shared with bench/
import { rangeOf, startClient, uriOf, REPO, BIN } from '../bench/lsp-client.mjs';

interface Diag { range: { start: { line: number; character: number }; end: { line: number; character: number } }; code: string; message: string; severity: number; data?: { fingerprint?: string } }
interface JsonFinding { ruleId: string; message: string; severity: string; file: string; range: { start: { line: number; column: number }; end: { line: number; column: number } }; fingerprint?: string }

const OPEN = [
  'verifier/base/utils.py',
  'verifier/chimerax/mixin.py',
  'verifier/lean/mixin.py',
  'verifier/server/tools.py',
  'verifier/kalgebra/mixin.py',
  'tasks/KAlgebra/sqrt-two.json',
  'tasks/Lean/mul-comm.json',
];

/**
 * Each step replaces the first occurrence of `from` in `file` by `to`. `walk`: the verifier paths come from
 * the last walk's memo (`replay`) or from a walk from scratch (`fresh`).
 */
const STEPS: Array<{ why: string; file: string; from: string; to: string; walk: 'replay' | 'fresh'; tools?: 'more' | 'fewer' }> = [
  { why: 'one character inside a function body', file: 'verifier/chimerax/mixin.py', from: 'raw_keys)', to: 'raw_key)', walk: 'replay' },
  { why: 'declare a helper-server route (a decorator: the summary changes)', file: 'verifier/server/tools.py', from: 'def check_lean', to: '@app.route("/lean/check")\ndef check_lean', walk: 'fresh' },
  { why: 'request the route from a verifier body (a new verifier path into an unchanged file)', file: 'verifier/lean/mixin.py', from: '/lean"', to: '/lean/check"', walk: 'replay', tools: 'more' },
  { why: 'one character in the handler the route reaches', file: 'verifier/server/tools.py', from: 'def check_lean(project):', to: 'def check_lean(projec):', walk: 'fresh' },
  { why: 'and back', file: 'verifier/server/tools.py', from: 'def check_lean(projec):', to: 'def check_lean(project):', walk: 'fresh' },
  { why: 'stop requesting it (the path goes)', file: 'verifier/lean/mixin.py', from: '/lean/check"', to: '/lean"', walk: 'replay', tools: 'fewer' },
  { why: "break a task's reference to its verifier (an entrypoint goes; no module changed)", file: 'tasks/KAlgebra/sqrt-two.json', from: '"type": "val"', to: '"type": "vals"', walk: 'replay' },
  { why: 'mend it', file: 'tasks/KAlgebra/sqrt-two.json', from: '"type": "vals"', to: '"type": "val"', walk: 'replay' },
  { why: 'a body edit in the routed method', file: 'verifier/kalgebra/mixin.py', from: 'return got == expected', to: 'return got == expecte', walk: 'replay' },
  { why: 'rename the routed method (the summary changes; the entry is unbound)', file: 'verifier/kalgebra/mixin.py', from: 'def _eval_val(', to: 'def _eval_vals(', walk: 'fresh' },
  { why: 'rename it back', file: 'verifier/kalgebra/mixin.py', from: 'def _eval_vals(', to: 'def _eval_val(', walk: 'fresh' },
  { why: 'rename a helper every verifier imports', file: 'verifier/base/utils.py', from: 'def error_factory', to: 'def error_factorx', walk: 'fresh' },
  { why: 'rename it back', file: 'verifier/base/utils.py', from: 'def error_factorx', to: 'def error_factory', walk: 'fresh' },
];

let root: string;
beforeAll(() => {
  if (!existsSync(path.join(REPO, 'dist', 'src', 'lsp', 'server.js'))) throw new Error('run `npm run build` first');
  root = mkdtempSync(path.join(tmpdir(), 'vaudit-lsp-reach-'));
  cpSync(path.join(REPO, 'fixtures', 'demo-suite'), root, { recursive: true });
  mkdirSync(path.join(root, '.git'));
});
afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

const toLsp = (p: { line: number; column: number }) => ({ line: p.line - 1, character: p.column - 1 });
const key = (d: { code: string; range: Diag['range']; message: string; severity: number; fingerprint?: string }) =>
  `${d.range.start.line}:${d.range.start.character}-${d.range.end.line}:${d.range.end.character} ${d.code} ${d.severity} ${d.fingerprint ?? ''} ${d.message}`;

/** A cold `vaudit check` process over the project: findings per open file, as the editor would show them. */
function checkFindings(): Map<string, string[]> {
  const r = spawnSync(process.execPath, [BIN, 'check', '.', '--format', 'json'], { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.status !== 0 && r.status !== 1) throw new Error(`vaudit check exited ${r.status}: ${r.stderr}`);
  const report = JSON.parse(r.stdout) as { findings: JsonFinding[] };
  const out = new Map<string, string[]>(OPEN.map((f) => [f, []]));
  for (const f of report.findings) {
    const rel = path.relative(root, path.resolve(root, f.file)).split(path.sep).join('/');
    out.get(rel)?.push(key({ code: f.ruleId, range: { start: toLsp(f.range.start), end: toLsp(f.range.end) }, message: f.message, severity: f.severity === 'error' ? 1 : 2, fingerprint: f.fingerprint }));
  }
  for (const v of out.values()) v.sort();
  return out;
}

describe('vaudit lsp diagnostics equal vaudit check when the verifier-path walk replays its memo', () => {
  it('edits that keep and change cross-file summaries, through a real server', async () => {
    const c = await startClient({ root });
    try {
      const texts = new Map(OPEN.map((f) => [f, readFileSync(path.join(root, f), 'utf8')]));
      const versions = new Map<string, number>();
      for (const f of OPEN) { c.open(path.join(root, f), texts.get(f)); versions.set(f, 1); }

      const published = () => {
        const out = new Map<string, string[]>();
        for (const f of OPEN) {
          const list = c.published.get(uriOf(path.join(root, f))) as Array<{ version?: number; diagnostics: Diag[] }> | undefined;
          const last = list?.at(-1);
          if (!last || last.version !== versions.get(f)) continue; // not yet for the current text
          out.set(f, last.diagnostics.map((d) => key({ ...d, fingerprint: d.data?.fingerprint })).sort());
        }
        return out;
      };
      const agree = async (step: string, logsBefore?: number) => {
        const expected = checkFindings();
        const t0 = Date.now();
        let got = published();
        // the edited document is published at once, the others once the edits pause: until they are
        // re-checked, their earlier diagnostics stand (and may agree by chance)
        const rechecked = () => logsBefore === undefined || (c.logs as Array<{ message: string }>).slice(logsBefore).some((l) => /\bre-checked /.test(l.message));
        while (Date.now() - t0 < 30_000 && (!rechecked() || JSON.stringify([...got].sort()) !== JSON.stringify([...expected].sort()))) {
          await new Promise((r) => setTimeout(r, 100));
          got = published();
        }
        expect(Object.fromEntries(got), step).toEqual(Object.fromEntries(expected));
      };

      await agree('opened');
      const counts = async () => {
        const r = await c.conn.sendRequest('vaudit/stats') as { sessions: Array<{ reachReplays: number; reachWalks: number }> };
        return r.sessions[0]!;
      };
      const seen = new Set<string>();
      let toolsBefore = published().get('verifier/server/tools.py')?.length ?? 0;
      for (const s of STEPS) {
        const before = await counts();
        const logsBefore = c.logs.length;
        const text = texts.get(s.file)!;
        const at = text.indexOf(s.from);
        expect(at, `${s.why}: '${s.from}' in ${s.file}`).toBeGreaterThanOrEqual(0);
        const next = text.slice(0, at) + s.to + text.slice(at + s.from.length);
        c.change(path.join(root, s.file), rangeOf(text, at, at + s.from.length), s.to);
        versions.set(s.file, versions.get(s.file)! + 1);
        texts.set(s.file, next);
        writeFileSync(path.join(root, s.file), next);
        await agree(s.why, logsBefore);
        for (const v of published().values()) for (const k of v) seen.add(k.split(' ')[1]!);
        // the handler's findings come and go with the verifier path through it
        const tools = published().get('verifier/server/tools.py')?.length ?? 0;
        if (s.tools) expect(s.tools === 'more' ? tools > toolsBefore : tools < toolsBefore, `${s.why}: tools.py findings ${toolsBefore} -> ${tools}`).toBe(true);
        toolsBefore = tools;
        const after = await counts();
        // the edited document is linted first (its walk says which); other open documents follow, on the same files
        const got = { replays: after.reachReplays - before.reachReplays, walks: after.reachWalks - before.reachWalks };
        expect(s.walk === 'replay' ? got.walks : got.walks >= 1, `${s.why}: walk ${s.walk} (${JSON.stringify(got)})`).toBe(s.walk === 'replay' ? 0 : true);
      }
      // the sequence exercised real findings, in Python and in task files
      expect([...seen]).toEqual(expect.arrayContaining(['task-schema', 'missing-timeout', 'unbound-name']));
    } finally {
      await c.stop().catch(() => c.kill());
    }
  }, 600_000);
});
