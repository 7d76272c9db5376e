/**
 * verdict-composition — the verdict is not the conjunction (or disjunction) the task means (issue 28,
 * class 1): a check that runs on one branch only, alternatives combined as AND or an OR that is always
 * true, a partial score passed on anything above zero or a raw similarity read as pass/fail, a check
 * computed that never reaches the verdict, items that raise dropped from the denominator. Each shape
 * lives in its own module (branch.ts, truthy.ts, scores.ts, unused.ts, filtered.ts, js-dropped.ts); all report on verdict paths only
 * (src/suites/verdict.ts; every function when no task entry is bound).
 */
import { defineRule } from '../../src/contract/rule.js';
import { field } from '../../src/lang/python/tree.js';
import type { Msg } from './kinds.js';
import { verdictFunctionAt } from './kinds.js';
import { oneBranch } from './branch.js';
import { alternativesAnded, jsTruthyArray, truthyCollection, truthyElement } from './truthy.js';
import { droppedOnError, droppedOnMissing, looseThreshold, rawSimilarity } from './scores.js';
import { jsUnusedCheck, unusedChecks } from './unused.js';
import { jsDroppedItems, jsFilteredDenominator } from './js-dropped.js';
import { droppedFiltered } from './filtered.js';

export default defineRule<Msg>({
  meta: {
    id: 'verdict-composition',
    description: 'The verdict is not the combination the task means: a check on one branch only, alternatives ANDed or an always-true OR, a partial score passed above zero or a raw similarity read as pass/fail, a check that never reaches the verdict, failing or missing items dropped from the denominator.',
    defaultSeverity: 'warn',
    layers: ['python', 'javascript'],
    languages: ['python', 'javascript', 'typescript'],
    messages: {
      oneBranch: {
        what: 'When `{{subject}}` is present this `if` grades with one check, and `{{skipped}}` runs only when it is absent.',
        why: 'A task that has `{{subject}}` is never checked against `{{state}}`: an agent that gets that part right and breaks (or never makes) the rest passes.',
        fix: 'Run every check that applies and combine them (`reward = outputs_ok and state_ok`): move the shared check out of the `else`.',
      },
      truthyElement: {
        what: '`{{call}}` gets `{{element}}` for each item: a non-empty collection, true whatever the check inside returned.',
        why: '`{{name}}()` is then True for any non-empty input, so every alternative counts as matched and the check passes without comparing anything.',
        fix: 'Give `{{name}}()` the check itself, not a collection holding it: `{{name}}(check(v) for v in values)`.',
      },
      truthyCollection: {
        what: '`{{expr}}` is tested for truth: it is {{kind}}.',
        why: 'The condition holds as soon as there is an item to check, so failing checks pass.',
        fix: 'Combine the results with `any(...)` or `all(...)`, or test the items themselves.',
      },
      jsTruthyArray: {
        what: '`{{expr}}` is tested for truth, and every array is truthy, even an empty one.',
        why: 'The condition holds whatever the checks in the array returned, and when nothing matched, so the verdict passes without comparing.',
        fix: 'Use `.some(check)` or `.every(check)`, or test `.length > 0` explicitly.',
      },
      alternativesAnded: {
        what: '`{{over}}` splits alternatives on {{sep}}, but {{how}}.',
        why: 'An answer needs to match only one alternative, so a correct answer that matches one of them fails.',
        fix: 'Combine the alternatives with OR: `any(match(v) for v in alternatives)`.',
      },
      looseThreshold: {
        what: '`{{test}}` passes the agent whenever `{{score}}` is above zero.',
        why: '`{{score}}` is a partial score (a ratio, a mean, a similarity or a product of parts): an output that gets any small part right passes as fully correct.',
        fix: 'Compare the score with the threshold the task means (`== 1.0` for all-correct, or a documented cut-off), or return the partial score itself.',
      },
      rawSimilarity: {
        what: '`{{call}}` is read as pass/fail, but it returns a raw similarity with no threshold (`{{returned}}`, {{where}}).',
        why: 'Any non-zero similarity is true, so nearly any text passes the check.',
        fix: 'Compare the similarity with a threshold inside the function (`return ratio >= 0.9`) or at the call.',
      },
      unusedCheck: {
        what: '`{{name}} = {{check}}` {{how}}: this check never reaches the returned verdict.',
        why: 'Whatever it was written to catch passes: the verdict is decided by the other checks alone.',
        fix: 'Combine it into the returned verdict (`return ... and {{name}}`), or remove it if it is not part of the task.',
      },
      droppedMissing: {
        what: '`{{guard}}` leaves an item out when it is missing, and `{{score}}` divides by the items that were there.',
        why: 'A component the agent never produced counts neither for nor against it: with all but one missing, the one present decides the whole score.',
        fix: 'Count a missing item as failed (0 with its weight) and divide by every item of `{{items}}`.',
      },
      droppedFromAll: {
        what: '`{{handler}}` skips an item whose check raises, and `{{score}}` decides on the items that did not.',
        why: 'An item whose check fails by raising counts neither for nor against the agent: when every check raises, `all()` of nothing is True and the task passes.',
        fix: 'Record an item whose check raises as failed (`False`) so that `all()` sees every item of `{{items}}`.',
      },
      jsDroppedFromEvery: {
        what: '`{{handler}}` skips an item whose check throws, and `{{score}}` decides on the items that did not.',
        why: 'An item whose check fails by throwing counts neither for nor against the agent: when every check throws, `.every()` of an empty array is true and the task passes.',
        fix: 'Record an item whose check throws as failed (`results.push(false)`) so that `.every()` sees every item of `{{items}}`.',
      },
      droppedFiltered: {
        what: '`{{filter}}` keeps only the items that ran, and `{{score}}` divides by what it kept.',
        why: 'An item that errored or was skipped counts neither for nor against the agent: with every other item erroring, one passing item scores 1.0.',
        fix: 'Divide by every item of `{{items}}`, counting an errored or skipped one as failed.',
      },
      droppedItems: {
        what: '`{{handler}}` skips an item whose check raises, and `{{score}}` divides by the items that did not.',
        why: 'An item whose check fails by raising counts neither for nor against the agent: with every other item skipped, one passing item scores 1.0.',
        fix: 'Count an item whose check raises as failed (0 in the total) and divide by the number of items in `{{items}}`.',
      },
    },
    docs: {
      whatItDoes:
        'On a verdict path (a function a task entry is bound to, or one whose result it returns; any function when no entry is bound) flags: an `if`/`else` on the presence of something (`if x:` when the branch uses x as a collection, `if len(x) > 0`, `if x is not None`, `if "k" in cfg`, `cfg.get("k")`) whose two branches both decide the verdict and compare disjoint state, so the check of the absent branch never runs when the value is present (`oneBranch`); `any()`/`all()` over a generator whose element is a non-empty literal collection (`any([check(v)] for v in alts)`), and a comprehension or generator read for its truth (`if [v == x for v in vs]:`); in JavaScript and TypeScript an array (`xs.map(f)`, `xs.filter(f)`, `[...]`) read for its truth, returned by the callback of `.some()`/`.every()`/`.filter()`/`.find()` (`alts.some((a) => [check(a)])`), or held as an element by an array tested with `.some(Boolean)` (`[alts.map(check)].some(Boolean)`); a loop or `all()` over alternatives split on an OR separator (`x.split(" |OR| ")`) that multiplies scores or fails inside the loop; `x > 0`, `x != 0`, `bool(x)` or `if x:` passing the agent when x is a fraction (a division, a mean, a similarity call, a product of partial scores, or a project function returning one); a call of a project function that returns a raw similarity with no threshold, read for its truth; a local assigned a check (a comparison, `not`/`and`/`or`, `all`/`any`/`isinstance`, `re.search`, a project predicate) that is never read or only printed or logged; an `except` that skips the item (`continue`, or the `try` ends the loop body) in a loop whose score is then divided by the items that did not raise (or by the count less the items the handler counted: `passed / (len(cases) - skipped)`), or decided by `all()` over the results the `try` filled, where the handler records nothing for the item; and a missing item left out of both sides of a ratio (`if x is None: continue` before the counts, or `if k in results: num += …; den += …` with no `else`) when the score is divided by the count rather than by the length of what the loop iterates; and a score divided by the length of the items a filter keeps when it drops the errored or skipped ones (`passed / len([r for r in rs if r["status"] != "error"])`, `list(filter(lambda r: not r.get("error"), rs))`, or a name bound once to either), unless the function fails first when an item did not run (an `if` whose branch or `else` returns, raises or calls a function that never returns, such as `sys.exit`, `pytest.fail` or a project helper that always raises, or an `assert`, on a not-run word, the kept list against the items, or a list of the items that did not run). The dropped items must be a run\'s outcome: a not-run word (`error`, `skipped`, `timeout`, …) compared with a status field (`status`, `outcome`, `result`, `state`, `conclusion`, `verdict`), or a field that itself says the item errored, crashed, timed out or was skipped (`not r.get("error")`, `r.exception is None`, ElementTree\'s `case.find("skipped") is None`), or a keep-list of a status field that holds only pass and fail outcomes (`t["outcome"] in ("passed", "failed")`); `c["kind"] != "error"`, Playwright\'s `expectedStatus` and dataset flags (`not ex.get("invalid")`, `not p.get("skip")`) mark categories or inputs left out of the benchmark, not items that failed to run. In JavaScript and TypeScript the same drops: a `catch` that only logs or continues, or an `if (x == null) continue;` before the counts, in a loop whose score is then divided by a counter (`n++`, `n += w`) or `results.length` that only the non-skipped items reach, or decided by `.every()` over the results the `try` filled; and a score divided by the length of the items a `.filter()` keeps when it drops the errored or skipped ones (`passed / results.filter((r) => !r.error).length`), with the same reading of a run\'s outcome).',
      why: 'Each makes the verdict something other than what the task asks: tasks with expected outputs never checked against the database (τ-bench), OR-alternatives that must all match or an `any()` that is always true (WebArena-family evaluators), `float(reward > 0)` crediting any partial match, a similarity of 0.1 read as a match, a database check computed and printed but not returned, a broken item silently leaving the average.',
    },
    confirm: {
      oracle: 'verdict-composition',
      description: 'For a check on one branch only: runs the function on witnesses and confirms when a run passes through the present branch without executing the other branch\'s check.',
    },
  },
  create(ctx) {
    return {
      python: {
        if_statement(n, c) {
          oneBranch(n, c);
          droppedOnMissing(n, c);
        },
        call(n, c) {
          truthyElement(n, c);
          alternativesAnded(n, c);
          looseThreshold(n, c);
          rawSimilarity(n, c);
        },
        list_comprehension(n, c) {
          truthyCollection(n, c);
        },
        generator_expression(n, c) {
          truthyCollection(n, c);
        },
        for_statement(n, c) {
          alternativesAnded(n, c);
        },
        comparison_operator(n, c) {
          looseThreshold(n, c);
        },
        identifier(n, c) {
          looseThreshold(n, c);
        },
        binary_operator(n, c) {
          droppedFiltered(n, c);
        },
        except_clause(n, c) {
          droppedOnError(n, c);
        },
        function_definition(n, c) {
          const body = field(n, 'body');
          const fn = body ? verdictFunctionAt(c, body) : undefined;
          if (fn && fn.node === n) unusedChecks(fn, c);
        },
      },
      javascript: {
        ArrayExpression(node, c, ancestors) {
          jsTruthyArray(node, c, ancestors, ctx.project);
        },
        CallExpression(node, c, ancestors) {
          jsTruthyArray(node, c, ancestors, ctx.project);
        },
        VariableDeclarator(node, c, ancestors) {
          jsUnusedCheck(node, c, ancestors, ctx.project);
        },
        ForOfStatement(node, c, ancestors) {
          jsDroppedItems(node, c, ancestors, ctx.project);
        },
        ForInStatement(node, c, ancestors) {
          jsDroppedItems(node, c, ancestors, ctx.project);
        },
        ForStatement(node, c, ancestors) {
          jsDroppedItems(node, c, ancestors, ctx.project);
        },
        WhileStatement(node, c, ancestors) {
          jsDroppedItems(node, c, ancestors, ctx.project);
        },
        BinaryExpression(node, c, ancestors) {
          jsFilteredDenominator(node, c, ancestors, ctx.project);
        },
      },
    };
  },
});
