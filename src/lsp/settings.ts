/** Settings of `vaudit lsp`, from `initializationOptions` and `workspace/didChangeConfiguration` (section `vaudit`). */
import path from 'node:path';
import type { SeveritySetting } from '../core/types.js';

export interface LspSettings {
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

/** Settings from a client's raw value (`{ vaudit: {…} }` or the section itself) over `base`; unknown or ill-typed members are ignored. */
export function parseSettings(raw: unknown, base: LspSettings = {}): LspSettings {
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

/** Is `file` inside one of the workspaces the client trusts to run code from? */
export function isTrusted(settings: LspSettings, file: string): boolean {
  return (settings.trustedWorkspaces ?? []).some((w) => file === w || file.startsWith(w.endsWith(path.sep) ? w : w + path.sep));
}
