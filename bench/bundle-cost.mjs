#!/usr/bin/env node
// Static cost of correctness-model bundles: writes N bundles of K checks each (external and
// authored checks, leaves, JSON.stringify of public input, helpers, an authored stub header every 5th
// check) and times the bundle model + the bundle rules, per bundle. Needs `npm run build`.
// Usage: node bench/bundle-cost.mjs [bundles=50] [checks=8] [--runs 3]
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const n = Number(args[0] ?? 50);
const k = Number(args[1] ?? 8);
const runs = Number(args.includes('--runs') ? args[args.indexOf('--runs') + 1] : 3);
const { lint } = await import(path.join(root, 'dist/src/engine/lint.js'));
const { loadRules } = await import(path.join(root, 'dist/src/contract/registry.js'));
const bundleRules = [...(await loadRules()).values()].filter((r) => r.meta.layers.includes('bundle')).map((r) => r.meta.id);

function check(i) {
  const id = `check-${i}`;
  const defect = i % 5 === 4;
  if (i % 3 === 2) {
    return `    {
      id: '${id}', kind: 'authored', requiredTools: ['python3'],
      async evaluate({ publicInput }, runtime) {
        const driver = buildDriver(publicInput.cases);
        const run = await runtime.tools.run({ toolId: 'python3', checkId: '${id}', args: ['driver.py'], files: { 'driver.py': driver } });
        if (run.outcome !== 'executed') return run;
        return { verdict: run.exitCode === 0 && run.stdout.includes('ok') ? 'pass' : 'fail' };
      },
    },`;
  }
  return `    {
      id: '${id}', kind: 'external', requiredTools: ['gcc'],
      async evaluate({ artifact, publicInput }, runtime) {
        const { files } = artifact;
        const run = await runtime.tools.run({ toolId: 'gcc', checkId: '${id}', args: ['-fsyntax-only', 'main.c'],
          files: { 'main.c': files['main.c']${defect ? ", 'stub.h': '#define N 1'" : ''} }, stdin: JSON.stringify(publicInput.cases) });
        if (run.outcome !== 'executed') return run;
        return { verdict: run.exitCode === 0 ? 'pass' : 'fail' };
      },
    },`;
}

function bundle(b) {
  return `import { defineCorrectnessModel } from 'vaudit/bundle';

function buildDriver(cases) {
  return ['import sys', ...cases.map((c, i) => \`assert run(\${JSON.stringify(c)}) # case \${i}\`), 'print("ok")'].join('\\n');
}

export default defineCorrectnessModel({
  id: 'bundle-${b}',
  artifact: { files: ['main.c'] },
  publicInput: { fields: ['cases'] },
  checks: [
${Array.from({ length: k }, (_, i) => check(i)).join('\n')}
  ],
});
`;
}

const dir = mkdtempSync(path.join(tmpdir(), 'vaudit-bundle-bench-'));
try {
  for (let b = 0; b < n; b++) {
    mkdirSync(path.join(dir, `b${b}`), { recursive: true });
    writeFileSync(path.join(dir, `b${b}`, 'model.ts'), bundle(b));
  }
  const times = [];
  let result;
  for (let r = 0; r <= runs; r++) {
    const t = performance.now();
    result = await lint({ paths: [dir], cwd: dir, rules: bundleRules, reportUnusedSuppressions: false });
    if (r > 0) times.push(performance.now() - t);
    if (r < runs) result.dispose();
  }
  const models = [...result.project.bundles.values()];
  const analysis = models.map((m) => m.analysisMs ?? 0).sort((a, b) => a - b);
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  console.table([{
    bundles: models.length, checksPerBundle: k, findings: result.findings.length,
    modelMsMedian: +median(analysis).toFixed(2), modelMsMax: +analysis[analysis.length - 1].toFixed(2),
    warmRunMs: +median(times).toFixed(1), perBundleMs: +(median(times) / models.length).toFixed(2),
  }]);
  result.dispose();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
