/**
 * Loading a module by a computed URL (the rules, their oracles, the confirm stage). In the module
 * tree (dist/, or src/ under vitest) that is `import(url)`. In the single-file build
 * (scripts/build-bundle.mjs, loaded by bin/bundle.js) those modules are inside the bundle,
 * registered here by the URL they would have in dist/: loading them from dist/ instead would make a
 * second copy of every module they import (two parsers, two caches, classes that fail `instanceof`).
 */
let bundled: ReadonlyMap<string, () => Promise<unknown>> | undefined;
let loadedFrom = 'module tree (dist/)';

/** Called once by the single-file build's entry, before the CLI runs.
 *  @public (used by the generated bundle entry, scripts/build-bundle.mjs) */
export function setBundledModules(modules: ReadonlyMap<string, () => Promise<unknown>>): void {
  bundled = modules;
  loadedFrom = 'single-file build (dist/vaudit.bundle.cjs)';
}

/** How bin/bundle.js loaded the single-file build (its code cache), for `--debug`.
 *  @public (called by bin/bundle.js through the bundle's exports) */
export function setBundleLoadInfo(info: string): void {
  loadedFrom = `single-file build (dist/vaudit.bundle.cjs), ${info}`;
}

/** Where this process's code came from (`--debug`). */
export function codeOrigin(): string {
  return loadedFrom;
}

/** The module at `url`: the bundle's copy when the single-file build registered one, else `import(url)`. */
export function importModule(url: string): Promise<unknown> {
  const load = bundled?.get(url);
  return load ? load() : import(url);
}
