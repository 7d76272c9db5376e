/**
 * The pre-commit hook as a user meets it: the real `pre-commit` (Debian package) runs
 * `try-repo` against this repository (which installs vaudit as a node hook: npm install,
 * `prepare` builds dist/, npm pack, npm install -g) inside a temporary git repository.
 * A staged defect fails the commit, a clean change passes, a changed verifier module
 * re-checks the task files routed to it, and config excludes hold for the file names
 * pre-commit passes (--force-exclude). pre-commit's absence is a failure unless
 * VAUDIT_SKIP_PRECOMMIT=1 opts out.
 *
 * Offline/fast: npm runs with prefer-offline (the npm cache filled by `npm ci`). The hook repo is
 * a snapshot of this working tree (HEAD plus tracked changes — what try-repo itself would use),
 * committed once and released with scripts/release.mjs (the tag v<version> carries the built dist/,
 * so the hook's install builds nothing), so all cases share one PRE_COMMIT_HOME and one hook
 * installation, of `rev: v<version>` as the README tells users.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const REPO = path.resolve(import.meta.dirname, '..');
const PRE_COMMIT = process.env.VAUDIT_PRE_COMMIT ?? 'pre-commit';
const available = spawnSync(PRE_COMMIT, ['--version'], { encoding: 'utf8' }).status === 0;

/** The one way to run without pre-commit: say so (a test that skips by itself hides the hook's state). */
const optedOut = process.env.VAUDIT_SKIP_PRECOMMIT === '1';
if (!available && !optedOut) {
  it('pre-commit is installed', () =>
    expect.fail(`${PRE_COMMIT} not found: install pre-commit (pip install pre-commit, apt-get install pre-commit; .ci/run does), or set VAUDIT_SKIP_PRECOMMIT=1 to skip the hook's tests knowingly.`));
}

const base = mkdtempSync(path.join(tmpdir(), 'vaudit-precommit-'));
const home = path.join(base, 'pre-commit-home');
const user = path.join(base, 'user-repo');
const snapshot = path.join(base, 'vaudit-snapshot');
/**
 * A hang guard, not a speed budget: the first hook call installs the hook environment (npm install
 * compiles tree-sitter's native addon with node-gyp where no prebuilt binary fits), which took more
 * than 5 minutes on a loaded 2-core machine. spawnSync blocks, so vitest's own timeout cannot fire.
 */
const HOOK_TIMEOUT_MS = 1_200_000;
let snapshotRev = '';
afterAll(() => rmSync(base, { recursive: true, force: true }));

const env = {
  ...process.env,
  PRE_COMMIT_HOME: home,
  npm_config_prefer_offline: 'true',
  npm_config_audit: 'false',
  npm_config_fund: 'false',
  npm_config_update_notifier: 'false',
  GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.com',
  NO_COLOR: '1',
};

function git(...args: string[]): string {
  return gitIn(user, ...args);
}
function gitIn(cwd: string, ...args: string[]): string {
  const r = spawnSync('git', ['-c', 'commit.gpgsign=false', ...args], { cwd, encoding: 'utf8', env });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}
function write(rel: string, text: string): void {
  mkdirSync(path.dirname(path.join(user, rel)), { recursive: true });
  writeFileSync(path.join(user, rel), text);
}
/** Run the hook on the staged files, as `git commit` would. */
function tryRepo(): { code: number; out: string } {
  const r = spawnSync(PRE_COMMIT, ['try-repo', snapshot, 'vaudit', '--ref', snapshotRev, '--color', 'never'], { cwd: user, encoding: 'utf8', env, timeout: HOOK_TIMEOUT_MS });
  const out = `${r.stdout}\n${r.stderr}`;
  return { code: r.status ?? -1, out };
}

/** This working tree as a committed repository: HEAD plus tracked changes (staged or not) plus
 *  untracked, not ignored files — what `tsc` sees here (in CI: exactly HEAD). */
function makeSnapshot(): void {
  gitIn(base, 'clone', '-q', '--no-hardlinks', REPO, snapshot);
  const changed = [
    ...gitIn(REPO, 'diff', '--name-only', '-z', 'HEAD').split('\0'),
    ...gitIn(REPO, 'ls-files', '--others', '--exclude-standard', '-z').split('\0'),
  ].filter(Boolean);
  for (const rel of changed) {
    const from = path.join(REPO, rel);
    const to = path.join(snapshot, rel);
    if (existsSync(from)) {
      mkdirSync(path.dirname(to), { recursive: true });
      copyFileSync(from, to);
    } else rmSync(to, { force: true });
  }
  gitIn(snapshot, 'add', '-A');
  gitIn(snapshot, 'commit', '-q', '--allow-empty', '--no-verify', '-m', 'working tree snapshot');
  // released as users get it: the tag v<version> on the sources plus the built dist/ (scripts/release.mjs)
  symlinkSync(path.join(REPO, 'node_modules'), path.join(snapshot, 'node_modules'));
  // the repository's own release tag (once a release is made) is not this snapshot's: release it anew
  spawnSync('git', ['tag', '-d', `v${JSON.parse(readFileSync(path.join(snapshot, 'package.json'), 'utf8')).version}`], { cwd: snapshot, stdio: 'ignore' });
  const rel = spawnSync(process.execPath, ['scripts/release.mjs'], { cwd: snapshot, encoding: 'utf8', env, timeout: HOOK_TIMEOUT_MS });
  if (rel.status !== 0) throw new Error(`release: ${rel.stderr}`);
  rmSync(path.join(snapshot, 'node_modules'));
  snapshotRev = `v${JSON.parse(readFileSync(path.join(snapshot, 'package.json'), 'utf8')).version}`;
}

/** Stage a change with `stage`, run `act` (the hook), always go back to the last commit. */
function withStaged<T>(stage: () => void, act: () => T): T {
  try {
    stage();
    return act();
  } finally {
    git('reset', '-q', '--hard', 'HEAD');
    git('clean', '-qfd');
  }
}

/** `git commit` with the installed pre-commit hook, as a user commits. */
function commit(message: string): { code: number; out: string; committed: boolean } {
  const before = git('rev-parse', 'HEAD').trim();
  const r = spawnSync('git', ['-c', 'commit.gpgsign=false', 'commit', '-m', message], { cwd: user, encoding: 'utf8', env, timeout: HOOK_TIMEOUT_MS });
  const after = git('rev-parse', 'HEAD').trim();
  let out = `${r.stdout}\n${r.stderr}`;
  if (/An unexpected error has occurred/.test(out)) {
    try { out += `\n--- pre-commit.log ---\n${readFileSync(path.join(home, 'pre-commit.log'), 'utf8').slice(-4000)}`; } catch { /* no log */ }
  }
  return { code: r.status ?? -1, out, committed: before !== after };
}

const TASK = `{
  "type": "KAlgebra",
  "instruction": "Compute 0.1 + 0.2 in KAlgebra.",
  "evaluate": [
    {"type": "val", "key": "result", "value": 0.3}
  ]
}
`;
const MIXIN_OK = `import math


class KAlgebraMixin:
    def _eval_val(self, eval_item, current_states):
        return math.isclose(float(current_states["result"]), eval_item["value"], abs_tol=1e-9)
`;

describe('the hook entry on the names pre-commit passes (no pre-commit needed)', () => {
  it('a changed verifier module alone re-checks the task files routed to it', () => {
    const proj = path.join(base, 'entry-only');
    mkdirSync(path.join(proj, 'tasks', 'KAlgebra'), { recursive: true });
    mkdirSync(path.join(proj, 'verifier', 'kalgebra'), { recursive: true });
    writeFileSync(path.join(proj, 'vaudit.config.json'), '{ "rules": { "float-equality": "error" } }\n');
    writeFileSync(path.join(proj, 'tasks', 'KAlgebra', 'val.json'), TASK);
    writeFileSync(path.join(proj, 'verifier', 'kalgebra', 'mixin.py'), MIXIN_OK.replace(/return math\.isclose\(.*\)/, 'return float(current_states["result"]) == eval_item["value"]'));
    const r = spawnSync(process.execPath, [path.join(REPO, 'bin', 'vaudit.js'), 'check', '--force-exclude', 'verifier/kalgebra/mixin.py', '-f', 'json'], { cwd: proj, encoding: 'utf8', env });
    expect(r.status, r.stderr).toBe(1);
    const doc = JSON.parse(r.stdout);
    expect(doc.summary.tasks).toBe(1);
    expect(doc.findings.map((f: { file: string; ruleId: string }) => `${f.file} ${f.ruleId}`)).toEqual(['tasks/KAlgebra/val.json float-equality']);
    writeFileSync(path.join(proj, 'verifier', 'kalgebra', 'mixin.py'), MIXIN_OK);
    const ok = spawnSync(process.execPath, [path.join(REPO, 'bin', 'vaudit.js'), 'check', '--force-exclude', 'verifier/kalgebra/mixin.py', '-f', 'json'], { cwd: proj, encoding: 'utf8', env });
    expect(ok.status, ok.stdout).toBe(0);
  });
});

describe.skipIf(!available)('pre-commit hook (real pre-commit, try-repo)', () => {
  beforeAll(() => {
    makeSnapshot();
    mkdirSync(user);
    git('init', '-q', '-b', 'main');
    write('vaudit.config.json', '{ "rules": { "float-equality": "error" }, "exclude": ["legacy/**"] }\n');
    write('tasks/KAlgebra/val.json', TASK);
    write('verifier/kalgebra/mixin.py', MIXIN_OK);
    write('README.md', '# suite\n');
    // how users adopt the hook: .pre-commit-config.yaml + `pre-commit install`
    write('.pre-commit-config.yaml', `repos:\n  - repo: ${snapshot}\n    rev: ${snapshotRev}\n    hooks:\n      - id: vaudit\n`);
    git('add', '-A');
    git('commit', '-qm', 'clean suite');
    const inst = spawnSync(PRE_COMMIT, ['install'], { cwd: user, encoding: 'utf8', env });
    expect(inst.status, inst.stderr).toBe(0);
  }, HOOK_TIMEOUT_MS);

  it('try-repo: a staged defect fails and names the finding', () => {
    const r = withStaged(() => {
      write('tasks/KAlgebra/pred.json', TASK.replace('"value": 0.3}', '"value": 0.3, "pred": "lambda key, value: abs(key - value < 0.001"}'));
      git('add', '-A');
    }, tryRepo);
    expect(r.code, r.out.slice(-6000)).toBe(1);
    expect(r.out).toMatch(/vaudit \(verifier audit\)\.+Failed/);
    expect(r.out).toContain('tasks/KAlgebra/pred.json');
    expect(r.out).toContain('lambda-syntax');
  }, 300_000);

  it('git commit: a clean change is committed (the hook environment installs once)', () => {
    write('verifier/kalgebra/mixin.py', MIXIN_OK + '\n\ndef helper(x):\n    return x\n');
    git('add', '-A');
    const r = commit('helper');
    expect(r.code, r.out.slice(-6000)).toBe(0);
    expect(r.committed).toBe(true);
    expect(r.out).toMatch(/vaudit \(verifier audit\)\.+Passed/);
  }, 300_000);

  it('git commit: a staged defect blocks the commit', () => {
    const r = withStaged(() => {
      write('tasks/KAlgebra/pred.json', TASK.replace('"value": 0.3}', '"value": 0.3, "pred": "lambda key, value: abs(key - value < 0.001"}'));
      git('add', '-A');
    }, () => commit('defect'));
    expect(r.code, r.out.slice(-6000)).toBe(1);
    expect(r.committed).toBe(false);
    expect(r.out).toContain('lambda-syntax');
  }, 300_000);

  it('git commit: a changed verifier module re-checks the task files routed to it', () => {
    const r = withStaged(() => {
      write('verifier/kalgebra/mixin.py', MIXIN_OK.replace(/return math\.isclose\(.*\)/, 'return float(current_states["result"]) == eval_item["value"]'));
      git('add', 'verifier/kalgebra/mixin.py'); // only the module is staged and passed to the hook
    }, () => commit('exact compare'));
    expect(r.code, r.out.slice(-6000)).toBe(1);
    expect(r.committed).toBe(false);
    expect(r.out).toContain('tasks/KAlgebra/val.json');
    expect(r.out).toContain('float-equality');
  }, 300_000);

  it('git commit: config excludes hold for the names pre-commit passes; non-code files skip the hook', () => {
    write('legacy/old.py', 'def f(:\n');
    git('add', '-A');
    const r = commit('legacy');
    expect(r.code, r.out.slice(-6000)).toBe(0);
    expect(r.out).toMatch(/vaudit \(verifier audit\)\.+Passed/);
    write('notes.md', 'only text\n');
    git('add', '-A');
    const s = commit('notes');
    expect(s.code, s.out.slice(-6000)).toBe(0);
    expect(s.out).toMatch(/vaudit \(verifier audit\)\.+\(no files to check\)Skipped/);
  }, 300_000);
});
