/**
 * Collections written out in the code: a set or dict display of constants, or `set(...)` /
 * `frozenset(...)` / `dict(...)` of one, held directly or through locals. What they hold is known
 * before the program runs: a set display of distinct constants has no repeated item, a dict display
 * has its keys in the order written and its values fixed.
 */
import { field, named, unparen, type PyNode } from './tree.js';
import type { PythonAnalysis } from './types.js';

/** The canonical text of a constant (`'a'` and `"a"` alike), for strings, numbers, booleans, None and
 *  dotted names (`Kind.DATE`); undefined for anything computed. */
export function constantText(a: PythonAnalysis, e0: PyNode): string | undefined {
  const e = unparen(e0);
  switch (e.type) {
    case 'string': {
      if (e.children.some((k) => k.type === 'interpolation')) return undefined;
      const body = e.children.filter((k) => k.type === 'string_content').map((k) => k.text).join('');
      return `s:${body}`;
    }
    case 'integer':
    case 'float':
      return `n:${Number(a.src(e).replace(/_/g, ''))}`;
    case 'true':
    case 'false':
    case 'none':
      return `k:${e.type}`;
    case 'unary_operator':
      return /^-\s*\d/.test(a.src(e)) ? `n:${Number(a.src(e).replace(/[\s_]/g, ''))}` : undefined;
    case 'attribute': {
      for (let o: PyNode | undefined = e; o; o = field(o, 'object')) {
        if (o.type === 'identifier') return `d:${a.src(e).replace(/\s+/g, '')}`;
        if (o.type !== 'attribute') return undefined;
      }
      return undefined;
    }
    default:
      return undefined;
  }
}

/** The items of a display of one of `kinds` (`{…}`, `[…]`, `(…)`), or of `set(display)` / `frozenset(display)` of one. */
export function displayItems(a: PythonAnalysis, e0: PyNode, kinds: readonly string[]): PyNode[] | undefined {
  const e = unparen(e0);
  if (kinds.includes(e.type)) return named(e).filter((k) => k.type !== 'comment');
  if (e.type !== 'call') return undefined;
  const f = field(e, 'function');
  const q = f ? a.qualifiedName(f) : undefined;
  const args = named(field(e, 'arguments') ?? e);
  if ((q !== 'set' && q !== 'frozenset') || args.length !== 1) return undefined;
  const inner = unparen(args[0]!);
  return kinds.includes(inner.type) ? named(inner).filter((k) => k.type !== 'comment') : undefined;
}

/**
 * The distinct constants of a set written out in the code as a set (`{"tue", "thu"}`, `frozenset({A.X,
 * A.Y})`), directly or as every value a local may hold; undefined when any value is computed, two items
 * repeat a constant, or the items were written as a sequence (`set(["1", "2", "3"])`: a list the code
 * collapses, where a repeated item may be meant).
 */
export function literalSet(a: PythonAnalysis, e: PyNode): string[] | undefined {
  const sources = unparen(e).type === 'identifier' ? a.valueSources(e) : [e];
  if (!sources.length) return undefined;
  let out: string[] | undefined;
  for (const s of sources) {
    if (unparen(s).type === 'identifier') return undefined;
    const items = displayItems(a, s, ['set']);
    if (!items) return undefined;
    const texts = items.map((k) => constantText(a, k));
    if (texts.some((t) => t === undefined) || new Set(texts).size !== texts.length) return undefined;
    if (out && out.join('\0') !== texts.join('\0')) return undefined;
    out = texts as string[];
  }
  return out;
}

/**
 * How many distinct constants a set written out in the code holds, whether written as a set or as a
 * sequence it collapses (`set((A.X, A.Y))`): undefined when any item is computed.
 */
export function literalSetSize(a: PythonAnalysis, e: PyNode): number | undefined {
  const items = displayItems(a, e, ['set', 'list', 'tuple']);
  const texts = items?.map((k) => constantText(a, k));
  return texts && !texts.some((t) => t === undefined) ? new Set(texts).size : undefined;
}

/** Mappings that keep the order of the display they are built from (and, but for OrderedDict, cannot change). */
const ORDER_KEEPING_MAPPINGS = new Set(['immutabledict', 'frozendict', 'FrozenDict', 'MappingProxyType', 'OrderedDict']);

/** A dict display (or `dict(k=v, …)`) whose keys are distinct constants: its keys in the order written. */
export function displayKeys(a: PythonAnalysis, e0: PyNode): string[] | undefined {
  const e = unparen(e0);
  let keys: Array<string | undefined>;
  if (e.type === 'dictionary') {
    const items = named(e).filter((k) => k.type !== 'comment');
    if (items.some((k) => k.type !== 'pair')) return undefined;
    keys = items.map((p) => constantText(a, field(p, 'key') ?? p));
  } else if (e.type === 'call' && field(e, 'function') && a.qualifiedName(field(e, 'function')!) === 'dict') {
    const args = named(field(e, 'arguments') ?? e);
    if (args.length === 1 && unparen(args[0]!).type === 'dictionary') return displayKeys(a, args[0]!);
    if (args.some((k) => k.type !== 'keyword_argument')) return undefined;
    keys = args.map((k) => `s:${a.src(field(k, 'name') ?? k)}`);
  } else if (e.type === 'call' && ORDER_KEEPING_MAPPINGS.has((a.src(field(e, 'function') ?? e).split('.').pop() ?? ''))) {
    // an immutable or ordered mapping built from a display keeps its keys in the order written
    const args = named(field(e, 'arguments') ?? e);
    return args.length === 1 && unparen(args[0]!).type === 'dictionary' ? displayKeys(a, args[0]!) : undefined;
  } else return undefined;
  if (keys.some((k) => k === undefined) || new Set(keys).size !== keys.length) return undefined;
  return keys as string[];
}

/**
 * The keys of a dict written out in the code, when every value the expression may hold is such a
 * display (directly, or through locals that are never changed afterwards by item assignment or a
 * mutating method): iterating it visits exactly these keys, each once, in this order.
 */
export function literalDictKeys(a: PythonAnalysis, e: PyNode): string[] | undefined {
  const u = unparen(e);
  if (u.type !== 'identifier') return displayKeys(a, u);
  let sources = a.valueSources(u);
  // a name the function does not bind: the module's own assignments of it
  if (sources.length === 1 && sources[0] === u) {
    sources = moduleValues(a, a.src(u));
    if (sources.length && mutatedAnywhere(a, a.src(u))) return undefined;
  } else if (mutatedInScope(a, u)) return undefined;
  if (!sources.length) return undefined;
  let out: string[] | undefined;
  for (const s of sources) {
    if (unparen(s).type === 'identifier') return undefined;
    const keys = displayKeys(a, s);
    if (!keys || (out && out.join('\0') !== keys.join('\0'))) return undefined;
    out = keys;
  }
  return out;
}

/** Top-level statements that may bind a name other than by assignment. */
const BINDING_STATEMENTS = new Set(['import_statement', 'import_from_statement', 'function_definition', 'class_definition', 'decorated_definition', 'for_statement', 'with_statement', 'try_statement', 'if_statement']);

/** The identifier-like words of what a statement may bind (a conservative over-approximation): a definition's
 *  name, a `for` target, an import's text, and the whole text of compound statements whose bodies bind at top level. */
function headerWords(a: PythonAnalysis, st0: PyNode): string[] {
  const st = st0.type === 'decorated_definition' ? (field(st0, 'definition') ?? st0) : st0;
  const part = st.type === 'function_definition' || st.type === 'class_definition' ? field(st, 'name') : st.type === 'for_statement' ? field(st, 'left') : st;
  return a.src(part ?? st).split(/[^A-Za-z0-9_]+/);
}

/** The values a module binds a name to at its top level, when every top-level binding of it is a plain assignment. */
export function moduleValues(a: PythonAnalysis, name: string): PyNode[] {
  const out: PyNode[] = [];
  for (const st of named(a.ast)) {
    const asg = st.type === 'expression_statement' ? named(st)[0] : undefined;
    if (asg?.type === 'assignment') {
      const left = field(asg, 'left');
      const right = field(asg, 'right');
      if (left?.type === 'identifier' && a.src(left) === name) {
        if (!right) return [];
        out.push(right);
        continue;
      }
      if (left && left.type !== 'identifier' && a.src(left).split(/[\s,()[\]]+/).includes(name)) return [];
    }
    if (BINDING_STATEMENTS.has(st.type) && headerWords(a, st).includes(name)) return [];
  }
  return out;
}

/** The name is changed in place anywhere in the module (any function), or rebound through `global`. */
function mutatedAnywhere(a: PythonAnalysis, name: string): boolean {
  return mutatedUnder(a, a.ast, name, false);
}

const MUTATORS = new Set(['update', 'pop', 'popitem', 'setdefault', 'clear', '__setitem__', '__delitem__']);

/** The name is changed in place somewhere in its function or module (`x[k] = v`, `del x[k]`, `x.update(…)`), or declared global/nonlocal. */
function mutatedInScope(a: PythonAnalysis, id: PyNode): boolean {
  const fn = a.functionAt(id);
  return mutatedUnder(a, fn?.node ?? a.ast, a.src(id), true);
}

/** Under `root` (its own body only when `ownScope`, else nested functions too). */
function mutatedUnder(a: PythonAnalysis, root: PyNode, name: string, ownScope: boolean): boolean {
  let hit = false;
  const visit = (n: PyNode): void => {
    if (hit) return;
    if (ownScope && (n.type === 'function_definition' || n.type === 'class_definition') && n !== root) return;
    if (n.type === 'subscript' && unparen(field(n, 'value') ?? n).type === 'identifier' && a.src(field(n, 'value')!) === name) {
      const p = n.parent;
      if ((p?.type === 'assignment' || p?.type === 'augmented_assignment') && field(p, 'left') === n) hit = true;
      if (p?.type === 'delete_statement') hit = true;
    }
    if (n.type === 'call') {
      const f = field(n, 'function');
      if (f?.type === 'attribute' && a.src(field(f, 'object') ?? f) === name && MUTATORS.has(a.src(field(f, 'attribute') ?? f))) hit = true;
    }
    if ((n.type === 'global_statement' || n.type === 'nonlocal_statement') && named(n).some((k) => a.src(k) === name)) hit = true;
    for (const k of named(n)) visit(k);
  };
  visit(root);
  return hit;
}
