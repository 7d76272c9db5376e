/**
 * Entry point of the task-suite layer: `loadSuites` turns the project's JSON
 * files into suites through the registered adapters.
 */
import * as path from 'node:path';
import type { SourceFile } from '../core/source.js';
import { jsonDocumentOf } from '../lang/json/cache.js';
import type { DetectContext, DetectedDocument, SuiteAdapter, SuiteProblem } from './adapter.js';
import { ADAPTERS } from './adapters.js';
import type { Suite } from './types.js';
import { learnKindRoutes, learnRoutes, type HarnessCode } from './harness/learn.js';
import { declaredRoutes, type TaskDecl } from './harness/declared.js';
import type { ModuleRoute } from './harness/routes.js';
import { loadResolutions, type RouteResolutions } from './harness/resolve.js';
import type { KindRoute } from './harness/kind-sites.js';
import { PYTHON_DATA_ADAPTER_ID, pythonDataSuites } from './harness/py-suites.js';
import { KIND_DISPATCH_ADAPTER_ID, isToolConfig, tallyKinds } from './harness/kind-adapter.js';
import { jsTaskDocuments } from './harness/js-tasks.js';

export type { SuiteProblem } from './adapter.js';

export interface LoadSuitesOptions {
  /** Project root (absolute). */
  root: string;
  /** Force one adapter by id (config `suite.adapter`); default: detect by shape. */
  adapter?: string;
  adapterOptions?: object;
  /** The project's code, to learn the harness's routes from (src/suites/harness/). */
  code?: HarnessCode;
  /** false: no detection, only the declared routes (config `detect`). */
  detect?: boolean;
  /** Config `tasks` declarations and the config file they come from. */
  declared?: { tasks: readonly TaskDecl[]; configFile: string };
  /** Route resolutions kept between loads (an editor session, src/suites/harness/resolve.ts). */
  resolutions?: RouteResolutions;
}

export interface LoadSuitesResult {
  suites: Suite[];
  problems: SuiteProblem[];
  /** The module routes learned from the harness and declared in the config. */
  routes: readonly ModuleRoute[];
  /** The dispatches on a task member learned from the harness. */
  kinds: readonly KindRoute[];
}

/**
 * Parse every `.json` file once and build suites. Never throws: malformed
 * JSON and unusable documents become `problems`; JSON that is not a task
 * (package.json, tsconfig.json, vaudit.config.json, schemas…) is ignored.
 */
export async function loadSuites(files: SourceFile[], opts: LoadSuitesOptions): Promise<LoadSuitesResult> {
  const problems: SuiteProblem[] = [];
  let adapters: readonly SuiteAdapter[] = ADAPTERS;
  if (opts.adapter !== undefined) {
    const a = ADAPTERS.find((x) => x.id === opts.adapter);
    if (!a) {
      problems.push({
        file: path.join(opts.root, 'vaudit.config.json'),
        start: 0,
        end: 0,
        message: `Unknown suite adapter "${opts.adapter}".`,
        fix: `Use one of the known adapters: ${ADAPTERS.map((x) => x.id).join(', ')}.`,
      });
      return { suites: [], problems, routes: [], kinds: [] };
    }
    adapters = [a];
  }
  const detect = opts.detect !== false;
  const routes = [...(opts.declared ? declaredRoutes(opts.declared.tasks, opts.declared.configFile) : []), ...(opts.code && detect ? learnRoutes(opts.code) : [])];
  if (!detect) adapters = adapters.filter((a) => a.id === 'module-route');
  const kinds = opts.code && detect ? learnKindRoutes(opts.code) : [];
  const parsedDocs: DetectedDocument[] = [];
  for (const file of files) {
    if (file.language !== 'json' && !file.path.toLowerCase().endsWith('.json')) continue;
    const parsed = jsonDocumentOf(file);
    if (!parsed.ok) {
      problems.push({ file: file.path, start: parsed.error.start, end: parsed.error.end, message: parsed.error.message });
      continue;
    }
    parsedDocs.push({ file, doc: parsed.doc });
  }
  // the share of handled kinds is the suite's, not one file's: a task per file naming an unknown kind is a task too
  const kindTally = kinds.length ? tallyKinds(parsedDocs.filter((d) => !isToolConfig(d.file)).map((d) => d.doc), kinds) : undefined;
  const ctx: DetectContext = { root: opts.root, routes, kinds, kindTally, resolutions: loadResolutions(opts.resolutions) };
  const detected = new Map<SuiteAdapter, DetectedDocument[]>();
  for (const { file, doc } of parsedDocs) {
    let owner: SuiteAdapter | undefined;
    for (const a of adapters) {
      let hit = false;
      try {
        hit = a.detect(doc, file, ctx);
      } catch {
        hit = false;
      }
      if (hit) {
        owner = a;
        break;
      }
    }
    if (owner) {
      let list = detected.get(owner);
      if (!list) detected.set(owner, (list = []));
      list.push({ file, doc });
    }
  }
  // tasks written as JS/TS data (an exported array of records the harness iterates), routed by kind like JSON records
  const kindAdapter = adapters.find((a) => a.id === KIND_DISPATCH_ADAPTER_ID);
  // (only JS/TS dispatches bind them: without one, no module is read for them)
  if (opts.code && detect && kindAdapter && kinds.some((k) => !k.file.endsWith('.py'))) {
    try {
      for (const d of jsTaskDocuments(opts.code)) {
        if (!kindAdapter.detect(d.doc, d.file, ctx)) continue;
        let list = detected.get(kindAdapter);
        if (!list) detected.set(kindAdapter, (list = []));
        list.push(d);
      }
    } catch {
      // harness code vaudit cannot follow recognises no JS/TS tasks; the run goes on
    }
  }
  const suites: Suite[] = [];
  for (const [adapter, docs] of detected) {
    try {
      const r = adapter.load(docs, { root: opts.root, routes, kinds, kindTally, resolutions: ctx.resolutions, adapterOptions: { ...(opts.adapterOptions ?? {}) } as Record<string, unknown> });
      suites.push(...r.suites);
      problems.push(...r.problems);
    } catch (e) {
      problems.push({
        file: docs[0]!.file.path,
        start: 0,
        end: 0,
        message: `Suite adapter "${adapter.id}" failed: ${e instanceof Error ? e.message : String(e)}.`,
        fix: 'Report this with the file; the other files were still checked.',
      });
    }
  }
  // tasks written as Python data, recognised by the harness code that loads and routes them
  if (opts.code && detect && adapters.some((a) => a.id === PYTHON_DATA_ADAPTER_ID)) {
    try {
      suites.push(...pythonDataSuites(opts.code.python, opts.code.files, opts.root));
    } catch {
      // harness code vaudit cannot follow recognises no Python tasks; the run goes on
    }
  }
  return { suites, problems, routes, kinds };
}
