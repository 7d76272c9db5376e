/**
 * What every part of the server shares: the connection, the open documents (the
 * document store), the client's capabilities and settings, and one-time notices.
 */
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { TextDocuments, type MessageType, type ClientCapabilities, type Connection } from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { languageOf } from '../core/load.js';
import type { LspSettings } from './settings.js';

/** Absolute, normalised path of a `file:` URI (undefined for other schemes). */
export function toPath(uri: string): string | undefined {
  if (!uri.startsWith('file:')) return undefined;
  try { return path.normalize(fileURLToPath(uri)); } catch { return undefined; }
}

export const toUri = (p: string): string => pathToFileURL(p).href;

export class LspContext {
  readonly documents = new TextDocuments(TextDocument);
  settings: LspSettings = {};
  caps: ClientCapabilities = {};
  /** Workspace folders (absolute paths). */
  roots: string[] = [];
  shuttingDown = false;
  private readonly notified = new Set<string>();

  constructor(readonly connection: Connection) {}

  /** The client pulls diagnostics (`textDocument/diagnostic`). */
  pullClient(): boolean {
    return !!this.caps.textDocument?.diagnostic;
  }

  /** Push diagnostics: when asked, or (`auto`) to clients that do not pull. */
  shouldPush(): boolean {
    const m = this.settings.diagnostics ?? 'auto';
    return m === 'push' || m === 'both' || (m === 'auto' && !this.pullClient());
  }

  /** Ask a pull client to pull again (after config or watched-file changes). */
  refreshDiagnostics(): void {
    if (this.caps.workspace?.diagnostics?.refreshSupport) void this.connection.languages.diagnostics.refresh().catch(() => undefined);
  }

  log(msg: string): void {
    this.connection.console.log(`[vaudit] ${msg}`);
  }

  /** Tell the user once per key (log and `window/showMessage`). */
  notifyOnce(key: string, type: MessageType, msg: string): void {
    if (this.notified.has(key)) return;
    this.notified.add(key);
    this.connection.console.error(`[vaudit] ${msg}`);
    void this.connection.sendNotification('window/showMessage', { type, message: `vaudit: ${msg}` });
  }

  /** Let the notices whose key starts with `prefix` be shown again. */
  forgetNotices(prefix: string): void {
    for (const k of [...this.notified]) if (k.startsWith(prefix)) this.notified.delete(k);
  }

  /** Paths of the open documents vaudit reads. */
  openPaths(): string[] {
    return this.documents.all().map((d) => toPath(d.uri)).filter((p): p is string => !!p && !!languageOf(p));
  }

  /** Version of the open document at `file`, if open. */
  versionOf(file: string): number | undefined {
    return this.documents.get(toUri(file))?.version;
  }
}
