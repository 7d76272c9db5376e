/**
 * Call signatures of Python functions: which parameters a call must fill, which it may fill by
 * keyword, and whether `*args` / `**kwargs` absorb the rest. Read from the `parameters` node of a
 * function definition (defaults, `*`, `/`, annotations as source text).
 */
import type { FunctionInfo, PythonAnalysis } from './types.js';
import { field, named, type PyNode } from './tree.js';

interface Param {
  name: string;
  /** Has a default value. */
  optional: boolean;
  /** positional-only (before `/`), normal, keyword-only (after `*` or `*args`). */
  kind: 'positional' | 'normal' | 'keyword';
  /** Annotation source text, when written. */
  annotation?: string;
  node: PyNode;
}

export interface Signature {
  params: Param[];
  /** Name of the `*args` parameter, when present. */
  varargs?: string;
  /** Name of the `**kwargs` parameter, when present. */
  kwargs?: string;
  /** Return annotation source text, when written. */
  returns?: string;
}

/** The signature of a function (methods keep `self`: callers decide whether it is bound). */
export function signatureOf(a: PythonAnalysis, fn: FunctionInfo): Signature {
  const sig: Signature = { params: [] };
  const ret = field(fn.node, 'return_type');
  if (ret) sig.returns = a.src(ret);
  const ps = field(fn.node, 'parameters');
  if (!ps) return sig;
  let keywordOnly = false;
  const items = named(ps);
  const slash = items.findIndex((p) => p.type === 'positional_separator');
  items.forEach((p, i) => {
    const kind: Param['kind'] = keywordOnly ? 'keyword' : i < slash ? 'positional' : 'normal';
    switch (p.type) {
      case 'identifier':
        sig.params.push({ name: a.src(p), optional: false, kind, node: p });
        break;
      case 'typed_parameter': {
        const inner = named(p)[0];
        const type = field(p, 'type');
        if (inner?.type === 'list_splat_pattern') {
          sig.varargs = a.src(named(inner)[0] ?? inner);
          keywordOnly = true;
        } else if (inner?.type === 'dictionary_splat_pattern') sig.kwargs = a.src(named(inner)[0] ?? inner);
        else if (inner) sig.params.push({ name: a.src(inner), optional: false, kind, annotation: type ? a.src(type) : undefined, node: p });
        break;
      }
      case 'default_parameter':
      case 'typed_default_parameter': {
        const name = field(p, 'name');
        const type = field(p, 'type');
        if (name) sig.params.push({ name: a.src(name), optional: true, kind, annotation: type ? a.src(type) : undefined, node: p });
        break;
      }
      case 'list_splat_pattern':
        sig.varargs = a.src(named(p)[0] ?? p);
        keywordOnly = true;
        break;
      case 'keyword_separator':
        keywordOnly = true;
        break;
      case 'dictionary_splat_pattern':
        sig.kwargs = a.src(named(p)[0] ?? p);
        break;
    }
  });
  return sig;
}

/**
 * What is wrong with calling `sig` with `positional` positional arguments and the keyword names
 * `keywords` (nothing when the call binds). Mirrors CPython's TypeError cases.
 */
export function callProblems(sig: Signature, positional: number, keywords: readonly string[]): Array<
  { kind: 'tooManyPositional'; accepts: number } | { kind: 'unexpectedKeyword'; name: string } | { kind: 'missing'; name: string } | { kind: 'duplicate'; name: string }
> {
  const out: ReturnType<typeof callProblems> = [];
  const positionalSlots = sig.params.filter((p) => p.kind !== 'keyword');
  if (positional > positionalSlots.length && !sig.varargs) out.push({ kind: 'tooManyPositional', accepts: positionalSlots.length });
  const filled = new Set(positionalSlots.slice(0, positional).map((p) => p.name));
  for (const k of keywords) {
    const p = sig.params.find((x) => x.name === k && x.kind !== 'positional');
    if (p && filled.has(k)) out.push({ kind: 'duplicate', name: k });
    else if (p) filled.add(k);
    else if (!sig.kwargs) out.push({ kind: 'unexpectedKeyword', name: k });
  }
  for (const p of sig.params) if (!p.optional && !filled.has(p.name)) out.push({ kind: 'missing', name: p.name });
  return out;
}
