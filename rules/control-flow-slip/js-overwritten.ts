/**
 * JavaScript/TypeScript form of control-flow-slip `overwritten`: a local assigned an informative value
 * on one branch of an `if`, then assigned again on every path by a later statement before anything reads
 * it (`if (answer) last = answer; if (infeasible) { last = "FAIL"; } else { last = ""; }` where `else if`
 * was meant). Structural and conservative: the walk goes outward from the assignment through blocks and
 * `if` branches only (a loop, `try`, `switch` or label around it ends the walk), and any statement that
 * mentions the name in any other way than a plain overwrite counts as a read.
 */
import type { AnyNode, AssignmentExpression, Expression } from 'acorn';
import type { Program } from 'acorn';
import { jsScopes, type JsFunction } from '../../src/lang/js/index.js';
import { forEachChild } from '../../src/lang/js/nodes.js';

type Effect = 'none' | 'read' | 'kill' | 'exit';

export interface JsOverwrite {
  assignment: AssignmentExpression;
  /** The first assignment of the later statement that assigns the name on every path. */
  by: AnyNode;
  name: string;
}

const isFn = (n: AnyNode): boolean => n.type === 'FunctionDeclaration' || n.type === 'FunctionExpression' || n.type === 'ArrowFunctionExpression';

/** A value that tells nothing: a literal, a template without holes, `[]`, `{}`, `-1`, `null`/`undefined`. */
function constantValue(e: Expression): boolean {
  if (e.type === 'Literal') return true;
  if (e.type === 'TemplateLiteral') return e.expressions.length === 0;
  if (e.type === 'Identifier') return e.name === 'undefined' || e.name === 'NaN';
  if (e.type === 'UnaryExpression') return constantValue(e.argument);
  if (e.type === 'ArrayExpression') return e.elements.length === 0;
  if (e.type === 'ObjectExpression') return e.properties.length === 0;
  return false;
}

/** `await page.goto(url)`, `await fetch(url, {...})`: the value of an awaited call, which the branch may run
 *  for its effect alone. */
function actionResult(e: Expression): boolean {
  let x: Expression = e;
  while (x.type === 'ParenthesizedExpression' || x.type === 'ChainExpression') x = x.expression;
  if (x.type !== 'AwaitExpression') return false;
  let a = x.argument;
  while (a.type === 'ParenthesizedExpression' || a.type === 'ChainExpression') a = a.expression;
  return a.type === 'CallExpression' || a.type === 'NewExpression';
}

/** Overwritten informative assignments of the function's own locals and parameters. */
export function jsOverwrites(fn: JsFunction, program: Program): JsOverwrite[] {
  if (fn.body.type !== 'BlockStatement') return [];
  const sc = jsScopes(program);
  const parent = new Map<AnyNode, AnyNode>();
  const nested: AnyNode[] = [];
  const rec = (n: AnyNode): void =>
    forEachChild(n, (k) => {
      parent.set(k, n);
      if (isFn(k)) nested.push(k);
      else rec(k);
    });
  parent.set(fn.body, fn);
  rec(fn.body);
  const inFn = (n: AnyNode) => n.start >= fn.body.start && n.end <= fn.body.end && !nested.some((f) => n.start >= f.start && n.end <= f.end);
  const out: JsOverwrite[] = [];
  // references by binding, for the bindings declared by this function (its own body or parameters)
  const byBinding = new Map<object, Array<(typeof sc.references)[number]>>();
  for (const r of sc.references) {
    const b = r.binding;
    if (!b || (b.kind !== 'let' && b.kind !== 'var' && b.kind !== 'param')) continue;
    if (b.id.start < fn.start || b.id.end > fn.end) continue;
    const l = byBinding.get(b) ?? [];
    l.push(r);
    byBinding.set(b, l);
  }
  for (const refs of byBinding.values()) {
    // a closure that reads or writes it: the order of effects is not the statement order
    if (!refs.every((r) => inFn(r.id))) continue;
    const ids = new Set<AnyNode>(refs.map((r) => r.id));
    const mentions = (n: AnyNode): boolean => {
      let hit = false;
      const v = (k: AnyNode): void => {
        if (hit) return;
        if (ids.has(k)) hit = true;
        else forEachChild(k, v);
      };
      v(n);
      return hit;
    };
    const plainWrite = (st: AnyNode): AssignmentExpression | undefined =>
      st.type === 'ExpressionStatement' && st.expression.type === 'AssignmentExpression' && st.expression.operator === '=' && ids.has(st.expression.left) && !mentions(st.expression.right) ? st.expression : undefined;
    const effect = (st: AnyNode | null | undefined): Effect => {
      if (!st) return 'none';
      if (plainWrite(st)) return 'kill';
      if (st.type === 'BlockStatement') {
        for (const s of st.body) {
          const e = effect(s);
          if (e !== 'none') return e;
        }
        return 'none';
      }
      if (st.type === 'IfStatement' && !mentions(st.test)) {
        const c = effect(st.consequent);
        const a = effect(st.alternate);
        if (c === 'read' || a === 'read') return 'read';
        if (c === 'exit' && a === 'exit') return 'exit';
        if ((c === 'kill' || c === 'exit') && (a === 'kill' || a === 'exit')) return 'kill';
        return 'none';
      }
      if (mentions(st)) return 'read';
      if (st.type === 'ReturnStatement' || st.type === 'ThrowStatement') return 'exit';
      return 'none';
    };
    const reads = refs.filter((r) => !r.write || parent.get(r.id)?.type === 'UpdateExpression' || (parent.get(r.id) as AssignmentExpression | undefined)?.operator !== '=');
    for (const r of refs) {
      const asgNode = parent.get(r.id);
      const stmt = asgNode && parent.get(asgNode);
      if (!r.write || !stmt || !plainWrite(stmt) || constantValue((asgNode as AssignmentExpression).right)) continue;
      // the innermost `if` whose branch holds it, not across a loop, `try`, `switch` or label
      let branch: AnyNode | undefined;
      for (let c: AnyNode = stmt, p = parent.get(c); p && p !== fn; c = p, p = parent.get(p)) {
        if (p.type === 'IfStatement') {
          if (c !== p.test) branch = p;
          break;
        }
        if (p.type !== 'BlockStatement') break;
      }
      if (!branch) continue;
      let by: AnyNode | undefined;
      walk: for (let cur: AnyNode = stmt, p = parent.get(cur); p && p !== fn; cur = p, p = parent.get(p)) {
        if (p.type === 'IfStatement') continue;
        if (p.type !== 'BlockStatement') break;
        for (const s of p.body.slice(p.body.indexOf(cur as never) + 1)) {
          const e = effect(s);
          if (e === 'none') continue;
          if (e === 'kill' && s.start > branch.end) by = s;
          break walk;
        }
      }
      if (!by) continue;
      // an awaited call run for its effect (a login navigation, a click) whose result the later call replaces:
      // the branch did run, only its return value is dropped
      if (actionResult((asgNode as AssignmentExpression).right)) continue;
      const after = by.end;
      const stop = by;
      if (!reads.some((x) => x.id.start > after)) continue;
      const at = refs.find((x) => x.write && x.id.start > stop.start && x.id.end <= stop.end)?.id ?? by;
      out.push({ assignment: asgNode as AssignmentExpression, by: at, name: r.id.name });
    }
  }
  return out;
}
