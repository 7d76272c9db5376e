#!/usr/bin/env node
// Tag a release: `v<version>` (package.json) on a commit that holds the sources of HEAD plus the built
// dist/, so that what users install from git (pre-commit `rev: v<version>`, `npm i -D
// git+https://…#v<version>`) runs without building: `prepare` finds dist/ built from exactly those
// sources and builds nothing (no devDependencies needed). dist/ stays out of the branch: the release
// commit's parent is HEAD and no branch moves. Run it on main with a clean working tree, after
// `npm ci`; it pushes nothing (it prints the push command).
//
//   node scripts/release.mjs [--dry-run]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');
const dryRun = process.argv.includes('--dry-run');
/** Built files that are no part of a release: the V8 code cache is made for one node binary. */
const NOT_RELEASED = ['dist/vaudit.bundle.cache'];

function run(cmd, args, env = {}) {
  const r = spawnSync(cmd, args, { cwd: ROOT, encoding: 'utf8', env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  if (r.status !== 0) fail(`${cmd} ${args.join(' ')} failed:\n${r.stderr || r.stdout}`);
  return r.stdout.trim();
}

function fail(message) {
  console.error(`release: ${message}`);
  process.exit(1);
}

const version = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version;
const tag = `v${version}`;
if (run('git', ['status', '--porcelain', '--untracked-files=no'])) fail('the working tree has changes; commit them first (a release is the sources of HEAD).');
if (spawnSync('git', ['rev-parse', '-q', '--verify', `refs/tags/${tag}`], { cwd: ROOT }).status === 0) fail(`tag ${tag} exists; raise the version in package.json first.`);
const head = run('git', ['rev-parse', 'HEAD']);

console.error(`release: building dist/ for ${tag} from ${head.slice(0, 12)}`);
const build = spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: ['ignore', 2, 2] }); // stdout is the result line alone
if (build.status !== 0) fail('npm run build failed.');

// HEAD's tree plus dist/, written through a private index (the user's index and branches stay as they are)
const scratch = mkdtempSync(path.join(tmpdir(), 'vaudit-release-'));
const env = { GIT_INDEX_FILE: path.join(scratch, 'index') };
try {
  run('git', ['read-tree', 'HEAD'], env);
  run('git', ['add', '--force', '--', 'dist'], env);
  run('git', ['rm', '--cached', '--quiet', '--ignore-unmatch', '--', ...NOT_RELEASED], env);
  const tree = run('git', ['write-tree'], env);
  const files = run('git', ['ls-tree', '-r', '--name-only', tree, '--', 'dist']).split('\n').filter(Boolean).length;
  if (dryRun) {
    console.log(`release: --dry-run: would tag ${tag} on a commit of ${head.slice(0, 12)}'s sources plus ${files} files of dist/ (nothing written).`);
  } else {
    const commit = run('git', ['commit-tree', tree, '-p', head, '-m', `Release ${tag}: the sources of ${head.slice(0, 12)} with their built dist/`]);
    run('git', ['tag', '-a', tag, commit, '-m', `vaudit ${version}`]);
    console.log(`release: tagged ${tag} (commit ${commit.slice(0, 12)}: ${head.slice(0, 12)} plus ${files} files of dist/). Publish it with: git push origin ${tag}`);
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
