/**
 * The suite-adapter interface: how a task format becomes vaudit's suite model
 * (task → verifier entries → embedded code → verifier entrypoint).
 *
 * An adapter is one file exporting a {@link SuiteAdapter}; register it in
 * `src/suites/adapters.ts`. `loadSuites` parses every `.json` file once, asks
 * each adapter whether a parsed document is one of its tasks (`detect`, by
 * shape, no config needed), then hands the detected documents to `load`,
 * which builds {@link Suite}s. Adapters never read files or throw on bad
 * input: they return `problems` with exact offsets.
 *
 * Example — a format whose tasks look like
 * `{"evaluator": {"func": "compare_table", "expected": {...}}}`:
 * ```ts
 * export const metricsAdapter: SuiteAdapter = {
 *   id: 'metrics',
 *   description: '"evaluator": {"func": …} tasks graded by a Python metrics module',
 *   detect: (doc) => isObject(doc.value) && isObject(doc.value.evaluator) && typeof doc.value.evaluator.func === 'string',
 *   load(docs, options) {
 *     // one Task per document, one VerifierEntry per evaluator (kind = func), fields from doc.values
 *   },
 * };
 * ```
 * See src/suites/README.md.
 */
import type { SourceFile } from '../core/source.js';
import type { JsonDocument } from '../lang/json/parse.js';
import type { Suite } from './types.js';
import type { PythonProject } from '../lang/python/types.js';
import type { ModuleRoute } from './harness/routes.js';
import type { KindRoute } from './harness/kind-sites.js';
import type { LoadResolutions } from './harness/resolve.js';

/** A declared entrypoint (config `entrypoints`, or an adapter's defaults). */
export interface EntrypointDecl {
  /** Glob(s) of files, relative to the config folder (adapters: to the suite root). */
  files: string | string[];
  /** A module-level function (Python) or export (JS/TS). Absent with no class/method: the whole module. */
  export?: string;
  /** Class name (glob); with `method`: that method of matching classes (default: every class). */
  class?: string;
  method?: string;
  /** Why this is an entrypoint (shown nowhere yet; documentation for the config reader). */
  reason?: string;
}

/** A problem found while loading (malformed JSON, a document that cannot be a task…). */
export interface SuiteProblem {
  /** Absolute path. */
  file: string;
  /** UTF-16 offsets in the file. */
  start: number;
  end: number;
  message: string;
  /** What to do (one sentence); the finding falls back to a generic hint. */
  fix?: string;
}

/** A parsed JSON file an adapter detected as one of its tasks. */
export interface DetectedDocument {
  file: SourceFile;
  doc: JsonDocument;
}

export interface AdapterLoadOptions {
  /** Project root (absolute). */
  root: string;
  /** Adapter-specific options from the config (`suite.options`). */
  adapterOptions: Record<string, unknown>;
  /** Module routes learned from the suite's harness code (src/suites/harness/learn.ts). */
  routes?: readonly ModuleRoute[];
  /** Dispatches on a task member learned from the harness (src/suites/harness/kind-sites.ts). */
  kinds?: readonly KindRoute[];
  /** Per kind route, what the project's documents hold at its member path (`tallyKinds`). */
  kindTally?: ReadonlyMap<KindRoute, KindTally>;
  /** What this load resolves routes through, as detection did (src/suites/harness/resolve.ts). */
  resolutions?: LoadResolutions;
}

/** What the project's documents hold at a kind route's member path, over every document (`tallyKinds`):
 *  values the harness handles, values in all, and the member sets of the records that hold a handled value. */
export interface KindTally {
  known: number;
  total: number;
  shapes: ReadonlyArray<ReadonlySet<string>>;
}

/** What detection may know of the project's code besides the document. */
export interface DetectContext {
  root: string;
  routes: readonly ModuleRoute[];
  kinds?: readonly KindRoute[];
  /** Per kind route, what the project's documents hold at its member path (`tallyKinds`). */
  kindTally?: ReadonlyMap<KindRoute, KindTally>;
  /** What this load resolves routes through (src/suites/harness/resolve.ts). */
  resolutions?: LoadResolutions;
}

export interface AdapterLoadResult {
  suites: Suite[];
  problems: SuiteProblem[];
}

export interface SuiteAdapter {
  /** Stable id (config `suite.adapter`). */
  id: string;
  /** One line for `vaudit rules`/docs. */
  description: string;
  /** Is this parsed document one of this format's tasks? Must be cheap and must not throw. */
  detect(doc: JsonDocument, file: SourceFile, ctx?: DetectContext): boolean;
  /** Build suites from the detected documents. Must not throw on odd content. */
  load(docs: DetectedDocument[], options: AdapterLoadOptions): AdapterLoadResult;
  /**
   * Bind this adapter's entries to verifier functions (`VerifierEntry.binding`, `routes`) once the
   * Python project is known. Optional: without it the default binder (`binding.ts`: family folder +
   * `_eval_{kind}`) runs. Must not throw. A binder that analyses many modules is async and awaits
   * `releasingTrees` between them (the native parser's trees are freed only when the run yields).
   */
  bind?(suites: Suite[], python: PythonProject, adapterOptions: Record<string, unknown>): void | Promise<void>;
  /**
   * What `bind` reads of Python code beyond the modules' cross-file summaries (functions, classes,
   * imports), as a string: an editor session keeps the bindings over an edit that leaves every summary
   * and this key as they were (moving their offsets), and binds again otherwise. Without it, a binder's
   * suites are bound again after every Python edit.
   */
  bindKey?(suites: readonly Suite[], python: PythonProject): string;
  /**
   * Verifier entrypoints the format implies beyond its bound entries (globs relative to the suite
   * root), e.g. the method that dispatches entries to their functions. Optional.
   */
  entrypoints?(suite: Suite): EntrypointDecl[];
}
