/** The cheap text test for a correctness-model bundle, shared by the lazy loader (index.ts) and the model. */
export const BUNDLE_MODULE = 'vaudit/bundle';
const DEFINE = 'defineCorrectnessModel';

/** Cheap text pre-filter: could this file be a correctness-model bundle? */
export function mayBeBundle(text: string): boolean {
  return text.includes(BUNDLE_MODULE) || text.includes(DEFINE);
}
