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

function width(seq: PyNode[], state: { groupwidths: Array<[number, number] | null> }): [number, number] {
  let lo = 0;
  let hi = 0;
  const sub = (alt: PyAlt): [number, number] => {
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
  const src = new Source(pattern);
  const state: State = { flags: initialFlags, groupdict: new Map(), groupwidths: [[0, 0]], lookbehindgroups: null, grouprefpos: new Map() };

  const parseSub = (verbose: boolean, nested: number): PyAlt => {
    const branches: PyNode[][] = [];
    for (;;) {
      branches.push(parseSeq(verbose, nested + 1, nested === 0 && branches.length === 0));
      if (!src.match('|')) break;
    }
    return { t: 'alt', branches };
  };

  const escape = (esc: string): PyNode => {
    const cat = CATS[esc];
    if (cat) return cat;
    const e = ESCAPES[esc];
    if (e !== undefined) return { t: 'lit', cp: e };
    const c = esc.slice(1);
    if (c === 'x' || c === 'u' || c === 'U') {
      const n = c === 'x' ? 2 : c === 'u' ? 4 : 8;
      const digits = src.getwhile(n, HEX);
      if (digits.length !== n) throw src.err(`incomplete escape \\${c}${digits}`, 2 + digits.length, 2 + digits.length);
      const cp = parseInt(digits, 16);
      if (cp > 0x10ffff) throw src.err(`bad escape \\${c}${digits}`, 2 + digits.length, 2 + digits.length);
      return { t: 'lit', cp };
    }
    if (c === 'N') {
      if (!src.match('{')) throw src.err('missing {');
      const name = src.getuntil('}', 'character name');
      void name; // no Unicode name table: accepted (conservative)
      return { t: 'lit', cp: 0xfffd };
    }
    if (c === '0') {
      const more = src.getwhile(2, OCT);
      return { t: 'lit', cp: parseInt('0' + more, 8) };
    }
    if (DIGITS.test(c)) {
      let digits = c;
      if (src.next !== null && DIGITS.test(src.next)) {
        digits += src.get();
        if (OCT.test(digits[0]!) && OCT.test(digits[1]!) && src.next !== null && OCT.test(src.next)) {
          digits += src.get();
          const v = parseInt(digits, 8);
          if (v > 0o377) throw src.err(`octal escape value \\${digits} outside of range 0-0o377`, 1 + digits.length, 1 + digits.length);
          return { t: 'lit', cp: v };
        }
      }
      const group = parseInt(digits, 10);
      if (group < groupsOf(state)) {
        if (!checkgroup(state, group)) throw src.err('cannot refer to an open group', 1 + digits.length, 1 + digits.length);
        checklookbehindgroup(state, group, src, 1 + digits.length);
        return { t: 'backref', index: group };
      }
      throw src.err(`invalid group reference ${group}`, digits.length, digits.length);
    }
    if ([...c].length === 1 && ASCII_LETTER.test(c)) throw src.err(`bad escape ${esc}`, esc.length, esc.length);
    return { t: 'lit', cp: c.codePointAt(0)! };
  };

  const classEscape = (esc: string): ClassItem => {
    const e = ESCAPES[esc];
    if (e !== undefined) return { t: 'lit', cp: e };
    const cat = CATS[esc];
    if (cat && cat.t === 'cat') return cat;
    const c = esc.slice(1);
    if (c === 'x' || c === 'u' || c === 'U') {
      const n = c === 'x' ? 2 : c === 'u' ? 4 : 8;
      const digits = src.getwhile(n, HEX);
      if (digits.length !== n) throw src.err(`incomplete escape \\${c}${digits}`, 2 + digits.length, 2 + digits.length);
      const cp = parseInt(digits, 16);
      if (cp > 0x10ffff) throw src.err(`bad escape \\${c}${digits}`, 2 + digits.length, 2 + digits.length);
      return { t: 'lit', cp };
    }
    if (c === 'N') {
      if (!src.match('{')) throw src.err('missing {');
      src.getuntil('}', 'character name');
      return { t: 'lit', cp: 0xfffd };
    }
    if (OCT.test(c)) {
      const digits = c + src.getwhile(2, OCT);
      const v = parseInt(digits, 8);
      if (v > 0o377) throw src.err(`octal escape value \\${digits} outside of range 0-0o377`, 1 + digits.length, 1 + digits.length);
      return { t: 'lit', cp: v };
    }
    if (DIGITS.test(c)) throw src.err(`bad escape ${esc}`, esc.length, esc.length);
    if ([...c].length === 1 && ASCII_LETTER.test(c)) throw src.err(`bad escape ${esc}`, esc.length, esc.length);
    return { t: 'lit', cp: c.codePointAt(0)! };
  };

  const parseFlags = (first: string): [number, number] | null => {
    let add = 0;
    let del = 0;
    let ch: string | null = first;
    const isFlag = (x: string | null): x is keyof typeof FLAG => x !== null && x.length === 1 && x in FLAG;
    const isAlpha = (x: string) => /^\p{L}$/u.test(x);
    if (ch !== '-') {
      for (;;) {
        if (!isFlag(ch)) break;
        if (ch === 'L') throw src.err("bad inline flag: cannot use 'L' flag with a str pattern");
        const f = FLAG[ch];
        add |= f;
        if (f & TYPE_FLAGS && (add & TYPE_FLAGS) !== f) throw src.err("bad inline flag: flags 'a', 'u' and 'L' are incompatible");
        ch = src.get();
        if (ch === null) throw src.err('missing -, : or )', 0, 0);
        if (ch === ')' || ch === '-' || ch === ':') break;
        if (!isFlag(ch)) throw src.err(isAlpha(ch) ? 'unknown flag' : 'missing -, : or )', ch.length, ch.length);
      }
    }
    if (ch === ')') {
      state.flags |= add;
      return null;
    }
    if (add & GLOBAL_FLAGS) throw src.err('bad inline flag: cannot turn on global flag', 1);
    if (ch === '-') {
      ch = src.get();
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
    }
    if (del & GLOBAL_FLAGS) throw src.err('bad inline flag: cannot turn off global flag', 1);
    if (add & del) throw src.err('bad inline flag: flag turned on and off', 1);
    return [add, del];
  };

  const parseSeq = (verboseIn: boolean, nested: number, first: boolean): PyNode[] => {
    let verbose = verboseIn;
    const seq: PyNode[] = [];
    for (;;) {
      const thisTok = src.next;
      if (thisTok === null) break;
      if (thisTok === '|' || thisTok === ')') break;
      const here = src.tell();
      src.get();
      if (verbose) {
        if (WHITESPACE.has(thisTok)) continue;
        if (thisTok === '#') {
          for (;;) {
            const c = src.get();
            if (c === null || c === '\n') break;
          }
          continue;
        }
      }
      if (thisTok[0] === '\\' && thisTok.length > 1) {
        seq.push(escape(thisTok));
      } else if (!SPECIAL.has(thisTok)) {
        seq.push({ t: 'lit', cp: thisTok.codePointAt(0)! });
      } else if (thisTok === '[') {
        const items: ClassItem[] = [];
        const neg = src.match('^');
        for (;;) {
          const tok = src.get();
          if (tok === null) throw new PyReError('unterminated character set', here, src.tell() - here);
          if (tok === ']' && items.length > 0) break;
          const code1: ClassItem = tok[0] === '\\' && tok.length > 1 ? classEscape(tok) : { t: 'lit', cp: tok.codePointAt(0)! };
          if (src.match('-')) {
            const that = src.get();
            if (that === null) throw new PyReError('unterminated character set', here, src.tell() - here);
            if (that === ']') {
              items.push(code1, { t: 'lit', cp: 45 });
              break;
            }
            const code2: ClassItem = that[0] === '\\' && that.length > 1 ? classEscape(that) : { t: 'lit', cp: that.codePointAt(0)! };
            if (code1.t !== 'lit' || code2.t !== 'lit' || code2.cp < code1.cp) {
              const len = tok.length + 1 + that.length;
              throw new PyReError(`bad character range ${tok}-${that}`, src.tell() - len, len);
            }
            items.push({ t: 'range', lo: code1.cp, hi: code2.cp });
          } else {
            items.push(code1);
          }
        }
        seq.push({ t: 'class', neg, items });
      } else if (REPEAT_CHARS.has(thisTok)) {
        let min = 0;
        let max = MAXREPEAT;
        if (thisTok === '?') max = 1;
        else if (thisTok === '+') min = 1;
        else if (thisTok === '{') {
          if (src.next === '}') {
            seq.push({ t: 'lit', cp: 123 });
            continue;
          }
          const afterBrace = src.tell();
          const lo = src.getwhile(Infinity, DIGITS);
          let hi: string;
          if (src.match(',')) hi = src.getwhile(Infinity, DIGITS);
          else hi = lo;
          if (!src.match('}')) {
            seq.push({ t: 'lit', cp: 123 });
            src.seek(afterBrace);
            continue;
          }
          if (lo) {
            min = Number(lo);
            if (min >= MAXREPEAT) throw new PyReError('the repetition number is too large', here, src.tell() - here);
          }
          if (hi) {
            max = Number(hi);
            if (max >= MAXREPEAT) throw new PyReError('the repetition number is too large', here, src.tell() - here);
            if (max < min) throw new PyReError('min repeat greater than max repeat', afterBrace, src.tell() - 1 - afterBrace);
          }
        }
        const item = seq[seq.length - 1];
        if (!item || item.t === 'at') throw new PyReError('nothing to repeat', here, src.tell() - here);
        if (item.t === 'repeat') throw new PyReError('multiple repeat', here, src.tell() - here);
        let body: PyNode[] = [item];
        if (item.t === 'group' && item.index === null && !item.addFlags && !item.delFlags && item.body.branches.length === 1) body = item.body.branches[0]!;
        let mode: 'greedy' | 'lazy' | 'possessive' = 'greedy';
        if (src.match('?')) mode = 'lazy';
        else if (src.match('+')) mode = 'possessive';
        seq[seq.length - 1] = { t: 'repeat', min, max, mode, body };
      } else if (thisTok === '.') {
        seq.push({ t: 'any' });
      } else if (thisTok === '(') {
        let capture = true;
        let atomic = false;
        let name: string | null = null;
        let addFlags = 0;
        let delFlags = 0;
        if (src.match('?')) {
          const ch = src.get();
          if (ch === null) throw src.err('unexpected end of pattern', 0, 0);
          if (ch === 'P') {
            if (src.match('<')) {
              name = src.getuntil('>', 'group name');
              if (!isIdentifier(name)) throw src.err(`bad character in group name '${name}'`, name.length + 1, name.length);
            } else if (src.match('=')) {
              const ref = src.getuntil(')', 'group name');
              if (!isIdentifier(ref)) throw src.err(`bad character in group name '${ref}'`, ref.length + 1, ref.length);
              const gid = state.groupdict.get(ref);
              if (gid === undefined) throw src.err(`unknown group name '${ref}'`, ref.length + 1, ref.length);
              if (!checkgroup(state, gid)) throw src.err('cannot refer to an open group', ref.length + 1, ref.length);
              checklookbehindgroup(state, gid, src, ref.length + 1);
              seq.push({ t: 'backref', index: gid });
              continue;
            } else {
              const c2 = src.get();
              if (c2 === null) throw src.err('unexpected end of pattern', 0, 0);
              throw src.err(`unknown extension ?P${c2}`, 3, 3);
            }
          } else if (ch === ':') {
            capture = false;
          } else if (ch === '#') {
            for (;;) {
              if (src.next === null) throw new PyReError('missing ), unterminated comment', here, src.tell() - here);
              if (src.get() === ')') break;
            }
            continue;
          } else if (ch === '=' || ch === '!' || ch === '<') {
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
            const body = parseSub(verbose, nested + 1);
            if (behind) {
              if (savedLookbehind === null) state.lookbehindgroups = null;
              const [lo, hi] = width(body.branches.length === 1 ? body.branches[0]! : [{ t: 'group', index: null, name: null, addFlags: 0, delFlags: 0, body }], state);
              if (lo !== hi) throw new PyReError('look-behind requires fixed-width pattern', here, src.tell() - here);
            }
            if (!src.match(')')) throw new PyReError('missing ), unterminated subpattern', here, src.tell() - here);
            seq.push({ t: 'look', behind, neg: kind === '!', body });
            continue;
          } else if (ch === '(') {
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
            const yes = parseSeq(verbose, nested + 1, false);
            let no: PyNode[] | null = null;
            if (src.match('|')) {
              no = parseSeq(verbose, nested + 1, false);
              if (src.next === '|') throw src.err('conditional backref with more than two branches');
            }
            if (!src.match(')')) throw new PyReError('missing ), unterminated subpattern', here, src.tell() - here);
            seq.push({ t: 'cond', ref: condgroup, yes, no });
            continue;
          } else if (ch === '>') {
            capture = false;
            atomic = true;
          } else if ((ch.length === 1 && ch in FLAG) || ch === '-') {
            const flags = parseFlags(ch);
            if (flags === null) {
              if (!first || seq.length > 0) throw new PyReError('global flags not at the start of the expression', here, src.tell() - here);
              verbose = (state.flags & FLAG.x) !== 0;
              continue;
            }
            [addFlags, delFlags] = flags;
            capture = false;
          } else {
            throw src.err(`unknown extension ?${ch}`, 1 + ch.length, 1 + ch.length);
          }
        }
        let index: number | null = null;
        if (capture) {
          index = groupsOf(state);
          state.groupwidths.push(null);
          if (name !== null) {
            const prev = state.groupdict.get(name);
            if (prev !== undefined) throw src.err(`redefinition of group name '${name}' as group ${index}; was group ${prev}`, name.length + 1, name.length);
            state.groupdict.set(name, index);
          }
        }
        const subVerbose = (verbose || (addFlags & FLAG.x) !== 0) && !(delFlags & FLAG.x);
        const body = parseSub(subVerbose, nested + 1);
        if (!src.match(')')) throw new PyReError('missing ), unterminated subpattern', here, src.tell() - here);
        if (index !== null) state.groupwidths[index] = width(body.branches.length === 1 ? body.branches[0]! : [{ t: 'atomic', body }], state);
        seq.push(atomic ? { t: 'atomic', body } : { t: 'group', index, name, addFlags, delFlags, body });
      } else if (thisTok === '^') {
        seq.push({ t: 'at', name: 'bol' });
      } else if (thisTok === '$') {
        seq.push({ t: 'at', name: 'eol' });
      } else {
        throw new PyReError(`unsupported special character '${thisTok}'`, here, 1);
      }
    }
    return seq;
  };

  const body = parseSub((state.flags & FLAG.x) !== 0, 0);
  if (state.flags & FLAG.L) throw new PyReError('cannot use LOCALE flag with a str pattern', 0, 0);
  if (state.flags & FLAG.a && state.flags & FLAG.u) throw new PyReError('ASCII and UNICODE flags are incompatible', 0, 0);
  if (src.next !== null) throw new PyReError('unbalanced parenthesis', src.tell(), 1);
  for (const [g, pos] of state.grouprefpos) {
    if (g >= groupsOf(state)) throw new PyReError(`invalid group reference ${g}`, pos, String(g).length);
  }
  return { body, flags: state.flags, groups: groupsOf(state) - 1, groupNames: state.groupdict };
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
