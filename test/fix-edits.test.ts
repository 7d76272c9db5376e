/**
 * The edits behind `--fix` on the forms a call takes (empty argument list, trailing comma, one argument
 * per line, a comment in the way, a generator argument), and how fixes of one pass are combined
 * (overlapping or repeated fixes wait for the next pass).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { lint } from '../src/engine/lint.js';
import { applyFixes } from '../src/core/fix.js';

const work = mkdtempSync(path.join(tmpdir(), 'vaudit-fix-edits-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Each line of `cases` is one call; the result of fixing it, or the line itself when no fix is certain. */
async function fixedLines(file: string, text: string): Promise<string> {
  writeFileSync(path.join(work, file), text);
  const r = await lint({ paths: [path.join(work, file)], cwd: work, rules: ['missing-timeout'] });
  try {
    const fixes = r.findings.filter((f) => f.autofix).map((f) => f.autofix!);
    return applyFixes(text, fixes).text;
  } finally {
    r.dispose();
  }
}

describe('missing-timeout fixes', () => {
  it('Python: the keyword goes after the last argument, on its own line after a trailing comma', async () => {
    const src = [
      'import requests, subprocess, socket, urllib.request',
      'def f(u, a, gen):',
      '    requests.get(u)',
      '    requests.post(u, data={"a": (1, 2)})',
      '    requests.get(u, )',
      '    subprocess.run(*a)',
      '    urllib.request.urlopen(u)',
      '    socket.create_connection((u, 80))',
      '    requests.get(u  # the state endpoint',
      '    )',
      '    requests.get(u, timeout=None)',
      '    subprocess.check_output(x for x in gen)',
      '    requests.put(',
      '        u,',
      '        json={},',
      '    )',
      '',
    ].join('\n');
    expect(await fixedLines('v.py', src)).toBe([
      'import requests, subprocess, socket, urllib.request',
      'def f(u, a, gen):',
      '    requests.get(u, timeout=60)',
      '    requests.post(u, data={"a": (1, 2)}, timeout=60)',
      '    requests.get(u, timeout=60, )',
      '    subprocess.run(*a, timeout=60)',
      '    urllib.request.urlopen(u, timeout=60)',
      '    socket.create_connection((u, 80), timeout=60)',
      '    requests.get(u  # the state endpoint', // a comment after the last argument: no fix
      '    )',
      '    requests.get(u, timeout=None)', // a timeout is there (None): replacing it is not adding one
      '    subprocess.check_output(x for x in gen)', // a generator argument: no argument list to extend
      '    requests.put(',
      '        u,',
      '        json={},',
      '        timeout=60,',
      '    )',
      '',
    ].join('\n'));
  });

  it('JavaScript: the abort signal joins an inline init object, or becomes one', async () => {
    const src = [
      'export async function f(u, o) {',
      '  await fetch(u, {});',
      '  await fetch(`${u}/x`, { headers: { a: 1 } });',
      '  await fetch(u, { ...o });',
      '}',
      '',
    ].join('\n');
    expect(await fixedLines('v.mjs', src)).toBe([
      'export async function f(u, o) {',
      '  await fetch(u, { signal: AbortSignal.timeout(60000) });',
      '  await fetch(`${u}/x`, { signal: AbortSignal.timeout(60000), headers: { a: 1 } });',
      '  await fetch(u, { ...o });',
      '}',
      '',
    ].join('\n'));
  });
});

describe('applyFixes', () => {
  const ins = (at: number, t: string) => ({ start: at, end: at, newText: t });
  it('applies fixes that do not touch in text order, skipping repeats, overlaps and two insertions at one place', () => {
    const r = applyFixes('abcdef', [
      { title: 'x', edits: [ins(6, '!')] },
      { title: 'a', edits: [{ start: 0, end: 2, newText: 'AB' }] },
      { title: 'a again', edits: [{ start: 0, end: 2, newText: 'AB' }] },
      { title: 'overlap', edits: [{ start: 1, end: 3, newText: '-' }] },
      { title: 'y', edits: [ins(6, '?')] },
      { title: 'out of range', edits: [ins(7, '?')] },
    ]);
    expect(r.text).toBe('ABcdef!');
    expect(r.applied.map((f) => f.title)).toEqual(['a', 'x']);
  });
});
