/**
 * `vaudit doctor`: what this machine can confirm — the isolation level control cases would get
 * (and why not a stronger one), the Python interpreter they run with (version, resolved path,
 * sha256), the helpers the host uses (bubblewrap, prlimit) with their sha256. The interpreter is
 * asked for its version through the host, like any control case.
 */
import { createHost, type IsolationPolicy } from './host.js';

export interface DoctorReport {
  policy: IsolationPolicy;
  isolation: { level: string } | { sandbox: string; hint: string };
  python: { requested: string; resolvedPath?: string; commandPath?: string; sha256?: string; source?: string; version?: string; problem?: string };
  helpers: Array<{ id: string; path?: string; sha256?: string }>;
}

export async function doctor(opts: { root: string; isolation?: IsolationPolicy; python?: string }): Promise<DoctorReport> {
  const host = createHost({ root: opts.root, isolation: opts.isolation ?? 'auto', ...(opts.python ? { tools: { python3: opts.python } } : {}) });
  const requested = opts.python ?? 'python3 (.toolchain/bin, then PATH)';
  const tool = host.resolveTool('python3');
  const report: DoctorReport = { policy: opts.isolation ?? 'auto', isolation: host.level(), python: { requested }, helpers: host.helperInventory() };
  if (!tool) {
    report.python.problem = opts.python ? `${opts.python} is not an executable Python interpreter` : 'no python3 under .toolchain/bin or on PATH';
    return report;
  }
  Object.assign(report.python, { resolvedPath: tool.resolvedPath, commandPath: tool.commandPath, sha256: tool.sha256, source: tool.source });
  const r = await host.run({
    caseId: 'doctor',
    ruleId: 'doctor',
    toolId: 'python3',
    args: ['-I', '-c', 'import sys; print(sys.version.split()[0])'],
    suiteCode: false,
    timeoutMs: 15000,
  });
  if (r.record.outcome === 'executed' && r.record.exitCode === 0) report.python.version = r.stdout.toString('utf8').trim();
  else report.python.problem = `the interpreter did not answer (${r.record.outcome}${r.record.detail ? `: ${r.record.detail}` : ''})`;
  return report;
}

export function formatDoctor(d: DoctorReport): string {
  const lines: string[] = [];
  const iso = 'level' in d.isolation ? d.isolation.level : `none — ${d.isolation.sandbox} (${d.isolation.hint})`;
  lines.push(`isolation: ${iso} (policy ${d.policy})`);
  const p = d.python;
  lines.push(`python: ${p.version ? `Python ${p.version}` : 'unavailable'} — ${p.resolvedPath ?? p.requested}${p.source ? ` (from ${p.source === 'option' ? '--python / confirm.python' : p.source})` : ''}`);
  if (p.sha256) lines.push(`  sha256 ${p.sha256}`);
  if (p.problem) lines.push(`  problem: ${p.problem}`);
  for (const h of d.helpers) lines.push(`${h.id}: ${h.path ? `${h.path}\n  sha256 ${h.sha256 ?? 'unreadable'}` : 'not installed'}`);
  const can = 'level' in d.isolation && p.version;
  lines.push(can ? `control cases can run here (${iso}, Python ${p.version}).` : 'control cases cannot run here: see above.');
  return lines.join('\n') + '\n';
}
