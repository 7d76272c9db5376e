/**
 * `vaudit lsp`: the language server. One incremental LintSession per project
 * root keeps every file parsed; a keystroke re-lints the edited document with
 * the static rules only and publishes it, then the other open documents of the
 * project once the edits pause (src/lsp/scheduler.ts). Diagnostics are pushed
 * (`textDocument/publishDiagnostics`) to clients without pull support and
 * pulled (`textDocument/diagnostic`) by the others; `workspace/diagnostic/refresh`
 * follows config and watched-file changes. Code actions: "Disable <rule> …"
 * (inline comment, or a `"//vaudit-ignore"` member in task JSON) and "Show
 * documentation for <rule>".
 *
 * The parts: context.ts (connection, documents, capabilities, settings),
 * sessions.ts (a session per root), scheduler.ts (what to lint when),
 * publish.ts (results, push, errors), workspace.ts (buffers, files, config),
 * code-actions.ts, rule-docs.ts, confirm.ts (control cases on save).
 */
import {
  createConnection, ProposedFeatures, TextDocumentSyncKind, CodeActionKind, DocumentDiagnosticReportKind,
  DidChangeWatchedFilesNotification, DidChangeConfigurationNotification,
  type Connection, type InitializeParams, type InitializeResult,
} from 'vscode-languageserver/node';
import { CONFIG_FILE } from '../config/load.js';
import type { Rule } from '../contract/rule.js';
import { VERSION } from '../cli/version.js';
import { LspContext, toPath } from './context.js';
import { parseSettings } from './settings.js';
import { SessionRegistry } from './sessions.js';
import { Publisher } from './publish.js';
import { LintScheduler } from './scheduler.js';
import { RuleDocs, SHOW_DOCS_COMMAND } from './rule-docs.js';
import { registerCodeActions } from './code-actions.js';
import { registerConfirmOnSave } from './confirm.js';
import { registerDocumentSync, registerWorkspaceChanges } from './workspace.js';

export interface ServerOptions {
  /** Rule table (tests/embedders); default rules/. */
  ruleSet?: ReadonlyMap<string, Rule>;
}

function startServer(connection: Connection, serverOpts: ServerOptions = {}): void {
  const ctx = new LspContext(connection);
  const docs = new RuleDocs(serverOpts.ruleSet);
  const sessions = new SessionRegistry(ctx, () => docs.rules());
  const publisher = new Publisher(ctx, docs);
  const scheduler = new LintScheduler(ctx, sessions, publisher);

  registerLifecycle(ctx, sessions, publisher);
  registerDocumentSync(ctx, sessions, scheduler, publisher);
  registerWorkspaceChanges(ctx, sessions, scheduler, publisher);
  registerConfirmOnSave(ctx, sessions, scheduler, publisher);
  registerCodeActions(ctx, sessions, docs, publisher);
  docs.register(ctx);

  connection.languages.diagnostics.on(async (params) => {
    const r = await scheduler.settled(params.textDocument.uri);
    if (!r) return { kind: DocumentDiagnosticReportKind.Full, items: [] };
    if (params.previousResultId === r.resultId) return { kind: DocumentDiagnosticReportKind.Unchanged, resultId: r.resultId };
    return { kind: DocumentDiagnosticReportKind.Full, resultId: r.resultId, items: r.diagnostics };
  });

  // Diagnostics of the server itself (bench/, tests): memory and cache sizes.
  connection.onRequest('vaudit/stats', async (params: { gc?: boolean } | undefined) => {
    const gc = (globalThis as { gc?: () => void }).gc;
    if (params?.gc && gc) gc(); // only when node runs with --expose-gc
    return { memory: process.memoryUsage(), sessions: sessions.loaded().map(([root, s]) => ({ root, ...s.stats() })) };
  });

  ctx.documents.listen(connection);
  connection.listen();
}

/** initialize / initialized / shutdown: capabilities, settings, workspace folders, watchers, warm sessions. */
function registerLifecycle(ctx: LspContext, sessions: SessionRegistry, publisher: Publisher): void {
  const { connection } = ctx;
  connection.onInitialize((params: InitializeParams): InitializeResult => {
    ctx.caps = params.capabilities;
    ctx.settings = parseSettings(params.initializationOptions);
    const folders = params.workspaceFolders?.map((f) => toPath(f.uri)).filter((p): p is string => !!p) ?? [];
    const rootUri = params.rootUri ? toPath(params.rootUri) : undefined;
    ctx.roots = folders.length ? folders : rootUri ? [rootUri] : [];
    return {
      capabilities: {
        textDocumentSync: { openClose: true, change: TextDocumentSyncKind.Incremental, save: { includeText: false } },
        diagnosticProvider: { identifier: 'vaudit', interFileDependencies: true, workspaceDiagnostics: false },
        codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix], resolveProvider: false },
        executeCommandProvider: { commands: [SHOW_DOCS_COMMAND] },
        workspace: { workspaceFolders: { supported: true, changeNotifications: false } },
      },
      serverInfo: { name: 'vaudit', version: VERSION },
    };
  });

  connection.onInitialized(() => {
    const { caps } = ctx;
    if (caps.workspace?.didChangeWatchedFiles?.dynamicRegistration) {
      void connection.client.register(DidChangeWatchedFilesNotification.type, {
        watchers: [
          { globPattern: `**/${CONFIG_FILE}` },
          { globPattern: '**/*.{py,js,mjs,cjs,ts,mts,cts,json}' },
        ],
      }).catch(() => undefined);
    }
    if (caps.workspace?.didChangeConfiguration?.dynamicRegistration) {
      void connection.client.register(DidChangeConfigurationNotification.type, { section: 'vaudit' }).catch(() => undefined);
    }
    // warm the sessions of the workspace roots so the first keystroke is fast
    for (const r of ctx.roots) void sessions.at(r).catch((err) => publisher.sessionError(err));
  });

  connection.onShutdown(async () => {
    ctx.shuttingDown = true;
    await sessions.disposeAll();
  });
}

/** `vaudit lsp --stdio`: serve over stdin/stdout until `exit`. Nothing but protocol goes to stdout. */
export function runStdioServer(opts: ServerOptions = {}): Promise<number> {
  const connection = createConnection(ProposedFeatures.all, process.stdin, process.stdout);
  // stdout carries the protocol: route console output to the client's log instead
  const toLog = (...args: unknown[]) => connection.console.log(args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' '));
  console.log = toLog;
  console.info = toLog;
  console.warn = (...args: unknown[]) => connection.console.warn(args.map(String).join(' '));
  console.error = (...args: unknown[]) => connection.console.error(args.map(String).join(' '));
  startServer(connection, opts);
  // The connection exits the process on `exit` (0 after shutdown, 1 otherwise) or when stdin ends.
  return new Promise<number>(() => undefined);
}
