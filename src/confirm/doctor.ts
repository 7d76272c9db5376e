/**
 * `vaudit doctor`: what this machine can confirm — the isolation level control cases would get
 * (and why not a stronger one), the Python interpreter they run with (version, resolved path,
 * sha256), the helpers the host uses (bubblewrap, prlimit) with their sha256. The interpreter is
 * the one `vaudit check --confirm` would use from the same folder: `--python`, else `confirm.python`
 * of the config that applies there (relative to the config's folder), else `python3` from
 * `.toolchain/bin`, then PATH; the report says which. It is asked for its version through the host,
 * like any control case, and for the third-party modules vaudit has functional doubles of.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { harnessDir } from './harness.js';
import { createHost, type IsolationPolicy } from '../host/host.js';

/** Libraries vaudit ships functional doubles of (src/confirm/harness/vaudit_doubles/<name>.py). */
function functionalDoubles(): string[] {
  return readdirSync(join(harnessDir(), 'vaudit_doubles'))
    .filter((f) => /^[a-z_][a-z0-9_]*\.py$/.test(f))
    .map((f) => f.slice(0, -3))
    .sort();
}

export interface DoctorReport {
  policy: IsolationPolicy;
  isolation: { level: string } | { sandbox: string; hint: string };
  python: {
    requested: string;
    /** Where the interpreter was chosen: `--python`, a config's `confirm.python`, or the default lookup. */
    chosenBy: 'option' | 'config' | 'default';
    /** The config file whose `confirm.python` chose it. */
    config?: string;
    resolvedPath?: string;
    commandPath?: string;
    sha256?: string;
    source?: string;
    version?: string;
    /** Libraries verifier code often imports that this interpreter lacks: control cases run them through vaudit's functional doubles. */
    doubled?: string[];
    problem?: string;
  };
  helpers: Array<{ id: string; path?: string; sha256?: string }>;
}

export async function doctor(opts: { root: string; isolation?: IsolationPolicy; python?: string; config?: { path?: string; python?: string } }): Promise<DoctorReport> {
  const python = opts.python ?? opts.config?.python;
  const chosenBy = opts.python ? 'option' : opts.config?.python ? 'config' : 'default';
  const host = createHost({ root: opts.root, isolation: opts.isolation ?? 'auto', ...(python ? { tools: { python3: python } } : {}) });
  const requested = python ?? 'python3 (.toolchain/bin, then PATH)';
  const tool = host.resolveTool('python3');
  const report: DoctorReport = {
    policy: opts.isolation ?? 'auto',
    isolation: host.level(),
    python: { requested, chosenBy, ...(chosenBy === 'config' && opts.config?.path ? { config: opts.config.path } : {}) },
    helpers: host.helperInventory(),
  };
  if (!tool) {
    report.python.problem = python ? `${python} is not an executable Python interpreter` : 'no python3 under .toolchain/bin or on PATH';
    return report;
  }
  Object.assign(report.python, { resolvedPath: tool.resolvedPath, commandPath: tool.commandPath, sha256: tool.sha256, source: tool.source });
  const r = await host.run({
    caseId: 'doctor',
    ruleId: 'doctor',
    toolId: 'python3',
    args: ['-I', '-c', `import importlib.util, sys; print(sys.version.split()[0]); print(" ".join(m for m in ${JSON.stringify(functionalDoubles())} if importlib.util.find_spec(m) is None))`],
    suiteCode: false,
    timeoutMs: 15000,
  });
  if (r.record.outcome === 'executed' && r.record.exitCode === 0) {
    const [version, missing] = r.stdout.toString('utf8').split('\n');
    report.python.version = version!.trim();
    report.python.doubled = (missing ?? '').split(' ').filter(Boolean);
  }
  else report.python.problem = `the interpreter did not answer (${r.record.outcome}${r.record.detail ? `: ${r.record.detail}` : ''})`;
  return report;
}

export function formatDoctor(d: DoctorReport): string {
  const lines: string[] = [];
  const iso = 'level' in d.isolation ? d.isolation.level : `none — ${d.isolation.sandbox} (${d.isolation.hint})`;
  lines.push(`isolation: ${iso} (policy ${d.policy})`);
  const p = d.python;
  const from = p.chosenBy === 'option' ? '--python' : p.chosenBy === 'config' ? `confirm.python in ${p.config ?? 'the config'}` : p.source === 'toolchain' ? '.toolchain/bin' : 'PATH';
  lines.push(`python: ${p.version ? `Python ${p.version}` : 'unavailable'} — ${p.resolvedPath ?? p.requested} (from ${from})`);
  if (p.sha256) lines.push(`  sha256 ${p.sha256}`);
  if (p.doubled?.length) lines.push(`  not installed: ${p.doubled.join(', ')} — control cases run verifier code that uses them through vaudit's functional doubles`);
  if (p.problem) lines.push(`  problem: ${p.problem}`);
  for (const h of d.helpers) lines.push(`${h.id}: ${h.path ? `${h.path}\n  sha256 ${h.sha256 ?? 'unreadable'}` : 'not installed'}`);
  const can = 'level' in d.isolation && p.version;
  lines.push(can ? `control cases can run here (${iso}, Python ${p.version}).` : 'control cases cannot run here: see above.');
  return lines.join('\n') + '\n';
}
