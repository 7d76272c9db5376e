/**
 * replace-not-unique — a TeXstudio `file` entry whose `source` does not
 * occur exactly once in the text that the `touch` initializer wrote to the
 * same path (or whose replacement changes nothing).
 */
import { defineRule } from '../../src/contract/rule.js';
import type { JsonValueRef } from '../../src/lang/json/parse.js';

type Msg = 'absent' | 'ambiguous' | 'noop';

/** Non-overlapping occurrences, like Python's str.count (empty needle: len + 1). */
function countOccurrences(text: string, needle: string): number {
  if (needle === '') return text.length + 1;
  let n = 0;
  for (let i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + needle.length)) n++;
  return n;
}

export default defineRule<Msg>({
  meta: {
    id: 'replace-not-unique',
    description: 'A TeXstudio file entry whose `source` occurs 0 or several times in the touched file (or equals `target`).',
    defaultSeverity: 'error',
    layers: ['suite'],
    languages: ['json'],
    confirm: {
      oracle: 'replace-not-unique',
      description: "Runs Python's own `str.count` and `str.replace` on the touched text with the entry's source and target, as the verifier builds the expected file; confirmed when the source occurs 0 or several times, or the replacement changes nothing.",
    },
    messages: {
      absent: {
        what: '"source" does not occur in the text the touch initializer writes to {{path}}.',
        why: 'The expected file equals the original, so the check passes when the agent changes nothing (or fails for every real edit).',
        fix: 'Copy "source" exactly from the touched text (whitespace and escapes included).',
      },
      ambiguous: {
        what: '"source" occurs {{count}} times in the text the touch initializer writes to {{path}}.',
        why: 'The verifier replaces every occurrence, so the expected file demands {{count}} edits where the instruction asks for one, and a correct agent fails.',
        fix: 'Make "source" unique (include surrounding context).',
      },
      noop: {
        what: '"source" and "target" are identical.',
        why: 'The expected file equals the original, so the check passes without the agent doing anything.',
        fix: 'Set "target" to the text the instruction asks for.',
      },
    },
    docs: {
      whatItDoes:
        'For each TeXstudio `file` entry, finds the `touch` initializer that writes the same `path` (the last one, if several) and counts the non-overlapping occurrences of `source` in its `text`, as Python\'s `str.replace` would replace them. Reports 0 occurrences, more than one, and a `source` equal to its `target`.',
      why: 'The verifier computes the expected file as `text.replace(source, target)` and compares. If `source` is absent, the expected file is the untouched original: doing nothing passes. If it occurs several times, every occurrence is replaced and an agent that makes the one requested edit fails.',
    },
  },
  create() {
    return {
      suite: {
        entry(entry, ctx) {
          if (entry.task.family !== 'TeXstudio' || entry.kind !== 'file') return;
          const path = entry.fields.path?.value;
          const source = entry.fields.source;
          const target = entry.fields.target;
          if (typeof path !== 'string' || typeof source?.value !== 'string') return;
          let touch: JsonValueRef | undefined;
          for (const init of entry.task.initializers) {
            const v = init.value as Record<string, unknown> | null;
            if (v && typeof v === 'object' && v.func === 'touch' && v.path === path && typeof v.text === 'string') touch = init;
          }
          if (!touch) return; // init-missing reports it
          const text = (touch.value as { text: string }).text;
          const textRef = entry.task.values.get(`${touch.pointer}/text`);
          const related = textRef ? [{ file: entry.task.file.path, range: entry.task.file.source.range(textRef.start, textRef.end), message: 'The text the touch initializer writes.' }] : undefined;
          const at = { start: source.start, end: source.end };
          const pointer = source.pointer;
          const control = (kind: Msg) => ({ oracle: 'replace-not-unique', kind, text, source: source.value, target: typeof target?.value === 'string' ? target.value : '' });
          if (typeof target?.value === 'string' && target.value === source.value) {
            ctx.report({ messageId: 'noop', at, pointer, control: control('noop') });
            return;
          }
          const count = countOccurrences(text, source.value);
          if (count === 0) ctx.report({ messageId: 'absent', data: { path }, at, pointer, related, control: control('absent') });
          else if (count > 1) ctx.report({ messageId: 'ambiguous', data: { path, count }, at, pointer, related, control: control('ambiguous') });
        },
      },
    };
  },
});
