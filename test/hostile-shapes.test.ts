/**
 * Hostile input shapes (issue 30, item 5), scaled past a limit: one real CLI run over every shape beside
 * neighbour files with known findings (slow project: one run of about a minute on the 2-core machine).
 * The subprocess timeout is a hang detector, not a speed assertion.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN } from './helpers/run-cli.js';

const HANG_BOUND_MS = 600_000;

interface Finding { ruleId: string; messageId: string; file: string; message: string; related?: unknown[] }

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const only = (fs: Finding[], file: string) => fs.filter((f) => f.file === file);

/**
 * Issue 30: shapes scaled past a limit (bench/hostile-shapes.mjs generates them; the same generators
 * scale each to the size the independent fuzz pass reported). One run over every shape beside neighbour
 * files with known findings: the run ends 0 or 1, each shape gets its own finding or none, and the
 * neighbours' findings are intact. Sizes are above each limit but quick to check.
 */
describe('hostile inputs: shapes scaled past a limit (issue 30)', async () => {
  const { SHAPES, NEIGHBOURS, NEIGHBOUR_FINDINGS } = (await import(pathToFileURL(path.resolve(import.meta.dirname, '../bench/hostile-shapes.mjs')).href)) as {
    SHAPES: Record<string, { n: number; files(n: number): Record<string, string | Buffer> }>;
    NEIGHBOURS: Record<string, string>;
    NEIGHBOUR_FINDINGS: Record<string, string[]>;
  };
  const sizes: Record<string, number> = {
    'js-nested-if': 1000, 'js-nested-else': 1000, 'js-nested-for': 1000, 'js-nested-while': 1000, 'js-nested-labels': 1000,
    'js-nested-templates': 200, 'js-else-if-chain': 2000, 'ts-nested-if': 700, 'ts-nested-templates': 200, 'ts-nested-labels': 700,
    'py-function-variables': 16_000, 'py-module-variables': 16_000, 'py-functions': 16_000, 'py-nested-loops': 80, 'py-nested-loops-try': 48, 'py-try-handlers': 1000,
    'py-nested-try-finally': 40, 'py-nested-try-except': 40, 'py-elif': 5000, 'py-one-line': 200_000, 'py-one-line-findings': 100_000,
    'py-bad-utf8-end': 20_000, 'py-suppressions': 20_000, 'py-returns': 20_000, 'config-ignores': 20_000, 'json-duplicate-members': 200_000,
    'py-try-calls': 5000, 'py-match-cases': 36_000, 'py-module-elif': 30_000, 'py-nested-functions': 400, 'json-regex-parens': 20_000, 'py-regex-parens': 20_000,
    'py-many-nested-regex': 600, 'py-flat-statements': 16_000,
    'js-comma-sequence': 32_000, 'js-consts': 32_000, 'js-let-declarators': 32_000, 'js-module-functions': 16_000, 'ts-unicode-escape-consts': 16_000,
  };
  const extra: Record<string, string | Buffer> = { ...NEIGHBOURS };
  const fileOf: Record<string, string> = {};
  for (const [shape, n] of Object.entries(sizes)) {
    for (const [rel, data] of Object.entries(SHAPES[shape]!.files(n))) {
      // each shape under its own name (the config stays the suite's config)
      const named = rel === 'vaudit.config.json' ? rel : rel.replace(/shape(\.\w+)$/, `${shape}$1`);
      extra[named] = data;
      fileOf[shape] = named;
    }
  }
  extra['js/evals.json'] = JSON.stringify({ evals: ['healthy', ...Object.keys(fileOf).filter((s) => /^(js|ts)-/.test(s))] });
  const dir = mkdtempSync(path.join(tmpdir(), 'vaudit-hostile-shapes-'));
  dirs.push(dir);
  for (const [rel, data] of Object.entries(extra)) {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), data);
  }
  const r = spawnSync(process.execPath, [BIN, 'check', '.', '--format', 'json'], {
    cwd: dir, encoding: 'utf8', timeout: HANG_BOUND_MS, maxBuffer: 1024 * 1024 * 1024, env: { ...process.env, NO_COLOR: '1' },
  });
  if (r.error) throw r.error;
  const findings = r.stdout ? (JSON.parse(r.stdout) as { findings: Finding[] }).findings : [];

  it('ends with exit 1, no signal, no internal error, and the neighbours\' findings intact', () => {
    expect(r.signal, r.stderr).toBeNull();
    expect(r.status, r.stderr).toBe(1);
    expect(findings.filter((f) => f.ruleId === 'internal-error')).toEqual([]);
    for (const [file, ids] of Object.entries(NEIGHBOUR_FINDINGS)) expect(only(findings, file).map((f) => f.ruleId)).toEqual(ids);
  });

  it.each(['js-nested-if', 'js-nested-else', 'js-nested-for', 'js-nested-while', 'js-nested-labels', 'js-nested-templates', 'js-else-if-chain', 'ts-nested-if', 'ts-nested-templates', 'ts-nested-labels'])(
    '%s (nesting that is not brackets) is one too-deep parse-error, before any parser runs',
    (shape) => {
      const fs = only(findings, fileOf[shape]!);
      expect(fs.map((f) => `${f.ruleId}/${f.messageId}`)).toEqual(['parse-error/too-deep']);
      expect(fs[0]!.message).toMatch(/counting brackets, statements, templates and operators \(vaudit analyses at most 500\)/);
    },
  );

  it.each(['py-function-variables', 'py-module-variables', 'py-functions'])('%s: 16,000 names or functions in one scope (once over the flow budget: its cost grew with names × bindings) are analysed', (shape) => {
    expect(only(findings, fileOf[shape]!)).toEqual([]);
  });

  it('80 loops nested in one another (once over the flow budget from 20: each ran to a fixpoint in every pass of the loops around it) are analysed: the read may be unbound', () => {
    expect(only(findings, fileOf['py-nested-loops']!).map((f) => `${f.ruleId}/${f.messageId}`)).toEqual(['unbound-name/maybe']);
  });

  it('48 loops each holding a try (once over the flow budget: each try handed the enclosing one every state that may raise in it) are analysed: the read may be unbound', () => {
    expect(only(findings, fileOf['py-nested-loops-try']!).map((f) => `${f.ruleId}/${f.messageId}`)).toEqual(['unbound-name/maybe']);
  });

  it('a flat function of 16,000 statements of every kind (the rules scanned the function at each statement or read: n²) has no finding', () => {
    expect(only(findings, fileOf['py-flat-statements']!)).toEqual([]);
  });

  it('invalid UTF-8 at the end of a file is that file\'s own finding', () => {
    expect(only(findings, fileOf['py-bad-utf8-end']!).map((f) => `${f.ruleId}/${f.messageId}`)).toEqual(['parse-error/unreadable']);
  });

  it.each(['json-regex-parens', 'py-regex-parens'])('%s: 20,000 nested groups are invalid (CPython raises RecursionError), not an internal error', (shape) => {
    const fs = only(findings, fileOf[shape]!);
    expect(fs.map((f) => f.ruleId)).toEqual(['regex-invalid', 'regex-invalid']);
    expect(fs[0]!.message).toMatch(/more than 495 nested groups/);
  });

  it('600 re.compile patterns nested 1–600 levels in one CRLF file (once > 100 s of recheck): only the 105 over 495 groups are findings', () => {
    const fs = only(findings, fileOf['py-many-nested-regex']!);
    expect(fs.length).toBe(105);
    for (const f of fs) {
      expect(f.ruleId).toBe('regex-invalid');
      expect(f.message).toMatch(/more than 495 nested groups/);
    }
  });

  it('one member repeated 16,668 times in a task file is one finding that says so', () => {
    const fs = only(findings, fileOf['json-duplicate-members']!).filter((f) => f.messageId === 'duplicateMember');
    expect(fs.length).toBe(1);
    expect(fs[0]!.message).toMatch(/"k" appears 16,668 times in/);
  });

  it.each(['py-try-calls', 'py-match-cases'])('%s: 5,000 try statements and 36,000 match cases (119,000 were once a stack overflow, exit 2; now over MAX_ANALYSED_NODES) are analysed', (shape) => {
    expect(only(findings, fileOf[shape]!)).toEqual([]);
  });

  it('30,000 module-level elif branches binding one name (131,600 were once exit 2, then minutes; now over MAX_ANALYSED_NODES) are analysed: the read may be unbound', () => {
    expect(only(findings, fileOf['py-module-elif']!).map((f) => f.ruleId)).toEqual(['unbound-name']);
  });

  it('400 nested functions are too deep for CPython\'s tokenizer', () => {
    expect(only(findings, fileOf['py-nested-functions']!).map((f) => `${f.ruleId}/${f.messageId}`)).toEqual(['parse-error/too-deep']);
  });

  it('a comma sequence of 32,000 reads of one unbound name (once 9 s CPU: each site copied the list of the others) is one finding with the other 31,999 sites related', () => {
    const fs = only(findings, fileOf['js-comma-sequence']!);
    expect(fs.map((f) => `${f.ruleId}/${f.messageId}`)).toEqual(['unbound-name/jsUndefined']);
    expect(fs[0]!.related?.length).toBe(31_999);
  });

  it.each(['js-consts', 'js-let-declarators', 'js-module-functions', 'ts-unicode-escape-consts'])('%s: 16,000–32,000 declarations in one scope (acorn looked each up in all earlier ones) are analysed', (shape) => {
    expect(only(findings, fileOf[shape]!)).toEqual([]);
  });

  it('20,000 config ignores that match nothing are each reported unused', () => {
    expect(findings.filter((f) => f.ruleId === 'unused-suppression' && f.file === 'vaudit.config.json').length).toBe(20_000);
  });
});
