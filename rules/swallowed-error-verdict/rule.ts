/**
 * swallowed-error-verdict — a broad `except` that turns every error into a constant verdict: the
 * bugs of the verifier itself (a NameError, a typo) become a pass or a fail.
 *
 * Verdicts are what a verdict function returns to the grader: `True`/`False`, `0`/`1`/`0.0`/`1.0`,
 * `(False, msg)`, `{"pass": False}`, or the argument of a decorator factory (`error_factory(False)`).
 * A verdict function is a function a task entry is bound to, or one it hands its verdict to
 * (`return helper(...)`); handlers in set-up code, retries and predicates (`is_int`) are not on a
 * verdict path and are not reported. Without any bound entry (verifier code linted alone), every
 * function that returns its result from inside the `try` counts.
 */
import { defineRule } from '../../src/engine/rule.js';
import type { PythonAnalysis } from '../../src/lang/python/types.js';
import { field, named, unparen, walk, type PyNode } from '../../src/lang/python/tree.js';
import type { Project } from '../../src/engine/project.js';
import { isVerdictFunction, verdictFunctions } from '../../src/suites/verdict.js';

type Msg = 'swallowed' | 'fallthrough';

const VERDICT_KEYS = new Set(['pass', 'passed', 'success', 'succeeded', 'ok', 'correct', 'score', 'reward']);

/** A constant verdict expression (`False`, `0`, `0.`, `(False, "msg")`, `{"pass": False}`), with its truth. */
function constantVerdict(a: PythonAnalysis, n: PyNode): boolean | undefined {
  const e = unparen(n);
  const t = a.src(e);
  if (e.type === 'true') return true;
  if (e.type === 'false') return false;
  if (e.type === 'integer' || e.type === 'float') {
    const v = Number(t.replace(/_/g, ''));
    return v === 0 ? false : v === 1 ? true : undefined;
  }
  if (e.type === 'tuple' || e.type === 'expression_list') {
    const first = named(e)[0];
    return first ? constantVerdict(a, first) : undefined;
  }
  if (e.type === 'dictionary') {
    for (const p of named(e)) {
      const k = p.type === 'pair' ? field(p, 'key') : undefined;
      const v = p.type === 'pair' ? field(p, 'value') : undefined;
      if (k?.type === 'string' && v && VERDICT_KEYS.has(a.src(k).slice(1, -1).toLowerCase())) return constantVerdict(a, v);
    }
  }
  return undefined;
}

/** Handlers (file\0start) of swallowing decorators applied to verdict functions. */
const decoratorHandlers = new WeakMap<Project, Set<string>>();
function verdictDecoratorHandlers(project: Project): Set<string> {
  let s = decoratorHandlers.get(project);
  if (s) return s;
  s = new Set();
  for (const k of verdictFunctions(project) ?? []) {
    const [file, qualname] = k.split('\0') as [string, string];
    const a = project.python.analysis(file);
    const fn = a?.functionByQualname(qualname);
    const sw = fn ? a!.decoratorSwallow(fn) : undefined;
    if (sw) s.add(`${sw.file || file}\0${sw.handler.start}`);
  }
  decoratorHandlers.set(project, s);
  return s;
}

/** The try body returns a value: the verdict is computed under the handler. */
function bodyReturns(tryNode: PyNode): boolean {
  const body = field(tryNode, 'body');
  let found = false;
  if (body)
    walk(body, (n) => {
      if (found || n.type === 'function_definition' || n.type === 'lambda' || n.type === 'class_definition') return false;
      if (n.type === 'return_statement' && named(n).length) found = true;
      return undefined;
    });
  return found;
}

/** `return X` right after the `try` statement (a handler that logs and falls through reaches it). */
function returnAfter(tryNode: PyNode): PyNode | undefined {
  const p = tryNode.parent;
  if (!p) return undefined;
  const sibs = named(p).filter((c) => c.type !== 'comment');
  const next = sibs[sibs.indexOf(tryNode) + 1];
  return next?.type === 'return_statement' ? named(next)[0] : undefined;
}

export default defineRule<Msg>({
  meta: {
    id: 'swallowed-error-verdict',
    description: 'A broad `except` (bare, `Exception`, `BaseException`) on a verdict path returns — or logs and falls through to — a constant verdict.',
    defaultSeverity: 'warn',
    layers: ['python'],
    languages: ['python'],
    messages: {
      swallowed: {
        what: 'This `{{clause}}` turns every exception into the verdict `{{verdict}}`.',
        why: 'Bugs in the verifier such as a NameError or a typo become that verdict too, so a broken check looks like an agent that {{looks}}.',
        fix: 'Catch only the errors a missing or malformed state raises (e.g. `KeyError`, `ValueError`, `requests.RequestException`) and let the rest surface.',
      },
      fallthrough: {
        what: 'This `{{clause}}` only logs, then falls through to `return {{verdict}}`.',
        why: 'Every exception in the check — including bugs in the verifier such as a NameError or a typo — becomes the verdict `{{verdict}}`, so a broken check looks like an agent that {{looks}}.',
        fix: 'Catch only the errors a missing or malformed state raises and let the rest surface.',
      },
    },
    docs: {
      whatItDoes:
        'Flags `except:`, `except Exception` and `except BaseException` handlers on a verdict path that do not re-raise and return a constant verdict — `True`/`False`, `0`/`1`/`0.0`, `(False, msg)`, `{"pass": False}` — or log and fall through to `return <verdict>` after the `try`, when the `try` computes the verdict (returns from inside it). Also the parameter of a decorator factory such as `error_factory(default)` applied to a verdict function. A verdict function is one a task entry is bound to or one whose result it returns; set-up helpers, retries and predicates are not reported.',
      why: 'In the audited benchmark every `_eval_*` method was wrapped in `error_factory(False)`: the NameError of VER-001 was invisible for as long as the benchmark existed, and every agent failed those tasks. OSWorld-family metrics do the same with `except Exception: logger.info(...); return 0`.',
      incorrect: [
        {
          files: {
            'verifier/utils.py': 'import functools\n\n\ndef error_factory(default):\n    def decorator(func):\n        @functools.wraps(func)\n        def wrapper(*args, **kwargs):\n            try:\n                return func(*args, **kwargs)\n            except Exception:  # vaudit-expect: swallowed-error-verdict/swallowed\n                return default\n        return wrapper\n    return decorator\n',
          },
        },
        {
          note: 'A metric that computes its score inside the `try` and logs any error into a 0.',
          files: {
            'metrics/table.py': 'import logging\n\nlogger = logging.getLogger(__name__)\n\n\ndef compare_rows(result, expected):\n    try:\n        with open(result) as r, open(expected) as e:\n            return float(r.read().splitlines() == e.read().splitlines())\n    except Exception as err:  # vaudit-expect: swallowed-error-verdict/swallowed\n        logger.info("comparison failed: %s", err)\n        return 0.\n',
          },
        },
      ],
      correct: [
        {
          files: {
            'verifier/utils.py': 'import functools\n\nimport requests\n\n\ndef state_errors_fail(func):\n    @functools.wraps(func)\n    def wrapper(*args, **kwargs):\n        try:\n            return func(*args, **kwargs)\n        except (KeyError, ValueError, requests.RequestException):\n            return False\n    return wrapper\n',
          },
        },
      ],
    },
  },
  create(ctx) {
    return {
      python: {
        except_clause(h, c) {
          const a = c.python;
          const tryNode = h.parent;
          if (!tryNode || tryNode.type !== 'try_statement') return;
          const info = a.handlerInfo(tryNode, h);
          if (info.reraises) return;
          const broad = info.types === null || info.types.some((t) => t === 'Exception' || t === 'BaseException');
          if (!broad) return;
          const file = a.path;
          const known = verdictFunctions(ctx.project) !== undefined;
          const fn = a.functionAt(h);
          let messageId: Msg = 'swallowed';
          let ret = info.returns ? unparen(info.returns) : undefined;
          if (!ret) {
            ret = returnAfter(tryNode);
            messageId = 'fallthrough';
          }
          if (!ret) return;
          const text = a.src(ret);
          let verdict: string | undefined;
          let truth: boolean | undefined;
          if (messageId === 'swallowed' && ret.type === 'identifier') {
            // a parameter of an enclosing function (the decorator factory's `default`)
            let scope = fn?.scope.parent ?? null;
            while (scope && !verdict) {
              if (scope.params.includes(text)) verdict = text;
              scope = scope.parent;
            }
            if (!verdict) return;
            if (known && !verdictDecoratorHandlers(ctx.project).has(`${file}\0${h.start}`)) return;
          } else {
            truth = constantVerdict(a, ret);
            if (truth === undefined || !bodyReturns(tryNode)) return;
            if (known && !(fn && isVerdictFunction(ctx.project, file, fn))) return;
            verdict = text;
          }
          const clause = a.src(h).split('\n')[0]!.replace(/:\s*(#.*)?$/, '').trim();
          c.report({
            messageId,
            data: { clause, verdict, looks: truth === true ? 'succeeded' : 'failed' },
            at: { start: h.start, end: h.children.find((k) => k.type === ':')?.end ?? h.start + clause.length },
          });
        },
      },
    };
  },
});
