#!/usr/bin/env node
// Reviewed findings on the real corpora (test/corpora/<name>.expected.tsv) against what vaudit reports now.
//
//   node scripts/corpora-diff.mjs [name...]          print new (+) and lost (-) findings; exit 1 when any
//   node scripts/corpora-diff.mjs --write [name...]  rewrite the expectations files: lost lines go, new ones
//                                                    come in with the reason "TODO review: <message>" (the
//                                                    corpora test rejects TODO reasons, so review each one)
//
// Needs a build (`npm run build`). The corpora live at ../shared/corpora (or $VAUDIT_CORPORA).
// test/corpora/corpora.test.ts uses the same functions.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const EXPECTED_DIR = path.join(ROOT, 'test', 'corpora');
export const TODO = 'TODO review:';

/** The folder holding the real suites, or undefined when this checkout has none. */
export function corporaRoot() {
  const dir = process.env.VAUDIT_CORPORA ? path.resolve(process.env.VAUDIT_CORPORA) : path.resolve(ROOT, '../shared/corpora');
  return existsSync(dir) && statSync(dir).isDirectory() ? dir : undefined;
}

/** Names of the suites in the corpora folder (its sub-folders). */
export function corpusNames(root) {
  return readdirSync(root, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();
}

export function expectedFile(name) {
  return path.join(EXPECTED_DIR, `${name}.expected.tsv`);
}

/** One finding as the expectations file keys it: `rule<TAB>file<TAB>line`. */
const keyOf = (e) => `${e.rule}\t${e.file}\t${e.line}`;

/** Parse an expectations file: one `rule<TAB>file<TAB>line<TAB>reason` a line; `#` lines are comments. */
export function readExpected(file) {
  const entries = [];
  const problems = [];
  readFileSync(file, 'utf8')
    .split('\n')
    .forEach((text, i) => {
      if (text.trim() === '' || text.startsWith('#')) return;
      const [rule, f, line, reason, ...extra] = text.split('\t');
      const where = `${path.basename(file)}:${i + 1}`;
      if (!rule || !f || !/^\d+$/.test(line ?? '') || extra.length > 0) {
        problems.push(`${where}: not "rule<TAB>file<TAB>line<TAB>reason": ${text}`);
        return;
      }
      if (!reason || !reason.trim() || reason.startsWith(TODO)) problems.push(`${where}: no reviewed reason: ${text}`);
      entries.push({ rule, file: f, line: Number(line), reason: reason ?? '' });
    });
  return { entries, problems };
}

/** Run the real CLI with default options on one suite; findings with paths relative to the suite. */
export function runVaudit(dir) {
  const r = spawnSync(process.execPath, [path.join(ROOT, 'bin', 'vaudit.js'), 'check', '.', '--format', 'json'], {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
    maxBuffer: 256 * 1024 * 1024,
    timeout: 600_000,
  });
  if (r.error) throw r.error;
  if (r.status !== 0 && r.status !== 1) throw new Error(`vaudit exited ${r.status} on ${dir}:\n${r.stderr}`);
  const report = JSON.parse(r.stdout);
  return report.findings.map((f) => ({
    rule: f.ruleId,
    file: path.relative(dir, path.resolve(dir, f.file)).split(path.sep).join('/'),
    line: f.range.start.line,
    message: f.message,
  }));
}

/** Multiset difference by key: findings nobody reviewed (added) and reviewed ones no longer reported (lost). */
export function diffFindings(expected, actual) {
  const pending = new Map();
  for (const e of expected) pending.set(keyOf(e), [...(pending.get(keyOf(e)) ?? []), e]);
  const added = [];
  const matched = [];
  for (const a of actual) {
    const list = pending.get(keyOf(a));
    const hit = list?.shift();
    if (hit) matched.push({ ...a, reason: hit.reason });
    else added.push(a);
  }
  const lost = [...pending.values()].flat();
  return { added: sortEntries(added), lost: sortEntries(lost), matched };
}

export function sortEntries(list) {
  return [...list].sort((a, b) => a.rule.localeCompare(b.rule) || a.file.localeCompare(b.file) || a.line - b.line);
}

export function formatDiff({ added, lost }) {
  return [
    ...added.map((a) => `+ ${a.rule}\t${a.file}\t${a.line}\t${a.message}`),
    ...lost.map((l) => `- ${l.rule}\t${l.file}\t${l.line}\t${l.reason}`),
  ].join('\n');
}

const HEADER = [
  '# Reviewed vaudit findings on this real suite: rule<TAB>file<TAB>line<TAB>why it is a real defect.',
  '# test/corpora/corpora.test.ts fails on any finding not listed here and on any listed one no longer reported.',
  '# Update with `node scripts/corpora-diff.mjs --write <name>`, then review every "TODO review:" line.',
  '# "FALSE (#issue owner): …" marks a finding known to be wrong whose fix is under way; "PENDING REVIEW (#issue owner): …"',
  '# one its owner has not reviewed yet. Both are debts: a finding nobody can defend is a bug to fix, not a line to keep.',
];

export function writeExpected(file, entries) {
  const body = sortEntries(entries).map((e) => `${e.rule}\t${e.file}\t${e.line}\t${e.reason}`);
  writeFileSync(file, [...HEADER, ...body].join('\n') + '\n');
}

async function main(argv) {
  const write = argv.includes('--write');
  const root = corporaRoot();
  if (!root) {
    console.error('corpora-diff: no corpora folder (../shared/corpora or $VAUDIT_CORPORA)');
    return 2;
  }
  const wanted = argv.filter((a) => !a.startsWith('--'));
  const names = wanted.length ? wanted : corpusNames(root).filter((n) => existsSync(expectedFile(n)));
  let changed = false;
  for (const name of names) {
    const file = expectedFile(name);
    const expected = existsSync(file) ? readExpected(file).entries : [];
    const d = diffFindings(expected, runVaudit(path.join(root, name)));
    console.log(`${name}: ${d.matched.length} as reviewed, ${d.added.length} new, ${d.lost.length} lost`);
    if (d.added.length || d.lost.length) {
      changed = true;
      console.log(formatDiff(d));
    }
    if (write) writeExpected(file, [...d.matched, ...d.added.map((a) => ({ ...a, reason: `${TODO} ${a.message.replace(/\s+/g, ' ')}` }))]);
  }
  return changed && !write ? 1 : 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  process.exitCode = await main(process.argv.slice(2));
}
