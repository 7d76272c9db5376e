// Shared by the benches: option parsing and timing a whole process under /usr/bin/time.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';

/** `--name value` from argv, else the default. */
export function option(args, name, dflt) {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : dflt;
}

/** The before/after benches' arguments: `<checkoutA> <checkoutB> [--corpus NAME] [--runs N]` (a real
 *  corpus in ../shared/corpora); prints `usage` and exits when a checkout is missing. */
export function abArgs(args, usage, defaultRuns) {
  const [a, b] = args.filter((x, i) => !x.startsWith('--') && !args[i - 1]?.startsWith('--')).map((p) => path.resolve(p));
  if (!a || !b) {
    console.error(usage);
    process.exit(2);
  }
  const corpus = option(args, '--corpus', 'scienceboard');
  const dir = path.resolve(import.meta.dirname, '../../shared/corpora', corpus);
  return { a, b, corpus, dir, runs: Number(option(args, '--runs', defaultRuns)) };
}

export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Run argv `runs` times under /usr/bin/time (calling `before()` ahead of each run, untimed): median wall ms,
 *  median CPU (user + system) ms, peak RSS MB, last stdout. */
export function timeProcess(argv, { cwd, runs = 1, env = {}, before }) {
  const wall = [];
  const cpu = [];
  let rss = 0;
  let stdout = '';
  for (let i = 0; i < runs; i++) {
    before?.();
    const t = performance.now();
    const r = spawnSync('/usr/bin/time', ['-f', 'TIME %U %S %M', ...argv], {
      cwd, encoding: 'utf8', maxBuffer: 1 << 28, timeout: 1_800_000, killSignal: 'SIGKILL', env: { ...process.env, NO_COLOR: '1', ...env },
    });
    wall.push(performance.now() - t);
    const m = /TIME (\S+) (\S+) (\d+)\s*$/.exec(r.stderr ?? '');
    if (m) {
      cpu.push((Number(m[1]) + Number(m[2])) * 1000);
      rss = Math.max(rss, Number(m[3]) / 1024);
    }
    stdout = r.stdout;
  }
  return { ms: median(wall), cpuMs: cpu.length ? median(cpu) : NaN, rssMb: rss, stdout };
}

/** Time several commands `runs` times each, alternated (A, B, C, A, B, C, …: a machine that slows down
 *  mid-run moves all of them alike), medians as `timeProcess` gives them, in the order given. */
export function timeAlternated(argvs, { cwd, runs = 1 }) {
  const each = argvs.map(() => []);
  for (let i = 0; i < runs; i++) argvs.forEach((argv, k) => each[k].push(timeProcess(argv, { cwd })));
  return each.map((rs) => ({
    ms: median(rs.map((r) => r.ms)),
    cpuMs: median(rs.map((r) => r.cpuMs)),
    rssMb: Math.max(...rs.map((r) => r.rssMb)),
    stdout: rs[rs.length - 1].stdout,
  }));
}

/** Files under the folders whose names end with one of `suffixes`, in walk order (node_modules and
 *  folders whose name starts with a dot skipped): what the peers and the parse floor read. */
export function filesUnder(dirs, suffixes) {
  const out = [];
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) { if (e.name !== 'node_modules' && !e.name.startsWith('.')) walk(p); }
      else if (suffixes.some((x) => e.name.endsWith(x))) out.push(p);
    }
  };
  for (const d of dirs) walk(path.resolve(d));
  return out;
}
