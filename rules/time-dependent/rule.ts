/**
 * time-dependent — a verdict that depends on the current date, time or
 * timezone: `datetime.now()`, `date.today()`, `time.time()`, `time.localtime()`…
 * in an embedded lambda, or on a verifier's verdict path in a `.py` file.
 */
import { type PyNode as Node, unparen, walk } from '../../src/lang/python/tree.js';
import type { PythonAnalysis } from '../../src/lang/python/types.js';
import { defineRule } from '../../src/contract/rule.js';
import { ownValue } from '../../src/core/own.js';

type Msg = 'lambda' | 'verdict';

/** Callee paths (dotted, as written) that read the clock. */
const CLOCK = new Set([
  'datetime.now', 'datetime.today', 'datetime.utcnow', 'date.today',
  'datetime.datetime.now', 'datetime.datetime.today', 'datetime.datetime.utcnow', 'datetime.date.today',
  'time.time', 'time.time_ns', 'time.localtime', 'time.gmtime', 'time.ctime', 'time.asctime', 'time.strftime',
  'arrow.now', 'arrow.utcnow', 'pendulum.now', 'pendulum.today', 'pd.Timestamp.now', 'pandas.Timestamp.now', 'np.datetime64',
]);
/** Clock functions that read the clock only when called without the time argument. */
const CLOCK_WHEN_ARGS: Record<string, number> = { 'time.localtime': 0, 'time.gmtime': 0, 'time.ctime': 0, 'time.asctime': 0, 'time.strftime': 1, 'np.datetime64': -1 };

function dotted(n: Node | null): string | undefined {
  if (!n) return undefined;
  if (n.type === 'identifier') return n.text;
  if (n.type === 'call') {
    // __import__('datetime').date.today()
    const f = n.childForFieldName('function');
    const a = n.childForFieldName('arguments')?.namedChildren[0];
    const m = a && /^['"]([\w.]+)['"]$/.exec(a.text);
    return f?.text === '__import__' && m ? m[1] : undefined;
  }
  if (n.type === 'attribute') {
    const o = dotted(n.childForFieldName('object'));
    const a = n.childForFieldName('attribute')?.text;
    return o && a ? `${o}.${a}` : undefined;
  }
  return undefined;
}

function clockCall(node: Node): string | undefined {
  const name = dotted(node.childForFieldName('function'));
  if (!name || !CLOCK.has(name)) return undefined;
  const args = node.childForFieldName('arguments');
  const n = args ? args.namedChildren.filter((c) => c && c.type !== 'comment').length : 0;
  const limit = ownValue(CLOCK_WHEN_ARGS, name);
  if (limit === -1) {
    // np.datetime64('now' | 'today')
    const a = args?.namedChildren[0];
    return a && /^['"](now|today)['"]$/.test(a.text) ? name : undefined;
  }
  if (limit !== undefined && n > limit) return undefined;
  return name;
}

const STATEMENTS = /(_statement|_definition|^module|^block)$/;

/** An expression computed from a clock reading (`deadline = time.time() + 60`, `start = time.time()`). */
function fromClock(a: PythonAnalysis, e: Node, depth = 0): boolean {
  if (depth > 3) return false;
  let hit = false;
  walk(unparen(e), (x) => {
    if (hit) return false;
    if (x.type === 'call' && clockCall(x)) hit = true;
    else if (x.type === 'identifier' && x.field !== 'attribute') hit = a.valueSources(x).some((v) => v !== x && fromClock(a, v, depth + 1));
    return undefined;
  });
  return hit;
}

/** Formatting a reading into text (`.strftime(…)`, `.isoformat()`, `str(…)`, an f-string): a name or a log line. */
function formatted(p: Node, child: Node): boolean {
  if (p.type === 'interpolation') return true;
  if (p.type === 'attribute') return p.childForFieldName('object') === child && ['strftime', 'isoformat'].includes(p.childForFieldName('attribute')?.text ?? '');
  const f = p.type === 'call' ? p.childForFieldName('function') : null;
  return !!f && f !== child && f.type === 'identifier' && f.text === 'str';
}

/** In a .py file: is the clock value part of a decision (comparison, condition, return value)? Elapsed
 *  time (`time.time() - start`, a loop until `time.time() > deadline` with the deadline read from the
 *  same clock) and a reading formatted into a returned name are not. */
function onVerdictPath(a: PythonAnalysis, node: Node): boolean {
  let text = false;
  for (let c = node, p = node.parent; p; c = p, p = p.parent) {
    if (formatted(p, c)) text = true;
    switch (p.type) {
      case 'binary_operator': {
        const op = p.childForFieldName('operator')?.text;
        const other = [p.childForFieldName('left'), p.childForFieldName('right')].find((x) => x && x !== c);
        if (op === '-' && other && fromClock(a, other)) return false;
        break;
      }
      case 'comparison_operator': {
        const others = p.namedChildren.filter((x) => x !== c);
        if (others.length && others.every((x) => fromClock(a, x))) return false;
        return true;
      }
      case 'return_statement':
        return !text;
      case 'boolean_operator':
      case 'not_operator':
      case 'assert_statement':
        return true;
      case 'if_statement':
      case 'elif_clause':
      case 'while_statement':
        return true;
      default:
        if (STATEMENTS.test(p.type)) return false;
    }
  }
  return false;
}

export default defineRule<Msg>({
  meta: {
    id: 'time-dependent',
    description: 'A verdict that depends on the current date, time or timezone of the grading host.',
    defaultSeverity: 'warn',
    layers: ['python'],
    unitLocal: true,
    languages: ['json', 'python'],
    confirm: {
      oracle: 'time-dependent',
      positional: true,
      description: 'Runs the lambda, or the verifier function on inputs dated at the first instant, with the host clock at two instants (2024-01-15 12:00 and 2031-07-16 03:00 UTC); confirmed when the same input gives two results.',
    },
    messages: {
      lambda: {
        what: 'The `{{role}}` lambda calls `{{call}}()`.',
        why: 'Its result depends on when and in which timezone the verifier runs, so the same agent output passes one day (or hour) and fails the next.',
        fix: 'Compare against a value recorded in the task or produced inside the task environment.',
      },
      verdict: {
        what: '`{{call}}()` feeds a decision here.',
        why: 'The verdict depends on the grading host\'s clock and timezone (e.g. a date check near midnight), so identical outputs pass or fail by when they are graded.',
        fix: 'Use a timestamp from the task environment or the artifact itself, in UTC, with an explicit tolerance.',
      },
    },
    docs: {
      whatItDoes:
        'Reports calls that read the host clock — `datetime.now()`, `datetime.today()`, `date.today()`, `time.time()`, `time.localtime()`, `time.strftime(fmt)` without a time, `arrow.now()`… — anywhere in a lambda embedded in task JSON, and in verifier `.py` files when the value is part of a comparison, a condition or a returned verdict (logging a timestamp is not reported).',
      why: 'A check like "the log contains today\'s date" (the ChimeraX D-03 limitation in the audit) passes or fails depending on the grading host\'s date and timezone, not on what the agent did: near midnight, or when re-graded later, a correct run fails.',
    },
  },
  create() {
    return {
      python: {
        call(node, ctx) {
          const name = clockCall(node);
          if (!name) return;
          const code = ctx.unit.embedded;
          if (code) {
            if (code.language !== 'python') return;
            ctx.report({ messageId: 'lambda', data: { role: code.role, call: name }, at: node });
            return;
          }
          if (!onVerdictPath(ctx.python, node)) return;
          const a = ctx.python;
          const fn = a.functionAt(node);
          ctx.report({ messageId: 'verdict', data: { call: name }, at: node, ...(fn ? { control: { oracle: 'time-dependent', file: a.path, line: a.line(node), qualname: fn.qualname } } : {}) });
        },
      },
    };
  },
});
