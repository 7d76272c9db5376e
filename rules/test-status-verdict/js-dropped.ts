/**
 * JavaScript/TypeScript `dropped` forms of test-status-verdict: a test whose status is neither a pass nor a
 * counted failure (skipped, pending, todo, errored) leaves the count instead of failing the run.
 *
 * - sorting with no catch-all: `if (s === 'passed') passed++; else if (s === 'failed') failed++;` (or a
 *   `switch` on the status with no `default`), when the verdict reads the failures only (`failed === 0`,
 *   `!failed.length`) or divides by their sum (`passed / (passed + failed)`), and never compares the passes
 *   with another size (`passed === required.length`);
 * - a filter before the verdict: `results.filter((r) => r.status !== 'skipped').every((r) => r.status ===
 *   'passed')` (the filtered list through a `const` as well), unless its size is compared with another
 *   (`ran.length === results.length`) or an early exit fails the run on that status first;
 * - a subtracted denominator: `passed / (total - skipped)` where the subtrahend counts a non-pass status
 *   (`numPendingTests`, `stats.pending`, `results.filter((r) => r.status === 'skipped').length`, a counter
 *   an `if` on that status increments).
 */
import type { AnyNode, Expression, IfStatement, Program, SwitchStatement } from 'acorn';
import type { RuleContext } from '../../src/contract/rule.js';
import { jsScopes, propName, type JsFunction } from '../../src/lang/js/index.js';
import { forEachChild, parentMap, unwrapExpr } from '../../src/lang/js/nodes.js';
import { statusWord, words, type Msg, type Status } from './status.js';

export interface DroppedDeps {
  /** A status test of a node: subject, polarity, statuses. */
  statusTest: (n: AnyNode) => { subject: AnyNode; positive: boolean; statuses: Status[] } | undefined;
  status: (n: AnyNode) => Status | undefined;
  /** Does `n` being true pass the agent in `fn`? */
  polarity: (n: AnyNode, fn: JsFunction) => boolean | undefined;
  /** The verdict keys of a returned object (`success`, `score`, `_success`, …), lower case. */
  verdictKeys: ReadonlySet<string>;
}

/** Status words only a test run uses (a payment or an order is `success`/`failed`/`pending` too). */
const TEST_WORDS = new Set(['passed', 'pass', 'skipped', 'skip', 'xfail', 'xfailed', 'xpass', 'xpassed', 'todo', 'deselected', 'notrun', 'not_run']);
/** Words of a test report in the grading function's code (`tests`, `numPendingTests`, `assertionResults`, `jest`). */
const TEST_TEXT = /(?:^|[^a-zA-Z])tests?(?![a-z])|Tests?(?![a-z])|(?:^|[^a-zA-Z])specs?(?![a-z])|assertion|junit|jest|vitest|mocha|playwright|pytest|testcase|suite/;

/** The statuses are a test run's: a word only tests have, or test-report words in the function. */
function testContext(c: RuleContext<Msg>, fn: JsFunction, statuses: readonly Status[]): boolean {
  return statuses.some((s) => TEST_WORDS.has(s.word.toLowerCase())) || TEST_TEXT.test(c.text.slice(fn.start, fn.end));
}

const oneLine = (c: RuleContext<Msg>, n: AnyNode, max = 60): string => {
  const t = c.text.slice(n.start, n.end).replace(/\s+/g, ' ');
  return t.length > max ? `${t.slice(0, max - 3)}...` : t;
};
const flat = (c: RuleContext<Msg>, n: AnyNode): string => c.text.slice(n.start, n.end).replace(/\s+/g, '');

function walk(n: AnyNode, f: (k: AnyNode) => void): void {
  f(n);
  forEachChild(n, (k) => walk(k, f));
}

const exits = (st: AnyNode): boolean => st.type === 'ReturnStatement' || st.type === 'ThrowStatement' || (st.type === 'BlockStatement' && !!st.body.length && exits(st.body.at(-1)!));

/** A statement (or block) that only logs: `console.warn(…)`, `log.info(…)`. */
function onlyLogs(st: AnyNode): boolean {
  if (st.type === 'BlockStatement') return st.body.length > 0 && st.body.every(onlyLogs);
  if (st.type !== 'ExpressionStatement') return false;
  const e = unwrapExpr(st.expression);
  return e.type === 'CallExpression' && e.callee.type === 'MemberExpression' && ['log', 'warn', 'info', 'debug', 'error', 'trace'].includes(propName(e.callee) ?? '');
}

/** What a branch counts into: `passed.push(t)`, `passed.add(t)`, `passed++`, `passed += 1`, `stats.passed++` (its text). */
function countTarget(c: RuleContext<Msg>, body: AnyNode): string | undefined {
  const stmts = body.type === 'BlockStatement' ? body.body : [body];
  let target: string | undefined;
  for (const s of stmts) {
    if (s.type === 'BreakStatement' || s.type === 'EmptyStatement') continue;
    if (s.type !== 'ExpressionStatement') return undefined;
    const e = unwrapExpr(s.expression);
    let t: AnyNode | undefined;
    if (e.type === 'UpdateExpression' && e.operator === '++') t = e.argument;
    else if (e.type === 'AssignmentExpression' && e.operator === '+=' && e.right.type === 'Literal' && e.right.value === 1) t = e.left;
    else if (e.type === 'CallExpression' && e.callee.type === 'MemberExpression' && ['push', 'add'].includes(propName(e.callee) ?? '')) t = e.callee.object;
    else if (e.type === 'CallExpression' && e.callee.type === 'MemberExpression' && ['log', 'warn', 'info', 'debug', 'error'].includes(propName(e.callee) ?? '')) continue;
    if (!t) return undefined;
    const u = unwrapExpr(t);
    if (u.type !== 'Identifier' && !(u.type === 'MemberExpression' && !u.computed)) return undefined;
    const x = flat(c, u);
    if (target && target !== x) return undefined;
    target = x;
  }
  return target;
}

/** The statuses a branch condition takes; undefined when it holds a negative status test or none. With
 *  `subjects`, the text of each tested value is collected (the branches of one sort test one value). */
function takes(cond: AnyNode, d: DroppedDeps, subjects?: Set<string>, text?: string): Status[] | undefined {
  const out: Status[] = [];
  let neg = false;
  let tests = 0;
  const rec = (n0: AnyNode): void => {
    const n = unwrapExpr(n0);
    const t = d.statusTest(n);
    if (t) {
      tests++;
      if (!t.positive) neg = true;
      else out.push(...t.statuses);
      if (subjects && text !== undefined) subjects.add(text.slice(t.subject.start, t.subject.end).replace(/\s+/g, ''));
      return;
    }
    if (n.type === 'LogicalExpression' && n.operator !== '??') {
      rec(n.left);
      rec(n.right);
      return;
    }
    if (n.type === 'UnaryExpression' && n.operator === '!') neg = true;
  };
  rec(cond);
  return tests && !neg ? out : undefined;
}

/** Is the count `x` (or `x.length`, `x.size`) this node? */
function isCount(c: RuleContext<Msg>, n0: AnyNode, x: string): boolean {
  const n = unwrapExpr(n0);
  if (flat(c, n) === x) return true;
  return n.type === 'MemberExpression' && ['length', 'size'].includes(propName(n) ?? '') && flat(c, unwrapExpr(n.object)) === x;
}

const zero = (n0: AnyNode): boolean => {
  const n = unwrapExpr(n0);
  return n.type === 'Literal' && n.value === 0;
};

/** How the verdict lets the dropped status through: the failures alone decide (`failed === 0`), or the
 *  denominator is the sum of the two counts; undefined when the passes are compared with another size. */
function dropUse(c: RuleContext<Msg>, fn: JsFunction, pass: string, fail: string): AnyNode | undefined {
  let use: AnyNode | undefined;
  let sized = false;
  const mentions = (n: AnyNode, x: string): boolean => {
    let hit = false;
    walk(n, (k) => {
      if (!hit && (k.type === 'Identifier' || k.type === 'MemberExpression') && flat(c, k) === x) hit = true;
    });
    return hit;
  };
  walk(fn.body, (k) => {
    if (k.type === 'BinaryExpression') {
      if (k.operator === '/' && mentions(k.right, pass) && mentions(k.right, fail)) use ??= k;
      if (k.operator === '/' && isCount(c, k.left, pass) && !mentions(k.right, fail) && !mentions(k.right, pass)) sized = true;
      if (['===', '==', '!==', '!=', '<', '<=', '>', '>='].includes(k.operator)) {
        const sides: [AnyNode, AnyNode][] = [[k.left, k.right], [k.right, k.left]];
        for (const [a, b] of sides) {
          if (isCount(c, a, fail) && zero(b)) use ??= k;
          if (isCount(c, a, pass) && !zero(b) && unwrapExpr(b).type !== 'Literal' && !mentions(b, fail)) sized = true;
          // `passed + failed === results.length`: every test was sorted one way or the other
          if (mentions(a, pass) && mentions(a, fail) && unwrapExpr(b).type !== 'Literal' && !mentions(b, pass) && !mentions(b, fail)) sized = true;
        }
      }
    }
    if (k.type === 'UnaryExpression' && k.operator === '!' && isCount(c, k.argument, fail)) use ??= k;
  });
  return sized ? undefined : use;
}

/** `if (pass) a++; else if (fail) b++;` with no `else`, and `switch (status)` with no `default`. */
export function jsDroppedBranches(node: IfStatement | SwitchStatement, c: RuleContext<Msg>, fn: JsFunction, d: DroppedDeps): void {
  const branches: { statuses: Status[]; target: string }[] = [];
  // skip statuses a `case` names only to log them
  const logged: Status[] = [];
  let at: AnyNode = node;
  let logs = false;
  if (node.type === 'IfStatement') {
    let cur: AnyNode | null | undefined = node;
    const subjects = new Set<string>();
    while (cur?.type === 'IfStatement') {
      const ss = takes(cur.test, d, subjects, c.text);
      const target = countTarget(c, cur.consequent);
      if (!ss || !target) return;
      branches.push({ statuses: ss, target });
      cur = cur.alternate;
    }
    // one value sorted (`r.status`), not two values tested one after the other; an `else` that only logs
    // (`else console.warn('unknown status', s)`) counts nothing either
    if (cur) {
      if (!onlyLogs(cur)) return;
      logs = true;
    }
    if (subjects.size !== 1) return;
    at = node.test;
  } else {
    const def = node.cases.find((k) => !k.test);
    // a `default` that only logs and leaves (an empty one falls through to the next case's count)
    if (def && (!def.consequent.some(onlyLogs) || !def.consequent.every((st) => st.type === 'BreakStatement' || onlyLogs(st)) || (def !== node.cases.at(-1) && def.consequent.at(-1)?.type !== 'BreakStatement'))) return;
    if (def) logs = true;
    let pending: Status[] = [];
    for (const k of node.cases) {
      if (!k.test) continue;
      const s = d.status(k.test);
      if (!s) return;
      pending.push(s);
      if (!k.consequent.length) continue;
      // `case 'skipped': console.log(…); break;`: the skip statuses are named and only logged
      if (k.consequent.some(onlyLogs) && k.consequent.every((st) => st.type === 'BreakStatement' || onlyLogs(st)) && (k.consequent.at(-1)!.type === 'BreakStatement' || k === node.cases.at(-1))) {
        if (!pending.every((x) => x.kind === 'skip' && !/^x/i.test(x.word))) return;
        logged.push(...pending);
        pending = [];
        continue;
      }
      const target = countTarget(c, { type: 'BlockStatement', body: k.consequent, start: k.start, end: k.end } as AnyNode);
      const last = k.consequent.at(-1)!;
      if (!target || (last.type !== 'BreakStatement' && k !== node.cases.at(-1))) return;
      branches.push({ statuses: pending, target });
      pending = [];
    }
    if (pending.length) return;
    at = node.discriminant;
  }
  const targets = new Set(branches.map((b) => b.target));
  if (targets.size !== 2) return;
  const all = branches.flatMap((b) => b.statuses);
  // a skip status taken by some branch (XFAIL is a test that ran and failed as expected)
  if (all.some((s) => s.kind === 'skip' && !/^x/i.test(s.word))) return;
  const passT = branches.filter((b) => b.statuses.every((s) => s.kind === 'pass'));
  const failT = branches.filter((b) => b.statuses.every((s) => s.kind === 'fail'));
  if (!passT.length || !failT.length || new Set(passT.map((b) => b.target)).size !== 1 || new Set(failT.map((b) => b.target)).size !== 1) return;
  const pass = passT[0]!.target;
  const fail = failT[0]!.target;
  if (pass === fail || !testContext(c, fn, all)) return;
  const use = dropUse(c, fn, pass, fail);
  if (!use) return;
  const missing = logged.length ? [words(logged)] : ['skipped'];
  if (!all.some((s) => /^error/i.test(s.word))) missing.push('errored');
  c.report({
    messageId: 'jsDropped',
    data: { test: node.type === 'SwitchStatement' ? `switch (${oneLine(c, node.discriminant, 40)})` : oneLine(c, at), missing: missing.join(', '), how: `the ${node.type === 'IfStatement' ? '`if`/`else if`' : '`switch`'} ${logged.length ? `only logs the ${words(logged)} tests${logs ? ' and any other status' : ''}` : logs ? 'only logs any other status' : 'has no catch-all branch'}, and \`${oneLine(c, use, 40)}\` reads only ${pass} and ${fail}` },
    at,
  });
}

/** The callback keeps only tests whose status is not a pass status it names (`(r) => r.status !== 'skipped'`,
 *  `(t) => !['pending', 'todo'].includes(t.status)`, a conjunction of such): the statuses it drops. */
function excluded(cb0: AnyNode | undefined, d: DroppedDeps, program?: Program): Status[] | undefined {
  let cb = cb0 && unwrapExpr(cb0);
  // a named predicate: `const wasRun = (t) => t.status !== 'skipped'`, `function wasRun(t) { … }`
  if (cb?.type === 'Identifier' && program) {
    const b = jsScopes(program).resolve(cb);
    cb = b?.kind === 'const' && b.init ? unwrapExpr(b.init) : b?.kind === 'function' && b.decl.type === 'FunctionDeclaration' ? b.decl : undefined;
  }
  if (!cb || (cb.type !== 'ArrowFunctionExpression' && cb.type !== 'FunctionExpression' && cb.type !== 'FunctionDeclaration')) return undefined;
  let body: AnyNode | undefined = cb.body;
  if (body.type === 'BlockStatement') {
    const r = body.body.length === 1 ? body.body[0] : undefined;
    body = r?.type === 'ReturnStatement' && r.argument ? r.argument : undefined;
  }
  if (!body) return undefined;
  const out: Status[] = [];
  const rec = (n0: AnyNode): boolean => {
    const n = unwrapExpr(n0);
    if (n.type === 'LogicalExpression' && n.operator === '&&') return rec(n.left) && rec(n.right);
    const t = d.statusTest(n);
    if (!t || t.positive) return false;
    out.push(...t.statuses);
    return true;
  };
  return rec(body) && out.length && out.every((s) => s.kind !== 'pass') ? out : undefined;
}

/** `X.filter(cb)` excluding statuses, directly or through a `const`. */
function filteredOut(recv0: AnyNode, program: Program, d: DroppedDeps): { call: AnyNode; statuses: Status[]; local?: string } | undefined {
  let recv = unwrapExpr(recv0);
  let local: string | undefined;
  if (recv.type === 'Identifier') {
    const b = jsScopes(program).resolve(recv);
    if (b?.kind !== 'const' || !b.init) return undefined;
    local = recv.name;
    recv = unwrapExpr(b.init);
  }
  if (recv.type !== 'CallExpression' || recv.callee.type !== 'MemberExpression' || propName(recv.callee) !== 'filter') return undefined;
  const st = excluded(recv.arguments[0], d, program);
  return st ? { call: recv, statuses: st, local } : undefined;
}

/** `.every(pass)` over a list that a filter emptied of the statuses that should fail it. */
export function jsDroppedByFilter(call: AnyNode, recv: AnyNode, c: RuleContext<Msg>, fn: JsFunction, program: Program, d: DroppedDeps): boolean {
  const f = filteredOut(recv, program, d);
  if (!f || !testContext(c, fn, f.statuses)) return false;
  // the filtered size compared with another (`ran.length === results.length`), or an early exit on the status first
  let guarded = false;
  const list = f.local;
  const word = new Set(f.statuses.map((s) => s.word.toLowerCase()));
  walk(fn.body, (k) => {
    if (guarded) return;
    if (list && k.type === 'BinaryExpression' && ['===', '==', '!==', '!=', '<', '>', '<=', '>='].includes(k.operator)) {
      const sides: [AnyNode, AnyNode][] = [[k.left, k.right], [k.right, k.left]];
      for (const [a, b] of sides) if (isCount(c, a, list) && !zero(b) && unwrapExpr(b).type !== 'Literal') guarded = true;
    }
    if (k.type === 'IfStatement' && exits(k.consequent))
      walk(k.test, (x) => {
        const t = d.statusTest(x);
        if (t?.positive && t.statuses.some((s) => word.has(s.word.toLowerCase()))) guarded = true;
      });
  });
  if (guarded || d.polarity(call, fn) !== true) return false;
  c.report({
    messageId: 'jsDropped',
    data: { test: oneLine(c, call), missing: words(f.statuses), how: `\`${oneLine(c, f.call, 50)}\` removes them before the check` },
    at: call,
  });
  return true;
}

const SPLIT = /[A-Z]?[a-z]+|[A-Z]+(?![a-z])/g;

/** A count of a non-pass status: `stats.pending`, `numPendingTests`, `skipped` counted by an `if` on that status,
 *  `results.filter((r) => r.status === 'skipped').length`, `a + b` of such. */
function statusCount(n0: AnyNode, fn: JsFunction, program: Program, d: DroppedDeps, depth = 0): Status[] | undefined {
  const n = unwrapExpr(n0);
  if (depth > 3) return undefined;
  if (n.type === 'BinaryExpression' && n.operator === '+') {
    const a = statusCount(n.left, fn, program, d, depth + 1);
    const b = statusCount(n.right, fn, program, d, depth + 1);
    return a && b ? [...a, ...b] : undefined;
  }
  if (n.type === 'MemberExpression' && propName(n) === 'length') {
    const o = unwrapExpr(n.object);
    if (o.type === 'CallExpression' && o.callee.type === 'MemberExpression' && propName(o.callee) === 'filter') {
      const cb = o.arguments[0];
      if (cb && (cb.type === 'ArrowFunctionExpression' || cb.type === 'FunctionExpression') && cb.body.type !== 'BlockStatement') {
        const t = d.statusTest(cb.body);
        if (t?.positive && t.statuses.every((s) => s.kind !== 'pass')) return t.statuses;
      }
      return undefined;
    }
    return o.type === 'Identifier' ? statusCount(o, fn, program, d, depth + 1) : undefined;
  }
  const name = n.type === 'Identifier' ? n.name : n.type === 'MemberExpression' ? propName(n) : undefined;
  if (!name) return undefined;
  const parts = (name.match(SPLIT) ?? []).map((p) => p.toLowerCase());
  const named = parts.map((p) => statusWord(p) ?? statusWord(p.replace(/s$/, ''))).filter((s): s is Status => !!s);
  // a name says only a skip (`stats.pending`, `numPendingTests`, `skipped`): `errors` may count failed requests
  if (named.length === 1 && named[0]!.kind === 'skip') return named;
  if (n.type !== 'Identifier') return undefined;
  // a local: a const initialised from a count, or a counter an `if` on a status increments
  const b = jsScopes(program).resolve(n);
  if (!b) return undefined;
  if (b.init && b.kind === 'const') return statusCount(b.init, fn, program, d, depth + 1);
  let found: Status[] | undefined;
  walk(fn.body, (k) => {
    if (found || k.type !== 'IfStatement') return;
    const body = k.consequent.type === 'BlockStatement' ? k.consequent.body : [k.consequent];
    const bumps = body.some((s) => s.type === 'ExpressionStatement' && ((s.expression.type === 'UpdateExpression' && unwrapExpr(s.expression.argument).type === 'Identifier' && (unwrapExpr(s.expression.argument) as { name: string }).name === n.name) || (s.expression.type === 'AssignmentExpression' && s.expression.operator === '+=' && s.expression.left.type === 'Identifier' && s.expression.left.name === n.name)));
    if (!bumps) return;
    const ss = takes(k.test, d);
    if (ss?.length && ss.every((s) => s.kind !== 'pass')) found = ss;
  });
  return found;
}

/** Does the value of `n` reach the verdict: returned (as is, in arithmetic, in a returned object), compared
 *  (`ratio === 1`), or held by a local read that way? A share shown in a message or a log line does not. */
function reachesVerdict(n: AnyNode, fn: JsFunction, program: Program, parents: ReadonlyMap<AnyNode, AnyNode>, keys: ReadonlySet<string>, depth = 0): boolean {
  let cur: AnyNode = n;
  for (let p = parents.get(cur); p && p !== fn; cur = p, p = parents.get(p)) {
    switch (p.type) {
      case 'ParenthesizedExpression':
      case 'ConditionalExpression':
      case 'LogicalExpression':
      case 'ArrayExpression':
        continue;
      case 'ObjectExpression':
        // only under a verdict key (checked at the Property)
        continue;
      case 'Property': {
        if (p.value !== cur || p.computed) return false;
        const key = p.key.type === 'Identifier' ? p.key.name : p.key.type === 'Literal' ? String(p.key.value) : '';
        if (!keys.has(key.toLowerCase())) return false;
        continue;
      }
      case 'UnaryExpression':
        if (p.operator === '!') continue;
        return false;
      case 'BinaryExpression':
        if (['===', '==', '!==', '!=', '<', '<=', '>', '>=', '+', '-', '*', '/'].includes(p.operator)) continue;
        return false;
      case 'IfStatement':
        // `if (ratio < 1) return false`
        return p.test === cur && exits(p.consequent) && (p.consequent.type === 'ReturnStatement' || (p.consequent.type === 'BlockStatement' && p.consequent.body.at(-1)?.type === 'ReturnStatement'));
      case 'CallExpression':
        // Math.round(x), Number(x.toFixed(2))
        if (p.callee.type === 'MemberExpression' && p.callee.object.type === 'Identifier' && p.callee.object.name === 'Math') continue;
        return false;
      case 'ReturnStatement':
        return true;
      case 'ArrowFunctionExpression':
        return p.body === cur && p === fn;
      case 'VariableDeclarator': {
        if (p.init !== cur || p.id.type !== 'Identifier' || depth > 2) return false;
        const sc = jsScopes(program);
        const b = sc.resolve(p.id);
        return sc.references.some((r) => r.binding === b && !r.write && r.id !== p.id && reachesVerdict(r.id, fn, program, parents, keys, depth + 1));
      }
      default:
        return false;
    }
  }
  return false;
}

/** `passed / (total - skipped)`: the tests of a status that should fail the run leave the denominator. */
export function jsDroppedDenominator(node: AnyNode, c: RuleContext<Msg>, fn: JsFunction, program: Program, d: DroppedDeps): void {
  if (node.type !== 'BinaryExpression' || node.operator !== '/') return;
  if (!reachesVerdict(node, fn, program, parentMap(program), d.verdictKeys)) return;
  let den = unwrapExpr(node.right);
  if (den.type === 'LogicalExpression') den = unwrapExpr(den.left);
  if (den.type === 'CallExpression' && propName(den.callee) === 'max' && den.arguments.length === 2) {
    const [a, b] = den.arguments as Expression[];
    den = unwrapExpr(a && a.type === 'Literal' ? b! : a!);
  }
  // `const ran = stats.tests - stats.pending; … stats.passes / ran`
  if (den.type === 'Identifier') {
    const b = jsScopes(program).resolve(den);
    if (b?.kind === 'const' && b.init) den = unwrapExpr(b.init);
  }
  if (den.type !== 'BinaryExpression' || den.operator !== '-') return;
  const ss = statusCount(den.right, fn, program, d);
  if (!ss?.length || !testContext(c, fn, ss)) return;
  c.report({
    messageId: 'jsDropped',
    data: { test: oneLine(c, node), missing: words(ss), how: `\`${oneLine(c, den.right, 40)}\` is subtracted from the denominator` },
    at: node,
  });
}

