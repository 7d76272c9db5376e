/**
 * Which definitions of a function's locals some read uses: the reaching definitions of every name read
 * in the function's own body (comprehensions run inline), through the narrowing definitions that refine
 * them. A definition no read uses is a dead store: its value never reaches anything the function does.
 *
 * Names read inside nested functions, lambdas and classes (closures) are listed apart: their reads
 * are not the executing unit's, so callers treat every definition of such a name as used.
 */
import type { Def } from './flow.js';
import { DefVisitor } from './flow/defset.js';
import type { FunctionInfo, PythonAnalysis } from './types.js';
import { field, walk, type PyNode } from './tree.js';

export interface DefUse {
  /** Definitions of the function's locals made in its own body, in source order. */
  defs: Def[];
  /** Definitions some read of the function's own body reaches (directly or through narrowing). */
  used: ReadonlySet<Def>;
  /** Names read in nested functions, lambdas or classes. */
  captured: ReadonlySet<string>;
  /** Name reads of the function's own body, by name, in source order. */
  reads: ReadonlyMap<string, PyNode[]>;
  /** The function calls `locals()`, `vars()`, `eval` or `exec`, or declares names `global`/`nonlocal`:
   *  reads the analysis cannot see. */
  dynamic: boolean;
}

/** Per analysis (an edited text's tree may take nodes of the previous one over), per function node. */
const cache = new WeakMap<PythonAnalysis, WeakMap<PyNode, DefUse>>();

const NESTED = new Set(['function_definition', 'lambda', 'class_definition']);
const DYNAMIC_CALLS = new Set(['locals', 'vars', 'eval', 'exec']);

export function defUse(a: PythonAnalysis, fn: FunctionInfo): DefUse {
  let byFn = cache.get(a);
  if (!byFn) cache.set(a, (byFn = new WeakMap()));
  const hit = byFn.get(fn.node);
  if (hit) return hit;
  const defs: Def[] = [];
  const used = new Set<Def>();
  const captured = new Set<string>();
  const reads = new Map<string, PyNode[]>();
  let dynamic = false;
  // the reads' sets share their parts: each part is visited once (a flat function's reads hold every
  // earlier definition of a name bound on some paths; visiting each set in full was reads × definitions)
  const visitor = new DefVisitor<Def>();
  const use = (d: Def) => {
    if (used.has(d)) return;
    used.add(d);
    for (const b of d.base ?? []) use(b);
  };
  const body = field(fn.node, 'body');
  if (body)
    walk(body, (n) => {
      if (NESTED.has(n.type)) {
        walk(n, (k) => {
          if (k.type === 'identifier') captured.add(a.src(k));
        });
        return false;
      }
      if (n.type === 'global_statement' || n.type === 'nonlocal_statement') dynamic = true;
      if (n.type === 'call') {
        const f = field(n, 'function');
        if (f?.type === 'identifier' && DYNAMIC_CALLS.has(a.src(f))) dynamic = true;
      }
      if (n.type !== 'identifier') return;
      const d = a.defAt(n);
      if (d) defs.push(d);
      const r = a.flow.readDefs.get(n);
      if (r) {
        visitor.visit(r, use);
        const name = a.src(n);
        const list = reads.get(name) ?? [];
        list.push(n);
        reads.set(name, list);
      }
    });
  const out: DefUse = { defs, used, captured, reads, dynamic };
  byFn.set(fn.node, out);
  return out;
}
