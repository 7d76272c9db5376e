/** A rich, hand-built ReportInput for reporter tests (no rules needed): multi-line and zero-width
 *  ranges, related locations, confirmations, JSON pointers, awkward file names, two families. */
import path from 'node:path';
import type { Finding, Range } from '../../src/core/types.js';
import type { RuleMeta } from '../../src/contract/rule.js';
import type { ReportInput } from '../../src/report/model.js';

export const ROOT = '/work/suite';

const META: RuleMeta = {
  id: 'unbound-name',
  description: 'A name used in a verifier path is never bound on that path.',
  defaultSeverity: 'error',
  layers: ['python'],
  languages: ['python'],
  messages: { unbound: { what: '{{name}} is unbound here.', why: 'The verifier raises NameError.', fix: 'Bind it first.' } },
  docs: {
    whatItDoes: 'Flags names read before any assignment on some path.',
    why: 'The verifier raises NameError, which an error factory turns into a silent false.',
    incorrect: [{ files: { 'v.py': 'def f():\n    return raw_keys\n' } }],
    correct: [{ files: { 'v.py': 'def f(raw_keys):\n    return raw_keys\n' } }],
  },
  confirm: { oracle: 'python-call', description: 'Calls the verifier on a witness state and observes the verdict.' },
};

const META2: RuleMeta = {
  ...META,
  id: 'set-equality-drops-duplicates',
  description: 'Comparing lines as sets ignores multiplicity.',
  defaultSeverity: 'warn',
  confirm: undefined,
};

/** A finding's message from its parts (`why` folded into `what` here). */
export function parts(what: string, fix = ''): Pick<Finding, 'message' | 'parts'> {
  return { message: fix ? `${what} ${fix}` : what, parts: { what, why: '', fix } };
}

export function range(l1: number, c1: number, l2: number, c2: number, o1 = 0, o2 = o1 + 1): Range {
  return { start: { line: l1, column: c1, offset: o1 }, end: { line: l2, column: c2, offset: o2 } };
}

export function richInput(over: Partial<ReportInput> = {}): ReportInput {
  const py = path.join(ROOT, 'verifier/chimerax/mixin.py');
  const task = path.join(ROOT, 'tasks/ChimeraX/D 01 (copy).json');
  const findings: Finding[] = [
    {
      ruleId: 'unbound-name', messageId: 'unbound', severity: 'error', file: py,
      ...parts('raw_keys is unbound when `find` is set, so the verifier returns False through error_factory.', 'Build the matched-key list before checking it.'),
      range: range(12, 9, 14, 3, 300, 360),
      related: [{ file: task, range: range(5, 14, 5, 40, 80, 106), message: 'entry that reaches this path' }],
      confirmation: { status: 'confirmed', witness: 'state {"a": 1} | 50% "quoted"', expected: 'pass', observed: 'fail (NameError)', runId: 'r-0001' },
      fingerprint: 'a'.repeat(32),
    },
    {
      ruleId: 'unbound-name', messageId: 'unbound', severity: 'error', file: task, pointer: '/evaluate/1/find',
      ...parts('Lambda reads <key> before binding it.', 'Fix the lambda.'),
      range: range(7, 20, 7, 20, 150, 150),
      fingerprint: 'b'.repeat(32),
    },
    {
      ruleId: 'set-equality-drops-duplicates', messageId: 'unbound', severity: 'warning', file: path.join(ROOT, 'verifier/grassgis/mixin.py'),
      ...parts('Lines compared as sets: a duplicate expected line | a missing one compare equal.', 'Compare sorted lists.'),
      range: range(3, 1, 3, 30, 40, 69),
      fingerprint: 'c'.repeat(32),
    },
  ];
  return {
    findings,
    root: ROOT,
    stats: { files: 4, tasks: 2, entries: 5, pythonFiles: 2, bundles: 0, durationMs: 12.5 },
    rules: new Map([[META.id, { meta: META }], [META2.id, { meta: META2 }]]),
    suppressedCount: 1,
    toolVersion: '0.1.0',
    runs: [{ runId: 'r-0001', outcome: 'executed' }],
    families: { [py]: 'ChimeraX', [task]: 'ChimeraX', [path.join(ROOT, 'verifier/grassgis/mixin.py')]: 'GrassGIS' },
    ...over,
  };
}
