/**
 * unsafe-lambda — task-authored Python that the verifier evals on the host
 * and that reaches beyond its arguments: imports, dunders, files, exec,
 * processes, the interpreter.
 */
import { defineRule, type PythonVisitors } from '../../src/contract/rule.js';
import type { PyNode } from '../../src/lang/python/tree.js';

type Msg = 'dunder' | 'builtin' | 'module';

const DANGEROUS_CALLS = new Set(['__import__', 'open', 'exec', 'eval', 'compile', 'getattr', 'setattr', 'delattr', 'globals', 'locals', 'vars', 'input', 'breakpoint', 'exit', 'quit', 'memoryview', 'help']);
/** Standard modules that compute only (no files, processes, network or interpreter access): `__import__` of one
 *  of these by a literal name gives the lambda nothing beyond plain computation. */
const PURE_MODULES = new Set(['math', 'cmath', 'datetime', 'time', 're', 'json', 'statistics', 'decimal', 'fractions', 'itertools', 'functools', 'operator', 'collections', 'string', 'numbers', 'difflib', 'textwrap', 'unicodedata', 'bisect', 'heapq', 'copy']);
const MODULES = new Set(['os', 'subprocess', 'sys', 'shutil', 'socket', 'pathlib', 'importlib', 'builtins', 'ctypes', 'pickle', 'marshal', 'requests', 'urllib', 'http', 'signal', 'pty', 'tempfile', 'io', 'glob', 'multiprocessing', 'threading']);

export default defineRule<Msg>({
  meta: {
    id: 'unsafe-lambda',
    description: 'Task-authored lambdas that the verifier evals on the host and that use imports, dunders, IO, exec or process/system access.',
    defaultSeverity: 'warn',
    layers: ['python'],
    languages: ['json'],
    messages: {
      dunder: {
        what: 'The `{{role}}` lambda uses `{{name}}`.',
        why: 'Dunder access is the standard way out of an eval sandbox (to builtins, classes, modules), and the verifier evals this string on the host.',
        fix: 'Use only the lambda\'s arguments and plain operations.',
      },
      builtin: {
        what: 'The `{{role}}` lambda calls `{{name}}()`.',
        why: 'It reads or changes the host (files, code execution, attributes, the interpreter) when the verifier evals it, and a task check needs only its arguments.',
        fix: 'Remove the call, or review the task pack before running it.',
      },
      module: {
        what: 'The `{{role}}` lambda uses the `{{name}}` module.',
        why: 'It gives task-authored code access to the host\'s processes, files or network when the verifier evals it.',
        fix: 'Compute the check from the lambda\'s arguments instead, or review the task pack before running it.',
      },
    },
    docs: {
      whatItDoes:
        'In Python strings that a verifier evals (`key`, `find`, `pred`, and a ChimeraX file `value` lambda), reports dunder names (`__import__`, `__class__`, `__globals__`…; not `__import__` of a compute-only standard module by literal name, such as `math` or `datetime`), once per name per lambda, calls of builtins that touch the host (`open`, `exec`, `eval`, `compile`, `getattr`, `globals`…), and use of modules such as `os`, `subprocess`, `sys`, `socket`, `pathlib`.',
      why: 'Lambdas in task JSON are code run on the grading host with the verifier\'s privileges. In an unreviewed third-party task pack they can read secrets, tamper with results or the verifier itself, and make the benchmark report whatever the pack wants. Default severity is a warning: bundled, reviewed suites may accept it.',
    },
    confirm: {
      oracle: 'unsafe-lambda',
      staticOnly: true,
      positional: true,
      description: 'No control case: a safety finding, not a verdict claim (the lambda may grade correctly and still reach the host), and running it would do what it warns about; every finding is `unsupported`, saying so and what to change.',
    },
  },
  create(ctx) {
    // lambdas embedded in task JSON only: subscribe to nothing in .py files (the central pass then skips them)
    if (ctx.unit.layer === 'python' && !ctx.unit.embedded) return {};
    // one finding per name per lambda: `__import__` used three times is one problem, not three
    const reported = new Set<string>();
    const report = (ctx: Parameters<NonNullable<PythonVisitors<Msg>['identifier']>>[1], messageId: Msg, role: string, name: string, at: PyNode) => {
      if (reported.has(`${messageId}:${name}`)) return;
      reported.add(`${messageId}:${name}`);
      ctx.report({ messageId, data: { role, name }, at });
    };
    return {
      python: {
        identifier(node, ctx) {
          const code = ctx.unit.embedded;
          if (!code || code.language !== 'python') return;
          const name = node.text;
          const parent = node.parent;
          if (name === '__import__' && parent?.type === 'call' && parent.childForFieldName('function')?.id === node.id) {
            const args = parent.childForFieldName('arguments')?.namedChildren ?? [];
            const m = args.length === 1 ? /^['"]([\w.]+)['"]$/.exec(args[0]!.text) : null;
            if (m && PURE_MODULES.has(m[1]!)) return;
          }
          if (name === '__import__' || (name.length > 4 && name.startsWith('__') && name.endsWith('__'))) {
            report(ctx, 'dunder', code.role, name, node);
            return;
          }
          if (DANGEROUS_CALLS.has(name) && parent?.type === 'call' && parent.childForFieldName('function')?.id === node.id) {
            report(ctx, 'builtin', code.role, name, node);
            return;
          }
          if (MODULES.has(name) && parent?.type === 'attribute' && parent.childForFieldName('object')?.id === node.id) {
            report(ctx, 'module', code.role, name, node);
          }
        },
      },
    };
  },
});
