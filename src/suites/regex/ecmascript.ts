/**
 * Translation of a parsed Python `re` pattern to an ECMAScript pattern with
 * the same backtracking structure, for ReDoS analysis by recheck (which reads
 * ECMAScript syntax only). Flags are encoded per node (scoped `(?i:…)`,
 * `(?s:…)`, `(?m:…)` included); the output uses `u` (and `m` for a global
 * MULTILINE, so anchors stay plain `^`/`$`).
 * Character categories follow Python's Unicode defaults (`\d` = `\p{Nd}`,
 * `\w` ≈ `[\p{L}\p{N}_]`). Constructs whose backtracking ECMAScript cannot
 * express (atomic groups, possessive quantifiers, conditionals) are reported
 * as unsupported — never silently dropped.
 */
import { FLAG, MAXREPEAT, type ClassItem, type PyAlt, type PyNode, type PyPattern } from './python-re.js';

export type Translation = { ok: true; source: string; flags: string } | { ok: false; reason: string };

class Unsupported extends Error {}

function hex(cp: number): string {
  return `\\u{${cp.toString(16)}}`;
}

function litChar(cp: number): string {
  const ch = String.fromCodePoint(cp);
  return /^[A-Za-z0-9_ ]$/.test(ch) ? ch : hex(cp);
}

function caseVariants(cp: number): number[] {
  const ch = String.fromCodePoint(cp);
  const set = new Set<number>([cp]);
  for (const v of [ch.toLowerCase(), ch.toUpperCase()]) if ([...v].length === 1) set.add(v.codePointAt(0)!);
  return [...set];
}

export interface TranslateOptions {
  /**
   * Translate Python's `$` (end, or before a final newline) exactly as `(?=\n?$)`.
   * Off for ReDoS analysis: the look-ahead cannot add ambiguity but makes
   * recheck up to 100× slower.
   */
  exactEol?: boolean;
}

export function toEcmaScript(p: PyPattern, options: TranslateOptions = {}): Translation {
  const exactEol = options.exactEol !== false;
  const ascii = (p.flags & FLAG.a) !== 0;
  const globalM = (p.flags & FLAG.m) !== 0;
  const cat = (name: string, inClass: boolean): string => {
    switch (name) {
      case 'd': return ascii ? '0-9' : '\\p{Nd}';
      case 'D': return ascii ? '\\D' : '\\P{Nd}';
      case 's': return ascii ? ' \\t\\n\\r\\f\\v' : '\\s';
      case 'S': return '\\S';
      case 'w': return ascii ? '\\w' : '\\p{L}\\p{N}_';
      default: return inClass || ascii ? '\\W' : '^\\p{L}\\p{N}_';
    }
  };
  const classItem = (it: ClassItem, icase: boolean): string => {
    if (it.t === 'cat') {
      const c = cat(it.name, true);
      return c.startsWith('^') ? '\\W' : c;
    }
    if (it.t === 'lit') return (icase ? caseVariants(it.cp) : [it.cp]).map(litChar).join('');
    let out = `${litChar(it.lo)}-${litChar(it.hi)}`;
    if (icase) {
      // the other case of the ASCII letters in the range
      const lo1 = Math.max(it.lo, 97), hi1 = Math.min(it.hi, 122); // a-z → A-Z
      if (lo1 <= hi1) out += `${litChar(lo1 - 32)}-${litChar(hi1 - 32)}`;
      const lo2 = Math.max(it.lo, 65), hi2 = Math.min(it.hi, 90); // A-Z → a-z
      if (lo2 <= hi2) out += `${litChar(lo2 + 32)}-${litChar(hi2 + 32)}`;
    }
    return out;
  };
  const emitAlt = (alt: PyAlt, flags: number): string => alt.branches.map((b) => emitSeq(b, flags)).join('|');
  const emitSeq = (seq: PyNode[], flags: number): string => seq.map((n) => emit(n, flags)).join('');
  const emit = (n: PyNode, flags: number): string => {
    const icase = (flags & FLAG.i) !== 0;
    switch (n.t) {
      case 'lit': {
        if (!icase) return litChar(n.cp);
        const v = caseVariants(n.cp);
        return v.length > 1 ? `[${v.map(litChar).join('')}]` : litChar(n.cp);
      }
      case 'any':
        return flags & FLAG.s ? '[\\s\\S]' : '[^\\n]';
      case 'cat': {
        const c = cat(n.name, false);
        return /^\\[pPdDsSwW](\{\w+\})?$/.test(c) ? c : `[${c}]`;
      }
      case 'class':
        return `[${n.neg ? '^' : ''}${n.items.map((i) => classItem(i, icase)).join('')}]`;
      case 'at': {
        // Plain anchors where possible: recheck handles ^/$ far better than look-arounds
        // (a look-around anchor made it miss `^(a|a)*$`).
        const m = (flags & FLAG.m) !== 0;
        switch (n.name) {
          case 'bol': return m === globalM ? '^' : m ? '(?<![^\\n])' : '(?<![\\s\\S])';
          case 'eol': return m === globalM ? (m || !exactEol ? '$' : '(?=\\n?$)') : m ? '(?![^\\n])' : exactEol ? '(?=\\n?(?![\\s\\S]))' : '(?![\\s\\S])';
          case 'A': return globalM ? '(?<![\\s\\S])' : '^';
          case 'Z': return globalM ? '(?![\\s\\S])' : '$';
          case 'b': return '\\b';
          default: return '\\B';
        }
      }
      case 'group': {
        const inner = (flags | n.addFlags) & ~n.delFlags;
        const body = emitAlt(n.body, inner);
        if (n.index === null) return `(?:${body})`;
        if (n.name !== null && /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(n.name)) return `(?<${n.name}>${body})`;
        return `(${body})`;
      }
      case 'look':
        return `(?${n.behind ? '<' : ''}${n.neg ? '!' : '='}${emitAlt(n.body, flags)})`;
      case 'backref':
        return `(?:\\${n.index})`;
      case 'repeat': {
        if (n.mode === 'possessive') throw new Unsupported('a possessive quantifier (*+, ++, ?+, {m,n}+)');
        const body = `(?:${emitSeq(n.body, flags)})`;
        let q: string;
        if (n.min === 0 && n.max === MAXREPEAT) q = '*';
        else if (n.min === 1 && n.max === MAXREPEAT) q = '+';
        else if (n.min === 0 && n.max === 1) q = '?';
        else if (n.max === MAXREPEAT) q = `{${n.min},}`;
        else if (n.min === n.max) q = `{${n.min}}`;
        else q = `{${n.min},${n.max}}`;
        return body + q + (n.mode === 'lazy' ? '?' : '');
      }
      case 'atomic':
        throw new Unsupported('an atomic group (?>…)');
      case 'cond':
        throw new Unsupported('a conditional group (?(id)yes|no)');
    }
  };
  try {
    const source = emitAlt(p.body, p.flags);
    // Sanity: the translation must be a valid ECMAScript pattern.
    const flags = globalM ? 'mu' : 'u';
    new RegExp(source, flags);
    return { ok: true, source, flags };
  } catch (e) {
    if (e instanceof Unsupported) return { ok: false, reason: `it uses ${e.message}, which has no ECMAScript equivalent for the analyser` };
    return { ok: false, reason: `its translation to ECMAScript failed (${(e as Error).message})` };
  }
}
