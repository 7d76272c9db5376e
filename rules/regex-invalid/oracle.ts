/**
 * Oracle `regex-invalid`: Python's own `re.compile` decides (the dialect of Python verifiers).
 *
 * finding.control: { oracle: 'regex-invalid', pattern?: string (decoded), flags?: number (re flags) };
 *   without `pattern`, the regex string the finding points into is taken from the project's suites.
 * confirmed: re.compile raises re.error · refuted: it compiles.
 */
import type { Confirmation } from '../../src/core/types.js';
import { embeddedAt, firstNonResult, num, show, str, type Oracle } from '../../src/confirm/oracle-kit.js';

const oracle: Oracle = {
  id: 'regex-invalid',
  async plan(ctx) {
    const pattern = str(ctx.control.pattern) ?? embeddedAt(ctx)?.code;
    if (pattern === undefined) return { status: 'unsupported', detail: 'vaudit found no pattern string at the finding to compile; the finding stands as a static one' };
    const flags = num(ctx.control.flags) ?? 0;
    return {
      cases: [{ id: 're', op: 'regex', pattern, flags }],
      judge(results): Confirmation {
        const r = results.get('re');
        const nr = firstNonResult([r]);
        if (nr) return nr;
        const witness = `re.compile(${show(pattern)}${flags ? `, ${flags}` : ''})`;
        if (r!.status === 'raised')
          return { status: 'confirmed', witness, expected: 'the pattern compiles', observed: `re.error: ${r!.exception!.message}${r!.exception!.pos !== undefined && r!.exception!.pos !== null ? ` at position ${r!.exception!.pos}` : ''}`, runId: r!.runId };
        return { status: 'refuted', witness, expected: 're.error', observed: 'compiled', runId: r!.runId };
      },
    };
  },
};
export default oracle;
