/**
 * JavaScript/TypeScript form of the dropped-item shapes: a loop on a verdict path that skips an item whose
 * check throws (a `catch` that records nothing for it) or an item that is missing (`if (x == null) continue;`
 * before the counts), and after the loop a score divided by a counter the skipped items never reach
 * (`passed / checked`, `total / weightSum`, `results.length`), or `.every()` over the results the `try`
 * filled (true of nothing when every check threw). A denominator counted outside the skipping part of the
 * loop (`total++` before the `try` or at its top, before anything that can throw), a handler that records the
 * item, or a size test of the counter that fails the run (`if (checked < cases.length) return fail`,
 * `results.length === cases.length && results.every(...)`) is not a drop. A skipped item is missing only when the
 * test is of a value looked up for it or one the loop then counts, not of a blank line or a config flag.
 */
import type { AnyNode, BlockStatement, Expression, Identifier, Program, Statement } from 'acorn';
import type { RuleContext } from '../../src/contract/rule.js';
import type { Project } from '../../src/contract/project.js';
import { isJsFunction, jsScopes, programOf, propName } from '../../src/lang/js/index.js';
import type { JsBinding } from '../../src/lang/js/scope.js';
import { forEachChild, unwrapExpr } from '../../src/lang/js/nodes.js';
import { jsOnVerdictPath } from '../../src/suites/verdict.js';
import { NOT_RUN, NOT_RUN_FLAG, STATUS_KEY, type Msg } from './kinds.js';

type Loop = Extract<AnyNode, { type: 'ForOfStatement' | 'ForInStatement' | 'ForStatement' | 'WhileStatement' }>;

function walkOwn(n: AnyNode, f: (k: AnyNode) => void): void {
  forEachChild(n, (k) => {
    if (isJsFunction(k)) return;
    f(k);
    walkOwn(k, f);
  });
}

const oneLine = (c: RuleContext<Msg>, n: { start: number; end: number }, max = 50): string => {
  const t = c.text.slice(n.start, n.end).replace(/\s+/g, ' ');
  return t.length > max ? `${t.slice(0, max - 3)}...` : t;
};

/** A statement that only logs or reports (`console.warn(e)`, `log.error(...)`) or continues. */
function inert(st: Statement): boolean {
  if (st.type === 'ContinueStatement' || st.type === 'EmptyStatement') return !('label' in st && st.label);
  if (st.type !== 'ExpressionStatement') return false;
  const e = unwrapExpr(st.expression);
  return e.type === 'CallExpression' && e.callee.type === 'MemberExpression' && ['log', 'warn', 'error', 'info', 'debug', 'trace'].includes(propName(e.callee) ?? '');
}

/** `x == null`, `x === undefined`, `!x`, `!(k in m)`, `!m.has(k)`, `typeof x === 'undefined'`: the item is absent.
 *  `value` says whether the tested operand is a component the agent may not have produced (see `lookedUp`). */
function absenceTest(t: Expression, value: (x: AnyNode, nullTest: boolean) => boolean): boolean {
  const e = unwrapExpr(t);
  if (e.type === 'UnaryExpression' && e.operator === '!') {
    const a = unwrapExpr(e.argument);
    if ((a.type === 'BinaryExpression' && a.operator === 'in') || (a.type === 'CallExpression' && ['has', 'hasOwnProperty'].includes(propName(a.callee) ?? ''))) return true;
    return (a.type === 'Identifier' || a.type === 'MemberExpression') && value(a, false);
  }
  if (e.type === 'BinaryExpression' && ['==', '==='].includes(e.operator)) {
    const nil = (x: AnyNode) => (x.type === 'Literal' && x.value === null) || (x.type === 'Identifier' && x.name === 'undefined') || (x.type === 'Literal' && x.value === 'undefined');
    const other = nil(e.right) ? e.left : nil(e.left) ? e.right : undefined;
    if (!other) return false;
    const o = unwrapExpr(other);
    return value(o.type === 'UnaryExpression' && o.operator === 'typeof' ? o.argument : o, true);
  }
  if (e.type === 'LogicalExpression' && e.operator === '||') return absenceTest(e.left, value) || absenceTest(e.right, value);
  return false;
}

/** The tested operand is a value looked up for the item (`scores[k]`, `m.get(k)`, a local initialised from one),
 *  or, for an explicit `== null` test, any value; a bare `!x` of another local (the blank line of a split) or
 *  `!item.flag` (a switch of the task's own config) is not a missing output, unless that member is the value
 *  the loop then counts or compares (`if (!r.answer) continue; ... r.answer === gold`). */
function lookedUp(x0: AnyNode, nullTest: boolean, rest: Statement[], resolve: (n: AnyNode) => JsBinding | undefined, text: string): boolean {
  const x = unwrapExpr(x0);
  const lookup = (n: AnyNode): boolean => {
    const u = unwrapExpr(n);
    return (u.type === 'MemberExpression' && u.computed) || (u.type === 'CallExpression' && propName(u.callee) === 'get');
  };
  if (lookup(x)) return true;
  if (x.type === 'Identifier') {
    const init = resolve(x)?.init;
    return nullTest || (!!init && lookup(init));
  }
  if (x.type === 'MemberExpression') {
    if (nullTest) return true;
    const t = text.slice(x.start, x.end);
    let used = false;
    for (const st of rest) {
      walkOwn(st, (k) => {
        if (k.type === 'MemberExpression' && k.start !== x.start && text.slice(k.start, k.end) === t) used = true;
      });
    }
    return used;
  }
  return false;
}

interface Skip {
  kind: 'error' | 'missing';
  /** The handler or guard (for the message). */
  at: AnyNode;
  /** Where the counting happens only for items not skipped. */
  counted: AnyNode[];
  /** The handler's body (its own updates record the item). */
  handler?: BlockStatement;
}

/** A statement that may throw: a call, `await`, `new`, `throw`, a tagged template (member reads are taken as safe). */
function canThrow(st: AnyNode): boolean {
  let hit = st.type === 'ThrowStatement';
  walkOwn(st, (k) => {
    if (['CallExpression', 'AwaitExpression', 'NewExpression', 'ThrowStatement', 'TaggedTemplateExpression', 'YieldExpression'].includes(k.type)) hit = true;
  });
  return hit;
}

function skipsOf(body: Statement, absent: (t: Expression, rest: Statement[]) => boolean): Skip[] {
  const stmts = body.type === 'BlockStatement' ? body.body : [body];
  const out: Skip[] = [];
  stmts.forEach((st, i) => {
    if (st.type === 'TryStatement' && st.handler) {
      const h = st.handler.body.body;
      const ends = h.at(-1)?.type === 'ContinueStatement' || i === stmts.length - 1;
      // the statements before the first one that can throw run for every item (`checked++` at the top of the try)
      const first = st.block.body.findIndex(canThrow);
      const counted = first < 0 ? [] : st.block.body.slice(first);
      if (ends && h.every(inert) && !st.finalizer && counted.length) out.push({ kind: 'error', at: st.handler, counted, handler: st.handler.body });
    }
    if (st.type === 'IfStatement' && !st.alternate && absent(st.test, stmts.slice(i + 1))) {
      const c = st.consequent.type === 'BlockStatement' ? st.consequent.body : [st.consequent];
      if (c.at(-1)?.type === 'ContinueStatement' && c.every(inert)) out.push({ kind: 'missing', at: st.test, counted: stmts.slice(i + 1) });
    }
  });
  return out;
}

/** The binding a node counts into: `n++`, `n += w`, `n = n + w` (count), `rs.push(x)`, `rs[k] = x` (filled);
 *  any other assignment of a local (`n = 0`) resets it. */
function counterAt(k: AnyNode, resolve: (n: AnyNode) => JsBinding | undefined): [JsBinding, 'count' | 'filled' | 'reset'] | undefined {
  if (k.type === 'UpdateExpression') {
    const b = resolve(k.argument);
    return b && [b, k.operator === '++' ? 'count' : 'reset'];
  }
  if (k.type === 'AssignmentExpression') {
    const b = resolve(k.left);
    if (b) return [b, k.operator === '+=' || (k.operator === '=' && k.right.type === 'BinaryExpression' && k.right.operator === '+' && resolve(k.right.left) === b) ? 'count' : 'reset'];
    if (k.left.type === 'MemberExpression' && k.left.computed && k.operator === '=') {
      const o = resolve(k.left.object);
      return o && [o, 'filled'];
    }
  }
  if (k.type === 'CallExpression' && k.callee.type === 'MemberExpression' && ['push', 'unshift', 'add', 'set'].includes(propName(k.callee) ?? '')) {
    const o = resolve(k.callee.object);
    return o && [o, 'filled'];
  }
  return undefined;
}

export function jsDroppedItems(loop: Loop, c: RuleContext<Msg>, ancestors: readonly AnyNode[], project: Project): void {
  const program: Program | undefined = programOf(ancestors);
  const fn = [...ancestors].reverse().find(isJsFunction);
  if (!program || !fn || fn.body.type !== 'BlockStatement') return;
  const sc = jsScopes(program);
  const skips = skipsOf(loop.body, (t, rest) => absenceTest(t, (x, nullTest) => lookedUp(x, nullTest, rest, (n) => (n.type === 'Identifier' ? sc.resolve(n) : undefined), c.text)));
  if (!skips.length || !jsOnVerdictPath(project, c.unit.file.path, program, fn)) return;
  const resolve = (n: AnyNode): JsBinding | undefined => {
    const b = n.type === 'Identifier' ? sc.resolve(n) : undefined;
    // a local of the function declared before the loop
    return b && b.id.start >= fn.start && b.id.end <= loop.start ? b : undefined;
  };
  const items = loop.type === 'ForOfStatement' || loop.type === 'ForInStatement' ? loop.right : loop.type === 'ForStatement' ? (loop.test ?? loop) : loop.test;
  for (const s of skips) {
    // counted only where the skipped items never reach; a binding also updated elsewhere in the function
    // (before the `try`, by the handler, after the loop) counts every item
    const inside = (k: AnyNode) => s.counted.some((r) => k.start >= r.start && k.end <= r.end);
    const counted = new Map<JsBinding, 'count' | 'filled'>();
    const elsewhere = new Set<JsBinding>();
    walkOwn(fn.body, (k) => {
      const hit = counterAt(k, resolve);
      if (!hit) return;
      if (hit[1] !== 'reset' && inside(k)) counted.set(hit[0], hit[1]);
      else elsewhere.add(hit[0]);
    });
    for (const b of elsewhere) counted.delete(b);
    if (!counted.size) continue;
    const score = scoreAfter(fn.body, loop, counted, sc.resolve.bind(sc));
    if (!score || sizeGuarded(fn.body, loop, score.node, counted, sc.resolve.bind(sc))) continue;
    const data = { handler: oneLine(c, s.kind === 'error' ? { start: s.at.start, end: (s.handler ?? s.at).start } : s.at).trim(), guard: oneLine(c, s.at), items: oneLine(c, items, 30), score: oneLine(c, score.node) };
    const messageId: Msg = s.kind === 'missing' ? 'droppedMissing' : score.every ? 'jsDroppedFromEvery' : 'droppedItems';
    c.report({ messageId, data, at: s.at });
    return;
  }
}

const SIZE_CMP = new Set(['<', '<=', '>', '>=', '==', '===', '!=', '!==']);
const exits = (st: AnyNode): boolean => st.type === 'ReturnStatement' || st.type === 'ThrowStatement' || (st.type === 'BlockStatement' && !!st.body.length && exits(st.body.at(-1)!));

/** The counter is compared with a size (`checked < cases.length`, `results.length === cases.length`) in the test
 *  of an early exit between the loop and the score, or beside the score in the same `a && b` or `c ? a : b`:
 *  an item that was skipped makes the sizes differ and the run fail. */
function sizeGuarded(body: AnyNode, loop: Loop, score: AnyNode, counted: Map<JsBinding, 'count' | 'filled'>, resolve: (n: never) => JsBinding | undefined): boolean {
  const of = (n: AnyNode): JsBinding | undefined => (n.type === 'Identifier' ? resolve(n as never) : undefined);
  const counter = (n0: AnyNode): boolean => {
    const n = unwrapExpr(n0);
    if (n.type === 'Identifier') return counted.get(of(n)!) === 'count';
    return n.type === 'MemberExpression' && ['length', 'size'].includes(propName(n) ?? '') && counted.get(of(unwrapExpr(n.object))!) === 'filled';
  };
  const size = (n0: AnyNode): boolean => {
    const n = unwrapExpr(n0);
    return n.type === 'MemberExpression' && ['length', 'size'].includes(propName(n) ?? '') && !counter(n);
  };
  const compares = (t: AnyNode): boolean => {
    let hit = false;
    walkOwn({ type: 'ExpressionStatement', expression: t } as unknown as AnyNode, (k) => {
      if (k.type === 'BinaryExpression' && SIZE_CMP.has(k.operator) && ((counter(k.left) && size(k.right)) || (counter(k.right) && size(k.left)))) hit = true;
    });
    return hit;
  };
  let guarded = false;
  const holds = (n: AnyNode) => score.start >= n.start && score.end <= n.end;
  walkOwn(body, (k) => {
    if (guarded || k.start < loop.end) return;
    if (k.type === 'IfStatement' && k.end <= score.start && exits(k.consequent) && compares(k.test)) guarded = true;
    if (k.type === 'LogicalExpression' && k.operator === '&&' && holds(k) && (compares(k.left) || compares(k.right))) guarded = true;
    if (k.type === 'ConditionalExpression' && holds(k.consequent) && compares(k.test)) guarded = true;
  });
  return guarded;
}

/** After the loop: `x / n` (or `x / (n || 1)`, `Math.max(n, 1)`) with a counted `n` or a filled `rs.length`;
 *  `rs.every(…)`, `Object.values(rs).every(…)` over a filled `rs`. */
function scoreAfter(body: AnyNode, loop: Loop, counted: Map<JsBinding, 'count' | 'filled'>, resolve: (n: never) => JsBinding | undefined): { node: AnyNode; every: boolean } | undefined {
  const of = (n: AnyNode): JsBinding | undefined => (n.type === 'Identifier' ? resolve(n as never) : undefined);
  const denominator = (d0: AnyNode): boolean => {
    const d = unwrapExpr(d0);
    if (d.type === 'LogicalExpression') return denominator(d.left);
    if (d.type === 'CallExpression' && propName(d.callee) === 'max') return d.arguments.some((x) => denominator(x));
    if (d.type === 'Identifier') return counted.get(of(d)!) === 'count';
    if (d.type === 'MemberExpression' && propName(d) === 'length') return counted.get(of(d.object)!) === 'filled';
    return false;
  };
  let hit: { node: AnyNode; every: boolean } | undefined;
  walkOwn(body, (k) => {
    if (hit || k.start < loop.end) return;
    if (k.type === 'BinaryExpression' && k.operator === '/' && denominator(k.right)) hit = { node: k, every: false };
    if (k.type === 'CallExpression' && k.callee.type === 'MemberExpression' && propName(k.callee) === 'every') {
      let o = unwrapExpr(k.callee.object);
      if (o.type === 'CallExpression' && o.callee.type === 'MemberExpression' && o.callee.object.type === 'Identifier' && o.callee.object.name === 'Object' && propName(o.callee) === 'values') o = o.arguments[0] as AnyNode;
      if (o && counted.get(of(o)!) === 'filled') hit = { node: k, every: true };
    }
  });
  return hit;
}


/** The callback keeps only items that ran: `(r) => !r.error`, `(r) => r.status !== 'skipped'`,
 *  `(r) => !['error', 'skipped'].includes(r.status)`, `(r) => r.error == null`. */
function excludesNotRun(cb: AnyNode | undefined): boolean {
  if (!cb || (cb.type !== 'ArrowFunctionExpression' && cb.type !== 'FunctionExpression')) return false;
  let body: AnyNode | undefined = cb.body;
  if (body.type === 'BlockStatement') {
    const r = body.body.length === 1 ? body.body[0] : undefined;
    body = r?.type === 'ReturnStatement' && r.argument ? r.argument : undefined;
  }
  if (!body) return false;
  const word = (n: AnyNode): boolean => {
    const x = unwrapExpr(n);
    if (x.type === 'Literal' && typeof x.value === 'string') return NOT_RUN.test(x.value);
    if (x.type === 'MemberExpression') return NOT_RUN.test(propName(x) ?? '');
    return false;
  };
  const flag = (n: AnyNode): boolean => {
    const x = unwrapExpr(n);
    return x.type === 'MemberExpression' && NOT_RUN_FLAG.test(propName(x) ?? '');
  };
  const key = (n: AnyNode): boolean => {
    const x = unwrapExpr(n);
    return (x.type === 'MemberExpression' && STATUS_KEY.test(propName(x) ?? '')) || (x.type === 'Identifier' && STATUS_KEY.test(x.name));
  };
  const atom = (n0: AnyNode): boolean => {
    const n = unwrapExpr(n0);
    if (n.type === 'UnaryExpression' && n.operator === '!') {
      const a = unwrapExpr(n.argument);
      if (a.type === 'MemberExpression') return flag(a);
      if (a.type === 'CallExpression' && propName(a.callee) === 'includes' && a.callee.type === 'MemberExpression' && a.callee.object.type === 'ArrayExpression') return !!a.arguments[0] && key(a.arguments[0] as AnyNode) && a.callee.object.elements.some((e) => !!e && word(e));
      return false;
    }
    if (n.type === 'BinaryExpression' && (n.operator === '!==' || n.operator === '!=')) {
      const nil = (x: AnyNode) => (x.type === 'Literal' && x.value === null) || (x.type === 'Identifier' && x.name === 'undefined');
      if (nil(n.right) || nil(n.left)) return false;
      return (word(n.right) && key(n.left)) || (word(n.left) && key(n.right));
    }
    if (n.type === 'BinaryExpression' && (n.operator === '===' || n.operator === '==')) {
      const nil = (x: AnyNode) => (x.type === 'Literal' && x.value === null) || (x.type === 'Identifier' && x.name === 'undefined');
      return (nil(n.right) && flag(n.left)) || (nil(n.left) && flag(n.right));
    }
    if (n.type === 'LogicalExpression' && n.operator === '&&') return atom(n.left) || atom(n.right);
    return false;
  };
  return atom(body);
}

/** An early exit before the score when any item did not run (`if (errored.length) return fail` with
 *  `errored = results.filter((r) => r.error)`, `if (results.some((r) => r.error)) return fail`): by the
 *  time the filter runs it removes nothing. */
function failsOnNotRunFirst(fn: AnyNode, score: AnyNode, items: string, text: string, program: Program): boolean {
  const sc = jsScopes(program);
  const notRunWord = (cb: AnyNode | undefined): boolean => {
    if (!cb || (cb.type !== 'ArrowFunctionExpression' && cb.type !== 'FunctionExpression')) return false;
    let hit = false;
    walkOwn({ type: 'ExpressionStatement', expression: cb.body } as unknown as AnyNode, (k) => {
      if (k.type === 'MemberExpression' && NOT_RUN.test(propName(k) ?? '')) hit = true;
      if (k.type === 'Literal' && typeof k.value === 'string' && NOT_RUN.test(k.value)) hit = true;
    });
    return hit;
  };
  const selects = (n0: AnyNode, depth = 0): boolean => {
    const n = unwrapExpr(n0);
    if (n.type === 'Identifier' && depth < 2) {
      const init = sc.resolve(n)?.init;
      return !!init && selects(init, depth + 1);
    }
    if (n.type === 'MemberExpression' && propName(n) === 'length') return selects(n.object, depth);
    return n.type === 'CallExpression' && n.callee.type === 'MemberExpression' && ['some', 'find', 'filter', 'findIndex'].includes(propName(n.callee) ?? '') && text.slice(n.callee.object.start, n.callee.object.end) === items && notRunWord(n.arguments[0]);
  };
  let hit = false;
  walkOwn(fn, (k) => {
    if (hit || k.type !== 'IfStatement' || k.end > score.start || !exits(k.consequent)) return;
    walkOwn({ type: 'ExpressionStatement', expression: k.test } as unknown as AnyNode, (t) => {
      if ((t.type === 'Identifier' || t.type === 'CallExpression' || t.type === 'MemberExpression') && selects(t)) hit = true;
    });
  });
  return hit;
}

/** The initializer of a `const` bound to a `.filter(…)` call that nothing adds to (`push`, `unshift`, `splice`). */
function keptOnly(program: Program, fn: AnyNode, id: Identifier): AnyNode | undefined {
  const sc = jsScopes(program);
  const b = sc.resolve(id);
  if (b?.kind !== 'const' || !b.init) return undefined;
  let added = false;
  walkOwn(fn, (k) => {
    if (k.type !== 'CallExpression' || k.callee.type !== 'MemberExpression' || k.callee.object.type !== 'Identifier') return;
    if (['push', 'unshift', 'splice'].includes(propName(k.callee) ?? '') && sc.resolve(k.callee.object) === b) added = true;
  });
  return added ? undefined : unwrapExpr(b.init);
}

/** `passed / results.filter((r) => !r.error).length`: items that errored or were skipped leave the denominator. */
export function jsFilteredDenominator(node: AnyNode, c: RuleContext<Msg>, ancestors: readonly AnyNode[], project: Project): void {
  if (node.type !== 'BinaryExpression' || node.operator !== '/') return;
  const d = unwrapExpr(node.right);
  const program = programOf(ancestors);
  const fn = [...ancestors].reverse().find(isJsFunction);
  if (!program || !fn) return;
  let call = d.type === 'MemberExpression' && propName(d) === 'length' ? unwrapExpr(d.object) : undefined;
  // `const ran = results.filter(…); … passed / ran.length`, when nothing is pushed onto `ran` afterwards
  if (call?.type === 'Identifier') call = keptOnly(program, fn, call);
  if (call?.type !== 'CallExpression' || call.callee.type !== 'MemberExpression' || propName(call.callee) !== 'filter' || !excludesNotRun(call.arguments[0])) return;
  if (!jsOnVerdictPath(project, c.unit.file.path, program, fn)) return;
  if (failsOnNotRunFirst(fn, node, c.text.slice(call.callee.object.start, call.callee.object.end), c.text, program)) return;
  const named = d.type === 'MemberExpression' && unwrapExpr(d.object).type === 'Identifier';
  c.report({ messageId: 'droppedFiltered', data: { filter: oneLine(c, call), items: oneLine(c, call.callee.object, 30), score: oneLine(c, node) }, at: named ? d : call });
}
