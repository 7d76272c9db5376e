/**
 * Oracle `missing-timeout`: the call as written runs against a stub tool that stalls (a PATH
 * stub that sleeps, or a local state endpoint that accepts and never answers). A call without a
 * timeout does not return before the host's bound.
 *
 * finding.control: { oracle: 'missing-timeout', ...common Python fields (see common.ts),
 *   tool?: string             command name the call runs (e.g. 'pdflatex', 'lake'); default: the
 *                             string literals that start a list argument in the function,
 *   port?: number             for HTTP/socket calls: the local port of the endpoint the code calls
 *                             (default: parsed from an http://localhost:PORT literal in the function),
 *   ownTimeoutSeconds?: number   a timeout the call may carry (the bound is raised above it, ≤ 10 s),
 *   callKind?: string         'interactive': the stub prompts and waits on stdin instead of stalling
 *                             outright (a call with stdin=DEVNULL or input= gets EOF and returns) }
 * confirmed: the flagged line ran and the function had not returned at the bound ·
 * refuted: it returned or raised before the bound (e.g. its own TimeoutExpired) ·
 * unreached: the flagged line never ran.
 */
import type { Confirmation } from '../../engine/types.js';
import { readFileSync } from 'node:fs';
import { callCase, defaultWitnesses, executedLine, firstNonResult, num, pythonTarget, show, str, type Oracle } from './common.js';

export const STALL = '#!/bin/sh\nexec sleep 3600\n';
/** An interactive tool: waits for an answer on its stdin (the harness's stdin never answers;
 *  `stdin=DEVNULL` or `input=` gives EOF and the stub exits with an error, as pdflatex would). */
export const PROMPT = '#!/bin/sh\necho "! Emergency stop? Enter file name:"\nIFS= read -r answer || exit 1\nexec sleep 3600\n';

export function functionText(file: string, startLine: number, endLine: number): string {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(startLine - 1, endLine).join('\n');
  } catch {
    return '';
  }
}

export function toolNames(code: string): string[] {
  const out: string[] = [];
  // `["tool", …]` list displays only (not subscripts like `item["path"]`)
  const re = /(?<![\w\])\]])\[\s*[rbuf]?(['"])([A-Za-z0-9_.+-]+)\1/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(code))) if (!out.includes(m[2]!) && out.length < 6) out.push(m[2]!);
  return out;
}

export function localPort(code: string): number | undefined {
  const m = /https?:\/\/(?:localhost|127\.0\.0\.1)(?::(\d+))?/.exec(code);
  return m ? Number(m[1] ?? 80) : undefined;
}

const oracle: Oracle = {
  id: 'missing-timeout',
  async plan(ctx) {
    const t = await pythonTarget(ctx);
    if (!('slice' in t)) return t;
    const code = functionText(t.file, t.slice.info.startLine, t.slice.info.endLine);
    const tools = str(ctx.control.tool) ? [str(ctx.control.tool)!] : toolNames(code);
    const port = num(ctx.control.port) ?? localPort(code);
    const own = num(ctx.control.ownTimeoutSeconds);
    const bound = own !== undefined ? Math.min(10_000, own * 1000 + 1000) : ctx.timeoutMs;
    const interactive = ctx.control.callKind === 'interactive';
    const stubTools = Object.fromEntries(tools.map((n) => [n, interactive ? PROMPT : STALL]));
    const ws = defaultWitnesses(t, ctx).slice(0, 4);
    const cases = ws.map((w, i) =>
      callCase(t, `w${i}`, { ...w, stubTools: { ...stubTools, ...(w.stubTools ?? {}) }, servers: w.servers ?? (port ? [{ port, stall: true }] : undefined) }, ctx, { timeoutMs: bound }),
    );
    const stalls = [...tools.map((n) => (interactive ? `a stub '${n}' that prompts on stdin` : `a stub '${n}' that never exits`)), ...(port ? [`an endpoint on 127.0.0.1:${port} that never answers`] : [])].join(' and ') || 'stalling stubs';
    return {
      cases,
      judge(results): Confirmation {
        const expected = `the call gives up within its own bound (< ${bound} ms)`;
        let refuted: Confirmation | undefined;
        for (let i = 0; i < cases.length; i++) {
          const r = results.get(cases[i]!.id);
          if (!r || !executedLine(r, t.file, t.line)) continue;
          if (r.status === 'deadline')
            return { status: 'confirmed', witness: `${ws[i]!.label} against ${stalls}`, expected, observed: `still waiting at the ${bound} ms bound`, runId: r.runId };
          if (r.status === 'returned' || r.status === 'raised')
            refuted ??= {
              status: 'refuted',
              witness: `${ws[i]!.label} against ${stalls}`,
              expected,
              observed: `${r.status === 'returned' ? `returned ${show(r.value)}` : `raised ${r.exception?.type}`} after ${Math.round(r.ms ?? 0)} ms`,
              runId: r.runId,
            };
        }
        const nr = firstNonResult(cases.map((c) => results.get(c.id)), { deadlineIsTimeout: false });
        if (nr) return nr;
        return refuted ?? { status: 'unreached', detail: `no witness reached line ${t.line}` };
      },
    };
  },
};
export default oracle;
