/**
 * Bundle confirmation end to end: the rules' fixtures are linted, their findings confirmed by running the
 * checks' evaluate in real Node children started by the host (bubblewrap when installed) with the
 * recording runtime port. Defects → `confirmed`; fixed twins → `refuted`; host non-results pass through.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { environOf, liveProcesses } from './helpers/processes.js';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { lint } from '../src/engine/lint.js';
import type { Finding } from '../src/core/types.js';
import { confirmFindings } from '../src/confirm/index.js';
import { createHost, type RunRecord } from '../src/host/host.js';
import { confirmBundleFindings, prepareBundle, proveBundle, runBundleCases, type BundleCase } from '../src/confirm/bundle/index.js';
import { EXIT_0 } from '../src/confirm/bundle/cases.js';
import { buildBundleModelFromText } from '../src/lang/ts/bundle-model.js';

const RULES = ['non-leaf-tool-input', 'unawaited-tool-run', 'ungrounded-pass', 'nonresult-as-verdict'] as const;
const FIX = resolve('rules');
const dir = mkdtempSync(join(tmpdir(), 'vaudit-cb-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function findingsOf(paths: string[], rules: readonly string[]): Promise<Finding[]> {
  const r = await lint({ paths, rules: [...rules] });
  try {
    return r.findings.filter((f) => rules.includes(f.ruleId));
  } finally {
    (r as { dispose?: () => void }).dispose?.();
  }
}

function write(rel: string, text: string): string {
  const p = join(dir, rel);
  mkdirSync(join(p, '..'), { recursive: true });
  writeFileSync(p, text);
  return p;
}

/** Processes still alive whose command line mentions `needle` (the harness, a spawned sleeper). */
/**
 * Live processes whose command line holds `needle`. With `own`, only the ones this test process's
 * hosts started: their command line or environment carries a run marker made here
 * (`run-<this pid>-…`), so another vaudit run on the same machine (two CI runs at once) is not
 * mistaken for a leak of this one.
 */
function alive(needle: string, opts: { own?: boolean } = {}): string[] {
  const mine = `run-${process.pid}-`;
  return liveProcesses()
    .filter((p) => p.cmd.includes(needle) && (!opts.own || p.cmd.includes(mine) || environOf(p.pid).includes(mine)))
    .map((p) => `${p.pid}: ${p.cmd}`);
}

/** Findings the fixed twin would carry if the rule fired on each of its runs/returns (for `refuted`). */
function twinFindings(ruleId: string, file: string): Finding[] {
  const text = readFileSync(file, 'utf8');
  const { model } = buildBundleModelFromText(file, text);
  const out: Finding[] = [];
  const push = (control: Record<string, unknown>, start: number) =>
    out.push({
      ruleId,
      messageId: 'twin',
      message: 'Twin.',
      parts: { what: 'Twin.', why: '', fix: '' },
      severity: 'error',
      file,
      range: { start: { line: 1, column: 1, offset: start }, end: { line: 1, column: 1, offset: start } },
      control: { oracle: ruleId, file, ...control },
    });
  for (const check of model?.checks ?? []) {
    const base = { checkId: check.id, checkIndex: check.index };
    if (ruleId === 'non-leaf-tool-input' && check.kind === 'external')
      for (const run of check.toolRuns)
        for (const i of run.inputs) push({ ...base, run: { start: run.start, end: run.end }, input: { role: i.role, key: i.key ?? null } }, i.start);
    if (ruleId === 'unawaited-tool-run') for (const run of check.toolRuns) push({ ...base, run: { start: run.start, end: run.end } }, run.start);
    if (ruleId === 'ungrounded-pass' && check.requiredTools.length)
      for (const ret of check.verdictReturns) if (ret.mayPass) push({ ...base, at: { start: ret.start, end: ret.end } }, ret.start);
    if (ruleId === 'nonresult-as-verdict' && check.toolRuns.length)
      for (const ret of check.verdictReturns) push({ ...base, at: { start: ret.start, end: ret.end }, run: { start: check.toolRuns[0]!.start, end: check.toolRuns[0]!.end } }, ret.start);
  }
  return out;
}

describe('bundle findings on the rules\' fixtures', () => {
  it('confirms every defect of the incorrect fixtures in batched Node children, with run records', async () => {
    const findings: Finding[] = [];
    for (const id of RULES) findings.push(...(await findingsOf([join(FIX, id, 'fixtures', 'incorrect')], [id])));
    expect(findings.length).toBeGreaterThanOrEqual(20);
    const host = createHost({ root: dir });
    const t0 = performance.now();
    const { runs } = await confirmFindings(findings, undefined, { root: dir, host, jobs: 2 });
    const ms = performance.now() - t0;
    const byRun = new Map(runs.map((r) => [r.runId, r]));
    const missingModule = findings.filter((f) => f.file.includes('fs-read-import-helper'));
    for (const f of findings) {
      const c = f.confirmation!;
      const where = `${f.ruleId} ${f.file.split('/').slice(-2).join('/')}:${f.range.start.line}`;
      if (missingModule.includes(f)) {
        // The fixture imports ./harness.js, which is not there: the bundle cannot load — said, not guessed.
        expect(c.status, where).toBe('unsupported');
        expect(c.detail, where).toMatch(/could not be loaded.*harness\.js/);
      } else {
        expect(c.status, `${where}: ${JSON.stringify(c)}`).toBe('confirmed');
        expect(c.witness, where).toMatch(/^check `/);
        expect(c.observed, where).toBeTruthy();
      }
      const rec = byRun.get(c.runId!);
      expect(rec, where).toBeDefined();
      expect(rec!.toolId).toBe('node');
      expect(rec!.outcome).toBe('executed');
      expect(rec!.ruleId).toContain(f.ruleId);
    }
    const nodeRuns = runs.filter((r) => r.toolId === 'node');
    const cases = nodeRuns.reduce((s, r) => s + (r.caseIds?.length ?? 1), 0);
    expect(nodeRuns.length).toBeLessThanOrEqual(Math.ceil(cases / 64) + 1); // batched, not one child per case
    console.log(`[bench] ${findings.length} bundle findings, ${cases} cases, ${nodeRuns.length} Node children (${nodeRuns[0]?.isolation}): ${ms.toFixed(0)} ms total, ${(ms / cases).toFixed(1)} ms/case; children ${nodeRuns.map((r) => r.durationMs).join(', ')} ms`);
    expect(alive('harness.mjs', { own: true })).toEqual([]);
  }, 120_000);

  it('names the exact origin, site and result in what it observed', async () => {
    const [f] = await findingsOf([join(FIX, 'non-leaf-tool-input', 'fixtures', 'incorrect', 'literal-and-template')], ['non-leaf-tool-input']);
    await confirmBundleFindings([f!], undefined, { host: createHost({ root: dir }) });
    expect(f!.confirmation).toMatchObject({ status: 'confirmed' });
    expect(f!.confirmation!.observed).toBe('run #1 of `gcc` at line 12 received file `stub.h` = "#define assert(x) ((void)0)\\n" (28 bytes, origin authored:derived)');
    const [u] = (await findingsOf([join(FIX, 'unawaited-tool-run', 'fixtures', 'incorrect', 'dropped-and-stored')], ['unawaited-tool-run'])).slice(1);
    const [n] = await findingsOf([join(FIX, 'nonresult-as-verdict', 'fixtures', 'incorrect', 'helper-and-exit-guard')], ['nonresult-as-verdict']);
    await confirmBundleFindings([u!, n!], undefined, { host: createHost({ root: dir }) });
    expect(u!.confirmation!.observed).toBe("run #2 of `gcc` at line 11 was still pending when evaluate returned { verdict: 'pass' }");
    expect(n!.confirmation!.observed).toBe("run #1 of `python3` at line 5 answered timeout; evaluate returned { verdict: 'fail' } (from line 6)");
  }, 120_000);

  it('refutes the same questions asked of the fixed twins (correct fixtures)', async () => {
    const findings: Finding[] = [];
    const perRule = new Map<string, number>();
    for (const id of RULES) {
      const base = join(FIX, id, 'fixtures', 'correct');
      for (const c of readdirSync(base)) {
        for (const name of readdirSync(join(base, c))) {
          if (!/\.(ts|mjs|js)$/.test(name)) continue;
          const tw = twinFindings(id, join(base, c, name));
          perRule.set(id, (perRule.get(id) ?? 0) + tw.length);
          findings.push(...tw);
        }
      }
      // The linter itself is silent on them.
      expect(await findingsOf([base], [id])).toEqual([]);
    }
    for (const id of RULES) expect(perRule.get(id), id).toBeGreaterThan(0);
    await confirmBundleFindings(findings, undefined, { host: createHost({ root: dir }) });
    for (const f of findings) {
      expect(f.confirmation?.status, `${f.ruleId} ${f.file.split('/').slice(-2).join('/')} ${JSON.stringify(f.control)}: ${JSON.stringify(f.confirmation)}`).toBe('refuted');
    }
    // Equivalent-valid leaves are recognised as such, with their labels.
    const eq = findings.filter((f) => f.file.includes('equivalent-leaves') && f.ruleId === 'non-leaf-tool-input').map((f) => f.confirmation!.observed!);
    expect(eq.some((o) => o.includes('origin json:publicInput.cases'))).toBe(true);
    expect(eq.some((o) => o.includes("origin artifact:util.h"))).toBe(true);
    expect(eq.some((o) => /origin publicInput:cases\[0\]\.stdin/.test(o))).toBe(true);
  }, 120_000);
});

describe('precision', () => {
  it('a stored run that is never awaited is pending at return even when another run is awaited', async () => {
    const file = write(
      'two-runs/model.ts',
      `import { defineCorrectnessModel } from 'vaudit/bundle';
export default defineCorrectnessModel({
  id: 'two', artifact: { files: ['main.c'] },
  checks: [{ id: 'c', kind: 'external', requiredTools: ['gcc'], async evaluate({ artifact }, runtime) {
    const a = runtime.tools.run({ toolId: 'gcc', checkId: 'c', args: ['-c', 'main.c'], files: { 'main.c': artifact.files['main.c'] } });
    const b = runtime.tools.run({ toolId: 'gcc', checkId: 'c', args: ['-Wall', 'main.c'], files: { 'main.c': artifact.files['main.c'] } });
    const r = await a;
    if (r.outcome !== 'executed') return r;
    void b;
    return { verdict: r.exitCode === 0 ? 'pass' : 'fail' };
  } }],
});
`,
    );
    const findings = await findingsOf([file], ['unawaited-tool-run']);
    expect(findings.map((f) => f.range.start.line)).toEqual([6]);
    const awaited = twinFindings('unawaited-tool-run', file).filter((f) => f.range.start.offset !== findings[0]!.range.start.offset);
    expect(awaited).toHaveLength(1);
    await confirmBundleFindings([...findings, ...awaited], undefined, { host: createHost({ root: dir }) });
    expect(findings[0]!.confirmation).toMatchObject({ status: 'confirmed', observed: "run #2 of `gcc` at line 6 was still pending when evaluate returned { verdict: 'pass' }" });
    expect(awaited[0]!.confirmation).toMatchObject({ status: 'refuted' });
  }, 120_000);

  it('forces the non-result at the flagged run only, so an earlier pass-through cannot hide it', async () => {
    const file = write(
      'second-run/model.ts',
      `import { defineCorrectnessModel } from 'vaudit/bundle';
export default defineCorrectnessModel({
  id: 'second', artifact: { files: ['main.c'] },
  checks: [{ id: 'c', kind: 'external', requiredTools: ['gcc'], async evaluate({ artifact }, runtime) {
    const compiled = await runtime.tools.run({ toolId: 'gcc', checkId: 'c', args: ['-c', 'main.c'], files: { 'main.c': artifact.files['main.c'] } });
    if (compiled.outcome !== 'executed') return compiled;
    if (compiled.exitCode !== 0) return { verdict: 'fail' };
    const linked = await runtime.tools.run({ toolId: 'gcc', checkId: 'c', args: ['main.c'], files: { 'main.c': artifact.files['main.c'] } });
    return { verdict: linked.exitCode === 0 ? 'pass' : 'fail' };
  } }],
});
`,
    );
    const findings = await findingsOf([file], ['nonresult-as-verdict']);
    expect(findings.map((f) => f.range.start.line)).toEqual([9]);
    await confirmBundleFindings(findings, undefined, { host: createHost({ root: dir }) });
    expect(findings[0]!.confirmation).toMatchObject({
      status: 'confirmed',
      witness: 'check `c` on the generated witness input (artifact: main.c); the tool answers forced timeout at line 8, exit 0 elsewhere',
      observed: "run #2 of `gcc` at line 8 answered timeout; evaluate returned { verdict: 'fail' } (from line 9)",
    });
  }, 120_000);

  it('runs CommonJS bundles (require of vaudit/bundle, module.exports)', async () => {
    const file = write(
      'cjs/model.cjs',
      `const { defineCorrectnessModel, isNonResult } = require('vaudit/bundle');
module.exports = defineCorrectnessModel({
  id: 'cjs', artifact: { files: ['main.c'] },
  checks: [{ id: 'compiles', kind: 'external', requiredTools: ['gcc'], async evaluate({ artifact }, runtime) {
    const r = await runtime.tools.run({ toolId: 'gcc', checkId: 'compiles', files: { 'main.c': artifact.files['main.c'] + '\\n' } });
    if (isNonResult(r)) return r;
    return { verdict: r.exitCode === 0 ? 'pass' : 'fail' };
  } }],
});
`,
    );
    const findings = await findingsOf([file], ['non-leaf-tool-input']);
    expect(findings).toHaveLength(1);
    await confirmBundleFindings(findings, undefined, { host: createHost({ root: dir }) });
    expect(findings[0]!.confirmation).toMatchObject({ status: 'confirmed' });
    expect(findings[0]!.confirmation!.observed).toMatch(/file `main.c` = .*origin authored:derived/);
  }, 120_000);

  it('judges each check at a helper both checks share (factory): only the one that rewrites the leaf', async () => {
    const file = join(FIX, 'non-leaf-tool-input', 'fixtures', 'incorrect', 'helper-param-and-factory', 'model.ts');
    const [b] = await findingsOf([file], ['non-leaf-tool-input']);
    expect(b!.control).toMatchObject({ checkId: 'runs-b' });
    const a: Finding = { ...b!, control: { ...b!.control!, checkId: 'runs-a', checkIndex: 0 } };
    await confirmBundleFindings([a, b!], undefined, { host: createHost({ root: dir }) });
    expect(b!.confirmation).toMatchObject({ status: 'confirmed' });
    expect(a.confirmation).toMatchObject({ status: 'refuted' });
    expect(a.confirmation!.observed).toContain('origin artifact:main.c');
  }, 120_000);
});

describe('declared cases beside the bundle', () => {
  it('uses <bundle>.cases.json (valid, wrong-but-valid, malformed, equivalent-valid) and local modules', async () => {
    const model = write(
      'declared/model.ts',
      readFileSync(join(FIX, 'non-leaf-tool-input', 'fixtures', 'incorrect', 'fs-read-import-helper', 'model.ts'), 'utf8'),
    );
    write('declared/harness.ts', "export const CONFTEST: string = 'import pytest\\n';\n");
    write('declared/reference_tests.py', 'from solve import main\n\ndef test_main():\n    main()\n');
    write(
      'declared/model.cases.json',
      JSON.stringify({
        cases: [
          { id: 'ok', kind: 'valid', artifact: { 'solve.py': 'def main():\n    return 1\n' }, tool: { exitCode: 0, stdout: '1 passed\n' } },
          { id: 'wrong', kind: 'wrong-but-valid', artifact: { 'solve.py': 'def main():\n    return 2\n' }, tool: { exitCode: 1, stdout: '1 failed\n' } },
          { id: 'broken', kind: 'malformed', artifact: { 'solve.py': 'def main(:\n' }, tool: { exitCode: 2, stderr: 'SyntaxError\n' } },
          { id: 'same', kind: 'equivalent-valid', artifact: { 'solve.py': 'def main():\r\n    return 1\r\n' }, tool: { exitCode: 0 } },
        ],
      }),
    );
    const findings = await findingsOf([model], ['non-leaf-tool-input']);
    expect(findings.map((f) => f.confirmation)).toHaveLength(3);
    await confirmBundleFindings(findings, undefined, { host: createHost({ root: dir }) });
    const obs = findings.map((f) => f.confirmation!);
    for (const c of obs) {
      expect(c.status, JSON.stringify(c)).toBe('confirmed');
      expect(c.witness).toContain('declared valid case `ok`');
      expect(c.witness).toContain('the tool answers exit 0 (declared)');
    }
    expect(obs[0]!.observed).toContain('file `test_solve.py` = "from solve import main');
    expect(obs[1]!.observed).toContain('file `conftest.py` = "import pytest\\n"');
    expect(obs[2]!.observed).toContain('file `runner.py` = "import sys\\ndef main():');
  }, 120_000);

  it('reads the cases file again when it changes (long-lived processes: editor, watch)', async () => {
    const model = write('edited/model.ts', readFileSync(join(FIX, 'ungrounded-pass', 'fixtures', 'incorrect', 'never-runs', 'model.ts'), 'utf8'));
    const cases = (main: string) => JSON.stringify({ cases: [{ id: 'only', kind: 'valid', artifact: { 'main.c': main } }] });
    write('edited/model.cases.json', cases('void f(void) {}\n'));
    const first = await findingsOf([model], ['ungrounded-pass']);
    await confirmBundleFindings(first, undefined, { host: createHost({ root: dir }) });
    expect(first[0]!.confirmation).toMatchObject({ status: 'refuted', observed: "the return at line 12 gave { verdict: 'fail' } after 0 completed run(s)" });
    write('edited/model.cases.json', cases('int main(void) { return 0; }\n'));
    const second = await findingsOf([model], ['ungrounded-pass']);
    await confirmBundleFindings(second, undefined, { host: createHost({ root: dir }) });
    expect(second[0]!.confirmation).toMatchObject({ status: 'confirmed' });
  }, 120_000);

  it('refuses a malformed cases file instead of guessing', async () => {
    const model = write('badcases/model.ts', readFileSync(join(FIX, 'ungrounded-pass', 'fixtures', 'incorrect', 'never-runs', 'model.ts'), 'utf8'));
    write('badcases/model.cases.json', JSON.stringify({ cases: [{ id: 'x', kind: 'great', artifact: { 'main.c': 1 } }] }));
    const findings = await findingsOf([model], ['ungrounded-pass']);
    await confirmBundleFindings(findings, undefined, { host: createHost({ root: dir }) });
    expect(findings[0]!.confirmation).toMatchObject({ status: 'unsupported' });
    expect(findings[0]!.confirmation!.detail).toMatch(/model\.cases\.json: .*kind must be one of valid, wrong-but-valid, malformed, equivalent-valid; .*artifact must map file names to strings/);
  });
});

describe('proving a bundle on its declared cases', () => {
  it('compares each check\'s verdict with the expectation on valid, wrong-but-valid, malformed and equivalent-valid cases', async () => {
    const file = write(
      'prove/model.ts',
      `import { defineCorrectnessModel } from 'vaudit/bundle';
export default defineCorrectnessModel({
  id: 'prove', artifact: { files: ['main.c'] },
  checks: [
    { id: 'strict', kind: 'external', requiredTools: ['gcc'], async evaluate({ artifact }, runtime) {
      const r = await runtime.tools.run({ toolId: 'gcc', checkId: 'strict', args: ['-c', 'main.c'], files: { 'main.c': artifact.files['main.c'] } });
      if (r.outcome !== 'executed') return r;
      return { verdict: r.exitCode === 0 ? 'pass' : 'fail' };
    } },
    { id: 'lenient', kind: 'external', requiredTools: ['gcc'], async evaluate({ artifact }, runtime) {
      const r = await runtime.tools.run({ toolId: 'gcc', checkId: 'lenient', args: ['-c', 'main.c'], files: { 'main.c': artifact.files['main.c'] } });
      if (r.outcome !== 'executed') return r;
      return { verdict: 'pass' };
    } },
  ],
});
`,
    );
    const both = (v: 'pass' | 'fail') => ({ strict: v, lenient: v });
    write(
      'prove/model.cases.json',
      JSON.stringify({
        cases: [
          { id: 'ok', kind: 'valid', artifact: { 'main.c': 'int main(void) { return 0; }\n' }, tool: { exitCode: 0 }, expect: both('pass') },
          { id: 'wrong', kind: 'wrong-but-valid', artifact: { 'main.c': 'int main(void) { return 1; }\n' }, tool: { exitCode: 1 }, expect: both('fail') },
          { id: 'broken', kind: 'malformed', artifact: { 'main.c': 'int main(void) {\n' }, tool: { exitCode: 1, stderr: 'error: expected }' }, expect: both('fail') },
          { id: 'same', kind: 'equivalent-valid', artifact: { 'main.c': 'int main ( void )\n{\n  return 0;\n}\n' }, tool: { exitCode: 0 }, expect: both('pass') },
        ],
      }),
    );
    const res = await proveBundle(file, { host: createHost({ root: dir }) });
    if ('error' in res) throw new Error(res.error);
    expect(res.runs).toHaveLength(1);
    expect(res.rows.map((r) => [r.checkId, r.caseId, r.got, r.agrees])).toEqual([
      ['strict', 'ok', 'pass', true],
      ['strict', 'wrong', 'fail', true],
      ['strict', 'broken', 'fail', true],
      ['strict', 'same', 'pass', true],
      ['lenient', 'ok', 'pass', true],
      ['lenient', 'wrong', 'pass', false],
      ['lenient', 'broken', 'pass', false],
      ['lenient', 'same', 'pass', true],
    ]);
    expect(await proveBundle(join(FIX, 'ungrounded-pass', 'fixtures', 'incorrect', 'never-runs', 'model.ts'), { host: createHost({ root: dir }) })).toEqual({
      error: 'the bundle declares no cases (see src/confirm/bundle/README.md)',
    });
  }, 120_000);
});

describe('the recording runtime port', () => {
  it('records tool, check, args and the origin of every input; refuses undeclared tools like the host', async () => {
    const file = write(
      'port/model.ts',
      `import { defineCorrectnessModel } from 'vaudit/bundle';
export default defineCorrectnessModel({
  id: 'port',
  artifact: { files: ['main.c', 'util.h'] },
  publicInput: { fields: ['cases'] },
  checks: [{
    id: 'c', kind: 'external', requiredTools: ['gcc'],
    async evaluate(input, runtime) {
      const { artifact: { files }, publicInput } = input;
      const a = await runtime.tools.run({ toolId: 'gcc', checkId: 'c', args: ['-c', 'main.c'],
        files: { 'main.c': files['main.c'], 'util.h': files['util.h'], 'x.h': '#pragma once\\n' }, stdin: JSON.stringify(publicInput.cases) });
      const b = await runtime.tools.run({ toolId: 'gcc', checkId: 'other', stdin: publicInput.cases[1].stdin });
      try { await runtime.tools.run({ toolId: 'make', checkId: 'c' }); } catch (e) { return { verdict: 'fail', detail: String(e.message) }; }
      return { verdict: a.outcome === 'executed' && b.outcome === 'executed' ? 'pass' : 'fail' };
    },
  }],
});
`,
    );
    const b = prepareBundle(file);
    const input = {
      id: 'in',
      kind: 'valid' as const,
      source: 'declared' as const,
      label: 'in',
      artifact: { 'main.c': 'int main(void){return 0;}\n', 'util.h': '#define U 1\n' },
      publicInput: { cases: [{ stdin: '1\n' }, { stdin: '2\n' }] },
    };
    const c: BundleCase = { id: 'k', file, checkId: 'c', checkIndex: 0, input, answers: { default: EXIT_0 }, answerLabel: 'exit 0', deadlineMs: 2000, ruleIds: ['test'] };
    const host = createHost({ root: dir });
    const res = (await runBundleCases(host, [c], new Map([[file, b]]))).get('k')!;
    expect(res.status).toBe('returned');
    expect(res.result).toMatchObject({ kind: 'verdict', verdict: 'fail', detail: "runtime.tools.run: tool id 'make' is not in the check's requiredTools" });
    expect(res.runs.map((r) => [r.toolId, r.checkId, r.state, r.checkIdMismatch ?? false])).toEqual([
      ['gcc', 'c', 'resolved', false],
      ['gcc', 'other', 'resolved', true],
      ['make', 'c', 'rejected', false],
    ]);
    expect(res.runs[0]!.args).toEqual(['-c', 'main.c']);
    expect(res.runs[0]!.inputs!.map((i) => [i.role, i.key, i.origin, i.bytes])).toEqual([
      ['file', 'main.c', 'artifact:main.c', 26],
      ['file', 'util.h', 'artifact:util.h', 12],
      ['file', 'x.h', 'authored:derived', 13],
      ['stdin', undefined, 'json:publicInput.cases', 33],
    ]);
    expect(res.runs[1]!.inputs).toEqual([expect.objectContaining({ role: 'stdin', origin: 'publicInput:cases[1].stdin' })]);
    expect(res.runs[0]!.site).toMatch(/^\d+:\d+$/);
    expect(host.records).toHaveLength(1);
    expect(host.records[0]).toMatchObject({ toolId: 'node', outcome: 'executed', caseIds: ['k'] });
  }, 120_000);
});

describe('batching', () => {
  it('one child answers a large batch completely (answers are flushed before the child exits)', async () => {
    // Each answer records 120 runs (~40 KB): far more than a pipe holds while the parent reads.
    const file = write(
      'big/model.ts',
      `import { defineCorrectnessModel } from 'vaudit/bundle';
export default defineCorrectnessModel({
  id: 'big', artifact: { files: ['main.c'] },
  checks: [{ id: 'many', kind: 'external', requiredTools: ['gcc'], async evaluate({ artifact }, runtime) {
    for (let i = 0; i < 120; i++) {
      const r = await runtime.tools.run({ toolId: 'gcc', checkId: 'many', args: ['-c', 'main.c', String(i)], files: { 'main.c': artifact.files['main.c'] } });
      if (r.outcome !== 'executed') return r;
      if (r.exitCode !== 0) return { verdict: 'fail' };
    }
    return { verdict: 'pass' };
  } }],
});
`,
    );
    const b = prepareBundle(file);
    const cases: BundleCase[] = Array.from({ length: 120 }, (_, i) => ({
      id: `c${i}`,
      file,
      checkId: 'many',
      checkIndex: 0,
      input: { id: `i${i}`, kind: 'valid', source: 'declared', label: `i${i}`, artifact: { 'main.c': `int main(void) { return ${i}; }\n` }, publicInput: {} },
      answers: { default: EXIT_0 },
      answerLabel: 'exit 0',
      deadlineMs: 2000,
      ruleIds: ['test'],
    }));
    const host = createHost({ root: dir });
    // A busy parent: it reads the child's stdout slowly, so the pipe fills and the child's writes queue.
    const run = host.run.bind(host);
    host.run = (req) =>
      run({
        ...req,
        onStdout: (chunk) => {
          const until = performance.now() + 3;
          while (performance.now() < until);
          req.onStdout?.(chunk);
        },
      });
    const res = await runBundleCases(host, cases, new Map([[file, b]]), { batchSize: 120 });
    expect(host.records).toHaveLength(1);
    expect(host.records[0]!.stdoutBytes).toBeGreaterThan(2_000_000);
    expect([...res.values()].filter((r) => r.status === 'returned' && r.result?.verdict === 'pass' && r.runs.length === 120)).toHaveLength(120);
  }, 120_000);
});

describe('non-results and isolation', () => {
  it('passes the host\'s non-result through as is (isolation required but unavailable → sandbox)', async () => {
    const findings = await findingsOf([join(FIX, 'ungrounded-pass', 'fixtures', 'incorrect', 'never-runs')], ['ungrounded-pass']);
    const host = createHost({ root: dir, isolation: 'bwrap', helpers: { bwrap: null } });
    await confirmBundleFindings(findings, undefined, { host });
    expect(findings[0]!.confirmation).toMatchObject({ status: 'sandbox', runId: host.records[0]!.runId });
    expect(findings[0]!.confirmation!.detail).toMatch(/bubblewrap/);
  });

  it('checks that never return cost their own timeout; the other cases of the batch still answer', async () => {
    const hang = write(
      'hang/model.ts',
      `import { defineCorrectnessModel } from 'vaudit/bundle';
export default defineCorrectnessModel({
  id: 'hang', artifact: { files: ['main.c'] },
  checks: [
    { id: 'spin-async', kind: 'external', requiredTools: ['gcc'], async evaluate() { await null; for (;;) {} } },
    { id: 'spin-sync', kind: 'external', requiredTools: ['gcc'], async evaluate() { for (;;) {} } },
    { id: 'ok', kind: 'external', requiredTools: ['gcc'], async evaluate({ artifact }) { return { verdict: artifact.files['main.c'] ? 'pass' : 'fail' }; } },
  ],
});
`,
    );
    write('hang/model.cases.json', JSON.stringify({ cases: [{ id: 'one', kind: 'valid', artifact: { 'main.c': 'int main(void) { return 0; }\n' } }] }));
    const findings = await findingsOf([hang], ['ungrounded-pass']);
    expect(findings.map((f) => f.control?.checkId)).toEqual(['ok']);
    const ok = findings[0]!;
    const spinAsync: Finding = { ...ok, control: { ...ok.control!, checkId: 'spin-async', checkIndex: 0 } };
    const spinSync: Finding = { ...ok, control: { ...ok.control!, checkId: 'spin-sync', checkIndex: 1 } };
    const host = createHost({ root: dir });
    await confirmBundleFindings([spinAsync, spinSync, ok], undefined, { host, timeoutMs: 300 });
    // After an await: only the host's wall-clock limit ends it — its non-result passes through.
    expect(spinAsync.confirmation).toMatchObject({ status: 'timeout' });
    expect(spinAsync.confirmation!.detail).toMatch(/wall-clock limit/);
    expect(host.records.find((r) => r.runId === spinAsync.confirmation!.runId)?.outcome).toBe('timeout');
    // Before the first await: the child's watchdog ends the case, the child goes on.
    expect(spinSync.confirmation).toMatchObject({ status: 'timeout' });
    expect(spinSync.confirmation!.detail).toMatch(/synchronous endless loop/);
    expect(ok.confirmation).toMatchObject({ status: 'confirmed' });
    // Each hang cost one bound, not the test's: the other cases answered (the vitest timeout catches a stall).
    expect(alive('harness.mjs', { own: true })).toEqual([]);
  }, 120_000);

  for (const isolation of ['process', 'auto'] as const) {
    it(`bundle code cannot start a process, and nothing is left behind (isolation: ${isolation})`, async () => {
      const file = write(
        `spawn-${isolation}/model.ts`,
        `import { defineCorrectnessModel } from 'vaudit/bundle';
export default defineCorrectnessModel({
  id: 'spawner', artifact: { files: ['main.c'] },
  checks: [{
    id: 'sneaky', kind: 'external', requiredTools: ['gcc'],
    async evaluate() {
      const cp = await import('node:' + 'child_process');
      let how = 'spawned';
      try { cp.spawn('sleep', ['41.5'], { detached: true, stdio: 'ignore' }).unref(); } catch (e) { how = String(e.code); }
      const fs = await import('node:fs');
      let read = 'read';
      try { fs.readFileSync('/etc/passwd', 'utf8'); } catch (e) { read = String(e.code); }
      return { verdict: 'pass', detail: how + ' ' + read };
    },
  }],
});
`,
      );
      const findings = await findingsOf([file], ['ungrounded-pass']);
      expect(findings).toHaveLength(1);
      const host = createHost({ root: dir, isolation });
      await confirmBundleFindings(findings, undefined, { host });
      if (isolation === 'auto' && !host.bwrapPath) {
        // Without bubblewrap, `auto` does not run bundle code at all (issue 17).
        expect(findings[0]!.confirmation).toMatchObject({ status: 'sandbox' });
        return;
      }
      expect(findings[0]!.confirmation).toMatchObject({ status: 'confirmed' });
      expect(findings[0]!.confirmation!.observed).toContain('detail: "ERR_ACCESS_DENIED ERR_ACCESS_DENIED"');
      expect((host.records[0] as RunRecord).isolation).toBe(isolation === 'process' ? 'process' : 'bwrap');
      expect(alive('41.5')).toEqual([]);
      expect(alive('harness.mjs', { own: true })).toEqual([]);
    }, 120_000);
  }
});
