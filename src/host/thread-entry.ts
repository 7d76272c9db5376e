/**
 * The first module of every worker thread the host starts (`threads.ts`): it loads the task module
 * and hands it its data (the first message from the main thread) and a way to post results back.
 */
import { workerData, type MessagePort } from 'node:worker_threads';
import type { ThreadTask } from '../core/threads.js';

interface EntryData {
  module: string;
  index: number;
  port: MessagePort;
}

const { module, index, port } = workerData as EntryData;
const data = new Promise<unknown>((resolve) => port.once('message', resolve));
const task = (await import(module)) as { runThread: ThreadTask };
await task.runThread(index, (msg, transfer) => port.postMessage(msg, transfer ?? []), data);
port.close();
