/**
 * Preparing a bundle for the Node child (in the parent; the child only imports plain JavaScript).
 *
 * - Types are stripped with the TypeScript compiler API (`ts.transpileModule`, the ts-morph copy), for
 *   `.ts`/`.mts`/`.cts` and also `.js`/`.mjs`/`.cjs` (so every bundle gets the same instrumentation).
 * - Instrumentation at the sites the static model knows (by their exact source span):
 *   a tool-run call `E` becomes `(globalThis.__vaudit_site("s:e"), E)` so the recording port knows which
 *   call site made each run; a verdict return `return X` becomes `return globalThis.__vaudit_ret("s:e", X)`
 *   so the harness knows which return produced the result (and how many runs had completed by then).
 * - Relative imports are followed (`./x.js` → `x.ts` when that is the source) and laid out under one
 *   root inside `b<i>/`, with the bundle directory's small data files (reads relative to
 *   `import.meta.url`). `vaudit/bundle` resolves to vaudit's own runtime module, written as
 *   `node_modules/vaudit/bundle.js` in the cell (dist/src/bundle/index.js when vaudit runs compiled,
 *   else src/bundle/index.ts transpiled — the same code either way).
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, extname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ts } from 'ts-morph';
import { buildBundleModelFromText } from '../../lang/ts/bundle-model.js';
import type { BundleModel } from '../../lang/ts/types.js';

export type SiteKey = string;
const siteKey = (s: { start: number; end: number }): SiteKey => `${s.start}:${s.end}`;

export interface PreparedBundle {
  /** Absolute path of the bundle's entry file. */
  file: string;
  text: string;
  model: BundleModel | undefined;
  /** Files relative to the bundle's folder in the cell: transpiled modules and data files. */
  files: Record<string, string | Buffer>;
  /** Entry module path relative to `dir`. */
  entry: string;
  /** Site keys that were found and instrumented in the entry file. */
  instrumented: Set<SiteKey>;
  /** Problems met while preparing (not fatal: the child reports a load failure if they matter). */
  notes: string[];
}

const CODE_EXT = /\.(ts|mts|cts|js|mjs|cjs)$/i;
const MAX_DATA_FILE = 256 * 1024;
const MAX_DATA_TOTAL = 2 * 1024 * 1024;
const MAX_MODULES = 64;

function outName(path: string): string {
  return path.replace(/\.ts$/i, '.js').replace(/\.mts$/i, '.mjs').replace(/\.cts$/i, '.cjs');
}

function isCommonJs(path: string): boolean {
  return /\.c(ts|js)$/i.test(path);
}

/** Resolve a relative specifier the way a TS/ESM author means it (`./x.js` may be `./x.ts`). */
function resolveLocal(fromFile: string, spec: string): string | undefined {
  const base = resolve(dirname(fromFile), spec);
  const tries: string[] = [base];
  const ext = extname(base);
  if (ext === '.js') tries.push(base.slice(0, -3) + '.ts');
  else if (ext === '.mjs') tries.push(base.slice(0, -4) + '.mts');
  else if (ext === '.cjs') tries.push(base.slice(0, -4) + '.cts');
  else if (!ext) tries.push(...['.ts', '.js', '.mts', '.mjs'].map((e) => base + e), ...['index.ts', 'index.js'].map((f) => join(base, f)));
  for (const t of tries) {
    try {
      if (statSync(t).isFile()) return t;
    } catch {
      /* next */
    }
  }
  return undefined;
}

function localSpecifiers(sf: ts.SourceFile): string[] {
  const out: string[] = [];
  const visit = (n: ts.Node): void => {
    if ((ts.isImportDeclaration(n) || ts.isExportDeclaration(n)) && n.moduleSpecifier && ts.isStringLiteral(n.moduleSpecifier)) {
      if (!(ts.isImportDeclaration(n) && n.importClause?.isTypeOnly) && !(ts.isExportDeclaration(n) && n.isTypeOnly)) out.push(n.moduleSpecifier.text);
    } else if (ts.isCallExpression(n) && n.arguments.length >= 1 && ts.isStringLiteralLike(n.arguments[0]!)) {
      const callee = n.expression;
      if (callee.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(callee) && callee.text === 'require')) out.push((n.arguments[0] as ts.StringLiteral).text);
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out.filter((s) => s.startsWith('./') || s.startsWith('../'));
}

function g(name: string): ts.Expression {
  return ts.factory.createPropertyAccessExpression(ts.factory.createIdentifier('globalThis'), name);
}

/** Transpile one module; instrument the given sites (entry file only). */
function transpile(path: string, text: string, sites: ReadonlySet<SiteKey>, found?: Set<SiteKey>): string {
  const before: ts.TransformerFactory<ts.SourceFile> = (context) => (sf) => {
    if (sites.size === 0) return sf;
    const visit = (n: ts.Node): ts.Node => {
      const start = n.pos >= 0 ? n.getStart(sf) : -1;
      const key = `${start}:${n.end}`;
      const hit = start >= 0 && sites.has(key);
      const visited = ts.visitEachChild(n, visit, context);
      if (!hit) return visited;
      if (ts.isReturnStatement(visited) && visited.expression) {
        found?.add(key);
        return ts.factory.updateReturnStatement(visited, ts.factory.createCallExpression(g('__vaudit_ret'), undefined, [ts.factory.createStringLiteral(key), visited.expression]));
      }
      if (ts.isCallExpression(visited)) {
        found?.add(key);
        return ts.factory.createParenthesizedExpression(
          ts.factory.createComma(ts.factory.createCallExpression(g('__vaudit_site'), undefined, [ts.factory.createStringLiteral(key)]), visited),
        );
      }
      if (ts.isExpression(visited) && !ts.isReturnStatement(n)) {
        found?.add(key);
        return ts.factory.createCallExpression(g('__vaudit_ret'), undefined, [ts.factory.createStringLiteral(key), visited]);
      }
      return visited;
    };
    return ts.visitNode(sf, visit) as ts.SourceFile;
  };
  const out = ts.transpileModule(text, {
    fileName: path,
    reportDiagnostics: false,
    compilerOptions: {
      target: ts.ScriptTarget.ES2022,
      module: isCommonJs(path) ? ts.ModuleKind.CommonJS : ts.ModuleKind.ESNext,
      allowJs: true,
      verbatimModuleSyntax: false,
      isolatedModules: true,
      sourceMap: false,
      removeComments: false,
    },
    transformers: { before: [before] },
  });
  return out.outputText;
}

let runtimeSource: string | undefined;
let runtimeSourceCjs: string | undefined;

/** The same runtime module as CommonJS, for `require('vaudit/bundle')` on Node < 20.19. */
export function bundleRuntimeSourceCjs(): string {
  runtimeSourceCjs ??= transpile('index.cjs', bundleRuntimeSource(), new Set());
  return runtimeSourceCjs;
}

/** vaudit's own `vaudit/bundle` runtime module, as JavaScript. */
export function bundleRuntimeSource(): string {
  if (runtimeSource !== undefined) return runtimeSource;
  const here = dirname(fileURLToPath(import.meta.url));
  const compiled = join(here, '..', '..', 'bundle', 'index.js');
  if (existsSync(compiled)) runtimeSource = readFileSync(compiled, 'utf8');
  else {
    const src = join(here, '..', '..', 'bundle', 'index.ts');
    runtimeSource = transpile(src, readFileSync(src, 'utf8'), new Set());
  }
  return runtimeSource;
}

function commonRoot(paths: string[]): string {
  let root = dirname(paths[0]!);
  for (const p of paths) {
    while (!(p + sep).startsWith(root.endsWith(sep) ? root : root + sep) && dirname(root) !== root) root = dirname(root);
  }
  return root;
}

const cache = new Map<string, PreparedBundle>();

function dirStamp(dir: string): string {
  try {
    return readdirSync(dir)
      .map((n) => {
        try {
          const st = statSync(join(dir, n));
          return `${n}:${st.size}:${st.mtimeMs}`;
        } catch {
          return n;
        }
      })
      .join('|');
  } catch {
    return '';
  }
}

/**
 * Prepare a bundle for the child: its entry module (instrumented at `sites`, plus every run and verdict
 * return the static model knows), its local module closure and its directory's small data files.
 */
export function prepareBundle(file: string, extraSites: Iterable<SiteKey> = []): PreparedBundle {
  const text = readFileSync(file, 'utf8');
  const { model } = buildBundleModelFromText(file, text);
  const sites = new Set<SiteKey>(extraSites);
  for (const c of model?.checks ?? []) {
    for (const r of c.toolRuns) sites.add(siteKey(r));
    for (const v of c.verdictReturns) sites.add(siteKey(v));
  }
  // Local modules and data files are read again when any changed (their sizes and times are in the key).
  const cacheKey = `${file}\0${text.length}\0${[...sites].sort().join(',')}\0${dirStamp(dirname(file))}`;
  const hit = cache.get(cacheKey);
  if (hit && hit.text === text) return hit;

  const notes: string[] = [];
  const modules = new Map<string, string>(); // absolute source path → transpiled text
  const instrumented = new Set<SiteKey>();
  const queue: string[] = [file];
  while (queue.length && modules.size < MAX_MODULES) {
    const p = queue.shift()!;
    if (modules.has(p)) continue;
    const src = p === file ? text : readFileSync(p, 'utf8');
    modules.set(p, transpile(p, src, p === file ? sites : new Set(), p === file ? instrumented : undefined));
    const sf = ts.createSourceFile(p, src, ts.ScriptTarget.Latest, false, /\.(c|m)?js$/i.test(p) ? ts.ScriptKind.JS : ts.ScriptKind.TS);
    for (const spec of localSpecifiers(sf)) {
      const target = resolveLocal(p, spec);
      if (target && CODE_EXT.test(target)) queue.push(target);
      else if (!target) notes.push(`${relative(dirname(file), p) || p} imports '${spec}', which does not exist`);
    }
  }
  const root = commonRoot([...modules.keys()]);
  const files: Record<string, string | Buffer> = {};
  for (const [p, js] of modules) files[outName(relative(root, p))] = js;
  // Data files beside the bundle (non-recursive, bounded): `readFileSync(new URL('./x', import.meta.url))`.
  let total = 0;
  const dir = dirname(file);
  try {
    for (const name of readdirSync(dir).sort()) {
      const p = join(dir, name);
      if (modules.has(p) || CODE_EXT.test(name) || name.startsWith('.')) continue;
      let st;
      try {
        st = statSync(p);
      } catch {
        continue;
      }
      if (!st.isFile() || st.size > MAX_DATA_FILE || total + st.size > MAX_DATA_TOTAL) continue;
      total += st.size;
      files[relative(root, p)] = readFileSync(p);
    }
  } catch {
    /* unreadable directory: modules only */
  }
  // ESM semantics for `.js` outputs (the bundle contract is ESM; `.cjs`/`.cts` stay CommonJS).
  files['package.json'] = '{"type":"module"}\n';
  const prepared: PreparedBundle = { file, text, model, files, entry: outName(relative(root, file)), instrumented, notes };
  if (cache.size >= 64) cache.clear();
  cache.set(cacheKey, prepared);
  return prepared;
}
