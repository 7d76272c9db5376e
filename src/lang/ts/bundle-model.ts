/**
 * buildBundleModel: the static model of a correctness-model bundle.
 *
 * One raw-TypeScript parse (no program, no tsconfig), one scope index, then:
 * the declared projections and checks of `defineCorrectnessModel({...})`;
 * every `runtime.tools.run(...)` reachable from each check's evaluate
 * (through aliases, destructuring, same-file helpers and callbacks), with the
 * origin of each `files`/`stdin` value; whether each run is awaited before
 * evaluate returns and which of its result members are read; and the
 * verdict-returning paths (pass without a completed run, non-result turned
 * into a verdict).
 */
import { ts } from 'ts-morph';
import type { SourceFile } from '../../core/source.js';
import { buildScopeIndex, type Decl, type ScopeIndex } from './scope.js';
import { ValueAnalyzer, unwrap, short, type Env, type FnLike, type Value } from './values.js';
import type {
  BundleCheck,
  BundleImport,
  BundleModel,
  BundleToolRun,
  ChainStep,
  RunResultUse,
  Settlement,
  Span,
  StaticValue,
  ToolInput,
  VerdictReturn,
} from './types.js';

import { BUNDLE_MODULE, mayBeBundle } from './detect.js';
export { BUNDLE_MODULE, mayBeBundle };
const DEFINE = 'defineCorrectnessModel';
const PROMISE_COMBINATORS = new Set(['all', 'allSettled', 'race', 'any']);
const ELEMENT_CALLBACKS = new Set(['map', 'flatMap', 'forEach', 'filter', 'some', 'every', 'find', 'findIndex', 'findLast']);
const MAX_FRAMES = 6;

interface Frame {
  fn: FnLike;
  env: Env;
  kind: 'evaluate' | 'helper' | 'callback';
  name: string;
  /** Call expression in the parent frame that enters this frame. */
  site?: ts.CallExpression;
  parent?: Frame;
}

interface RunRecord {
  run: BundleToolRun;
  call: ts.CallExpression;
  frame: Frame;
  /** Binding of the run's resolved value (for the path analysis), when bound to a name. */
  binding?: { decl: Decl; at: ts.Node; fn: ts.Node };
  /** Offset inside each frame's function that leads to the run. */
  positions: Map<ts.Node, number>;
}

function scriptKind(path: string): ts.ScriptKind {
  if (/\.(mjs|cjs|js)$/i.test(path)) return ts.ScriptKind.JS;
  if (/\.(jsx)$/i.test(path)) return ts.ScriptKind.JSX;
  if (/\.(tsx)$/i.test(path)) return ts.ScriptKind.TSX;
  return ts.ScriptKind.TS;
}

/** Cheap text pre-filter: can this file be a bundle at all? */

export function buildBundleModel(file: SourceFile): BundleModel | undefined {
  const text = file.source.text;
  if (!mayBeBundle(text)) return undefined;
  const t0 = performance.now();
  const sf = ts.createSourceFile(file.path, text, ts.ScriptTarget.Latest, true, scriptKind(file.path));
  const model = new BundleBuilder(sf, file.path).build();
  if (model) model.analysisMs = performance.now() - t0;
  return model;
}

/** Parses and models bundle source text directly (tests, confirm stage). */
export function buildBundleModelFromText(path: string, text: string): { model: BundleModel | undefined; sf: ts.SourceFile } {
  const sf = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, scriptKind(path));
  return { model: mayBeBundle(text) ? new BundleBuilder(sf, path).build() : undefined, sf };
}

class BundleBuilder {
  private readonly scope: ScopeIndex;
  private readonly va: ValueAnalyzer;
  private declaredFiles: string[] = [];
  private declaredFields: string[] = [];
  private hasFields = false;

  constructor(
    private readonly sf: ts.SourceFile,
    private readonly path: string,
  ) {
    this.scope = buildScopeIndex(sf);
    this.va = new ValueAnalyzer(sf, this.scope);
  }

  private span(n: ts.Node): Span {
    return { start: n.getStart(this.sf), end: n.end };
  }

  private text(n: ts.Node): string {
    return n.getText(this.sf);
  }

  build(): BundleModel | undefined {
    const imports: BundleImport[] = [];
    const defines: ts.CallExpression[] = [];
    let importsBundle = false;
    const visit = (n: ts.Node): void => {
      if ((ts.isImportDeclaration(n) || ts.isExportDeclaration(n)) && n.moduleSpecifier && ts.isStringLiteral(n.moduleSpecifier)) {
        const typeOnly = ts.isImportDeclaration(n) ? !!n.importClause?.isTypeOnly : n.isTypeOnly;
        if (!typeOnly) imports.push({ specifier: n.moduleSpecifier.text, kind: ts.isImportDeclaration(n) ? 'import' : 'export-from', ...this.span(n) });
        if (n.moduleSpecifier.text === BUNDLE_MODULE) importsBundle = true;
      } else if (ts.isImportEqualsDeclaration(n) && ts.isExternalModuleReference(n.moduleReference) && ts.isStringLiteral(n.moduleReference.expression)) {
        imports.push({ specifier: n.moduleReference.expression.text, kind: 'import-equals', ...this.span(n) });
      } else if (ts.isCallExpression(n)) {
        const a = n.arguments[0];
        if (n.expression.kind === ts.SyntaxKind.ImportKeyword) {
          imports.push({ specifier: a && ts.isStringLiteralLike(a) ? a.text : `<${short(a ? this.text(a) : '?', 30)}>`, kind: 'dynamic-import', ...this.span(n) });
        } else if (ts.isIdentifier(n.expression) && n.expression.text === 'require' && a && !this.scope.resolve(n.expression)) {
          imports.push({ specifier: ts.isStringLiteralLike(a) ? a.text : `<${short(this.text(a), 30)}>`, kind: 'require', ...this.span(n) });
          if (ts.isStringLiteralLike(a) && a.text === BUNDLE_MODULE) importsBundle = true;
        } else if (this.isDefineCall(n)) defines.push(n);
      }
      ts.forEachChild(n, visit);
    };
    visit(this.sf);
    if (!importsBundle && defines.length === 0) return undefined;

    const model: BundleModel = {
      file: this.path,
      start: defines[0] ? defines[0].getStart(this.sf) : 0,
      end: defines[0] ? defines[0].end : 0,
      declaredFiles: [],
      declaredFields: [],
      checks: [],
      imports,
      analysisMs: 0,
    };
    const env: Env = new Map();
    for (const call of defines) {
      const arg = call.arguments[0];
      const obj = this.va.ev(arg, env);
      if (obj.t !== 'obj') continue;
      model.id ??= this.va.staticString(this.propValue(obj, 'id'), obj.env);
      const files = this.va.member(this.va.member(obj, 'artifact', 0), 'files', 0);
      this.declaredFiles.push(...this.staticStrings(files));
      const pi = this.va.member(obj, 'publicInput', 0);
      if (pi.t === 'obj') {
        this.hasFields = true;
        this.declaredFields.push(...this.staticStrings(this.va.member(pi, 'fields', 0)));
      }
      model.declaredFiles = this.declaredFiles;
      model.declaredFields = this.declaredFields;
      const checks = this.va.member(obj, 'checks', 0);
      for (const c of this.checkObjects(checks)) model.checks.push(this.buildCheck(c, model.checks.length));
    }
    return model;
  }

  private isDefineCall(n: ts.CallExpression): boolean {
    const c = unwrap(n.expression);
    if (ts.isPropertyAccessExpression(c)) return c.name.text === DEFINE;
    if (!ts.isIdentifier(c)) return false;
    const d = this.scope.resolve(c);
    if (d?.kind === 'import') return d.importFrom === BUNDLE_MODULE ? d.importName === DEFINE : d.importName === DEFINE;
    if (d && d.path.length === 1 && (d.kind === 'const' || d.kind === 'let' || d.kind === 'var')) {
      const step = d.path[0]!;
      return 'prop' in step && step.prop === DEFINE; // const { defineCorrectnessModel } = require('vaudit/bundle')
    }
    return c.text === DEFINE;
  }

  /** The expression node of an object literal's property (own members only), for spans. */
  private propValue(obj: Extract<Value, { t: 'obj' }>, key: string): ts.Expression | undefined {
    for (const en of this.va.objEntries(obj)) if (en.key === key && en.valueNode) return en.valueNode;
    return undefined;
  }

  private staticStrings(v: Value): string[] {
    if (v.t !== 'arr') return [];
    const out: string[] = [];
    for (const el of v.node.elements) {
      if (ts.isSpreadElement(el)) out.push(...this.staticStrings(this.va.ev(el.expression, v.env)));
      else {
        const s = this.va.staticString(el, v.env);
        if (s !== undefined) out.push(s);
      }
    }
    return out;
  }

  private checkObjects(v: Value): Extract<Value, { t: 'obj' }>[] {
    if (v.t !== 'arr') return [];
    const out: Extract<Value, { t: 'obj' }>[] = [];
    for (const el of v.node.elements) {
      if (ts.isSpreadElement(el)) out.push(...this.checkObjects(this.va.ev(el.expression, v.env)));
      else {
        const c = this.va.ev(el, v.env);
        if (c.t === 'obj') out.push(c);
      }
    }
    return out;
  }

  private staticValue(e: ts.Expression | undefined, env: Env): StaticValue | undefined {
    if (!e) return undefined;
    return { ...this.span(e), text: this.text(e), value: this.va.staticString(e, env) };
  }

  private buildCheck(obj: Extract<Value, { t: 'obj' }>, index: number): BundleCheck {
    const idNode = this.propValue(obj, 'id');
    const kindNode = this.propValue(obj, 'kind');
    const toolsNode = this.propValue(obj, 'requiredTools');
    const kind = this.va.staticString(kindNode, obj.env);
    const check: BundleCheck = {
      ...this.span(obj.node),
      index,
      id: this.va.staticString(idNode, obj.env),
      idAt: idNode ? this.span(idNode) : undefined,
      kind: kind === 'external' || kind === 'authored' ? kind : undefined,
      kindAt: kindNode ? this.span(kindNode) : undefined,
      requiredTools: this.staticStrings(this.va.member(obj, 'requiredTools', 0)),
      requiredToolsAt: toolsNode ? this.span(toolsNode) : undefined,
      toolRuns: [],
      verdictReturns: [],
    };
    const ev = this.va.member(obj, 'evaluate', 0);
    if (ev.t !== 'fn' || !ev.node.body) return check;
    check.evaluate = { ...this.span(ev.node), node: ev.node };
    const env = new Map<ts.Node, Value>(ev.env);
    const [p0, p1] = ev.node.parameters;
    if (p0) env.set(p0, { t: 'proj', root: 'input', segs: [] });
    if (p1) env.set(p1, { t: 'proj', root: 'runtime', segs: [] });
    const root: Frame = { fn: ev.node, env, kind: 'evaluate', name: 'evaluate' };
    const records: RunRecord[] = [];
    this.walkFrame(root, check, index, records, new Set());
    for (const r of records) check.toolRuns.push(r.run);
    check.verdictReturns = this.verdictPaths(root, check, records);
    return check;
  }

  // ---------------------------------------------------------------- runs

  private frameChain(f: Frame): Frame[] {
    const out: Frame[] = [];
    for (let c: Frame | undefined = f; c; c = c.parent) out.unshift(c);
    return out;
  }

  private walkFrame(frame: Frame, check: BundleCheck, index: number, records: RunRecord[], seen: Set<string>): void {
    const depth = this.frameChain(frame).length;
    const visit = (n: ts.Node): void => {
      if (ts.isFunctionLike(n) && n !== frame.fn) {
        const p = n.parent;
        if ((ts.isArrowFunction(n) || ts.isFunctionExpression(n)) && p && ts.isCallExpression(p) && p.arguments.includes(n as ts.Expression) && depth < MAX_FRAMES) {
          const env = new Map<ts.Node, Value>(frame.env);
          const callee = unwrap(p.expression);
          let method = 'callback';
          if (ts.isPropertyAccessExpression(callee)) {
            method = callee.name.text;
            if (ELEMENT_CALLBACKS.has(method) && n.parameters[0]) env.set(n.parameters[0], this.va.element(this.va.ev(callee.expression, frame.env)));
          }
          this.walkFrame({ fn: n, env, kind: 'callback', name: method, site: p, parent: frame }, check, index, records, seen);
        }
        return;
      }
      if (ts.isCallExpression(n)) {
        const cv = this.va.ev(n.expression, frame.env);
        if (cv.t === 'proj' && cv.root === 'runtime' && cv.segs.length === 2 && cv.segs[0] === 'tools' && cv.segs[1] === 'run') {
          const key = `${n.pos}:${this.frameChain(frame).map((f) => f.site?.pos ?? -1).join(',')}`;
          if (!seen.has(key)) {
            seen.add(key);
            records.push(this.recordRun(n, frame, check, index));
          }
        } else if (cv.t === 'fn' && cv.node.body && depth < MAX_FRAMES && !this.frameChain(frame).some((f) => f.fn === cv.node)) {
          const env = this.va.bindParams(cv.node, n.arguments, frame.env, cv.env, 0);
          this.walkFrame({ fn: cv.node, env, kind: 'helper', name: cv.name, site: n, parent: frame }, check, index, records, seen);
        }
      }
      ts.forEachChild(n, visit);
    };
    if (frame.fn.body) visit(frame.fn.body);
  }

  private recordRun(call: ts.CallExpression, frame: Frame, check: BundleCheck, index: number): RunRecord {
    const chain = this.frameChain(frame);
    const via: ChainStep[] = chain.slice(1).map((f) => ({ kind: f.kind === 'callback' ? 'callback' : 'helper', name: f.name, ...this.span(f.site!) }));
    const positions = new Map<ts.Node, number>();
    chain.forEach((f, i) => positions.set(f.fn, i + 1 < chain.length ? chain[i + 1]!.site!.getStart(this.sf) : call.getStart(this.sf)));
    const arg = call.arguments[0];
    const req = this.va.ev(arg, frame.env);
    const inputs: ToolInput[] = [];
    let toolId: StaticValue | undefined;
    let checkIdArg: StaticValue | undefined;
    if (req.t === 'obj') {
      const entries = this.va.objEntries(req);
      const find = (k: string) => [...entries].reverse().find((e) => e.key === k);
      const t = find('toolId');
      const c = find('checkId');
      toolId = t?.valueNode ? this.staticValue(t.valueNode, req.env) : undefined;
      checkIdArg = c?.valueNode ? this.staticValue(c.valueNode, req.env) : undefined;
      const f = find('files');
      if (f?.valueNode) this.fileInputs(this.va.ev(f.valueNode, req.env), f.valueNode, inputs);
      const s = find('stdin');
      if (s?.valueNode) inputs.push(this.input('stdin', undefined, s.valueNode, this.va.ev(s.valueNode, req.env)));
    }
    const settled = this.settleExpr(call, frame, 0);
    const run: BundleToolRun = {
      ...this.span(call),
      checkIndex: index,
      checkId: check.id,
      toolId,
      checkIdArg,
      request: arg ? this.span(arg) : undefined,
      requestResolved: req.t === 'obj',
      inputs,
      settlement: settled.s,
      settlementReason: settled.reason,
      result: { binding: 'none', readsOutcome: false, readsExitCode: false, readsOutput: false },
      via,
      anchor: positions.get(chain[0]!.fn) ?? call.getStart(this.sf),
    };
    const rec: RunRecord = { run, call, frame, positions };
    if (settled.s === 'awaited' || settled.s === 'returned') run.result = this.resultUse(call, frame, rec, 0);
    return rec;
  }

  private input(role: 'file' | 'stdin', key: string | undefined, node: ts.Node, v: Value, asMap = false): ToolInput {
    return {
      role,
      key,
      ...this.span(node),
      text: short(this.text(node), 80),
      origin: this.va.classify(v, this.declaredFiles, this.declaredFields, this.hasFields, asMap),
    };
  }

  private fileInputs(v: Value, node: ts.Node, out: ToolInput[]): void {
    if (v.t === 'obj') {
      for (const en of this.va.objEntries(v)) {
        if (en.spread) {
          if (en.spread.t === 'obj') this.fileInputs(en.spread, en.valueNode ?? en.node, out);
          else out.push(this.input('file', undefined, en.valueNode ?? en.node, en.spread, true));
        } else if (en.valueNode) {
          out.push(this.input('file', en.key ?? undefined, en.valueNode, en.value()));
        }
      }
      return;
    }
    out.push(this.input('file', undefined, node, v, true));
  }

  // ---------------------------------------------------------- settlement

  private settleExpr(expr: ts.Node, frame: Frame | undefined, depth: number): { s: Settlement; reason?: string } {
    if (!frame || depth > 12) return { s: 'unknown' };
    let cur: ts.Node = expr;
    for (;;) {
      const p = cur.parent;
      if (!p) return { s: 'unknown' };
      if (ts.isParenthesizedExpression(p) || ts.isAsExpression(p) || ts.isNonNullExpression(p) || ts.isSatisfiesExpression(p) || ts.isTypeAssertionExpression(p) || ts.isArrayLiteralExpression(p) || ts.isSpreadElement(p)) {
        cur = p;
        continue;
      }
      if (ts.isConditionalExpression(p) && p.condition !== cur) {
        cur = p;
        continue;
      }
      if (ts.isAwaitExpression(p)) return this.settleFrame(frame, depth);
      if (ts.isReturnStatement(p) || (ts.isArrowFunction(p) && p.body === cur)) return this.settleFrameResult(frame, depth);
      if (ts.isVariableDeclaration(p) && p.initializer === cur && ts.isIdentifier(p.name)) {
        const d = this.scope.declOf(p.name);
        const refs = d ? this.scope.references(d) : [];
        if (refs.length === 0) return { s: 'unawaited', reason: `its promise is stored in \`${p.name.text}\` and never awaited` };
        let unknown = false;
        for (const r of refs) {
          const s = this.settleExpr(r, frame, depth + 1);
          if (s.s === 'awaited' || s.s === 'returned') return s;
          if (s.s === 'unknown') unknown = true;
        }
        return unknown ? { s: 'unknown' } : { s: 'unawaited', reason: `its promise is stored in \`${p.name.text}\` and never awaited` };
      }
      if (ts.isCallExpression(p) && p.arguments.includes(cur as ts.Expression)) {
        const c = unwrap(p.expression);
        if (ts.isPropertyAccessExpression(c) && ts.isIdentifier(c.expression) && c.expression.text === 'Promise' && PROMISE_COMBINATORS.has(c.name.text)) {
          cur = p;
          continue;
        }
        return { s: 'unknown' };
      }
      if (ts.isPropertyAccessExpression(p) && p.expression === cur && ['then', 'catch', 'finally'].includes(p.name.text) && p.parent && ts.isCallExpression(p.parent) && p.parent.expression === p) {
        cur = p.parent;
        continue;
      }
      if (ts.isExpressionStatement(p)) return { s: 'unawaited', reason: 'its promise is dropped (the call is a bare statement)' };
      if (ts.isVoidExpression(p)) return { s: 'unawaited', reason: '`void` drops its promise' };
      if (ts.isBinaryExpression(p) && p.operatorToken.kind === ts.SyntaxKind.CommaToken && p.left === cur) return { s: 'unawaited', reason: 'its promise is dropped by a comma expression' };
      return { s: 'unknown' };
    }
  }

  /** A promise was awaited inside frame.fn: is frame.fn's own invocation settled? */
  private settleFrame(frame: Frame, depth: number): { s: Settlement; reason?: string } {
    if (frame.kind === 'evaluate') return { s: 'awaited' };
    if (frame.kind === 'helper') return this.settleExpr(frame.site!, frame.parent, depth + 1);
    return this.settleCallback(frame, depth);
  }

  /** A promise is returned from frame.fn. */
  private settleFrameResult(frame: Frame, depth: number): { s: Settlement; reason?: string } {
    if (frame.kind === 'evaluate') return { s: 'returned' };
    if (frame.kind === 'helper') return this.settleExpr(frame.site!, frame.parent, depth + 1);
    return this.settleCallback(frame, depth);
  }

  private settleCallback(frame: Frame, depth: number): { s: Settlement; reason?: string } {
    if (frame.name === 'forEach') return { s: 'unawaited', reason: '`forEach` does not wait for the promise its async callback returns' };
    if (frame.name === 'map' || frame.name === 'flatMap' || frame.name === 'then' || frame.name === 'catch' || frame.name === 'finally') {
      return this.settleExpr(frame.site!, frame.parent, depth + 1);
    }
    if (['filter', 'some', 'every', 'find', 'findIndex', 'findLast'].includes(frame.name)) {
      return { s: 'unawaited', reason: `\`${frame.name}\` does not wait for the promise its async callback returns (a promise is always truthy)` };
    }
    return { s: 'unknown' };
  }

  // ---------------------------------------------------------- result use

  private resultUse(expr: ts.Node, frame: Frame | undefined, rec: RunRecord, depth: number): RunResultUse {
    const use: RunResultUse = { binding: 'escapes', readsOutcome: false, readsExitCode: false, readsOutput: false };
    if (!frame || depth > 8) return use;
    let cur: ts.Node = expr;
    for (;;) {
      const p = cur.parent;
      if (!p) return use;
      if (ts.isParenthesizedExpression(p) || ts.isAsExpression(p) || ts.isNonNullExpression(p) || ts.isSatisfiesExpression(p)) {
        cur = p;
        continue;
      }
      if (ts.isAwaitExpression(p)) return this.valueUse(p, frame, rec, depth);
      if (ts.isReturnStatement(p) || (ts.isArrowFunction(p) && p.body === cur)) {
        if (frame.kind === 'helper') return this.resultUse(frame.site!, frame.parent, rec, depth + 1);
        return use;
      }
      return use;
    }
  }

  /** How the resolved value of a run (the await expression `v`) is used. */
  private valueUse(v: ts.Node, frame: Frame, rec: RunRecord, depth: number): RunResultUse {
    const use: RunResultUse = { binding: 'escapes', readsOutcome: false, readsExitCode: false, readsOutput: false };
    let cur: ts.Node = v;
    while (cur.parent && (ts.isParenthesizedExpression(cur.parent) || ts.isAsExpression(cur.parent) || ts.isNonNullExpression(cur.parent))) cur = cur.parent;
    const p = cur.parent;
    if (!p) return use;
    if (ts.isVariableDeclaration(p) && p.initializer === cur) {
      if (ts.isIdentifier(p.name)) {
        const d = this.scope.declOf(p.name);
        if (!d) return use;
        rec.binding = { decl: d, at: p, fn: frame.fn };
        use.binding = 'bound';
        use.name = d.name;
        this.declUses(d, use, depth);
        return use;
      }
      if (ts.isObjectBindingPattern(p.name)) {
        use.binding = 'bound';
        for (const el of p.name.elements) {
          if (el.dotDotDotToken) return { ...use, binding: 'escapes' };
          const k = el.propertyName ? (ts.isIdentifier(el.propertyName) ? el.propertyName.text : '') : ts.isIdentifier(el.name) ? el.name.text : '';
          this.markRead(k, use);
        }
        return use;
      }
      return use;
    }
    if (ts.isBinaryExpression(p) && p.right === cur && p.operatorToken.kind === ts.SyntaxKind.EqualsToken && ts.isIdentifier(p.left)) {
      const d = this.scope.resolve(p.left);
      if (!d) return use;
      rec.binding = { decl: d, at: p, fn: frame.fn };
      use.binding = 'bound';
      use.name = d.name;
      this.declUses(d, use, depth);
      return use;
    }
    if ((ts.isPropertyAccessExpression(p) && p.expression === cur) || (ts.isElementAccessExpression(p) && p.expression === cur)) {
      use.binding = 'inline';
      this.markRead(ts.isPropertyAccessExpression(p) ? p.name.text : ts.isStringLiteralLike(p.argumentExpression) ? p.argumentExpression.text : '*', use);
      return use;
    }
    if (ts.isExpressionStatement(p)) return { ...use, binding: 'discarded' };
    if (ts.isReturnStatement(p) || (ts.isArrowFunction(p) && p.body === cur)) {
      if (frame.kind === 'helper') return this.resultUse(frame.site!, frame.parent, rec, depth + 1);
      return use;
    }
    return use;
  }

  private markRead(k: string, use: RunResultUse): void {
    if (k === 'outcome') use.readsOutcome = true;
    else if (k === 'exitCode') use.readsExitCode = true;
    else if (k === 'stdout' || k === 'stderr') use.readsOutput = true;
    else if (k === '*') {
      use.readsOutcome = use.readsExitCode = use.readsOutput = true;
    }
  }

  private declUses(d: Decl, use: RunResultUse, depth: number): void {
    for (const r of this.scope.references(d)) {
      let cur: ts.Node = r;
      while (cur.parent && (ts.isParenthesizedExpression(cur.parent) || ts.isAsExpression(cur.parent) || ts.isNonNullExpression(cur.parent))) cur = cur.parent;
      const p = cur.parent;
      if (!p) continue;
      if (ts.isPropertyAccessExpression(p) && p.expression === cur) this.markRead(p.name.text, use);
      else if (ts.isElementAccessExpression(p) && p.expression === cur) this.markRead(ts.isStringLiteralLike(p.argumentExpression) ? p.argumentExpression.text : '*', use);
      else if (ts.isBinaryExpression(p) && p.right === cur && p.operatorToken.kind === ts.SyntaxKind.InKeyword) {
        use.readsOutcome = true;
        if (ts.isStringLiteralLike(p.left)) this.markRead(p.left.text, use);
      } else if (ts.isVariableDeclaration(p) && p.initializer === cur && ts.isObjectBindingPattern(p.name)) {
        for (const el of p.name.elements) {
          const k = el.propertyName ? (ts.isIdentifier(el.propertyName) ? el.propertyName.text : '*') : ts.isIdentifier(el.name) ? el.name.text : '*';
          this.markRead(el.dotDotDotToken ? '*' : k, use);
        }
      } else if (ts.isVariableDeclaration(p) && p.initializer === cur && ts.isIdentifier(p.name)) {
        const alias = this.scope.declOf(p.name);
        if (alias && depth < 6) this.declUses(alias, use, depth + 1);
      } else if (ts.isCallExpression(p) && p.arguments.includes(cur as ts.Expression)) {
        const callee = unwrap(p.expression);
        const cd = ts.isIdentifier(callee) ? this.scope.resolve(callee) : undefined;
        if (cd?.kind === 'import' && cd.importFrom === BUNDLE_MODULE && (cd.importName === 'isExecuted' || cd.importName === 'isNonResult')) {
          use.readsOutcome = true;
          continue;
        }
        const fv = this.va.ev(callee, new Map());
        const i = p.arguments.indexOf(cur as ts.Expression);
        const param = fv.t === 'fn' ? fv.node.parameters[i] : undefined;
        if (param && depth < 6) {
          if (ts.isIdentifier(param.name)) {
            const pd = this.scope.declOf(param.name);
            if (pd) this.declUses(pd, use, depth + 1);
          } else if (ts.isObjectBindingPattern(param.name)) {
            for (const el of param.name.elements) {
              const k = el.propertyName ? (ts.isIdentifier(el.propertyName) ? el.propertyName.text : '*') : ts.isIdentifier(el.name) ? el.name.text : '*';
              this.markRead(el.dotDotDotToken ? '*' : k, use);
            }
          }
        } else this.markRead('*', use);
      } else if (ts.isReturnStatement(p) || ts.isShorthandPropertyAssignment(p) || ts.isSpreadAssignment(p) || ts.isSpreadElement(p) || (ts.isPropertyAssignment(p) && p.initializer === cur) || (ts.isArrowFunction(p) && p.body === cur)) {
        // handed on whole (returned as the non-result, stored): not a read of exitCode, but the
        // consumer may read it. `return run` alone is the pass-through of a non-result.
        if (!ts.isReturnStatement(p) && !(ts.isArrowFunction(p) && p.body === cur)) this.markRead('*', use);
      }
    }
  }

  // ---------------------------------------------------------- verdict paths

  private verdictPaths(root: Frame, check: BundleCheck, records: RunRecord[]): VerdictReturn[] {
    const out: VerdictReturn[] = [];
    const fns = new Map<ts.Node, string>([[root.fn, 'evaluate']]);
    for (const r of records) if (r.binding) {
      const f = this.frameChain(r.frame).find((x) => x.fn === r.binding!.fn);
      if (f && !fns.has(f.fn)) fns.set(f.fn, f.name);
    }
    for (const [fn, name] of fns) {
      const walker = new PathWalker(this, fn as FnLike, name, fn === root.fn, check, records);
      out.push(...walker.run());
    }
    return out;
  }

  /** Helpers for PathWalker. */
  spanOf(n: ts.Node): Span {
    return this.span(n);
  }
  textOf(n: ts.Node): string {
    return this.text(n);
  }
  resolve(id: ts.Identifier): Decl | undefined {
    return this.scope.resolve(id);
  }
  /** The same-file function a callee names (function declaration or const-bound function expression). */
  localFunction(callee: ts.Expression): FnLike | undefined {
    const c = unwrap(callee);
    if (!ts.isIdentifier(c)) return undefined;
    const v = this.va.ev(c, new Map());
    return v.t === 'fn' ? v.node : undefined;
  }
  returnsOf(fn: FnLike): ts.Expression[] {
    return this.va.returnExprs(fn);
  }
  assignmentsOf(d: Decl): readonly ts.Expression[] {
    return this.scope.assignments(d);
  }
  sourceFile(): ts.SourceFile {
    return this.sf;
  }
}

// ------------------------------------------------------------ path walker

interface Pending {
  name: string;
  run: Span;
  explicit: boolean;
}

interface PState {
  ran: boolean;
  loopOnly?: string;
  inCatch: boolean;
  pending: Map<Decl, Pending>;
  nonEmpty: Set<string>;
}

type Tri = true | false | undefined;

class PathWalker {
  private readonly out: VerdictReturn[] = [];
  private readonly anchors: number[] = [];
  private readonly bindings: { at: ts.Node; decl: Decl; run: Span; name: string }[] = [];

  constructor(
    private readonly b: BundleBuilder,
    private readonly fn: FnLike,
    private readonly name: string,
    private readonly isEvaluate: boolean,
    private readonly check: BundleCheck,
    records: RunRecord[],
  ) {
    for (const r of records) {
      const pos = r.positions.get(fn);
      if (pos !== undefined && (r.run.settlement === 'awaited' || r.run.settlement === 'returned')) this.anchors.push(pos);
      if (r.binding && r.binding.fn === fn) this.bindings.push({ at: r.binding.at, decl: r.binding.decl, run: { start: r.run.start, end: r.run.end }, name: r.binding.decl.name });
    }
  }

  run(): VerdictReturn[] {
    const body = this.fn.body;
    if (!body) return [];
    const st: PState = { ran: false, inCatch: false, pending: new Map(), nonEmpty: new Set() };
    if (!ts.isBlock(body)) this.onReturn(body, body, st);
    else this.walkList(body.statements, st);
    return this.out;
  }

  private hasAnchor(n: ts.Node | undefined): boolean {
    if (!n) return false;
    const s = n.getStart(this.b.sourceFile());
    return this.anchors.some((a) => a >= s && a < n.end);
  }

  private copy(st: PState): PState {
    return { ...st, pending: new Map(st.pending), nonEmpty: new Set(st.nonEmpty) };
  }

  private join(a: PState | null, b: PState | null): PState | null {
    if (!a) return b;
    if (!b) return a;
    const ran = a.ran && b.ran;
    const pending = new Map(a.pending);
    for (const [k, v] of b.pending) if (!pending.has(k)) pending.set(k, v);
    return {
      ran,
      loopOnly: ran ? undefined : (a.loopOnly ?? b.loopOnly),
      inCatch: !ran && (a.inCatch || b.inCatch),
      pending,
      nonEmpty: new Set([...a.nonEmpty].filter((x) => b.nonEmpty.has(x))),
    };
  }

  private walkList(stmts: readonly ts.Statement[], st: PState): PState | null {
    let cur: PState | null = st;
    for (const s of stmts) {
      if (!cur) return null;
      cur = this.walk(s, cur);
    }
    return cur;
  }

  private simple(n: ts.Node, st: PState): PState {
    const next = this.copy(st);
    if (this.hasAnchor(n)) {
      next.ran = true;
      next.loopOnly = undefined;
      next.inCatch = false;
    }
    const s = n.getStart(this.b.sourceFile());
    for (const bd of this.bindings) {
      const bs = bd.at.getStart(this.b.sourceFile());
      if (bs >= s && bd.at.end <= n.end) next.pending.set(bd.decl, { name: bd.name, run: bd.run, explicit: false });
    }
    return next;
  }

  private walk(s: ts.Statement, st: PState): PState | null {
    if (ts.isBlock(s)) return this.walkList(s.statements, st);
    if (ts.isReturnStatement(s)) {
      const pre = s.expression ? this.simple(s.expression, st) : st;
      this.onReturn(s, s.expression, pre, st);
      return null;
    }
    if (ts.isThrowStatement(s)) return null;
    if (ts.isIfStatement(s)) {
      const pre = this.simple(s.expression, st);
      const thenSt = this.copy(pre);
      const elseSt = this.copy(pre);
      for (const [d, p] of pre.pending) {
        const v = this.cond(s.expression, d);
        if (v === false) thenSt.pending.delete(d);
        else if (v === true) thenSt.pending.set(d, { ...p, explicit: true });
        if (v === true) elseSt.pending.delete(d);
        else if (v === false) elseSt.pending.set(d, { ...p, explicit: true });
      }
      const empt = this.emptinessTest(s.expression);
      if (empt) elseSt.nonEmpty.add(empt);
      const t = this.walk(s.thenStatement, thenSt);
      const e = s.elseStatement ? this.walk(s.elseStatement, elseSt) : elseSt;
      return this.join(t, e);
    }
    if (ts.isForOfStatement(s) || ts.isForInStatement(s) || ts.isForStatement(s) || ts.isWhileStatement(s)) {
      let iter: ts.Expression | undefined;
      let pre = st;
      if (ts.isForOfStatement(s) || ts.isForInStatement(s)) {
        pre = this.simple(s.expression, st);
        iter = s.expression;
      } else if (ts.isForStatement(s)) {
        if (s.initializer) pre = this.simple(s.initializer, st);
        const c = s.condition;
        if (c && ts.isBinaryExpression(c) && c.operatorToken.kind === ts.SyntaxKind.LessThanToken) {
          const r = unwrap(c.right);
          if (ts.isPropertyAccessExpression(r) && r.name.text === 'length') iter = r.expression;
        }
      } else pre = this.simple(s.expression, st);
      const iterText = iter ? this.b.textOf(unwrap(iter)).replace(/\s+/g, '') : undefined;
      const body = this.walk(s.statement, this.copy(pre));
      if (iterText && pre.nonEmpty.has(iterText) && body) return body;
      const after = this.join(pre, body) ?? pre;
      if (!after.ran && body?.ran) after.loopOnly = iter ? this.b.textOf(iter) : 'the loop';
      return after;
    }
    if (ts.isDoStatement(s)) return this.walk(s.statement, st);
    if (ts.isTryStatement(s)) {
      const t = this.walk(s.tryBlock, this.copy(st));
      let c: PState | null = null;
      if (s.catchClause) c = this.walk(s.catchClause.block, { ...this.copy(st), inCatch: !st.ran });
      let after = s.catchClause ? this.join(t, c) : t;
      if (s.finallyBlock && after) after = this.walk(s.finallyBlock, after);
      return after;
    }
    if (ts.isSwitchStatement(s)) {
      const pre = this.simple(s.expression, st);
      let acc: PState | null = null;
      let fall: PState | null = null;
      let hasDefault = false;
      for (const cl of s.caseBlock.clauses) {
        if (ts.isDefaultClause(cl)) hasDefault = true;
        const start = this.join(fall, this.copy(pre));
        const r = this.walkList(cl.statements, start!);
        const breaks = cl.statements.some((x) => ts.isBreakStatement(x));
        if (breaks) {
          acc = this.join(acc, r);
          fall = null;
        } else fall = r;
      }
      acc = this.join(acc, fall);
      return hasDefault ? acc : this.join(acc, pre);
    }
    if (ts.isLabeledStatement(s)) return this.walk(s.statement, st);
    if (ts.isFunctionDeclaration(s) || ts.isClassDeclaration(s)) return st;
    if (ts.isBreakStatement(s) || ts.isContinueStatement(s)) return null;
    return this.simple(s, st);
  }

  /** `if (X.length === 0)` / `if (!X.length)` / `if (X.length < 1)`: the text of X (non-empty on the else path). */
  private emptinessTest(e: ts.Expression): string | undefined {
    const c = unwrap(e);
    const lenOf = (x: ts.Expression): string | undefined => {
      const u = unwrap(x);
      return ts.isPropertyAccessExpression(u) && u.name.text === 'length' ? this.b.textOf(unwrap(u.expression)).replace(/\s+/g, '') : undefined;
    };
    if (ts.isPrefixUnaryExpression(c) && c.operator === ts.SyntaxKind.ExclamationToken) return lenOf(c.operand);
    if (ts.isBinaryExpression(c)) {
      const op = c.operatorToken.kind;
      const r = unwrap(c.right);
      if ((op === ts.SyntaxKind.EqualsEqualsEqualsToken || op === ts.SyntaxKind.EqualsEqualsToken) && ts.isNumericLiteral(r) && r.text === '0') return lenOf(c.left);
      if (op === ts.SyntaxKind.LessThanToken && ts.isNumericLiteral(r) && r.text === '1') return lenOf(c.left);
      if (op === ts.SyntaxKind.BarBarToken) return this.emptinessTest(c.left) ?? this.emptinessTest(c.right);
    }
    return undefined;
  }

  /** Value of a condition when the run bound to `d` is a non-result (three-valued). */
  private cond(e: ts.Expression, d: Decl): Tri {
    const c = unwrap(e);
    const isD = (x: ts.Expression): boolean => {
      const u = unwrap(x);
      return ts.isIdentifier(u) && this.b.resolve(u) === d;
    };
    const memberOfD = (x: ts.Expression): string | undefined => {
      const u = unwrap(x);
      if (ts.isPropertyAccessExpression(u) && isD(u.expression)) return u.name.text;
      if (ts.isPropertyAccessExpression(u) && u.questionDotToken && isD(u.expression)) return u.name.text;
      return undefined;
    };
    if (ts.isPrefixUnaryExpression(c) && c.operator === ts.SyntaxKind.ExclamationToken) {
      const v = this.cond(c.operand, d);
      return v === undefined ? undefined : !v;
    }
    if (ts.isBinaryExpression(c)) {
      const op = c.operatorToken.kind;
      if (op === ts.SyntaxKind.BarBarToken || op === ts.SyntaxKind.AmpersandAmpersandToken) {
        const l = this.cond(c.left, d);
        const r = this.cond(c.right, d);
        if (op === ts.SyntaxKind.BarBarToken) return l === true || r === true ? true : l === false && r === false ? false : undefined;
        return l === false || r === false ? false : l === true && r === true ? true : undefined;
      }
      const eq = op === ts.SyntaxKind.EqualsEqualsEqualsToken || op === ts.SyntaxKind.EqualsEqualsToken;
      const ne = op === ts.SyntaxKind.ExclamationEqualsEqualsToken || op === ts.SyntaxKind.ExclamationEqualsToken;
      if (op === ts.SyntaxKind.InKeyword && isD(c.right) && ts.isStringLiteralLike(c.left)) {
        if (c.left.text === 'exitCode' || c.left.text === 'stdout' || c.left.text === 'stderr') return false;
        if (c.left.text === 'detail') return true;
        return undefined;
      }
      const pairs: [ts.Expression, ts.Expression][] = [
        [c.left, c.right],
        [c.right, c.left],
      ];
      for (const [a, lit] of pairs) {
        const m = memberOfD(a);
        if (!m) continue;
        const l = unwrap(lit);
        if (m === 'outcome' && ts.isStringLiteralLike(l)) {
          if (eq) return l.text === 'executed' ? false : undefined;
          if (ne) return l.text === 'executed' ? true : undefined;
        }
        if (m === 'exitCode' || m === 'stdout' || m === 'stderr') {
          // undefined on a non-result
          const isUndef = (ts.isIdentifier(l) && l.text === 'undefined') || l.kind === ts.SyntaxKind.NullKeyword;
          if (eq) return isUndef ? (op === ts.SyntaxKind.EqualsEqualsToken || ts.isIdentifier(l) ? true : false) : false;
          if (ne) return isUndef ? false : true;
          if (op === ts.SyntaxKind.GreaterThanToken || op === ts.SyntaxKind.LessThanToken || op === ts.SyntaxKind.GreaterThanEqualsToken || op === ts.SyntaxKind.LessThanEqualsToken) return false;
        }
      }
      return undefined;
    }
    const m = memberOfD(c);
    if (m === 'exitCode' || m === 'stdout' || m === 'stderr') return false;
    if (m === 'detail') return true;
    if (ts.isCallExpression(c)) {
      const callee = unwrap(c.expression);
      const a = c.arguments[0];
      if (ts.isIdentifier(callee) && a && isD(a)) {
        const cd = this.b.resolve(callee);
        const nm = cd?.kind === 'import' ? cd.importName : callee.text;
        if (nm === 'isExecuted') return false;
        if (nm === 'isNonResult') return true;
      }
    }
    return undefined;
  }

  private onReturn(at: ts.Node, expr: ts.Expression | undefined, st: PState, _before?: PState): void {
    if (!expr) return;
    const v = this.verdictOf(expr, 0);
    if (!v.isVerdict) return;
    const ret: VerdictReturn = { ...this.b.spanOf(at), mayPass: v.mayPass, inFunction: this.name };
    if (this.isEvaluate && v.mayPass && !st.ran && this.check.requiredTools.length > 0) {
      const tools = this.check.requiredTools.join(', ');
      if (st.loopOnly) ret.ungrounded = { reason: 'loop-may-be-empty', detail: `the tool runs only inside the loop over \`${short(st.loopOnly, 40)}\`, which may have no elements` };
      else if (st.inCatch) ret.ungrounded = { reason: 'catch', detail: 'this return is in a catch block reached before any run completed' };
      else if (this.anchors.length > 0) ret.ungrounded = { reason: 'branch', detail: `this path returns before any run of ${tools} completes` };
      else ret.ungrounded = { reason: 'no-run', detail: `evaluate never awaits a run of ${tools}` };
    }
    const last = [...st.pending.values()].pop();
    if (last) {
      ret.fromNonResult = {
        runName: last.name,
        run: last.run,
        explicit: last.explicit,
        detail: last.explicit
          ? `this branch is taken when \`${last.name}\` is a non-result (timeout, crash, verifierUnavailable, sandbox)`
          : `\`${last.name}.outcome\` is not checked before this verdict, so a timeout or crash is graded`,
      };
    }
    this.out.push(ret);
  }

  private verdictOf(e: ts.Expression, depth: number): { isVerdict: boolean; mayPass: boolean } {
    const none = { isVerdict: false, mayPass: false };
    if (depth > 6) return none;
    const x = unwrap(e);
    if (ts.isAwaitExpression(x)) return this.verdictOf(x.expression, depth + 1);
    if (ts.isObjectLiteralExpression(x)) {
      for (const p of x.properties) {
        if (ts.isPropertyAssignment(p) && ts.isIdentifier(p.name) && p.name.text === 'verdict') return { isVerdict: true, mayPass: this.mayBePass(p.initializer, depth + 1) };
        if (ts.isShorthandPropertyAssignment(p) && p.name.text === 'verdict') return { isVerdict: true, mayPass: this.mayBePass(p.name, depth + 1) };
      }
      return none;
    }
    if (ts.isConditionalExpression(x) || (ts.isBinaryExpression(x) && (x.operatorToken.kind === ts.SyntaxKind.BarBarToken || x.operatorToken.kind === ts.SyntaxKind.QuestionQuestionToken))) {
      const [a, b] = ts.isConditionalExpression(x) ? [x.whenTrue, x.whenFalse] : [x.left, x.right];
      const va = this.verdictOf(a, depth + 1);
      const vb = this.verdictOf(b, depth + 1);
      return { isVerdict: va.isVerdict || vb.isVerdict, mayPass: va.mayPass || vb.mayPass };
    }
    if (ts.isIdentifier(x)) {
      const d = this.b.resolve(x);
      if (d && d.kind === 'const' && d.path.length === 0) {
        const init = (d.node as ts.VariableDeclaration).initializer;
        if (init) return this.verdictOf(init, depth + 1);
      }
    }
    if (ts.isCallExpression(x)) {
      // A same-file helper that builds the verdict: `return judge(run)`.
      const fn = this.b.localFunction(x.expression);
      if (fn) {
        let acc = none;
        for (const r of this.b.returnsOf(fn)) {
          const v = this.verdictOf(r, depth + 2);
          acc = { isVerdict: acc.isVerdict || v.isVerdict, mayPass: acc.mayPass || v.mayPass };
        }
        return acc;
      }
    }
    return none;
  }

  private mayBePass(e: ts.Expression, depth: number): boolean {
    if (depth > 8) return false;
    const x = unwrap(e);
    if (ts.isStringLiteralLike(x)) return x.text === 'pass';
    if (ts.isConditionalExpression(x)) return this.mayBePass(x.whenTrue, depth + 1) || this.mayBePass(x.whenFalse, depth + 1);
    if (ts.isBinaryExpression(x) && (x.operatorToken.kind === ts.SyntaxKind.BarBarToken || x.operatorToken.kind === ts.SyntaxKind.QuestionQuestionToken || x.operatorToken.kind === ts.SyntaxKind.AmpersandAmpersandToken)) {
      return this.mayBePass(x.left, depth + 1) || this.mayBePass(x.right, depth + 1);
    }
    if (ts.isIdentifier(x)) {
      const d = this.b.resolve(x);
      if (d && (d.kind === 'const' || d.kind === 'let' || d.kind === 'var') && d.path.length === 0) {
        const init = (d.node as ts.VariableDeclaration).initializer;
        if (init && this.mayBePass(init, depth + 1)) return true;
        if (this.b.assignmentsOf(d).some((a) => this.mayBePass(a, depth + 1))) return true;
      }
    }
    return false;
  }
}
