/**
 * Shapes shared by the bundle confirmation stage (src/confirm/bundle/*) and the bundle oracles
 * (rules/{non-leaf-tool-input,unawaited-tool-run,ungrounded-pass,nonresult-as-verdict}/oracle.ts).
 */
import type { Confirmation, ControlCaseRequest, Finding } from '../../core/types.js';
import type { Project } from '../../contract/project.js';
import type { Outcome } from '../../host/host.js';
import type { PreparedBundle } from './load.js';

export type NonResultOutcome = Exclude<Outcome, 'executed'>;

/** What the recording port answers to a run: the tool ran to exit, or a forced non-result. */
export type ScriptedAnswer =
  | { outcome: 'executed'; exitCode: number; stdout?: string; stderr?: string; /** stdout = the run's stdin (a `cat`-like tool). */ echoStdin?: boolean }
  | { outcome: NonResultOutcome; detail?: string };

export type CaseKind = 'valid' | 'wrong-but-valid' | 'malformed' | 'equivalent-valid' | 'generated';

/** An input of a bundle: the submission's files and its public input (declared or generated). */
export interface CaseInput {
  id: string;
  kind: CaseKind;
  source: 'declared' | 'generated';
  /** Short description for reports. */
  label: string;
  /** File name → content (may hold files the projection does not declare). */
  artifact: Record<string, string>;
  /** Field → value (may hold fields the projection does not declare). */
  publicInput: Record<string, unknown>;
  /** What the native tool answers on this input (declared cases): one answer, one per call, or per check id. */
  tool?: ScriptedAnswer | ScriptedAnswer[] | Record<string, ScriptedAnswer | ScriptedAnswer[]>;
  /** Expected verdict per check id (declared cases). */
  expect?: Record<string, 'pass' | 'fail'>;
}

/** One control case: one check of one bundle on one input with one answer script. */
export interface BundleCase {
  id: string;
  /** Absolute path of the bundle. */
  file: string;
  checkId: string;
  checkIndex: number;
  input: CaseInput;
  /** `atSite` wins for runs made at that call site, then `perCall` (by call order), then `default`. */
  answers: { default: ScriptedAnswer; perCall?: ScriptedAnswer[]; atSite?: { site: string; answer: ScriptedAnswer } };
  /** "exit 0", "forced timeout"… */
  answerLabel: string;
  /** Bound for evaluate to settle (ms). */
  deadlineMs: number;
  /** Rule ids that asked for this case (run records). */
  ruleIds: string[];
}

export interface RecordedInput {
  role: 'file' | 'stdin' | 'files';
  key?: string;
  /** `artifact:<name>`, `publicInput:<path>`, `json:<projection path>` or `authored:derived`. */
  origin: string;
  bytes?: number;
  type?: string;
  preview?: string;
}

export interface RecordedRun {
  seq: number;
  /** Instrumented call site (`start:end` in the bundle file), null when the call was not instrumented. */
  site: string | null;
  toolId?: string;
  checkId?: string;
  checkIdMismatch?: boolean;
  args?: string[];
  inputs?: RecordedInput[];
  answer?: { outcome: string; exitCode?: number };
  state: 'pending' | 'resolved' | 'resolved-after-return' | 'rejected';
  rejected?: string;
  calledAt: number;
  resolvedAt?: number;
}

export interface ValueSummary {
  kind: 'verdict' | 'nonresult' | 'executed-run' | 'promise' | 'undefined' | 'other';
  verdict?: string;
  detail?: string;
  outcome?: string;
  /** For a returned run result: the very object the port answered with. */
  byHost?: boolean;
  preview?: string;
}

interface RetHit {
  site: string;
  value: ValueSummary;
  /** Runs that had completed (executed and delivered) when this return ran. */
  completedRuns: number;
  at: number;
}

type CaseStatus = 'returned' | 'threw' | 'deadline' | 'error';

export interface BundleCaseResult {
  id: string;
  status: CaseStatus | NonResultOutcome;
  /** For `error`: where it failed (load, check, harness). */
  stage?: 'load' | 'check' | 'harness';
  result?: ValueSummary;
  error?: { type: string; message: string };
  runs: RecordedRun[];
  rets: RetHit[];
  pendingAtReturn: number[];
  ms?: number;
  detail?: string;
  /** The host run record of the Node child that produced this answer. */
  runId: string;
}

export interface BundleOracleContext {
  finding: Finding;
  control: ControlCaseRequest;
  project: Project | undefined;
  bundle: PreparedBundle;
  /** Inputs for the bundle: declared beside it, else generated from its projections. */
  inputs: CaseInput[] | { error: string };
  timeoutMs: number;
}

export interface BundlePlan {
  cases: BundleCase[];
  judge(results: ReadonlyMap<string, BundleCaseResult>): Confirmation;
}

export interface BundleOracle {
  id: string;
  layer: 'bundle';
  plan(ctx: BundleOracleContext): BundlePlan | Confirmation;
}
