/**
 * The cell a worker thread and the main thread share (one Int32Array each thread): the main thread sets
 * STOP when the thread is to stop; the thread sets NATIVE while it runs native code.
 *
 * A thread ended while it is inside a native addon's call aborts the whole process: once a worker is
 * being ended every N-API call fails, and tree-sitter's parser calls back into JavaScript from its C
 * code (to read the text); node-addon-api throws a C++ exception there that the C frames cannot pass,
 * and std::terminate aborts ("terminate called after throwing an instance of 'Napi::Error'", SIGABRT).
 * Node ends every thread still running when the process ends, whatever the way: the event loop runs
 * dry, `process.exit`, an uncaught exception, an unhandled rejection. So a thread starts native work
 * only while STOP is clear (`runNative`), and when the process ends, one listener sets STOP in every
 * live thread's cell and waits for NATIVE to clear (`guardUntilExit`): the threads then run JavaScript
 * only, which Node ends cleanly. (A signal that kills the process ends it without ending threads.)
 */
import type { Worker } from 'node:worker_threads';

const STOP = 1;
const NATIVE = 2;

export function newThreadCell(): Int32Array {
  return new Int32Array(new SharedArrayBuffer(4));
}

/** Thread side: whether the main thread has stopped this thread. */
export function stopRequested(cell: Int32Array): boolean {
  return (Atomics.load(cell, 0) & STOP) !== 0;
}

/** Thread side: run `work` with NATIVE set, unless the thread is stopped (then undefined). */
export function runNative<T>(cell: Int32Array, work: () => T): T | undefined {
  for (;;) {
    const v = Atomics.load(cell, 0);
    if (v & STOP) return undefined;
    // fails when the main thread set STOP since the load: look again
    if (Atomics.compareExchange(cell, 0, v, v | NATIVE) === v) break;
  }
  try {
    return work();
  } finally {
    Atomics.and(cell, 0, ~NATIVE);
    Atomics.notify(cell, 0);
  }
}

/** Main-thread side: tell the thread to stop (it returns after its current piece of work). */
export function requestStop(cell: Int32Array): void {
  Atomics.or(cell, 0, STOP);
  Atomics.notify(cell, 0);
}

/** Main-thread side: stop the thread and wait until it is out of native work, which it never enters again.
 *  The wait is one parse at most (a few ms; seconds for a file of megabytes). */
function stopOutsideNative(cell: Int32Array): void {
  requestStop(cell);
  for (let v = Atomics.load(cell, 0); v & NATIVE; v = Atomics.load(cell, 0)) Atomics.wait(cell, 0, v);
}

/** The cells of the threads still running, shared by every copy of this module in the process (bin/prestart.js
 *  starts threads through the module tree in dist/, the CLI may run from the single-file build). */
const LIVE = Symbol.for('vaudit.liveThreadCells');

/** Main-thread side: when the process ends, whatever the way, this thread is first taken out of native work. */
export function guardUntilExit(cell: Int32Array, worker: Worker): void {
  const g = globalThis as { [LIVE]?: Set<Int32Array> };
  let live = g[LIVE];
  if (!live) {
    const cells = new Set<Int32Array>();
    live = g[LIVE] = cells;
    process.on('exit', () => {
      for (const c of cells) stopOutsideNative(c);
    });
  }
  live.add(cell);
  worker.once('exit', () => live.delete(cell));
}
