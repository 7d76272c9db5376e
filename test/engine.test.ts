/** The engine as a library: discovery, central pass, positions, suppressions, bad input, crash isolation. */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync, symlinkSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { lint } from '../src/engine/lint.js';
import { defineRule, type Rule } from '../src/contract/rule.js';

const docs = { whatItDoes: '', why: '', incorrect: [], correct: [] };
const pyIdent = defineRule({
  meta: { id: 'py-ident', description: 'test rule', defaultSeverity: 'error', layers: ['python'], languages: ['python'],
    messages: { id: { what: 'Identifier {{name}} is flagged by the test rule.', why: '', fix: '' } }, docs },
  create(ctx) {
    return { python: { identifier(node) { if (node.text.startsWith('bad')) ctx.report({ messageId: 'id', data: { name: node.text }, at: node }); } } };
  },
});
const crashing = defineRule({
  meta: { id: 'crashy', description: 'test rule', defaultSeverity: 'warn', layers: ['python'], languages: ['python'], messages: { m: { what: 'Never reported here at all.', why: '', fix: '' } }, docs },
  create() { return { python: { identifier() { throw new Error('boom'); } } }; },
});
const jsRule = defineRule({
  meta: { id: 'js-ident', description: 'test rule', defaultSeverity: 'warn', layers: ['javascript'], languages: ['javascript'], messages: { id: { what: 'Identifier {{name}} is flagged by the test rule.', why: '', fix: '' } }, docs },
  create(ctx) {
    return { javascript: { Identifier(node, _c, anc) { const n = (node as unknown as { name: string }).name; if (n.startsWith('bad')) ctx.report({ messageId: 'id', data: { name: `${n}@${anc.length}` }, at: node }); } } };
  },
});
const twice = defineRule({
  meta: { id: 'py-twice', description: 'test rule', defaultSeverity: 'warn', layers: ['python'], languages: ['python'], messages: { id: { what: 'Identifier {{name}} is flagged (visited from {{via}}).', why: '', fix: '' } }, docs },
  create(ctx) {
    // visits each flagged spot twice, once with a different message: the identical pair is one finding
    return { python: { identifier(node) {
      if (!node.text.startsWith('bad')) return;
      for (const via of ['a', 'a', 'b']) ctx.report({ messageId: 'id', data: { name: node.text, via }, at: node });
    } } };
  },
});
const rules = new Map<string, Rule>([['py-ident', pyIdent], ['crashy', crashing], ['js-ident', jsRule]]);

let dir: string;
beforeEach(() => { dir = mkdtempSync(path.join(tmpdir(), 'vaudit-engine-')); });
afterEach(() => { rmSync(dir, { recursive: true, force: true }); });
function write(rel: string, text: string | Buffer) {
  const p = path.join(dir, rel);
  mkdirSync(path.dirname(p), { recursive: true });
  writeFileSync(p, text);
  return p;
}

describe('central pass', () => {
  it('reports exact 1-based positions in UTF-16 columns', async () => {
    write('v.py', 's = "é€😀"; bad_name = 1\n');
    const r = await lint({ paths: [dir], cwd: dir, ruleSet: rules, rules: ['py-ident'] });
    expect(r.findings.map((f) => [f.ruleId, f.range.start.line, f.range.start.column, f.range.end.column])).toEqual([['py-ident', 1, 13, 21]]);
    expect(r.findings[0]!.message).toBe('Identifier bad_name is flagged by the test rule.');
    r.dispose();
  });

  it('isolates a crashing rule: one internal-error per file, other rules still report', async () => {
    write('v.py', 'bad1 = 1\nbad2 = 2\n');
    const r = await lint({ paths: [dir], cwd: dir, ruleSet: rules });
    const ids = r.findings.map((f) => f.ruleId);
    expect(ids.filter((i) => i === 'internal-error')).toHaveLength(1);
    expect(ids.filter((i) => i === 'py-ident')).toHaveLength(2);
    r.dispose();
  });

  it('never emits two identical findings (same rule, file, range and message)', async () => {
    write('v.py', 'bad_one = 1\n');
    const r = await lint({ paths: [dir], cwd: dir, ruleSet: new Map<string, Rule>([['py-twice', twice]]) });
    expect(r.findings.map((f) => f.message)).toEqual([
      'Identifier bad_one is flagged (visited from a).',
      'Identifier bad_one is flagged (visited from b).',
    ]);
    expect(new Set(r.findings.map((f) => f.fingerprint)).size).toBe(2);
    r.dispose();
  });

  it('walks JavaScript with ancestors', async () => {
    write('v.js', 'function f() { return bad; }\n');
    const r = await lint({ paths: [dir], cwd: dir, ruleSet: rules, rules: ['js-ident'] });
    expect(r.findings.map((f) => [f.message, f.range.start.column])).toEqual([['Identifier bad@4 is flagged by the test rule.', 23]]);
    r.dispose();
  });
});

describe('suppressions', () => {
  it('honours Python inline suppressions and reports stale ones', async () => {
    write('v.py', 'bad1 = 1  # vaudit: ignore[py-ident]\n# vaudit: ignore[py-ident]\nbad2 = 2\nok = 3  # vaudit: ignore[py-ident]\n');
    const r = await lint({ paths: [dir], cwd: dir, ruleSet: rules, rules: ['py-ident'] });
    expect(r.suppressed).toHaveLength(2);
    expect(r.findings.map((f) => [f.ruleId, f.range.start.line])).toEqual([['unused-suppression', 4]]);
    r.dispose();
  });

  it('honours JS next-line suppressions', async () => {
    write('v.js', '// vaudit-ignore-next-line js-ident\nbad1;\nbad2;\n');
    const r = await lint({ paths: [dir], cwd: dir, ruleSet: rules, rules: ['js-ident'] });
    expect(r.findings.map((f) => f.range.start.line)).toEqual([3]);
    r.dispose();
  });

  it('applies config severities and off', async () => {
    write('vaudit.config.json', JSON.stringify({ rules: { 'py-ident': 'warn', crashy: 'off' } }));
    write('v.py', 'bad = 1\n');
    const r = await lint({ paths: [dir], cwd: dir, ruleSet: rules });
    expect(r.findings.map((f) => [f.ruleId, f.severity])).toEqual([['py-ident', 'warning']]);
    r.dispose();
  });
});

describe('bad input never stops the run', () => {
  it('reports one parse-error per bad file and still lints the good ones', async () => {
    write('good.py', 'bad = 1\n');
    write('empty.py', '');
    write('binary.py', Buffer.from([0x62, 0x00, 0x01, 0x02]));
    write('latin1.py', Buffer.from([0x78, 0x3d, 0xe9, 0x0a]));
    write('syntax.py', 'def f(:\n  pass\n');
    write('broken.js', 'function (');
    write('huge.py', '#'.repeat(6 * 1024 * 1024));
    symlinkSync(path.join(dir, 'loop-a'), path.join(dir, 'loop-b'));
    symlinkSync(path.join(dir, 'loop-b'), path.join(dir, 'loop-a'));
    const r = await lint({ paths: [dir, path.join(dir, 'loop-a'), path.join(dir, 'missing.py')], cwd: dir, ruleSet: rules, rules: ['py-ident', 'js-ident'] });
    const byFile = r.findings.map((f) => `${path.basename(f.file)}:${f.ruleId}`).sort();
    expect(byFile).toEqual([
      'binary.py:parse-error', 'broken.js:parse-error', 'good.py:py-ident', 'huge.py:parse-error', 'latin1.py:parse-error',
      'loop-a:parse-error', 'missing.py:parse-error', 'syntax.py:parse-error',
    ]);
    expect(r.findings.find((f) => f.file.endsWith('loop-a'))!.message).toMatch(/symbolic link loop/);
    expect(r.findings.find((f) => f.file.endsWith('latin1.py'))!.message).toMatch(/Invalid UTF-8 at byte 2/);
    r.dispose();
  });

  it('skips a FIFO named like a source file without waiting for a writer', async () => {
    const fifo = path.join(dir, 'pipe.py');
    execFileSync('mkfifo', [fifo]);
    const r = await lint({ paths: [fifo], cwd: dir, ruleSet: rules });
    expect(r.findings.map((f) => [path.basename(f.file), f.message])).toEqual([['pipe.py', expect.stringMatching(/^Not a regular file; skipped\./)]]);
    r.dispose();
  });

  it.skipIf(process.getuid?.() === 0)('reports unreadable files', async () => {
    const p = write('secret.py', 'x = 1\n');
    chmodSync(p, 0o000);
    const r = await lint({ paths: [p], cwd: dir, ruleSet: rules });
    expect(r.findings.map((f) => f.message)).toEqual([expect.stringMatching(/permission denied/)]);
    r.dispose();
  });
});

describe('per-finding severity', () => {
  const judged = defineRule({
    meta: { id: 'judged', description: 'test rule', defaultSeverity: 'warn', layers: ['python'], languages: ['python'], messages: { m: { what: 'Identifier {{name}} is judged by the rule itself.', why: '', fix: '' } }, docs },
    create(ctx) {
      return { python: { identifier(node) { ctx.report({ messageId: 'm', data: { name: node.text }, at: node, severity: node.text === 'hot' ? 'error' : undefined }); } } };
    },
  });
  const set = new Map<string, Rule>([['judged', judged]]);
  it('uses the rule\'s judgement unless the user configured a severity', async () => {
    write('v.py', 'hot = cold\n');
    const r = await lint({ paths: [dir], cwd: dir, ruleSet: set });
    expect(r.findings.map((f) => [f.message.split(' ')[1], f.severity])).toEqual([['hot', 'error'], ['cold', 'warning']]);
    r.dispose();
    write('vaudit.config.json', JSON.stringify({ rules: { judged: 'warn' } }));
    const r2 = await lint({ paths: [dir], cwd: dir, ruleSet: set });
    expect(r2.findings.map((f) => f.severity)).toEqual(['warning', 'warning']);
    r2.dispose();
  });
});

describe('suppression directives are comments of their own', () => {
  it('ignores directive text quoted in documentation comments and strings', async () => {
    write('v.js', '/**\n * Use `// vaudit-ignore-next-line js-ident` above the line.\n */\nbad1;\nconst s = "x// vaudit-ignore-line js-ident";\n');
    const r = await lint({ paths: [dir], cwd: dir, ruleSet: rules, rules: ['js-ident'] });
    expect(r.findings.map((f) => [f.ruleId, f.range.start.line])).toEqual([['js-ident', 4]]);
    r.dispose();
  });
});

describe('TypeScript verifiers', () => {
  it('runs the JavaScript rules on TypeScript with its types blanked out, at the same positions', async () => {
    write('v.ts', 'type T = { a: number };\nexport function f(x: T): number {\n  return bad + x.a;\n}\n');
    const r = await lint({ paths: [dir], cwd: dir, ruleSet: rules, rules: ['js-ident'] });
    expect(r.findings.map((f) => [f.ruleId, f.range.start.line, f.range.start.column])).toEqual([['js-ident', 3, 10]]);
    r.dispose();
  });
  it('skips TypeScript that needs a transform (enum) without an error, and reports real syntax errors', async () => {
    write('enum.ts', 'enum E { A }\nexport const v = bad;\n');
    write('broken.ts', 'export function (x: number {\n');
    const r = await lint({ paths: [dir], cwd: dir, ruleSet: rules, rules: ['js-ident'] });
    expect(r.findings.map((f) => [path.basename(f.file), f.ruleId, f.message.split(':')[0]])).toEqual([['broken.ts', 'parse-error', 'TypeScript syntax error']]);
    r.dispose();
  });
});

describe('TypeScript parameter properties', () => {
  it('are analysed as plain parameters', async () => {
    write('c.ts', 'export class C {\n  constructor(private readonly x: number) {}\n  get y(): number { return bad + this.x; }\n}\n');
    const r = await lint({ paths: [dir], cwd: dir, ruleSet: rules, rules: ['js-ident'] });
    expect(r.findings.map((f) => [f.ruleId, f.range.start.line, f.range.start.column])).toEqual([['js-ident', 3, 28]]);
    r.dispose();
  });
});

describe('deeply nested Python', () => {
  it('reports code nested beyond what CPython compiles, without overflowing the stack, and lints the rest', async () => {
    write('deep.py', `x = ${Array.from({ length: 6000 }, () => '1').join(' + ')}\n`);
    write('ok.py', 'bad = 1\n');
    const r = await lint({ paths: [dir], cwd: dir, ruleSet: rules, rules: ['py-ident'] });
    expect(r.findings.map((f) => [path.basename(f.file), f.ruleId])).toEqual([['deep.py', 'parse-error'], ['ok.py', 'py-ident']]);
    expect(r.findings[0]!.message).toMatch(/nested 600\d levels deep\. CPython's compiler raises RecursionError/);
    r.dispose();
  });
});

describe('TypeScript that only looks like a bundle', () => {
  it('is linted as a verifier (the type stripper is prepared for every TS file without a bundle model)', async () => {
    write('notbundle.ts', '// mentions defineCorrectnessModel in a comment only\nexport const x: number = bad;\n');
    const r = await lint({ paths: [dir], cwd: dir, ruleSet: rules, rules: ['js-ident'] });
    expect(r.findings.map((f) => [f.ruleId, f.range.start.line])).toEqual([['js-ident', 2]]);
    r.dispose();
  });
});
