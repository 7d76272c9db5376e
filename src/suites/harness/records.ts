/**
 * Task records inside a parsed data file, in the containers harnesses use: the document itself (one
 * task per file), a top-level array, an array one member down (`{"tasks": [...]}`), or an object
 * keyed by id (`{"t1": {...}, "t2": {...}}`).
 */
import type { JsonDocument } from '../../lang/json/parse.js';
import { isObject, joinPointer } from '../../lang/json/parse.js';

/** The member name that stands for a record that is itself a string (`"evals": ["click-button", …]`). */
export const ITEM = '';

export interface TaskRecord {
  pointer: string;
  value: Record<string, unknown>;
  /** The key of an object keyed by id. */
  key?: string;
}

/** Every candidate container of records in a document (a record is a JSON object). */
export function containersOf(doc: JsonDocument): TaskRecord[][] {
  const v = doc.value;
  const out: TaskRecord[][] = [];
  // objects are records; a string item is a record whose whole value is the string (member ITEM)
  const arrayAt = (arr: unknown[], base: string): TaskRecord[] =>
    arr.flatMap((x, i) => (isObject(x) ? [{ pointer: joinPointer(base, i), value: x }] : typeof x === 'string' ? [{ pointer: joinPointer(base, i), value: { [ITEM]: x } }] : []));
  if (Array.isArray(v)) out.push(arrayAt(v, ''));
  else if (isObject(v)) {
    out.push([{ pointer: '', value: v }]);
    for (const [k, m] of Object.entries(v)) {
      if (Array.isArray(m)) out.push(arrayAt(m, joinPointer('', k)));
    }
    const keyed = Object.entries(v).filter(([, m]) => isObject(m));
    if (keyed.length > 1) out.push(keyed.map(([k, m]) => ({ pointer: joinPointer('', k), value: m as Record<string, unknown>, key: k })));
  }
  return out.filter((c) => c.length > 0);
}
