/**
 * regex-redos — a regular expression with catastrophic backtracking
 * (exponential, or high-degree polynomial) on some input, decided by recheck
 * after translating Python syntax to ECMAScript.
 */
import { defineRule } from '../../src/contract/rule.js';
import { analyseRedos, type RedosResult } from '../../src/suites/regex/redos.js';
import { regexLiteralOf } from '../../src/suites/regex/python-literal.js';

type Msg = 'exponential' | 'polynomial' | 'notAnalysed';
interface Opts {
  polynomialDegree: number;
  timeoutMs: number;
  reportNotAnalysed: boolean;
}

export default defineRule<Msg, Opts>({
  meta: {
    id: 'regex-redos',
    description: 'A regex whose backtracking blows up (exponential or high-degree polynomial) on some input: the verifier hangs.',
    defaultSeverity: 'error',
    layers: ['suite', 'python'],
    unitLocal: true,
    languages: ['json', 'python'],
    messages: {
      exponential: {
        what: 'This regular expression backtracks exponentially (attack input: {{attack}}).',
        why: 'Python\'s re has no time limit, so an output shaped like that hangs the verifier and the task times out or stalls the run.',
        fix: 'Remove the ambiguity (e.g. no nested or overlapping quantifiers such as `(a+)+` or `(a|a)*`).',
      },
      polynomial: {
        what: 'This regular expression backtracks in O(n^{{degree}}) time (attack input: {{attack}}).',
        why: 'On a long output Python\'s re runs for minutes, so the verifier stalls instead of grading.',
        fix: 'Make adjacent quantifiers unambiguous (anchor or separate them with distinct characters).',
      },
      notAnalysed: {
        what: 'This regular expression could not be analysed for catastrophic backtracking because {{reason}}.',
        why: 'It is not known to be safe: if it backtracks catastrophically, an output shaped for it hangs the verifier.',
        fix: 'Review it by hand, or rewrite it without that construct so the analyser can check it.',
      },
    },
    docs: {
      whatItDoes:
        'Parses each regex with Python `re` semantics, translates it to an equivalent ECMAScript pattern (named groups, `(?P=n)`, inline and scoped flags, `\\A`/`\\Z`, Python\'s `$` and Unicode classes), and asks recheck — an automata-based ReDoS checker with a fuzzing fallback — for its worst-case complexity. Reports exponential patterns, and polynomial ones of degree ≥ `polynomialDegree` (default 3). Patterns the analyser cannot read (atomic groups, possessive quantifiers, conditionals) or whose analysis exceeds the per-pattern budget (`timeoutMs`) are reported as not analysed — never as safe. A sound structural screen decides most patterns without recheck: a loop over one character class or over uniquely decodable words cannot backtrack exponentially, and a pattern without a chain of `polynomialDegree` loops that can read a common input cannot reach that degree. recheck loads only when a pattern needs it; its verdicts are cached per pattern and flags for the run, and across runs in the `--cache` folder.',
      why: "Python's `re` backtracks without a time limit. A verifier that matches agent output against an exponential pattern hangs on a crafted or merely unlucky output: the run stalls or is killed, and the task is scored as an infrastructure failure or a fail instead of graded.",
    },
    optionsSchema: {
      type: 'object',
      properties: {
        polynomialDegree: { type: 'integer', minimum: 2, description: 'Report polynomial backtracking of at least this degree.' },
        timeoutMs: { type: 'integer', minimum: 100, description: 'Analysis time budget per pattern in ms.' },
        reportNotAnalysed: { type: 'boolean', description: 'Report patterns the analyser could not check.' },
      },
      additionalProperties: false,
    },
    defaultOptions: { polynomialDegree: 3, timeoutMs: 3000, reportNotAnalysed: true },
  },
  create(ctx) {
    const { polynomialDegree: minDegree, timeoutMs, reportNotAnalysed } = ctx.options;
    const verdict = (r: RedosResult): { messageId: Msg; data: Record<string, string | number> } | undefined => {
      if (r.status === 'vulnerable') {
        const attack = (r.attack ?? 'unknown').slice(0, 80);
        if (r.complexity === 'exponential') return { messageId: 'exponential', data: { attack } };
        if ((r.degree ?? 2) >= minDegree) return { messageId: 'polynomial', data: { attack, degree: r.degree ?? 2 } };
        return undefined;
      }
      if (r.status === 'notAnalysed' && reportNotAnalysed) return { messageId: 'notAnalysed', data: { reason: r.reason } };
      return undefined;
    };
    return {
      suite: {
        embedded(code, c) {
          if (code.language !== 'regex' || code.dialect !== 'python') return;
          const v = verdict(analyseRedos(code.code, { timeoutMs, minDegree }));
          if (!v) return;
          c.report({ ...v, at: { start: code.ref.start, end: code.ref.end }, pointer: code.ref.pointer });
        },
      },
      python: {
        call(node, c) {
          const lit = regexLiteralOf(node);
          if (!lit) return;
          const v = verdict(analyseRedos(lit.pattern, { timeoutMs, minDegree }, lit.flags));
          if (v) c.report({ ...v, at: lit.node });
        },
      },
    };
  },
});
