/**
 * Confirmation on save (setting `confirmOnSave`): the saved file's confirmable
 * findings run their control cases through the host in the background, only in
 * workspaces the client trusts; the results are merged into that version's
 * diagnostics if the document was not edited meanwhile.
 */
import { MessageType } from 'vscode-languageserver/node';
import { toPath, type LspContext } from './context.js';
import { isTrusted } from './settings.js';
import type { SessionRegistry } from './sessions.js';
import type { Publisher } from './publish.js';
import type { LintScheduler } from './scheduler.js';
import { loadConfirmStage } from '../cli/confirm-stage.js';

/** The confirm stage when the build has one that loads; the editor goes on without it otherwise. */
const loadConfirm = () => loadConfirmStage().catch(() => undefined);

export function registerConfirmOnSave(ctx: LspContext, sessions: SessionRegistry, scheduler: LintScheduler, publisher: Publisher): void {
  ctx.documents.onDidSave((e) => {
    if (!ctx.settings.confirmOnSave) return;
    const p = toPath(e.document.uri);
    if (!p) return;
    // Workspace trust: control cases run the folder's own code; only folders the client names.
    if (!isTrusted(ctx.settings, p)) {
      const root = sessions.rootFor(p);
      ctx.notifyOnce(
        `untrusted:${root}`,
        MessageType.Info,
        `vaudit does not run control cases for ${root}: it is not a trusted workspace (add it to vaudit.trustedWorkspaces to run its code on save); showing static findings only.`,
      );
      return;
    }
    void confirmInBackground(ctx, e.document.uri, sessions, scheduler, publisher);
  });
}

async function confirmInBackground(ctx: LspContext, uri: string, sessions: SessionRegistry, scheduler: LintScheduler, publisher: Publisher): Promise<void> {
  const r = await scheduler.settled(uri);
  const doc = ctx.documents.get(uri);
  const p = toPath(uri);
  if (!r || !doc || !p) return;
  const candidates = r.findings.filter((f) => f.control);
  if (candidates.length === 0) return;
  const confirm = await loadConfirm();
  if (!confirm) {
    ctx.notifyOnce('confirm-missing', MessageType.Warning, 'confirmOnSave is on, but this build has no confirmation stage (src/confirm/index.ts); showing static findings only.');
    return;
  }
  const version = doc.version;
  try {
    const session = await sessions.forFile(p);
    const copies = candidates.map((f) => ({ ...f }));
    await confirm(copies, session.project, { ...(session.configFor(p).config.confirm ?? {}), root: session.root });
    const now = ctx.documents.get(uri);
    if (!now || now.version !== version || ctx.shuttingDown) return; // edited meanwhile: stale
    publisher.confirm(uri, version, copies);
    publisher.publish(p, version, r.findings, session);
    ctx.refreshDiagnostics();
  } catch (err) {
    ctx.notifyOnce(`confirm:${(err as Error)?.message}`, MessageType.Warning, `confirmation failed: ${(err as Error)?.message ?? String(err)}`);
  }
}
