/**
 * JSON documents with exact positions. momoa (strict JSON) builds the tree:
 * every value gets a {@link JsonValueRef} keyed by its RFC 6901 pointer, with
 * UTF-16 offsets of its raw token (and of its member key). When momoa
 * rejects the text, jsonc-parser (error-tolerant) locates the first error so
 * the diagnostic points at the exact character.
 */
import { parse as momoaParse, type ValueNode } from '@humanwhocodes/momoa';
import { parse as jsoncParse, printParseErrorCode, type ParseError } from 'jsonc-parser';
import type { JsonValueRef } from '../../suites/types.js';

export interface DuplicateMember {
  /** Pointer of the object holding the duplicate. */
  objectPointer: string;
  name: string;
  /** The member that json.load/JSON.parse ignore (the earlier one). */
  ignored: JsonValueRef;
  /** The member that wins (the later one). */
  kept: JsonValueRef;
}

export interface JsonDocument {
  text: string;
  /** The decoded document (later duplicate members win, as in Python's json and JSON.parse). */
  value: unknown;
  root: JsonValueRef;
  /** Every value by pointer (`''` is the root). */
  values: Map<string, JsonValueRef>;
  duplicates: DuplicateMember[];
}

export interface JsonSyntaxError {
  message: string;
  /** UTF-16 offsets of the offending text (end > start when possible). */
  start: number;
  end: number;
}

export type JsonParseResult = { ok: true; doc: JsonDocument } | { ok: false; error: JsonSyntaxError };

/** Escape one reference token of a JSON pointer (RFC 6901). */
export function escapePointerToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

export function joinPointer(base: string, token: string | number): string {
  return `${base}/${typeof token === 'number' ? token : escapePointerToken(token)}`;
}

/** Split a JSON pointer into its unescaped tokens. */
export function splitPointer(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function setMember(obj: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  else obj[key] = value;
}

/** Parse JSON text. Never throws. A leading BOM is tolerated (treated as whitespace). */
export function parseJsonDocument(text: string): JsonParseResult {
  const src = text.charCodeAt(0) === 0xfeff ? ' ' + text.slice(1) : text;
  if (src.trim() === '') return { ok: false, error: { message: 'The file is empty; a JSON document was expected.', start: 0, end: text.length } };
  let body: ValueNode;
  try {
    body = momoaParse(src, { mode: 'json', ranges: true }).body;
  } catch (e) {
    return { ok: false, error: locateSyntaxError(src, e) };
  }
  const values = new Map<string, JsonValueRef>();
  const duplicates: DuplicateMember[] = [];
  const build = (node: ValueNode, pointer: string, keyStart?: number, keyEnd?: number): { ref: JsonValueRef; value: unknown } => {
    let value: unknown;
    const ref: JsonValueRef = { pointer, value: undefined, start: node.range![0], end: node.range![1] };
    if (keyStart !== undefined) {
      ref.keyStart = keyStart;
      ref.keyEnd = keyEnd;
    }
    values.set(pointer, ref);
    switch (node.type) {
      case 'Object': {
        const obj: Record<string, unknown> = {};
        const seen = new Map<string, JsonValueRef>();
        for (const m of node.members) {
          const name = m.name.type === 'String' ? m.name.value : m.name.name;
          const p = joinPointer(pointer, name);
          const prev = seen.get(name);
          const child = build(m.value, p, m.name.range![0], m.name.range![1]);
          if (prev) duplicates.push({ objectPointer: pointer, name, ignored: prev, kept: child.ref });
          seen.set(name, child.ref);
          setMember(obj, name, child.value);
        }
        value = obj;
        break;
      }
      case 'Array': {
        const arr: unknown[] = [];
        node.elements.forEach((el, i) => arr.push(build(el.value, joinPointer(pointer, i)).value));
        value = arr;
        break;
      }
      case 'Null':
        value = null;
        break;
      case 'String':
      case 'Number':
      case 'Boolean':
        value = node.value;
        break;
      default:
        value = null; // NaN/Infinity: json5 only, unreachable in json mode
    }
    ref.value = value;
    return { ref, value };
  };
  let ctrl: JsonSyntaxError | undefined;
  const { ref, value } = build(body, '');
  // momoa accepts raw control characters inside strings; json.load and JSON.parse reject them.
  const CTRL = /[\u0000-\u001f]/;
  const check = (s: number, e: number) => {
    const m = CTRL.exec(src.slice(s, e));
    if (!m) return;
    const at = s + m.index;
    if (!ctrl || at < ctrl.start) ctrl = { message: 'Invalid JSON: invalid character in string (control characters must be escaped).', start: at, end: at + 1 };
  };
  for (const r of values.values()) {
    if (typeof r.value === 'string' && CTRL.test(r.value)) check(r.start, r.end);
    if (r.keyStart !== undefined && r.keyEnd !== undefined && CTRL.test(src.slice(r.keyStart, r.keyEnd))) check(r.keyStart, r.keyEnd);
  }
  if (ctrl) return { ok: false, error: ctrl };
  return { ok: true, doc: { text, value, root: ref, values, duplicates } };
}

function locateSyntaxError(src: string, thrown: unknown): JsonSyntaxError {
  const errors: ParseError[] = [];
  jsoncParse(src, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  const first = errors[0];
  if (first) {
    if ((first.error === 3 || first.error === 4) && /[}\]]/.test(src[first.offset] ?? '')) {
      // `[1, 2,]` / `{"a": 1,}`: point at the trailing comma, as Python's json does.
      let k = first.offset - 1;
      while (k >= 0 && /\s/.test(src[k]!)) k--;
      if (src[k] === ',') return { message: 'Invalid JSON: trailing comma before the end of the array or object.', start: k, end: k + 1 };
    }
    const start = Math.min(first.offset, src.length);
    let end = Math.min(first.offset + Math.max(first.length, 1), src.length);
    if (end <= start) end = Math.min(start + 1, src.length);
    return { message: `Invalid JSON: ${describe(printParseErrorCode(first.error))}.`, start, end };
  }
  // jsonc-parser accepted what momoa rejected (e.g. a control character inside a string).
  const t = thrown as { message?: string; offset?: number; index?: number; line?: number; column?: number };
  let off = typeof t.offset === 'number' ? t.offset : typeof t.index === 'number' ? t.index : 0;
  if (typeof t.offset !== 'number' && typeof t.line === 'number' && typeof t.column === 'number') {
    let line = 1;
    off = 0;
    while (line < t.line && off < src.length) {
      if (src.charCodeAt(off) === 10) line++;
      off++;
    }
    off += t.column - 1;
  }
  off = Math.max(0, Math.min(off, src.length));
  const msg = String(t.message ?? 'syntax error').replace(/\s*\(\d+:\d+\)\s*$/, '');
  return { message: `Invalid JSON: ${msg.replace(/\.$/, '')}.`, start: off, end: Math.min(off + 1, src.length) };
}

function describe(code: string): string {
  switch (code) {
    case 'InvalidSymbol': return 'unexpected character';
    case 'InvalidNumberFormat': return 'invalid number';
    case 'PropertyNameExpected': return 'a property name in double quotes was expected';
    case 'ValueExpected': return 'a value was expected';
    case 'ColonExpected': return "a ':' was expected";
    case 'CommaExpected': return "a ',' was expected";
    case 'CloseBraceExpected': return "a '}' was expected";
    case 'CloseBracketExpected': return "a ']' was expected";
    case 'EndOfFileExpected': return 'the document should end here';
    case 'InvalidCommentToken': return 'comments are not allowed in JSON';
    case 'UnexpectedEndOfComment': return 'unterminated comment';
    case 'UnexpectedEndOfString': return 'unterminated string';
    case 'UnexpectedEndOfNumber': return 'unterminated number';
    case 'InvalidUnicode': return 'invalid \\u escape';
    case 'InvalidEscapeCharacter': return 'invalid escape sequence';
    case 'InvalidCharacter': return 'invalid character in string (control characters must be escaped)';
    default: return code;
  }
}
