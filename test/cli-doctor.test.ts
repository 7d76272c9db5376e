/**
 * `vaudit doctor` as a user meets it (a real process): what this machine can confirm — isolation
 * level, the Python interpreter (version, path, sha256; `--python` picks another), the helpers.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const BIN = path.resolve(import.meta.dirname, '..', 'bin', 'vaudit.js');
const run = (...args: string[]) => spawnSync(process.execPath, [BIN, 'doctor', ...args], { encoding: 'utf8', timeout: 60_000 });

describe('vaudit doctor', () => {
  it('prints the isolation level, the interpreter with its version and sha256, and the helpers', () => {
    const r = run();
    expect(r.stdout).toMatch(/^isolation: (bwrap|process|none)/m);
    expect(r.stdout).toMatch(/^python: Python 3\.\d+\.\d+ — \/\S+/m);
    expect(r.stdout).toMatch(/^ {2}sha256 [0-9a-f]{64}$/m);
    expect(r.stdout).toMatch(/^bwrap: /m);
    expect(r.status).toBe(r.stdout.includes('control cases can run here') ? 0 : 1);
  });

  it('--format json names the interpreter --python chose, resolved and hashed', () => {
    const py = ['/usr/bin/python3', '/usr/local/bin/python3'].find((p) => existsSync(p));
    if (!py) return;
    const r = run('--python', py, '--format', 'json');
    const d = JSON.parse(r.stdout) as { python: { source: string; sha256: string; version: string; commandPath: string } };
    expect(d.python).toMatchObject({ source: 'option', commandPath: py });
    expect(d.python.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(d.python.version).toMatch(/^3\.\d+/);
  });

  it('says so and exits 1 when the interpreter named with --python does not exist', () => {
    const r = run('--python', '/nonexistent/python3');
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/not an executable Python interpreter/);
    expect(r.stdout).toMatch(/cannot run here/);
  });
});
