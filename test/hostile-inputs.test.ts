/**
 * Hostile inputs (fixtures/hostile-inputs, issue 17): the minimised reproducers of what fuzzing the
 * real corpora broke, one file per class, beside healthy files with known findings. Run through the
 * real CLI: the run ends normally (exit code not 2, no signal, no hang), each bad file gets one clear
 * finding of its own, nothing is an internal error, and the healthy files' findings are intact.
 * The subprocess timeout is a hang detector, not a speed assertion.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN } from './helpers/run-cli.js';

const FIXTURES = path.resolve(import.meta.dirname, '../fixtures/hostile-inputs');
const HANG_BOUND_MS = 300_000;

interface Finding { ruleId: string; messageId: string; file: string; message: string }

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A copy of one fixture suite (plus generated files too large to keep in the repository), checked by the CLI. */
function check(name: string, extra: Record<string, string> = {}): { code: number | null; signal: string | null; findings: Finding[]; stderr: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'vaudit-hostile-inputs-'));
  dirs.push(dir);
  cpSync(path.join(FIXTURES, name), dir, { recursive: true });
  for (const [rel, text] of Object.entries(extra)) writeFileSync(path.join(dir, rel), text);
  const r = spawnSync(process.execPath, [BIN, 'check', '.', '--format', 'json'], {
    cwd: dir, encoding: 'utf8', timeout: HANG_BOUND_MS, maxBuffer: 256 * 1024 * 1024, env: { ...process.env, NO_COLOR: '1' },
  });
  if (r.error) throw r.error; // ETIMEDOUT: a hang
  const findings = r.stdout ? (JSON.parse(r.stdout) as { findings: Finding[] }).findings : [];
  return { code: r.status, signal: r.signal, findings, stderr: r.stderr };
}

const only = (fs: Finding[], file: string) => fs.filter((f) => f.file === file);

describe('hostile inputs: a ScienceBoard-shaped suite', () => {
  // 30,000 initializers that each fail the schema: ajv's generated code used to copy the error list per item
  const huge = JSON.stringify({ type: 'ChimeraX', instruction: 'x', initialize: Array.from({ length: 30_000 }, () => ({ func: 'touch', path: '/tmp/x' })), evaluate: [] });
  const r = check('scienceboard', { 'tasks/VM/ChimeraX/json-huge-initialize.json': huge });
  const T = 'tasks/VM/ChimeraX/';
  const V = 'verifier/chimerax/';

  it('ends normally, with no internal error', () => {
    expect(r.signal, r.stderr).toBeNull();
    expect(r.code, r.stderr).toBe(1);
    expect(r.findings.filter((f) => f.ruleId === 'internal-error')).toEqual([]);
  });

  it('keeps the healthy files\' findings', () => {
    expect(only(r.findings, `${T}healthy.json`).map((f) => f.ruleId)).toEqual(['task-schema']);
    expect(only(r.findings, `${V}healthy.py`).map((f) => f.ruleId)).toEqual(['unbound-name']);
  });

  it.each([
    ['py_sum_chain.py', /nested 1104 levels deep\. vaudit analyses at most 1000 levels/],
    ['py_attribute_chain.py', /nested 1104 levels deep/],
    ['py_not_chain.py', /nested 1104 levels deep/],
    ['py_comprehensions.py', /201 nested brackets, more than CPython's tokenizer allows \(SyntaxError: too many nested parentheses\)/],
    ['py_parens.py', /201 nested brackets/],
    ['py_nested_match.py', /100 levels of indentation, more than CPython's tokenizer allows \(IndentationError/],
  ])('deep Python %s is one too-deep parse-error', (file, message) => {
    const fs = only(r.findings, V + file);
    expect(fs.map((f) => `${f.ruleId}/${f.messageId}`)).toEqual(['parse-error/too-deep']);
    expect(fs[0]!.message).toMatch(message);
  });

  // CPython measures indentation with a tab as 8 columns and as 1 and refuses a line where the two
  // disagree (TabError); each file here was checked with python3's compile()
  it.each([['py_tabs_same_level.py', 3], ['py_tabs_indent.py', 3], ['py_tabs_dedent.py', 4]])(
    '%s (indentation whose level depends on the tab width) is one syntax parse-error, on CPython\'s line',
    (file, line) => {
      const fs = only(r.findings, V + file);
      expect(fs.map((f) => `${f.ruleId}/${f.messageId}`)).toEqual(['parse-error/syntax']);
      expect(fs[0]!.message).toMatch(/TabError: inconsistent use of tabs and spaces in indentation/);
      expect((fs[0] as Finding & { range: { start: { line: number } } }).range.start.line).toBe(line);
    },
  );

  it.each(['py_tabs_ok_tabs.py', 'py_tabs_ok_mixed_prefix.py', 'py_tabs_ok_per_function.py', 'py_tabs_ok_brackets.py', 'py_tabs_ok_comment.py', 'py_tabs_ok_docstring.py'])(
    'tabs CPython accepts (%s) are no finding',
    (file) => {
      expect(only(r.findings, V + file)).toEqual([]);
    },
  );

  it('24 loops nested in one another (each ran to a fixpoint in every pass of the loops around it: once over the flow budget, too-large) get the file\'s real finding', () => {
    const fs = only(r.findings, `${V}py_nested_loops.py`);
    expect(fs.map((f) => `${f.ruleId}/${f.messageId}`)).toEqual(['unbound-name/maybe']);
    expect(fs[0]!.message).toMatch(/`score` is unbound on some path/);
  });

  it.each(['lambda-too-deep.json', 'lambda-odd.json'])('a task lambda nested too deeply (%s) is one too-deep parse-error on its task file', (file) => {
    const fs = only(r.findings, T + file);
    expect(fs.map((f) => `${f.ruleId}/${f.messageId}`)).toEqual(['parse-error/too-deep']);
  });

  it.each([
    ['json-unclosed-brackets.json', 'parse-error'],
    ['json-deep-valid.json', 'task-schema'],
    ['json-escaped-surrogates.json', 'task-schema'],
    ['json-prototype-names.json', 'task-schema'],
    ['json-duplicate-arrays.json', 'task-schema'],
  ])('%s gets its own finding (%s)', (file, rule) => {
    const fs = only(r.findings, T + file);
    expect(fs.length).toBeGreaterThan(0);
    expect(new Set(fs.map((f) => f.ruleId))).toEqual(new Set([rule]));
  });

  it('user text named like Object.prototype members is read as text', () => {
    const fs = only(r.findings, `${T}json-prototype-names.json`);
    expect(fs.some((f) => f.message.includes('"toString"'))).toBe(true);
  });

  it('30,000 failing initializers are each reported, in one run', () => {
    expect(only(r.findings, `${T}json-huge-initialize.json`).filter((f) => f.ruleId === 'task-schema').length).toBeGreaterThanOrEqual(30_000);
  });
});

describe('hostile inputs: JavaScript and TypeScript verifiers', () => {
  const r = check('eval-list');

  it('ends normally, with no internal error, and keeps the healthy verifier\'s finding', () => {
    expect(r.signal, r.stderr).toBeNull();
    expect(r.code, r.stderr).toBe(1);
    expect(r.findings.filter((f) => f.ruleId === 'internal-error')).toEqual([]);
    expect(only(r.findings, 'evals/healthy.js').map((f) => f.ruleId)).toEqual(['missing-timeout']);
  });

  it.each(['deep-objects.js', 'deep-functions.ts', 'deep-ternary.ts', 'deep-blocks.js'])('%s is one too-deep parse-error', (file) => {
    const fs = only(r.findings, `evals/${file}`);
    expect(fs.map((f) => `${f.ruleId}/${f.messageId}`)).toEqual(['parse-error/too-deep']);
    expect(fs[0]!.message).toMatch(/does not analyse this file/);
  });
});


/**
 * Issue 30 fuzz (10,000 inputs, both parsers): a deeply nested script beside a web app's own scripts
 * ran the app-state model (what a verifier reading `/api/state` can find, read from the app's
 * JavaScript) out of stack: an internal error of substring-verdict, order-dependent-match or
 * float-equality on the Python verifier, or V8 aborting the whole run (exit 134, "RegExpCompiler
 * Allocation failed"). The model now reads only scripts within the bounds every JS parse has.
 */
describe('hostile inputs: deep scripts beside a web app\'s state', () => {
  const deep = (n: number) => ({
    'app/deep-arrays.js': `export function deep(p) { return ${'['.repeat(n)}p${']'.repeat(n)}; }\n`,
    'app/deep-blocks.js': `function blocks() { ${'{'.repeat(n)}${'}'.repeat(n)} }\n`,
    'app/deep-functions.js': `const f = () => { return ${'function () { return '.repeat(n)}1${' }'.repeat(n)}; };\n`,
    'app/deep-ternaries.js': `const t = (p) => ${'p ? p : '.repeat(4 * n)}p;\n`,
    'app/deep-ifs.js': `function g(p) {\n${'if (p) '.repeat(n)}p.x = 1;\n}\n`,
  });
  const r = check('web-app', deep(2500));

  it('ends normally, with no internal error, and keeps the verifier\'s finding', () => {
    expect(r.signal, r.stderr).toBeNull();
    expect(r.code, r.stderr).toBe(1);
    expect(r.findings.filter((f) => f.ruleId === 'internal-error')).toEqual([]);
    expect(only(r.findings, 'verifiers/check_due_date.py').map((f) => f.ruleId)).toEqual(['substring-verdict']);
  });

  it.each(Object.keys(deep(1)))('%s is one too-deep parse-error', (file) => {
    expect(only(r.findings, file).map((f) => `${f.ruleId}/${f.messageId}`)).toEqual(['parse-error/too-deep']);
  });
});
