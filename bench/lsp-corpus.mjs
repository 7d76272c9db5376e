#!/usr/bin/env node
// Editor re-lint on a real suite: an engine session (what `vaudit lsp` runs per workspace) over a corpus,
// one-character edits alternating between the largest verifier module the suite's entries route to (Python,
// or JS/TS) and the first task file routed to it (no suite recognised: the largest Python module only); per
// edit kind the session's lint time, its phases and the process CPU.
//   npm run build && node bench/lsp-corpus.mjs [--corpus ../shared/corpora/scienceboard] [--edits 60] [--json]
//   [--repo DIR]: the engine of another checkout (built), for before/after figures from one script
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const { values: args } = parseArgs({
  options: {
    corpus: { type: 'string', default: path.resolve(here, '../../shared/corpora/scienceboard') },
    edits: { type: 'string', default: '60' },
    repo: { type: 'string', default: path.resolve(here, '..') },
    json: { type: 'boolean', default: false },
  },
});

const root = path.resolve(args.corpus);
const { LintSession } = await import(pathToFileURL(path.join(path.resolve(args.repo), 'dist/src/engine/session.js')).href);
const s = await LintSession.create({ root });
await s.lint([]);
// the module edited: the largest verifier module the suite's entries route to (bound function, else the
// module a route loads), else (no suite recognised) the largest Python module; and the first task routed to it
const entries = s.project.suites.flatMap((su) => su.tasks.flatMap((t) => t.entries));
const routed = [...new Set(entries.flatMap((e) => (e.binding ? [e.binding.file] : e.target ? [e.target.file] : [])))].filter((f) => s.file(f));
const candidates = routed.length ? routed : [...s.project.files.keys()].filter((f) => f.endsWith('.py'));
if (!candidates.length) throw new Error(`${root}: no verifier module to edit`);
const py = candidates.sort((a, b) => s.file(b).source.text.length - s.file(a).source.text.length)[0];
const task = s.tasksRoutingTo(py).sort()[0] ?? s.project.suites.flatMap((su) => su.tasks.filter((t) => t.entries.some((e) => e.target?.file === py)).map((t) => t.file.path)).sort()[0];
const edited = task ? [py, task] : [py];
const texts = new Map(edited.map((f) => [f, s.file(f).source.text]));
for (const f of edited) s.setDocument(f, texts.get(f));
for (const f of edited) await s.lint([f]);

// module: inside the name of an assignment target in the middle of the module; task: inside its instruction
// (or its first string value)
const pyText = texts.get(py);
const assign = /\n([ \t]+)(?:(?:const|let|var)\s+)?(\w{4,}) = /g;
assign.lastIndex = Math.floor(pyText.length / 2);
const m = assign.exec(pyText) ?? (assign.lastIndex = 0, assign.exec(pyText));
const spots = new Map([[py, m ? m.index + 1 + m[0].length - m[2].length - 3 + 2 : Math.floor(pyText.length / 2)]]);
if (task) {
  const tt = texts.get(task);
  const at = tt.indexOf('"instruction"');
  spots.set(task, at >= 0 ? at + '"instruction": "'.length + 1 : tt.indexOf(': "') + 4);
}

const res = new Map(edited.map((f) => [f, []]));
const edits = Number(args.edits);
for (let i = 0; i < edits; i++) {
  const f = i % 2 && task ? task : py;
  const k = Math.floor(i / 2);
  const t = texts.get(f);
  const at = spots.get(f);
  const next = k % 2 === 0 ? t.slice(0, at) + 'x' + t.slice(at) : t.slice(0, at) + t.slice(at + 1);
  texts.set(f, next);
  s.setDocument(f, next);
  const c0 = process.cpuUsage();
  const r = await s.lint([f]);
  const cu = process.cpuUsage(c0);
  if (i >= 10) res.get(f).push({ ms: r.durationMs, cpu: (cu.user + cu.system) / 1000, ...r.phases });
}
const pct = (xs, p) => { const a = [...xs].sort((x, y) => x - y); return a[Math.min(a.length - 1, Math.floor((p / 100) * a.length))]; };
const r2 = (x) => +x.toFixed(2);
const summary = (rs) => ({
  n: rs.length,
  lintMs: { median: r2(pct(rs.map((r) => r.ms), 50)), p95: r2(pct(rs.map((r) => r.ms), 95)) },
  cpuMs: { median: r2(pct(rs.map((r) => r.cpu), 50)) },
  phasesMeanMs: Object.fromEntries(['python', 'indexes', 'scope', 'pass'].map((k) => [k, r2(rs.reduce((a, r) => a + r[k], 0) / rs.length)])),
});
const out = { corpus: root, python: { file: path.relative(root, py), ...summary(res.get(py)) }, ...(task ? { task: { file: path.relative(root, task), ...summary(res.get(task)) } } : {}), session: s.stats() };
await s.dispose();
if (args.json) console.log(JSON.stringify(out, null, 2));
else {
  console.log(`engine session on ${root} — ${edits} one-character edits`);
  for (const k of ['python', 'task']) {
    const x = out[k];
    if (!x) continue;
    const ph = Object.entries(x.phasesMeanMs).map(([n, v]) => `${n} ${v}`).join(', ');
    console.log(`${k.padEnd(6)} ${x.file}: lint median ${x.lintMs.median} ms, p95 ${x.lintMs.p95} ms | CPU median ${x.cpuMs.median} ms | phases (mean ms) ${ph}`);
  }
  console.log(`session  ${JSON.stringify(out.session)}`);
}
