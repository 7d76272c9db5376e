/**
 * Parse ahead on spare cores (issue 14 item 3; the host decides how many, `spareCores`). The project's Python files are offered to worker
 * threads (started by the host, `src/host/threads.ts`), which parse them with the native parser and
 * post each tree in its flat form (`flat-tree.ts`). The main thread asks for a file's tree when an
 * analysis first needs it (`take`):
 * - a file no thread has claimed yet is claimed by the main thread, which parses it itself as before;
 * - a file a thread is parsing or has posted is waited for (a synchronous wait, no event loop) and
 *   rebuilt from its flat form, which costs a few per cent of parsing and copying it.
 * Claims go through one shared Int32Array, so a file is parsed once. The trees are the same as the
 * main thread would have made (`test/parse-ahead.test.ts`), and a node's id is given when it is first
 * asked for (`PyNode.id`), so nothing downstream can tell which thread parsed a file, nor when.
 *
 * Threads stay at most `MAX_PENDING_CHARS` of source ahead of what the main thread took, so memory
 * does not grow with the suite; files the main thread never asks for are simply not waited for.
 */
import type { ThreadTask, WorkerThreads } from '../../core/threads.js';
import { decodeTree, encodeTree, FlatNameTable, type FlatNames, type FlatTree } from './flat-tree.js';
import { tokenizerLimit } from './limits.js';
import { loneCrAsLf } from '../../core/source.js';
import { countParse, nativeTreeParser, type RawParser } from './parser.js';
import { convertTree, type PyNode } from './tree.js';

/** States of a file's claim cell. */
const FREE = 0;
const MAIN = 1;
const THREAD = 2;
const POSTED = 3;
const TAKEN = 4;
/** The control array's one cell: UTF-16 units posted but not yet taken. (A thread is told to stop
 *  through the host, `ThreadControl.stopped`.) */
const PENDING = 0;

/** Source the threads may hold parsed beyond what the main thread took (≈ 10 MB of flat trees per million
 *  units): more than ScienceBoard and Spider2-V hold in all, and a bound on a large suite's peak memory. */
const MAX_PENDING_CHARS = 1_000_000;
/** Parses between two turns of a thread's event loop: the native parser's trees are freed by N-API
 *  finalizers, which Node runs from the event loop (as `releasingTrees` in project.ts does for the main
 *  thread); a thread that never returned to it held every tree it parsed (webarena-infinity: +120 MB). */
const RELEASE_EVERY = 32;
/** Below this much Python a thread's start costs more than it saves (a thread starts in ≈ 30 ms of CPU). */
export const MIN_AHEAD_CHARS = 60_000;
/** How long the main thread waits for one file a thread claimed before it parses the file itself (a
 *  thread that died never posts): far beyond any real parse. */
const WAIT_LIMIT_MS = 10_000;
/** With `VAUDIT_PARSE_AHEAD_DEFER=1` the main thread leaves every file to the threads and waits for
 *  it (a test knob: which thread parsed a file then does not depend on scheduling or load); the wait
 *  for a file no thread has reached yet is bounded by this instead. */
const DEFER_WAIT_LIMIT_MS = 120_000;

interface ThreadData {
  texts: string[];
  state: Int32Array;
  control: Int32Array;
}

interface Posted {
  i: number;
  names: FlatNames;
  nodes?: Int32Array;
  withErrors?: boolean;
  /** A file the main thread parsed ahead itself: its plain tree, made at once (`helpOne`). */
  tree?: PyNode;
}

/** Per run (`--debug`): files taken from threads, time the main thread waited for them (`helped`: files it
 *  parsed ahead itself meanwhile) and spent rebuilding them. */
export const aheadStats = { threads: 0, taken: 0, waitMs: 0, decodeMs: 0, helped: 0, helpMs: 0 };

export class ParseAhead {
  private readonly index = new Map<string, number>();
  private readonly state: Int32Array;
  private readonly control: Int32Array;
  private readonly names = new FlatNameTable();
  private readonly received = new Map<number, Posted>();
  private threads: WorkerThreads | undefined;
  /** A wait ran out: a thread is gone; stop waiting for any. */
  private broken = false;

  /** `threads` run this module (`PARSE_AHEAD_MODULE`) and wait for the files; they are this object's now. */
  constructor(
    private readonly files: ReadonlyArray<{ path: string; text: string }>,
    threads: WorkerThreads,
    private readonly waitLimitMs = WAIT_LIMIT_MS,
    private readonly defer = process.env.VAUDIT_PARSE_AHEAD_DEFER === '1',
  ) {
    files.forEach((f, i) => this.index.set(f.path, i));
    this.state = new Int32Array(new SharedArrayBuffer(4 * Math.max(1, files.length)));
    this.control = new Int32Array(new SharedArrayBuffer(4));
    const data: ThreadData = { texts: files.map((f) => f.text), state: this.state, control: this.control };
    this.threads = threads;
    threads.send(data);
    aheadStats.threads = threads.count;
  }

  /** The tree of `path` parsed by a thread, or undefined when the caller is to parse it (it now owns the file). */
  take(path: string, text: string): PyNode | undefined {
    const i = this.index.get(path);
    if (i === undefined || this.files[i]!.text !== text) return undefined;
    const s = this.defer && !this.broken ? Atomics.load(this.state, i) : Atomics.compareExchange(this.state, i, FREE, MAIN);
    if ((s === FREE && !this.defer) || s === MAIN || s === TAKEN) return undefined;
    const t0 = performance.now();
    const msg = this.wait(i);
    aheadStats.waitMs += performance.now() - t0;
    Atomics.store(this.state, i, TAKEN);
    this.received.delete(i);
    if (!msg?.nodes && !msg?.tree) return undefined;
    Atomics.sub(this.control, PENDING, text.length);
    Atomics.notify(this.control, PENDING);
    if (msg.tree) {
      aheadStats.taken++;
      return msg.tree;
    }
    const t1 = performance.now();
    let root: PyNode;
    try {
      root = decodeTree({ nodes: msg.nodes!, withErrors: !!msg.withErrors }, text, this.names);
    } catch {
      return undefined;
    }
    aheadStats.decodeMs += performance.now() - t1;
    aheadStats.taken++;
    return root;
  }

  private wait(i: number): Posted | undefined {
    const deadline = performance.now() + (this.defer ? Math.max(this.waitLimitMs, DEFER_WAIT_LIMIT_MS) : this.waitLimitMs);
    for (;;) {
      this.drain();
      const msg = this.received.get(i);
      if (msg) return msg;
      if (this.broken || !this.threads || performance.now() > deadline) {
        this.broken = true;
        return undefined;
      }
      const v = Atomics.load(this.state, i);
      // while a thread parses the file needed, parse one nobody has claimed yet instead of idling
      if (v === THREAD && this.helpOne()) continue;
      Atomics.wait(this.state, i, v, v === THREAD ? 50 : 1);
    }
  }

  /** Next file `helpOne` looks at: files before it are all claimed. */
  private helpFrom = 0;
  private helpParser: RawParser | undefined;

  /**
   * Do a thread's work on the main thread: claim the next free file, parse it and keep its plain tree
   * until the file is asked for. The tree is copied from the parser's at once, as the main thread's own
   * parse does (`convertTree`): a flat form (a thread's hand-over) cost the main thread its encoding
   * and, when the file was asked for, its decoding, on top of the same walk of the parser's tree.
   * False when no file is free.
   */
  private helpOne(): boolean {
    for (let j = this.helpFrom; j < this.files.length; j++) {
      if (Atomics.compareExchange(this.state, j, FREE, POSTED) !== FREE) continue;
      this.helpFrom = j + 1;
      const t0 = performance.now();
      const text = this.files[j]!.text;
      this.helpParser ??= nativeTreeParser();
      const tree = parseTree(this.helpParser, text);
      this.received.set(j, tree ? { i: j, names: NO_NAMES, tree } : { i: j, names: NO_NAMES });
      if (tree) Atomics.add(this.control, PENDING, text.length);
      aheadStats.helped++;
      aheadStats.helpMs += performance.now() - t0;
      return true;
    }
    this.helpFrom = this.files.length;
    return false;
  }

  /** Move what the threads posted into `received` (names merged at once: later trees use them). */
  private drain(): void {
    const th = this.threads;
    if (!th) return;
    for (let t = 0; t < th.count; t++) {
      for (let m = th.receive(t) as Posted | undefined; m; m = th.receive(t) as Posted | undefined) {
        this.names.merge(m.names);
        this.received.set(m.i, m);
      }
    }
  }

  /** Stop the threads; files not taken yet are parsed by the main thread when asked for. */
  close(): void {
    this.threads?.close();
    // a thread waiting for room sees at once that it is stopped
    Atomics.notify(this.control, PENDING);
    this.threads = undefined;
    this.received.clear();
    this.broken = true;
  }
}

const NO_NAMES: FlatNames = { types: [], fields: [] };

/** Time the last `parseCopy` of this thread spent in tree-sitter and in the copy (ms). */
const lastTimes = { parseMs: 0, copyMs: 0 };

/** The copy `copy` makes of the parser's tree of `text`, or undefined when the main thread's own parse is
 *  to handle the text: text CPython's tokenizer refuses (not parsed at all, the analysis says so) or a
 *  parser error. Its times are left in `lastTimes`. */
function parseCopy<T>(parser: RawParser, text: string, copy: (tree: NonNullable<ReturnType<RawParser['parse']>>) => T): T | undefined {
  lastTimes.parseMs = lastTimes.copyMs = 0;
  if (tokenizerLimit(text)) return undefined;
  try {
    const t0 = performance.now();
    const tree = parser.parse(loneCrAsLf(text));
    const t1 = performance.now();
    lastTimes.parseMs = t1 - t0;
    if (!tree) return undefined;
    try {
      return copy(tree);
    } finally {
      // freed now, not when a finalizer runs (as the main thread's own parse does)
      tree.delete?.();
      lastTimes.copyMs = performance.now() - t1;
    }
  } catch {
    return undefined;
  }
}

/** The flat tree of `text` (a thread's hand-over), or undefined as for `parseCopy`. */
function parseFlat(parser: RawParser, text: string, names: FlatNameTable): FlatTree | undefined {
  return parseCopy(parser, text, (tree) => encodeTree(tree.walk(), tree.rootNode.hasError, names));
}

/** The plain tree of `text`, as the main thread's own parse makes it, or undefined as for `parseCopy`. */
function parseTree(parser: RawParser, text: string): PyNode | undefined {
  const root = parseCopy(parser, text, (tree) => convertTree(tree.walk(), tree.rootNode.hasError, text));
  // a parse of the main thread: counted where the pauses that free native trees look (`releasingTrees`),
  // and in `--debug`'s parse times
  if (root) countParse(text, lastTimes.parseMs, lastTimes.copyMs);
  return root;
}

/** The module threads that parse ahead run (the host starts them, `src/host/threads.ts`). */
export const PARSE_AHEAD_MODULE = new URL(import.meta.url);

/** A thread's work: load the parser while the main thread gathers the files, then claim the next free
 *  file, parse it, post its flat tree; until none is left or told to stop. */
export const runThread: ThreadTask = async (_index, post, data, thread) => {
  // loading the addon and parsing run native code: the process does not end the thread meanwhile
  const parser = thread.native(nativeTreeParser);
  if (!parser) return;
  const given = (await data) as ThreadData | undefined;
  if (!given) return;
  const { texts, state, control } = given;
  const names = new FlatNameTable();
  let parsed = 0;
  for (let i = 0; i < texts.length; i++) {
    for (let p = Atomics.load(control, PENDING); p > MAX_PENDING_CHARS; p = Atomics.load(control, PENDING)) {
      if (thread.stopped()) return;
      Atomics.wait(control, PENDING, p, 100);
    }
    if (thread.stopped()) return;
    // before a claim: the main thread never waits for a file while this thread is away
    if (parsed >= RELEASE_EVERY) {
      parsed = 0;
      await new Promise((resolve) => setImmediate(resolve));
    }
    if (Atomics.compareExchange(state, i, FREE, THREAD) !== FREE) continue;
    const text = texts[i]!;
    const parsedFlat = thread.native(() => ({ flat: parseFlat(parser, text, names) }));
    if (!parsedFlat) return;
    const { flat } = parsedFlat;
    parsed++;
    // the names met, even in a failed walk: later trees rely on the main thread knowing them
    const msg: Posted = flat ? { i, names: names.takeFresh(), nodes: flat.nodes, withErrors: flat.withErrors } : { i, names: names.takeFresh() };
    const transfer = flat ? [flat.nodes.buffer as ArrayBuffer] : [];
    if (msg.nodes) Atomics.add(control, PENDING, text.length);
    post(msg, transfer);
    Atomics.store(state, i, POSTED);
    Atomics.notify(state, i);
  }
};
