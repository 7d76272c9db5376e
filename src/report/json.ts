/**
 * The JSON report, shape version 1 (documented in README "JSON output"):
 * { version, tool, summary, findings[], runs[]? }. Paths are relative to the root.
 */
import type { ReportInput } from './model.js';
import { countBySeverity, relPath } from './model.js';
import { isolationSummary } from './isolation.js';

export const JSON_REPORT_VERSION = 1;

function toJsonReport(input: ReportInput) {
  const sev = countBySeverity(input.findings);
  const confirmations: Record<string, number> = {};
  for (const f of input.findings) if (f.confirmation) confirmations[f.confirmation.status] = (confirmations[f.confirmation.status] ?? 0) + 1;
  const isolation = isolationSummary(input);
  return {
    version: JSON_REPORT_VERSION,
    tool: { name: 'vaudit', version: input.toolVersion },
    ...(input.shard ? { shard: input.shard } : {}),
    summary: {
      files: input.stats.files,
      tasks: input.stats.tasks,
      verifierEntries: input.stats.entries,
      pythonFiles: input.stats.pythonFiles,
      bundles: input.stats.bundles,
      findings: { total: sev.error + sev.warning, error: sev.error, warning: sev.warning },
      suppressed: input.suppressedCount,
      confirmations,
      ...(isolation ? { isolation } : {}),
      durationMs: Math.round(input.stats.durationMs),
      ...(input.stats.pythonParser ? { pythonParser: input.stats.pythonParser } : {}),
      ...(input.stats.pythonParserFallback ? { pythonParserFallback: input.stats.pythonParserFallback } : {}),
      ...(input.stats.scope ? { scope: input.stats.scope } : {}),
      ...(input.stats.suites ? { suites: input.stats.suites } : {}),
      ...(input.baseline ? { baseline: input.baseline } : {}),
      ...(input.stats.notes?.length
        ? { notes: input.stats.notes.map((n) => ({ ruleId: n.ruleId, file: relPath(input.root, n.file), line: n.range.start.line, column: n.range.start.column, ...(n.pointer !== undefined ? { pointer: n.pointer } : {}), message: n.message })) }
        : {}),
    },
    findings: input.findings.map((f) => ({
      ruleId: f.ruleId,
      messageId: f.messageId,
      severity: f.severity,
      message: f.message,
      parts: f.parts,
      file: relPath(input.root, f.file),
      range: {
        start: { line: f.range.start.line, column: f.range.start.column },
        end: { line: f.range.end.line, column: f.range.end.column },
      },
      ...(f.pointer !== undefined ? { pointer: f.pointer } : {}),
      ...(f.related?.length ? { related: f.related.map((r) => ({ file: relPath(input.root, r.file), line: r.range.start.line, column: r.range.start.column, message: r.message })) } : {}),
      fingerprint: f.fingerprint,
      ...(f.shape !== undefined ? { shape: f.shape } : {}),
      ...(f.verifierPath === false ? { verifierPath: false } : {}),
      ...(input.families?.[f.file] ? { family: input.families[f.file] } : {}),
      ...(f.confirmation ? { confirmation: f.confirmation } : {}),
    })),
    ...(input.runs ? { runs: input.runs } : {}),
  };
}

export function formatJson(input: ReportInput): string {
  return JSON.stringify(toJsonReport(input), null, 2) + '\n';
}
