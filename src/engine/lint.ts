/**
 * One run of the static pass: discover → load → parse (once) → build the
 * project indexes → central pass per unit → severities, suppressions,
 * fingerprints. Never throws for a bad file: it becomes a `parse-error`
 * finding for that file and the run goes on.
 */
import path from 'node:path';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import type { Finding, Layer, Range, Severity, SeveritySetting } from './types.js';
import { PARSE_ERROR_RULE } from './types.js';
import type { Rule, RuleContext, ReportDescriptor, ReportTarget, Visitors } from './rule.js';
import type { FileUnit, Project, SourceFile } from './project.js';
import { SourceText } from './source.js';
import { discoverFiles } from './discover.js';
import { languageOf, loadText, type FileProblem } from './load.js';
import { loadRules } from './registry.js';
import { walkJs, walkPython, type JsSubscriber, type PythonSubscriber } from './dispatch.js';
import { parseJs } from './parse-js.js';
import { commentSuppressions, configSuppressions, jsonSuppressions, suppresses, type Suppression } from './suppress.js';
import { ConfigResolver, CONFIG_FILE, type LoadedConfig } from '../config/load.js';
import { loadSuites } from '../suites/index.js';
import { bindVerifiers } from '../suites/binding.js';
import { createPythonProject, analysePython } from '../lang/python/project.js';
import { buildBundleModel } from '../lang/ts/index.js';
import type { BundleModel } from '../lang/ts/types.js';
import type { EmbeddedCode, Task } from '../suites/types.js';
import type { PythonAnalysis } from '../lang/python/types.js';

export const UNUSED_SUPPRESSION_RULE = 'unused-suppression';
export const INTERNAL_ERROR_RULE = 'internal-error';

export interface LintOptions {
  /** Files or folders; default the cwd. */
  paths?: string[];
  cwd?: string;
  /** Only run these rule ids (tests, `--rule`). */
  rules?: string[];
  /** Explicit config file (`--config`). */
  configPath?: string;
  /** Apply config excludes to explicit files (`--force-exclude`). */
  forceExclude?: boolean;
  /** In-memory contents that replace files on disk (editor buffers, --stdin-filename). */
  overrides?: ReadonlyMap<string, string>;
  /** Severity overrides applied over config (LSP settings). */
  severities?: Record<string, SeveritySetting>;
  /** Use this rule table instead of rules/ (tests, embedders). */
  ruleSet?: ReadonlyMap<string, Rule>;
  /** Report unused suppressions (default true). */
  reportUnusedSuppressions?: boolean;
}

export interface LintStats {
  files: number;
  tasks: number;
  entries: number;
  pythonFiles: number;
  bundles: number;
  durationMs: number;
}

export interface LintResult {
  findings: Finding[];
  /** Findings removed by a suppression. */
  suppressed: Finding[];
  project: Project;
  stats: LintStats;
  /** Files reported on (absolute). */
  targets: string[];
  /** Configs in effect (absolute paths). */
  configs: string[];
  dispose(): void;
}

interface RuleSetting {
  severity: SeveritySetting;
  options: Record<string, unknown>;
}

function settingFor(rule: Rule, cfg: LoadedConfig, overrides?: Record<string, SeveritySetting>): RuleSetting {
  const raw = cfg.config.rules?.[rule.meta.id];
  let severity: SeveritySetting = rule.meta.defaultSeverity;
  let options: Record<string, unknown> = {};
  if (typeof raw === 'string') severity = raw;
  else if (Array.isArray(raw)) {
    severity = raw[0];
    options = raw[1] ?? {};
  }
  const o = overrides?.[rule.meta.id];
  if (o) severity = o;
  return { severity, options };
}

function toSeverity(s: SeveritySetting): Severity {
  return s === 'error' ? 'error' : 'warning';
}

export function fillTemplate(template: string, data: Record<string, string | number> | undefined): string {
  return template.replace(/\{\{\s*(\w+)\s*\}\}/g, (m, k: string) => (data && k in data ? String(data[k]) : m));
}

function rel(root: string, p: string): string {
  return path.relative(root, p).split(path.sep).join('/');
}

/** Folder whose files give context to an explicitly named file: its config folder, else its git root, else its folder. */
function contextRoot(file: string, configs: ConfigResolver): string {
  const c = configs.forFile(file);
  if (c.path) return c.dir;
  let d = path.dirname(file);
  for (;;) {
    if (existsSync(path.join(d, '.git'))) return d;
    const up = path.dirname(d);
    if (up === d) return path.dirname(file);
    d = up;
  }
}

export async function lint(opts: LintOptions = {}): Promise<LintResult> {
  const t0 = performance.now();
  const cwd = path.resolve(opts.cwd ?? process.cwd());
  const allRules = opts.ruleSet ?? (await loadRules());
  const ruleIds = new Set(allRules.keys());
  const configs = new ConfigResolver(cwd, ruleIds, opts.configPath);
  const inputs = opts.paths?.length ? opts.paths : ['.'];

  // 1. discovery: targets, plus context for explicitly named files
  const firstCfg = configs.forDir(path.resolve(cwd, inputs[0]!));
  const virtual = new Set([...(opts.overrides?.keys() ?? [])].map((o) => path.resolve(cwd, o)));
  const onDisk = inputs.filter((i) => !virtual.has(path.resolve(cwd, i)));
  const targetsFound = onDisk.length === 0 ? { files: [], problems: [] } : await discoverFiles(onDisk, {
    cwd,
    include: firstCfg.config.include,
    exclude: firstCfg.config.exclude,
    forceExclude: opts.forceExclude,
  });
  const problems: FileProblem[] = [...targetsFound.problems];
  const targets = new Set(targetsFound.files);
  for (const o of opts.overrides?.keys() ?? []) if (languageOf(o)) targets.add(path.resolve(cwd, o));
  const explicitFiles = [...targets].filter((f) => inputs.some((i) => path.resolve(cwd, i) === f));
  const contextFiles = new Set<string>(targets);
  const roots = new Set(explicitFiles.map((f) => contextRoot(f, configs)));
  for (const r of roots) {
    const cfg = configs.forDir(r);
    const found = await discoverFiles([r], { cwd: r, include: cfg.config.include, exclude: cfg.config.exclude });
    for (const f of found.files) contextFiles.add(f);
  }

  // 2. load every file once
  const files = new Map<string, SourceFile>();
  await Promise.all(
    [...contextFiles].map(async (p) => {
      const override = opts.overrides?.get(p);
      const r = override !== undefined ? { ok: true as const, text: override } : await loadText(p);
      const language = languageOf(p)!;
      if (!r.ok) {
        if (targets.has(p)) problems.push(r.problem);
        return;
      }
      files.set(p, { path: p, relPath: rel(cwd, p), language, source: new SourceText(r.text) });
    }),
  );
  const sorted = [...files.values()].sort((a, b) => (a.path < b.path ? -1 : 1));

  // 3. project indexes
  const cfgOfRoot = configs.forDir(path.resolve(cwd, inputs[0]!));
  const python = await createPythonProject(sorted);
  const { suites, problems: suiteProblems } = await loadSuites(sorted.filter((f) => f.language === 'json'), {
    root: cwd,
    adapter: cfgOfRoot.config.adapter,
    adapterOptions: cfgOfRoot.config.adapterOptions,
  });
  bindVerifiers(suites, python, cfgOfRoot.config.adapterOptions ?? {});
  const bundles = new Map<string, BundleModel>();
  for (const f of sorted) {
    if (f.language !== 'typescript' && f.language !== 'javascript') continue;
    try {
      const b = buildBundleModel(f);
      if (b) bundles.set(f.path, b);
    } catch (err) {
      if (targets.has(f.path)) problems.push({ path: f.path, message: `Cannot analyse bundle: ${(err as Error).message}` });
    }
  }
  const project: Project = { root: cwd, files, suites, python, bundles };

  // Report on targets, and on task files whose entries route to a target module.
  const reportOn = new Set([...targets].filter((t) => files.has(t)));
  const tasksByFile = new Map<string, Task>();
  for (const s of suites) for (const t of s.tasks) tasksByFile.set(t.file.path, t);
  for (const t of tasksByFile.values()) {
    if (t.entries.some((e) => e.binding && targets.has(e.binding.file))) reportOn.add(t.file.path);
  }

  // 4. the central pass
  const findings: Finding[] = [];
  const crashed = new Set<string>();
  const enabledFor = (file: SourceFile, layer: Layer) => {
    const cfg = configs.forFile(file.path);
    const out: Array<{ rule: Rule; setting: RuleSetting }> = [];
    for (const rule of allRules.values()) {
      if (opts.rules && !opts.rules.includes(rule.meta.id)) continue;
      if (!rule.meta.layers.includes(layer)) continue;
      const setting = settingFor(rule, cfg, opts.severities);
      if (setting.severity === 'off') continue;
      out.push({ rule, setting });
    }
    return out;
  };

  const makeCtx = (rule: Rule, setting: RuleSetting, unit: FileUnit, text: string, defaultPointer?: () => string | undefined) => {
    const src = unit.file.source;
    const toRange = (at: ReportTarget): Range => {
      let s: number;
      let e: number;
      if ('startIndex' in at) { s = at.startIndex; e = at.endIndex; }
      else { s = at.start; e = at.end; }
      if (unit.embedded) {
        s = unit.embedded.toFileOffset(s);
        e = unit.embedded.toFileOffset(e);
      }
      return src.range(s, Math.max(s, e));
    };
    const ctx: RuleContext = {
      ruleId: rule.meta.id,
      options: setting.options,
      project,
      unit,
      text,
      report(d: ReportDescriptor<string>) {
        const template = (rule.meta.messages as Record<string, string>)[d.messageId];
        if (template === undefined) throw new Error(`rule ${rule.meta.id} reported unknown messageId '${d.messageId}'`);
        findings.push({
          ruleId: rule.meta.id,
          messageId: d.messageId,
          message: fillTemplate(template, d.data),
          severity: toSeverity(setting.severity),
          file: unit.file.path,
          range: toRange(d.at),
          pointer: d.pointer ?? (unit.embedded ? unit.embedded.ref.pointer : defaultPointer?.()),
          related: d.related,
          data: d.data,
          control: rule.meta.confirm ? d.control : undefined,
        });
      },
    };
    return ctx;
  };

  const onError = (rule: Rule, file: SourceFile) => (err: unknown) => {
    const key = `${rule.meta.id}\0${file.path}`;
    if (crashed.has(key)) return;
    crashed.add(key);
    findings.push({
      ruleId: INTERNAL_ERROR_RULE,
      messageId: 'crash',
      message: `Rule '${rule.meta.id}' crashed on this file (${(err as Error)?.message ?? String(err)}); other rules still ran. Please report this with the file.`,
      severity: 'error',
      file: file.path,
      range: file.source.range(0, 0),
    });
  };

  const runPythonUnit = (file: SourceFile, analysis: PythonAnalysis, embedded?: EmbeddedCode) => {
    const subs: PythonSubscriber[] = [];
    for (const { rule, setting } of enabledFor(file, 'python')) {
      const unit: FileUnit = { file, layer: 'python', embedded };
      const ctx = Object.assign(makeCtx(rule, setting, unit, analysis.text), { python: analysis });
      let v: Visitors;
      try { v = rule.create(ctx); } catch (err) { onError(rule, file)(err); continue; }
      if (v.python) subs.push({ visitors: v.python, ctx, onError: onError(rule, file) });
    }
    walkPython(analysis.tree, subs);
  };

  for (const file of sorted) {
    if (!reportOn.has(file.path)) continue;
    if (file.language === 'python') {
      const analysis = python.analysis(file.path);
      if (!analysis) continue;
      const err = firstSyntaxError(analysis);
      if (err) {
        findings.push(parseError(file, err.start, err.end, `Python syntax error: ${err.message}. The verifier cannot be imported, so every task it grades fails; fix the syntax.`));
      }
      runPythonUnit(file, analysis);
    } else if (file.language === 'javascript' || file.language === 'typescript') {
      const bundle = bundles.get(file.path);
      if (bundle) {
        for (const { rule, setting } of enabledFor(file, 'bundle')) {
          const ctx = makeCtx(rule, setting, { file, layer: 'bundle' }, file.source.text);
          const safe = onError(rule, file);
          try {
            const v = rule.create(ctx).bundle;
            if (!v) continue;
            v.bundle?.(bundle, ctx);
            for (const check of bundle.checks) {
              v.check?.(check, ctx);
              for (const run of check.toolRuns) v.toolRun?.(run, ctx);
            }
          } catch (e) { safe(e); }
        }
      }
      if (file.language === 'javascript') {
        const rulesJs = enabledFor(file, 'javascript');
        if (rulesJs.length === 0) continue;
        const parsed = parseJs(file.source.text);
        if (!parsed.ok) {
          if (!bundle) findings.push(parseError(file, parsed.offset, parsed.offset, `JavaScript syntax error: ${parsed.message}. The verifier cannot load; fix the syntax.`));
          continue;
        }
        const subs: JsSubscriber[] = [];
        for (const { rule, setting } of rulesJs) {
          const ctx = makeCtx(rule, setting, { file, layer: 'javascript' }, file.source.text);
          let v: Visitors;
          try { v = rule.create(ctx); } catch (err) { onError(rule, file)(err); continue; }
          if (v.javascript) subs.push({ visitors: v.javascript, ctx, onError: onError(rule, file) });
        }
        walkJs(parsed.program, subs);
      }
    }
  }

  for (const task of tasksByFile.values()) {
    const file = task.file;
    if (!reportOn.has(file.path)) continue;
    const suiteRules = enabledFor(file, 'suite');
    let current: string | undefined = '';
    const instances = suiteRules.flatMap(({ rule, setting }) => {
      const ctx = makeCtx(rule, setting, { file, layer: 'suite' }, file.source.text, () => current);
      try {
        const v = rule.create(ctx).suite;
        return v ? [{ v, ctx, safe: onError(rule, file) }] : [];
      } catch (err) { onError(rule, file)(err); return []; }
    });
    for (const { v, ctx, safe } of instances) { try { v.task?.(task, ctx); } catch (e) { safe(e); } }
    for (const entry of task.entries) {
      current = entry.pointer;
      for (const { v, ctx, safe } of instances) { try { v.entry?.(entry, ctx); } catch (e) { safe(e); } }
    }
    current = '';
    const embeddedAll = [...task.entries.flatMap((e) => e.embedded)];
    for (const code of embeddedAll) {
      current = code.ref.pointer;
      for (const { v, ctx, safe } of instances) { try { v.embedded?.(code, ctx); } catch (e) { safe(e); } }
      if (code.language === 'python') {
        const analysis = await analysePython(code.code);
        try { runPythonUnit(file, analysis, code); } finally { analysis.tree.delete(); }
      }
    }
  }

  for (const p of suiteProblems) {
    const file = files.get(p.file);
    if (file && reportOn.has(file.path)) findings.push(parseError(file, p.start, p.end, p.message));
  }
  for (const p of problems) {
    findings.push({
      ruleId: PARSE_ERROR_RULE,
      messageId: 'unreadable',
      message: p.message,
      severity: 'error',
      file: p.path,
      range: { start: { line: 1, column: 1, offset: 0 }, end: { line: 1, column: 1, offset: 0 } },
    });
  }

  // 5. suppressions
  const sups: Suppression[] = [];
  const seenCfg = new Set<string>();
  for (const f of files.values()) {
    if (!reportOn.has(f.path)) continue;
    sups.push(...commentSuppressions(f));
    const task = tasksByFile.get(f.path);
    if (task) sups.push(...jsonSuppressions(f, task.values));
    const cfg = configs.forFile(f.path);
    if (cfg.path && !seenCfg.has(cfg.path)) {
      seenCfg.add(cfg.path);
      sups.push(...configSuppressions(cfg));
    }
  }
  const kept: Finding[] = [];
  const suppressed: Finding[] = [];
  for (const f of findings) {
    if (f.ruleId !== PARSE_ERROR_RULE && sups.some((s) => suppresses(s, f))) suppressed.push(f);
    else kept.push(f);
  }
  if (opts.reportUnusedSuppressions !== false) {
    for (const s of sups) {
      const stale = s.rules.filter((r) => !s.used.has(r) && (allRules.has(r) ? !opts.rules || opts.rules.includes(r) : true));
      if (stale.length === 0) continue;
      const file = s.source === 'config' ? s.configPath! : s.file;
      const src = files.get(file)?.source;
      const off = src ? src.offsetAt(s.at.line, s.at.column) : 0;
      const unknown = stale.filter((r) => !allRules.has(r));
      kept.push({
        ruleId: UNUSED_SUPPRESSION_RULE,
        messageId: 'unused',
        message: unknown.length
          ? `Suppression names unknown rule${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}; run 'vaudit rules' for valid ids.`
          : `Suppression of ${stale.join(', ')} matches no finding; remove it so it cannot hide a future defect.`,
        severity: 'warning',
        file,
        range: src ? src.range(off, off) : { start: { line: s.at.line, column: s.at.column, offset: 0 }, end: { line: s.at.line, column: s.at.column, offset: 0 } },
        pointer: s.source === 'config' ? undefined : s.pointer,
      });
    }
  }

  // 6. order + fingerprints
  kept.sort(compareFindings);
  assignFingerprints(kept, cwd, files);

  let entries = 0;
  let tasks = 0;
  for (const t of tasksByFile.values()) {
    if (!reportOn.has(t.file.path)) continue;
    tasks++;
    entries += t.entries.length;
  }
  return {
    findings: kept,
    suppressed,
    project,
    targets: [...reportOn].sort(),
    configs: [...new Set([...files.keys()].map((f) => configs.forFile(f).path).filter((p): p is string => !!p))],
    stats: {
      files: reportOn.size + problems.length,
      tasks,
      entries,
      pythonFiles: [...reportOn].filter((p) => files.get(p)?.language === 'python').length,
      bundles: [...bundles.keys()].filter((p) => reportOn.has(p)).length,
      durationMs: performance.now() - t0,
    },
    dispose: () => python.dispose(),
  };
}

function parseError(file: SourceFile, start: number, end: number, message: string): Finding {
  return { ruleId: PARSE_ERROR_RULE, messageId: 'syntax', message, severity: 'error', file: file.path, range: file.source.range(start, end) };
}

function firstSyntaxError(a: PythonAnalysis): { start: number; end: number; message: string } | undefined {
  if (!a.root.hasError) return undefined;
  const cursor = a.tree.walk();
  try {
    for (;;) {
      const n = cursor.currentNode;
      if (n.isError || n.isMissing) {
        return { start: n.startIndex, end: Math.max(n.endIndex, n.startIndex), message: n.isMissing ? `missing ${n.type}` : `unexpected ${JSON.stringify(n.text.slice(0, 30))}` };
      }
      if (n.hasError && cursor.gotoFirstChild()) continue;
      while (!cursor.gotoNextSibling()) {
        if (!cursor.gotoParent()) return undefined;
      }
    }
  } finally {
    cursor.delete();
  }
}

export function compareFindings(a: Finding, b: Finding): number {
  if (a.file !== b.file) return a.file < b.file ? -1 : 1;
  if (a.range.start.offset !== b.range.start.offset) return a.range.start.offset - b.range.start.offset;
  if (a.ruleId !== b.ruleId) return a.ruleId < b.ruleId ? -1 : 1;
  return a.message < b.message ? -1 : a.message > b.message ? 1 : 0;
}

/** Stable across unrelated edits: rule + relative file + (JSON pointer | trimmed line text) + occurrence. */
function assignFingerprints(findings: Finding[], root: string, files: ReadonlyMap<string, SourceFile>): void {
  const counts = new Map<string, number>();
  for (const f of findings) {
    const anchor = f.pointer ?? files.get(f.file)?.source.lineText(f.range.start.line).trim() ?? '';
    const base = `${f.ruleId}\0${rel(root, f.file)}\0${anchor}`;
    const n = counts.get(base) ?? 0;
    counts.set(base, n + 1);
    f.fingerprint = createHash('sha256').update(`${base}\0${n}`).digest('hex').slice(0, 32);
  }
}

export { CONFIG_FILE };
