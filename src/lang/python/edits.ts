/**
 * Small text edits of Python source that fixes are made of (ESLint's fixer idea: a fix is a few text
 * replacements, never a rebuilt tree). The trees leave punctuation tokens out, so the brackets and
 * commas an edit sits between are found in the text between the nodes.
 */
import type { OffsetEdit } from '../../core/types.js';
import type { CallInfo } from './types.js';
import { field, named } from './tree.js';

/**
 * The edit that adds the keyword argument `kw` (`timeout=60`) as the call's last argument, or undefined
 * when the call's argument list is not a plain parenthesised list (a generator argument, a parse error)
 * or a comment sits after its last argument. A call written one argument per line with a trailing comma
 * gets the keyword on a line of its own, indented as the last argument.
 */
export function appendKeywordEdit(text: string, call: CallInfo, kw: string): OffsetEdit | undefined {
  const list = field(call.node, 'arguments');
  if (!list || list.type !== 'argument_list' || list.hasError) return undefined;
  const close = list.endIndex - 1;
  if (text[close] !== ')' || text[list.startIndex] !== '(') return undefined;
  const args = named(list);
  if (args.length === 0) {
    if (text.slice(list.startIndex + 1, close).trim() !== '') return undefined; // a comment
    return { start: close, end: close, newText: kw };
  }
  const last = args[args.length - 1]!;
  const between = text.slice(last.endIndex, close);
  if (between.includes('#')) return undefined;
  const comma = between.indexOf(',');
  if (comma >= 0 && /[\r\n]/.test(between.slice(comma))) {
    const lineStart = Math.max(text.lastIndexOf('\n', last.startIndex - 1), text.lastIndexOf('\r', last.startIndex - 1)) + 1;
    const indent = /^[ \t]*/.exec(text.slice(lineStart, last.startIndex))![0];
    const eol = /\r\n|\r|\n/.exec(between.slice(comma))![0];
    const at = last.endIndex + comma + 1;
    return { start: at, end: at, newText: `${eol}${indent}${kw},` };
  }
  return { start: last.endIndex, end: last.endIndex, newText: `, ${kw}` };
}
