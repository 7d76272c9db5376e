/** The public bundle contract (`vaudit/bundle`), its JSON schema, and the bundle rules end to end through lint(). */
import { mkdtempSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { defineCorrectnessModel, CorrectnessModelError, isNonResult, isExecuted, type RunResult } from '../src/bundle/index.js';
import { lint } from '../src/engine/lint.js';

const schema = JSON.parse(readFileSync(path.resolve(import.meta.dirname, '../schemas/bundle.schema.json'), 'utf8'));
const validate = new Ajv2020({ strict: false }).compile(schema);

describe('defineCorrectnessModel', () => {
  it('returns a valid model unchanged', () => {
    const m = defineCorrectnessModel({
      id: 'c-hello',
      artifact: { files: ['main.c'] },
      publicInput: { fields: ['cases'] },
      checks: [{ id: 'compiles', kind: 'external', requiredTools: ['gcc'], evaluate: async () => ({ verdict: 'fail' }) }],
    });
    expect(m.checks[0]!.id).toBe('compiles');
  });
  it('throws on duplicate check ids, bad kinds and missing evaluate', () => {
    const bad = () =>
      defineCorrectnessModel({
        id: 'x',
        artifact: { files: ['a'] },
        checks: [
          { id: 'c', kind: 'external', evaluate: () => ({ verdict: 'pass' }) },
          { id: 'c', kind: 'weird' as 'external', evaluate: undefined as never },
        ],
      });
    expect(bad).toThrow(CorrectnessModelError);
    try {
      bad();
    } catch (e) {
      expect((e as CorrectnessModelError).problems).toEqual(["checks[1].id 'c' is not unique", "checks[1].kind must be 'external' or 'authored'", 'checks[1].evaluate must be a function']);
    }
  });
  it('narrows run results', () => {
    const r: RunResult = { outcome: 'timeout', detail: 'killed after 10s' };
    expect(isNonResult(r)).toBe(true);
    expect(isExecuted({ outcome: 'executed', exitCode: 1, stdout: '', stderr: '' })).toBe(true);
  });
});

describe('bundle.schema.json', () => {
  it('accepts the declarative part and rejects an unknown kind or member', () => {
    const ok = { id: 'c-hello', artifact: { files: ['main.c'] }, publicInput: { fields: ['cases'] }, checks: [{ id: 'compiles', kind: 'external', requiredTools: ['gcc'] }] };
    expect(validate(ok)).toBe(true);
    expect(validate({ ...ok, checks: [{ id: 'compiles', kind: 'builtin' }] })).toBe(false);
    expect(validate({ ...ok, engines: ['gcc'] })).toBe(false);
  });
});

describe('bundle rules through lint()', () => {
  it('reports at the exact place with a JSON-serialisable control', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'vaudit-bundle-'));
    try {
      const text = [
        `import { defineCorrectnessModel } from 'vaudit/bundle';`,
        `const STUB = '#define main x';`,
        `export default defineCorrectnessModel({ id: 'm', artifact: { files: ['main.c'] }, checks: [{`,
        `  id: 'compiles', kind: 'external', requiredTools: ['gcc'],`,
        `  async evaluate({ artifact }, runtime) {`,
        `    const run = await runtime.tools.run({ toolId: 'gcc', checkId: 'compiles', files: { 'main.c': artifact.files['main.c'], 'stub.h': STUB } });`,
        `    if (run.outcome !== 'executed') return { verdict: 'fail' };`,
        `    return { verdict: run.exitCode === 0 ? 'pass' : 'fail' };`,
        `  } }] });`,
      ].join('\n');
      writeFileSync(path.join(dir, 'model.ts'), text);
      const res = await lint({ paths: [dir], cwd: dir });
      try {
        const got = res.findings.filter((f) => ['non-leaf-tool-input', 'nonresult-as-verdict'].includes(f.ruleId)).map((f) => [f.ruleId, f.range.start.line, text.slice(f.range.start.offset, f.range.end.offset)]);
        expect(got).toEqual([
          ['non-leaf-tool-input', 6, 'STUB'],
          ['nonresult-as-verdict', 7, "return { verdict: 'fail' };"],
        ]);
        const nl = res.findings.find((f) => f.ruleId === 'non-leaf-tool-input')!;
        expect(nl.message).toContain("the string literal `'#define main x'`");
        expect(nl.related?.[0]?.range.start.line).toBe(2);
        expect(JSON.parse(JSON.stringify(nl.control))).toEqual(nl.control);
        expect(nl.control).toMatchObject({ oracle: 'non-leaf-tool-input', checkId: 'compiles', checkIndex: 0, input: { key: 'stub.h', how: 'literal' } });
      } finally {
        res.dispose();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
