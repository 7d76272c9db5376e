/**
 * tree-sitter Python loading. Two builds of the same grammar (tree-sitter-python 0.25.0):
 * - `native`: the Node addon (`tree-sitter` + the grammar's own addon). No wasm to compile at
 *   start-up, so a whole run is about 0.25 s faster on a cold process; the default.
 * - `wasm`: web-tree-sitter with the grammar's wasm build (ABI 15), the fallback when the native
 *   addon cannot load (no prebuilt binary for the platform and none was compiled at install).
 * Both yield the same trees with the same UTF-16 positions (a test compares them on every Python
 * file of the real corpora). `VAUDIT_PYTHON_PARSER=wasm|native` forces one (benchmarks, tests).
 *
 * A parse returns the plain-JS copy of the tree (`PyNode`) and drops the parser's tree at once: the
 * wasm tree is deleted (its memory is not garbage-collected); the native addon's tree has no
 * `delete()` and its memory goes when the garbage collector finalises the dropped object.
 */
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { convertTree, type PyNode, type TreeCursorLike, type TreeReuse } from './tree.js';
import { importModule } from '../../core/dynamic-import.js';
import { loneCrAsLf } from '../../core/source.js';
import { cachedParse } from './tree-cache.js';

export type PythonParserKind = 'native' | 'wasm';

export interface PythonParser {
  readonly kind: PythonParserKind;
  /** Why the native parser is not the one in use (when `kind` is `wasm`). */
  readonly fallbackReason?: string;
  /** Parse Python source into a plain tree. Never throws on bad syntax (ERROR / MISSING nodes). */
  parse(text: string): PyNode;
  /**
   * The same plain tree, also keeping the parser's tree so that the next parse of an edited text
   * can be incremental (native parser only; an editor session keeps one per edited file). `prev`
   * is used up: its tree is edited in place and must not be passed again.
   */
  parseKeeping?(text: string, prev?: KeptTree): { root: PyNode; kept: KeptTree };
}

/** A parse kept for an incremental re-parse: the text, the parser's tree of it and its plain copy. */
export interface KeptTree {
  readonly text: string;
  readonly tree: unknown;
  readonly root: PyNode;
}

const require = createRequire(import.meta.url);

interface RawTree {
  rootNode: { hasError: boolean };
  walk(): TreeCursorLike;
  edit?(e: TreeEdit): void;
  getChangedRanges?(other: RawTree): Array<{ startIndex: number; endIndex: number }>;
  delete?(): void;
}
export interface RawParser {
  parse(text: string, oldTree?: RawTree): RawTree | null;
}
interface Point { row: number; column: number }
interface TreeEdit {
  startIndex: number;
  oldEndIndex: number;
  newEndIndex: number;
  startPosition: Point;
  oldEndPosition: Point;
  newEndPosition: Point;
}

/** Row and column (UTF-16 units, as the native binding counts them) of an offset, counting rows on from
 *  a known point at or before it (`from`: its row and offset; both texts agree up to there). */
function pointAt(text: string, offset: number, from = { row: 0, offset: 0 }): Point {
  let row = from.row;
  for (let i = text.indexOf('\n', from.offset); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) row++;
  return { row, column: offset - (text.lastIndexOf('\n', offset - 1) + 1) };
}

/** The last `editBetween` (an editor's lint asks it of the same two texts for the parse, the flow reuse
 *  and the findings kept: each a scan of both texts). */
let lastEdit: { a: string; b: string; edit: TreeEdit } | undefined;

/** The one replaced span that turns `a` into `b` (common prefix and suffix, never splitting a surrogate pair). */
export function editBetween(a: string, b: string): TreeEdit {
  if (lastEdit && lastEdit.a === a && lastEdit.b === b) return lastEdit.edit;
  const edit = findEdit(a, b);
  lastEdit = { a, b, edit };
  return edit;
}

function findEdit(a: string, b: string): TreeEdit {
  const n = Math.min(a.length, b.length);
  let p = 0;
  while (p < n && a.charCodeAt(p) === b.charCodeAt(p)) p++;
  if (p > 0 && p < n && isHigh(a.charCodeAt(p - 1))) p--;
  let s = 0;
  while (s < n - p && a.charCodeAt(a.length - 1 - s) === b.charCodeAt(b.length - 1 - s)) s++;
  if (s > 0 && isLow(a.charCodeAt(a.length - s))) s--;
  const oldEnd = a.length - s;
  const newEnd = b.length - s;
  // the texts agree before p: the rows of both ends are counted on from the start's
  const startPosition = pointAt(a, p);
  const at = { row: startPosition.row, offset: p };
  return {
    startIndex: p, oldEndIndex: oldEnd, newEndIndex: newEnd,
    startPosition, oldEndPosition: pointAt(a, oldEnd, at), newEndPosition: pointAt(b, newEnd, at),
  };
}
const isHigh = (c: number) => c >= 0xd800 && c <= 0xdbff;
const isLow = (c: number) => c >= 0xdc00 && c <= 0xdfff;

/** Parses of this process (`--debug`): how many, how many UTF-16 units, time in tree-sitter and in the copy;
 *  how many were large. */
export const parseStats = { parses: 0, chars: 0, parseMs: 0, convertMs: 0, incremental: 0, large: 0 };

/** A parse of at least this many characters is large (`parseStats.large`): its native tree is worth a
 *  collection to free (`releasingTrees`). No module of the five corpora is a tenth of it. */
const LARGE_PARSE_CHARS = 1_000_000;

/** Count a parse of `text` made on this thread, and the time it took in tree-sitter and in the copy (`parseStats`). */
export function countParse(text: string, parseMs: number, convertMs: number): void {
  parseStats.parses++;
  parseStats.chars += text.length;
  parseStats.parseMs += parseMs;
  parseStats.convertMs += convertMs;
  if (text.length >= LARGE_PARSE_CHARS) parseStats.large++;
}

function wrap(kind: PythonParserKind, raw: RawParser, fallbackReason?: string): PythonParser {
  const convert = (tree: RawTree, text: string, t0: number, keep: boolean, reuse?: TreeReuse): PyNode => {
    const t1 = performance.now();
    try {
      return convertTree(tree.walk(), tree.rootNode.hasError, text, reuse);
    } finally {
      if (!keep) tree.delete?.();
      countParse(text, t1 - t0, performance.now() - t1);
    }
  };
  const fresh = (text: string): PyNode => {
    const t0 = performance.now();
    // a lone CR ends a line for Python, not for the grammar (same length: the offsets hold)
    const tree = raw.parse(loneCrAsLf(text));
    if (!tree) throw new Error('tree-sitter returned no tree');
    return convert(tree, text, t0, false);
  };
  const parser: PythonParser = {
    kind,
    fallbackReason,
    parse(text: string): PyNode {
      return cachedParse(text, fresh, kind);
    },
  };
  // wasm trees live in wasm memory until deleted: only the native parser keeps trees
  if (kind === 'native') {
    parser.parseKeeping = (text, prev) => {
      const t0 = performance.now();
      let tree: RawTree | null = null;
      let reuse: TreeReuse | undefined;
      const old = prev?.tree as RawTree | undefined;
      // a lone CR ends a line for Python, not for the grammar (as in `fresh`)
      const lf = loneCrAsLf(text);
      if (prev && old?.edit) {
        const edit = editBetween(loneCrAsLf(prev.text), lf);
        old.edit(edit);
        tree = raw.parse(lf, old);
        // error recovery is where an incremental parse may differ from a fresh one: parse afresh
        if (tree?.rootNode.hasError) tree = null;
        else {
          parseStats.incremental++;
          // the plain copy takes over the subtrees tree-sitter did not change
          const changed = tree && old.getChangedRanges?.(tree);
          if (changed) reuse = { old: prev.root, editStart: edit.startIndex, oldEnd: edit.oldEndIndex, newEnd: edit.newEndIndex, changed };
        }
      }
      tree ??= raw.parse(lf);
      if (!tree) throw new Error('tree-sitter returned no tree');
      const root = convert(tree, text, t0, true, reuse);
      return { root, kept: { text, tree, root } };
    };
  }
  return parser;
}

/** The native parser's own trees (a thread that parses ahead walks them itself, `parse-ahead.ts`). */
export function nativeTreeParser(): RawParser {
  return loadNativeRaw();
}

function loadNative(): PythonParser {
  return wrap('native', loadNativeRaw());
}

function loadNativeRaw(): RawParser {
  const Parser = require('tree-sitter') as (new () => RawParser & { setLanguage(l: unknown): void }) & { SyntaxNode: unknown };
  const language = require('tree-sitter-python') as { nodeSubclasses?: unknown };
  // setLanguage would build a JS subclass of SyntaxNode per node type (≈ 270 classes made with
  // `new Function`, 10–40 ms of every start) for tree-sitter's node API. vaudit reads trees through a
  // cursor and asks a tree's root only `hasError`, so every type gets the base class (it keeps `type`,
  // `children` and the rest; only the per-field getters such as `nameNode` are missing).
  language.nodeSubclasses ??= new Proxy([], { get: (_target, key) => (key === 'length' ? 0 : Parser.SyntaxNode) });
  const p = new Parser();
  p.setLanguage(language);
  return p;
}

/** The grammar's wasm: tree-sitter-python's when it is installed, else the copy the build put in
 *  dist/grammars/ (npm drops the optional tree-sitter-python whole when its native addon fails to build). */
function grammarWasm(): string {
  try {
    return require.resolve('tree-sitter-python/tree-sitter-python.wasm');
  } catch {
    // this module is dist/src/lang/python/parser.js (the bundle keeps each module's own URL)
    return fileURLToPath(new URL('../../../grammars/tree-sitter-python.wasm', import.meta.url));
  }
}

async function loadWasm(fallbackReason?: string): Promise<PythonParser> {
  const { Parser, Language } = (await importModule('web-tree-sitter')) as typeof import('web-tree-sitter');
  await Parser.init();
  const lang = await Language.load(grammarWasm());
  const p = new Parser();
  p.setLanguage(lang);
  // RawParser is the part of the parser API both bindings share; web-tree-sitter types `parse`'s old tree
  // as its own Tree class (which a RawTree is not declared to be), though only trees it made are passed back
  return wrap('wasm', p as unknown as RawParser, fallbackReason);
}

const loaded = new Map<PythonParserKind | 'default', Promise<PythonParser>>();

/**
 * The process's Python parser: native unless `kind` (or `VAUDIT_PYTHON_PARSER`) asks for wasm,
 * or the native addon fails to load (then wasm, with the reason in `fallbackReason`).
 */
export function pythonParser(kind?: PythonParserKind): Promise<PythonParser> {
  const env = process.env.VAUDIT_PYTHON_PARSER;
  const want: PythonParserKind | 'default' = kind ?? (env === 'wasm' || env === 'native' ? env : 'default');
  let p = loaded.get(want);
  if (!p) {
    p = want === 'wasm'
      ? loadWasm()
      : (async () => {
          try {
            return loadNative();
          } catch (e) {
            if (want === 'native') throw e;
            const first = String((e as Error)?.message ?? e).split('\n')[0]!;
            return loadWasm(`native tree-sitter did not load: ${first}`);
          }
        })();
    loaded.set(want, p);
  }
  return p;
}

/** Parse Python source with the process's parser (see `pythonParser`). */
export async function parsePython(text: string): Promise<PyNode> {
  return (await pythonParser()).parse(text);
}
