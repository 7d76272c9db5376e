/**
 * What every oracle shares: the plan/judge contract, witnesses for Python verifier functions,
 * and the rule that a non-result is never turned into confirmed or refuted.
 *
 * Python-function oracles accept these common `finding.control` fields (rules fill what they know):
 *   file?: string        absolute path of the verifier module (default: finding.file)
 *   line?: number        1-based flagged line (default: finding.range.start.line)
 *   qualname?: string    function holding the flagged line (default: the innermost function at `line`)
 *   witnesses?: Witness[]  explicit witness inputs; when absent they come from the suite's entries
 *                        that route to the function (VerifierEntry.binding), with the optional fields
 *                        the function reads toggled, else are synthesized from the keys it reads.
 *   selfAttrs?: Record<string, Spec>  state doubles for `self` (e.g. {"manager": {"$double": "object", …}})
 */
import type { Confirmation, ControlCaseRequest, Finding } from '../../engine/types.js';
import type { Project } from '../../engine/project.js';
import type { CaseResult, PyCallCase, PyCase, Spec } from '../harness.js';
import { slicePython, type Slice } from '../slice-python.js';

export interface Witness {
  /** Short description shown in reports. */
  label?: string;
  args: Spec[];
  kwargs?: Record<string, Spec>;
  /** Overrides `selfAttrs` for this witness. */
  self?: Spec;
  stubTools?: Record<string, string>;
  servers?: PyCallCase['servers'];
}

export interface OracleContext {
  finding: Finding;
  control: ControlCaseRequest;
  project: Project | undefined;
  root: string;
  /** Per-case bound (ms). */
  timeoutMs: number;
}

export interface Plan {
  cases: PyCase[];
  judge(results: ReadonlyMap<string, CaseResult>): Confirmation;
}

export interface Oracle {
  id: string;
  plan(ctx: OracleContext): Promise<Plan | Confirmation>;
}

export const NON_RESULTS = new Set(['timeout', 'crash', 'sandbox', 'verifierUnavailable']);

/** The non-result of a case, as a confirmation (harness-level statuses mapped to outcomes). */
export function nonResultOf(r: CaseResult | undefined, what = 'control case'): Confirmation | undefined {
  if (!r) return { status: 'crash', detail: `${what}: no answer` };
  if (NON_RESULTS.has(r.status)) return { status: r.status as Confirmation['status'], runId: r.runId, detail: r.detail };
  if (r.status === 'unavailable') return { status: 'verifierUnavailable', runId: r.runId, detail: r.detail };
  if (r.status === 'error') return { status: 'crash', runId: r.runId, detail: `${what} could not be set up: ${r.detail ?? ''}`.trim() };
  return undefined;
}

/** The first non-result among the cases, if any. */
export function firstNonResult(results: Array<CaseResult | undefined>, opts: { deadlineIsTimeout?: boolean } = {}): Confirmation | undefined {
  for (const r of results) {
    const nr = nonResultOf(r);
    if (nr) return nr;
    if (opts.deadlineIsTimeout !== false && r?.status === 'deadline') return { status: 'timeout', runId: r.runId, detail: r.detail };
  }
  return undefined;
}

export function truthy(v: unknown): boolean {
  if (v === null || v === undefined || v === false || v === 0 || v === '') return false;
  if (Array.isArray(v)) return v.length > 0;
  if (typeof v === 'object') {
    const o = v as Record<string, unknown>;
    if ('$set' in o) return (o.$set as unknown[]).length > 0;
    if ('$repr' in o) return true;
    return Object.keys(o).length > 0;
  }
  return true;
}

export function show(v: unknown): string {
  const s = JSON.stringify(v);
  return s === undefined ? String(v) : s.length > 160 ? s.slice(0, 157) + '…' : s;
}

export function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}
export function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

export interface Target {
  file: string;
  line: number;
  slice: Slice;
  /** Parameters after `self` for methods. */
  params: string[];
}

/** Resolve and slice the function a Python-layer finding is about. */
export async function pythonTarget(ctx: OracleContext): Promise<Target | Confirmation> {
  const file = str(ctx.control.file) ?? ctx.finding.file;
  const line = num(ctx.control.line) ?? ctx.finding.range.start.line;
  let slice: Slice | undefined;
  try {
    slice = await slicePython(file, { qualname: str(ctx.control.qualname), line });
  } catch (e) {
    return { status: 'unsupported', detail: `the verifier module could not be read or sliced: ${(e as Error).message}` };
  }
  if (!slice) return { status: 'unsupported', detail: `no function encloses line ${line} of ${file}` };
  const params = slice.info.params.filter((p) => !p.startsWith('*'));
  return { file, line, slice, params: slice.info.isMethod ? params.slice(1) : params };
}

export function callCase(t: Target, id: string, w: Witness, ctx: OracleContext, extra: Partial<PyCallCase> = {}): PyCallCase {
  const selfSpec = w.self ?? { $double: 'self', attrs: (ctx.control.selfAttrs as Record<string, Spec> | undefined) ?? {} };
  return {
    id,
    modules: t.slice.modules,
    entry: { module: t.slice.entryModule, qualname: t.slice.qualname },
    ...(t.slice.info.isMethod ? { self: selfSpec } : {}),
    args: w.args,
    ...(w.kwargs ? { kwargs: w.kwargs } : {}),
    ...(w.stubTools ? { stubTools: w.stubTools } : {}),
    ...(w.servers ? { servers: w.servers } : {}),
    traceFiles: t.slice.traceFiles,
    timeoutMs: ctx.timeoutMs,
    ...extra,
  };
}

/** Entry objects of the suites that route to this function (adapter binding). */
export function boundEntries(project: Project | undefined, file: string, qualname: string): Array<Record<string, unknown>> {
  const out: Array<Record<string, unknown>> = [];
  for (const suite of project?.suites ?? []) {
    for (const task of suite.tasks) {
      for (const e of task.entries) {
        if (e.binding && e.binding.file === file && e.binding.qualname === qualname && e.ref.value && typeof e.ref.value === 'object') {
          out.push(e.ref.value as Record<string, unknown>);
        }
      }
    }
  }
  return out;
}

function isLambda(v: unknown): v is string {
  return typeof v === 'string' && /^\s*lambda\b/.test(v);
}

/** Item (entry-like dict) witnesses: bound entries as is, then with the optional fields toggled. */
export function itemWitnesses(t: Target, ctx: OracleContext, limit = 12): Array<Record<string, unknown>> {
  const items: Array<Record<string, unknown>> = [];
  const seen = new Set<string>();
  const push = (o: Record<string, unknown>) => {
    const k = JSON.stringify(o);
    if (!seen.has(k) && items.length < limit) {
      seen.add(k);
      items.push(o);
    }
  };
  const firstParam = t.params[0];
  const keys = firstParam ? (t.slice.info.reads[firstParam]?.keys ?? []) : [];
  const entries = boundEntries(ctx.project, t.file, t.slice.qualname);
  const bases = entries.length ? entries : [Object.fromEntries(keys.map((k) => [k, k === 'value' ? 'expected' : `${k}-x`]))];
  for (const b of bases) push(b);
  for (const b of bases) {
    for (const k of new Set([...keys, 'value', 'find', 'key'])) {
      if (!keys.includes(k) && !(k in b)) continue;
      if (b[k] !== null) push({ ...b, [k]: null });
      if (k in b) {
        const { [k]: _drop, ...rest } = b;
        push(rest);
      } else push({ ...b, [k]: k === 'find' ? 'lambda key, value: True' : `${k}-x` });
    }
  }
  return items;
}

/** A state mapping in which the item's key is present (and a transformed sibling, for lambdas). */
export function presentState(item: Record<string, unknown>, value: unknown = 'present'): Record<string, unknown> {
  const st: Record<string, unknown> = {};
  const key = item.key;
  if (typeof key === 'string' && !isLambda(key)) st[key] = value;
  const find = item.find;
  if (isLambda(find) || isLambda(key)) {
    for (const c of stringConstants(`${String(find ?? '')} ${String(key ?? '')}`)) {
      st[`obj.(1,)${c}`] = value;
      st[c] = value;
    }
  }
  if (Object.keys(st).length === 0) st['state.key'] = value;
  return st;
}

export function stringConstants(code: string): string[] {
  const out: string[] = [];
  const re = /(['"])((?:\\.|(?!\1).)*)\1/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(code))) if (m[2] && m[2].length > 1 && !out.includes(m[2])) out.push(m[2]);
  return out;
}

/** Witnesses for a (item, state) shaped function: every item with an empty and a present state. */
export function defaultWitnesses(t: Target, ctx: OracleContext): Witness[] {
  const explicit = ctx.control.witnesses as Witness[] | undefined;
  if (Array.isArray(explicit) && explicit.length) return explicit.map((w) => ({ ...w, label: w.label ?? `arguments ${show(w.args)}` }));
  const items = itemWitnesses(t, ctx);
  const out: Witness[] = [];
  for (const it of items) {
    if (t.params.length >= 2) {
      const rest = t.params.slice(2).map(() => null);
      out.push({ label: `${show(it)} with an empty state`, args: [it, {}, ...rest] });
      out.push({ label: `${show(it)} with the item present`, args: [it, presentState(it), ...rest] });
    } else if (t.params.length === 1) out.push({ label: show(it), args: [it] });
    else out.push({ label: 'no arguments', args: [] });
  }
  return out;
}

export function executedLine(r: CaseResult | undefined, file: string, line: number): boolean {
  return !!r && (r.lines[file] ?? []).includes(line);
}

export interface EmbeddedFacts {
  code: string;
  language: 'python' | 'regex';
  role: string;
  /** The entry object the code belongs to (for its expected `value`). */
  entry?: Record<string, unknown>;
}

/** The code embedded in a JSON string that a JSON-file finding points into (via the project's suites),
 *  or the code the rule put in `control.code` / `control.pattern`. */
export function embeddedAt(ctx: OracleContext): EmbeddedFacts | undefined {
  const explicit = str(ctx.control.code) ?? str(ctx.control.pattern);
  if (explicit !== undefined)
    return { code: explicit, language: str(ctx.control.pattern) !== undefined && str(ctx.control.code) === undefined ? 'regex' : 'python', role: str(ctx.control.role) ?? '' };
  const off = ctx.finding.range.start.offset;
  for (const suite of ctx.project?.suites ?? []) {
    for (const task of suite.tasks) {
      if (task.file.path !== ctx.finding.file) continue;
      for (const e of task.entries) {
        for (const code of e.embedded) {
          if (code.ref.start <= off && off < code.ref.end) {
            return { code: code.code, language: code.language, role: code.role, entry: e.ref.value as Record<string, unknown> };
          }
        }
      }
    }
  }
  return undefined;
}

/** Positional parameter names of a lambda's source text (best effort, for witness shapes). */
export function lambdaParams(code: string): string[] {
  const m = /^\s*\(?\s*lambda\s*([^:]*):/.exec(code);
  if (!m) return [];
  return m[1]!
    .split(',')
    .map((s) => s.trim().replace(/=.*$/, '').trim())
    .filter((s) => s && !s.startsWith('*'));
}
