/**
 * Oracle `time-dependent`: the same input graded at two instants. The host clock the code reads
 * (`time.time`, `datetime.now/today/utcnow`, `date.today`, `time.strftime`…) is set by the harness to
 * 2024-01-15 12:00 UTC, then to 2031-07-16 03:00 UTC (another year, month, day, weekday and hour).
 *
 * A lambda in task JSON (positional; its code from the project's suites): called with no arguments, or with
 * each dated input below for its parameters (a dict of the keys it subscripts), at both instants, `datetime` and `time` bound as module names (the verifier's
 * module gives them). A verifier function (finding.control: { oracle: 'time-dependent', ...common Python
 * fields }): called with inputs dated at the first instant — its epoch seconds, its date written as
 * `2024-01-15`, `2024-01-15T12:00:00`, `15/01/2024`, `01/15/2024`, `2024-01`, a log line holding it;
 * a parameter read by key gets a dict with every key it reads set to that value — and the default witnesses.
 * confirmed: one input ran the flagged line at both instants and gave two results ·
 * refuted (lambdas of no parameters only): the lambda returned the same value at both instants · unreached: no input ran the
 * line at both instants, or (functions) none gave two verdicts — an input that does not exercise the date
 * says nothing about the check, so a function is never refuted.
 */
import type { Confirmation } from '../../src/core/types.js';
import type { CaseResult, PyCase } from '../../src/confirm/harness.js';
import { callCase, defaultWitnesses, embeddedAt, executedLine, firstNonResult, lambdaParams, outcomesOf, pythonTarget, show, type Oracle, type OracleContext, type Plan, type Witness } from '../../src/confirm/oracle-kit.js';

/** 2024-01-15 12:00:00 UTC and 2031-07-16 03:00:00 UTC. */
const CLOCKS = [1705320000, 1941937200] as const;
const WHEN = ['2024-01-15 12:00 UTC', '2031-07-16 03:00 UTC'];
/** Inputs dated at the first instant, as an agent's output graded then would hold it. */
const DATED: unknown[] = [CLOCKS[0], '2024-01-15', '2024-01-15T12:00:00', '15/01/2024', '01/15/2024', '2024-01', 'run finished 2024-01-15 12:00:00'];

const same = (a: CaseResult, b: CaseResult) => JSON.stringify(a.value) === JSON.stringify(b.value);

/** Arguments for a lambda's parameters carrying `v`: a parameter the lambda subscripts with string keys
 *  (`dump['mtime']`) gets a dict of those keys set to `v`, any other `v` itself. */
function lambdaArgs(code: string, params: string[], v: unknown): unknown[] {
  return params.map((p) => {
    const keys = [...code.matchAll(new RegExp(String.raw`\b${p}\s*\[\s*(['"])([^'"]+)\1\s*\]`, 'g'))].map((m) => m[2]!);
    return keys.length ? Object.fromEntries(keys.map((k) => [k, v])) : v;
  });
}

function lambdaPlan(ctx: OracleContext, code: string): Plan {
  const params = lambdaParams(code);
  const imports = ['datetime', 'time'].filter((m) => new RegExp(String.raw`(?<![\w.'"])${m}\s*\.`).test(code));
  const argSets = params.length ? DATED.map((v) => lambdaArgs(code, params, v)) : [[]];
  const cases: PyCase[] = argSets.flatMap((args, i) =>
    CLOCKS.map((clock, k) => ({ id: `a${i}t${k}`, op: 'lambda' as const, source: code, args, clock, ...(imports.length ? { imports } : {}), timeoutMs: ctx.timeoutMs })),
  );
  const witness = (i: number) => `${code}${params.length ? ` called with ${show(argSets[i])}` : ''}${imports.length ? ` (${imports.join(' and ')} bound as module name${imports.length > 1 ? 's' : ''})` : ''}, at ${WHEN[0]} and at ${WHEN[1]}`;
  return {
    cases,
    judge(results): Confirmation {
      const expected = 'the same value whenever the task is graded';
      let same0: Confirmation | undefined;
      for (let i = 0; i < argSets.length; i++) {
        const [a, b] = [results.get(`a${i}t0`), results.get(`a${i}t1`)];
        if (a?.status !== 'returned' || b?.status !== 'returned') continue;
        if (!same(a, b)) return { status: 'confirmed', witness: witness(i), expected, observed: `returned ${show(a.value)} at ${WHEN[0]}, ${show(b.value)} at ${WHEN[1]}`, runId: a.runId };
        // a lambda of no parameters has one input: the same value twice refutes; with parameters, an input
        // that does not exercise the date says nothing
        same0 ??= { status: params.length ? 'unreached' : 'refuted', ...(params.length ? { detail: `the lambda returned the same value at both instants on every input that ran (${show(argSets[i])}: ${show(a.value)}); none exercised the date it reads` } : { witness: witness(i), expected, observed: `returned ${show(a.value)} at both instants` }), runId: a.runId };
      }
      const all = cases.map((c) => results.get(c.id));
      const nr = firstNonResult(all);
      if (nr) return nr;
      return same0 ?? { status: 'unreached', detail: `the lambda did not return at both instants (${outcomesOf(all)})`, runId: all[0]?.runId };
    },
  };
}

const oracle: Oracle = {
  id: 'time-dependent',
  async plan(ctx) {
    if (/\.json$/i.test(ctx.finding.file) && !ctx.finding.control) {
      const code = embeddedAt(ctx)?.code;
      if (code === undefined) return { status: 'unsupported', detail: 'vaudit found no lambda string at the finding to run; the finding stands as a static one' };
      return lambdaPlan(ctx, code);
    }
    const t = await pythonTarget(ctx);
    if (!('slice' in t)) return t;
    const reads = t.slice.info.reads;
    const dated: Witness[] = t.params.length
      ? DATED.map((v) => {
          const args = t.params.map((p) => {
            const keys = reads[p]?.keys ?? [];
            return keys.length ? Object.fromEntries(keys.map((k) => [k, v])) : v;
          });
          return { label: t.params.map((p, i) => `${p}=${show(args[i])}`).join(', '), args };
        })
      : [];
    const ws = [...dated, ...defaultWitnesses(t, ctx, 8)];
    const cases = ws.flatMap((w, i) => CLOCKS.map((clock, k) => callCase(t, `w${i}t${k}`, w, ctx, { clock })));
    return {
      cases,
      judge(results): Confirmation {
        const expected = 'the same verdict on the same input whenever the task is graded';
        let ran = 0;
        for (let i = 0; i < ws.length; i++) {
          const [a, b] = [results.get(`w${i}t0`), results.get(`w${i}t1`)];
          if (a?.status !== 'returned' || b?.status !== 'returned' || !executedLine(a, t.file, t.line) || !executedLine(b, t.file, t.line)) continue;
          ran++;
          if (!same(a, b))
            return { status: 'confirmed', witness: `${ws[i]!.label}, graded at ${WHEN[0]} and at ${WHEN[1]}`, expected, observed: `returned ${show(a.value)} at ${WHEN[0]}, ${show(b.value)} at ${WHEN[1]}`, runId: a.runId };
        }
        const all = cases.map((c) => results.get(c.id));
        const nr = firstNonResult(all);
        if (nr) return nr;
        const runId = all.find((r) => r?.runId)?.runId;
        if (ran) return { status: 'unreached', detail: `${ran} input(s) ran line ${t.line} at both instants and each got the same verdict twice; none exercised the date the check compares`, runId };
        return { status: 'unreached', detail: `no input ran line ${t.line} to a verdict at both instants (${outcomesOf(all)})`, runId };
      },
    };
  },
};
export default oracle;
