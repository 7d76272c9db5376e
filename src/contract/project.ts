/**
 * The project: every file of one run, parsed once, plus the cross-file
 * indexes (suites and their entries, Python modules, bundles) that rules
 * read through `ctx.project`.
 */
import type { Layer } from '../core/types.js';
import type { SourceFile } from '../core/source.js';
import type { Suite, EmbeddedCode } from '../suites/types.js';
import type { PythonProject } from '../lang/python/types.js';
import type { BundleModel } from '../lang/ts/types.js';

/** What one rule instance visits: a file of a layer, or code embedded in a JSON string. */
export interface FileUnit {
  file: SourceFile;
  layer: Layer;
  embedded?: EmbeddedCode;
}

export interface Project {
  /** Root used for relative paths (the config directory, else the cwd). */
  root: string;
  files: ReadonlyMap<string, SourceFile>;
  suites: readonly Suite[];
  python: PythonProject;
  bundles: ReadonlyMap<string, BundleModel>;
  /** Classic scripts an HTML page of the project loads (they share the page's global scope). */
  pageScripts?: ReadonlySet<string>;
}
