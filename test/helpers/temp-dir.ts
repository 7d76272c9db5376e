import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';

const made: string[] = [];

/** A fresh folder in the system's temporary folder (`<prefix>XXXXXX`), removed when the tests of the
 *  file that asked for it are done: a test run leaves nothing behind in /tmp. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

// Registered on the file's root suite when a test file first imports this module (each test file
// runs with its own module graph).
afterAll(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});
