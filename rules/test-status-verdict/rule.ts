/**
 * test-status-verdict — a grader that maps test statuses to a verdict (SWE-bench-style: a patch
 * resolves an issue when its FAIL_TO_PASS tests pass) and counts a test as passed although it never
 * ran its assertions, or drops it from the count:
 *
 * - `skipAsPass`: a success set holds SKIPPED or XFAIL beside PASSED (`status in [PASSED, XFAIL]`,
 *   `passed(c) or sm[c] == SKIPPED`);
 * - `absentAsPass`: a test missing from the status map passes (`c not in sm or sm[c] == PASSED`,
 *   `sm.get(c, "PASSED")`);
 * - `denyList`: only failure statuses fail (`sm.get(c) != FAILED` returned, `if sm[c] == FAILED:
 *   failed.append(c) else: passed.append(c)`): skipped, errored and absent tests pass;
 * - `emptyMap`: the status map itself is iterated (`all(s == PASSED for s in sm.values())`), so a run
 *   whose suite never started (an empty map) passes;
 * - `dropped`: an `if`/`elif` sorts tests into passed and failed with no `else`, and no branch takes
 *   SKIPPED: a skipped test is counted neither way and drops out of the ratio;
 * - `jsDropped` (JS/TS, js-dropped.ts): a filter, a subtracted denominator, or an `if`/`else if` or `switch`
 *   with no catch-all removes skipped or errored tests from what decides the verdict.
 *
 * Statuses are recognised by their words (pytest, unittest, JUnit, jest, Go test, CI check runs:
 * status.ts), as string constants or upper-case enum members, never by a suite's names.
 */
import { defineRule, type PythonVisitor } from '../../src/contract/rule.js';
import type { ControlCaseRequest } from '../../src/core/types.js';
import type { FunctionInfo, PythonAnalysis } from '../../src/lang/python/types.js';
import { comparisonOperators, field, named, nextNamed, unparen, walk, type PyNode } from '../../src/lang/python/tree.js';
import { isVerdictFunction, pythonVerdictShapes } from '../../src/suites/verdict.js';
import { pyConst, verdictTruth } from '../../src/suites/verdict-shape.js';
import { countingTarget, verdictPolarity } from '../../src/suites/verdict-polarity.js';
import { boolAtoms, boolOp, kinds, statusOf, statusTest, words, type Msg, type Status, type StatusTest } from './status.js';
import { jsDroppedChecks, jsStatusChecks } from './js-status.js';

type Ctx = Parameters<PythonVisitor<Msg>>[1];

function short(s: string, max = 60): string {
  const one = s.replace(/\s+/g, ' ');
  return one.length > max ? `${one.slice(0, max - 3)}...` : one;
}

function onPath(c: Ctx, n: PyNode): FunctionInfo | undefined {
  const fn = c.python.functionAt(n);
  return fn && (isVerdictFunction(c.project, c.python.path, fn) ?? true) ? fn : undefined;
}

/** Where the witness goes: the parameter holding the status itself, or the status map and the test key
 *  (a list when the function iterates it), for the oracle. */
function controlFor(a: PythonAnalysis, fn: FunctionInfo, subject: PyNode | undefined, n: PyNode, shape: string, status: string): ControlCaseRequest {
  const params = fn.classNode ? fn.params.slice(1) : fn.params;
  const idx = (name: string | undefined) => (name ? params.indexOf(name) : -1);
  const out: ControlCaseRequest = { oracle: 'test-status-verdict', file: a.path, line: a.line(n), qualname: fn.qualname, shape, status, value: -1, map: -1, key: -1, keyList: false };
  const s = subject ? unparen(subject) : undefined;
  if (s?.type === 'identifier') out.value = idx(a.src(s));
  let m: PyNode | undefined;
  let k: PyNode | undefined;
  if (s?.type === 'subscript') [m, k] = [field(s, 'value'), field(s, 'subscript')];
  if (s?.type === 'call') {
    const f = field(s, 'function');
    if (f?.type === 'attribute' && a.src(field(f, 'attribute') ?? f) === 'get') [m, k] = [field(f, 'object'), named(field(s, 'arguments') ?? s)[0]];
  }
  if (m?.type === 'identifier') out.map = idx(a.src(m));
  if (k?.type === 'identifier') {
    out.key = idx(a.src(k));
    // `for t in tests: … sm[t]`: the test list is the parameter
    if (out.key === -1)
      for (let p = n.parent; p && p !== fn.node && out.key === -1; p = p.parent) {
        const loops = p.type === 'for_statement' ? [p] : p.type === 'generator_expression' || p.type.endsWith('comprehension') ? named(p).filter((x) => x.type === 'for_in_clause') : [];
        for (const l of loops) {
          const left = field(l, 'left');
          const right = field(l, 'right');
          if (left && right?.type === 'identifier' && a.src(left) === a.src(k) && idx(a.src(right)) >= 0) {
            out.key = idx(a.src(right));
            out.keyList = true;
          }
        }
      }
  }
  return out;
}

const onlyFail = (ss: readonly Status[]) => ss.length > 0 && ss.every((s) => s.kind === 'fail');
const onlyPass = (ss: readonly Status[]) => ss.length > 0 && ss.every((s) => s.kind === 'pass');
/** A success set: some pass status, some skip status, no failure status. */
const skipInPass = (ss: readonly Status[]) => {
  const k = kinds(ss);
  return k.has('pass') && k.has('skip') && !k.has('fail');
};

/** How a boolean sub-expression reaches the verdict (src/suites/verdict-polarity.ts); an `if` whose body counts
 *  or skips (`continue`, `passed.append(t)`) decides in the positive direction. */
function polarity(a: PythonAnalysis, start: PyNode, c: Ctx, returnedOnly = false): boolean | undefined {
  return verdictPolarity(a, start, pythonVerdictShapes(c.project), { returnedOnly, countingIf: true, assignedVerdict: true });
}

/** The project function a call runs (a module function or an import), when it resolves. */
function callee(c: Ctx, call: PyNode): { a: PythonAnalysis; fn: FunctionInfo } | undefined {
  const f = field(call, 'function');
  if (f?.type !== 'identifier') return undefined;
  const r = c.project.python.resolveFunction(c.python.path, c.python.src(f));
  const a = r ? c.project.python.analysis(r.file) : undefined;
  return r && a ? { a, fn: r.fn } : undefined;
}

/** The status tests of a function's returned expressions. */
function returnedTests(a: PythonAnalysis, fn: FunctionInfo): StatusTest[] {
  const out: StatusTest[] = [];
  walk(field(fn.node, 'body') ?? fn.node, (k) => {
    if (k.type === 'function_definition' || k.type === 'lambda' || k.type === 'class_definition') return false;
    if (k.type !== 'return_statement') return;
    walk(k, (x) => {
      const t = statusTest(a, x);
      if (t) out.push(t);
    });
    return false;
  });
  return out;
}

/** `K not in M` where M is not a status set: the test is absent from the map. */
function absence(a: PythonAnalysis, n0: PyNode): { key: string; map: string } | undefined {
  const n = unparen(n0);
  if (n.type !== 'comparison_operator') return undefined;
  const ops = comparisonOperators(n);
  const [l, r] = named(n);
  if (ops.length !== 1 || ops[0] !== 'not in' || !l || !r || statusTest(a, n)) return undefined;
  return { key: a.src(l), map: a.src(r) };
}

/** Statuses (and absence) a condition accepts, through calls of project predicates one level deep. */
function accepted(c: Ctx, cond: PyNode): { statuses: Status[]; absent: boolean; tests: number } {
  const out = { statuses: [] as Status[], absent: false, tests: 0 };
  const take = (a: PythonAnalysis, t: StatusTest | undefined) => {
    if (!t) return;
    out.tests++;
    if (t.positive) out.statuses.push(...t.statuses);
  };
  walk(cond, (k) => {
    if (absence(c.python, k)) out.absent = true;
    take(c.python, statusTest(c.python, k));
    if (k.type === 'call') {
      const r = callee(c, k);
      if (r) {
        for (const t of returnedTests(r.a, r.fn)) take(r.a, t);
        walk(field(r.fn.node, 'body') ?? r.fn.node, (x) => {
          if (x.type === 'return_statement') walk(x, (y) => {
            if (absence(r.a, y)) out.absent = true;
          });
        });
      }
    }
  });
  return out;
}

/** Does the function test `name` for emptiness (`len(name)`, `not name`, `if name:`)? */
function emptinessTested(a: PythonAnalysis, fn: FunctionInfo, name: string): boolean {
  let hit = false;
  walk(fn.node, (n) => {
    if (hit) return false;
    if (n.type === 'call' && a.src(field(n, 'function') ?? n) === 'len' && a.src(named(field(n, 'arguments') ?? n)[0] ?? n) === name) hit = true;
    if (n.type === 'not_operator' && a.src(unparen(field(n, 'argument') ?? n)) === name) hit = true;
    if ((n.type === 'if_statement' || n.type === 'elif_clause' || n.type === 'assert_statement') && a.src(unparen(field(n, 'condition') ?? named(n)[0] ?? n)) === name) hit = true;
    return undefined;
  });
  return hit;
}

/** `M.values()` / `M.items()` / `M` iterated by a generator whose `for` clause binds `v`: M's text. */
function iteratedMap(a: PythonAnalysis, gen: PyNode): { map: PyNode; vars: Set<string> } | undefined {
  const clause = named(gen).find((k) => k.type === 'for_in_clause');
  const right = clause ? field(clause, 'right') : undefined;
  const left = clause ? field(clause, 'left') : undefined;
  if (!right || !left || right.type !== 'call') return undefined;
  const f = field(right, 'function');
  if (f?.type !== 'attribute' || !['values', 'items'].includes(a.src(field(f, 'attribute') ?? f))) return undefined;
  const vars = new Set<string>();
  walk(left, (k) => {
    if (k.type === 'identifier') vars.add(a.src(k));
  });
  return { map: field(f, 'object') ?? f, vars };
}

/** The map is what the run produced (a parameter, or a call's result), not a map built here from the required tests. */
function producedMap(a: PythonAnalysis, fn: FunctionInfo, map: PyNode): boolean {
  if (map.type !== 'identifier') return map.type === 'attribute' || map.type === 'subscript';
  if (fn.params.includes(a.src(map))) return true;
  const src = a.valueSources(map).filter((s) => s !== map);
  return src.length > 0 && src.every((s) => unparen(s).type === 'call');
}

export default defineRule<Msg>({
  meta: {
    id: 'test-status-verdict',
    description: 'A grader that maps test statuses to a verdict counts a skipped, expected-to-fail or absent test as passed, accepts an empty status map, or drops a status from the count.',
    defaultSeverity: 'error',
    layers: ['python', 'javascript'],
    languages: ['python', 'javascript', 'typescript'],
    messages: {
      skipAsPass: {
        what: '`{{test}}` accepts {{statuses}} as a pass.',
        why: 'A test that was skipped, or failed as expected (XFAIL), never ran its assertion to success: a patch that marks the required test skipped or xfail resolves the task without fixing anything.',
        fix: 'Count only statuses of a test that ran and passed (`PASSED`, and `XPASS` if wanted) as a pass; treat {{skips}} as a failure for tests that must pass.',
      },
      absentAsPass: {
        what: '`{{test}}` passes a test that is missing from the status map.',
        why: 'A required test that never ran (the suite crashed, the test was renamed or deleted, the log was truncated) counts as passed.',
        fix: 'Require the test to be present with a passing status: `{{map}}.get({{key}}) == PASSED`, and fail when it is absent.',
      },
      jsAbsentAsPass: {
        what: '`{{test}}` passes a test that is missing from the status map.',
        why: 'A required test that never ran (the suite crashed, the test was renamed or deleted, the report was truncated) counts as passed.',
        fix: 'Require the test to be present with a passing status (`{{map}}.get({{key}}) === "passed"`, or `{{map}}[{{key}}] === "passed"` for an object), and fail when it is absent.',
      },
      jsEmptyMap: {
        what: '`{{test}}` looks only at the statuses in `{{map}}`, not at the tests that must pass.',
        why: 'When the suite never ran (an empty report) or the required tests are missing from it, `.every()` of nothing is true and the run passes.',
        fix: 'Iterate the required tests and look each one up: `required.length > 0 && required.every((t) => statuses[t] === "passed")`.',
      },
      denyList: {
        what: 'Only {{statuses}} counts as a failure here: `{{test}}` lets every other status through.',
        why: 'A required test that was skipped, errored, or is missing from the status map counts as passed.',
        fix: 'Decide on an allow-list: pass only when the status is `PASSED` (present in the map); everything else fails.',
      },
      emptyMap: {
        what: '`{{test}}` looks only at the statuses in `{{map}}`, not at the tests that must pass.',
        why: 'When the suite never ran (an empty map) or the required tests are missing from it, nothing fails and the run passes.',
        fix: 'Iterate the required tests and look each one up: `all({{map}}.get(t) == PASSED for t in required)`, with `required` non-empty.',
      },
      jsDropped: {
        what: '`{{test}}` leaves {{missing}} tests out of the count: {{how}}.',
        why: 'A required test that was skipped or errored is counted neither as passed nor as failed, so it drops out: when the test that must pass is skipped, the verdict is decided by the others and can pass.',
        fix: 'Count every status other than a pass (and a missing test) as a failure: compare the passes with the number of required tests, or add a catch-all branch that counts a failure.',
      },
      dropped: {
        what: 'This `if`/`elif` sorts tests into `{{passed}}` and `{{failed}}` with no `else`, and no branch takes {{missing}}.',
        why: 'A test with that status is counted neither as passed nor as failed, so it drops out of the denominator: when every required test is skipped the ratio is computed over nothing and can read as resolved.',
        fix: 'Add an `else` that counts every other status (and an absent test) as failed, or list {{missing}} in the failing condition.',
      },
    },
    docs: {
      whatItDoes:
        'Reads the comparisons of test statuses — string constants or upper-case enum members whose word is a test outcome of pytest, unittest, JUnit, jest, Go test or CI check runs (`PASSED`, `FAILED`, `ERROR`, `SKIPPED`, `XFAIL`, `XPASS`, `pending`, `success`…) — on a verdict path (any function when no task entry is bound). Flags a success set that holds a skip status (SKIPPED, XFAIL, pending…) beside a pass status and no failure status (`in [...]`, an `or` of `==`, or a passing predicate `or`-ed with a skip test); a test absent from the map counted as passed (`k not in m or m[k] == PASSED`, `m.get(k, PASSED)`); a deny-list verdict where only failure statuses fail (`m.get(k) != FAILED` returned or under `all()`, `if m[k] == FAILED: failed.append(k) else: passed.append(k)`, a loop whose only failing exit tests a failure status); an `all()` over the status map\'s own values (`m.values()`, `m.items()`) with no emptiness check when the map comes from the run; and an `if`/`elif` with no `else` whose branches append the same test to two lists and whose conditions (through one level of project predicates such as `test_passed(case, sm)`) never take a skip status. In JavaScript and TypeScript (jest/vitest/mocha/Playwright reports, JUnit parsed to objects): a success set with a skip status (`[\'passed\', \'skipped\'].includes(s)`, `s === \'passed\' || s === \'pending\'`), a passing default for an absent test (`(m[t] ?? \'passed\') === \'passed\'`, `!(t in m) || m[t] === \'passed\'`, `!m.has(t) || …`), a deny-list test (`m[t] !== \'failed\'`) that passes the agent, and `.every()` over the statuses the run produced (`Object.values(m).every((s) => s === \'passed\')`) with no test of their number; and a skipped or errored test dropped from the count (`results.filter((r) => r.status !== \'skipped\').every((r) => r.status === \'passed\')`, the predicate inline or a named `const`/function, `passes / (tests - pending)` with a subtrahend that counts a non-pass status, the difference inline or held in a `const`, an `if`/`else if` chain or `switch` that counts passes and failures with no catch-all branch (or one that only logs, or a `case` naming the skip statuses that only logs them) when the verdict reads only the failures or their sum), each when the code shows the test deciding the verdict (returned, through `&&`/`||`/`!`, `.every()`/`.some()` callbacks, a conditional or `if` returning constant verdicts, a counting `if`, a local read later, or a verdict key of the returned object).',
      why: 'SWE-bench-style graders decide "resolved" from the status of the FAIL_TO_PASS and PASS_TO_PASS tests. A skipped or xfail-marked test never ran its assertions; an absent test never ran at all; an empty map means the suite did not start. Counting any of these as passed (or dropping them from the ratio) lets a patch that disables the test, or breaks collection, resolve the task.',
    },
    confirm: {
      oracle: 'test-status-verdict',
      description: 'Runs the grading function with the status map holding the required test as SKIPPED/XFAIL (or not at all, or an empty map) and the test list naming it; a passing verdict confirms.',
    },
  },
  create(ctx) {
    return {
      javascript: {
        BinaryExpression(node, c, ancestors) {
          jsStatusChecks(node, c, ancestors, ctx.project);
          jsDroppedChecks(node, c, ancestors, ctx.project);
        },
        IfStatement(node, c, ancestors) {
          jsDroppedChecks(node, c, ancestors, ctx.project);
        },
        SwitchStatement(node, c, ancestors) {
          jsDroppedChecks(node, c, ancestors, ctx.project);
        },
        CallExpression(node, c, ancestors) {
          jsStatusChecks(node, c, ancestors, ctx.project);
        },
        LogicalExpression(node, c, ancestors) {
          jsStatusChecks(node, c, ancestors, ctx.project);
        },
      },
      python: {
        comparison_operator: onComparison,
        boolean_operator: onOr,
        call: onCall,
        if_statement: onIf,
        for_statement: onFor,
      },
    };
  },
});

/** The test is the condition of an `if` whose body returns a constant verdict (`if … : return 0.0`). */
function loopExit(a: PythonAnalysis, n: PyNode): boolean {
  const p = n.parent;
  if (p?.type !== 'if_statement' || field(p, 'condition') !== n) return false;
  const ret = named(field(p, 'consequence') ?? p).find((s) => s.type === 'return_statement');
  return !!ret && verdictTruth(pyConst(a, named(ret)[0] ?? ret)) !== undefined;
}

/** The first skip status of a set, as written (the witness the oracle puts in the map). */
function firstSkip(ss: readonly Status[]): string {
  return ss.find((s) => s.kind === 'skip')?.word ?? 'SKIPPED';
}

function paramIndex(fn: FunctionInfo, name: string): number {
  return (fn.classNode ? fn.params.slice(1) : fn.params).indexOf(name);
}

/** The skip statuses of a set, as written. */
function skipWords(ss: readonly Status[]): string {
  return words(ss.filter((s) => s.kind === 'skip'));
}

/** The test is the element of an `all()`/`any()` over a map's values (reported as `emptyMap` there). */
function iteratedValues(a: PythonAnalysis, n: PyNode): boolean {
  const gen = n.parent?.type === 'generator_expression' ? n.parent : undefined;
  return !!gen && !!iteratedMap(a, gen);
}

function onComparison(n: PyNode, c: Ctx): void {
    const a = c.python;
    const t = statusTest(a, n);
    if (t) {
      // chains of `==` are judged at their `or`
      const parent = n.parent ? unparen(n.parent) : undefined;
      const inOr = n.parent?.type === 'boolean_operator' && boolOp(a, n.parent) === 'or';
      const fn = onPath(c, n);
      if (!fn) return;
      if (t.positive && skipInPass(t.statuses) && !(inOr && t.statuses.length === 1) && polarity(a, n, c) === true) {
        c.report({ messageId: 'skipAsPass', data: { test: short(a.src(n)), statuses: skipWords(t.statuses), skips: skipWords(t.statuses) }, at: n, control: controlFor(a, fn, t.subject, n, 'status', firstSkip(t.statuses)) });
        return;
      }
      if (onlyFail(t.statuses)) {
        // returned (`return sm.get(c) != FAILED`); an `if … == FAILED: return False` exit is judged with its loop
        const pol = polarity(a, n, c, true);
        if (pol !== undefined && pol === !t.positive && !parent?.type.startsWith('comparison')) {
          if (iteratedValues(a, n)) return;
          c.report({ messageId: 'denyList', data: { statuses: words(t.statuses), test: short(a.src(n)) }, at: n, control: controlFor(a, fn, t.subject, n, 'status', 'SKIPPED') });
        }
      }
      return;
    }
    // `FAILED not in sm.values()`
    const ops = comparisonOperators(n);
    const [l, r] = named(n);
    if (ops.length === 1 && ops[0] === 'not in' && l && r && statusOf(c.python, l)?.kind === 'fail' && r.type === 'call') {
      const f = field(r, 'function');
      const fn = onPath(c, n);
      if (!fn || f?.type !== 'attribute' || a.src(field(f, 'attribute') ?? f) !== 'values') return;
      const map = field(f, 'object') ?? f;
      if (polarity(a, n, c) !== true || !producedMap(a, fn, map) || emptinessTested(a, fn, a.src(map))) return;
      c.report({ messageId: 'emptyMap', data: { test: short(a.src(n)), map: a.src(map) }, at: n, control: { ...controlFor(a, fn, undefined, n, 'empty', ''), map: paramIndex(fn, a.src(map)) } });
    }
}

function onOr(n: PyNode, c: Ctx): void {
    const a = c.python;
    if (boolOp(a, n) !== 'or') return;
    if (n.parent?.type === 'boolean_operator' && boolOp(a, n.parent) === 'or') return;
    const fn = onPath(c, n);
    if (!fn) return;
    const atoms = boolAtoms(a, n, 'or');
    // each alternative's status test (through `and`: `c in sm and sm[c] == SKIPPED`)
    const tests = atoms.map((x) => boolAtoms(a, x, 'and').map((y) => statusTest(a, y)).find((t) => t?.positive));
    // an `or` of `==` tests, or a passing predicate or-ed with a skip test
    const positive = tests.filter((t): t is StatusTest => !!t && t.positive);
    const union = positive.flatMap((t) => t.statuses);
    const predicatePass = atoms.some((x, i) => !tests[i] && x.type === 'call' && (() => {
      const r = callee(c, x);
      return !!r && returnedTests(r.a, r.fn).some((t) => t.positive && t.statuses.some((s) => s.kind === 'pass'));
    })());
    const skipAtom = positive.some((t) => t.statuses.every((s) => s.kind === 'skip'));
    if (positive.length >= 1 && !positive.some((t) => skipInPass(t.statuses)) && (skipInPass(union) || (predicatePass && skipAtom && !kinds(union).has('fail'))) && polarity(a, n, c) === true) {
      c.report({ messageId: 'skipAsPass', data: { test: short(a.src(n)), statuses: skipWords(union), skips: skipWords(union) }, at: n, control: controlFor(a, fn, positive.find((t) => t.statuses.some((x) => x.kind === 'skip'))?.subject, n, 'status', firstSkip(union)) });
      return;
    }
    // `k not in m or m[k] == PASSED`
    for (const x of atoms) {
      const abs = absence(a, x);
      if (!abs) continue;
      const passes = positive.some((t) => onlyPass(t.statuses) && [`${abs.map}[${abs.key}]`, `${abs.map}.get(${abs.key})`].includes(a.src(t.subject).replace(/\s+/g, '')));
      if (passes && polarity(a, n, c) !== false) {
        c.report({ messageId: 'absentAsPass', data: { test: short(a.src(n)), map: abs.map, key: abs.key }, at: n, control: controlFor(a, fn, positive[0]?.subject, n, 'absent', '') });
        return;
      }
    }
}

function onCall(n: PyNode, c: Ctx): void {
    const a = c.python;
    const f = field(n, 'function');
    if (!f) return;
    // m.get(k, PASSED)
    if (f.type === 'attribute' && a.src(field(f, 'attribute') ?? f) === 'get') {
      const [k, d] = named(field(n, 'arguments') ?? n);
      // compared with a status to decide the verdict: `sm.get(t, PASSED) != PASSED` (through the loop's exit)
      const cmp = n.parent ? statusTest(a, n.parent) : undefined;
      const decides = cmp ? polarity(a, cmp.node, c) !== undefined || loopExit(a, cmp.node) : false;
      if (k && d && statusOf(a, d)?.kind === 'pass' && decides && onPath(c, n)) {
        const map = a.src(field(f, 'object') ?? f);
        const fn = onPath(c, n)!;
        c.report({ messageId: 'absentAsPass', data: { test: short(a.src(n)), map, key: a.src(k) }, at: n, control: controlFor(a, fn, n, n, 'absent', '') });
      }
      return;
    }
    // all(s == PASSED for s in m.values()), not any(s == FAILED for s in m.values())
    const name = f.type === 'identifier' ? a.src(f) : '';
    if (name !== 'all' && name !== 'any') return;
    const gen = field(n, 'arguments');
    if (gen?.type !== 'generator_expression') return;
    const body = field(gen, 'body');
    const it = iteratedMap(a, gen);
    const t = body ? statusTest(a, body) : undefined;
    if (!it || !t || !t.positive) return;
    const subj = a.src(t.subject);
    if (![...it.vars].some((v) => subj === v || subj.startsWith(`${v}[`) || subj.startsWith(`${v}.`))) return;
    const fn = onPath(c, n);
    if (!fn || !producedMap(a, fn, it.map) || emptinessTested(a, fn, a.src(it.map))) return;
    const pol = polarity(a, n, c);
    const passWhenAll = name === 'all' && onlyPass(t.statuses) && pol === true;
    const passWhenNone = name === 'any' && onlyFail(t.statuses) && pol === false;
    if (passWhenAll || passWhenNone) c.report({ messageId: 'emptyMap', data: { test: short(a.src(n)), map: a.src(it.map) }, at: n, control: { ...controlFor(a, fn, undefined, n, 'empty', ''), map: paramIndex(fn, a.src(it.map)) } });
}

function onIf(n: PyNode, c: Ctx): void {
    const a = c.python;
    const cond = field(n, 'condition');
    if (!cond) return;
    const elifs = n.children.filter((k) => k.type === 'elif_clause');
    const els = n.children.find((k) => k.type === 'else_clause');
    // if FAILED: failed.append(x) else: passed.append(x)
    if (els && !elifs.length) {
      const yes = countingTarget(a, field(n, 'consequence'));
      const no = countingTarget(a, field(els, 'body'));
      const tests = boolAtoms(a, cond, 'and').map((x) => statusTest(a, x)).filter((t): t is StatusTest => !!t);
      const fn = onPath(c, n);
      if (fn && yes && no && yes !== no && tests.length && tests.every((t) => t.positive && onlyFail(t.statuses))) {
        c.report({ messageId: 'denyList', data: { statuses: words(tests.flatMap((t) => t.statuses)), test: short(a.src(tests[0]!.node)) }, at: tests[0]!.node });
      }
      return;
    }
    // if passed(x): ok.append(x) elif failed(x): bad.append(x)   (no else)
    if (els || elifs.length !== 1) return;
    const passed = countingTarget(a, field(n, 'consequence'));
    const failed = countingTarget(a, field(elifs[0]!, 'consequence'));
    const econd = field(elifs[0]!, 'condition');
    if (!passed || !failed || passed === failed || !econd || !onPath(c, n)) return;
    const p = accepted(c, cond);
    const q = accepted(c, econd);
    if (!p.tests || !q.tests) return;
    const all = [...p.statuses, ...q.statuses];
    // a skipped test (XFAIL is a status of its own: a test that ran and failed as expected)
    if (all.some((x) => x.kind === 'skip' && !/^x/i.test(x.word))) return;
    const missing = ['SKIPPED'];
    if (!all.some((s) => /^error/i.test(s.word))) missing.push('ERROR');
    if (!p.absent && !q.absent) missing.push('an absent test');
    c.report({ messageId: 'dropped', data: { passed, failed, missing: missing.join(', ') }, at: { start: n.start, end: cond.end } });
}

function onFor(n: PyNode, c: Ctx): void {
    // for t in tests: if sm.get(t) == FAILED: return False  …  return True
    const a = c.python;
    const body = field(n, 'body');
    if (!body || field(n, 'alternative')) return;
    const next = nextNamed(n);
    const shapes = pythonVerdictShapes(c.project);
    if (next?.type !== 'return_statement' || verdictTruth(pyConst(a, named(next)[0] ?? next), shapes) !== true) return;
    let failExit: StatusTest | undefined;
    let other = false;
    walk(body, (k) => {
      if (k.type === 'function_definition' || k.type === 'lambda') return false;
      const t = statusTest(a, k);
      if (t && (t.positive ? !onlyFail(t.statuses) : true)) other = true;
      if (k.type === 'if_statement') {
        const cond = field(k, 'condition');
        const ret = named(field(k, 'consequence') ?? k).find((s) => s.type === 'return_statement');
        const tt = cond ? statusTest(a, cond) : undefined;
        if (tt?.positive && onlyFail(tt.statuses) && ret && verdictTruth(pyConst(a, named(ret)[0] ?? ret), shapes) === false) failExit ??= tt;
      }
      if (k.type === 'return_statement' && verdictTruth(pyConst(a, named(k)[0] ?? k), shapes) !== false) other = true;
      return undefined;
    });
    const fn = onPath(c, n);
    if (!failExit || other || !fn) return;
    c.report({ messageId: 'denyList', data: { statuses: words(failExit.statuses), test: short(a.src(failExit.node)) }, at: failExit.node, control: controlFor(a, fn, failExit.subject, failExit.node, 'status', 'SKIPPED') });
}
