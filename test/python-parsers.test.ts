/**
 * The two builds of tree-sitter-python (native addon, default; web-tree-sitter wasm, fallback)
 * must give the analysis the same trees: same node types, fields, UTF-16 positions and error
 * flags, on every Python file of the real corpora and on edge cases (non-ASCII, CRLF, syntax
 * errors, files larger than the parser's input buffer).
 */
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { pyFiles } from './helpers/py-files.js';
import { pythonParser, type PythonParser } from '../src/lang/python/parser.js';
import { DROPPED_TOKENS, type PyNode } from '../src/lang/python/tree.js';
import { runCli } from './helpers/run-cli.js';
import { tempDir } from './helpers/temp-dir.js';

const repoRoot = path.resolve(import.meta.dirname, '..');
const corpora = path.resolve(repoRoot, '../shared/corpora');

/** One line per node, pre-order: depth, type, field, range, named/error/missing flags. */
function dump(root: PyNode): string[] {
  const out: string[] = [];
  const visit = (n: PyNode, depth: number) => {
    out.push(`${depth} ${n.type} ${n.field ?? '-'} ${n.start}-${n.end} ${n.named ? 'n' : 'a'}${n.hasError ? 'E' : ''}${n.isMissing ? 'M' : ''}`);
    for (const c of n.children) {
      if (c.parent !== n) throw new Error(`broken parent link at ${c.type} ${c.start}`);
      visit(c, depth + 1);
    }
  };
  visit(root, 0);
  return out;
}


async function both(): Promise<[PythonParser, PythonParser]> {
  return [await pythonParser('native'), await pythonParser('wasm')];
}

function expectSame(native: PythonParser, wasm: PythonParser, text: string, label: string) {
  const a = native.parse(text);
  const b = wasm.parse(text);
  expect(a.end, label).toBe(text.length);
  const da = dump(a);
  const db = dump(b);
  if (da.join('\n') !== db.join('\n')) {
    const i = da.findIndex((l, k) => l !== db[k]);
    expect(`${label} node ${i}: ${da[i]}`).toBe(`${label} node ${i}: ${db[i]}`);
  }
  return da.length;
}

describe('Python parsers: native and wasm trees agree', () => {
  it('the native addon loads here and is the default', async () => {
    const [native, wasm] = await both();
    expect(native.kind).toBe('native');
    expect(wasm.kind).toBe('wasm');
    expect((await pythonParser()).kind).toBe('native');
  });

  it('edge cases: non-ASCII and astral characters, CRLF, syntax errors, missing tokens, a file past the input buffer', async () => {
    const [native, wasm] = await both();
    const cases = [
      'x = "héllo😀 wörld"\ny = x  # ß 中文\n',
      'def f(a):\r\n    return a + 1\r\n',
      'def f(:\n    return 1\nx = 2\n',
      'if x\n    y = 1\n',
      'print("a"\n',
      'class C:\n    def m(self): ...\n    é = "😀" * 3\n',
      `${'def g(x):\n    """ünïcode 😀"""\n    return [i for i in range(x) if i % 2]\n'.repeat(800)}`,
      '',
      '\n\n# only a comment\n',
    ];
    for (const [i, c] of cases.entries()) expectSame(native, wasm, c, `case ${i}`);
    // positions are UTF-16 offsets into the JavaScript string
    const t = 'x = "😀"\ny = 1\n';
    const second = native.parse(t).children[1]!;
    expect(t.slice(second.start, second.end)).toBe('y = 1');
  });

  it('leave out punctuation tokens no field names, and keep keywords, operators and tokens the parser inserted', async () => {
    for (const p of await both()) {
      const all = (n: PyNode): PyNode[] => [n, ...n.children.flatMap(all)];
      const types = (t: string) => all(p.parse(t)).map((n) => n.type);
      const t = types('def f(a, b=[1, 2], *c):\n    return {"k": (a.x, b[0:1])} if not a in b else f(k=1)\n');
      for (const tok of DROPPED_TOKENS) expect(t, `${p.kind} ${tok}`).not.toContain(tok);
      for (const kept of ['def', 'return', 'if', 'not', 'in', 'else', '*']) expect(t, `${p.kind} ${kept}`).toContain(kept);
      // the call's empty argument list has no child left, the attribute keeps its two fields
      const tree = p.parse('f()\na.b\n');
      const args = all(tree).find((n) => n.type === 'argument_list')!;
      expect([args.children.length, args.start, args.end]).toEqual([0, 1, 3]);
      expect(all(tree).find((n) => n.type === 'attribute')!.children.map((c) => c.field)).toEqual(['object', 'attribute']);
      // a closing bracket the parser inserted to recover stays, flagged missing
      const missing = all(p.parse('class A(B:\n    pass\n')).filter((n) => n.isMissing);
      expect(missing.map((n) => n.type), p.kind).toEqual([')']);
    }
  });

  for (const corpus of ['scienceboard', 'spider2v']) {
    const dir = path.join(corpora, corpus);
    it.skipIf(!existsSync(dir))(`every Python file of ${corpus} (skipped when ../shared/corpora/${corpus} is absent)`, async () => {
      const [native, wasm] = await both();
      const files = pyFiles(dir);
      expect(files.length).toBeGreaterThan(10);
      let nodes = 0;
      for (const f of files) nodes += expectSame(native, wasm, readFileSync(f, 'utf8'), path.relative(dir, f));
      expect(nodes).toBeGreaterThan(10_000);
    });
  }
});

describe('Python parser in the CLI', () => {
  const dir = tempDir('vaudit-parsers-');
  writeFileSync(path.join(dir, 'verify.py'), 'def check(x):\n    return y\n');

  it('--debug and the JSON report say the native parser ran', () => {
    const r = runCli(['check', '.', '--debug', '--format', 'json'], { cwd: dir });
    expect(r.stderr).toContain('vaudit debug: python parser: native tree-sitter');
    const report = JSON.parse(r.stdout);
    expect(report.summary.pythonParser).toBe('native');
    expect(report.findings.map((f: { ruleId: string }) => f.ruleId)).toContain('unbound-name');
  });

  it('falls back to web-tree-sitter when the native addon cannot load, says why, and finds the same', () => {
    // a preload that makes `require('tree-sitter')` fail, as on a platform with no usable binary
    const preload = path.join(dir, 'no-native.cjs');
    writeFileSync(preload, `const M = require('module'); const load = M._load;
M._load = function (req, ...rest) { if (req === 'tree-sitter') throw new Error('no binary for this platform (test)'); return load.call(this, req, ...rest); };\n`);
    const r = runCli(['check', '.', '--debug', '--format', 'json'], { cwd: dir, env: { NODE_OPTIONS: `--require ${preload}` } });
    expect(r.stderr).toContain('vaudit debug: python parser: web-tree-sitter (wasm) — native tree-sitter did not load: no binary for this platform (test)');
    const report = JSON.parse(r.stdout);
    expect(report.summary.pythonParser).toBe('wasm');
    const native = JSON.parse(runCli(['check', '.', '--format', 'json'], { cwd: dir }).stdout);
    expect(report.findings.map((f: { fingerprint: string }) => f.fingerprint)).toEqual(native.findings.map((f: { fingerprint: string }) => f.fingerprint));
  });
});
