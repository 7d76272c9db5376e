// Preloaded by ab-corpora.mjs (`node --require`): at exit, writes the main thread's CPU time
// (/proc schedstat, nanoseconds; Linux only) and the process's, for the bench to read from stderr.
// A preload is not a V8 flag: the single-file build's code cache is still used.
/* global require */
const fs = require('node:fs');
process.on('exit', () => {
  try {
    const main = Number(fs.readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
    const ru = process.resourceUsage();
    fs.writeSync(2, `VAUDIT_BENCH_EXIT main ${main.toFixed(1)} process ${((ru.userCPUTime + ru.systemCPUTime) / 1000).toFixed(1)}\n`);
  } catch {
    // not Linux: nothing to report
  }
});
