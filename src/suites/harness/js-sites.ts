/**
 * Where JS/TS harness code imports a module whose path it builds from task data:
 * `await import(pathToFileURL(path.join(dir, "tasks", input.name + ".ts")).href)`, `require(p)`, with the
 * path traced through local constants, template literals, `path.join`/`path.resolve` and a list of
 * candidates (`[`${base}.js`, `${base}.ts`].find(existsSync)`), and what it takes from the module
 * (`mod.default`, `mod[input.name]`, `mod[name.split("/").pop()]`).
 */
import * as path from 'node:path';
import type { AnyNode, Program } from 'acorn';
import { forEachChild, propName } from '../../lang/js/nodes.js';
import { BASE, concatAll, joinAll, lit, membersOf, type Piece, type Template } from './template.js';
import type { ModuleRoute } from './routes.js';

/** Cheap text screen before parsing: a dynamic import or require of something other than a literal. */
export const JS_LOADER_SCREEN = /\b(?:import|require)\s*\(\s*(?!(['"])[^'"\n]*\1\s*\)|`[^`$]*`\s*\))/;

const JOIN = new Set(['join', 'resolve']);
const ITERATING = new Set(['map', 'forEach', 'flatMap', 'filter']);

interface Env {
  file: string;
  /** Declarations by name (every `const/let/var x = init` in the file; names reused in other functions are rare in loaders). */
  decls: Map<string, AnyNode[]>;
  /** Loop variables over task data (`for (const name of cfg.evals)`, `.map((e) => …)`): the record itself. */
  items: Set<string>;
  depth: number;
}

/** Module routes one JS/TS harness file takes. */
export function jsRoutes(file: string, program: Program, text: string): ModuleRoute[] {
  const decls = new Map<string, AnyNode[]>();
  const items = new Set<string>();
  const sites: Array<{ node: AnyNode; arg: AnyNode; parents: AnyNode[] }> = [];
  const visit = (n: AnyNode, parents: AnyNode[]) => {
    if (n.type === 'VariableDeclarator' && n.id.type === 'Identifier' && n.init) {
      const list = decls.get(n.id.name) ?? [];
      list.push(n.init);
      decls.set(n.id.name, list);
    }
    if (n.type === 'ForOfStatement' && n.left.type === 'VariableDeclaration') {
      const id = n.left.declarations[0]?.id;
      if (id?.type === 'Identifier') items.add(id.name);
    }
    if (n.type === 'CallExpression' && ITERATING.has(propName(n.callee) ?? '')) {
      const cb = n.arguments[0];
      if (cb && (cb.type === 'ArrowFunctionExpression' || cb.type === 'FunctionExpression') && cb.params[0]?.type === 'Identifier') items.add(cb.params[0].name);
    }
    if (n.type === 'ImportExpression') sites.push({ node: n, arg: n.source, parents });
    else if (n.type === 'CallExpression' && n.callee.type === 'Identifier' && n.callee.name === 'require' && n.arguments[0] && n.arguments[0].type !== 'SpreadElement') sites.push({ node: n, arg: n.arguments[0], parents });
    const next = [...parents, n];
    forEachChild(n, (c) => visit(c, next));
  };
  visit(program, []);
  const env: Env = { file, decls, items, depth: 0 };
  const out: ModuleRoute[] = [];
  for (const s of sites) {
    if (s.arg.type === 'Literal') continue;
    const ts = templates(env, s.arg).filter((t) => membersOf(t).length > 0);
    if (ts.length === 0) continue;
    const taken = exportTaken(env, s.node, s.parents);
    const line = text.slice(0, s.node.start).split('\n').length;
    for (const t of ts) {
      out.push({ file, line, language: 'js', template: t, ...taken });
    }
  }
  return out;
}


function templates(env: Env, n: AnyNode): Template[] {
  if (env.depth > 8) return [BASE];
  env.depth++;
  try {
    return templatesOf(env, n);
  } finally {
    env.depth--;
  }
}

function templatesOf(env: Env, n: AnyNode): Template[] {
  switch (n.type) {
    case 'Literal':
      return typeof n.value === 'string' ? [lit(n.value)] : [BASE];
    case 'TemplateLiteral': {
      const parts: Template[][] = [];
      n.quasis.forEach((q, i) => {
        parts.push([lit(q.value.cooked ?? q.value.raw)]);
        const e = n.expressions[i];
        if (e) parts.push(templates(env, e));
      });
      return concatAll(parts);
    }
    case 'BinaryExpression':
      if (n.operator !== '+' || n.left.type === 'PrivateIdentifier') return [BASE];
      return concatAll([templates(env, n.left), templates(env, n.right)]);
    case 'AwaitExpression':
      return templates(env, n.argument);
    case 'ConditionalExpression':
      return [...templates(env, n.consequent), ...templates(env, n.alternate)].slice(0, 16);
    case 'LogicalExpression':
      return templates(env, n.left);
    case 'Identifier': {
      if (n.name === '__dirname') return [[{ kind: 'here', dir: path.dirname(env.file) }]];
      if (env.items.has(n.name)) return [[{ kind: 'member', name: '' }]];
      const inits = env.decls.get(n.name);
      if (!inits || inits.length !== 1) return [BASE];
      return templates(env, inits[0]!);
    }
    case 'MemberExpression': {
      const p = propName(n);
      if (p === 'href' || p === 'pathname') return templates(env, n.object);
      if (p === 'dirname' && n.object.type === 'MetaProperty') return [[{ kind: 'here', dir: path.dirname(env.file) }]];
      if (p && n.object.type === 'Identifier') return [[{ kind: 'member', name: p }]];
      return [BASE];
    }
    case 'CallExpression': {
      const callee = n.callee;
      const args = n.arguments.filter((a): a is Exclude<typeof a, { type: 'SpreadElement' }> => a.type !== 'SpreadElement');
      const name = callee.type === 'Identifier' ? callee.name : propName(callee);
      if (name && JOIN.has(name) && callee.type === 'MemberExpression') return joinAll(args.map((a) => templates(env, a)));
      if ((name === 'pathToFileURL' || name === 'String' || name === 'normalize') && args.length === 1) return templates(env, args[0]!);
      if (name === 'find' && callee.type === 'MemberExpression') {
        const arr = resolveArray(env, callee.object);
        if (arr) return arr.flatMap((e) => templates(env, e)).slice(0, 16);
      }
      return [BASE];
    }
    case 'NewExpression': {
      // new URL(`./tasks/${name}.js`, import.meta.url)
      const [first] = n.arguments;
      if (n.callee.type === 'Identifier' && n.callee.name === 'URL' && first && first.type !== 'SpreadElement') {
        const rel = templates(env, first);
        return rel.map((t) => [{ kind: 'here', dir: path.dirname(env.file) } as Piece, { kind: 'lit', text: '/' } as Piece, ...t]);
      }
      return [BASE];
    }
  }
  return [BASE];
}

function resolveArray(env: Env, n: AnyNode): AnyNode[] | undefined {
  if (n.type === 'ArrayExpression') return n.elements.filter((e): e is NonNullable<typeof e> & AnyNode => !!e && e.type !== 'SpreadElement');
  if (n.type === 'Identifier') {
    const inits = env.decls.get(n.name);
    if (inits?.length === 1) return resolveArray(env, inits[0]!);
  }
  return undefined;
}

/**
 * What the harness takes from the imported module: follows `const m = await import(…)` to `m.NAME`
 * (→ exportName) or `m[key]` where key derives from a record member (→ exportFromMember).
 */
function exportTaken(env: Env, site: AnyNode, parents: AnyNode[]): Pick<ModuleRoute, 'exportName' | 'exportFromMember'> {
  let holder: string | undefined;
  for (let i = parents.length - 1; i >= 0; i--) {
    const p = parents[i]!;
    if (p.type === 'AwaitExpression') continue;
    if (p.type === 'VariableDeclarator' && p.id.type === 'Identifier') holder = p.id.name;
    if (p.type === 'MemberExpression') {
      const name = propName(p);
      if (name) return { exportName: name };
    }
    break;
  }
  if (!holder) return {};
  const program = parents[0];
  if (!program) return {};
  let taken: Pick<ModuleRoute, 'exportName' | 'exportFromMember'> = {};
  const visit = (n: AnyNode) => {
    if (taken.exportName || taken.exportFromMember) return;
    if (n.type === 'MemberExpression' && n.object.type === 'Identifier' && n.object.name === holder) {
      const name = propName(n);
      if (name && name !== 'then') taken = { exportName: name };
      else if (n.computed && n.property.type !== 'PrivateIdentifier') {
        const t = templates(env, n.property);
        const m = t.map((x) => x.filter((p) => p.kind === 'member')).find((x) => x.length === 1);
        if (m && m[0]!.kind === 'member') taken = { exportFromMember: m[0]!.name };
      }
    }
    forEachChild(n, visit);
  };
  visit(program);
  return taken;
}
