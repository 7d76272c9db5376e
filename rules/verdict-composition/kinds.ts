/** What the parts of verdict-composition share: its message ids, the visitor context, and small helpers. */
import type { PythonVisitor } from '../../src/contract/rule.js';
import type { FunctionInfo, PythonAnalysis } from '../../src/lang/python/types.js';
import type { PyNode } from '../../src/lang/python/tree.js';
import { pyOnVerdictPath } from '../../src/suites/verdict.js';

export type Msg =
  | 'oneBranch'
  | 'truthyElement'
  | 'truthyCollection'
  | 'jsTruthyArray'
  | 'alternativesAnded'
  | 'looseThreshold'
  | 'rawSimilarity'
  | 'unusedCheck'
  | 'droppedItems'
  | 'droppedFromAll'
  | 'jsDroppedFromEvery'
  | 'droppedFiltered'
  | 'droppedMissing';

export type Ctx = Parameters<PythonVisitor<Msg>>[1];

/** The function holding `n` when it is on a verdict path (when no task entry is bound: a function that returns a verdict). */
export function verdictFunctionAt(c: Ctx, n: PyNode): FunctionInfo | undefined {
  const fn = c.python.functionAt(n);
  return fn && pyOnVerdictPath(c.project, c.python, fn) ? fn : undefined;
}

/** Source text on one line, cut to `max` characters. */
export function short(a: PythonAnalysis, n: PyNode, max = 60): string {
  const one = a.src(n).replace(/\s+/g, ' ');
  return one.length > max ? `${one.slice(0, max - 3)}...` : one;
}

/** Words of an item that did not run (errored, skipped, crashed, timed out), as the value of a status field
 *  (`r["status"] != "skipped"`, `r.status !== 'skipped'`): droppedFiltered in Python and JS. */
export const NOT_RUN = /^(?:error|errored|errors|err|exception|skip|skipped|crash|crashed|timeout|timedout|timed_out|invalid|broken)$/i;
/** The same words as a field of their own (`not r.get("error")`, `!r.error`, `r.timeout is None`): only those
 *  that say something happened to the item when it ran. `skip`, `invalid`, `broken` as a flag mark the inputs a
 *  dataset leaves out (`not p.get("skip")`), not a run's outcome. */
export const NOT_RUN_FLAG = /^(?:error|errored|errors|err|exception|skipped|crash|crashed|timeout|timedout|timed_out)$/i;
/** Fields that hold a run's outcome: a not-run word compared with another field (`c["kind"] != "error"`,
 *  Playwright's `t.expectedStatus !== 'skipped'`, what the spec's author asked for) is a category or an
 *  expectation, not an outcome. */
export const STATUS_KEY = /^(?:status|outcome|result|state|conclusion|verdict)$/i;
