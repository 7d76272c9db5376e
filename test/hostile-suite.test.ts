/**
 * The hostile suite (fixtures/hostile-suite, issue 17): task lambdas and verifier methods that try
 * to write outside their case, read secrets and the environment, reach a 127.0.0.1 port, start
 * processes, fork, allocate without bound, print a gigabyte, sleep forever and forge answers. Run
 * through the real CLI under every isolation setting: nothing escapes, nothing is left running, no
 * forged verdict is accepted, and each finding's status and reason are the right ones. Started as
 * root (as `.ci/run` is), every run is made twice: vaudit as root, and vaudit as an unprivileged user
 * (uid 65534, which must be able to read the checkout); started as another user, that user's run is the
 * unprivileged one.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { liveProcesses } from './helpers/processes.js';
import { BIN } from './helpers/run-cli.js';

const FIXTURE = path.resolve(import.meta.dirname, '../fixtures/hostile-suite');
const HAS_BWRAP = existsSync('/usr/bin/bwrap');
const CANARY = `vaudit-canary-${process.pid}-${Date.now()}`;
const IS_ROOT = process.getuid?.() === 0;
const NOBODY = 65534;

/** Who starts vaudit: the test's own user and, when that is root, also nobody. */
interface RunAs { who: string; uid?: number }
const USERS: RunAs[] = IS_ROOT ? [{ who: 'root' }, { who: 'nobody (uid 65534)', uid: NOBODY }] : [{ who: `uid ${process.getuid?.() ?? '?'} (unprivileged)` }];

let dir: string;
let suite: string;
let out: string;
let home: string;
let reports: string;
let noBwrapPath: string;
let server: Server;
let connections = 0;

function filesUnder(root: string): string[] {
  return readdirSync(root, { recursive: true, encoding: 'utf8' });
}

function hostileProcesses(): string[] {
  return liveProcesses()
    .filter((p) => p.cmd.includes('77.7') && !p.cmd.includes('vitest'))
    .map((p) => `${p.pid}: ${p.cmd}`);
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'vaudit-hostile-'));
  suite = path.join(dir, 'suite');
  out = path.join(dir, 'out');
  home = path.join(dir, 'home');
  mkdirSync(out);
  // the reports, written by whichever user runs vaudit
  reports = path.join(dir, 'reports');
  mkdirSync(reports);
  chmodSync(reports, 0o777);
  // As root, control cases run as nobody: a folder nobody may write to, so that under process
  // isolation only the harness's guard stands between a case and it (not file permissions).
  chmodSync(dir, 0o755);
  chmodSync(out, 0o777);
  mkdirSync(path.join(home, '.ssh'), { recursive: true });
  writeFileSync(path.join(home, '.ssh', 'id_rsa'), `-----BEGIN KEY----- ${CANARY} -----END KEY-----\n`);
  server = createServer((s) => {
    connections++;
    s.destroy();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  cpSync(FIXTURE, suite, { recursive: true });
  for (const rel of filesUnder(suite)) {
    const p = path.join(suite, rel);
    if (!/\.(py|json)$/.test(p)) continue;
    writeFileSync(p, readFileSync(p, 'utf8').replaceAll('@OUT@', out).replaceAll('@PORT@', String(port)));
  }
  // "Without bubblewrap": a PATH that has Python but no bwrap.
  noBwrapPath = path.join(dir, 'bin');
  mkdirSync(noBwrapPath);
  symlinkSync('/usr/bin/python3', path.join(noBwrapPath, 'python3'));
});

afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
  rmSync(dir, { recursive: true, force: true });
});

interface Report {
  summary: { isolation?: { policy: string; notRun: number; ran: Record<string, number> } };
  findings: Array<{ ruleId: string; message: string; file: string; confirmation?: { status: string; detail?: string; observed?: string } }>;
  runs: Array<{ isolation: string; policy: string; outcome: string }>;
}

/** vaudit as `user.uid` (unset: the test's own user) can read the checkout, or the reason it cannot. */
function unreadable(user: RunAs): string | undefined {
  if (user.uid === undefined) return undefined;
  const r = spawnSync(process.execPath, ['-e', 'for (const f of process.argv.slice(1)) require("fs").accessSync(f, require("fs").constants.R_OK)', BIN, path.join(path.dirname(BIN), 'bundle.js')], {
    uid: user.uid, gid: user.uid, encoding: 'utf8', timeout: 60_000,
  });
  return r.status === 0 ? undefined : `${user.who} cannot read the checkout (${BIN}): make every folder on its path readable by others (${(r.stderr || String(r.error)).split('\n').find((l) => /Error/.test(l)) ?? ''})`;
}

function check(isolation: string, user: RunAs, pathVar?: string) {
  const reportFile = path.join(reports, `report-${isolation}-${pathVar ? 'nobwrap' : 'path'}-${user.uid ?? 'self'}.json`);
  const r = spawnSync(process.execPath, [BIN, 'check', '.', '--confirm', '--isolation', isolation, '--rule', 'unbound-name,first-match-lambda', '--format', 'json', '-o', reportFile], {
    cwd: suite,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', HOME: home, VAUDIT_HOSTILE_CANARY: CANARY, ...(pathVar ? { PATH: pathVar } : {}) },
    timeout: 280_000,
    // node drops the supplementary groups with the uid and gid
    ...(user.uid !== undefined ? { uid: user.uid, gid: user.uid } : {}),
  });
  if (r.error) throw r.error;
  const text = readFileSync(reportFile, 'utf8');
  // the report's owner is the user vaudit ran as
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, text, report: JSON.parse(text) as Report, owner: statSync(reportFile).uid };
}

/** The verifier method each unbound-name finding sits in, by the name it reads. */
function byAttack(report: Report): Record<string, { status: string; detail?: string; observed?: string }> {
  const m: Record<string, { status: string; detail?: string; observed?: string }> = {};
  for (const f of report.findings) {
    const key = f.ruleId === 'unbound-name' ? /`(\w+)_keys`/.exec(f.message)?.[1] : path.basename(f.file, '.json');
    if (key && f.confirmation) m[key] = f.confirmation;
  }
  return m;
}

function expectNothingEscaped(run: { stdout: string; stderr: string; text: string }) {
  expect(filesUnder(out)).toEqual([]);
  expect(connections).toBe(0);
  expect(hostileProcesses()).toEqual([]);
  for (const s of [run.stdout, run.stderr, run.text]) expect(s).not.toContain(CANARY);
}

const ATTACKS = ['chdired', 'closured', 'connected', 'dirfd', 'flooded', 'forged', 'forked', 'gced', 'hidden', 'hogged', 'ported', 'raced', 'slept', 'spawned', 'stolen', 'written'];
/** Task lambdas with hostile calls: whichever of them a confirmable rule flags. */
const lambdaAttacks = (a: Record<string, { status: string }>) => Object.keys(a).filter((k) => k.startsWith('lambda-'));

for (const user of USERS) describe(`hostile suite, vaudit run as ${user.who}`, () => {
  it('the checkout is readable by the user who runs vaudit', () => {
    expect(unreadable(user)).toBeUndefined();
  });

  it('auto without bubblewrap: runs none of the suite\'s code, says so once with the reason and the hint', () => {
    const run = check('auto', user, noBwrapPath);
    expect(run.owner).toBe(user.uid ?? process.getuid?.());
    expect(run.code).toBe(1);
    expectNothingEscaped(run);
    const attacks = byAttack(run.report);
    expect(Object.keys(attacks).filter((k) => !k.startsWith('lambda-')).sort()).toEqual(ATTACKS);
    expect(lambdaAttacks(attacks).length).toBeGreaterThan(0);
    for (const c of Object.values(attacks)) {
      expect(c.status).toBe('sandbox');
      expect(c.detail).toMatch(/bubblewrap is not installed/);
    }
    expect(run.report.runs.every((r) => r.outcome === 'sandbox' && r.policy === 'auto')).toBe(true);
    expect(run.report.summary.isolation).toMatchObject({ policy: 'auto', ran: {} });
    expect(run.report.summary.isolation!.notRun).toBeGreaterThan(0);
    // The summary (printed when the report goes to a file) says it once, loudly, with the hint.
    expect(run.stdout.match(/control cases not run: bubblewrap is not installed/g)).toHaveLength(1);
    expect(run.stdout).toMatch(/apt-get install bubblewrap/);
    expect(run.stdout).toMatch(/--isolation process/);
  }, 300_000);

  const levels: Array<{ isolation: string; level: string }> = [
    ...(HAS_BWRAP ? [{ isolation: 'auto', level: 'bwrap' }, { isolation: 'bwrap', level: 'bwrap' }] : []),
    { isolation: 'process', level: 'process' },
  ];
  for (const { isolation, level } of levels) {
    it(`${isolation} (${level}): nothing escapes, nothing is left running, no forged verdict, right statuses`, () => {
      const run = check(isolation, user);
      expect(run.owner).toBe(user.uid ?? process.getuid?.());
      expect(run.code).toBe(1);
      expectNothingEscaped(run);
      const attacks = byAttack(run.report);
      // Each escape attempt is refused by the harness's guard: the case is a `sandbox` non-result
      // that names what was refused (nothing it did after that is evidence).
      const reasons: Record<string, RegExp> = {
        written: /writing a file outside the case folder/,
        stolen: /home folder|another process/,
        connected: /outside the case folder|network|name lookup/,
        spawned: /shell command|starting the process|os\.system|os\.posix_spawn|_posixsubprocess/,
        forked: /os\.fork/,
        raced: /writing a file outside the case folder/,
        gced: /gc\.get_objects/,
        hidden: /writing a file outside the case folder/,
      };
      for (const [k, why] of Object.entries(reasons)) {
        expect({ k, ...attacks[k] }).toMatchObject({ k, status: 'sandbox' });
        expect(attacks[k]!.detail).toMatch(why);
      }
      // A hostile lambda either never reached its call on the witness (the defect stands) or was stopped.
      for (const k of lambdaAttacks(attacks)) expect(['confirmed', 'sandbox']).toContain(attacks[k]!.status);
      // Resource attacks stay inside their bounds, and the defect behind them is still shown.
      for (const k of ['hogged', 'flooded', 'slept']) expect({ k, status: attacks[k]?.status }).toEqual({ k, status: 'confirmed' });
      // A relative path after chdir, or through a folder descriptor: under bubblewrap the folder is
      // not there (the sandbox holds, the defect stands); under process isolation the guard refuses.
      const around: Record<string, RegExp> = { chdired: /writing a file outside the case folder/, dirfd: /relative to a folder descriptor/ };
      for (const [k, why] of Object.entries(around)) {
        if (level === 'bwrap') expect(['confirmed', 'sandbox']).toContain(attacks[k]!.status);
        else {
          expect({ k, ...attacks[k] }).toMatchObject({ k, status: 'sandbox' });
          expect(attacks[k]!.detail).toMatch(why);
        }
      }
      // Reaching for the harness's port list or the unwrapped fork_exec finds nothing: the defect stands.
      for (const k of ['ported', 'closured']) expect({ k, status: attacks[k]?.status }).toEqual({ k, status: 'confirmed' });
      // The forger wrote NameError answers for every case id on every descriptor it could reach and
      // rewrote the harness: its own answer is unusable, and no other case took its word.
      expect(attacks.forged!.status).not.toBe('confirmed');
      expect(attacks.forged!.status).not.toBe('refuted');
      expect(run.report.runs.every((r) => r.isolation === level && r.policy === isolation)).toBe(true);
      expect(run.report.summary.isolation).toMatchObject({ policy: isolation, notRun: 0 });
      if (level === 'process') expect(run.stdout).toMatch(/ran the suite's code with process isolation only \(--isolation process\): not a sandbox/);
      else expect(run.stdout).not.toMatch(/process isolation only/);
    }, 300_000);
  }
});
