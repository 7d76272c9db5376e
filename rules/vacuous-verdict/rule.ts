/**
 * vacuous-verdict — a verdict that passes without comparing anything: `zip()` over two sequences with
 * no length check (the extra items are never compared, an empty result compares nothing), or a loop
 * that can only fail inside its body (or an `all(...)`) over a collection that may be empty.
 *
 * A new rule rather than a wider `vacuous-absence`: that rule is about absence checks on a None
 * operand; these are about iteration that never runs. Guards that can never fire are left for later.
 */
import { defineRule } from '../../src/engine/rule.js';
import type { FunctionInfo, PythonAnalysis } from '../../src/lang/python/types.js';
import { field, named, unparen, walk, type PyNode } from '../../src/lang/python/tree.js';
import { isVerdictFunction } from '../../src/suites/verdict.js';

type Msg = 'zipTruncation' | 'emptyLoop' | 'emptyAll';

/** `0`/`False`/`0.0`/`(False, …)` → false, `1`/`True`/`1.0` → true. */
function constTruth(a: PythonAnalysis, n: PyNode | undefined): boolean | undefined {
  if (!n) return undefined;
  const e = unparen(n);
  if (e.type === 'true') return true;
  if (e.type === 'false') return false;
  if (e.type === 'integer' || e.type === 'float') {
    const v = Number(a.src(e).replace(/_/g, ''));
    return v === 0 ? false : v === 1 ? true : undefined;
  }
  if (e.type === 'tuple' || e.type === 'expression_list') return constTruth(a, named(e)[0]);
  return undefined;
}

/** The root name of `x`, `x.attr`, `x["k"]`, `x.items()`. */
function rootName(a: PythonAnalysis, n: PyNode): string | undefined {
  let e = unparen(n);
  for (;;) {
    if (e.type === 'identifier') return a.src(e);
    if (e.type === 'attribute') e = field(e, 'object') ?? e;
    else if (e.type === 'subscript') e = field(e, 'value') ?? e;
    else if (e.type === 'call') e = field(e, 'function') ?? e;
    else return undefined;
    if (!e) return undefined;
  }
}

/** Does the function test the length or emptiness of `name` anywhere (`len(name)`, `not name`, `if name:`)? */
function guarded(a: PythonAnalysis, fn: FunctionInfo, texts: string[]): boolean {
  let hit = false;
  walk(fn.node, (n) => {
    if (hit) return false;
    if (n.type === 'call' && a.src(field(n, 'function') ?? n) === 'len') {
      const arg = named(field(n, 'arguments') ?? n)[0];
      if (arg && texts.some((t) => a.src(arg) === t || a.src(arg).startsWith(`${t}.`) || a.src(arg).startsWith(`${t}[`))) hit = true;
    } else if (n.type === 'not_operator') {
      const arg = field(n, 'argument');
      if (arg && texts.includes(a.src(unparen(arg)))) hit = true;
    } else if ((n.type === 'if_statement' || n.type === 'elif_clause' || n.type === 'while_statement' || n.type === 'assert_statement') && texts.includes(a.src(unparen(field(n, 'condition') ?? named(n)[0] ?? n)))) hit = true;
    return undefined;
  });
  return hit;
}

function paramIndex(fn: FunctionInfo, name: string | undefined): number {
  if (!name) return -1;
  const i = fn.params.indexOf(name);
  return fn.classNode ? (i > 0 ? i - 1 : -1) : i;
}

/** The parameter a collection is (or is a plain copy of, `cells = result`), as a call index. */
function paramOf(a: PythonAnalysis, fn: FunctionInfo, coll: PyNode): number {
  const direct = paramIndex(fn, a.src(coll));
  if (direct >= 0 || coll.type !== 'identifier') return direct;
  for (const v of a.valueSources(coll)) if (v.type === 'identifier' && paramIndex(fn, a.src(v)) >= 0) return paramIndex(fn, a.src(v));
  return -1;
}

const RESULT_NAME = /^(result|results|actual|pred|prediction|output|outputs|got|answer|submission|state|states)(_|$)/i;

/**
 * Does the collection hold the agent's result? It is (or is copied from) the first parameter — the
 * result state in `metric(result_state, expected_state)` — or a parameter named like one. Loops over
 * the task's own expectations are left alone: a task that lists nothing is a task-authoring question.
 */
function fromResult(a: PythonAnalysis, fn: FunctionInfo, coll: PyNode): boolean {
  const params = fn.classNode ? fn.params.slice(1) : fn.params;
  const names = new Set<string>([a.src(coll)]);
  for (const v of a.valueSources(coll)) {
    const r = rootName(a, v);
    if (r) names.add(r);
  }
  return [...names].some((n) => n === params[0] || (params.includes(n) && RESULT_NAME.test(n)));
}

function onVerdictPath(c: { project: import('../../src/engine/project.js').Project }, a: PythonAnalysis, fn: FunctionInfo): boolean {
  return isVerdictFunction(c.project, a.path, fn) ?? true;
}

export default defineRule<Msg>({
  meta: {
    id: 'vacuous-verdict',
    description: 'A verdict that passes without comparing: `zip()` truncation with no length check, a fail-only loop or `all()` over a collection that may be empty.',
    defaultSeverity: 'warn',
    layers: ['python'],
    languages: ['python'],
    messages: {
      zipTruncation: {
        what: '`{{call}}` stops at the shorter of `{{a}}` and `{{b}}` and nothing checks their lengths.',
        why: 'The extra items are never compared, so {{input}} passes.',
        fix: 'Compare `len({{a}}) == len({{b}})` first, or use `zip(..., strict=True)`.',
      },
      emptyLoop: {
        what: 'This loop can only fail inside its body and the function then returns `{{verdict}}`.',
        why: 'With an empty `{{collection}}` the body never runs, so {{input}} passes.',
        fix: 'Fail when `{{collection}}` is empty (`if not {{collection}}: return 0`) before the loop.',
      },
      emptyAll: {
        what: '`{{call}}` is True for an empty `{{collection}}`.',
        why: 'Then {{input}} passes without any check running.',
        fix: 'Require a non-empty `{{collection}}` (`bool({{collection}}) and all(...)`).',
      },
    },
    docs: {
      whatItDoes:
        'On a verdict path (a function a task entry is bound to, or one whose result it returns; any function when no entry is bound), flags `zip(a, b)` loops and generators that compare items when the function never tests the length of `a` or `b` (and no `strict=True`), `for` loops whose body can only return a failing constant and that are followed by `return <passing constant>` when the function never tests the collection for emptiness, and `return all(... for x in c)` with the same condition. The loop and `all()` shapes are reported only when the collection holds the agent\'s result (the first parameter, `metric(result_state, expected_state)`, or a parameter named like a result): a loop over the task\'s own expectations is a task-authoring question. The finding names the input that passes vacuously; `--confirm` runs the function with that collection empty.',
      why: 'An agent that produces nothing, or fewer paragraphs, rows, cells or slides than expected, passes: the comparison only runs over the items both sides have. OSWorld-family metrics compare documents with `zip(doc1.paragraphs, doc2.paragraphs)` and notebooks with `zip(a.items(), b.items())`.',
      incorrect: [
        { files: { 'metrics/docs.py': 'def compare_lines(result_lines, expected_lines):\n    for got, want in zip(result_lines, expected_lines):  # vaudit-expect: vacuous-verdict/zipTruncation\n        if got.strip() != want.strip():\n            return 0\n    return 1\n' } },
      ],
      correct: [
        { files: { 'metrics/docs.py': 'def compare_lines(result_lines, expected_lines):\n    if len(result_lines) != len(expected_lines):\n        return 0\n    for got, want in zip(result_lines, expected_lines):\n        if got.strip() != want.strip():\n            return 0\n    return 1\n' } },
      ],
    },
    confirm: {
      oracle: 'vacuous-verdict',
      description: 'Runs the function with the named collection empty (and, for zip, the other side non-empty); a passing verdict confirms the check is vacuous.',
    },
  },
  create() {
    return {
      python: {
        call(n, c) {
          const a = c.python;
          const f = field(n, 'function');
          if (!f || f.type !== 'identifier') return;
          const name = a.src(f);
          if (name !== 'zip' && name !== 'all') return;
          const fn = a.functionAt(n);
          if (!fn || !onVerdictPath(c, a, fn)) return;
          const args = named(field(n, 'arguments') ?? n);
          if (name === 'zip') {
            if (args.length !== 2 || args.some((x) => x.type === 'keyword_argument' || x.type === 'list_splat' || x.type === 'list' || x.type === 'tuple')) return;
            // the zip feeds a loop or a generator
            const p = n.parent;
            const feeds = p && (p.type === 'for_statement' || p.type === 'for_in_clause') && field(p, 'right') === n;
            if (!feeds) return;
            const [x, y] = args as [PyNode, PyNode];
            const ta = a.src(x), tb = a.src(y);
            const roots = [ta, tb, rootName(a, x), rootName(a, y)].filter((t): t is string => !!t);
            if (guarded(a, fn, [ta, tb, ...roots.filter((r) => r !== 'self')])) return;
            const ia = paramOf(a, fn, x), ib = paramOf(a, fn, y);
            c.report({
              messageId: 'zipTruncation',
              data: { call: a.src(n), a: ta, b: tb, input: `a result whose \`${ta}\` is empty or shorter than \`${tb}\`` },
              at: n,
              control: { oracle: 'vacuous-verdict', shape: 'zip', file: a.path, line: a.line(n), qualname: fn.qualname, empty: ia, other: ib },
            });
            return;
          }
          // return all(<gen> for x in C)
          // `return all(...)`, or `return float(all(...))`
          const wrap = n.parent?.type === 'argument_list' && n.parent.parent?.type === 'call' && ['float', 'int', 'bool'].includes(a.src(field(n.parent.parent, 'function') ?? n)) ? n.parent.parent : n;
          const ret = wrap.parent?.type === 'return_statement' ? wrap.parent : undefined;
          const argNode = field(n, 'arguments');
          const gen = argNode?.type === 'generator_expression' ? argNode : args.length === 1 ? args[0] : undefined;
          if (!ret || gen?.type !== 'generator_expression') return;
          const clause = named(gen).find((k) => k.type === 'for_in_clause');
          const coll = clause ? field(clause, 'right') : undefined;
          if (!coll || coll.type !== 'identifier' || !fromResult(a, fn, coll)) return;
          const ct = a.src(coll);
          if (guarded(a, fn, [ct])) return;
          c.report({
            messageId: 'emptyAll',
            data: { call: a.src(n).length > 60 ? `all(... for ... in ${ct})` : a.src(n), collection: ct, input: `an empty \`${ct}\`` },
            at: n,
            control: { oracle: 'vacuous-verdict', shape: 'all', file: a.path, line: a.line(n), qualname: fn.qualname, empty: paramOf(a, fn, coll), other: -1 },
          });
        },
        for_statement(n, c) {
          const a = c.python;
          if (field(n, 'alternative')) return;
          const coll = field(n, 'right');
          if (!coll || coll.type !== 'identifier') return;
          const fn = a.functionAt(n);
          if (!fn || !onVerdictPath(c, a, fn)) return;
          // the body can only fail: every return in it is a failing constant, and there is one
          let fails = 0;
          let other = false;
          walk(field(n, 'body') ?? n, (k) => {
            if (k.type === 'function_definition' || k.type === 'lambda') return false;
            if (k.type === 'return_statement') {
              if (constTruth(a, named(k)[0]) === false) fails++;
              else other = true;
            }
            if (k.type === 'break_statement' || k.type === 'raise_statement') other = true;
            return undefined;
          });
          if (!fails || other) return;
          const sibs = named(n.parent ?? n).filter((k) => k.type !== 'comment');
          const next = sibs[sibs.indexOf(n) + 1];
          if (next?.type !== 'return_statement' || constTruth(a, named(next)[0]) !== true) return;
          const ct = a.src(coll);
          if (!fromResult(a, fn, coll) || guarded(a, fn, [ct])) return;
          c.report({
            messageId: 'emptyLoop',
            data: { verdict: a.src(named(next)[0]!), collection: ct, input: `an empty \`${ct}\`` },
            at: { start: n.start, end: (field(n, 'right') ?? n).end },
            control: { oracle: 'vacuous-verdict', shape: 'loop', file: a.path, line: a.line(n), qualname: fn.qualname, empty: paramOf(a, fn, coll), other: -1 },
          });
        },
      },
    };
  },
});
