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
  /** One cell the thread reads between two pieces of work: 1 when it is to stop (thread-entry.ts). */
  stop: Int32Array;
}
/** How long a stopped thread has to end by itself before it is terminated: far beyond one parse. */
const STOP_LIMIT_MS = 30_000;

/**
 * Stop a thread by letting it end by itself, and keep the process alive until it has. A thread is never
 * terminated while it may be inside native code: terminating a thread inside a call of the native
 * parser throws from node-addon-api where nothing can catch it, and the whole process aborts ("terminate
 * called after throwing an instance of 'Napi::Error'"; `test/thread-stop.test.ts`). Closing the port
 * ends a thread that still waits for its data (thread-entry.ts); a thread at work sees the stop cell
 * between two pieces of work (parse-ahead.ts: between two files) and returns. Only a thread that has
 * not ended long after is terminated.
 */
function stopThread(t: Started): void {
  Atomics.store(t.stop, 0, 1);
  Atomics.notify(t.stop, 0);
  t.port.close();
  t.worker.ref();
  const limit = setTimeout(() => void t.worker.terminate(), STOP_LIMIT_MS);
  limit.unref();
  t.worker.once('exit', () => clearTimeout(limit));
}

/** Threads `bin/prestart.js` started before the CLI was loaded (the same key there). */
const PRESTARTED = Symbol.for('vaudit.prestartedThreads');
type Prestarted = { module: string; threads: Started[] } | undefined;

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
    const stop = new Int32Array(new SharedArrayBuffer(4));
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
