/** Statements that cannot raise: the state before them never reaches an `except` through them. */
import { type PyNode, field, named, unparen } from '../tree.js';
import type { FlowState, State, StateMap } from './state.js';

export function cannotRaise(cx: FlowState, n: PyNode, s: State): boolean {
  if (n.type === 'pass_statement' || n.type === 'global_statement' || n.type === 'nonlocal_statement') return true;
  if (n.type !== 'expression_statement' || !s) return false;
  const kids = named(n);
  const a = kids[0];
  if (kids.length !== 1 || a!.type !== 'assignment' || field(a!, 'type')) return false;
  const l = field(a!, 'left');
  const r = field(a!, 'right');
  if (!l || !r) return false;
  if (l.type === 'identifier') return safeValue(cx, r, s);
  // `a, b = None, None`: names unpacked from as many safe values (another count raises ValueError)
  if (!TARGETS.has(l.type) || !VALUES.has(r.type)) return false;
  const names = named(l);
  const values = named(r);
  return names.length === values.length && names.every((k) => k.type === 'identifier') && values.every((v) => v.type !== 'list_splat' && safeValue(cx, v, s));
}

const TARGETS = new Set(['pattern_list', 'tuple_pattern', 'list_pattern']);
const VALUES = new Set(['expression_list', 'tuple', 'list']);

/** A literal built of constants and bound local names (evaluating it cannot raise). */
function safeValue(cx: FlowState, v: PyNode, s: StateMap): boolean {
  const u = unparen(v);
  switch (u.type) {
    case 'none': case 'true': case 'false': case 'integer': case 'float':
      return true;
    case 'identifier': {
      const t = cx.trackedKey(u);
      return !!t && ![...cx.get(s, t.key, cx.src(u))].some((d) => d.kind === 'unbound');
    }
    case 'string':
      return u.children.every((c) => c.type !== 'interpolation' || named(c).every((k) => k.type === 'identifier' && safeValue(cx, k, s)));
    case 'list': case 'tuple': case 'set':
      return named(u).every((k) => k.type !== 'list_splat' && safeValue(cx, k, s));
    case 'dictionary':
      return named(u).every((k) => k.type === 'pair' && named(k).every((x) => safeValue(cx, x, s)));
  }
  return false;
}
