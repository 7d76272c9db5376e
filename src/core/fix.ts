/**
 * Applying fixes to a text (`vaudit check --fix`): as ESLint does, the fixes of one pass that do not
 * overlap are applied, the others wait for the next pass (after a re-lint, their findings come back
 * with edits against the new text).
 */
import type { Autofix, OffsetEdit } from './types.js';

/** `text` with `edits` (not overlapping) applied. */
export function applyEdits(text: string, edits: readonly OffsetEdit[]): string {
  let out = text;
  for (const e of [...edits].sort((a, b) => b.start - a.start)) out = out.slice(0, e.start) + e.newText + out.slice(e.end);
  return out;
}

/** Two edits touch: they overlap, or both insert at one place (their order would be a guess). */
function touch(a: OffsetEdit, b: OffsetEdit): boolean {
  if (a.start === a.end && b.start === b.end) return a.start === b.start;
  return a.start < b.end && b.start < a.end;
}

/**
 * `text` with the fixes that fit applied, in the order of their first edit; a fix touching one taken
 * before it, out of range, or a repeat of one taken (two findings with one fix) is left out.
 */
export function applyFixes(text: string, fixes: readonly Autofix[]): { text: string; applied: Autofix[] } {
  const taken: OffsetEdit[] = [];
  const applied: Autofix[] = [];
  const seen = new Set<string>();
  const first = (f: Autofix) => Math.min(...f.edits.map((e) => e.start));
  for (const fix of [...fixes].sort((a, b) => first(a) - first(b))) {
    const key = JSON.stringify(fix.edits);
    if (seen.has(key)) continue;
    seen.add(key);
    const ok = fix.edits.length > 0 && fix.edits.every((e, i) => 0 <= e.start && e.start <= e.end && e.end <= text.length && !taken.some((t) => touch(t, e)) && !fix.edits.some((o, j) => j !== i && touch(o, e)));
    if (!ok) continue;
    taken.push(...fix.edits);
    applied.push(fix);
  }
  return { text: applyEdits(text, taken), applied };
}
