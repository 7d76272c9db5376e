/**
 * What a function returns, judged against one regular-expression read of its result: for
 * `re.search(P, get_url(…)).group(1)`, every `return` of `get_url` is classified as a value `P` matches
 * on every run (a literal `P` matches, or a value returned only after a test that `P` matched it), a
 * literal `P` does not match, None (a `return None`, a bare `return`, falling off the end), literal text
 * with state appended (`"https://host" + text`, `f"https://host{text}"`), state as read (`reply.text`),
 * or the result of another function (a normaliser) whose value vaudit does not follow.
 *
 * The rule leaves a match read alone when every return of the getter is matched (the read cannot fail on
 * any value the getter gives); the oracle picks its no-match witness among the values the getter can
 * return (a literal fallback, None, the literal part of a built value, state as read), never one it cannot.
 */
import { field, named, unparen, walk, type PyNode } from '../../src/lang/python/tree.js';
import type { FunctionInfo, PythonAnalysis } from '../../src/lang/python/types.js';
import { regexLiteralOf } from '../../src/suites/regex/python-literal.js';
import { parsePythonRegex } from '../../src/suites/regex/python-re.js';
import { toEcmaScript } from '../../src/suites/regex/ecmascript.js';

export type MatchMethod = 'search' | 'match' | 'fullmatch';

/** The read's test: the literal pattern, its flags and how it is applied. */
export interface MatchTest {
  pattern: string;
  flags: number;
  method: MatchMethod;
}

export type ReturnKind =
  | { kind: 'matched'; line: number; why: string }
  | { kind: 'literal'; line: number; value: string }
  | { kind: 'none'; line: number }
  | { kind: 'prefix'; line: number; value: string }
  | { kind: 'free'; line: number }
  | { kind: 'unknown'; line: number; what: string };

/** The read's test from its `re.search(P, s)` call node, when `P` is a literal vaudit can read exactly. */
export function matchTestOf(call: PyNode): MatchTest | undefined {
  const lit = regexLiteralOf(call);
  const fn = field(call, 'function');
  const method = fn ? field(fn, 'attribute')?.text : undefined;
  if (!lit || (method !== 'search' && method !== 'match' && method !== 'fullmatch')) return undefined;
  return { pattern: lit.pattern, flags: lit.flags, method };
}

/** Whether the pattern matches `s` the way `method` applies it (Python semantics through the ECMAScript
 *  translation); undefined when the pattern cannot be translated exactly. */
export function matches(t: MatchTest, s: string): boolean | undefined {
  let tr;
  try {
    tr = toEcmaScript(parsePythonRegex(t.pattern, t.flags));
  } catch {
    return undefined;
  }
  if (!tr.ok) return undefined;
  try {
    if (t.method === 'search') return new RegExp(tr.source, tr.flags).test(s);
    if (tr.flags.includes('m')) return undefined;
    const re = new RegExp(t.method === 'match' ? `^(?:${tr.source})` : `^(?:${tr.source})$`, tr.flags);
    return re.test(s);
  } catch {
    return undefined;
  }
}

/** A guard of method `g` implies the read's method `m` matches too. */
function implies(g: MatchMethod, m: MatchMethod): boolean {
  return m === 'search' || (m === 'match' ? g !== 'search' : g === 'fullmatch');
}

/** `cond` tests that `name` matches (positive: `re.search(P, name)`, `… is not None`) or that it does not
 *  (negative: `not re.search(P, name)`, `… is None`), with the read's pattern and flags. */
function guardPolarity(a: PythonAnalysis, cond: PyNode, name: string, t: MatchTest): 'pos' | 'neg' | undefined {
  let c = unparen(cond);
  let neg = false;
  if (c.type === 'not_operator') {
    neg = true;
    c = unparen(field(c, 'argument') ?? named(c)[0]!);
  }
  if (c.type === 'comparison_operator') {
    const src = a.src(c).replace(/\s+/g, ' ');
    const isNone = / is None$/.test(src);
    const isNotNone = / is not None$/.test(src);
    if (!isNone && !isNotNone) return undefined;
    if (isNone) neg = !neg;
    c = unparen(named(c)[0]!);
  }
  if (c.type !== 'call') return undefined;
  const g = matchTestOf(c);
  const subject = named(field(c, 'arguments') ?? c)[1];
  if (!g || !subject || a.src(unparen(subject)) !== name || g.pattern !== t.pattern || g.flags !== t.flags || !implies(g.method, t.method)) return undefined;
  return neg ? 'neg' : 'pos';
}

/** A block's statements end every path with a return or a raise. */
function endsInExit(block: PyNode | undefined): boolean {
  const last = block ? named(block).filter((s) => s.type !== 'comment').pop() : undefined;
  if (!last) return false;
  if (last.type === 'return_statement' || last.type === 'raise_statement') return true;
  if (last.type === 'with_statement') return endsInExit(field(last, 'body'));
  if (last.type === 'if_statement') {
    const alts = named(last).filter((x) => x.type === 'elif_clause' || x.type === 'else_clause');
    if (!alts.some((x) => x.type === 'else_clause')) return false;
    return endsInExit(field(last, 'consequence')) && alts.every((x) => endsInExit(field(x, x.type === 'else_clause' ? 'body' : 'consequence')));
  }
  return false;
}

/** The returned `name` at `ret` has passed a test that the pattern matched it: inside `if re.search(P, name):`,
 *  or after `if not re.search(P, name): return …` in an enclosing block, with `name` not rebound since. */
function guardedReturn(a: PythonAnalysis, fn: FunctionInfo, ret: PyNode, value: PyNode, t: MatchTest): boolean {
  const name = a.src(value);
  const defs = a.reachingDefs(value);
  if (!defs?.length) return false;
  let child: PyNode = ret;
  for (let p = ret.parent; p && p !== fn.node; child = p, p = p.parent) {
    // `if re.search(P, name):` … `return name`, with `name` not rebound inside the branch
    if (p.type === 'if_statement' && field(p, 'consequence') === child && guardPolarity(a, field(p, 'condition')!, name, t) === 'pos'
      && defs.every((d) => d.kind === 'param' || (d.node !== null && d.node.start < p!.start))) return true;
    if (p.type !== 'block') continue;
    for (const s of named(p)) {
      if (s.start >= child.start) break;
      if (s.type !== 'if_statement' || named(s).some((x) => x.type === 'elif_clause' || x.type === 'else_clause')) continue;
      if (guardPolarity(a, field(s, 'condition')!, name, t) !== 'neg' || !endsInExit(field(s, 'consequence'))) continue;
      // no binding of `name` after the guard reaches the return
      if (defs.every((d) => d.kind === 'param' || (d.node !== null && d.node.start < s.start))) return true;
    }
  }
  return false;
}

/** A module-level `NAME = "literal"` bound once in the getter's module. */
function moduleLiteral(a: PythonAnalysis, name: string): string | undefined {
  let value: string | undefined;
  let count = 0;
  for (const st of named(a.ast)) {
    if (st.type !== 'expression_statement') continue;
    const asg = named(st)[0];
    if (asg?.type !== 'assignment' || a.src(field(asg, 'left') ?? asg) !== name) continue;
    count++;
    value = stringLiteral(field(asg, 'right'));
  }
  return count === 1 ? value : undefined;
}

/** The text of a plain string literal (no interpolation; escapes decoded for the common ones). */
function stringLiteral(n: PyNode | undefined | null): string | undefined {
  const u = n ? unparen(n) : undefined;
  if (u?.type !== 'string' || u.children.some((k) => k.type === 'interpolation')) return undefined;
  if (/^[A-Za-z]*[rR]/.test(u.text) === false && u.children.some((k) => k.type === 'escape_sequence' && !/^\\["'\\nt]$/.test(k.text))) return undefined;
  return u.children.filter((k) => k.type === 'string_content' || k.type === 'escape_sequence')
    .map((k) => (k.type === 'escape_sequence' ? ({ '\\n': '\n', '\\t': '\t' } as Record<string, string>)[k.text] ?? k.text.slice(1) : k.text)).join('');
}

/** The literal text before the first interpolation of an f-string or a `"lit" + x` concatenation. */
function literalPrefix(a: PythonAnalysis, n: PyNode): string | undefined {
  const u = unparen(n);
  if (u.type === 'binary_operator' && /^\s*\+/.test(a.text.slice(field(u, 'left')!.end, field(u, 'right')!.start))) {
    const l = field(u, 'left')!;
    return stringLiteral(l) ?? literalPrefix(a, l);
  }
  if (u.type === 'string' && u.children.some((k) => k.type === 'interpolation')) {
    let out = '';
    for (const k of u.children) {
      if (k.type === 'interpolation') return out;
      if (k.type === 'string_content') out += k.text;
    }
  }
  return undefined;
}

/** Every value `fn` returns, classified against the read's test `t` (one entry per return, plus None when
 *  the body can end without one). */
export function returnsOf(a: PythonAnalysis, fn: FunctionInfo, t: MatchTest): ReturnKind[] {
  const out: ReturnKind[] = [];
  const lineOf = (n: PyNode) => a.line(n);
  walk(fn.node, (x) => {
    if ((x.type === 'function_definition' || x.type === 'lambda' || x.type === 'class_definition') && x !== fn.node) return false;
    if (x.type !== 'return_statement') return undefined;
    const line = lineOf(x);
    const v = named(x)[0];
    if (!v || a.src(v) === 'None') {
      out.push({ kind: 'none', line });
      return undefined;
    }
    const u = unparen(v);
    const lit = stringLiteral(u) ?? (u.type === 'identifier' && !a.reachingDefs(u)?.length ? moduleLiteral(a, a.src(u)) : undefined);
    if (lit !== undefined) {
      const m = matches(t, lit);
      out.push(m === true ? { kind: 'matched', line, why: `returns ${JSON.stringify(lit)}, which the pattern matches` } : m === false ? { kind: 'literal', line, value: lit } : { kind: 'unknown', line, what: `the literal ${JSON.stringify(lit)}` });
      return undefined;
    }
    if (u.type === 'identifier' && guardedReturn(a, fn, x, u, t)) {
      out.push({ kind: 'matched', line, why: `returns \`${a.src(u)}\` only after a test that the pattern matched it` });
      return undefined;
    }
    const prefix = literalPrefix(a, u);
    if (prefix !== undefined) {
      out.push({ kind: 'prefix', line, value: prefix });
      return undefined;
    }
    // a value made by another function of the project (a normaliser) or a call vaudit does not follow
    const made = producer(a, u);
    if (made) out.push({ kind: 'unknown', line, what: `the result of \`${made}(…)\`` });
    else out.push({ kind: 'free', line });
    return undefined;
  });
  const body = field(fn.node, 'body');
  const last = body ? named(body).filter((s) => s.type !== 'comment').pop() : undefined;
  if (!endsInExit(body)) {
    const lt = last?.type ?? '';
    if (lt === 'if_statement' || lt === 'expression_statement' || lt === 'pass_statement' || lt === '' || lt.endsWith('assignment')) out.push({ kind: 'none', line: last ? a.line(last) : a.line(fn.node) });
    else out.push({ kind: 'unknown', line: last ? a.line(last) : a.line(fn.node), what: `what the function returns after its last statement (a \`${lt.replace(/_statement$/, '')}\`)` });
  }
  return out;
}

/** The plain function call (`normalise(url)`, not a method of state) that made `n`, directly or through a
 *  local bound only to such calls. */
function producer(a: PythonAnalysis, n: PyNode, depth = 0): string | undefined {
  if (depth > 4) return undefined;
  const u = unparen(n);
  if (u.type === 'call') {
    const f = field(u, 'function');
    return f?.type === 'identifier' && !['str', 'repr', 'format'].includes(f.text) ? f.text : undefined;
  }
  if (u.type === 'identifier') {
    const defs = a.reachingDefs(u);
    if (!defs?.length) return undefined;
    const made = defs.map((d) => (d.value && (d.kind === 'assign' || d.kind === 'walrus') ? producer(a, d.value, depth + 1) : undefined));
    return made.every((m) => m !== undefined) ? made[0] : undefined;
  }
  return undefined;
}

/** Every return of the getter gives a value the read's pattern matches (and the body cannot end without one). */
export function alwaysMatched(returns: readonly ReturnKind[]): boolean {
  return returns.length > 0 && returns.every((r) => r.kind === 'matched');
}
