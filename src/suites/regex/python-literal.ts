/**
 * Regex string literals in Python code: the pattern argument of `re.compile`,
 * `re.search`, `re.match`, … when it is a plain literal whose decoded text
 * maps 1:1 to its source characters (raw strings, or strings without
 * backslashes). Anything else (f-strings, concatenations, escapes in a
 * non-raw string, unknown flag expressions) is skipped — conservative.
 */
import type { PyNode as Node } from '../../lang/python/tree.js';
import { FLAG } from './python-re.js';
import { ownValue } from '../../core/own.js';

/** re function → positional index of its `flags` parameter. */
const RE_FUNCS: Record<string, number> = { compile: 1, search: 2, match: 2, fullmatch: 2, findall: 2, finditer: 2, split: 3, sub: 4, subn: 4 };
const FLAG_NAMES: Record<string, number> = {
  I: FLAG.i, IGNORECASE: FLAG.i, M: FLAG.m, MULTILINE: FLAG.m, S: FLAG.s, DOTALL: FLAG.s, X: FLAG.x, VERBOSE: FLAG.x,
  A: FLAG.a, ASCII: FLAG.a, U: FLAG.u, UNICODE: FLAG.u, L: FLAG.L, LOCALE: FLAG.L, T: FLAG.t, TEMPLATE: FLAG.t, NOFLAG: 0, DEBUG: 0,
};

export interface RegexLiteral {
  pattern: string;
  /** Offset (in the unit's text) of the pattern's first character. */
  start: number;
  flags: number;
  /** The string node. */
  node: Node;
}

function flagValue(n: Node): number | undefined {
  if (n.type === 'attribute') {
    const o = n.childForFieldName('object');
    const a = n.childForFieldName('attribute')?.text ?? '';
    if (o?.text === 're') return ownValue(FLAG_NAMES, a);
    return undefined;
  }
  if (n.type === 'integer' && n.text === '0') return 0;
  if (n.type === 'binary_operator' && n.children.some((c) => c?.type === '|')) {
    const l = n.childForFieldName('left');
    const r = n.childForFieldName('right');
    const a = l ? flagValue(l) : undefined;
    const b = r ? flagValue(r) : undefined;
    return a === undefined || b === undefined ? undefined : a | b;
  }
  if (n.type === 'parenthesized_expression' && n.namedChildren[0]) return flagValue(n.namedChildren[0]);
  return undefined;
}

/** The literal pattern of an `re.<func>(...)` call, when it can be read exactly. */
export function regexLiteralOf(call: Node): RegexLiteral | undefined {
  const fn = call.childForFieldName('function');
  if (fn?.type !== 'attribute' || fn.childForFieldName('object')?.text !== 're') return undefined;
  const func = fn.childForFieldName('attribute')?.text ?? '';
  const flagsIndex = ownValue(RE_FUNCS, func);
  if (flagsIndex === undefined) return undefined;
  const args = call.childForFieldName('arguments');
  if (!args || args.type !== 'argument_list') return undefined;
  const positional: Node[] = [];
  let flagsNode: Node | undefined;
  let patternNode: Node | undefined;
  for (const a of args.namedChildren) {
    if (!a || a.type === 'comment') continue;
    if (a.type === 'keyword_argument') {
      const name = a.childForFieldName('name')?.text;
      const value = a.childForFieldName('value') ?? undefined;
      if (name === 'flags') flagsNode = value;
      if (name === 'pattern') patternNode = value;
      continue;
    }
    if (a.type === 'list_splat' || a.type === 'dictionary_splat') return undefined;
    positional.push(a);
  }
  patternNode ??= positional[0];
  flagsNode ??= positional[flagsIndex];
  if (!patternNode || patternNode.type !== 'string') return undefined;
  let flags = 0;
  if (flagsNode) {
    const v = flagValue(flagsNode);
    if (v === undefined) return undefined;
    flags = v;
  }
  const start = patternNode.children.find((c) => c?.type === 'string_start');
  const end = patternNode.children.find((c) => c?.type === 'string_end');
  if (!start || !end) return undefined;
  const prefix = start.text.replace(/['"]+$/, '').toLowerCase();
  if (prefix.includes('f') || prefix.includes('b')) return undefined;
  const raw = prefix.includes('r');
  if (patternNode.children.some((c) => c?.type === 'interpolation')) return undefined;
  const bodyStart = start.endIndex;
  const bodyEnd = end.startIndex;
  const text = patternNode.text.slice(bodyStart - patternNode.startIndex, bodyEnd - patternNode.startIndex);
  if (!raw && text.includes('\\')) return undefined;
  return { pattern: text, start: bodyStart, flags, node: patternNode };
}
