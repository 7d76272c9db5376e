/**
 * acorn parsing of plain JavaScript verifiers (module first, script as fallback), and of
 * TypeScript verifiers after ts-blank-space has replaced their type syntax with spaces —
 * positions are unchanged, so findings point at the TypeScript source exactly. The
 * TypeScript compiler that ts-blank-space uses is loaded only when a TypeScript verifier
 * exists (`prepareTypeStripping`).
 */
import type { Options, Parser, Program, Token as AcornToken, TokenType as AcornTokenType, tokTypes } from 'acorn';
import { acorn } from './acorn.js';

/** acorn's token and token type, with the fields its typings leave out. */
type TokenType = AcornTokenType & { binop?: number | null; prefix?: boolean };
type Token = AcornToken & { type: TokenType; value?: unknown };
type TokenizerClass = new (options: { ecmaVersion: 'latest'; allowHashBang: boolean; sourceType: 'module' }, input: string, startPos: number) => { getToken(): Token };
import { importModule } from '../../core/dynamic-import.js';
import type { SourceFile } from '../../core/source.js';

export type JsParse = { ok: true; program: Program } | { ok: false; message: string; offset: number; unsupported?: boolean; tooDeep?: boolean; tooLarge?: boolean };

/** Deepest nesting a JavaScript or TypeScript file may have (`nestingDepth`, or brackets), and the
 *  deepest syntax tree the JS rules walk (their helpers recurse); real verifiers stay far below. */
const MAX_JS_DEPTH = 1000;

/** Deepest `jsNesting` parsed: each level of a statement prefix or template costs the parsers several
 *  frames more than a bracket (5,000 nested \`if\` ran acorn out of stack), so the bound is lower
 *  than the tree's; real verifiers stay under 100. */
export const MAX_JS_NESTING = 500;

/** Most tokens in a JavaScript or TypeScript file parsed (issue 30, item 5: memory). The syntax tree and
 *  what the rules build on it grow with the tokens: a 5 MB verifier of 1.2 million tokens took the run
 *  to 520 MB. Counted before any parser runs (`jsNesting`'s tokens); real verifiers stay far below (the
 *  largest script of the five corpora has 14,000). */
const MAX_JS_TOKENS = 400_000;

/** A scope's declared names as acorn keeps them (arrays it searches with `indexOf` and appends to), with
 *  each name's first position indexed: acorn looks up every declaration in its scope's lists, so n
 *  declarations in one scope (`const a0 = 1; … const aN = 1;`, `let a0 = 0, a1 = 1, …`) cost O(n²)
 *  with plain arrays (64,000: 35 s) and O(n) with this. Same answers: `indexOf` gives the first index. */
class NameList extends Array<string> {
  private readonly firstAt = new Map<string, number>();
  override push(...names: string[]): number {
    for (const n of names) {
      if (!this.firstAt.has(n)) this.firstAt.set(n, this.length);
      super.push(n);
    }
    return this.length;
  }
  override indexOf(name: string, fromIndex?: number): number {
    return fromIndex === undefined ? (this.firstAt.get(name) ?? -1) : super.indexOf(name, fromIndex);
  }
}

interface AcornScope { var: string[]; lexical: string[]; functions: string[] }
type ScopedBase = new (...args: never[]) => { scopeStack: AcornScope[]; enterScope(flags: number): void };

// What this module takes from acorn, made by `loadAcorn` when the first JavaScript is parsed or measured
// (src/lang/js/acorn.ts: acorn is not loaded at start)
/** acorn's parser with indexed scope name lists (`NameList`); otherwise acorn itself. */
let IndexedParser: typeof Parser | undefined;
let Tokenizer: TokenizerClass;
let tt: typeof tokTypes;
let HEAD_KEYWORDS: Set<TokenType>;
let EXPRESSION_ENDS: Set<TokenType>;

function loadAcorn(): typeof Parser {
  if (IndexedParser) return IndexedParser;
  const { Parser, tokTypes } = acorn();
  tt = tokTypes;
  Tokenizer = Parser as unknown as TokenizerClass;
  HEAD_KEYWORDS = new Set<TokenType>([tt._if, tt._for, tt._while, tt._with, tt._switch, tt._catch]);
  EXPRESSION_ENDS = new Set<TokenType>([tt.num, tt.string, tt.regexp, tt.name, tt.privateId, tt.parenR, tt.bracketR, tt.braceR, tt.backQuote, tt.incDec, tt._this, tt._super, tt._null, tt._true, tt._false]);
  IndexedParser = Parser.extend((Base) => class extends (Base as unknown as ScopedBase) {
    override enterScope(flags: number): void {
      super.enterScope(flags);
      const scope = this.scopeStack[this.scopeStack.length - 1]!;
      scope.var = new NameList();
      scope.lexical = new NameList();
      scope.functions = new NameList();
    }
  } as unknown as typeof Parser);
  return IndexedParser;
}

/** acorn's `parse`, linear in the declarations of a scope (`IndexedParser`). */
export function parseAcorn(text: string, options: Options): Program {
  return loadAcorn().parse(text, options) as Program;
}

function parseJs(text: string): JsParse {
  const base = { ecmaVersion: 'latest' as const, locations: true, allowHashBang: true, allowReturnOutsideFunction: true };
  try {
    return { ok: true, program: parseAcorn(text, { ...base, sourceType: 'module' }) };
  } catch (errModule) {
    // out of stack: retrying as a script would only run the stack out again
    if (/stack space/.test((errModule as Error).message)) return { ok: false, message: (errModule as Error).message, offset: 0 };
    try {
      return { ok: true, program: parseAcorn(text, { ...base, sourceType: 'script' }) };
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
  const { depth: nesting, tokens, estimated } = jsMeasure(text);
  if (tokens > MAX_JS_TOKENS) {
    const count = estimated ? `about ${tokens.toLocaleString('en-US')} tokens (estimated past the point where the tokenizer stopped)` : `${tokens.toLocaleString('en-US')} tokens`;
    return { ok: false, message: `has ${count}, over the limit of ${MAX_JS_TOKENS.toLocaleString('en-US')} (\`MAX_JS_TOKENS\`)`, offset: 0, tooLarge: true };
  }
  if (nesting > MAX_JS_NESTING) {
    // not even parsed: near the end of the stack V8 can abort the process (a regex compiled there fails
    // with "RegExpCompiler Allocation failed"), which no catch contains
    return { ok: false, message: `nested ${nesting} levels deep, counting brackets, statements, templates and operators (vaudit analyses at most ${MAX_JS_NESTING})`, offset: 0, tooDeep: true };
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

const programs = new WeakMap<SourceFile, Program | null>();

/** The program of a project's JavaScript or TypeScript file (`parseScript`), parsed once per file object;
 *  undefined for another language or a file that does not parse. */
export function programOfFile(f: SourceFile): Program | undefined {
  let p = programs.get(f);
  if (p === undefined) {
    const r = f.language === 'javascript' || f.language === 'typescript' ? parseScript(f.language, f.source.text) : undefined;
    programs.set(f, (p = r?.ok ? r.program : null));
  }
  return p ?? undefined;
}

/** How deep a JavaScript or TypeScript file nests before any parser reads it: brackets, and every
 *  nesting form that is not one (`nestingDepth`). */
export function jsNesting(text: string): number {
  return jsMeasure(text).depth;
}

/** `jsNesting`, and how many tokens the file has: counted where acorn could tokenize to the end, else
 *  the count so far plus an estimate for the rest (`tokensOfRest`), so that no prefix the tokenizer
 *  stumbles on (valid TypeScript such as \`x! / 2\` reads as an unterminated regex) hides the file's size. */
function jsMeasure(text: string): { depth: number; tokens: number; estimated: boolean } {
  loadAcorn();
  const { tokens, complete, stoppedAt } = tokenize(text);
  const depth = nestingDepth(text, tokens);
  if (complete) return { depth, tokens: tokens.length, estimated: false };
  // a file acorn could not tokenize to the end: its brackets bound what was not measured
  return { depth: Math.max(depth, bracketDepth(text)), tokens: tokens.length + tokensOfRest(tokens.length, stoppedAt, text.length), estimated: true };
}

/** Fewest tokens a character of code is taken to hold where nothing was measured (JavaScript's average
 *  is about one token per 4–6 characters with spacing): an estimate that errs on the large side. */
const MIN_TOKENS_PER_CHAR = 1 / 8;

/** Tokens estimated in the text after `stoppedAt` (of `length` characters) that the tokenizer did not
 *  reach: at the density measured before it, never below `MIN_TOKENS_PER_CHAR`. */
function tokensOfRest(counted: number, stoppedAt: number, length: number): number {
  const density = Math.max(stoppedAt > 0 ? counted / stoppedAt : 0, MIN_TOKENS_PER_CHAR);
  return Math.ceil(Math.max(0, length - stoppedAt) * density);
}

/** Deepest nesting of `(`, `[` and `{` outside strings and comments (regex literals are not told apart:
 *  an upper bound, which is what a bound needs). */
function bracketDepth(text: string): number {
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

/** Nesting depth of a JavaScript or TypeScript source, measured on its tokens before any parser runs
 *  (issue 30): an upper bound on how deep the parsers (acorn, the TypeScript compiler, ts-blank-space)
 *  recurse, for every nesting form, not only brackets — statement prefixes (`if`, `else`, `for`,
 *  `while`, `do`, `with`, labels), template literals (`${`), and expression chains (operators,
 *  ternaries, arrows, unary keywords, member and call chains). Each bracket level counts one plus the
 *  statement prefixes and expression operators still open at that level: a `;` ends both (unless an
 *  `else` follows), a `,` ends an expression, the `}` of a statement block ends the statements it was
 *  the body of (unless an `else` follows), and a line break where JavaScript inserts a semicolon ends
 *  both. Linear in the length of the text, without recursion. */
function nestingDepth(text: string, tokens: readonly Token[]): number {
  const frames: Array<{ weight: number; stmt: number; expr: number; block: boolean; head: boolean }> = [{ weight: 1, stmt: 0, expr: 0, block: true, head: false }];
  let total = 1;
  let max = 1;
  let prev: Token | undefined;
  let prevClosedHead = false;
  for (let i = 0; i < tokens.length; i++) {
    const tok = tokens[i]!;
    const t = tok.type;
    const top = frames[frames.length - 1]!;
    const newline = prev !== undefined && hasLineBreak(text, prev.end, tok.start);
    if (newline && prev && !prevClosedHead && endsExpression(prev) && !continuesExpression(tok)) {
      // a semicolon is inserted here: the statement (and its prefixes) ended
      total -= top.expr;
      top.expr = 0;
      if (t !== tt._else) {
        total -= top.stmt;
        top.stmt = 0;
      }
    }
    if (t === tt.parenL || t === tt.bracketL || t === tt.braceL || t === tt.dollarBraceL) {
      // a call or an index continues a member chain: one more level of the expression around it
      if ((t === tt.parenL || t === tt.bracketL) && prev && endsExpression(prev) && !isHeadKeyword(prev.type)) {
        top.expr++;
        total++;
      }
      const block = t === tt.braceL && (prev === undefined || prevClosedHead || prev.type === tt._else || prev.type === tt._do || prev.type === tt._try
        || prev.type === tt._finally || prev.type === tt.semi || prev.type === tt.braceL || prev.type === tt.braceR);
      // levels the parsers spend more frames on weigh more (`WEIGHTS`)
      const weight = t === tt.dollarBraceL ? TEMPLATE_WEIGHT : t === tt.parenL ? PAREN_WEIGHT : 1;
      frames.push({ weight, stmt: 0, expr: 0, block, head: t === tt.parenL && prev !== undefined && isHeadKeyword(prev.type) });
      total += weight;
    } else if (t === tt.parenR || t === tt.bracketR || t === tt.braceR) {
      if (frames.length > 1) {
        const f = frames.pop()!;
        total -= f.weight + f.stmt + f.expr;
        const parent = frames[frames.length - 1]!;
        if (f.head) {
          prevClosedHead = true;
          prev = tok;
          continue;
        }
        if (f.block && tokens[i + 1]?.type !== tt._else && tokens[i + 1]?.type !== tt._catch && tokens[i + 1]?.type !== tt._finally) {
          // the statements this block was the body of end with it
          total -= parent.stmt + parent.expr;
          parent.stmt = 0;
          parent.expr = 0;
        }
      }
    } else if (t === tt.semi) {
      total -= top.expr;
      top.expr = 0;
      if (tokens[i + 1]?.type !== tt._else) {
        total -= top.stmt;
        top.stmt = 0;
      }
    } else if (t === tt.comma) {
      total -= top.expr;
      top.expr = 0;
    } else if (t === tt._if || t === tt._else || t === tt._for || t === tt._while || t === tt._do || t === tt._with) {
      top.stmt++;
      total++;
    } else if (t === tt.arrow) {
      top.expr += ARROW_WEIGHT;
      total += ARROW_WEIGHT;
    } else if (nestsExpression(tok)) {
      top.expr++;
      total++;
    }
    if (total > max) max = total;
    prevClosedHead = false;
    prev = tok;
  }
  return max;
}

/** What one level costs the parsers against one `if` (the fewest nested levels that ran a parser out of
 *  stack, measured with acorn, the TypeScript compiler and ts-blank-space on Node 20: 1,445 `if`, `while`,
 *  labels or `else if`; 1,484 `!`; 1,562 `?:`; 664 `(`; 625 `=>`; 546 template literals). */
const TEMPLATE_WEIGHT = 4;
const PAREN_WEIGHT = 2;
const ARROW_WEIGHT = 2;

const isHeadKeyword = (t: TokenType): boolean => HEAD_KEYWORDS.has(t);

function endsExpression(tok: Token): boolean {
  return EXPRESSION_ENDS.has(tok.type);
}

/** Tokens that can continue an expression across a line break (no semicolon is inserted before them). */
function continuesExpression(tok: Token): boolean {
  const t = tok.type;
  return t.binop != null || t === tt.dot || t === tt.questionDot || t === tt.parenL || t === tt.bracketL || t === tt.backQuote
    || t === tt.question || t === tt.colon || t === tt.eq || t === tt.assign || t === tt.comma || t === tt.semi || t === tt.arrow
    || t === tt._in || t === tt._instanceof || t === tt.parenR || t === tt.bracketR || t === tt.braceR || t === tt.eof;
}

const UNARY_NAMES = new Set(['await', 'yield', 'as', 'satisfies', 'keyof']);
/** Tokens that open one more level of an expression (the parsers recurse once per operator). */
function nestsExpression(tok: Token): boolean {
  const t = tok.type;
  if (t === tt.name) return typeof tok.value === 'string' && UNARY_NAMES.has(tok.value);
  return t.binop != null || t.prefix || t === tt.question || t === tt.colon || t === tt.arrow || t === tt.eq || t === tt.assign
    || t === tt.dot || t === tt.questionDot || t === tt.ellipsis || t === tt._new || t === tt._typeof || t === tt._void || t === tt._delete
    || t === tt._throw || t === tt._return || t === tt._extends;
}

function hasLineBreak(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c === 10 || c === 13 || c === 0x2028 || c === 0x2029) return true;
  }
  return false;
}

/** acorn's tokens (its tokenizer is iterative); where it stops on a character it does not know (type
 *  syntax such as a decorator `@`, or a broken file), the text after that character is tokenized on,
 *  so that no prefix of a file can hide what follows. */
function tokenize(text: string): { tokens: Token[]; complete: boolean; stoppedAt: number } {
  const out: Token[] = [];
  let pos = 0;
  // each restart costs a scan back to the line start: a file broken everywhere is measured in part (the
  // bracket count covers the rest)
  for (let restarts = 0; pos <= text.length && restarts < 64; restarts++) {
    const p = new Tokenizer({ ecmaVersion: 'latest', allowHashBang: true, sourceType: 'module' }, text, pos);
    try {
      for (;;) {
        const tok = p.getToken();
        if (tok.type === tt.eof) return { tokens: out, complete: true, stoppedAt: text.length };
        out.push(tok);
        pos = tok.end;
      }
    } catch (e) {
      const at = (e as { pos?: number }).pos;
      pos = Math.max(pos, typeof at === 'number' ? at : pos) + 1;
    }
  }
  return { tokens: out, complete: false, stoppedAt: Math.min(pos, text.length) };
}

/** Whether a program parsed outside `parseScript` (another parser's options) is within the depth
 *  the JS walks may recurse to (`MAX_JS_DEPTH`). */
export function shallowEnough(program: Program): boolean {
  return jsDepth(program) <= MAX_JS_DEPTH;
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

