/**
 * `--cache`: a warm run over unchanged inputs reuses the stored result; any change to a file
 * the pass reads (content, not mtime), to a config in effect, or to the options is a miss.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { lintWithCache } from '../src/cli/cache.js';
import { runCli } from './helpers/run-cli.js';

const root = mkdtempSync(path.join(tmpdir(), 'vaudit-cache-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let dir: string;
let n = 0;
const write = (rel: string, text: string) => {
  mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
  writeFileSync(path.join(dir, rel), text);
};

beforeEach(() => {
  dir = path.join(root, `c${n++}`);
  mkdirSync(dir);
  write('verifier/a.py', 'def f(:\n    pass\n');
  write('verifier/b.py', 'x = 1  # vaudit: ignore[no-such-rule]\n');
  write('tasks/t.json', '{"type": "Lean", "evaluate": [{"type": "placeholder"}]}\n');
});

const run = (paths: string[] = ['.'], extra: object = {}) => lintWithCache({ cwd: dir, paths, ...extra }, {});

describe('lintWithCache', () => {
  it('stores a cold run and serves the same findings warm', async () => {
    const cold = await run();
    expect(cold.cacheHit).toBe(false);
    expect(readdirSync(path.join(dir, '.vaudit-cache')).filter((f) => f.startsWith('lint-'))).toHaveLength(1);
    const warm = await run();
    expect(warm.cacheHit).toBe(true);
    const strip = (r: typeof cold) => r.findings.map((f) => ({ ...f }));
    expect(strip(warm)).toEqual(strip(cold));
    expect(warm.targets).toEqual(cold.targets);
    expect({ ...warm.stats, durationMs: 0 }).toEqual({ ...cold.stats, durationMs: 0 });
    expect(warm.suppressed.length).toBe(cold.suppressed.length);
    cold.dispose();
  });

  it('misses when a file changes content even with the same size and mtime', async () => {
    (await run()).dispose();
    const p = path.join(dir, 'verifier/a.py');
    const st = statSync(p);
    writeFileSync(p, 'def g(:\n    pass\n'); // same length
    utimesSync(p, st.atime, st.mtime);
    const r = await run();
    expect(r.cacheHit).toBe(false);
    expect(r.findings.find((f) => f.ruleId === 'parse-error')).toBeDefined();
    r.dispose();
    expect((await run()).cacheHit).toBe(true);
  });

  it('misses when a file is added or removed, or the config in effect changes', async () => {
    (await run()).dispose();
    write('verifier/c.py', 'def h(:\n');
    const added = await run();
    expect(added.cacheHit).toBe(false);
    expect(added.findings.filter((f) => f.ruleId === 'parse-error')).toHaveLength(2);
    added.dispose();
    rmSync(path.join(dir, 'verifier/c.py'));
    expect((await run()).cacheHit).toBe(false);
    write('vaudit.config.json', '{"exclude": ["verifier/a.py"]}\n');
    const cfg = await run();
    expect(cfg.cacheHit).toBe(false);
    expect(cfg.findings.filter((f) => f.ruleId === 'parse-error')).toHaveLength(0);
    cfg.dispose();
    expect((await run()).cacheHit).toBe(true);
  });

  it('an explicitly named file is keyed with its context folder (its config folder)', async () => {
    write('vaudit.config.json', '{}\n');
    (await run(['verifier/b.py'])).dispose();
    expect((await run(['verifier/b.py'])).cacheHit).toBe(true);
    write('tasks/t2.json', '{"type": "Lean", "evaluate": []}\n'); // context, not a target
    expect((await run(['verifier/b.py'])).cacheHit).toBe(false);
  });

  it('keeps separate entries per option set and treats a corrupt entry as a miss', async () => {
    (await run()).dispose();
    (await run(['.'], { forceExclude: true })).dispose();
    expect(readdirSync(path.join(dir, '.vaudit-cache')).filter((f) => f.startsWith('lint-'))).toHaveLength(2);
    expect((await run()).cacheHit).toBe(true);
    for (const f of readdirSync(path.join(dir, '.vaudit-cache'))) writeFileSync(path.join(dir, '.vaudit-cache', f), '{not json');
    const r = await run();
    expect(r.cacheHit).toBe(false);
    r.dispose();
    expect((await run()).cacheHit).toBe(true);
  });
});

describe('vaudit check --cache', () => {
  it('gives the same report and exit code warm as cold, in --cache-location', () => {
    const args = ['check', '.', '--cache', '--cache-location', 'cachedir', '-f', 'json'];
    const cold = runCli(args, { cwd: dir });
    const entryFile = () => path.join(dir, 'cachedir', readdirSync(path.join(dir, 'cachedir')).find((f) => f.startsWith('lint-'))!);
    const stored = statSync(entryFile()).mtimeMs;
    const warm = runCli(args, { cwd: dir });
    expect(statSync(entryFile()).mtimeMs).toBe(stored); // a hit: the entry was read, not rewritten
    expect(cold.code).toBe(1);
    expect(warm.code).toBe(1);
    const norm = (s: string) => ({ ...JSON.parse(s), summary: { ...JSON.parse(s).summary, durationMs: 0 } });
    expect(norm(warm.stdout)).toEqual(norm(cold.stdout));
    expect(readdirSync(path.join(dir, 'cachedir')).some((f) => /^lint-[0-9a-f]+\.cache$/.test(f))).toBe(true);
    // the cache folder itself is never linted
    expect(JSON.parse(warm.stdout).findings.every((f: { file: string }) => !f.file.startsWith('cachedir/'))).toBe(true);
    // audit reports of a cache hit keep the app families
    const md = ['check', '.', '--cache', '--cache-location', 'cachedir', '-f', 'markdown'];
    const mdCold = runCli(md, { cwd: dir }).stdout;
    const mdWarm = runCli(md, { cwd: dir }).stdout;
    expect(mdCold).toMatch(/^\| Lean \| \d+ \|/m);
    expect(mdWarm).toBe(mdCold);
    const entry = readdirSync(path.join(dir, 'cachedir')).find((f) => f.startsWith('lint-'))!;
    expect(readFileSync(path.join(dir, 'cachedir', entry), 'utf8')).not.toContain(dir); // paths stored relative
  });
});
