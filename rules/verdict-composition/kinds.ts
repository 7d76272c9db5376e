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
