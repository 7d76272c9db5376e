/**
 * Learning a suite's routes from its harness: every Python and JS/TS file that loads a module whose
 * path it builds from a task record (see py-sites.ts, js-sites.ts). Cached per project state.
 */
import type { Program } from 'acorn';
import type { SourceFile } from '../../core/source.js';
import type { PythonProject } from '../../lang/python/types.js';
import { pythonRoutes } from './py-sites.js';
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

export function learnRoutes(code: HarnessCode): ModuleRoute[] {
  const hit = memo.get(code.files);
  if (hit) return hit;
  const out: ModuleRoute[] = [];
  for (const f of code.files) {
    try {
      if (f.language === 'python') out.push(...pythonRoutes(code.python, f.path));
      else if ((f.language === 'javascript' || f.language === 'typescript') && JS_LOADER_SCREEN.test(f.source.text)) {
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

const kindMemo = new WeakMap<readonly SourceFile[], KindRoute[]>();

/** Dispatches on a task member (an evaluation type) in the harness's Python and JS/TS code. */
export function learnKindRoutes(code: HarnessCode): KindRoute[] {
  const hit = kindMemo.get(code.files);
  if (hit) return hit;
  const out: KindRoute[] = [];
  for (const f of code.files) {
    try {
      if (f.language === 'python') out.push(...kindRoutes(code.python, f.path));
      else if ((f.language === 'javascript' || f.language === 'typescript') && JS_KIND_SCREEN.test(f.source.text)) {
        const program = code.programOf(f);
        if (program) out.push(...jsKindRoutes(f.path, program, f.source.text));
      }
    } catch {
      // a harness file vaudit cannot follow teaches no route; the run goes on
    }
  }
  kindMemo.set(code.files, out);
  return out;
}
