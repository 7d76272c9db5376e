/**
 * The audit report: `--format markdown` and `--format html`. Structure (summary per family
 * and rule, then the seed-style findings table), escaping, links to file:line, and the HTML
 * page opened in headless Debian chromium: the table renders, no console error, no network.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { buildAudit, formatMarkdown } from '../src/report/markdown.js';
import { formatHtml } from '../src/report/html.js';
import { richInput } from './helpers/report-input.js';
import { runCli } from './helpers/run-cli.js';
import { findChromium, openPage } from './helpers/chromium.js';

const work = mkdtempSync(path.join(tmpdir(), 'vaudit-report-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Split a GFM table row into cells, honouring `\|` escapes (as GitHub does, also inside code spans). */
function cells(row: string): string[] {
  const out: string[] = [];
  let cur = '';
  const body = row.trim().replace(/^\|/, '').replace(/\|$/, '');
  for (let i = 0; i < body.length; i++) {
    if (body[i] === '\\' && i + 1 < body.length) { cur += body[i]! + body[i + 1]!; i++; continue; }
    if (body[i] === '|') { out.push(cur.trim()); cur = ''; continue; }
    cur += body[i];
  }
  out.push(cur.trim());
  return out;
}

function tableAfter(md: string, heading: string): string[][] {
  const lines = md.split('\n');
  let i = lines.indexOf(heading);
  expect(i, `heading ${heading}`).toBeGreaterThanOrEqual(0);
  while (!lines[i]!.startsWith('|')) i++;
  const rows: string[][] = [];
  for (; i < lines.length && lines[i]!.startsWith('|'); i++) rows.push(cells(lines[i]!));
  return rows;
}

describe('markdown audit report', () => {
  const md = formatMarkdown(richInput());

  it('summarises per family and per rule, then lists every finding in the seed-style table', () => {
    const fam = tableAfter(md, '## Summary by family');
    expect(fam[0]).toEqual(['Family', 'Findings', 'Errors', 'Warnings', 'Confirmed']);
    expect(fam.slice(2)).toEqual([['ChimeraX', '2', '2', '0', '1'], ['GrassGIS', '1', '0', '1', '0']]);
    const rules = tableAfter(md, '## Summary by rule');
    expect(rules.slice(2).map((r) => r.slice(0, 5))).toEqual([
      ['`unbound-name`', '2', '2', '0', '1'],
      ['`set-equality-drops-duplicates`', '1', '0', '1', '0'],
    ]);
    const table = tableAfter(md, '## Findings');
    expect(table[0]).toEqual(['ID', 'Severity', 'Finding', 'Confirmation evidence', 'Resolution hint']);
    const rows = table.slice(2);
    expect(rows).toHaveLength(3);
    for (const r of rows) expect(r, r.join(' ‖ ')).toHaveLength(5); // escaping keeps every row at 5 cells
    expect(rows.map((r) => r[0])).toEqual(['VA-001', 'VA-002', 'VA-003']);
    expect(rows.map((r) => r[1])).toEqual(['error', 'error', 'warning']);
  });

  it('links each finding to file:line relative to the report, with escaped paths', () => {
    const rows = tableAfter(md, '## Findings').slice(2);
    expect(rows[0]![2]).toContain('[verifier/chimerax/mixin.py:12:9](verifier/chimerax/mixin.py#L12)');
    expect(rows[1]![2]).toContain('(tasks/ChimeraX/D%2001%20%28copy%29.json#L7)');
    expect(rows[1]![2]).toContain('`/evaluate/1/find`');
    const other = formatMarkdown(richInput({ linkBase: '/work/suite/reports' }));
    expect(other).toContain('(../verifier/chimerax/mixin.py#L12)');
  });

  it('shows the confirmation evidence and the resolution hint', () => {
    const rows = tableAfter(md, '## Findings').slice(2);
    expect(rows[0]![3]).toMatch(/^\*\*confirmed\*\*: witness state \{"a": 1\} \\\| 50% "quoted"; expected pass; observed fail \(NameError\); run r-0001$/);
    expect(rows[0]![4]).toBe('Build the matched-key list before checking it.');
    expect(rows[1]![3]).toBe('**not run**: No control case ran for this finding.'); // confirmable; --confirm ran, not for this one
    const noConfirm = tableAfter(formatMarkdown(richInput({ runs: undefined })), '## Findings').slice(2);
    expect(noConfirm[1]![3]).toBe('**not run**: Confirmable: run with --confirm to execute its control case.');
    expect(rows[2]![3]).toContain('Static finding');
    expect(rows[1]![2]).toContain('Lambda reads \\<key\\> before binding it.');
    expect(rows[1]![4]).toBe('Fix the lambda.');
    expect(rows[2]![2]).toContain('a duplicate expected line \\| a missing one compare equal.');
  });

  it('says so when there are no findings', () => {
    const empty = formatMarkdown(richInput({ findings: [], suppressedCount: 0 }));
    expect(empty).toContain('No findings.');
    expect(empty).not.toContain('## Findings');
  });
});

describe('html audit report', () => {
  const html = formatHtml(richInput());

  it('is self-contained: no script, no external URL, a CSP that forbids loads', () => {
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).not.toMatch(/<script|<link[^>]+href="(?!data:)|src="http|url\(/i);
    expect(html).toContain(`content="default-src 'none'; style-src 'unsafe-inline'; img-src data:"`);
    expect(html).toContain('&lt;key&gt;'); // escaped, not markup
  });

  it('has the same rows as the model', () => {
    const a = buildAudit(richInput());
    for (const r of a.rows) expect(html).toContain(`<tr id="${r.id}"`);
  });

  const chromium = findChromium();
  if (!chromium && process.env.CI) it('chromium is installed (CI)', () => expect.fail('chromium not found: .ci/run must apt-get install chromium.'));

  const probe = `(() => {
    const t = document.querySelector('table#findings');
    const rows = [...t.tBodies[0].rows].map((r) => [...r.cells].map((c) => c.innerText.trim()));
    const heads = [...t.tHead.rows[0].cells].map((c) => c.innerText.trim());
    const rect = t.getBoundingClientRect();
    const links = [...t.querySelectorAll('.loc a')].map((a) => a.href);
    const fam = [...document.querySelectorAll('#summary-family tbody tr')].map((r) => r.cells[0].innerText);
    return { heads, rows, width: rect.width, height: rect.height, links, fam, visible: getComputedStyle(t).display };
  })()`;

  it.skipIf(!chromium)('renders the findings table in headless chromium with no console error and no network', async () => {
    // a real CLI run writes the page into a sub-folder; links must still reach the files
    const proj = path.join(work, 'proj');
    mkdirSync(path.join(proj, 'verifier'), { recursive: true });
    writeFileSync(path.join(proj, 'verifier', 'v.py'), 'def f(:\n    pass\n');
    writeFileSync(path.join(proj, 'task.json'), '{"type": "Lean",\n');
    const r = runCli(['check', '.', '--format', 'html', '-o', 'reports/audit.html'], { cwd: proj });
    expect(r.code, r.stderr).toBe(1);
    const page = path.join(proj, 'reports', 'audit.html');
    const rep = await openPage(chromium!, pathToFileURL(page).href, probe);
    const v = rep.value as { heads: string[]; rows: string[][]; width: number; height: number; links: string[]; fam: string[]; visible: string };
    expect(v.heads).toEqual(['ID', 'Severity', 'Finding', 'Confirmation evidence', 'Resolution hint']);
    expect(v.rows).toHaveLength(2);
    expect(v.rows.map((x) => x[0])).toEqual(['VA-001', 'VA-002']);
    expect(v.width).toBeGreaterThan(300);
    expect(v.height).toBeGreaterThan(40);
    expect(v.links).toEqual([pathToFileURL(path.join(proj, 'task.json')).href + '#L2', pathToFileURL(path.join(proj, 'verifier', 'v.py')).href + '#L1']);
    expect(rep.console.filter((c) => c.type === 'error' || c.type === 'warning')).toEqual([]);
    expect(rep.exceptions).toEqual([]);
    expect(rep.log.filter((l) => l.level === 'error' || l.level === 'warning')).toEqual([]);
    expect(rep.requests.filter((u) => !u.startsWith('file:') && !u.startsWith('data:'))).toEqual([]);
    expect(readFileSync(page, 'utf8')).toContain('<table id="findings">');
  });

  it.skipIf(!chromium)('the page probe really detects console errors and network use (control)', async () => {
    const bad = path.join(work, 'bad.html');
    writeFileSync(bad, '<!doctype html><title>x</title><table id="findings"><thead><tr><th>ID</th></tr></thead><tbody><tr><td>1</td></tr></tbody></table>' +
      '<script>console.error("boom")</script><img src="http://127.0.0.1:9/x.png">');
    const rep = await openPage(chromium!, pathToFileURL(bad).href, 'document.querySelectorAll("#findings tbody tr").length');
    expect(rep.value).toBe(1);
    expect(rep.console.some((c) => c.type === 'error' && c.text.includes('boom'))).toBe(true);
    expect(rep.requests.some((u) => u.startsWith('http://127.0.0.1:9/'))).toBe(true);
  });
});
