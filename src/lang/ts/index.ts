/** TypeScript/JavaScript bundle analysis: the model the bundle rules read (see ./types.ts). */
export { buildBundleModel, buildBundleModelFromText, mayBeBundle, BUNDLE_MODULE } from './bundle-model.js';
export type * from './types.js';
