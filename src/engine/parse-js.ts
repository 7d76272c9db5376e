/**
 * acorn parsing of plain JavaScript verifiers (module first, script as fallback), and of
 * TypeScript verifiers after ts-blank-space has replaced their type syntax with spaces —
 * positions are unchanged, so findings point at the TypeScript source exactly. The
 * TypeScript compiler that ts-blank-space uses is loaded only when a TypeScript verifier
 * exists (`prepareTypeStripping`).
 */
import { parse, type Program } from 'acorn';

export type JsParse = { ok: true; program: Program } | { ok: false; message: string; offset: number; unsupported?: boolean };

function parseJs(text: string): JsParse {
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
  blank = ((await import('ts-blank-space')) as { default: Blank }).default;
  const ts = ((await import('typescript')) as unknown as { default: TsApi }).default;
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

/** Parse a JavaScript or TypeScript source file. */
export function parseScript(language: 'javascript' | 'typescript', text: string): JsParse {
  return language === 'typescript' ? parseTs(text) : parseJs(text);
}

