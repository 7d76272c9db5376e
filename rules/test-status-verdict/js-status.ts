/**
 * JavaScript/TypeScript form of test-status-verdict: graders that read a test report (jest/vitest/mocha
 * JSON, Playwright results, JUnit parsed to objects, CI check runs) and decide on the status words.
 *
 * - `skipAsPass`: `['passed', 'skipped'].includes(s)`, `s === 'passed' || s === 'pending'`;
 * - `absentAsPass`: `(m[t] ?? 'passed') === 'passed'`, `!(t in m) || m[t] === 'passed'`, `!m.has(t) || …`;
 * - `denyList`: `m[t] !== 'failed'` deciding the pass (returned, under `.every()`, or counted);
 * - `emptyMap`: `Object.values(m).every((s) => s === 'passed')` / `results.every((r) => r.status === 'passed')`
 *   over what the run produced, with no test of its size in the function.
 *
 * Polarity (does the test being true pass the agent?) follows `&&`/`||`/`!`, `Boolean()`, `.every`/`.some`
 * callbacks, `.filter(...).length`, a conditional or `if` whose branches return constant verdicts, a local
 * read later, and a verdict key of a returned object; anything else is unknown and not reported.
 */
import type { AnyNode, Expression, Program } from 'acorn';
import type { RuleContext } from '../../src/contract/rule.js';
import type { Project } from '../../src/contract/project.js';
import { isJsFunction, jsScopes, programOf, propName, type JsFunction } from '../../src/lang/js/index.js';
import { forEachChild, parentMap, unwrapExpr } from '../../src/lang/js/nodes.js';
import { jsFeedsVerdict, jsOnVerdictPath, jsVerdictScope } from '../../src/suites/verdict.js';
import { jsConst, verdictTruth } from '../../src/suites/verdict-shape.js';
import { kinds, statusWord, words, type Msg, type Status } from './status.js';
import { jsDroppedBranches, jsDroppedByFilter, jsDroppedDenominator, type DroppedDeps } from './js-dropped.js';


interface JsStatusTest {
  node: AnyNode;
  subject: AnyNode;
  positive: boolean;
  statuses: Status[];
}

const short = (c: RuleContext<Msg>, n: AnyNode, max = 60): string => {
  const t = c.text.slice(n.start, n.end).replace(/\s+/g, ' ');
  return t.length > max ? `${t.slice(0, max - 3)}...` : t;
};

/** A status constant: a string literal, or an upper-case enum member (`Status.SKIPPED`). */
function jsStatus(n0: AnyNode): Status | undefined {
  const n = unwrapExpr(n0);
  if (n.type === 'Literal' && typeof n.value === 'string') return statusWord(n.value);
  if (n.type === 'TemplateLiteral' && n.expressions.length === 0) return statusWord(n.quasis[0]?.value.cooked ?? '');
  if (n.type === 'MemberExpression' && !n.computed && n.property.type === 'Identifier' && n.property.name === n.property.name.toUpperCase()) return statusWord(n.property.name);
  return undefined;
}

/** A literal array of status constants, directly, in `new Set([...])`, or through a `const`. */
function jsStatusSet(n0: AnyNode, program: Program, depth = 0): Status[] | undefined {
  const n = unwrapExpr(n0);
  if (n.type === 'ArrayExpression') {
    const xs = n.elements.map((e) => (e && e.type !== 'SpreadElement' ? jsStatus(e) : undefined));
    return xs.length && xs.every(Boolean) ? (xs as Status[]) : undefined;
  }
  if (n.type === 'NewExpression' && n.callee.type === 'Identifier' && n.callee.name === 'Set' && n.arguments[0]) return jsStatusSet(n.arguments[0], program, depth + 1);
  if (n.type === 'Identifier' && depth < 3) {
    const b = jsScopes(program).resolve(n);
    if (b?.kind === 'const' && b.init) return jsStatusSet(b.init, program, depth + 1);
  }
  return undefined;
}

/** `s === 'passed'`, `s !== Status.FAILED`, `[...].includes(s)`, `SET.has(s)`, `!(…)` of these. */
function jsStatusTest(n0: AnyNode, program: Program): JsStatusTest | undefined {
  const n = unwrapExpr(n0);
  if (n.type === 'UnaryExpression' && n.operator === '!') {
    const t = jsStatusTest(n.argument, program);
    return t && { ...t, node: n, positive: !t.positive };
  }
  if (n.type === 'BinaryExpression' && ['===', '==', '!==', '!='].includes(n.operator)) {
    const positive = n.operator === '===' || n.operator === '==';
    const r = jsStatus(n.right);
    if (r) return { node: n, subject: n.left, positive, statuses: [r] };
    const l = n.left.type !== 'PrivateIdentifier' ? jsStatus(n.left) : undefined;
    if (l) return { node: n, subject: n.right, positive, statuses: [l] };
    return undefined;
  }
  if (n.type === 'CallExpression' && n.callee.type === 'MemberExpression' && n.arguments.length === 1 && n.arguments[0]!.type !== 'SpreadElement') {
    const m = propName(n.callee);
    if (m !== 'includes' && m !== 'has') return undefined;
    const set = jsStatusSet(n.callee.object, program);
    if (set) return { node: n, subject: n.arguments[0]!, positive: true, statuses: set };
  }
  return undefined;
}

const TESTERS = new Set(['every', 'some']);

/** Does `n` being true pass the agent in verdict function `fn`? undefined when the code does not say. */
function polarity(n: AnyNode, fn: JsFunction, program: Program, project: Project, file: string, depth = 0): boolean | undefined {
  if (depth > 4) return undefined;
  const par = parentMap(program);
  const shapes = jsVerdictScope(project, file, program).shapes;
  let pol = true;
  let cur: AnyNode = n;
  for (let p = par.get(cur); p; cur = p, p = par.get(p)) {
    switch (p.type) {
      case 'ParenthesizedExpression':
      case 'ChainExpression':
      case 'AwaitExpression':
      case 'LogicalExpression':
        continue;
      case 'UnaryExpression':
        if (p.operator !== '!') return undefined;
        pol = !pol;
        continue;
      case 'CallExpression':
        if (p.callee.type === 'Identifier' && p.callee.name === 'Boolean') continue;
        return undefined;
      case 'ArrowFunctionExpression':
      case 'FunctionExpression': {
        // the callback of `.every()`/`.some()` (its body, or a `return` of its block body: `cur` is that body)
        if (p === fn) return undefined;
        const call = par.get(p);
        if (call?.type !== 'CallExpression' || call.arguments[0] !== p || p.body !== cur && !(cur.type === 'BlockStatement')) return undefined;
        const m = propName(call.callee);
        if (m && TESTERS.has(m)) {
          cur = call;
          p = call;
          continue;
        }
        if (m === 'filter') {
          const len = par.get(call);
          if (len?.type === 'MemberExpression' && len.object === call && propName(len) === 'length') {
            cur = len;
            p = len;
            continue;
          }
        }
        return undefined;
      }
      case 'ReturnStatement': {
        // inside a callback: continue from its function; in the verdict function: decided
        let f: AnyNode | undefined = par.get(p);
        while (f && !isJsFunction(f)) f = par.get(f);
        if (!f) return undefined;
        if (f === fn) return pol;
        cur = f.body;
        p = f.body;
        continue;
      }
      case 'ConditionalExpression': {
        if (p.test !== cur) continue;
        const yes = verdictTruth(jsConst(p.consequent), shapes);
        const no = verdictTruth(jsConst(p.alternate), shapes);
        if (yes === undefined || no === undefined || yes === no) return undefined;
        if (!yes) pol = !pol;
        continue;
      }
      case 'IfStatement': {
        if (p.test !== cur) return undefined;
        const body = p.consequent.type === 'BlockStatement' ? p.consequent.body : [p.consequent];
        const ret = body.find((s) => s.type === 'ReturnStatement');
        if (ret?.type === 'ReturnStatement') {
          const v = verdictTruth(jsConst(ret.argument), shapes);
          return v === undefined ? undefined : v ? pol : !pol;
        }
        // a counting `if`: `if (ok) passed++` counts a pass; a counter of failures counts the other way
        let counter: string | undefined;
        for (const s of body) {
          if (s.type !== 'ExpressionStatement') continue;
          const e = s.expression;
          if (e.type === 'UpdateExpression' && e.argument.type === 'Identifier') counter = e.argument.name;
          if (e.type === 'AssignmentExpression' && e.operator === '+=' && e.left.type === 'Identifier') counter = e.left.name;
          if (e.type === 'CallExpression' && propName(e.callee) === 'push' && e.callee.type === 'MemberExpression' && e.callee.object.type === 'Identifier') counter = e.callee.object.name;
        }
        if (!counter) return undefined;
        return /fail|error|bad|broken|missing/i.test(counter) ? !pol : pol;
      }
      case 'VariableDeclarator': {
        if (p.init !== cur || p.id.type !== 'Identifier') return undefined;
        const sc = jsScopes(program);
        const b = sc.resolve(p.id);
        for (const r of sc.references) {
          if (r.binding !== b || r.write || r.id === p.id) continue;
          const q = polarity(r.id, fn, program, project, file, depth + 1);
          if (q !== undefined) return q ? pol : !pol;
        }
        return undefined;
      }
      case 'Property': {
        if (p.value !== cur || p.computed) return undefined;
        const key = p.key.type === 'Identifier' ? p.key.name : p.key.type === 'Literal' ? String(p.key.value) : '';
        if (!shapes.keys.has(key.toLowerCase())) return undefined;
        cur = par.get(p)!;
        p = cur;
        continue;
      }
      default:
        return undefined;
    }
  }
  return undefined;
}

const skipInPass = (ss: readonly Status[]): boolean => {
  const k = kinds(ss);
  return k.has('pass') && k.has('skip') && !k.has('fail');
};

/** `a || b || c` flattened. */
function orAtoms(n0: AnyNode): AnyNode[] {
  const n = unwrapExpr(n0);
  return n.type === 'LogicalExpression' && n.operator === '||' ? [...orAtoms(n.left), ...orAtoms(n.right)] : [n];
}

const text = (c: RuleContext<Msg>, n: AnyNode): string => c.text.slice(n.start, n.end).replace(/\s+/g, '');

/** The verdict function around `node` (the function a callback is passed in, not the callback). */
function verdictFn(ancestors: readonly AnyNode[], project: Project, file: string, program: Program): JsFunction | undefined {
  for (let i = ancestors.length - 1; i >= 0; i--) {
    const a = ancestors[i]!;
    if (!isJsFunction(a)) continue;
    const up = ancestors[i - 1];
    const callback = up?.type === 'CallExpression' && up.arguments.includes(a as Expression);
    if (callback) continue;
    return jsOnVerdictPath(project, file, program, a) || jsFeedsVerdict(project, file, program, a) ? a : undefined;
  }
  return undefined;
}

/** Does the function test the size of `name` (`name.length`, `Object.keys(name).length`, `name.size`)? */
function sizeTested(fn: JsFunction, name: string): boolean {
  let hit = false;
  const rec = (n: AnyNode): void => {
    if (hit) return;
    if (n.type === 'MemberExpression' && ['length', 'size'].includes(propName(n) ?? '')) {
      const o = unwrapExpr(n.object);
      if (o.type === 'Identifier' && o.name === name) hit = true;
      if (o.type === 'CallExpression' && o.arguments[0]?.type === 'Identifier' && o.arguments[0].name === name) hit = true;
    }
    forEachChild(n, rec);
  };
  rec(fn.body);
  return hit;
}

function deps(program: Program, project: Project, file: string): DroppedDeps {
  return {
    statusTest: (n) => jsStatusTest(n, program),
    status: jsStatus,
    polarity: (n, fn) => polarity(n, fn, program, project, file),
    verdictKeys: jsVerdictScope(project, file, program).shapes.keys,
  };
}

/** The `dropped` forms (js-dropped.ts): an `if`/`else if` chain or `switch` of counts with no catch-all, a
 *  subtracted denominator. */
export function jsDroppedChecks(node: AnyNode, c: RuleContext<Msg>, ancestors: readonly AnyNode[], project: Project): void {
  const program = programOf(ancestors);
  if (!program) return;
  const file = c.unit.file.path;
  if (node.type === 'IfStatement') {
    // the head of a chain only
    if (ancestors.at(-1)?.type === 'IfStatement' && (ancestors.at(-1) as { alternate?: AnyNode }).alternate === node) return;
    const fn = verdictFn(ancestors, project, file, program);
    if (fn) jsDroppedBranches(node, c, fn, deps(program, project, file));
  } else if (node.type === 'SwitchStatement') {
    const fn = verdictFn(ancestors, project, file, program);
    if (fn) jsDroppedBranches(node, c, fn, deps(program, project, file));
  } else if (node.type === 'BinaryExpression' && node.operator === '/') {
    const fn = verdictFn(ancestors, project, file, program);
    if (fn) jsDroppedDenominator(node, c, fn, program, deps(program, project, file));
  }
}

export function jsStatusChecks(node: AnyNode, c: RuleContext<Msg>, ancestors: readonly AnyNode[], project: Project): void {
  const program = programOf(ancestors);
  if (!program) return;
  const file = c.unit.file.path;
  const parent = ancestors[ancestors.length - 1];
  // `||` chains: judged once, at the outermost
  if (node.type === 'LogicalExpression' && node.operator === '||' && !(parent?.type === 'LogicalExpression' && parent.operator === '||')) {
    const atoms = orAtoms(node);
    const tests = atoms.map((x) => jsStatusTest(x, program));
    const positive = tests.filter((t): t is JsStatusTest => !!t && t.positive);
    const union = positive.flatMap((t) => t.statuses);
    if (positive.length >= 2 && skipInPass(union) && !positive.some((t) => skipInPass(t.statuses))) {
      const fn = verdictFn(ancestors, project, file, program);
      if (fn && polarity(node, fn, program, project, file) === true) {
        c.report({ messageId: 'skipAsPass', data: { test: short(c, node), statuses: words(union.filter((s) => s.kind === 'skip')), skips: words(union.filter((s) => s.kind === 'skip')) }, at: node });
        return;
      }
    }
    // `!(k in m) || m[k] === 'passed'`, `!m.has(k) || m.get(k) === 'passed'`, `m[k] === undefined || …`
    for (const x of atoms) {
      const e = unwrapExpr(x);
      let key: string | undefined;
      let map: string | undefined;
      if (e.type === 'UnaryExpression' && e.operator === '!') {
        const a = unwrapExpr(e.argument);
        if (a.type === 'BinaryExpression' && a.operator === 'in') [key, map] = [text(c, a.left), text(c, a.right)];
        if (a.type === 'CallExpression' && propName(a.callee) === 'has' && a.callee.type === 'MemberExpression' && a.arguments[0]) [key, map] = [text(c, a.arguments[0]), text(c, a.callee.object)];
      }
      if (!key || !map) continue;
      const passes = positive.some((t) => t.statuses.every((s) => s.kind === 'pass') && [`${map}[${key}]`, `${map}.get(${key})`].includes(text(c, t.subject)));
      const fn = passes ? verdictFn(ancestors, project, file, program) : undefined;
      if (fn && polarity(node, fn, program, project, file) !== undefined) {
        c.report({ messageId: 'jsAbsentAsPass', data: { test: short(c, node), map, key }, at: node });
        return;
      }
    }
    return;
  }
  const t = jsStatusTest(node, program);
  if (t && node.type !== 'UnaryExpression') {
    const fn = verdictFn(ancestors, project, file, program);
    if (!fn) return;
    // `(m[k] ?? 'passed') === 'passed'`: an absent test takes the passing default
    const subj = unwrapExpr(t.subject);
    if (subj.type === 'LogicalExpression' && (subj.operator === '??' || subj.operator === '||') && jsStatus(subj.right)?.kind === 'pass') {
      if (polarity(node, fn, program, project, file) !== undefined) {
        const l = unwrapExpr(subj.left);
        const [map, key] = l.type === 'MemberExpression' && l.computed ? [text(c, l.object), text(c, l.property)] : l.type === 'CallExpression' && l.callee.type === 'MemberExpression' && l.arguments[0] ? [text(c, l.callee.object), text(c, l.arguments[0])] : ['the map', 'the test'];
        c.report({ messageId: 'jsAbsentAsPass', data: { test: short(c, node), map, key }, at: node });
      }
      return;
    }
    const inOr = parent?.type === 'LogicalExpression' && parent.operator === '||';
    if (t.positive && skipInPass(t.statuses) && !(inOr && t.statuses.length === 1) && polarity(node, fn, program, project, file) === true) {
      const skips = words(t.statuses.filter((s) => s.kind === 'skip'));
      c.report({ messageId: 'skipAsPass', data: { test: short(c, node), statuses: skips, skips }, at: node });
      return;
    }
    // `m[k] !== 'failed'` passing the agent: every other status, and an absent test, passes
    if (!t.positive && t.statuses.every((s) => s.kind === 'fail') && polarity(node, fn, program, project, file) === true) {
      c.report({ messageId: 'denyList', data: { statuses: words(t.statuses), test: short(c, node) }, at: node });
      return;
    }
    // `Object.values(m).every((s) => s === 'passed')`, `results.every((r) => r.status === 'passed')`
    if (t.positive && t.statuses.every((s) => s.kind === 'pass')) {
      const cb = ancestors[ancestors.length - 1];
      const call = ancestors[ancestors.length - 2];
      if (!cb || !isJsFunction(cb) || cb.body !== node || call?.type !== 'CallExpression' || propName(call.callee) !== 'every' || call.callee.type !== 'MemberExpression') return;
      const param = cb.params[0];
      // the item, or a name a destructuring of it binds (`({ status }) => status === 'passed'`)
      const names = new Set<string>();
      if (param?.type === 'Identifier') names.add(param.name);
      else if (param?.type === 'ObjectPattern')
        for (const pr of param.properties) if (pr.type === 'Property' && pr.value.type === 'Identifier') names.add(pr.value.name);
      if (!names.size) return;
      const s0 = unwrapExpr(t.subject);
      const itemName = (x: AnyNode) => x.type === 'Identifier' && names.has(x.name);
      if (!itemName(s0) && !(param?.type === 'Identifier' && s0.type === 'MemberExpression' && itemName(unwrapExpr(s0.object)))) return;
      let recv = unwrapExpr(call.callee.object);
      // `ran = results.filter((r) => r.status !== 'skipped')` … `ran.every(…)`: the skipped tests left the list
      if (jsDroppedByFilter(call, recv, c, fn, program, deps(program, project, file))) return;
      if (recv.type === 'CallExpression' && recv.callee.type === 'MemberExpression' && recv.callee.object.type === 'Identifier' && recv.callee.object.name === 'Object' && propName(recv.callee) === 'values' && recv.arguments[0]) recv = unwrapExpr(recv.arguments[0]);
      const name = recv.type === 'Identifier' ? recv.name : recv.type === 'MemberExpression' ? text(c, recv) : undefined;
      if (!name || !produced(recv, fn, program) || sizeTested(fn, recv.type === 'Identifier' ? recv.name : '') || (recv.type === 'MemberExpression' && memberSizeTested(fn, c, name)) || sourceCountTested(fn, recv, program)) return;
      if (polarity(call, fn, program, project, file) !== true) return;
      c.report({ messageId: 'jsEmptyMap', data: { test: short(c, call), map: name }, at: call });
    }
  }
}

/** The collection is what the run produced: a parameter (or a member of one), or a local from a call. */
function produced(recv: AnyNode, fn: JsFunction, program: Program): boolean {
  let root = recv;
  while (root.type === 'MemberExpression') root = unwrapExpr(root.object);
  if (root.type !== 'Identifier') return false;
  const b = jsScopes(program).resolve(root);
  if (!b) return false;
  if (b.kind === 'param') return fn.params.some((p) => p.start <= b.id.start && b.id.end <= p.end);
  const init = b.init ? unwrapExpr(b.init) : undefined;
  if (!init) return false;
  if (init.type === 'CallExpression') return true;
  // `const report = JSON.parse(...)`-style locals are calls; a member of a parameter (`const r = input.results`)
  let o: AnyNode = init;
  while (o.type === 'MemberExpression') o = unwrapExpr(o.object);
  return o.type === 'CallExpression' || (o.type === 'Identifier' && jsScopes(program).resolve(o)?.kind === 'param');
}

function memberSizeTested(fn: JsFunction, c: RuleContext<Msg>, name: string): boolean {
  let hit = false;
  const rec = (n: AnyNode): void => {
    if (hit) return;
    if (n.type === 'MemberExpression' && ['length', 'size'].includes(propName(n) ?? '') && text(c, n.object) === name) hit = true;
    forEachChild(n, rec);
  };
  rec(fn.body);
  return hit;
}

/** The collection is read out of a report object (`statuses = report.testResults.flatMap(...)`) and the function
 *  exits early on that report's own count field (`if (report.numTotalTests === 0) return fail`): the run cannot be
 *  empty by the time `.every` runs. */
function sourceCountTested(fn: JsFunction, recv: AnyNode, program: Program): boolean {
  const sc = jsScopes(program);
  let n: AnyNode | undefined = recv.type === 'Identifier' ? sc.resolve(recv)?.init : recv;
  for (let i = 0; n && i < 20; i++) {
    n = unwrapExpr(n);
    if (n.type === 'Identifier') break;
    n = n.type === 'CallExpression' ? n.callee : n.type === 'MemberExpression' ? n.object : undefined;
  }
  if (n?.type !== 'Identifier') return false;
  const root = sc.resolve(n);
  if (!root) return false;
  const COUNT = /^(?:num|total|count)|(?:total|count)s?$/i;
  const exits = (st: AnyNode): boolean => st.type === 'ReturnStatement' || st.type === 'ThrowStatement' || (st.type === 'BlockStatement' && !!st.body.length && exits(st.body.at(-1)!));
  let hit = false;
  const rec = (k: AnyNode): void => {
    if (hit || isJsFunction(k)) return;
    if (k.type === 'IfStatement' && exits(k.consequent)) {
      const t = (x: AnyNode): void => {
        if (x.type === 'MemberExpression' && COUNT.test(propName(x) ?? '') && unwrapExpr(x.object).type === 'Identifier' && sc.resolve(unwrapExpr(x.object) as never) === root) hit = true;
        forEachChild(x, t);
      };
      t(k.test);
    }
    forEachChild(k, rec);
  };
  forEachChild(fn.body, rec);
  return hit;
}
