/**
 * acorn parsing of plain JavaScript verifiers (module first, script as fallback), and of
 * TypeScript verifiers after ts-blank-space has replaced their type syntax with spaces —
 * positions are unchanged, so findings point at the TypeScript source exactly. The
 * TypeScript compiler that ts-blank-space uses is loaded only when a TypeScript verifier
 * exists (`prepareTypeStripping`).
 */
import { parse, type Program } from 'acorn';
import { importModule } from '../core/dynamic-import.js';

export type JsParse = { ok: true; program: Program } | { ok: false; message: string; offset: number; unsupported?: boolean; tooDeep?: boolean };

/** Deepest syntax tree the JS rules walk (their helpers recurse); real verifiers stay far below. */
export const MAX_JS_DEPTH = 1000;

function parseJs(text: string): JsParse {
  const base = { ecmaVersion: 'latest' as const, locations: true, allowHashBang: true, allowReturnOutsideFunction: true };
  try {
    return { ok: true, program: parse(text, { ...base, sourceType: 'module' }) };
  } catch (errModule) {
    // out of stack: retrying as a script would only run the stack out again
    if (/stack space/.test((errModule as Error).message)) return { ok: false, message: (errModule as Error).message, offset: 0 };
    try {
      return { ok: true, program: parse(text, { ...base, sourceType: 'script' }) };
    } catch {
      const e = errModule as SyntaxError & { pos?: number };
      return { ok: false, message: e.message, offset: e.pos ?? 0 };
    }
  }
}

type Blank = (code: string, onError?: (node: { pos: number; end: number; kind: number }) => void) => string;
let blank: Blank | undefined;
/** SyntaxKind numbers of the TypeScript constructs that blanking cannot erase. */
let needsTransform: Set<number> | undefined;

interface TsApi {
  SyntaxKind: Record<string, number>;
  ScriptTarget: { Latest: number };
  ScriptKind: { TS: number; TSX: number };
  createSourceFile(name: string, text: string, target: number, setParents: boolean, kind: number): { parseDiagnostics?: Array<{ start?: number; messageText: string | { messageText: string } }> };
}
let tsApi: TsApi | undefined;
let parameterModifiers: Set<number> | undefined;

/** Load the type stripper (and the TypeScript compiler) once, if some file needs it. */
export async function prepareTypeStripping(): Promise<void> {
  if (blank) return;
  blank = ((await importModule('ts-blank-space')) as typeof import('ts-blank-space')).default as Blank;
  const ts = ((await importModule('typescript')) as { default: TsApi }).default;
  tsApi = ts;
  needsTransform = new Set(['EnumDeclaration', 'ModuleDeclaration', 'ImportEqualsDeclaration', 'ExportAssignment', 'Decorator'].map((k) => ts.SyntaxKind[k]!));
  // parameter properties (`constructor(readonly x: T)`) report their modifier: blanking it leaves a plain parameter
  parameterModifiers = new Set(['ReadonlyKeyword', 'PrivateKeyword', 'ProtectedKeyword', 'PublicKeyword', 'OverrideKeyword'].map((k) => ts.SyntaxKind[k]!));
}

/** Parse a TypeScript verifier as JavaScript with its types blanked out. */
function parseTs(text: string): JsParse {
  if (!blank || !tsApi) throw new Error('parseTs used before prepareTypeStripping()');
  // TypeScript's own parser decides what is a syntax error (blanking may erase a broken declaration)
  const diag = tsApi.createSourceFile('verifier.ts', text, tsApi.ScriptTarget.Latest, false, tsApi.ScriptKind.TS).parseDiagnostics?.[0];
  if (diag) {
    const m = typeof diag.messageText === 'string' ? diag.messageText : diag.messageText.messageText;
    return { ok: false, message: m.replace(/\.$/, ''), offset: diag.start ?? 0 };
  }
  let unsupportedAt = -1;
  const modifiers: Array<[number, number]> = [];
  let js = blank(text, (n) => {
    if (parameterModifiers?.has(n.kind)) modifiers.push([n.pos, n.end]);
    else if (unsupportedAt < 0 && needsTransform?.has(n.kind)) unsupportedAt = n.pos;
  });
  for (const [a, b] of modifiers) js = js.slice(0, a) + js.slice(a, b).replace(/[^\r\n]/g, ' ') + js.slice(b);
  if (unsupportedAt >= 0) {
    // enums, namespaces and parameter properties need a transform, not blanking
    return { ok: false, message: 'TypeScript syntax that has no JavaScript equivalent without a transform (enum, namespace, parameter property)', offset: unsupportedAt, unsupported: true };
  }
  return parseJs(js);
}

/** Parse a JavaScript or TypeScript source file. Bounded (issue 17): the parsers (acorn, the TypeScript
 *  compiler, ts-blank-space) recurse per nesting level, so running out of stack in them, or a tree deeper
 *  than `MAX_JS_DEPTH`, is a `tooDeep` failure for this file only. */
export function parseScript(language: 'javascript' | 'typescript', text: string): JsParse {
  const brackets = bracketDepth(text);
  if (brackets > MAX_JS_DEPTH) {
    // not even parsed: near the end of the stack V8 can abort the process (a regex compiled there fails
    // with "RegExpCompiler Allocation failed"), which no catch contains
    return { ok: false, message: `nested ${brackets} brackets deep (vaudit analyses at most ${MAX_JS_DEPTH} levels)`, offset: 0, tooDeep: true };
  }
  let r: JsParse;
  try {
    r = language === 'typescript' ? parseTs(text) : parseJs(text);
  } catch (e) {
    if (!(e instanceof RangeError)) throw e;
    return { ok: false, message: 'nested too deeply for the parser (it ran out of stack)', offset: 0, tooDeep: true };
  }
  if (!r.ok) {
    // acorn's own stack overflow surfaces as its error message
    return /call stack|stack space/i.test(r.message) ? { ...r, message: 'nested too deeply for the parser (it ran out of stack)', offset: 0, tooDeep: true } : r;
  }
  const depth = jsDepth(r.program);
  return depth > MAX_JS_DEPTH ? { ok: false, message: `nested ${depth} levels deep (vaudit analyses at most ${MAX_JS_DEPTH})`, offset: 0, tooDeep: true } : r;
}

/** Deepest nesting of `(`, `[` and `{` outside strings and comments (regex literals are not told apart:
 *  an upper bound, which is what a bound needs). */
export function bracketDepth(text: string): number {
  let depth = 0;
  let max = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 40 || c === 91 || c === 123) {
      if (++depth > max) max = depth;
    } else if (c === 41 || c === 93 || c === 125) {
      if (depth > 0) depth--;
    } else if (c === 34 || c === 39 || c === 96) {
      // a string or template literal: to its closing quote (or, for ' and ", the end of the line)
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === 92) i++;
        else if (d === c || (c !== 96 && d === 10)) break;
      }
    } else if (c === 47 && text.charCodeAt(i + 1) === 47) {
      const nl = text.indexOf('\n', i);
      i = nl < 0 ? text.length : nl;
    } else if (c === 47 && text.charCodeAt(i + 1) === 42) {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 1;
    }
  }
  return max;
}

/** Depth of an ESTree tree, without recursion. */
function jsDepth(root: Program): number {
  let max = 0;
  const stack: Array<[object, number]> = [[root, 1]];
  while (stack.length) {
    const [node, d] = stack.pop()!;
    if (d > max) max = d;
    for (const [key, v] of Object.entries(node)) {
      if (key === 'loc') continue;
      if (Array.isArray(v)) {
        for (const c of v) if (c && typeof c === 'object' && typeof (c as { type?: unknown }).type === 'string') stack.push([c as object, d + 1]);
      } else if (v && typeof v === 'object' && typeof (v as { type?: unknown }).type === 'string') stack.push([v as object, d + 1]);
    }
  }
  return max;
}

