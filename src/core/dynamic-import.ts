/**
 * Loading a module by a computed URL (the rules, their oracles, the confirm stage) or a package loaded
 * lazily (web-tree-sitter, typescript, ts-blank-space). In the module tree (dist/, or src/ under
 * vitest) that is `import(specifier)`. In the single-file build (scripts/build-bundle.mjs, loaded by
 * bin/bundle.js):
 * - the modules loaded by URL are inside the bundle, registered here by the URL they would have in
 *   dist/: loading them from dist/ instead would make a second copy of every module they import (two
 *   parsers, two caches, classes that fail `instanceof`);
 * - the rest is imported by bin/bundle.js on the bundle's behalf: an `import()` compiled inside a
 *   vm.Script needs vm's experimental loader option, which warns on stderr and, on Node 20, is lost
 *   for functions restored from the code cache.
 */
type Importer = (specifier: string) => Promise<unknown>;

let bundled: ReadonlyMap<string, () => Promise<unknown>> | undefined;
let importer: Importer = (specifier) => import(specifier);
let loadedFrom = 'module tree (dist/)';

/** Called once by the single-file build's entry, before the CLI runs.
 *  @public (used by the generated bundle entry, scripts/build-bundle.mjs) */
export function setBundledModules(modules: ReadonlyMap<string, () => Promise<unknown>>, bundleImporter: Importer): void {
  bundled = modules;
  importer = bundleImporter;
  loadedFrom = 'single-file build (dist/vaudit.bundle.cjs)';
}

/** How bin/bundle.js loaded the single-file build (its code cache), for `--debug`.
 *  @public (called by bin/bundle.js through the bundle's exports) */
export function setBundleLoadInfo(info: string): void {
  loadedFrom = `single-file build (dist/vaudit.bundle.cjs), ${info}`;
}

let staticPassOn: string | undefined;
let confirmStage = false;

/** A static pass ran in this process (`runLint`) on `inputs`: the folders it was given and the projects
 *  of the files it was given, resolved, in one string. */
export function noteStaticPass(inputs: string): void {
  staticPassOn = inputs;
}

/** The confirm stage was loaded in this process. */
export function noteConfirmStage(): void {
  confirmStage = true;
}

/** The inputs of the static pass that ran in this process, when the confirm stage did not: what this
 *  process compiled is what a check of those inputs needs, which bin/bundle.js adds to the code cache
 *  once per inputs (a check answered from its --cache entry compiled little; the confirm stage's code
 *  is not for every check).
 *  @public (called by bin/bundle.js through the bundle's exports) */
export function staticPassInputs(): string | undefined {
  return confirmStage ? undefined : staticPassOn;
}

/** Where this process's code came from (`--debug`). */
export function codeOrigin(): string {
  return loadedFrom;
}

/** The module at `specifier` (a file URL or a package name): the bundle's copy when the single-file build
 *  registered one, else `import(specifier)`. */
export function importModule(specifier: string): Promise<unknown> {
  const load = bundled?.get(specifier);
  return load ? load() : importer(specifier);
}
