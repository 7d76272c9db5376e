/**
 * The reviewed-findings gate on real code: vaudit (the real CLI, default options) on every suite in
 * ../shared/corpora must report exactly the findings listed in test/corpora/<name>.expected.tsv, each
 * with a reviewed reason and the check that proves it (`ran:`, `read:` lines that exist, `confirmed:`).
 * Update with `node scripts/corpora-diff.mjs [--write] <name>`.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error plain ESM helper shared with scripts/ (typed by the Entry interface below)
import * as corpora from '../../scripts/corpora-diff.mjs';

interface Entry {
  rule: string;
  file: string;
  line: number;
  reason?: string;
  check?: string;
  message?: string;
}
const lib = corpora as {
  corporaRoot(): string | undefined;
  corpusNames(root: string): string[];
  expectedFile(name: string): string;
  readExpected(file: string, corpus?: string): { entries: Entry[]; problems: string[] };
  runVaudit(dir: string): Entry[];
  diffFindings(expected: Entry[], actual: Entry[]): { added: Entry[]; lost: Entry[]; matched: Entry[] };
  formatDiff(d: { added: Entry[]; lost: Entry[] }): string;
};

/** Suites whose findings nobody has reviewed yet: skipped, never accepted as they are. */
const PENDING_REVIEW: Record<string, string> = {};

const root = lib.corporaRoot();
const REPO = path.resolve(import.meta.dirname, '../..');

const title = root ? 'real corpora' : 'real corpora: skipped, ../shared/corpora is absent (set VAUDIT_CORPORA or work inside the workplace)';

describe.skipIf(!root)(title, () => {
  const names = root ? lib.corpusNames(root) : [];

  it('finds the suites', () => {
    expect(names).toContain('scienceboard');
  });

  // the `ran:` checks name scripts in test/corpora/checks/: each still runs on the corpus as it is
  const scripts = [...new Set(names.flatMap((n) => (existsSync(lib.expectedFile(n)) ? readFileSync(lib.expectedFile(n), 'utf8').match(/test\/corpora\/checks\/\w+\.py/g) ?? [] : [])))].sort();
  for (const script of scripts) {
    it(`${script} runs`, { timeout: 120_000 }, () => {
      const r = spawnSync('python3', [path.join(REPO, script)], { encoding: 'utf8', env: { ...process.env, VAUDIT_CORPORA: root! }, timeout: 110_000 });
      expect(r.error, 'python3 is needed to run the gate\'s check scripts').toBeUndefined();
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout.trim().length).toBeGreaterThan(0);
    });
  }

  for (const name of names) {
    const file = lib.expectedFile(name);
    const pending = !existsSync(file) ? PENDING_REVIEW[name] : undefined;
    if (pending) {
      it.skip(`${name}: ${pending}`, () => {});
      continue;
    }
    it(`${name}: vaudit reports exactly the reviewed findings`, { timeout: 900_000 }, () => {
      expect(existsSync(file), `no ${path.relative(process.cwd(), file)}: review the findings on ${name} and list them`).toBe(true);
      const { entries, problems } = lib.readExpected(file, path.join(root!, name));
      expect(problems, 'malformed, unreviewed or unchecked lines').toEqual([]);
      const diff = lib.diffFindings(entries, lib.runVaudit(path.join(root!, name)));
      const shown = lib.formatDiff(diff);
      expect(shown, `findings differ from ${path.basename(file)} (+ unlisted, - no longer reported)`).toBe('');
    });
  }
});
