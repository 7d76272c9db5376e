/**
 * Reports and fixes are written atomically, but never by renaming over something that is not a
 * regular file: `--output-file /dev/null` (the build's cache warm-up does it) must leave the device a
 * device, and a symlinked report path stays a symlink to the file it names.
 */
import { lstatSync, mkdtempSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './helpers/run-cli.js';

const repo = path.resolve(import.meta.dirname, '..');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'vaudit-write-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('vaudit check --output-file', () => {
  it.skipIf(process.platform === 'win32')('to /dev/null writes into the device and leaves it a character device', () => {
    expect(statSync('/dev/null').isCharacterDevice()).toBe(true);
    const r = runCli(['check', path.join(repo, 'fixtures/demo-suite'), '--format', 'json', '--output-file', '/dev/null'], { cwd: tmp });
    expect(r.stderr).toBe('');
    expect(lstatSync('/dev/null').isCharacterDevice()).toBe(true);
  });

  it('through a symlink writes the file it names and keeps the link', () => {
    const real = path.join(tmp, 'report.json');
    const link = path.join(tmp, 'latest.json');
    writeFileSync(real, 'old');
    symlinkSync(real, link);
    runCli(['check', path.join(repo, 'fixtures/demo-suite'), '--format', 'json', '--output-file', link], { cwd: tmp });
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readlinkSync(link)).toBe(real);
    expect(JSON.parse(readFileSync(real, 'utf8')).version).toBe(1);
  });
});
