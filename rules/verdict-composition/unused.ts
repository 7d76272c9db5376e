/**
 * unusedCheck: a check computed in a verdict function whose result never reaches the verdict — a local
 * assigned a comparison, `not`/`and`/`or`, `all()`/`any()`/`isinstance()`/`bool()`, `re.search(…)` or a
 * call of a project predicate (a function that returns such a value), that no read uses, or that is
 * only printed or logged (`print(f"db ok: {db_ok}")`) — while the function returns something else.
 */
import type { FunctionInfo, PythonAnalysis } from '../../src/lang/python/types.js';
import { field, named, unparen, walk, type PyNode } from '../../src/lang/python/tree.js';
import { defUse } from '../../src/lang/python/def-use.js';
import type { AnyNode, Identifier, Program, VariableDeclarator } from 'acorn';
import type { RuleContext } from '../../src/contract/rule.js';
import type { Project } from '../../src/contract/project.js';
import { isJsFunction, jsScopes, programOf, propName } from '../../src/lang/js/index.js';
import { parentMap } from '../../src/lang/js/nodes.js';
import { jsOnVerdictPath } from '../../src/suites/verdict.js';
import { short, type Ctx, type Msg } from './kinds.js';

const BOOL_CALLS = new Set(['all', 'any', 'isinstance', 'bool', 'issubclass', 'callable', 'hasattr']);
const MATCH_CALLS = new Set(['re.search', 're.match', 're.fullmatch']);

/** A value that is the result of a check. */
function checkValue(a: PythonAnalysis, v0: PyNode, c: Ctx, depth = 0): boolean {
  const v = unparen(v0);
  if (v.type === 'comparison_operator' || v.type === 'not_operator') return true;
  if (v.type === 'boolean_operator') return named(v).every((x) => checkValue(a, x, c, depth + 1));
  if (v.type !== 'call') return false;
  const f = field(v, 'function');
  if (!f) return false;
  const q = a.qualifiedName(f) ?? a.src(f);
  if (BOOL_CALLS.has(q) || MATCH_CALLS.has(q)) return true;
  if (f.type !== 'identifier' || depth > 0) return false;
  // a project predicate: every return gives a check
  const r = c.project.python.resolveFunction(a.path, a.src(f));
  const ra = r ? c.project.python.analysis(r.file) : undefined;
  if (!r || !ra) return false;
  const rets: PyNode[] = [];
  walk(field(r.fn.node, 'body') ?? r.fn.node, (k) => {
    if (k.type === 'function_definition' || k.type === 'lambda' || k.type === 'class_definition') return false;
    if (k.type === 'return_statement') rets.push(named(k)[0] ?? k);
    return undefined;
  });
  return rets.length > 0 && rets.every((x) => x.type !== 'return_statement' && (checkValue(ra, x, c, depth + 1) || ['true', 'false'].includes(unparen(x).type)));
}

/** The read is only displayed: an argument (or inside an f-string argument) of `print`, a logger or `logging` call. */
function displayOnly(a: PythonAnalysis, read: PyNode): boolean {
  for (let p = read.parent; p; p = p.parent) {
    if (p.type === 'call') {
      const f = field(p, 'function');
      const t = f ? a.src(f) : '';
      if (t === 'print' || /^(logging|logger|log|_logger|LOGGER|self\.logger|self\.log)\.(debug|info|warning|warn|error|exception|critical|log)$/.test(t)) return true;
      if (/\.(debug|info|warning|error|exception|critical)$/.test(t) && /log/i.test(t)) return true;
    }
    if (p.type.endsWith('statement') || p.type === 'block' || p.type === 'function_definition') return false;
  }
  return false;
}

export function unusedChecks(fn: FunctionInfo, c: Ctx): void {
  const a = c.python;
  const du = defUse(a, fn);
  if (du.dynamic) return;
  for (const d of du.defs) {
    const id = d.node;
    const asg = id?.parent;
    if (!id || d.kind !== 'assign' || !d.value || du.captured.has(d.name) || d.name.startsWith('_')) continue;
    if (asg?.type !== 'assignment' || field(asg, 'left') !== id || !checkValue(a, d.value, c)) continue;
    const reads = (du.reads.get(d.name) ?? []).filter((r) => (a.reachingDefs(r) ?? []).some((x) => x === d || x.base?.includes(d)));
    const used = du.used.has(d);
    if (used && (!reads.length || !reads.every((r) => displayOnly(a, r)))) continue;
    c.report({
      messageId: 'unusedCheck',
      data: { name: d.name, check: short(a, d.value, 50), how: used ? 'is only printed or logged' : 'is never read' },
      at: asg,
    });
  }
}

// ------------------------------------------------------------------ JavaScript / TypeScript

const JS_COMPARE = new Set(['===', '!==', '==', '!=', '<', '<=', '>', '>=', 'instanceof', 'in']);
const JS_CHECK_METHODS = new Set(['includes', 'some', 'every', 'startsWith', 'endsWith', 'test', 'has', 'isEqual', 'equals']);

/** A JS value that is the result of a check. */
function jsCheck(e: AnyNode | null | undefined): boolean {
  if (!e) return false;
  if (e.type === 'AwaitExpression') return jsCheck(e.argument);
  if (e.type === 'BinaryExpression') return JS_COMPARE.has(e.operator);
  if (e.type === 'UnaryExpression') return e.operator === '!';
  if (e.type === 'LogicalExpression') return (e.operator === '&&' || e.operator === '||') && jsCheck(e.left) && jsCheck(e.right);
  if (e.type === 'CallExpression' && e.callee.type === 'MemberExpression') return JS_CHECK_METHODS.has(propName(e.callee) ?? '');
  return false;
}

/** A reference read only to be shown: an argument of `console.*` or a logger call. */
function jsDisplayOnly(ancestorsOf: (n: AnyNode) => readonly AnyNode[], id: Identifier): boolean {
  for (const p of [...ancestorsOf(id)].reverse()) {
    if (p.type === 'CallExpression') {
      const c = p.callee;
      const obj = c.type === 'MemberExpression' ? c.object : undefined;
      return !!obj && obj.type === 'Identifier' && /^(console|logger|log)$/.test(obj.name);
    }
    if (/Statement$|Declaration$/.test(p.type) || isJsFunction(p)) return false;
  }
  return false;
}

/** `const ok = a === b` in a verdict function of an eval module that nothing reads, or only logs. */
export function jsUnusedCheck(node: VariableDeclarator, c: RuleContext<Msg>, ancestors: readonly AnyNode[], project: Project): void {
  if (node.id.type !== 'Identifier' || !jsCheck(node.init)) return;
  const program = programOf(ancestors);
  const fn = [...ancestors].reverse().find(isJsFunction);
  if (!program || !fn) return;
  if (!jsOnVerdictPath(project, c.unit.file.path, program, fn)) return;
  const sc = jsScopes(program);
  const binding = sc.resolve(node.id);
  if (!binding || binding.id !== node.id || node.id.name.startsWith('_')) return;
  const reads = sc.references.filter((r) => r.binding === binding && !r.write && r.id !== node.id);
  const parents = parentsOf(program);
  const how = !reads.length ? 'is never read' : reads.every((r) => jsDisplayOnly((n) => parents(n), r.id)) ? 'is only printed or logged' : undefined;
  if (!how) return;
  const text = c.text.slice(node.init!.start, node.init!.end).replace(/\s+/g, ' ');
  c.report({ messageId: 'unusedCheck', data: { name: node.id.name, check: text.length > 50 ? `${text.slice(0, 47)}...` : text, how }, at: node });
}

/** The ancestors of a node of the program, outermost first (src/lang/js/nodes.ts parentMap). */
function parentsOf(program: Program): (n: AnyNode) => AnyNode[] {
  const pm = parentMap(program);
  return (n) => {
    const out: AnyNode[] = [];
    for (let p = pm.get(n); p; p = pm.get(p)) out.unshift(p);
    return out;
  };
}
