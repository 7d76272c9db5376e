/**
 * A faithful parser for Python `re` syntax (str patterns, CPython 3.11's
 * `sre_parse` + the look-behind width check of `sre_compile`). It accepts
 * exactly what `re.compile` accepts, as far as syntax goes (the one gap:
 * `\N{name}` is accepted for any non-empty name — no Unicode name table — so
 * an undefined name is never flagged; conservative by design). It produces a
 * small AST that `toEcmaScript` translates for ReDoS analysis.
 *
 * Positions are UTF-16 offsets into the pattern string.
 */

export const MAXREPEAT = 4294967295;

export type PyNode =
  | { t: 'lit'; cp: number }
  | { t: 'any' }
  | { t: 'cat'; name: 'd' | 'D' | 's' | 'S' | 'w' | 'W' }
  | { t: 'class'; neg: boolean; items: ClassItem[] }
  | { t: 'at'; name: 'bol' | 'eol' | 'A' | 'Z' | 'b' | 'B' }
  | { t: 'group'; index: number | null; name: string | null; addFlags: number; delFlags: number; body: PyAlt }
  | { t: 'atomic'; body: PyAlt }
  | { t: 'look'; behind: boolean; neg: boolean; body: PyAlt }
  | { t: 'cond'; ref: number; yes: PyNode[]; no: PyNode[] | null }
  | { t: 'backref'; index: number }
  | { t: 'repeat'; min: number; max: number; mode: 'greedy' | 'lazy' | 'possessive'; body: PyNode[] };

export type ClassItem = { t: 'lit'; cp: number } | { t: 'range'; lo: number; hi: number } | { t: 'cat'; name: 'd' | 'D' | 's' | 'S' | 'w' | 'W' };

export interface PyAlt {
  t: 'alt';
  branches: PyNode[][];
}

export const FLAG = { i: 2, L: 4, m: 8, s: 16, u: 32, x: 64, a: 256, t: 1 } as const;
const TYPE_FLAGS = FLAG.a | FLAG.L | FLAG.u;
const GLOBAL_FLAGS = FLAG.t;

export interface PyPattern {
  body: PyAlt;
  /** Global flags (after inline global groups). */
  flags: number;
  groups: number;
  groupNames: Map<string, number>;
}

export class PyReError extends Error {
  constructor(
    message: string,
    /** UTF-16 offset where Python reports the error. */
    readonly pos: number,
    /** Length of the offending text (≥ 1 when inside the pattern). */
    readonly length: number,
  ) {
    super(message);
  }
}

/** Nested groups at which CPython's re parser raises RecursionError (3.11, default recursion limit). */
const MAX_NESTED_GROUPS = 496;

const SPECIAL = new Set('.\\[{()*+?^$|');
const REPEAT_CHARS = new Set('*+?{');
const DIGITS = /^[0-9]$/;
const OCT = /^[0-7]$/;
const HEX = /^[0-9a-fA-F]$/;
const WHITESPACE = new Set(' \t\n\r\v\f');
const ASCII_LETTER = /^[A-Za-z]$/;
const CATS: Record<string, PyNode> = {
  '\\A': { t: 'at', name: 'A' },
  '\\b': { t: 'at', name: 'b' },
  '\\B': { t: 'at', name: 'B' },
  '\\Z': { t: 'at', name: 'Z' },
  '\\d': { t: 'cat', name: 'd' },
  '\\D': { t: 'cat', name: 'D' },
  '\\s': { t: 'cat', name: 's' },
  '\\S': { t: 'cat', name: 'S' },
  '\\w': { t: 'cat', name: 'w' },
  '\\W': { t: 'cat', name: 'W' },
};
const ESCAPES: Record<string, number> = { '\\a': 7, '\\b': 8, '\\f': 12, '\\n': 10, '\\r': 13, '\\t': 9, '\\v': 11, '\\\\': 92 };

/** Python's str.isidentifier() for group names (ASCII-exact; non-ASCII approximated with Unicode ID_Start/ID_Continue). */
function isIdentifier(s: string): boolean {
  return /^[\p{ID_Start}_][\p{ID_Continue}]*$/u.test(s);
}

/** Tokenizer over code points, like sre_parse.Tokenizer (an escape is one token: `\` + next code point). */
class Source {
  private index = 0; // UTF-16 index of `next`
  next: string | null = null;
  private nextStart = 0;
  constructor(readonly text: string) {
    this.advance();
  }
  private advance(): void {
    const t = this.text;
    this.nextStart = this.index;
    if (this.index >= t.length) {
      this.next = null;
      return;
    }
    const cp = t.codePointAt(this.index)!;
    let ch = String.fromCodePoint(cp);
    if (ch === '\\') {
      const c2 = t.codePointAt(this.index + 1);
      if (c2 === undefined) throw new PyReError('bad escape (end of pattern)', this.index, 1);
      ch += String.fromCodePoint(c2);
    }
    this.index += ch.length;
    this.next = ch;
  }
  /** UTF-16 offset of the next token. */
  tell(): number {
    return this.nextStart;
  }
  match(c: string): boolean {
    if (this.next === c) {
      this.advance();
      return true;
    }
    return false;
  }
  get(): string | null {
    const n = this.next;
    if (n !== null) this.advance();
    return n;
  }
  getwhile(n: number, re: RegExp): string {
    let out = '';
    for (let i = 0; i < n; i++) {
      const c = this.next;
      if (c === null || !re.test(c)) break;
      out += c;
      this.advance();
    }
    return out;
  }
  getuntil(terminator: string, name: string): string {
    let out = '';
    const start = this.tell();
    for (;;) {
      const c = this.next;
      this.advance();
      if (c === null) {
        if (!out) throw new PyReError(`missing ${name}`, start, 0);
        throw new PyReError(`missing ${terminator}, unterminated name`, start, out.length);
      }
      if (c === terminator) {
        if (!out) throw new PyReError(`missing ${name}`, start, 1);
        break;
      }
      out += c;
    }
    return out;
  }
  seek(index: number): void {
    this.index = index;
    this.advance();
  }
  err(message: string, back = 0, length = 1): PyReError {
    const pos = Math.max(0, this.tell() - back);
    return new PyReError(message, pos, Math.max(1, length));
  }
}

interface State {
  flags: number;
  groupdict: Map<string, number>;
  /** widths of groups (index 0 unused); null while open. */
  groupwidths: Array<[number, number] | null>;
  lookbehindgroups: number | null;
  grouprefpos: Map<number, number>;
}

function groupsOf(s: State): number {
  return s.groupwidths.length;
}
function checkgroup(s: State, gid: number): boolean {
  return gid < groupsOf(s) && s.groupwidths[gid] !== null;
}
function checklookbehindgroup(s: State, gid: number, src: Source, back: number): void {
  if (s.lookbehindgroups !== null) {
    // CPython reports these at the current position (no offset).
    if (!checkgroup(s, gid)) throw src.err('cannot refer to an open group', 0, back);
    if (gid >= s.lookbehindgroups) throw src.err('cannot refer to group defined in the same lookbehind subpattern', 0, back);
  }
}

/**
 * Widths of closed groups' bodies, as CPython keeps `SubPattern.width` once computed: every group is
 * measured when it closes, so without it a pattern of k nested groups is measured k²/2 times.
 * A closed body never changes, and a back-reference inside it names a group closed before it.
 */
const altWidths = new WeakMap<PyAlt, [number, number]>();

function width(seq: PyNode[], state: { groupwidths: Array<[number, number] | null> }): [number, number] {
  let lo = 0;
  let hi = 0;
  const sub = (alt: PyAlt): [number, number] => {
    const known = altWidths.get(alt);
    if (known) return known;
    const w = subUncached(alt);
    altWidths.set(alt, w);
    return w;
  };
  const subUncached = (alt: PyAlt): [number, number] => {
    let i = MAXREPEAT - 1;
    let j = 0;
    for (const b of alt.branches) {
      const [l, h] = width(b, state);
      i = Math.min(i, l);
      j = Math.max(j, h);
    }
    return alt.branches.length ? [i, j] : [0, 0];
  };
  for (const n of seq) {
    switch (n.t) {
      case 'lit':
      case 'any':
      case 'cat':
      case 'class':
        lo += 1;
        hi += 1;
        break;
      case 'group':
      case 'atomic': {
        const [i, j] = sub(n.body);
        lo += i;
        hi += j;
        break;
      }
      case 'repeat': {
        const [i, j] = width(n.body, state);
        lo += i * n.min;
        hi += j * n.max;
        break;
      }
      case 'backref': {
        const w = state.groupwidths[n.index] ?? [0, 0];
        lo += w[0];
        hi += w[1];
        break;
      }
      case 'cond': {
        let [i, j] = width(n.yes, state);
        if (n.no) {
          const [l, h] = width(n.no, state);
          i = Math.min(i, l);
          j = Math.max(j, h);
        } else i = 0;
        lo += i;
        hi += j;
        break;
      }
      default:
        break;
    }
  }
  return [Math.min(lo, MAXREPEAT - 1), Math.min(hi, MAXREPEAT)];
}

/** Parse a Python `re` pattern (str). Throws {@link PyReError} exactly where `re.compile` would fail. */
export function parsePythonRegex(pattern: string, initialFlags = 0): PyPattern {
  return new Parser(pattern, initialFlags).parse();
}

/** Where a sequence is being parsed: its verbose mode (changed by a global `(?x)`) and its nesting. */
interface SeqCtx {
  seq: PyNode[];
  verbose: boolean;
  nested: number;
  /** The first branch of the top level, where global flags may stand. */
  first: boolean;
}

/** What an opening `(` turned out to be once its extension (if any) is read. */
interface GroupKind {
  capture: boolean;
  atomic: boolean;
  name: string | null;
  addFlags: number;
  delFlags: number;
}

const CAPTURING: GroupKind = { capture: true, atomic: false, name: null, addFlags: 0, delFlags: 0 };
const NON_CAPTURING: GroupKind = { ...CAPTURING, capture: false };

type RepeatMode = 'greedy' | 'lazy' | 'possessive';

/** Recursive descent over the token stream, after sre_parse: one method per construct. */
class Parser {
  private readonly src: Source;
  private readonly state: State;

  constructor(pattern: string, flags: number) {
    this.src = new Source(pattern);
    this.state = { flags, groupdict: new Map(), groupwidths: [[0, 0]], lookbehindgroups: null, grouprefpos: new Map() };
  }

  parse(): PyPattern {
    const { src, state } = this;
    const body = this.parseSub((state.flags & FLAG.x) !== 0, 0);
    if (state.flags & FLAG.L) throw new PyReError('cannot use LOCALE flag with a str pattern', 0, 0);
    if (state.flags & FLAG.a && state.flags & FLAG.u) throw new PyReError('ASCII and UNICODE flags are incompatible', 0, 0);
    if (src.next !== null) throw new PyReError('unbalanced parenthesis', src.tell(), 1);
    for (const [g, pos] of state.grouprefpos) {
      if (g >= groupsOf(state)) throw new PyReError(`invalid group reference ${g}`, pos, String(g).length);
    }
    return { body, flags: state.flags, groups: groupsOf(state) - 1, groupNames: state.groupdict };
  }

  /** Alternatives up to `)` or the end. */
  private parseSub(verbose: boolean, nested: number): PyAlt {
    // CPython's parser recurses twice per group (_parse_sub, _parse) and raises RecursionError at 496
    // nested groups under the default recursion limit (3.11, from the top of the stack): the same
    // rejection here, which also bounds this parser's recursion (issue 30: 20,000 `(` overflowed the stack)
    if (nested >= 2 * MAX_NESTED_GROUPS) throw new PyReError(`more than ${MAX_NESTED_GROUPS - 1} nested groups: Python's re parser recurses once per group and raises RecursionError`, Math.max(0, this.src.tell() - 1), 1);
    const branches: PyNode[][] = [];
    for (;;) {
      branches.push(this.parseSeq(verbose, nested + 1, nested === 0 && branches.length === 0));
      if (!this.src.match('|')) break;
    }
    return { t: 'alt', branches };
  }

  /** One branch: items up to `|`, `)` or the end. */
  private parseSeq(verbose: boolean, nested: number, first: boolean): PyNode[] {
    const src = this.src;
    const ctx: SeqCtx = { seq: [], verbose, nested, first };
    for (;;) {
      const tok = src.next;
      if (tok === null || tok === '|' || tok === ')') break;
      const here = src.tell();
      src.get();
      if (ctx.verbose && this.skipVerbose(tok)) continue;
      this.parseItem(tok, here, ctx);
    }
    return ctx.seq;
  }

  /** In verbose mode, whitespace and `#` comments are skipped; true when `tok` was one. */
  private skipVerbose(tok: string): boolean {
    if (WHITESPACE.has(tok)) return true;
    if (tok !== '#') return false;
    for (;;) {
      const c = this.src.get();
      if (c === null || c === '\n') break;
    }
    return true;
  }

  /** One token (already consumed, starting at `here`) and what it opens. */
  private parseItem(tok: string, here: number, ctx: SeqCtx): void {
    const seq = ctx.seq;
    if (tok[0] === '\\' && tok.length > 1) seq.push(this.escape(tok));
    else if (!SPECIAL.has(tok)) seq.push({ t: 'lit', cp: tok.codePointAt(0)! });
    else if (tok === '[') seq.push(this.parseClass(here));
    else if (REPEAT_CHARS.has(tok)) this.parseRepeat(tok, here, seq);
    else if (tok === '.') seq.push({ t: 'any' });
    else if (tok === '(') this.parseParen(here, ctx);
    else if (tok === '^') seq.push({ t: 'at', name: 'bol' });
    else if (tok === '$') seq.push({ t: 'at', name: 'eol' });
    else throw new PyReError(`unsupported special character '${tok}'`, here, 1);
  }

  // ---- character classes -------------------------------------------------

  /** `[...]` after its `[`. */
  private parseClass(here: number): PyNode {
    const src = this.src;
    const items: ClassItem[] = [];
    const neg = src.match('^');
    const unterminated = () => new PyReError('unterminated character set', here, src.tell() - here);
    for (;;) {
      const tok = src.get();
      if (tok === null) throw unterminated();
      if (tok === ']' && items.length > 0) break;
      const code1 = this.classItem(tok);
      if (!src.match('-')) {
        items.push(code1);
        continue;
      }
      const that = src.get();
      if (that === null) throw unterminated();
      if (that === ']') {
        items.push(code1, { t: 'lit', cp: 45 });
        break;
      }
      items.push(this.classRange(tok, code1, that));
    }
    return { t: 'class', neg, items };
  }

  private classItem(tok: string): ClassItem {
    return tok[0] === '\\' && tok.length > 1 ? this.classEscape(tok) : { t: 'lit', cp: tok.codePointAt(0)! };
  }

  /** `tok-that` inside a class (both consumed). */
  private classRange(tok: string, code1: ClassItem, that: string): ClassItem {
    const code2 = this.classItem(that);
    if (code1.t !== 'lit' || code2.t !== 'lit' || code2.cp < code1.cp) {
      const len = tok.length + 1 + that.length;
      throw new PyReError(`bad character range ${tok}-${that}`, this.src.tell() - len, len);
    }
    return { t: 'range', lo: code1.cp, hi: code2.cp };
  }

  // ---- escapes -----------------------------------------------------------

  /** An escape outside a class. */
  private escape(esc: string): PyNode {
    const cat = CATS[esc];
    if (cat) return cat;
    const e = ESCAPES[esc];
    if (e !== undefined) return { t: 'lit', cp: e };
    const c = esc.slice(1);
    if (c === 'x' || c === 'u' || c === 'U') return this.hexEscape(c);
    if (c === 'N') return this.namedEscape();
    if (c === '0') {
      const more = this.src.getwhile(2, OCT);
      return { t: 'lit', cp: parseInt('0' + more, 8) };
    }
    if (DIGITS.test(c)) return this.digitEscape(c);
    if ([...c].length === 1 && ASCII_LETTER.test(c)) throw this.src.err(`bad escape ${esc}`, esc.length, esc.length);
    return { t: 'lit', cp: c.codePointAt(0)! };
  }

  /** An escape inside a class. */
  private classEscape(esc: string): ClassItem {
    const e = ESCAPES[esc];
    if (e !== undefined) return { t: 'lit', cp: e };
    const cat = CATS[esc];
    if (cat && cat.t === 'cat') return cat;
    const c = esc.slice(1);
    if (c === 'x' || c === 'u' || c === 'U') return this.hexEscape(c);
    if (c === 'N') return this.namedEscape();
    if (OCT.test(c)) {
      const digits = c + this.src.getwhile(2, OCT);
      return this.octalLiteral(digits);
    }
    if (DIGITS.test(c)) throw this.src.err(`bad escape ${esc}`, esc.length, esc.length);
    if ([...c].length === 1 && ASCII_LETTER.test(c)) throw this.src.err(`bad escape ${esc}`, esc.length, esc.length);
    return { t: 'lit', cp: c.codePointAt(0)! };
  }

  /** `\xhh`, `\uhhhh`, `\Uhhhhhhhh`. */
  private hexEscape(c: 'x' | 'u' | 'U'): { t: 'lit'; cp: number } {
    const src = this.src;
    const n = c === 'x' ? 2 : c === 'u' ? 4 : 8;
    const digits = src.getwhile(n, HEX);
    if (digits.length !== n) throw src.err(`incomplete escape \\${c}${digits}`, 2 + digits.length, 2 + digits.length);
    const cp = parseInt(digits, 16);
    if (cp > 0x10ffff) throw src.err(`bad escape \\${c}${digits}`, 2 + digits.length, 2 + digits.length);
    return { t: 'lit', cp };
  }

  /** `\N{name}`: no Unicode name table, so any non-empty name is accepted (conservative). */
  private namedEscape(): { t: 'lit'; cp: number } {
    const src = this.src;
    if (!src.match('{')) throw src.err('missing {');
    src.getuntil('}', 'character name');
    return { t: 'lit', cp: 0xfffd };
  }

  /** A three-digit octal escape (its digits read). */
  private octalLiteral(digits: string): { t: 'lit'; cp: number } {
    const v = parseInt(digits, 8);
    if (v > 0o377) throw this.src.err(`octal escape value \\${digits} outside of range 0-0o377`, 1 + digits.length, 1 + digits.length);
    return { t: 'lit', cp: v };
  }

  /** `\1`..`\99` (a group reference) or a three-digit octal escape, outside a class. */
  private digitEscape(c: string): PyNode {
    const src = this.src;
    let digits = c;
    if (src.next !== null && DIGITS.test(src.next)) {
      digits += src.get();
      if (OCT.test(digits[0]!) && OCT.test(digits[1]!) && src.next !== null && OCT.test(src.next)) {
        digits += src.get();
        return this.octalLiteral(digits);
      }
    }
    const group = parseInt(digits, 10);
    if (group < groupsOf(this.state)) {
      if (!checkgroup(this.state, group)) throw src.err('cannot refer to an open group', 1 + digits.length, 1 + digits.length);
      checklookbehindgroup(this.state, group, src, 1 + digits.length);
      return { t: 'backref', index: group };
    }
    throw src.err(`invalid group reference ${group}`, digits.length, digits.length);
  }

  // ---- repeats -----------------------------------------------------------

  /** `*`, `+`, `?` or `{m,n}` (consumed, at `here`): wraps the last item of `seq`. */
  private parseRepeat(tok: string, here: number, seq: PyNode[]): void {
    let min = 0;
    let max = MAXREPEAT;
    if (tok === '?') max = 1;
    else if (tok === '+') min = 1;
    else if (tok === '{') {
      const bounds = this.parseBraces(here);
      if (bounds === null) {
        seq.push({ t: 'lit', cp: 123 });
        return;
      }
      [min, max] = bounds;
    }
    const src = this.src;
    const item = seq[seq.length - 1];
    if (!item || item.t === 'at') throw new PyReError('nothing to repeat', here, src.tell() - here);
    if (item.t === 'repeat') throw new PyReError('multiple repeat', here, src.tell() - here);
    let body: PyNode[] = [item];
    if (item.t === 'group' && item.index === null && !item.addFlags && !item.delFlags && item.body.branches.length === 1) body = item.body.branches[0]!;
    let mode: RepeatMode = 'greedy';
    if (src.match('?')) mode = 'lazy';
    else if (src.match('+')) mode = 'possessive';
    seq[seq.length - 1] = { t: 'repeat', min, max, mode, body };
  }

  /** `{m,n}` after its `{`: the bounds, or null when the brace is a literal (the position is then right after it). */
  private parseBraces(here: number): [number, number] | null {
    const src = this.src;
    if (src.next === '}') return null;
    const afterBrace = src.tell();
    const lo = src.getwhile(Infinity, DIGITS);
    let hi: string;
    if (src.match(',')) hi = src.getwhile(Infinity, DIGITS);
    else hi = lo;
    if (!src.match('}')) {
      src.seek(afterBrace);
      return null;
    }
    let min = 0;
    let max = MAXREPEAT;
    if (lo) {
      min = Number(lo);
      if (min >= MAXREPEAT) throw new PyReError('the repetition number is too large', here, src.tell() - here);
    }
    if (hi) {
      max = Number(hi);
      if (max >= MAXREPEAT) throw new PyReError('the repetition number is too large', here, src.tell() - here);
      if (max < min) throw new PyReError('min repeat greater than max repeat', afterBrace, src.tell() - 1 - afterBrace);
    }
    return [min, max];
  }

  // ---- groups and extensions ---------------------------------------------

  /** `(` (consumed, at `here`): a group, or one of the `(?…)` extensions. */
  private parseParen(here: number, ctx: SeqCtx): void {
    const src = this.src;
    if (!src.match('?')) return this.parseGroupBody(here, ctx, CAPTURING);
    const ch = src.get();
    if (ch === null) throw src.err('unexpected end of pattern', 0, 0);
    if (ch === 'P') return this.parsePExtension(here, ctx);
    if (ch === ':') return this.parseGroupBody(here, ctx, NON_CAPTURING);
    if (ch === '#') return this.skipComment(here);
    if (ch === '=' || ch === '!' || ch === '<') return this.parseLook(ch, here, ctx);
    if (ch === '(') return this.parseConditional(here, ctx);
    if (ch === '>') return this.parseGroupBody(here, ctx, { ...NON_CAPTURING, atomic: true });
    if ((ch.length === 1 && ch in FLAG) || ch === '-') return this.parseFlagGroup(ch, here, ctx);
    throw src.err(`unknown extension ?${ch}`, 1 + ch.length, 1 + ch.length);
  }

  /** `(?P<name>…)` or `(?P=name)`, after `(?P`. */
  private parsePExtension(here: number, ctx: SeqCtx): void {
    const src = this.src;
    if (src.match('<')) {
      const name = src.getuntil('>', 'group name');
      if (!isIdentifier(name)) throw src.err(`bad character in group name '${name}'`, name.length + 1, name.length);
      return this.parseGroupBody(here, ctx, { ...CAPTURING, name });
    }
    if (src.match('=')) {
      ctx.seq.push(this.namedBackref());
      return;
    }
    const c2 = src.get();
    if (c2 === null) throw src.err('unexpected end of pattern', 0, 0);
    throw src.err(`unknown extension ?P${c2}`, 3, 3);
  }

  /** `name)` of `(?P=name)`. */
  private namedBackref(): PyNode {
    const { src, state } = this;
    const ref = src.getuntil(')', 'group name');
    if (!isIdentifier(ref)) throw src.err(`bad character in group name '${ref}'`, ref.length + 1, ref.length);
    const gid = state.groupdict.get(ref);
    if (gid === undefined) throw src.err(`unknown group name '${ref}'`, ref.length + 1, ref.length);
    if (!checkgroup(state, gid)) throw src.err('cannot refer to an open group', ref.length + 1, ref.length);
    checklookbehindgroup(state, gid, src, ref.length + 1);
    return { t: 'backref', index: gid };
  }

  /** `(?#…)` after `(?#`. */
  private skipComment(here: number): void {
    const src = this.src;
    for (;;) {
      if (src.next === null) throw new PyReError('missing ), unterminated comment', here, src.tell() - here);
      if (src.get() === ')') break;
    }
  }

  /** `(?=…)`, `(?!…)`, `(?<=…)`, `(?<!…)` after `(?` and `ch`. */
  private parseLook(ch: string, here: number, ctx: SeqCtx): void {
    const { src, state } = this;
    let kind = ch;
    let behind = false;
    let savedLookbehind: number | null = null;
    if (ch === '<') {
      const c2 = src.get();
      if (c2 === null) throw src.err('unexpected end of pattern', 0, 0);
      if (c2 !== '=' && c2 !== '!') throw src.err(`unknown extension ?<${c2}`, 3, 3);
      kind = c2;
      behind = true;
      savedLookbehind = state.lookbehindgroups;
      if (savedLookbehind === null) state.lookbehindgroups = groupsOf(state);
    }
    const body = this.parseSub(ctx.verbose, ctx.nested + 1);
    if (behind) {
      if (savedLookbehind === null) state.lookbehindgroups = null;
      const [lo, hi] = width(body.branches.length === 1 ? body.branches[0]! : [{ t: 'group', index: null, name: null, addFlags: 0, delFlags: 0, body }], state);
      if (lo !== hi) throw new PyReError('look-behind requires fixed-width pattern', here, src.tell() - here);
    }
    this.closeParen(here);
    ctx.seq.push({ t: 'look', behind, neg: kind === '!', body });
  }

  /** `(?(ref)yes|no)` after `(?(`. */
  private parseConditional(here: number, ctx: SeqCtx): void {
    const src = this.src;
    const condgroup = this.conditionRef();
    const yes = this.parseSeq(ctx.verbose, ctx.nested + 1, false);
    let no: PyNode[] | null = null;
    if (src.match('|')) {
      no = this.parseSeq(ctx.verbose, ctx.nested + 1, false);
      if (src.next === '|') throw src.err('conditional backref with more than two branches');
    }
    this.closeParen(here);
    ctx.seq.push({ t: 'cond', ref: condgroup, yes, no });
  }

  /** `ref)` of a conditional: a group name or number. */
  private conditionRef(): number {
    const { src, state } = this;
    const condname = src.getuntil(')', 'group name');
    let condgroup: number;
    if (isIdentifier(condname)) {
      const g = state.groupdict.get(condname);
      if (g === undefined) throw src.err(`unknown group name '${condname}'`, condname.length + 1, condname.length);
      condgroup = g;
    } else {
      if (!/^[0-9]+$/.test(condname)) throw src.err(`bad character in group name '${condname}'`, condname.length + 1, condname.length);
      condgroup = Number(condname);
      if (!condgroup) throw src.err('bad group number', condname.length + 1, condname.length);
      if (condgroup >= 2 ** 30) throw src.err(`invalid group reference ${condgroup}`, condname.length + 1, condname.length);
      if (!state.grouprefpos.has(condgroup)) state.grouprefpos.set(condgroup, src.tell() - condname.length - 1);
    }
    checklookbehindgroup(state, condgroup, src, condname.length + 1);
    return condgroup;
  }

  /** `(?flags)` (global) or `(?flags-flags:…)` (scoped), after `(?`. */
  private parseFlagGroup(ch: string, here: number, ctx: SeqCtx): void {
    const flags = this.parseFlags(ch);
    if (flags !== null) return this.parseGroupBody(here, ctx, { ...NON_CAPTURING, addFlags: flags[0], delFlags: flags[1] });
    if (!ctx.first || ctx.seq.length > 0) throw new PyReError('global flags not at the start of the expression', here, this.src.tell() - here);
    ctx.verbose = (this.state.flags & FLAG.x) !== 0;
  }

  /** The body and `)` of a group whose opening (and extension) is read. */
  private parseGroupBody(here: number, ctx: SeqCtx, kind: GroupKind): void {
    const { src, state } = this;
    const { name, addFlags, delFlags } = kind;
    let index: number | null = null;
    if (kind.capture) {
      index = groupsOf(state);
      state.groupwidths.push(null);
      if (name !== null) {
        const prev = state.groupdict.get(name);
        if (prev !== undefined) throw src.err(`redefinition of group name '${name}' as group ${index}; was group ${prev}`, name.length + 1, name.length);
        state.groupdict.set(name, index);
      }
    }
    const subVerbose = (ctx.verbose || (addFlags & FLAG.x) !== 0) && !(delFlags & FLAG.x);
    const body = this.parseSub(subVerbose, ctx.nested + 1);
    this.closeParen(here);
    if (index !== null) state.groupwidths[index] = width(body.branches.length === 1 ? body.branches[0]! : [{ t: 'atomic', body }], state);
    ctx.seq.push(kind.atomic ? { t: 'atomic', body } : { t: 'group', index, name, addFlags, delFlags, body });
  }

  private closeParen(here: number): void {
    const src = this.src;
    if (!src.match(')')) throw new PyReError('missing ), unterminated subpattern', here, src.tell() - here);
  }

  // ---- inline flags ------------------------------------------------------

  /** Inline flags from `first` on: null for a global group `(?flags)` (applied to the state), else [add, del] before `:`. */
  private parseFlags(first: string): [number, number] | null {
    const src = this.src;
    let add = 0;
    let del = 0;
    let ch: string | null = first;
    if (ch !== '-') [add, ch] = this.addedFlags(ch);
    if (ch === ')') {
      this.state.flags |= add;
      return null;
    }
    if (add & GLOBAL_FLAGS) throw src.err('bad inline flag: cannot turn on global flag', 1);
    if (ch === '-') del = this.removedFlags();
    if (del & GLOBAL_FLAGS) throw src.err('bad inline flag: cannot turn off global flag', 1);
    if (add & del) throw src.err('bad inline flag: flag turned on and off', 1);
    return [add, del];
  }

  /** The flags turned on, from `first`, and the token that ended them (`)`, `-` or `:`). */
  private addedFlags(first: string): [number, string] {
    const src = this.src;
    let add = 0;
    let ch = first;
    for (;;) {
      if (!isFlag(ch)) break;
      if (ch === 'L') throw src.err("bad inline flag: cannot use 'L' flag with a str pattern");
      const f = FLAG[ch];
      add |= f;
      if (f & TYPE_FLAGS && (add & TYPE_FLAGS) !== f) throw src.err("bad inline flag: flags 'a', 'u' and 'L' are incompatible");
      const next = src.get();
      if (next === null) throw src.err('missing -, : or )', 0, 0);
      ch = next;
      if (ch === ')' || ch === '-' || ch === ':') break;
      if (!isFlag(ch)) throw src.err(isAlpha(ch) ? 'unknown flag' : 'missing -, : or )', ch.length, ch.length);
    }
    return [add, ch];
  }

  /** The flags turned off, after `-`, up to `:`. */
  private removedFlags(): number {
    const src = this.src;
    let del = 0;
    let ch = src.get();
    if (ch === null) throw src.err('missing flag', 0, 0);
    if (!isFlag(ch)) throw src.err(isAlpha(ch) ? 'unknown flag' : 'missing flag', ch.length, ch.length);
    for (;;) {
      const f = FLAG[ch as keyof typeof FLAG];
      if (f & TYPE_FLAGS) throw src.err("bad inline flag: cannot turn off flags 'a', 'u' and 'L'");
      del |= f;
      ch = src.get();
      if (ch === null) throw src.err('missing :', 0, 0);
      if (ch === ':') break;
      if (!isFlag(ch)) throw src.err(isAlpha(ch) ? 'unknown flag' : 'missing :', ch.length, ch.length);
    }
    return del;
  }
}

function isFlag(x: string | null): x is keyof typeof FLAG {
  return x !== null && x.length === 1 && x in FLAG;
}

function isAlpha(x: string): boolean {
  return /^\p{L}$/u.test(x);
}

/** Validate: `undefined` when Python's re.compile accepts the pattern, else the error. */
export function checkPythonRegex(pattern: string, flags = 0): PyReError | undefined {
  try {
    parsePythonRegex(pattern, flags);
    return undefined;
  } catch (e) {
    if (e instanceof PyReError) return e;
    throw e;
  }
}
