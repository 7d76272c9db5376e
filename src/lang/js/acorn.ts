/**
 * acorn, loaded on first use: its module initialiser builds its Unicode property tables for every
 * ECMAScript version (≈ 3 % of a check's start-up on the main thread), and a suite without JavaScript
 * or TypeScript (ScienceBoard, Spider2-V) never parses any. In the single-file build the bundle's entry
 * hands in its own copy (`setBundledAcorn`, scripts/build-bundle.mjs: inside the bundle, so in its code
 * cache); the module tree requires the package.
 */
import { createRequire } from 'node:module';
import type * as Acorn from 'acorn';

let bundled: (() => typeof Acorn) | undefined;
let loaded: typeof Acorn | undefined;

/** Called once by the single-file build's entry, before the CLI runs.
 *  @public (used by the generated bundle entry, scripts/build-bundle.mjs) */
export function setBundledAcorn(load: () => typeof Acorn): void {
  bundled = load;
}

/** The acorn module, loaded by the first call. */
export function acorn(): typeof Acorn {
  return (loaded ??= bundled ? bundled() : (createRequire(import.meta.url)('acorn') as typeof Acorn));
}
