/** The bundle model: origins of tool inputs, run settlement, result use and verdict paths. */
import { describe, expect, it } from 'vitest';
import { SourceText } from '../src/core/source.js';
import type { SourceFile } from '../src/core/source.js';
import { buildBundleModel } from '../src/lang/ts/bundle-model.js';
import type { BundleModel } from '../src/lang/ts/types.js';

function model(text: string, path = '/b/model.ts'): BundleModel | undefined {
  const file: SourceFile = { path, relPath: 'model.ts', language: path.endsWith('.ts') ? 'typescript' : 'javascript', source: new SourceText(text) };
  return buildBundleModel(file);
}

const H = `import { defineCorrectnessModel } from 'vaudit/bundle';\n`;
const wrap = (checks: string, pre = '') =>
  `${H}${pre}export default defineCorrectnessModel({ id: 'm', artifact: { files: ['main.c'] }, publicInput: { fields: ['cases'] }, checks: [${checks}] });\n`;

describe('bundle detection', () => {
  it('returns undefined for files that are not bundles, cheaply', () => {
    expect(model('export const x = 1;\n')).toBeUndefined();
    expect(model('// mentions defineCorrectnessModel only in a comment\nexport {};\n')).toBeUndefined();
  });
  it('recognises aliased and namespace imports and require', () => {
    const a = model(`import { defineCorrectnessModel as d } from 'vaudit/bundle';\nexport default d({ id: 'a', artifact: { files: ['x'] }, checks: [{ id: 'c', kind: 'authored', evaluate: () => ({ verdict: 'fail' }) }] });\n`);
    expect(a?.id).toBe('a');
    expect(a?.checks.map((c) => c.id)).toEqual(['c']);
    const b = model(`import * as vb from 'vaudit/bundle';\nexport default vb.defineCorrectnessModel({ id: 'b', artifact: { files: ['x'] }, checks: [] });\n`);
    expect(b?.id).toBe('b');
    const c = model(`const { defineCorrectnessModel } = require('vaudit/bundle');\nmodule.exports = defineCorrectnessModel({ id: 'c', artifact: { files: ['y'] }, checks: [] });\n`, '/b/m.cjs');
    expect(c?.declaredFiles).toEqual(['y']);
  });
});

describe('origins', () => {
  const m = model(
    wrap(
      `{ id: 'k', kind: 'external', requiredTools: ['gcc'], async evaluate(input, runtime) {
        const { artifact: { files }, publicInput } = input;
        const src = files['main.c'];
        const { tools } = runtime;
        for (const c of publicInput.cases) {
          const r = await tools.run({ toolId: 'gcc', checkId: 'k', stdin: c.stdin, files: {
            'a.c': src, 'b.h': HEADER, 'c.c': decorate(src), 'd.c': same(src), 'e.c': files['main.c'].trim(),
            'f.c': files['other.c'], 'g.json': JSON.stringify(publicInput.cases), 'h.txt': publicInput.secret,
            'i.c': \`// x\\n\${src}\`, 'j.c': \`\${src}\`, 'k.c': readFileSync('x.c', 'utf8') } });
          if (r.outcome !== 'executed') return r;
          if (r.exitCode !== 0) return { verdict: 'fail' };
        }
        return { verdict: 'pass' };
      } }`,
      `import { readFileSync } from 'node:fs';\nconst HEADER = '#pragma once';\nconst decorate = (s: string) => s + '\\n';\nfunction same(s: string) { return s; }\n`,
    ),
  )!;
  const run = m.checks[0]!.toolRuns[0]!;
  const by = (k: string) => run.inputs.find((i) => i.key === k)!.origin;

  it('follows aliases, nested destructuring and destructured runtime ports', () => {
    expect(run.toolId?.value).toBe('gcc');
    expect(by('a.c')).toMatchObject({ kind: 'artifact-leaf', description: "artifact.files['main.c']" });
    expect(by('d.c')).toMatchObject({ kind: 'artifact-leaf' });
    expect(by('j.c')).toMatchObject({ kind: 'artifact-leaf' });
    expect(by('g.json')).toMatchObject({ kind: 'json-of-leaf', description: 'JSON.stringify(publicInput.cases)' });
    expect(run.inputs.find((i) => i.role === 'stdin')!.origin).toMatchObject({ kind: 'public-input-leaf', description: 'publicInput.cases[…].stdin' });
  });
  it('names the authored origin of non-leaves', () => {
    expect(by('b.h')).toMatchObject({ kind: 'derived', how: 'literal' });
    expect(by('c.c')).toMatchObject({ kind: 'derived', how: 'helper' });
    expect(by('c.c').description).toContain('decorate');
    expect(by('e.c')).toMatchObject({ kind: 'derived', how: 'transformed' });
    expect(by('f.c')).toMatchObject({ kind: 'derived', how: 'undeclared-leaf' });
    expect(by('h.txt')).toMatchObject({ kind: 'derived', how: 'undeclared-leaf' });
    expect(by('i.c')).toMatchObject({ kind: 'derived', how: 'template' });
    expect(by('k.c')).toMatchObject({ kind: 'derived', how: 'fs-read' });
  });
  it('reports the loop that may run zero times as an ungrounded pass', () => {
    const passes = m.checks[0]!.verdictReturns.filter((v) => v.mayPass);
    expect(passes).toHaveLength(1);
    expect(passes[0]!.ungrounded?.reason).toBe('loop-may-be-empty');
  });
  it('marks the exit-code guard as reachable by a non-result', () => {
    const fail = m.checks[0]!.verdictReturns.find((v) => !v.mayPass)!;
    expect(fail.fromNonResult).toBeUndefined(); // outcome checked first
  });
});

describe('settlement and result use', () => {
  it('explains why a run is unawaited', () => {
    const m = model(
      wrap(`{ id: 'k', kind: 'external', requiredTools: ['t'], async evaluate({ artifact }, rt) {
        [1].forEach(async () => { await rt.tools.run({ toolId: 't', checkId: 'k' }); });
        const p = rt.tools.run({ toolId: 't', checkId: 'k' });
        const q = rt.tools.run({ toolId: 't', checkId: 'k' });
        const [x] = await Promise.all([q]);
        return { verdict: 'fail' };
      } }`),
    )!;
    const runs = m.checks[0]!.toolRuns;
    expect(runs.map((r) => r.settlement)).toEqual(['unawaited', 'unawaited', 'awaited']);
    expect(runs[0]!.settlementReason).toMatch(/forEach/);
    expect(runs[1]!.settlementReason).toMatch(/stored in `p`/);
    expect(runs[0]!.via.map((v) => v.name)).toEqual(['forEach']);
  });
  it('follows the result into helpers and destructuring', () => {
    const m = model(
      wrap(
        `{ id: 'k', kind: 'external', requiredTools: ['t'], async evaluate({ artifact }, rt) {
        const a = await go(rt);
        const { stdout } = await rt.tools.run({ toolId: 't', checkId: 'k' });
        if (a.outcome !== 'executed') return a;
        return { verdict: a.exitCode === 0 && stdout === 'x' ? 'pass' : 'fail' };
      } }`,
        `const go = (rt: any) => rt.tools.run({ toolId: 't', checkId: 'k' });\n`,
      ),
    )!;
    const [a, b] = m.checks[0]!.toolRuns;
    expect(a!.via[0]).toMatchObject({ kind: 'helper', name: 'go' });
    expect(a!.result).toMatchObject({ binding: 'bound', name: 'a', readsOutcome: true, readsExitCode: true });
    expect(b!.result).toMatchObject({ binding: 'bound', readsOutput: true, readsExitCode: false });
    // the second run's non-result reaches the verdict (its outcome is never checked)
    expect(m.checks[0]!.verdictReturns.at(-1)!.fromNonResult).toBeUndefined();
  });
});

describe('cost', () => {
  it('models a 60-check bundle (cost: bench/bundle-cost.mjs)', () => {
    const one = (i: number) => `{ id: 'c${i}', kind: 'external', requiredTools: ['gcc'], async evaluate({ artifact, publicInput }, runtime) {
      const { files } = artifact;
      const run = await runtime.tools.run({ toolId: 'gcc', checkId: 'c${i}', args: ['-c', 'main.c'], files: { 'main.c': files['main.c'] }, stdin: JSON.stringify(publicInput.cases) });
      if (run.outcome !== 'executed') return run;
      return { verdict: run.exitCode === 0 ? 'pass' : 'fail' };
    } }`;
    const text = wrap(Array.from({ length: 60 }, (_, i) => one(i)).join(',\n'));
    const m = model(text)!;
    expect(m.checks).toHaveLength(60);
    expect(m.checks.every((c) => c.toolRuns.length === 1 && c.toolRuns[0]!.inputs.every((i) => i.origin.kind !== 'derived'))).toBe(true);
  });
});
