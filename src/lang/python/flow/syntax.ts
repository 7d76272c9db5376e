/** Syntax-only helpers of the flow analysis: literals, call shapes, handler types, constant kinds. */
import { type PyNode, field, named, unparen, firstNamed } from '../tree.js';
import type { Def } from './state.js';

const CATCH_ALL = new Set(['Exception', 'BaseException']);

/** Value of an integer literal (`3`, `-1`, `1_000`), or undefined. */
export function intLit(n: PyNode, text: string): number | undefined {
  const u = unparen(n);
  if (u.type === 'integer') { const v = Number(text.slice(u.start, u.end).replace(/_/g, '')); return Number.isFinite(v) ? v : undefined; }
  if (u.type === 'unary_operator' && text.slice(u.start, u.end).startsWith('-')) { const a = firstNamed(u); const v = a ? intLit(a, text) : undefined; return v === undefined ? undefined : -v; }
  return undefined;
}

/** A call with plain arguments: callee text, positional arguments, keyword arguments (undefined with splats). */
export function callParts(n: PyNode, text: string): { fn: string; args: PyNode[]; kw: Map<string, PyNode> } | undefined {
  const u = unparen(n);
  if (u.type !== 'call') return undefined;
  const fn = field(u, 'function');
  const al = field(u, 'arguments');
  if (!fn || !al || al.type !== 'argument_list') return undefined;
  const args: PyNode[] = [];
  const kw = new Map<string, PyNode>();
  for (const a of named(al)) {
    if (a.type === 'comment') continue;
    if (a.type === 'keyword_argument') { const k = field(a, 'name'); const v = field(a, 'value'); if (k && v) kw.set(text.slice(k.start, k.end), v); }
    else if (a.type === 'list_splat' || a.type === 'dictionary_splat') return undefined;
    else args.push(a);
  }
  return { fn: text.slice(fn.start, fn.end), args, kw };
}

/** Source text of a node with whitespace removed. */
export const flat = (n: PyNode, text: string) => text.slice(n.start, n.end).replace(/\s+/g, '');

export function nonEmptyLiteral(n: PyNode): boolean {
  const u = unparen(n);
  if (u.type !== 'tuple' && u.type !== 'list') return false;
  const kids = named(u);
  return kids.length > 0 && !kids.some((k) => k.type === 'list_splat');
}

/**
 * How a `try` statement's handlers meet a NameError raised in its body: the first handler that catches
 * it names it (`except NameError:`, a test of whether the name exists: `try: unicode except NameError:
 * unicode = str`), or catches it among everything (`except Exception:`, a bare `except:`); undefined
 * when none does.
 */
export function nameErrorHandling(tryNode: PyNode, text: string): 'probe' | 'catch' | undefined {
  for (const h of tryNode.children) {
    if (h.type !== 'except_clause') continue;
    const types = handlerTypes(h, text);
    if (types === null) return 'catch';
    if (types.some((t) => t === 'NameError' || t === 'UnboundLocalError')) return 'probe';
    if (types.some((t) => CATCH_ALL.has(t))) return 'catch';
  }
  return undefined;
}

/** The read's NameError is caught by a handler that names it: the innermost `try` whose body holds the
 *  read (in its own function) and that catches NameError at all catches it by name. */
export function probedRead(read: PyNode, text: string): boolean {
  for (let c: PyNode = read, p = read.parent; p; c = p, p = p.parent) {
    // a generator expression's body runs when it is iterated, outside the `try`
    if (p.type === 'function_definition' || p.type === 'lambda' || p.type === 'class_definition' || p.type === 'generator_expression') return false;
    if (p.type === 'try_statement' && c.field === 'body') {
      const h = nameErrorHandling(p, text);
      if (h) return h === 'probe';
    }
  }
  return false;
}

export function isCatchAll(handler: PyNode, text: string): boolean {
  const types = handlerTypes(handler, text);
  return types === null || types.some((t) => CATCH_ALL.has(t));
}

/** Exception type names a handler catches (last dotted segment); null for a bare `except:`. */
export function handlerTypes(handler: PyNode, text: string): string[] | null {
  let e: PyNode | undefined;
  for (const c of named(handler)) {
    if (c.type === 'block' || c.type === 'comment') continue;
    e = c.type === 'as_pattern' ? named(c)[0] : c;
    break;
  }
  if (!e) return null;
  const out: string[] = [];
  const add = (x: PyNode) => {
    const u = unparen(x);
    if (u.type === 'tuple' || u.type === 'expression_list') named(u).forEach(add);
    else {
      const t = text.slice(u.start, u.end);
      out.push(t.slice(t.lastIndexOf('.') + 1));
    }
  };
  add(e);
  return out;
}

export type ConstKind = 'none' | 'str' | 'int' | 'float' | 'bool' | 'bytes';

/** Constant kind of a definition's value when it is a plain literal (or a narrowing to None). */
export function constKind(d: Def, text: string): ConstKind | undefined {
  if (d.kind === 'narrow') return d.narrowed === 'none' ? 'none' : undefined;
  if (!d.value || (d.index && d.index.length) || (d.kind !== 'assign' && d.kind !== 'annassign' && d.kind !== 'walrus')) return undefined;
  return literalKind(unparen(d.value), text);
}

function literalKind(v: PyNode, text: string): ConstKind | undefined {
  switch (v.type) {
    case 'none': return 'none';
    case 'true': case 'false': return 'bool';
    case 'integer': return 'int';
    case 'float': return 'float';
    case 'string': return text[v.start] === 'b' || text[v.start] === 'B' ? 'bytes' : v.children.some((c) => c.type === 'interpolation') ? undefined : 'str';
    case 'unary_operator': {
      const a = firstNamed(v);
      return a && (a.type === 'integer' || a.type === 'float') ? (a.type === 'integer' ? 'int' : 'float') : undefined;
    }
  }
  return undefined;
}

export function isFalsyConst(d: Def, text: string): boolean {
  const k = constKind(d, text);
  if (!k || !d.value) return false;
  if (k === 'none') return true;
  const t = text.slice(d.value.start, d.value.end);
  return t === 'False' || t === '0' || t === '""' || t === "''" || t === '0.0';
}
