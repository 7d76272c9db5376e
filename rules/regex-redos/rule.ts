/**
 * regex-redos — a regular expression with catastrophic backtracking
 * (exponential, or high-degree polynomial) on some input, decided by recheck
 * after translating Python syntax to ECMAScript. Deterministic: the analysis is
 * budgeted by automaton size, never by time, and a pattern over the budget is a
 * note of the run, not a finding.
 */
import { defineRule, type ReportTarget, type RuleContext } from '../../src/contract/rule.js';
import type { ControlCaseRequest } from '../../src/core/types.js';
import { DEFAULT_AUTOMATON_BUDGET } from '../../src/suites/regex/automaton-size.js';
import { analyseRedos, type RedosResult } from '../../src/suites/regex/redos.js';
import { regexLiteralOf } from '../../src/suites/regex/python-literal.js';

type Msg = 'exponential' | 'polynomial' | 'notAnalysed';
interface Opts {
  polynomialDegree: number;
  maxPositions: number;
  maxStates: number;
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
    confirm: {
      oracle: 'regex-redos',
      description: "Runs the pattern with the host's Python `re` on the attack input grown to ≥ 1e11 predicted backtracking steps and shrunk to ≤ 1e5; confirmed when the grown one does not finish within the case's bound while the small one returns.",
    },
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
    notes: {
      overBudget: 'This regular expression was not analysed for catastrophic backtracking: {{reason}}. It is not known to be safe; review it by hand, or raise the budget (options maxPositions, maxStates).',
      unsupported: 'This regular expression was not analysed for catastrophic backtracking: {{reason}}. It is not known to be safe; review it by hand.',
    },
    docs: {
      whatItDoes:
        'Parses each regex with Python `re` semantics, translates it to an equivalent ECMAScript pattern (named groups, `(?P=n)`, inline and scoped flags, `\\A`/`\\Z`, Python\'s `$` and Unicode classes), and asks recheck — an automata-based ReDoS checker with a fuzzing fallback — for its worst-case complexity. Reports exponential patterns, and polynomial ones of degree ≥ `polynomialDegree` (default 3). Patterns the translator cannot read (atomic groups, possessive quantifiers, conditionals) are reported as not analysed — never as safe. The analysis never depends on time or machine load: recheck runs its automaton checker without a time limit and with a fixed seed, within a budget of automaton size (`maxPositions` character positions once counted repetitions are expanded, `maxStates` states of the determinised reverse automaton, and at most 20 repetitions nested in one another, whose cost in recheck grows steeply with the depth; recheck\'s own sizes are checked against it as it builds them). A pattern over the budget, or with a construct the automaton analysis does not model (a back-reference, a look-around), is a note of the run (JSON `summary.notes`), not a finding: the same input gives the same findings on an idle and on a loaded machine. A sound structural screen decides most patterns without recheck: a loop over one character class or over uniquely decodable words cannot backtrack exponentially, and a pattern without a chain of `polynomialDegree` loops that can read a common input cannot reach that degree. recheck loads only when a pattern needs it; its verdicts are cached per pattern and flags for the run, and across runs in the `--cache` folder.',
      why: "Python's `re` backtracks without a time limit. A verifier that matches agent output against an exponential pattern hangs on a crafted or merely unlucky output: the run stalls or is killed, and the task is scored as an infrastructure failure or a fail instead of graded.",
    },
    optionsSchema: {
      type: 'object',
      properties: {
        polynomialDegree: { type: 'integer', minimum: 2, description: 'Report polynomial backtracking of at least this degree.' },
        maxPositions: { type: 'integer', minimum: 16, maximum: 20000, description: 'Analysis budget per pattern: character positions once counted repetitions are expanded.' },
        maxStates: { type: 'integer', minimum: 16, maximum: 20000, description: 'Analysis budget per pattern: states of the determinised reverse automaton.' },
        reportNotAnalysed: { type: 'boolean', description: 'Report patterns the analyser could not check.' },
      },
      additionalProperties: false,
    },
    defaultOptions: { polynomialDegree: 3, maxPositions: DEFAULT_AUTOMATON_BUDGET.maxPositions, maxStates: DEFAULT_AUTOMATON_BUDGET.maxDfaStates, reportNotAnalysed: true },
  },
  create(ctx) {
    const { polynomialDegree: minDegree, reportNotAnalysed } = ctx.options;
    const opts = { minDegree, budget: { maxPositions: ctx.options.maxPositions, maxDfaStates: ctx.options.maxStates } };
    /** A finding, or undefined; a pattern the analysis could not take within its limits becomes a note at `at`. */
    const verdict = (
      r: RedosResult,
      c: RuleContext<Msg>,
      at: ReportTarget,
      pointer?: string,
      run: { pattern: string; flags: number; method?: string } = { pattern: '', flags: 0 },
    ): { messageId: Msg; data: Record<string, string | number>; control?: ControlCaseRequest } | undefined => {
      if (r.status === 'vulnerable') {
        const attack = (r.attack ?? 'unknown').slice(0, 80);
        const control = r.attack ? { control: { oracle: 'regex-redos', ...run, attack: r.attack, complexity: r.complexity, ...(r.degree ? { degree: r.degree } : {}) } } : {};
        if (r.complexity === 'exponential') return { messageId: 'exponential', data: { attack }, ...control };
        if ((r.degree ?? 2) >= minDegree) return { messageId: 'polynomial', data: { attack, degree: r.degree ?? 2 }, ...control };
        return undefined;
      }
      if (r.status === 'notAnalysed' && r.limit) {
        c.note({ noteId: r.limit === 'budget' ? 'overBudget' : 'unsupported', data: { reason: r.reason }, at, pointer });
        return undefined;
      }
      if (r.status === 'notAnalysed' && reportNotAnalysed) return { messageId: 'notAnalysed', data: { reason: r.reason } };
      return undefined;
    };
    return {
      suite: {
        embedded(code, c) {
          if (code.language !== 'regex' || code.dialect !== 'python') return;
          const at = { start: code.ref.start, end: code.ref.end };
          const v = verdict(analyseRedos(code.code, opts), c, at, code.ref.pointer, { pattern: code.code, flags: 0 });
          if (!v) return;
          c.report({ ...v, at, pointer: code.ref.pointer });
        },
      },
      python: {
        call(node, c) {
          const lit = regexLiteralOf(node);
          if (!lit) return;
          const func = node.childForFieldName('function')?.childForFieldName('attribute')?.text;
          const v = verdict(analyseRedos(lit.pattern, opts, lit.flags), c, lit.node, undefined, { pattern: lit.pattern, flags: lit.flags, ...(func === 'match' || func === 'fullmatch' ? { method: func } : {}) });
          if (v) c.report({ ...v, at: lit.node });
        },
      },
    };
  },
});
