/**
 * Editor diagnostics equal a cold `vaudit check` of the same text (issue 14). A
 * real `vaudit lsp --stdio` process edits a copy of the demo suite through a
 * sequence of incremental changes — local ones, and ones that change cross-file
 * facts (a helper another module imports renamed, the decorator every verifier
 * uses renamed, a helper-server route added and removed, a task's lambda fixed,
 * a syntax error made and mended) — and after each step every open document's
 * published diagnostics must equal the findings of a fresh `vaudit check
 * --format json` process over the same files (written to disk).
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
  'verifier/base/evaluator.py',
  'verifier/chimerax/mixin.py',
  'verifier/lean/mixin.py',
  'verifier/server/tools.py',
  'tasks/ChimeraX/color-key.json',
  'tasks/ChimeraX/rename-model.json',
  'tasks/Lean/mul-comm.json',
];

/** Each step replaces the first occurrence of `from` (after `after`, if given) in `file` by `to`. */
const STEPS: Array<{ why: string; file: string; from: string; to: string; after?: string }> = [
  { why: 'one character inside an identifier (the unbound name becomes the bound one)', file: 'verifier/chimerax/mixin.py', from: 'raw_keys)', to: 'raw_key)' },
  { why: 'rename a helper another module imports', file: 'verifier/base/utils.py', from: 'def normalize_lines', to: 'def normalise_lines' },
  { why: 'rename the decorator every verifier imports', file: 'verifier/base/utils.py', from: 'def error_factory', to: 'def error_factorx' },
  { why: 'rename it back', file: 'verifier/base/utils.py', from: 'def error_factorx', to: 'def error_factory' },
  { why: 'declare a helper-server route', file: 'verifier/server/tools.py', from: 'def check_lean', to: '@app.route("/lean/check")\ndef check_lean' },
  { why: 'call the route from a verifier', file: 'verifier/lean/mixin.py', from: '/lean"', to: '/lean/check"' },
  { why: 'remove the route again', file: 'verifier/server/tools.py', from: '@app.route("/lean/check")\n', to: '' },
  { why: "fix a task's broken lambda", file: 'tasks/ChimeraX/color-key.json', from: "['_border']", to: "['_border'])" },
  { why: 'make a syntax error in a verifier', file: 'verifier/chimerax/mixin.py', from: 'def _eval_info(self, eval_item, current_states):', to: 'def _eval_info(self, eval_item, current_states)' },
  { why: 'mend it', file: 'verifier/chimerax/mixin.py', from: 'def _eval_info(self, eval_item, current_states)\n', to: 'def _eval_info(self, eval_item, current_states):\n' },
  { why: "unbind a task's entries (their verifier method no longer exists)", file: 'verifier/chimerax/mixin.py', from: 'def _eval_states', to: 'def _eval_statez' },
];

let root: string;
beforeAll(() => {
  if (!existsSync(path.join(REPO, 'dist', 'src', 'lsp', 'server.js'))) throw new Error('run `npm run build` first');
  root = mkdtempSync(path.join(tmpdir(), 'vaudit-lsp-parity-'));
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

describe('vaudit lsp diagnostics equal vaudit check after each edit', () => {
  it('local and cross-file edits through a real server', async () => {
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
      const agree = async (step: string) => {
        const expected = checkFindings();
        const t0 = Date.now();
        let got = published();
        // the edited document is published at once, the others once the edits pause
        while (Date.now() - t0 < 30_000 && JSON.stringify([...got].sort()) !== JSON.stringify([...expected].sort())) {
          await new Promise((r) => setTimeout(r, 100));
          got = published();
        }
        expect(Object.fromEntries(got), step).toEqual(Object.fromEntries(expected));
      };

      await agree('opened');
      const seen = new Set<string>();
      for (const s of STEPS) {
        const text = texts.get(s.file)!;
        const at = text.indexOf(s.from);
        expect(at, `${s.why}: '${s.from}' in ${s.file}`).toBeGreaterThanOrEqual(0);
        const next = text.slice(0, at) + s.to + text.slice(at + s.from.length);
        c.change(path.join(root, s.file), rangeOf(text, at, at + s.from.length), s.to);
        versions.set(s.file, versions.get(s.file)! + 1);
        texts.set(s.file, next);
        writeFileSync(path.join(root, s.file), next);
        await agree(s.why);
        for (const v of published().values()) for (const k of v) seen.add(k.split(' ')[1]!);
      }
      // the sequence exercised real findings, in Python and in task files
      expect([...seen]).toEqual(expect.arrayContaining(['swallowed-error-verdict', 'missing-timeout', 'parse-error', 'lambda-syntax']));
    } finally {
      await c.stop().catch(() => c.kill());
    }
  }, 600_000);
});
