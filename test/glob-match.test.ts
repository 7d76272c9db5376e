/**
 * compileGlobs (src/core/match.ts) tests paths against picomatch's compiled expressions instead of
 * going through picomatch's matcher: the verdicts must be picomatch's own, for the globs vaudit uses
 * (suite adapters' entrypoint globs, config `files`/`exclude`, the default ignores) and for hostile ones,
 * on every file path of the real corpora (when present beside the repository) and on made-up paths.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import picomatch from 'picomatch';
import { describe, expect, it } from 'vitest';
import { compileGlobs } from '../src/core/match.js';
import { DEFAULT_IGNORE_GLOBS, DEFAULT_IGNORES, discoverFiles } from '../src/engine/discover.js';

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
  // literal paths (compileGlobs keeps them in a set): with dots, dashes, `..`, `//`, `/./`, a leading `./`
  ['a.py', 'a/b/c/d.py', 'tasks/x.json', '../a.py', 'a//b.py', 'x.d.ts', '.hidden.py', 'x/.git/config', 'a/./b.py', './a.py', 'ChimeraX.py', 'src/lean/task.py', 'x-y_z.py', '.', '..'],
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

describe('the default ignores in four globs are the fourteen', () => {
  // the options tinyglobby matches with (discovery: dot false, case-sensitive), and the config's
  const optionSets = [{ dot: false, nocase: false, nobrace: false, noextglob: false, noglobstar: false, posix: true }, { dot: true }];

  it('compile to the same expression around an alternation of the folders', () => {
    const [folders, ...files] = DEFAULT_IGNORE_GLOBS;
    expect(files).toEqual(DEFAULT_IGNORES.slice(-files.length));
    const single = DEFAULT_IGNORES.slice(0, -files.length);
    for (const options of optionSets) {
      const joined = picomatch.makeRe(folders!, options).source;
      const start = joined.indexOf('(node_modules|');
      const end = joined.indexOf(')', start);
      const [prefix, suffix] = [joined.slice(0, start), joined.slice(end + 1)];
      // each folder's own expression is the same prefix and suffix around its name
      const names = single.map((g) => {
        const own = picomatch.makeRe(g, options).source;
        expect(own.startsWith(prefix) && own.endsWith(suffix), g).toBe(true);
        return own.slice(prefix.length, own.length - suffix.length);
      });
      expect(joined.slice(start, end + 1)).toBe(`(${names.join('|')})`);
    }
  });

  it('give the same verdicts on every path of both corpora', () => {
    const paths = [...made, ...walk(path.join(CORPORA, 'scienceboard'), '', []), ...walk(path.join(CORPORA, 'spider2v'), '', [])];
    paths.push('a/.git', '.x/node_modules/y', 'a/venv', 'a/venvx/b', 'x/.vaudit-cache/', 'out', 'a/out/b/c.py', 'dist.py');
    for (const options of optionSets) {
      const four = picomatch(DEFAULT_IGNORE_GLOBS, options);
      const fourteen = picomatch(DEFAULT_IGNORES, options);
      for (const p of paths) expect(Boolean(four(p)), p).toBe(Boolean(fourteen(p)));
    }
  });
});

describe('a file named with forceExclude is tested against the globs a folder walk ignores', () => {
  it('skips named files in default-ignored folders and under config excludes, keeps the rest', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'vaudit-force-exclude-'));
    try {
      const named = ['node_modules/p/a.py', 'build/b.py', 'x/.venv/c.py', 'src/d.py', 'keep/e.py', 'keep/f.min.js'];
      for (const f of named) {
        mkdirSync(path.join(dir, path.dirname(f)), { recursive: true });
        writeFileSync(path.join(dir, f), 'x = 1\n');
      }
      const found = (forceExclude: boolean) => discoverFiles(named, { cwd: dir, exclude: ['src/**'], forceExclude }).then((r) => r.files.map((f) => path.relative(dir, f).split(path.sep).join('/')));
      expect(await found(true)).toEqual(['keep/e.py']);
      expect(await found(false)).toEqual([...named].sort());
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
