#!/usr/bin/env node
// Randomized equivalence of editor re-lints and cold lints on a real suite (issue 32): an engine session
// (what `vaudit lsp` runs per workspace) over a corpus takes N random one-character edits (an insertion or a
// deletion at a random offset) of the suite's verifier modules and task files; after each, (1) the session's
// findings for the edited file equal those of a cold lint (the `vaudit check` pipeline, in process, with the
// edited buffers as overrides), and (2) its verifier paths (the walk that replays the last walk's memo,
// src/engine/reach.ts) equal a walk from scratch over the same project, at every unit of every Python file.
// Exits 1 on the first difference, printing the edit.
//   npm run build && node bench/lsp-equivalence.mjs [--corpus ../shared/corpora/scienceboard] [--edits 20]
//   [--seed 1] [--cold-every 1]: the cold lint after every k-th edit only (webarena-infinity: a cold lint is seconds)
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const { values: args } = parseArgs({
  options: {
    corpus: { type: 'string', default: path.resolve(here, '../../shared/corpora/scienceboard') },
    edits: { type: 'string', default: '20' },
    seed: { type: 'string', default: '1' },
    'cold-every': { type: 'string', default: '1' },
  },
});
const dist = (p) => import(pathToFileURL(path.join(here, '..', 'dist/src', p)).href);
const { LintSession } = await dist('engine/session.js');
const { lint } = await dist('engine/lint.js');
const { computeScope } = await dist('engine/scope.js');
const { ReachCache } = await dist('engine/reach.js');
const { moduleSummary } = await dist('engine/index-reuse.js');

let seed = Number(args.seed) >>> 0 || 1;
const rnd = (n) => { seed = (seed * 1103515245 + 12345) >>> 0; return (seed >>> 8) % n; };

const root = path.resolve(args.corpus);
const s = await LintSession.create({ root });
await s.lint([]);
// candidates: the modules the suite's entries route to and the modules they import (Python, JS/TS), and task files
const entries = s.project.suites.flatMap((su) => su.tasks.flatMap((t) => t.entries));
const routed = [...new Set(entries.flatMap((e) => (e.binding ? [e.binding.file] : e.target ? [e.target.file] : [])))].filter((f) => s.file(f));
const taskFiles = [...new Set(s.project.suites.flatMap((su) => su.tasks.map((t) => t.file.path)))].filter((f) => s.file(f));
const py = [...s.project.files.keys()].filter((f) => f.endsWith('.py'));
const pick = (xs, n) => { const out = []; for (let i = 0; i < n && xs.length; i++) out.push(xs[rnd(xs.length)]); return out; };
const candidates = [...new Set([...pick(routed.sort(), 6), ...pick(py.sort(), 4), ...pick(taskFiles.sort(), 3)])];
if (!candidates.length) throw new Error(`${root}: nothing to edit`);

// the shadow walk's memo, wired as the session wires its own (cross-file summary per file version)
const summaries = new WeakMap();
const cache = Object.assign(new ReachCache(), { iface: (f) => summaries.get(f) });
const noteSummary = (f) => {
  const sf = s.file(f);
  const a = sf?.language === 'python' ? s.pythonAnalysis(f) : undefined;
  if (a && !summaries.has(sf)) summaries.set(sf, moduleSummary(a).key);
};
const sortedFiles = () => [...s.project.files.values()].sort((a, b) => (a.path < b.path ? -1 : 1));
const cfg = s.configFor(root);
const reachOf = (c) => computeScope(s.project, sortedFiles(), cfg, undefined, c).reach;
const key = (f) => `${f.ruleId} ${f.range.start.line}:${f.range.start.column}-${f.range.end.line}:${f.range.end.column} ${f.severity} ${f.message}`;
for (const f of py) noteSummary(f);
reachOf(cache);

const texts = new Map();
const chars = 'abcxyz_019 ():.,=\n\'"[]{}';
const edits = Number(args.edits);
let replayed = 0;
for (let i = 0; i < edits; i++) {
  const f = candidates[rnd(candidates.length)];
  const t = texts.get(f) ?? s.file(f).source.text;
  const at = rnd(t.length);
  const next = rnd(2) ? t.slice(0, at) + chars[rnd(chars.length)] + t.slice(at) : t.slice(0, at) + t.slice(at + 1);
  const what = `edit ${i + 1}: ${path.relative(root, f)} @${at} ${JSON.stringify(t.slice(Math.max(0, at - 12), at))}|${JSON.stringify(t.slice(at, at + 12))} -> ${JSON.stringify(next.slice(Math.max(0, at - 12), at + 12))}`;
  noteSummary(f);
  texts.set(f, next);
  s.setDocument(f, next);
  const r = await s.lint([f]);
  // (2) the memo'd walk against a walk from scratch, on the session's project of this lint
  for (const p of py) noteSummary(p);
  const kept = reachOf(cache);
  const fresh = reachOf(undefined);
  if (kept && fresh) {
    if (kept.replayed) replayed++;
    const diff = [];
    if (kept.reachedUnits !== fresh.reachedUnits) diff.push(`reached ${kept.reachedUnits} vs ${fresh.reachedUnits}`);
    for (const p of py) {
      const a = s.pythonAnalysis(p);
      if (kept.fileReached(p) !== fresh.fileReached(p)) diff.push(`${path.relative(root, p)}: file reached ${kept.fileReached(p)} vs ${fresh.fileReached(p)}`);
      for (const fn of a?.functions() ?? []) {
        for (const o of [fn.node.start, fn.node.end - 1]) if (kept.onPath(p, o) !== fresh.onPath(p, o)) diff.push(`${path.relative(root, p)}:${fn.qualname}@${o} on path ${kept.onPath(p, o)} vs ${fresh.onPath(p, o)}`);
      }
    }
    if (diff.length) { console.error(`${what}\nverifier paths differ:\n  ${diff.slice(0, 20).join('\n  ')}`); process.exit(1); }
  }
  // (1) findings against a cold lint
  if ((i + 1) % Number(args['cold-every']) !== 0 && i !== edits - 1) continue;
  const cold = await lint({ cwd: root, paths: ['.'], overrides: texts });
  const want = cold.findings.filter((x) => x.file === f).map(key).sort();
  cold.dispose();
  const got = (r.byFile.get(f) ?? []).map(key).sort();
  if (JSON.stringify(got) !== JSON.stringify(want)) {
    console.error(`${what}\nfindings differ:\n  session only: ${got.filter((k) => !want.includes(k)).join('\n    ')}\n  cold only: ${want.filter((k) => !got.includes(k)).join('\n    ')}`);
    process.exit(1);
  }
  console.log(`${what}: ${got.length} findings agree`);
}
console.log(`${path.basename(root)}: ${edits} random edits over ${candidates.length} files, findings and verifier paths equal to a cold run (${replayed} walks replayed the memo); session ${JSON.stringify(s.stats())}`);
await s.dispose();
