/**
 * Whether the harness code that reads a task file keys its records by a member: the records end up in a
 * map whose key is that member of each record, so two records with the same value there are one entry.
 *
 * JS/TS: `acc[t.name] = …` / `acc[t["name"]] = …`, `map.set(t.name, …)`, `{ [t.name]: … }`, and a pair
 * `[t.name, …]` inside `Object.fromEntries(…)` or `new Map(…)`.
 * Python: `d[t["id"]] = …` / `d[t.id] = …`, `{t["id"]: … for t in …}`, and a pair `(t["id"], …)` inside
 * `dict(…)`.
 * The key must be a member of an element of an iteration over the task records themselves (`reduce`,
 * `forEach`, `map`, `for … of`, `for … in`, a comprehension's `for`): a value traced from the read of the
 * task file (`config = JSON.parse(readFileSync(configPath))`, `config.tasks`), or in a router a
 * `json.load(f)` / `JSON.parse(text)` of a path handed in. A baseline or other collection keyed by the
 * same member does not make a copy of a task run once.
 */
import * as path from 'node:path';
import type { AnyNode } from 'acorn';
import type { SourceFile } from '../core/source.js';
import type { PythonAnalysis, PythonProject } from '../lang/python/types.js';
import { field, named, unparen, walk, type PyNode } from '../lang/python/tree.js';
import { forEachChild } from '../lang/js/nodes.js';
import { programOfFile } from '../lang/js/parse.js';

interface Code {
  readonly files: ReadonlyMap<string, SourceFile>;
  readonly python: PythonProject;
}

const cache = new WeakMap<Code, Map<string, boolean>>();

/** `x.member` or `x["member"]` (JS). */
function jsMemberOf(n: AnyNode | null | undefined, member: string): boolean {
  if (n?.type !== 'MemberExpression') return false;
  const p = n.property;
  if (!n.computed) return p.type === 'Identifier' && p.name === member;
  return p.type === 'Literal' && p.value === member;
}

const escape = (x: string) => x.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Whether `text` holds the task file's name or a tracked name (a whole word, `self.tasks` as written). */
function mentions(text: string, base: string, tracked: ReadonlySet<string>): boolean {
  if (text.includes(base)) return true;
  for (const t of tracked) if (new RegExp(`(^|[^\\w$.])${escape(t)}(?![\\w$])`).test(text)) return true;
  return false;
}

/** Names that hold what was read from the task file (or its path), to a fixpoint: `configPath = path.join(…,
 *  "evals.config.json")`, `config = JSON.parse(readFileSync(configPath))`, `tasks = config.tasks`. */
function tracked(pairs: readonly (readonly [string, string])[], base: string): Set<string> {
  const out = new Set<string>();
  for (let grew = true; grew; ) {
    grew = false;
    for (const [name, value] of pairs) if (!out.has(name) && mentions(value, base, out)) { out.add(name); grew = true; }
  }
  return out;
}

const JS_ITER = new Map([['reduce', 1], ['reduceRight', 1], ['forEach', 0], ['map', 0], ['flatMap', 0]]);
const JS_READ = /^(JSON\.parse|require)\(/;

/** JS/TS: a keyed write whose key is `member` of an element of an iteration over the task records. */
function jsKeys(root: AnyNode, text: string, member: string, base: string, names: boolean): boolean {
  const src = (n: AnyNode) => text.slice((n as { start: number }).start, (n as { end: number }).end);
  const pairs: [string, string][] = [];
  const collect = (n: AnyNode): void => {
    if (n.type === 'VariableDeclarator' && n.id.type === 'Identifier' && n.init) pairs.push([n.id.name, src(n.init as AnyNode)]);
    else if (n.type === 'AssignmentExpression' && (n.left.type === 'Identifier' || n.left.type === 'MemberExpression')) pairs.push([src(n.left as AnyNode), src(n.right as AnyNode)]);
    else if (n.type === 'ImportDeclaration' && typeof n.source.value === 'string' && n.source.value.includes(base)) for (const sp of n.specifiers) pairs.push([sp.local.name, base]);
    forEachChild(n, collect);
  };
  collect(root);
  const held = tracked(pairs, base);
  const isTasks = (n: AnyNode) => (names && mentions(src(n), base, held)) || (JS_READ.test(src(n)) && !/['"`]/.test(src(n)));
  const keyOf = (k: AnyNode | null | undefined, elems: ReadonlySet<string>) => jsMemberOf(k, member) && (k as { object: AnyNode }).object.type === 'Identifier' && elems.has(((k as { object: AnyNode }).object as { name: string }).name);
  let hit = false;
  const rec = (n: AnyNode, inPairs: boolean, elems: ReadonlySet<string>): void => {
    if (hit) return;
    if (elems.size) {
      if (n.type === 'AssignmentExpression' && n.left.type === 'MemberExpression' && n.left.computed && keyOf(n.left.property as AnyNode, elems)) hit = true;
      else if (n.type === 'CallExpression' && n.callee.type === 'MemberExpression' && !n.callee.computed && n.callee.property.type === 'Identifier' && n.callee.property.name === 'set' && keyOf(n.arguments[0] as AnyNode, elems)) hit = true;
      else if (n.type === 'Property' && n.computed && keyOf(n.key as AnyNode, elems)) hit = true;
      else if (inPairs && n.type === 'ArrayExpression' && n.elements.length === 2 && keyOf(n.elements[0] as AnyNode, elems)) hit = true;
    }
    if (hit) return;
    const pairsHere =
      inPairs ||
      (n.type === 'NewExpression' && n.callee.type === 'Identifier' && n.callee.name === 'Map') ||
      (n.type === 'CallExpression' && n.callee.type === 'MemberExpression' && n.callee.object.type === 'Identifier' && n.callee.object.name === 'Object' && !n.callee.computed && n.callee.property.type === 'Identifier' && n.callee.property.name === 'fromEntries');
    let inner: ReadonlySet<string> = elems;
    if (n.type === 'CallExpression' && n.callee.type === 'MemberExpression' && !n.callee.computed && n.callee.property.type === 'Identifier' && JS_ITER.has(n.callee.property.name) && isTasks(n.callee.object as AnyNode)) {
      const fn = n.arguments[0];
      const p = fn && (fn.type === 'ArrowFunctionExpression' || fn.type === 'FunctionExpression') ? fn.params[JS_ITER.get(n.callee.property.name)!] : undefined;
      if (p?.type === 'Identifier') inner = new Set([...elems, p.name]);
    } else if (n.type === 'ForOfStatement' && isTasks(n.right as AnyNode)) {
      const l = n.left;
      const id = l.type === 'VariableDeclaration' ? l.declarations[0]?.id : l;
      if (id?.type === 'Identifier') inner = new Set([...elems, id.name]);
    }
    forEachChild(n, (c) => rec(c, pairsHere, inner));
  };
  rec(root, false, new Set());
  return hit;
}

/** `x.member` or `x["member"]` (Python). */
function pyMemberOf(a: PythonAnalysis, n: PyNode | undefined, member: string): boolean {
  const u = n && unparen(n);
  if (u?.type === 'attribute') return a.src(field(u, 'attribute')!) === member;
  if (u?.type !== 'subscript') return false;
  const k = field(u, 'subscript');
  return !!k && k.type === 'string' && a.src(k).replace(/^[rbuRBU]*(['"])([\s\S]*)\1$/, '$2') === member;
}

/** A read of a file handed in by a name (not a literal path): in a router, the task file it is given. */
const PY_READ = /^(json\.loads?|yaml\.(safe_)?load|tomllib\.loads?)\(/;

/** Python: a keyed write whose key is `member` of the loop variable of an iteration over the task records. */
function pyKeys(a: PythonAnalysis, member: string, base: string, names: boolean): boolean {
  const pairs: [string, string][] = [];
  walk(a.ast, (n) => {
    if (n.type === 'assignment') {
      const l = field(n, 'left');
      const r = field(n, 'right');
      if (l && r && (l.type === 'identifier' || l.type === 'attribute')) pairs.push([a.src(l), a.src(r)]);
    } else if (n.type === 'as_pattern' || n.type === 'with_item') {
      const alias = field(n, 'alias') ?? named(n).find((c) => c.type === 'as_pattern_target');
      const v = named(n)[0];
      if (alias && v && v !== alias) pairs.push([a.src(alias).trim(), a.src(v)]);
    }
  });
  const held = tracked(pairs, base);
  const isTasks = (n: PyNode) => (names && mentions(a.src(n), base, held)) || (PY_READ.test(a.src(unparen(n))) && !/['"]/.test(a.src(n)));
  const loopVar = (l: PyNode | undefined) => (l && unparen(l).type === 'identifier' ? a.src(l) : undefined);
  const keyOf = (k: PyNode | undefined, elems: ReadonlySet<string>) => {
    const u = k && unparen(k);
    if (!u || !pyMemberOf(a, u, member)) return false;
    const o = field(u, u.type === 'attribute' ? 'object' : 'value');
    return !!o && o.type === 'identifier' && elems.has(a.src(o));
  };
  const clauses = (n: PyNode) => {
    const vars = new Set<string>();
    for (const c of named(n)) if (c.type === 'for_in_clause') {
      const r = field(c, 'right');
      const v = loopVar(field(c, 'left'));
      if (r && v && isTasks(r)) vars.add(v);
    }
    return vars;
  };
  let hit = false;
  const rec = (n: PyNode, elems: ReadonlySet<string>): void => {
    if (hit) return;
    let inner = elems;
    if (n.type === 'for_statement') {
      const r = field(n, 'right');
      const v = loopVar(field(n, 'left'));
      if (r && v && isTasks(r)) inner = new Set([...elems, v]);
    } else if (n.type === 'dictionary_comprehension') {
      const vars = clauses(n);
      const body = field(n, 'body');
      if (vars.size && body?.type === 'pair' && keyOf(field(body, 'key'), vars)) { hit = true; return; }
    } else if (n.type === 'call' && a.src(field(n, 'function')!) === 'dict') {
      walk(n, (g) => {
        if (hit) return false;
        if (g.type !== 'generator_expression' && g.type !== 'list_comprehension') return undefined;
        const vars = clauses(g);
        const body = field(g, 'body');
        if (vars.size && body?.type === 'tuple' && keyOf(named(body)[0], vars)) hit = true;
        return undefined;
      });
      if (hit) return;
    }
    if (inner.size && n.type === 'assignment') {
      const l = field(n, 'left');
      if (l?.type === 'subscript' && keyOf(field(l, 'subscript'), inner)) { hit = true; return; }
    }
    for (const c of named(n)) rec(c, inner);
  };
  rec(a.ast, new Set());
  return hit;
}

/** Some harness file that reads this task file keys records by `member`: a file that names the task
 *  file (`"evals.config.json"`, `./tasks.json`) or routes its tasks (the file of a route's `via`). */
export function harnessKeysBy(code: Code, member: string, taskFile: string, routers: ReadonlySet<string>): boolean {
  let byMember = cache.get(code);
  if (!byMember) cache.set(code, (byMember = new Map()));
  const key = `${taskFile}\0${member}`;
  const known = byMember.get(key);
  if (known !== undefined) return known;
  const base = path.basename(taskFile);
  const reads = (file: string, text: string) => file !== taskFile && text.includes(member) && (routers.has(file) || text.includes(base));
  let hit = false;
  for (const f of code.files.values()) {
    if (hit) break;
    if ((f.language !== 'javascript' && f.language !== 'typescript') || !reads(f.path, f.source.text)) continue;
    const program = programOfFile(f);
    if (program && jsKeys(program as AnyNode, f.source.text, member, base, f.source.text.includes(base))) hit = true;
  }
  for (const file of hit ? [] : code.python.files()) {
    if (!reads(file, code.python.text(file) ?? '')) continue;
    const a = code.python.analysis(file);
    if (a && pyKeys(a, member, base, (code.python.text(file) ?? '').includes(base))) { hit = true; break; }
  }
  byMember.set(key, hit);
  return hit;
}
