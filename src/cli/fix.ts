/**
 * `vaudit check --fix` / `--fix-dry-run` (the ESLint and Ruff convention): apply the safe, mechanical
 * fixes findings carry (`Finding.autofix`), lint again, and repeat while fixes apply (at most
 * MAX_PASSES), so the report is of the fixed files. `--fix` writes each changed file once at the end,
 * atomically, keeping its mode, byte-order mark and the file a symlink points at; `--fix-dry-run`
 * writes nothing and lints the fixed texts in memory. A second run finds nothing to fix.
 */
import { readFileSync, realpathSync, statSync } from 'node:fs';
import { lint, type LintOptions } from '../engine/lint.js';
import { applyFixes } from '../core/fix.js';
import { writeAtomic } from '../core/write-atomic.js';
import type { Autofix, Finding } from '../core/types.js';
import { rel } from '../core/paths.js';
import type { CachedLintResult } from './cache.js';

/** Lint-and-fix rounds before the report (ESLint stops after 10 too). */
const MAX_PASSES = 10;

export interface FixedFile {
  file: string;
  before: string;
  after: string;
  /** Fix titles applied, in order. */
  fixes: string[];
}

export interface FixOutcome {
  /** The lint of the fixed texts. */
  result: CachedLintResult;
  files: FixedFile[];
}

export async function lintAndFix(opts: LintOptions, write: boolean): Promise<FixOutcome> {
  const texts = new Map<string, FixedFile>();
  for (let pass = 0; ; pass++) {
    const overrides = new Map(opts.overrides ?? []);
    for (const [file, f] of texts) overrides.set(file, f.after);
    const result = { ...(await lint({ ...opts, overrides })), cacheHit: false };
    const byFile = fixesByFile(result.findings);
    if (pass === MAX_PASSES || byFile.size === 0) return finish(result, texts, write);
    let changed = false;
    for (const [file, fixes] of byFile) {
      // the text the findings' offsets refer to: what this lint read
      const text = result.project?.files.get(file)?.source.text;
      if (text === undefined) continue;
      const r = applyFixes(text, fixes);
      if (r.applied.length === 0) continue;
      const f = texts.get(file) ?? { file, before: text, after: text, fixes: [] };
      f.after = r.text;
      f.fixes.push(...r.applied.map((x) => x.title));
      texts.set(file, f);
      changed = true;
    }
    if (!changed) return finish(result, texts, write);
    result.dispose();
  }
}

function fixesByFile(findings: readonly Finding[]): Map<string, Autofix[]> {
  const out = new Map<string, Autofix[]>();
  for (const f of findings) {
    if (!f.autofix) continue;
    let list = out.get(f.file);
    if (!list) out.set(f.file, (list = []));
    list.push(f.autofix);
  }
  return out;
}

function finish(result: CachedLintResult, texts: Map<string, FixedFile>, write: boolean): FixOutcome {
  const files = [...texts.values()].filter((f) => f.after !== f.before);
  if (write) for (const f of files) writeFixed(f.file, f.after);
  return { result, files };
}

/** Replace a file's text as the user keeps it: through a symlink, with its mode and byte-order mark. */
function writeFixed(file: string, text: string): void {
  const real = realpathSync(file);
  const bom = readFileSync(real).subarray(0, 3).equals(Buffer.from([0xef, 0xbb, 0xbf])) ? '\ufeff' : '';
  writeAtomic(real, bom + text, statSync(real).mode & 0o7777);
}

/** What `--fix` did (stderr): "Fixed 3 problems in 2 files." and, for a dry run, each change as a diff. */
export function fixSummary(files: readonly FixedFile[], cwd: string, dryRun: boolean): string {
  const n = files.reduce((s, f) => s + f.fixes.length, 0);
  if (n === 0) return dryRun ? 'vaudit: nothing to fix.\n' : '';
  const head = `${dryRun ? 'Would fix' : 'Fixed'} ${n} problem${n === 1 ? '' : 's'} in ${files.length} file${files.length === 1 ? '' : 's'}${dryRun ? ' (--fix-dry-run: nothing written)' : ''}.`;
  if (!dryRun) return `vaudit: ${head}\n`;
  return files.map((f) => lineDiff(rel(cwd, f.file), f.before, f.after)).join('') + `vaudit: ${head}\n`;
}

/** A unified diff of the lines that changed between two texts (one hunk per run of changed lines, no context). */
function lineDiff(name: string, before: string, after: string): string {
  const a = before.split(/\r?\n|\r/);
  const b = after.split(/\r?\n|\r/);
  const out = [`--- a/${name}`, `+++ b/${name}`];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (a[i] === b[j]) { i++; j++; continue; }
    // the next lines the two texts share again (fixes change few lines, so a short look-ahead finds them)
    const [di, dj] = resync(a, b, i, j);
    out.push(`@@ -${i + 1},${di} +${j + 1},${dj} @@`, ...a.slice(i, i + di).map((l) => `-${l}`), ...b.slice(j, j + dj).map((l) => `+${l}`));
    i += di;
    j += dj;
  }
  return out.join('\n') + '\n';
}

function resync(a: readonly string[], b: readonly string[], i: number, j: number): [number, number] {
  const LOOK = 50;
  for (let d = 1; d <= 2 * LOOK; d++) {
    for (let di = 0; di <= Math.min(d, LOOK); di++) {
      const dj = d - di;
      if (dj > LOOK) continue;
      if (i + di <= a.length && j + dj <= b.length && (i + di === a.length ? j + dj === b.length : a[i + di] === b[j + dj] && a[i + di + 1] === b[j + dj + 1])) return [di, dj];
    }
  }
  return [a.length - i, b.length - j];
}
