/**
 * Reads of state that assume a shape the state may not have: an item of a split, of a query or search
 * result, or a group of a regular-expression match, taken from text or data the verifier read from the
 * application or the agent (a command's output, an HTTP reply, a file, a database, a getter's result),
 * with nothing that checks the item or the match exists.
 *
 * - `stateOrigin`: where a value comes from, when it is state (never the verifier's own literals).
 * - `unguardedItemRead`: `s.split(":")[1]`, `re.findall(p, s)[0]`, `soup.find_all("a")[0]`,
 *   `cur.fetchall()[0]`, `[x for x in rows if …][0]` (inline or through a local) with no length check,
 *   no truthiness test of the list, no containment test of the separator and no enclosing handler.
 * - `unguardedMatchRead`: `re.search(p, s).group(1)` or `m.group(1)` with no test of `m`.
 */
import { comparisonOperators, field, named, unparen, walk, type PyNode } from './tree.js';
import type { CallInfo, FunctionInfo, PythonAnalysis } from './types.js';
import { blockingCall, callOf } from './facts.js';
import { blockLeaves } from './leaves.js';
import { analysisMemo } from './analysis-memo.js';

/** Methods whose result is made of the receiver's text or items. */
const OF_RECEIVER = new Set([
  'decode', 'encode', 'strip', 'lstrip', 'rstrip', 'lower', 'upper', 'casefold', 'replace', 'translate', 'expandtabs', 'read', 'readline', 'readlines',
  'splitlines', 'split', 'rsplit', 'partition', 'rpartition', 'json', 'get', 'values', 'items', 'text_content', 'get_text', 'getText', 'inner_text',
  'find_all', 'findAll', 'select', 'findall', 'xpath', 'iterfind', 'getElementsByTagName', 'iter', 'fetchall', 'fetchone', 'fetchmany',
]);
/** Calls whose result is made of their first argument. */
const OF_ARG0 = new Set(['enumerate', 'list', 'tuple', 'sorted', 'reversed', 'str', 'iter', 'json.loads', 'json.load', 'bs4.BeautifulSoup',
  'BeautifulSoup', 'xml.etree.ElementTree.fromstring', 'xml.etree.ElementTree.parse', 'lxml.etree.fromstring', 'lxml.html.fromstring', 'ast.literal_eval']);
/** `re` functions whose second argument is the searched text. */
const RE_TEXT = new Set(['re.search', 're.match', 're.fullmatch', 're.findall', 're.finditer', 're.split']);
const FILE_OPEN = new Set(['open', 'io.open', 'codecs.open']);
const STATE_ATTRS = new Set(['stdout', 'stderr', 'output', 'text', 'content', 'body', 'data']);

/** What the caller knows beyond one file: the parameters that carry the agent's result, and what a call
 *  of a project function returns (a getter of the suite's routing, a helper whose result is state). */
export interface StateContext {
  agent?: ReadonlySet<string>;
  /** Parameters that carry the task's side (the gold file, options): a file they name is not state. */
  task?: ReadonlySet<string>;
  callee?: (a: PythonAnalysis, c: CallInfo) => string | undefined;
  /** Every project call of the function holding `n` sits in a handler that catches one of `types` (or a
   *  base) and turns it into a verdict that is not a pass: the error of a read there never escapes. */
  callerHandles?: (a: PythonAnalysis, n: PyNode, types: readonly string[]) => boolean;
  /** The project function a call reaches (a helper a test calls); default: a function of the same file. */
  resolve?: (a: PythonAnalysis, c: CallInfo) => { a: PythonAnalysis; fn: FunctionInfo } | undefined;
  /** The searched value of `search` (`re.search(P, url)`) is one the pattern matches on every run: each
   *  function that produces it returns only values `P` matches (a matching fallback, a value tested first). */
  alwaysMatches?: (a: PythonAnalysis, search: CallInfo) => boolean;
}

/** Where a value comes from, when it is state the verifier read: `command output`, `an HTTP reply`,
 *  `a file`, `a database query`, `<param>` (a parameter `agent` names: what the agent produced). */
export function stateOrigin(a: PythonAnalysis, e0: PyNode, cx: StateContext = {}, depth = 0, seen = new Set<PyNode>()): string | undefined {
  const agent = cx.agent;
  if (depth > 12) return undefined;
  const e = unparen(e0);
  if (seen.has(e)) return undefined;
  seen.add(e);
  const next = (n: PyNode | undefined) => (n ? stateOrigin(a, n, cx, depth + 1, seen) : undefined);
  switch (e.type) {
    case 'identifier': {
      const defs = a.reachingDefs(e);
      if (!defs) return comprehensionVariable(a, e, next);
      for (const d of defs) {
        if (d.kind === 'param') {
          if (agent?.has(d.name)) return `\`${d.name}\` (the agent's result)`;
          if (!cx.task?.has(d.name) && readByLines(a, e, d.name)) return `\`${d.name}\` (text this function parses line by line: a log or an output)`;
          continue;
        }
        const bases = d.kind === 'narrow' ? (d.base ?? []) : [d];
        for (const b of bases) {
          if (b.kind === 'with' && b.value) {
            const w = callOf(a, b.value);
            if (w && FILE_OPEN.has(w.qualified ?? '')) return taskFile(a, w, cx) ? undefined : 'a file';
          }
          const o = b.value && b.kind !== 'narrow' ? next(b.value) : undefined;
          if (o) return o;
        }
      }
      return undefined;
    }
    case 'call': {
      const c = a.call(e);
      if (!c) return undefined;
      if (FILE_OPEN.has(c.qualified ?? '') && taskFile(a, c, cx)) return undefined;
      return callOrigin(a, c, next) ?? cx.callee?.(a, c);
    }
    case 'attribute': {
      const attr = a.src(field(e, 'attribute') ?? e);
      return STATE_ATTRS.has(attr) ? next(field(e, 'object')) : undefined;
    }
    case 'subscript':
      return next(field(e, 'value'));
    case 'list_comprehension':
    case 'generator_expression':
    case 'set_comprehension': {
      const clause = named(e).find((k) => k.type === 'for_in_clause');
      return next(clause && field(clause, 'right'));
    }
    case 'conditional_expression':
      return next(named(e)[0]) ?? next(named(e)[2]);
    case 'boolean_operator':
      return next(field(e, 'left'));
    default:
      return undefined;
  }
}

function callOrigin(a: PythonAnalysis, c: CallInfo, next: (n: PyNode | undefined) => string | undefined): string | undefined {
  const q = c.qualified ?? '';
  const kind = blockingCall(a, c);
  if (kind === 'subprocess' || kind === 'popen' || q === 'os.popen' || q === 'subprocess.getoutput' || q === 'subprocess.getstatusoutput') return 'command output';
  if (kind === 'requests' || kind === 'requests-session' || kind === 'httpx' || kind === 'urlopen' || a.httpReturnOf(c)) return 'an HTTP reply';
  if (FILE_OPEN.has(q)) return 'a file';
  if (c.receiver && (c.method === 'read_text' || c.method === 'read_bytes')) return 'a file';
  if (c.receiver && c.method === 'communicate') return next(c.receiver);
  if (c.receiver && PAGE_QUERIES.has(c.method)) return 'the live page';
  if (c.receiver && (c.method === 'execute' || c.method === 'fetchall' || c.method === 'fetchone' || c.method === 'fetchmany')) {
    // a cursor's rows: the state of the database the verifier opened
    return 'a database query';
  }
  if (c.receiver && OF_RECEIVER.has(c.method)) return next(c.receiver);
  if (RE_TEXT.has(q)) return next(c.args[1]);
  if (q === 're.sub' || q === 're.subn') return next(c.args[2]);
  // a compiled pattern's substitution: `ANSI.sub("", line)` is made of `line`
  if (c.receiver && !q.startsWith('re.') && (c.method === 'sub' || c.method === 'subn') && c.args.length === 2) return next(c.args[1]);
  if ((OF_ARG0.has(q) || OF_ARG0.has(c.calleeText)) && c.args[0]) return next(c.args[0]);
  if (q === 'filter' && c.args[1]) return next(c.args[1]);
  return undefined;
}

/** The function around `at` splits its parameter `name` into lines (`name.splitlines()`,
 *  `name.split("\n")`): it parses text it was handed (a log, a command's output), whose lines have
 *  whatever shape the run produced. */
function readByLines(a: PythonAnalysis, at: PyNode, name: string): boolean {
  const fn = a.functionAt(at);
  if (!fn) return false;
  let hit = false;
  walk(fn.node, (x) => {
    if (hit) return false;
    if (x.type !== 'call') return undefined;
    const c = a.call(x);
    if (!c?.receiver || unparen(c.receiver).type !== 'identifier' || a.src(unparen(c.receiver)) !== name) return undefined;
    if (c.method === 'splitlines' || (c.method === 'split' && c.args.length === 1 && /^(?:'\\n'|"\\n"|os\.linesep)$/.test(a.src(c.args[0]!)))) hit = true;
    return undefined;
  });
  return hit;
}

/** `open(expected)` of a task-side parameter: the verifier's own gold file, not state. */
function taskFile(a: PythonAnalysis, c: CallInfo, cx: StateContext): boolean {
  const arg = c.args[0] && unparen(c.args[0]);
  return !!arg && arg.type === 'identifier' && !!cx.task?.has(a.src(arg));
}

/** A name bound by a comprehension's `for … in <iterable>` clause: the iterable's origin. */
function comprehensionVariable(a: PythonAnalysis, id: PyNode, next: (n: PyNode | undefined) => string | undefined): string | undefined {
  const name = a.src(id);
  for (let p = id.parent; p; p = p.parent) {
    if (p.type === 'function_definition' || p.type === 'module') return undefined;
    if (p.type !== 'list_comprehension' && p.type !== 'generator_expression' && p.type !== 'set_comprehension' && p.type !== 'dictionary_comprehension') continue;
    for (const clause of named(p)) {
      if (clause.type !== 'for_in_clause') continue;
      const left = field(clause, 'left');
      let binds = false;
      if (left) walk(left, (x) => { if (x.type === 'identifier' && a.src(x) === name) binds = true; });
      if (binds) return next(field(clause, 'right'));
    }
  }
  return undefined;
}

// ---- guards --------------------------------------------------------------------------------

const CONDITION_PARENTS = new Set(['if_statement', 'elif_clause', 'while_statement', 'not_operator', 'boolean_operator', 'assert_statement', 'conditional_expression', 'if_clause']);

/** How a test of a name may be written beyond the direct forms: `none` adds the type tests that rule out
 *  None (`isinstance(el, Tag)`, `hasattr`, `getattr`); `cx` resolves the project helpers a test calls. */
interface TestOpts {
  none?: boolean;
  cx?: StateContext;
  /** The read the test must guard: an `any(…)` or helper test counts only where its outcome proves the value
   *  present at the read (`guardCovers`). */
  read?: PyNode;
}

/** `x` (a call) decides a condition: it sits, through parentheses, `not` and `and`/`or`, in the test of an
 *  `if`/`elif`/`while`, an `assert`, a conditional expression or a comprehension's `if`. */
function inCondition(x: PyNode): boolean {
  let child = x;
  for (let p = x.parent; p; child = p, p = p.parent) {
    if (p.type === 'parenthesized_expression' || p.type === 'not_operator' || p.type === 'boolean_operator' || p.type === 'named_expression') continue;
    if (p.type === 'if_statement' || p.type === 'elif_clause' || p.type === 'while_statement') return field(p, 'condition') === child;
    if (p.type === 'conditional_expression') return named(p)[1] === child;
    return p.type === 'assert_statement' || p.type === 'if_clause';
  }
  return false;
}

/** The project function a call reaches (`cx.resolve`, else a function of the same file by name). */
function helperOf(a: PythonAnalysis, c: CallInfo, cx: StateContext | undefined): { a: PythonAnalysis; fn: FunctionInfo } | undefined {
  if (c.fn.type !== 'identifier') return undefined;
  const r = cx?.resolve?.(a, c);
  if (r) return r;
  const fn = a.functionByQualname(c.calleeText);
  return fn ? { a, fn } : undefined;
}

/** `id` is an argument of a call of a project helper that decides a condition (`if not _complete(parts):`)
 *  and whose own body tests the parameter it receives (its length, truthiness or None). With `opts.read` at
 *  the top level, the helper's answer must also prove the value present at the read (`guardCovers`). */
function helperTest(a: PythonAnalysis, id: PyNode, p: PyNode, opts: TestOpts, depth: number): boolean {
  if (depth > 1 || p.type !== 'argument_list' || p.parent?.type !== 'call' || !inCondition(p.parent)) return false;
  const c = a.call(p.parent);
  if (!c) return false;
  const h = helperOf(a, c, opts.cx);
  if (!h) return false;
  const param = boundParam(h.fn, c, id);
  if (!param || !nameTestedIn(h.a, h.fn.node, param, { ...opts, read: undefined }, depth + 1)) return false;
  if (!opts.read || depth > 0) return true;
  // a helper whose answer does not say which way it points (several returns, a constant) counts as before
  const pol = helperPolarity(h.a, h.fn, param);
  return !pol || guardCovers(a, p.parent, opts.read, pol);
}

/** What a truth value says about `name` being present (not None, not empty): `t` — true proves it present,
 *  `f` — false proves it present. */
interface Presence {
  t: boolean;
  f: boolean;
}

/** The presence `e` proves for `name` (`name`, `name is not None`, `len(name) >= n`, `not …`, `and`/`or`). */
function presenceOf(a: PythonAnalysis, e0: PyNode, name: string): Presence {
  const e = unparen(e0);
  const none: Presence = { t: false, f: false };
  if (e.type === 'identifier') return a.src(e) === name ? { t: true, f: false } : none;
  if (e.type === 'not_operator') {
    const x = presenceOf(a, field(e, 'argument') ?? named(e)[0] ?? e, name);
    return { t: x.f, f: x.t };
  }
  if (e.type === 'boolean_operator') {
    const l = presenceOf(a, field(e, 'left') ?? e, name);
    const r = presenceOf(a, field(e, 'right') ?? e, name);
    return e.children.some((k) => k.type === 'and') ? { t: l.t || r.t, f: l.f && r.f } : { t: l.t && r.t, f: l.f || r.f };
  }
  if (e.type === 'call') {
    const f = a.src(field(e, 'function') ?? e);
    const arg = named(field(e, 'arguments') ?? e)[0];
    if (!arg || a.src(unparen(arg)) !== name) return none;
    if (f === 'bool' || f === 'isinstance' || f === 'hasattr' || f === 'len') return { t: true, f: false };
    return none;
  }
  if (e.type === 'comparison_operator') {
    const ops = comparisonOperators(e);
    const [l, r] = named(e);
    if (ops.length !== 1 || !l || !r) return none;
    const op = ops[0]!;
    const isName = (x: PyNode) => a.src(unparen(x)) === name;
    const isNone = (x: PyNode) => a.src(unparen(x)) === 'None';
    if ((isName(l) && isNone(r)) || (isName(r) && isNone(l))) {
      if (op === 'is not' || op === '!=') return { t: true, f: false };
      if (op === 'is' || op === '==') return { t: false, f: true };
      return none;
    }
    // len(name) OP n, normalised to len on the left
    const isLen = (x: PyNode) => {
      const u = unparen(x);
      return u.type === 'call' && a.src(field(u, 'function') ?? u) === 'len' && isName(named(field(u, 'arguments') ?? u)[0] ?? u);
    };
    const flip: Record<string, string> = { '<': '>', '>': '<', '<=': '>=', '>=': '<=', '==': '==', '!=': '!=' };
    const [lenSide, num, o] = isLen(l) ? [l, r, op] : isLen(r) ? [r, l, flip[op]] : [undefined, undefined, undefined];
    if (!lenSide || !num || !o || !/^\d+$/.test(a.src(num).trim())) return none;
    const n = Number(a.src(num).trim());
    if ((o === '>' && n >= 0) || (o === '>=' && n >= 1) || (o === '!=' && n === 0) || (o === '==' && n >= 1)) return { t: true, f: false };
    if ((o === '==' && n === 0) || (o === '<' && n <= 1) || (o === '<=' && n === 0)) return { t: false, f: true };
    // `len(x) < 3`: false proves at least three
    if (o === '<' || o === '<=') return { t: false, f: true };
    return none;
  }
  return none;
}

/** Which way a helper's answer points for its parameter: every `return` that mentions it says the same, and
 *  says something; undefined when the helper does not show it. */
function helperPolarity(a: PythonAnalysis, fn: FunctionInfo, param: string): Presence | undefined {
  const out: Presence[] = [];
  let other = false;
  walk(field(fn.node, 'body') ?? fn.node, (k) => {
    if (k.type === 'function_definition' || k.type === 'lambda' || k.type === 'class_definition') return false;
    if (k.type !== 'return_statement') return undefined;
    const e = named(k)[0];
    if (!e) return false;
    let mentions = false;
    walk(e, (x) => {
      if (x.type === 'identifier' && a.src(x) === param) mentions = true;
    });
    if (!mentions) {
      other = true;
      return false;
    }
    out.push(presenceOf(a, e, param));
    return false;
  });
  if (other || !out.length) return undefined;
  const t = out.every((x) => x.t);
  const f = out.every((x) => x.f);
  return t || f ? { t, f } : undefined;
}

const within = (x: PyNode, outer: PyNode | undefined | null): boolean => !!outer && x.start >= outer.start && x.end <= outer.end;

/** The function (or module) around a node, and the innermost loop body around it in that function. */
function scopeOf(n: PyNode): { fn: PyNode | undefined; loop: PyNode | undefined } {
  let loop: PyNode | undefined;
  for (let p = n.parent; p; p = p.parent) {
    if (p.type === 'function_definition' || p.type === 'lambda') return { fn: p, loop };
    if (!loop && (p.type === 'for_statement' || p.type === 'while_statement')) loop = field(p, 'body');
  }
  return { fn: undefined, loop };
}

/** `read` runs after `stmt` once an exit of kind `how` was not taken: later in the same function for a
 *  `return`/`raise`, later in the same loop body for a `continue`/`break`. */
function readAfter(stmt: PyNode, read: PyNode, how: 'function' | 'loop' | undefined): boolean {
  if (!how || read.start < stmt.end) return false;
  const s = scopeOf(stmt);
  if (how === 'loop') return within(read, s.loop);
  return s.fn ? within(read, s.fn) : scopeOf(read).fn === undefined;
}

/** Does a test `call` (its truth proving presence as `pol` says) guard `read`? The read sits in the branch the
 *  outcome that proves presence takes (`if any(…): … read`, `… if helper(x) else …`), after an `assert` of it,
 *  or after an `if` whose branch for the other outcome leaves (`if not any(…): return False` … read). Through
 *  `not`, `and` (its truth proves each operand's) and `or` (its falsity proves each operand's). */
function guardCovers(a: PythonAnalysis, call: PyNode, read: PyNode, pol: Presence): boolean {
  let { t, f } = pol;
  let child = call;
  for (let p = call.parent; p; child = p, p = p.parent) {
    if (p.type === 'parenthesized_expression' || p.type === 'named_expression') continue;
    if (p.type === 'not_operator') {
      [t, f] = [f, t];
      continue;
    }
    if (p.type === 'boolean_operator') {
      if (p.children.some((k) => k.type === 'and')) f = false;
      else t = false;
      continue;
    }
    if (p.type === 'if_statement' && field(p, 'condition') === child) {
      const cons = field(p, 'consequence');
      if (within(read, cons)) return t;
      const alts = p.children.filter((k) => k.type === 'elif_clause' || k.type === 'else_clause');
      if (alts.some((k) => within(read, k))) return f;
      // after the `if`, once the branch of the other outcome has left
      const els = alts.length === 1 && alts[0]!.type === 'else_clause' ? field(alts[0]!, 'body') : undefined;
      return (f && readAfter(p, read, blockLeaves(a, cons))) || (t && !!els && readAfter(p, read, blockLeaves(a, els)));
    }
    if (p.type === 'elif_clause' && field(p, 'condition') === child) {
      if (within(read, field(p, 'consequence'))) return t;
      // after the whole `if` (an earlier branch may have run instead: taken as covering, as before)
      return f && !!p.parent && readAfter(p.parent, read, blockLeaves(a, field(p, 'consequence')));
    }
    if (p.type === 'while_statement' && field(p, 'condition') === child) return within(read, field(p, 'body')) ? t : f && read.start >= p.end && readAfter(p, read, 'function');
    if (p.type === 'assert_statement') return t && readAfter(p, read, 'function');
    if (p.type === 'conditional_expression') {
      const [yes, , no] = named(p);
      if (yes && within(read, yes)) return t;
      if (no && within(read, no)) return f;
      return false;
    }
    if (p.type === 'if_clause') return t && within(read, p.parent ?? undefined);
    return false;
  }
  return false;
}

/** The parameter of `fn` that argument `arg` of call `c` binds (by keyword, or by position after `self`/`cls`).
 *  `fn.params` holds bare names (src/lang/python/scopes.ts). */
export function boundParam(fn: FunctionInfo, c: CallInfo, arg: PyNode): string | undefined {
  const params = fn.params.filter((x) => x !== 'self' && x !== 'cls');
  const kw = [...c.kwargs].find(([, v]) => v === arg)?.[0];
  const at = c.args.indexOf(arg);
  const param = kw ?? (at >= 0 ? params[at] : undefined);
  return param !== undefined && params.includes(param) ? param : undefined;
}

/** `id` is the iterable of a generator that `any(…)` tests in a condition: a list with a match is not empty. */
function anyTest(a: PythonAnalysis, id: PyNode, p: PyNode, read?: PyNode): boolean {
  if (p.type !== 'for_in_clause' || field(p, 'right') !== id) return false;
  const gen = p.parent;
  if (!gen || (gen.type !== 'generator_expression' && gen.type !== 'list_comprehension')) return false;
  const call = gen.parent?.type === 'call' ? gen.parent : gen.parent?.type === 'argument_list' ? gen.parent.parent : undefined;
  if (!call || call.type !== 'call' || a.src(field(call, 'function') ?? call) !== 'any' || !inCondition(call)) return false;
  // `any(…)` true proves an item; false proves nothing
  return !read || guardCovers(a, call, read, { t: true, f: false });
}

/** `name` is tested in `scope` (a function, or the module): `if name`, `not name`, `name and …`,
 *  `assert name`, `name is None`, `len(name)`, `if (name := …)`, `if not any(… for x in name)`, a project
 *  helper that tests it (`if not _nonempty(name)`), and with `opts.none` `isinstance(name, …)`. */
function nameTested(a: PythonAnalysis, scope: PyNode, name: string, opts: TestOpts = {}): boolean {
  return nameTestedIn(a, scope, name, opts, 0);
}

/** Identifier `x` (under parent `p`, past walrus and parentheses) is tested for truth — it is the
 *  condition of an `if`/`elif`/`while`/`assert`/comprehension `if`, an operand of `not`/`and`/`or`, the
 *  test of a conditional expression — or compared with None. */
function truthOrNoneTest(a: PythonAnalysis, x: PyNode, p: PyNode): boolean {
  return (CONDITION_PARENTS.has(p.type) && (p.type !== 'conditional_expression' || named(p)[1]?.start === x.start || named(p)[1]?.start === x.parent?.start))
    || (p.type === 'comparison_operator' && /\b(?:is|is not|==|!=)\s*None\b|\bNone\s*(?:is|==|!=)/.test(a.src(p)));
}

function nameTestedIn(a: PythonAnalysis, scope: PyNode, name: string, opts: TestOpts, depth: number): boolean {
  let hit = false;
  walk(scope, (x) => {
    if (hit) return false;
    if (x.type !== 'identifier' || a.src(x) !== name) return undefined;
    let p = x.parent;
    let child: PyNode = x;
    while (p && (p.type === 'named_expression' || p.type === 'parenthesized_expression')) { child = p; p = p.parent; }
    if (!p) return undefined;
    if (truthOrNoneTest(a, x, p)) hit = true;
    else if (p.type === 'comparison_operator' && /^\s*(?:==|!=)\s*(?:\[\]|\(\))/.test(a.text.slice(x.end, p.end))) hit = true;
    else if (p.type === 'argument_list' && /^len$/.test(a.src(field(p.parent!, 'function') ?? p))) hit = true;
    else if (opts.none && p.type === 'argument_list' && named(p)[0] === child && /^(?:isinstance|hasattr)$/.test(a.src(field(p.parent!, 'function') ?? p)) && inCondition(p.parent!)) hit = true;
    else if (anyTest(a, child, p, depth === 0 ? opts.read : undefined) || helperTest(a, child, p, opts, depth)) hit = true;
    return undefined;
  });
  return hit;
}

/** What the tests of `name` in `scope` say about reading item `index`: `false` when there is none,
 *  `true` when one may cover it (any test but a length compared with a number, or such a comparison
 *  that gives the list enough items), else the text of the strongest length test, too weak for the
 *  item (`len(parts) > 1` before `parts[2]`). */
function lengthGuard(a: PythonAnalysis, scope: PyNode, name: string, index: number, cx?: StateContext, read?: PyNode): boolean | string {
  if (!nameTested(a, scope, name, { cx, read })) return false;
  const need = index >= 0 ? index + 1 : -index;
  let best: { len: number; text: string } | undefined;
  let other = false;
  walk(scope, (x) => {
    if (other) return false;
    if (x.type !== 'identifier' || a.src(x) !== name) return undefined;
    let p = x.parent;
    while (p && (p.type === 'named_expression' || p.type === 'parenthesized_expression')) p = p.parent;
    if (!p) return undefined;
    const counts = truthOrNoneTest(a, x, p) || (p.type === 'comparison_operator' && /^\s*(?:==|!=)\s*(?:\[\]|\(\))/.test(a.src(p)));
    if (counts || helperTest(a, x, p, { cx, read }, 0)) { other = true; return undefined; }
    // `any(… for x in name)` true: at least one item
    if (anyTest(a, x, p, read)) {
      const L = { len: 1, text: a.src(p.parent!.parent?.type === 'call' ? p.parent!.parent : p.parent!).replace(/\s+/g, ' ') };
      if (!best || L.len > best.len) best = L;
      return undefined;
    }
    if (p.type !== 'argument_list' || !/^len$/.test(a.src(field(p.parent!, 'function') ?? p))) return undefined;
    const call = p.parent!;
    const L = lengthBound(a, call);
    if (L === undefined) other = true;
    else if (!best || L.len > best.len) best = L;
    return undefined;
  });
  if (other || !best) return true;
  return best.len >= need ? true : best.text;
}

/** The length a comparison `len(x) OP n` guarantees on the branch that goes on to read (its true branch,
 *  or past an early exit for `<`/`<=`/`==0`), when it is a comparison with an integer literal. */
function lengthBound(a: PythonAnalysis, lenCall: PyNode): { len: number; text: string } | undefined {
  let cmp = lenCall.parent;
  while (cmp && cmp.type === 'parenthesized_expression') cmp = cmp.parent;
  if (!cmp || cmp.type !== 'comparison_operator') return undefined;
  const kids = named(cmp);
  const ops = cmp.children.filter((k) => !k.named).map((k) => k.type);
  if (kids.length !== 2 || ops.length !== 1) return undefined;
  const left = kids[0] === lenCall || unparen(kids[0]!) === lenCall;
  const lit = left ? kids[1]! : kids[0]!;
  const t = a.src(lit).replace(/\s+/g, '');
  if (!/^\d+$/.test(t)) return undefined;
  const n = Number(t);
  // normalise to len OP n
  const flip: Record<string, string> = { '<': '>', '>': '<', '<=': '>=', '>=': '<=', '==': '==', '!=': '!=' };
  const op = left ? ops[0]! : flip[ops[0]!];
  const text = a.src(cmp).replace(/\s+/g, ' ');
  switch (op) {
    case '>': return { len: n + 1, text };
    case '>=': return { len: n, text };
    // `== 0` / `!= 0` decide emptiness: the branch that reads has an item
    case '==':
    case '!=': return { len: Math.max(n, 1), text };
    // `if len(x) < n: return …` leaves at least n; `len(x) <= n` at least n + 1
    case '<': return { len: n, text };
    case '<=': return { len: n + 1, text };
    default: return undefined;
  }
}

/** Exception types whose handler around a read decides what its failure means. */
function handled(a: PythonAnalysis, n: PyNode, types: readonly string[]): boolean {
  return a.handlersAt(n).some((h) => h.types === null || h.types.some((t) => types.includes(t) || t === 'Exception' || t === 'BaseException'));
}

/** A test elsewhere in `scope` that the text `subject` contains a separator: `":" in s`, `s.startswith("a:")`,
 *  `s.count(":")`, `len(s.split(":"))`, `re.search(p, s)`, `s.find(":")`. */
function separatorTested(a: PythonAnalysis, scope: PyNode, subject: string, sep: string | undefined): boolean {
  let hit = false;
  const needleOk = (lit: PyNode | undefined) => {
    if (!lit) return false;
    const t = literal(a, lit);
    if (t === undefined) return true; // a computed needle: not ours to judge
    return sep === undefined ? /\S\s+\S/.test(t) : t.includes(sep);
  };
  walk(scope, (x) => {
    if (hit) return false;
    if (x.type === 'comparison_operator') {
      const kids = named(x);
      const ops = x.children.filter((k) => !k.named).map((k) => k.type).join(' ');
      if ((ops === 'in' || ops === 'not in') && kids[1] && a.src(unparen(kids[1])) === subject && needleOk(kids[0])) hit = true;
    } else if (x.type === 'call') {
      const c = a.call(x);
      if (!c) return undefined;
      // a prefix or suffix test of a computed needle says nothing of the fields after a whitespace split:
      // `line.startswith(status)` holds for a line that is the status alone
      const affix = c.method === 'startswith' || c.method === 'endswith';
      if (c.receiver && a.src(unparen(c.receiver)) === subject && ['startswith', 'endswith', 'count', 'find', 'index', 'rfind', 'partition'].includes(c.method)
        && needleOk(c.args[0]) && !(affix && sep === undefined && c.args[0] && literal(a, c.args[0]) === undefined)) hit = true;
      else if (RE_TEXT.has(c.qualified ?? '') && c.args[1] && a.src(unparen(c.args[1])) === subject) hit = true;
      // a compiled pattern's test (`STATUS.match(line)`), as `re.match(p, line)` is
      else if (c.receiver && ['match', 'search', 'fullmatch'].includes(c.method) && c.args[0] && a.src(unparen(c.args[0])) === subject && compiledPattern(a, c.receiver)) hit = true;
      else if (c.qualified === 'len' && c.args[0] && a.src(c.args[0]).startsWith(`${subject}.`)) hit = true;
    }
    return undefined;
  });
  return hit;
}

/** `n` is a pattern `re.compile(…)` made: the call itself, or a name (a local or a module-level constant) bound only to one. */
function compiledPattern(a: PythonAnalysis, n: PyNode): boolean {
  const u = unparen(n);
  if (u.type === 'call') return a.call(u)?.qualified === 're.compile';
  if (u.type !== 'identifier') return false;
  const name = a.src(u);
  const defs = a.reachingDefs(u);
  if (defs?.length) return defs.every((d) => (d.kind === 'assign' || d.kind === 'annassign') && !!d.value && !d.index?.length && compiledPattern(a, d.value));
  // a module-level constant: every assignment of the name in the module is `re.compile(…)`
  let seen = 0;
  let ok = true;
  for (const st of named(a.ast)) {
    const asg = st.type === 'expression_statement' ? named(st)[0] : undefined;
    if (asg?.type !== 'assignment' || a.src(field(asg, 'left') ?? asg) !== name) continue;
    seen++;
    const v = field(asg, 'right');
    if (!v || unparen(v).type !== 'call' || a.call(unparen(v))?.qualified !== 're.compile') ok = false;
  }
  return seen > 0 && ok;
}

function literal(a: PythonAnalysis, n: PyNode): string | undefined {
  const u = unparen(n);
  if (u.type !== 'string' || u.children.some((k) => k.type === 'interpolation')) return undefined;
  return u.children.filter((k) => k.type === 'string_content' || k.type === 'escape_sequence').map((k) => (k.type === 'escape_sequence' ? JSON.parse(`"${k.text.replace(/"/g, '\\"')}"`) as string : k.text)).join('');
}

function intIndex(a: PythonAnalysis, sub: PyNode): number | undefined {
  const idx = named(sub).slice(1);
  if (idx.length !== 1) return undefined;
  const t = a.src(idx[0]!).replace(/\s+/g, '');
  return /^-?\d+$/.test(t) ? Number(t) : undefined;
}

const QUERY_METHODS = new Set(['find_all', 'findAll', 'select', 'xpath', 'getElementsByTagName', 'fetchall', 'findall', 'iterfind', ...['query_selector_all', 'find_elements', 'find_elements_by_xpath', 'find_elements_by_css_selector']]);
/** Element queries of a live browser page (Playwright, Selenium): their result is the app's state itself. */
const PAGE_QUERIES = new Set(['query_selector_all', 'find_elements', 'find_elements_by_xpath', 'find_elements_by_css_selector']);

export interface StateRead {
  /** What is indexed: `item 1 of a split`, `the first match of \`re.findall\``… */
  what: string;
  origin: string;
  /** The node reported. */
  node: PyNode;
  /** Reads of one list or one match are one defect: the offset of what they read. */
  group: number;
  /** `row`: a column of `fetchone()`, None when no row matched (a TypeError, not an IndexError). */
  row?: boolean;
}

/** What a list expression is, when an index into it can be out of range on short state: a split
 *  (an index past the first only), a query or search result, a filtered comprehension. */
function shortList(a: PythonAnalysis, list: PyNode, index: number): { what: string; subject?: PyNode; sep?: PyNode | null; source: PyNode; row?: boolean; http?: boolean } | undefined {
  const u = unparen(list);
  if (u.type === 'list_comprehension') {
    if (!named(u).some((k) => k.type === 'if_clause')) return undefined;
    const clause = named(u).find((k) => k.type === 'for_in_clause');
    const right = clause && field(clause, 'right');
    return right ? { what: `item ${index} of a filtered list`, source: right } : undefined;
  }
  const parsed = jsonList(a, u);
  if (parsed) return { what: `item ${index} of ${parsed.what}`, source: parsed.source, http: true };
  const c = u.type === 'call' ? a.call(u) : undefined;
  if (!c) return undefined;
  if (c.receiver && c.method === 'splitlines' && index !== 0 && index !== -1) return { what: `line ${index}`, subject: unparen(c.receiver), sep: null, source: c.receiver };
  if (c.receiver && (c.method === 'split' || c.method === 'rsplit')) {
    // a split has at least one item (an empty text split on whitespace has none: left out, it is the common idiom)
    if (index === 0 || index === -1) return undefined;
    return { what: `item ${index} of a split`, subject: unparen(c.receiver), sep: c.args[0] ?? null, source: c.receiver };
  }
  if (c.receiver && QUERY_METHODS.has(c.method) && c.method !== 'findall') return { what: `item ${index} of \`.${c.method}(…)\``, source: c.method === 'fetchall' || PAGE_QUERIES.has(c.method) ? u : c.receiver };
  if (c.receiver && c.method === 'findall' && !(c.qualified ?? '').startsWith('re.')) return { what: `item ${index} of \`.findall(…)\``, source: c.receiver };
  if (c.qualified === 're.findall' && c.args[1]) return { what: `item ${index} of \`re.findall(…)\``, source: c.args[1] };
  if (c.receiver && c.method === 'fetchone' && c.args.length === 0) {
    const sql = queryOf(a, c);
    return sql && mayMatchNoRow(sql) ? { what: `column ${index} of the row \`fetchone()\` returns for \`${sql.replace(/\s+/g, ' ').trim().slice(0, 80)}\``, source: u, row: true } : undefined;
  }
  return undefined;
}

/** A list parsed from a reply's JSON: `resp.json()`, `json.loads(resp.text)`, or a member of it under
 *  string keys (`resp.json()["items"]`, `data["items"]` of `data = resp.json()`). An empty reply list has
 *  no first item, so every index counts. Its origin (`source`) must still be state: an HTTP reply. */
function jsonList(a: PythonAnalysis, u: PyNode, depth = 0): { what: string; source: PyNode } | undefined {
  if (depth > 4) return undefined;
  if (u.type === 'call') {
    const c = a.call(u);
    if (!c) return undefined;
    if (c.receiver && c.method === 'json' && c.args.length === 0) return { what: 'the parsed JSON', source: u };
    if ((c.qualified === 'json.loads') && c.args[0]) return { what: 'the parsed JSON', source: u };
    return undefined;
  }
  if (u.type === 'subscript') {
    const key = named(u).slice(1);
    if (key.length !== 1 || literal(a, key[0]!) === undefined) return undefined;
    const base = jsonList(a, unparen(field(u, 'value')!), depth + 1);
    return base && { what: `\`${a.src(u).replace(/\s+/g, ' ').slice(0, 60)}\``, source: base.source };
  }
  if (u.type === 'identifier' && depth > 0) {
    const defs = a.reachingDefs(u);
    if (defs?.length !== 1 || defs[0]!.kind !== 'assign' || !defs[0]!.value || defs[0]!.index?.length) return undefined;
    return jsonList(a, unparen(defs[0]!.value), depth + 1);
  }
  return undefined;
}

/** The SQL text a cursor's `fetchone()` answers, when written in the code: `cur.execute(sql).fetchone()`,
 *  `cur = conn.execute(sql)`, or the last `cur.execute(sql)` before it in the function (an f-string's
 *  interpolations read as `?`). */
function queryOf(a: PythonAnalysis, fetch: CallInfo): string | undefined {
  const recv = unparen(fetch.receiver!);
  const sqlOf = (c: CallInfo | undefined) => (c && c.method === 'execute' && c.args[0] ? sqlText(a, c.args[0]) : undefined);
  if (recv.type === 'call') return sqlOf(a.call(recv));
  if (recv.type !== 'identifier') return undefined;
  const name = a.src(recv);
  const defs = a.reachingDefs(recv);
  if (defs?.length === 1 && defs[0]!.value && defs[0]!.kind === 'assign') {
    const own = sqlOf(callOf(a, defs[0]!.value));
    if (own) return own;
  }
  const scope = a.functionAt(fetch.node)?.node ?? a.ast;
  let last: string | undefined;
  walk(scope, (x) => {
    if (x.start >= fetch.node.start) return false;
    if (x.type === 'function_definition' && x !== scope) return false;
    const c = x.type === 'call' ? a.call(x) : undefined;
    if (c?.receiver && c.method === 'execute' && a.src(unparen(c.receiver)) === name) last = sqlOf(c);
    return undefined;
  });
  return last;
}

function sqlText(a: PythonAnalysis, n: PyNode): string | undefined {
  const u = unparen(n);
  if (u.type === 'identifier') {
    const defs = a.reachingDefs(u);
    return defs?.length === 1 && defs[0]!.kind === 'assign' && defs[0]!.value && !defs[0]!.index?.length && /string$/.test(unparen(defs[0]!.value).type) ? sqlText(a, defs[0]!.value) : undefined;
  }
  if (u.type === 'concatenated_string') return named(u).map((k) => sqlText(a, k) ?? '?').join('');
  if (u.type !== 'string') return undefined;
  return u.children.map((k) => (k.type === 'string_content' || k.type === 'escape_sequence' ? k.text : k.type === 'interpolation' ? '?' : '')).join('');
}

/** A SELECT that may match no row: it has a WHERE (or HAVING) and no aggregate that makes one row of nothing. */
function mayMatchNoRow(sql: string): boolean {
  return /^\s*select\b/i.test(sql) && /\b(?:where|having)\b/i.test(sql) && !/\b(?:count|sum|avg|min|max|total|group_concat|string_agg|array_agg|exists|coalesce)\s*\(/i.test(sql) && !/\bgroup\s+by\b/i.test(sql);
}

/** `xs[k]` where `xs` is a split / query result / filtered list of state, with no check it has item `k`. */
export function unguardedItemRead(a: PythonAnalysis, sub: PyNode, cx: StateContext = {}): StateRead | undefined {
  if (sub.type !== 'subscript') return undefined;
  const index = intIndex(a, sub);
  if (index === undefined) return undefined;
  // the target of an assignment (`parts[1] = …`) is a write
  if (sub.parent?.type === 'assignment' && field(sub.parent, 'left') === sub) return undefined;
  const value = unparen(field(sub, 'value')!);
  const fn = a.functionAt(sub);
  const scope = fn?.node ?? a.ast;
  let list: ReturnType<typeof shortList>;
  let group = value.start;
  if (value.type === 'identifier') {
    const name = a.src(value);
    const defs = a.reachingDefs(value);
    if (!defs?.length || defs.some((d) => d.kind !== 'assign' && d.kind !== 'annassign' && d.kind !== 'walrus')) return undefined;
    for (const d of defs) {
      if (d.index?.length || !d.value) return undefined;
      list ??= shortList(a, d.value, index);
      group = d.value.start;
    }
    if (!list) return undefined;
    const g = lengthGuard(a, scope, name, index, cx, sub);
    if (g === true) return undefined;
    if (g !== false) list = { ...list, what: `${list.what} (whose length is tested only by \`${g}\`)` };
  } else {
    list = shortList(a, value, index);
    if (!list) return undefined;
  }
  if (list.sep && literal(a, list.sep) === undefined) return undefined;
  if (list.subject && separatorTested(a, scope, a.src(list.subject), list.sep ? literal(a, list.sep) : undefined)) return undefined;
  if (handled(a, sub, list.row ? ['TypeError'] : ['IndexError', 'LookupError'])) return undefined;
  const origin = stateOrigin(a, list.source, cx);
  // a parsed JSON list counts only from an app's reply (a task's own JSON file has the shape its author wrote)
  if (!origin || (list.http && origin !== 'an HTTP reply')) return undefined;
  // every project caller of the function catches what a short state raises
  if (cx.callerHandles?.(a, sub, list.row ? ['TypeError'] : ['IndexError', 'LookupError'])) return undefined;
  return { what: list.what, origin, node: sub, group, ...(list.row ? { row: true } : {}) };
}

const MATCH_READS = new Set(['group', 'groups', 'groupdict', 'start', 'end', 'span']);
const RE_MATCH = new Set(['re.search', 're.match', 're.fullmatch']);

/** `re.search(p, s).group(1)` / `m.group(1)` (also `m[1]`) on state with no test that it matched. */
export function unguardedMatchRead(a: PythonAnalysis, node: PyNode, cx: StateContext = {}): StateRead | undefined {
  let target: PyNode | undefined;
  if (node.type === 'call') {
    const c = a.call(node);
    if (!c?.receiver || !MATCH_READS.has(c.method)) return undefined;
    target = unparen(c.receiver);
  } else if (node.type === 'subscript') {
    target = unparen(field(node, 'value')!);
  } else return undefined;
  const fn = a.functionAt(node);
  const scope = fn?.node ?? a.ast;
  let search: CallInfo | undefined;
  if (target.type === 'identifier') {
    const defs = a.reachingDefs(target);
    if (!defs?.length) return undefined;
    for (const d of defs) {
      if (d.kind !== 'assign' && d.kind !== 'walrus') return undefined;
      const c = d.value && !d.index?.length ? callOf(a, d.value) : undefined;
      if (!c || !RE_MATCH.has(c.qualified ?? '')) return undefined;
      search ??= c;
    }
    if (nameTested(a, scope, a.src(target), { none: true, cx, read: node })) return undefined;
  } else {
    const c = callOf(a, target);
    if (!c || !RE_MATCH.has(c.qualified ?? '')) return undefined;
    search = c;
  }
  if (!search?.args[1]) return undefined;
  if (handled(a, node, ['AttributeError', 'TypeError'])) return undefined;
  if (cx.alwaysMatches?.(a, search)) return undefined;
  const origin = stateOrigin(a, search.args[1], cx);
  if (!origin) return undefined;
  if (cx.callerHandles?.(a, node, ['AttributeError', 'TypeError'])) return undefined;
  return { what: `a match of \`${search.qualified}\``, origin, node, group: search.node.start };
}

/** Parsers whose result is a document tree: `.find(…)` on it (or on an element found in it) looks up one element. */
const TREE_MAKERS = new Set(['bs4.BeautifulSoup', 'BeautifulSoup', 'xml.etree.ElementTree.fromstring', 'xml.etree.ElementTree.parse',
  'lxml.etree.fromstring', 'lxml.etree.parse', 'lxml.html.fromstring', 'lxml.html.document_fromstring']);
/** Lookups of one element that return None when nothing matches. */
const ELEMENT_LOOKUPS = new Set(['find', 'select_one', 'find_parent', 'find_next', 'find_next_sibling', 'find_previous_sibling']);

/** `n` is a document tree or an element of one: a parser's result, `.getroot()` of it, or an element lookup on it. */
function documentTree(a: PythonAnalysis, n: PyNode, depth = 0): boolean {
  if (depth > 6) return false;
  const u = unparen(n);
  if (u.type === 'identifier') {
    const defs = a.reachingDefs(u);
    return !!defs?.length && defs.every((d) => (d.kind === 'assign' || d.kind === 'walrus') && !!d.value && !d.index?.length && documentTree(a, d.value, depth + 1));
  }
  const c = u.type === 'call' ? a.call(u) : undefined;
  if (!c) return false;
  if (TREE_MAKERS.has(c.qualified ?? '') || TREE_MAKERS.has(c.calleeText)) return true;
  return !!c.receiver && (c.method === 'getroot' || ELEMENT_LOOKUPS.has(c.method)) && documentTree(a, c.receiver, depth + 1);
}

/** The one-element lookup `c` is: `soup.find("h1")`, `tree.find("./item")`, `soup.select_one(…)` on a parsed
 *  document, or `page.query_selector(…)` on a live page. Each returns None when nothing matches. */
function elementLookup(a: PythonAnalysis, c: CallInfo | undefined): CallInfo | undefined {
  if (!c?.receiver || c.args.length === 0) return undefined;
  if (c.method === 'query_selector') return c;
  return ELEMENT_LOOKUPS.has(c.method) && documentTree(a, c.receiver) ? c : undefined;
}

/** The lookups that find every element a one-element lookup may return, tested the same way (a non-empty
 *  list has a first element): `select` for `select_one`, `find_all` / `findall` for `find`. */
const ALL_OF: Record<string, readonly string[]> = { select_one: ['select'], find: ['find_all', 'findAll', 'findall'], query_selector: ['query_selector_all'] };

/** Before the read, the same lookup on the same receiver with the same arguments (or the lookup of all
 *  such elements) is tested in a condition (`if root.find("a/b") is None: return`, `if not soup.select(s):`). */
function sameLookupTested(a: PythonAnalysis, scope: PyNode, look: CallInfo): boolean {
  const recv = a.src(unparen(look.receiver!));
  const args = a.src(field(look.node, 'arguments') ?? look.node);
  const methods = new Set([look.method, ...(ALL_OF[look.method] ?? [])]);
  let hit = false;
  walk(scope, (x) => {
    if (hit || x.start >= look.node.start) return false;
    if (x.type !== 'call') return undefined;
    const c = a.call(x);
    // Playwright `page.wait_for_selector(s)` as a statement raises when no element appears (unless it waits
    // for the element to be hidden or detached): the `page.query_selector(s)` after it finds one
    if (look.method === 'query_selector' && c?.receiver && c.method === 'wait_for_selector' && a.src(unparen(c.receiver)) === recv && c.args[0] && look.args[0]
      && a.src(c.args[0]) === a.src(look.args[0]) && !/^["'](?:hidden|detached)["']$/.test(c.kwargs.get('state') ? a.src(c.kwargs.get('state')!) : '')) {
      let st: PyNode | null = x.parent;
      while (st && (st.type === 'await' || st.type === 'parenthesized_expression')) st = st.parent;
      if (st?.type === 'expression_statement') hit = true;
      return undefined;
    }
    if (!c?.receiver || !methods.has(c.method) || a.src(unparen(c.receiver)) !== recv || a.src(field(x, 'arguments') ?? x) !== args) return undefined;
    let child: PyNode = x;
    let p = x.parent;
    while (p && (p.type === 'parenthesized_expression' || p.type === 'await')) { child = p; p = p.parent; }
    if (!p) return undefined;
    // `find(p) is not None and find(p).text`: the left operand of an `and` whose right holds the read
    const guardsRight = (t: PyNode) => t.parent?.type === 'boolean_operator' && field(t.parent, 'left') === t && /^\s*and\b/.test(a.text.slice(t.end, t.parent.end)) && look.node.start >= (field(t.parent, 'right')?.start ?? Infinity);
    if ((inCondition(x) && (CONDITION_PARENTS.has(p.type) || p.type === 'if_statement')) || guardsRight(child)) hit = true;
    else if (p.type === 'comparison_operator' && /\bNone\b/.test(a.src(p)) && (inConditionOrSelf(p) || guardsRight(p))) hit = true;
    else if (p.type === 'argument_list' && a.src(field(p.parent!, 'function') ?? p) === 'len' && named(p)[0] === child) hit = true;
    return undefined;
  });
  return hit;
}

function inConditionOrSelf(p: PyNode): boolean {
  return inCondition(p) || (!!p.parent && (p.parent.type === 'if_statement' || p.parent.type === 'elif_clause') && field(p.parent, 'condition') === p);
}

/** A member read (`.text`, `.get_text()`, `.inner_text()`, `["href"]`) on the element a lookup returned, with
 *  no test of it: `soup.find("h1").get_text()`, `el = page.query_selector("#x")` then `el.inner_text()`. */
export function unguardedLookupRead(a: PythonAnalysis, node: PyNode, cx: StateContext = {}): StateRead | undefined {
  if (node.type !== 'attribute' && node.type !== 'subscript') return undefined;
  // `await page.query_selector(…)` (async Playwright) is the lookup's result too
  const unawait = (n: PyNode): PyNode => {
    const u = unparen(n);
    return u.type === 'await' && named(u)[0] ? unparen(named(u)[0]!) : u;
  };
  const target = unawait(field(node, node.type === 'attribute' ? 'object' : 'value')!);
  const fn = a.functionAt(node);
  const scope = fn?.node ?? a.ast;
  let look: CallInfo | undefined;
  if (target.type === 'identifier') {
    const defs = a.reachingDefs(target);
    if (!defs?.length) return undefined;
    for (const d of defs) {
      if (d.kind !== 'assign' && d.kind !== 'walrus') return undefined;
      const c = elementLookup(a, d.value && !d.index?.length ? callOf(a, unawait(d.value)) : undefined);
      if (!c) return undefined;
      look ??= c;
    }
    if (nameTested(a, scope, a.src(target), { none: true, cx, read: node }) || (look && sameLookupTested(a, scope, look))) return undefined;
  } else {
    look = elementLookup(a, callOf(a, target));
    if (look && sameLookupTested(a, scope, look)) return undefined;
  }
  if (!look?.receiver) return undefined;
  if (handled(a, node, ['AttributeError', 'TypeError'])) return undefined;
  const origin = look.method === 'query_selector' ? 'the live page' : stateOrigin(a, look.receiver, cx);
  if (!origin) return undefined;
  if (cx.callerHandles?.(a, node, ['AttributeError', 'TypeError'])) return undefined;
  return { what: `a member of the element \`.${look.method}(…)\` returns (None when nothing matches)`, origin, node, group: look.node.start };
}

// ---- a path that is None on failure, opened --------------------------------------------------

/** Calls that open the path (or stream) they are given first. `None` there raises (`open`: TypeError,
 *  `Image.open`: AttributeError, `read_csv`: ValueError…) or, for `blank`, opens the library's empty
 *  default document: the missing file is graded as an empty one. */
const OPENERS = new Map<string, 'raises' | 'blank'>([
  ...['open', 'io.open', 'codecs.open', 'PIL.Image.open', 'pandas.read_csv', 'pandas.read_excel', 'pandas.read_json', 'pandas.read_table',
    'pandas.read_parquet', 'pandas.read_xml', 'openpyxl.load_workbook', 'openpyxl.reader.excel.load_workbook', 'zipfile.ZipFile', 'tarfile.open',
    'PyPDF2.PdfReader', 'PyPDF2.PdfFileReader', 'pypdf.PdfReader', 'cv2.imread', 'imageio.imread', 'imageio.v2.imread', 'xml.etree.ElementTree.parse',
    'lxml.etree.parse', 'sqlite3.connect', 'pathlib.Path', 'os.path.getsize', 'skimage.io.imread'].map((q) => [q, 'raises'] as const),
  ...['docx.Document', 'pptx.Presentation', 'fitz.open', 'pymupdf.open'].map((q) => [q, 'blank'] as const),
]);

/** Keyword names of the path the openers take first (`load_workbook(filename=…)`, `read_csv(filepath_or_buffer=…)`). */
const PATH_KEYWORDS = ['file', 'filename', 'filepath_or_buffer', 'io', 'fp', 'path', 'name', 'docx', 'pptx', 'stream'];

/** What the caller knows about values that are None on failure: the getters routed to the agent's
 *  parameter that return None on some path, and a project function a call reaches that does. */
export interface NoneContext {
  /** The routed getters of the agent's parameter that return None (described), when some do. */
  agentNone?: string;
  /** The metric's parameters that carry the gold (task-side, not the options): a helper called on them is not reading state. */
  gold?: ReadonlySet<string>;
  /** A call of a project function that returns None on some path: its description. */
  calleeNone?: (a: PythonAnalysis, c: CallInfo) => string | undefined;
}

/** The first `return` of `fn` (not of a nested function) that gives None: `return`, `return None`, or a
 *  local that is None on that path. Generators and functions without any `return <value>` are left out
 *  (a procedure, not a getter). With `agentOnly`, a None the function returns only because an exception was
 *  caught (see `noneFromHandler`) is skipped: that None means the read itself failed, not that the state is missing. */
export function noneReturn(a: PythonAnalysis, fnNode: PyNode, agentOnly = false): PyNode | undefined {
  // asked for the same getter by every read routed to it (a ScienceBoard or Spider2-V verifier's getters: ≈ 5 reads each)
  return (agentOnly ? agentNoneReturns : noneReturns)(a, fnNode, () => findNoneReturn(a, fnNode, agentOnly));
}

/** `noneReturn`'s answers per analysis and function, without and with `agentOnly`. */
const noneReturns = analysisMemo<PyNode, PyNode | undefined>();
const agentNoneReturns = analysisMemo<PyNode, PyNode | undefined>();

function findNoneReturn(a: PythonAnalysis, fnNode: PyNode, agentOnly: boolean): PyNode | undefined {
  let site: PyNode | undefined;
  let valued = false;
  let generator = false;
  const body = field(fnNode, 'body');
  if (!body) return undefined;
  const keep = (x: PyNode, e?: PyNode): boolean => !agentOnly || !noneFromHandler(a, fnNode, x, e);
  walk(body, (x) => {
    if (x.type === 'function_definition' || x.type === 'lambda' || x.type === 'class_definition') return false;
    if (x.type === 'yield') generator = true;
    if (x.type !== 'return_statement') return undefined;
    const v = named(x)[0];
    if (!v || unparen(v).type === 'none') {
      if (keep(x)) site ??= x;
    } else {
      valued = true;
      for (const e of branches(v)) {
        if (e.type === 'none' || (e.type === 'identifier' && a.noneOnSomePath(e))) {
          if (keep(x, e)) site ??= x;
        } else if (e.type === 'subscript') {
          const item = noneItem(a, body, e);
          if (item && (!agentOnly || !inHandler(a, item, fnNode))) site ??= item;
        }
      }
    }
    return undefined;
  });
  return !generator && valued ? site : undefined;
}

/** Errors that say the state itself is not there (no file, no key, no item, no element): a handler that
 *  catches only these tests the state, as `if not os.path.exists(p)` does. */
const ABSENT_STATE = new Set(['FileNotFoundError', 'NotADirectoryError', 'IsADirectoryError', 'KeyError', 'IndexError', 'LookupError', 'StopIteration', 'NoSuchElementException']);

/** Handler `h` (an `except` clause) catches a failure of the read itself: a bare `except`, `Exception`, an
 *  API client's, connection or process error — anything but only errors of absent state. */
function readFailureHandler(a: PythonAnalysis, h: PyNode): boolean {
  const types = h.parent ? a.handlerInfo(h.parent, h).types : null;
  if (types?.length && types.every((t) => ABSENT_STATE.has(t))) return false;
  // the `try` indexes the rows a query fetched (`json.loads(cur.fetchone()[0])`) and the handler catches what an
  // empty result raises (TypeError on None, IndexError): the agent's app has no such row, a state of the agent
  if (h.parent && (types === null || types.some((t) => ROW_ERRORS.has(t))) && indexesFetchedRows(a, field(h.parent, 'body'))) return false;
  // `reply.raise_for_status()` in the `try` turns the reply's status (a 404: the agent saved nothing) into the
  // error this handler catches: a test of the state, whatever else the handler also catches
  return !(h.parent && raisesForStatus(a, field(h.parent, 'body')) && (types === null || types.some((t) => STATUS_ERRORS.test(t))));
}

/** What indexing an empty query result raises (`None[0]`, `[][0]`), and the handlers that catch it. */
const ROW_ERRORS = new Set(['Exception', 'BaseException', 'TypeError', 'IndexError', 'LookupError']);
const FETCHES = new Set(['fetchone', 'fetchall', 'fetchmany']);

/** The block indexes what a cursor fetched: `cur.fetchone()[0]`, or `row[0]` of a local assigned from a fetch
 *  (outside nested functions). */
function indexesFetchedRows(a: PythonAnalysis, block: PyNode | null | undefined): boolean {
  const fetched = (v: PyNode): boolean => {
    const c = v.type === 'call' ? a.call(v) : undefined;
    return !!c?.receiver && FETCHES.has(c.method);
  };
  let hit = false;
  if (block)
    walk(block, (n) => {
      if (hit || n.type === 'function_definition' || n.type === 'lambda' || n.type === 'class_definition') return false;
      if (n.type !== 'subscript') return undefined;
      const v = unparen(field(n, 'value') ?? n);
      if (fetched(v) || (v.type === 'identifier' && a.valueSources(v).some((x) => x !== v && fetched(unparen(x))))) hit = true;
      return undefined;
    });
  return hit;
}

const STATUS_ERRORS = /(^|\.)(HTTPError|HTTPStatusError|RequestException|RequestError|ClientResponseError|Exception|BaseException)$/;

/** The block calls `.raise_for_status()` (requests, httpx, aiohttp), outside nested functions. */
function raisesForStatus(a: PythonAnalysis, block: PyNode | null | undefined): boolean {
  let hit = false;
  if (block)
    walk(block, (n) => {
      if (hit || n.type === 'function_definition' || n.type === 'lambda' || n.type === 'class_definition') return false;
      if (n.type === 'call' && /\.raise_for_status$/.test(a.src(field(n, 'function') ?? n))) hit = true;
      return undefined;
    });
  return hit;
}

/** `n` runs inside an `except` clause of its function that catches a failure of the read (`readFailureHandler`). */
function inHandler(a: PythonAnalysis, n: PyNode, fnNode: PyNode): boolean {
  for (let p = n.parent; p && p !== fnNode; p = p.parent) if (p.type === 'except_clause' || p.type === 'except_group_clause') return readFailureHandler(a, p);
  return false;
}

/** Every handler of try statement `t` catches a failure of the read (`readFailureHandler`). */
function readFailureTry(a: PythonAnalysis, t: PyNode): boolean {
  const hs = t.children.filter((k) => k.type === 'except_clause' || k.type === 'except_group_clause');
  return hs.length > 0 && hs.every((h) => readFailureHandler(a, h));
}

/** Statements between a definition and the `try` body that holds it that always run once the `try` body
 *  runs to them (no branch, loop or comprehension in between). */
const STRAIGHT = new Set(['block', 'expression_statement', 'assignment', 'augmented_assignment', 'with_statement', 'with_clause', 'with_item', 'as_pattern', 'as_pattern_target', 'pattern_list', 'tuple_pattern', 'list_pattern', 'parenthesized_expression']);

/** `d` is assigned on every run of a `try` body that does not raise: the first `try` up from it holds it in
 *  its body with only straight-line statements in between. */
function alwaysSetInTryBody(a: PythonAnalysis, d: PyNode, fnNode: PyNode): boolean {
  let child = d;
  for (let p = d.parent; p && p !== fnNode; child = p, p = p.parent) {
    if (p.type === 'try_statement') return child.field === 'body' && readFailureTry(a, p);
    if (!STRAIGHT.has(p.type)) return false;
  }
  return false;
}

/** The None that return statement `ret` gives (its value `e`, when a local) is there only because an
 *  exception was caught — the read itself failed (an API client, a connection, a missing credential), not the
 *  state under test (a handler of only absent-state errors, `except FileNotFoundError`, is a test of the state): the return is inside an `except` clause; the local is set to None inside one, or set
 *  before a `try` whose body always assigns it (None survives only when that body raised); or the return
 *  follows a `try` whose body always returns (it is reached only through a handler). */
function noneFromHandler(a: PythonAnalysis, fnNode: PyNode, ret: PyNode, e?: PyNode): boolean {
  if (inHandler(a, ret, fnNode)) return true;
  if (e) {
    const w = a.noneOnSomePath(e);
    if (!w) return false;
    if (inHandler(a, w.site, fnNode)) return true;
    const others = (a.reachingDefs(e) ?? []).filter((d) => d.kind !== 'unbound' && d !== w.def && !(d.value && unparen(d.value).type === 'none'));
    return others.length > 0 && others.every((d) => !!d.node && alwaysSetInTryBody(a, d.node, fnNode));
  }
  const siblings = ret.parent ? named(ret.parent).filter((s) => s.type !== 'comment') : [];
  const prev = siblings[siblings.indexOf(ret) - 1];
  if (prev?.type !== 'try_statement') return false;
  const tryBody = field(prev, 'body');
  const stmts = tryBody ? named(tryBody).filter((s) => s.type !== 'comment') : [];
  const hasElseOrFinally = prev.children.some((k) => k.type === 'else_clause' || k.type === 'finally_clause');
  return !hasElseOrFinally && stmts.at(-1)?.type === 'return_statement' && readFailureTry(a, prev);
}

/** The values an expression may take: both arms of a conditional expression, else itself. */
function branches(e0: PyNode): PyNode[] {
  const e = unparen(e0);
  if (e.type !== 'conditional_expression') return [e];
  const k = named(e);
  return [...(k[0] ? branches(k[0]) : []), ...(k[2] ? branches(k[2]) : [])];
}

/** `xs[k]` of a local list the function fills with None on some path (`xs.append(None)`): that append. */
function noneItem(a: PythonAnalysis, body: PyNode, sub: PyNode): PyNode | undefined {
  const list = unparen(field(sub, 'value')!);
  if (list.type !== 'identifier' || intIndex(a, sub) === undefined) return undefined;
  const name = a.src(list);
  let site: PyNode | undefined;
  walk(body, (x) => {
    if (site) return false;
    if (x.type === 'function_definition' || x.type === 'lambda' || x.type === 'class_definition') return false;
    const c = x.type === 'call' ? a.call(x) : undefined;
    if (!c?.receiver || a.src(unparen(c.receiver)) !== name) return undefined;
    const item = c.method === 'append' ? c.args[0] : c.method === 'insert' ? c.args[1] : undefined;
    if (item && unparen(item).type === 'none') site = x;
    return undefined;
  });
  return site;
}

/** `name` appears in a test in `scope`: an `if`/`elif`/`while`/`assert` condition, a conditional
 *  expression's test, a boolean operand, a comprehension's `if` — the verifier looked at it. */
function mentionedInTest(a: PythonAnalysis, scope: PyNode, name: string): boolean {
  let hit = false;
  walk(scope, (x) => {
    if (hit) return false;
    if (x.type !== 'identifier' || a.src(x) !== name) return undefined;
    for (let p: PyNode | null = x.parent, child: PyNode = x; p && p !== scope; child = p, p = p.parent) {
      if (p.type === 'if_statement' || p.type === 'elif_clause' || p.type === 'while_statement') {
        if (field(p, 'condition') === child) hit = true;
        break;
      }
      if (p.type === 'assert_statement' || p.type === 'boolean_operator' || p.type === 'not_operator' || p.type === 'if_clause') { hit = true; break; }
      if (p.type === 'conditional_expression') { if (named(p)[1] === child) hit = true; break; }
      if (p.type === 'comparison_operator' && /\bNone\b/.test(a.src(p))) { hit = true; break; }
      if (p.type === 'block' || p.type === 'expression_statement' || p.type === 'return_statement') break;
    }
    return undefined;
  });
  return hit;
}

export interface NoneOpen {
  node: PyNode;
  /** The opener as written (`Image.open`). */
  opener: string;
  /** `raises`, or `blank` (the library opens an empty default document). */
  kind: 'raises' | 'blank';
  /** What is None and why: "`path`, the result of the getter `get_vm_file`, which returns None at getters/file.py:42,". */
  source: string;
  /** Opens of one value are one defect. */
  group: number;
}

/** A helper called on the task's side (an argument made of a parameter that carries the gold file or the
 *  options, `load(pd.ExcelFile(expected))`): its None may be the gold's failure, a task bug, not missing state. */
function onTaskSide(a: PythonAnalysis, call: CallInfo, cx: NoneContext): boolean {
  const task = cx.gold;
  if (!task?.size) return false;
  const seen = new Set<PyNode>();
  const visit = (n: PyNode, depth: number): boolean => {
    let hit = false;
    walk(n, (x) => {
      if (hit) return false;
      if (x.type !== 'identifier' || seen.has(x)) return undefined;
      seen.add(x);
      const defs = (a.reachingDefs(x) ?? []).flatMap((d) => (d.kind === 'narrow' ? (d.base ?? []) : [d]));
      for (const d of defs) {
        if (d.kind === 'param' && task.has(d.name)) hit = true;
        else if (depth < 4 && d.value && d.kind !== 'param' && visit(d.value, depth + 1)) hit = true;
        if (hit) break;
      }
      return undefined;
    });
    return hit;
  };
  const list = field(call.node, 'arguments');
  return !!list && visit(list, 0);
}

/** What a value is when it is None because the getter or helper that produced it failed: a parameter the
 *  suites route a None-returning getter to, a local assigned such a call, or such a call itself. The
 *  value's name is given for a local or parameter (its tests guard it). */
function noneSource(a: PythonAnalysis, arg: PyNode, cx: StateContext & NoneContext): { source: string; group: number; name?: string } | undefined {
  let source: string | undefined;
  let group = arg.start;
  if (arg.type === 'call') {
    const inner = a.call(arg);
    const s = inner && !onTaskSide(a, inner, cx) && cx.calleeNone?.(a, inner);
    return s ? { source: `the result of ${s}`, group } : undefined;
  }
  if (arg.type !== 'identifier') return undefined;
  const defs = a.reachingDefs(arg);
  if (!defs?.length || defs.some((d) => d.kind === 'narrow' || d.kind === 'unbound')) return undefined;
  for (const d of defs) {
    if (d.kind === 'param' && cx.agent?.has(d.name) && cx.agentNone) {
      source ??= `\`${d.name}\`, the result of ${cx.agentNone}`;
      group = d.node?.start ?? group;
    } else if ((d.kind === 'assign' || d.kind === 'annassign') && d.value && !d.index?.length) {
      const v = unparen(d.value);
      const inner = v.type === 'call' ? a.call(v) : undefined;
      const s = inner && !onTaskSide(a, inner, cx) && cx.calleeNone?.(a, inner);
      if (s) {
        source ??= `\`${d.name}\`, the result of ${s}`;
        group = v.start;
      }
    }
  }
  return source ? { source, group, name: a.src(arg) } : undefined;
}

/** `open(path)` / `Image.open(path)` / `pd.read_csv(path)` / `Document(path)` on a value that is None
 *  when the getter or helper that produced it failed, with no test of the value and no handler. */
export function unguardedNoneOpen(a: PythonAnalysis, node: PyNode, context: (agentOnly: boolean) => StateContext & NoneContext): NoneOpen | undefined {
  const c = node.type === 'call' ? a.call(node) : undefined;
  const kind = c && OPENERS.get(c.qualified ?? '');
  const first = c && (c.args[0] ?? PATH_KEYWORDS.map((k) => c.kwargs.get(k)).find((v) => v));
  if (!c || !kind || !first) return undefined;
  const arg = unparen(first);
  const scope = a.functionAt(node)?.node ?? a.ast;
  // an opener that raises on None surfaces a failed read (a None from the getter's own handler) as an error,
  // the right outcome for it; one that opens a blank document grades that instead, whatever the None meant
  const src = noneSource(a, arg, context(kind === 'raises'));
  if (!src) return undefined;
  if (src.name && mentionedInTest(a, scope, src.name)) return undefined;
  if (handled(a, node, ['TypeError', 'AttributeError', 'ValueError'])) return undefined;
  return { node, opener: c.calleeText, kind, source: src.source, group: src.group };
}

// ---- a value that is None on failure, used as a container, text or object ----------------------

/** Calls that iterate (or measure) their first argument: None there raises TypeError. */
const ITERATING = new Set(['len', 'sorted', 'list', 'tuple', 'set', 'frozenset', 'dict', 'sum', 'max', 'min', 'enumerate', 'zip', 'iter', 'any', 'all', 'reversed', 'map', 'filter']);

export interface NoneUse {
  /** Where it is reported: the use (the comparison, the subscript, the call, the member, or the iterable of a `for`). */
  node: PyNode;
  /** The use as written (`expect not in result`, `for row in rows`, `len(names)`, `doc.get("title")`). */
  expr: string;
  /** What None raises there (`TypeError: argument of type 'NoneType' is not iterable`). */
  raises: string;
  source: string;
  group: number;
  /** The value is None only when the getter's read itself failed (it returns None from a handler). */
  failed: boolean;
  /** A handler around the use that catches the error and returns a passing verdict: its text and line. */
  passes?: { verdict: string; line: number; handler: string };
}

/** `p` has at most two operands (named children other than comments): counting stops at the third. */
function twoOperands(p: PyNode): boolean {
  let n = 0;
  for (const k of p.children) if (k.named && k.type !== 'comment' && ++n > 2) return false;
  return true;
}

/** How `value` (an identifier or a call) is used where None raises: a membership test on it, an
 *  iteration, an iterating call, an item, a member. */
function noneUseOf(a: PythonAnalysis, value: PyNode): { node: PyNode; expr: string; raises: string; error: string } | undefined {
  let child = value;
  let p = value.parent;
  while (p && p.type === 'parenthesized_expression') { child = p; p = p.parent; }
  if (!p) return undefined;
  switch (p.type) {
    case 'comparison_operator': {
      // a membership test has two operands: a chain (`a < b < …`, thousands long) is refused before its
      // operands and operators are listed, so each operand costs a few children, not the whole chain
      if (!twoOperands(p)) return undefined;
      const kids = named(p);
      const ops = p.children.filter((k) => !k.named).map((k) => k.type).join(' ');
      if (kids.length !== 2 || kids[1] !== child || (ops !== 'in' && ops !== 'not in')) return undefined;
      return { node: p, expr: a.src(p), raises: "TypeError (argument of type 'NoneType' is not iterable)", error: 'TypeError' };
    }
    case 'for_statement':
    case 'for_in_clause': {
      if (field(p, 'right') !== child) return undefined;
      const left = field(p, 'left');
      return { node: value, expr: `for ${left ? a.src(left) : '…'} in ${a.src(value)}`, raises: "TypeError ('NoneType' object is not iterable)", error: 'TypeError' };
    }
    case 'argument_list': {
      const call = p.parent;
      const fnName = call && call.type === 'call' ? a.src(field(call, 'function') ?? call) : '';
      const at = named(p).indexOf(child);
      if (!(fnName === 'map' || fnName === 'filter' ? at === 1 : ITERATING.has(fnName) && at === 0)) return undefined;
      return { node: call!, expr: a.src(call!), raises: fnName === 'len' ? "TypeError (object of type 'NoneType' has no len())" : "TypeError ('NoneType' object is not iterable)", error: 'TypeError' };
    }
    case 'subscript': {
      if (field(p, 'value') !== child) return undefined;
      return { node: p, expr: a.src(p), raises: "TypeError ('NoneType' object is not subscriptable)", error: 'TypeError' };
    }
    case 'attribute': {
      if (field(p, 'object') !== child) return undefined;
      const attr = a.src(field(p, 'attribute') ?? p);
      const call = p.parent?.type === 'call' && field(p.parent, 'function') === p ? p.parent : undefined;
      return { node: call ?? p, expr: a.src(call ?? p), raises: `AttributeError ('NoneType' object has no attribute '${attr}')`, error: 'AttributeError' };
    }
    default:
      return undefined;
  }
}

/** `name` is tested for None in `scope`: `if name`, `not name`, `name and …`, `assert name`,
 *  `name is None`, `isinstance(name, …)`, a conditional expression's test — each directly, not a use
 *  inside a larger expression (`x in name` tests the items, and raises on None itself). */
const noneTestedCache = new WeakMap<PyNode, Map<string, boolean>>();
function noneTested(a: PythonAnalysis, scope: PyNode, name: string): boolean {
  let byName = noneTestedCache.get(scope);
  if (!byName) noneTestedCache.set(scope, (byName = new Map()));
  const known = byName.get(name);
  if (known !== undefined) return known;
  const hit = noneTestedIn(a, scope, name);
  byName.set(name, hit);
  return hit;
}

function noneTestedIn(a: PythonAnalysis, scope: PyNode, name: string): boolean {
  let hit = false;
  walk(scope, (x) => {
    if (hit) return false;
    if (x.type !== 'identifier' || a.src(x) !== name) return undefined;
    let child: PyNode = x;
    let p = x.parent;
    while (p && (p.type === 'parenthesized_expression' || p.type === 'named_expression')) { child = p; p = p.parent; }
    if (!p) return undefined;
    if (p.type === 'if_statement' || p.type === 'elif_clause' || p.type === 'while_statement') { if (field(p, 'condition') === child) hit = true; }
    else if (p.type === 'assert_statement' || p.type === 'not_operator' || p.type === 'boolean_operator' || p.type === 'if_clause') hit = true;
    else if (p.type === 'conditional_expression') { if (named(p)[1] === child) hit = true; }
    else if (p.type === 'comparison_operator' && /\bNone\b/.test(a.src(p))) hit = true;
    else if (p.type === 'argument_list' && /^(?:isinstance|type|bool|callable|hasattr|getattr)$/.test(a.src(field(p.parent!, 'function') ?? p))) hit = true;
    return undefined;
  });
  return hit;
}

const PASSING = /^(?:1|1\.0*|True|100|100\.0*)$/;

/** `expect not in result`, `for row in result`, `len(result)`, `result[0]`, `result.get(k)` on a value
 *  that is None when the getter or helper that produced it failed, with no None test of the value and no
 *  handler of the error — or a handler that turns the error into a passing verdict. */
export function unguardedNoneUse(a: PythonAnalysis, value: PyNode, context: (agentOnly: boolean) => StateContext & NoneContext): NoneUse | undefined {
  if (value.type !== 'identifier' && value.type !== 'call') return undefined;
  const use = noneUseOf(a, value);
  if (!use) return undefined;
  // a None the getter returns from a handler of its own (the read failed) raises here, and an error out of
  // the verifier is the right outcome for that: it is reported only when a handler turns it into a pass
  const agentSrc = noneSource(a, value, context(true));
  const src = agentSrc ?? noneSource(a, value, context(false));
  if (!src) return undefined;
  const scope = a.functionAt(value)?.node ?? a.ast;
  if (src.name && noneTested(a, scope, src.name)) return undefined;
  const h = a.handlersAt(use.node).find((x) => x.types === null || x.types.some((t) => t === use.error || t === 'Exception' || t === 'BaseException'));
  const v = h && !h.reraises && h.returns ? a.src(h.returns).replace(/\s+/g, '') : undefined;
  if (h && v && PASSING.test(v)) {
    const head = a.src(h.handler).split('\n')[0]!.replace(/:\s*$/, '').trim();
    return { ...use, source: src.source, group: src.group, failed: !agentSrc, passes: { verdict: v, line: a.line(h.handler), handler: head } };
  }
  if (h || !agentSrc) return undefined;
  return { ...use, source: src.source, group: src.group, failed: false };
}
