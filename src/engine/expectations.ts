/**
 * Inline expectations in fixtures and documentation examples (see
 * fixtures/README.md): `# vaudit-expect: id`, `// vaudit-expect: id`, and
 * `"//vaudit-expect": "id"` members of JSON objects. Used by the rule tester.
 *
 * An id may name the message and the column: `rule-id/messageId` or `rule-id/messageId@12`
 * (1-based column, code files). A named message or column must match exactly.
 */
import type { Finding } from '../core/types.js';
import { joinPointer, pointerWithin } from '../lang/json/parse.js';
import { ruleIdList } from './suppress.js';

export interface Expectation {
  file: string;
  ruleId: string;
  /** Code files: the line the finding must start on. */
  line?: number;
  /** JSON files: the object the finding must lie inside. */
  pointer?: string;
  /** The message id the finding must carry, when the annotation names one. */
  messageId?: string;
  /** Code files: the 1-based column the finding must start on, when the annotation names one. */
  column?: number;
}

const CODE_RE = /(#|\/\/)\s*vaudit-expect:\s*([a-z0-9][a-zA-Z0-9\-/@ ,]*)/;
const ID_RE = /^([a-z0-9][a-z0-9-]*)(?:\/([a-zA-Z][a-zA-Z0-9]*))?(?:@(\d+))?$/;

/** `rule-id`, `rule-id/messageId`, `rule-id/messageId@col` → the parts (undefined: malformed). */
function parseExpectedId(text: string): { ruleId: string; messageId?: string; column?: number } | undefined {
  const m = ID_RE.exec(text.trim());
  if (!m) return undefined;
  return { ruleId: m[1]!, ...(m[2] ? { messageId: m[2] } : {}), ...(m[3] ? { column: Number(m[3]) } : {}) };
}

function expectation(file: string, id: string, at: { line?: number; pointer?: string }): Expectation {
  const p = parseExpectedId(id);
  if (!p) throw new Error(`${file}: malformed vaudit-expect id '${id}' (rule-id, rule-id/messageId or rule-id/messageId@column)`);
  return { file, ...p, ...at };
}

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
            for (const id of ids) out.push(expectation(file, id, { pointer: ptr }));
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
    for (const id of ruleIdList(m[2]!)) out.push(expectation(file, id, { line: target }));
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
        if (e.file !== f.file || e.ruleId !== f.ruleId || e.pointer === undefined || f.pointer === undefined || !sameMessage(e, f)) return;
        if (!pointerWithin(f.pointer, e.pointer)) return;
        if (best < 0 || e.pointer.length > remaining[best]!.pointer!.length) best = i;
      });
      idx = best;
    } else {
      idx = remaining.findIndex(
        (e) => e.file === f.file && e.ruleId === f.ruleId && e.line === f.range.start.line && sameMessage(e, f) && (e.column === undefined || e.column === f.range.start.column),
      );
    }
    if (idx >= 0) remaining.splice(idx, 1);
    else unexpected.push(f);
  }
  return { missing: remaining, unexpected };
}

function sameMessage(e: Expectation, f: Finding): boolean {
  return e.messageId === undefined || e.messageId === f.messageId;
}
