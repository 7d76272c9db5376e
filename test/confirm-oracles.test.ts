/**
 * Oracles end to end: seed-mirroring verifiers (VER-001…VER-007) and their fixed twins, run by
 * the real host and harness. Headline defects must be `confirmed` with a run record, twins `refuted`.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Finding, ControlCaseRequest } from '../src/core/types.js';
import type { Project } from '../src/contract/project.js';
import { confirmFindings } from '../src/confirm/index.js';
import { createHost } from '../src/host/host.js';
import { ERROR_FACTORY } from './helpers/python-sources.js';

const dir = mkdtempSync(join(tmpdir(), 'vaudit-oracles-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const COMMON = `import functools
import json
import subprocess


${ERROR_FACTORY}`;

/** Guest helpers for `dump_states` (the state read on its flagged line goes through another self call). */
const GUEST = `    def run_command(self, command):
        raise ConnectionError("needs the viewer (not running in this test)")

    def read_file(self, path):
        raise ConnectionError("needs the guest (not running in this test)")

    def dump_states(self):
        assert self.run_command("save /tmp/s.json")[1]
`;

const BAD = `${COMMON}

class Verifier:
    @error_factory(False)
    def _eval_states(self, eval_item, current_states):
        find = eval_item.get("find")
        if find is not None:
            finder = eval(find)
            matched = [k for k, v in current_states.items() if finder(k, v)]
            if eval_item["value"] is None:
                return len(raw_keys) == 0  # L:unbound
            key = matched[0]  # L:order
            if "key" in eval_item:
                key = eval(eval_item["key"])(key)
            return current_states.get(key) == eval_item["value"]
        target = current_states.get(eval_item["key"]) if eval_item["value"] is not None else None
        if eval_item["value"] is None:
            return target not in current_states  # L:absence
        return target == eval_item["value"]

    def _eval_info(self, eval_item, output):
        return set(output.splitlines()) == set(eval_item["value"].splitlines())  # L:set

    def _eval_lean(self, eval_item):
        proc = subprocess.run(["lake", "build"], capture_output=True, text=True)  # L:lean
        return "sorry" not in proc.stdout  # L:stream

    def _eval_compile(self, eval_item):
        proc = subprocess.run(["pdflatex", eval_item["path"]], capture_output=True)  # L:tex
        return proc.returncode == 0

    def _eval_state_info(self, eval_item):
        raw = self.manager._call("info")
        return json.loads(raw)["scale"] == eval_item["value"]  # L:state

${GUEST}        return json.loads(self.read_file("/tmp/s.json"))  # L:dump
`;

const GOOD = `${COMMON}

class Verifier:
    @error_factory(False)
    def _eval_states(self, eval_item, current_states):
        find = eval_item.get("find")
        if find is not None:
            finder = eval(find)
            matched = [k for k, v in current_states.items() if finder(k, v)]
            if eval_item["value"] is None:
                return len(matched) == 0  # L:unbound
            keys = matched  # L:order
            if "key" in eval_item:
                keys = [eval(eval_item["key"])(k) for k in matched]
            return any(current_states.get(k) == eval_item["value"] for k in keys)
        target = eval_item["key"]
        if eval_item["value"] is None:
            return target not in current_states  # L:absence
        return current_states.get(target) == eval_item["value"]

    def _eval_info(self, eval_item, output):
        return sorted(output.splitlines()) == sorted(eval_item["value"].splitlines())  # L:set

    def _eval_lean(self, eval_item):
        proc = subprocess.run(["lake", "build"], capture_output=True, text=True, timeout=1)  # L:lean
        return "sorry" not in proc.stdout + proc.stderr  # L:stream

    def _eval_compile(self, eval_item):
        try:
            proc = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", eval_item["path"]], capture_output=True, stdin=subprocess.DEVNULL, timeout=1)  # L:tex
        except subprocess.TimeoutExpired:
            return False
        return proc.returncode == 0

    def _eval_state_info(self, eval_item):
        try:
            raw = self.manager._call("info")
            return json.loads(raw)["scale"] == eval_item["value"]  # L:state
        except (OSError, ValueError, KeyError):
            return False

${GUEST}        try:
            return json.loads(self.read_file("/tmp/s.json"))  # L:dump
        except (OSError, TypeError, ValueError):
            return False
`;

function write(name: string, text: string): { file: string; line: (tag: string) => number } {
  const pkg = join(dir, name);
  mkdirSync(pkg, { recursive: true });
  writeFileSync(join(pkg, '__init__.py'), '');
  const file = join(pkg, 'verifier.py');
  writeFileSync(file, text);
  const lines = text.split('\n');
  return { file, line: (tag) => lines.findIndex((l) => l.includes(`# L:${tag}`)) + 1 };
}

const bad = write('bad', BAD);
const good = write('good', GOOD);

function finding(ruleId: string, file: string, line: number, control: Omit<ControlCaseRequest, 'oracle'> = {}): Finding {
  return {
    ruleId,
    messageId: 'm',
    message: 'm.',
    parts: { what: 'm.', why: '', fix: '' },
    severity: 'error',
    file,
    range: { start: { line, column: 1, offset: 0 }, end: { line, column: 2, offset: 1 } },
    control: { oracle: ruleId, ...control },
  };
}

const STATES_ENTRIES = {
  unbound: { witnesses: [{ label: 'find with value null', args: [{ type: 'states', find: 'lambda key, value: key.endswith("._name")', value: null }, { 'm.(1,)._name': 'x' }] }] },
};

function suite(v: typeof bad): Finding[] {
  return [
    finding('unbound-name', v.file, v.line('unbound'), { name: 'raw_keys', ...STATES_ENTRIES.unbound }),
    finding('vacuous-absence', v.file, v.line('absence'), { witnesses: [{ label: 'key present', args: [{ type: 'states', key: 'models.(1,)._name', value: null }, { 'models.(1,)._name': '2olx' }] }] }),
    finding('order-dependent-match', v.file, v.line('order'), {
      witnesses: undefined,
      qualname: 'Verifier._eval_states',
    }),
    finding('set-collapse', v.file, v.line('set'), { left: 'set(output.splitlines())', right: 'set(eval_item["value"].splitlines())' }),
    finding('missing-timeout', v.file, v.line('tex'), { callKind: 'interactive', tool: 'pdflatex', witnesses: [{ args: [{ type: 'compile', path: 'main.tex' }] }] }),
    finding('missing-timeout', v.file, v.line('lean'), { tool: 'lake' }),
    finding('missing-timeout', v.file, v.line('tex'), { witnesses: [{ args: [{ type: 'compile', path: 'main.tex' }] }] }),
    finding('stream-blind', v.file, v.line('stream'), { needle: 'sorry', stream: 'stdout', tool: 'lake' }),
    finding('unguarded-state-read', v.file, v.line('state'), { witnesses: [{ args: [{ type: 'info', value: 0.05 }] }] }),
    // the state read on the flagged line goes through another self call than the function's first one
    finding('unguarded-state-read', v.file, v.line('dump'), { witnesses: [{ args: [] }] }),
  ];
}

describe('oracles on seed-mirroring verifiers', () => {
  it('every headline defect is confirmed with a run record; every fixed twin is refuted', async () => {
    const defective = suite(bad);
    const fixed = suite(good);
    const { runs } = await confirmFindings([...defective, ...fixed], undefined, { root: dir, jobs: 2, timeoutMs: 1500 });
    const runIds = new Set(runs.map((r) => r.runId));
    for (const f of defective) {
      expect({ rule: f.ruleId, line: f.range.start.line, status: f.confirmation?.status, c: f.confirmation }).toMatchObject({ status: 'confirmed' });
      expect(runIds.has(f.confirmation!.runId!)).toBe(true);
      expect(f.confirmation!.witness).toBeTruthy();
      expect(f.confirmation!.observed).toBeTruthy();
    }
    for (const f of fixed) {
      expect({ rule: f.ruleId, line: f.range.start.line, status: f.confirmation?.status, c: f.confirmation }).toMatchObject({ status: 'refuted' });
      expect(runIds.has(f.confirmation!.runId!)).toBe(true);
    }
    // Batched: far fewer interpreter processes than cases (only stalling cases get their own).
    const cases = runs.reduce((n, r) => n + (r.caseIds?.length ?? 1), 0);
    const stalling = runs.filter((r) => r.caseIds?.length === 1 && r.ruleId === 'missing-timeout').length;
    expect(runs.length - stalling).toBeLessThanOrEqual(2);
    expect(cases).toBeGreaterThan(runs.length * 3);
    for (const r of runs) expect(r.sha256).toMatch(/^[0-9a-f]{64}$/);
  }, 120_000);

  it('JSON-layer oracles: lambda-syntax, regex-invalid, first-match-lambda, substring-containment', async () => {
    const f = (ruleId: string, control: Omit<ControlCaseRequest, 'oracle'>) => finding(ruleId, join(dir, 'task.json'), 1, control);
    const fs = [
      f('lambda-syntax', { code: "lambda key: '.'.join(key.split('.')[:-1] + ['_border']" }),
      f('lambda-syntax', { code: "lambda key: '.'.join(key.split('.')[:-1] + ['_border'])" }),
      f('regex-invalid', { pattern: '(?P<n>a)(?P=m)' }),
      f('regex-invalid', { pattern: '(?P<n>a)(?P=n)' }),
      f('first-match-lambda', { code: "lambda dump: [l for l in dump['layers'] if l['name'] == 'roads'][0]['opacity']" }),
      f('first-match-lambda', { code: "lambda dump: next((l['opacity'] for l in dump['layers'] if l['name'] == 'roads'), None)" }),
      f('substring-containment', { code: 'lambda key, value: value in key', expected: 'n: 263975' }),
      f('substring-containment', { code: 'lambda key, value: key.strip() == value', expected: 'n: 263975' }),
      f('no-such-oracle', {}),
    ];
    await confirmFindings(fs, undefined, { root: dir, jobs: 1 });
    expect(fs.map((x) => x.confirmation?.status)).toEqual(['confirmed', 'refuted', 'confirmed', 'refuted', 'confirmed', 'refuted', 'confirmed', 'refuted', 'unsupported']);
    expect(fs[0]!.confirmation!.observed).toMatch(/SyntaxError/);
    expect(fs[2]!.confirmation!.observed).toMatch(/unknown group name 'm'/);
    expect(fs[4]!.confirmation!.observed).toMatch(/IndexError/);
    expect(fs[6]!.confirmation!.witness).toMatch(/n: 2639750/);
  }, 20000);

  it('JSON-layer oracles find the embedded code through the project when the rule passes none', async () => {
    const file = join(dir, 'tasks', 'count.json');
    const codes = [
      { role: 'pred', code: 'lambda key, value: value in key', entry: { type: 'info', value: 'n: 263975' } },
      { role: 'pred', code: 'lambda key, value: key.strip() == value', entry: { type: 'info', value: 'n: 263975' } },
      { role: 'find', code: "lambda key, value: '_label' in key and str(value).find('42') >= 0", entry: { type: 'states', value: null } },
      { role: 'key', code: "lambda dump: list(dump['layers'].keys())[0]", entry: { type: 'info', value: 1 } },
      { role: 'key', code: "lambda key: '.'.join(key.split('.')[:-1] + [suffix])", entry: { type: 'states', value: 1 } },
      { role: 'key', code: 'lambda key: key if key else missing_helper(key)', entry: { type: 'states', value: 1 } },
      { role: 'key', code: 'lambda key: key if True else missing_helper(key)', entry: { type: 'states', value: 1 } },
    ];
    let off = 0;
    const entries = codes.map((c) => {
      const start = off;
      off += c.code.length + 10;
      return { ref: { value: c.entry }, embedded: [{ code: c.code, language: 'python', role: c.role, ref: { start, end: start + c.code.length + 2 } }] };
    });
    const project = { suites: [{ tasks: [{ file: { path: file }, entries }] }] } as unknown as Project;
    const at = (ruleId: string, i: number, control: Omit<ControlCaseRequest, 'oracle'> = {}) => {
      const f = finding(ruleId, file, 1, control);
      f.range.start.offset = (entries[i]!.embedded[0]!.ref.start as number) + 3;
      return f;
    };
    const fs = [
      at('substring-containment', 0),
      at('substring-containment', 1),
      at('substring-containment', 2),
      at('first-match-lambda', 3),
      at('unbound-name', 4, { name: 'suffix' }),
      at('unbound-name', 5, { name: 'missing_helper' }),
      at('unbound-name', 6, { name: 'missing_helper' }),
    ];
    await confirmFindings(fs, project, { root: dir, jobs: 1 });
    expect(fs.map((x) => x.confirmation?.status)).toEqual(['confirmed', 'refuted', 'confirmed', 'confirmed', 'confirmed', 'confirmed', 'unreached']);
    expect(fs[0]!.confirmation!.witness).toMatch(/n: 2639750/);
    expect(fs[3]!.confirmation!.observed).toMatch(/IndexError/);
    expect(fs[4]!.confirmation!.observed).toMatch(/name 'suffix' is not defined/);
  });

  it('a non-result is never turned into confirmed or refuted', async () => {
    // Required isolation missing: every case is a sandbox non-result, recorded.
    const fs = [...suite(bad).slice(0, 2), finding('lambda-syntax', join(dir, 't.json'), 1, { code: 'lambda x: (' })];
    const host = createHost({ root: dir, isolation: 'bwrap', helpers: { bwrap: null } });
    const { runs } = await confirmFindings(fs, undefined, { root: dir, host, jobs: 1 });
    expect(fs.map((f) => f.confirmation!.status)).toEqual(['sandbox', 'sandbox', 'sandbox']);
    expect(runs.every((r) => r.outcome === 'sandbox')).toBe(true);
    expect(fs[0]!.confirmation!.runId).toBe(runs[0]!.runId);

    // A third-party import the host Python lacks: verifierUnavailable, not a stub and not a verdict.
    const missing = join(dir, 'missing');
    mkdirSync(missing, { recursive: true });
    writeFileSync(join(missing, 'v.py'), 'import vaudit_absent_dependency\n\n\ndef check(item):\n    return vaudit_absent_dependency.same(item["x"], None)\n');
    const g = [finding('unbound-name', join(missing, 'v.py'), 5, { witnesses: [{ args: [{ x: 1 }] }] })];
    await confirmFindings(g, undefined, { root: dir, jobs: 1 });
    expect(g[0]!.confirmation!.status).toBe('verifierUnavailable');
    expect(g[0]!.confirmation!.detail).toMatch(/vaudit_absent_dependency/);

    // The per-case bound is a timeout non-result for oracles that are not about hanging.
    const slow = join(dir, 'slow');
    mkdirSync(slow, { recursive: true });
    writeFileSync(join(slow, 'v.py'), 'import time\n\n\ndef check(item):\n    time.sleep(30)\n    return item is None\n');
    const h = [finding('vacuous-absence', join(slow, 'v.py'), 6, { witnesses: [{ args: [{ x: 1 }] }] })];
    await confirmFindings(h, undefined, { root: dir, jobs: 1, timeoutMs: 300 });
    expect(h[0]!.confirmation!.status).toBe('timeout');
  });
});
