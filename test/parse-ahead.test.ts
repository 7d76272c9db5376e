/**
 * Parsing ahead on a spare core (issue 14): a tree parsed in a thread and rebuilt from its flat form
 * must be the tree the main thread would have made; the claim protocol must hand each file out once
 * and fall back to the main thread when a thread posts nothing; and the CLI must report the same
 * findings with threads as without, and exit.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { pyFiles } from './helpers/py-files.js';
import { runCli } from './helpers/run-cli.js';
import { dumpTree, TREE_EDGE_CASES } from './helpers/tree-dump.js';
import { nativeTreeParser } from '../src/lang/python/parser.js';
import { convertTree, treeDepth, type TreeCursorLike } from '../src/lang/python/tree.js';
import { decodeTree, encodeTree, FlatNameTable } from '../src/lang/python/flat-tree.js';
import { ParseAhead, runThread } from '../src/lang/python/parse-ahead.js';
import type { WorkerThreads } from '../src/core/threads.js';
// @ts-expect-error: a plain .mjs script of bench/, untyped
import { genPython } from '../bench/gen-python.mjs';
import { tempDir } from './helpers/temp-dir.js';

const repoRoot = path.resolve(import.meta.dirname, '..');
const corpora = path.resolve(repoRoot, '../shared/corpora');
const parser = nativeTreeParser();

function parseTree(text: string): { walk(): TreeCursorLike; rootNode: { hasError: boolean } } {
  const t = parser.parse(text);
  if (!t) throw new Error('no tree');
  return t;
}

const copied = (text: string) => {
  const t = parseTree(text);
  return convertTree(t.walk(), t.rootNode.hasError, text);
};


describe('flat trees: a tree rebuilt from its flat form is the tree convertTree makes', () => {
  it('edge cases: non-ASCII, CRLF, ERROR and MISSING nodes, deep nesting, empty text', () => {
    const names = new FlatNameTable();
    for (const [i, text] of TREE_EDGE_CASES.entries()) {
      const t = parseTree(text);
      const rebuilt = decodeTree(encodeTree(t.walk(), t.rootNode.hasError, names), text, names);
      expect(dumpTree(rebuilt), `case ${i}`).toBe(dumpTree(copied(text)));
    }
    // the error flags are there to compare
    expect(dumpTree(copied('def f(:\n'))).toMatch(/E/);
    expect(treeDepth(copied(TREE_EDGE_CASES[6]!))).toBeGreaterThan(150);
  });

  it('names met by another table (a thread) are what the rebuilding side needs', () => {
    const thread = new FlatNameTable();
    const main = new FlatNameTable();
    const text = 'def f(a, *, b=1):\n    return [x async for x in a if x]\n';
    const t = parseTree(text);
    const flat = encodeTree(t.walk(), t.rootNode.hasError, thread);
    expect(() => decodeTree(flat, text, main)).toThrow(/unknown node type id/);
    main.merge(thread.takeFresh());
    expect(dumpTree(decodeTree(flat, text, main))).toBe(dumpTree(copied(text)));
    expect(thread.takeFresh()).toEqual({ types: [], fields: [] });
    // the main thread encodes ahead with the table it merged names into: the same tokens are left out
    const own = encodeTree(parseTree(text).walk(), false, main);
    expect(dumpTree(decodeTree(own, text, main))).toBe(dumpTree(copied(text)));
  });

  for (const corpus of ['scienceboard', 'spider2v']) {
    const dir = path.join(corpora, corpus);
    it.skipIf(!existsSync(dir))(`every Python file of ${corpus} (skipped when ../shared/corpora/${corpus} is absent)`, () => {
      const files = pyFiles(dir);
      expect(files.length).toBeGreaterThan(10);
      const names = new FlatNameTable();
      for (const f of files) {
        const text = readFileSync(f, 'utf8');
        const t = parseTree(text);
        const rebuilt = decodeTree(encodeTree(t.walk(), t.rootNode.hasError, names), text, names);
        expect(dumpTree(rebuilt), path.relative(dir, f)).toBe(dumpTree(copied(text)));
      }
    });
  }
});

/** Threads stood in for by the calling thread: `runThread` runs here when the files are sent. */
function inProcessThreads(): WorkerThreads & { done: Promise<void> } {
  const queue: unknown[] = [];
  let resolveData!: (d: unknown) => void;
  const data = new Promise<unknown>((r) => (resolveData = r));
  const done = Promise.resolve(runThread(0, (msg) => queue.push(msg), data, { stopped: () => false, native: (work) => work() })).then(() => undefined);
  return { count: 1, done, send: (d) => resolveData(d), receive: () => queue.shift(), close: () => {} };
}

describe('ParseAhead: the claim protocol', () => {
  const files = TREE_EDGE_CASES.map((text, i) => ({ path: `/p/m${i}.py`, text }));

  it('hands every file out once, as the tree the main thread would have made', async () => {
    const threads = inProcessThreads();
    // the main thread claims m0 before the thread starts: it parses that one itself
    const ahead = new ParseAhead(files, threads);
    expect(ahead.take('/p/m0.py', files[0]!.text)).toBeUndefined();
    await threads.done;
    for (const f of files.slice(1)) {
      const root = ahead.take(f.path, f.text);
      expect(root, f.path).toBeDefined();
      expect(dumpTree(root!)).toBe(dumpTree(copied(f.text)));
      // once taken, a file asked for again (after an eviction) is parsed by the caller
      expect(ahead.take(f.path, f.text)).toBeUndefined();
    }
    // a file it was not given, or another text under the same path (an editor buffer)
    expect(ahead.take('/p/other.py', 'x = 1\n')).toBeUndefined();
    expect(ahead.take('/p/m1.py', 'x = 2\n')).toBeUndefined();
    ahead.close();
  });

  it('a thread that claimed a file and died: the main thread parses the free files ahead meanwhile, waits a bounded time, then parses that file itself', () => {
    let state: Int32Array | undefined;
    let receives = 0;
    const dead: WorkerThreads = {
      count: 1,
      send: (d) => {
        state = (d as { state: Int32Array }).state;
        // claimed by the thread, never posted
        Atomics.store(state, 0, 2);
        Atomics.store(state, 1, 2);
      },
      receive: () => {
        receives++;
        return undefined;
      },
      close: () => {},
    };
    const ahead = new ParseAhead(files, dead, 30);
    expect(state).toBeDefined();
    expect(ahead.take('/p/m0.py', files[0]!.text)).toBeUndefined();
    // and it does not wait for that thread again: no more looks at the thread's messages, no more parsing ahead
    const looks = receives;
    const parsedAhead = files.slice(2).map((f) => Atomics.load(state!, files.indexOf(f)));
    expect(ahead.take('/p/m1.py', files[1]!.text)).toBeUndefined();
    expect(receives - looks).toBeLessThanOrEqual(1);
    expect(files.slice(2).map((f) => Atomics.load(state!, files.indexOf(f)))).toEqual(parsedAhead);
    // while it waited, it parsed the free files ahead itself: they are the trees a parse makes
    for (const f of files.slice(2)) {
      expect(Atomics.load(state!, files.indexOf(f))).toBe(3);
      const root = ahead.take(f.path, f.text);
      expect(root, f.path).toBeDefined();
      expect(dumpTree(root!)).toBe(dumpTree(copied(f.text)));
    }
  });
});

describe('parsing ahead in the CLI (real threads)', () => {
  const dir = tempDir('vaudit-ahead-');
  genPython(dir, 3000);
  // a file with syntax errors and one a thread must not parse (too deep for CPython's tokenizer)
  mkdirSync(path.join(dir, 'extra'), { recursive: true });
  writeFileSync(path.join(dir, 'extra', 'broken.py'), 'def f(:\n    return y\n\nclass C\n    pass\n');
  writeFileSync(path.join(dir, 'extra', 'deep.py'), `x = ${'['.repeat(250)}${']'.repeat(250)}\n`);
  // VAUDIT_PARSE_AHEAD_DEFER: the main thread leaves every file to the thread, so that the thread parses
  // files does not depend on how soon it is scheduled (machine load)
  const run = (threads: string, extra: string[] = []) =>
    runCli(['check', '.', '--scope', 'all', '--format', 'json', '--debug', ...extra], { cwd: dir, env: { VAUDIT_PARSE_THREADS: threads, VAUDIT_PARSE_AHEAD_DEFER: '1' } });

  it('the same report with a thread as without, and the thread parsed files', () => {
    const off = run('0');
    const on = run('1');
    expect(on.code).toBe(off.code);
    expect(off.stderr).toContain('parsing ahead: no threads');
    const m = /parsing ahead: 1 thread; (\d+) files parsed ahead.* and parsed (\d+) ahead itself/.exec(on.stderr);
    expect(m, on.stderr).not.toBeNull();
    expect(Number(m![1]) - Number(m![2])).toBeGreaterThan(0);
    const a = JSON.parse(on.stdout);
    const b = JSON.parse(off.stdout);
    expect(a.findings.length).toBeGreaterThan(0);
    expect(a.findings).toEqual(b.findings);
    expect(a.findings.map((f: { ruleId: string }) => f.ruleId)).toContain('parse-error');
  });

  it('the wasm parser: no thread parses, same findings', () => {
    const wasm = runCli(['check', '.', '--scope', 'all', '--format', 'json', '--debug'], { cwd: dir, env: { VAUDIT_PARSE_THREADS: '1', VAUDIT_PYTHON_PARSER: 'wasm' } });
    expect(wasm.stderr).toContain('parsing ahead: no threads');
    expect(JSON.parse(wasm.stdout).findings).toEqual(JSON.parse(run('0').stdout).findings);
  });
});
