/**
 * Config `ignores` in the suppression index (issue 30): entries whose files are literal paths are looked
 * up by folder, rule and path, the others tested glob by glob; either way a finding gets the first entry
 * in list order that covers it, exactly as one scan of every entry would find it.
 */
import { describe, expect, it } from 'vitest';
import type { LoadedConfig } from '../src/config/load.js';
import type { Finding } from '../src/core/types.js';
import { configSuppressions, SuppressionIndex } from '../src/engine/suppress.js';

const DIR = '/suite';

function index(ignores: Array<{ files: string | string[]; rules: string[]; pointer?: string }>) {
  const sups = configSuppressions({ config: { ignores }, path: `${DIR}/vaudit.config.json`, dir: DIR } as unknown as LoadedConfig);
  return { sups, idx: new SuppressionIndex(sups) };
}

const finding = (file: string, ruleId: string, pointer?: string) =>
  ({ ruleId, file: `${DIR}/${file}`, pointer, range: { start: { line: 1, column: 1 }, end: { line: 1, column: 2 } } }) as unknown as Finding;

describe('config ignores in the suppression index', () => {
  it('matches literal paths (also with a leading ./) and globs, by rule', () => {
    const { sups, idx } = index([
      { files: 'verifier/a.py', rules: ['unbound-name'] },
      { files: './verifier/b.py', rules: ['unbound-name'] },
      { files: 'verifier/**/*.js', rules: ['missing-timeout'] },
      { files: ['verifier/c.py', 'verifier/d.py'], rules: ['all'] },
    ]);
    expect(idx.first(finding('verifier/a.py', 'unbound-name'))).toBe(sups[0]);
    expect(idx.first(finding('verifier/a.py', 'missing-timeout'))).toBeUndefined();
    expect(idx.first(finding('verifier/b.py', 'unbound-name'))).toBe(sups[1]);
    expect(idx.first(finding('verifier/x/e.js', 'missing-timeout'))).toBe(sups[2]);
    expect(idx.first(finding('verifier/d.py', 'float-equality'))).toBe(sups[3]);
    expect(idx.first(finding('verifier/A.py', 'unbound-name'))).toBeUndefined();
    expect(idx.first(finding('other/verifier/a.py', 'unbound-name'))).toBeUndefined();
    expect(sups.map((s) => [...s.used])).toEqual([['unbound-name'], ['unbound-name'], ['missing-timeout'], ['float-equality']]);
  });

  it('gives the first entry in list order whether it is a glob or a literal path', () => {
    const { sups, idx } = index([
      { files: 'tasks/**', rules: ['task-schema'], pointer: '/evaluate' },
      { files: 'tasks/a.json', rules: ['task-schema'] },
      { files: 'tasks/*.json', rules: ['task-schema'] },
    ]);
    expect(idx.first(finding('tasks/a.json', 'task-schema', '/evaluate/0'))).toBe(sups[0]);
    expect(idx.first(finding('tasks/a.json', 'task-schema', '/steps'))).toBe(sups[1]);
    expect(idx.first(finding('tasks/b.json', 'task-schema', '/steps'))).toBe(sups[2]);
  });

  it('indexes 20,000 literal entries and still finds the last one', () => {
    const { sups, idx } = index(Array.from({ length: 20_000 }, (_, i) => ({ files: `v/f${i}.py`, rules: ['unbound-name'] })));
    expect(idx.first(finding('v/f19999.py', 'unbound-name'))).toBe(sups[19_999]);
    expect(idx.first(finding('v/f20000.py', 'unbound-name'))).toBeUndefined();
  });
});
