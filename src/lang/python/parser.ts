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
import { convertTree, type PyNode, type TreeCursorLike } from './tree.js';

export type PythonParserKind = 'native' | 'wasm';

export interface PythonParser {
  readonly kind: PythonParserKind;
  /** Why the native parser is not the one in use (when `kind` is `wasm`). */
  readonly fallbackReason?: string;
  /** Parse Python source into a plain tree. Never throws on bad syntax (ERROR / MISSING nodes). */
  parse(text: string): PyNode;
}

const require = createRequire(import.meta.url);

interface RawTree {
  rootNode: { hasError: boolean };
  walk(): TreeCursorLike;
  delete?(): void;
}
interface RawParser {
  parse(text: string): RawTree | null;
}

/** Parses of this process (`--debug`): how many, how many UTF-16 units, time in tree-sitter and in the copy. */
export const parseStats = { parses: 0, chars: 0, parseMs: 0, convertMs: 0 };

function wrap(kind: PythonParserKind, raw: RawParser, fallbackReason?: string): PythonParser {
  return {
    kind,
    fallbackReason,
    parse(text: string): PyNode {
      const t0 = performance.now();
      const tree = raw.parse(text);
      if (!tree) throw new Error('tree-sitter returned no tree');
      const t1 = performance.now();
      try {
        return convertTree(tree.walk(), tree.rootNode.hasError, text);
      } finally {
        tree.delete?.();
        parseStats.parses++;
        parseStats.chars += text.length;
        parseStats.parseMs += t1 - t0;
        parseStats.convertMs += performance.now() - t1;
      }
    },
  };
}

function loadNative(): PythonParser {
  const Parser = require('tree-sitter') as new () => RawParser & { setLanguage(l: unknown): void };
  const language = require('tree-sitter-python') as unknown;
  const p = new Parser();
  p.setLanguage(language);
  return wrap('native', p);
}

async function loadWasm(fallbackReason?: string): Promise<PythonParser> {
  const { Parser, Language } = await import('web-tree-sitter');
  await Parser.init();
  const lang = await Language.load(require.resolve('tree-sitter-python/tree-sitter-python.wasm'));
  const p = new Parser();
  p.setLanguage(lang);
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
