#!/usr/bin/env node
// Reviewed findings on the real corpora (test/corpora/<name>.expected.tsv) against what vaudit reports now.
//
//   node scripts/corpora-diff.mjs [name...]          print unchecked lines, new (+) and lost (-) findings;
//                                                    exit 1 when any
//   node scripts/corpora-diff.mjs --write [name...]  rewrite the expectations files: lost lines go, kept ones
//                                                    keep their reason and check, new ones come in with the
//                                                    reason "TODO review: <message>" and the check
//                                                    "TODO review:" (the corpora test rejects both, so
//                                                    review and check each one)
//
// A line is `rule<TAB>file<TAB>line<TAB>reason<TAB>check`. The check says how the reason was checked:
//   ran: <what was run and what it returned>    (a script run lives in test/corpora/checks/ and is named by path)
//   read: <path:line[,line…]> …                 (the lines that prove it; paths relative to the suite or,
//                                                for test/…, to this repository; each must exist)
//   confirmed: <the control case that confirmed it>
//
// Needs a build (`npm run build`). The corpora live at ../shared/corpora (or $VAUDIT_CORPORA).
// $VAUDIT_EXPECTED names another expectations file (or a folder of <name>.expected.tsv) to check instead.
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

/** The expectations file of a suite: test/corpora/<name>.expected.tsv, or what $VAUDIT_EXPECTED names
 *  (a file, used for every suite named, or a folder holding <name>.expected.tsv). */
export function expectedFile(name) {
  const over = process.env.VAUDIT_EXPECTED;
  if (over) {
    const p = path.resolve(over);
    return existsSync(p) && statSync(p).isDirectory() ? path.join(p, `${name}.expected.tsv`) : p;
  }
  return path.join(EXPECTED_DIR, `${name}.expected.tsv`);
}

/** One finding as the expectations file keys it: `rule<TAB>file<TAB>line`. */
const keyOf = (e) => `${e.rule}\t${e.file}\t${e.line}`;

const CHECK_KINDS = ['ran', 'read', 'confirmed'];
/** `path:line[,line…]` (a line may be a range `a-b`): what a `read:` check cites. */
const CITE = /^([\w.@/+-]+):(\d+(?:-\d+)?(?:,\d+(?:-\d+)?)*)(?=[\s;,)]|$)/;
const SCRIPT = /\btest\/corpora\/checks\/[\w.-]+/g;

/** The number of lines of a file, or undefined when it cannot be read. */
function lineCount(file) {
  try {
    return readFileSync(file, 'utf8').split('\n').length;
  } catch {
    return undefined;
  }
}

/**
 * What is wrong with a check column (undefined when it is well formed): a kind (`ran:`, `read:`,
 * `confirmed:`) and what was checked; a `read:` check starts with the lines it read, which must exist
 * (in the suite at `corpus`, or in this repository for `test/…`) when `corpus` is given; a script a
 * `ran:` check names must exist in test/corpora/checks/.
 */
export function checkProblem(check, corpus) {
  const m = /^(\w+): *(.*)$/.exec(check ?? '');
  if (!m || !CHECK_KINDS.includes(m[1])) return 'the check must start with "ran:", "read:" or "confirmed:"';
  const body = m[2].trim();
  if (body.length < 8) return `the ${m[1]} check says nothing about what was checked`;
  if (m[1] === 'read') {
    const cites = [];
    let rest = body;
    for (let c = CITE.exec(rest); c; c = CITE.exec(rest)) {
      cites.push(c);
      rest = rest.slice(c[0].length).replace(/^[\s;,]+/, '');
    }
    if (cites.length === 0) return 'a read check starts with the lines read, as path:line[,line…]';
    if (corpus) {
      for (const [, f, lines] of cites) {
        const abs = f.startsWith('test/') ? path.join(ROOT, f) : path.join(corpus, f);
        const n = lineCount(abs);
        if (n === undefined) return `read check cites ${f}, which does not exist`;
        const last = Math.max(...lines.split(/[,-]/).map(Number));
        if (last > n) return `read check cites ${f}:${last}, past its last line (${n})`;
      }
    }
  }
  for (const script of body.match(SCRIPT) ?? []) {
    if (!existsSync(path.join(ROOT, script))) return `the check names ${script}, which does not exist`;
  }
  return undefined;
}

/**
 * Parse an expectations file: one `rule<TAB>file<TAB>line<TAB>reason<TAB>check` a line; `#` lines are
 * comments. `problems` lists every line that is malformed, whose reason was not reviewed or whose
 * reason was not checked (see `checkProblem`; `corpus`, the suite's folder, lets it test cited lines).
 */
export function readExpected(file, corpus) {
  const entries = [];
  const problems = [];
  readFileSync(file, 'utf8')
    .split('\n')
    .forEach((text, i) => {
      if (text.trim() === '' || text.startsWith('#')) return;
      const [rule, f, line, reason, check, ...extra] = text.split('\t');
      const where = `${path.basename(file)}:${i + 1}`;
      if (!rule || !f || !/^\d+$/.test(line ?? '') || extra.length > 0) {
        problems.push(`${where}: not "rule<TAB>file<TAB>line<TAB>reason<TAB>check": ${text}`);
        return;
      }
      // a line with no check column is kept (so that --write carries its reason over) but rejected
      if (check === undefined) problems.push(`${where}: no check column (how the reason was checked): ${text}`);
      else if (!reason || !reason.trim() || reason.startsWith(TODO)) problems.push(`${where}: no reviewed reason: ${text}`);
      else if (check.startsWith(TODO)) problems.push(`${where}: reason not checked: ${text}`);
      else {
        const bad = checkProblem(check, corpus);
        if (bad) problems.push(`${where}: ${bad}: ${text}`);
      }
      entries.push({ rule, file: f, line: Number(line), reason: reason ?? '', check });
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
    if (hit) matched.push({ ...a, reason: hit.reason, check: hit.check });
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
  '# Reviewed vaudit findings on this real suite: rule<TAB>file<TAB>line<TAB>why it is a real defect<TAB>how that was checked.',
  '# test/corpora/corpora.test.ts fails on any finding not listed here, on any listed one no longer reported and on any',
  '# line whose reason was not checked. A check is "ran: <what was run (scripts: test/corpora/checks/) and what it',
  '# returned>", "read: <path:line[,line…]> <what those lines show>" or "confirmed: <the control case>".',
  '# Update with `node scripts/corpora-diff.mjs --write <name>`, then review and check every "TODO review:" line.',
  '# "FALSE (#issue owner): …" marks a finding known to be wrong whose fix is under way; "PENDING REVIEW (#issue owner): …"',
  '# one its owner has not reviewed yet. Both are debts: a finding nobody can defend is a bug to fix, not a line to keep.',
];

export function writeExpected(file, entries) {
  const body = sortEntries(entries).map((e) => `${e.rule}\t${e.file}\t${e.line}\t${e.reason}\t${e.check ?? TODO}`);
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
  if (!wanted.length && process.env.VAUDIT_EXPECTED && !statSync(path.resolve(process.env.VAUDIT_EXPECTED), { throwIfNoEntry: false })?.isDirectory()) {
    console.error('corpora-diff: $VAUDIT_EXPECTED names one file: name the suite it is for');
    return 2;
  }
  const names = wanted.length ? wanted : corpusNames(root).filter((n) => existsSync(expectedFile(n)));
  let changed = false;
  for (const name of names) {
    const file = expectedFile(name);
    const corpus = path.join(root, name);
    const { entries: expected, problems } = existsSync(file) ? readExpected(file, corpus) : { entries: [], problems: [] };
    const d = diffFindings(expected, runVaudit(corpus));
    console.log(`${name}: ${d.matched.length} as reviewed, ${d.added.length} new, ${d.lost.length} lost, ${problems.length} unchecked or malformed`);
    for (const p of problems) console.log(`! ${p}`);
    if (d.added.length || d.lost.length) console.log(formatDiff(d));
    if (d.added.length || d.lost.length || problems.length) changed = true;
    if (write) writeExpected(file, [...d.matched, ...d.added.map((a) => ({ ...a, reason: `${TODO} ${a.message.replace(/\s+/g, ' ')}`, check: TODO }))]);
  }
  return changed && !write ? 1 : 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  process.exitCode = await main(process.argv.slice(2));
}
