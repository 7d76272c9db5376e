/**
 * Whether the harness code that reads a task file keys its records by a member: the records end up in a
 * map whose key is that member of each record, so two records with the same value there are one entry.
 *
 * JS/TS: `acc[t.name] = …` / `acc[t["name"]] = …`, `map.set(t.name, …)`, `{ [t.name]: … }`, and a pair
 * `[t.name, …]` inside `Object.fromEntries(…)` or `new Map(…)`.
 * Python: `d[t["id"]] = …` / `d[t.id] = …`, `{t["id"]: … for t in …}`, and a pair `(t["id"], …)` inside
 * `dict(…)`.
 */
import * as path from 'node:path';
import type { AnyNode } from 'acorn';
import type { SourceFile } from '../core/source.js';
import type { PythonAnalysis, PythonProject } from '../lang/python/types.js';
import { field, named, unparen, walk, type PyNode } from '../lang/python/tree.js';
import { forEachChild } from '../lang/js/nodes.js';
import { parseScript } from '../lang/js/parse.js';

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

function jsKeys(root: AnyNode, member: string): boolean {
  let hit = false;
  const rec = (n: AnyNode, inPairs: boolean): void => {
    if (hit) return;
    if (n.type === 'AssignmentExpression' && n.left.type === 'MemberExpression' && n.left.computed && jsMemberOf(n.left.property as AnyNode, member)) hit = true;
    else if (n.type === 'CallExpression' && n.callee.type === 'MemberExpression' && !n.callee.computed && n.callee.property.type === 'Identifier' && n.callee.property.name === 'set' && jsMemberOf(n.arguments[0] as AnyNode, member)) hit = true;
    else if (n.type === 'Property' && n.computed && jsMemberOf(n.key as AnyNode, member)) hit = true;
    else if (inPairs && n.type === 'ArrayExpression' && n.elements.length === 2 && jsMemberOf(n.elements[0] as AnyNode, member)) hit = true;
    if (hit) return;
    const pairs =
      inPairs ||
      (n.type === 'NewExpression' && n.callee.type === 'Identifier' && n.callee.name === 'Map') ||
      (n.type === 'CallExpression' && n.callee.type === 'MemberExpression' && n.callee.object.type === 'Identifier' && n.callee.object.name === 'Object' && !n.callee.computed && n.callee.property.type === 'Identifier' && n.callee.property.name === 'fromEntries');
    forEachChild(n, (c) => rec(c, pairs));
  };
  rec(root, false);
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

function pyKeys(a: PythonAnalysis, member: string): boolean {
  let hit = false;
  walk(a.ast, (n) => {
    if (hit) return false;
    if (n.type === 'assignment') {
      const l = field(n, 'left');
      if (l?.type === 'subscript' && pyMemberOf(a, field(l, 'subscript'), member)) hit = true;
    } else if (n.type === 'dictionary_comprehension') {
      const body = field(n, 'body');
      if (body?.type === 'pair' && pyMemberOf(a, field(body, 'key'), member)) hit = true;
    } else if (n.type === 'call' && a.src(field(n, 'function')!) === 'dict') {
      walk(n, (t) => {
        if (t.type === 'tuple' && pyMemberOf(a, named(t)[0], member)) hit = true;
      });
    }
    return hit ? false : undefined;
  });
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
    const p = parseScript(f.language, f.source.text);
    if (p.ok && jsKeys(p.program as AnyNode, member)) hit = true;
  }
  for (const file of hit ? [] : code.python.files()) {
    if (!reads(file, code.python.text(file) ?? '')) continue;
    const a = code.python.analysis(file);
    if (a && pyKeys(a, member)) { hit = true; break; }
  }
  byMember.set(key, hit);
  return hit;
}
