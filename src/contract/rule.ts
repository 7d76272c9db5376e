/**
 * The rule contract. One rule = one folder `rules/<id>/` whose `rule.ts` default-exports
 * `defineRule({ meta, create })`. `create(ctx)` is called once per file (or
 * per embedded code unit) of a layer the rule subscribes to and returns
 * visitors; the engine's central pass walks each parsed tree once and calls
 * every enabled rule's visitor for each node (rules never walk trees
 * privately).
 */
import type { PyNode } from '../lang/python/tree.js';
import type { AnyNode, Node as JsNode } from 'acorn';
import type { PyNodeType } from '../lang/python/node-types.js';
import type { Autofix, ControlCaseRequest, Language, Layer, MessageParts, RelatedLocation, SeveritySetting } from '../core/types.js';
import type { Project, FileUnit } from './project.js';
import type { Task, VerifierEntry, EmbeddedCode } from '../suites/types.js';
import type { PythonAnalysis } from '../lang/python/types.js';
import type { BundleModel, BundleCheck, BundleToolRun } from '../lang/ts/types.js';

/** A documentation example: one or more files, annotated inline with expected findings
 *  (`# vaudit-expect: rule-id/messageId`, `// vaudit-expect: rule-id/messageId`, or a `"//vaudit-expect": "rule-id/messageId"`
 *  member in the JSON object the finding is about). */
export interface RuleExample {
  /** Relative path → file content. Paths decide the language (and the suite family folder). */
  files: Record<string, string>;
  /** Optional prose shown above the example. */
  note?: string;
}

interface RuleDocs {
  /** What it does (one paragraph). */
  whatItDoes: string;
  /** Why is this bad: how it makes the benchmark lie. */
  why: string;
  /** Incorrect examples: each must produce exactly its annotated findings (at least one). Real files
   *  under `rules/<id>/docs/incorrect/<n>/` (a `note.md` there is the prose), filled in by the registry (read on first use). */
  incorrect?: RuleExample[];
  /** Correct examples: must produce no finding of this rule (`rules/<id>/docs/correct/<n>/`). */
  correct?: RuleExample[];
  /** Seed finding ids this rule prevents (VER-001…), references. */
  references?: string[];
}

interface ConfirmSupport {
  /** Oracle id: the `oracle.ts` of the rule folder `rules/<oracle>/`. */
  oracle: string;
  /** The oracle needs nothing from the rule but the finding's position in a task file: a JSON
   *  finding of this rule without `control` still gets a control case. */
  positional?: boolean;
  /** One sentence: what the control case runs and what it observes. */
  description: string;
  /** No case is run: the oracle answers every finding `unsupported` with the reason a run cannot show a
   *  verdict (the finding is about structure or safety) and what to do. Docs say "no control case". */
  staticOnly?: boolean;
}

/** A rule's options: what its config entry `rules.<id>` may set (validated against `optionsSchema`). */
type RuleOptions = Record<string, unknown>;

export interface RuleMeta<M extends string = string, O extends object = RuleOptions> {
  id: string;
  description: string;
  defaultSeverity: Exclude<SeveritySetting, 'off'>;
  /** The other severity some findings get when the user has not set one (`ReportDescriptor.severity`), and
   *  when: the catalogue lists both, so what is listed is what is reported. */
  otherSeverity?: { severity: Exclude<SeveritySetting, 'off'>; when: string };
  /** Layers the rule subscribes to. */
  layers: Layer[];
  /** Languages of files it can report in (docs/catalogue). */
  languages: Language[];
  /** One message per meaning, in three parts (Biome's pillars): what is wrong, why it makes the
   *  benchmark lie, what to do; `{{name}}` placeholders. Each part is a capitalised sentence that
   *  ends with a period. */
  messages: Record<M, MessageParts>;
  docs: RuleDocs;
  confirm?: ConfirmSupport;
  /** Notes of the run (`ctx.note`), one template per meaning with `{{name}}` placeholders: what the rule
   *  could not decide about a place within its deterministic budget. */
  notes?: Record<string, string>;
  /** JSON Schema of the rule's options (config `rules.<id>.options`), validated when the config loads. */
  optionsSchema?: Record<string, unknown>;
  /** The options' defaults: the engine merges the configured options over them once, so a rule reads
   *  `ctx.options` typed and complete (rendered in the rule's docs). */
  defaultOptions?: O;
  /**
   * The rule's Python findings inside a function depend only on that function: its own tree, names it
   * resolves in enclosing scopes, imports and module-level code; never on the body of another function
   * of the file (a callee, a decorator, the verdict functions' returns), on other files than Python
   * modules (task files, suites, bindings), nor on what earlier visits saw elsewhere (no state across
   * visits). An editor session then keeps the rule's findings in
   * the functions an edit left unchanged instead of visiting them again (src/engine/carry.ts); a rule
   * that does not say so is run over the whole file on every edit. Tested by test/rule-carry.test.ts.
   */
  unitLocal?: boolean;
}

/** Where a report points: offsets (UTF-16, half-open) into `ctx.text`, or a Python (PyNode) / acorn node. */
export type ReportTarget = { start: number; end: number } | PyNode | JsNode;

export interface ReportDescriptor<M extends string> {
  messageId: M;
  data?: Record<string, string | number>;
  at: ReportTarget;
  /** JSON pointer (suite layer); defaults to the current entry/task pointer. */
  pointer?: string;
  related?: RelatedLocation[];
  /** The defect this finding is a site of (e.g. the name and function of an unbound read, the response of
   *  an unguarded parse): findings of this rule in this file with the same group are one defect, reported
   *  once at its first site with the others as related locations (and suppressed there). A `unitLocal` rule's
   *  findings are carried across edits: its group must not hold offsets. */
  group?: string;
  control?: ControlCaseRequest;
  /** A safe, mechanical fix, edits in `ctx.text` offsets (`--fix`, the editor's quick fix). Only where the
   *  result is certain; anything less is a suggestion in the message. Dropped in code embedded in JSON. */
  fix?: Autofix;
  /** The rule's own judgement of this finding's severity (e.g. `error` when a NameError is swallowed
   *  into a verdict, `warning` otherwise). Used only when the user has not configured the rule's
   *  severity; a configured `warn`/`error` always wins. */
  severity?: 'error' | 'warning';
}

/** A note of the run (never a finding): `noteId` names a template of `meta.notes`. */
export interface NoteDescriptor {
  noteId: string;
  data?: Record<string, string | number>;
  at: ReportTarget;
  pointer?: string;
}

export interface RuleContext<M extends string = string, O extends object = RuleOptions> {
  readonly ruleId: string;
  /** `meta.defaultOptions` with the configured options merged over them. */
  readonly options: Readonly<O>;
  readonly project: Project;
  /** The unit being visited: a whole file, or code embedded in a JSON string. */
  readonly unit: FileUnit;
  /** Text that report offsets refer to (file text, or decoded embedded code). */
  readonly text: string;
  report(d: ReportDescriptor<M>): void;
  /** Record a note of the run (JSON `summary.notes`): not a finding, whatever the rule's severity. */
  note(d: NoteDescriptor): void;
}

export type PythonVisitor<M extends string> = (node: PyNode, ctx: RuleContext<M> & { python: PythonAnalysis }) => void;

/** Called for each node of a tree-sitter-python type (a PyNode of the analysis core's plain tree, which
 *  offers the web-tree-sitter Node API rules need); `'<type>:exit'` after its children. The keys are the
 *  grammar's concrete node types (generated: src/lang/python/node-types.ts), so a misspelt one fails to compile. */
export type PythonVisitors<M extends string> = {
  [K in PyNodeType | `${PyNodeType}:exit`]?: PythonVisitor<M>;
};

/** `ancestors`: the nodes from the Program (`ancestors[0]`) down to the node's parent. */
export type JsVisitor<M extends string, N extends JsNode = JsNode> = (node: N, ctx: RuleContext<M>, ancestors: readonly AnyNode[]) => void;
/** Keyed by ESTree node type (acorn's `AnyNode`); each visitor receives that node's own type. */
export type JavaScriptVisitors<M extends string> = {
  [K in AnyNode['type']]?: JsVisitor<M, Extract<AnyNode, { type: K }>>;
} & {
  [K in AnyNode['type'] as `${K}:exit`]?: JsVisitor<M, Extract<AnyNode, { type: K }>>;
};

/** Suite-layer visitors run once per task file: `task`, then `entry` for each verifier entry,
 *  then `embedded` for each code string (lambda/regex) of the task. Report offsets are file offsets
 *  (use a JsonValueRef's start/end); `pointer` defaults to the entry's (or task's) pointer. */
interface SuiteVisitors<M extends string> {
  task?(task: Task, ctx: RuleContext<M>): void;
  entry?(entry: VerifierEntry, ctx: RuleContext<M>): void;
  /** Code embedded in a JSON string (lambda or regex), once per string. Reports here use FILE offsets like the
   *  other suite visitors (map code offsets with `code.toFileOffset`); Python visitors that run on the
   *  embedded lambda itself report in code offsets and the engine maps them. */
  embedded?(code: EmbeddedCode, ctx: RuleContext<M>): void;
}

interface BundleVisitors<M extends string> {
  bundle?(bundle: BundleModel, ctx: RuleContext<M>): void;
  check?(check: BundleCheck, ctx: RuleContext<M>): void;
  toolRun?(run: BundleToolRun, ctx: RuleContext<M>): void;
}

export interface Visitors<M extends string = string> {
  suite?: SuiteVisitors<M>;
  /** Python visitors run over `.py` files and over Python lambdas embedded in task JSON
   *  (then `ctx.unit.embedded` is set and offsets are mapped back to the JSON file). */
  python?: PythonVisitors<M>;
  javascript?: JavaScriptVisitors<M>;
  bundle?: BundleVisitors<M>;
}

export interface Rule<M extends string = string, O extends object = RuleOptions> {
  meta: RuleMeta<M, O>;
  /** Read `ctx.options` here (typed) and close over them in the visitors. */
  create(ctx: RuleContext<M, O>): Visitors<M>;
}

export function defineRule<M extends string, O extends object = RuleOptions>(rule: Rule<M, O>): Rule<M, O> {
  return rule;
}
