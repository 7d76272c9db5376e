/**
 * Oracle `stream-blind`: success is decided by searching one output stream while the tool may
 * report on the other. A stub tool prints the failure marker on the OTHER stream; if the check
 * still passes, it is blind to it.
 *
 * finding.control: { oracle: 'stream-blind', ...common Python fields (see common.ts),
 *   tool?: string          command name the verifier runs (default: literals starting a list argument),
 *   needle: string         the marker the check searches for (e.g. 'sorry', 'error'),
 *   stream?: 'stdout'|'stderr'   the stream the check searches (default 'stdout'),
 *   exitCode?: number      the stub's exit status (default 0) }
 * Cases: a baseline with the needle on the searched stream (must fail the check) and the witness
 * with the needle on the other stream.
 * confirmed: baseline fails and the witness passes · refuted: both fail · unreached: the baseline
 * already passes (the needle on its own stream is not what decides) or the line never ran.
 */
import type { Confirmation } from '../../src/core/types.js';
import { callCase, defaultWitnesses, executedLine, firstNonResult, num, pythonTarget, show, str, truthy, type Oracle } from '../../src/confirm/oracle-kit.js';
import { stubTargets } from '../../src/confirm/stubs.js';

function stub(text: string, stream: 'stdout' | 'stderr', code: number): string {
  const q = `'${text.replace(/'/g, `'\\''`)}'`;
  return `#!/bin/sh\nprintf '%s\\n' ${q}${stream === 'stderr' ? ' >&2' : ''}\nexit ${code}\n`;
}

const oracle: Oracle = {
  id: 'stream-blind',
  async plan(ctx) {
    const t = await pythonTarget(ctx);
    if (!('slice' in t)) return t;
    const needle = str(ctx.control.needle);
    if (!needle) return { status: 'unsupported', detail: 'vaudit found no marker string the check searches the output for; the finding stands as a static one' };
    const searched = ctx.control.stream === 'stderr' ? 'stderr' : 'stdout';
    const other = searched === 'stdout' ? 'stderr' : 'stdout';
    const code = num(ctx.control.exitCode) ?? 0;
    const { tools, wrapperStubs } = stubTargets(t, ctx.control);
    if (!tools.length) return { status: 'unsupported', detail: 'vaudit found no command the function runs that a control case can stub; the finding stands as a static one' };
    const message = `warning: ${needle}`;
    const w0 = defaultWitnesses(t, ctx)[0] ?? { args: [] };
    const on = (s: 'stdout' | 'stderr') => ({ ...wrapperStubs, ...Object.fromEntries(tools.map((n) => [n, stub(message, s, code)])) });
    const cases = [
      callCase(t, 'baseline', { ...w0, stubTools: on(searched) }, ctx),
      callCase(t, 'other', { ...w0, stubTools: on(other) }, ctx),
    ];
    const label = `${tools.join('/')} prints ${show(message)} on ${other} and exits ${code}`;
    return {
      cases,
      judge(results): Confirmation {
        const rb = results.get('baseline');
        const ro = results.get('other');
        const nr = firstNonResult([rb, ro]);
        if (nr) return nr;
        const expected = `the check fails when the tool reports ${show(needle)} on either stream`;
        const pass = (r: typeof rb) => r!.status === 'returned' && truthy(r!.value);
        if (!executedLine(ro, t.file, t.line) || !(ro!.stubCalls?.length ?? 0))
          return { status: 'unreached', detail: `the witness did not run the stubbed tool and reach line ${t.line}${ro!.status === 'raised' ? ` (raised ${ro!.exception?.type})` : ''}`, runId: ro!.runId };
        if (pass(rb)) return { status: 'unreached', detail: `with ${show(needle)} on ${searched} the check still passed: the witness does not exercise the search`, runId: rb!.runId };
        if (pass(ro)) return { status: 'confirmed', witness: label, expected, observed: `the check passed (returned ${show(ro!.value)})`, runId: ro!.runId };
        return { status: 'refuted', witness: label, expected, observed: ro!.status === 'returned' ? `returned ${show(ro!.value)}` : `raised ${ro!.exception?.type}`, runId: ro!.runId };
      },
    };
  },
};
export default oracle;
