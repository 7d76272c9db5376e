/**
 * One LintSession per project root, created on first use (and warmed for the
 * workspace folders): a file belongs to the deepest workspace folder holding it,
 * else to a session root already open above it, else to its context root.
 */
import path from 'node:path';
import { LintSession } from '../engine/session.js';
import { contextRoot } from '../engine/pass.js';
import { ConfigResolver } from '../config/load.js';
import type { Rule } from '../contract/rule.js';
import { toPath, type LspContext } from './context.js';

const inside = (root: string, file: string) => {
  const rel = path.relative(root, file);
  return !rel.startsWith('..') && !path.isAbsolute(rel);
};

export class SessionRegistry {
  private readonly sessions = new Map<string, Promise<LintSession>>();
  /** Sessions that finished loading (for synchronous buffer updates). */
  private readonly ready = new Map<string, LintSession>();

  constructor(private readonly ctx: LspContext, private readonly rules: () => Promise<ReadonlyMap<string, Rule>>) {}

  /** The config file the settings name for a root (undefined: discovery). */
  configPath(root: string): string | undefined {
    return this.ctx.settings.configPath ? path.resolve(root, this.ctx.settings.configPath) : undefined;
  }

  rootFor(file: string): string {
    const candidates = this.ctx.roots.filter((r) => inside(r, file));
    if (candidates.length) return candidates.sort((a, b) => b.length - a.length)[0]!;
    for (const r of this.sessions.keys()) if (inside(r, file)) return r;
    try {
      return contextRoot(file, new ConfigResolver(path.dirname(file), undefined, this.configPath(path.dirname(file))));
    } catch {
      return path.dirname(file);
    }
  }

  forFile(file: string): Promise<LintSession> {
    return this.at(this.rootFor(file));
  }

  /** The loaded session of a file's root, if it has finished loading. */
  readyFor(file: string): LintSession | undefined {
    return this.ready.get(this.rootFor(file));
  }

  at(root: string): Promise<LintSession> {
    let s = this.sessions.get(root);
    if (!s) {
      s = this.create(root);
      this.sessions.set(root, s);
      s.catch(() => this.drop(root));
    }
    return s;
  }

  private async create(root: string): Promise<LintSession> {
    const ruleSet = await this.rules();
    const session = await LintSession.create({ root, ruleSet, configPath: this.configPath(root), severities: this.ctx.settings.severities });
    // buffers opened before the session existed
    for (const d of this.ctx.documents.all()) {
      const p = toPath(d.uri);
      if (p && session.covers(p)) session.setDocument(p, d.getText());
    }
    this.ready.set(root, session);
    return session;
  }

  /** Forget a root's session (it failed to load or reload). */
  drop(root: string): void {
    this.sessions.delete(root);
    this.ready.delete(root);
  }

  /** Every session (loading or loaded) with its root. */
  entries(): Array<[string, Promise<LintSession>]> {
    return [...this.sessions];
  }

  /** Loaded sessions with their roots (`vaudit/stats`). */
  loaded(): Array<[string, LintSession]> {
    return [...this.ready];
  }

  async disposeAll(): Promise<void> {
    for (const sp of this.sessions.values()) {
      try { await (await sp).dispose(); } catch { /* already reported */ }
    }
    this.sessions.clear();
    this.ready.clear();
  }
}
