/**
 * What one harness file teaches (its module routes, its Python task containers), kept over an editor
 * session's edits (issue 32). Learning reads the file and, through the project, other files (a helper a
 * loader calls, every caller of a loader); the answer is kept with the text of every file read to get it
 * and reused while each of those texts is the same. Loading a harness file again costs a parse (the
 * project an edit rebuilds drops the trees of files that are not open), so an edit of a verifier module
 * no longer re-learns every harness file.
 *
 * Off unless a session asks for it (`keepHarnessFacts`): a one-shot run learns each file once anyway.
 */
import type { PythonProject } from '../../lang/python/types.js';

interface Entry {
  value: unknown;
  /** Text of every file read (the file itself included), undefined for a file that was absent. */
  texts: Map<string, string | undefined>;
  /** The project's files when the learning listed them (a scan of every file), else undefined. */
  files?: readonly string[];
  /** Scans of every file for a text (`filesContaining`): the needle and the files that had it. */
  scans: Array<{ needle: string; found: readonly string[] }>;
  /** The analyses read, when the answer holds parts of their trees (`sameTrees`): kept only while the
   *  project answers with the same analysis objects (a file parsed again has new nodes). */
  analyses?: Map<string, unknown>;
}

type Store = Map<string, Map<string, Entry>>;
const stores = new WeakMap<PythonProject, Store>();

/** Keep per-file harness facts for this project, taking over those of `prev` (the project it replaces). */
export function keepHarnessFacts(python: PythonProject, prev?: PythonProject): void {
  stores.set(python, (prev && stores.get(prev)) ?? new Map());
  // the previous project's scans, and its texts to tell which files a scan must read again
  const scans = prev && scanMemo.get(prev);
  if (prev && scans?.size) scanCarry.set(python, { scans, texts: new Map(prev.files().map((f) => [f, prev.text(f)])) });
}

/** A view of the project that notes every file whose text, analysis or functions are read through it. */
function noting(python: PythonProject, e: Entry): PythonProject {
  const read = (p: string) => {
    if (!e.texts.has(p)) e.texts.set(p, python.text(p));
  };
  const view: PythonProject = {
    analysis: (p) => {
      read(p);
      const a = python.analysis(p);
      if (e.analyses && !e.analyses.has(p)) e.analyses.set(p, a);
      return a;
    },
    analyseCode: (t) => python.analyseCode(t),
    files: () => {
      const fs = filesOf(python);
      e.files = fs;
      return [...fs];
    },
    text: (p) => (read(p), python.text(p)),
    moduleName: (p) => python.moduleName(p),
    resolveModule: (f, m, l) => {
      read(f);
      const r = python.resolveModule(f, m, l);
      if (r) read(r);
      return r;
    },
    resolveFunction: (f, n) => {
      read(f);
      const r = python.resolveFunction(f, n);
      if (r) read(r.file);
      // the function's info is a node of that file's tree
      if (r && e.analyses && !e.analyses.has(r.file)) e.analyses.set(r.file, python.analysis(r.file));
      return r;
    },
    stats: () => python.stats(),
    releaseFacts: (p) => python.releaseFacts(p),
    releaseCallFacts: () => python.releaseCallFacts(),
    releaseThreads: () => python.releaseThreads(),
    dispose: () => python.dispose(),
  };
  views.set(view, { python, entry: e });
  return view;
}

const views = new WeakMap<PythonProject, { python: PythonProject; entry: Entry }>();
const scanMemo = new WeakMap<PythonProject, Map<string, readonly string[]>>();
/** Scans of the project a session's project replaced (same files): a file with the same text keeps its answer. */
const scanCarry = new WeakMap<PythonProject, { scans: Map<string, readonly string[]>; texts: Map<string, string | undefined> }>();

function scan(python: PythonProject, needle: string): readonly string[] {
  let m = scanMemo.get(python);
  if (!m) scanMemo.set(python, (m = new Map()));
  let r = m.get(needle);
  if (!r) {
    const carry = scanCarry.get(python);
    const was = carry?.scans.get(needle);
    const had = was && new Set(was);
    r = python.files().filter((f) => {
      const t = python.text(f);
      return had && carry?.texts.get(f) === t ? had.has(f) : !!t?.includes(needle);
    });
    m.set(needle, r);
  }
  return r;
}

/**
 * The project's files whose text contains `needle` (a scan for callers by name). Through a noting view
 * what is kept is the answer, not every text: an edit elsewhere that neither adds nor removes the
 * needle keeps what was learned.
 */
export function filesContaining(python: PythonProject, needle: string): readonly string[] {
  const v = views.get(python);
  if (!v) return scan(python, needle);
  const found = scan(v.python, needle);
  v.entry.scans.push({ needle, found });
  return found;
}

/** A project's file list, once per project (its files do not change; `files()` builds a new array on each
 *  call, and every kept entry that listed them compares with it on each reuse). */
const fileLists = new WeakMap<PythonProject, readonly string[]>();
function filesOf(python: PythonProject): readonly string[] {
  let fs = fileLists.get(python);
  if (!fs) fileLists.set(python, (fs = python.files()));
  return fs;
}

/** Is a list an entry kept the same as `now` (memoised per pair of lists: entries share the list they
 *  took, `filesOf`)? */
const sameLists = new WeakMap<readonly string[], WeakMap<readonly string[], boolean>>();
function sameList(was: readonly string[], now: readonly string[]): boolean {
  if (was === now) return true;
  let m = sameLists.get(was);
  if (!m) sameLists.set(was, (m = new WeakMap()));
  let r = m.get(now);
  if (r === undefined) m.set(now, (r = now.length === was.length && now.every((p, i) => p === was[i])));
  return r;
}

function holds(python: PythonProject, e: Entry): boolean {
  for (const [p, t] of e.texts) if (python.text(p) !== t) return false;
  if (e.analyses) for (const [p, a] of e.analyses) if (python.analysis(p) !== a) return false;
  for (const { needle, found } of e.scans) {
    if (!sameList(found, scan(python, needle))) return false;
  }
  if (e.files && !sameList(e.files, filesOf(python))) return false;
  return true;
}

/**
 * `learn(python, file)` for one file, kept while every file it read has the same text (`sameTrees`: and
 * the project answers with the same analyses, for answers that hold nodes of their trees). The set of the
 * project's files is part of what any learning reads (module resolution), so a store is emptied when
 * it changes — the session keeps a store only while the file set is the same.
 */
export function perFile<T>(kind: string, python: PythonProject, file: string, learn: (view: PythonProject, file: string) => T, sameTrees = false): T {
  const store = stores.get(python);
  if (!store) return learn(python, file);
  let byFile = store.get(kind);
  if (!byFile) store.set(kind, (byFile = new Map()));
  const hit = byFile.get(file);
  if (hit && holds(python, hit)) return hit.value as T;
  const e: Entry = { value: undefined, texts: new Map([[file, python.text(file)]]), scans: [], analyses: sameTrees ? new Map() : undefined };
  e.value = learn(noting(python, e), file);
  byFile.set(file, e);
  return e.value as T;
}
