/**
 * Keeping the sessions in step with the client: open buffers (every change goes
 * to the session at once, the lint is scheduled), closed buffers (the file on
 * disk counts again), files changed on disk, the config file and the client's
 * settings.
 */
import path from 'node:path';
import { FileChangeType } from 'vscode-languageserver/node';
import { languageOf } from '../core/load.js';
import { CONFIG_FILE } from '../config/load.js';
import { toPath, type LspContext } from './context.js';
import { parseSettings, type LspSettings } from './settings.js';
import type { SessionRegistry } from './sessions.js';
import type { Publisher } from './publish.js';
import type { LintScheduler } from './scheduler.js';

export function registerDocumentSync(ctx: LspContext, sessions: SessionRegistry, scheduler: LintScheduler, publisher: Publisher): void {
  // didOpen and didChange both land here (TextDocuments fires it for opens too).
  ctx.documents.onDidChangeContent((e) => {
    const p = toPath(e.document.uri);
    if (!p || !languageOf(p)) return;
    const root = sessions.rootFor(p);
    const s = sessions.readyFor(p);
    if (s) s.setDocument(p, e.document.getText());
    else void sessions.at(root).catch((err) => publisher.sessionError(err)); // picks up open buffers when ready
    void scheduler.schedule([p]);
  });

  ctx.documents.onDidClose((e) => {
    const uri = e.document.uri;
    const p = toPath(uri);
    publisher.closed(uri);
    if (!p) return;
    scheduler.forget(p);
    const s = sessions.readyFor(p);
    // the buffer is gone: the file's text is the one on disk again
    if (s) { s.setDocument(p, undefined); void s.fileChanged(p).catch(() => undefined); }
  });
}

export function registerWorkspaceChanges(ctx: LspContext, sessions: SessionRegistry, scheduler: LintScheduler, publisher: Publisher): void {
  ctx.connection.onDidChangeConfiguration(async (params) => {
    let raw: unknown = params.settings;
    if ((raw === null || raw === undefined || (typeof raw === 'object' && !('vaudit' in (raw as object)))) && ctx.caps.workspace?.configuration) {
      try { raw = (await ctx.connection.workspace.getConfiguration('vaudit')) ?? raw; } catch { /* keep raw */ }
    }
    await applySettings(ctx, parseSettings(raw, ctx.settings), sessions, scheduler, publisher);
  });

  ctx.connection.onDidChangeWatchedFiles(async (params) => {
    let configChanged = false;
    for (const ch of params.changes) {
      const p = toPath(ch.uri);
      if (!p) continue;
      if (path.basename(p) === CONFIG_FILE) { configChanged = true; continue; }
      if (ctx.documents.get(ch.uri) && ch.type !== FileChangeType.Deleted) continue; // the buffer wins
      for (const [, sp] of sessions.entries()) {
        try {
          const s = await sp;
          if (s.covers(p)) await s.fileChanged(p, ch.type === FileChangeType.Deleted);
        } catch { /* reported elsewhere */ }
      }
    }
    if (configChanged) {
      await reloadAll(sessions, publisher);
      ctx.forgetNotices('config:');
    }
    await scheduler.relintOpen();
  });
}

/** Re-read configs and files in every session; a session whose config is now invalid is dropped (and the error shown). */
async function reloadAll(sessions: SessionRegistry, publisher: Publisher): Promise<void> {
  for (const [root, sp] of sessions.entries()) {
    try { await (await sp).reload(); } catch (err) { publisher.sessionError(err); sessions.drop(root); }
  }
}

async function applySettings(ctx: LspContext, next: LspSettings, sessions: SessionRegistry, scheduler: LintScheduler, publisher: Publisher): Promise<void> {
  const prev = ctx.settings;
  ctx.settings = next;
  const reload = prev.configPath !== next.configPath;
  for (const [root, sp] of sessions.entries()) {
    try {
      const s = await sp;
      s.configure({ severities: next.severities, configPath: sessions.configPath(root) });
      if (reload) await s.reload();
    } catch (err) {
      publisher.sessionError(err);
      sessions.drop(root);
    }
  }
  await scheduler.relintOpen();
}
