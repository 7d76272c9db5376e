/**
 * Keeping an editor session's suite indexes over a Python edit (issue 14).
 *
 * The indexes (`buildIndexes`: task models from the JSON files, and the
 * verifier binding of their entries) read a Python module only through its
 * cross-file summary: the set of project module paths, and per module its
 * functions (name, qualname, enclosing class), classes (qualname, bases,
 * method names) and imports (`src/suites/binding.ts`; its text only as a
 * pre-filter for `def <name>`, which agrees with the functions). When an edit
 * leaves that summary unchanged — a change inside a function body, a comment —
 * the previous indexes are still right except for the offsets of the bindings
 * into the edited module, which `rebaseBindings` moves to the new positions.
 *
 * The suites' loading also reads Python bodies: the harness's module routes
 * and kind dispatches, and tasks written as Python data (`harnessKey`). An edit
 * keeps the indexes only when what those learn is the same after it — else an
 * edit of the harness (a new dispatch case, another module path) would leave
 * the session's findings different from a fresh run's.
 *
 * Not covered (the session rebuilds): adapters with their own binder (the
 * OSWorld family learns its dispatch from method bodies), a JSON file or the
 * set of files changing. Entrypoints and verifier paths are recomputed on every
 * lint: they also read bodies (calls, route strings, runner calls).
 */
import type { PythonAnalysis, PythonProject } from '../lang/python/types.js';
import { kindRoutesByFile, learnKindRoutes, learnRoutes, type FileKinds, type HarnessCode } from '../suites/harness/learn.js';
import { pythonTaskContainers } from '../suites/harness/py-tasks.js';
import { ADAPTERS } from '../suites/adapters.js';
import type { Suite, VerifierBinding } from '../suites/types.js';

/** What the indexes read of one module, and the spans of its functions in the same order. */
export interface ModuleSummary {
  key: string;
  spans: ReadonlyArray<readonly [number, number]>;
}

export function moduleSummary(a: PythonAnalysis): ModuleSummary {
  const fns = a.functions();
  const key = JSON.stringify([
    a.notAnalysed ? 'not-analysed' : '',
    fns.map((f) => [f.qualname, f.name, f.className ?? null, !!f.classNode, f.params, f.decorators.map((d) => a.src(d))]),
    a.classes().map((c) => [c.qualname, c.bases, [...c.methods.keys()]]),
    [...a.imports()].map(([local, i]) => [local, i.module, i.name ?? null, i.level]),
  ]);
  return { key, spans: fns.map((f) => [f.node.start, f.node.end] as const) };
}

/** Can the suites' indexes be kept over a Python edit? Not when an adapter binds with its own code and
 *  cannot say what of the code it read (`bindKey`). */
export function reusableSuites(suites: readonly Suite[]): boolean {
  return suites.every((s) => {
    const a = ADAPTERS.find((x) => x.id === s.adapter);
    return !a?.bind || !!a.bindKey;
  });
}

/** What the suites' own binders read of bodies (`SuiteAdapter.bindKey`), per adapter present. */
function bindKeys(suites: readonly Suite[], python: PythonProject): string[] {
  const out: string[] = [];
  for (const a of ADAPTERS) {
    const own = suites.filter((s) => s.adapter === a.id);
    if (own.length && a.bindKey) out.push(`${a.id}:${a.bindKey(own, python)}`);
  }
  return out;
}

/**
 * Move the bindings into `file` from the spans of `before` to those of `after` (equal summaries: the
 * same functions in the same order). False, with nothing changed, when a binding matches no function.
 */
export function rebaseBindings(suites: readonly Suite[], file: string, before: ModuleSummary, after: ModuleSummary): boolean {
  const moves = new Map<VerifierBinding, readonly [number, number]>();
  const visit = (b: VerifierBinding | undefined) => {
    if (!b || b.file !== file || moves.has(b)) return true;
    const i = before.spans.findIndex(([s, e]) => s === b.start && e === b.end);
    const to = i < 0 ? undefined : after.spans[i];
    if (!to) return false;
    moves.set(b, to);
    return true;
  };
  for (const s of suites) {
    for (const t of s.tasks) {
      for (const e of t.entries) {
        if (!visit(e.binding)) return false;
        for (const r of e.routes ?? []) if (!visit(r.binding)) return false;
      }
      for (const r of t.initializerRoutes ?? []) if (!visit(r.binding)) return false;
    }
  }
  for (const [b, [start, end]] of moves) {
    b.start = start;
    b.end = end;
  }
  return true;
}

/** JSON of a learned value: Maps and Sets as their entries, functions left out. */
function plain(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) => (x instanceof Map ? [...x.entries()] : x instanceof Set ? [...x] : typeof x === 'function' ? undefined : x));
}

const learnedKeys = new WeakMap<readonly unknown[], { kinds: readonly unknown[]; containers: readonly unknown[]; key: string }>();

/** What loading the suites learned from Python code, and the per-file kind dispatches behind it. */
export interface HarnessState {
  key: string;
  kinds: ReadonlyMap<string, FileKinds>;
}

/**
 * What loading the suites learns from Python code (memoised per project and file list, so a call right
 * after the loading costs nothing): learned module routes, kind dispatches (with their sites' lines,
 * shown in findings) and the containers of tasks written as Python data. With `prev` (an edit that left
 * every summary as it was), the kind dispatches of files the edit cannot have changed are taken over.
 */
export function harnessState(code: HarnessCode, suites: readonly Suite[], prev?: { state: HarnessState; changed: ReadonlySet<string> }): HarnessState {
  const kinds = learnKindRoutes(code, prev && { files: prev.state.kinds, changed: prev.changed });
  const routes = learnRoutes(code);
  const containers = pythonTaskContainers(code.python);
  // the learned part as JSON once per learning (the same arrays after a task file's edit: memoised per files)
  const memo = learnedKeys.get(routes);
  let learned = memo?.kinds === kinds && memo.containers === containers ? memo.key : undefined;
  if (learned === undefined) {
    learned = plain([routes.filter((r) => !r.declared), kinds, containers.map((c) => [c.file, c.name, c.via, c.idMember ?? null, c.lookups])]);
    learnedKeys.set(routes, { kinds, containers, key: learned });
  }
  const key = `${learned}\n${plain(bindKeys(suites, code.python))}`;
  return { key, kinds: kindRoutesByFile(kinds) ?? new Map() };
}
