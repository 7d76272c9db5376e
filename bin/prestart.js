// Threads that parse Python ahead (src/lang/python/parse-ahead.ts), started before the CLI itself is
// loaded: a worker needs ≈ 80–130 ms (Node's bootstrap of a thread, then tree-sitter) before it can
// parse, which is about what the main thread spends loading the single-file build, reading its code
// cache and finding the files. Started here, the thread is ready when the first tree is needed instead
// of a hundred milliseconds after. The host (src/host/threads.ts, `startThreads`) adopts them when the
// check asks for threads running the same module, and stops the ones it does not adopt
// (`closePrestarted`). Only for a plain `check` (not `--stdin-filename`, not `--cache`, whose runs may
// parse nothing), and only as many as the check would start itself (`defaultParseThreads`,
// src/host/threads.ts, kept in step with `prestartCount` here): VAUDIT_PARSE_THREADS, else one per
// core beyond the main thread's, at most 3.
'use strict';
const { availableParallelism } = require('node:os');
const { pathToFileURL } = require('node:url');
const { MessageChannel, Worker } = require('node:worker_threads');

/** Where the host finds the threads (one module instance of the host may not be the one loaded here). */
const KEY = Symbol.for('vaudit.prestartedThreads');
const ENTRY = pathToFileURL(`${__dirname}/../dist/src/host/thread-entry.js`);
const PARSE_AHEAD = pathToFileURL(`${__dirname}/../dist/src/lang/python/parse-ahead.js`);

function prestartCount(argv) {
  if (argv.find((a) => !a.startsWith('-')) !== 'check') return 0;
  if (argv.some((a) => a === '--stdin-filename' || a.startsWith('--stdin-filename=') || a === '--cache' || a === '--help' || a === '-h')) return 0;
  const env = process.env.VAUDIT_PARSE_THREADS;
  if (env !== undefined) return /^\d+$/.test(env) ? Number(env) : 0;
  return Math.min(Math.max(0, availableParallelism() - 1), 3);
}

/** Start the threads a `check` of these arguments would start, unless VAUDIT_PRESTART=0. */
function prestartThreads(argv) {
  if (process.env.VAUDIT_PRESTART === '0') return;
  const count = prestartCount(argv);
  if (count === 0) return;
  const threads = [];
  for (let i = 0; i < count; i++) {
    const { port1, port2 } = new MessageChannel();
    // the thread's cell (src/host/thread-cell.ts, `newThreadCell`); the host, loaded next, makes sure the
    // process never ends the thread inside native code (`guardUntilExit`, src/host/threads.ts)
    const stop = new Int32Array(new SharedArrayBuffer(4));
    try {
      // as `startThreads` starts them (src/host/threads.ts)
      const worker = new Worker(ENTRY, {
        workerData: { module: PARSE_AHEAD.href, index: i, port: port2, stop },
        transferList: [port2],
        execArgv: [],
        stdout: false,
        stderr: false,
      });
      worker.on('error', () => {});
      worker.unref();
      port1.unref();
      threads.push({ worker, port: port1, stop });
    } catch {
      port1.close();
      break;
    }
  }
  if (threads.length) globalThis[KEY] = { module: PARSE_AHEAD.href, threads };
}

module.exports = { prestartThreads };
