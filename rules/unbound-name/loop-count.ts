/**
 * A name bound only inside `for … in range(P)`, where `P` is a parameter with a positive integer default
 * that every project call leaves at its default or sets to a positive literal: the loop runs at least
 * once on every call, so the only path that leaves the name unbound (no iteration) is not taken.
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
 * Checked by analysing the function again with `P` replaced by each value its callers give (padded to
 * the name's length, so every offset stays put) and asking whether the read is still possibly unbound.
 */
import type { PythonAnalysis, PythonProject, UnboundRead } from '../../src/lang/python/types.js';
import { field, named, unparen, walk, type PyNode } from '../../src/lang/python/tree.js';
import { signatureOf } from '../../src/lang/python/signature.js';
import { callersOf } from '../../src/suites/harness/py-values.js';

const intValue = (a: PythonAnalysis, n: PyNode | undefined): number | undefined => {
  const u = n && unparen(n);
  return u?.type === 'integer' && /^\d+$/.test(a.src(u)) ? Number(a.src(u)) : undefined;
};

export function boundWhenLoopRuns(a: PythonAnalysis, read: UnboundRead, project: PythonProject, boundByTask: (file: string, qualname: string) => boolean): boolean {
  if (read.kind !== 'maybe') return false;
  const fn = a.functionAt(read.node);
  const body = fn && field(fn.node, 'body');
  if (!fn || !body || fn.decorators.length || boundByTask(a.path, fn.qualname)) return false;
  const defs = (a.reachingDefs(read.node) ?? []).filter((d) => d.kind !== 'unbound' && d.node);
  if (!defs.length) return false;
  // the loop over range(P) that holds every binding of the name, before the read
  let loop: PyNode | undefined;
  walk(body, (n) => {
    if (loop || n.type === 'function_definition' || n.type === 'class_definition' || n.type === 'lambda') return n === body ? undefined : false;
    if (n.type === 'for_statement' && n.end <= read.node.start && defs.every((d) => d.node!.start >= n.start && d.node!.end <= n.end)) loop = n;
    return undefined;
  });
  const it = loop && unparen(field(loop, 'right')!);
  const callee = it?.type === 'call' ? field(it, 'function') : undefined;
  const args = it?.type === 'call' ? named(field(it, 'arguments')!) : [];
  if (!it || !callee || a.src(callee) !== 'range' || args.length !== 1 || unparen(args[0]!).type !== 'identifier') return false;
  const P = a.src(unparen(args[0]!));
  const sig = signatureOf(a, fn);
  const params = fn.classNode ? sig.params.slice(1) : sig.params;
  const index = params.findIndex((p) => p.name === P);
  const param = params[index];
  const dflt = param && (param.node.type === 'default_parameter' || param.node.type === 'typed_default_parameter') ? intValue(a, field(param.node, 'value')) : undefined;
  if (!param || !dflt || dflt < 1) return false;
  // what every call gives P: its default, or a positive literal
  const callers = callersOf(project, a.path, fn);
  if (!callers.length) return false;
  const values = new Set<number>();
  for (const s of callers) {
    const c = s.a.call(s.node);
    if (!c || c.hasStarArgs || c.hasStarKwargs) return false;
    const given = c.kwargs.get(P) ?? (param.kind !== 'keyword' ? c.args[index] : undefined);
    const v = given ? intValue(s.a, given) : dflt;
    if (v === undefined || v < 1) return false;
    values.add(v);
  }
  if (values.size > 3) return false;
  // the read is no longer possibly unbound with P fixed to each value
  const uses: PyNode[] = [];
  walk(body, (n) => {
    if (n.type === 'identifier' && a.src(n) === P) uses.push(n);
  });
  if (uses.some((u) => u.parent?.type === 'assignment' && field(u.parent, 'left') === u)) return false;
  for (const v of values) {
    const lit = String(v);
    if (lit.length > P.length) return false;
    let text = a.text;
    for (const u of [...uses].sort((x, y) => y.start - x.start)) text = text.slice(0, u.start) + lit.padEnd(P.length, ' ') + text.slice(u.end);
    const b = project.analyseCode(text);
    if (b.unboundReads().some((r) => r.node.start === read.node.start && r.name === read.name)) return false;
  }
  return true;
}
