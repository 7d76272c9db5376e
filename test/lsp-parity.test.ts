/**
 * Editor diagnostics equal a cold `vaudit check` of the same text (issue 14). A
 * real `vaudit lsp --stdio` process edits a copy of the demo suite through a
 * sequence of incremental changes — local ones, and ones that change cross-file
 * facts (a helper another module imports renamed, the decorator every verifier
 * uses renamed, a helper-server route added and removed, a task's lambda fixed,
 * a syntax error made and mended) — and after each step every open document's
 * published diagnostics must equal the findings of a fresh `vaudit check
 * --format json` process over the same files (written to disk).
 *
 * A Python edit that keeps the module's cross-file summary (a body edit) keeps
 * the session's suite indexes, moving the bindings to the new offsets
 * (src/engine/index-reuse.ts); one that changes it (a renamed function, a
 * decorator, an import) rebuilds them. Steps say which they expect, and the
 * server's `vaudit/stats` counters must agree.
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
  'verifier/base/evaluator.py',
  'verifier/chimerax/mixin.py',
  'verifier/lean/mixin.py',
  'verifier/server/tools.py',
  'verifier/kalgebra/mixin.py',
  'tasks/ChimeraX/color-key.json',
  'tasks/KAlgebra/sqrt-two.json',
  'tasks/ChimeraX/rename-model.json',
  'tasks/Lean/mul-comm.json',
];

/**
 * Each step replaces the first occurrence of `from` in `file` by `to`. `reuse`: the session keeps its
 * suite indexes (true) or rebuilds them (false); unset: either.
 */
const STEPS: Array<{ why: string; file: string; from: string; to: string; reuse?: boolean }> = [
  { why: 'one character inside an identifier (the unbound name becomes the bound one)', file: 'verifier/chimerax/mixin.py', from: 'raw_keys)', to: 'raw_key)', reuse: true },
  { why: 'rename a helper another module imports', file: 'verifier/base/utils.py', from: 'def normalize_lines', to: 'def normalise_lines', reuse: false },
  { why: 'rename the decorator every verifier imports', file: 'verifier/base/utils.py', from: 'def error_factory', to: 'def error_factorx', reuse: false },
  { why: 'rename it back', file: 'verifier/base/utils.py', from: 'def error_factorx', to: 'def error_factory', reuse: false },
  { why: 'declare a helper-server route', file: 'verifier/server/tools.py', from: 'def check_lean', to: '@app.route("/lean/check")\ndef check_lean', reuse: false },
  { why: 'call the route from a verifier (a body edit: a new verifier path)', file: 'verifier/lean/mixin.py', from: '/lean"', to: '/lean/check"', reuse: true },
  { why: 'remove the route again', file: 'verifier/server/tools.py', from: '@app.route("/lean/check")\n', to: '', reuse: false },
  { why: "fix a task's broken lambda", file: 'tasks/ChimeraX/color-key.json', from: "['_border']", to: "['_border'])", reuse: false },
  { why: "fix a task entry's misspelt value (float-equality: the bound verifier compares it with ==)", file: 'tasks/KAlgebra/sqrt-two.json', from: '"vlaue"', to: '"value"', reuse: false },
  { why: 'a body edit above the bound method (its offsets move; the entry finding stays)', file: 'verifier/kalgebra/mixin.py', from: 'current_states.get("equation", "")', to: '(current_states.get("equation") or "")', reuse: true },
  { why: 'a body edit in the bound method (the entry finding goes)', file: 'verifier/kalgebra/mixin.py', from: 'return got == expected', to: 'return abs(got - expected) < 1e-9', reuse: true },
  { why: 'and back (it returns)', file: 'verifier/kalgebra/mixin.py', from: 'return abs(got - expected) < 1e-9', to: 'return got == expected', reuse: true },
  { why: 'rename the method the entry routes to (the entry is unbound)', file: 'verifier/kalgebra/mixin.py', from: 'def _eval_val(', to: 'def _eval_vals(', reuse: false },
  { why: 'rename it back', file: 'verifier/kalgebra/mixin.py', from: 'def _eval_vals(', to: 'def _eval_val(', reuse: false },
  { why: 'change an import', file: 'verifier/kalgebra/mixin.py', from: 'import error_factory\n', to: 'import error_factory, normalize_lines\n', reuse: false },
  { why: 'add a decorator', file: 'verifier/kalgebra/mixin.py', from: '    def _eval_var(', to: '    @staticmethod\n    def _eval_var(', reuse: false },
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

describe('vaudit lsp diagnostics equal vaudit check after each edit', () => {
  it('local and cross-file edits through a real server', async () => {
    const c = await startClient({ root });
    try {
      const { published, agree, edit } = openForParity(c, root, OPEN);
      await agree('opened');
      const counts = async () => {
        const r = await c.conn.sendRequest('vaudit/stats') as { sessions: Array<{ indexBuilds: number; indexReuses: number }> };
        return r.sessions[0]!;
      };
      const seen = new Set<string>();
      for (const s of STEPS) {
        const before = await counts();
        await edit(s);
        for (const v of published().values()) for (const k of v) seen.add(k.split(' ')[1]!);
        if (s.reuse !== undefined) {
          const after = await counts();
          const got = { builds: after.indexBuilds - before.indexBuilds, reuses: after.indexReuses - before.indexReuses };
          expect(got, `${s.why}: suite indexes ${s.reuse ? 'kept' : 'rebuilt'}`).toEqual(s.reuse ? { builds: 0, reuses: 1 } : { builds: 1, reuses: 0 });
        }
      }
      // the sequence exercised real findings, in Python and in task files
      expect([...seen]).toEqual(expect.arrayContaining(['swallowed-error-verdict', 'missing-timeout', 'parse-error', 'lambda-syntax', 'float-equality']));
    } finally {
      await c.stop().catch(() => c.kill());
    }
  }, 600_000);
});
