/**
 * unawaited-tool-run — a `runtime.tools.run(...)` whose promise is not awaited before evaluate returns
 * (seed 000: "a run still in flight when evaluate returns" is EXTERNAL_RESULT_UNBOUND).
 */
import { defineRule } from '../../src/contract/rule.js';

type Msg = 'unawaited';

export default defineRule<Msg>({
  meta: {
    id: 'unawaited-tool-run',
    description: 'A tool run whose promise evaluate does not await: the verdict is returned while the run is still in flight.',
    defaultSeverity: 'error',
    layers: ['bundle'],
    languages: ['typescript', 'javascript'],
    messages: {
      unawaited: {
        what: 'The `{{tool}}` run in check `{{check}}` is not awaited before evaluate returns: {{reason}}.',
        why: 'The verdict is decided while the run is still in flight, so it cannot reflect the tool\'s answer and the host finds the run unbound.',
        fix: 'Await the run (`await Promise.all(...)` for several, a `for…of` loop instead of `forEach`) and decide from its result.',
      },
    },
    docs: {
      whatItDoes:
        'Follows the promise of each `runtime.tools.run(...)` — through variables, `Promise.all`, `.then`, helper functions and array callbacks — and flags runs whose promise is dropped, stored and never awaited, or created in an async callback that `forEach`/`filter`/`some` never waits for.',
      why: 'A run still pending when evaluate returns did not decide the verdict: the check passes (or fails) on whatever it computed before the tool answered, and the host records the run as unbound to any verdict.',
      references: ['seed 000: Naming a tool is not grounding (EXTERNAL_RESULT_UNBOUND)', 'docs/bundles.md'],
    },
    confirm: {
      oracle: 'unawaited-tool-run',
      description: 'Runs evaluate in a Node child with a recording runtime port whose runs resolve late; confirmed when a run is still pending when evaluate\'s promise settles.',
    },
  },
  create(ctx) {
    const seen = new Set<string>();
    return {
      bundle: {
        check(check) {
          for (const run of check.toolRuns) {
            if (run.settlement !== 'unawaited') continue;
            const key = `${run.start}:${run.end}`;
            if (seen.has(key)) continue;
            seen.add(key);
            ctx.report({
              messageId: 'unawaited',
              data: { tool: run.toolId?.value ?? run.toolId?.text ?? '?', check: check.id ?? '?', reason: run.settlementReason ?? 'nothing awaits its promise' },
              at: { start: run.start, end: run.end },
              control: { oracle: 'unawaited-tool-run', file: ctx.unit.file.path, checkId: check.id ?? '', checkIndex: run.checkIndex, run: { start: run.start, end: run.end } },
            });
          }
        },
      },
    };
  },
});
