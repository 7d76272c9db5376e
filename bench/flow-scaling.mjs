#!/usr/bin/env node
/**
 * The Python flow analysis alone, in process, on issue 30's shapes (`hostile-shapes.mjs`) at growing
 * sizes: CPU time of `analysis.flow` (the scope table built first, not counted), median of `--runs`,
 * and the ratio to the smallest size (linear: ×4 per ×4). `--repo DIR` measures another built checkout
 * (before/after from one script, alternated per size).
 *
 *   node bench/flow-scaling.mjs [--sizes 1000,4000,16000] [--only py-functions,...] [--runs 3] [--repo DIR]
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { SHAPES } from './hostile-shapes.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => { const i = args.indexOf(`--${name}`); return i >= 0 ? args[i + 1] : dflt; };
const sizes = opt('sizes', '1000,4000,16000').split(',').map(Number);
const shapes = opt('only', 'py-functions,py-function-variables,py-module-variables,py-elif,py-try-handlers,py-try-variables,py-returns,py-match-cases').split(',');
const runs = Number(opt('runs', 3));
const repos = [path.resolve(import.meta.dirname, '..'), ...(opt('repo') ? [path.resolve(opt('repo'))] : [])];

const engines = await Promise.all(repos.map(async (repo) => ({
  repo,
  analysePython: (await import(pathToFileURL(path.join(repo, 'dist/src/lang/python/project.js')).href)).analysePython,
})));

const cpuMs = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

for (const shape of shapes) {
  const base = new Map();
  for (const n of sizes) {
    const text = Object.values(SHAPES[shape].files(n))[0];
    for (const e of engines) {
      const times = [];
      let over = false;
      for (let r = 0; r < runs; r++) {
        const a = await e.analysePython(text, `/bench/${shape}.py`);
        void a.scopes;
        const t0 = cpuMs();
        void a.flow;
        times.push(cpuMs() - t0);
        over = !!a.flowOverBudget;
      }
      const ms = median(times);
      if (!base.has(e.repo)) base.set(e.repo, ms);
      console.log(JSON.stringify({ repo: path.basename(e.repo), shape, n, flowCpuMs: +ms.toFixed(1), ratio: +(ms / base.get(e.repo)).toFixed(1), overBudget: over, heapMb: Math.round(process.memoryUsage().heapUsed / 2 ** 20) }));
    }
  }
}
