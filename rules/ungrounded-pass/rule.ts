/**
 * ungrounded-pass — a check that declares required tools can return `pass` on a path with no completed
 * tool run (seed 000: EXTERNAL_VERDICT_UNGROUNDED, ungroundedPassChecks).
 */
import { defineRule } from '../../src/contract/rule.js';

type Msg = 'ungrounded';

export default defineRule<Msg>({
  meta: {
    id: 'ungrounded-pass',
    description: 'A check with required tools returns `pass` on a path where no tool run has completed.',
    defaultSeverity: 'error',
    layers: ['bundle'],
    languages: ['typescript', 'javascript'],
    messages: {
      ungrounded: {
        what: 'Check `{{check}}` declares required tools ({{tools}}) but can return `pass` here without a completed run: {{detail}}.',
        why: 'A pass no tool produced is an ungrounded verdict (EXTERNAL_VERDICT_UNGROUNDED): the benchmark credits a submission the tool never judged.',
        fix: 'Derive the pass from an awaited run\'s exit code on this path, or return a non-result / `fail` when there is nothing to run.',
      },
    },
    docs: {
      whatItDoes:
        'Walks each evaluate path-by-path (branches, loops that may run zero times, catch blocks, early returns) and flags a `return { verdict: \'pass\' }` (or a verdict that may be `pass`) reached before any awaited `runtime.tools.run(...)` — directly or through a helper — has completed, in a check that declares `requiredTools`.',
      why: 'Declaring a tool and never running it on the path that passes is naming, not grounding. Recorded campaigns show tens of thousands of such checks: the check looks external, the pass is the author\'s.',
      references: ['seed 000: EXTERNAL_VERDICT_UNGROUNDED, generated-external-grounding-unexecuted', 'docs/bundles.md'],
    },
    confirm: {
      oracle: 'ungrounded-pass',
      description: 'Runs evaluate in a Node child with a recording runtime port on declared or generated cases; confirmed when it returns `pass` with no completed run recorded.',
    },
  },
  create(ctx) {
    return {
      bundle: {
        check(check) {
          for (const ret of check.verdictReturns) {
            if (!ret.ungrounded) continue;
            ctx.report({
              messageId: 'ungrounded',
              data: { check: check.id ?? '?', tools: check.requiredTools.join(', '), detail: ret.ungrounded.detail },
              at: { start: ret.start, end: ret.end },
              control: { oracle: 'ungrounded-pass', file: ctx.unit.file.path, checkId: check.id ?? '', checkIndex: check.index, reason: ret.ungrounded.reason, at: { start: ret.start, end: ret.end } },
            });
          }
        },
      },
    };
  },
});
