/**
 * Task-layer checks of OSWorld-family evaluators against the code that grades them: what
 * `desktop_env.py` would do with the evaluator before any metric runs (look-ups, list shapes) and
 * whether the metric call `metric(result_state[, expected_state], **options)` binds.
 */
import { rel } from '../core/paths.js';
import type { Task, VerifierEntry } from './types.js';
import type { ControlCaseRequest } from '../core/types.js';
import type { JsonValueRef } from '../lang/json/parse.js';
import { setupDispatch } from './osworld.js';
import type { PythonAnalysis, PythonProject } from '../lang/python/types.js';
import { callProblems, signatureOf, type Signature } from '../lang/python/signature.js';
import { isObject, joinPointer } from '../lang/json/parse.js';
import { isCommentMember } from './families.js';
import { field, named, walk, type PyNode } from '../lang/python/tree.js';
import { valueKind } from '../lang/python/value-kind.js';
import { closestNames } from '../core/names.js';
import { paramReads } from './reads.js';
import { pathBelow, refusedTaskValues } from './value-chains.js';
import { analysisMemo } from '../lang/python/analysis-memo.js';

export type EvaluatorProblemKind =
  | 'notObject'
  | 'emptyFunc'
  | 'unknownFunc'
  | 'unknownGetter'
  | 'missingGetter'
  | 'listShape'
  | 'unexpectedOption'
  | 'unreadOption'
  | 'missingArgument'
  | 'tooManyPositional'
  | 'unknownStep'
  | 'stepShape'
  | 'unexpectedStepParam'
  | 'missingStepParam'
  | 'unreadStepParam'
  | 'stateKind'
  | 'missingRuleKey'
  | 'missingOption'
  | 'memberKind'
  | 'refusedValue';

export interface EvaluatorProblem {
  kind: EvaluatorProblemKind;
  at: { start: number; end: number };
  pointer: string;
  data: Record<string, string | number>;
  /** A member name that is a typo of exactly one name the code reads: `at` is the member's key token
   *  and this the name to write there (the fix). */
  rename?: string;
  /** A control case for the finding (rules/evaluator-dispatch/oracle.ts reads it). */
  control?: ControlCaseRequest;
}

/** Python truthiness of a JSON value. */
const pyFalsy = (v: unknown) => v === null || v === false || v === 0 || v === '' || (Array.isArray(v) ? v.length === 0 : isObject(v) && Object.keys(v).length === 0);

const kindOf = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'a list' : typeof v === 'object' ? 'an object' : `a ${typeof v}`);

/** Problems of the evaluator as a whole (shape, list lengths): once per task. */
export function evaluatorProblems(task: Task): EvaluatorProblem[] {
  const out: EvaluatorProblem[] = [];
  const json = task.json as Record<string, unknown>;
  const ref = (p: string): JsonValueRef => task.values.get(p) ?? task.values.get('')!;
  const at = (r: JsonValueRef) => ({ start: r.start, end: r.end });
  const ev = json.evaluator;
  if (!isObject(ev)) {
    const r = ref('/evaluator');
    out.push({ kind: 'notObject', at: at(r), pointer: '/evaluator', data: { actual: kindOf(ev) } });
    return out;
  }
  const func = ev.func;
  const fr = ref('/evaluator/func');
  if (func === '' || (Array.isArray(func) && func.length === 0)) {
    out.push({ kind: 'emptyFunc', at: at(fr), pointer: '/evaluator/func', data: { actual: func === '' ? 'an empty string' : 'an empty list' } });
    return out;
  }
  if (Array.isArray(func)) {
    func.forEach((f, i) => {
      if (typeof f === 'string' && f !== '') return;
      const p = joinPointer('/evaluator/func', i);
      out.push({ kind: 'emptyFunc', at: at(ref(p)), pointer: p, data: { actual: f === '' ? 'an empty string' : kindOf(f) } });
    });
    // desktop_env.py indexes result[i], expected[i], options[i] and asserts equal lengths
    for (const role of ['result', 'expected', 'options'] as const) {
      if (!(role in ev)) {
        if (role === 'result' || role === 'expected')
          out.push({ kind: 'listShape', at: at(fr), pointer: '/evaluator/func', data: { field: role, detail: `"${role}" is missing, but the dispatcher reads \`evaluator["${role}"][i]\` for every metric of the list` } });
        continue;
      }
      const v = ev[role];
      const p = `/evaluator/${role}`;
      if (!Array.isArray(v))
        out.push({ kind: 'listShape', at: at(ref(p)), pointer: p, data: { field: role, detail: `"func" is a list of ${func.length} metrics but "${role}" is ${kindOf(v)}, not a list of ${func.length}` } });
      else if (v.length !== func.length)
        out.push({ kind: 'listShape', at: at(ref(p)), pointer: p, data: { field: role, detail: `"func" lists ${func.length} metrics but "${role}" has ${v.length} item${v.length === 1 ? '' : 's'}` } });
    }
  } else if (typeof func === 'string') {
    for (const role of ['result', 'expected', 'options'] as const) {
      const v = ev[role];
      if (Array.isArray(v) && !(role === 'options' && v.length === 0)) {
        const p = `/evaluator/${role}`;
        out.push({ kind: 'listShape', at: at(ref(p)), pointer: p, data: { field: role, detail: `"func" names one metric but "${role}" is a list` } });
      }
    }
    if (func !== 'infeasible' && !('result' in ev))
      out.push({ kind: 'missingGetter', at: at(ref('/evaluator')), pointer: '/evaluator', data: { role: 'result', detail: 'there is no "result"' } });
  } else {
    out.push({ kind: 'emptyFunc', at: at(fr), pointer: '/evaluator/func', data: { actual: kindOf(func) } });
  }
  return out;
}

/** Problems of one entry: the metric and getter look-ups, and the metric call. */
export function entryProblems(entry: VerifierEntry, python: PythonProject): EvaluatorProblem[] {
  const out: EvaluatorProblem[] = [];
  const at = (r: JsonValueRef) => ({ start: r.start, end: r.end });
  for (const r of entry.routes ?? []) {
    if (r.binding || !r.unbound) continue;
    if (r.role === 'metric' && r.name === '') continue; // reported as emptyFunc
    out.push({
      kind: r.role === 'metric' ? 'unknownFunc' : 'unknownGetter',
      at: at(r.ref),
      pointer: r.ref.pointer,
      data: { name: r.name, target: r.target, role: r.role, reason: r.unbound },
    });
  }
  // getter configs present but without a type. In a list, a falsy `expected[i]` (null, {}) means
  // "no expected state" (`... if exp else None`); a single empty `expected` sets no getter, which is then called.
  const inList = entry.pointer.startsWith('/evaluator/func/');
  const noExpected = (v: unknown) => v === undefined || (inList ? pyFalsy(v) : v === null);
  for (const role of ['result', 'expected'] as const) {
    const f = entry.fields[role];
    if (!f || (role === 'expected' && noExpected(f.value))) continue;
    if (!isObject(f.value) || typeof f.value.type !== 'string')
      out.push({ kind: 'missingGetter', at: at(f), pointer: f.pointer, data: { role, detail: `"${role}" is ${isObject(f.value) ? (Object.keys(f.value).length ? 'an object without a string "type"' : 'an empty object, so the dispatcher sets no getter and then calls it') : kindOf(f.value)}` } });
  }
  const metric = entry.binding;
  if (!metric || entry.kind === 'infeasible') return out;
  // with misaligned lists the i-th items are not this metric's: listShape says so, the call is not judged
  if (inList && !listsAligned(entry.task.json)) return out;
  const a = python.analysis(metric.file);
  const fn = a?.functionByQualname(metric.qualname);
  if (!a || !fn) return out;
  const sig = signatureOf(a, fn);
  const opts = entry.fields.options;
  const optValue = opts && isObject(opts.value) ? opts.value : {};
  const keys = Object.keys(optValue).filter((k) => !isCommentMember(k));
  const exp = entry.fields.expected;
  const positional = exp && !noExpected(exp.value) ? 2 : 1;
  const name = metric.qualname;
  const keyAt = (k: string) => {
    const m = opts ? entry.task.values.get(joinPointer(opts.pointer, k)) : undefined;
    return m ? { at: { start: m.keyStart ?? m.start, end: m.keyEnd ?? m.end }, pointer: m.pointer } : { at: at(entry.ref), pointer: entry.pointer };
  };
  for (const p of callProblems(sig, positional, keys)) {
    if (p.kind === 'unexpectedKeyword') {
      const k = keyAt(p.name);
      out.push({ kind: 'unexpectedOption', ...k, data: { option: p.name, metric: name, params: paramList(sig) } });
    } else if (p.kind === 'missing') {
      out.push({ kind: 'missingArgument', at: at(opts ?? entry.fields.func ?? entry.ref), pointer: (opts ?? entry.fields.func ?? entry.ref).pointer, data: { param: p.name, metric: name, call: callText(positional) } });
    } else if (p.kind === 'tooManyPositional') {
      out.push({ kind: 'tooManyPositional', at: at(exp!), pointer: exp!.pointer, data: { metric: name, accepts: p.accepts } });
    } else if (p.kind === 'duplicate') {
      const k = keyAt(p.name);
      out.push({ kind: 'unexpectedOption', ...k, data: { option: p.name, metric: name, params: paramList(sig) } });
    }
  }
  // the getter's value against what the metric does with it (both sides known only)
  for (const r of entry.routes ?? []) {
    if ((r.role !== 'result' && r.role !== 'expected') || !r.binding) continue;
    const idx = r.role === 'result' ? 0 : 1;
    if (idx >= positional) continue;
    const param = sig.params.filter((p) => p.kind !== 'keyword')[idx];
    const ga = python.analysis(r.binding.file);
    const gfn = ga?.functionByQualname(r.binding.qualname);
    if (!param || !ga || !gfn) continue;
    const kinds = returnKinds(ga, gfn.node);
    const need = kinds && paramNeed(a, fn.node, param.name);
    if (!kinds || !need || kinds.some((k) => need.accepts.includes(k))) continue;
    out.push({
      kind: 'stateKind',
      at: at(r.ref),
      pointer: r.ref.pointer,
      data: { role: r.role, getter: r.binding.qualname, kinds: kinds.map((k) => KIND_TEXT[k]).join(' or '), metric: name, param: param.name, use: need.use, needs: need.text },
    });
  }
  // keys the metric reads from a dict the task writes out literally, missing from that dict
  for (const r of entry.routes ?? []) {
    if ((r.role !== 'result' && r.role !== 'expected') || !r.binding) continue;
    const idx = r.role === 'result' ? 0 : 1;
    const param = sig.params.filter((p) => p.kind !== 'keyword')[idx];
    const f = entry.fields[r.role];
    const ga = python.analysis(r.binding.file);
    const gfn = ga?.functionByQualname(r.binding.qualname);
    const member = ga && gfn ? passThroughKey(ga, gfn.node) : undefined;
    const given = member !== undefined && f && isObject(f.value) ? f.value[member] : undefined;
    if (idx >= positional || !param || !f || !isObject(given)) continue;
    const reads = paramReads(python, metric, () => param.name, true);
    const at2 = entry.task.values.get(joinPointer(f.pointer, member!)) ?? f;
    for (const [k, read] of reads?.required ?? []) {
      if (Object.hasOwn(given, k)) continue;
      out.push({ kind: 'missingRuleKey', at: at(at2), pointer: at2.pointer, data: { key: k, member: member!, role: r.role, getter: r.binding.qualname, metric: name, read: read.text, where: readSite(entry, metric.file, read.line) } });
    }
  }
  // keys the metric reads from its **kwargs unconditionally that the task's options do not give
  if (sig.kwargs) {
    const reads = paramReads(python, metric, () => sig.kwargs, true);
    for (const [k, read] of reads?.required ?? []) {
      if (Object.hasOwn(optValue, k) || sig.params.some((p) => p.name === k)) continue;
      const where = opts ?? entry.fields.func ?? entry.ref;
      out.push({ kind: 'missingOption', at: at(where), pointer: where.pointer, data: { key: k, metric: name, kwargs: sig.kwargs!, read: read.text, where: readSite(entry, metric.file, read.line) } });
    }
  }
  // a task value that is a list or an object, tested as one element of the result state
  if (positional === 2) for (const p of memberProblems(entry, python, a, fn.node, sig, name)) out.push(p);
  // option and rule values the metric's `if`/`elif` chain with a raising `else` refuses
  out.push(...refusedTaskValues(entry, python, metricRoots(entry, sig, positional, python)).map((p) => ({ kind: 'refusedValue' as const, ...p })));
  // options that land in **kwargs but that the metric never reads
  if (sig.kwargs && keys.length) {
    const read = kwargsReads(a.ast, fn.node, sig.kwargs, (n) => a.src(n));
    if (read) {
      for (const k of keys) {
        if (sig.params.some((p) => p.name === k) || read.has(k)) continue;
        out.push({ kind: 'unreadOption', ...keyAt(k), data: { option: k, metric: name, kwargs: sig.kwargs, read: [...read].map((x) => `"${x}"`).join(', ') || 'none' } });
      }
    }
  }
  return out;
}

/** What the dispatcher hands the metric's parameters, as member paths from the task: its `**kwargs` and keyword
 *  parameters the task's options, the expected parameter the member of the task's expected config that its getter
 *  passes through as-is (`get_rule` returns `config["rules"]`). */
function metricRoots(entry: VerifierEntry, sig: Signature, positional: number, python: PythonProject): Map<string, readonly string[]> {
  const roots = new Map<string, readonly string[]>();
  const base = entry.task.pointer ?? '';
  const opts = entry.fields.options;
  const optsPath = opts && isObject(opts.value) ? pathBelow(base, opts.pointer) : undefined;
  if (optsPath) {
    if (sig.kwargs) roots.set(sig.kwargs, optsPath);
    // the parameters the call fills by keyword: past the positional ones the dispatcher gives
    let filled = 0;
    for (const p of sig.params) {
      if (p.kind !== 'keyword' && filled < positional) filled++;
      else if (p.kind !== 'positional') roots.set(p.name, [...optsPath, p.name]);
    }
  }
  const exp = entry.fields.expected;
  const r = (entry.routes ?? []).find((x) => x.role === 'expected' && x.binding);
  const ga = r?.binding ? python.analysis(r.binding.file) : undefined;
  const gfn = r?.binding ? ga?.functionByQualname(r.binding.qualname) : undefined;
  const member = ga && gfn ? passThroughKey(ga, gfn.node) : undefined;
  const param = positional === 2 ? sig.params.filter((x) => x.kind !== 'keyword')[1] : undefined;
  const expPath = exp && member !== undefined && param ? pathBelow(base, exp.pointer) : undefined;
  if (expPath && param) roots.set(param.name, [...expPath, member!]);
  return roots;
}

/**
 * Problems of the `config` / `evaluator.postconfig` steps, as the set-up controller runs them
 * (`setupDispatch`): a step without the keys the dispatcher subscripts, a type with no set-up
 * function, parameters the function does not accept, required ones missing, or ones its `**kwargs`
 * never reads.
 */
export function setupProblems(task: Task, python: PythonProject): EvaluatorProblem[] {
  const d = setupDispatch(python);
  if (!d) return [];
  const out: EvaluatorProblem[] = [];
  const at = (r: JsonValueRef) => ({ start: r.start, end: r.end });
  const routes = new Map((task.initializerRoutes ?? []).map((r) => [r.ref.pointer.replace(/\/type$/, ''), r]));
  for (const step of task.initializers) {
    const where = step.pointer.startsWith('/evaluator/') ? 'postconfig' : 'config';
    const v = step.value;
    const shape = (detail: string, r: JsonValueRef = step) => out.push({ kind: 'stepShape', at: at(r), pointer: r.pointer, data: { where, detail } });
    if (!isObject(v)) {
      shape(`the step is ${kindOf(v)}, not an object with "${d.typeKey ?? 'type'}"${d.paramsKey ? ` and "${d.paramsKey}"` : ''}`);
      continue;
    }
    if (d.typeKey && !(d.typeKey in v)) shape(`the step has no "${d.typeKey}", which the dispatcher reads as \`cfg["${d.typeKey}"]\``);
    if (d.paramsKey && !(d.paramsKey in v)) shape(`the step has no "${d.paramsKey}", which the dispatcher reads as \`cfg["${d.paramsKey}"]\``);
    const route = routes.get(step.pointer);
    if (!route) continue;
    if (route.unbound) {
      out.push({ kind: 'unknownStep', at: at(route.ref), pointer: route.ref.pointer, data: { where, name: route.name, reason: route.unbound } });
      continue;
    }
    const b = route.binding;
    if (!b || !d.paramsKey || !(d.paramsKey in v)) continue;
    const paramsRef = task.values.get(joinPointer(step.pointer, d.paramsKey));
    if (!paramsRef) continue;
    const params = v[d.paramsKey];
    if (!isObject(params)) {
      shape(`"${d.paramsKey}" is ${kindOf(params)}, but the dispatcher passes it as \`**${d.paramsKey}\``, paramsRef);
      continue;
    }
    const isMethod = b.file === d.file && b.qualname.startsWith(`${d.className}.`);
    const positional = isMethod ? (d.method.positional === undefined ? undefined : d.method.positional + 1) : d.fallback?.positional;
    if (positional === undefined) continue;
    const a = python.analysis(b.file);
    const fn = a?.functionByQualname(b.qualname);
    if (!a || !fn) continue;
    const sig = signatureOf(a, fn);
    const keys = Object.keys(params).filter((k) => !isCommentMember(k));
    const keyAt = (k: string) => {
      const m = task.values.get(joinPointer(paramsRef.pointer, k));
      return m ? { at: { start: m.keyStart ?? m.start, end: m.keyEnd ?? m.end }, pointer: m.pointer } : { at: at(paramsRef), pointer: paramsRef.pointer };
    };
    const name = b.qualname;
    const shown = { ...sig, params: isMethod ? sig.params.slice(1) : sig.params.slice(positional) };
    const taken = new Set(keys);
    /** The fix of a misspelt key: the one name it is closest to, when no member has that name yet. */
    const renameOf = (k: string, names: Iterable<string>) => {
      const near = closestNames(k, names);
      return near.length === 1 && !taken.has(near[0]!) && task.values.get(joinPointer(paramsRef.pointer, k))?.keyStart !== undefined ? { rename: near[0]! } : {};
    };
    for (const p of callProblems(sig, positional, keys)) {
      if (p.kind === 'unexpectedKeyword')
        out.push({ kind: 'unexpectedStepParam', ...keyAt(p.name), data: { where, param: p.name, fn: name, params: paramList(shown) }, ...renameOf(p.name, shown.params.map((x) => x.name)) });
      else if (p.kind === 'duplicate')
        out.push({ kind: 'unexpectedStepParam', ...keyAt(p.name), data: { where, param: p.name, fn: name, params: paramList(shown) } });
      else if (p.kind === 'missing')
        out.push({ kind: 'missingStepParam', at: at(paramsRef), pointer: paramsRef.pointer, data: { where, param: p.name, fn: name } });
    }
    if (sig.kwargs && keys.length) {
      const read = kwargsReads(a.ast, fn.node, sig.kwargs, (n) => a.src(n));
      if (read) {
        for (const k of keys) {
          if (sig.params.some((p) => p.name === k) || read.has(k)) continue;
          const near = closestNames(k, read);
          const suggest = near.length === 1 ? `"${near[0]}", the key the set-up function reads`
            : near.length ? `one of ${near.map((x) => `"${x}"`).join(', ')} (the keys the set-up function reads)` : 'a parameter the set-up function reads, or remove it';
          out.push({ kind: 'unreadStepParam', ...keyAt(k), data: { where, param: k, fn: name, kwargs: sig.kwargs, read: [...read].map((x) => `"${x}"`).join(', ') || 'none', suggest }, ...renameOf(k, read) });
        }
      }
    }
  }
  return out;
}

type ValueKind = 'str' | 'list' | 'dict' | 'number' | 'bool';
const KIND_TEXT: Record<ValueKind, string> = { str: 'a string (a file path or text)', list: 'a list', dict: 'a dict', number: 'a number', bool: 'a bool' };

/** The kind of a value expression when it is certain (literals, `os.path.join`, f-strings, builtin constructors); None → 'none'. */
function exprKind(a: PythonAnalysis, e: PyNode): ValueKind | 'none' | undefined {
  const k = valueKind(a, e);
  if (k === 'int' || k === 'float') return 'number';
  return k === 'none' || k === 'str' || k === 'list' || k === 'dict' || k === 'bool' ? k : undefined;
}

/**
 * What a getter can return, when every `return` is certain: the non-None kinds (locals followed
 * through their assignments). Undefined when any return value is unknown or none is certain.
 */
function returnKinds(a: PythonAnalysis, fnNode: PyNode): ValueKind[] | undefined {
  // one getter fills the state of many entries: its answer is kept per function node
  if (!returnKindsMemo.has(fnNode)) returnKindsMemo.set(fnNode, findReturnKinds(a, fnNode));
  return returnKindsMemo.get(fnNode);
}
const returnKindsMemo = new WeakMap<PyNode, ValueKind[] | undefined>();

function findReturnKinds(a: PythonAnalysis, fnNode: PyNode): ValueKind[] | undefined {
  const kinds = new Set<ValueKind>();
  let unknown = false;
  walk(field(fnNode, 'body') ?? fnNode, (n) => {
    if (unknown) return false;
    if (n.type === 'function_definition' || n.type === 'lambda' || n.type === 'class_definition') return false;
    if (n.type !== 'return_statement') return undefined;
    const v = named(n)[0];
    if (!v) return undefined;
    const sources = v.type === 'identifier' ? a.valueSources(v) : [v];
    for (const src of sources) {
      const k = src.type === 'identifier' ? undefined : exprKind(a, src);
      if (k === undefined) unknown = true;
      else if (k !== 'none') kinds.add(k);
    }
    return undefined;
  });
  return unknown || !kinds.size ? undefined : [...kinds];
}

/**
 * What a metric needs of a positional parameter, when the function body does it unconditionally
 * (in a statement of the body itself, not under an `if`/`try`/loop) and never tests the
 * parameter's type or rebinds it: a string-key subscript or `.get`/`.items`/`.keys`/`.values` (a
 * mapping), or `open(param)` (a path).
 */
function paramNeed(a: PythonAnalysis, fnNode: PyNode, param: string): ParamNeed | undefined {
  // one metric grades many entries: its answer is kept per function node and parameter
  let byParam = paramNeedMemo.get(fnNode);
  if (!byParam) paramNeedMemo.set(fnNode, (byParam = new Map()));
  if (!byParam.has(param)) byParam.set(param, findParamNeed(a, fnNode, param));
  return byParam.get(param);
}
interface ParamNeed { accepts: ValueKind[]; use: string; text: string }
const paramNeedMemo = new WeakMap<PyNode, Map<string, ParamNeed | undefined>>();

function findParamNeed(a: PythonAnalysis, fnNode: PyNode, param: string): ParamNeed | undefined {
  const body = field(fnNode, 'body');
  if (!body) return undefined;
  let typed = false;
  walk(body, (n) => {
    if (typed) return false;
    if (n.type === 'call') {
      const f = a.src(field(n, 'function') ?? n);
      const arg0 = named(field(n, 'arguments') ?? n)[0];
      if ((f === 'isinstance' || f === 'type' || f === 'hasattr' || f === 'callable') && arg0 && a.src(arg0) === param) typed = true;
    }
    const target = n.type === 'assignment' || n.type === 'augmented_assignment' || n.type === 'for_statement' ? field(n, 'left') : n.type === 'named_expression' ? field(n, 'name') : undefined;
    if (target) walk(target, (t) => void (t.type === 'identifier' && a.src(t) === param && (typed = true)));
    return undefined;
  });
  if (typed) return undefined;
  for (const stmt of named(body)) {
    if (['if_statement', 'try_statement', 'for_statement', 'while_statement', 'with_statement', 'function_definition', 'class_definition', 'match_statement'].includes(stmt.type)) continue;
    let need: { accepts: ValueKind[]; use: string; text: string } | undefined;
    const visit = (n: PyNode): boolean | undefined => {
      if (need) return false;
      if (n.type === 'lambda' || n.type === 'conditional_expression') return false;
      // a comprehension runs only its first iterable for sure
      if (n.type.endsWith('comprehension') || n.type === 'generator_expression') {
        const first = named(n).find((k) => k.type === 'for_in_clause');
        const it = first ? field(first, 'right') : undefined;
        if (it) walk(it, visit);
        return false;
      }
      // `a and b` / `a or b`: only the left operand always runs
      if (n.type === 'boolean_operator') {
        const left = field(n, 'left');
        if (left) walk(left, visit);
        return false;
      }
      if (n.type === 'subscript' && a.src(field(n, 'value') ?? n) === param) {
        const k = field(n, 'subscript');
        if (k?.type === 'string') need = { accepts: ['dict'], use: a.src(n), text: 'a dict' };
      } else if (n.type === 'attribute' && a.src(field(n, 'object') ?? n) === param && n.parent?.type === 'call' && ['get', 'items', 'keys', 'values'].includes(a.src(field(n, 'attribute') ?? n))) {
        need = { accepts: ['dict'], use: a.src(n.parent), text: 'a dict' };
      } else if (n.type === 'call' && a.qualifiedName(field(n, 'function') ?? n) === 'open') {
        const arg0 = named(field(n, 'arguments') ?? n)[0];
        if (arg0 && arg0.type === 'identifier' && a.src(arg0) === param) need = { accepts: ['str'], use: a.src(n), text: 'a file path' };
      }
      return undefined;
    };
    walk(stmt, visit);
    if (need) return need;
  }
  return undefined;
}

function listsAligned(json: unknown): boolean {
  const ev = isObject(json) ? json.evaluator : undefined;
  if (!isObject(ev) || !Array.isArray(ev.func)) return false;
  const n = ev.func.length;
  return (['result', 'expected', 'options'] as const).every((k) => (k === 'options' && !(k in ev)) || (Array.isArray(ev[k]) && (ev[k] as unknown[]).length === n));
}

function paramList(sig: Signature): string {
  const names = sig.params.map((p) => p.name);
  if (sig.varargs) names.push(`*${sig.varargs}`);
  return names.join(', ') || 'none';
}

function callText(positional: number): string {
  return positional === 2 ? 'metric(result_state, expected_state, **options)' : 'metric(result_state, **options)';
}

/**
 * The string keys a function reads from its `**kwargs` dict (`kw["k"]`, `kw.get("k")`, `"k" in kw`,
 * `kw.pop("k")`), or undefined when the dict escapes (passed on, iterated, stored): then any key may be read.
 */
function kwargsReads(_root: PyNode, fnNode: PyNode, kw: string, src: (n: PyNode) => string): ReadonlySet<string> | undefined {
  // asked for every entry and step the function grades or sets up: kept per function node and name
  let byName = kwargsMemo.get(fnNode);
  if (!byName) kwargsMemo.set(fnNode, (byName = new Map()));
  if (!byName.has(kw)) byName.set(kw, findKwargsReads(fnNode, kw, src));
  return byName.get(kw);
}
const kwargsMemo = new WeakMap<PyNode, Map<string, ReadonlySet<string> | undefined>>();

function findKwargsReads(fnNode: PyNode, kw: string, src: (n: PyNode) => string): Set<string> | undefined {
  const keys = new Set<string>();
  let escapes = false;
  const str = (n: PyNode | undefined) => (n && n.type === 'string' ? /^[rbuf]*(['"])(.*)\1$/s.exec(src(n))?.[2] : undefined);
  walk(fnNode, (n) => {
    if (escapes) return false;
    if (n.type !== 'identifier' || src(n) !== kw) return;
    const p = n.parent;
    if (!p) return;
    if (p.type === 'subscript' && field(p, 'value') === n) {
      const k = str(field(p, 'subscript'));
      if (k !== undefined) keys.add(k);
      else escapes = true;
      return;
    }
    if (p.type === 'attribute' && field(p, 'object') === n) {
      const call = p.parent;
      const method = src(field(p, 'attribute') ?? p);
      if (call?.type === 'call' && ['get', 'pop', 'setdefault'].includes(method)) {
        const k = str(named(field(call, 'arguments') ?? call)[0]);
        if (k !== undefined) keys.add(k);
        else escapes = true;
        return;
      }
      escapes = true;
      return;
    }
    if (p.type === 'comparison_operator') {
      const left = named(p)[0];
      const k = str(left);
      if (k !== undefined && left !== n) {
        keys.add(k);
        return;
      }
    }
    if (p.type === 'parameters' || p.type === 'dictionary_splat_pattern' || p.type === 'typed_parameter') return; // the declaration itself
    escapes = true;
  });
  return escapes ? undefined : keys;
}

/** `desktop_env/evaluators/metrics/table.py:18`, relative to the suite root. */
function readSite(entry: VerifierEntry, file: string, line: number): string {
  return `${rel(entry.task.suite.root, file)}:${line}`;
}

/** The key `K` of a getter that returns its config's member as-is (`def get_rule(env, config): return config["rules"]`). */
function passThroughKey(a: PythonAnalysis, fnNode: PyNode): string | undefined {
  const params = field(fnNode, 'parameters');
  const cfg = params ? named(params)[1] : undefined;
  const cfgName = cfg?.type === 'identifier' ? cfg.text : cfg ? (field(cfg, 'name') ?? named(cfg)[0])?.text : undefined;
  const body = field(fnNode, 'body');
  const stmts = body ? named(body).filter((n) => n.type !== 'expression_statement' || named(n)[0]?.type !== 'string') : [];
  if (!cfgName || stmts.length !== 1 || stmts[0]!.type !== 'return_statement') return undefined;
  const v = named(stmts[0]!)[0];
  if (v?.type !== 'subscript' || a.src(field(v, 'value') ?? v) !== cfgName) return undefined;
  const k = field(v, 'subscript');
  return k?.type === 'string' ? a.src(k).slice(1, -1) : undefined;
}

/** The expressions a getter appends to the list it returns (`names = []; … names.append(d.dataset_id); return names`),
 *  when that is the only way the list grows; undefined otherwise. */
function appendedElements(a: PythonAnalysis, fnNode: PyNode): PyNode[] | undefined {
  // asked of the same result getter by every entry that routes to it
  return appended(a, fnNode, () => findAppendedElements(a, fnNode));
}

/** `appendedElements`' answers per analysis and function. */
const appended = analysisMemo<PyNode, PyNode[] | undefined>();

function findAppendedElements(a: PythonAnalysis, fnNode: PyNode): PyNode[] | undefined {
  let returned: string | undefined;
  let several = false;
  walk(field(fnNode, 'body') ?? fnNode, (n) => {
    if (n.type === 'function_definition' || n.type === 'lambda' || n.type === 'class_definition') return false;
    if (n.type !== 'return_statement') return undefined;
    const v = named(n)[0];
    if (!v || v.type === 'none') return undefined;
    if (v.type !== 'identifier' || (returned && returned !== v.text)) several = true;
    else returned = v.text;
    return undefined;
  });
  if (!returned || several) return undefined;
  const out: PyNode[] = [];
  let other = false;
  walk(field(fnNode, 'body') ?? fnNode, (n) => {
    if (other) return false;
    if (n.type === 'assignment' && a.src(field(n, 'left') ?? n) === returned) {
      const r = field(n, 'right');
      if (r?.type !== 'list' || named(r).length) other = true;
    } else if (n.type === 'augmented_assignment' && a.src(field(n, 'left') ?? n) === returned) other = true;
    else if (n.type === 'call') {
      const f = field(n, 'function');
      if (f?.type === 'attribute' && a.src(field(f, 'object') ?? f) === returned) {
        const m = field(f, 'attribute')?.text;
        const args = named(field(n, 'arguments') ?? n);
        if (m === 'append' && args.length === 1) out.push(args[0]!);
        else other = true;
      }
    }
    return undefined;
  });
  return other || !out.length ? undefined : out;
}

/** A list/object-valued task value `rules["k"]` used as `rules["k"] in result` (directly or through a local)
 *  while the result getter's list holds appended values that are no lists: the test never depends on the state. */
function memberProblems(entry: VerifierEntry, python: PythonProject, a: PythonAnalysis, fnNode: PyNode, sig: Signature, metric: string): EvaluatorProblem[] {
  const out: EvaluatorProblem[] = [];
  const exp = entry.fields.expected;
  const expRoute = entry.routes?.find((r) => r.role === 'expected' && r.binding);
  const resRoute = entry.routes?.find((r) => r.role === 'result' && r.binding);
  if (!exp || !expRoute?.binding || !resRoute?.binding || !isObject(exp.value)) return out;
  const ea = python.analysis(expRoute.binding.file);
  const efn = ea?.functionByQualname(expRoute.binding.qualname);
  const key = ea && efn ? passThroughKey(ea, efn.node) : undefined;
  const passed = key !== undefined ? exp.value[key] : undefined;
  if (key === undefined || !isObject(passed)) return out;
  const ra = python.analysis(resRoute.binding.file);
  const rfn = ra?.functionByQualname(resRoute.binding.qualname);
  const elems = ra && rfn ? appendedElements(ra, rfn.node) : undefined;
  // every appended value is of a kind other than a list (a list display, `list(…)`, a comprehension are lists)
  if (!ra || !elems || elems.some((e) => ['list', 'list_comprehension', 'tuple', 'dictionary'].includes(e.type) || ['list', 'dict'].includes(valueKind(ra, e) ?? ''))) return out;
  const [res, rules] = sig.params.filter((p) => p.kind !== 'keyword').map((p) => p.name);
  if (!res || !rules) return out;
  /** The task member an operand reads: `rules["k"]`, or a local assigned only from it. */
  const member = (e: PyNode): string | undefined => {
    const srcs = e.type === 'identifier' ? a.valueSources(e) : [e];
    if (srcs.length !== 1) return undefined;
    const s = srcs[0]!;
    if (s.type !== 'subscript' || a.src(field(s, 'value') ?? s) !== rules) return undefined;
    const k = field(s, 'subscript');
    return k?.type === 'string' ? a.src(k).slice(1, -1) : undefined;
  };
  walk(field(fnNode, 'body') ?? fnNode, (n) => {
    if (n.type !== 'comparison_operator') return undefined;
    const kids = named(n);
    const op = a.text.slice(kids[0]?.end ?? n.start, kids[1]?.start ?? n.end).trim().replace(/\s+/g, ' ');
    if (kids.length !== 2 || (op !== 'in' && op !== 'not in') || a.src(kids[1]!) !== res) return undefined;
    const k = member(kids[0]!);
    const v = k !== undefined ? passed[k] : undefined;
    if (k === undefined || (!Array.isArray(v) && !isObject(v))) return undefined;
    const ptr = joinPointer(joinPointer(exp.pointer, key), k);
    const ref = entry.task.values.get(ptr);
    if (!ref) return undefined;
    out.push({
      kind: 'memberKind',
      at: { start: ref.start, end: ref.end },
      pointer: ptr,
      data: {
        value: JSON.stringify(v).slice(0, 60),
        kind: Array.isArray(v) ? 'a list' : 'an object',
        test: a.src(n),
        metric,
        getter: resRoute.binding!.qualname,
        elem: ra.src(elems[0]!),
        always: op === 'in' ? 'False' : 'True',
      },
      control: { oracle: 'evaluator-dispatch', shape: 'memberKind', file: a.path, line: a.line(n), qualname: metric, rules: passed, member: k, op },
    });
    return undefined;
  });
  return out;
}
