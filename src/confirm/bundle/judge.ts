/** Helpers shared by the bundle oracles' judgements. */
import type { Confirmation } from '../../core/types.js';
import type { PreparedBundle } from './load.js';
import type { BundleCase, BundleCaseResult, BundleOracleContext, CaseInput, RecordedInput, RecordedRun, ValueSummary } from './types.js';

const HOST_NON_RESULTS = new Set(['timeout', 'crash', 'sandbox', 'verifierUnavailable']);

function isHostNonResult(r: BundleCaseResult | undefined): boolean {
  return !!r && HOST_NON_RESULTS.has(r.status);
}

/** The cases that ran (evaluate was called and settled, threw or hit its deadline). */
export function ran(r: BundleCaseResult | undefined): r is BundleCaseResult {
  return !!r && (r.status === 'returned' || r.status === 'threw' || r.status === 'deadline');
}

/**
 * When no case ran to a result: the host's non-result passes through as is; evaluate hitting its bound
 * on every case is `timeout`; a bundle that cannot be loaded, or a check the loaded model does not
 * have, is `unsupported`.
 */
export function noCaseRan(cases: BundleCase[], results: ReadonlyMap<string, BundleCaseResult>): Confirmation | undefined {
  const rs = cases.map((c) => results.get(c.id));
  if (rs.some((r) => r?.status === 'returned' || r?.status === 'threw')) return undefined;
  // evaluate never settled within its bound on any case: a timeout, like the host's.
  const late = rs.find((r) => r?.status === 'deadline');
  if (late) return { status: 'timeout', runId: late.runId, detail: late.detail };
  const nr = rs.find(isHostNonResult);
  if (nr) return { status: nr.status as Confirmation['status'], runId: nr.runId, detail: nr.detail };
  const err = rs.find((r) => r?.status === 'error');
  if (err) return { status: err.stage === 'harness' ? 'crash' : 'unsupported', runId: err.runId, detail: err.detail };
  return { status: 'crash', detail: 'no control case answered' };
}

export function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

export function siteLine(b: PreparedBundle, site: string | null | undefined): string {
  if (!site) return 'an uninstrumented call site';
  const start = Number(site.split(':')[0]);
  return `line ${lineOf(b.text, start)}`;
}

export function showValue(v: ValueSummary | undefined): string {
  if (!v) return 'nothing';
  switch (v.kind) {
    case 'verdict':
      return `{ verdict: '${v.verdict}'${v.detail ? `, detail: ${JSON.stringify(v.detail)}` : ''} }`;
    case 'nonresult':
      return `the ${v.outcome} non-result${v.byHost ? ' the port answered' : ' (an object the host never created)'}`;
    case 'executed-run':
      return 'a run result';
    default:
      return v.preview ?? v.kind;
  }
}

export function showInput(i: RecordedInput): string {
  const what = i.role === 'stdin' ? 'stdin' : i.role === 'files' ? '`files`' : `file \`${i.key}\``;
  const size = i.bytes !== undefined ? `${i.bytes} bytes` : `a ${i.type ?? 'non-string'} value`;
  return `${what} = ${i.preview ?? ''} (${size}, origin ${i.origin})`;
}

export function showRun(b: PreparedBundle, r: RecordedRun): string {
  return `run #${r.seq} of \`${r.toolId ?? '?'}\` at ${siteLine(b, r.site)}`;
}

export function caseLabel(c: BundleCase): string {
  return `check \`${c.checkId}\` on the ${c.input.label}; the tool answers ${c.answerLabel}`;
}

/** Runs made at `site` (or every run, when the site was not instrumented). */
export function runsAt(r: BundleCaseResult, site: string, instrumented: boolean): RecordedRun[] {
  return instrumented ? r.runs.filter((x) => x.site === site) : r.runs;
}

function checkOf(b: PreparedBundle, control: Record<string, unknown>): { id: string; index: number } | undefined {
  const index = typeof control.checkIndex === 'number' ? control.checkIndex : -1;
  const id = typeof control.checkId === 'string' && control.checkId ? control.checkId : b.model?.checks[index]?.id;
  if (!id) return undefined;
  return { id, index };
}

export function spanKey(v: unknown): string | undefined {
  if (!v || typeof v !== 'object') return undefined;
  const { start, end } = v as { start?: unknown; end?: unknown };
  return typeof start === 'number' && typeof end === 'number' ? `${start}:${end}` : undefined;
}

/** How the cases ended, for an `unreached` detail ("4 returned; 2 threw (TypeError: …)"). */
export function endings(cases: BundleCase[], results: ReadonlyMap<string, BundleCaseResult>): string {
  const counts = new Map<string, number>();
  let example: string | undefined;
  for (const c of cases) {
    const r = results.get(c.id);
    const s = r?.status ?? 'no answer';
    counts.set(s, (counts.get(s) ?? 0) + 1);
    if (r?.status === 'threw' && !example) example = `${r.error?.type}: ${r.error?.message}`;
    if (r?.status === 'error' && !example) example = r.detail;
  }
  return `${cases.length} case(s): ${[...counts].map(([s, n]) => `${n} ${s}`).join(', ')}${example ? ` (${example})` : ''}`;
}

/** What every bundle oracle needs first: the check the finding names, the inputs, and an instrumented site. */
export interface OracleSubject {
  check: { id: string; index: number };
  inputs: CaseInput[];
  /** `start:end` of the control's span (`at` or `run`), and whether the loader instrumented it. */
  site: string;
  instrumented: boolean;
}

export function oracleSubject(ctx: BundleOracleContext, span: 'at' | 'run'): OracleSubject | Confirmation {
  const check = checkOf(ctx.bundle, ctx.control);
  if (!check) return { status: 'unsupported', detail: 'the finding names no check of the bundle' };
  if (!Array.isArray(ctx.inputs)) return { status: 'unsupported', detail: ctx.inputs.error };
  const site = spanKey(ctx.control[span]) ?? '';
  return { check, inputs: ctx.inputs, site, instrumented: ctx.bundle.instrumented.has(site) };
}
