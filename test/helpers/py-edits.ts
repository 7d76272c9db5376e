/** Seeded editor-like changes of Python text, for the incremental-parse, flow-reuse and scope-reuse chains. */
import type { PythonAnalysis } from '../../src/lang/python/types.js';

/** One editor-like change at `at`: a character typed or deleted, a statement inserted, lines joined. */
export function change(text: string, at: number, r: () => number): string {
  switch (Math.floor(r() * 7)) {
    case 0: return text.slice(0, at) + 'x' + text.slice(at); // a character typed
    case 1: return text.slice(0, at) + text.slice(at + 1); // a character deleted
    case 2: { const nl = text.lastIndexOf('\n', at); return `${text.slice(0, nl + 1)}    raise ValueError()\n${text.slice(nl + 1)}`; } // a raise inserted
    case 3: return insertLine(text, at, 'found = None'); // a binding
    case 4: return insertLine(text, at, 'global found'); // a global
    case 5: return insertLine(text, at, 'import sys as os'); // a local import
    default: { const nl = text.indexOf('\n', at); return nl < 0 ? text : text.slice(0, nl) + text.slice(nl + 1); } // lines joined
  }
}

/** `line` inserted before the line holding `at`, with that line's indentation. */
export function insertLine(text: string, at: number, line: string): string {
  const nl = text.lastIndexOf('\n', at);
  const ind = /^[ \t]*/.exec(text.slice(nl + 1))![0];
  return `${text.slice(0, nl + 1)}${ind}${line}\n${text.slice(nl + 1)}`;
}

/** An offset inside a random function body (three times in four), else anywhere. */
export function spot(a: PythonAnalysis, r: () => number): number {
  const fns = a.functions();
  if (fns.length && r() < 0.75) {
    const f = fns[Math.floor(r() * fns.length)]!;
    const body = f.node.childForFieldName('body');
    if (body && body.end > body.start) return body.start + Math.floor(r() * (body.end - body.start));
  }
  return Math.floor(r() * a.text.length);
}
