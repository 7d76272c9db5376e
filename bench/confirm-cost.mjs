#!/usr/bin/env node
// Times control-case confirmation: the cost of one case in its own batch (process start,
// tool hashing, sandbox set-up), a 250-finding suite (≈500 cases), and the marginal cost per
// case, under each isolation level and job count. Needs `npm run build`.
// Usage: node bench/confirm-cost.mjs [--findings 250] [--runs 3] [--levels bwrap,process] [--jobs 1,2]
import { mkdtempSync, mkdirSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');
const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : dflt;
};
const N = Number(opt('--findings', '250'));
const runs = Number(opt('--runs', '3'));
const levels = opt('--levels', existsSync('/usr/bin/bwrap') ? 'bwrap,process' : 'process').split(',');
const jobsList = opt('--jobs', '1,2').split(',').map(Number);

const { confirmFindings } = await import(path.join(root, 'dist/src/confirm/index.js'));

const dir = mkdtempSync(path.join(tmpdir(), 'vaudit-bench-confirm-'));
const pkg = path.join(dir, 'verifier');
mkdirSync(pkg);
writeFileSync(path.join(pkg, '__init__.py'), '');
const SRC = `import functools


def error_factory(default):
    def deco(fn):
        @functools.wraps(fn)
        def wrapper(*a, **kw):
            try:
                return fn(*a, **kw)
            except Exception:
                return default
        return wrapper
    return deco


class Verifier:
    @error_factory(False)
    def _eval_states(self, eval_item, current_states):
        find = eval_item.get("find")
        if find is not None:
            finder = eval(find)
            matched = [k for k, v in current_states.items() if finder(k, v)]
            if eval_item["value"] is None:
                return len(raw_keys) == 0
            return any(current_states.get(k) == eval_item["value"] for k in matched)
        target = current_states.get(eval_item["key"]) if eval_item["value"] is not None else None
        if eval_item["value"] is None:
            return target not in current_states
        return target == eval_item["value"]

    def _eval_info(self, eval_item, output):
        return set(output.splitlines()) == set(eval_item["value"].splitlines())
`;
const file = path.join(pkg, 'chimerax.py');
writeFileSync(file, SRC);
const lineOf = (s) => SRC.split('\n').findIndex((l) => l.includes(s)) + 1;

function findings(n) {
  const out = [];
  for (let i = 0; i < n; i++) {
    const kind = i % 5;
    const mk = (ruleId, line, control) => ({
      ruleId, messageId: 'm', message: 'm.', severity: 'error', file,
      range: { start: { line, column: 1, offset: 0 }, end: { line, column: 2, offset: 1 } },
      control: { oracle: ruleId, ...control },
    });
    if (kind === 0) out.push(mk('unbound-name', lineOf('raw_keys'), { witnesses: [{ args: [{ find: `lambda key, value: key.endswith("._n${i}")`, value: null }, { [`m.(1,)._n${i}`]: 'x' }] }] }));
    else if (kind === 1) out.push(mk('vacuous-absence', lineOf('target not in'), { witnesses: [{ args: [{ key: `k${i}`, value: null }, { [`k${i}`]: i }] }] }));
    else if (kind === 2) out.push(mk('set-collapse', lineOf('set(output'), {}));
    else if (kind === 3) out.push(mk('lambda-syntax', 1, { code: `lambda key: key.split('.')[${i}` }));
    else out.push(mk('substring-containment', 1, { code: 'lambda key, value: value in key', expected: `n: ${i}` }));
  }
  return out;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const rows = [];
for (const isolation of levels) {
  for (const jobs of jobsList) {
    const t1 = [];
    const tN = [];
    let casesN = 0;
    let cases1 = 0;
    let procs = 0;
    for (let r = 0; r < runs; r++) {
      let fs = findings(1);
      let t = performance.now();
      let res = await confirmFindings(fs, undefined, { root: dir, isolation, jobs });
      t1.push(performance.now() - t);
      cases1 = res.runs.reduce((s, x) => s + (x.caseIds?.length ?? 1), 0);
      fs = findings(N);
      t = performance.now();
      res = await confirmFindings(fs, undefined, { root: dir, isolation, jobs });
      tN.push(performance.now() - t);
      casesN = res.runs.reduce((s, x) => s + (x.caseIds?.length ?? 1), 0);
      procs = res.runs.length;
      const bad = fs.filter((f) => f.confirmation?.status !== 'confirmed');
      if (bad.length) throw new Error(`${bad.length} findings not confirmed, e.g. ${JSON.stringify(bad[0].confirmation)}`);
    }
    const one = median(t1);
    const all = median(tN);
    rows.push({ isolation, jobs, 'one finding (ms)': one.toFixed(0), [`${N} findings (ms)`]: all.toFixed(0), cases: casesN, processes: procs, 'marginal ms/case': ((all - one) / Math.max(1, casesN - cases1)).toFixed(2) });
  }
}
console.table(rows);
rmSync(dir, { recursive: true, force: true });
