/**
 * The Python side of a project: every `.py` file parsed once, analyses cached.
 * (Minimal version: the analysis core extends PythonAnalysis with scopes,
 * definite assignment, constants and call resolution.)
 */
import type { SourceFile } from '../../engine/project.js';
import type { PythonAnalysis, PythonProject } from './types.js';
import { parsePython } from './parser.js';

export async function analysePython(text: string): Promise<PythonAnalysis> {
  const tree = await parsePython(text);
  return { tree, root: tree.rootNode, text };
}

export async function createPythonProject(files: readonly SourceFile[]): Promise<PythonProject> {
  const analyses = new Map<string, PythonAnalysis>();
  for (const f of files) {
    if (f.language !== 'python') continue;
    analyses.set(f.path, await analysePython(f.source.text));
  }
  return {
    analysis: (p) => analyses.get(p),
    dispose() {
      for (const a of analyses.values()) a.tree.delete();
      analyses.clear();
    },
  } as PythonProject;
}
