/** The demo suite: every JSON-layer finding on its task files is annotated, and every annotation is found, at exact places. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { lint } from '../src/engine/lint.js';
import { compareExpectations, readExpectations } from '../src/engine/expectations.js';
import { listFiles } from './helpers/lint-case.js';

const DEMO = path.resolve(import.meta.dirname, '../fixtures/demo-suite');
export const JSON_LAYER_RULES = [
  'task-schema', 'lambda-syntax', 'lambda-arity', 'regex-invalid', 'regex-redos', 'ans-mismatch', 'replace-not-unique',
  'init-missing', 'first-match-lambda', 'substring-containment', 'unsafe-lambda', 'time-dependent',
];

describe('demo suite (JSON layer)', async () => {
  const result = await lint({ paths: [DEMO], cwd: DEMO, reportUnusedSuppressions: false });
  const taskFiles = listFiles(path.join(DEMO, 'tasks')).filter((f) => f.endsWith('.json'));
  const findings = result.findings.filter((f) => JSON_LAYER_RULES.includes(f.ruleId) && f.file.endsWith('.json'));
  result.dispose();

  it('loads every task of all six families', () => {
    const tasks = result.project.suites.flatMap((s) => s.tasks);
    expect(tasks.length).toBe(taskFiles.length);
    expect(new Set(tasks.map((t) => t.family))).toEqual(new Set(['Celestia', 'ChimeraX', 'GrassGIS', 'KAlgebra', 'Lean', 'TeXstudio']));
    expect(tasks.length).toBeGreaterThanOrEqual(20);
  });

  it('reports exactly the annotated JSON-layer findings', () => {
    const expectations = taskFiles.flatMap((f) => readExpectations(f, readFileSync(f, 'utf8'))).filter((e) => JSON_LAYER_RULES.includes(e.ruleId));
    const { missing, unexpected } = compareExpectations(findings, expectations, JSON_LAYER_RULES);
    expect(unexpected.map((f) => `${f.ruleId} ${path.relative(DEMO, f.file)} ${f.pointer} ${f.message}`)).toEqual([]);
    expect(missing.map((e) => `${e.ruleId} ${path.relative(DEMO, e.file)} ${e.pointer}`)).toEqual([]);
    // seeded defects of every JSON-layer rule, and clean tasks too
    expect(new Set(findings.map((f) => f.ruleId))).toEqual(new Set(JSON_LAYER_RULES));
    const dirty = new Set(findings.map((f) => f.file));
    expect(taskFiles.length - dirty.size).toBeGreaterThanOrEqual(8);
  });

  it('points lambda findings at the exact characters of the file', () => {
    const at = (rule: string) => {
      const f = findings.find((x) => x.ruleId === rule)!;
      const text = readFileSync(f.file, 'utf8');
      return text.slice(f.range.start.offset, f.range.end.offset);
    };
    expect(at('time-dependent')).toBe('datetime.date.today()');
    expect(at('first-match-lambda')).toBe("[m for m in dump['models'] if m['shown']][0]");
    expect(at('substring-containment')).toBe('value in key');
    expect(at('unsafe-lambda')).toBe('__import__');
    expect(at('lambda-arity')).toBe('key');
    expect(at('regex-invalid')).toBe('?<r'); // where CPython reports it
    expect(at('lambda-syntax')).toBe('(');
  });
});
