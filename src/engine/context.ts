/**
 * The project a checked path is read in. A folder or file inside a suite is checked in the context of
 * the whole suite (which verifier a task routes to lives elsewhere in it): the folder of the config
 * that applies, else — for a folder — the current folder when the folder lies inside it, and — for a
 * file — the repository holding it (src/engine/pass.ts contextRoot). A context nobody declared is a
 * guess: run from a home or a temporary folder, the guess is every file under it. It is read only
 * while it stays within CONTEXT_LIMIT; past that the named paths are checked alone and a note says so.
 */
import { statSync } from 'node:fs';
import path from 'node:path';
import type { RunNote } from '../core/types.js';
import type { ConfigResolver } from '../config/load.js';
import { discoverFiles } from './discover.js';

/** The most an undeclared context may hold: files vaudit would read, and their bytes. The largest
 *  real suite we know holds 2,499 files and 8 MB. */
const CONTEXT_LIMIT = { files: 10_000, bytes: 64 * 1024 * 1024 };

/** The project a folder belongs to (as ESLint's flat config decides it): its config's folder, else the
 *  current folder when the folder lies inside it, else the folder itself. (A repository root is not a
 *  project: a repository may hold many suites, fixtures and tools.) */
export function folderContext(dir: string, cwd: string, configs: ConfigResolver): string {
  const c = configs.forDir(dir);
  if (c.path && (dir === c.dir || dir.startsWith(c.dir + path.sep))) return c.dir;
  return dir.startsWith(cwd + path.sep) ? cwd : dir;
}

/** Every file of the context roots (not in `ignored`), and a note for each undeclared root that was
 *  over the limit and so not read. */
export async function readContext(
  roots: Iterable<string>, configs: ConfigResolver, ignored: ReadonlySet<string>,
  limit: { files: number; bytes: number } = CONTEXT_LIMIT,
): Promise<{ files: string[]; notes: RunNote[] }> {
  const files: string[] = [];
  const notes: RunNote[] = [];
  for (const r of roots) {
    const cfg = configs.forDir(r);
    const found = (await discoverFiles([r], { cwd: r, include: cfg.config.include, exclude: cfg.config.exclude })).files.filter((f) => !ignored.has(f));
    const declared = !!cfg.path && cfg.dir === r;
    const over = declared ? undefined : overLimit(found, limit);
    if (over) {
      notes.push({
        ruleId: 'context',
        file: r,
        range: { start: { line: 1, column: 1, offset: 0 }, end: { line: 1, column: 1, offset: 0 } },
        message: `${over}: the named paths were checked without the rest of it (routes from task files outside them are not seen). ` +
          'Put a vaudit.config.json in the suite\'s root (`vaudit init`), or run vaudit from the suite\'s root.',
      });
      continue;
    }
    files.push(...found);
  }
  return { files, notes };
}

function overLimit(files: readonly string[], limit: { files: number; bytes: number }): string | undefined {
  const why = (what: string, max: string) => `The folder taken as the project (no config declares one) holds ${what}, more than the ${max} read for context`;
  if (files.length > limit.files) return why(`${count(files.length)} files`, `${count(limit.files)} files`);
  let bytes = 0;
  for (const f of files) {
    try {
      bytes += statSync(f).size;
    } catch {
      continue;
    }
    if (bytes > limit.bytes) return why(`more than ${mb(limit.bytes)} of files`, mb(limit.bytes));
  }
  return undefined;
}

function count(n: number): string {
  return n.toLocaleString('en-US');
}

function mb(n: number): string {
  return `${Math.round(n / (1024 * 1024))} MB`;
}
