/**
 * ignored-exit-code — a check returns a verdict without reading the exit code of the run it made
 * (seed 000: "A verdict that contradicts the run it received (an ignored non-zero exit)").
 */
import { defineRule } from '../../src/contract/rule.js';

type Msg = 'discarded' | 'notRead';

export default defineRule<Msg>({
  meta: {
    id: 'ignored-exit-code',
    description: 'A check returns a verdict although it discards the tool run\'s result or never reads its exit code.',
    defaultSeverity: 'error',
    layers: ['bundle'],
    languages: ['typescript', 'javascript'],
    confirm: {
      oracle: 'ignored-exit-code',
      description: 'Runs evaluate with the flagged run answering exit 0, then exit 1 with the same output; confirmed when evaluate passes on both.',
    },
    messages: {
      discarded: {
        what: 'The result of the `{{tool}}` run in check `{{check}}` is discarded, yet the check returns a verdict.',
        why: 'A tool that rejects the artifact (non-zero exit) leads to the same verdict as one that accepts it, so the verdict is not the tool\'s.',
        fix: 'Bind the result, return it when `outcome !== \'executed\'`, and decide from its `exitCode` (and output).',
      },
      notRead: {
        what: 'Check `{{check}}` reads {{reads}} of the `{{tool}}` run `{{name}}` but never its `exitCode`.',
        why: 'A crashing or rejecting tool can still print the expected text, so the verdict can contradict the run it received.',
        fix: 'Decide from `{{name}}.exitCode` as well (after passing a non-result through).',
      },
    },
    docs: {
      whatItDoes:
        'For each awaited `runtime.tools.run(...)` in a check that returns verdicts, looks at how the resolved result is used — bound to a name (followed through aliases and helper parameters), read inline, or dropped — and flags results that are dropped or whose `exitCode` is never read.',
      why: 'The exit code is the tool\'s answer. A check that ignores it passes submissions the tool rejected: the compiler failed, the test runner exited 1, and the benchmark still reports a pass.',
      references: ['seed 000: EXTERNAL_RESULT_UNBOUND (an ignored non-zero exit)', 'docs/bundles.md'],
    },
  },
  create(ctx) {
    const seen = new Set<string>();
    return {
      bundle: {
        check(check) {
          if (check.verdictReturns.length === 0) return;
          for (const run of check.toolRuns) {
            if (run.settlement !== 'awaited' && run.settlement !== 'returned') continue;
            const r = run.result;
            const key = `${run.start}:${run.end}`;
            if (seen.has(key)) continue;
            const data = { tool: run.toolId?.value ?? run.toolId?.text ?? '?', check: check.id ?? '?' };
            const control = { oracle: 'ignored-exit-code', file: ctx.unit.file.path, checkId: check.id ?? '', checkIndex: run.checkIndex, run: { start: run.start, end: run.end } };
            if (r.binding === 'discarded') {
              seen.add(key);
              ctx.report({ messageId: 'discarded', data, at: { start: run.start, end: run.end }, control });
            } else if ((r.binding === 'bound' || r.binding === 'inline') && !r.readsExitCode) {
              seen.add(key);
              const reads = [r.readsOutcome ? '`outcome`' : '', r.readsOutput ? 'the output' : ''].filter(Boolean).join(' and ') || 'nothing';
              ctx.report({ messageId: 'notRead', data: { ...data, reads, name: r.name ?? 'result' }, at: { start: run.start, end: run.end }, control });
            }
          }
        },
      },
    };
  },
});
