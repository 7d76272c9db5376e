/**
 * Public surface of the Python analysis core (owned by src/lang/python).
 * Placeholder interfaces: the analysis-core module fills these in.
 */
import type { Node, Tree } from 'web-tree-sitter';

export interface PythonAnalysis {
  /** The parsed tree of the unit (file or embedded lambda). */
  tree: Tree;
  root: Node;
  text: string;
}

export interface PythonProject {
  /** Analysis of a `.py` file of the project (parsed once, cached). */
  analysis(path: string): PythonAnalysis | undefined;
  /** Free wasm memory of every tree. */
  dispose(): void;
}
