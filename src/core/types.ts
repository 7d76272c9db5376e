/**
 * Core data types shared by the engine, the rules, the confirm stage and the
 * reporters. Data flows one way: files → parse → analysis → rules → findings
 * → (confirm) → report.
 */

/** Languages vaudit classifies files into. `bundle` is a JS/TS file that defines a correctness model. */
export type Language = 'json' | 'python' | 'javascript' | 'typescript';

/** Layers a rule can subscribe to. */
export type Layer = 'suite' | 'python' | 'javascript' | 'bundle';

export type SeveritySetting = 'off' | 'warn' | 'error';
export type Severity = 'error' | 'warning';

/** A point in a file: 1-based line, 1-based column in UTF-16 code units, 0-based UTF-16 offset. */
export interface Position {
  line: number;
  column: number;
  offset: number;
}

/** A half-open range [start, end). */
export interface Range {
  start: Position;
  end: Position;
}

export interface RelatedLocation {
  /** Absolute path. */
  file: string;
  range: Range;
  message: string;
}

/**
 * A note of the run: something a rule could not decide about a place within its deterministic budget
 * (a regex too large to analyse). Not a finding: it never changes the exit code, a baseline or a gate;
 * the JSON report lists it under `summary.notes`, stylish under the summary.
 */
export interface RunNote {
  ruleId: string;
  /** Absolute path. */
  file: string;
  range: Range;
  pointer?: string;
  message: string;
}

export type ConfirmationStatus =
  | 'confirmed'
  | 'refuted'
  | 'unreached'
  | 'verifierUnavailable'
  | 'timeout'
  | 'crash'
  | 'sandbox'
  | 'unsupported';

/** The result of a host-executed control case for one finding. */
export interface Confirmation {
  status: ConfirmationStatus;
  /** Short human description of the witness input. */
  witness?: string;
  expected?: string;
  observed?: string;
  /** Id of the run record (see src/confirm) that produced this status. */
  runId?: string;
  detail?: string;
}

/**
 * What a rule hands to the confirm stage: which oracle to use and the
 * facts it needs. Opaque to the engine; read by src/confirm.
 */
export interface ControlCaseRequest {
  oracle: string;
  [key: string]: unknown;
}

/** A message in three parts (Biome's pillars): what is wrong, why it makes the benchmark lie, what to do.
 *  A built-in finding may leave `why` empty when its `what` already says it. */
export interface MessageParts {
  what: string;
  why: string;
  fix: string;
}

/** The one-line message of a finding: its parts joined by spaces. */
export function joinParts(p: MessageParts): string {
  return [p.what, p.why, p.fix].filter(Boolean).join(' ');
}

/** A replacement of the text [start, end) (UTF-16 offsets into the file's text) by `newText`. */
export interface OffsetEdit {
  start: number;
  end: number;
  newText: string;
}

/** A finding's fix: what it does, and its edits of the finding's file (not overlapping). */
export interface Autofix {
  title: string;
  edits: OffsetEdit[];
}

export interface Finding {
  ruleId: string;
  messageId: string;
  /** The parts joined by spaces (`joinParts`). */
  message: string;
  /** What is wrong, why it makes the benchmark lie, what to do. */
  parts: MessageParts;
  severity: Severity;
  /** Absolute path of the file the finding is in. */
  file: string;
  range: Range;
  /** JSON pointer of the value the finding is about (JSON files only). */
  pointer?: string;
  related?: RelatedLocation[];
  /** The defect this finding is one site of (`ReportDescriptor.group`): the engine reports a group once. */
  group?: string;
  /** Message data (placeholders). */
  data?: Record<string, string | number>;
  /** Filled by the confirm stage. */
  confirmation?: Confirmation;
  /** Present when the rule supports confirmation for this finding. */
  control?: ControlCaseRequest;
  /** False when the finding is not on a verifier path (shown only with `--scope all`). */
  verifierPath?: boolean;
  /** Stable fingerprint (rule, relative file, pointer or normalized line text). */
  fingerprint?: string;
  /** A safe, mechanical fix (`vaudit check --fix`, the editor's quick fix); absent where a fix is not certain. */
  autofix?: Autofix;
  /** The flagged code with runs of whitespace as one space (at most SHAPE_MAX characters): findings with the
   *  same rule, message and shape in many files are one pattern (src/report/groups.ts). */
  shape?: string;
}

/** Longest `Finding.shape` kept; a longer range is cut here and ends with `…`. */
export const SHAPE_MAX = 300;

/** `code` as a finding's shape: whitespace runs as one space, none inside brackets' edges, no trailing
 *  comma before a closing bracket (a call split over lines is the same shape as on one line), trimmed,
 *  cut at SHAPE_MAX (`cut`: `code` is already a prefix of the flagged code). */
export function codeShape(code: string, cut = false): string {
  const s = code
    .replace(/\s+/g, ' ')
    .replace(/([([{]) /g, '$1')
    .replace(/,? ([)\]}])/g, '$1')
    .trim();
  return s.length > SHAPE_MAX || cut ? `${s.slice(0, SHAPE_MAX - 1)}…` : s;
}

/** A file-level problem (unparseable, unreadable, binary…): reported as a finding of a built-in rule. */
export const PARSE_ERROR_RULE = 'parse-error';
