/**
 * The contract between the host, which alone starts threads (`src/host/threads.ts`), and the analyses
 * that hand work to them (a layer below the host's callers cannot import the host: the front end
 * passes `startThreads` down).
 */

/** Threads started for one job: they are given their data once (`send`); what each posted is read
 *  synchronously, in order. */
export interface WorkerThreads {
  /** How many threads did start. */
  readonly count: number;
  /** Give every thread this data (copied; a SharedArrayBuffer in it is shared). */
  send(data: unknown): void;
  /** The next message thread `i` posted, or undefined when there is none yet. */
  receive(i: number): unknown;
  /** Stop the threads (idempotent): each returns after its current piece of work, and the process
   *  waits for them to end. */
  close(): void;
}

/**
 * Start `count` threads, each running `runThread(index, post, data)` exported by the module at `module`,
 * where `data` resolves to what `send` gives. Threads may be started before their work is known, so
 * that their start-up overlaps the caller's own.
 */
export type ThreadTaskStart = (module: URL, count: number) => WorkerThreads;
/** What a thread's task module exports. */
export type ThreadTask = (
  index: number,
  post: (msg: unknown, transfer?: ArrayBuffer[]) => void,
  /** undefined when the thread was stopped before it was given its data */
  data: Promise<unknown>,
  /** true once the thread is to stop: a task checks between two pieces of work and returns (a thread
   *  is not terminated while it may be inside native code, src/host/threads.ts) */
  stopped: () => boolean,
) => void | Promise<void>;
