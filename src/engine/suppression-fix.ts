/**
 * The fix of an `unused-suppression` finding: the rule ids that matched nothing leave the directive;
 * a directive left with none is removed (a comment alone on its line with its line, a trailing comment
 * with the spaces before it, a `"//vaudit-ignore"` member with its comma). No fix where the result is
 * not certain: an id that is no rule (a typo of which rule?), text after the directive's list, a
 * comment between JSON members, config `ignores` entries.
 */
import type { Autofix, OffsetEdit } from '../core/types.js';
import type { SourceFile } from '../core/source.js';
import type { Suppression } from './suppress.js';

const PY_DIRECTIVE = /^#\s*vaudit:\s*ignore\[([^\]]*)\]/;
const JS_DIRECTIVE = /^\/\/\s*vaudit-ignore-(?:next-)?line\s+([\w\-, ]+)/;

/** The fix that drops `stale` (ids of known rules) from `s`, or undefined. */
export function unusedSuppressionFix(s: Suppression, stale: readonly string[], file: SourceFile | undefined, known: (id: string) => boolean): Autofix | undefined {
  if (!file || stale.length === 0 || !stale.every(known)) return undefined;
  const keep = s.rules.filter((r) => !stale.includes(r));
  const edit = s.source === 'comment' ? commentEdit(s, keep, file) : s.source === 'json' ? memberEdit(s, keep, file.source.text) : undefined;
  if (!edit) return undefined;
  return { title: keep.length ? `Remove ${stale.join(', ')} from the suppression` : 'Remove the unused suppression', edits: [edit] };
}

function commentEdit(s: Suppression, keep: readonly string[], file: SourceFile): OffsetEdit | undefined {
  const src = file.source;
  const lineStart = src.offsetAt(s.at.line, 1);
  const line = src.lineText(s.at.line);
  const col = s.at.column - 1;
  const m = (file.language === 'python' ? PY_DIRECTIVE : JS_DIRECTIVE).exec(line.slice(col));
  if (!m || line.slice(col + m[0].length).trim() !== '') return undefined;
  if (keep.length) {
    // the list ends the match (before the `]` in Python)
    const listStart = lineStart + col + m[0].length - m[1]!.length - (file.language === 'python' ? 1 : 0);
    const listText = m[1]!.replace(/\s+$/, '');
    return { start: listStart, end: listStart + listText.length, newText: keep.join(', ') };
  }
  const before = line.slice(0, col);
  if (before.trim() === '') {
    // the comment alone on its line: the line goes, with its line break
    const next = s.at.line < src.lineCount ? src.offsetAt(s.at.line + 1, 1) : src.text.length;
    return { start: lineStart, end: next, newText: '' };
  }
  return { start: lineStart + before.replace(/\s+$/, '').length, end: lineStart + line.length, newText: '' };
}

function memberEdit(s: Suppression, keep: readonly string[], text: string): OffsetEdit | undefined {
  const m = s.member;
  if (!m || m.keyStart === undefined) return undefined;
  if (keep.length) {
    const newText = Array.isArray(m.value) ? `[${keep.map((r) => JSON.stringify(r)).join(', ')}]` : JSON.stringify(keep.join(', '));
    return { start: m.start, end: m.end, newText };
  }
  const prev = lastNonSpace(text, m.keyStart - 1);
  const next = firstNonSpace(text, m.end);
  if (prev < 0 || next >= text.length) return undefined;
  if (text[prev] === ',') return { start: prev, end: m.end, newText: '' }; // `, "//vaudit-ignore": […]`
  if (text[prev] !== '{') return undefined; // a comment between members
  if (text[next] === ',') return { start: m.keyStart, end: firstNonSpace(text, next + 1), newText: '' }; // the first member
  if (text[next] === '}') return { start: prev + 1, end: next, newText: '' }; // the only member
  return undefined;
}

function lastNonSpace(text: string, from: number): number {
  let i = from;
  while (i >= 0 && /\s/.test(text[i]!)) i--;
  return i;
}

function firstNonSpace(text: string, from: number): number {
  let i = from;
  while (i < text.length && /\s/.test(text[i]!)) i++;
  return i;
}
