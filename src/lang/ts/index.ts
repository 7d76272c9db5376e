// STUB (owner: bundle engineer replaces this file).
import type { SourceFile } from '../../engine/project.js';
import type { BundleModel } from './types.js';
export function buildBundleModel(_file: SourceFile): BundleModel | undefined {
  return undefined;
}
