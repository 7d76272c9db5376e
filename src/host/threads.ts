/**
 * Worker threads, owned by the host like every process (issue 14: the static pass uses a second core).
 * A thread runs a task module's exported `runThread` (`ThreadTask`); the main thread reads what the
 * threads posted synchronously (`receive`), so that a synchronous analysis can wait for a result
 * without returning to the event loop. The threads never keep the process alive (unref), and
 * `close()` stops them.
 *
 * The task module imports nothing of worker_threads: it gets its data (a promise: threads may start
 * before their work is known) and a `post` function.
 */
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import { availableParallelism } from 'node:os';
import type { ThreadTaskStart, WorkerThreads } from '../core/threads.js';
import { guardUntilExit, newThreadCell, requestStop } from './thread-cell.js';

/**
 * Cores a job's threads can have: all but the main thread's. V8 compiles and collects garbage on
 * threads of its own, but since it optimises late (bin/bundle.js) a check of ScienceBoard uses ≈ 1.2
 * cores, and a parse-ahead thread started before the CLI loads (bin/prestart.js) is ready when the
 * first tree is needed (bench/README.md, issue 32).
 */
export function spareCores(): number {
  return Math.max(0, availableParallelism() - 1);
}

interface Started {
  worker: Worker;
  port: MessagePort;
  /** The cell the thread shares with this one (thread-cell.ts): stop, and whether it is in native code. */
  stop: Int32Array;
}

/**
 * Stop a thread: it returns after its current piece of work (parse-ahead.ts: between two files), and
 * closing the port ends a thread that still waits for its data (thread-entry.ts). The process does not
 * wait for it: when the process ends first, it takes the thread out of native work before Node ends
 * it (thread-cell.ts, `guardUntilExit`), so that the end of the process never waits for more than the
 * thread's current parse. Nothing terminates a thread inside native code: ending a thread inside a call
 * of the native parser aborts the whole process (`test/thread-stop.test.ts`).
 */
function stopThread(t: Started): void {
  requestStop(t.stop);
  t.port.close();
}

/** Threads `bin/prestart.js` started before the CLI was loaded (the same key there). */
const PRESTARTED = Symbol.for('vaudit.prestartedThreads');
type Prestarted = { module: string; threads: Started[] } | undefined;

// Threads bin/prestart.js started before this module was loaded: from now on, the process never ends
// them inside native code either (prestart.js, CommonJS, cannot import the ES module thread-cell.ts).
for (const t of (globalThis as { [PRESTARTED]?: Prestarted })[PRESTARTED]?.threads ?? []) guardUntilExit(t.stop, t.worker);

/** The threads started before the CLI was loaded for `module`, at most `count`; the others are stopped. */
function adoptPrestarted(module: URL, count: number): Started[] {
  const g = globalThis as { [PRESTARTED]?: Prestarted };
  const pre = g[PRESTARTED];
  if (!pre) return [];
  g[PRESTARTED] = undefined;
  const adopted = pre.module === module.href ? pre.threads.slice(0, count) : [];
  for (const t of pre.threads.slice(adopted.length)) stopThread(t);
  return adopted;
}

/** Stop the threads started before the CLI was loaded that no job adopted (a run that parsed nothing ahead). */
export function closePrestarted(): void {
  adoptPrestarted(new URL('vaudit:none'), 0);
}

/** Start `count` threads, each running `runThread` of the module at `module` (a file URL); threads
 *  `bin/prestart.js` started for the same module are adopted first. */
export const startThreads: ThreadTaskStart = (module, count) => {
  const threads: Started[] = adoptPrestarted(module, count);
  for (let i = threads.length; i < count; i++) {
    const { port1, port2 } = new MessageChannel();
    const stop = newThreadCell();
    let worker: Worker;
    try {
      worker = new Worker(new URL('./thread-entry.js', import.meta.url), {
        workerData: { module: module.href, index: i, port: port2, stop },
        transferList: [port2],
        // the parent's --cpu-prof and the like are for the parent
        execArgv: [],
        stdout: false,
        stderr: false,
      });
    } catch {
      port1.close();
      break;
    }
    // a thread that fails has posted nothing more: the caller does the rest of the work itself
    worker.on('error', () => {});
    guardUntilExit(stop, worker);
    worker.unref();
    port1.unref();
    threads.push({ worker, port: port1, stop });
  }
  let closed = false;
  const handle: WorkerThreads = {
    count: threads.length,
    send(data: unknown): void {
      for (const t of threads) t.port.postMessage(data);
    },
    receive(i: number): unknown {
      const t = threads[i];
      return t ? receiveMessageOnPort(t.port)?.message : undefined;
    },
    close(): void {
      if (closed) return;
      closed = true;
      for (const t of threads) stopThread(t);
    },
  };
  return handle;
};
