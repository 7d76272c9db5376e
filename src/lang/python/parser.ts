/**
 * tree-sitter Python loading. One Parser for the process; the grammar is the
 * wasm build shipped by tree-sitter-python (ABI 15, needs web-tree-sitter ≥ 0.25).
 * Callers own the returned Tree and must `delete()` it when done with it.
 */
import { createRequire } from 'node:module';
import { Parser, Language, type Tree } from 'web-tree-sitter';

let parserPromise: Promise<Parser> | undefined;

export function pythonParser(): Promise<Parser> {
  parserPromise ??= (async () => {
    await Parser.init();
    const require = createRequire(import.meta.url);
    const lang = await Language.load(require.resolve('tree-sitter-python/tree-sitter-python.wasm'));
    const parser = new Parser();
    parser.setLanguage(lang);
    return parser;
  })();
  return parserPromise;
}

/** Parse Python source. Never throws on bad syntax (errors become ERROR / MISSING nodes). */
export async function parsePython(text: string): Promise<Tree> {
  const parser = await pythonParser();
  const tree = parser.parse(text);
  if (!tree) throw new Error('tree-sitter returned no tree');
  return tree;
}
