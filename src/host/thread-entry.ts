/**
 * The first module of every worker thread the host starts (`threads.ts`): it loads the task module
 * and hands it its data (the first message from the main thread), a way to post results back and
 * its control: whether the main thread has stopped it, and native work the process waits for before
 * it ends the thread (thread-cell.ts).
 */
import { workerData, type MessagePort } from 'node:worker_threads';
import type { ThreadControl, ThreadTask } from '../core/threads.js';
import { runNative, stopRequested } from './thread-cell.js';

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
const control: ThreadControl = { stopped: () => stopRequested(stop), native: (work) => runNative(stop, work) };
if (!control.stopped()) await task.runThread(index, (msg, transfer) => port.postMessage(msg, transfer ?? []), data, control);
port.close();
