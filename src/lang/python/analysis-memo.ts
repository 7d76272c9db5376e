/**
 * Answers kept per analysis and key (a function's node, its qualified name): asked again by every read,
 * entry or verdict that routes to the same function. Keyed by the analysis first, because an editor
 * session's project takes over the analyses of the files an edit left as they were, while an edited
 * file's new tree may take nodes of the previous one over: its answers must not be reused.
 */
import type { PythonAnalysis } from './types.js';

export type AnalysisMemo<K, V> = (a: PythonAnalysis, key: K, compute: () => V) => V;

/** A memo of `compute()`'s answers per analysis and key (an answer may be undefined: it is kept too). */
export function analysisMemo<K, V>(): AnalysisMemo<K, V> {
  const byAnalysis = new WeakMap<PythonAnalysis, Map<K, V>>();
  return (a, key, compute) => {
    let m = byAnalysis.get(a);
    if (!m) byAnalysis.set(a, (m = new Map()));
    if (m.has(key)) return m.get(key) as V;
    const v = compute();
    m.set(key, v);
    return v;
  };
}
