// STUB (owner: suite/JSON engineer replaces this file).
import type { SourceFile } from '../engine/project.js';
import type { Suite } from './types.js';
export interface SuiteProblem { file: string; start: number; end: number; message: string }
export async function loadSuites(
  _files: readonly SourceFile[],
  _opts: { root: string; adapter?: string; adapterOptions?: Record<string, unknown> },
): Promise<{ suites: Suite[]; problems: SuiteProblem[] }> {
  return { suites: [], problems: [] };
}
