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
  /** Stop the threads (idempotent): each returns after its current piece of work; the process does
   *  not wait for them, but it never ends one inside native work (`ThreadControl.native`). */
  close(): void;
}

/**
 * Start `count` threads, each running `runThread(index, post, data)` exported by the module at `module`,
 * where `data` resolves to what `send` gives. Threads may be started before their work is known, so
 * that their start-up overlaps the caller's own.
 */
export type ThreadTaskStart = (module: URL, count: number) => WorkerThreads;
/** What a thread's task is told by the host: whether it is to stop, and when it may not be ended. */
export interface ThreadControl {
  /** True once the thread is to stop: a task checks between two pieces of work and returns. */
  stopped(): boolean;
  /**
   * Run `work`, which calls native code, unless the thread is to stop (then undefined and `work` does not
   * run). While it runs nothing ends the thread: a thread ended inside a native addon's call can abort
   * the whole process (src/host/threads.ts).
   */
  native<T>(work: () => T): T | undefined;
}
/** What a thread's task module exports. */
export type ThreadTask = (
  index: number,
  post: (msg: unknown, transfer?: ArrayBuffer[]) => void,
  /** undefined when the thread was stopped before it was given its data */
  data: Promise<unknown>,
  control: ThreadControl,
) => void | Promise<void>;
