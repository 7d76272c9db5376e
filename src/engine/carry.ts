/**
 * Findings kept across an editor's edits. After a keystroke inside one function, every other function of
 * the file is the same subtree (the incremental parse took its nodes over) reading the same things outside
 * itself (`PythonAnalysis.editConfinedToOneFunction`). The findings a unit-local rule (`meta.unitLocal`)
 * reported while visiting such a function are then the ones it would report again: the session keeps them,
 * moved to the new offsets, and the walk does not run those rules there (`walkPython`'s `carried`).
 *
 * Kept per file, per top-level function (outermost function definition: methods and functions at module
 * level, wherever they are nested in classes, `if` or `try`). Code outside every function, and every rule
 * that is not unit-local, is visited again on every edit.
 *
 * Only for an edit that neither adds nor removes a line break: findings carry line numbers in their data
 * and control cases (`line`), which would otherwise be stale below the edit.
 */
import type { Finding, RelatedLocation } from '../core/types.js';
import type { SourceFile } from '../core/source.js';
import type { PythonAnalysis } from '../lang/python/types.js';
import type { PyNode } from '../lang/python/tree.js';
import { editBetween } from '../lang/python/parser.js';

/** What one lint of a Python file leaves for the next: its text, its units and their findings. */
export interface CarryRecord {
  /** The enabled rules with their severities and options: a settings change carries nothing. */
  rulesKey: string;
  text: string;
  /** Each unit's span in `text` (a unit node taken over by the next parse has moved by then). */
  spans: Map<PyNode, readonly [number, number]>;
  /** Findings of unit-local rules reported inside each unit (copies, before suppressions and fingerprints). */
  byUnit: Map<PyNode, Finding[]>;
}

/** What the next lint takes from a record: the units not to visit with unit-local rules, and their findings. */
export interface Carried {
  units: Set<PyNode>;
  /** By unit, moved to the new text. */
  byUnit: Map<PyNode, Finding[]>;
}

/** The records of a session, by file; `get` answers only while the rest of the project is unchanged. */
export interface CarryStore {
  get(file: string): CarryRecord | undefined;
  set(file: string, record: CarryRecord): void;
  /** How many units a lint of a file kept (stats). */
  kept?(units: number): void;
}

/** Outermost function definitions of a module: no function encloses them (their qualname has no
 *  `<locals>`, the units of the verifier-path walk too, src/engine/reach.ts). */
export function topLevelUnits(a: PythonAnalysis): PyNode[] {
  return a.functions().filter((fn) => !fn.qualname.includes('<locals>')).map((fn) => fn.node);
}

const LINE_BREAK = /[\n\r\u2028\u2029\u0085\f\v]/;

/**
 * The findings of `prev` that hold for `a` (the same file after one edit), or undefined when none can be
 * taken over: other rules or settings, an edit that is not confined to one function, a line break added or
 * removed, or a related location inside the edit.
 */
export function carryFrom(prev: CarryRecord, a: PythonAnalysis, file: SourceFile, units: ReadonlySet<PyNode>, rulesKey: string): Carried | undefined {
  if (prev.rulesKey !== rulesKey || !a.editConfinedToOneFunction(prev.text)) return undefined;
  const e = editBetween(prev.text, a.text);
  if (LINE_BREAK.test(prev.text.slice(e.startIndex, e.oldEndIndex)) || LINE_BREAK.test(a.text.slice(e.startIndex, e.newEndIndex))) return undefined;
  const delta = e.newEndIndex - e.oldEndIndex;
  // an offset of the previous text, in the new one (undefined inside the edit)
  const moved = (o: number): number | undefined => (o <= e.startIndex ? o : o >= e.oldEndIndex ? o + delta : undefined);
  const out: Carried = { units: new Set(), byUnit: new Map() };
  for (const [u, [start, end]] of prev.spans) {
    if (!units.has(u)) continue;
    // the edit is in no unit taken over unchanged; a node moved by another amount is not this edit's
    const d = end <= e.startIndex ? 0 : start >= e.oldEndIndex ? delta : undefined;
    if (d === undefined || u.start !== start + d || u.end !== end + d) continue;
    const findings: Finding[] = [];
    for (const f of prev.byUnit.get(u) ?? []) {
      const s = moved(f.range.start.offset);
      const t = moved(f.range.end.offset);
      if (s === undefined || t === undefined) return undefined;
      let related: RelatedLocation[] | undefined;
      if (f.related) {
        related = [];
        for (const r of f.related) {
          if (r.file !== file.path) { related.push(r); continue; }
          const rs = moved(r.range.start.offset);
          const rt = moved(r.range.end.offset);
          if (rs === undefined || rt === undefined) return undefined;
          related.push({ ...r, range: file.source.range(rs, rt) });
        }
      }
      let autofix = f.autofix;
      if (autofix) {
        const edits = autofix.edits.map((x) => ({ start: moved(x.start), end: moved(x.end), newText: x.newText }));
        if (edits.some((x) => x.start === undefined || x.end === undefined)) return undefined;
        autofix = { title: autofix.title, edits: edits as typeof autofix.edits };
      }
      findings.push({ ...f, range: file.source.range(s, t), ...(related ? { related } : {}), ...(autofix ? { autofix } : {}) });
    }
    out.units.add(u);
    out.byUnit.set(u, findings);
  }
  return out.units.size ? out : undefined;
}

/** A finding as a record keeps it: what the pass reported, before the stages after it add to it. */
export function recordedFinding(f: Finding): Finding {
  const { fingerprint: _f, verifierPath: _v, confirmation: _c, ...rest } = f;
  return rest;
}
