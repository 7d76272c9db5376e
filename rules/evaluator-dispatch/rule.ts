/**
 * evaluator-dispatch — an OSWorld-family evaluator (`"evaluator": {"func", "result", "expected",
 * "options"}`) that the dispatcher cannot route or the metric cannot be called with: an empty or
 * unknown `func`, a getter `type` with no `get_<type>`, lists whose lengths disagree, options the
 * metric does not accept or never reads, required parameters the call does not fill.
 */
import { KIND_DISPATCH_ADAPTER_ID } from '../../src/suites/harness/kind-adapter.js';
import { kindFieldProblems, type KindFieldProblem } from '../../src/suites/kind-check.js';
import { jsKindFieldProblems } from '../../src/suites/js-kind-check.js';
import { defineRule } from '../../src/contract/rule.js';
import { entryProblems, evaluatorProblems, setupProblems, type EvaluatorProblem, type EvaluatorProblemKind } from '../../src/suites/osworld-check.js';
import type { Autofix } from '../../src/core/types.js';
import { OSWORLD_ADAPTER_ID } from '../../src/suites/osworld.js';
import { duplicateProblem, routeProblems, type RouteProblemKind } from '../../src/suites/route-check.js';

/** A set-up step parameter that is silently ignored does not stop the task: the set-up function runs
 *  with its own default, which is often the value meant (real suites repeat one misspelt key with the
 *  default's own value). Those findings are warnings. An ignored metric option stays an error: it
 *  changes what is graded. Crashes and mis-bound metrics and getters keep the rule's `error`; a
 *  configured severity still wins. */
const IGNORED_PARAMETER: ReadonlySet<EvaluatorProblemKind> = new Set(['unreadStepParam']);
const severityOf = (kind: EvaluatorProblemKind): { severity?: 'warning' } => (IGNORED_PARAMETER.has(kind) ? { severity: 'warning' } : {});

/** A misspelt step parameter with exactly one name the set-up function reads near it: rename the member. */
const renameFix = (p: EvaluatorProblem): { fix?: Autofix } =>
  p.rename === undefined ? {} : { fix: { title: `Rename "${p.data.param}" to "${p.rename}"`, edits: [{ start: p.at.start, end: p.at.end, newText: JSON.stringify(p.rename) }] } };

export default defineRule<EvaluatorProblemKind | RouteProblemKind | KindFieldProblem['kind']>({
  meta: {
    id: 'evaluator-dispatch',
    description: 'OSWorld-family evaluators the dispatcher cannot route (empty/unknown func, unknown getter, list lengths) or whose metric call does not bind (options, required parameters, a getter value the metric cannot use, a key the metric reads that the task\'s rules or options lack); config/postconfig steps the set-up controller cannot run.',
    defaultSeverity: 'error',
    otherSeverity: { severity: 'warn', when: 'a set-up step parameter is silently ignored (the set-up function runs with its own default)' },
    layers: ['suite'],
    languages: ['json'],
    confirm: {
      oracle: 'evaluator-dispatch',
      description: 'memberKind: calls the metric with the task\'s own rules and a result state that holds the values the task names, then one that holds none of them; confirmed when both get the same verdict. Other findings are static.',
    },
    messages: {
      unknownModule: {
        what: 'Task "{{name}}" names no module the harness can load: there is no {{target}} ({{via}} builds the path from this value).',
        why: 'The harness fails to load the verifier for this task, so the task can never pass: every agent scores nothing on it.',
        fix: 'Add the module, or correct the name to the module that grades this task.',
      },
      unknownExport: {
        what: 'The module this task names ({{target}}) does not define `{{export}}`, which the harness at {{via}} takes from it.',
        why: 'The lookup raises (AttributeError, or an undefined function), so the task can never be graded.',
        fix: 'Define `{{export}}` in the module, or point the task at the module that does.',
      },
      unknownKind: {
        what: 'Task names "{{name}}", a kind the dispatch at {{via}} has no case for: it raises on any other value.',
        why: 'The harness raises before this check runs, so the task is never graded: every agent scores nothing on it.',
        fix: 'Use a kind the dispatch handles, or add a case for this one.',
      },
      ignoredKind: {
        what: 'Task names "{{name}}", a kind the dispatch at {{via}} has no case for: no check runs for it.',
        why: 'The harness skips the value silently, so what the task meant to check is never checked (a task whose only kind this is passes on what the other kinds, or none, decide).',
        fix: 'Use a kind the dispatch handles, or add a case for this one.',
      },
      missingTaskField: {
        what: '`{{fn}}` reads `{{read}}` on every run ({{where}}), but {{state}}.',
        why: 'The evaluator {{effect}}.',
        fix: 'Give the task the member the evaluator reads, or route it to an evaluator kind that does not need it.',
      },
      refusedValue: {
        what: '`{{fn}}` raises on "{{value}}": its tests of `{{subject}}` ({{where}}) accept only {{accepted}}, and its `else` raises.',
        why: 'The evaluator raises before it compares anything, so the task is never graded (or the crash is scored as the agent\'s failure).',
        fix: 'Write the value in a form the evaluator handles, or add a branch for this form.',
      },
      unknownKey: {
        what: 'Task value "{{name}}" is not a key of `{{target}}`, where the harness at {{via}} looks it up (its keys: {{keys}}).',
        why: 'The lookup finds nothing: it raises KeyError, or the harness takes its fallback branch (an "unknown" result), so this part of the task is never run as written and the task is graded against something else.',
        fix: 'Use one of the registry\'s keys, or register what this task names.',
      },
      duplicateTask: {
        what: 'Task id "{{id}}" is already used at line {{line}} of this file.',
        why: 'A harness that looks tasks up by id runs only one of them (or runs one twice): one of the two is never graded as written, and results are counted under one id.',
        fix: 'Give each task its own id, or remove the duplicate.',
      },
      notObject: {
        what: '"evaluator" is {{actual}}, not an object with "func", "result" and "expected".',
        why: 'The dispatcher reads `evaluator["func"]` and crashes before grading, so the task scores nothing.',
        fix: 'Write the evaluator as an object.',
      },
      emptyFunc: {
        what: '"func" is {{actual}}.',
        why: '`getattr(metrics, func)` finds no metric (an empty list divides by zero when the scores are averaged), so the task cannot be graded.',
        fix: 'Name the metric function that grades this task.',
      },
      unknownFunc: {
        what: 'Metric "{{name}}" does not exist: {{reason}}.',
        why: '`getattr(metrics, "{{target}}")` raises AttributeError when the task is loaded, so the task is never graded.',
        fix: 'Use a metric the package exports, or export this one from the metrics package.',
      },
      unknownGetter: {
        what: 'Getter type "{{name}}" in "{{role}}" has no `{{target}}`: {{reason}}.',
        why: 'The dispatcher raises AttributeError, so the task is never graded.',
        fix: 'Use a getter type the package exports, or export `{{target}}` from the getters package.',
      },
      missingGetter: {
        what: 'The {{role}} getter is not usable: {{detail}}.',
        why: 'The dispatcher looks up `get_<type>` from it and crashes before the metric runs.',
        fix: 'Give "{{role}}" an object with the getter "type" and its parameters.',
      },
      listShape: {
        what: 'The evaluator lists do not line up: {{detail}}.',
        why: 'The dispatcher pairs func[i] with result[i], expected[i] and options[i] (and asserts equal lengths), so this task crashes or grades a metric with another metric\'s state.',
        fix: 'Give "{{field}}" one item per metric, in order (null where a metric needs no expected state).',
      },
      unexpectedOption: {
        what: 'Option "{{option}}" is not a parameter of `{{metric}}` ({{params}}) and it takes no `**kwargs`.',
        why: 'The call `metric(..., **options)` raises TypeError, so the task is never graded.',
        fix: 'Remove the option or rename it to a parameter the metric takes.',
      },
      unreadOption: {
        what: 'Option "{{option}}" reaches `{{metric}}` through `**{{kwargs}}`, which only reads {{read}}.',
        why: 'The option is silently ignored, so the check the task author asked for does not happen.',
        fix: 'Rename it to an option the metric reads, or remove it.',
      },
      missingArgument: {
        what: '`{{metric}}` requires "{{param}}", but the dispatcher calls `{{call}}` and no option gives it.',
        why: 'The call raises TypeError, so the task is never graded.',
        fix: 'Add "{{param}}" to "options", or give the metric an expected state if that is what it means.',
      },
      stateKind: {
        what: 'The {{role}} getter `{{getter}}` returns {{kinds}}, but `{{metric}}` uses its `{{param}}` as {{needs}} (`{{use}}`).',
        why: 'The metric raises TypeError on every run (or its error handler turns that into a failing score), so no agent can pass the task.',
        fix: 'Use the getter type that produces what `{{metric}}` reads (e.g. "rule" for a dict of expectations, a file getter for a path), or the metric that reads this getter\'s value.',
      },
      missingRuleKey: {
        what: '`{{metric}}` reads `{{read}}` with no default ({{where}}), but the "{{member}}" the {{role}} getter `{{getter}}` passes it has no "{{key}}".',
        why: 'The metric raises KeyError before it compares anything, so the task is never graded (or the harness records a crash as a failing score).',
        fix: 'Add "{{key}}" to "{{member}}", or make the metric read it with a default (`.get("{{key}}")`).',
      },
      missingOption: {
        what: '`{{metric}}` reads `{{read}}` with no default ({{where}}), but this entry\'s options do not give "{{key}}".',
        why: 'The options arrive as `**{{kwargs}}`, so the read raises KeyError before the metric compares anything, and the task is never graded.',
        fix: 'Add "{{key}}" to "options", or make the metric read it with a default (`{{kwargs}}.get("{{key}}")`).'
      },
      memberKind: {
        what: 'The task passes {{kind}} `{{value}}` where `{{metric}}` tests `{{test}}`, and the state from `{{getter}}` is a list of `{{elem}}` values.',
        why: 'No element of that state is {{kind}}, so `{{test}}` is always {{always}}: the verdict does not depend on what the agent did (an agent that does nothing gets the same score).',
        fix: 'Pass the single value the metric tests for (a string, not a one-item list), or make the metric test each listed value.',
      },
      unknownStep: {
        what: 'The {{where}} step type "{{name}}" has no set-up function: {{reason}}.',
        why: 'The set-up controller asserts that it finds the function, so the task crashes {{when}} and every agent scores nothing.',
        fix: 'Use a step type the controller implements, or add its set-up function.',
      },
      stepShape: {
        what: 'This {{where}} step cannot be dispatched: {{detail}}.',
        why: 'The set-up controller raises before the step runs, so the task crashes {{when}} and every agent scores nothing.',
        fix: 'Write the step as {"type": …, "parameters": {…}}.',
      },
      unexpectedStepParam: {
        what: 'Parameter "{{param}}" of this {{where}} step is not a parameter of `{{fn}}` ({{params}}), which takes no `**kwargs`.',
        why: 'The controller calls the set-up function with the parameters as keywords, so the call raises TypeError and the task crashes {{when}}.',
        fix: 'Remove the parameter or rename it to one the set-up function takes.',
      },
      missingStepParam: {
        what: '`{{fn}}` requires "{{param}}", but the parameters of this {{where}} step do not give it.',
        why: 'The controller calls the set-up function with the parameters as keywords, so the call raises TypeError and the task crashes {{when}}.',
        fix: 'Add "{{param}}" to "parameters".',
      },
      unreadStepParam: {
        what: 'Parameter "{{param}}" of this {{where}} step reaches `{{fn}}` through `**{{kwargs}}`, which only reads {{read}}.',
        why: 'The parameter is silently ignored: the set-up function runs with its own default (or without it), so the value written here has no effect, and a task that relies on it starts (or is graded) from another state than its author set.',
        fix: 'Rename it to {{suggest}}.',
      },
      tooManyPositional: {
        what: '`{{metric}}` takes {{accepts}} positional argument(s), but this entry gives it an expected state.',
        why: 'The dispatcher calls `metric(result_state, expected_state, ...)`, which raises TypeError, so the task is never graded.',
        fix: 'Remove "expected" (or set it to null) or use a metric that compares with an expected state.',
      },
    },
    docs: {
      whatItDoes:
        'For tasks of every suite shape whose routes vaudit learned from the harness (a task naming its verifier module, a list of eval names a loader imports), checks that the module each task names exists and defines what the harness takes from it, and that no task id repeats in its file with other content (an exact copy of an earlier record, members in any order, is not reported when the harness code that reads the task file (names it, or routes its tasks) keys the records by the id member — `{t["id"]: t for t in tasks}`, `d[t["id"]] = t`, `dict((t["id"], t) …)`, `acc[t.name] = t`, `map.set(t.name, t)`, `Object.fromEntries(tasks.map((t) => [t.name, t]))`, `{[t.name]: t}`: the map holds one entry, graded as written; a harness that iterates the records runs the copy too and counts the task twice, so then it is reported). Tasks written as Python data (a module-level list or dict of dicts, `Task(...)` calls or dataclass instances that the harness imports and routes by a member) are checked at their line in the `.py` file: a name the harness looks up with `getattr` on a module must be defined there, and a name it looks up in a registry dict (`self.tools_map[action.name]`, keys read from the dict display or from each registered class) must be one of its keys, unless the harness handles that name before the lookup; ids repeat only where the harness keys the records by one. For tasks of the OSWorld family (the `osworld` adapter), checks the evaluator the way `desktop_env.py` consumes it: `func` must name a metric the metrics package exports (through its `__init__.py` re-exports), each `result`/`expected` `type` must have a `get_<type>` in the getters package, and with a list `func` the `result`, `expected` and `options` lists must have one item per metric. Then reads the bound metric\'s Python signature: options it does not accept (no `**kwargs`), options its `**kwargs` never reads, required parameters the call `metric(result_state[, expected_state], **options)` leaves empty, an expected state given to a metric that takes only the result. It also compares each bound getter with the metric parameter it fills, when both sides are certain: a getter whose every `return` is a known kind (literals, `os.path.join(...)`, builtin constructors, locals holding them; None aside) against a metric that, unconditionally and without testing the parameter\'s type, subscripts it with a string key or calls `.get`/`.items`/`.keys`/`.values` on it (a dict) or opens it (a path). The `config` steps and the evaluator\'s `postconfig` steps are checked the way the set-up controller runs them (learned from its dispatch method: `getattr(self, "_{:}_setup".format(step["type"]))(**step["parameters"])`, else the `<type>_setup` function of the configs package called with the controller): a step without `type`/`parameters`, a type with no set-up function, parameters the function does not accept, required ones missing, and parameters its `**kwargs` never reads. A set-up step parameter that is silently ignored is reported as a warning, since the set-up function still runs with its own default; everything else, including an ignored metric option (it changes what is graded), is an error. Also the task value against the state the metric tests it in: when the expected getter hands its config member over as-is (`get_rule` returns `config["rules"]`), a member the metric uses as the needle of `in`/`not in` on the result state (`expect = rules["exclude"]; expect not in result`) while the task gives it a list or an object and the result getter returns a list it fills only with `.append(…)` of values that are no lists, is reported (`memberKind`): the test is always False (`in`) or always True (`not in`). And the keys a metric reads with no default, on every run past its checks of other values, from the member such a getter hands over (`rule["height"]`, `missingRuleKey`) or from its `**kwargs` (`missingOption`), when the task does not give them. For tasks routed by kind (the `kind-dispatch` adapter: a `match`, if-chain or dict over `eval_types` in Python; in JS/TS a `switch` on string cases, an `if`/`else if` or early-return chain of `===`/`[…].includes(x)` tests, independent `task.evals.includes("x")` tests, or a lookup in a `const` object literal or `new Map` of string keys, or `this[task.kind](…)` in a method of a class whose other methods are the handlers, by name (`class Checker { url_path(spec) {…} run(task) { return this[task.check.kind](task.check); } }`); the key may carry constant text the handler names carry too — `this[\'check_\' + spec.kind]`, ``handlers[`eval_${task.eval.type}`]``, `CHECKS.get(kind + SUFFIX)` with a `const` string, or such a key held in a `const` first (`const name = \'verify_\' + task.verify.kind; verifiers[name](…)`); the table may also be a class\'s static methods or static arrow fields (`Checks[\'check_\' + t.type](…)`, a class that extends none), a `new Map()` filled only by top-level `.set(\'key\', handler)` calls (a `set` inside a function, such as a plugin `register()`, leaves the table open and nothing is reported), and `this[…]` handlers may be arrow-valued class fields — and then only the handlers whose names carry it count, each for the kind its name holds), over a parameter, a destructured parameter, a parsed JSON document or one item of a member list), a kind no case handles (`unknownKind` when the dispatch raises, `ignoredKind` when it silently skips it; neither when a lookup falls back to another handler, `handlers[k] ?? handlers.generic` or `CHECKS.get(k) || defaultCheck`; tool configuration files such as `package.json` with its `"type": "module"` or `tsconfig.json` are never task records) and the members of the task document the bound evaluator reads on every run, after loading it again from its own parameter or from a parameter the dispatch hands the task record (or a member of it) to (`check(task["verify"])`, `Evaluator()(task, page)`, `CHECKS[kind](job, out)`: `missingTaskField`). In JS/TS the same for the function a case calls by name with the record or a member of it (imported from a relative module, ESM or CommonJS, defined in the file, or written inline in the lookup table; `check(page, task.expected)`, `CHECKS[task.check](task, out)`, a `Map` handler held and called), and for a check written in a `case` body of the `switch` or a branch of the `if` chain itself (`case "url_match": return page.url() === task.eval.url;`), reading the record from the parameter or local the switch reads: a member it reads on every run, or a name it destructures from the record and uses, is required unless the function makes it optional somewhere (optional chaining, a `??`/`||` default, a destructuring default, a test of it: `in`, `hasOwnProperty`, `=== undefined`, truthiness, `typeof`); a missing one reads as `undefined`, so the evaluator throws on its first member or compares with `undefined`. A comparison of the member with a literal (`spec.mode === "strict"`) or a `switch` on it is a test of an option, not a required read. Tasks written as JS/TS data count too: an array of object literals a module exports (`export const tasks: Task[] = [{ id, check: { kind, … } }, …]`, `export default`, `module.exports = […]`, `exports.X = […]`) that the harness iterates (`for … of`, `.forEach`/`.map`/`.filter`/… in its module or in a module importing it) and whose records a JS/TS dispatch routes by a member is checked record by record, at the record\'s line in the module (records holding a spread are left out; a member computed rather than written as a literal is present with an unknown value). For both families, a task value that the bound code tests in an `if`/`elif` chain whose `else` raises, when the value passes none of the tests or selects a branch that raises too (`refusedValue`: a locator `"page.locator(...)"` where only `"document.…"`/`"func:…"` are handled, a rule `type` the metric raises on); only chains whose every test vaudit can evaluate on a string (`==`, `in` a literal collection, `startswith`/`endswith`, `not v`, `not v.strip()`, `"x" in v`, through `.strip()`/`.lower()`), on every run of the function (a statement of its body or of a `for` loop there over the list holding the value).',
      why: 'The dispatcher looks every name up with `getattr` and calls the metric with the options as keywords: a typo in a name, a misaligned list or a wrong option makes the task crash before grading (it scores 0 for every agent) or, for an option that `**kwargs` swallows, silently grades without the check the author asked for. Set-up steps are dispatched the same way: a bad step crashes the task before the agent starts (or before grading), and a swallowed parameter silently changes the starting state.',
    },
  },
  create(ctx) {
    return {
      suite: {
        task(task, c) {
          for (const p of routeProblems(task)) c.report({ messageId: p.kind, data: p.data, at: p.at, pointer: p.pointer });
          const dup = duplicateProblem(task, ctx.project);
          if (dup) c.report({ messageId: dup.kind, data: dup.data, at: dup.at, pointer: dup.pointer });
          if (task.suite.adapter !== OSWORLD_ADAPTER_ID) return;
          for (const p of evaluatorProblems(task)) c.report({ messageId: p.kind, data: p.data, at: p.at, pointer: p.pointer, ...severityOf(p.kind) });
          for (const p of setupProblems(task, ctx.project.python))
            c.report({ messageId: p.kind, data: { ...p.data, when: p.data.where === 'config' ? 'before the agent starts' : 'before grading' }, at: p.at, pointer: p.pointer, ...severityOf(p.kind), ...renameFix(p) });
        },
        entry(entry, c) {
          if (entry.task.suite.adapter === KIND_DISPATCH_ADAPTER_ID) {
            for (const p of kindFieldProblems(entry, ctx.project.python)) c.report({ messageId: p.kind, data: p.data, at: p.at, pointer: p.pointer });
            for (const p of jsKindFieldProblems(entry, ctx.project.files)) {
              const r = p.related;
              c.report({ messageId: p.kind, data: p.data, at: p.at, pointer: p.pointer, related: [{ file: r.file.path, range: r.file.source.range(r.start, r.end), message: `The read in \`${p.data.fn}\`.` }] });
            }
            return;
          }
          if (entry.task.suite.adapter !== OSWORLD_ADAPTER_ID) return;
          for (const p of entryProblems(entry, ctx.project.python)) c.report({ messageId: p.kind, data: p.data, at: p.at, pointer: p.pointer, ...severityOf(p.kind), ...(p.control ? { control: p.control } : {}) });
        },
      },
    };
  },
});
