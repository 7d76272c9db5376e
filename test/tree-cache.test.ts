/**
 * `--cache` keeps parsed Python trees across runs (`lang/python/tree-cache.ts`, issue 14): a tree
 * rebuilt from the cache file must be the tree a parse makes; anything not written for this stamp,
 * grammar and parser (or a damaged file) is a miss, never an error; and the CLI re-parses only the
 * texts that changed since the last run, with the same findings as a run without the cache.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { pythonParser } from '../src/lang/python/parser.js';
import { saveTreeCache, treeCacheStats, useTreeCacheFile } from '../src/lang/python/tree-cache.js';
import { pyFiles } from './helpers/py-files.js';
import { runCli } from './helpers/run-cli.js';
import { dumpTree, TREE_EDGE_CASES } from './helpers/tree-dump.js';

const repoRoot = path.resolve(import.meta.dirname, '..');
const corpora = path.resolve(repoRoot, '../shared/corpora');
const tmp = mkdtempSync(path.join(tmpdir(), 'vaudit-tree-cache-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
afterEach(() => useTreeCacheFile(undefined));

const parser = await pythonParser();
let n = 0;
const cacheFile = () => path.join(tmp, `c${n++}`, 'trees.cache');

/** Parse `texts` in one "run" with the cache file in use, and save it as the CLI does. */
async function run(file: string, texts: readonly string[], stamp = 's1'): Promise<string[]> {
  useTreeCacheFile(file, stamp);
  const dumps = texts.map((t) => dumpTree(parser.parse(t)));
  saveTreeCache();
  return dumps;
}

describe('tree cache: a rebuilt tree is the parsed tree', () => {
  it('edge cases: non-ASCII, CRLF, ERROR and MISSING nodes, deep nesting, empty text', async () => {
    const file = cacheFile();
    const fresh = await run(file, TREE_EDGE_CASES);
    expect(treeCacheStats).toMatchObject({ hits: 0, stored: TREE_EDGE_CASES.length });
    const again = await run(file, TREE_EDGE_CASES);
    expect(treeCacheStats).toMatchObject({ hits: TREE_EDGE_CASES.length, stored: 0 });
    expect(again).toEqual(fresh);
    // without a cache in use, the same trees again
    useTreeCacheFile(undefined);
    expect(TREE_EDGE_CASES.map((t) => dumpTree(parser.parse(t)))).toEqual(fresh);
  });

  it('a tree over the node limit (MAX_ANALYSED_NODES: not analysed) is not stored; one under it is', async () => {
    const file = cacheFile();
    // 17 nodes a function: 24,000 functions are about 408,000 nodes
    const large = Array.from({ length: 24_000 }, (_, i) => `def f${i}(s):\n    return s.get(${i}) == ${i}\n`).join('');
    await run(file, [large, 'a = 1\n']);
    expect(treeCacheStats).toMatchObject({ stored: 1 });
    await run(file, [large, 'a = 1\n']);
    expect(treeCacheStats).toMatchObject({ hits: 1, stored: 0 });
  });

  for (const corpus of ['scienceboard', 'spider2v']) {
    const dir = path.join(corpora, corpus);
    it.skipIf(!existsSync(dir))(`every Python file of ${corpus} (skipped when ../shared/corpora is absent)`, async () => {
      const texts = pyFiles(dir).map((f) => readFileSync(f, 'utf8'));
      expect(texts.length).toBeGreaterThan(20);
      const file = cacheFile();
      const fresh = await run(file, texts);
      const again = await run(file, texts);
      expect(treeCacheStats.hits).toBe(texts.length);
      for (let i = 0; i < texts.length; i++) expect(again[i]).toBe(fresh[i]);
    });
  }
});

describe('tree cache: what is a miss', () => {
  it('only the texts that changed are parsed; the others are rebuilt', async () => {
    const file = cacheFile();
    await run(file, ['a = 1\n', 'b = 2\n', 'c = 3\n']);
    const dumps = await run(file, ['a = 1\n', 'b = 22\n', 'c = 3\n']);
    expect(treeCacheStats).toMatchObject({ hits: 2, stored: 1, entries: 3 });
    expect(dumps[1]).toBe(dumpTree(parser.parse('b = 22\n')));
    // the file keeps the older tree too while it fits
    await run(file, ['b = 2\n']);
    expect(treeCacheStats).toMatchObject({ hits: 1, stored: 0, entries: 4 });
  });

  it('another stamp (vaudit rebuilt) finds nothing and replaces the file', async () => {
    const file = cacheFile();
    await run(file, ['a = 1\n'], 'old');
    await run(file, ['a = 1\n'], 'new');
    expect(treeCacheStats).toMatchObject({ hits: 0, stored: 1, entries: 0 });
    await run(file, ['a = 1\n'], 'new');
    expect(treeCacheStats.hits).toBe(1);
  });

  it('a damaged or foreign file is a miss, not an error, and is rewritten', async () => {
    const text = 'def f(x):\n    return x\n';
    const expected = dumpTree(parser.parse(text));
    for (const damage of [
      (b: Buffer) => b.subarray(0, 5), // cut in the magic number
      (b: Buffer) => b.subarray(0, b.length - 8), // cut in the nodes
      (b: Buffer) => Buffer.concat([b.subarray(0, 8), Buffer.from('{not json'), b.subarray(17)]), // header
      (b: Buffer) => { const c = Buffer.from(b); c.fill(0x7f, c.length - 32); return c; }, // nodes overwritten
      (b: Buffer) => { const c = Buffer.from(b); c.writeInt32LE(c.readInt32LE(c.length - 8) + 1, c.length - 8); return c; }, // an offset moved: still a plausible tree
      () => Buffer.from('{"format":1}'), // someone else's file
    ]) {
      const file = cacheFile();
      await run(file, [text]);
      writeFileSync(file, damage(readFileSync(file)));
      expect(await run(file, [text])).toEqual([expected]);
      expect(await run(file, [text])).toEqual([expected]);
      expect(treeCacheStats.hits).toBe(1);
    }
  });

  it('an unwritable cache folder only costs speed', async () => {
    const blocker = path.join(tmp, 'a-file');
    writeFileSync(blocker, 'x');
    const expected = [dumpTree(parser.parse('a = 1\n'))];
    expect(await run(path.join(blocker, 'trees.cache'), ['a = 1\n'])).toEqual(expected);
    expect(await run(path.join(blocker, 'trees.cache'), ['a = 1\n'])).toEqual(expected);
    expect(treeCacheStats.hits).toBe(0);
  });
});

describe('vaudit check --cache re-parses only what changed (a real process)', () => {
  it('same findings as without the cache; one edited file is the one parse', () => {
    const dir = path.join(tmp, 'suite');
    const w = (rel: string, text: string) => {
      mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
      writeFileSync(path.join(dir, rel), text);
    };
    w('verifier/a.py', 'import subprocess\n\ndef check(path):\n    out = subprocess.run(["cat", path], capture_output=True)\n    return out.returncode == 0\n');
    w('verifier/b.py', 'def g(:\n    pass\n');
    w('verifier/c.py', 'def h(x):\n    try:\n        return x.value == 1\n    except Exception:\n        return False\n');
    const plain = runCli(['check', '.', '--scope', 'all', '--format', 'json', '-o', '../plain.json'], { cwd: dir });
    const args = ['check', '.', '--scope', 'all', '--cache', '--cache-location', '../cache', '--format', 'json', '-o', '../cached.json', '--debug'];
    const first = runCli(args, { cwd: dir });
    expect(first.code).toBe(plain.code);
    expect(first.stderr).toMatch(/--cache trees: 0 rebuilt from the 0 in the cache folder, 3 parsed and stored/);
    w('verifier/c.py', 'def h(x):\n    try:\n        return x.value == 2\n    except Exception:\n        return False\n');
    const second = runCli(args, { cwd: dir });
    expect(second.stderr).toMatch(/python parsing: 1 parses .*--cache trees: 2 rebuilt from the 3 in the cache folder, 1 parsed and stored/);
    const again = runCli(['check', '.', '--scope', 'all', '--format', 'json', '-o', '../plain2.json'], { cwd: dir });
    const findings = (f: string) => (JSON.parse(readFileSync(path.join(tmp, f), 'utf8')) as { findings: unknown[] }).findings;
    expect(findings('cached.json')).toEqual(findings('plain2.json'));
    expect(findings('plain.json').length).toBeGreaterThan(0);
    expect(again.code).toBe(second.code);
  });
});
