/**
 * One finding per pattern at scale (issue 31), as a user meets it: a real `vaudit check` on a suite
 * where four verifiers share the same timeout-less call and two others share another. The pattern in
 * four files is one block (stylish), one row (markdown, HTML), one annotation (GitHub); JSON and
 * SARIF keep every location, SARIF tying the four results with one correlationGuid. A pattern in
 * two files stays per file. The GitHub output stays within GitHub's annotations per step and ends
 * with a summary.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './helpers/run-cli.js';
import { formatGithub, ANNOTATIONS_PER_KIND } from '../src/report/github.js';
import { parts, range, richInput, ROOT } from './helpers/report-input.js';
import type { Finding } from '../src/core/types.js';

const work = mkdtempSync(path.join(tmpdir(), 'vaudit-groups-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

beforeAll(() => {
  mkdirSync(path.join(work, 'v'));
  // the same call, spaced differently in one file: the shape collapses whitespace
  for (const i of [1, 2, 3]) writeFileSync(path.join(work, 'v', `task_${i}.py`), 'import requests\n\n\ndef check(base):\n    r = requests.get(f"{base}/api/state")\n    return r.status_code == 200\n');
  writeFileSync(path.join(work, 'v', 'task_4.py'), 'import requests\n\n\ndef check(base):\n    r = requests.get(\n        f"{base}/api/state"\n    )\n    return r.status_code == 200\n');
  for (const i of [5, 6]) writeFileSync(path.join(work, 'v', `build_${i}.py`), 'import subprocess\n\n\ndef check():\n    return subprocess.run(["make"]).returncode == 0\n');
});

const check = (...args: string[]) => runCli(['check', '.', ...args], { cwd: work });

describe('findings repeated in many files', () => {
  it('stylish prints the pattern once with its code and an example, and the two-file pattern per file', () => {
    const r = check();
    expect(r.code).toBe(1);
    const out = r.stdout;
    expect(out).toContain('Repeated in 3 or more files');
    expect(out).toMatch(/^ {2}4 files {2}error {4}`requests\.get\(…\)` has no timeout\. Pass `timeout=`.*missing-timeout$/m);
    expect(out).toContain('code: requests.get(f"{base}/api/state")');
    expect(out).toContain('e.g. v/task_1.py:5:9 (+3 more; --format json lists every one)');
    expect(out).not.toMatch(/^v\/task_\d\.py$/m); // no per-file listing of the grouped ones
    expect(out).toMatch(/^v\/build_5\.py$/m);
    expect(out).toMatch(/^v\/build_6\.py$/m);
    expect(out).toContain('✖ 6 problems (6 errors, 0 warnings)');
  });

  it('JSON keeps every location with its shape; SARIF one result each, the pattern sharing a correlationGuid', () => {
    const json = JSON.parse(check('-f', 'json').stdout) as { findings: Array<{ file: string; shape?: string }> };
    expect(json.findings).toHaveLength(6);
    expect(json.findings.filter((f) => f.shape === 'requests.get(f"{base}/api/state")').map((f) => f.file).sort()).toEqual(['v/task_1.py', 'v/task_2.py', 'v/task_3.py', 'v/task_4.py']);
    const sarif = JSON.parse(check('-f', 'sarif').stdout) as { runs: Array<{ results: Array<{ correlationGuid?: string; locations: Array<{ physicalLocation: { artifactLocation: { uri: string } } }> }> }> };
    const results = sarif.runs[0]!.results;
    expect(results).toHaveLength(6);
    const guids = new Set(results.filter((x) => x.locations[0]!.physicalLocation.artifactLocation.uri.includes('task_')).map((x) => x.correlationGuid));
    expect(guids.size).toBe(1);
    expect([...guids][0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(results.filter((x) => x.locations[0]!.physicalLocation.artifactLocation.uri.includes('build_')).every((x) => x.correlationGuid === undefined)).toBe(true);
    // the same pattern gets the same id on the next run
    const again = JSON.parse(check('-f', 'sarif').stdout) as typeof sarif;
    expect(again.runs[0]!.results.find((x) => x.correlationGuid)?.correlationGuid).toBe([...guids][0]);
  });

  it('markdown and HTML give the pattern one row; the summaries still count every finding', () => {
    const md = check('-f', 'markdown').stdout;
    const rows = md.split('\n').filter((l) => l.startsWith('| VA-'));
    expect(rows).toHaveLength(3);
    expect(rows.filter((l) => l.includes('and 3 more in 4 files (all listed in the JSON report)'))).toHaveLength(1);
    expect(md).toContain('| `missing-timeout` | 6 | 6 | 0 | 0 |');
    const html = check('-f', 'html').stdout;
    expect(html.match(/<tr id="VA-/g)).toHaveLength(3);
    expect(html).toContain('data-repeated="4"');
  });

  it('GitHub annotates the pattern once, naming its count, and closes with a summary', () => {
    const lines = check('-f', 'github').stdout.trimEnd().split('\n');
    const annotations = lines.filter((l) => l.startsWith('::error'));
    expect(annotations).toHaveLength(3);
    expect(annotations[0]).toContain('file=v/task_1.py');
    expect(annotations[0]).toContain('has this finding in 4 files, 4 places in all; each is listed in the JSON report.');
    expect(lines.at(-1)).toBe('vaudit: 6 problems (6 errors, 0 warnings) in 6 files.');
  });
});

describe('GitHub annotation limits', () => {
  const many = (n: number, severity: Finding['severity']): Finding[] =>
    Array.from({ length: n }, (_, i) => ({
      ruleId: 'unbound-name', messageId: 'unbound', severity, file: path.join(ROOT, `v/m${severity}${i}.py`),
      ...parts(`name_${i} is unbound.`), range: range(1, 1, 1, 5), shape: `name_${i}`,
    }));

  it(`annotates at most ${ANNOTATIONS_PER_KIND} errors and ${ANNOTATIONS_PER_KIND} warnings, logs the rest, and ends with a notice`, () => {
    const out = formatGithub(richInput({ findings: [...many(14, 'error'), ...many(11, 'warning')], runs: undefined }));
    const lines = out.trimEnd().split('\n');
    expect(lines.filter((l) => l.startsWith('::error '))).toHaveLength(ANNOTATIONS_PER_KIND);
    expect(lines.filter((l) => l.startsWith('::warning '))).toHaveLength(ANNOTATIONS_PER_KIND);
    const logged = lines.filter((l) => /^v\/m\w+\.py:1:1: (error|warning): /.test(l));
    expect(logged).toHaveLength(5);
    expect(lines.at(-1)).toMatch(/^::notice title=vaudit summary::25 problems \(14 errors, 11 warnings\) in 4 files\. Annotations cover 10 of the errors and 10 of the warnings/);
  });

  it('a clean run says so in one log line', () => {
    expect(formatGithub(richInput({ findings: [], runs: undefined }))).toBe('vaudit: no problems in 4 files.\n');
  });
});
