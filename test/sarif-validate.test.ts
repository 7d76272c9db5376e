/**
 * SARIF accepted by GitHub code scanning, checked by the authoritative validator
 * (`@microsoft/sarif-multitool validate` with the SARIF and GitHub rule kinds), not by our
 * own schema. The validator is found through VAUDIT_SARIF_MULTITOOL (binary path), the
 * project's node_modules, or /tmp/sarif-tool (npm i --prefix /tmp/sarif-tool @microsoft/sarif-multitool).
 * Missing validator: skipped locally, a failure under CI=true.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './helpers/run-cli.js';
import { richInput, ROOT } from './helpers/report-input.js';
import { toSarif } from '../src/report/sarif.js';

const REPO = path.resolve(import.meta.dirname, '..');

function findMultitool(): string | undefined {
  const env = process.env.VAUDIT_SARIF_MULTITOOL;
  if (env) return env;
  for (const base of [REPO, '/tmp/sarif-tool']) {
    try {
      const req = createRequire(path.join(base, 'package.json'));
      const bin = req('@microsoft/sarif-multitool') as string; // the platform binary's path
      if (typeof bin === 'string' && existsSync(bin)) return bin;
    } catch {
      // not installed there
    }
  }
  return undefined;
}

const TOOL = findMultitool();
const work = mkdtempSync(path.join(tmpdir(), 'vaudit-sarif-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

interface Issue { ruleId: string; level: string; text: string }

/** Validate with the SARIF and GitHub (GH*) rules; return results of level error and warning. */
function validate(file: string): Issue[] {
  if (!(statSync(TOOL!).mode & 0o100)) chmodSync(TOOL!, 0o755); // npm 11 skips the package's chmod postinstall
  const out = `${file}.validation.sarif`;
  const r = spawnSync(TOOL!, ['validate', file, '--output', out, '--log', 'ForceOverwrite', '--rule-kind', 'Gh;Sarif', '--level', 'Error;Warning;Note'], {
    encoding: 'utf8',
    env: { ...process.env, DOTNET_CLI_TELEMETRY_OPTOUT: '1' },
    timeout: 60_000,
  });
  expect(r.status, r.stderr + r.stdout).toBe(0);
  const log = JSON.parse(readFileSync(out, 'utf8')) as { runs: Array<{ results?: Array<{ ruleId: string; level?: string; message: { text?: string; arguments?: string[] } }> }> };
  return (log.runs[0]!.results ?? [])
    .map((x) => ({ ruleId: x.ruleId, level: x.level ?? 'warning', text: x.message.text ?? (x.message.arguments ?? []).join(' | ') }))
    .filter((x) => x.level === 'error' || x.level === 'warning');
}

const missing = !TOOL;
if (missing && process.env.CI) {
  it('sarif-multitool is installed (CI)', () => {
    expect.fail('@microsoft/sarif-multitool not found: .ci/run must install it (npm devDependency) or set VAUDIT_SARIF_MULTITOOL.');
  });
}

describe.skipIf(missing)('SARIF validated by sarif-multitool (SARIF + GitHub rules)', () => {
  it('the validator really checks: a result without message text is rejected by the GitHub rules', () => {
    const doc = toSarif(richInput()) as unknown as { runs: Array<{ results: Array<{ message: unknown }> }> };
    doc.runs[0]!.results[0]!.message = { id: 'default', arguments: ['x'] };
    const f = path.join(work, 'broken.sarif');
    writeFileSync(f, JSON.stringify(doc));
    const issues = validate(f);
    expect(issues.some((i) => i.ruleId.startsWith('GH') && i.level === 'error')).toBe(true);
  });

  it('a real `vaudit check --format sarif` run validates with no error or warning', () => {
    const proj = path.join(work, 'proj');
    mkdirSync(path.join(proj, 'tasks', 'Lean'), { recursive: true });
    mkdirSync(path.join(proj, 'verifier'), { recursive: true });
    writeFileSync(path.join(proj, 'tasks', 'Lean', 'broken task.json'), '{"type": "Lean", "evaluate": [\n');
    writeFileSync(path.join(proj, 'verifier', 'lean.py'), 'def check(out):\n    return "sorry" not in out  # vaudit: ignore[no-such-rule]\n\ndef broken(:\n    pass\n');
    const r = runCli(['check', '.', '--format', 'sarif', '--output-file', 'out.sarif'], { cwd: proj });
    expect(r.code, r.stderr).toBe(1);
    const sarifText = readFileSync(path.join(proj, 'out.sarif'), 'utf8');
    const doc = JSON.parse(sarifText);
    const results = doc.runs[0].results as Array<{ ruleId: string; level: string; locations: Array<{ physicalLocation: { artifactLocation: { uri: string; uriBaseId: string } } }> }>;
    expect(results.map((x) => x.ruleId).sort()).toEqual(['parse-error', 'parse-error', 'unused-suppression']);
    expect(results.find((x) => x.ruleId === 'unused-suppression')!.level).toBe('warning');
    const uris = results.map((x) => x.locations[0]!.physicalLocation.artifactLocation);
    expect(uris.map((u) => u.uri).sort()).toEqual(['tasks/Lean/broken%20task.json', 'verifier/lean.py', 'verifier/lean.py']);
    expect(uris.every((u) => u.uriBaseId === '%SRCROOT%')).toBe(true);
    const issues = validate(path.join(proj, 'out.sarif'));
    expect(issues, JSON.stringify(issues, null, 2)).toEqual([]);
  });

  it('a run over a path outside the current folder validates: absolute file:// URIs without uriBaseId', () => {
    const proj = path.join(work, 'outside', 'suite dir');
    const here = path.join(work, 'outside', 'cwd');
    mkdirSync(path.join(proj, 'verifier'), { recursive: true });
    mkdirSync(here, { recursive: true });
    writeFileSync(path.join(proj, 'verifier', 'lean.py'), 'def broken(:\n    pass\n');
    writeFileSync(path.join(here, 'local.py'), 'def broken(:\n    pass\n');
    const r = runCli(['check', '../suite dir', 'local.py', '--format', 'sarif', '--output-file', 'out.sarif'], { cwd: here });
    expect(r.code, r.stderr).toBe(1);
    const doc = JSON.parse(readFileSync(path.join(here, 'out.sarif'), 'utf8'));
    const locs = (doc.runs[0].results as Array<{ locations: Array<{ physicalLocation: { artifactLocation: { uri: string; uriBaseId?: string } } }> }>)
      .map((x) => x.locations[0]!.physicalLocation.artifactLocation);
    expect(locs).toContainEqual({ uri: `file://${proj.split(path.sep).map(encodeURIComponent).join('/')}/verifier/lean.py` });
    expect(locs).toContainEqual({ uri: 'local.py', uriBaseId: '%SRCROOT%' });
    const issues = validate(path.join(here, 'out.sarif'));
    expect(issues, JSON.stringify(issues, null, 2)).toEqual([]);
  });

  it('results of a pattern repeated in many files share a correlationGuid and validate', () => {
    const base = richInput().findings[2]!;
    const findings = [1, 2, 3].map((i) => ({ ...base, file: path.join(ROOT, `verifier/m${i}.py`), shape: 'set(a) == set(b)', fingerprint: String(i).repeat(32) }));
    const doc = toSarif(richInput({ findings }));
    const f = path.join(work, 'grouped.sarif');
    writeFileSync(f, JSON.stringify(doc, null, 2));
    const guids = new Set((doc.runs[0]!.results as Array<{ correlationGuid?: string }>).map((x) => x.correlationGuid));
    expect(guids.size).toBe(1);
    expect([...guids][0]).toBeTypeOf('string');
    const issues = validate(f);
    expect(issues, JSON.stringify(issues, null, 2)).toEqual([]);
  });

  it('a rich report (related locations, multi-line and empty ranges, confirmations, runs) validates', () => {
    const doc = toSarif(richInput());
    const f = path.join(work, 'rich.sarif');
    writeFileSync(f, JSON.stringify(doc, null, 2));
    const issues = validate(f);
    expect(issues, JSON.stringify(issues, null, 2)).toEqual([]);
    const results = doc.runs[0]!.results;
    // multi-line range keeps its end; an empty range is widened to one column so it can be shown
    expect(results[0]!.locations[0]!.physicalLocation.region).toEqual({ startLine: 12, startColumn: 9, endLine: 14, endColumn: 3 });
    expect(results[1]!.locations[0]!.physicalLocation.region).toEqual({ startLine: 7, startColumn: 20, endLine: 7, endColumn: 21 });
    expect(results[0]!.locations[0]!.physicalLocation.artifactLocation.uri).toBe('verifier/chimerax/mixin.py');
    expect(results[0]!.relatedLocations![0]!.physicalLocation.artifactLocation.uri).toBe('tasks/ChimeraX/D%2001%20(copy).json');
    expect(results.map((x) => x.partialFingerprints['vaudit/v1'])).toEqual(['a'.repeat(32), 'b'.repeat(32), 'c'.repeat(32)]);
    for (const x of results) expect(doc.runs[0]!.tool.driver.rules[x.ruleIndex!]!.id).toBe(x.ruleId);
    expect(doc.runs[0]!.originalUriBaseIds['%SRCROOT%'].uri).toBe(`file://${ROOT}/`);
  });
});
