/**
 * A name bound only inside a loop whose iteration count comes from numeric parameters: `for … in
 * range(P)`, `while i < P`, a countdown `while left > 0` from `left = P`, a deadline `while time.time()
 * < start + timeout`. When every project call leaves those parameters at their defaults or sets them
 * to numeric literals, and with those values the loop runs at least once, the only path that leaves
 * the name unbound (no iteration) is not taken.
 *
 * ```python
 * def get_browser(p, url, trial=15):
 *     for attempt in range(trial):
 *         try:
 *             browser = p.connect(url); break
 *         except Exception:
 *             if attempt < trial - 1: time.sleep(3)
 *             else: return None
 *     return browser          # unbound only when trial <= 0
 * ```
 *
 * Checked by analysing the function again with each such parameter replaced by the value each call
 * gives it (padded to the name's length, so every offset stays put) and asking whether the read is
 * still possibly unbound (the flow analysis knows `range(3)` is non-empty and `while i < 3` after
 * `i = 1` runs once: src/lang/python/flow/loop-facts.ts).
 */
import type { PythonAnalysis, PythonProject, UnboundRead } from '../../src/lang/python/types.js';
import { field, unparen, walk, type PyNode } from '../../src/lang/python/tree.js';
import { signatureOf } from '../../src/lang/python/signature.js';
import { callersOf } from '../../src/suites/harness/py-values.js';

/** Source text of a numeric literal argument or default (`3`, `6.0`, `-1`), or undefined. */
const numText = (a: PythonAnalysis, n: PyNode | undefined): string | undefined => {
  const u = n && unparen(n);
  if (!u) return undefined;
  const s = a.src(u);
  return (u.type === 'integer' || u.type === 'float' || u.type === 'unary_operator') && /^-?\d+(\.\d*)?$/.test(s) ? s : undefined;
};

const MAX_CASES = 3;

export function boundWhenLoopRuns(a: PythonAnalysis, read: UnboundRead, project: PythonProject, boundByTask: (file: string, qualname: string) => boolean): boolean {
  if (read.kind !== 'maybe') return false;
  const fn = a.functionAt(read.node);
  const body = fn && field(fn.node, 'body');
  if (!fn || !body || fn.decorators.length || boundByTask(a.path, fn.qualname)) return false;
  const defs = (a.reachingDefs(read.node) ?? []).filter((d) => d.kind !== 'unbound' && d.node);
  if (!defs.length) return false;
  // the loop that holds every binding of the name, before the read
  let loop: PyNode | undefined;
  walk(body, (n) => {
    if (loop || n.type === 'function_definition' || n.type === 'class_definition' || n.type === 'lambda') return n === body ? undefined : false;
    if ((n.type === 'for_statement' || n.type === 'while_statement') && n.end <= read.node.start && defs.every((d) => d.node!.start >= n.start && d.node!.end <= n.end)) loop = n;
    return undefined;
  });
  if (!loop) return false;
  // parameters with a numeric default, read in the body and never rebound there
  const uses = new Map<string, PyNode[]>();
  walk(body, (n) => {
    // a name, not an attribute (`self.timeout`) or a keyword (`f(timeout=1)`)
    const attrOrKw = (n.parent?.type === 'attribute' && field(n.parent, 'attribute') === n) || (n.parent?.type === 'keyword_argument' && field(n.parent, 'name') === n);
    if (n.type === 'identifier' && !attrOrKw) uses.set(a.src(n), [...(uses.get(a.src(n)) ?? []), n]);
  });
  const rebound = (u: PyNode) => {
    const p = u.parent;
    return !!p && (((p.type === 'assignment' || p.type === 'augmented_assignment' || p.type === 'for_statement') && field(p, 'left') === u) || p.type === 'pattern_list' || p.type === 'named_expression' || p.type === 'global_statement' || p.type === 'nonlocal_statement');
  };
  const sig = signatureOf(a, fn);
  const params = (fn.classNode ? sig.params.slice(1) : sig.params)
    .map((p, index) => ({ p, index, dflt: p.node.type === 'default_parameter' || p.node.type === 'typed_default_parameter' ? numText(a, field(p.node, 'value')) : undefined }))
    .filter((x) => x.dflt !== undefined && uses.get(x.p.name)?.length && !uses.get(x.p.name)!.some(rebound));
  if (!params.length) return false;
  // what every call gives them: their defaults, or numeric literals
  const callers = callersOf(project, a.path, fn);
  if (!callers.length) return false;
  const cases = new Map<string, string[]>();
  for (const s of callers) {
    const c = s.a.call(s.node);
    if (!c || c.hasStarArgs || c.hasStarKwargs) return false;
    const vals: string[] = [];
    for (const { p, index, dflt } of params) {
      const given = c.kwargs.get(p.name) ?? (p.kind !== 'keyword' ? c.args[index] : undefined);
      const v = given ? numText(s.a, given) : dflt;
      if (v === undefined || v.length > p.name.length) return false;
      vals.push(v);
    }
    cases.set(vals.join('\0'), vals);
  }
  if (cases.size > MAX_CASES) return false;
  // the read is no longer possibly unbound with the parameters fixed to each call's values
  for (const vals of cases.values()) {
    const edits = params.flatMap(({ p }, i) => uses.get(p.name)!.map((u) => ({ u, lit: vals[i]! })));
    let text = a.text;
    for (const { u, lit } of edits.sort((x, y) => y.u.start - x.u.start)) text = text.slice(0, u.start) + lit.padEnd(u.end - u.start, ' ') + text.slice(u.end);
    const b = project.analyseCode(text);
    if (b.unboundReads().some((r) => r.node.start === read.node.start && r.name === read.name)) return false;
  }
  return true;
}
