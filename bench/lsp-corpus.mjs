#!/usr/bin/env node
// Editor re-lint on a real suite: an engine session (what `vaudit lsp` runs per workspace) over a corpus,
// one-character edits alternating between the largest Python module the suite's entries route to and
// the first task file routed to it; per edit kind the session's lint time, its phases and the process CPU.
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
const bound = [...new Set(s.project.suites.flatMap((su) => su.tasks.flatMap((t) => t.entries.flatMap((e) => (e.binding ? [e.binding.file] : [])))))];
if (!bound.length) throw new Error(`${root}: no entry is bound to a Python function`);
const py = bound.sort((a, b) => s.file(b).source.text.length - s.file(a).source.text.length)[0];
const task = s.tasksRoutingTo(py).sort()[0];
const texts = new Map([[py, s.file(py).source.text], [task, s.file(task).source.text]]);
for (const f of [py, task]) s.setDocument(f, texts.get(f));
await s.lint([py]);
await s.lint([task]);

// Python: inside the name of an assignment target in the middle of the module; task: inside its instruction
const pyText = texts.get(py);
const assign = /\n([ \t]+)(\w{4,}) = /g;
assign.lastIndex = Math.floor(pyText.length / 2);
const m = assign.exec(pyText) ?? (assign.lastIndex = 0, assign.exec(pyText));
const spots = new Map([[py, m.index + 1 + m[1].length + 2], [task, texts.get(task).indexOf('"instruction"') + '"instruction": "'.length + 1]]);

const res = new Map([[py, []], [task, []]]);
const edits = Number(args.edits);
for (let i = 0; i < edits; i++) {
  const f = i % 2 ? task : py;
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
const out = { corpus: root, python: { file: path.relative(root, py), ...summary(res.get(py)) }, task: { file: path.relative(root, task), ...summary(res.get(task)) }, session: s.stats() };
await s.dispose();
if (args.json) console.log(JSON.stringify(out, null, 2));
else {
  console.log(`engine session on ${root} — ${edits} one-character edits`);
  for (const k of ['python', 'task']) {
    const x = out[k];
    const ph = Object.entries(x.phasesMeanMs).map(([n, v]) => `${n} ${v}`).join(', ');
    console.log(`${k.padEnd(6)} ${x.file}: lint median ${x.lintMs.median} ms, p95 ${x.lintMs.p95} ms | CPU median ${x.cpuMs.median} ms | phases (mean ms) ${ph}`);
  }
  console.log(`session  ${JSON.stringify(out.session)}`);
}
