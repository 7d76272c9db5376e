/**
 * swallowed-error-verdict — a broad `except` that returns a constant verdict: every error, including
 * bugs in the verifier itself, becomes a pass or a fail.
 */
import { defineRule } from '../../src/engine/rule.js';
import { unparen } from '../../src/lang/python/tree.js';

type Msg = 'swallowed';

const BOOLS = new Set(['True', 'False']);

export default defineRule<Msg>({
  meta: {
    id: 'swallowed-error-verdict',
    description: 'A broad `except` (bare, `Exception`, `BaseException`) in verifier code returns a constant verdict.',
    defaultSeverity: 'warn',
    layers: ['python'],
    languages: ['python'],
    messages: {
      swallowed: 'This `{{clause}}` turns every exception — including bugs in the verifier such as a NameError or a typo — into the verdict `{{verdict}}`, so a broken check looks like an agent that {{looks}}. Catch only the errors a missing or malformed state raises (e.g. `KeyError`, `ValueError`, `requests.RequestException`) and let the rest surface.',
    },
    docs: {
      whatItDoes: 'Flags `except:`, `except Exception` and `except BaseException` handlers that do not re-raise and return a boolean constant — or the parameter of a decorator factory such as `error_factory(default)`, whose callers pass the verdict.',
      why: 'In the audited benchmark every `_eval_*` method was wrapped in `error_factory(False)`: the NameError of VER-001 was invisible for as long as the benchmark existed, and every agent failed those tasks.',
      incorrect: [
        {
          files: {
            'verifier/utils.py': 'import functools\n\n\ndef error_factory(default):\n    def decorator(func):\n        @functools.wraps(func)\n        def wrapper(*args, **kwargs):\n            try:\n                return func(*args, **kwargs)\n            except Exception:  # vaudit-expect: swallowed-error-verdict\n                return default\n        return wrapper\n    return decorator\n',
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
  create() {
    return {
      python: {
        except_clause(h, c) {
          const a = c.python;
          if (!h.parent || h.parent.type !== 'try_statement') return;
          const info = a.handlerInfo(h.parent, h);
          if (info.reraises || !info.returns) return;
          const broad = info.types === null || info.types.some((t) => t === 'Exception' || t === 'BaseException');
          if (!broad) return;
          const ret = unparen(info.returns);
          const text = a.src(ret);
          let verdict: string | undefined;
          if (BOOLS.has(text)) verdict = text;
          else if (ret.type === 'identifier') {
            // a parameter of an enclosing function (the decorator factory's `default`)
            const fn = a.functionAt(h);
            let scope = fn?.scope ?? null;
            while (scope && !verdict) {
              if (scope.params.includes(text) && scope !== fn?.scope) verdict = text;
              scope = scope.parent;
            }
          }
          if (!verdict) return;
          const clause = a.src(h).split('\n')[0]!.replace(/:\s*(#.*)?$/, '').trim();
          c.report({
            messageId: 'swallowed',
            data: { clause, verdict, looks: verdict === 'True' ? 'succeeded' : 'failed' },
            at: { start: h.start, end: h.children.find((k) => k.type === ':')?.end ?? h.start + clause.length },
          });
        },
      },
    };
  },
});
