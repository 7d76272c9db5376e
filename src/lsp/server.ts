/**
 * `vaudit lsp`: the language server. One incremental LintSession per project
 * root keeps every file parsed; a keystroke re-lints the edited document (and
 * the open task files routed to an edited verifier module) with the static
 * rules only. Diagnostics are pushed (`textDocument/publishDiagnostics`) to
 * clients without pull support and pulled (`textDocument/diagnostic`) by the
 * others; `workspace/diagnostic/refresh` follows config and watched-file
 * changes. Code actions: "Disable <rule> …" (inline comment, or a
 * `"//vaudit-ignore"` member in task JSON) and "Show documentation for <rule>".
 */
import path from 'node:path';
import { mkdirSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  createConnection, ProposedFeatures, TextDocuments, TextDocumentSyncKind, CodeActionKind, DocumentDiagnosticReportKind,
  FileChangeType, DidChangeWatchedFilesNotification, DidChangeConfigurationNotification, MessageType,
  type Connection, type Diagnostic, type InitializeParams, type InitializeResult, type CodeAction, type TextEdit,
  type DiagnosticRelatedInformation, type ClientCapabilities,
} from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { LintSession } from '../engine/session.js';
import { contextRoot, INTERNAL_ERROR_RULE } from '../engine/pass.js';
import { ConfigError, ConfigResolver, CONFIG_FILE } from '../config/load.js';
import { languageOf } from '../core/load.js';
import { PARSE_ERROR_RULE, type Finding, type SeveritySetting } from '../core/types.js';
import type { Project } from '../contract/project.js';
import type { Rule } from '../contract/rule.js';
import { loadRules } from '../contract/registry.js';
import { renderRuleMarkdown } from '../report/rule-docs.js';
import { VERSION } from '../cli/version.js';
import { jsonDocumentOf } from '../lang/json/cache.js';
import { toDiagnostic, toLspRange, SOURCE, type DiagnosticData } from './convert.js';
import { jsDisableEdit, jsonDisableEdit, pythonDisableEdit, type OffsetEdit } from './edits.js';

const SHOW_DOCS_COMMAND = 'vaudit.showDocumentation';

/** Settings, from `initializationOptions` and `workspace/didChangeConfiguration` (section `vaudit`). */
interface LspSettings {
  /** Config file to use instead of discovery (absolute, or relative to the workspace root). */
  configPath?: string;
  /** Rule severities over the config: `{ "lambda-syntax": "off" }`. */
  severities?: Record<string, SeveritySetting>;
  /** Run host-executed control cases for a saved file's findings (background, never blocking). */
  confirmOnSave?: boolean;
  /**
   * Workspace folders (absolute paths) the client trusts to run code from (issue 17): control cases
   * run their verifier and task code, so `confirmOnSave` acts only on files inside one of these.
   * Default: none — the server never runs control cases for a folder the client did not name.
   */
  trustedWorkspaces?: string[];
  /** `auto` (default): push only to clients without pull support; `push`, `pull` or `both` to force. */
  diagnostics?: 'auto' | 'push' | 'pull' | 'both';
}

const SEVERITIES = new Set(['off', 'warn', 'error']);

function parseSettings(raw: unknown, base: LspSettings = {}): LspSettings {
  const out: LspSettings = { ...base };
  if (!raw || typeof raw !== 'object') return out;
  const r = (('vaudit' in raw && typeof (raw as { vaudit: unknown }).vaudit === 'object') ? (raw as { vaudit: unknown }).vaudit : raw) as Record<string, unknown>;
  if (!r) return out;
  if ('configPath' in r) out.configPath = typeof r.configPath === 'string' && r.configPath ? r.configPath : undefined;
  if ('severities' in r) {
    const s: Record<string, SeveritySetting> = {};
    if (r.severities && typeof r.severities === 'object') {
      for (const [k, v] of Object.entries(r.severities as Record<string, unknown>)) if (typeof v === 'string' && SEVERITIES.has(v)) s[k] = v as SeveritySetting;
    }
    out.severities = s;
  }
  if ('confirmOnSave' in r) out.confirmOnSave = r.confirmOnSave === true;
  if ('trustedWorkspaces' in r) {
    out.trustedWorkspaces = Array.isArray(r.trustedWorkspaces)
      ? r.trustedWorkspaces.filter((w): w is string => typeof w === 'string' && path.isAbsolute(w)).map((w) => path.resolve(w))
      : [];
  }
  if ('diagnostics' in r && typeof r.diagnostics === 'string' && ['auto', 'push', 'pull', 'both'].includes(r.diagnostics)) {
    out.diagnostics = r.diagnostics as LspSettings['diagnostics'];
  }
  return out;
}

interface DocResult {
  version: number;
  diagnostics: Diagnostic[];
  findings: Finding[];
  resultId: string;
}

/** A confirm module (src/confirm/index.ts) when the build has one. */
type ConfirmFn = (findings: Finding[], project: Project | undefined, opts: { root: string } & Record<string, unknown>) => Promise<unknown>;

export interface ServerOptions {
  /** Rule table (tests/embedders); default rules/. */
  ruleSet?: ReadonlyMap<string, Rule>;
}

function startServer(connection: Connection, serverOpts: ServerOptions = {}): void {
  const documents = new TextDocuments(TextDocument);
  let settings: LspSettings = {};
  let caps: ClientCapabilities = {};
  let roots: string[] = [];
  const sessions = new Map<string, Promise<LintSession>>();
  /** Sessions that finished loading (for synchronous buffer updates). */
  const ready = new Map<string, LintSession>();
  const results = new Map<string, DocResult>();
  const notified = new Set<string>();
  const confirmedByUri = new Map<string, { version: number; findings: Finding[] }>();
  let resultCounter = 0;
  let shuttingDown = false;
  let rulesPromise: Promise<ReadonlyMap<string, Rule>> | undefined;

  const rules = () => (rulesPromise ??= serverOpts.ruleSet ? Promise.resolve(serverOpts.ruleSet) : loadRules());
  const pullClient = () => !!caps.textDocument?.diagnostic;
  const shouldPush = () => {
    const m = settings.diagnostics ?? 'auto';
    return m === 'push' || m === 'both' || (m === 'auto' && !pullClient());
  };
  const refreshSupported = () => !!caps.workspace?.diagnostics?.refreshSupport;

  const log = (msg: string) => connection.console.log(`[vaudit] ${msg}`);
  const notifyOnce = (key: string, type: MessageType, msg: string) => {
    if (notified.has(key)) return;
    notified.add(key);
    connection.console.error(`[vaudit] ${msg}`);
    void connection.sendNotification('window/showMessage', { type, message: `vaudit: ${msg}` });
  };

  const toPath = (uri: string): string | undefined => {
    if (!uri.startsWith('file:')) return undefined;
    try { return path.normalize(fileURLToPath(uri)); } catch { return undefined; }
  };
  const toUri = (p: string) => pathToFileURL(p).href;

  // ---------- documentation ----------
  const docsDir = path.join(tmpdir(), `vaudit-lsp-docs-${VERSION}-${process.getuid?.() ?? 'u'}`);
  const docHrefs = new Map<string, string | undefined>();
  let ruleTable: ReadonlyMap<string, Rule> = new Map();
  const docHref = (ruleId: string): string | undefined => {
    if (docHrefs.has(ruleId)) return docHrefs.get(ruleId);
    const rule = ruleTable.get(ruleId);
    let href: string | undefined;
    if (rule) {
      try {
        mkdirSync(docsDir, { recursive: true });
        const file = path.join(docsDir, `${ruleId}.md`);
        if (!existsSync(file)) writeFileSync(file, renderRuleMarkdown(rule.meta));
        href = toUri(file);
      } catch {
        href = undefined;
      }
    }
    docHrefs.set(ruleId, href);
    return href;
  };

  // ---------- sessions ----------
  const sessionRootFor = (file: string): string => {
    const candidates = roots.filter((r) => {
      const rel = path.relative(r, file);
      return !rel.startsWith('..') && !path.isAbsolute(rel);
    });
    if (candidates.length) return candidates.sort((a, b) => b.length - a.length)[0]!;
    for (const r of sessions.keys()) {
      const rel = path.relative(r, file);
      if (!rel.startsWith('..') && !path.isAbsolute(rel)) return r;
    }
    try {
      return contextRoot(file, new ConfigResolver(path.dirname(file), undefined, resolvedConfigPath(path.dirname(file))));
    } catch {
      return path.dirname(file);
    }
  };
  const resolvedConfigPath = (root: string) => (settings.configPath ? path.resolve(root, settings.configPath) : undefined);

  const sessionFor = (file: string): Promise<LintSession> => sessionAt(sessionRootFor(file));
  const sessionAt = (root: string): Promise<LintSession> => {
    let s = sessions.get(root);
    if (!s) {
      s = (async () => {
        const ruleSet = await rules();
        ruleTable = ruleSet;
        const session = await LintSession.create({ root, ruleSet, configPath: resolvedConfigPath(root), severities: settings.severities });
        // buffers opened before the session existed
        for (const d of documents.all()) {
          const p = toPath(d.uri);
          if (p && session.covers(p)) session.setDocument(p, d.getText());
        }
        ready.set(root, session);
        return session;
      })();
      sessions.set(root, s);
      s.catch(() => { sessions.delete(root); ready.delete(root); });
    }
    return s;
  };

  // ---------- linting ----------
  const dirty = new Set<string>();
  let running: Promise<void> | undefined;

  const openPaths = () => documents.all().map((d) => toPath(d.uri)).filter((p): p is string => !!p && !!languageOf(p));

  const extraRelated = (session: LintSession) => (f: Finding): DiagnosticRelatedInformation[] => {
    if (!f.pointer || !caps.textDocument?.publishDiagnostics?.relatedInformation && !pullClient()) return [];
    const task = session.task(f.file);
    const entry = task?.entries.find((e) => f.pointer === e.pointer || f.pointer!.startsWith(e.pointer + '/'));
    const b = entry?.binding;
    if (!b) return [];
    const file = session.file(b.file);
    if (!file) return [];
    return [{
      location: { uri: toUri(b.file), range: toLspRange(file.source.range(b.start, b.start)) },
      message: `This entry is graded by ${b.qualname}.`,
    }];
  };

  const lintBatch = async (paths: string[]) => {
    const bySession = new Map<Promise<LintSession>, string[]>();
    for (const p of paths) {
      const s = sessionFor(p);
      let list = bySession.get(s);
      if (!list) bySession.set(s, (list = []));
      list.push(p);
    }
    for (const [sp, list] of bySession) {
      let session: LintSession;
      try {
        session = await sp;
      } catch (err) {
        reportSessionError(err, list);
        continue;
      }
      // open task files routed to an edited verifier module are re-linted with it
      const open = new Set(openPaths());
      const targets = new Set(list);
      for (const p of list) if (languageOf(p) === 'python') for (const t of session.tasksRoutingTo(p)) if (open.has(t)) targets.add(t);
      const versions = new Map<string, number>();
      for (const t of targets) {
        const doc = documents.get(toUri(t));
        if (doc) versions.set(t, doc.version);
      }
      let r;
      try {
        r = await session.lint([...targets]);
      } catch (err) {
        reportSessionError(err, [...targets]);
        continue;
      }
      // bindings may have changed with this edit: pick up newly routed open tasks next round
      for (const p of list) if (languageOf(p) === 'python') for (const t of session.tasksRoutingTo(p)) if (open.has(t) && !targets.has(t)) dirty.add(t);
      for (const t of targets) {
        if (!documents.get(toUri(t))) continue; // closed meanwhile
        const findings = r.byFile.get(t) ?? [];
        for (const f of findings) {
          if (f.ruleId === INTERNAL_ERROR_RULE) {
            const rule = /Rule '([^']+)'/.exec(f.message)?.[1] ?? 'unknown';
            notifyOnce(`crash:${rule}`, MessageType.Error, f.message);
          }
        }
        publish(t, versions.get(t) ?? 0, findings, session);
      }
      log(`linted ${[...targets].map((t) => path.basename(t)).join(', ')} in ${r.durationMs.toFixed(1)} ms${r.reparsed.length ? ` (re-parsed ${r.reparsed.length} Python file(s))` : ''}`);
    }
  };

  const publish = (file: string, version: number, findings: Finding[], session: LintSession) => {
    const uri = toUri(file);
    const confirmed = confirmedByUri.get(uri);
    const shown = confirmed && confirmed.version === version ? mergeConfirmations(findings, confirmed.findings) : findings;
    const diagnostics = shown.map((f) => toDiagnostic(f, {
      docHref,
      extraRelated: extraRelated(session),
      relatedSupport: pullClient() || caps.textDocument?.publishDiagnostics?.relatedInformation !== false,
    }));
    results.set(uri, { version, diagnostics, findings, resultId: `${version}.${++resultCounter}` });
    if (shouldPush()) void connection.sendDiagnostics({ uri, version, diagnostics });
  };

  const reportSessionError = (err: unknown, files: string[]) => {
    if (err instanceof ConfigError) {
      notifyOnce(`config:${err.message}`, MessageType.Error, err.message);
      const cfgUri = toUri(err.file);
      const cfgDiag: Diagnostic = {
        range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
        severity: 1, source: SOURCE, code: 'config', message: err.problems.join('\n'),
      };
      if (documents.get(cfgUri) && shouldPush()) void connection.sendDiagnostics({ uri: cfgUri, diagnostics: [cfgDiag] });
      results.set(cfgUri, { version: documents.get(cfgUri)?.version ?? 0, diagnostics: [cfgDiag], findings: [], resultId: `cfg.${++resultCounter}` });
    } else {
      notifyOnce(`lint:${(err as Error)?.message}`, MessageType.Error, `lint failed: ${(err as Error)?.stack ?? String(err)}`);
    }
    void files;
  };

  const schedule = (paths: Iterable<string>): Promise<void> => {
    for (const p of paths) dirty.add(p);
    if (!running) {
      running = (async () => {
        try {
          while (dirty.size && !shuttingDown) {
            const batch = [...dirty];
            dirty.clear();
            await lintBatch(batch);
          }
        } finally {
          running = undefined;
        }
      })();
    }
    return running;
  };

  /** Wait until the document's diagnostics reflect its current version. */
  const settled = async (uri: string): Promise<DocResult | undefined> => {
    const p = toPath(uri);
    const doc = documents.get(uri);
    if (!p || !languageOf(p)) return undefined;
    for (let i = 0; i < 5; i++) {
      const r = results.get(uri);
      if (r && (!doc || r.version === doc.version) && !dirty.has(p)) return r;
      await schedule(doc && !(r && r.version === doc.version) ? [p] : []);
      if (!running && results.get(uri)?.version === doc?.version) break;
    }
    return results.get(uri);
  };

  const relintOpen = async () => {
    await schedule(openPaths());
    if (refreshSupported()) void connection.languages.diagnostics.refresh().catch(() => undefined);
  };

  const applySettings = async (next: LspSettings) => {
    const prev = settings;
    settings = next;
    const reload = prev.configPath !== next.configPath;
    for (const [root, sp] of sessions) {
      try {
        const s = await sp;
        s.configure({ severities: next.severities, configPath: resolvedConfigPath(root) });
        if (reload) await s.reload();
      } catch (err) {
        reportSessionError(err, []);
        sessions.delete(root);
        ready.delete(root);
      }
    }
    await relintOpen();
  };

  // ---------- protocol ----------
  connection.onInitialize((params: InitializeParams): InitializeResult => {
    caps = params.capabilities;
    settings = parseSettings(params.initializationOptions);
    const folders = params.workspaceFolders?.map((f) => toPath(f.uri)).filter((p): p is string => !!p) ?? [];
    const rootUri = params.rootUri ? toPath(params.rootUri) : undefined;
    roots = folders.length ? folders : rootUri ? [rootUri] : [];
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
    for (const r of roots) void sessionAt(r).catch((err) => reportSessionError(err, []));
  });

  connection.onDidChangeConfiguration(async (params) => {
    let raw: unknown = params.settings;
    if ((raw === null || raw === undefined || (typeof raw === 'object' && !('vaudit' in (raw as object)))) && caps.workspace?.configuration) {
      try { raw = (await connection.workspace.getConfiguration('vaudit')) ?? raw; } catch { /* keep raw */ }
    }
    await applySettings(parseSettings(raw, settings));
  });

  // didOpen and didChange both land here (TextDocuments fires it for opens too).
  documents.onDidChangeContent((e) => {
    const p = toPath(e.document.uri);
    if (!p || !languageOf(p)) return;
    const root = sessionRootFor(p);
    const s = ready.get(root);
    if (s) s.setDocument(p, e.document.getText());
    else void sessionAt(root).catch((err) => reportSessionError(err, [p])); // picks up open buffers when ready
    void schedule([p]);
  });

  documents.onDidClose((e) => {
    const uri = e.document.uri;
    const p = toPath(uri);
    results.delete(uri);
    confirmedByUri.delete(uri);
    dirty.delete(p ?? '');
    if (shouldPush()) void connection.sendDiagnostics({ uri, diagnostics: [] });
    if (!p) return;
    const s = ready.get(sessionRootFor(p));
    // the buffer is gone: the file's text is the one on disk again
    if (s) { s.setDocument(p, undefined); void s.fileChanged(p).catch(() => undefined); }
  });

  documents.onDidSave((e) => {
    if (!settings.confirmOnSave) return;
    const p = toPath(e.document.uri);
    if (!p) return;
    // Workspace trust: control cases run the folder's own code; only folders the client names.
    const trusted = (settings.trustedWorkspaces ?? []).some((w) => p === w || p.startsWith(w.endsWith(path.sep) ? w : w + path.sep));
    if (!trusted) {
      notifyOnce(
        `untrusted:${sessionRootFor(p)}`,
        MessageType.Info,
        `vaudit does not run control cases for ${sessionRootFor(p)}: it is not a trusted workspace (add it to vaudit.trustedWorkspaces to run its code on save); showing static findings only.`,
      );
      return;
    }
    void confirmInBackground(e.document.uri);
  });

  connection.onDidChangeWatchedFiles(async (params) => {
    let configChanged = false;
    for (const ch of params.changes) {
      const p = toPath(ch.uri);
      if (!p) continue;
      if (path.basename(p) === CONFIG_FILE) { configChanged = true; continue; }
      if (documents.get(ch.uri) && ch.type !== FileChangeType.Deleted) continue; // the buffer wins
      for (const [, sp] of sessions) {
        try {
          const s = await sp;
          if (s.covers(p)) await s.fileChanged(p, ch.type === FileChangeType.Deleted);
        } catch { /* reported elsewhere */ }
      }
    }
    if (configChanged) {
      for (const [root, sp] of [...sessions]) {
        try { await (await sp).reload(); } catch (err) { reportSessionError(err, []); sessions.delete(root); ready.delete(root); }
      }
      notified.forEach((k) => { if (k.startsWith('config:')) notified.delete(k); });
    }
    await relintOpen();
  });

  connection.languages.diagnostics.on(async (params) => {
    const r = await settled(params.textDocument.uri);
    if (!r) return { kind: DocumentDiagnosticReportKind.Full, items: [] };
    if (params.previousResultId === r.resultId) return { kind: DocumentDiagnosticReportKind.Unchanged, resultId: r.resultId };
    return { kind: DocumentDiagnosticReportKind.Full, resultId: r.resultId, items: r.diagnostics };
  });

  connection.onCodeAction(async (params) => {
    const doc = documents.get(params.textDocument.uri);
    const p = toPath(params.textDocument.uri);
    if (!doc || !p) return [];
    const lang = languageOf(p);
    const actions: CodeAction[] = [];
    const seenDocs = new Set<string>();
    let session: LintSession | undefined;
    try { session = await sessionFor(p); } catch { /* no session: no actions */ }
    for (const d of params.context.diagnostics) {
      if (d.source !== SOURCE) continue;
      const data = d.data as DiagnosticData | undefined;
      const ruleId = data?.ruleId ?? (typeof d.code === 'string' ? d.code : undefined);
      if (!ruleId) continue;
      const known = ruleTable.has(ruleId);
      if (ruleId !== PARSE_ERROR_RULE && ruleId !== INTERNAL_ERROR_RULE && ruleId !== 'config') {
        const text = doc.getText();
        let edit: OffsetEdit | undefined;
        let title = `Disable ${ruleId} for this line`;
        if (lang === 'python') edit = pythonDisableEdit(text, d.range.start.line, ruleId);
        else if (lang === 'javascript' || lang === 'typescript') edit = jsDisableEdit(text, d.range.start.line, ruleId);
        else if (lang === 'json' && data?.pointer !== undefined && session) {
          const file = session.file(p);
          const parsed = file && file.source.text === text ? jsonDocumentOf(file) : undefined;
          if (parsed?.ok) {
            const r = jsonDisableEdit(text, parsed.doc.values, data.pointer, ruleId);
            if (r) {
              edit = r.edit;
              title = `Disable ${ruleId} for this line (in ${r.objectPointer || 'the task'})`;
            }
          }
        }
        if (edit) {
          const te: TextEdit = { range: { start: doc.positionAt(edit.start), end: doc.positionAt(edit.end) }, newText: edit.newText };
          actions.push({
            title,
            kind: CodeActionKind.QuickFix,
            diagnostics: [d],
            isPreferred: true,
            edit: { changes: { [doc.uri]: [te] } },
          });
        }
      }
      if (known && !seenDocs.has(ruleId)) {
        seenDocs.add(ruleId);
        actions.push({
          title: `Show documentation for ${ruleId}`,
          kind: CodeActionKind.QuickFix,
          diagnostics: [d],
          command: { title: `Show documentation for ${ruleId}`, command: SHOW_DOCS_COMMAND, arguments: [ruleId] },
        });
      }
    }
    return actions;
  });

  connection.onExecuteCommand(async (params) => {
    if (params.command !== SHOW_DOCS_COMMAND) return null;
    const ruleId = String(params.arguments?.[0] ?? '');
    if (ruleTable.size === 0) ruleTable = await rules();
    const rule = ruleTable.get(ruleId);
    if (!rule) {
      void connection.sendNotification('window/showMessage', { type: MessageType.Warning, message: `vaudit: no rule '${ruleId}'.` });
      return null;
    }
    const href = docHref(ruleId);
    if (href && caps.window?.showDocument?.support) {
      await connection.window.showDocument({ uri: href, takeFocus: true }).catch(() => undefined);
    } else {
      void connection.sendNotification('window/showMessage', { type: MessageType.Info, message: `${ruleId}: ${rule.meta.description}${href ? ` (${href})` : ''}` });
    }
    return href ?? null;
  });

  // ---------- confirmation on save (background) ----------
  let confirmModule: Promise<ConfirmFn | undefined> | undefined;
  const loadConfirm = () => (confirmModule ??= (async () => {
    const spec = '../confirm/index.js';
    try {
      const m = (await import(spec)) as { confirmFindings?: ConfirmFn };
      return typeof m.confirmFindings === 'function' ? m.confirmFindings : undefined;
    } catch {
      return undefined;
    }
  })());

  const confirmInBackground = async (uri: string) => {
    const r = await settled(uri);
    const doc = documents.get(uri);
    const p = toPath(uri);
    if (!r || !doc || !p) return;
    const candidates = r.findings.filter((f) => f.control);
    if (candidates.length === 0) return;
    const confirm = await loadConfirm();
    if (!confirm) {
      notifyOnce('confirm-missing', MessageType.Warning, 'confirmOnSave is on, but this build has no confirmation stage (src/confirm/index.ts); showing static findings only.');
      return;
    }
    const version = doc.version;
    try {
      const session = await sessionFor(p);
      const copies = candidates.map((f) => ({ ...f }));
      await confirm(copies, session.project, { ...(session.configFor(p).config.confirm ?? {}), root: session.root });
      const now = documents.get(uri);
      if (!now || now.version !== version || shuttingDown) return; // edited meanwhile: stale
      confirmedByUri.set(uri, { version, findings: copies });
      publish(p, version, r.findings, session);
      if (refreshSupported()) void connection.languages.diagnostics.refresh().catch(() => undefined);
    } catch (err) {
      notifyOnce(`confirm:${(err as Error)?.message}`, MessageType.Warning, `confirmation failed: ${(err as Error)?.message ?? String(err)}`);
    }
  };

  // Diagnostics of the server itself (bench/, tests): memory and cache sizes.
  connection.onRequest('vaudit/stats', async (params: { gc?: boolean } | undefined) => {
    const gc = (globalThis as { gc?: () => void }).gc;
    if (params?.gc && gc) gc(); // only when node runs with --expose-gc
    const out: Record<string, unknown> = { memory: process.memoryUsage(), sessions: [] as unknown[] };
    for (const [root, s] of ready) (out.sessions as unknown[]).push({ root, ...s.stats() });
    return out;
  });

  connection.onShutdown(async () => {
    shuttingDown = true;
    for (const sp of sessions.values()) {
      try { await (await sp).dispose(); } catch { /* already reported */ }
    }
    sessions.clear();
    ready.clear();
  });

  documents.listen(connection);
  connection.listen();
}

function mergeConfirmations(findings: Finding[], confirmed: Finding[]): Finding[] {
  const byFp = new Map(confirmed.filter((f) => f.fingerprint && f.confirmation).map((f) => [f.fingerprint!, f.confirmation!]));
  return findings.map((f) => (f.fingerprint && byFp.has(f.fingerprint) ? { ...f, confirmation: byFp.get(f.fingerprint) } : f));
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
