/**
 * Threads that parse ahead are stopped, never killed mid-parse: terminating a worker inside a call of
 * the native parser throws from node-addon-api where nothing catches it, and the whole process aborts
 * ("terminate called after throwing an instance of 'Napi::Error'", exit by SIGABRT). The CI run of
 * stop 40 lost two tests to it: a usage error and a one-file check ended while a thread started before
 * the CLI loaded (bin/prestart.js) was still loading the parser. Each case here is a real process.
 */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { runCli } from './helpers/run-cli.js';
import { tempDir } from './helpers/temp-dir.js';

const DIST = path.resolve(import.meta.dirname, '../dist/src');
const url = (p: string) => pathToFileURL(path.join(DIST, p)).href;

type Ending = 'before-data' | 'loading' | 'mid-parse' | 'exit' | 'throw' | 'reject' | 'dry-loop' | 'close-then-exit';

/** A process that starts two parse-ahead threads on large files and ends at `when`: its threads stopped
 *  (`before-data`, `loading`, `mid-parse`), or the process itself ending while they parse: `process.exit`,
 *  an uncaught exception, an unhandled rejection, the event loop running dry with the threads never
 *  stopped, `process.exit` at once after stopping them (an API caller that exits after `lint()`). */
function stopAt(when: Ending): { code: number | null; signal: string | null; stderr: string } {
  const script = `
import { startThreads } from ${JSON.stringify(url('host/threads.js'))};
import { ParseAhead, PARSE_AHEAD_MODULE } from ${JSON.stringify(url('lang/python/parse-ahead.js'))};
const big = 'def f(x):\\n' + '    y = [a + b * c for a in range(10) if a]\\n'.repeat(5000);
const files = Array.from({ length: 40 }, (_, i) => ({ path: 'f' + i + '.py', text: big + '#' + i + '\\n' }));
const threads = startThreads(PARSE_AHEAD_MODULE, 2);
const when = ${JSON.stringify(when)};
if (when === 'before-data') threads.close();
else {
  const ahead = new ParseAhead(files, threads);
  if (when !== 'loading') {
    // the first tree a thread posted: both are parsing the next files now
    while (threads.receive(0) === undefined && threads.receive(1) === undefined) await new Promise((r) => setTimeout(r, 5));
  }
  if (when === 'exit') process.exit(3);
  if (when === 'throw') setTimeout(() => { throw new Error('thrown while threads parse'); });
  if (when === 'reject') void Promise.reject(new Error('rejected while threads parse'));
  if (when === 'close-then-exit') { ahead.close(); process.exit(3); }
  if (when === 'loading' || when === 'mid-parse') ahead.close();
}
`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, signal: r.signal, stderr: r.stderr };
}

describe('threads are stopped, not terminated mid-parse', () => {
  for (const when of ['before-data', 'loading', 'mid-parse'] as const) {
    it(`a process that stops its threads ${when} exits normally`, () => {
      for (let i = 0; i < 3; i++) {
        const r = stopAt(when);
        expect({ code: r.code, signal: r.signal }, r.stderr).toEqual({ code: 0, signal: null });
        expect(r.stderr).toBe('');
      }
    });
  }

  // Node ends every thread still running when the process ends: each of these aborted on the build
  // that only stopped threads (ac72803), 4/4 or 3/4 runs, "terminate called after throwing an instance
  // of 'Napi::Error'"
  const endings = { exit: 3, throw: 1, reject: 1, 'dry-loop': 0, 'close-then-exit': 3 } as const;
  for (const [when, code] of Object.entries(endings) as Array<[Ending, number]>) {
    it(`a process that ends (${when}) while its threads parse ends with its own exit code, not an abort`, () => {
      for (let i = 0; i < 2; i++) {
        const r = stopAt(when);
        expect({ code: r.code, signal: r.signal }, r.stderr).toEqual({ code, signal: null });
        expect(r.stderr).not.toMatch(/terminate called|Napi/);
      }
    });
  }

  it('a usage error and a one-file check end normally while threads started before the CLI load the parser', () => {
    const dir = tempDir('vaudit-thread-stop-');
    writeFileSync(path.join(dir, 'check.py'), 'def check(o):\n    return o == 1\n');
    for (let i = 0; i < 5; i++) {
      const usage = runCli(['check', '--jobs', '1.5'], { cwd: dir, env: { VAUDIT_PARSE_THREADS: '2' } });
      expect(usage.code, usage.stderr).toBe(2);
      const one = runCli(['check', '.'], { cwd: dir, env: { VAUDIT_PARSE_THREADS: '2' } });
      expect(one.code, one.stderr).toBe(0);
      expect(one.stderr).not.toMatch(/terminate|Napi/);
    }
  });
});
