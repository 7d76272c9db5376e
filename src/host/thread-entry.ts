/**
 * The first module of every worker thread the host starts (`threads.ts`): it loads the task module
 * and hands it its data (the first message from the main thread), a way to post results back and
 * whether the main thread has stopped it. The thread ends by itself (threads.ts, `stopThread`).
 */
import { workerData, type MessagePort } from 'node:worker_threads';
import type { ThreadTask } from '../core/threads.js';

interface EntryData {
  module: string;
  index: number;
  port: MessagePort;
  stop: Int32Array;
}

const { module, index, port, stop } = workerData as EntryData;
// undefined when the main thread stops this thread before it sends the data
const data = new Promise<unknown>((resolve) => {
  port.once('message', resolve);
  port.once('close', () => resolve(undefined));
});
const task = (await import(module)) as { runThread: ThreadTask };
const stopped = (): boolean => Atomics.load(stop, 0) !== 0;
if (!stopped()) await task.runThread(index, (msg, transfer) => port.postMessage(msg, transfer ?? []), data, stopped);
port.close();
