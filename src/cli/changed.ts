/**
 * `--changed-since <rev>`: the files that differ from a git revision —
 * committed since it, staged, unstaged, plus untracked files git does not
 * ignore — so a CI job or a developer checks only what a change touched.
 *
 * vaudit has one process owner (src/host/host.ts), so git runs through the
 * host like any tool: resolved by id on PATH (the checked project's own
 * `.toolchain/bin` is deliberately NOT consulted — the host is rooted in an
 * empty folder), its bytes hashed, an empty environment, bounded time and
 * output. `process` isolation: git must read the repository the user named.
 */
import { existsSync, mkdtempSync, realpathSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createHost } from '../host/host.js';

export class ChangedSinceError extends Error {}

export interface ChangedFiles {
  /** The repository's top-level folder. */
  root: string;
  /** Absolute paths of changed files that still exist, sorted. */
  files: string[];
}

export async function changedSince(rev: string, cwd: string): Promise<ChangedFiles> {
  if (!rev || rev.startsWith('-') || /[\0\n]/.test(rev)) throw new ChangedSinceError(`--changed-since: '${rev}' is not a git revision.`);
  const hostRoot = mkdtempSync(path.join(tmpdir(), 'vaudit-git-'));
  try {
    const host = createHost({ root: hostRoot, isolation: 'process' });
    const git = async (args: string[]) => {
      const r = await host.run({
        caseId: 'changed-since',
        ruleId: 'cli',
        toolId: 'git',
        suiteCode: false,
        args: ['-C', cwd, ...args],
        env: { GIT_OPTIONAL_LOCKS: '0', GIT_TERMINAL_PROMPT: '0' },
        timeoutMs: 60_000,
        maxOutputBytes: 64 * 1024 * 1024,
      });
      const rec = r.record;
      if (rec.outcome === 'verifierUnavailable') throw new ChangedSinceError('--changed-since needs git on PATH.');
      if (rec.outcome !== 'executed') throw new ChangedSinceError(`git ${args[0]} did not complete (${rec.outcome}${rec.detail ? `: ${rec.detail}` : ''}).`);
      if (rec.stdoutTruncated) throw new ChangedSinceError(`git ${args[0]} printed more than the output bound.`);
      return { code: rec.exitCode, stdout: r.stdout.toString('utf8'), stderr: r.stderr.toString('utf8').trim() };
    };
    const top = await git(['rev-parse', '--show-toplevel']);
    if (top.code !== 0) throw new ChangedSinceError(`--changed-since: ${cwd} is not inside a git repository (${top.stderr || `git exit ${top.code}`}).`);
    const root = top.stdout.trim();
    const verify = await git(['rev-parse', '--verify', '--quiet', '--end-of-options', `${rev}^{commit}`]);
    if (verify.code !== 0) throw new ChangedSinceError(`--changed-since: unknown revision '${rev}'.`);
    const base = verify.stdout.trim();
    // Tree of `base` against the working tree (covers commits since, staged and unstaged changes).
    const diff = await git(['diff', '--name-only', '-z', '--no-renames', '--no-ext-diff', '--diff-filter=ACMRTUXB', base, '--']);
    if (diff.code !== 0) throw new ChangedSinceError(`git diff failed: ${diff.stderr}`);
    const untracked = await git(['ls-files', '--others', '--exclude-standard', '-z', '--full-name', '--', ':/']);
    if (untracked.code !== 0) throw new ChangedSinceError(`git ls-files failed: ${untracked.stderr}`);
    const names = new Set([...diff.stdout.split('\0'), ...untracked.stdout.split('\0')].filter(Boolean));
    const files = [...names]
      .map((n) => path.resolve(root, n))
      .filter((p) => existsSync(p) && statSync(p).isFile())
      .sort();
    return { root, files };
  } finally {
    rmSync(hostRoot, { recursive: true, force: true });
  }
}

/** Changed files that lie under one of `paths` (files or folders, relative to cwd), in the cwd's spelling of their path. */
export function withinPaths(files: readonly string[], paths: readonly string[], cwd: string): string[] {
  const real = (p: string) => { try { return realpathSync(p); } catch { return p; } };
  const roots = (paths.length ? paths : ['.']).map((p) => ({ given: path.resolve(cwd, p), real: real(path.resolve(cwd, p)) }));
  const out = new Set<string>();
  for (const f of files) {
    for (const r of roots) {
      if (f === r.real) out.add(r.given);
      else if (f.startsWith(r.real.endsWith(path.sep) ? r.real : r.real + path.sep)) out.add(path.join(r.given, path.relative(r.real, f)));
    }
  }
  return [...out].sort();
}
