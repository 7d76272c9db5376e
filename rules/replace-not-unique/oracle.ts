/**
 * Oracle `replace-not-unique`: Python's own `str.count` and `str.replace`, run by the host's interpreter on
 * the text the task's `touch` initializer writes, with the entry's `source` and `target` — the expected
 * file as the verifier builds it (`text.replace(source, target)`).
 *
 * finding.control: { oracle: 'replace-not-unique', kind: 'absent' | 'ambiguous' | 'noop', text, source, target }
 * confirmed: absent — `source` occurs 0 times (the expected file is the original); ambiguous — it occurs more
 * than once (every occurrence is replaced); noop — the replacement leaves the text as it was ·
 * refuted: Python's string functions disagree with that (the source occurs once and the text changes).
 */
import type { Confirmation } from '../../src/core/types.js';
import { firstNonResult, outcomeOf, show, str, type Oracle } from '../../src/confirm/oracle-kit.js';

const oracle: Oracle = {
  id: 'replace-not-unique',
  async plan(ctx) {
    const [kind, text, source, target] = [str(ctx.control.kind), str(ctx.control.text), str(ctx.control.source), str(ctx.control.target)];
    if (!kind || text === undefined || source === undefined || target === undefined) return { status: 'unsupported', detail: 'the rule passed no touched text and source to run' };
    return {
      cases: [{ id: 'replace', op: 'lambda', source: 'lambda text, source, target: [text.count(source), text.replace(source, target) == text]', args: [text, source, target], timeoutMs: ctx.timeoutMs }],
      judge(results): Confirmation {
        const r = results.get('replace');
        if (r?.status !== 'returned' || !Array.isArray(r.value)) return firstNonResult([r]) ?? { status: 'unreached', detail: `Python's str.replace did not run (${outcomeOf(r)})`, runId: r?.runId };
        const [count, unchanged] = r.value as [number, boolean];
        const witness = `text.replace(${show(source)}, ${show(target)}) on the ${text.length} characters the touch initializer writes`;
        const expected = 'the source occurs once, and replacing it changes the file';
        const observed = `text.count(source) is ${count}; the replaced text ${unchanged ? 'equals' : 'differs from'} the original`;
        const wrong = kind === 'absent' ? count === 0 : kind === 'ambiguous' ? count > 1 : unchanged;
        return { status: wrong ? 'confirmed' : 'refuted', witness, expected, observed, runId: r.runId };
      },
    };
  },
};
export default oracle;
