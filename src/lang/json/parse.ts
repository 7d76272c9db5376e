/**
 * JSON documents with exact positions: every value gets a {@link JsonValueRef}
 * keyed by its RFC 6901 pointer, with UTF-16 offsets of its raw token (and of
 * its member key). When the text is not valid JSON, jsonc-parser
 * (error-tolerant) locates the first error so the diagnostic points at the
 * exact character.
 */
import { parse as jsoncParse, printParseErrorCode, type ParseError } from 'jsonc-parser';
import { ownValue } from '../../core/own.js';

/** A JSON value with its exact position in the file. */
export interface JsonValueRef {
  /** RFC 6901 pointer from the document root. */
  pointer: string;
  value: unknown;
  /** UTF-16 offsets of the raw token (strings include their quotes). */
  start: number;
  end: number;
  /** For object members: offsets of the key token. */
  keyStart?: number;
  keyEnd?: number;
}

interface DuplicateMember {
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

interface JsonSyntaxError {
  message: string;
  /** UTF-16 offsets of the offending text (end > start when possible). */
  start: number;
  end: number;
}

/** JSON whitespace, from `lastIndex` (sticky). */
const WHITESPACE = /[ \t\n\r]+/y;

export type JsonParseResult = { ok: true; doc: JsonDocument } | { ok: false; error: JsonSyntaxError };

/** Escape one reference token of a JSON pointer (RFC 6901). */
function escapePointerToken(token: string): string {
  if (!token.includes('~') && !token.includes('/')) return token;
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** Is JSON pointer `p` the pointer `prefix` or inside it? (`''` contains everything.) */
export function pointerWithin(p: string | undefined, prefix: string): boolean {
  if (p === undefined) return false;
  return prefix === '' || p === prefix || p.startsWith(prefix + '/');
}

/** A JSON object (not an array, not null): the shape task files and their entries have. */
export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A member of a decoded JSON object by its name from the text: `obj["__proto__"]` would be the
 *  prototype, not the member JSON.parse created. */
function own(obj: unknown, name: string): unknown {
  return typeof obj === 'object' && obj !== null ? ownValue(obj as Record<string, unknown>, name) : undefined;
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

/**
 * Parse JSON text. Never throws. A leading BOM is tolerated (treated as whitespace).
 *
 * Values come from the engine's native `JSON.parse` (the same acceptance as
 * Python's json for task files: no comments, no trailing commas, no raw
 * control characters); positions come from one linear scan of the
 * already-validated text. Measured on 169 task files (94 KB): 3–5 ms cold,
 * about 1 ms warm, against 35–55 ms cold for momoa's full token tree. When
 * the text is invalid, jsonc-parser (error-tolerant) locates the first error.
 */
export function parseJsonDocument(text: string): JsonParseResult {
  const src = text.charCodeAt(0) === 0xfeff ? ' ' + text.slice(1) : text;
  if (src.trim() === '') return { ok: false, error: { message: 'The file is empty; a JSON document was expected.', start: 0, end: text.length } };
  let value: unknown;
  try {
    value = JSON.parse(src);
  } catch (e) {
    return { ok: false, error: locateSyntaxError(src, e) };
  }
  const values = new Map<string, JsonValueRef>();
  const duplicates: DuplicateMember[] = [];
  let i = 0;
  // Whitespace runs and strings are skipped by the engine's own search (a sticky regex, indexOf), not
  // character by character: a run is mostly cold code, where a loop per character costs several
  // times JSON.parse itself (task files are mostly long strings and indentation).
  const ws = () => {
    const c = src.charCodeAt(i);
    if (c !== 32 && c !== 10 && c !== 13 && c !== 9) return;
    WHITESPACE.lastIndex = i;
    WHITESPACE.test(src);
    i = WHITESPACE.lastIndex;
  };
  const skipString = () => {
    // at the opening quote: the string ends at the next quote preceded by an even number of backslashes
    let from = i + 1;
    for (;;) {
      const q = src.indexOf('"', from);
      if (q < 0) {
        i = src.length;
        return;
      }
      let b = q - 1;
      while (src.charCodeAt(b) === 92) b--;
      if (((q - 1 - b) & 1) === 0) {
        i = q + 1;
        return;
      }
      from = q + 1;
    }
  };
  const scan = (pointer: string, v: unknown, keyStart?: number, keyEnd?: number): JsonValueRef => {
    ws();
    const start = i;
    const ref: JsonValueRef = { pointer, value: v, start, end: start };
    if (keyStart !== undefined) {
      ref.keyStart = keyStart;
      ref.keyEnd = keyEnd;
    }
    values.set(pointer, ref);
    const c = src.charCodeAt(i);
    if (c === 123) {
      // object
      i++;
      ws();
      // `v` is what JSON.parse kept here: a later duplicate of an enclosing member may hold another shape
      const obj = v;
      if (src.charCodeAt(i) === 125) i++;
      else {
        for (;;) {
          ws();
          const ks = i;
          skipString();
          const ke = i;
          // a key without escapes is its own text
          const raw = src.slice(ks + 1, ke - 1);
          const name = raw.includes('\\') ? (JSON.parse(src.slice(ks, ke)) as string) : raw;
          ws();
          i++; // ':'
          // an earlier member of this name in this object (no map of seen names per object): the
          // member's pointer already holds a value that starts inside this object (one that starts
          // before it came from an earlier occurrence of the object itself, a duplicate of its own)
          const childPointer = joinPointer(pointer, name);
          const earlier = values.get(childPointer);
          const prev = earlier && earlier.start > start ? earlier : undefined;
          // a duplicate is scanned with the value JSON.parse kept (the last occurrence's), so its nested
          // pointers end up with the right values; the earlier occurrence's own value is re-read below
          const child = scan(childPointer, own(obj, name), ks, ke);
          if (prev) {
            // Both occurrences are scanned; the object holds the last one (json.load and JSON.parse agree).
            prev.value = JSON.parse(src.slice(prev.start, prev.end));
            child.value = own(obj, name);
            duplicates.push({ objectPointer: pointer, name, ignored: prev, kept: child });
          }
          ws();
          if (src.charCodeAt(i) === 44) {
            i++;
            continue;
          }
          i++; // '}'
          break;
        }
        // the last occurrence of a duplicated member owns the nested pointers
        if (duplicates.length) for (const d of duplicates) if (d.objectPointer === pointer) d.kept.value = own(obj, d.name);
      }
    } else if (c === 91) {
      i++;
      ws();
      const arr = Array.isArray(v) ? v : [];
      if (src.charCodeAt(i) === 93) i++;
      else {
        for (let k = 0; ; k++) {
          scan(joinPointer(pointer, k), arr[k]);
          ws();
          if (src.charCodeAt(i) === 44) {
            i++;
            continue;
          }
          i++; // ']'
          break;
        }
      }
    } else if (c === 34) {
      skipString();
    } else {
      // number, true, false, null
      while (i < src.length) {
        const d = src.charCodeAt(i);
        if (d === 44 || d === 125 || d === 93 || d === 32 || d === 10 || d === 13 || d === 9) break;
        i++;
      }
    }
    ref.end = i;
    return ref;
  };
  let root: JsonValueRef;
  try {
    root = scan('', value);
  } catch (e) {
    if (!(e instanceof RangeError)) throw e;
    // Deeper than the stack allows (Python's json.load fails with RecursionError long before).
    return { ok: false, error: { message: 'Invalid JSON for a task file: the document is nested too deeply to read (Python\'s json.load raises RecursionError).', start: 0, end: Math.min(1, text.length) } };
  }
  return { ok: true, doc: { text, value, root, values, duplicates } };
}

function locateSyntaxError(src: string, thrown: unknown): JsonSyntaxError {
  const errors: ParseError[] = [];
  try {
    jsoncParse(src, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  } catch {
    // jsonc-parser recurses per nesting level: thousands of `[` overflow its stack (issue 17).
    return { message: 'Invalid JSON: nested too deeply to locate the error (thousands of unclosed `[` or `{`).', start: 0, end: Math.min(1, src.length) };
  }
  const first = errors[0];
  // A raw control character inside a string (jsonc-parser calls the whole string unterminated).
  let inString = false;
  for (let k = 0; k < src.length; k++) {
    const c = src.charCodeAt(k);
    if (inString) {
      if (c === 92) k++;
      else if (c === 34) inString = false;
      else if (c < 32) {
        const code = first ? printParseErrorCode(first.error) : '';
        if (!first || k <= first.offset + first.length || code === 'UnexpectedEndOfString' || code === 'InvalidCharacter') {
          return { message: 'Invalid JSON: invalid character in string (control characters must be escaped).', start: k, end: k + 1 };
        }
        break;
      }
    } else if (c === 34) inString = true;
  }
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
