/** Tool authority, outcomes and records of the host. */
import { afterAll, describe, expect, it } from 'vitest';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { createHost } from '../src/host/host.js';

const HAS_BWRAP = existsSync('/usr/bin/bwrap');
/** The compiled host (a child process cannot load the TypeScript source). */
const HOST_MODULE = resolve(import.meta.dirname, '../dist/src/host/host.js');
const root = mkdtempSync(join(tmpdir(), 'vaudit-host-root-'));
// As root, process isolation runs tools as nobody, who must be able to reach them.
chmodSync(root, 0o755);
afterAll(() => rmSync(root, { recursive: true, force: true }));

function tool(name: string, body: string): string {
  const dir = join(root, '.toolchain', 'bin');
  mkdirSync(dir, { recursive: true });
  const p = join(dir, name);
  writeFileSync(p, body);
  chmodSync(p, 0o755);
  return p;
}

describe('tool authority', () => {
  it('resolves .toolchain/bin before PATH and hashes the executable', () => {
    const p = tool('sh', '#!/bin/sh\necho toolchain-sh\n');
    const host = createHost({ root, isolation: 'process' });
    const t = host.resolveTool('sh')!;
    expect(t.source).toBe('toolchain');
    expect(t.commandPath).toBe(p);
    expect(t.sha256).toBe(createHash('sha256').update('#!/bin/sh\necho toolchain-sh\n').digest('hex'));
    rmSync(p);
  });

  it('falls back to PATH and keeps the selected command path', () => {
    const host = createHost({ root, isolation: 'process', searchPath: '/usr/bin:/bin' });
    const t = host.resolveTool('env')!;
    expect(t.source).toBe('path');
    expect(t.commandPath).toBe('/usr/bin/env');
    expect(t.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('an id it cannot resolve is verifierUnavailable, recorded', async () => {
    const host = createHost({ root, isolation: 'process' });
    const r = await host.run({ caseId: 'c1', ruleId: 'missing-timeout', toolId: 'no-such-tool-vaudit', args: [] });
    expect(r.record.outcome).toBe('verifierUnavailable');
    expect(host.records).toHaveLength(1);
    expect(host.records[0]!.caseId).toBe('c1');
    expect(host.records[0]!.ruleId).toBe('missing-timeout');
    for (const bad of ['../sh', '/bin/sh', '']) expect(host.resolveTool(bad)).toBeUndefined();
  });

  it('tool bytes that moved after resolution give sandbox, not a verdict', async () => {
    tool('greet', '#!/bin/sh\necho hello\n');
    const host = createHost({ root, isolation: 'process' });
    const first = await host.run({ caseId: 'a', ruleId: 'r', toolId: 'greet', args: [] });
    expect(first.record.outcome).toBe('executed');
    expect(first.stdout.toString()).toBe('hello\n');
    tool('greet', '#!/bin/sh\necho evil\n');
    const second = await host.run({ caseId: 'b', ruleId: 'r', toolId: 'greet', args: [] });
    expect(second.record.outcome).toBe('sandbox');
    expect(second.record.detail).toMatch(/bytes moved/);
    expect(second.stdout.length).toBe(0);
  });
});

describe('isolation policy', () => {
  it('bwrap required but missing: sandbox, never a silent downgrade', async () => {
    for (const opts of [{ isolation: 'bwrap' as const }, { isolation: 'auto' as const, requireIsolation: true }]) {
      const host = createHost({ root, ...opts, helpers: { bwrap: null } });
      const r = await host.run({ caseId: 'c', ruleId: 'r', toolId: 'true', args: [] });
      expect(r.record.outcome).toBe('sandbox');
      expect(r.record.detail).toMatch(/bubblewrap/);
    }
  });

  it('auto without bwrap does not run suite code: sandbox with the reason and the install hint', async () => {
    const host = createHost({ root, isolation: 'auto', helpers: { bwrap: null } });
    const r = await host.run({ caseId: 'c', ruleId: 'r', toolId: 'true', args: [] });
    expect(r.record.outcome).toBe('sandbox');
    expect(r.record.detail).toMatch(/bubblewrap is not installed/);
    expect(r.record.hint).toMatch(/apt-get install bubblewrap/);
    expect(r.record.hint).toMatch(/--isolation process/);
    expect(r.record).toMatchObject({ policy: 'auto', suiteCode: true, isolation: 'none' });
  });

  it('auto without bwrap runs a case with no suite code (a parse) at the process level, and records it', async () => {
    const host = createHost({ root, isolation: 'auto', helpers: { bwrap: null } });
    const r = await host.run({ caseId: 'c', ruleId: 'r', toolId: 'true', args: [], suiteCode: false });
    expect(r.record).toMatchObject({ outcome: 'executed', isolation: 'process', policy: 'auto', suiteCode: false });
    const strict = createHost({ root, isolation: 'bwrap', helpers: { bwrap: null } });
    expect((await strict.run({ caseId: 'c', ruleId: 'r', toolId: 'true', args: [], suiteCode: false })).record.outcome).toBe('sandbox');
  });

  it('process isolation is an explicit choice, recorded in the run', async () => {
    const host = createHost({ root, isolation: 'process', helpers: { bwrap: null } });
    const r = await host.run({ caseId: 'c', ruleId: 'r', toolId: 'true', args: [] });
    expect(r.record).toMatchObject({ outcome: 'executed', isolation: 'process', policy: 'process', suiteCode: true, network: 'shared' });
  });

  it.skipIf(!HAS_BWRAP)('a sandbox that cannot be set up is sandbox, not a tool exit', async () => {
    const host = createHost({ root, isolation: 'bwrap' });
    // A helper that exits without ever reporting a started child (here /bin/false in bwrap's
    // place) is a sandbox that was not set up: its exit code is not the tool's answer.
    const broken = createHost({ root, isolation: 'bwrap', helpers: { bwrap: '/bin/false' } });
    const r = await broken.run({ caseId: 'c', ruleId: 'r', toolId: 'true', args: [] });
    expect(r.record.outcome).toBe('sandbox');
    const ok = await host.run({ caseId: 'c', ruleId: 'r', toolId: 'sh', args: ['-c', 'exit 7'] });
    expect(ok.record.outcome).toBe('executed');
    expect(ok.record.exitCode).toBe(7);
  });
});

describe('runs', () => {
  for (const isolation of HAS_BWRAP ? (['bwrap', 'process'] as const) : (['process'] as const)) {
    it(`${isolation}: stdin from the case, files in the cell, stub tools on PATH, bounded stderr`, async () => {
      const host = createHost({ root, isolation });
      const r = await host.run({
        caseId: 'c',
        ruleId: 'r',
        toolId: 'sh',
        args: ['-c', 'cat; cat data/in.txt; stub-tool; head -c 5000 /dev/zero >&2; exit 3'],
        stdin: 'from-stdin\n',
        files: { 'data/in.txt': 'from-file\n', 'bin/stub-tool': { content: '#!/bin/sh\necho from-stub\n', mode: 0o755 } },
        pathDirs: ['bin'],
        maxOutputBytes: 100,
      });
      expect(r.record.outcome).toBe('executed');
      expect(r.record.exitCode).toBe(3);
      expect(r.stdout.toString()).toBe('from-stdin\nfrom-file\nfrom-stub\n');
      expect(r.record.stderrTruncated).toBe(true);
      expect(r.record.stdoutTruncated).toBe(false);
      expect(r.stderr.length).toBe(100);
      expect(r.record.stderrBytes).toBe(5000);
      expect(r.record.argv[0]).toBe(r.record.resolvedPath);
      expect(r.record.sha256).toMatch(/^[0-9a-f]{64}$/);
    });

    it(`${isolation}: stdin is empty when the case gives none`, async () => {
      const host = createHost({ root, isolation });
      const r = await host.run({ caseId: 'c', ruleId: 'r', toolId: 'sh', args: ['-c', 'cat; echo end'], timeoutMs: 3000 });
      expect(r.record.outcome).toBe('executed');
      expect(r.stdout.toString()).toBe('end\n');
    });

    it(`${isolation}: stdin is empty even when vaudit itself runs with stdin closed (\`<&-\`)`, () => {
      // a process whose descriptor 0 was closed and then taken by a file: the case must not read that file
      const secret = join(root, 'not-stdin.txt');
      writeFileSync(secret, 'bytes of a file vaudit had open\n');
      const script = [
        "const fs = require('node:fs');",
        'fs.closeSync(0);',
        `const fd = fs.openSync(${JSON.stringify(secret)}, 'r');`,
        "if (fd !== 0) throw new Error('descriptor 0 not reused: ' + fd);",
        `import(${JSON.stringify(pathToFileURL(HOST_MODULE).href)}).then(async ({ createHost }) => {`,
        `  const host = createHost({ root: ${JSON.stringify(root)}, isolation: ${JSON.stringify(isolation)} });`,
        "  const r = await host.run({ caseId: 'c', ruleId: 'r', toolId: 'sh', args: ['-c', 'cat; echo end'], timeoutMs: 3000 });",
        '  process.stdout.write(JSON.stringify({ outcome: r.record.outcome, stdout: r.stdout.toString() }));',
        '});',
      ].join('\n');
      const p = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 30_000 });
      expect(p.stderr).toBe('');
      expect(JSON.parse(p.stdout)).toEqual({ outcome: 'executed', stdout: 'end\n' });
    });
  }
});
