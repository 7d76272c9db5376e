/**
 * Public surface of the correctness-model bundle model (owned by src/lang/ts).
 * Built once per bundle file by `buildBundleModel`; the bundle rules are small
 * predicates over it. All `start`/`end` are UTF-16 offsets into the file text
 * (half-open), ready for `ctx.report({ at: { start, end } })`.
 */
import type { ts } from 'ts-morph';

export interface Span {
  start: number;
  end: number;
}

/** A value that may be known statically (a string literal, a `const` bound to one, a literal argument of a helper). */
export interface StaticValue extends Span {
  /** The string value when statically known. */
  value?: string;
  /** Source text of the expression. */
  text: string;
}

/**
 * Where the bytes of a tool input come from.
 * - `artifact-leaf`: `artifact.files['<declared name>']` (or a dynamic key over the files, or the whole files map);
 * - `public-input-leaf`: `publicInput.<declared field>` or a value inside it;
 * - `json-of-leaf`: `JSON.stringify` of a projection (or of a value inside one);
 * - `derived`: authored bytes (literal, template, concatenation, fs read, import, helper-built, transformed leaf,
 *   undeclared field…) — what the host records as `authored:derived`;
 * - `unknown`: the analysis could not follow the value (not reported).
 */
type OriginKind = 'artifact-leaf' | 'public-input-leaf' | 'json-of-leaf' | 'derived' | 'unknown';

export type DerivedHow =
  | 'literal'
  | 'template'
  | 'concatenation'
  | 'fs-read'
  | 'import'
  | 'helper'
  | 'call'
  | 'transformed'
  | 'undeclared-leaf'
  | 'non-string-projection'
  | 'environment'
  | 'json-of-derived';

export interface Origin {
  kind: OriginKind;
  how?: DerivedHow;
  /** Human description, e.g. "artifact.files['main.c']" or "a string literal `'#include <x.h>'`". */
  description: string;
  /** Where the authored value is written (for `derived`), when in this file. */
  at?: Span;
}

export interface ToolInput extends Span {
  role: 'file' | 'stdin';
  /** The file name for `files` entries, when static. */
  key?: string;
  /** Source text of the value expression. */
  text: string;
  origin: Origin;
}

export type Settlement = 'awaited' | 'returned' | 'unawaited' | 'unknown';

export interface RunResultUse {
  /** How the resolved result is kept: bound to a name, read inline, dropped, or handed on. */
  binding: 'bound' | 'inline' | 'discarded' | 'escapes' | 'none';
  /** Name it is bound to, when bound. */
  name?: string;
  readsOutcome: boolean;
  readsExitCode: boolean;
  readsOutput: boolean;
}

/** A frame of the call chain from `evaluate` to a run: a helper call or a callback. */
export interface ChainStep extends Span {
  kind: 'helper' | 'callback';
  /** Helper name or the method taking the callback (`map`, `forEach`…). */
  name: string;
}

export interface BundleToolRun extends Span {
  /** Index of the check (in `BundleModel.checks`) whose evaluate reaches this run. */
  checkIndex: number;
  /** Id of that check. */
  checkId?: string;
  /** The `toolId` and `checkId` request members. */
  toolId?: StaticValue;
  checkIdArg?: StaticValue;
  /** The request argument (object literal or expression). */
  request?: Span;
  /** The request was followed to an object literal (so missing members are really missing). */
  requestResolved: boolean;
  inputs: ToolInput[];
  /** Whether the run's promise is awaited before `evaluate` returns. */
  settlement: Settlement;
  /** Why it is unawaited (e.g. "its promise is dropped", "`forEach` does not wait for async callbacks"). */
  settlementReason?: string;
  result: RunResultUse;
  /** Helper/callback chain from evaluate to the run (empty when the run is written in evaluate itself). */
  via: ChainStep[];
  /** Offset in evaluate's own code that leads to the run (the run itself, or the first helper/callback call). */
  anchor: number;
}

/** A `return` of a verdict object, with the path facts the bundle rules need. */
export interface VerdictReturn extends Span {
  /** The returned verdict may be `pass`. */
  mayPass: boolean;
  /** No completed tool run precedes this return on some path. */
  ungrounded?: { reason: 'no-run' | 'loop-may-be-empty' | 'catch' | 'branch'; detail: string };
  /** A non-result of a run can reach this return and is turned into a verdict. */
  fromNonResult?: { runName: string; run: Span; explicit: boolean; detail: string };
  /** The function holding the return ('evaluate' or a helper name). */
  inFunction: string;
}

export interface BundleCheck extends Span {
  /** Position in `BundleModel.checks` (and in the model's `checks` array when written inline). */
  index: number;
  id?: string;
  idAt?: Span;
  kind?: 'external' | 'authored';
  kindAt?: Span;
  requiredTools: string[];
  requiredToolsAt?: Span;
  /** The evaluate function (raw TypeScript node; for the confirm stage and analyses). */
  evaluate?: Span & { node: ts.Node };
  toolRuns: BundleToolRun[];
  verdictReturns: VerdictReturn[];
}

export interface BundleImport extends Span {
  specifier: string;
  kind: 'import' | 'export-from' | 'import-equals' | 'require' | 'dynamic-import';
}

export interface BundleModel {
  /** Absolute path. */
  file: string;
  id?: string;
  /** The `defineCorrectnessModel(...)` call (or the file start when none). */
  start: number;
  end: number;
  declaredFiles: string[];
  declaredFields: string[];
  checks: BundleCheck[];
  imports: BundleImport[];
  /** Time spent building the model (ms). */
  analysisMs: number;
}
