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
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error plain ESM helper shared with bench/
import { startClient, REPO } from '../bench/lsp-client.mjs';
import { openForParity } from './helpers/lsp-parity.js';


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

describe('vaudit lsp diagnostics equal vaudit check when the verifier-path walk replays its memo', () => {
  it('edits that keep and change cross-file summaries, through a real server', async () => {
    const c = await startClient({ root });
    try {
      const { published, agree, edit } = openForParity(c, root, OPEN);
      await agree('opened');
      const counts = async () => {
        const r = await c.conn.sendRequest('vaudit/stats') as { sessions: Array<{ reachReplays: number; reachWalks: number }> };
        return r.sessions[0]!;
      };
      const seen = new Set<string>();
      let toolsBefore = published().get('verifier/server/tools.py')?.length ?? 0;
      for (const s of STEPS) {
        const before = await counts();
        await edit(s);
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
