/**
 * Text edits behind the "Disable <rule>" code actions, as small offset edits
 * over the document text (the server converts offsets to LSP positions):
 * - Python: `# vaudit: ignore[rule]` at the end of the finding's line (or the
 *   rule added to a directive already there);
 * - JavaScript/TypeScript: `// vaudit-ignore-next-line rule` above the line
 *   (or the rule added to the directive already there);
 * - task JSON: a `"//vaudit-ignore": ["rule"]` member in the object the
 *   finding's JSON pointer names (or the rule added to that member).
 * An edit is offered only where it is safe: never inside a multi-line string,
 * template literal or block comment, never after a line continuation.
 */
import type { JsonValueRef } from '../lang/json/parse.js';
import { isObject } from '../lang/json/parse.js';
import type { OffsetEdit } from '../core/types.js';

export type { OffsetEdit };

interface Line {
  start: number;
  /** End of the line's content (before its terminator). */
  end: number;
  eol: string;
}

function lineAt(text: string, line0: number): Line | undefined {
  let start = 0;
  for (let l = 0; l < line0; l++) {
    const nl = nextBreak(text, start);
    if (nl < 0) return undefined;
    start = nl + (text.startsWith('\r\n', nl) ? 2 : 1);
  }
  const nl = nextBreak(text, start);
  const end = nl < 0 ? text.length : nl;
  const eol = nl < 0 ? '' : text.startsWith('\r\n', nl) ? '\r\n' : text[nl]!;
  return { start, end, eol };
}

function nextBreak(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10 || c === 13) return i;
  }
  return -1;
}

function detectEol(text: string): string {
  const i = nextBreak(text, 0);
  if (i < 0) return '\n';
  return text.startsWith('\r\n', i) ? '\r\n' : text[i]!;
}

/**
 * Python lexical state at an offset: inside a (triple-quoted) string, or after
 * a backslash continuation / inside brackets (a trailing comment is still fine
 * inside brackets, but not after a backslash).
 */
function pythonStateAt(text: string, offset: number): { inString: boolean } {
  let i = 0;
  let quote: string | undefined; // ' " ''' """
  while (i < offset) {
    const c = text[i]!;
    if (quote) {
      if (c === '\\') { i += 2; continue; }
      if (text.startsWith(quote, i)) { i += quote.length; quote = undefined; continue; }
      if (quote.length === 1 && (c === '\n' || c === '\r')) quote = undefined; // unterminated: recover
      i++;
      continue;
    }
    if (c === '#') {
      while (i < offset && text[i] !== '\n' && text[i] !== '\r') i++;
      continue;
    }
    if (c === '"' || c === "'") {
      quote = text.startsWith(c.repeat(3), i) ? c.repeat(3) : c;
      i += quote.length;
      continue;
    }
    i++;
  }
  return { inString: quote !== undefined };
}

const PY_DIRECTIVE = /#\s*vaudit:\s*ignore\[([^\]]*)\]/;

export function pythonDisableEdit(text: string, line0: number, ruleId: string): OffsetEdit | undefined {
  const line = lineAt(text, line0);
  if (!line) return undefined;
  const content = text.slice(line.start, line.end);
  const m = PY_DIRECTIVE.exec(content);
  if (m && !pythonStateAt(text, line.start + m.index).inString) {
    const ids = m[1]!.split(/[,\s]+/).filter(Boolean);
    if (ids.includes(ruleId)) return undefined;
    const close = line.start + m.index + m[0].length - 1;
    return { start: close, end: close, newText: ids.length ? `, ${ruleId}` : ruleId };
  }
  const trimmedEnd = line.start + content.replace(/\s+$/, '').length;
  if (trimmedEnd === line.start) return undefined;
  if (pythonStateAt(text, trimmedEnd).inString) return undefined;
  if (text[trimmedEnd - 1] === '\\') return undefined;
  return { start: trimmedEnd, end: trimmedEnd, newText: `  # vaudit: ignore[${ruleId}]` };
}

/** Inside a template literal or block comment at `offset` (regex literals are not tracked). */
function jsInsideMultiline(text: string, offset: number): boolean {
  let i = 0;
  // stack of template nesting: 't' = in template text, 'e' = in ${ } expression (brace depth counted)
  const stack: Array<{ kind: 't' } | { kind: 'e'; depth: number }> = [];
  let quote: string | undefined;
  while (i < offset) {
    const c = text[i]!;
    const top = stack[stack.length - 1];
    if (top?.kind === 't') {
      if (c === '\\') { i += 2; continue; }
      if (c === '`') { stack.pop(); i++; continue; }
      if (c === '$' && text[i + 1] === '{') { stack.push({ kind: 'e', depth: 0 }); i += 2; continue; }
      i++;
      continue;
    }
    if (quote) {
      if (c === '\\') { i += 2; continue; }
      if (c === quote || c === '\n' || c === '\r') quote = undefined;
      i++;
      continue;
    }
    if (c === '/' && text[i + 1] === '/') {
      while (i < offset && text[i] !== '\n' && text[i] !== '\r') i++;
      continue;
    }
    if (c === '/' && text[i + 1] === '*') {
      const close = text.indexOf('*/', i + 2);
      if (close < 0 || close + 2 > offset) return true;
      i = close + 2;
      continue;
    }
    if (c === '"' || c === "'") { quote = c; i++; continue; }
    if (c === '`') { stack.push({ kind: 't' }); i++; continue; }
    if (top?.kind === 'e') {
      if (c === '{') top.depth++;
      else if (c === '}') {
        if (top.depth === 0) { stack.pop(); i++; continue; }
        top.depth--;
      }
    }
    i++;
  }
  return stack.some((s) => s.kind === 't');
}

const JS_NEXT = /\/\/\s*vaudit-ignore-next-line\s+([\w\-, ]+)/;

export function jsDisableEdit(text: string, line0: number, ruleId: string): OffsetEdit | undefined {
  const line = lineAt(text, line0);
  if (!line) return undefined;
  if (line0 > 0) {
    const prev = lineAt(text, line0 - 1)!;
    const m = JS_NEXT.exec(text.slice(prev.start, prev.end));
    if (m && !jsInsideMultiline(text, prev.start + m.index)) {
      const ids = m[1]!.split(/[,\s]+/).filter(Boolean);
      if (ids.includes(ruleId)) return undefined;
      const listEnd = prev.start + m.index + m[0].replace(/\s+$/, '').length;
      return { start: listEnd, end: listEnd, newText: `, ${ruleId}` };
    }
  }
  if (jsInsideMultiline(text, line.start)) return undefined;
  const indent = /^[ \t]*/.exec(text.slice(line.start, line.end))![0];
  return { start: line.start, end: line.start, newText: `${indent}// vaudit-ignore-next-line ${ruleId}${line.eol || detectEol(text)}` };
}

const IGNORE_TOKEN = '~1~1vaudit-ignore';

function parentPointer(p: string): string | undefined {
  if (p === '') return undefined;
  return p.slice(0, p.lastIndexOf('/'));
}

/** The pointer of the deepest object that contains `pointer` (itself when it names an object). */
export function objectPointerFor(values: ReadonlyMap<string, JsonValueRef>, pointer: string): string | undefined {
  let p: string | undefined = pointer;
  while (p !== undefined) {
    const ref = values.get(p);
    if (ref && isObject(ref.value)) return p;
    p = parentPointer(p);
  }
  return undefined;
}

/**
 * A `"//vaudit-ignore"` edit for the object that holds `pointer`. `values` is the
 * document's pointer → value map (offsets into `text`).
 */
export function jsonDisableEdit(text: string, values: ReadonlyMap<string, JsonValueRef>, pointer: string, ruleId: string): { edit: OffsetEdit; objectPointer: string } | undefined {
  const objPtr = objectPointerFor(values, pointer);
  if (objPtr === undefined) return undefined;
  const obj = values.get(objPtr)!;
  const id = JSON.stringify(ruleId);
  const existing = values.get(`${objPtr}/${IGNORE_TOKEN}`);
  if (existing) {
    const v = existing.value;
    if (Array.isArray(v)) {
      if (v.includes(ruleId)) return undefined;
      const close = text.lastIndexOf(']', existing.end - 1);
      const empty = v.length === 0;
      return { edit: { start: close, end: close, newText: empty ? id : `, ${id}` }, objectPointer: objPtr };
    }
    if (typeof v === 'string') {
      const ids = v.split(/[,\s]+/).filter(Boolean);
      if (ids.includes(ruleId)) return undefined;
      return { edit: { start: existing.start, end: existing.end, newText: `[${[...ids, ruleId].map((x) => JSON.stringify(x)).join(', ')}]` }, objectPointer: objPtr };
    }
    return { edit: { start: existing.start, end: existing.end, newText: `[${id}]` }, objectPointer: objPtr };
  }
  // first member of the object
  const prefix = objPtr + '/';
  let firstKey: number | undefined;
  for (const [p, ref] of values) {
    if (!p.startsWith(prefix) || p.indexOf('/', prefix.length) >= 0 || ref.keyStart === undefined) continue;
    if (firstKey === undefined || ref.keyStart < firstKey) firstKey = ref.keyStart;
  }
  const member = `"//vaudit-ignore": [${id}]`;
  if (firstKey === undefined) {
    const open = obj.start; // '{'
    return { edit: { start: open + 1, end: open + 1, newText: member }, objectPointer: objPtr };
  }
  const between = text.slice(obj.start + 1, firstKey);
  const nl = Math.max(between.lastIndexOf('\n'), between.lastIndexOf('\r'));
  if (nl >= 0) {
    const indent = between.slice(nl + 1);
    const eol = detectEol(text);
    return { edit: { start: firstKey, end: firstKey, newText: `${member},${eol}${indent}` }, objectPointer: objPtr };
  }
  return { edit: { start: firstKey, end: firstKey, newText: `${member}, ` }, objectPointer: objPtr };
}

