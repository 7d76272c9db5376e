/**
 * CPython's tokenizer limits, checked on the text before any parser sees it (issue 17): more than
 * 200 nested brackets is `SyntaxError: too many nested parentheses`, 100 levels of indentation is
 * `IndentationError: too many levels of indentation` (CPython 3.11, Parser/tokenizer.c MAXLEVEL and
 * MAXINDENT). Such a module cannot be imported, and tree-sitter's wasm build can fail on it with
 * "memory access out of bounds" (hundreds of nested `match` blocks), so it is not parsed at all.
 * Indentation whose meaning depends on the tab size is `TabError: inconsistent use of tabs and spaces
 * in indentation`: CPython measures each line's indentation twice, with tabs to multiples of 8 and with
 * tabs as 1 column, and refuses a line where the two disagree on indent, dedent or same level
 * (Parser/tokenizer.c, `altcol` and `indenterror`). Such a module cannot be imported either.
 */
const MAX_BRACKETS = 200;
const MAX_INDENT = 100;

export interface TokenizerLimit {
  /** CPython's message. */
  error: string;
  /** The nesting the text reaches, and of what. */
  depth: number;
  what: 'nested brackets' | 'levels of indentation' | 'inconsistent tabs';
  /** UTF-16 offset where the limit is first passed. */
  offset: number;
}

/** The first CPython tokenizer limit `text` passes, if any. Strings and comments are skipped. */
export function tokenizerLimit(text: string): TokenizerLimit | undefined {
  let brackets = 0;
  const indents = [0];
  // the same levels measured with a tab as one column (CPython's ALTTABSIZE)
  const alts = [0];
  let lineStart = true;
  for (let i = 0; i < text.length; i++) {
    if (lineStart && brackets === 0) {
      lineStart = false;
      let width = 0;
      let alt = 0;
      let j = i;
      for (; j < text.length; j++) {
        const c = text.charCodeAt(j);
        if (c === 32) { width++; alt++; }
        else if (c === 9) { width = (Math.floor(width / 8) + 1) * 8; alt++; }
        else if (c === 12) width = alt = 0;
        else break;
      }
      const next = text.charCodeAt(j);
      // blank and comment-only lines do not indent
      if (j < text.length && next !== 10 && next !== 13 && next !== 35) {
        let consistent: boolean;
        if (width > indents[indents.length - 1]!) {
          consistent = alt > alts[alts.length - 1]!;
          indents.push(width);
          alts.push(alt);
          if (indents.length > MAX_INDENT) return { error: 'IndentationError: too many levels of indentation', depth: indents.length - 1, what: 'levels of indentation', offset: j };
        } else {
          while (indents.length > 1 && width < indents[indents.length - 1]!) { indents.pop(); alts.pop(); }
          // a dedent to no outer level is CPython's IndentationError, which the parser reports
          consistent = width !== indents[indents.length - 1]! || alt === alts[alts.length - 1]!;
        }
        if (!consistent) return { error: 'TabError: inconsistent use of tabs and spaces in indentation', depth: indents.length - 1, what: 'inconsistent tabs', offset: i };
      }
      i = j - 1;
      continue;
    }
    const c = text.charCodeAt(i);
    if (c === 10) {
      // a backslash continuation joins the next line
      if (text.charCodeAt(i - 1) !== 92) lineStart = true;
    } else if (c === 40 || c === 91 || c === 123) {
      if (++brackets > MAX_BRACKETS) return { error: 'SyntaxError: too many nested parentheses', depth: brackets, what: 'nested brackets', offset: i };
    } else if (c === 41 || c === 93 || c === 125) {
      if (brackets > 0) brackets--;
    } else if (c === 35) {
      const nl = text.indexOf('\n', i);
      i = (nl < 0 ? text.length : nl) - 1;
    } else if (c === 34 || c === 39) {
      i = stringEnd(text, i) - 1;
    }
  }
  return undefined;
}

/** Offset just past the string literal opening at `i` (single or triple quoted; an unterminated
 *  single-quoted string ends at the line's end). */
function stringEnd(text: string, i: number): number {
  const q = text.charCodeAt(i);
  const triple = text.charCodeAt(i + 1) === q && text.charCodeAt(i + 2) === q;
  let k = i + (triple ? 3 : 1);
  for (; k < text.length; k++) {
    const d = text.charCodeAt(k);
    if (d === 92) k++;
    else if (!triple && d === 10) return k;
    else if (d === q && (!triple || (text.charCodeAt(k + 1) === q && text.charCodeAt(k + 2) === q))) return k + (triple ? 3 : 1);
  }
  return text.length;
}
