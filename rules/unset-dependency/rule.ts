/**
 * unset-dependency — a dependency the grading code calls (a judge, a captioning model, a client),
 * taken as a parameter that defaults to None, called without a check, and left at that default by a
 * caller in the project.
 *
 * The shape real benchmarks shipped: an evaluator router `router(config, captioning_fn=None)` builds
 * `ImageEvaluator(captioning_fn)` for one evaluation type; the evaluator stores it (`self.captioning_fn
 * = captioning_fn`) and later calls `self.captioning_fn(...)`; the run script calls `router(config)`.
 * Every task of that type then crashes with "'NoneType' object is not callable" (or the harness turns
 * that into a score of 0), whatever the agent did.
 *
 * Boundary: the parameter's default is the literal None; the use is a call of the parameter (or of one
 * of its methods), in the function itself or, through a constructor argument stored on `self` as-is,
 * in a method of that class; no condition, assert or reassignment before it mentions the name (for a
 * stored attribute: anywhere in the class); and a call of the function in the project passes neither
 * the argument by position nor by keyword (nor `*args`/`**kwargs`). Without such a caller the default is
 * only an API choice and nothing is reported.
 */
import { rel } from '../../src/core/paths.js';
import { defineRule, type PythonVisitor } from '../../src/contract/rule.js';
import type { FunctionInfo, PythonAnalysis, PythonProject } from '../../src/lang/python/types.js';
import { field, named, unparen, walk, type PyNode } from '../../src/lang/python/tree.js';
import { signatureOf } from '../../src/lang/python/signature.js';
import { callersOf } from '../../src/suites/harness/py-values.js';
import { classOfExpr, methodOf, type ClassRef } from '../../src/suites/harness/py-classes.js';

type Msg = 'unset';
type PyCtx = Parameters<PythonVisitor<Msg>>[1];

/** A call that needs the dependency: where it is and how it reads. */
interface Use {
  /** Called in the function that takes the parameter (not in a method of an object it builds). */
  direct: boolean;
  file: string;
  node: PyNode;
  text: string;
  where: string;
}

interface Omit {
  a: PythonAnalysis;
  node: PyNode;
}

const mentionsRe = (name: string) => new RegExp(`(^|[^\\w.])${name.replace(/[.]/g, '\\.')}(?![\\w])`);

/** The function's parameters that default to None: name and positional index (after self/cls). */
function noneDefaults(a: PythonAnalysis, fn: FunctionInfo): Array<{ name: string; index: number; node: PyNode }> {
  const sig = signatureOf(a, fn);
  const params = fn.classNode ? sig.params.slice(1) : sig.params;
  const out: Array<{ name: string; index: number; node: PyNode }> = [];
  params.forEach((p, i) => {
    if (!p.optional) return;
    const v = p.node.type === 'default_parameter' || p.node.type === 'typed_default_parameter' ? field(p.node, 'value') : undefined;
    if (v?.type === 'none') out.push({ name: p.name, index: p.kind === 'keyword' ? Infinity : i, node: p.node });
  });
  return out;
}

/** The test of an `if`/`elif`/`while` (its condition), an `assert`, `a if <test> else b` or `<test> and/or b`. */
function conditionOf(m: PyNode): PyNode | undefined {
  if (m.type === 'assert_statement') return named(m)[0];
  if (m.type === 'conditional_expression') return named(m)[1];
  if (m.type === 'boolean_operator') return field(m, 'left') ?? undefined;
  return field(m, 'condition') ?? undefined;
}

/** Statements before `n` in the function (any enclosing block) that check or rebind `name`, or a condition around it. */
function guardedIn(a: PythonAnalysis, body: PyNode, n: PyNode, name: string): boolean {
  const re = mentionsRe(name);
  for (let p: PyNode | null = n.parent, child: PyNode = n; p && child !== body; child = p, p = p.parent) {
    if (p.type === 'if_statement' || p.type === 'elif_clause' || p.type === 'while_statement' || p.type === 'conditional_expression' || p.type === 'boolean_operator') {
      const cond = conditionOf(p);
      if (cond && cond !== child && re.test(a.src(cond))) return true;
    }
    if (p.type === 'try_statement') return true; // what a handler makes of the TypeError is another rule's question
  }
  let guarded = false;
  walk(body, (m) => {
    if (guarded || m.start >= n.start) return false;
    if (m.type === 'function_definition' || m.type === 'class_definition' || m.type === 'lambda') return false;
    if (m.type === 'if_statement' || m.type === 'assert_statement' || m.type === 'while_statement') {
      const cond = conditionOf(m);
      if (cond && re.test(a.src(cond))) guarded = true;
    }
    if ((m.type === 'assignment' || m.type === 'augmented_assignment') && re.test(a.src(field(m, 'left')!))) guarded = true;
    return undefined;
  });
  return guarded;
}

/** Calls of `name(...)` or `name.m(...)` in `scope` (not in nested definitions). */
function callsOf(a: PythonAnalysis, scope: PyNode, name: string): PyNode[] {
  const out: PyNode[] = [];
  walk(scope, (m) => {
    if (m !== scope && (m.type === 'function_definition' || m.type === 'class_definition' || m.type === 'lambda')) return false;
    if (m.type !== 'call') return undefined;
    const callee = unparen(field(m, 'function')!);
    const head = callee.type === 'attribute' ? unparen(field(callee, 'object')!) : undefined;
    if (a.src(callee) === name || (head && a.src(head) === name)) out.push(m);
    return undefined;
  });
  return out;
}

function site(python: PythonProject, root: string, file: string, n: PyNode): string {
  const a = python.analysis(file);
  return `${rel(root, file)}:${a ? a.line(n) : 0}`;
}

/** Unguarded calls of the parameter in the function itself. */
function directUses(a: PythonAnalysis, fn: FunctionInfo, name: string, root: string, python: PythonProject): Use[] {
  const body = field(fn.node, 'body');
  if (!body) return [];
  return callsOf(a, body, name)
    .filter((c) => !guardedIn(a, body, c, name))
    .map((c) => ({ direct: true, file: a.path, node: c, text: a.src(c).replace(/\s+/g, ' ').slice(0, 60), where: site(python, root, a.path, c) }));
}

/** The parameter handed to a project class's constructor that stores it on `self` and calls it unguarded. */
function storedUses(a: PythonAnalysis, fn: FunctionInfo, name: string, root: string, python: PythonProject): Use[] {
  const out: Use[] = [];
  walk(field(fn.node, 'body')!, (m) => {
    if (m.type === 'function_definition' || m.type === 'class_definition' || m.type === 'lambda') return false;
    if (m.type !== 'call') return undefined;
    const c = a.call(m);
    if (!c) return undefined;
    const pos = c.args.findIndex((x) => x.type === 'identifier' && a.src(x) === name);
    const kw = [...c.kwargs].find(([, v]) => v.type === 'identifier' && a.src(v) === name)?.[0];
    if (pos < 0 && kw === undefined) return undefined;
    const cls = classOfExpr(python, a, c.fn);
    if (!cls) return undefined;
    const init = methodOf(python, cls, '__init__');
    const ia = init && python.analysis(init.file);
    if (!init || !ia) return undefined;
    const isig = signatureOf(ia, init.fn).params.slice(1);
    const param = kw ?? (pos >= 0 && pos < isig.length && isig[pos]!.kind !== 'keyword' ? isig[pos]!.name : undefined);
    if (!param || !isig.some((p) => p.name === param)) return undefined;
    const attr = storedAs(ia, init.fn, param);
    if (attr) out.push(...attributeUses(python, cls, attr, root));
    return undefined;
  });
  return out;
}

/** `self.<attr> = <param>` in `__init__`, as written (no `or default`), and no other assignment of the param there. */
function storedAs(a: PythonAnalysis, init: FunctionInfo, param: string): string | undefined {
  let attr: string | undefined;
  let rebound = false;
  walk(field(init.node, 'body')!, (m) => {
    if (m.type !== 'assignment') return undefined;
    const left = field(m, 'left');
    const right = field(m, 'right');
    if (!left || !right) return undefined;
    if (left.type === 'identifier' && a.src(left) === param) rebound = true;
    const obj = left.type === 'attribute' ? field(left, 'object') : undefined;
    if (obj && a.src(obj) === 'self' && right.type === 'identifier' && a.src(right) === param) attr = a.src(field(left, 'attribute')!);
    return undefined;
  });
  if (rebound || !attr) return undefined;
  // `if param is None: raise ...` in the constructor: a clear configuration error, not this defect
  const body = field(init.node, 'body')!;
  let checked = false;
  walk(body, (m) => {
    if (m.type === 'if_statement' || m.type === 'assert_statement' || m.type === 'conditional_expression' || m.type === 'boolean_operator') {
      const cond = conditionOf(m);
      if (cond && mentionsRe(param).test(a.src(cond))) checked = true;
    }
    return undefined;
  });
  return checked ? undefined : attr;
}

/** Calls of `self.<attr>(...)` in the class's methods, when nothing in the class checks or reassigns it. */
function attributeUses(python: PythonProject, cls: ClassRef, attr: string, root: string): Use[] {
  const a = python.analysis(cls.file);
  if (!a) return [];
  const name = `self.${attr}`;
  const re = mentionsRe(name);
  let checked = false;
  let assigned = 0;
  walk(cls.info.node, (m) => {
    if (checked) return false;
    if (m.type === 'if_statement' || m.type === 'elif_clause' || m.type === 'while_statement' || m.type === 'assert_statement' || m.type === 'conditional_expression' || m.type === 'boolean_operator') {
      const cond = conditionOf(m);
      if (cond && re.test(a.src(cond))) checked = true;
    }
    if ((m.type === 'assignment' || m.type === 'augmented_assignment') && a.src(field(m, 'left')!) === name) assigned++;
    if (m.type === 'call' && /^(getattr|hasattr|callable)$/.test(a.src(field(m, 'function')!)) && a.src(m).includes(attr)) checked = true;
    return undefined;
  });
  if (checked || assigned !== 1) return [];
  const out: Use[] = [];
  for (const m of cls.info.methods.values()) {
    if (m.name === '__init__') continue;
    const body = field(m.node, 'body');
    if (!body) continue;
    for (const c of callsOf(a, body, name)) {
      if (guardedIn(a, body, c, name)) continue;
      out.push({ direct: false, file: cls.file, node: c, text: a.src(c).replace(/\s+/g, ' ').slice(0, 60), where: site(python, root, cls.file, c) });
    }
  }
  return out;
}

/** Project calls of the function that leave `param` (positional index `index`) at its default. */
function omittingCalls(python: PythonProject, file: string, fn: FunctionInfo, param: string, index: number): Omit[] {
  const out: Omit[] = [];
  for (const s of callersOf(python, file, fn)) {
    const c = s.a.call(s.node);
    if (!c || c.hasStarArgs || c.hasStarKwargs || c.kwargs.has(param)) continue;
    if (c.args.length > index) continue;
    out.push({ a: s.a, node: s.node });
  }
  return out;
}

export default defineRule<Msg>({
  meta: {
    id: 'unset-dependency',
    description: 'A callable the grading code calls without a check, taken as a parameter that defaults to None (directly, or stored on an evaluator the function builds), that a caller in the project never passes: every task that reaches the call crashes.',
    defaultSeverity: 'error',
    layers: ['python'],
    languages: ['python'],
    messages: {
      unset: {
        what: '`{{param}}` defaults to None and `{{use}}` ({{useAt}}) calls it without checking, but `{{call}}` ({{callAt}}) does not pass it.',
        why: 'Every task that reaches that call crashes on None (TypeError: \'NoneType\' object is not callable, or an AttributeError), whatever the agent did; a harness that scores a crash as a failure reports it as the agent\'s.',
        fix: 'Pass `{{param}}` at that call, or check it before use (raise a clear configuration error, or fall back to a default implementation).',
      },
    },
    confirm: {
      oracle: 'unset-dependency',
      description: 'When the function itself calls the dependency, calls the function with it left at None and the other parameters from the usual witnesses: TypeError/AttributeError at the unguarded call confirms. A dependency called in a method of an evaluator the function builds has no case (only the harness calls that method).',
    },
    docs: {
      whatItDoes:
        'Flags a function parameter whose default is None when (1) the function calls it (`p(...)`, `p.m(...)`) with no condition, assert or reassignment mentioning it before the call, or hands it to a project class whose `__init__` stores it on `self` as-is and whose methods call `self.attr(...)` with nothing in the class checking the attribute; and (2) a call of the function in the project passes it neither by position nor by keyword. Reported at the parameter, with the unguarded call and the omitting call as related locations.',
      why: 'Evaluator routers build each evaluation type\'s evaluator with the dependencies it needs (a captioning or judge model, a client); when the entry point that runs the benchmark does not pass one, the tasks of that type cannot be graded and the crash is scored against the agent.',
    },
  },
  create(ctx) {
    const root = ctx.project.root;
    return {
      python: {
        function_definition(n, c) {
          const a = c.python;
          const body = field(n, 'body');
          const fn = body ? a.functionAt(body) : undefined;
          if (!fn || fn.node !== n) return;
          check(a, fn, c);
        },
      },
    };

    function check(a: PythonAnalysis, fn: FunctionInfo, c: PyCtx): void {
      const python = ctx.project.python;
      for (const p of noneDefaults(a, fn)) {
        const uses = [...directUses(a, fn, p.name, root, python), ...storedUses(a, fn, p.name, root, python)];
        if (!uses.length) continue;
        const omits = omittingCalls(python, a.path, fn, p.name, p.index);
        const first = omits[0];
        if (!first) continue;
        const use = uses[0]!;
        const related = [
          ...uses.map((u) => ({ file: u.file, range: rangeOf(u.file, u.node), message: 'Called here without a check.' })),
          ...omits.map((o) => ({ file: o.a.path, range: rangeOf(o.a.path, o.node), message: `Called here without \`${p.name}\`.` })),
        ].filter((r): r is { file: string; range: NonNullable<typeof r.range>; message: string } => !!r.range);
        c.report({
          messageId: 'unset',
          data: { param: p.name, use: use.text, useAt: use.where, call: first.a.src(first.node).replace(/\s+/g, ' ').slice(0, 60), callAt: site(python, root, first.a.path, first.node) },
          at: p.node,
          related,
          control: { oracle: 'unset-dependency', direct: use.direct, file: use.file, line: python.analysis(use.file)?.line(use.node) ?? 0, qualname: use.direct ? fn.qualname : undefined, param: p.index },
        });
      }
    }

    function rangeOf(file: string, n: PyNode) {
      return ctx.project.files.get(file)?.source.range(n.start, n.end);
    }
  },
});
