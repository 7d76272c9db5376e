/**
 * Standard streams that fail while vaudit writes its report (real processes through a shell): a reader
 * that closes the pipe early (`vaudit check | head`) gets no stack trace and the run keeps its own exit
 * code; a stream that cannot be written (a full disk, /dev/full) is said in one line and exits 2.
 */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { BIN } from './helpers/run-cli.js';
import { tempDir } from './helpers/temp-dir.js';

/** A folder whose check reports many findings (a long report: the reader closes before its end). */
function suite(): string {
  const dir = tempDir('vaudit-streams-');
  const body = Array.from({ length: 300 }, (_, i) => `def check_${i}(url):\n    return requests.get(url).ok\n`).join('\n');
  writeFileSync(path.join(dir, 'verify.py'), `import requests\n\n${body}`);
  return dir;
}

function sh(script: string, cwd: string) {
  return spawnSync('bash', ['-c', script], { cwd, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', BIN }, timeout: 60_000 });
}

describe('standard streams that fail', () => {
  it('a reader that closes the pipe early: no stack trace, the exit code of the findings', () => {
    const dir = suite();
    for (const format of ['stylish', 'json']) {
      const r = sh(`node "$BIN" check . --scope all --format ${format} | head -c 1 >/dev/null; echo "exit=\${PIPESTATUS[0]}"`, dir);
      expect(r.stdout.trim(), r.stderr).toBe('exit=1');
      expect(r.stderr).not.toMatch(/EPIPE|Unhandled|at /);
    }
  });

  it.skipIf(!existsSync('/dev/full'))('standard output on a full device: one line on stderr, exit 2', () => {
    const dir = suite();
    const r = sh(`node "$BIN" check . --scope all --format json >/dev/full; echo "exit=$?" >&2`, dir);
    expect(r.stderr).toContain('vaudit: cannot write to standard output: ENOSPC');
    expect(r.stderr).toContain('exit=2');
    expect(r.stderr).not.toMatch(/Unhandled|\n\s+at /);
  });
});
