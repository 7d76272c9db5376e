/**
 * oneBranch: a check that runs on one branch only. An `if`/`else` on the presence of something the task
 * gives (`if task.outputs:`, `if len(x) > 0`, `if x is not None`, `if "k" in cfg`) grades the present
 * case with one check and the absent case with another that compares different state
 * (`if task.outputs: reward = outputs_found else: reward = db_hash == gold_hash`): a task with outputs
 * is never checked against the database, though nothing about outputs makes the database right.
 *
 * The boundary: both branches decide the verdict (return it, or set a name a later `return` reads);
 * the present branch reads the tested value; the absent branch compares state; and the state the two
 * branches compare is disjoint (names bound inside a branch, constants and `self` alone aside). Branches
 * that grade the same result two ways (`if rules.get("regex"): … re.search(…, result) else: result ==
 * expected`) share what they compare and are not reported.
 */
import type { PythonAnalysis } from '../../src/lang/python/types.js';
import { comparisonOperators, field, named, unparen, walk, type PyNode } from '../../src/lang/python/tree.js';
import { short, verdictFunctionAt, type Ctx } from './kinds.js';

interface Presence {
  /** The tested value's chain (`self.task.outputs`, `cfg`). */
  subject: string;
  /** True when the condition holds if the value is present. */
  present: boolean;
  /** Truthiness only (`if x:`): present only if the branch then uses x as a collection. */
  truthiness: boolean;
}

/** `a.b[k]` for an identifier/attribute chain; a string-literal index or `.get("k")` stays (`cfg[outputs]`), any
 *  other index is dropped; undefined for anything else. */
function chainText(a: PythonAnalysis, n0: PyNode): string | undefined {
  const n = unparen(n0);
  if (n.type === 'identifier') return a.src(n);
  if (n.type === 'attribute') {
    const o = chainText(a, field(n, 'object') ?? n);
    return o ? `${o}.${a.src(field(n, 'attribute') ?? n)}` : undefined;
  }
  if (n.type === 'subscript') {
    const o = chainText(a, field(n, 'value') ?? n);
    const k = field(n, 'subscript');
    return o && k?.type === 'string' ? `${o}[${JSON.stringify(stringValue(k))}]` : o;
  }
  if (n.type === 'call') {
    const f = field(n, 'function');
    const k = named(field(n, 'arguments') ?? n)[0];
    if (f?.type === 'attribute' && a.src(field(f, 'attribute') ?? f) === 'get' && k?.type === 'string') {
      const o = chainText(a, field(f, 'object') ?? f);
      return o ? `${o}[${JSON.stringify(stringValue(k))}]` : undefined;
    }
  }
  return undefined;
}

function stringValue(s: PyNode): string {
  return s.children.filter((k) => k.type === 'string_content').map((k) => k.text).join('');
}

function presence(a: PythonAnalysis, cond0: PyNode): Presence | undefined {
  const cond = unparen(cond0);
  if (cond.type === 'not_operator') {
    const p = presence(a, field(cond, 'argument') ?? cond);
    return p && { ...p, present: !p.present };
  }
  if (cond.type === 'identifier' || cond.type === 'attribute' || cond.type === 'subscript') {
    const s = chainText(a, cond);
    return s && s !== 'self' ? { subject: s, present: true, truthiness: true } : undefined;
  }
  if (cond.type === 'call') {
    // cfg.get("outputs"), len(x)
    const f = field(cond, 'function');
    const arg = named(field(cond, 'arguments') ?? cond)[0];
    if (f?.type === 'attribute' && a.src(field(f, 'attribute') ?? f) === 'get' && arg) {
      const s = chainText(a, cond);
      return s ? { subject: s, present: true, truthiness: false } : undefined;
    }
    if (f?.type === 'identifier' && a.src(f) === 'len' && arg) {
      const s = chainText(a, arg);
      return s ? { subject: s, present: true, truthiness: false } : undefined;
    }
    return undefined;
  }
  if (cond.type !== 'comparison_operator') return undefined;
  const ops = comparisonOperators(cond);
  const [l, r] = named(cond);
  if (ops.length !== 1 || !l || !r) return undefined;
  const op = ops[0]!;
  const num = a.src(unparen(r)).trim();
  const lenOf = l.type === 'call' && a.src(field(l, 'function') ?? l) === 'len' ? named(field(l, 'arguments') ?? l)[0] : undefined;
  if (lenOf) {
    const s = chainText(a, lenOf);
    if (!s) return undefined;
    if ((op === '>' && num === '0') || (op === '!=' && num === '0') || (op === '>=' && num === '1')) return { subject: s, present: true, truthiness: false };
    if ((op === '==' && num === '0') || (op === '<' && num === '1')) return { subject: s, present: false, truthiness: false };
    return undefined;
  }
  if ((op === 'is not' || op === 'is') && r.type === 'none') {
    const s = chainText(a, l);
    return s ? { subject: s, present: op === 'is not', truthiness: false } : undefined;
  }
  if ((op === 'in' || op === 'not in') && l.type === 'string') {
    const s = chainText(a, r);
    return s ? { subject: `${s}[${JSON.stringify(stringValue(l))}]`, present: op === 'in', truthiness: false } : undefined;
  }
  return undefined;
}

const overlaps = (x: string, y: string) => x === y || x.startsWith(`${y}.`) || y.startsWith(`${x}.`) || x.startsWith(`${y}[`) || y.startsWith(`${x}[`);
const CONSTANT = /^[A-Z][A-Z0-9_]*$/;

/** Names bound inside a block (assignment, loop and comprehension targets, `with … as`). */
function boundIn(a: PythonAnalysis, block: PyNode): Set<string> {
  const out = new Set<string>();
  walk(block, (k) => {
    if (k.type === 'identifier' && a.defAt(k)) out.add(a.src(k));
  });
  return out;
}

/** The state a block compares: chains read by its comparisons, its `if` tests, its returned values and what it
 *  assigns to the names a later `return` reads. */
function compared(a: PythonAnalysis, block: PyNode, verdictNames: Set<string>): { chains: Set<string>; comparisons: PyNode[] } {
  const bound = boundIn(a, block);
  const chains = new Set<string>();
  const comparisons: PyNode[] = [];
  const take = (e: PyNode) =>
    walk(e, (k) => {
      if (k.type === 'lambda' || k.type === 'function_definition') return false;
      if (k.type !== 'identifier' && k.type !== 'attribute' && k.type !== 'subscript') return undefined;
      // the callee of a call is not state; its receiver is
      const p = k.parent;
      if (p?.type === 'call' && field(p, 'function') === k) {
        if (k.type === 'attribute') take(field(k, 'object') ?? k);
        return false;
      }
      if (p?.type === 'keyword_argument' && field(p, 'name') === k) return false;
      const s = chainText(a, k);
      if (!s) return undefined;
      const root = s.split(/[.[]/)[0]!;
      if (!bound.has(root) && !CONSTANT.test(root) && s !== 'self') chains.add(s);
      if (k.type === 'subscript') take(field(k, 'subscript') ?? k);
      return false;
    });
  walk(block, (k) => {
    if (k.type === 'function_definition' || k.type === 'lambda' || k.type === 'class_definition') return false;
    if (k.type === 'comparison_operator') {
      comparisons.push(k);
      take(k);
      return false;
    }
    if ((k.type === 'if_statement' || k.type === 'elif_clause' || k.type === 'while_statement') && field(k, 'condition')) take(field(k, 'condition')!);
    if (k.type === 'return_statement' && named(k)[0]) take(named(k)[0]!);
    if (k.type === 'assignment' && field(k, 'left')?.type === 'identifier' && verdictNames.has(a.src(field(k, 'left')!)) && field(k, 'right')) take(field(k, 'right')!);
    return undefined;
  });
  return { chains, comparisons };
}

/** The block decides the verdict: it returns a value, or assigns a name that a `return` after the `if` reads. */
function decides(a: PythonAnalysis, block: PyNode, laterReturns: Set<string>): boolean {
  let hit = false;
  walk(block, (k) => {
    if (hit || k.type === 'function_definition' || k.type === 'lambda' || k.type === 'class_definition') return false;
    if (k.type === 'return_statement' && named(k)[0]) hit = true;
    if ((k.type === 'assignment' || k.type === 'augmented_assignment') && field(k, 'left')?.type === 'identifier' && laterReturns.has(a.src(field(k, 'left')!))) hit = true;
    return undefined;
  });
  return hit;
}

/** Names read by `return` statements after the `if` (textually, in its function). */
function returnedAfter(a: PythonAnalysis, fnBody: PyNode, after: number): Set<string> {
  const out = new Set<string>();
  for (const r of returnsOf(a, fnBody)) if (r.start > after) for (const x of r.names) out.add(x);
  return out;
}

/** The function's `return` statements (not nested functions') and the names each reads, in text order:
 *  one walk per function, not one per `if` statement (a function of 8,000 statements: 4 s of walks). */
function returnsOf(a: PythonAnalysis, fnBody: PyNode): Array<{ start: number; names: string[] }> {
  const hit = returnsCache.get(fnBody);
  if (hit?.a === a) return hit.list;
  const list: Array<{ start: number; names: string[] }> = [];
  walk(fnBody, (k) => {
    if (k.type === 'function_definition' || k.type === 'lambda' || k.type === 'class_definition') return false;
    if (k.type === 'return_statement') {
      const names: string[] = [];
      walk(k, (x) => {
        if (x.type === 'identifier') names.push(a.src(x));
      });
      list.push({ start: k.start, names });
    }
    return undefined;
  });
  returnsCache.set(fnBody, { a, list });
  return list;
}

const returnsCache = new WeakMap<PyNode, { a: PythonAnalysis; list: Array<{ start: number; names: string[] }> }>();

/** A branch uses the subject as a collection: iterates it, indexes it, takes its length, or passes it on. */
function usesAsCollection(a: PythonAnalysis, block: PyNode, subject: string): boolean {
  let hit = false;
  walk(block, (k) => {
    if (hit) return false;
    const s = chainText(a, k);
    if (s !== subject || k.type === 'subscript') {
      if (k.type === 'subscript' && s === subject) hit = true;
      return undefined;
    }
    const p = k.parent;
    if ((p?.type === 'for_statement' || p?.type === 'for_in_clause') && field(p, 'right') === k) hit = true;
    if (p?.type === 'argument_list') hit = true;
    return undefined;
  });
  return hit;
}

export function oneBranch(n: PyNode, c: Ctx): void {
  const a = c.python;
  const cond = field(n, 'condition');
  const els = n.children.find((k) => k.type === 'else_clause');
  const then = field(n, 'consequence');
  const elseBody = els ? field(els, 'body') : undefined;
  if (!cond || !then || !elseBody || n.children.some((k) => k.type === 'elif_clause')) return;
  const p = presence(a, cond);
  if (!p) return;
  const present = p.present ? then : elseBody;
  const absent = p.present ? elseBody : then;
  // `if strict:` may be a flag: a bare name counts as present/absent only when the branch uses it as a collection
  if (p.truthiness && !p.subject.includes('.') && !p.subject.includes('[') && !usesAsCollection(a, present, p.subject)) return;
  const fn = verdictFunctionAt(c, n);
  const body = fn ? field(fn.node, 'body') : undefined;
  if (!fn || !body) return;
  const later = returnedAfter(a, body, n.end);
  if (!decides(a, present, later) || !decides(a, absent, later)) return;
  const pc = compared(a, present, later);
  const ac = compared(a, absent, later);
  // the absent branch compares state (not only `x is None` guards)
  const stateChecks = ac.comparisons.filter((k) => !named(k).some((x) => x.type === 'none'));
  if (!stateChecks.length || !ac.chains.size) return;
  const others = [...pc.chains].filter((s) => !overlaps(s, p.subject));
  if (!pc.chains.size && !usesAsCollection(a, present, p.subject)) return;
  if ([...ac.chains].some((s) => overlaps(s, p.subject) || others.some((o) => overlaps(o, s)))) return;
  const skipped = stateChecks.find((k) => !comparisonOperators(k).every((o) => o === 'in' || o === 'not in')) ?? stateChecks[0]!;
  c.report({
    messageId: 'oneBranch',
    data: { subject: p.subject, skipped: short(a, skipped), state: [...ac.chains].slice(0, 3).join('`, `') },
    at: { start: n.start, end: cond.end },
    control: { oracle: 'verdict-composition', shape: 'branch', file: a.path, line: a.line(present), qualname: fn.qualname, skippedFrom: a.line(absent), skippedTo: a.line({ type: absent.type, start: absent.end, end: absent.end }) },
  });
}
