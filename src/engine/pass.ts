/**
 * The reusable phases of a lint run, shared by `lint()` (one-shot CLI runs)
 * and `LintSession` (the editor's incremental session):
 * - `buildIndexes`: suites, verifier binding and bundle models over loaded files;
 * - `runPass`: the central pass over the units to report on, then severities,
 *   suppressions, ordering and fingerprints.
 * Parses come in through the project (Python), `jsParse` and `embedded`, so a
 * caller can cache them across runs.
 */
import path from 'node:path';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import type { Finding, Layer, MessageParts, Range, RelatedLocation, RunNote, Severity, SeveritySetting } from '../core/types.js';
import { codeShape, joinParts, PARSE_ERROR_RULE, SHAPE_MAX } from '../core/types.js';
import type { NoteDescriptor, Rule, RuleContext, ReportDescriptor, ReportTarget, Visitors } from '../contract/rule.js';
import type { FileUnit, Project } from '../contract/project.js';
import type { SourceFile } from '../core/source.js';
import type { FileProblem } from '../core/load.js';
import { walkJs, walkPython, type JsSubscriber, type PythonSubscriber } from './dispatch.js';
import { carryFrom, recordedFinding, topLevelUnits, type Carried, type CarryStore } from './carry.js';
import { jsNesting, MAX_JS_NESTING, parseScript, prepareTypeStripping, type JsParse } from '../lang/js/parse.js';
import { commentSuppressions, configSuppressions, jsonSuppressions, SuppressionIndex, type Suppression } from './suppress.js';
import { unusedSuppressionFix } from './suppression-fix.js';
import type { ConfigResolver, LoadedConfig } from '../config/load.js';
import { loadSuites, type SuiteProblem } from '../suites/index.js';
import { bindVerifiers } from '../suites/binding.js';
import { analysePython, releasingTrees } from '../lang/python/project.js';
import { buildBundleModel, prepareBundleAnalysis } from '../lang/ts/index.js';
import type { BundleModel } from '../lang/ts/types.js';
import type { Program } from 'acorn';
import type { ModuleRoute } from '../suites/harness/routes.js';
import type { RouteResolutions } from '../suites/harness/resolve.js';
import type { KindRoute } from '../suites/harness/kind-sites.js';
import type { EmbeddedCode, Suite, Task } from '../suites/types.js';
import type { PythonAnalysis, PythonProject } from '../lang/python/types.js';
import { FLOW_BUDGET } from '../lang/python/flow/state.js';
import { CPYTHON_MAX_DEPTH, MAX_ANALYSED_DEPTH, MAX_ANALYSED_NODES, type PyNode } from '../lang/python/tree.js';
import type { NotAnalysed } from '../lang/python/types.js';
import { rel } from '../core/paths.js';

const UNUSED_SUPPRESSION_RULE = 'unused-suppression';
export const INTERNAL_ERROR_RULE = 'internal-error';

interface RuleSetting {
  severity: SeveritySetting;
  options: Record<string, unknown>;
  /** The user configured the severity (config file or editor settings). */
  explicit: boolean;
}

function settingFor(rule: Rule, cfg: LoadedConfig, overrides?: Record<string, SeveritySetting>): RuleSetting {
  const raw = cfg.config.rules?.[rule.meta.id];
  let severity: SeveritySetting = rule.meta.defaultSeverity;
  let configured: Record<string, unknown> = {};
  if (typeof raw === 'string') severity = raw;
  else if (Array.isArray(raw)) {
    severity = raw[0];
    configured = raw[1] ?? {};
  }
  // the one place options get their defaults (the config loader has validated them against the schema)
  const options = { ...(rule.meta.defaultOptions as Record<string, unknown> | undefined), ...configured };
  const o = overrides?.[rule.meta.id];
  if (o) severity = o;
  return { severity, options, explicit: raw !== undefined || o !== undefined };
}

function toSeverity(s: SeveritySetting): Severity {
  return s === 'error' ? 'error' : 'warning';
}

/** Each message template split once into text and `{{ key }}` placeholders (even indexes: text; odd: a
 *  placeholder's key and, when `data` lacks it, the placeholder as written): templates are few, reports many. */
const TEMPLATE_PARTS = new Map<string, string[]>();

function fillTemplate(template: string, data: Record<string, string | number> | undefined): string {
  let parts = TEMPLATE_PARTS.get(template);
  if (!parts) {
    parts = [];
    let last = 0;
    for (const m of template.matchAll(/\{\{\s*(\w+)\s*\}\}/g)) {
      parts.push(template.slice(last, m.index), m[1]!, m[0]);
      last = m.index + m[0].length;
    }
    parts.push(template.slice(last));
    TEMPLATE_PARTS.set(template, parts);
  }
  if (parts.length === 1) return template;
  let out = parts[0]!;
  for (let i = 1; i < parts.length; i += 3) {
    const k = parts[i]!;
    out += (data && k in data ? String(data[k]) : parts[i + 1]!) + parts[i + 2]!;
  }
  return out;
}


/** Folder whose files give context to an explicitly named file: its config folder, else its git root, else its folder. */
export function contextRoot(file: string, configs: ConfigResolver): string {
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

export interface ProjectIndexes {
  suites: Suite[];
  suiteProblems: SuiteProblem[];
  bundles: Map<string, BundleModel>;
  /** Bundle-analysis problems of target files. */
  problems: FileProblem[];
  /** Tasks by the file that declares them (a file may hold many: a JSON array, a JSONL file). */
  tasksByFile: Map<string, Task[]>;
  /** Module routes learned from the harness or declared (for "why nothing was recognised"). */
  routes: readonly ModuleRoute[];
  kinds: readonly KindRoute[];
}

export interface IndexOptions {
  root: string;
  rootConfig: LoadedConfig;
  python: PythonProject;
  /** Files whose bundle-analysis failures are reported. */
  targets: ReadonlySet<string>;
  /** Bundle model of a file (a cache may answer); default `buildBundleModel`. */
  bundleOf?: (file: SourceFile) => BundleModel | undefined;
  /** The code files the harness's routes and dispatches are learned from (default: `sorted`; loading
   *  reads no JSON file through them). An editor session passes the same array while no code file
   *  changed, so the learning, memoised per array, is not done again after a task file's edit. */
  harnessFiles?: readonly SourceFile[];
  /** Route resolutions kept between builds (an editor session, src/suites/harness/resolve.ts). */
  resolutions?: RouteResolutions;
}

/** Phase 3: suites (JSON parses are cached per SourceFile), verifier binding, bundle models. */
export async function buildIndexes(sorted: readonly SourceFile[], o: IndexOptions): Promise<ProjectIndexes> {
  if (sorted.some((f) => f.language === 'typescript')) await prepareTypeStripping();
  const declaredTasks = o.rootConfig.config.tasks;
  const { suites, problems: suiteProblems, routes, kinds } = await loadSuites(sorted.filter((f) => f.language === 'json'), {
    root: o.root,
    detect: o.rootConfig.config.detect,
    declared: declaredTasks?.length && o.rootConfig.path ? { tasks: declaredTasks, configFile: o.rootConfig.path } : undefined,
    code: { python: o.python, files: o.harnessFiles ?? sorted, programOf: harnessProgram },
    adapter: o.rootConfig.config.adapter,
    adapterOptions: o.rootConfig.config.adapterOptions,
    resolutions: o.resolutions,
  });
  await bindVerifiers(suites, o.python, o.rootConfig.config.adapterOptions ?? {});
  await prepareBundleAnalysis(sorted);
  const bundles = new Map<string, BundleModel>();
  const problems: FileProblem[] = [];
  const bundleOf = o.bundleOf ?? buildBundleModel;
  for (const f of sorted) {
    if (f.language !== 'typescript' && f.language !== 'javascript') continue;
    // the TypeScript compiler recurses per level, and V8 may abort outright near the end of the stack:
    // such a file is not modelled, and the JS pass reports it as too deep (parseScript)
    if (nestingOf(f) > MAX_JS_NESTING) continue;
    try {
      const b = bundleOf(f);
      if (b) bundles.set(f.path, b);
    } catch (err) {
      if (o.targets.has(f.path)) problems.push({ path: f.path, message: `Cannot analyse bundle: ${(err as Error).message}` });
    }
  }
  // TypeScript files that are not bundles are verifiers: the JS rules read them through the type stripper
  if (sorted.some((f) => f.language === 'typescript' && !bundles.has(f.path))) await prepareTypeStripping();
  const tasksByFile = new Map<string, Task[]>();
  for (const s of suites) {
    for (const t of s.tasks) {
      const list = tasksByFile.get(t.file.path);
      if (list) list.push(t);
      else tasksByFile.set(t.file.path, [t]);
    }
  }
  return { suites, suiteProblems, bundles, problems, tasksByFile, routes, kinds };
}

/** A JS/TS file's nesting depth, once per content (every index build asks it of every script: an editor
 *  session rebuilding after a task edit tokenized each app script again). */
const nestings = new WeakMap<SourceFile, number>();
function nestingOf(f: SourceFile): number {
  let n = nestings.get(f);
  if (n === undefined) nestings.set(f, (n = jsNesting(f.source.text)));
  return n;
}

/** A harness file's program for route learning (types stripped; undefined when it does not parse). */
export function harnessProgram(f: SourceFile): Program | undefined {
  if (f.language !== 'javascript' && f.language !== 'typescript') return undefined;
  if (nestingOf(f) > MAX_JS_NESTING) return undefined;
  const r = parseScript(f.language, f.source.text);
  return r.ok ? r.program : undefined;
}

/** Parses of code embedded in JSON strings: `lint()` parses and frees; a session may cache. */
export interface EmbeddedParses {
  acquire(code: string): Promise<PythonAnalysis>;
  release(analysis: PythonAnalysis): void;
}

/** Analyses kept by one run for repeated embedded code (many entries repeat a lambda), at most this many. */
const RUN_EMBEDDED_CACHE = 1024;

/** A run's parses of embedded code: identical code is analysed once (as an editor session's cache does),
 *  within a bound so that a suite of thousands of distinct lambdas does not keep them all. */
function runEmbeddedParses(): EmbeddedParses {
  const byCode = new Map<string, Promise<PythonAnalysis>>();
  return {
    acquire(code) {
      let a = byCode.get(code);
      if (!a) {
        if (byCode.size >= RUN_EMBEDDED_CACHE) byCode.clear();
        byCode.set(code, (a = analysePython(code)));
      }
      return a;
    },
    release: () => {},
  };
}

export interface PassInput {
  cwd: string;
  project: Project;
  /** Files to report on (absolute); others give context only. */
  reportOn: ReadonlySet<string>;
  tasksByFile: ReadonlyMap<string, readonly Task[]>;
  bundles: ReadonlyMap<string, BundleModel>;
  suiteProblems: readonly SuiteProblem[];
  /** Unreadable/unanalysable files, reported as parse-error findings. */
  problems: readonly FileProblem[];
  configs: ConfigResolver;
  allRules: ReadonlyMap<string, Rule>;
  rules?: string[];
  severities?: Record<string, SeveritySetting>;
  reportUnusedSuppressions?: boolean;
  jsParse?: (file: SourceFile) => JsParse;
  embedded?: EmbeddedParses;
  /** An editor session's findings of unit-local rules from the previous lint of each Python file
   *  (src/engine/carry.ts): kept where an edit left a function unchanged, and recorded for the next. */
  carry?: CarryStore;
  /** Called between the files and the task files (a one-shot run collects garbage there when its heap
   *  is large: src/core/collect.ts). */
  between?: () => void;
  /** A one-shot run: drop each Python file's flow and call facts once its rules have run
   *  (`PythonProject.releaseFacts`; an editor session keeps them for the next edit). */
  releaseFacts?: boolean;
  /** Called after each file (a one-shot run collects garbage when its heap grew: src/core/collect.ts). */
  afterFile?: () => void;
}

export interface PassResult {
  findings: Finding[];
  suppressed: Finding[];
  /** Notes of the run (`ctx.note`), in file and position order, one per (rule, place, message). */
  notes: RunNote[];
}

/** Phases 4–6: the central pass over `reportOn`, suppressions, order and fingerprints. */
export async function runPass(input: PassInput): Promise<PassResult> {
  const pass = new CentralPass(input);
  const release = pass.release;
  // 4. the central pass
  for (const p of [...input.reportOn].sort()) {
    const file = input.project.files.get(p);
    if (!file) continue;
    await release();
    if (file.language === 'python') {
      pass.pythonFile(file);
      if (input.releaseFacts) input.project.python.releaseFacts(file.path);
    } else if (file.language === 'javascript' || file.language === 'typescript') pass.scriptFile(file);
    input.afterFile?.();
  }
  input.between?.();
  for (const tasks of input.tasksByFile.values()) {
    for (const task of tasks) if (input.reportOn.has(task.file.path)) await pass.task(task);
  }
  pass.problems();
  // 5. order, one finding per (rule, file, range, message), one per defect (a group's other sites become related locations)
  pass.findings.sort(compareFindings);
  const defects = groupFindings(dedupeFindings(pass.findings));
  // 6. suppressions (of a defect: at its first site, where it is shown), fingerprints
  const { kept, suppressed } = applySuppressions(input, defects);
  kept.sort(compareFindings);
  assignFingerprints(kept, input.cwd, input.project.files);
  return { findings: kept, suppressed, notes: orderedNotes(pass.notes) };
}

/** The rules over one run's units: rule contexts, crash isolation, and the findings they report. */
class CentralPass {
  readonly findings: Finding[] = [];
  readonly notes: RunNote[] = [];
  private readonly crashed = new Set<string>();
  private readonly jsParse: (file: SourceFile) => JsParse;
  private readonly embedded: EmbeddedParses;
  /** A pause every few parses, so that the native parser's trees are freed (`releasingTrees`): between
   *  files, and between the embedded code of a task file. */
  readonly release: () => Promise<void>;

  constructor(private readonly input: PassInput) {
    this.jsParse = input.jsParse ?? ((f: SourceFile) => parseScript(f.language as 'javascript' | 'typescript', f.source.text));
    this.embedded = input.embedded ?? runEmbeddedParses();
    this.release = releasingTrees();
  }

  /** `enabledFor` per config and layer: the same for every unit under one config (each embedded lambda is a unit). */
  private readonly enabledMemo = new Map<LoadedConfig, Map<Layer, Array<{ rule: Rule; setting: RuleSetting }>>>();

  /** Rules enabled for a file's layer, with their settings from the file's config. */
  private enabledFor(file: SourceFile, layer: Layer): Array<{ rule: Rule; setting: RuleSetting }> {
    const cfg = this.input.configs.forFile(file.path);
    let byLayer = this.enabledMemo.get(cfg);
    if (!byLayer) this.enabledMemo.set(cfg, (byLayer = new Map()));
    let out = byLayer.get(layer);
    if (!out) byLayer.set(layer, (out = this.enabledIn(cfg, layer)));
    return out;
  }

  private enabledIn(cfg: LoadedConfig, layer: Layer): Array<{ rule: Rule; setting: RuleSetting }> {
    const { input } = this;
    const out: Array<{ rule: Rule; setting: RuleSetting }> = [];
    for (const rule of input.allRules.values()) {
      if (input.rules && !input.rules.includes(rule.meta.id)) continue;
      if (!rule.meta.layers.includes(layer)) continue;
      const setting = settingFor(rule, cfg, input.severities);
      if (setting.severity === 'off') continue;
      out.push({ rule, setting });
    }
    return out;
  }

  private makeCtx(rule: Rule, setting: RuleSetting, unit: FileUnit, text: string, defaultPointer?: () => string | undefined): RuleContext {
    const src = unit.file.source;
    const findings = this.findings;
    const notes = this.notes;
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
    return {
      ruleId: rule.meta.id,
      options: setting.options,
      project: this.input.project,
      unit,
      text,
      report(d: ReportDescriptor<string>) {
        const template = (rule.meta.messages as Record<string, MessageParts | undefined>)[d.messageId];
        if (template === undefined) throw new Error(`rule ${rule.meta.id} reported unknown messageId '${d.messageId}'`);
        const parts = { what: fillTemplate(template.what, d.data), why: fillTemplate(template.why, d.data), fix: fillTemplate(template.fix, d.data) };
        findings.push({
          ruleId: rule.meta.id,
          messageId: d.messageId,
          message: joinParts(parts),
          parts,
          severity: d.severity && !setting.explicit ? d.severity : toSeverity(setting.severity),
          file: unit.file.path,
          range: toRange(d.at),
          pointer: d.pointer ?? (unit.embedded ? unit.embedded.ref.pointer : defaultPointer?.()),
          related: d.related,
          ...(d.group === undefined ? {} : { group: d.group }),
          data: d.data,
          control: rule.meta.confirm ? d.control : undefined,
          ...(d.fix && !unit.embedded ? { autofix: d.fix } : {}),
        });
      },
      note(d: NoteDescriptor) {
        const template = rule.meta.notes?.[d.noteId];
        if (template === undefined) throw new Error(`rule ${rule.meta.id} noted unknown noteId '${d.noteId}'`);
        notes.push({
          ruleId: rule.meta.id,
          file: unit.file.path,
          range: toRange(d.at),
          pointer: d.pointer ?? (unit.embedded ? unit.embedded.ref.pointer : defaultPointer?.()),
          message: fillTemplate(template, d.data),
        });
      },
    };
  }

  /** A rule that throws on a file becomes one internal-error finding there; the other rules go on. */
  private onError(rule: Rule, file: SourceFile): (err: unknown) => void {
    return (err: unknown) => {
      const key = `${rule.meta.id}\0${file.path}`;
      if (this.crashed.has(key)) return;
      this.crashed.add(key);
      this.findings.push({
        ruleId: INTERNAL_ERROR_RULE,
        messageId: 'crash',
        ...withParts({
          what: `Rule '${rule.meta.id}' crashed on this file (${(err as Error)?.message ?? String(err)}).`,
          why: 'Its findings for this file are missing; the other rules still ran.',
          fix: 'Please report this with the file.',
        }),
        severity: 'error',
        file: file.path,
        range: file.source.range(0, 0),
      });
    };
  }

  private runPythonUnit(file: SourceFile, analysis: PythonAnalysis, embedded?: EmbeddedCode): void {
    const subs: PythonSubscriber[] = [];
    // one unit for every rule's context (rules read it, none changes it)
    const unit: FileUnit = { file, layer: 'python', embedded };
    const enabled = this.enabledFor(file, 'python');
    const keep = !embedded && this.input.carry && enabled.some(({ rule }) => rule.meta.unitLocal) ? this.keeper(file, analysis, enabled) : undefined;
    for (const { rule, setting } of enabled) {
      const ctx = Object.assign(this.makeCtx(rule, setting, unit, analysis.text), { python: analysis });
      let v: Visitors;
      try { v = rule.create(ctx); } catch (err) { this.onError(rule, file)(err); continue; }
      if (!v.python) continue;
      const sub: PythonSubscriber = { visitors: v.python, ctx, onError: this.onError(rule, file) };
      if (keep && rule.meta.unitLocal) keep.watch(sub);
      subs.push(sub);
    }
    walkPython(analysis.ast, subs, keep?.walk);
    keep?.done();
  }

  /**
   * What a Python file's walk needs to keep findings across edits: the units, those whose findings of
   * unit-local rules the previous lint left for this one (pushed now, not visited), and a record of
   * this lint's for the next (none after a rule crashed on the file: its findings there are unknown).
   */
  private keeper(file: SourceFile, analysis: PythonAnalysis, enabled: ReadonlyArray<{ rule: Rule; setting: RuleSetting }>) {
    const store = this.input.carry!;
    const rulesKey = enabled.map(({ rule, setting }) => `${rule.meta.id}:${setting.severity}:${setting.explicit ? 1 : 0}:${JSON.stringify(setting.options)}`).join('|');
    const units = new Set(topLevelUnits(analysis));
    const prev = store.get(file.path);
    const carried: Carried = (prev && carryFrom(prev, analysis, file, units, rulesKey)) || { units: new Set(), byUnit: new Map() };
    for (const list of carried.byUnit.values()) for (const f of list) this.findings.push({ ...f });
    if (carried.units.size) store.kept?.(carried.units.size);
    const byUnit = new Map<PyNode, Finding[]>(carried.byUnit);
    for (const u of units) if (!byUnit.has(u)) byUnit.set(u, []);
    const local = new Set<PythonSubscriber>();
    const findings = this.findings;
    const crashesBefore = this.crashed.size;
    let current: PyNode | null = null;
    return {
      walk: { units, carried: carried.units, local, onUnit: (u: PyNode | null) => { current = u; } },
      /** Record what this rule reports inside a unit. */
      watch(sub: PythonSubscriber) {
        local.add(sub);
        const report = sub.ctx.report;
        sub.ctx.report = (d) => {
          const n = findings.length;
          report(d);
          if (current && findings.length > n) byUnit.get(current)!.push(recordedFinding(findings[n]!));
        };
      },
      done: () => {
        if (this.crashed.size !== crashesBefore) return;
        const spans = new Map<PyNode, readonly [number, number]>();
        for (const u of units) spans.set(u, [u.start, u.end]);
        store.set(file.path, { rulesKey, text: analysis.text, spans, byUnit });
      },
    };
  }

  /** A Python file: its syntax error, if any, then the python-layer rules (unless it is nested too deep to analyse). */
  pythonFile(file: SourceFile): void {
    const analysis = this.input.project.python.analysis(file.path);
    if (!analysis) return;
    if (analysis.notAnalysed) {
      const at = analysis.notAnalysed.tokenizer?.offset ?? 0;
      this.findings.push(parseError(file, at, at, tooDeepParts(analysis.notAnalysed, 'module'), notAnalysedId(analysis.notAnalysed)));
      return;
    }
    const err = firstSyntaxError(analysis);
    if (err) {
      this.findings.push(parseError(file, err.start, err.end, { what: `Python syntax error: ${err.message}.`, why: 'The verifier cannot be imported, so every task it grades fails.', fix: 'Fix the syntax.' }));
    }
    // the flow analysis first: a file over its budget is reported once, and no rule reads an empty flow
    void analysis.flow;
    if (analysis.flowOverBudget) {
      this.findings.push(parseError(file, 0, 0, {
        what: `Python file too large to analyse: its flow analysis went over its budget of ${FLOW_BUDGET.toLocaleString('en-US')} steps (a scope of ${analysis.flowOverBudget.names.toLocaleString('en-US')} names; the analysis follows every name through every binding, branch and pass of a loop, and loops nested in loops multiply their passes).`,
        why: 'vaudit does not analyse this file (real modules take under 1 % of the budget).',
        fix: 'Split the module or function.',
      }, 'too-large'));
      return;
    }
    this.runPythonUnit(file, analysis);
  }

  /** A JavaScript or TypeScript file: the bundle layer when it is a correctness-model bundle, else the javascript layer. */
  scriptFile(file: SourceFile): void {
    const bundle = this.input.bundles.get(file.path);
    if (bundle) this.bundleFile(file, bundle);
    // JavaScript verifiers, and TypeScript verifiers with their types blanked out (bundles have their own layer)
    if (file.language === 'javascript' || !bundle) this.javascriptFile(file, !!bundle);
  }

  private bundleFile(file: SourceFile, bundle: BundleModel): void {
    for (const { rule, setting } of this.enabledFor(file, 'bundle')) {
      const ctx = this.makeCtx(rule, setting, { file, layer: 'bundle' }, file.source.text);
      const safe = this.onError(rule, file);
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

  private javascriptFile(file: SourceFile, isBundle: boolean): void {
    const rulesJs = this.enabledFor(file, 'javascript');
    if (rulesJs.length === 0) return;
    const parsed = this.jsParse(file);
    if (!parsed.ok) {
      // TypeScript that needs a transform (enum, namespace) is not analysed, but it is not an error
      if (!isBundle && !parsed.unsupported) {
        const lang = file.language === 'typescript' ? 'TypeScript' : 'JavaScript';
        this.findings.push(parsed.tooLarge
          ? parseError(file, 0, 0, { what: `${lang} file too large to analyse: it ${parsed.message}.`, why: 'vaudit does not analyse this file (real verifiers stay under a tenth of the limit); the limit is fixed, so that a run\'s memory stays bounded.', fix: 'Split the file.' }, 'too-large')
          : parsed.tooDeep
          ? parseError(file, 0, 0, { what: `${lang} code ${parsed.message}.`, why: 'vaudit does not analyse this file (real code stays under 100 levels).', fix: 'Split the expression.' }, 'too-deep')
          : parseError(file, parsed.offset, parsed.offset, { what: `${lang} syntax error: ${parsed.message}.`, why: 'The verifier cannot load.', fix: 'Fix the syntax.' }));
      }
      return;
    }
    const subs: JsSubscriber[] = [];
    for (const { rule, setting } of rulesJs) {
      const ctx = this.makeCtx(rule, setting, { file, layer: 'javascript' }, file.source.text);
      let v: Visitors;
      try { v = rule.create(ctx); } catch (err) { this.onError(rule, file)(err); continue; }
      if (v.javascript) subs.push({ visitors: v.javascript, ctx, onError: this.onError(rule, file) });
    }
    walkJs(parsed.program, subs);
  }

  /** A task file: the suite-layer rules over the task, its entries and their embedded code (Python code also through the python layer). */
  async task(task: Task): Promise<void> {
    const file = task.file;
    let current: string | undefined = '';
    const instances = this.enabledFor(file, 'suite').flatMap(({ rule, setting }) => {
      const ctx = this.makeCtx(rule, setting, { file, layer: 'suite' }, file.source.text, () => current);
      try {
        const v = rule.create(ctx).suite;
        return v ? [{ v, ctx, safe: this.onError(rule, file) }] : [];
      } catch (err) { this.onError(rule, file)(err); return []; }
    });
    for (const { v, ctx, safe } of instances) { try { v.task?.(task, ctx); } catch (e) { safe(e); } }
    for (const entry of task.entries) {
      current = entry.pointer;
      for (const { v, ctx, safe } of instances) { try { v.entry?.(entry, ctx); } catch (e) { safe(e); } }
    }
    current = '';
    for (const code of task.entries.flatMap((e) => e.embedded)) {
      current = code.ref.pointer;
      for (const { v, ctx, safe } of instances) { try { v.embedded?.(code, ctx); } catch (e) { safe(e); } }
      if (code.language === 'python') {
        await this.release();
        const analysis = await this.embedded.acquire(code.code);
        try {
          if (analysis.notAnalysed) this.findings.push(parseError(file, code.ref.start, code.ref.end, tooDeepParts(analysis.notAnalysed, 'embedded'), notAnalysedId(analysis.notAnalysed), code.ref.pointer));
          else this.runPythonUnit(file, analysis, code);
        } finally { this.embedded.release(analysis); }
      }
    }
  }

  /** Suite problems of reported files, and unreadable or skipped files, as parse-error findings. */
  problems(): void {
    const { input } = this;
    for (const p of input.suiteProblems) {
      const file = input.project.files.get(p.file);
      if (file && input.reportOn.has(file.path)) this.findings.push(parseError(file, p.start, p.end, { what: p.message, why: '', fix: p.fix ?? 'Fix the file so it parses; until then vaudit (and the verifier) cannot use it.' }));
    }
    for (const p of input.problems) {
      this.findings.push({
        ruleId: PARSE_ERROR_RULE,
        messageId: p.skipped ? 'skipped' : 'unreadable',
        ...withParts({ what: p.message, why: '', fix: p.fix ?? 'Make the file readable, or exclude it in vaudit.config.json.' }),
        severity: p.skipped ? 'warning' : 'error',
        file: p.path,
        range: { start: { line: 1, column: 1, offset: 0 }, end: { line: 1, column: 1, offset: 0 } },
      });
    }
  }
}

/** Phase 5: findings a suppression (comment, task JSON, config) covers are set apart; suppressions that matched nothing are reported. */
function applySuppressions(input: PassInput, findings: readonly Finding[]): { kept: Finding[]; suppressed: Finding[] } {
  const { project: { files }, reportOn, tasksByFile, configs, allRules } = input;
  const sups: Suppression[] = [];
  const seenCfg = new Set<string>();
  for (const f of files.values()) {
    if (!reportOn.has(f.path)) continue;
    for (const s of commentSuppressions(f)) sups.push(s);
    const task = tasksByFile.get(f.path)?.[0];
    if (task) for (const s of jsonSuppressions(f, task.values)) sups.push(s);
    const cfg = configs.forFile(f.path);
    if (cfg.path && !seenCfg.has(cfg.path)) {
      seenCfg.add(cfg.path);
      for (const s of configSuppressions(cfg)) sups.push(s);
    }
  }
  const kept: Finding[] = [];
  const suppressed: Finding[] = [];
  const index = new SuppressionIndex(sups);
  for (const f of findings) {
    if (f.ruleId !== PARSE_ERROR_RULE && index.first(f)) suppressed.push(f);
    else kept.push(f);
  }
  if (input.reportUnusedSuppressions === false) return { kept, suppressed };
  for (const s of sups) {
    const stale = s.rules.filter((r) => !s.used.has(r) && (allRules.has(r) ? !input.rules || input.rules.includes(r) : true));
    if (stale.length === 0) continue;
    const file = s.source === 'config' ? s.configPath! : s.file;
    const src = files.get(file)?.source;
    const off = src ? src.offsetAt(s.at.line, s.at.column) : 0;
    const unknown = stale.filter((r) => !allRules.has(r));
    const autofix = unusedSuppressionFix(s, stale, files.get(file), (id) => allRules.has(id));
    kept.push({
      ruleId: UNUSED_SUPPRESSION_RULE,
      messageId: 'unused',
      ...withParts(unknown.length
        ? { what: `Suppression names unknown rule${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}.`, why: 'It suppresses nothing.', fix: "Run 'vaudit rules' for valid ids." }
        : { what: `Suppression of ${stale.join(', ')} matches no finding.`, why: 'A stale suppression can hide a future defect.', fix: 'Remove it.' }),
      severity: 'warning',
      file,
      range: src ? src.range(off, off) : { start: { line: s.at.line, column: s.at.column, offset: 0 }, end: { line: s.at.line, column: s.at.column, offset: 0 } },
      pointer: s.source === 'config' ? undefined : s.pointer,
      ...(autofix ? { autofix } : {}),
    });
  }
  return { kept, suppressed };
}

/** Drop repeats of a finding (same rule, file, range and message): a rule visiting one
 *  spot twice (a node reached from two entries, two layers) reports it once. */
function dedupeFindings(sorted: Finding[]): Finding[] {
  const out: Finding[] = [];
  const key = (f: Finding) => `${f.ruleId}\0${f.file}\0${f.range.start.offset}:${f.range.end.offset}\0${f.range.start.line}:${f.range.start.column}-${f.range.end.line}:${f.range.end.column}\0${f.pointer ?? ''}\0${f.message}`;
  const seen = new Set<string>();
  for (const f of sorted) {
    const k = key(f);
    if (seen.has(k)) continue;
    seen.add(k);
    out.push(f);
  }
  return out;
}

/** One finding per defect: findings of one rule in one file reported with the same `group` become the first of
 *  them (in report order), its severity the highest of theirs, and the others its related locations (their `what`). */
function groupFindings(sorted: Finding[]): Finding[] {
  const first = new Map<string, Finding>();
  // a head's related list once it is its own (a copy, appended to in place: one site costs one push, not a copy of the list)
  const owned = new Map<Finding, RelatedLocation[]>();
  const out: Finding[] = [];
  for (const f of sorted) {
    if (f.group === undefined) { out.push(f); continue; }
    const key = `${f.ruleId}\0${f.file}\0${f.group}`;
    const head = first.get(key);
    if (!head) {
      const copy: Finding = { ...f };
      first.set(key, copy);
      out.push(copy);
      continue;
    }
    let related = owned.get(head);
    if (!related) owned.set(head, (related = head.related = [...(head.related ?? [])]));
    related.push({ file: f.file, range: f.range, message: f.parts.what });
    for (const r of f.related ?? []) related.push(r);
    if (f.severity === 'error') head.severity = 'error';
  }
  return out;
}

function parseError(file: SourceFile, start: number, end: number, parts: MessageParts, messageId = 'syntax', pointer?: string): Finding {
  return { ruleId: PARSE_ERROR_RULE, messageId, ...withParts(parts), severity: 'error', file: file.path, range: file.source.range(start, end), ...(pointer === undefined ? {} : { pointer }) };
}

/** The message id of a unit not analysed: over the node limit `too-large`, tabs a syntax error, else `too-deep`. */
function notAnalysedId(n: NotAnalysed): string {
  return n.nodes !== undefined ? 'too-large' : n.tokenizer?.what === 'inconsistent tabs' ? 'syntax' : 'too-deep';
}

/** Python nested deeper than CPython's tokenizer or vaudit's analyses accept (issue 17), or larger than
 *  they accept (issue 30): what CPython does with it, and that vaudit skips it. */
function tooDeepParts({ depth, tokenizer, nodes }: NotAnalysed, unit: 'module' | 'embedded'): MessageParts {
  if (nodes !== undefined) {
    return {
      what: `Python ${unit === 'module' ? 'file' : 'code'} too large to analyse: its syntax tree has more than ${MAX_ANALYSED_NODES.toLocaleString('en-US')} nodes (the limit on syntax nodes, \`MAX_ANALYSED_NODES\`; the analyses' memory grows with them).`,
      why: `vaudit does not analyse this ${unit === 'module' ? 'file' : 'code'} (real modules stay under ${(MAX_ANALYSED_NODES / 10).toLocaleString('en-US')} nodes); the limit is fixed, so that a run's memory stays bounded.`,
      fix: 'Split the module.',
    };
  }
  const fails = unit === 'module' ? 'The verifier cannot be imported (every task it grades fails)' : 'The verifier\'s eval of this code fails';
  if (tokenizer?.what === 'inconsistent tabs') return { what: `Python syntax error: indentation whose level depends on the width of a tab (${tokenizer.error}).`, why: `${fails}, and vaudit does not analyse it.`, fix: 'Indent with spaces only (or tabs only).' };
  if (tokenizer) return { what: `Python syntax error: ${depth} ${tokenizer.what}, more than CPython's tokenizer allows (${tokenizer.error}).`, why: `${fails}, and vaudit does not analyse it.`, fix: 'Split the code.' };
  if (depth > CPYTHON_MAX_DEPTH) return { what: `Code nested ${depth} levels deep.`, why: `CPython's compiler raises RecursionError at about ${CPYTHON_MAX_DEPTH} levels. ${fails}, and vaudit does not analyse it.`, fix: 'Split the expression.' };
  return { what: `Code nested ${depth} levels deep.`, why: `vaudit analyses at most ${MAX_ANALYSED_DEPTH} levels (real code stays under 100), so it does not analyse this ${unit === 'module' ? 'file' : 'code'}.`, fix: 'Split the expression.' };
}

/** A built-in finding's `message` and `parts`. */
function withParts(parts: MessageParts): Pick<Finding, 'message' | 'parts'> {
  return { message: joinParts(parts), parts };
}

/** The first line of a code snippet, shortened, in backticks (no escape sequences in a message). */
function quoteSnippet(text: string): string {
  const first = text.trimStart().split(/\r?\n/, 1)[0]!.trimEnd();
  const cut = first.length > 30 ? `${first.slice(0, 30)}…` : first.length < text.trim().length ? `${first} …` : first;
  return `\`${cut.replace(/`/g, "'")}\``;
}

function firstSyntaxError(a: PythonAnalysis): { start: number; end: number; message: string } | undefined {
  // pre-order: the first ERROR or MISSING node in source order, descending only into subtrees with errors
  let n: PyNode = a.ast;
  if (!n.hasError) return undefined;
  for (;;) {
    if (n.isError || n.isMissing) {
      return { start: n.start, end: Math.max(n.end, n.start), message: n.isMissing ? `missing ${n.type}` : `unexpected ${quoteSnippet(n.text)}` };
    }
    const next = n.children.find((c) => c.hasError);
    if (!next) return undefined;
    n = next;
  }
}

export function compareFindings(a: Finding, b: Finding): number {
  if (a.file !== b.file) return a.file < b.file ? -1 : 1;
  if (a.range.start.offset !== b.range.start.offset) return a.range.start.offset - b.range.start.offset;
  if (a.ruleId !== b.ruleId) return a.ruleId < b.ruleId ? -1 : 1;
  return a.message < b.message ? -1 : a.message > b.message ? 1 : 0;
}

/** Stable across unrelated edits: rule + relative file + (JSON pointer | trimmed line text) + occurrence.
 *  Also the finding's shape: its code (the line for an empty range), whitespace collapsed. */
function assignFingerprints(findings: Finding[], root: string, files: ReadonlyMap<string, SourceFile>): void {
  const counts = new Map<string, number>();
  const relPaths = new Map<string, string>();
  for (const f of findings) {
    const source = files.get(f.file)?.source;
    const line = source && anchorLine(source.lineText(f.range.start.line), f.range.start.column);
    if (source) {
      const { start, end } = f.range;
      // a long range is read no further than its shape can show
      const shape = end.offset > start.offset ? codeShape(source.text.slice(start.offset, Math.min(end.offset, start.offset + 4 * SHAPE_MAX)), end.offset - start.offset > 4 * SHAPE_MAX) : codeShape(line!);
      if (shape) f.shape = shape;
    }
    const anchor = f.pointer ?? line ?? '';
    let relPath = relPaths.get(f.file);
    if (relPath === undefined) relPaths.set(f.file, (relPath = rel(root, f.file)));
    const base = `${f.ruleId}\0${relPath}\0${anchor}`;
    const n = counts.get(base) ?? 0;
    counts.set(base, n + 1);
    f.fingerprint = fingerprintOf(`${base}\0${n}`);
  }
}

/** Longest line text a fingerprint anchors on: of a longer line (a one-line file, minified code, a
 *  config on one line) only the part around the finding, so that hashing stays linear in the findings,
 *  not findings × line length (issue 30: 14,000 findings on a 1 MB line hashed 14 GB). */
const ANCHOR_MAX = 4 * SHAPE_MAX;

function anchorLine(text: string, column: number): string {
  if (text.length <= ANCHOR_MAX) return text.trim();
  const from = Math.max(0, Math.min(column - ANCHOR_MAX / 2, text.length - ANCHOR_MAX));
  return text.slice(from, from + ANCHOR_MAX).trim();
}

/** Fingerprints of the last run's findings (an editor re-lints the same findings on every keystroke),
 *  at most this many: the hash of a key never changes, so a hit is the hash itself. */
const FINGERPRINT_MEMO_MAX = 20_000;
const fingerprintMemo = new Map<string, string>();

function fingerprintOf(key: string): string {
  let h = fingerprintMemo.get(key);
  if (h === undefined) {
    if (fingerprintMemo.size >= FINGERPRINT_MEMO_MAX) fingerprintMemo.clear();
    fingerprintMemo.set(key, (h = createHash('sha256').update(key).digest('hex').slice(0, 32)));
  }
  return h;
}

/** Notes in file and position order, one per (rule, file, place, message). */
function orderedNotes(notes: readonly RunNote[]): RunNote[] {
  const key = (n: RunNote) => `${n.file}\0${String(n.range.start.offset).padStart(12, '0')}\0${n.ruleId}\0${n.message}`;
  const byKey = new Map<string, RunNote>();
  for (const n of notes) if (!byKey.has(key(n))) byKey.set(key(n), n);
  return [...byKey].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map(([, n]) => n);
}
