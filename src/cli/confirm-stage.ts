/**
 * The confirm stage (src/confirm/index.ts), loaded on first use so a plain check or an editor session
 * never pays for it. Loaded by URL through importModule: the single-file build holds its own copy (a
 * bare relative specifier would resolve from the bundle's folder). Used by `check --confirm` and the
 * language server's confirm-on-save.
 */
import { importModule, noteConfirmStage } from '../core/dynamic-import.js';

export type ConfirmFindings = typeof import('../confirm/index.js').confirmFindings;

let stage: Promise<ConfirmFindings | undefined> | undefined;

/** `confirmFindings`, or undefined when this build has no confirm stage; a module that fails to load rejects. */
export function loadConfirmStage(): Promise<ConfirmFindings | undefined> {
  noteConfirmStage();
  return (stage ??= importModule(new URL('../confirm/index.js', import.meta.url).href).then((m) => {
    const fn = (m as { confirmFindings?: unknown }).confirmFindings;
    return typeof fn === 'function' ? (fn as ConfirmFindings) : undefined;
  }));
}
