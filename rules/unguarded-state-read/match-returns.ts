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
import { leavesFunction } from '../../src/lang/python/leaves.js';
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
  | { kind: 'free'; line: number; truthy?: boolean }
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
function guardPolarity(a: PythonAnalysis, cond: PyNode, name: string, t: MatchTest, depth = 0): 'pos' | 'neg' | undefined {
  let c = unparen(cond);
  let neg = false;
  if (c.type === 'not_operator') {
    neg = true;
    c = unparen(field(c, 'argument') ?? named(c)[0]!);
  }
  // `ok and re.search(P, name)`: true only when every conjunct is, so a positive conjunct makes it positive
  if (c.type === 'boolean_operator' && /^\s*and\b/.test(a.text.slice(field(c, 'left')!.end, field(c, 'right')!.start))) {
    const pos = [field(c, 'left')!, field(c, 'right')!].some((x) => guardPolarity(a, x, name, t, depth) === 'pos');
    return pos ? (neg ? 'neg' : 'pos') : undefined;
  }
  if (c.type === 'comparison_operator') {
    const src = a.src(c).replace(/\s+/g, ' ');
    const isNone = / is None$/.test(src);
    const isNotNone = / is not None$/.test(src);
    if (!isNone && !isNotNone) return undefined;
    if (isNone) neg = !neg;
    c = unparen(named(c)[0]!);
  }
  if (c.type === 'call' && /^\s*bool\s*$/.test(a.src(field(c, 'function')!)) && named(field(c, 'arguments') ?? c).length === 1) {
    const inner = guardPolarity(a, named(field(c, 'arguments')!)[0]!, name, t, depth);
    return inner && (neg ? (inner === 'pos' ? 'neg' : 'pos') : inner);
  }
  if (c.type !== 'call') return undefined;
  const g = matchTestOf(c) ?? compiledTestOf(a, c);
  const args = named(field(c, 'arguments') ?? c);
  const subject = matchTestOf(c) ? args[1] : args[0];
  if (g && subject && a.src(unparen(subject)) === name && g.pattern === t.pattern && g.flags === t.flags && implies(g.method, t.method)) return neg ? 'neg' : 'pos';
  // a helper of the same module whose one return is a positive test of its one parameter (`is_sheet_url(url)`)
  const fnode = field(c, 'function');
  if (depth < 2 && !g && fnode?.type === 'identifier' && args.length === 1 && a.src(unparen(args[0]!)) === name) {
    const helper = a.functions().find((f) => f.name === fnode.text && !f.classNode && f.params.length === 1);
    const body = helper && field(helper.node, 'body');
    const stmts = body ? named(body).filter((x) => x.type !== 'comment' && !(x.type === 'expression_statement' && named(x)[0]?.type === 'string')) : [];
    const ret = stmts.length === 1 && stmts[0]!.type === 'return_statement' ? named(stmts[0]!)[0] : undefined;
    if (helper && ret && a.functions().filter((f) => f.name === fnode.text).length === 1 && guardPolarity(a, ret, helper.params[0]!, t, depth + 1) === 'pos') return neg ? 'neg' : 'pos';
  }
  return undefined;
}

/** `NAME.search(s)` on a module-level `NAME = re.compile(P)` bound once: the test `P` applies. */
function compiledTestOf(a: PythonAnalysis, call: PyNode): MatchTest | undefined {
  const fn = field(call, 'function');
  const obj = fn?.type === 'attribute' ? field(fn, 'object') : undefined;
  const method = fn ? field(fn, 'attribute')?.text : undefined;
  if (obj?.type !== 'identifier' || (method !== 'search' && method !== 'match' && method !== 'fullmatch')) return undefined;
  let found: MatchTest | undefined;
  let count = 0;
  for (const st of named(a.ast)) {
    const asg = st.type === 'expression_statement' ? named(st)[0] : undefined;
    if (asg?.type !== 'assignment' || a.src(field(asg, 'left') ?? asg) !== obj.text) continue;
    count++;
    const right = field(asg, 'right');
    const rf = right?.type === 'call' ? field(right, 'function') : undefined;
    if (!right || !rf || a.src(rf) !== 're.compile') return undefined;
    const lit = regexLiteralOf(right);
    found = lit ? { pattern: lit.pattern, flags: lit.flags, method } : undefined;
  }
  return count === 1 ? found : undefined;
}

/** The returned `name` at `ret` has passed a test that the pattern matched it: inside `if re.search(P, name):`,
 *  or after `if not re.search(P, name): return …` in an enclosing block, with `name` not rebound since. */
function guardedReturn(a: PythonAnalysis, fn: FunctionInfo, ret: PyNode, value: PyNode, t: MatchTest): boolean {
  const name = a.src(value);
  // `reply.text`: the name it is read from must not be rebound, and nothing assigns the attribute in the function
  let base: PyNode = value;
  while (base.type === 'attribute') base = field(base, 'object')!;
  if (base.type !== 'identifier') return false;
  if (base !== value) {
    let assigned = false;
    walk(fn.node, (x) => {
      if (x.type === 'assignment' || x.type === 'augmented_assignment') if (a.src(field(x, 'left') ?? x).includes(name)) assigned = true;
      return undefined;
    });
    if (assigned) return false;
  }
  const defs = a.reachingDefs(base);
  if (!defs?.length) return false;
  let child: PyNode = ret;
  for (let p = ret.parent; p && p !== fn.node; child = p, p = p.parent) {
    // `if re.search(P, name):` … `return name`, with `name` not rebound inside the branch
    if (p.type === 'if_statement' && field(p, 'consequence') === child && guardPolarity(a, field(p, 'condition')!, name, t) === 'pos'
      && defs.every((d) => d.kind === 'param' || (d.node !== null && d.node.start < p!.start))) return true;
    if (p.type !== 'block') continue;
    for (const s of named(p)) {
      if (s.start >= child.start) break;
      // `assert re.search(P, name), …` (stripped only under python -O)
      if (s.type === 'assert_statement' && named(s)[0] && guardPolarity(a, named(s)[0]!, name, t) === 'pos') {
        if (defs.every((d) => d.kind === 'param' || (d.node !== null && d.node.start < s.start))) return true;
        continue;
      }
      if (s.type !== 'if_statement' || named(s).some((x) => x.type === 'elif_clause' || x.type === 'else_clause')) continue;
      if (guardPolarity(a, field(s, 'condition')!, name, t) !== 'neg' || !leavesFunction(a, field(s, 'consequence'))) continue;
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

/** The literal text before the first interpolation of an f-string or a `"lit" + x` concatenation; null when
 *  literal text follows an interpolation (`f"…/d/{id}/edit"`: the value with nothing inserted is not the
 *  prefix, and whether the inserted text can be empty is not known). */
function literalPrefix(a: PythonAnalysis, n: PyNode): string | null | undefined {
  const u = unparen(n);
  if (u.type === 'binary_operator' && /^\s*\+/.test(a.text.slice(field(u, 'left')!.end, field(u, 'right')!.start))) {
    const l = field(u, 'left')!;
    const r = unparen(field(u, 'right')!);
    const left = stringLiteral(l) ?? literalPrefix(a, l);
    if (left === undefined || left === null) return left;
    return stringLiteral(r) !== undefined || (r.type === 'string' && r.children.some((k) => k.type === 'string_content')) ? null : left;
  }
  if (u.type === 'string' && u.children.some((k) => k.type === 'interpolation')) {
    let out = '';
    let inserted = false;
    for (const k of u.children) {
      if (k.type === 'interpolation') inserted = true;
      else if (k.type === 'string_content') {
        if (inserted) return null;
        out += k.text;
      }
    }
    return out;
  }
  return undefined;
}

/** How a call of the getter passes its arguments (for a default-valued flag parameter). */
export interface CallArgs {
  positional: number;
  keywords: ReadonlySet<string>;
  star: boolean;
}

/** The truth of a default value written as a literal (`True`, `0`, `""`, `None`), else undefined. */
function literalTruth(n: PyNode | undefined | null): boolean | undefined {
  const v = n ? unparen(n) : undefined;
  if (!v) return undefined;
  if (v.type === 'true') return true;
  if (v.type === 'false' || v.type === 'none') return false;
  if (v.type === 'integer') return Number(v.text) !== 0;
  const lit = stringLiteral(v);
  return lit === undefined ? undefined : lit !== '';
}

/** The flag parameters a call leaves at their default, with the default's truth. */
function flagDefaults(fn: FunctionInfo, call: CallArgs | undefined): Map<string, boolean> {
  const out = new Map<string, boolean>();
  if (!call || call.star) return out;
  const params = field(fn.node, 'parameters');
  named(params ?? fn.node).forEach((p) => {
    if (p.type !== 'default_parameter' && p.type !== 'typed_default_parameter') return;
    const name = field(p, 'name')?.text;
    const truth = literalTruth(field(p, 'value'));
    const index = fn.params.indexOf(name ?? '');
    if (!name || truth === undefined || index < 0 || call.keywords.has(name) || index - (fn.params[0] === 'self' ? 1 : 0) < call.positional) return;
    out.set(name, truth);
  });
  return out;
}

/** `if flag:` (or `if not flag:`) tests only a parameter left at its default: its truth on every run of this call. */
function flagTruth(a: PythonAnalysis, cond: PyNode, flags: ReadonlyMap<string, boolean>): boolean | undefined {
  let c = unparen(cond);
  let neg = false;
  if (c.type === 'not_operator') {
    neg = true;
    c = unparen(field(c, 'argument') ?? named(c)[0]!);
  }
  if (c.type !== 'identifier' || !flags.has(c.text) || a.reachingDefs(c)?.some((d) => d.kind !== 'param')) return undefined;
  return flags.get(c.text)! !== neg;
}

/** A return no run of this call reaches: inside a branch of a flag test the default decides against, or
 *  after `if flag: raise …` whose flag the default sets. */
function deadUnderDefaults(a: PythonAnalysis, fn: FunctionInfo, ret: PyNode, flags: ReadonlyMap<string, boolean>): boolean {
  if (!flags.size) return false;
  let child: PyNode = ret;
  for (let p = ret.parent; p && p !== fn.node; child = p, p = p.parent) {
    if (p.type === 'if_statement') {
      const truth = flagTruth(a, field(p, 'condition')!, flags);
      if (truth === false && field(p, 'consequence') === child) return true;
      if (truth === true && child.type === 'else_clause') return true;
    }
    if (p.type !== 'block') continue;
    for (const st of named(p)) {
      if (st.start >= child.start) break;
      if (st.type === 'if_statement' && !named(st).some((x) => x.type === 'elif_clause' || x.type === 'else_clause')
        && flagTruth(a, field(st, 'condition')!, flags) === true && leavesFunction(a, field(st, 'consequence'))) return true;
    }
  }
  return false;
}

/** A test of the returned value before the return that vaudit cannot read as a match test (another
 *  pattern, a helper, a comparison): the line of the first such `if`/`assert`/`while` whose condition reads
 *  the value's name and which encloses the return or exits before it. */
function unreadTest(a: PythonAnalysis, fn: FunctionInfo, ret: PyNode, value: PyNode): number | undefined {
  // the value itself or what it is made from (`reply.text` of `reply.text.strip()`); a test of another
  // attribute (`reply.status_code`) does not choose the text
  const forms = new Set<string>();
  for (let v: PyNode | undefined = value; v; ) {
    forms.add(a.src(v));
    const f: PyNode | null | undefined = v.type === 'call' ? field(v, 'function') : undefined;
    v = f?.type === 'attribute' ? field(f, 'object') ?? undefined : v.type === 'subscript' ? field(v, 'value') ?? undefined : undefined;
  }
  const reads = (n: PyNode | undefined | null) => {
    let hit = false;
    if (n) walk(n, (x) => {
      if (forms.has(a.src(x))) hit = true;
      return undefined;
    });
    return hit;
  };
  let child: PyNode = ret;
  for (let p = ret.parent; p && p !== fn.node; child = p, p = p.parent) {
    if ((p.type === 'if_statement' || p.type === 'elif_clause' || p.type === 'while_statement') && field(p, 'condition') !== child && reads(field(p, 'condition'))) return a.line(p);
    if (p.type !== 'block') continue;
    for (const st of named(p)) {
      if (st.start >= child.start) break;
      if (st.type === 'assert_statement' && reads(named(st)[0])) return a.line(st);
      if (st.type === 'if_statement' && reads(field(st, 'condition'))
        && [field(st, 'consequence'), ...named(st).filter((x) => x.type === 'elif_clause' || x.type === 'else_clause').map((x) => field(x, x.type === 'else_clause' ? 'body' : 'consequence'))].some((b) => leavesFunction(a, b ?? undefined))) return a.line(st);
    }
  }
  return undefined;
}

/** Every value `fn` returns, classified against the read's test `t` (one entry per return, plus None when
 *  the body can end without one). */
export function returnsOf(a: PythonAnalysis, fn: FunctionInfo, t: MatchTest, call?: CallArgs): ReturnKind[] {
  const out: ReturnKind[] = [];
  const lineOf = (n: PyNode) => a.line(n);
  const flags = flagDefaults(fn, call);
  walk(fn.node, (x) => {
    if ((x.type === 'function_definition' || x.type === 'lambda' || x.type === 'class_definition') && x !== fn.node) return false;
    if (x.type !== 'return_statement') return undefined;
    // a return only a caller passing another value of a flag reaches (`if strict: raise` then `return None`)
    if (deadUnderDefaults(a, fn, x, flags)) return undefined;
    const line = lineOf(x);
    const v = named(x)[0];
    if (!v || a.src(v) === 'None') {
      out.push({ kind: 'none', line });
      return undefined;
    }
    classify(x, line, unparen(v));
    return undefined;
  });
  function classify(x: PyNode, line: number, u: PyNode, truthy = false): void {
    // `text or FALLBACK`: the text only when it is not empty, else the fallback
    if (u.type === 'boolean_operator' && /^\s*or\b/.test(a.text.slice(field(u, 'left')!.end, field(u, 'right')!.start))) {
      classify(x, line, unparen(field(u, 'left')!), true);
      classify(x, line, unparen(field(u, 'right')!), truthy);
      return;
    }
    const lit = stringLiteral(u) ?? (u.type === 'identifier' && !a.reachingDefs(u)?.length ? moduleLiteral(a, a.src(u)) : undefined);
    if (lit !== undefined) {
      const m = matches(t, lit);
      out.push(m === true ? { kind: 'matched', line, why: `returns ${JSON.stringify(lit)}, which the pattern matches` } : m === false ? { kind: 'literal', line, value: lit } : { kind: 'unknown', line, what: `the literal ${JSON.stringify(lit)}` });
      return;
    }
    if ((u.type === 'identifier' || u.type === 'attribute') && guardedReturn(a, fn, x, u, t)) {
      out.push({ kind: 'matched', line, why: `returns \`${a.src(u)}\` only after a test that the pattern matched it` });
      return;
    }
    const prefix = literalPrefix(a, u);
    if (prefix === null) {
      out.push({ kind: 'unknown', line, what: `a value built with literal text after what it inserts (\`${a.src(u).slice(0, 80)}\`)` });
      return;
    }
    if (prefix !== undefined) {
      out.push({ kind: 'prefix', line, value: prefix });
      return;
    }
    // a value made by another function of the project (a normaliser) or a call vaudit does not follow
    const made = producer(a, u);
    if (made) {
      out.push({ kind: 'unknown', line, what: `the result of \`${made}(…)\`` });
      return;
    }
    // state as read, unless a test vaudit cannot read (another pattern, a helper) chose which values get here
    const tested = unreadTest(a, fn, x, u);
    if (tested !== undefined) out.push({ kind: 'unknown', line, what: `\`${a.src(u)}\` only after the test at line ${tested}, which vaudit cannot read as the pattern` });
    else out.push(truthy ? { kind: 'free', line, truthy } : { kind: 'free', line });
  }
  const body = field(fn.node, 'body');
  const last = body ? named(body).filter((s) => s.type !== 'comment').pop() : undefined;
  if (!leavesFunction(a, body)) {
    const lt = last?.type ?? '';
    // falling off the end after a call that may not return (a project helper that raises) is no known None
    const call = lt === 'expression_statement' ? named(last!)[0] : undefined;
    const callee = call?.type === 'call' ? a.src(field(call, 'function')!) : undefined;
    if (callee !== undefined && !/^(?:print|(?:logging|logger|log|LOGGER|LOG|_log|_logger|self\.logger|self\.log|warnings)\.\w+)$/.test(callee))
      out.push({ kind: 'unknown', line: a.line(last!), what: `what the function returns after its last statement (a call of \`${callee}\`, which may not return)` });
    else if (lt === 'if_statement' || lt === 'expression_statement' || lt === 'pass_statement' || lt === '' || lt.endsWith('assignment')) out.push({ kind: 'none', line: last ? a.line(last) : a.line(fn.node) });
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
