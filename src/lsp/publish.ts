/**
 * Diagnostics out: the latest result per document (what a pull answers), pushed
 * to clients that do not pull; confirmations from the background control cases
 * merged in; session errors (an invalid config) shown on the config file.
 */
import { MessageType, type Diagnostic, type DiagnosticRelatedInformation } from 'vscode-languageserver/node';
import type { LintSession } from '../engine/session.js';
import type { Finding } from '../core/types.js';
import { ConfigError } from '../config/load.js';
import { toDiagnostic, toLspRange, SOURCE } from './convert.js';
import { toUri, type LspContext } from './context.js';
import type { RuleDocs } from './rule-docs.js';

export interface DocResult {
  version: number;
  diagnostics: Diagnostic[];
  findings: Finding[];
  resultId: string;
}

export class Publisher {
  private readonly results = new Map<string, DocResult>();
  private readonly confirmed = new Map<string, { version: number; findings: Finding[] }>();
  private counter = 0;

  constructor(private readonly ctx: LspContext, private readonly docs: RuleDocs) {}

  result(uri: string): DocResult | undefined {
    return this.results.get(uri);
  }

  /** Show `findings` for `file` at `version` (with the confirmations of that version, if any). */
  publish(file: string, version: number, findings: Finding[], session: LintSession): void {
    const { ctx } = this;
    const uri = toUri(file);
    const confirmed = this.confirmed.get(uri);
    const shown = confirmed && confirmed.version === version ? mergeConfirmations(findings, confirmed.findings) : findings;
    const diagnostics = shown.map((f) => toDiagnostic(f, {
      docHref: (id) => this.docs.href(id),
      extraRelated: this.extraRelated(session),
      relatedSupport: ctx.pullClient() || ctx.caps.textDocument?.publishDiagnostics?.relatedInformation !== false,
    }));
    const prev = this.results.get(uri);
    this.results.set(uri, { version, diagnostics, findings, resultId: `${version}.${++this.counter}` });
    // a re-lint of an unchanged document that changed nothing (a dependent file's check) is not sent again
    if (prev && prev.version === version && JSON.stringify(prev.diagnostics) === JSON.stringify(diagnostics)) return;
    if (ctx.shouldPush()) void ctx.connection.sendDiagnostics({ uri, version, diagnostics });
  }

  /** Control-case results for a version of a document: shown with its findings from now on. */
  confirm(uri: string, version: number, findings: Finding[]): void {
    this.confirmed.set(uri, { version, findings });
  }

  /** The document closed: forget it and clear its diagnostics in the client. */
  closed(uri: string): void {
    this.results.delete(uri);
    this.confirmed.delete(uri);
    if (this.ctx.shouldPush()) void this.ctx.connection.sendDiagnostics({ uri, diagnostics: [] });
  }

  /** A session could not load or lint: an invalid config is shown on the config file, anything else once as a message. */
  sessionError(err: unknown): void {
    const { ctx } = this;
    if (err instanceof ConfigError) {
      ctx.notifyOnce(`config:${err.message}`, MessageType.Error, err.message);
      const cfgUri = toUri(err.file);
      const cfgDiag: Diagnostic = {
        range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
        severity: 1, source: SOURCE, code: 'config', message: err.problems.join('\n'),
      };
      if (ctx.documents.get(cfgUri) && ctx.shouldPush()) void ctx.connection.sendDiagnostics({ uri: cfgUri, diagnostics: [cfgDiag] });
      this.results.set(cfgUri, { version: ctx.documents.get(cfgUri)?.version ?? 0, diagnostics: [cfgDiag], findings: [], resultId: `cfg.${++this.counter}` });
    } else {
      ctx.notifyOnce(`lint:${(err as Error)?.message}`, MessageType.Error, `lint failed: ${(err as Error)?.stack ?? String(err)}`);
    }
  }

  /** A task entry's finding points at the verifier function that grades the entry. */
  private extraRelated(session: LintSession) {
    const { ctx } = this;
    return (f: Finding): DiagnosticRelatedInformation[] => {
      if (!f.pointer || !ctx.caps.textDocument?.publishDiagnostics?.relatedInformation && !ctx.pullClient()) return [];
      const entry = session.tasks(f.file).flatMap((t) => t.entries).find((e) => f.pointer === e.pointer || f.pointer!.startsWith(e.pointer + '/'));
      const b = entry?.binding;
      if (!b) return [];
      const file = session.file(b.file);
      if (!file) return [];
      return [{
        location: { uri: toUri(b.file), range: toLspRange(file.source.range(b.start, b.start)) },
        message: `This entry is graded by ${b.qualname}.`,
      }];
    };
  }
}

function mergeConfirmations(findings: Finding[], confirmed: Finding[]): Finding[] {
  const byFp = new Map(confirmed.filter((f) => f.fingerprint && f.confirmation).map((f) => [f.fingerprint!, f.confirmation!]));
  return findings.map((f) => (f.fingerprint && byFp.has(f.fingerprint) ? { ...f, confirmation: byFp.get(f.fingerprint) } : f));
}
