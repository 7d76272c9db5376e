/** One process owner: only src/host/ may import child_process or worker_threads. */
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

const ROOT = join(import.meta.dirname, '..');
const SPAWNING = new Set(['child_process', 'worker_threads', 'cluster']);

/** Modules a source file imports (static, `export … from`, `import()`, `require()`), found by the
 *  TypeScript scanner, so an import written inside a string (a doc example) does not count. */
function importsOf(text: string): string[] {
  return ts.preProcessFile(text, true, true).importedFiles.map((f) => f.fileName.replace(/^node:/, ''));
}
const FORBIDDEN = { test: (text: string) => importsOf(text).some((m) => SPAWNING.has(m)) };

function* walk(dir: string): Generator<string> {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return;
  }
  for (const e of entries) {
    const p = join(dir, e);
    const st = statSync(p);
    if (st.isDirectory()) yield* walk(p);
    else if (/\.(ts|mts|cts|js|mjs|cjs)$/.test(e)) yield p;
  }
}

describe('one process owner', () => {
  it('the pattern recognises every import form', () => {
    for (const s of [
      "import { spawn } from 'node:child_process';",
      'import cp from "child_process";',
      "const w = await import('node:worker_threads');",
      "const cp = require('child_process');",
      "export { fork } from 'child_process';",
    ])
      expect(FORBIDDEN.test(s), s).toBe(true);
    expect(FORBIDDEN.test("import { readFileSync } from 'node:fs';")).toBe(false);
    expect(FORBIDDEN.test("const doc = `import { execFileSync } from 'node:child_process';`;")).toBe(false);
  });

  it('no module outside src/host/ starts processes', () => {
    const offenders: string[] = [];
    let scanned = 0;
    for (const top of ['src', 'rules']) {
      for (const file of walk(join(ROOT, top))) {
        const rel = relative(ROOT, file).split('\\').join('/');
        // test data: fixtures and docs examples are verifier code under test (bundle-spawns-process's spawn on purpose)
        if (/^rules\/[^/]+\/(fixtures|docs)\//.test(rel)) continue;
        scanned++;
        if (/^src\/host\//.test(rel)) continue;
        if (FORBIDDEN.test(readFileSync(file, 'utf8'))) offenders.push(rel);
      }
    }
    expect(scanned).toBeGreaterThan(0);
    expect(offenders).toEqual([]);
  });
});
