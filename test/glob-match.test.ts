/**
 * compileGlobs (src/core/match.ts) tests paths against picomatch's compiled expressions instead of
 * going through picomatch's matcher: the verdicts must be picomatch's own, for the globs vaudit uses
 * (suite adapters' entrypoint globs, config `files`/`exclude`, the default ignores) and for hostile ones,
 * on every file path of the real corpora (when present beside the repository) and on made-up paths.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import picomatch from 'picomatch';
import { describe, expect, it } from 'vitest';
import { compileGlobs } from '../src/core/match.js';
import { DEFAULT_IGNORES } from '../src/engine/discover.js';

const CORPORA = path.resolve(import.meta.dirname, '../../shared/corpora');

function walk(dir: string, base: string, out: string[]): string[] {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return out;
  }
  for (const e of entries) {
    const rel = base ? `${base}/${e.name}` : e.name;
    out.push(rel);
    if (e.isDirectory()) walk(path.join(dir, e.name), rel, out);
  }
  return out;
}

const made = [
  '', 'a', 'a.py', '.hidden.py', 'x/.git/config', 'node_modules/p/index.js', 'src/Lean/task.py', 'src/lean/task.py',
  'sci/ChimeraX/task.py', 'ChimeraX.py', 'a/b/c/d.PY', 'a/b/c/d.py', '!x', 'a b/c.py', 'a/[x]/b.py', 'tasks/x.json',
  'dist/x.min.js', 'x.d.ts', 'x/__pycache__/y.pyc', '**/x.py', 'évaluation/tâche.py', 'a\\b.py', './a.py', 'a//b.py',
];

const globs: string[][] = [
  ['**/*.py'],
  ['**/ChimeraX/**/*.py', '**/ChimeraX.py', '**/lean/**/*.py', '**/Lean.py'],
  ['desktop_env/evaluators/metrics/**/*.py', 'desktop_env/evaluators/getters/*.py'],
  [...DEFAULT_IGNORES],
  ['**/*.{js,mjs,cjs}', '**/*.{ts,mts,cts}', '**/*.json'],
  ['tasks/**', '!tasks/x.json', '!x'],
  ['**/[a-c]/*.py', 'a/?/c/*.py', '**/+(b|c)/**', '**/@(d).py', 'src/{Lean,lean}/*.py'],
  ['**/x.py', '*', '**', 'a b/*.py', '**/.git/**'],
  ['Task*', '*Task', 'eval'],
];

describe('compileGlobs gives picomatch\'s verdicts', () => {
  const paths = [...made, ...walk(path.join(CORPORA, 'scienceboard'), '', []), ...walk(path.join(CORPORA, 'spider2v'), '', [])];
  it.each([
    ['entrypoint files', { dot: true, nocase: true }],
    ['config globs', { dot: true }],
    ['class names', undefined],
  ] as const)('%s', (_, options) => {
    let checked = 0;
    for (const g of globs) {
      const ours = compileGlobs(g, options);
      const theirs = picomatch(g, options);
      for (const p of paths) {
        expect(ours(p), `${JSON.stringify(g)} on ${JSON.stringify(p)}`).toBe(Boolean(theirs(p)));
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(globs.length * made.length);
  });
});
