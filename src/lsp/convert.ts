/**
 * Findings → LSP diagnostics. The engine's positions are 1-based lines and
 * 1-based columns in UTF-16 code units; LSP positions are 0-based lines and
 * 0-based UTF-16 characters (the default `positionEncoding`), so the
 * conversion is a shift by one on both axes.
 */
import { pathToFileURL } from 'node:url';
import {
  DiagnosticSeverity, DiagnosticTag,
  type Diagnostic, type DiagnosticRelatedInformation, type Range as LspRange,
} from 'vscode-languageserver/node';
import type { Finding, Position, Range } from '../core/types.js';

export const SOURCE = 'vaudit';

function toLspPosition(p: Position): { line: number; character: number } {
  return { line: Math.max(0, p.line - 1), character: Math.max(0, p.column - 1) };
}

export function toLspRange(r: Range): LspRange {
  return { start: toLspPosition(r.start), end: toLspPosition(r.end) };
}

/** What a diagnostic carries back to the server in `data` (code actions read it). */
export interface DiagnosticData {
  ruleId: string;
  pointer?: string;
  fingerprint?: string;
}

export interface ConvertOptions {
  /** Href of a rule's documentation, if any. */
  docHref?: (ruleId: string) => string | undefined;
  /** Extra related locations (e.g. the verifier function a task entry routes to). */
  extraRelated?: (f: Finding) => DiagnosticRelatedInformation[];
  relatedSupport?: boolean;
}

export function toDiagnostic(f: Finding, o: ConvertOptions = {}): Diagnostic {
  const d: Diagnostic = {
    range: toLspRange(f.range),
    severity: f.severity === 'error' ? DiagnosticSeverity.Error : DiagnosticSeverity.Warning,
    source: SOURCE,
    code: f.ruleId,
    message: f.confirmation ? `${f.message} [${confirmationLabel(f)}]` : f.message,
    data: { ruleId: f.ruleId, pointer: f.pointer, fingerprint: f.fingerprint } satisfies DiagnosticData,
  };
  const href = o.docHref?.(f.ruleId);
  if (href) d.codeDescription = { href };
  if (f.ruleId === 'unused-suppression') d.tags = [DiagnosticTag.Unnecessary];
  if (o.relatedSupport !== false) {
    const related: DiagnosticRelatedInformation[] = (f.related ?? []).map((r) => ({
      location: { uri: pathToFileURL(r.file).href, range: toLspRange(r.range) },
      message: r.message,
    }));
    related.push(...(o.extraRelated?.(f) ?? []));
    if (related.length) d.relatedInformation = related;
  }
  return d;
}

function confirmationLabel(f: Finding): string {
  const c = f.confirmation!;
  const parts = [`control case: ${c.status}`];
  if (c.witness) parts.push(`witness ${c.witness}`);
  if (c.observed !== undefined) parts.push(`observed ${c.observed}`);
  return parts.join(', ');
}
