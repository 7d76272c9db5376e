/**
 * Verdict functions: the functions whose return value is the verdict the grader receives. These are
 * the functions the suites' entries are bound to (`VerifierEntry.binding`), plus the functions they
 * hand their verdict to: `return helper(...)`, `return TABLE[key](...)` over a module-level dict of
 * functions, and nested functions whose result is returned. Rules use this to tell a verdict path
 * from a set-up helper or a predicate.
 *
 * When no entry of the project is bound (verifier code linted without its tasks), there is no
 * verdict set: `verdictFunctions` returns undefined and callers fall back to their own judgement.
 */
import type { SourceFile } from '../core/source.js';
import type { Suite } from './types.js';
import type { FunctionInfo, PythonAnalysis, PythonProject } from '../lang/python/types.js';
import { field, named, unparen, walk, type PyNode } from '../lang/python/tree.js';
import type { AnyNode, Node as JsNode, Program } from 'acorn';
import { eachOwnNode, isJsFunction } from '../lang/js/flow.js';
import { forEachChild } from '../lang/js/nodes.js';
import type { JsFunction } from '../lang/js/index.js';
import { DEFAULT_SHAPES, jsConst, jsModuleFunctions, jsReturnExprs, jsVerdictFunctions, learnShapes, pyConst, pyReturnValues, verdictTruth, type ConstValue, type VerdictShapes } from './verdict-shape.js';
import { analysisMemo, type AnalysisMemo } from '../lang/python/analysis-memo.js';

/** What this module reads of the run's project (`Project` of the rule contract satisfies it; suites/ sits
 *  below the contract, so it names only the parts it needs). */
interface Project {
  readonly files: ReadonlyMap<string, SourceFile>;
  readonly suites: readonly Suite[];
  readonly python: PythonProject;
}

const cache = new WeakMap<Project, Set<string> | null>();

const keyOf = (file: string, qualname: string) => `${file}\0${qualname}`;

/** `file\0qualname` of every verdict function, or undefined when no entry is bound. */
export function verdictFunctions(project: Project): ReadonlySet<string> | undefined {
  const hit = cache.get(project);
  if (hit !== undefined) return hit ?? undefined;
  const out = new Set<string>();
  const queue: Array<{ file: string; qualname: string }> = [];
  const add = (file: string, qualname: string) => {
    const k = keyOf(file, qualname);
    if (out.has(k)) return;
    out.add(k);
    queue.push({ file, qualname });
  };
  for (const s of project.suites) for (const t of s.tasks) for (const e of t.entries) if (e.binding) add(e.binding.file, e.binding.qualname);
  if (!out.size) {
    cache.set(project, null);
    return undefined;
  }
  const py = project.python;
  for (let i = 0; i < queue.length && i < 5000; i++) {
    const { file, qualname } = queue[i]!;
    const a = py.analysis(file);
    const fn = a?.functionByQualname(qualname);
    if (!a || !fn) continue;
    for (const callee of perFunction(calleesMemo, a, fn, returnedCallees)) {
      const r = resolveCallee(py, a, qualname, callee);
      if (r) add(r.file, r.qualname);
    }
  }
  cache.set(project, out);
  return out;
}

/** The function a name called in `qualname` runs: a function nested in it, else what the name resolves to in its file
 *  (a local def, or one imported from a project module). */
function resolveCallee(py: PythonProject, a: PythonAnalysis, qualname: string, name: string): { file: string; qualname: string } | undefined {
  const local = a.functionByQualname(`${qualname}.<locals>.${name}`);
  if (local) return { file: a.path, qualname: local.qualname };
  const r = py.resolveFunction(a.path, name);
  return r && { file: r.file, qualname: r.fn.qualname };
}

/** Is this function a verdict function? (undefined: the project binds no entry, so nobody knows.) */
export function isVerdictFunction(project: Project, file: string, fn: FunctionInfo): boolean | undefined {
  const set = verdictFunctions(project);
  return set ? set.has(keyOf(file, fn.qualname)) : undefined;
}

/**
 * What one function's own code says (its returned callees' names, its returned constants), kept per
 * analysis: an editor session's project takes over the analyses of the files an edit left as they were,
 * so a lint after an edit reads again only the edited module's verdict functions (both read nothing
 * outside the function's tree).
 */
const calleesMemo = analysisMemo<string, string[]>();
const returnsMemo = analysisMemo<string, ConstValue[]>();
function perFunction<T>(memo: AnalysisMemo<string, T>, a: PythonAnalysis, fn: FunctionInfo, of: (a: PythonAnalysis, fn: FunctionInfo) => T): T {
  return memo(a, fn.qualname, () => of(a, fn));
}

const pyShapes = new WeakMap<Project, VerdictShapes>();

/** Verdict shapes of the project's Python verdict functions: the default keys plus the keys of the
 *  result objects they return (`{"_success": x == y}` makes `_success` a verdict key). */
export function pythonVerdictShapes(project: Project): VerdictShapes {
  let s = pyShapes.get(project);
  if (s) return s;
  const values: ConstValue[] = [];
  for (const k of verdictFunctions(project) ?? []) {
    const [file, qualname] = k.split('\0') as [string, string];
    const a = project.python.analysis(file);
    const fn = a?.functionByQualname(qualname);
    if (a && fn) values.push(...perFunction(returnsMemo, a, fn, pyReturnValues));
  }
  s = values.length ? learnShapes(values) : DEFAULT_SHAPES;
  pyShapes.set(project, s);
  return s;
}

const jsTargets = new WeakMap<Project, Map<string, Array<string | undefined>> | null>();

/** JS/TS modules that task entries name (`VerifierEntry.target`), with the export each names
 *  (undefined: the module's default export). Undefined when no entry names a JS/TS module. */
function jsEntryTargets(project: Project): Map<string, Array<string | undefined>> | undefined {
  const hit = jsTargets.get(project);
  if (hit !== undefined) return hit ?? undefined;
  const out = new Map<string, Array<string | undefined>>();
  for (const s of project.suites)
    for (const t of s.tasks)
      for (const e of t.entries) {
        const f = e.target ? project.files.get(e.target.file) : undefined;
        if (!f || (f.language !== 'javascript' && f.language !== 'typescript')) continue;
        const l = out.get(f.path) ?? [];
        if (!l.includes(e.target!.export)) l.push(e.target!.export);
        out.set(f.path, l);
      }
  jsTargets.set(project, out.size ? out : null);
  return out.size ? out : undefined;
}

export interface JsVerdictScope {
  /** Functions of the module whose return value is the verdict (empty: the module is not a verdict module). */
  functions: ReadonlySet<JsNode>;
  /** false: no entry of the project names a JS/TS module, so nobody knows; callers fall back to their own judgement. */
  known: boolean;
  shapes: VerdictShapes;
}

const jsScopeCache = new WeakMap<Program, JsVerdictScope>();

/** The verdict functions of one JS/TS module and the verdict shapes learned from their returns. */
export function jsVerdictScope(project: Project, file: string, program: Program): JsVerdictScope {
  const hit = jsScopeCache.get(program);
  if (hit) return hit;
  const targets = jsEntryTargets(project);
  let functions: Set<JsFunction>;
  if (targets) {
    functions = new Set();
    for (const exp of targets.get(file) ?? []) for (const f of jsVerdictFunctions(program, exp)) functions.add(f);
  } else functions = jsVerdictFunctions(program);
  const shapes = functions.size ? learnShapes([...functions].flatMap((f) => jsReturnExprs(f).map((r) => jsConst(r)))) : DEFAULT_SHAPES;
  const out: JsVerdictScope = { functions, known: targets !== undefined, shapes };
  jsScopeCache.set(program, out);
  return out;
}

/** Does the function return a verdict: a constant verdict or number (`True`, `0.0`, `(False, msg)`), a truth value
 *  (a comparison, `not`, `and`/`or`, `all`/`any`/`bool`), a score (`a / b`, `float(…)`, `x if c else 0.0`), a
 *  result object with a verdict key (`{"reward": r}`, `Result(reward=r)`), or a local that holds one of these? */
function pyReturnsVerdict(a: PythonAnalysis, fn: FunctionInfo, shapes: VerdictShapes): boolean {
  // asked once per statement of a function by some rules (verdict-composition's branches): one walk per
  // function and shapes, not one per statement (a function of 8,000 statements: 9 s of walks)
  const hit = returnsVerdictCache.get(fn.node);
  if (hit?.a === a && hit.shapes === shapes) return hit.value;
  const value = pyReturnsVerdictNow(a, fn, shapes);
  returnsVerdictCache.set(fn.node, { a, shapes, value });
  return value;
}

const returnsVerdictCache = new WeakMap<PyNode, { a: PythonAnalysis; shapes: VerdictShapes; value: boolean }>();

function pyReturnsVerdictNow(a: PythonAnalysis, fn: FunctionInfo, shapes: VerdictShapes): boolean {
  const verdictish = (e0: PyNode, depth = 0): boolean => {
    const e = unparen(e0);
    const c = pyConst(a, e);
    if (c.kind === 'boolish' || c.kind === 'number' || verdictTruth(c, shapes) !== undefined) return true;
    if (c.kind === 'object') return c.entries.some(([k]) => shapes.keys.has(k.toLowerCase()));
    if (depth > 2) return false;
    switch (e.type) {
      case 'call': {
        const f = a.src(field(e, 'function') ?? e);
        if (['float', 'int', 'bool', 'round'].includes(f)) return true;
        return named(field(e, 'arguments') ?? e).some((k) => k.type === 'keyword_argument' && shapes.keys.has(a.src(field(k, 'name') ?? k).toLowerCase()));
      }
      case 'binary_operator':
        return a.text.slice(field(e, 'left')?.end ?? e.start, field(e, 'right')?.start ?? e.end).trim() === '/';
      case 'conditional_expression': {
        const [yes, , no] = named(e);
        return !!yes && !!no && verdictish(yes, depth + 1) && verdictish(no, depth + 1);
      }
      case 'identifier':
        return a.valueSources(e).some((v) => v !== e && verdictish(v, depth + 1));
      case 'tuple':
      case 'expression_list':
        return !!named(e)[0] && verdictish(named(e)[0]!, depth + 1);
      default:
        return false;
    }
  };
  let hit = false;
  const body = field(fn.node, 'body');
  if (body)
    walk(body, (n) => {
      if (hit || n.type === 'function_definition' || n.type === 'class_definition' || n.type === 'lambda') return false;
      if (n.type === 'return_statement' && named(n)[0] && verdictish(named(n)[0]!)) hit = true;
      return undefined;
    });
  return hit;
}

/** Is this Python function on a verdict path? A verdict function when the project binds entries; when it
 *  binds none (verifier code linted alone), a function that returns a verdict. */
export function pyOnVerdictPath(project: Project, a: PythonAnalysis, fn: FunctionInfo): boolean {
  return isVerdictFunction(project, a.path, fn) ?? pyReturnsVerdict(a, fn, pythonVerdictShapes(project));
}

/** Is this JS/TS function on a verdict path? A verdict function of its module when tasks or exports say
 *  which those are; when nothing says (a script with no export, no task naming it), a function that
 *  returns a verdict (a constant verdict or a truth value), so app code that returns markup is not one. */
export function jsOnVerdictPath(project: Project, file: string, program: Program, fn: JsFunction): boolean {
  const scope = jsVerdictScope(project, file, program);
  if (scope.known || scope.functions.size) return scope.functions.has(fn);
  return jsReturnExprs(fn).some((r) => {
    const v = jsConst(r);
    return v.kind === 'boolish' || verdictTruth(v, scope.shapes) !== undefined;
  });
}

const jsFeeders = new WeakMap<Program, Set<JsFunction>>();

/** Does a verdict-path function of this JS/TS module read this function's result (`const got = finalAnswer(msgs)`
 *  … `return got === expected`)? Same module only: a top-level function whose call a verdict-path function
 *  assigns, awaits into a local, compares or returns. */
export function jsFeedsVerdict(project: Project, file: string, program: Program, fn: JsFunction): boolean {
  let set = jsFeeders.get(program);
  if (!set) {
    set = new Set();
    const fns = jsModuleFunctions(program);
    const scope = jsVerdictScope(project, file, program);
    const deciders: JsFunction[] = scope.known || scope.functions.size ? ([...scope.functions] as JsFunction[]) : [...fns.values()].filter((f): f is JsFunction => !!f && jsOnVerdictPath(project, file, program, f));
    for (const d of deciders)
      eachOwnNode(d.body, (n) => {
        if (n.type !== 'CallExpression' || n.callee.type !== 'Identifier') return undefined;
        const g = fns.get(n.callee.name);
        if (g && g !== d && jsResultRead(n, d)) set!.add(g);
        return undefined;
      });
    jsFeeders.set(program, set);
  }
  return set.has(fn);
}

/** The call's result is assigned to a local, compared, or returned (through `await` and parentheses). */
function jsResultRead(call: AnyNode, fn: JsFunction): boolean {
  // find the call's parent chain inside fn
  const path: AnyNode[] = [];
  const find = (n: AnyNode): boolean => {
    if (n === call) return true;
    if (n !== fn && isJsFunction(n)) return false;
    if (call.start < n.start || call.end > n.end) return false;
    path.push(n);
    let hit = false;
    forEachChild(n, (k) => {
      if (!hit && find(k)) hit = true;
    });
    if (!hit) path.pop();
    return hit;
  };
  if (!find(fn)) return false;
  for (let i = path.length - 1; i >= 0; i--) {
    const p = path[i]!;
    if (p.type === 'AwaitExpression' || p.type === 'ParenthesizedExpression' || p.type === 'ChainExpression') continue;
    if (p.type === 'VariableDeclarator' || p.type === 'ReturnStatement') return true;
    if (p.type === 'AssignmentExpression') return p.left.type === 'Identifier';
    if (p.type === 'BinaryExpression') return ['===', '==', '!==', '!='].includes(p.operator);
    return fn.body === call;
  }
  return false;
}

const feeders = new WeakMap<Project, Set<string>>();

/** Does a verdict-path function read this function's result (`pred = final_answer(traj)` … `return pred == ref`)?
 *  Then what it returns is a verdict input, though not the verdict. When the project binds entries: a callee of a
 *  verdict function; when it binds none: a callee of any function that returns a verdict. Across files both ways. */
export function pyFeedsVerdict(project: Project, a: PythonAnalysis, fn: FunctionInfo): boolean {
  let set = feeders.get(project);
  if (!set) {
    set = new Set();
    const bound = verdictFunctions(project);
    if (bound)
      for (const k of bound) {
        const [file, qualname] = k.split('\0') as [string, string];
        const va = project.python.analysis(file);
        const vf = va?.functionByQualname(qualname);
        if (va && vf) for (const r of inputCallees(project, va, vf)) set.add(r);
      }
    else {
      const shapes = pythonVerdictShapes(project);
      for (const file of project.python.files()) {
        const va = project.python.analysis(file);
        if (va) for (const g of va.functions()) if (pyReturnsVerdict(va, g, shapes)) for (const r of inputCallees(project, va, g)) set.add(r);
      }
    }
    feeders.set(project, set);
  }
  return set.has(keyOf(a.path, fn.qualname));
}

/** Keys of the project functions whose call result `fn` reads: returned, compared, or assigned to a local
 *  (`x = helper(...)`, `x = self._helper(...)`); own body only. */
function inputCallees(project: Project, a: PythonAnalysis, fn: FunctionInfo): string[] {
  const out: string[] = [];
  const body = field(fn.node, 'body');
  if (!body) return out;
  const classQual = fn.className ? fn.qualname.slice(0, fn.qualname.lastIndexOf('.')) : undefined;
  walk(body, (n) => {
    if (n.type === 'function_definition' || n.type === 'class_definition' || n.type === 'lambda') return false;
    if (n.type !== 'call' || !resultRead(n)) return undefined;
    const f = field(n, 'function');
    if (f?.type === 'identifier') {
      const r = resolveCallee(project.python, a, fn.qualname, a.src(f));
      if (r) out.push(keyOf(r.file, r.qualname));
    } else if (f?.type === 'attribute' && classQual && ['self', 'cls'].includes(a.src(field(f, 'object') ?? f))) {
      const m = a.functionByQualname(`${classQual}.${a.src(field(f, 'attribute') ?? f)}`);
      if (m) out.push(keyOf(a.path, m.qualname));
    }
    return undefined;
  });
  return out;
}

/** The call's result is read where a verdict is made of it: returned, compared, or assigned to a plain name. */
function resultRead(call: PyNode): boolean {
  const p = call.parent;
  if (!p) return false;
  if (p.type === 'assignment') return field(p, 'right') === call && field(p, 'left')?.type === 'identifier';
  for (let q: PyNode | null = p; q && q.type !== 'block'; q = q.parent) {
    if (q.type === 'return_statement' || q.type === 'comparison_operator') return true;
    if (q.type === 'expression_statement' || q.type === 'call') return false;
  }
  return false;
}

/** Names of the functions whose call result `fn` returns (own body only, nested defs excluded). */
function returnedCallees(a: PythonAnalysis, fn: FunctionInfo): string[] {
  const out: string[] = [];
  const body = field(fn.node, 'body');
  if (!body) return out;
  walk(body, (n) => {
    if (n.type === 'function_definition' || n.type === 'class_definition' || n.type === 'lambda') return false;
    if (n.type !== 'return_statement') return;
    const v = named(n)[0];
    if (!v) return;
    for (const c of calls(unparen(v))) {
      const f = field(c, 'function');
      if (!f) continue;
      if (f.type === 'identifier' || f.type === 'attribute') out.push(a.src(f));
      else if (f.type === 'subscript') out.push(...dictValues(a, field(f, 'value')));
      // `func = TABLE[key]; return func(...)`
      if (f.type === 'identifier')
        for (const v of a.valueSources(f)) if (v.type === 'subscript') out.push(...dictValues(a, field(v, 'value')));
    }
    return false;
  });
  return out;
}

/** The call itself, or the calls of a conditional/boolean/arithmetic expression over calls (`float(f(x))` → f too). */
function calls(n: PyNode): PyNode[] {
  if (n.type === 'call') {
    const f = field(n, 'function');
    const inner = f && ['float', 'int', 'bool', 'round'].includes(f.text) ? named(field(n, 'arguments') ?? n).flatMap((x) => calls(unparen(x))) : [];
    return [n, ...inner];
  }
  if (n.type === 'conditional_expression' || n.type === 'boolean_operator' || n.type === 'binary_operator') return named(n).flatMap((x) => calls(unparen(x)));
  return [];
}

/** Function names held by a module-level dict literal `NAME = {"k": fn, …}`. */
function dictValues(a: PythonAnalysis, obj: PyNode | undefined): string[] {
  if (!obj || obj.type !== 'identifier') return [];
  const name = a.src(obj);
  const out: string[] = [];
  for (const st of named(a.ast)) {
    const asg = st.type === 'expression_statement' ? named(st)[0] : undefined;
    if (asg?.type !== 'assignment' || a.src(field(asg, 'left') ?? asg) !== name) continue;
    const right = field(asg, 'right');
    if (right?.type !== 'dictionary') continue;
    for (const pair of named(right)) {
      const v = pair.type === 'pair' ? field(pair, 'value') : undefined;
      if (v?.type === 'identifier') out.push(a.src(v));
    }
  }
  return out;
}
