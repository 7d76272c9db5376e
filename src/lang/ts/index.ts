/**
 * TypeScript/JavaScript bundle analysis: the model the bundle rules read (see ./types.ts).
 * The TypeScript compiler (via ts-morph) costs ~0.7 s to load, so it is loaded only when
 * some file passes the cheap text pre-filter: call `prepareBundleAnalysis(files)` first.
 */
import type { SourceFile } from '../../core/source.js';
import type { BundleModel } from './types.js';

import { mayBeBundle } from './detect.js';

type Builder = typeof import('./bundle-model.js');
let builder: Builder | undefined;

/** Load the bundle analyser if any of these files may be a bundle. */
export async function prepareBundleAnalysis(files: Iterable<SourceFile>): Promise<void> {
  if (builder) return;
  for (const f of files) {
    if ((f.language === 'typescript' || f.language === 'javascript') && mayBeBundle(f.source.text)) {
      builder = await import('./bundle-model.js');
      return;
    }
  }
}

/** The bundle model of a file, or undefined when it is not a bundle. */
export function buildBundleModel(file: SourceFile): BundleModel | undefined {
  if (!mayBeBundle(file.source.text)) return undefined;
  if (!builder) throw new Error('bundle analysis used before prepareBundleAnalysis()');
  return builder.buildBundleModel(file);
}

export type * from './types.js';
