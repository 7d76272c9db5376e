/**
 * Oracle `lambda-syntax`: Python's own compiler decides. The task's lambda string is compiled in
 * `eval` mode by the host's Python.
 *
 * finding.control: { oracle: 'lambda-syntax', code?: string (the decoded lambda text) }; without
 *   `code`, the lambda string the finding points into is taken from the project's suites.
 * confirmed: compile() raises SyntaxError, or the string parses as an expression that is not a
 * lambda (a tuple, a comparison…: calling what it evaluates to fails) · refuted: it parses as a lambda.
 */
import type { Confirmation } from '../../src/core/types.js';
import { embeddedAt, firstNonResult, show, type Oracle } from '../../src/confirm/oracle-kit.js';

const oracle: Oracle = {
  id: 'lambda-syntax',
  async plan(ctx) {
    const code = embeddedAt(ctx)?.code;
    if (code === undefined) return { status: 'unsupported', detail: 'vaudit found no lambda string at the finding to compile; the finding stands as a static one' };
    return {
      cases: [{ id: 'compile', op: 'compile', source: code, mode: 'eval', filename: '<task-lambda>' }],
      judge(results): Confirmation {
        const r = results.get('compile');
        const nr = firstNonResult([r]);
        if (nr) return nr;
        const witness = `compile(${show(code)}, mode='eval')`;
        if (r!.status === 'raised')
          return { status: 'confirmed', witness, expected: 'the lambda compiles', observed: `${r!.exception!.type}: ${r!.exception!.message}${r!.exception!.offset ? ` (column ${r!.exception!.offset})` : ''}`, runId: r!.runId };
        const node = (r!.value as { node?: string } | undefined)?.node;
        if (node && node !== 'Lambda')
          return { status: 'confirmed', witness, expected: 'a lambda expression', observed: `it parses as a ${node} expression, not a lambda: the verifier cannot call it`, runId: r!.runId };
        return { status: 'refuted', witness, expected: 'a SyntaxError or a non-lambda expression', observed: 'compiled to a lambda', runId: r!.runId };
      },
    };
  },
};
export default oracle;
