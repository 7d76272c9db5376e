// Preloaded by ab-corpora.mjs (`node --require`): at exit, writes the main thread's CPU time
// (/proc schedstat, nanoseconds; Linux only), the process's, the garbage collections (scavenges,
// full collections, their pause time) and the bytes allocated on the JS heap (from the heap before
// each collection and after the previous one), for the bench to read from stderr.
// A preload is not a V8 flag: the single-file build's code cache is still used.
// Also the main thread's CPU at the end of start-up: the first `process.cpuUsage()` of the run is the
// engine's first phase mark (`runLint`, src/engine/lint.ts: "startup", the process's CPU, worker threads
// included), taken just before discovery; here the main thread's own at the same instant.
/* global require */
const fs = require('node:fs');
const v8 = require('node:v8');
const gc = new v8.GCProfiler();
gc.start();
const mainThreadMs = () => Number(fs.readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
let startupMs = NaN;
const cpuUsage = process.cpuUsage;
process.cpuUsage = function firstMarkIsStartup(...args) {
  process.cpuUsage = cpuUsage;
  try {
    startupMs = mainThreadMs();
  } catch {
    // not Linux
  }
  return cpuUsage.apply(this, args);
};
process.on('exit', () => {
  const stats = gc.stop().statistics;
  let allocated = 0;
  let after = 0;
  let scavenges = 0;
  let full = 0;
  let pauseMs = 0;
  for (const e of stats) {
    allocated += e.beforeGC.heapStatistics.usedHeapSize - after;
    after = e.afterGC.heapStatistics.usedHeapSize;
    if (e.gcType === 'Scavenge') scavenges++;
    else if (e.gcType === 'MarkSweepCompact') full++;
    pauseMs += e.cost / 1000;
  }
  allocated += v8.getHeapStatistics().used_heap_size - after;
  const gcText = `gc ${scavenges} ${full} ${pauseMs.toFixed(1)} allocated ${(allocated / 1e6).toFixed(1)}`;
  try {
    const main = mainThreadMs();
    const ru = process.resourceUsage();
    fs.writeSync(2, `VAUDIT_BENCH_EXIT main ${main.toFixed(1)} process ${((ru.userCPUTime + ru.systemCPUTime) / 1000).toFixed(1)} startup ${startupMs.toFixed(1)} ${gcText}\n`);
  } catch {
    fs.writeSync(2, `VAUDIT_BENCH_EXIT main NaN process NaN startup NaN ${gcText}\n`); // not Linux
  }
});
