/**
 * What a Python expression of a harness builds a path from ({@link Template}s): literals, f-strings,
 * `+`, `os.path.join`/`Path(…) / …`, `str()`/`os.fspath()`, local copies, and the arguments callers
 * pass to a parameter. A read of a record member (`task["verify"]`, `task.get("verify")`) is a hole.
 */
import * as path from 'node:path';
import type { PythonAnalysis, PythonProject, PyNode, FunctionInfo } from '../../lang/python/types.js';
import { field, named, unparen, walk } from '../../lang/python/tree.js';
import { filesContaining } from './file-memo.js';
import { BASE, concatAll, joinAll, lit, type Template } from './template.js';

const IDENT_CALLS = new Set(['str', 'os.fspath', 'os.path.abspath', 'os.path.realpath', 'os.path.normpath', 'pathlib.Path', 'pathlib.PurePath', 'pathlib.PosixPath']);
const JOIN_CALLS = new Set(['os.path.join', 'posixpath.join', 'pathlib.Path', 'pathlib.PurePath', 'pathlib.PosixPath']);
const IDENT_METHODS = new Set(['resolve', 'absolute', 'expanduser', 'as_posix', '__str__']);
const DIRNAME = new Set(['os.path.dirname', 'posixpath.dirname']);

/** The text of a plain string literal (no interpolation, no bytes), else undefined. */
export function pyStringLiteral(a: PythonAnalysis, n: PyNode): string | undefined {
  const u = unparen(n);
  if (u.type === 'concatenated_string') {
    const parts = named(u).map((p) => pyStringLiteral(a, p));
    return parts.every((p) => p !== undefined) ? parts.join('') : undefined;
  }
  if (u.type !== 'string' || u.children.some((c) => c.type === 'interpolation')) return undefined;
  const t = a.src(u);
  if (/^[a-zA-Z]*[bBfF]/.test(t)) return undefined;
  return u.children.filter((c) => c.type === 'string_content' || c.type === 'escape_sequence').map((c) => c.text).join('');
}

interface Ctx {
  python: PythonProject;
  depth: number;
  seen: Set<PyNode>;
}

/** Templates an expression may evaluate to (alternatives, bounded). */
export function pyTemplates(python: PythonProject, a: PythonAnalysis, n: PyNode): Template[] {
  return templates({ python, depth: 0, seen: new Set() }, a, n);
}

function templates(ctx: Ctx, a: PythonAnalysis, n0: PyNode): Template[] {
  const n = unparen(n0);
  if (ctx.seen.has(n) || ctx.depth > 6) return [BASE];
  ctx.seen.add(n);
  try {
    return templatesOf(ctx, a, n);
  } finally {
    ctx.seen.delete(n);
  }
}

function templatesOf(ctx: Ctx, a: PythonAnalysis, n: PyNode): Template[] {
  const s = pyStringLiteral(a, n);
  if (s !== undefined) return [lit(s)];
  switch (n.type) {
    case 'string': {
      // f-string: literal text and interpolated expressions
      if (/^[a-zA-Z]*[bB]/.test(a.src(n))) return [BASE];
      const parts: Template[][] = [];
      for (const c of n.children) {
        if (c.type === 'string_content' || c.type === 'escape_sequence') parts.push([lit(c.text)]);
        else if (c.type === 'interpolation') {
          const e = field(c, 'expression') ?? named(c)[0];
          parts.push(e ? templates(ctx, a, e) : [BASE]);
        }
      }
      return concatAll(parts);
    }
    case 'binary_operator': {
      const l = field(n, 'left');
      const r = field(n, 'right');
      if (!l || !r) return [BASE];
      const op = a.text.slice(l.end, r.start).trim();
      if (op === '+') return concatAll([templates(ctx, a, l), templates(ctx, a, r)]);
      if (op === '/') return joinAll([templates(ctx, a, l), templates(ctx, a, r)]);
      return [BASE];
    }
    case 'call': {
      const c = a.call(n);
      if (!c) return [BASE];
      const q = a.qualifiedName(c.fn) ?? c.calleeText;
      if (c.receiver && IDENT_METHODS.has(c.method) && c.args.length === 0) return templates(ctx, a, c.receiver);
      if (c.receiver && c.method === 'get' && c.args.length >= 1) {
        const key = pyStringLiteral(a, c.args[0]!);
        if (key !== undefined && isRecordLike(a, c.receiver)) return [[{ kind: 'member', name: key }]];
      }
      if (DIRNAME.has(q) && c.args.length === 1) {
        // os.path.dirname(os.path.abspath(__file__)): the harness's own folder
        const inner = templates(ctx, a, c.args[0]!);
        if (inner.length === 1 && inner[0]![0]?.kind === 'here') return [[inner[0]![0]]];
        return [BASE];
      }
      if (c.args.length === 0) return [BASE];
      if (JOIN_CALLS.has(q) && !c.hasStarArgs) return joinAll(c.args.map((x) => templates(ctx, a, x)));
      if (IDENT_CALLS.has(q) && c.args.length === 1) return templates(ctx, a, c.args[0]!);
      // a project helper that joins its arguments (`convert_to_posix_path(dir, 'proto', name)`): joined
      const callee = ctx.python.resolveFunction(a.path, c.calleeText);
      if (callee && !c.hasStarArgs && joinsItsArguments(ctx.python, callee.file, callee.fn)) return joinAll(c.args.map((x) => templates(ctx, a, x)));
      return [BASE];
    }
    case 'attribute': {
      const obj = field(n, 'object');
      const attr = field(n, 'attribute');
      if (obj && attr && isRecordLike(a, obj)) return [[{ kind: 'member', name: a.src(attr) }]];
      return [BASE];
    }
    case 'subscript': {
      const obj = field(n, 'value');
      const key = field(n, 'subscript');
      const k = key ? pyStringLiteral(a, key) : undefined;
      if (obj && k !== undefined) return [[{ kind: 'member', name: k }]];
      return [BASE];
    }
    case 'identifier':
      return identifierTemplates(ctx, a, n);
  }
  return [BASE];
}

/** A record is a local or a parameter (not a module or a class): `task`, `t`, `self.task`. */
function isRecordLike(a: PythonAnalysis, n: PyNode): boolean {
  const u = unparen(n);
  if (u.type === 'identifier') return !a.imports().has(u.text);
  return u.type === 'attribute' || u.type === 'subscript';
}

function identifierTemplates(ctx: Ctx, a: PythonAnalysis, n: PyNode): Template[] {
  if (n.text === '__file__') return [[{ kind: 'here', dir: path.dirname(a.path) }, { kind: 'lit', text: `/${path.basename(a.path)}` }]];
  const defs = a.reachingDefs(n) ?? [];
  const out: Template[] = [];
  for (const d of defs) {
    if (d.kind === 'param') {
      const fn = a.functionAt(n);
      out.push(...(fn ? parameterTemplates(ctx, a, fn, n.text) : [BASE]));
    } else if ((d.kind === 'assign' || d.kind === 'annassign') && d.value && !d.index?.length) {
      ctx.depth++;
      out.push(...templates(ctx, a, d.value));
      ctx.depth--;
    } else if (d.kind === 'for' && d.value) {
      out.push(...iterationTemplates(ctx, a, d.value));
    } else out.push(BASE);
    if (out.length > 16) break;
  }
  return out.length ? dedupe(out) : [BASE];
}

/** `for p in [a, b]:` / `for p in (f"{x}.js", f"{x}.ts")`: each element. */
function iterationTemplates(ctx: Ctx, a: PythonAnalysis, iter: PyNode): Template[] {
  const u = unparen(iter);
  if (u.type === 'list' || u.type === 'tuple') return named(u).flatMap((e) => templates(ctx, a, e));
  // an item of task data the harness iterates (`for name in config["evals"]`): the record itself
  return [[{ kind: 'member', name: '' }]];
}

/** The templates of what callers pass to a parameter (positional or by keyword); a default value too. */
function parameterTemplates(ctx: Ctx, a: PythonAnalysis, fn: FunctionInfo, param: string): Template[] {
  const idx = fn.params.indexOf(param);
  const offset = fn.className && fn.params[0] === 'self' ? 1 : 0;
  if (idx < 0 || ctx.depth > 3) return [BASE];
  const out: Template[] = [];
  ctx.depth++;
  for (const site of callersOf(ctx.python, a.path, fn)) {
    const arg = site.kwargs.get(param) ?? site.args[idx - offset];
    if (arg) out.push(...templates(ctx, site.a, arg));
    if (out.length > 16) break;
  }
  ctx.depth--;
  return out.length ? dedupe(out) : [BASE];
}

interface CallSite { a: PythonAnalysis; node: PyNode; args: PyNode[]; kwargs: ReadonlyMap<string, PyNode> }

const callerMemo = new WeakMap<PythonProject, Map<string, CallSite[]>>();

/** Calls of a function anywhere in the project, by its name (a harness calls its loader by name). */
export function callersOf(python: PythonProject, file: string, fn: FunctionInfo): CallSite[] {
  let byName = callerMemo.get(python);
  if (!byName) callerMemo.set(python, (byName = new Map()));
  const key = `${file}\0${fn.qualname}`;
  const hit = byName.get(key);
  if (hit) return hit;
  const out: CallSite[] = [];
  for (const f of filesContaining(python, `${fn.name}(`)) {
    const b = python.analysis(f);
    if (!b) continue;
    walk(b.ast, (n) => {
      if (n.type !== 'call') return;
      const c = b.call(n);
      if (!c || c.method !== fn.name) return;
      const selfCall = c.receiver !== undefined && (b.src(c.receiver) === 'self' || b.src(c.receiver) === 'cls');
      if (selfCall) {
        // `self.f(…)`: the method of the caller's own class
        if (!fn.className || b.path !== file || b.functionAt(n)?.className !== fn.className) return;
      } else if (fn.className) {
        return; // a method called on another object: not resolvable by name alone
      } else {
        const target = c.receiver ? undefined : python.resolveFunction(b.path, c.calleeText);
        if (target && (target.file !== file || target.fn.qualname !== fn.qualname)) return;
        if (!target) {
          // `mod.load_verifier(...)` through an import of the module
          const q = b.qualifiedName(c.fn) ?? '';
          const m = python.moduleName(file);
          if (!m || !q.endsWith(`${m.split('.').pop()}.${fn.name}`)) return;
        }
      }
      out.push({ a: b, node: n, args: c.args, kwargs: c.kwargs });
    });
  }
  byName.set(key, out);
  return out;
}

/** A helper whose return value is `os.path.join(*args)`-like over its own parameters. */
function joinsItsArguments(python: PythonProject, file: string, fn: FunctionInfo): boolean {
  const a = python.analysis(file);
  if (!a) return false;
  let joins = false;
  walk(fn.node, (n) => {
    if (n.type !== 'return_statement') return;
    const v = named(n)[0];
    const c = v && v.type === 'call' ? a.call(v) : undefined;
    if (c && (JOIN_CALLS.has(a.qualifiedName(c.fn) ?? '') || c.method === 'join') && (c.hasStarArgs || c.args.length > 1)) joins = true;
  });
  return joins;
}

function dedupe(ts: Template[]): Template[] {
  const seen = new Set<string>();
  return ts.filter((t) => {
    const k = JSON.stringify(t);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
