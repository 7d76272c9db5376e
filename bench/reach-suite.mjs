#!/usr/bin/env node
// Issue 13 bench: a generated suite of 2,500 tasks, each naming its own Python verifier module
// (`"verify": "checks/task_N.py"`, with a shared helper and a helper server route), plus 200
// plain browser scripts of the app under test (globals shared through index.html) and set-up
// code. Runs `vaudit check` on it as a real process and prints wall time, peak RSS, the
// findings in the browser scripts (must be 0) and the scope summary. Not a test: no assertions
// on time; compare the figures with the targets (≤ 10 s, ≤ 500 MB here).
//
//   node bench/reach-suite.mjs [--tasks 2500] [--scripts 200] [--keep]
import { mkdtempSync, mkdirSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const arg = (name, dflt) => { const i = process.argv.indexOf(name); return i > 0 ? Number(process.argv[i + 1]) : dflt; };
const TASKS = arg('--tasks', 2500);
const SCRIPTS = arg('--scripts', 200);
const dir = mkdtempSync(path.join(os.tmpdir(), 'vaudit-reach-bench-'));
const w = (rel, text) => { const p = path.join(dir, rel); mkdirSync(path.dirname(p), { recursive: true }); writeFileSync(p, text); };

w('checks/common.py', `import requests\n\nSERVER = "http://127.0.0.1:5000"\n\n\ndef read_state(path):\n    reply = requests.get(SERVER + path, timeout=10)\n    try:\n        return reply.json()\n    except ValueError:\n        return {}\n\n\ndef lean_ok(text):\n    reply = requests.post(f"{SERVER}/lean_check", json={"text": text}, timeout=30)\n    return reply.status_code == 200\n`);
w('server/app.py', `import subprocess\nfrom flask import Flask, request\n\napp = Flask(__name__)\n\n\n@app.route("/lean_check", methods=["POST"])\ndef lean_check():\n    proc = subprocess.run(["lean", "--stdin"], input=request.json["text"], capture_output=True, text=True, timeout=60)\n    return "ok" if proc.returncode == 0 else "failed"\n`);
w('provision/vm.py', `import subprocess\n\n\ndef start(path):\n    return subprocess.run(["vmrun", "start", path])\n`);
for (let i = 0; i < TASKS; i++) {
  w(`tasks/task_${i}.json`, JSON.stringify({ id: `task-${i}`, instruction: `Do step ${i}.`, verify: `checks/task_${i}.py` }, null, 2));
  w(`checks/task_${i}.py`, `from common import read_state, lean_ok\n\n\ndef verify(workdir):\n    state = read_state("/state/${i}")\n    items = state.get("items", [])\n    if not items:\n        return False\n    total = 0\n    for item in items:\n        total += item.get("count", 0)\n    return total == ${i % 17} and lean_ok(str(total))\n`);
}
const tags = [];
for (let i = 0; i < SCRIPTS; i++) {
  const next = (i + 1) % SCRIPTS;
  w(`app/static/part_${i}.js`, `var Part${i} = {\n  render: function (state) {\n    AppState.count += ${i};\n    Components.register('part${i}', Part${next});\n    return document.getElementById('root').textContent = String(state.count);\n  },\n};\n`);
  tags.push(`<script src="static/part_${i}.js"></script>`);
}
w('app/static/app_state.js', `var AppState = { count: 0 };\nvar Components = { register: function (name, part) { return [name, part]; } };\n`);
w('app/index.html', `<!doctype html><html><body><div id="root"></div>\n<script src="static/app_state.js"></script>\n${tags.join('\n')}\n</body></html>\n`);

const bin = path.resolve(here, '../bin/vaudit.js');
const out = path.join(dir, 'report.json.out');
const runOnce = (extra) => {
  const r = spawnSync('/usr/bin/time', ['-f', '%e %M', process.execPath, bin, 'check', '.', '--format', 'json', '-o', out, ...extra], { cwd: dir, encoding: 'utf8', timeout: 600_000 });
  const [secs, kb] = r.stderr.trim().split('\n').pop().split(' ').map(Number);
  const report = JSON.parse(readFileSync(out, 'utf8'));
  const inScripts = report.findings.filter((f) => f.file.startsWith('app/')).length;
  return { secs, mb: Math.round(kb / 1024), findings: report.findings.length, inScripts, scope: report.summary.scope, suites: report.summary.suites };
};
const def = runOnce([]);
const all = runOnce(['--scope', 'all']);
console.log(JSON.stringify({ tasks: TASKS, scripts: SCRIPTS, default: def, scopeAll: all }, null, 2));
if (!process.argv.includes('--keep')) rmSync(dir, { recursive: true, force: true });
else console.log(dir);
