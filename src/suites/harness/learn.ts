/**
 * Learning a suite's routes from its harness: every Python and JS/TS file that loads a module whose
 * path it builds from a task record (see py-sites.ts, js-sites.ts). Cached per project state.
 */
import type { Program } from 'acorn';
import type { SourceFile } from '../../core/source.js';
import type { PythonProject } from '../../lang/python/types.js';
import { pythonRoutes } from './py-sites.js';
import { perFile } from './file-memo.js';
import { jsRoutes, JS_LOADER_SCREEN } from './js-sites.js';
import type { ModuleRoute } from './routes.js';
import { kindRoutes, type KindRoute } from './kind-sites.js';
import { jsKindRoutes, JS_KIND_SCREEN } from './js-kind-sites.js';

export interface HarnessCode {
  python: PythonProject;
  files: readonly SourceFile[];
  /** The parsed program of a JS/TS file (types stripped), when it parses. */
  programOf(file: SourceFile): Program | undefined;
}

const memo = new WeakMap<readonly SourceFile[], ModuleRoute[]>();

/** A screen's answer on a file's text, once per content (a session learns again on every Python edit, and a
 *  suite's app scripts are megabytes of text that never change). */
const screens = new WeakMap<SourceFile, Map<RegExp, boolean>>();
function screened(f: SourceFile, screen: RegExp): boolean {
  let byScreen = screens.get(f);
  if (!byScreen) screens.set(f, (byScreen = new Map()));
  let r = byScreen.get(screen);
  if (r === undefined) byScreen.set(screen, (r = screen.test(f.source.text)));
  return r;
}

export function learnRoutes(code: HarnessCode): ModuleRoute[] {
  const hit = memo.get(code.files);
  if (hit) return hit;
  const out: ModuleRoute[] = [];
  for (const f of code.files) {
    try {
      // per file, kept over an editor's edits while what it read is the same (file-memo.ts)
      if (f.language === 'python') out.push(...perFile('py-routes', code.python, f.path, pythonRoutes));
      else if ((f.language === 'javascript' || f.language === 'typescript') && screened(f, JS_LOADER_SCREEN)) {
        const program = code.programOf(f);
        if (program) out.push(...jsRoutes(f.path, program, f.source.text));
      }
    } catch {
      // a harness file vaudit cannot follow teaches no route; the run goes on
    }
  }
  memo.set(code.files, out);
  return out;
}

/** Kind routes one file teaches, and the other files whose code they were learned from (a case's class
 *  and its methods, a function a case calls): what an editor session must look at again after an edit. */
export interface FileKinds {
  routes: KindRoute[];
  deps: ReadonlySet<string>;
}

const kindMemo = new WeakMap<readonly SourceFile[], KindRoute[]>();
const kindFilesMemo = new WeakMap<readonly KindRoute[], ReadonlyMap<string, FileKinds>>();

/** A view of the project that notes the files whose analysis or functions are taken through it. */
function recording(python: PythonProject, deps: Set<string>): PythonProject {
  return {
    analysis: (p) => (deps.add(p), python.analysis(p)),
    analyseCode: (t) => python.analyseCode(t),
    files: () => python.files(),
    text: (p) => python.text(p),
    moduleName: (p) => python.moduleName(p),
    resolveModule: (f, m, l) => python.resolveModule(f, m, l),
    resolveFunction: (f, n) => {
      const r = python.resolveFunction(f, n);
      if (r) deps.add(r.file);
      return r;
    },
    stats: () => python.stats(),
    releaseFacts: (p) => python.releaseFacts(p),
    releaseCallFacts: () => python.releaseCallFacts(),
    releaseThreads: () => python.releaseThreads(),
    dispose: () => python.dispose(),
  };
}

/** A JS/TS file's dispatches read nothing of other files: kept per file content (an editor session
 *  learns them again only for a file that changed; parsing every app script on each rebuild cost more
 *  than the rest of the learning). */
const jsKindsMemo = new WeakMap<SourceFile, FileKinds>();
function jsFileKinds(code: HarnessCode, f: SourceFile): FileKinds {
  let k = jsKindsMemo.get(f);
  if (!k) jsKindsMemo.set(f, (k = jsFileKindsOf(code, f)));
  return k;
}

function jsFileKindsOf(code: HarnessCode, f: SourceFile): FileKinds {
  try {
    const program = code.programOf(f);
    return { routes: program ? jsKindRoutes(f.path, program, f.source.text) : [], deps: new Set() };
  } catch {
    // a harness file vaudit cannot follow teaches no route; the run goes on
    return { routes: [], deps: new Set() };
  }
}

function fileKinds(python: PythonProject, file: string): FileKinds {
  const deps = new Set<string>();
  try {
    return { routes: kindRoutes(recording(python, deps), file), deps };
  } catch {
    // a harness file vaudit cannot follow teaches no route; the run goes on
    return { routes: [], deps };
  }
}

/**
 * Dispatches on a task member (an evaluation type) in the harness's Python and JS/TS code. With `reuse` (an editor
 * session, after an edit that left every module's cross-file summary as it was): the previous per-file
 * result of each file that is not in `changed` and learned nothing from a changed file.
 */
export function learnKindRoutes(code: HarnessCode, reuse?: { files: ReadonlyMap<string, FileKinds>; changed: ReadonlySet<string> }): KindRoute[] {
  const hit = kindMemo.get(code.files);
  if (hit) return hit;
  const out: KindRoute[] = [];
  const byFile = new Map<string, FileKinds>();
  for (const f of code.files) {
    const prev = reuse?.files.get(f.path);
    let k: FileKinds | undefined;
    if (prev && !reuse!.changed.has(f.path) && !readsAny(prev.deps, reuse!.changed)) k = prev;
    // per file, kept over an editor's edits while what it read is the same (file-memo.ts)
    else if (f.language === 'python') k = perFile('py-kinds', code.python, f.path, fileKinds);
    else if ((f.language === 'javascript' || f.language === 'typescript') && screened(f, JS_KIND_SCREEN)) k = jsFileKinds(code, f);
    if (!k) continue;
    byFile.set(f.path, k);
    out.push(...k.routes);
  }
  kindMemo.set(code.files, out);
  kindFilesMemo.set(out, byFile);
  return out;
}

function readsAny(deps: ReadonlySet<string>, changed: ReadonlySet<string>): boolean {
  // the smaller set is walked (an edit changes one file; a file may have read hundreds)
  if (changed.size < deps.size) {
    for (const c of changed) if (deps.has(c)) return true;
    return false;
  }
  for (const d of deps) if (changed.has(d)) return true;
  return false;
}

/** The per-file results behind a `learnKindRoutes` answer. */
export function kindRoutesByFile(routes: readonly KindRoute[]): ReadonlyMap<string, FileKinds> | undefined {
  return kindFilesMemo.get(routes);
}
