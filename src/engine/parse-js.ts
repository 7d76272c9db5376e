/** acorn parsing of plain JavaScript verifiers: module first, script as fallback. */
import { parse, type Node, type Program } from 'acorn';

export type JsParse = { ok: true; program: Program } | { ok: false; message: string; offset: number };

export function parseJs(text: string): JsParse {
  const base = { ecmaVersion: 'latest' as const, locations: true, allowHashBang: true, allowReturnOutsideFunction: true };
  try {
    return { ok: true, program: parse(text, { ...base, sourceType: 'module' }) };
  } catch (errModule) {
    try {
      return { ok: true, program: parse(text, { ...base, sourceType: 'script' }) };
    } catch {
      const e = errModule as SyntaxError & { pos?: number };
      return { ok: false, message: e.message, offset: e.pos ?? 0 };
    }
  }
}

export type { Node };
