/**
 * control-flow-slip — a verdict decided by a slip of control flow, not by the comparison written:
 *
 * - a value assigned on one branch and replaced on every path before anything reads it: the second
 *   `if` should have been an `elif` (`if answer: last = answer` then `if infeasible: … else: last = ""`),
 *   so the first branch's value never reaches the verdict;
 * - a `return` on every path of a loop body: the loop decides on its first item and never looks at the
 *   rest (`for line in f: if key in line: return 1 else: return 0`).
 *
 * Boundary (from the real corpora and the fixed bugs of issue 28): the overwritten value carries
 * information (not a constant default such as `x = None`, which later code replaces by design), sits in
 * a conditional branch, and the name is read after it; the loop body always ends in `return`/`raise`
 * (no `break`/`continue`), returns at least two different things, and tests the loop variable, so it
 * was meant to look at each item. Both on verdict paths only (src/suites/verdict.ts); the overwritten value
 * also in a helper whose result a verdict function reads (`pyFeedsVerdict`; in JS/TS `jsFeedsVerdict`, same module,
 * js-overwritten.ts).
 */
import type { AnyNode, Node as JsNode } from 'acorn';
import { defineRule, type PythonVisitor, type RuleContext } from '../../src/contract/rule.js';
import type { FunctionInfo, PythonAnalysis } from '../../src/lang/python/types.js';
import { field, named, unparen, walk, type PyNode } from '../../src/lang/python/tree.js';
import { defUse } from '../../src/lang/python/def-use.js';
import { leavesFunction } from '../../src/lang/python/leaves.js';
import { jsFeedsVerdict, jsOnVerdictPath, pyFeedsVerdict, pyOnVerdictPath } from '../../src/suites/verdict.js';
import { isJsFunction, programOf, propName } from '../../src/lang/js/index.js';
import { jsAlwaysExits, jsLoopJumps, jsLoopNames, jsExits, jsReadsAny } from './js-loops.js';
import { jsOverwrites } from './js-overwritten.js';
import type { JsFunction } from '../../src/lang/js/index.js';

type Msg = 'overwritten' | 'jsOverwritten' | 'firstItem' | 'jsFirstItem';
type PyCtx = Parameters<PythonVisitor<Msg>>[1];

const CONSTANT = new Set(['none', 'true', 'false', 'integer', 'float', 'string', 'concatenated_string']);

/** A value that tells nothing: a literal, an empty collection, `-1`. */
function constantValue(v: PyNode): boolean {
  const e = unparen(v);
  if (CONSTANT.has(e.type)) return !(e.type === 'string' && e.children.some((k) => k.type === 'interpolation'));
  if (e.type === 'unary_operator') return constantValue(named(e)[0] ?? e);
  if (['list', 'dictionary', 'tuple', 'set'].includes(e.type)) return named(e).length === 0;
  // set(), list(), dict(), str() …: an empty default
  if (e.type === 'call' && ['set', 'list', 'dict', 'tuple', 'str', 'int', 'float', 'bool', 'frozenset'].includes(e.children[0]?.text ?? '')) return named(field(e, 'arguments') ?? e).length === 0;
  return false;
}

/** The innermost `if` statement of the function whose branch holds `n` (not across a loop, `try` or `with`). */
function branchOf(n: PyNode, fnBody: PyNode): PyNode | undefined {
  for (let p = n.parent; p && p !== fnBody; p = p.parent) {
    if (p.type === 'if_statement') return p;
    if (p.type === 'for_statement' || p.type === 'while_statement' || p.type === 'try_statement' || p.type === 'with_statement') return undefined;
  }
  return undefined;
}

function short(s: string, max = 50): string {
  const one = s.replace(/\s+/g, ' ');
  return one.length > max ? `${one.slice(0, max - 3)}...` : one;
}

function onVerdictPath(c: PyCtx, a: PythonAnalysis, fn: FunctionInfo): boolean {
  return pyOnVerdictPath(c.project, a, fn);
}

function overwritten(a: PythonAnalysis, fn: FunctionInfo, c: PyCtx): void {
  const du = defUse(a, fn);
  if (du.dynamic) return;
  const body = field(fn.node, 'body');
  if (!body) return;
  for (const d of du.defs) {
    const id = d.node;
    const asg = id?.parent;
    if (!id || d.kind !== 'assign' || du.used.has(d) || du.captured.has(d.name)) continue;
    if (asg?.type !== 'assignment' || field(asg, 'left') !== id || !d.value || constantValue(d.value)) continue;
    const branch = branchOf(asg, body);
    if (!branch) continue;
    // the name is read later, from an assignment after this `if` that replaced the branch's value on every
    // path (a later statement of the same branch refining a default is not a slip)
    const later = (du.reads.get(d.name) ?? []).filter((r) => r.start > asg.end);
    let by: PyNode | undefined;
    for (const r of later) {
      for (const x of a.reachingDefs(r) ?? []) if (x.node && x.kind !== 'narrow' && x.node.start > branch.end && (!by || x.node.start < by.start)) by = x.node;
    }
    if (!by) continue;
    c.report({
      messageId: 'overwritten',
      data: { assignment: short(a.src(asg)), name: d.name, line: a.line(by) },
      at: asg,
    });
  }
}

/** The loop's own `break`/`continue` (not those of inner loops), its `return`/`raise` statements and its tests. */
function loopBody(body: PyNode): { jumps: boolean; returns: PyNode[]; tests: PyNode[] } {
  let jumps = false;
  const returns: PyNode[] = [];
  const tests: PyNode[] = [];
  const visit = (n: PyNode, inner: boolean) => {
    for (const k of n.children) {
      if (k.type === 'function_definition' || k.type === 'lambda' || k.type === 'class_definition') continue;
      if ((k.type === 'break_statement' || k.type === 'continue_statement') && !inner) jumps = true;
      if (k.type === 'return_statement' || k.type === 'raise_statement') returns.push(k);
      if ((k.type === 'if_statement' || k.type === 'elif_clause') && field(k, 'condition')) tests.push(field(k, 'condition')!);
      visit(k, inner || k.type === 'for_statement' || k.type === 'while_statement');
    }
  };
  visit(body, false);
  return { jumps, returns, tests };
}

/** The loop variables, and the locals the body derives from them (`fields = line.split()`). */
function itemNames(a: PythonAnalysis, left: PyNode, body: PyNode): Set<string> {
  const names = new Set<string>();
  walk(left, (k) => {
    if (k.type === 'identifier') names.add(a.src(k));
  });
  for (let round = 0; round < 2; round++)
    walk(body, (k) => {
      if (k.type === 'function_definition' || k.type === 'lambda' || k.type === 'class_definition') return false;
      if (k.type !== 'assignment') return;
      const l = field(k, 'left');
      const r = field(k, 'right');
      let reads = false;
      if (r)
        walk(r, (x) => {
          if (x.type === 'identifier' && names.has(a.src(x))) reads = true;
          return !reads;
        });
      if (reads && l) walk(l, (x) => {
        if (x.type === 'identifier') names.add(a.src(x));
      });
    });
  return names;
}

function firstItem(n: PyNode, c: PyCtx): void {
  const a = c.python;
  const body = field(n, 'body');
  const left = field(n, 'left');
  const right = field(n, 'right');
  if (!body || !left || !right || !leavesFunction(a, body)) return;
  const fn = a.functionAt(n);
  if (!fn || !onVerdictPath(c, a, fn)) return;
  // `for root, dirs, files in os.walk(p)`: the top folder only, by design
  if (right.type === 'call' && a.qualifiedName(field(right, 'function') ?? right) === 'os.walk') return;
  const { jumps, returns, tests } = loopBody(body);
  if (jumps || returns.length < 2) return;
  const values = new Set(returns.map((r) => a.src(named(r)[0] ?? r)));
  if (values.size < 2) return;
  const names = itemNames(a, left, body);
  const readsItem = tests.some((t) => {
    let hit = false;
    walk(t, (k) => {
      if (k.type === 'identifier' && names.has(a.src(k))) hit = true;
      return !hit;
    });
    return hit;
  });
  if (!readsItem) return;
  // the oracle reorders the collection when it is a parameter (`for x in items`, `enumerate(items)`)
  const coll = right.type === 'call' && a.src(field(right, 'function') ?? right) === 'enumerate' ? named(field(right, 'arguments') ?? right)[0] : right;
  const params = fn.classNode ? fn.params.slice(1) : fn.params;
  const collection = coll?.type === 'identifier' ? params.indexOf(a.src(coll)) : -1;
  c.report({
    messageId: 'firstItem',
    data: { collection: short(a.src(right), 40) },
    at: { start: n.start, end: right.end },
    control: { oracle: 'control-flow-slip', shape: 'firstItem', file: a.path, line: a.line(n), qualname: fn.qualname, collection },
  });
}

export default defineRule<Msg>({
  meta: {
    id: 'control-flow-slip',
    description: 'A verdict input assigned on one branch and replaced on every path before it is read (an `if` where `elif` was meant), or a loop whose body returns on every path and so decides on its first item.',
    defaultSeverity: 'warn',
    layers: ['python', 'javascript'],
    languages: ['python', 'javascript', 'typescript'],
    messages: {
      overwritten: {
        what: '`{{assignment}}` is replaced on every path before anything reads `{{name}}` (line {{line}} assigns it again).',
        why: 'The value this branch computed never reaches the verdict, so the case it was written for is graded as if the branch had not run.',
        fix: 'Make the later assignment an `elif`/`else` of this branch, or combine both values, so each path keeps what it computed.',
      },
      jsOverwritten: {
        what: '`{{assignment}}` is replaced on every path before anything reads `{{name}}` (line {{line}} assigns it again).',
        why: 'The value this branch computed never reaches the verdict, so the case it was written for is graded as if the branch had not run.',
        fix: 'Make the later `if` an `else if` of this branch (or combine both values), so each path keeps what it computed.',
      },
      firstItem: {
        what: 'Every path through this loop body returns, so the loop decides on the first item of `{{collection}}` and never looks at the rest.',
        why: 'An item that matches anywhere but first is missed, and a bad item after the first one passes: the verdict depends on order, not on the items.',
        fix: 'Return only once the loop has seen every item (`return any(...)`, or move the `else: return ...` after the loop).',
      },
      jsFirstItem: {
        what: 'Every path through this loop body returns, so the loop decides on the first item of `{{collection}}` and never looks at the rest.',
        why: 'An item that matches anywhere but first is missed, and a bad item after the first one passes: the verdict depends on order, not on the items.',
        fix: 'Return only once the loop has seen every item (`items.some(...)`, or move the final `return` after the loop).',
      },
    },
    confirm: {
      oracle: 'control-flow-slip',
      description: 'For a loop that decides on its first item, when the collection is a parameter: runs the function with two items in both orders; a verdict that changes with the order confirms.',
    },
    docs: {
      whatItDoes:
        'On a verdict path (a function a task entry is bound to, or one whose result it returns; a function that returns a verdict when no entry is bound), and in a helper whose result such a function reads (`got = final_answer(messages)` … `return got == expected`), flags an assignment `name = <expression>` inside an `if`/`elif`/`else` branch whose value no read ever uses because every path from it reaches another assignment of `name` before a read of `name` (typically a second `if` whose `else` assigns the name again, where `elif` was meant); constant defaults such as `name = None` are not reported. In JavaScript and TypeScript the same for a `let`/`var` local or a parameter assigned in an `if`/`else` branch and assigned again on every path by a later statement (an `if`/`else` whose branches both assign it) before any read, in a verdict function or a same-module function whose result one reads (`const got = finalStatus(run)`); a closure that reads the name, or a loop, `try` or `switch` around the assignment, ends the search. Also flags a `for` loop (Python; `for`/`for…of`/`for…in` in JavaScript and TypeScript) whose body returns or raises on every path with no `break`/`continue`, returns at least two different values, and tests the loop variable: it decides on the first item.',
      why: 'Both slips leave a check written but not run: the answer the agent gave is overwritten by the infeasibility branch, or only the first log line, row or element is ever compared. The verdict then depends on which branch ran last or on the order of the items, not on what the agent did.',
    },
  },
  create(ctx) {
    return {
      python: {
        function_definition(n, c) {
          const a = c.python;
          const body = field(n, 'body');
          const fn = body ? a.functionAt(body) : undefined;
          if (fn && (onVerdictPath(c, a, fn) || pyFeedsVerdict(c.project, a, fn))) overwritten(a, fn, c);
        },
        for_statement(n, c) {
          firstItem(n, c);
        },
      },
      javascript: {
        FunctionDeclaration(node, c, ancestors) {
          jsOverwritten(node, c, ancestors);
        },
        FunctionExpression(node, c, ancestors) {
          jsOverwritten(node, c, ancestors);
        },
        ArrowFunctionExpression(node, c, ancestors) {
          jsOverwritten(node, c, ancestors);
        },
        ForOfStatement(node, c, ancestors) {
          jsFirstItem(node, node.body, node.right, jsLoopNames(node.left), c, ancestors);
        },
        ForInStatement(node, c, ancestors) {
          jsFirstItem(node, node.body, node.right, jsLoopNames(node.left), c, ancestors);
        },
        ForStatement(node, c, ancestors) {
          // `for (let i = 0; i < items.length; i++)`: the collection is `items`
          const t = node.test;
          const over = t?.type === 'BinaryExpression' && t.right.type === 'MemberExpression' && propName(t.right) === 'length' ? t.right.object : (t ?? node.init);
          if (node.init && over) jsFirstItem(node, node.body, over, jsLoopNames(node.init), c, ancestors);
        },
      },
    };

    function jsOverwritten(fn: JsFunction, c: RuleContext<Msg>, ancestors: readonly AnyNode[]): void {
      const program = programOf(ancestors);
      if (!program || !(jsOnVerdictPath(ctx.project, c.unit.file.path, program, fn) || jsFeedsVerdict(ctx.project, c.unit.file.path, program, fn))) return;
      for (const o of jsOverwrites(fn, program)) {
        const text = c.text.slice(o.assignment.start, o.assignment.end).replace(/\s+/g, ' ');
        const line = c.text.slice(0, o.by.start).split('\n').length;
        c.report({ messageId: 'jsOverwritten', data: { assignment: text.length > 50 ? `${text.slice(0, 47)}...` : text, name: o.name, line }, at: o.assignment });
      }
    }

    function jsFirstItem(loop: JsNode, body: AnyNode, over: AnyNode, names: Set<string>, c: RuleContext<Msg>, ancestors: readonly AnyNode[]): void {
      if (!names.size || !jsAlwaysExits(body) || jsLoopJumps(body)) return;
      const program = programOf(ancestors);
      const fn = [...ancestors].reverse().find(isJsFunction);
      if (!program || !fn) return;
      if (!jsOnVerdictPath(ctx.project, c.unit.file.path, program, fn)) return;
      const exits = jsExits(body);
      if (exits.length < 2 || new Set(exits.map((r) => (r.argument ? c.text.slice(r.argument.start, r.argument.end) : ''))).size < 2) return;
      if (!jsReadsAny(body, names)) return;
      const text = c.text.slice(over.start, over.end).replace(/\s+/g, ' ');
      c.report({ messageId: 'jsFirstItem', data: { collection: text.length > 40 ? `${text.slice(0, 37)}...` : text }, at: { start: loop.start, end: Math.max(c.text.lastIndexOf(')', body.start) + 1, over.end) } });
    }
  },
});
