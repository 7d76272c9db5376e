/**
 * `vaudit doctor` as a user meets it (a real process): what this machine can confirm — isolation
 * level, the Python interpreter (version, path, sha256; `--python` picks another), the helpers.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const BIN = path.resolve(import.meta.dirname, '..', 'bin', 'vaudit.js');
const run = (...args: string[]) => spawnSync(process.execPath, [BIN, 'doctor', ...args], { encoding: 'utf8', timeout: 60_000 });
const runIn = (cwd: string, ...args: string[]) => spawnSync(process.execPath, [BIN, 'doctor', ...args], { cwd, encoding: 'utf8', timeout: 60_000 });
const SYSTEM_PY = ['/usr/bin/python3', '/usr/local/bin/python3'].find((p) => existsSync(p));

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

  it.skipIf(!SYSTEM_PY)('reads confirm.python from the config that applies in the folder (relative to the config), says where it came from; --python wins', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'vaudit-doctor-'));
    try {
      mkdirSync(path.join(dir, 'suite', 'sub'), { recursive: true });
      // a relative confirm.python is resolved from the config's folder, not from where doctor runs
      writeFileSync(path.join(dir, 'suite', 'vaudit.config.json'), JSON.stringify({ confirm: { python: path.relative(path.join(dir, 'suite'), SYSTEM_PY!) } }));
      const r = runIn(path.join(dir, 'suite', 'sub'), '--format', 'json');
      const d = JSON.parse(r.stdout) as { python: { chosenBy: string; config?: string; commandPath: string } };
      expect(d.python).toMatchObject({ chosenBy: 'config', config: path.join(dir, 'suite', 'vaudit.config.json'), commandPath: SYSTEM_PY });
      const text = runIn(path.join(dir, 'suite', 'sub'));
      expect(text.stdout).toMatch(new RegExp(`^python: Python 3\\.\\d+\\.\\d+ — \\S+ \\(from confirm\\.python in ${path.join(dir, 'suite', 'vaudit.config.json').replace(/[.]/g, '\\.')}\\)$`, 'm'));
      const opt = JSON.parse(runIn(path.join(dir, 'suite', 'sub'), '--python', process.execPath, '--format', 'json').stdout) as { python: { chosenBy: string } };
      expect(opt.python.chosenBy).toBe('option');
      // a config naming an interpreter that does not exist: doctor says so, as check --confirm would meet it
      writeFileSync(path.join(dir, 'suite', 'vaudit.config.json'), JSON.stringify({ confirm: { python: './no-such-python' } }));
      const bad = runIn(path.join(dir, 'suite'));
      expect(bad.status).toBe(1);
      expect(bad.stdout).toMatch(/no-such-python is not an executable Python interpreter/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('says so and exits 1 when the interpreter named with --python does not exist', () => {
    const r = run('--python', '/nonexistent/python3');
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/not an executable Python interpreter/);
    expect(r.stdout).toMatch(/cannot run here/);
  });
});
