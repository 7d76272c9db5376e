/**
 * ans-mismatch — the expected answer of a `stop` entry (`value: "ANS"`,
 * `args`) and the task's top-level `ans` ("ANS <args…>") disagree, or one of
 * them is missing.
 */
import { defineRule } from '../../src/contract/rule.js';
import type { VerifierEntry } from '../../src/suites/types.js';

type Msg = 'mismatch' | 'missingAns' | 'orphanAns' | 'conflict' | 'badAns';

function tokens(args: unknown[]): string[] {
  return args.flatMap((a) => String(a).trim().split(/\s+/)).filter(Boolean);
}

function sameToken(a: string, b: string): boolean {
  if (a === b) return true;
  const x = Number(a);
  const y = Number(b);
  return a.trim() !== '' && b.trim() !== '' && Number.isFinite(x) && Number.isFinite(y) && x === y;
}

function sameTokens(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((t, i) => sameToken(t, b[i]!));
}

export default defineRule<Msg>({
  meta: {
    id: 'ans-mismatch',
    description: 'A stop/ANS entry whose args disagree with the task\'s top-level "ans" (or one of them is missing).',
    defaultSeverity: 'error',
    layers: ['suite'],
    languages: ['json'],
    confirm: {
      oracle: 'ans-mismatch',
      positional: true,
      description:
        'conflict: runs the suite\'s own grader of stop entries (the function that compares an entry\'s `args` with the submitted answer) on the task with each expected answer, after a baseline (the task with only the first ANS entry) that passes its own answer; confirmed when no answer passes. The other findings have no control case: the grader never reads the top-level `ans`, so no run can show them; the two copies are the evidence.',
    },
    messages: {
      mismatch: {
        what: 'The task\'s "ans" ({{ans}}) does not match the stop entry\'s expected answer (ANS {{args}}).',
        why: 'The reference answer and the graded answer disagree, so either the reference solution fails its own task or the check grades a different answer than intended.',
        fix: 'Make "ans" exactly "ANS {{args}}" (or fix the args).',
      },
      missingAns: {
        what: 'This stop entry expects the answer "ANS {{args}}" but the task has no top-level "ans".',
        why: 'Tooling that replays or displays the reference answer has nothing to submit, and the answer is stated in only one place.',
        fix: 'Add "ans": "ANS {{args}}".',
      },
      orphanAns: {
        what: 'The task declares "ans" ({{ans}}) but no stop entry with value "ANS" checks an answer.',
        why: 'The stated answer is never graded, so any answer (or none) passes that part.',
        fix: 'Add {"type": "stop", "value": "ANS", "args": […]} or remove "ans".',
      },
      conflict: {
        what: 'Two stop entries expect different answers (ANS {{args}} vs ANS {{other}}).',
        why: 'No single answer can satisfy both, so the task can never pass.',
        fix: 'Keep one expected answer.',
      },
      badAns: {
        what: 'The task\'s "ans" ({{ans}}) does not start with the ANS primitive while a stop entry grades an ANS answer.',
        why: 'The reference answer is not in the format the verifier parses.',
        fix: 'Write it as "ANS {{args}}".',
      },
    },
    docs: {
      whatItDoes:
        'For each task, compares the expected answer of every `stop` entry with `value: "ANS"` (its `args`, as whitespace-separated tokens; numerically equal tokens such as `0.50` and `0.5` agree) with the top-level `ans` string (`"ANS <args…>"`). Reports a disagreement, an ANS stop entry without `ans`, an `ans` that no stop entry grades, two ANS entries expecting different answers, and an `ans` that is not an ANS primitive.',
      why: 'The answer is stated twice; when the copies drift, the reference answer fails its own task (a correct agent is graded against the other copy), or an answer is declared but never checked, so the task passes for any answer.',
    },
  },
  create() {
    return {
      suite: {
        task(task, ctx) {
          const stops = task.entries.filter((e) => e.kind === 'stop' && e.fields.value?.value === 'ANS');
          const ansRef = task.fields.ans;
          const ans = typeof ansRef?.value === 'string' ? ansRef.value : undefined;
          const argsOf = (e: VerifierEntry): string[] | undefined => (Array.isArray(e.fields.args?.value) ? tokens(e.fields.args!.value as unknown[]) : undefined);
          const withArgs = stops.map((e) => ({ e, args: argsOf(e) })).filter((x): x is { e: VerifierEntry; args: string[] } => !!x.args && x.args.length > 0);
          // conflicting ANS entries
          const first = withArgs[0];
          for (const other of withArgs.slice(1)) {
            if (!sameTokens(first!.args, other.args)) {
              const r = other.e.fields.args!;
              ctx.report({ messageId: 'conflict', data: { args: other.args.join(' '), other: first!.args.join(' ') }, at: { start: r.start, end: r.end }, pointer: other.e.pointer });
            }
          }
          if (!first) {
            if (ans !== undefined && /^\s*ANS\b/.test(ans) && stops.length === 0) {
              ctx.report({ messageId: 'orphanAns', data: { ans: JSON.stringify(ans) }, at: { start: ansRef!.start, end: ansRef!.end }, pointer: '/ans' });
            }
            return;
          }
          const expected = first.args.join(' ');
          if (ansRef === undefined) {
            const r = first.e.ref;
            ctx.report({ messageId: 'missingAns', data: { args: expected }, at: { start: r.start, end: r.end }, pointer: first.e.pointer });
            return;
          }
          if (ans === undefined) return; // wrong type: task-schema reports it
          const m = /^\s*ANS(?:\s+([\s\S]*))?$/.exec(ans);
          if (!m) {
            ctx.report({ messageId: 'badAns', data: { ans: JSON.stringify(ans), args: expected }, at: { start: ansRef.start, end: ansRef.end }, pointer: '/ans' });
            return;
          }
          const ansTokens = (m[1] ?? '').trim().split(/\s+/).filter(Boolean);
          if (!sameTokens(ansTokens, first.args)) {
            const a = first.e.fields.args!;
            ctx.report({
              messageId: 'mismatch',
              data: { ans: JSON.stringify(ans), args: expected },
              at: { start: ansRef.start, end: ansRef.end },
              pointer: '/ans',
              related: [{ file: task.file.path, range: task.file.source.range(a.start, a.end), message: 'The stop entry\'s expected answer.' }],
            });
          }
        },
      },
    };
  },
});
