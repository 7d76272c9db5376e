/**
 * nonresult-as-verdict — a run's non-result (timeout, crash, verifierUnavailable, sandbox) turned into
 * `pass`/`fail` (seed 000: "Do not turn a non-result into ok: false"; "A non-result is not an answer").
 */
import { defineRule } from '../../src/contract/rule.js';

type Msg = 'nonResult';

export default defineRule<Msg>({
  meta: {
    id: 'nonresult-as-verdict',
    description: 'A verdict is returned on a path a non-result of a tool run (timeout, crash, verifierUnavailable, sandbox) can reach.',
    defaultSeverity: 'error',
    layers: ['bundle'],
    languages: ['typescript', 'javascript'],
    messages: {
      nonResult: {
        what: 'This verdict is returned when run `{{run}}` may be a non-result: {{detail}}.',
        why: 'A timeout, crash, missing tool or sandbox refusal is not an answer; grading it as pass or fail reports an infrastructure failure as submission quality.',
        fix: 'Pass the non-result through first: `if ({{run}}.outcome !== \'executed\') return {{run}};`.',
      },
    },
    docs: {
      whatItDoes:
        'Tracks each bound run result along evaluate\'s paths, evaluating conditions under the assumption that the run is a non-result (no exit code, no output), and flags verdict returns reachable by a non-result — an explicit `if (r.outcome !== \'executed\') return { verdict: \'fail\' }`, or a verdict computed from `exitCode`/`stdout` without first checking `outcome`.',
      why: 'When the tool times out or is missing, the honest answer is "no result". A check that turns it into `fail` blames the submission for the environment; one that turns it into `pass` credits it for nothing. Both make the benchmark lie about what was measured.',
      references: ['seed 000: The cell (outcome table), EXTERNAL_RESULT_UNBOUND', 'docs/bundles.md'],
    },
    confirm: {
      oracle: 'nonresult-as-verdict',
      description: 'Runs evaluate in a Node child with a runtime port that answers every run with a forced `timeout` non-result; confirmed when evaluate still returns a verdict.',
    },
  },
  create(ctx) {
    const seen = new Set<number>();
    return {
      bundle: {
        check(check) {
          for (const ret of check.verdictReturns) {
            const nr = ret.fromNonResult;
            if (!nr || seen.has(ret.start)) continue;
            seen.add(ret.start);
            ctx.report({
              messageId: 'nonResult',
              data: { run: nr.runName, detail: nr.detail },
              at: { start: ret.start, end: ret.end },
              related: [{ file: ctx.unit.file.path, range: ctx.unit.file.source.range(nr.run.start, nr.run.end), message: `The run bound to \`${nr.runName}\`.` }],
              control: { oracle: 'nonresult-as-verdict', file: ctx.unit.file.path, checkId: check.id ?? '', checkIndex: check.index, at: { start: ret.start, end: ret.end }, run: nr.run },
            });
          }
        },
      },
    };
  },
});
