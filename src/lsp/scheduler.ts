/**
 * When to lint what. An edited document is linted at once, alone, and its
 * diagnostics published (what the editor waits for after a keystroke). The
 * other open documents of the same project may depend on what changed (a
 * function another file imports, the verifier an entry routes to, the
 * verifier paths): they are marked stale and linted again once the edits
 * pause (`DEPENDENTS_DELAY_MS`), or at once when a client pulls one of them.
 */
import path from 'node:path';
import { MessageType } from 'vscode-languageserver/node';
import type { LintSession } from '../engine/session.js';
import { INTERNAL_ERROR_RULE } from '../engine/pass.js';
import { languageOf } from '../core/load.js';
import { toPath, type LspContext } from './context.js';
import type { SessionRegistry } from './sessions.js';
import type { DocResult, Publisher } from './publish.js';

/** Quiet time after the last edit before the other open documents are linted again. */
const DEPENDENTS_DELAY_MS = 150;

export class LintScheduler {
  /** Edited documents: linted next. */
  private readonly dirty = new Set<string>();
  /** Open documents that may depend on an edited one: linted when the edits pause. */
  private readonly stale = new Set<string>();
  private idleDue = false;
  private timer?: ReturnType<typeof setTimeout>;
  private running?: Promise<void>;

  constructor(private readonly ctx: LspContext, private readonly sessions: SessionRegistry, private readonly publisher: Publisher) {}

  /** Lint these (edited or newly opened) documents; resolves when nothing is left to lint now. */
  schedule(paths: Iterable<string>): Promise<void> {
    for (const p of paths) {
      this.dirty.add(p);
      this.stale.delete(p);
    }
    this.idleDue = false;
    return this.kick();
  }

  /** Lint every open document (config or settings changed). */
  async relintOpen(): Promise<void> {
    await this.schedule(this.ctx.openPaths());
    this.ctx.refreshDiagnostics();
  }

  /** A document closed: nothing more to lint for it. */
  forget(file: string): void {
    this.dirty.delete(file);
    this.stale.delete(file);
  }

  /** Wait until the document's diagnostics reflect its current version and the files it depends on. */
  async settled(uri: string): Promise<DocResult | undefined> {
    const p = toPath(uri);
    const doc = this.ctx.documents.get(uri);
    if (!p || !languageOf(p)) return undefined;
    for (let i = 0; i < 5; i++) {
      const r = this.publisher.result(uri);
      const current = !!r && (!doc || r.version === doc.version);
      if (current && !this.dirty.has(p) && !this.stale.has(p)) return r;
      if (!current && doc) {
        this.dirty.add(p);
        this.stale.delete(p);
      }
      if (this.stale.has(p)) this.idleDue = true;
      await this.kick();
    }
    return this.publisher.result(uri);
  }

  private kick(): Promise<void> {
    clearTimeout(this.timer);
    this.running ??= this.loop();
    return this.running;
  }

  private async loop(): Promise<void> {
    try {
      while (!this.ctx.shuttingDown) {
        if (this.dirty.size) {
          const batch = [...this.dirty];
          this.dirty.clear();
          await this.lintBatch(batch, true);
        } else if (this.idleDue && this.stale.size) {
          this.idleDue = false;
          const batch = [...this.stale];
          this.stale.clear();
          await this.lintBatch(batch, false);
        } else break;
      }
    } finally {
      this.running = undefined;
    }
    if (this.stale.size && !this.ctx.shuttingDown) {
      this.timer = setTimeout(() => {
        this.idleDue = true;
        void this.kick();
      }, DEPENDENTS_DELAY_MS);
    }
  }

  /** Lint `paths` per session and publish; `edited`: the other open documents of their sessions become stale. */
  private async lintBatch(paths: string[], edited: boolean): Promise<void> {
    const bySession = new Map<Promise<LintSession>, string[]>();
    for (const p of paths) {
      const s = this.sessions.forFile(p);
      let list = bySession.get(s);
      if (!list) bySession.set(s, (list = []));
      list.push(p);
    }
    for (const [sp, targets] of bySession) {
      let session: LintSession;
      try {
        session = await sp;
      } catch (err) {
        this.publisher.sessionError(err);
        continue;
      }
      await this.lintIn(session, targets, edited ? 'linted' : 're-checked');
      if (!edited) continue;
      const done = new Set(targets);
      for (const o of this.ctx.openPaths()) if (!done.has(o) && !this.dirty.has(o) && session.covers(o)) this.stale.add(o);
    }
  }

  /** Lint `targets` in one session and publish them (`verb` names the kind of batch in the log). */
  private async lintIn(session: LintSession, targets: string[], verb: string): Promise<void> {
    const { ctx } = this;
    const versions = new Map<string, number>();
    for (const t of targets) {
      const v = ctx.versionOf(t);
      if (v !== undefined) versions.set(t, v);
    }
    let r;
    try {
      r = await session.lint(targets);
    } catch (err) {
      this.publisher.sessionError(err);
      return;
    }
    for (const t of targets) {
      if (ctx.versionOf(t) === undefined) continue; // closed meanwhile
      const findings = r.byFile.get(t) ?? [];
      for (const f of findings) {
        if (f.ruleId === INTERNAL_ERROR_RULE) {
          const rule = /Rule '([^']+)'/.exec(f.message)?.[1] ?? 'unknown';
          ctx.notifyOnce(`crash:${rule}`, MessageType.Error, f.message);
        }
      }
      this.publisher.publish(t, versions.get(t) ?? 0, findings, session);
    }
    ctx.log(`${verb} ${targets.map((t) => path.basename(t)).join(', ')} in ${r.durationMs.toFixed(1)} ms${r.reparsed.length ? ` (re-parsed ${r.reparsed.length} Python file(s))` : ''}`);
  }
}
