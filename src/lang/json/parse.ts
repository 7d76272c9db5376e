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
  /** Every value by pointer (`''` is the root). Positions are located when first asked for (see
   *  {@link parseJsonDocument}); iterating the map locates every value. */
  values: ReadonlyMap<string, JsonValueRef>;
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

/** Nesting (arrays and objects) beyond which a document is not read: Python's json.load raises
 *  RecursionError far sooner (about 1,000 levels), and the task layer walks values recursively. */
const MAX_DEPTH = 4_096;

const TOO_DEEP = "Invalid JSON for a task file: the document is nested too deeply to read (Python's json.load raises RecursionError).";

/** Depth beyond which a document's duplicated members are counted at parse time (see `parseJsonDocument`). */
const EAGER_DEPTH = 512;

/** Every string token of valid JSON (outside strings a quote only ever opens one). */
const STRING_TOKEN = /"[^"\\]*(?:\\.[^"\\]*)*"/g;

/** Brackets, and quotes (a string is then skipped whole). */
const STRUCTURE = /["[\]{}]/g;

/**
 * Parse JSON text. Never throws. A leading BOM is tolerated (treated as whitespace).
 *
 * Values come from the engine's native `JSON.parse` (the same acceptance as
 * Python's json for task files: no comments, no trailing commas, no raw
 * control characters). Which value a pointer names is read from the decoded
 * document; positions are located in the already-validated text only when a
 * reference's position is first read (see `LazyValues`): a run reads the
 * positions of a few values of a few task files (the ones it reports on or
 * analyses embedded code of), and indexing every value of every file cost
 * more than `JSON.parse` itself, cold (Spider2-V: 496 files, 1.6 MB, ≈ 29,500
 * values). A document with a duplicated member (its text has more keys than
 * the decoded document has members) is scanned whole when the duplicates or
 * a value only the earlier occurrence has are asked for. When the text is
 * invalid, jsonc-parser (error-tolerant) locates the first error.
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
  const shape = shapeOf(value);
  const tooDeep = { ok: false as const, error: { message: TOO_DEEP, start: 0, end: Math.min(1, text.length) } };
  if (shape.depth > MAX_DEPTH) return tooDeep;
  // duplicates of a deep document are known now: the whole scan that reports them could run out of stack later
  const duplicated = shape.depth > EAGER_DEPTH ? keyCount(src) !== shape.members : undefined;
  if (!duplicated) {
    const values = new LazyValues(src, value, shape.members, duplicated);
    return {
      ok: true,
      doc: {
        text,
        value,
        root: values.root,
        values,
        get duplicates() {
          return values.duplicates();
        },
      },
    };
  }
  try {
    const { root, values, duplicates } = scanAll(src, value);
    return { ok: true, doc: { text, value, root, values, duplicates } };
  } catch (e) {
    if (!(e instanceof RangeError)) throw e;
    // deeper than the stack allows
    return tooDeep;
  }
}

/** Members (of every object) and nesting depth of a decoded value; iterative, for any depth. */
function shapeOf(value: unknown): { members: number; depth: number } {
  let members = 0;
  let depth = 0;
  const stack: unknown[] = [value];
  const depths: number[] = [1];
  while (stack.length) {
    const v = stack.pop();
    const d = depths.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (d > depth) depth = d;
    if (Array.isArray(v)) {
      for (let k = 0; k < v.length; k++) {
        const c: unknown = v[k];
        if (typeof c === 'object' && c !== null) {
          stack.push(c);
          depths.push(d + 1);
        }
      }
    } else {
      const keys = Object.keys(v);
      members += keys.length;
      for (let k = 0; k < keys.length; k++) {
        const c = (v as Record<string, unknown>)[keys[k]!];
        if (typeof c === 'object' && c !== null) {
          stack.push(c);
          depths.push(d + 1);
        }
      }
    }
  }
  return { members, depth };
}

/** Member keys in valid JSON text: with every string token cut to one quote, a colon follows each key
 *  and nothing else. -1 when the engine cannot match the strings (the caller then scans the text). */
function keyCount(src: string): number {
  let bare: string;
  try {
    bare = src.replace(STRING_TOKEN, '"');
  } catch {
    return -1;
  }
  let n = 0;
  for (let k = bare.indexOf(':'); k >= 0; k = bare.indexOf(':', k + 1)) n++;
  return n;
}

/** One pass over valid JSON text: the end of every array and object, by its start. Strings are skipped
 *  whole (`indexOf`), the rest is found by the engine's own search. */
function structureOf(src: string): Map<number, number> {
  const ends = new Map<number, number>();
  const open: number[] = [];
  STRUCTURE.lastIndex = 0;
  while (STRUCTURE.test(src)) {
    const q = STRUCTURE.lastIndex - 1;
    const c = src.charCodeAt(q);
    if (c === 34) STRUCTURE.lastIndex = stringEnd(src, q);
    else if (c === 123 || c === 91) open.push(q);
    else ends.set(open.pop()!, q + 1);
  }
  return ends;
}

function isWhitespace(c: number): boolean {
  return c === 32 || c === 10 || c === 13 || c === 9;
}

/** The first offset at or after `i` that is not JSON whitespace. Runs are skipped by the engine's own
 *  search (a sticky regex), not character by character: mostly cold code, where a loop per character
 *  costs several times JSON.parse itself (task files are mostly long strings and indentation). */
function skipWhitespace(src: string, i: number): number {
  if (!isWhitespace(src.charCodeAt(i))) return i;
  WHITESPACE.lastIndex = i;
  WHITESPACE.test(src);
  return WHITESPACE.lastIndex;
}

/** The end of the string token whose opening quote is at `i`: the next quote preceded by an even
 *  number of backslashes. */
function stringEnd(src: string, i: number): number {
  let from = i + 1;
  for (;;) {
    const q = src.indexOf('"', from);
    if (q < 0) return src.length;
    let b = q - 1;
    while (src.charCodeAt(b) === 92) b--;
    if (((q - 1 - b) & 1) === 0) return q + 1;
    from = q + 1;
  }
}

/** The end of the value token that starts at `i` (a container ends after its closing bracket: `ends`,
 *  from {@link structureOf}). */
function valueEnd(src: string, i: number, ends: ReadonlyMap<number, number>): number {
  const c = src.charCodeAt(i);
  if (c === 34) return stringEnd(src, i);
  if (c === 123 || c === 91) return ends.get(i) ?? src.length;
  // number, true, false, null
  while (i < src.length) {
    const d = src.charCodeAt(i);
    if (d === 44 || d === 125 || d === 93 || isWhitespace(d)) break;
    i++;
  }
  return i;
}

/** A member's name from its key token (a key without escapes is its own text). */
function keyName(src: string, ks: number, ke: number): string {
  const raw = src.slice(ks + 1, ke - 1);
  return raw.includes('\\') ? (JSON.parse(src.slice(ks, ke)) as string) : raw;
}

/** Where a value's tokens are (see {@link JsonValueRef}). */
interface Position {
  start: number;
  end: number;
  keyStart?: number;
  keyEnd?: number;
}

/** A member located in its container's text: its pointer, its name or index, and where it is. */
interface LocatedMember {
  pointer: string;
  token: string | number;
  at: Position;
}

/** A value handed out before its position was needed: the position is located on first read. */
class LazyRef implements JsonValueRef {
  private at: Position | undefined;

  constructor(
    readonly pointer: string,
    public value: unknown,
    private readonly doc: LazyValues,
  ) {}

  private position(): Position {
    return (this.at ??= this.doc.locate(this.pointer));
  }

  get start(): number {
    return this.position().start;
  }

  get end(): number {
    return this.position().end;
  }

  get keyStart(): number | undefined {
    return this.position().keyStart;
  }

  get keyEnd(): number | undefined {
    return this.position().keyEnd;
  }
}

/** Is `token` how {@link joinPointer} writes an array index? */
function indexToken(token: string): number | undefined {
  if (token === '0') return 0;
  const c = token.charCodeAt(0); // NaN for ''
  if (!(c >= 49 && c <= 57)) return undefined;
  for (let k = 1; k < token.length; k++) {
    const d = token.charCodeAt(k);
    if (d < 48 || d > 57) return undefined;
  }
  return Number(token);
}

/**
 * The pointer → value map of a parsed document, built on demand. Whether a pointer names a value, and
 * which value, comes from the decoded document alone (an object's own member, an index in range:
 * JSON.parse keeps exactly the members the text spells, the last of duplicates); positions are located
 * only when a reference's position is first read: its parent's first (recursively), then every member
 * of that parent in one pass over its text. Iterating gives every value in document order, as one scan
 * of the whole text records them, with the references already handed out.
 *
 * A document with duplicated members also records, in the whole scan, values of the earlier
 * occurrences that the decoded document lacks: a pointer the decoded document does not have is looked
 * up there, after counting the text's keys against the document's members to know whether it has
 * duplicates.
 */
class LazyValues implements ReadonlyMap<string, JsonValueRef> {
  /** References handed out, by pointer. */
  private readonly refs = new Map<string, JsonValueRef>();
  /** Positions located so far, by pointer. */
  private readonly positions = new Map<string, Position>();
  /** The members of every container located so far, by its pointer. */
  private readonly memberLists = new Map<string, LocatedMember[]>();
  /** The end of every container, by its start ({@link structureOf}, when a position is first needed). */
  private ends: Map<number, number> | undefined;
  private scanned: ReturnType<typeof scanAll> | undefined;
  /** Whether the text has a `\u` escape (see `unspelled`). */
  private unicodeEscapes: boolean | undefined;
  private all: Map<string, JsonValueRef> | undefined;

  constructor(
    private readonly src: string,
    value: unknown,
    /** Members of every object of the decoded document. */
    private readonly members: number,
    /** Whether the text has duplicated members; counted when first needed. */
    private duplicated?: boolean,
  ) {
    this.refs.set('', new LazyRef('', value, this));
  }

  get root(): JsonValueRef {
    return this.refs.get('')!;
  }

  get(pointer: string): JsonValueRef | undefined {
    if (this.all) return this.all.get(pointer);
    const hit = this.refs.get(pointer);
    if (hit !== undefined) return hit;
    const cut = pointer.lastIndexOf('/');
    const parent = cut < 0 ? undefined : this.get(pointer.slice(0, cut));
    // looking the parent up may have iterated (a document with duplicates)
    const all = this.all as Map<string, JsonValueRef> | undefined;
    if (all) return all.get(pointer);
    if (parent !== undefined) {
      const v = parent.value;
      const token = pointer.slice(cut + 1);
      let found = false;
      let child: unknown;
      if (Array.isArray(v)) {
        const k = indexToken(token);
        if (k !== undefined && k < v.length) {
          found = true;
          child = v[k];
        }
      } else if (typeof v === 'object' && v !== null) {
        const name = token.includes('~') ? token.replace(/~1/g, '/').replace(/~0/g, '~') : token;
        if (Object.hasOwn(v, name) && escapePointerToken(name) === token) {
          found = true;
          child = (v as Record<string, unknown>)[name];
        }
      }
      if (found) {
        const ref = new LazyRef(pointer, child, this);
        this.refs.set(pointer, ref);
        return ref;
      }
    }
    if (cut >= 0 && this.unspelled(pointer.slice(cut + 1))) return undefined;
    return this.hasDuplicates() ? this.everything().get(pointer) : undefined;
  }

  /** Does no key of the text name the member `token` names? Then no occurrence of any object has it
   *  (duplicates need not be counted). Decided only when its one spelling is `"name"`: the name needs
   *  no escape and the text has no `\u` escape (the others stand for `"`, `\`, `/` and controls). */
  private unspelled(token: string): boolean {
    for (let k = 0; k < token.length; k++) {
      const c = token.charCodeAt(k);
      if (c < 32 || c === 34 || c === 92 || c === 47 || c === 126) return false; // controls, `"`, `\\`, `/`, `~`
    }
    this.unicodeEscapes ??= this.src.includes('\\u');
    return !this.unicodeEscapes && !this.src.includes(`"${token}"`);
  }

  has(pointer: string): boolean {
    return this.get(pointer) !== undefined;
  }

  get size(): number {
    return this.everything().size;
  }

  forEach(fn: (value: JsonValueRef, key: string, map: ReadonlyMap<string, JsonValueRef>) => void, thisArg?: unknown): void {
    for (const [k, v] of this.everything()) fn.call(thisArg, v, k, this);
  }

  entries(): MapIterator<[string, JsonValueRef]> {
    return this.everything().entries();
  }

  keys(): MapIterator<string> {
    return this.everything().keys();
  }

  values(): MapIterator<JsonValueRef> {
    return this.everything().values();
  }

  [Symbol.iterator](): MapIterator<[string, JsonValueRef]> {
    return this.everything().entries();
  }

  /** The duplicated members (the whole scan reports them). */
  duplicates(): DuplicateMember[] {
    return this.hasDuplicates() ? this.scan().duplicates : [];
  }

  /** The position of a value the decoded document has. */
  locate(pointer: string): Position {
    const hit = this.positions.get(pointer);
    if (hit) return hit;
    if (pointer === '') {
      const src = this.src;
      const start = skipWhitespace(src, 0);
      let end = src.length;
      while (end > start && isWhitespace(src.charCodeAt(end - 1))) end--;
      const at = { start, end };
      this.positions.set('', at);
      return at;
    }
    const parent = pointer.slice(0, pointer.lastIndexOf('/'));
    if (!this.memberLists.has(parent)) this.locateMembers(parent, this.locate(parent));
    return this.positions.get(pointer)!;
  }

  private hasDuplicates(): boolean {
    return (this.duplicated ??= keyCount(this.src) !== this.members);
  }

  private scan(): ReturnType<typeof scanAll> {
    return (this.scanned ??= scanAll(this.src, this.refs.get('')!.value));
  }

  /** Locate the members of the container at `pointer` (none for a scalar), in document order; a later
   *  duplicate's position replaces the earlier one's, as in the whole scan. */
  private locateMembers(pointer: string, at: Position): LocatedMember[] {
    const out: LocatedMember[] = [];
    this.memberLists.set(pointer, out);
    const src = this.src;
    const open = src.charCodeAt(at.start);
    if (open !== 123 && open !== 91) return out;
    const ends = (this.ends ??= structureOf(this.src));
    let i = skipWhitespace(src, at.start + 1);
    if (src.charCodeAt(i) === open + 2) return out; // `{}` or `[]`
    for (let k = 0; ; k++) {
      i = skipWhitespace(src, i);
      let m: LocatedMember;
      if (open === 123) {
        const ke = stringEnd(src, i);
        const name = keyName(src, i, ke);
        const start = skipWhitespace(src, skipWhitespace(src, ke) + 1); // after ':'
        m = { pointer: joinPointer(pointer, name), token: name, at: { start, end: valueEnd(src, start, ends), keyStart: i, keyEnd: ke } };
      } else m = { pointer: joinPointer(pointer, k), token: k, at: { start: i, end: valueEnd(src, i, ends) } };
      this.positions.set(m.pointer, m.at);
      out.push(m);
      i = skipWhitespace(src, m.at.end);
      if (src.charCodeAt(i) !== 44) return out; // the closing bracket
      i++;
    }
  }

  /** Every value in document order: the whole scan's, or (no duplicates) a walk over the containers,
   *  depth first, without the stack; references already handed out are kept. */
  private everything(): Map<string, JsonValueRef> {
    if (this.all) return this.all;
    let all: Map<string, JsonValueRef>;
    if (this.hasDuplicates()) {
      all = this.scan().values;
      for (const [p, ref] of this.refs) if (all.has(p)) all.set(p, ref);
    } else {
      all = new Map();
      const stack: { pointer: string; value: unknown }[] = [this.refs.get('')!];
      while (stack.length) {
        const { pointer, value } = stack.pop()!;
        let ref = this.refs.get(pointer);
        if (!ref) {
          const at = this.locate(pointer);
          ref = { pointer, value, start: at.start, end: at.end };
          if (at.keyStart !== undefined) {
            ref.keyStart = at.keyStart;
            ref.keyEnd = at.keyEnd;
          }
        }
        all.set(pointer, ref);
        const members = this.memberLists.get(pointer) ?? this.locateMembers(pointer, this.locate(pointer));
        for (let k = members.length - 1; k >= 0; k--) {
          const m = members[k]!;
          stack.push({ pointer: m.pointer, value: typeof m.token === 'number' ? (value as unknown[])[m.token] : own(value, m.token) });
        }
      }
    }
    this.all = all;
    this.refs.clear();
    this.positions.clear();
    this.memberLists.clear();
    return all;
  }
}

/** No container ends (the whole scan asks `valueEnd` for scalars only). */
const NO_ENDS = new Map<number, number>();

/** Every value's position in one recursive pass, with the duplicated members (a document that has some). */
function scanAll(src: string, value: unknown): { root: JsonValueRef; values: Map<string, JsonValueRef>; duplicates: DuplicateMember[] } {
  const values = new Map<string, JsonValueRef>();
  const duplicates: DuplicateMember[] = [];
  let i = 0;
  const scan = (pointer: string, v: unknown, keyStart?: number, keyEnd?: number): JsonValueRef => {
    i = skipWhitespace(src, i);
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
      i = skipWhitespace(src, i + 1);
      // `v` is what JSON.parse kept here: a later duplicate of an enclosing member may hold another shape
      const obj = v;
      if (src.charCodeAt(i) === 125) i++;
      else {
        for (;;) {
          const ks = skipWhitespace(src, i);
          const ke = stringEnd(src, ks);
          const name = keyName(src, ks, ke);
          i = skipWhitespace(src, ke) + 1; // ':'
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
          i = skipWhitespace(src, i);
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
      i = skipWhitespace(src, i + 1);
      const arr = Array.isArray(v) ? v : [];
      if (src.charCodeAt(i) === 93) i++;
      else {
        for (let k = 0; ; k++) {
          scan(joinPointer(pointer, k), arr[k]);
          i = skipWhitespace(src, i);
          if (src.charCodeAt(i) === 44) {
            i++;
            continue;
          }
          i++; // ']'
          break;
        }
      }
    } else i = valueEnd(src, i, NO_ENDS);
    ref.end = i;
    return ref;
  };
  const root = scan('', value);
  return { root, values, duplicates };
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
