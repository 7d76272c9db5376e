/**
 * `vaudit merge a.json b.json …`: merge JSON reports (the shards of a
 * `--shard i/n` CI matrix, or runs over separate suites) into one report, in
 * any output format. Shards of one run are checked for completeness (every
 * 1..n exactly once, same n, same vaudit version); a finding present in
 * several reports (same fingerprint) is kept once, preferring the copy with a
 * confirmation. Paths in the reports are relative to the folder vaudit ran in;
 * run merge from that folder. Exit codes as `check`: 0 clean, 1 errors, 2 usage.
 */
import path from 'node:path';
import { readFileSync } from 'node:fs';
import type { Confirmation, Finding, Position, RunNote } from '../core/types.js';
import { loadRules } from '../contract/registry.js';
import { compareFindings } from '../engine/lint.js';
import { writeAtomic } from '../core/write-atomic.js';
import type { ReportInput, RunRecordSummary } from '../report/model.js';
import { JSON_REPORT_VERSION } from '../report/json.js';
import { render } from './format.js';
import { EXIT_CLEAN, EXIT_FINDINGS, UsageError } from './exit-codes.js';
import { VERSION } from './version.js';

interface JsonFinding {
  ruleId: string;
  /** Absent in reports of vaudit versions before message ids were written. */
  messageId?: string;
  severity: 'error' | 'warning';
  message: string;
  parts?: { what: string; why: string; fix: string };
  file: string;
  range: { start: { line: number; column: number }; end: { line: number; column: number } };
  pointer?: string;
  related?: Array<{ file: string; line: number; column: number; message: string }>;
  fingerprint?: string;
  shape?: string;
  family?: string;
  confirmation?: Confirmation;
}

interface JsonReport {
  version: number;
  tool: { name: string; version: string };
  shard?: { index: number; total: number };
  summary: {
    files: number;
    tasks: number;
    verifierEntries: number;
    pythonFiles: number;
    bundles: number;
    suppressed: number;
    durationMs: number;
    pythonParser?: 'native' | 'wasm';
    scope?: ReportInput['stats']['scope'];
    suites?: ReportInput['stats']['suites'];
    baseline?: ReportInput['baseline'];
    notes?: Array<{ ruleId: string; file: string; line: number; column: number; pointer?: string; message: string }>;
  };
  findings: JsonFinding[];
  runs?: RunRecordSummary[];
}

function readReport(file: string, cwd: string): JsonReport {
  let doc: JsonReport;
  try {
    doc = JSON.parse(readFileSync(path.resolve(cwd, file), 'utf8')) as JsonReport;
  } catch (e) {
    throw new UsageError(`Cannot read report ${file}: ${(e as Error).message}`);
  }
  if (doc?.tool?.name !== 'vaudit' || !Array.isArray(doc.findings) || typeof doc.summary !== 'object') {
    throw new UsageError(`${file} is not a vaudit JSON report (write one with 'vaudit check --format json').`);
  }
  if (doc.version !== JSON_REPORT_VERSION) throw new UsageError(`${file}: JSON report version ${doc.version}; this vaudit reads version ${JSON_REPORT_VERSION}.`);
  return doc;
}

const pos = (p: { line: number; column: number }): Position => ({ line: p.line, column: p.column, offset: 0 });

function toFinding(j: JsonFinding, root: string): Finding {
  return {
    ruleId: j.ruleId,
    messageId: j.messageId ?? '',
    message: j.message,
    // reports written before every message had parts carry the message alone
    parts: j.parts ?? { what: j.message, why: '', fix: '' },
    severity: j.severity,
    file: path.resolve(root, j.file),
    range: { start: pos(j.range.start), end: pos(j.range.end) },
    ...(j.pointer !== undefined ? { pointer: j.pointer } : {}),
    ...(j.related?.length
      ? { related: j.related.map((r) => ({ file: path.resolve(root, r.file), message: r.message, range: { start: pos(r), end: pos(r) } })) }
      : {}),
    ...(j.fingerprint ? { fingerprint: j.fingerprint } : {}),
    ...(j.shape !== undefined ? { shape: j.shape } : {}),
    ...(j.confirmation ? { confirmation: j.confirmation } : {}),
  };
}

/** Position-based order (offsets are not in JSON reports). */
function byPlace(a: Finding, b: Finding): number {
  if (a.file !== b.file) return a.file < b.file ? -1 : 1;
  if (a.range.start.line !== b.range.start.line) return a.range.start.line - b.range.start.line;
  if (a.range.start.column !== b.range.start.column) return a.range.start.column - b.range.start.column;
  return compareFindings(a, b);
}

/** The notes of every report, once each (shards of one run repeat the static pass's notes). */
function mergedNotes(reports: readonly JsonReport[], root: string): { notes?: RunNote[] } {
  const byKey = new Map<string, RunNote>();
  for (const r of reports)
    for (const n of r.summary.notes ?? []) {
      const key = `${n.file}\0${n.line}\0${n.column}\0${n.ruleId}\0${n.message}`;
      if (!byKey.has(key)) byKey.set(key, { ruleId: n.ruleId, file: path.resolve(root, n.file), range: { start: pos(n), end: pos(n) }, ...(n.pointer !== undefined ? { pointer: n.pointer } : {}), message: n.message });
    }
  return byKey.size ? { notes: [...byKey.values()] } : {};
}

export interface MergeOptions {
  format: string;
  outputFile?: string;
}

export interface MergeIO {
  cwd: string;
  stdout: (s: string) => void;
  stderr: (s: string) => void;
}

export async function runMerge(files: string[], o: MergeOptions, io: MergeIO): Promise<number> {
  if (files.length === 0) throw new UsageError('vaudit merge needs at least one JSON report.');
  const reports = files.map((f) => readReport(f, io.cwd));
  const versions = new Set(reports.map((r) => r.tool.version));
  if (versions.size > 1) throw new UsageError(`The reports come from different vaudit versions (${[...versions].join(', ')}); re-run them with one version.`);

  // Shards of one run: all or none carry shard info; every index exactly once.
  const sharded = reports.filter((r) => r.shard);
  if (sharded.length > 0) {
    if (sharded.length !== reports.length) throw new UsageError('Some reports are shards (--shard) and some are not; merge the shards of one run together.');
    const total = reports[0]!.shard!.total;
    if (reports.some((r) => r.shard!.total !== total)) throw new UsageError(`The shards disagree on the shard count (${[...new Set(reports.map((r) => r.shard!.total))].join(' vs ')}).`);
    const seen = new Map<number, string>();
    reports.forEach((r, i) => {
      const prev = seen.get(r.shard!.index);
      if (prev) throw new UsageError(`Shard ${r.shard!.index}/${total} appears twice (${prev} and ${files[i]}).`);
      seen.set(r.shard!.index, files[i]!);
    });
    const missing = Array.from({ length: total }, (_, i) => i + 1).filter((i) => !seen.has(i));
    if (missing.length) throw new UsageError(`Missing shard${missing.length > 1 ? 's' : ''} ${missing.map((i) => `${i}/${total}`).join(', ')}: the merged report would be incomplete.`);
  }

  const byKey = new Map<string, Finding>();
  const families: Record<string, string> = {};
  let unkeyed = 0;
  for (const r of reports) {
    for (const j of r.findings) {
      const f = toFinding(j, io.cwd);
      if (j.family) families[f.file] = j.family;
      const key = f.fingerprint ?? `#${unkeyed++}`;
      const prev = byKey.get(key);
      if (!prev || (!prev.confirmation && f.confirmation)) byKey.set(key, f);
    }
  }
  const findings = [...byKey.values()].sort(byPlace);

  // Shards ran the same static pass: their scope is one run's scope. Separate runs add up.
  const s0 = reports[0]!.summary;
  const sum = (k: 'files' | 'tasks' | 'verifierEntries' | 'pythonFiles' | 'bundles' | 'suppressed') =>
    sharded.length ? s0[k] : reports.reduce((n, r) => n + (r.summary[k] ?? 0), 0);
  const runs = reports.some((r) => r.runs) ? reports.flatMap((r) => r.runs ?? []) : undefined;
  const input: ReportInput = {
    findings,
    root: io.cwd,
    stats: {
      files: sum('files'),
      tasks: sum('tasks'),
      entries: sum('verifierEntries'),
      pythonFiles: sum('pythonFiles'),
      bundles: sum('bundles'),
      durationMs: sharded.length ? Math.max(...reports.map((r) => r.summary.durationMs)) : reports.reduce((n, r) => n + r.summary.durationMs, 0),
      ...(s0.pythonParser ? { pythonParser: s0.pythonParser } : {}),
      // one static pass: its scope and suites (separate runs have their own, so none is claimed)
      ...(sharded.length && s0.scope ? { scope: s0.scope } : {}),
      ...(sharded.length && s0.suites ? { suites: s0.suites } : {}),
      ...mergedNotes(reports, io.cwd),
    },
    rules: await loadRules(),
    suppressedCount: sum('suppressed'),
    runs,
    toolVersion: reports[0]!.tool.version ?? VERSION,
    color: false,
    families,
    ...(sharded.length && s0.baseline ? { baseline: s0.baseline } : {}),
    ...(o.outputFile ? { linkBase: path.dirname(path.resolve(io.cwd, o.outputFile)) } : {}),
  };
  const text = await render(o.format, input);
  if (o.outputFile) writeAtomic(path.resolve(io.cwd, o.outputFile), text);
  else io.stdout(text);
  io.stderr(`Merged ${reports.length} report${reports.length === 1 ? '' : 's'}${sharded.length ? ` (${sharded.length} shards)` : ''}: ${findings.length} finding${findings.length === 1 ? '' : 's'}.\n`);
  return findings.some((f) => f.severity === 'error') ? EXIT_FINDINGS : EXIT_CLEAN;
}
