/**
 * Inline expectations in fixtures and documentation examples (see
 * fixtures/README.md): `# vaudit-expect: id`, `// vaudit-expect: id`, and
 * `"//vaudit-expect": "id"` members of JSON objects. Used by the rule tester.
 */
import type { Finding } from './types.js';
import { joinPointer, pointerWithin } from '../lang/json/parse.js';
import { ruleIdList } from './suppress.js';

export interface Expectation {
  file: string;
  ruleId: string;
  /** Code files: the line the finding must start on. */
  line?: number;
  /** JSON files: the object the finding must lie inside. */
  pointer?: string;
}

const CODE_RE = /(#|\/\/)\s*vaudit-expect:\s*([a-z0-9][a-z0-9\- ,]*)/;

/** Expectations declared in one file's text. */
export function readExpectations(file: string, text: string): Expectation[] {
  const out: Expectation[] = [];
  if (file.endsWith('.json')) {
    let doc: unknown;
    try { doc = JSON.parse(text); } catch { return out; }
    const walk = (v: unknown, ptr: string) => {
      if (Array.isArray(v)) v.forEach((x, i) => walk(x, `${ptr}/${i}`));
      else if (v && typeof v === 'object') {
        for (const [k, x] of Object.entries(v)) {
          if (k === '//vaudit-expect') {
            const ids = typeof x === 'string' ? ruleIdList(x) : Array.isArray(x) ? x.filter((y): y is string => typeof y === 'string') : [];
            for (const id of ids) out.push({ file, ruleId: id, pointer: ptr });
          } else walk(x, joinPointer(ptr, k));
        }
      }
    };
    walk(doc, '');
    return out;
  }
  const lines = text.split(/\r\n|\r|\n/);
  lines.forEach((line, i) => {
    const m = CODE_RE.exec(line);
    if (!m) return;
    const own = line.slice(0, m.index).trim() === '';
    let target = i + 1;
    if (own) {
      // a comment-only annotation applies to the next line that is not a comment / blank
      let j = i + 1;
      while (j < lines.length && (/^\s*$/.test(lines[j]!) || /^\s*(#|\/\/)/.test(lines[j]!))) j++;
      target = j + 1;
    }
    for (const id of ruleIdList(m[2]!)) out.push({ file, ruleId: id, line: target });
  });
  return out;
}


export interface ExpectationReport {
  missing: Expectation[];
  unexpected: Finding[];
}

/** Compare findings with expectations as multisets (only for `ruleIds` when given). */
export function compareExpectations(findings: readonly Finding[], expectations: readonly Expectation[], ruleIds?: readonly string[]): ExpectationReport {
  const want = expectations.filter((e) => !ruleIds || ruleIds.includes(e.ruleId));
  const got = findings.filter((f) => !ruleIds || ruleIds.includes(f.ruleId));
  const remaining = [...want];
  const unexpected: Finding[] = [];
  for (const f of got) {
    let idx = -1;
    if (f.file.endsWith('.json')) {
      // the deepest annotated object that contains the finding's pointer
      let best = -1;
      remaining.forEach((e, i) => {
        if (e.file !== f.file || e.ruleId !== f.ruleId || e.pointer === undefined || f.pointer === undefined) return;
        if (!pointerWithin(f.pointer, e.pointer)) return;
        if (best < 0 || e.pointer.length > remaining[best]!.pointer!.length) best = i;
      });
      idx = best;
    } else {
      idx = remaining.findIndex((e) => e.file === f.file && e.ruleId === f.ruleId && e.line === f.range.start.line);
    }
    if (idx >= 0) remaining.splice(idx, 1);
    else unexpected.push(f);
  }
  return { missing: remaining, unexpected };
}
