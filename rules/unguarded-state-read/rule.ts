/**
 * unguarded-state-read — application state fetched and parsed on the verdict path with no handling
 * of an unavailable or malformed endpoint (VER-007).
 */
import { defineRule } from '../../src/contract/rule.js';
import { httpJsonRead } from '../../src/lang/python/facts.js';

type Msg = 'unguarded';

const CATCHES = new Set(['ValueError', 'JSONDecodeError', 'RequestException', 'Exception', 'BaseException', 'HTTPError', 'InvalidJSONError']);

export default defineRule<Msg>({
  meta: {
    id: 'unguarded-state-read',
    description: 'State read from an HTTP endpoint and parsed as JSON with no handling of an unavailable or non-JSON reply.',
    defaultSeverity: 'error',
    layers: ['python'],
    languages: ['python'],
    messages: {
      unguarded: {
        what: '`{{expr}}` parses application state with no handling of an unavailable or non-JSON reply.',
        why: 'When the app has closed or crashed, the exception escapes the evaluation and the run looks like an infrastructure failure instead of a failed check.',
        fix: 'Catch `requests.RequestException` and `ValueError` here and return a failed verdict.',
      },
    },
    docs: {
      whatItDoes: 'Flags `response.json()` and `json.loads(response.text)` on the reply of a `requests`/`httpx`/`urlopen` call when no enclosing `try` catches `ValueError`/`RequestException` (or broader) and no decorator of the function turns errors into a verdict.',
      why: 'Closing or losing the app made its state endpoint return non-JSON; the exception propagated through evaluation and the task was skipped as an infrastructure error instead of failing (VER-007).',
      references: ['VER-007'],
    },
    confirm: {
      oracle: 'unguarded-state-read',
      description: 'Runs the function with the state endpoint doubled as unavailable and as non-JSON; an exception escaping the function confirms the unguarded read.',
    },
  },
  create() {
    return {
      python: {
        call(node, c) {
          const a = c.python;
          const call = a.call(node);
          if (!call) return;
          const source = httpJsonRead(a, call);
          if (!source) return;
          if (a.handlersAt(call.node).some((h) => h.types === null || h.types.some((t) => CATCHES.has(t)))) return;
          const fn = a.functionAt(call.node);
          if (fn && a.decoratorSwallow(fn)) return;
          const port = /https?:\/\/(?:localhost|127\.0\.0\.1):(\d+)/.exec(a.src(fn?.node ?? a.ast) + a.text)?.[1];
          c.report({
            messageId: 'unguarded',
            data: { expr: a.src(call.node) },
            at: call.node,
            control: { oracle: 'unguarded-state-read', file: a.path, line: a.line(call.node), qualname: fn?.qualname ?? '', ...(port ? { source: { port: Number(port) } } : {}) },
            // every parse of one response is one defect: reported where it is parsed first
            group: `${source.node.start}`,
          });
        },
      },
    };
  },
});
