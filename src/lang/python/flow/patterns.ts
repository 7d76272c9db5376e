/** `match` statements: the names a case pattern binds and the reads it makes; irrefutable patterns. */
import { type PyNode, named } from '../tree.js';
import type { FlowState, State } from './state.js';

export function bindPattern(cx: FlowState, n: PyNode, s: State): State {
  switch (n.type) {
    case 'dotted_name': {
      const ids = named(n);
      if (ids.length === 1 && n.parent && n.parent.type !== 'class_pattern') return cx.bindId(s, ids[0]!, 'match');
      if (ids[0]) cx.recordRead(ids[0], s);
      return s;
    }
    case 'splat_pattern': case 'as_pattern':
      for (const c of named(n)) s = c.type === 'identifier' ? cx.bindId(s, c, 'match') : bindPattern(cx, c, s);
      return s;
    case 'keyword_pattern': {
      const kids = named(n);
      for (let i = 1; i < kids.length; i++) s = bindPattern(cx, kids[i]!, s);
      return s;
    }
    case 'identifier':
      cx.recordRead(n, s);
      return s;
    case 'string': case 'concatenated_string':
      return s;
    default:
      for (const c of named(n)) s = bindPattern(cx, c, s);
      return s;
  }
}

/** A case pattern that matches every subject (`case _:`, `case x:`, `case (_ as y):`). */
export function isIrrefutable(cp: PyNode): boolean {
  const kids = cp.children;
  if (kids.length === 1 && kids[0]!.type === '_') return true;
  const only = named(cp);
  if (only.length === 1 && only[0]!.type === 'dotted_name' && named(only[0]!).length === 1) return true;
  if (only.length === 1 && only[0]!.type === 'as_pattern') {
    const inner = named(only[0]!).find((c) => c.type === 'case_pattern');
    return inner ? isIrrefutable(inner) : false;
  }
  return false;
}
