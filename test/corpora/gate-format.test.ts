/**
 * The gate's lines are checked, not just listed: `node scripts/corpora-diff.mjs <suite>` (the checker a
 * maintainer runs, a real process) with $VAUDIT_EXPECTED naming a temporary expectations file must
 * reject every line that is malformed, unreviewed or whose reason was not checked (no `ran:` / `read:` /
 * `confirmed:` check, a `read:` that cites no line or a line that does not exist, a check script that
 * is not there), name each by its line, and exit 1; the real gate file, copied, passes.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error plain ESM helper shared with scripts/
import * as corpora from '../../scripts/corpora-diff.mjs';

const lib = corpora as { corporaRoot(): string | undefined; EXPECTED_DIR: string };
const SCRIPT = path.resolve(import.meta.dirname, '../../scripts/corpora-diff.mjs');
const root = lib.corporaRoot();
const tmp = mkdtempSync(path.join(tmpdir(), 'vaudit-gate-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function checker(expected: string): { code: number | null; out: string } {
  const r = spawnSync(process.execPath, [SCRIPT, 'scienceboard'], {
    encoding: 'utf8',
    env: { ...process.env, VAUDIT_EXPECTED: expected, NO_COLOR: '1' },
    timeout: 110_000,
  });
  return { code: r.status, out: r.stdout + r.stderr };
}

const T = '\t';
const REASON = 'VER-001: `raw_keys` is bound only in the later elif branch';
const LINES = [
  /* 1 */ `unbound-name${T}sci/ChimeraX/task.py${T}89${T}${REASON}${T}read: sci/ChimeraX/task.py:86,89,93 raw_keys is assigned at 93 only`,
  /* 2 */ `unbound-name${T}sci/ChimeraX/task.py${T}89${T}${REASON}`,
  /* 3 */ `unbound-name${T}sci/ChimeraX/task.py${T}89${T}${REASON}${T}looked at it, it is right`,
  /* 4 */ `unbound-name${T}sci/ChimeraX/task.py${T}89${T}${REASON}${T}read: the code of _eval_states`,
  /* 5 */ `unbound-name${T}sci/ChimeraX/task.py${T}89${T}${REASON}${T}read: sci/ChimeraX/nowhere.py:3 raw_keys`,
  /* 6 */ `unbound-name${T}sci/ChimeraX/task.py${T}89${T}${REASON}${T}read: sci/ChimeraX/task.py:99999 raw_keys`,
  /* 7 */ `unbound-name${T}sci/ChimeraX/task.py${T}89${T}${REASON}${T}ran: test/corpora/checks/no_such_check.py -> NameError`,
  /* 8 */ `unbound-name${T}sci/ChimeraX/task.py${T}89${T}${REASON}${T}TODO review:`,
  /* 9 */ `unbound-name${T}sci/ChimeraX/task.py${T}89${T}TODO review: a message${T}read: sci/ChimeraX/task.py:89 raw_keys`,
  /* 10 */ `unbound-name${T}sci/ChimeraX/task.py${T}89${T}${REASON}${T}ran: ok`,
];

describe.skipIf(!root)(root ? 'the corpora checker rejects unchecked gate lines' : 'the corpora checker: skipped, ../shared/corpora is absent', () => {
  it('names every malformed, unreviewed or unchecked line and exits 1', () => {
    const file = path.join(tmp, 'bad.expected.tsv');
    writeFileSync(file, `# a comment\n${LINES.join('\n')}\n`);
    const r = checker(file);
    expect(r.code, r.out).toBe(1);
    const flagged = [...r.out.matchAll(/^! bad\.expected\.tsv:(\d+): (.*)$/gm)].map((m) => [Number(m[1]) - 1, m[2]!] as const);
    expect(flagged.map(([n]) => n)).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10]);
    const says = Object.fromEntries(flagged.map(([n, text]) => [n, text]));
    expect(says[2]).toMatch(/^no check column/);
    expect(says[3]).toMatch(/must start with "ran:", "read:" or "confirmed:"/);
    expect(says[4]).toMatch(/starts with the lines read/);
    expect(says[5]).toMatch(/cites sci\/ChimeraX\/nowhere\.py, which does not exist/);
    expect(says[6]).toMatch(/cites sci\/ChimeraX\/task\.py:99999, past its last line/);
    expect(says[7]).toMatch(/names test\/corpora\/checks\/no_such_check\.py, which does not exist/);
    expect(says[8]).toMatch(/^reason not checked/);
    expect(says[9]).toMatch(/^no reviewed reason/);
    expect(says[10]).toMatch(/says nothing about what was checked/);
  });

  it('passes the real gate file, copied (the control: the same checker accepts checked lines)', () => {
    const file = path.join(tmp, 'scienceboard.expected.tsv');
    copyFileSync(path.join(lib.EXPECTED_DIR, 'scienceboard.expected.tsv'), file);
    const r = checker(file);
    expect(r.out).not.toMatch(/^! /m);
    expect(r.code, r.out).toBe(0);
  });
});
