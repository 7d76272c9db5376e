/**
 * JSON Lines (`.jsonl`): one JSON value per line, read as one document whose root is the array of
 * the lines' values (pointer `/<line index>`), with every value's offsets in the file.
 */
import { joinPointer, parseJsonDocument, type JsonDocument, type JsonParseResult, type JsonValueRef } from './parse.js';

export function parseJsonLines(text: string): JsonParseResult {
  const values = new Map<string, JsonValueRef>();
  const items: unknown[] = [];
  let offset = 0;
  for (const line of text.split('\n')) {
    const start = offset;
    offset += line.length + 1;
    if (!line.trim()) continue;
    const r = parseJsonDocument(line);
    if (!r.ok) return { ok: false, error: { ...r.error, start: r.error.start + start, end: r.error.end + start } };
    const base = joinPointer('', items.length);
    items.push(r.doc.value);
    for (const [p, v] of r.doc.values) {
      values.set(base + p, {
        ...v,
        pointer: base + p,
        start: v.start + start,
        end: v.end + start,
        ...(v.keyStart !== undefined ? { keyStart: v.keyStart + start, keyEnd: (v.keyEnd ?? v.keyStart) + start } : {}),
      });
    }
  }
  const root: JsonValueRef = { pointer: '', value: items, start: 0, end: text.length };
  values.set('', root);
  const doc: JsonDocument = { text, value: items, root, values, duplicates: [] };
  return { ok: true, doc };
}
